//! Trigger conditions beyond the fixed phrases (CR 603.1): those with a number or a creature
//! type in them, and the "when ~ enters or dies" lines that are two triggers of one effect.

use super::ast::Trigger;
use super::number;
use super::types::creature_type;

/// A trigger condition with a parameter, or one of the phrases added with it.
pub fn trigger(cond: &str) -> Option<Trigger> {
    match cond {
        "whenever you attack" => return Some(Trigger::YouAttackWith(1)),
        "whenever you draw a card" => return Some(Trigger::YouDraw),
        "whenever you gain life for the first time each turn" => {
            return Some(Trigger::GainLifeFirstTime { your_turn: false });
        }
        "whenever you gain life for the first time during each of your turns" => {
            return Some(Trigger::GainLifeFirstTime { your_turn: true });
        }
        "whenever ~ or another creature you control dies" => {
            return Some(Trigger::ThisOrAnotherCreatureYouControlDies);
        }
        "whenever you cast a spell during an opponent's turn" => {
            return Some(Trigger::CastSpellOpponentsTurn);
        }
        "whenever equipped creature deals combat damage to a player" => {
            return Some(Trigger::EquippedCombatDamageToPlayer);
        }
        "whenever you cast an instant or sorcery spell" => {
            return Some(Trigger::CastInstantOrSorcery);
        }
        _ => {}
    }
    if let Some(n) = cond
        .strip_prefix("whenever ~ attacks while you control a creature with power ")
        .and_then(|r| r.strip_suffix(" or greater"))
    {
        return Some(Trigger::AttacksWhileControlPower(number(n)?));
    }
    if let Some(n) = cond
        .strip_prefix("whenever you attack with ")
        .and_then(|r| r.strip_suffix(" or more creatures"))
    {
        return Some(Trigger::YouAttackWith(number(n)?));
    }
    if let Some(t) = cond
        .strip_prefix("whenever another ")
        .and_then(|r| r.strip_suffix(" you control enters"))
    {
        return Some(Trigger::AnotherOfTypeEnters(creature_type(t)?));
    }
    if let Some(t) = cond
        .strip_prefix("whenever you cast a noncreature or ")
        .and_then(|r| r.strip_suffix(" spell"))
    {
        return Some(Trigger::CastNoncreatureOrType(creature_type(t)?));
    }
    None
}

/// CR 603.2: "When ~ enters or dies, <effect>" / "Whenever ~ enters or attacks, <effect>"
/// trigger on either event; they are written here as the two triggers they play as, each with
/// the whole effect.
pub fn either_event(line: &str) -> Option<[String; 2]> {
    let (cond, body) = line.split_once(", ")?;
    let (head, second) = [" enters or dies", " enters or attacks"]
        .iter()
        .find_map(|sfx| Some((cond.strip_suffix(sfx)?, &sfx[" enters or ".len()..])))?;
    (head == "when ~" || head == "whenever ~").then_some(())?;
    Some([
        format!("{head} enters, {body}"),
        format!("{head} {second}, {body}"),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_603_1_triggers_with_a_number_or_a_creature_type() {
        assert_eq!(
            trigger("whenever ~ attacks while you control a creature with power 4 or greater"),
            Some(Trigger::AttacksWhileControlPower(4))
        );
        assert_eq!(
            trigger("whenever you attack with three or more creatures"),
            Some(Trigger::YouAttackWith(3))
        );
        assert_eq!(
            trigger("whenever another angel you control enters"),
            Some(Trigger::AnotherOfTypeEnters("Angel"))
        );
        assert_eq!(
            trigger("whenever you cast a noncreature or dragon spell"),
            Some(Trigger::CastNoncreatureOrType("Dragon"))
        );
        assert_eq!(
            trigger("whenever another nontoken creature you control enters"),
            None
        );
        assert_eq!(trigger("whenever you attack with a creature"), None);
    }

    #[test]
    fn cr_603_2_enters_or_dies_is_two_triggers_of_one_effect() {
        assert_eq!(
            either_event("when ~ enters or dies, surveil 1"),
            Some([
                "when ~ enters, surveil 1".to_string(),
                "when ~ dies, surveil 1".to_string()
            ])
        );
        assert_eq!(
            either_event("whenever ~ enters or attacks, draw a card"),
            Some([
                "whenever ~ enters, draw a card".to_string(),
                "whenever ~ attacks, draw a card".to_string()
            ])
        );
        assert_eq!(
            either_event("whenever ~ enters or leaves, draw a card"),
            None
        );
    }
}
