//! Lowering of effects that last for a while (CR 611): combat restrictions until the end of
//! the turn (CR 509.1a-b), exile until the source leaves the battlefield (CR 610.3), and the
//! statics added with them: attack requirements (CR 508.1d),
//! "can't be blocked by <type>s" (CR 509.1b) and P/T changes counted per permanent
//! (CR 613.4c). Kept apart from the core lowering so each file stays readable.

use super::{Affects, Effect, StaticEffect, TargetKind, creature_or_that};
use crate::mtg::compile::{Effect as E, Static, Subject as S};

/// The engine's form of a lasting effect, or None; `earlier` is the target an earlier effect
/// of the same spell or ability named ("it").
pub(super) fn effect(e: &E, earlier: Option<TargetKind>) -> Option<Effect> {
    Some(match e {
        E::Restrict { who, restriction } => {
            Effect::Restrict(*restriction, creature_or_that(who, earlier)?)
        }
        E::ExileUntilLeaves(t) => Effect::ExileUntilLeaves(super::permanent(t)?),
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
