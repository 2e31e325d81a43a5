//! Compiling and lowering the token, counter and trigger templates, each test named with the
//! Comprehensive Rules number it implements.

use super::*;
use crate::mtg::compile::{Effect as CE, Per, compile};

pub(super) use crate::mtg::compile::tests::{abilities, card as data};

pub(super) fn lowered(name: &str, type_line: &str, text: &str) -> Result<Lowered, String> {
    let spell = matches!(type_line, "Instant" | "Sorcery");
    lower(&abilities(name, type_line, text), spell)
}

#[test]
fn cr_111_4_a_token_with_power_and_toughness_is_a_creature_token() {
    let l = lowered(
        "Infestation Sage",
        "Creature — Elf Warlock",
        "When this creature dies, create a 1/1 black and green Insect token with flying.",
    )
    .unwrap();
    assert_eq!(
        l.triggers,
        [(Trigger::Dies, vec![Effect::Tokens(1, 0, false)])]
    );
    assert_eq!(l.tokens[0].name, "Insect Token");
    assert_eq!(l.tokens[0].type_line, "Token Creature — Insect");
    assert_eq!(l.tokens[0].keywords, ["Flying"]);
    // Only creature types make a creature token: "Food" is not one (CR 205.3m).
    assert!(compile(&data("T", "Sorcery", "Create a 1/1 Food token.")).is_err());
}

#[test]
fn cr_111_10b_food_is_a_predefined_artifact_token_with_its_ability() {
    let l = lowered(
        "Bake into a Pie",
        "Instant",
        "Destroy target creature. Create a Food token.",
    )
    .unwrap();
    assert_eq!(
        l.effects,
        [
            Effect::Destroy(TargetKind::Creature),
            Effect::Tokens(1, 0, false)
        ]
    );
    let food = crate::mtg::cards::parse(&l.tokens[0]).unwrap();
    assert_eq!(food.kind, crate::mtg::cards::Kind::Artifact);
    assert!(food.token);
    assert_eq!(food.activated.len(), 1);
    let a = &food.activated[0];
    assert!(a.tap && a.sacrifice);
    assert_eq!(a.mana.generic, 2);
    assert_eq!(a.effects, [Effect::GainLife(3)]);
}

#[test]
fn cr_608_2h_token_counts_are_counted_as_the_effect_happens() {
    let hare = lowered(
        "Hare Apparent",
        "Creature — Rabbit Noble",
        "When this creature enters, create a number of 1/1 white Rabbit creature tokens equal \
         to the number of other creatures you control named Hare Apparent.\nA deck can have \
         any number of cards named Hare Apparent.",
    )
    .unwrap();
    assert_eq!(
        hare.triggers,
        [(
            Trigger::Enters,
            vec![Effect::TokensPer(Per::OtherCreaturesNamedThis, 0, false)]
        )]
    );
    let rats = abilities(
        "Revenge of the Rats",
        "Sorcery",
        "Create a tapped 1/1 black Rat creature token for each creature card in your graveyard.",
    );
    let Ability::Spell(es) = &rats[0] else {
        panic!("{rats:?}")
    };
    assert!(matches!(
        &es[0],
        CE::CountedTokens { per: Per::CreatureCardsInYourGraveyard, tokens }
            if matches!(**tokens, CE::Tokens { tapped: true, count: 1, .. })
    ));
    // Another count is refused, not guessed.
    assert!(
        compile(&data(
            "T",
            "Sorcery",
            "Create a 1/1 white Rabbit creature token for each land you control."
        ))
        .is_err()
    );
}

#[test]
fn cr_611_2a_until_end_of_turn_first_is_the_same_pump() {
    let l = lowered(
        "Heroic Reinforcements",
        "Sorcery",
        "Create two 1/1 white Soldier creature tokens. Until end of turn, creatures you \
         control get +1/+1 and gain haste.",
    )
    .unwrap();
    assert_eq!(
        l.effects,
        [
            Effect::Tokens(2, 0, false),
            Effect::PumpYours(1, 1, kw::HASTE)
        ]
    );
}

#[test]
fn cr_122_1_counters_on_that_creature_and_on_a_creature_type() {
    let unicorn = lowered(
        "Good-Fortune Unicorn",
        "Creature — Unicorn",
        "Whenever another creature you control enters, put a +1/+1 counter on that creature.",
    )
    .unwrap();
    assert_eq!(
        unicorn.triggers,
        [(
            Trigger::AnotherCreatureEnters,
            vec![Effect::Counters(1, TargetKind::Triggering)]
        )]
    );
    assert_eq!(Effect::Counters(1, TargetKind::Triggering).target(), None);
    // "That creature" of a trigger whose event names no creature has nothing to mean.
    assert!(
        lowered(
            "T",
            "Creature — Test",
            "Whenever you gain life, put a +1/+1 counter on that creature."
        )
        .is_err()
    );
    let thief = lowered(
        "Stromkirk Bloodthief",
        "Creature — Vampire Rogue",
        "At the beginning of your end step, if an opponent lost life this turn, put a +1/+1 \
         counter on target Vampire you control.",
    )
    .unwrap();
    assert_eq!(
        thief.triggers[0].1,
        [
            Effect::If(Cond::OpponentLostLife),
            Effect::Counters(1, TargetKind::CreatureTypeYouControl("Vampire"))
        ]
    );
}

