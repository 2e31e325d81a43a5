//! Lowering of the effects whose size or whether they happen is decided as they resolve
//! (doubling, "for each", an exact life total, "… instead") and of the untap rules (untap,
//! stun counters, combat damage prevention). Kept apart from the core lowering so each file
//! stays readable.

use super::{Effect, TargetKind, cond, creature_or_that, keywords, permanent};
use crate::mtg::compile::{Effect as E, Subject as S};

/// The engine's form of one of these effects, or None (not one of them, or not one the engine
/// plays). `earlier` is the target an earlier effect of the same ability chose ("it").
pub(super) fn effect(e: &E, earlier: Option<TargetKind>) -> Option<Effect> {
    Some(match e {
        E::DoublePower(s) => Effect::DoublePower(creature_or_that(s, earlier)?),
        E::IfLifeExactly {
            who: S::TargetPlayer,
            life,
            then,
        } => match **then {
            E::Damage {
                amount,
                to: S::ThatPlayer,
            } => Effect::DamageIfLife(*life, amount, TargetKind::Player),
            _ => return None,
        },
        E::Untap(S::This) => Effect::Untap(TargetKind::Source),
        E::Untap(S::That) => Effect::Untap(creature_or_that(&S::That, earlier)?),
        E::Untap(s) => Effect::Untap(permanent(s)?),
        E::Stun { on, count } => Effect::Stun(*count, creature_or_that(on, earlier)?),
        E::PreventCombatDamageTo(s) => Effect::PreventCombatDamage(creature_or_that(s, earlier)?),
        E::GainLifePer { amount, per } => Effect::GainLifePer(*amount, *per),
        E::DrawPer(per) => Effect::DrawPer(*per),
        E::Pump {
            who: S::Counted(per),
            power,
            toughness,
            keywords: k,
        } => Effect::PumpPer(*per, *power, *toughness, keywords(k)?),
        E::InsteadIf {
            condition,
            normal,
            instead,
        } => match (&**normal, &**instead) {
            (
                E::Pump {
                    who,
                    power,
                    toughness,
                    keywords: k1,
                },
                E::Pump {
                    who: S::That,
                    power: p2,
                    toughness: t2,
                    keywords: k2,
                },
            ) if k1.is_empty() && k2.is_empty() => Effect::PumpInsteadIf(
                cond(condition)?,
                [*power, *toughness],
                [*p2, *t2],
                creature_or_that(who, earlier)?,
            ),
            _ => return None,
        },
        // With two players "target opponent" is the opponent and always a legal target.
        E::LoseLifeEqual {
            who: S::TargetOpponent | S::EachOpponent,
            amount,
        } => Effect::OpponentLosesLifeEqual(*amount),
        _ => return None,
    })
}

/// An effect that names the object an earlier effect of the same ability targeted ("it",
/// "that creature", CR 608.2c): it acts on that target and adds no target of its own.
pub(super) fn refers_to_that(e: &E) -> bool {
    matches!(
        e,
        E::Pump { who: S::That, .. }
            | E::Counters { on: S::That, .. }
            | E::Stun { on: S::That, .. }
            | E::PreventCombatDamageTo(S::That)
            | E::Untap(S::That)
            | E::DoublePower(S::That)
    )
}
