//! Lowering of the spell, cost and zone templates added after the first engine: mass damage
//! and returns, counterspells by spell type, returns from a graveyard. Kept apart from the core lowering so each file
//! stays readable.

use super::{Effect, TargetKind, kw};
use crate::mtg::compile::{Control, Effect as E, Subject as S};

/// The engine's form of an effect the core lowering does not know, or None.
pub(super) fn effect(e: &E) -> Option<Effect> {
    Some(match e {
        E::Damage {
            amount,
            to: S::EachCreature(Control::Anyone),
        } => Effect::DamageCreatures(*amount, 0),
        E::Damage {
            amount,
            to: S::EachCreatureWithoutFlying,
        } => Effect::DamageCreatures(*amount, kw::FLYING),
        E::Bounce(S::AllAttacking) => Effect::BounceAttackers,
        E::CounterSpellOf { creature } => Effect::Counter(if *creature {
            TargetKind::CreatureSpell
        } else {
            TargetKind::NoncreatureSpell
        }),
        E::ReturnFromGraveyard {
            creature,
            battlefield,
        } => Effect::ReturnFromGraveyard(
            if *creature {
                TargetKind::CreatureCardInYourGraveyard
            } else {
                TargetKind::PermanentCardInYourGraveyard
            },
            *battlefield,
        ),
        E::ExileGraveyard(S::TargetPlayer) => Effect::ExileGraveyard(TargetKind::Player),
        E::DamageEqualToPower(to @ (S::TargetCreatureOrPlaneswalker | S::Target(..))) => {
            Effect::DamageEqualToPower(super::target(to)?)
        }
        E::ReturnThisFromGraveyard { tapped } => Effect::ReturnThisFromGraveyard(*tapped),
        E::ReturnSmallPermanentFromGraveyard {
            max_mana_value,
            battlefield,
        } => Effect::ReturnFromGraveyard(
            TargetKind::SmallNonlandPermanentCardInYourGraveyard(*max_mana_value),
            *battlefield,
        ),
        _ => return None,
    })
}