#[test]
fn cr_603_4_control_another_of_a_type_and_119_3_target_opponent_loses_life() {
    let elite = lowered(
        "Dwynen's Elite",
        "Creature — Elf Warrior",
        "When Dwynen's Elite enters, if you control another Elf, create a 1/1 green Elf \
         Warrior creature token.",
    )
    .unwrap();
    assert_eq!(
        elite.triggers[0].1,
        [
            Effect::If(Cond::ControlAnother("Elf")),
            Effect::Tokens(1, 0, false)
        ]
    );
    assert_eq!(elite.tokens[0].type_line, "Token Creature — Elf Warrior");
    let witch = lowered(
        "Vengeful Bloodwitch",
        "Creature — Vampire Warlock",
        "Whenever this creature or another creature you control dies, target opponent loses \
         1 life and you gain 1 life.",
    )
    .unwrap();
    assert_eq!(
        witch.triggers,
        [(
            Trigger::ThisOrAnotherCreatureYouControlDies,
            vec![Effect::OpponentLosesLife(1), Effect::GainLife(1)]
        )]
    );
}

#[test]
fn cr_603_2_new_trigger_events_compile_and_lower() {
    let when = |text: &str| lowered("T", "Creature — Test", text).unwrap().triggers[0].0;
    assert_eq!(
        when(
            "Whenever you attack, target creature you control gets +1/+0 and gains menace until end of turn."
        ),
        Trigger::YouAttackWith(1)
    );
    assert_eq!(
        when(
            "Whenever you gain life for the first time during each of your turns, create a 1/1 white Cat creature token."
        ),
        Trigger::GainLifeFirstTime { your_turn: true }
    );
    assert_eq!(
        when(
            "Whenever you cast a spell during an opponent's turn, put a +1/+1 counter on this creature."
        ),
        Trigger::CastSpellOpponentsTurn
    );
    assert_eq!(
        when("Whenever you draw a card, put a +1/+1 counter on this creature."),
        Trigger::YouDraw
    );
    let thespian = lowered(
        "Wary Thespian",
        "Creature — Cat Druid",
        "When Wary Thespian enters or dies, surveil 1.",
    )
    .unwrap();
    assert_eq!(
        thespian.triggers,
        [
            (Trigger::Enters, vec![Effect::Surveil(1)]),
            (Trigger::Dies, vec![Effect::Surveil(1)])
        ]
    );
}

#[test]
fn cr_111_2_its_controller_creates_the_token_and_608_2h_x_goblins() {
    let stroke = lowered(
        "Stroke of Midnight",
        "Instant",
        "Destroy target nonland permanent. Its controller creates a 1/1 white Human creature \
         token.",
    )
    .unwrap();
    assert_eq!(
        stroke.effects,
        [
            Effect::Destroy(TargetKind::NonlandPermanent),
            Effect::TokensForTargetController(1, 0, false)
        ]
    );
    // Without a target before it, "its controller" names no one.
    assert!(
        lowered(
            "T",
            "Sorcery",
            "Its controller creates a 1/1 white Human creature token."
        )
        .is_err()
    );
    let krenko = lowered(
        "Krenko, Mob Boss",
        "Legendary Creature — Goblin Warrior",
        "{T}: Create X 1/1 red Goblin creature tokens, where X is the number of Goblins you \
         control.",
    )
    .unwrap();
    assert_eq!(
        krenko.activated[0].effects,
        [Effect::TokensPer(Per::OfTypeYouControl("Goblin"), 0, false)]
    );
}

#[test]
fn cr_122_1_double_the_counters_and_702_33d_kicked_enters_with_counters() {
    let hydra = lowered(
        "Mossborn Hydra",
        "Creature — Elemental Hydra",
        "Trample\nThis creature enters with a +1/+1 counter on it.\nLandfall — Whenever a \
         land you control enters, double the number of +1/+1 counters on this creature.",
    )
    .unwrap();
    assert_eq!(
        hydra.triggers,
        [(
            Trigger::Landfall,
            vec![Effect::DoubleCounters(TargetKind::Source)]
        )]
    );
    assert_eq!(hydra.enters_with, Some((1, None)));
    let colony = abilities(
        "Gnarlid Colony",
        "Creature — Beast",
        "If Gnarlid Colony was kicked, it enters with two +1/+1 counters on it.",
    );
    assert_eq!(
        colony,
        [Ability::Static(
            crate::mtg::compile::Static::EntersWithCounters {
                count: 2,
                condition: Some(Condition::Kicked)
            }
        )]
    );
    let rite = lowered(
        "Rite of the Dragoncaller",
        "Enchantment",
        "Whenever you cast an instant or sorcery spell, create a 5/5 red Dragon creature token \
         with flying.",
    )
    .unwrap();
    assert_eq!(rite.triggers[0].0, Trigger::CastInstantOrSorcery);
}

#[test]
fn cr_111_10a_treasure_is_a_mana_ability_that_sacrifices_its_source() {
    let barrier = lowered(
        "Gleaming Barrier",
        "Artifact Creature — Wall",
        "Defender\nWhen Gleaming Barrier dies, create a Treasure token.",
    )
    .unwrap();
    assert_eq!(
        barrier.triggers,
        [(Trigger::Dies, vec![Effect::Tokens(1, 0, false)])]
    );
    let treasure = crate::mtg::cards::parse(&barrier.tokens[0]).unwrap();
    assert!(treasure.token && treasure.mana_sacrifice);
    assert_eq!(treasure.mana, 0b11111, "one mana of any color");
    assert!(treasure.activated.is_empty());
    // A mana ability with another cost is not this template.
    assert!(
        compile(&data(
            "Test Relic",
            "Artifact",
            "{1}, {T}, Sacrifice this artifact: Add one mana of any color."
        ))
        .is_err()
    );
    let pick = lowered(
        "Goldvein Pick",
        "Artifact — Equipment",
        "Whenever equipped creature deals combat damage to a player, create a Treasure token.",
    )
    .unwrap();
    assert_eq!(pick.triggers[0].0, Trigger::EquippedCombatDamageToPlayer);
}
