//! Compiling and lowering the templates decided as they resolve (doubling, "for each", exact
//! life, "… instead") and the untap rules, each test named with the Comprehensive Rules number
//! it implements.

use super::*;
use crate::mtg::compile::{Effect as CE, Per, compile};

use super::tokens_tests::{data, lowered};

#[test]
fn cr_701_10_double_target_creatures_power() {
    let l = lowered(
        "Bulk Up",
        "Instant",
        "Double target creature's power until end of turn.\nFlashback {4}{R}{R}",
    )
    .unwrap();
    assert_eq!(l.effects, [Effect::DoublePower(TargetKind::Creature)]);
    assert!(l.flashback.is_some());
    // Toughness is another template: refused, not guessed.
    assert!(
        compile(&data(
            "T",
            "Instant",
            "Double target creature's toughness until end of turn."
        ))
        .is_err()
    );
}

#[test]
fn cr_608_2c_damage_only_if_the_target_player_has_exactly_n_life() {
    let l = lowered(
        "Hidetsugu's Second Rite",
        "Instant",
        "If target player has exactly 10 life, Hidetsugu's Second Rite deals 10 damage to that player.",
    )
    .unwrap();
    assert_eq!(
        l.effects,
        [Effect::DamageIfLife(10, 10, TargetKind::Player)]
    );
    assert!(
        compile(&data(
            "T",
            "Instant",
            "If target player has exactly 10 life, draw a card."
        ))
        .is_err()
    );
}

#[test]
fn cr_608_2c_instead_replaces_the_pump_when_morbid_holds() {
    let l = lowered(
        "Tragic Banshee",
        "Creature — Spirit",
        "Morbid — When this creature enters, target creature an opponent controls gets -1/-1 \
         until end of turn. If a creature died this turn, that creature gets -13/-13 instead.",
    )
    .unwrap();
    assert_eq!(
        l.triggers,
        [(
            Trigger::Enters,
            vec![Effect::PumpInsteadIf(
                Cond::CreatureDied,
                [-1, -1],
                [-13, -13],
                TargetKind::CreatureOpponentControls
            )]
        )]
    );
    // "instead" after a non-pump is refused.
    assert!(
        compile(&data(
            "T",
            "Instant",
            "Draw a card. If a creature died this turn, that creature gets -13/-13 instead."
        ))
        .is_err()
    );
}

#[test]
fn cr_502_3_doesnt_untap_and_701_26_untap_this_creature() {
    let l = lowered(
        "Slumbering Cerberus",
        "Creature — Dog",
        "This creature doesn't untap during your untap step.\nMorbid — At the beginning of \
         each end step, if a creature died this turn, untap this creature.",
    )
    .unwrap();
    assert!(l.doesnt_untap);
    assert_eq!(
        l.triggers,
        [(
            Trigger::EachEndStep,
            vec![
                Effect::If(Cond::CreatureDied),
                Effect::Untap(TargetKind::Source)
            ]
        )]
    );
}

#[test]
fn cr_122_1d_tap_and_stun_the_same_target() {
    let l = lowered(
        "Grappling Kraken",
        "Creature — Kraken",
        "Landfall — Whenever a land you control enters, tap target creature an opponent \
         controls and put a stun counter on it.",
    )
    .unwrap();
    assert_eq!(
        l.triggers,
        [(
            Trigger::Landfall,
            vec![
                Effect::Tap(TargetKind::CreatureOpponentControls),
                Effect::Stun(1, TargetKind::CreatureOpponentControls)
            ]
        )]
    );
}

#[test]
fn cr_615_1_prevent_all_combat_damage_to_the_same_target() {
    let l = lowered(
        "Fleeting Flight",
        "Instant",
        "Put a +1/+1 counter on target creature. It gains flying until end of turn. Prevent \
         all combat damage that would be dealt to it this turn.",
    )
    .unwrap();
    assert_eq!(
        l.effects,
        [
            Effect::Counters(1, TargetKind::Creature),
            Effect::Pump(0, 0, kw::FLYING, TargetKind::Creature),
            Effect::PreventCombatDamage(TargetKind::Creature)
        ]
    );
}

#[test]
fn cr_608_2h_gain_life_and_draw_for_each_and_those_creatures() {
    let l = lowered(
        "Dwynen, Gilt-Leaf Daen",
        "Legendary Creature — Elf Warrior",
        "Reach\nOther Elf creatures you control get +1/+1.\nWhenever Dwynen, Gilt-Leaf Daen \
         attacks, you gain 1 life for each attacking Elf you control.",
    )
    .unwrap();
    assert_eq!(
        l.triggers,
        [(
            Trigger::Attacks,
            vec![Effect::GainLifePer(
                1,
                Per::AttackingOfTypeYouControl("Elf")
            )]
        )]
    );
    let l = lowered(
        "Inspiring Call",
        "Instant",
        "Draw a card for each creature you control with a +1/+1 counter on it. Those \
         creatures gain indestructible until end of turn.",
    )
    .unwrap();
    let per = Per::CreaturesYouControlWithCounter;
    assert_eq!(
        l.effects,
        [
            Effect::DrawPer(per),
            Effect::PumpPer(per, 0, 0, kw::INDESTRUCTIBLE)
        ]
    );
    // "those creatures" with nothing counted before is refused.
    assert!(
        compile(&data(
            "T",
            "Instant",
            "Those creatures gain indestructible until end of turn."
        ))
        .is_err()
    );
}

#[test]
fn cr_111_10a_the_countered_spells_controller_creates_treasures() {
    let l = lowered(
        "An Offer You Can't Refuse",
        "Instant",
        "Counter target noncreature spell. Its controller creates two Treasure tokens.",
    )
    .unwrap();
    assert_eq!(
        l.effects,
        [
            Effect::Counter(TargetKind::NoncreatureSpell),
            Effect::TokensForTargetController(2, 0, false)
        ]
    );
    assert_eq!(l.tokens[0].name, "Treasure Token");
    let c = compile(&data(
        "T",
        "Instant",
        "Counter target noncreature spell. Its controller creates two Treasure tokens.",
    ))
    .unwrap();
    assert!(matches!(
        &c.abilities[0],
        Ability::Spell(e) if matches!(&e[1], CE::TargetControllerCreates(t) if **t == CE::Treasure(2))
    ));
}

#[test]
fn cr_119_3_lose_life_equal_to_the_life_you_gained_this_turn() {
    let l = lowered(
        "Midnight Snack",
        "Enchantment",
        "Raid — At the beginning of your end step, if you attacked this turn, create a Food \
         token.\n{2}{B}, Sacrifice this enchantment: Target opponent loses X life, where X is \
         the amount of life you gained this turn.",
    )
    .unwrap();
    assert_eq!(
        l.triggers,
        [(
            Trigger::YourEndStep,
            vec![Effect::If(Cond::YouAttacked), Effect::Tokens(1, 0, false)]
        )]
    );
    assert_eq!(
        l.activated[0].effects,
        [Effect::OpponentLosesLifeEqual(
            Amount::LifeYouGainedThisTurn
        )]
    );
    assert!(l.activated[0].sacrifice);
    // Another amount is not guessed.
    assert!(
        compile(&data(
            "T",
            "Instant",
            "Target opponent loses X life, where X is the number of cards in your hand."
        ))
        .is_err()
    );
}
