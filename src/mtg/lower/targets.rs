//! Lowering of optional targets ("up to one target …", CR 115.1, 601.2c): the effect on that
//! one target, which the caller puts after an [`Effect::UpToOne`] marker. Only triggered
//! abilities take them: their controller chooses the target, or none, as the ability goes on
//! the stack (CR 603.3d); a spell or an activated ability with one is refused.

use super::{Effect, TargetKind};
use crate::mtg::compile::{Control, Effect as E, Filter, Subject as S};

/// Whether `e`'s first target is the target an earlier effect named ("that creature …").
pub(super) fn refers_to_first(e: &E) -> bool {
    matches!(e, E::Fight { a: S::That, .. })
}

/// The engine's form of a two-target effect of a spell: fight, "deals damage equal to its
/// power to", two creatures controlled by different players. `earlier` is the spell's target
/// before it, which "that creature" names.
pub(super) fn two(e: &E, earlier: Option<TargetKind>) -> Option<Effect> {
    let creature = |s: &S| match s {
        S::Target(Filter::Creature, Control::You) => Some(TargetKind::CreatureYouControl),
        S::Target(Filter::Creature, Control::Opponent) => {
            Some(TargetKind::CreatureOpponentControls)
        }
        S::Target(Filter::Creature, Control::Anyone) => Some(TargetKind::Creature),
        _ => None,
    };
    match e {
        E::Fight { a, b, mutual } => {
            let first = match (a, earlier) {
                (S::That, Some(k @ TargetKind::CreatureYouControl)) => k,
                (S::That, _) => return None,
                (a, None) => creature(a)?,
                (_, Some(_)) => return None,
            };
            let second = match b {
                S::Target(Filter::CreatureOrPlaneswalker, Control::Opponent) if !mutual => {
                    TargetKind::CreatureOrPlaneswalkerOpponent
                }
                b => creature(b)?,
            };
            Some(Effect::Fight(first, second, *mutual))
        }
        E::BounceBoth(a, b) if earlier.is_none() => {
            Some(Effect::BounceBoth(creature(a)?, creature(b)?))
        }
        _ => None,
    }
}

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

#[cfg(test)]
mod two_tests {
    use super::super::tests::lowered;
    use super::super::{Effect, TargetKind};

    /// CR 601.2c / 701.12: a spell's two targets lower to one effect naming both kinds; the
    /// first of "that creature" is the earlier effect's target.
    #[test]
    fn cr_601_2c_two_targets_lower_to_one_effect_with_both_kinds() {
        let bite = lowered(
            "Instant",
            "Target creature you control deals damage equal to its power to target creature or planeswalker you don't control.",
        )
        .unwrap();
        assert_eq!(
            bite.effects,
            [Effect::Fight(
                TargetKind::CreatureYouControl,
                TargetKind::CreatureOrPlaneswalkerOpponent,
                false
            )]
        );
        let blow = lowered(
            "Instant",
            "Put a +1/+1 counter on target creature you control. Then that creature deals damage equal to its power to target creature an opponent controls.",
        )
        .unwrap();
        assert_eq!(
            blow.effects,
            [
                Effect::Counters(1, TargetKind::CreatureYouControl),
                Effect::Fight(
                    TargetKind::CreatureYouControl,
                    TargetKind::CreatureOpponentControls,
                    false
                )
            ]
        );
        // A triggered ability with two targets is not played yet.
        assert!(
            lowered(
                "Creature — Test",
                "When this creature enters, target creature you control fights target creature you don't control."
            )
            .is_err()
        );
    }
}
