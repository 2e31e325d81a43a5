//! Lowering of kicker (CR 702.33): the kicker cost is the card's ([`Lowered::kicker`]); a
//! spell whose text says what it does "instead" when kicked keeps both effect lists, which
//! must target the same kind of object (the engine keeps one target slot per spell, chosen as
//! it is cast together with the choice to kick). Modal kicked spells are refused.

use super::{Lowered, mode_count, mode_target, spell_effects};
use crate::mtg::compile::Effect as E;

/// Whether a spell's effects are one kicked alternative.
pub(super) fn is_kicked(es: &[E]) -> bool {
    matches!(es, [E::Kicked { .. }])
}

/// Lowers "<effects>. If this spell was kicked, <kicked> instead." into `out`; false when the
/// engine cannot play it.
pub(super) fn spell(es: &[E], out: &mut Lowered) -> bool {
    let [E::Kicked { normal, kicked }] = es else {
        return false;
    };
    if out.kicker.is_none() {
        return false;
    }
    let (Some(n), Some(k)) = (
        spell_effects(normal, &mut out.tokens),
        spell_effects(kicked, &mut out.tokens),
    ) else {
        return false;
    };
    if mode_count(&n) + mode_count(&k) != 0 || mode_target(&n, None) != mode_target(&k, None) {
        return false;
    }
    out.effects = n;
    out.kicked_effects = k;
    true
}
