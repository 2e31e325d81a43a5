//! Static abilities added for Foundations' statics (CR 604): attack requirements (CR 508.1d),
//! blocking restrictions by creature type (CR 509.1b) and P/T changes counted per permanent
//! (CR 613.4c, 611.3a). Each is one exact sentence; anything else is left to the other static
//! templates (and refused if none matches).

use super::ast::{Static, StaticCount, Subject};
use super::effects::pt_change;
use super::types::creature_type;

/// The basic land types (CR 205.3i), as printed.
const BASIC_LAND_TYPES: [&str; 5] = ["Plains", "Island", "Swamp", "Mountain", "Forest"];

/// One of this file's static templates, or None.
pub(super) fn static_ability(line: &str) -> Option<Static> {
    if line == "~ attacks each combat if able" {
        return Some(Static::AttacksEachCombat);
    }
    if let Some(t) = line.strip_prefix("~ can't be blocked by ") {
        // "Walls" → "Wall": one creature type, plural.
        return Some(Static::CantBeBlockedBy(creature_type(
            t.strip_suffix('s')?,
        )?));
    }
    anthem_per(line)
}

/// "enchanted creature gets +1/+1 for each forest you control".
fn anthem_per(line: &str) -> Option<Static> {
    let rest = line.strip_prefix("enchanted creature gets ")?;
    let (pt, per) = rest.split_once(" for each ")?;
    let (power, toughness) = pt_change(pt)?;
    let land = per.strip_suffix(" you control")?;
    let land = BASIC_LAND_TYPES
        .iter()
        .copied()
        .find(|t| t.eq_ignore_ascii_case(land))?;
    Some(Static::AnthemPer {
        who: Subject::Attached,
        power,
        toughness,
        per: StaticCount::LandsYouControl(land),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_508_1d_attacks_each_combat_and_509_1b_cant_be_blocked_by_a_type() {
        assert_eq!(
            static_ability("~ attacks each combat if able"),
            Some(Static::AttacksEachCombat)
        );
        assert_eq!(
            static_ability("~ can't be blocked by walls"),
            Some(Static::CantBeBlockedBy("Wall"))
        );
        assert_eq!(static_ability("~ can't be blocked by gizmos"), None);
        assert_eq!(static_ability("~ attacks each turn if able"), None);
    }

    #[test]
    fn cr_613_4c_gets_plus_for_each_land_of_a_type_you_control() {
        assert_eq!(
            static_ability("enchanted creature gets +1/+1 for each forest you control"),
            Some(Static::AnthemPer {
                who: Subject::Attached,
                power: 1,
                toughness: 1,
                per: StaticCount::LandsYouControl("Forest")
            })
        );
        // Only a basic land type is counted; other counts are not guessed.
        assert_eq!(
            static_ability("enchanted creature gets +1/+1 for each creature you control"),
            None
        );
    }

    #[test]
    fn cr_610_3_exile_until_the_source_leaves_the_battlefield() {
        use super::super::ast::{Control, Effect, Filter};
        use super::super::effects::effect;
        assert_eq!(
            effect(
                "exile target nonland permanent an opponent controls until ~ leaves the battlefield"
            ),
            Some(Effect::ExileUntilLeaves(Subject::Target(
                Filter::NonlandPermanent,
                Control::Opponent
            )))
        );
        // Another duration is not this template (and no other template reads it).
        assert_eq!(effect("exile target creature until your next turn"), None);
    }

    #[test]
    fn cr_603_12_when_you_do_is_a_reflexive_trigger_after_the_spell_effect() {
        use super::super::ast::{Ability, Control, Effect, Filter};
        use crate::mtg::facts::CardData;
        let d = |text: &str| CardData {
            name: "Faebloom Trick".into(),
            mana_cost: "{2}{U}".into(),
            type_line: "Instant".into(),
            oracle_text: text.into(),
            power: None,
            toughness: None,
            keywords: vec![],
            loyalty: None,
        };
        let c = super::super::compile(&d("Create two 1/1 blue Faerie creature tokens with \
             flying. When you do, tap target creature an opponent controls."))
        .unwrap();
        let Ability::Spell(es) = &c.abilities[0] else {
            panic!("{c:?}")
        };
        assert!(matches!(es[0], Effect::Tokens { count: 2, .. }), "{es:?}");
        assert_eq!(
            es[1],
            Effect::Reflexive(vec![Effect::Tap(Subject::Target(
                Filter::Creature,
                Control::Opponent
            ))])
        );
        // The reflexive part must compile whole too.
        assert!(super::super::compile(&d("Draw a card. When you do, frobnicate.")).is_err());
    }

    #[test]
    fn cr_701_9b_a_discard_chosen_from_a_revealed_hand() {
        use super::super::ast::Effect;
        use super::super::effects::effects;
        assert_eq!(
            effects(
                "target opponent reveals their hand. you choose a nonland card from it. \
                 that player discards that card."
            )
            .unwrap(),
            vec![Effect::ChooseDiscard {
                who: Subject::TargetOpponent,
                nonland: true
            }]
        );
        assert!(
            effects(
                "target opponent reveals their hand. you choose a creature card from it. \
                 that player discards that card."
            )
            .is_err()
        );
    }

    #[test]
    fn cr_509_1_restrictions_until_the_end_of_the_turn() {
        use super::super::ast::{Control, Effect, Filter, Restriction};
        use super::super::effects::effect;
        let target = Subject::Target(Filter::Creature, Control::Anyone);
        assert_eq!(
            effect("target creature can't block this turn"),
            Some(Effect::Restrict {
                who: target,
                restriction: Restriction::CantBlock
            })
        );
        assert_eq!(
            effect("target creature can't be blocked this turn"),
            Some(Effect::Restrict {
                who: target,
                restriction: Restriction::CantBeBlocked
            })
        );
        // Without "this turn" it is a static, not this effect; other durations are refused.
        assert_eq!(effect("target creature can't block"), None);
        assert_eq!(
            effect("target creature can't block until your next turn"),
            None
        );
        assert_eq!(effect("target gizmo can't block this turn"), None);
    }
}
