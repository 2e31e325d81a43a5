//! Templates of spells, costs and zones, one test each, named by the Comprehensive Rules
//! section it implements.

use super::*;

use super::tests::{abilities, card};

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

#[test]
fn cr_601_2f_cost_reductions_and_702_41a_affinity() {
    let sprite = abilities(
        "Mocking Sprite",
        "Creature — Faerie Rogue",
        "Flying\nInstant and sorcery spells you cast cost {1} less to cast.",
    );
    assert_eq!(
        sprite[1],
        Ability::Static(Static::InstantSorceryCostLess(1))
    );
    let rebuke = abilities(
        "Luminous Rebuke",
        "Instant",
        "This spell costs {3} less to cast if it targets a tapped creature.\nDestroy target creature.",
    );
    assert_eq!(
        rebuke[0],
        Ability::Static(Static::CostsLess {
            amount: 3,
            when: CostReduction::IfTargetsTapped
        })
    );
    let epiphany = abilities(
        "Arcane Epiphany",
        "Instant",
        "This spell costs {1} less to cast if you control a Wizard.\nDraw three cards.",
    );
    assert_eq!(
        epiphany[0],
        Ability::Static(Static::CostsLess {
            amount: 1,
            when: CostReduction::IfControl("Wizard".into())
        })
    );
    let claws = abilities(
        "Claws Out",
        "Instant",
        "Affinity for Cats (This spell costs {1} less to cast for each Cat you control.)\nCreatures you control get +2/+2 until end of turn.",
    );
    assert_eq!(
        claws[0],
        Ability::Static(Static::CostsLess {
            amount: 1,
            when: CostReduction::PerControlled("Cat".into())
        })
    );
    // A cost increase, or a reduction with another condition, is not guessed.
    for text in [
        "This spell costs {1} more to cast if you control a Wizard.\nDraw a card.",
        "This spell costs {1} less to cast if you control two Wizards.\nDraw a card.",
    ] {
        assert!(
            compile(&card("Odd Spell", "Instant", text)).is_err(),
            "{text}"
        );
    }
}

#[test]
fn cr_702_34a_flashback_and_406_3_exile_a_graveyard() {
    let think = abilities(
        "Think Twice",
        "Instant",
        "Draw a card.\nFlashback {2}{U} (You may cast this card from your graveyard for its flashback cost. Then exile it.)",
    );
    let Ability::Keyword(Keyword::Flashback(cost)) = &think[0] else {
        panic!("{think:?}")
    };
    assert_eq!((cost.generic, cost.colored[1]), (2, 1));
    let angel = abilities(
        "Angel of Finality",
        "Creature — Angel",
        "Flying\nWhen Angel of Finality enters, exile target player's graveyard.",
    );
    assert!(matches!(
        &angel[1],
        Ability::Triggered { effects, .. }
            if effects == &[Effect::ExileGraveyard(Subject::TargetPlayer)]
    ));
    let e = compile(&card(
        "Odd Angel",
        "Creature — Angel",
        "When this creature enters, exile each opponent's graveyard.",
    ))
    .unwrap_err();
    assert_eq!(e.shape, "effect: exile each opponent's");
}
