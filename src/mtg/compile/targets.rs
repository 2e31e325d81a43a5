//! Target counts (CR 115.1, 601.2c): "up to one [other] target …", a target its controller
//! may leave unchosen. Only the effects the engine plays with an optional target are
//! templates here; any other "up to" sentence stays refused with its fragment named.

use super::ast::{Control, Effect, Filter, Subject};

/// "return up to one other target permanent you control to its owner's hand" (CR 400.7,
/// 115.1): the permanent is one of the controller's, never the ability's source.
pub(super) fn up_to_one(s: &str) -> Option<Effect> {
    let t = s
        .strip_prefix("return up to one ")?
        .strip_suffix(" to its owner's hand")?;
    let subject = match t {
        "other target permanent you control" => {
            Subject::OtherTarget(Filter::Permanent, Control::You)
        }
        _ => return None,
    };
    Some(Effect::UpToOne(Box::new(Effect::Bounce(subject))))
}

#[cfg(test)]
mod tests {
    use super::super::tests::abilities;
    use super::*;
    use crate::mtg::compile::{Ability, Trigger};

    /// CR 115.1 / 601.2c: "up to one other target permanent you control" is one optional
    /// target, not the source.
    #[test]
    fn cr_115_1_up_to_one_other_target_permanent_you_control() {
        let pup = abilities(
            "Mischievous Pup",
            "Creature — Dog",
            "Flash\nWhen Mischievous Pup enters, return up to one other target permanent you control to its owner's hand.",
        );
        assert_eq!(
            pup[1],
            Ability::Triggered {
                when: Trigger::Enters,
                condition: None,
                effects: vec![Effect::UpToOne(Box::new(Effect::Bounce(
                    Subject::OtherTarget(Filter::Permanent, Control::You)
                )))],
            }
        );
        assert_eq!(
            up_to_one("return up to one target permanent you control to its owner's hand"),
            None
        );
        assert_eq!(
            up_to_one("return up to two other target permanents you control to its owner's hand"),
            None
        );
    }
}
