//! Templates of kicker, searches, optional and up-to effects and costs (the second FDN
//! round), one test each, named by the Comprehensive Rules section it implements.

use super::*;

use super::tests::{abilities, card};

#[test]
fn cr_701_23_a_search_for_an_instant_or_sorcery_of_one_mana_value() {
    let a = abilities(
        "Micromancer",
        "Creature — Human Wizard",
        "When Micromancer enters, you may search your library for an instant or sorcery card \
         with mana value 1, reveal it, put it into your hand, then shuffle.",
    );
    assert_eq!(
        a,
        [Ability::Triggered {
            when: Trigger::Enters,
            condition: None,
            effects: vec![Effect::Search {
                what: SearchFor::InstantOrSorceryWithManaValue(1),
                count: 1,
                up_to: false,
                to: SearchTo::Hand,
                optional: true,
            }],
        }]
    );
    // Two of them is not this template.
    assert!(
        compile(&card(
            "X",
            "Sorcery",
            "Search your library for two instant or sorcery cards with mana value 1, put them \
             into your hand, then shuffle."
        ))
        .is_err()
    );
}

#[test]
fn cr_702_33a_kicker_is_a_keyword_and_the_kicked_text_an_alternative() {
    let a = abilities(
        "Burst Lightning",
        "Instant",
        "Kicker {4} (You may pay an additional {4} as you cast this spell.)\nBurst Lightning \
         deals 2 damage to any target. If this spell was kicked, it deals 4 damage instead.",
    );
    assert!(matches!(a[0], Ability::Keyword(Keyword::Kicker(c)) if c.generic == 4));
    assert!(matches!(&a[1], Ability::Spell(e) if matches!(e[..], [Effect::Kicked { .. }])));
}

#[test]
fn cr_605_1a_a_mana_ability_that_costs_mana_is_not_read_as_tap_only() {
    let a = abilities("X", "Creature — Elf", "{T}: Add {G}.");
    assert_eq!(
        a,
        [Ability::Mana {
            tap: true,
            colors: vec![4]
        }]
    );
    let e = compile(&card("X", "Creature — Elf", "{1}, {T}: Add {G}.")).unwrap_err();
    assert_eq!(e.shape, "mana ability with a cost beyond {T}");
}

#[test]
fn cr_400_7_return_a_small_nonland_permanent_card_if_kicked() {
    let a = abilities(
        "Sun-Blessed Healer",
        "Creature — Human Cleric",
        "When this creature enters, if it was kicked, return target nonland permanent card \
         with mana value 2 or less from your graveyard to the battlefield.",
    );
    assert_eq!(
        a,
        [Ability::Triggered {
            when: Trigger::Enters,
            condition: Some(Condition::Kicked),
            effects: vec![Effect::ReturnSmallPermanentFromGraveyard {
                max_mana_value: 2,
                battlefield: true
            }],
        }]
    );
}

#[test]
fn cr_208_3_a_sacrificed_source_deals_damage_equal_to_its_power() {
    let a = abilities(
        "Heartfire Immolator",
        "Creature — Human Wizard",
        "{R}, Sacrifice Heartfire Immolator: It deals damage equal to its power to target \
         creature or planeswalker.",
    );
    let Ability::Activated { cost, effects, .. } = &a[0] else {
        panic!("{a:?}")
    };
    assert!(cost.sacrifice_self);
    assert_eq!(
        effects,
        &[Effect::DamageEqualToPower(
            Subject::TargetCreatureOrPlaneswalker
        )]
    );
}

#[test]
fn cr_113_6_an_ability_that_returns_its_card_from_the_graveyard() {
    let a = abilities(
        "Reassembling Skeleton",
        "Creature — Skeleton Warrior",
        "{1}{B}: Return Reassembling Skeleton from your graveyard to the battlefield tapped.",
    );
    let Ability::Activated { cost, effects, .. } = &a[0] else {
        panic!("{a:?}")
    };
    assert_eq!(cost.mana.total(), 2);
    assert_eq!(effects, &[Effect::ReturnThisFromGraveyard { tapped: true }]);
}
