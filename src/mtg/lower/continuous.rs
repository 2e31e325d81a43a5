//! Lowering of effects that last for a while (CR 611): combat restrictions until the end of
//! the turn (CR 509.1a-b), reflexive triggers of spells (CR 603.12), exile until the source leaves the battlefield (CR 610.3), and the
//! statics added with them: attack requirements (CR 508.1d),
//! "can't be blocked by <type>s" (CR 509.1b) and P/T changes counted per permanent
//! (CR 613.4c). Kept apart from the core lowering so each file stays readable.

use super::{
    Affects, Effect, Lowered, StaticEffect, TargetKind, creature_or_that, source_effects,
    spell_effects,
};
use crate::mtg::compile::{Effect as E, Static, Subject as S, Trigger};

/// The engine's form of a lasting effect, or None; `earlier` is the target an earlier effect
/// of the same spell or ability named ("it").
pub(super) fn effect(e: &E, earlier: Option<TargetKind>) -> Option<Effect> {
    Some(match e {
        E::Restrict { who, restriction } => {
            Effect::Restrict(*restriction, creature_or_that(who, earlier)?)
        }
        E::ExileUntilLeaves(t) => Effect::ExileUntilLeaves(super::permanent(t)?),
        // With two players "target opponent" is the opponent, and no player here can have
        // hexproof, so the target is always legal (as for discards).
        E::ChooseDiscard {
            who: S::TargetOpponent,
            nonland,
        } => Effect::ChooseDiscard { nonland: *nonland },
        _ => return None,
    })
}

/// A static of this file's templates in the engine's form, or None.
pub(super) fn static_effect(st: &Static) -> Option<StaticEffect> {
    let on = |affects| StaticEffect {
        affects,
        power: 0,
        toughness: 0,
        keywords: 0,
        unblockable: false,
        cant_block: false,
        condition: None,
        must_attack: false,
        unblockable_by: None,
        per: None,
    };
    Some(match st {
        Static::AttacksEachCombat => StaticEffect {
            must_attack: true,
            ..on(Affects::Source)
        },
        Static::CantBeBlockedBy(t) => StaticEffect {
            unblockable_by: Some(t),
            ..on(Affects::Source)
        },
        Static::AnthemPer {
            who: S::Attached,
            power,
            toughness,
            per,
        } => StaticEffect {
            power: *power,
            toughness: *toughness,
            per: Some(*per),
            ..on(Affects::Attached)
        },
        _ => return None,
    })
}

/// A spell whose last effect is a reflexive trigger (CR 603.12): the effects before it lower
/// as a spell's (their one target chosen as it is cast), the trigger's as a triggered
/// ability's (its one target chosen as it is put on the stack); the spell ends with the marker
/// that triggers it. False if either part does not lower.
pub(super) fn reflexive_spell(es: &[E], out: &mut Lowered) -> bool {
    let Some((E::Reflexive(inner), before)) = es.split_last() else {
        return false;
    };
    let Some(mut effects) = spell_effects(before, &mut out.tokens) else {
        return false;
    };
    let Some(trigger) = source_effects(inner, Some(&mut out.tokens)) else {
        return false;
    };
    // Every effect of the trigger acts on its target: none may name the spell, which is in
    // its owner's graveyard by the time the trigger resolves.
    if trigger.iter().any(|e| e.target().is_none()) {
        return false;
    }
    let Ok(index) = u8::try_from(out.triggers.len()) else {
        return false;
    };
    out.triggers.push((Trigger::Reflexive, trigger));
    effects.push(Effect::Reflexive(index));
    out.effects = effects;
    true
}
