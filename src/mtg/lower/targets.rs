//! Lowering of optional targets ("up to one target …", CR 115.1, 601.2c): the effect on that
//! one target, which the caller puts after an [`Effect::UpToOne`] marker. Only triggered
//! abilities take them: their controller chooses the target, or none, as the ability goes on
//! the stack (CR 603.3d); a spell or an activated ability with one is refused.

use super::{Effect, TargetKind};
use crate::mtg::compile::{Control, Effect as E, Filter, Subject as S};

/// The engine's form of an "up to one target" effect, or None if `e` is not one it plays.
pub(super) fn up_to_one(e: &E) -> Option<Effect> {
    match e {
        // "exile up to one target card from a graveyard" (CR 406.3).
        E::ExileFromGraveyard(1) => Some(Effect::ExileCard(TargetKind::CardInAGraveyard)),
        E::UpToOne(inner) => match inner.as_ref() {
            E::Bounce(S::OtherTarget(Filter::Permanent, Control::You)) => {
                Some(Effect::Bounce(TargetKind::OtherPermanentYouControl))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::lowered;
    use super::super::{Effect, TargetKind};
    use crate::mtg::compile::Trigger;

    /// CR 601.2c / 603.3d: a trigger's "up to one target" lowers to the optional-target
    /// marker before the effect on that one target.
    #[test]
    fn cr_601_2c_an_up_to_one_trigger_lowers_with_its_marker() {
        let wolf = lowered(
            "Creature — Wolf",
            "When this creature enters, exile up to one target card from a graveyard.",
        )
        .unwrap();
        assert_eq!(
            wolf.triggers,
            [(
                Trigger::Enters,
                vec![
                    Effect::UpToOne,
                    Effect::ExileCard(TargetKind::CardInAGraveyard)
                ]
            )]
        );
        let pup = lowered(
            "Creature — Dog",
            "When Test Card enters, return up to one other target permanent you control to its owner's hand.",
        )
        .unwrap();
        assert_eq!(
            pup.triggers[0].1,
            [
                Effect::UpToOne,
                Effect::Bounce(TargetKind::OtherPermanentYouControl)
            ]
        );
    }

    /// An optional target is chosen only as a trigger goes on the stack: an activated
    /// ability or a spell with one stays refused (CR 602.2b, 601.2c).
    #[test]
    fn cr_601_2c_up_to_one_outside_a_trigger_is_refused() {
        assert!(
            lowered(
                "Artifact",
                "{1}, {T}: Exile up to one target card from a graveyard."
            )
            .is_err()
        );
        assert!(lowered("Instant", "Exile up to one target card from a graveyard.").is_err());
    }
}
