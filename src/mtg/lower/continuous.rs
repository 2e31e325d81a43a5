//! Lowering of effects that last for a while (CR 611): combat restrictions until the end of
//! the turn (CR 509.1a-b). Kept apart from the core lowering so each file stays readable.

use super::{Effect, TargetKind, creature_or_that};
use crate::mtg::compile::Effect as E;

/// The engine's form of a lasting effect, or None; `earlier` is the target an earlier effect
/// of the same spell or ability named ("it").
pub(super) fn effect(e: &E, earlier: Option<TargetKind>) -> Option<Effect> {
    Some(match e {
        E::Restrict { who, restriction } => {
            Effect::Restrict(*restriction, creature_or_that(who, earlier)?)
        }
        _ => return None,
    })
}
