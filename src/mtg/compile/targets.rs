//! Target counts (CR 115.1, 601.2c): "up to one [other] target …", a target its controller
//! may leave unchosen, and effects with two targets (fight, CR 701.12; "deals damage equal to
//! its power to"; two creatures controlled by different players). Only the effects the engine
//! plays are templates here; any other sentence stays refused with its fragment named.

use super::ast::{Control, Effect, Filter, Subject};

/// A whole effect text of two sentences that is one template: "choose two target creatures
/// controlled by different players. return those creatures to their owners' hands" (CR 400.7).
pub(super) fn whole(text: &str) -> Option<Effect> {
    (text
        == "choose two target creatures controlled by different players. return those creatures to their owners' hands")
        .then_some(Effect::BounceBoth(
            Subject::Target(Filter::Creature, Control::You),
            Subject::Target(Filter::Creature, Control::Opponent),
        ))
}

/// "<a> fights <b>" (CR 701.12a) and "[then] <a> deals damage equal to its power to <b>"
/// (CR 120.3), where `a` is a target creature or "that creature" and `b` a target.
pub(super) fn fight(s: &str, subject: fn(&str) -> Option<Subject>) -> Option<Effect> {
    let s = s.strip_prefix("then ").unwrap_or(s);
    let (a, b, mutual) = if let Some((a, b)) = s.split_once(" deals damage equal to its power to ")
    {
        (a, b, false)
    } else {
        let (a, b) = s.split_once(" fights ")?;
        (a, b, true)
    };
    let a = match a {
        "that creature" => Subject::That,
        a => match subject(a)? {
            t @ Subject::Target(Filter::Creature, _) => t,
            _ => return None,
        },
    };
    let b = match subject(b)? {
        t @ Subject::Target(Filter::Creature | Filter::CreatureOrPlaneswalker, _) => t,
        _ => return None,
    };
    Some(Effect::Fight { a, b, mutual })
}

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

    fn spell(name: &str, text: &str) -> Vec<Effect> {
        match abilities(name, "Instant", text).pop() {
            Some(Ability::Spell(es)) => es,
            other => panic!("{other:?}"),
        }
    }

    /// CR 701.12a / 120.3: fights and one-way "deals damage equal to its power to", with two
    /// targets or "that creature" and a second target.
    #[test]
    fn cr_701_12_fight_and_damage_equal_to_power_take_two_targets() {
        let you = Subject::Target(Filter::Creature, Control::You);
        let theirs = Subject::Target(Filter::Creature, Control::Opponent);
        assert_eq!(
            spell(
                "Bite Down",
                "Target creature you control deals damage equal to its power to target creature or planeswalker you don't control."
            ),
            [Effect::Fight {
                a: you,
                b: Subject::Target(Filter::CreatureOrPlaneswalker, Control::Opponent),
                mutual: false
            }]
        );
        assert_eq!(
            spell(
                "Felling Blow",
                "Put a +1/+1 counter on target creature you control. Then that creature deals damage equal to its power to target creature an opponent controls."
            ),
            [
                Effect::Counters {
                    on: you,
                    count: 1,
                    plus: true
                },
                Effect::Fight {
                    a: Subject::That,
                    b: theirs,
                    mutual: false
                }
            ]
        );
        assert_eq!(
            fight(
                "target creature you control fights target creature you don't control",
                super::super::subject
            ),
            Some(Effect::Fight {
                a: you,
                b: theirs,
                mutual: true
            })
        );
        // Only creatures fight: a player is no second target.
        assert_eq!(
            fight(
                "target creature you control fights target player",
                super::super::subject
            ),
            None
        );
    }

    /// CR 400.7: two target creatures controlled by different players, both returned.
    #[test]
    fn cr_400_7_run_away_together_returns_two_targets() {
        assert_eq!(
            spell(
                "Run Away Together",
                "Choose two target creatures controlled by different players. Return those creatures to their owners' hands."
            ),
            [Effect::BounceBoth(
                Subject::Target(Filter::Creature, Control::You),
                Subject::Target(Filter::Creature, Control::Opponent)
            )]
        );
    }

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
