//! One test per template, named by the Comprehensive Rules section it implements.

use super::*;

pub(crate) fn card(name: &str, type_line: &str, text: &str) -> CardData {
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

pub(crate) fn abilities(name: &str, type_line: &str, text: &str) -> Vec<Ability> {
    compile(&card(name, type_line, text))
        .unwrap_or_else(|e| panic!("{text}: {e:?}"))
        .abilities
}

#[test]
fn cr_207_2_reminder_text_and_201_5_self_reference() {
    let a = abilities(
        "Gorehorn Raider",
        "Creature — Minotaur",
        "Flying (This creature can fly.)\nWhen Gorehorn Raider enters, this creature deals 2 damage to any target.",
    );
    assert_eq!(a[0], Ability::Keyword(Keyword::Flying));
    // "it deals" is not "~ deals": refused, not guessed.
    let e = compile(&card(
        "Gorehorn Raider",
        "Creature — Minotaur",
        "When Gorehorn Raider enters, it deals 2 damage to any target.",
    ))
    .unwrap_err();
    assert_eq!(e.fragment, "it deals 2 damage to any target");
}

#[test]
fn cr_702_keyword_lines_with_parameters() {
    let a = abilities(
        "K",
        "Creature — Test",
        "Flying, vigilance\nMenace\nWard {2}\nHexproof\nIndestructible\nFlash\nProwess",
    );
    assert_eq!(
        a,
        [
            Keyword::Flying,
            Keyword::Vigilance,
            Keyword::Menace,
            Keyword::Ward(2),
            Keyword::Hexproof,
            Keyword::Indestructible,
            Keyword::Flash,
            Keyword::Prowess
        ]
        .map(Ability::Keyword)
    );
    let eq = abilities("E", "Artifact — Equipment", "Equip {2}");
    assert!(matches!(eq[0], Ability::Keyword(Keyword::Equip(c)) if c.generic == 2));
    assert!(compile(&card("W", "Creature — Test", "Ward—Pay 3 life.")).is_err());
}

#[test]
fn cr_608_2c_spell_effects_in_order() {
    let a = abilities(
        "Joust Through",
        "Instant",
        "Joust Through deals 3 damage to target attacking or blocking creature. You gain 1 life.",
    );
    assert_eq!(
        a,
        [Ability::Spell(vec![
            Effect::Damage {
                amount: 3,
                to: Subject::Target(Filter::CombatCreature, Control::Anyone)
            },
            Effect::GainLife {
                who: Subject::You,
                amount: 1
            }
        ])]
    );
}

#[test]
fn cr_603_6a_enters_and_700_4_dies_triggers() {
    let a = abilities(
        "Helpful Hunter",
        "Creature — Cat",
        "When this creature enters, draw a card.",
    );
    assert_eq!(
        a,
        [Ability::Triggered {
            when: Trigger::Enters,
            condition: None,
            effects: vec![Effect::Draw {
                who: Subject::You,
                count: 1
            }]
        }]
    );
    let d = abilities(
        "Infestation Sage",
        "Creature — Elf",
        "When this creature dies, create a 1/1 black and green Insect creature token with flying.",
    );
    assert!(matches!(
        d[0],
        Ability::Triggered {
            when: Trigger::Dies,
            ..
        }
    ));
}

#[test]
fn cr_603_4_intervening_if_clauses() {
    let cond = |name: &str, text: &str| match abilities(name, "Creature — Test", text).pop() {
        Some(Ability::Triggered { condition, .. }) => condition,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        abilities(
            "Skyship Buccaneer",
            "Creature — Human Pirate",
            "Raid — When this creature enters, if you attacked this turn, draw a card.",
        ),
        [Ability::Triggered {
            when: Trigger::Enters,
            condition: Some(Condition::YouAttacked),
            effects: vec![Effect::Draw {
                who: Subject::You,
                count: 1
            }]
        }]
    );
    assert_eq!(
        cond(
            "Cackling Prowler",
            "Morbid — At the beginning of your end step, if a creature died this turn, put a +1/+1 counter on this creature."
        ),
        Some(Condition::CreatureDied)
    );
    assert_eq!(
        cond(
            "Crypt Feaster",
            "Threshold — Whenever this creature attacks, if there are seven or more cards in your graveyard, this creature gets +2/+0 until end of turn."
        ),
        Some(Condition::GraveyardAtLeast(7))
    );
    assert_eq!(
        cond(
            "Dwynen's Elite",
            "When Dwynen's Elite enters, if you control another Elf, create a 1/1 green Elf Warrior creature token."
        ),
        Some(Condition::ControlAnother("Elf".into()))
    );
    assert_eq!(
        cond(
            "Nessian Hornbeetle",
            "At the beginning of combat on your turn, if you control another creature with power 4 or greater, put a +1/+1 counter on Nessian Hornbeetle."
        ),
        Some(Condition::ControlPower {
            another: true,
            power: 4
        })
    );
    assert_eq!(
        cond(
            "Stromkirk Bloodthief",
            "At the beginning of your end step, if an opponent lost life this turn, draw a card."
        ),
        Some(Condition::OpponentLostLife)
    );
    // A condition no template knows is refused with the clause named.
    let e = compile(&card(
        "Infernal Vessel",
        "Creature — Human Cleric",
        "When this creature dies, if it wasn't a Demon, draw a card.",
    ))
    .unwrap_err();
    assert_eq!(e.fragment, "it wasn't a demon");
    assert_eq!(e.shape, "intervening if: it wasn't a demon");
    // "if" without a comma-separated effect is not an intervening-if template.
    assert!(
        compile(&card(
            "X",
            "Creature — Test",
            "When this creature enters, if you attacked this turn draw a card."
        ))
        .is_err()
    );
}

#[test]
fn cr_207_2c_landfall_ability_word_is_dropped() {
    let a = abilities(
        "Elfsworn Giant",
        "Creature — Giant",
        "Landfall — Whenever a land you control enters, create a 1/1 green Elf Warrior creature token.",
    );
    assert!(matches!(
        &a[0],
        Ability::Triggered { when: Trigger::Landfall, effects, .. } if matches!(&effects[0],
            Effect::Tokens { subtypes, .. } if subtypes == &["Elf", "Warrior"])
    ));
}

#[test]
fn cr_602_activated_abilities_with_costs() {
    let a = abilities(
        "Strix Lookout",
        "Creature — Bird",
        "{1}{U}, {T}: Draw a card, then discard a card.",
    );
    let Ability::Activated {
        cost,
        effects,
        sorcery,
    } = &a[0]
    else {
        panic!("{a:?}")
    };
    assert!(cost.tap && cost.mana.colored[1] == 1 && cost.mana.generic == 1 && !sorcery);
    assert_eq!(effects.len(), 2);
    let s = abilities(
        "Treetop Snarespinner",
        "Creature — Spider",
        "{2}{G}: Put a +1/+1 counter on target creature you control. Activate only as a sorcery.",
    );
    assert!(matches!(s[0], Ability::Activated { sorcery: true, .. }));
    let sac = abilities(
        "Cathar Commando",
        "Creature — Human",
        "{1}, Sacrifice Cathar Commando: Destroy target artifact or enchantment.",
    );
    assert!(matches!(s[0], Ability::Activated { .. }));
    assert!(matches!(sac[0], Ability::Activated { cost, .. } if cost.sacrifice_self));
    // CR 602.2b: "Sacrifice another creature" is a cost naming a creature other than the source.
    let ghoul = abilities(
        "Hungry Ghoul",
        "Creature — Zombie",
        "{1}, Sacrifice another creature: Put a +1/+1 counter on this creature.",
    );
    assert!(matches!(
        ghoul[0],
        Ability::Activated { cost, .. } if cost.sacrifice_creature == Some(true) && !cost.sacrifice_self
    ));
}

#[test]
fn cr_605_1a_mana_abilities_and_614_1c_enters_tapped() {
    let a = abilities(
        "Scoured Barrens",
        "Land",
        "This land enters tapped.\nWhen this land enters, you gain 1 life.\n{T}: Add {W} or {B}.",
    );
    assert_eq!(a[0], Ability::Static(Static::EntersTapped));
    assert_eq!(
        a[2],
        Ability::Mana {
            tap: true,
            colors: vec![0, 2]
        }
    );
}

#[test]
fn cr_606_loyalty_abilities() {
    let a = abilities(
        "Test Walker",
        "Legendary Planeswalker — Test",
        "+1: You gain 2 life.\n\u{2212}3: Destroy target creature.",
    );
    assert!(matches!(a[0], Ability::Loyalty { change: 1, .. }));
    assert!(matches!(a[1], Ability::Loyalty { change: -3, .. }));
}

#[test]
fn cr_613_4c_aura_and_equipment_statics() {
    let a = abilities(
        "Twinblade Blessing",
        "Enchantment — Aura",
        "Flash\nEnchant creature\nEnchanted creature has double strike.",
    );
    assert_eq!(
        a[2],
        Ability::Static(Static::Anthem {
            who: Subject::Attached,
            power: 0,
            toughness: 0,
            keywords: vec![Keyword::DoubleStrike]
        })
    );
    let b = abilities(
        "Test Sword",
        "Artifact — Equipment",
        "Equipped creature gets +2/+0 and has first strike.\nEquip {2}",
    );
    assert!(matches!(
        &b[0],
        Ability::Static(Static::Anthem { power: 2, .. })
    ));
}

#[test]
fn cr_613_4c_lords_of_a_creature_type_or_with_counters() {
    let lord = |text: &str| match abilities("L", "Creature — Elf", text).pop() {
        Some(Ability::Static(s)) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        lord("Other Elf creatures you control get +1/+1."),
        Static::Lord {
            group: Group {
                other: true,
                subtype: Some("Elf".into()),
                with_counter: false
            },
            power: 1,
            toughness: 1,
            keywords: vec![]
        }
    );
    assert_eq!(
        lord("Other Cats you control get +1/+1."),
        Static::Lord {
            group: Group {
                other: true,
                subtype: Some("Cat".into()),
                with_counter: false
            },
            power: 1,
            toughness: 1,
            keywords: vec![]
        }
    );
    assert_eq!(
        lord("Each creature you control with a +1/+1 counter on it has trample."),
        Static::Lord {
            group: Group {
                other: false,
                subtype: None,
                with_counter: true
            },
            power: 0,
            toughness: 0,
            keywords: vec![Keyword::Trample]
        }
    );
    // The plain anthem stays an anthem.
    assert!(matches!(
        lord("Creatures you control have trample."),
        Static::Anthem {
            who: Subject::EachCreature(Control::You),
            ..
        }
    ));
    // A "for each" count is another template (`statics`); one it lacks is refused.
    assert!(
        compile(&card(
            "B",
            "Enchantment — Aura",
            "Enchanted creature gets +1/+1 for each creature you control."
        ))
        .is_err()
    );
}

#[test]
fn cr_604_2_conditional_statics_while_a_condition_holds() {
    let st = |text: &str| match abilities("S", "Creature — Test", text).pop() {
        Some(Ability::Static(s)) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        st(
            "Threshold — This creature gets +2/+1 as long as there are seven or more cards in your graveyard."
        ),
        Static::While {
            condition: StaticCondition::GraveyardAtLeast(7),
            then: Box::new(Static::Anthem {
                who: Subject::This,
                power: 2,
                toughness: 1,
                keywords: vec![]
            })
        }
    );
    assert_eq!(
        st(
            "Threshold — This creature can't be blocked as long as there are seven or more cards in your graveyard."
        ),
        Static::While {
            condition: StaticCondition::GraveyardAtLeast(7),
            then: Box::new(Static::CantBeBlocked)
        }
    );
    assert_eq!(
        st("During your turn, this creature has first strike."),
        Static::While {
            condition: StaticCondition::YourTurn,
            then: Box::new(Static::Anthem {
                who: Subject::This,
                power: 0,
                toughness: 0,
                keywords: vec![Keyword::FirstStrike]
            })
        }
    );
    assert!(matches!(
        st("During your turn, creatures you control with +1/+1 counters on them have first strike."),
        Static::While { condition: StaticCondition::YourTurn, then }
            if matches!(*then, Static::Lord { group: Group { with_counter: true, .. }, .. })
    ));
    assert!(
        compile(&card(
            "S",
            "Creature — Test",
            "As long as it's your turn, ~ has flying."
        ))
        .is_err()
    );
}

#[test]
fn cr_614_1c_enters_with_counters() {
    let st = |text: &str| abilities("Goblin Boarders", "Creature — Goblin", text).pop();
    assert_eq!(
        st("Raid — This creature enters with a +1/+1 counter on it if you attacked this turn."),
        Some(Ability::Static(Static::EntersWithCounters {
            count: 1,
            condition: Some(Condition::YouAttacked)
        }))
    );
    assert_eq!(
        st("This creature enters with two +1/+1 counters on it."),
        Some(Ability::Static(Static::EntersWithCounters {
            count: 2,
            condition: None
        }))
    );
    // Other kinds of counters and X are not this template.
    assert!(
        compile(&card(
            "N",
            "Creature — Cat",
            "This creature enters with eight revival counters on it."
        ))
        .is_err()
    );
    assert!(
        compile(&card(
            "W",
            "Creature — Hydra",
            "This creature enters with X +1/+1 counters on it."
        ))
        .is_err()
    );
}

#[test]
fn cr_700_2_modal_spells_and_triggers() {
    let a = abilities(
        "Goblin Surprise",
        "Instant",
        "Choose one —\n• Creatures you control get +2/+0 until end of turn.\n• Create two 1/1 red Goblin creature tokens.",
    );
    match &a[..] {
        [Ability::Spell(e)] => match &e[..] {
            [Effect::Modal { choose: 1, modes }] => {
                assert_eq!(modes.len(), 2);
                assert!(matches!(modes[0][0], Effect::Pump { power: 2, .. }));
                assert!(matches!(modes[1][0], Effect::Tokens { count: 2, .. }));
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    let t = abilities(
        "Wardens of the Cycle",
        "Creature — Elf Warlock",
        "Morbid — At the beginning of your end step, if a creature died this turn, choose one —\n• You gain 2 life.\n• You draw a card and you lose 1 life.",
    );
    assert_eq!(
        t,
        [Ability::Triggered {
            when: Trigger::YourEndStep,
            condition: Some(Condition::CreatureDied),
            effects: vec![Effect::Modal {
                choose: 1,
                modes: vec![
                    vec![Effect::GainLife {
                        who: Subject::You,
                        amount: 2
                    }],
                    vec![
                        Effect::Draw {
                            who: Subject::You,
                            count: 1
                        },
                        Effect::LoseLife {
                            who: Subject::You,
                            amount: 1
                        }
                    ]
                ]
            }]
        }]
    );
    // A mode no template matches refuses the card, naming the mode's fragment.
    let e = compile(&card(
        "Bushwhack",
        "Sorcery",
        "Choose one —\n• You gain 2 life.\n• Target creature you control fights target player.",
    ))
    .unwrap_err();
    assert!(e.fragment.contains("fights"), "{e:?}");
    // A bullet without a header, or a header with one mode, is not a modal template.
    assert!(compile(&card("X", "Instant", "• You gain 2 life.")).is_err());
    assert!(compile(&card("X", "Instant", "Choose one —\n• You gain 2 life.")).is_err());
}

#[test]
fn cr_701_23_library_search_with_shuffle() {
    let wilds = abilities(
        "Evolving Wilds",
        "Land",
        "{T}, Sacrifice Evolving Wilds: Search your library for a basic land card, put it onto the battlefield tapped, then shuffle.",
    );
    assert!(matches!(
        &wilds[0],
        Ability::Activated { cost, effects, .. } if cost.tap && cost.sacrifice_self
            && effects == &[Effect::Search {
                what: SearchFor::BasicLand,
                count: 1,
                up_to: false,
                to: SearchTo::Battlefield { tapped: true },
                optional: false
            }]
    ));
    let hart = abilities(
        "Burnished Hart",
        "Artifact Creature — Elk",
        "{3}, Sacrifice Burnished Hart: Search your library for up to two basic land cards, put them onto the battlefield tapped, then shuffle.",
    );
    assert!(matches!(
        &hart[0],
        Ability::Activated { effects, .. } if matches!(effects[0],
            Effect::Search { count: 2, up_to: true, .. })
    ));
    let guide = abilities(
        "Campus Guide",
        "Artifact Creature — Construct",
        "When Campus Guide enters, you may search your library for a basic land card, reveal it, then shuffle and put that card on top.",
    );
    assert!(matches!(
        &guide[0],
        Ability::Triggered { effects, .. } if matches!(effects[0],
            Effect::Search { to: SearchTo::TopOfLibrary, optional: true, .. })
    ));
    let demon = abilities(
        "Rune-Scarred Demon",
        "Creature — Demon",
        "When Rune-Scarred Demon enters, search your library for a card, put it into your hand, then shuffle.",
    );
    assert!(matches!(
        &demon[0],
        Ability::Triggered { effects, .. } if matches!(effects[0],
            Effect::Search { what: SearchFor::AnyCard, to: SearchTo::Hand, .. })
    ));
    // A search without its shuffle, or for a card of a kind no template knows, is refused.
    assert!(
        compile(&card(
            "X",
            "Sorcery",
            "Search your library for a basic land card, put it into your hand."
        ))
        .is_err()
    );
    assert!(
        compile(&card(
            "X",
            "Sorcery",
            "Search your library for an instant card, put it into your hand, then shuffle."
        ))
        .is_err()
    );
}

#[test]
fn cr_111_10b_food_tokens_and_406_exile_from_a_graveyard() {
    assert_eq!(
        abilities(
            "Bake into a Pie",
            "Instant",
            "Destroy target creature. Create a Food token."
        ),
        [Ability::Spell(vec![
            Effect::Destroy(Subject::Target(Filter::Creature, Control::Anyone)),
            Effect::Food(1)
        ])]
    );
    let wolf = abilities(
        "Ambush Wolf",
        "Creature — Wolf",
        "When this creature enters, exile up to one target card from a graveyard.",
    );
    assert!(matches!(
        &wolf[0],
        Ability::Triggered { effects, .. } if effects == &[Effect::ExileFromGraveyard(1)]
    ));
}

#[test]
fn cr_603_2_triggers_on_draws_deaths_and_powerful_creatures() {
    let when = |text: &str| match abilities("T", "Creature — Test", text).pop() {
        Some(Ability::Triggered { when, .. }) => when,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        when("Whenever you draw your second card each turn, put a +1/+1 counter on this creature."),
        Trigger::SecondDrawEachTurn
    );
    assert_eq!(
        when("Whenever a creature you control dies, draw a card."),
        Trigger::CreatureYouControlDies
    );
    assert_eq!(
        when("Whenever a creature you control with power 4 or greater enters, draw a card."),
        Trigger::CreatureWithPowerEnters(4)
    );
    assert!(
        compile(&card(
            "T",
            "Creature — Test",
            "Whenever a creature you control with flying enters, draw a card."
        ))
        .is_err()
    );
}

#[test]
fn cr_101_2_this_spell_cant_be_countered_is_a_static() {
    let a = abilities(
        "Stubborn",
        "Creature — Bear",
        "This spell can't be countered.\nFlying",
    );
    assert_eq!(a[0], Ability::Static(Static::CantBeCountered));
    let spell = abilities(
        "Stubborn Bolt",
        "Instant",
        "This spell can't be countered.\nStubborn Bolt deals 3 damage to any target.",
    );
    assert_eq!(spell[0], Ability::Static(Static::CantBeCountered));
}

/// "you may" (CR 603.5, 608.2d), read by `optional.rs` for the effect compiler.
mod optional {
    use crate::mtg::compile::ast::{Control, Effect, Filter, MayAction, Restriction, Subject};
    use crate::mtg::compile::effects::effects;
    use crate::mtg::facts::ManaCost;

    #[test]
    fn cr_603_5_you_may_an_effect_is_a_marker_before_that_effect() {
        assert_eq!(
            effects("you may destroy target artifact or enchantment").unwrap(),
            vec![
                Effect::May(MayAction::Nothing),
                Effect::Destroy(Subject::Target(
                    Filter::ArtifactOrEnchantment,
                    Control::Anyone
                ))
            ]
        );
    }

    #[test]
    fn cr_608_2d_you_may_pay_sacrifice_or_discard_then_if_you_do() {
        assert_eq!(
            effects("you may pay {r}. if you do, target creature can't block this turn").unwrap(),
            vec![
                Effect::May(MayAction::Pay(ManaCost {
                    generic: 0,
                    colored: [0, 0, 0, 1, 0]
                })),
                Effect::Restrict {
                    who: Subject::Target(Filter::Creature, Control::Anyone),
                    restriction: Restriction::CantBlock
                }
            ]
        );
        assert_eq!(
            effects(
                "you may sacrifice another creature. if you do, draw a card and ~ can't be \
                 blocked this turn"
            )
            .unwrap(),
            vec![
                Effect::May(MayAction::SacrificeAnotherCreature),
                Effect::Draw {
                    who: Subject::You,
                    count: 1
                },
                Effect::Restrict {
                    who: Subject::This,
                    restriction: Restriction::CantBeBlocked
                }
            ]
        );
        assert_eq!(
            effects("~ deals 6 damage to target creature. you may discard a card. if you do, draw a card")
                .unwrap(),
            vec![
                Effect::Damage {
                    amount: 6,
                    to: Subject::Target(Filter::Creature, Control::Anyone)
                },
                Effect::May(MayAction::DiscardCard),
                Effect::Draw {
                    who: Subject::You,
                    count: 1
                },
            ]
        );
    }

    #[test]
    fn a_cost_without_if_you_do_or_an_unknown_rest_is_refused_with_the_fragment() {
        let e = effects("you may discard a card").unwrap_err();
        assert_eq!(e.fragment, "you may discard a card");
        let e = effects("you may pay {r}. if you do, frobnicate").unwrap_err();
        assert_eq!(e.fragment, "frobnicate");
        assert!(effects("you may frobnicate").is_err());
        // The search template keeps its own "you may" (it declines by finding nothing).
        assert!(!effects("you may search your library for a basic land card, reveal it, put it into your hand, then shuffle")
            .unwrap()
            .iter()
            .any(|e| matches!(e, Effect::May(_))));
    }
}
