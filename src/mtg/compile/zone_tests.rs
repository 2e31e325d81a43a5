//! Templates of spells, costs and zones, one test each, named by the Comprehensive Rules
//! section it implements.

use super::*;

fn card(name: &str, type_line: &str, text: &str) -> CardData {
    CardData {
        name: name.into(),
        mana_cost: "{1}".into(),
        type_line: type_line.into(),
        oracle_text: text.into(),
        power: Some("1".into()),
        toughness: Some("1".into()),
        keywords: vec![],
        loyalty: None,
    }
}

fn abilities(name: &str, type_line: &str, text: &str) -> Vec<Ability> {
    compile(&card(name, type_line, text))
        .unwrap_or_else(|e| panic!("{text}: {e:?}"))
        .abilities
}

#[test]
fn cr_113_7a_a_sacrificed_source_that_deals_damage_is_it() {
    let a = abilities(
        "Fanatical Firebrand",
        "Creature — Goblin Pirate",
        "{T}, Sacrifice Fanatical Firebrand: It deals 1 damage to any target.",
    );
    let Ability::Activated { cost, effects, .. } = &a[0] else {
        panic!("{a:?}")
    };
    assert!(cost.tap && cost.sacrifice_self);
    assert_eq!(
        effects,
        &[Effect::Damage {
            amount: 1,
            to: Subject::AnyTarget
        }]
    );
    // Without the sacrifice, "it" is not read as the source.
    let e = compile(&card(
        "Spark Thrower",
        "Creature — Goblin",
        "{T}: It deals 1 damage to any target.",
    ))
    .unwrap_err();
    assert_eq!(e.shape, "effect: it deals N");
}

#[test]
fn cr_400_7_return_a_card_from_your_graveyard() {
    let a = abilities(
        "Zombify",
        "Sorcery",
        "Return target creature card from your graveyard to the battlefield.",
    );
    assert_eq!(
        a,
        [Ability::Spell(vec![Effect::ReturnFromGraveyard {
            creature: true,
            battlefield: true
        }])]
    );
    let t = abilities(
        "Elvish Regrower",
        "Creature — Elf Druid",
        "When this creature enters, return target permanent card from your graveyard to your hand.",
    );
    assert!(matches!(
        &t[0],
        Ability::Triggered { effects, .. } if effects == &[Effect::ReturnFromGraveyard {
            creature: false,
            battlefield: false
        }]
    ));
    // A card of another quality, or from any graveyard, is not guessed.
    let e = compile(&card(
        "Grim Return",
        "Sorcery",
        "Return target creature card from a graveyard to the battlefield.",
    ))
    .unwrap_err();
    assert_eq!(e.shape, "effect: return target creature");
}
