//! Lowering of "you may" (CR 603.5, 608.2d): the compiler's marker becomes the engine's
//! [`Effect::May`] with the cost accepting it pays; the effects after it lower as usual, in
//! the same list (so "it" after a target and the one-target rule hold across the marker).
//! At most one marker per list (checked with the decisions that end a resolution).

use super::{Effect, MayCost};
use crate::mtg::compile::{Effect as E, MayAction};

/// The engine's form of a "you may" marker, or None.
pub(super) fn effect(e: &E) -> Option<Effect> {
    let action = match e {
        E::May(action) => action,
        // "look at the top N …" (CR 401.5): a decision, so the last effect (checked with
        // the others).
        E::LookAt(l) => return Some(Effect::Look(*l)),
        _ => return None,
    };
    Some(Effect::May(match *action {
        MayAction::Nothing => MayCost::Nothing,
        MayAction::Pay(c) => MayCost::Pay {
            generic: c.generic,
            colored: c.colored,
        },
        MayAction::SacrificeAnotherCreature => MayCost::SacrificeAnotherCreature,
        MayAction::DiscardCard => MayCost::DiscardCard,
    }))
}
