//! Lowering of the effects that came with costs chosen as a spell is cast: "each opponent
//! loses X life; you gain the life lost this way" (X chosen in the cast, CR 107.3a) and
//! "exile target <permanent>" (CR 406.3), the effect of the sacrifice-or-pay spell. An exile
//! whose object is not one target permanent (a graveyard card, a spell, this object) is
//! left to other templates.

use super::{Effect, TargetKind};
use crate::mtg::compile::{Effect as E, Subject as S};

/// The engine's form of these effects, or None.
pub(super) fn effect(e: &E) -> Option<Effect> {
    Some(match e {
        E::DrainX => Effect::DrainX,
        E::Exile(t @ (S::TargetCreatureOrPlaneswalker | S::Target(..))) => {
            let k = super::permanent(t)?;
            if k.in_graveyard()
                || k.is_spell()
                || matches!(
                    k,
                    TargetKind::Source | TargetKind::Attached | TargetKind::Triggering
                )
            {
                return None;
            }
            Effect::Exile(k)
        }
        _ => return None,
    })
}
