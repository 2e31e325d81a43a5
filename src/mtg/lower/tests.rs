//! Lowering tests, each named with the Comprehensive Rules number it implements.

use super::*;
use crate::mtg::compile::{StaticCondition, compile};

pub(super) fn lowered(type_line: &str, text: &str) -> Result<Lowered, String> {
    let d = crate::mtg::facts::CardData {
        name: "Test Card".into(),
        mana_cost: "{1}".into(),
        type_line: type_line.into(),
        oracle_text: text.into(),
        power: None,
        toughness: None,
        keywords: vec![],
        loyalty: None,
    };
    lower(&compile(&d).unwrap().abilities, type_line == "Instant")
}

#[test]
fn a_spell_lowers_with_one_target_shared_by_its_effects() {
    let l = lowered(
        "Instant",
        "Test Card deals 3 damage to target attacking or blocking creature. You gain 1 life.",
    )
    .unwrap();
    assert_eq!(
        l.effects,
        [
            Effect::Damage(3, TargetKind::CombatCreature),
            Effect::GainLife(1)
        ]
    );
    let two = lowered(
        "Instant",
        "Destroy target creature. Return target creature you control to its owner's hand.",
    );
    assert_eq!(two.unwrap_err(), "spell destroy+bounce");
}

#[test]
fn cr_701_23_a_search_lowers_last_and_a_sacrifice_cost_with_it() {
    let l = lowered(
        "Land",
        "{T}, Sacrifice this land: Search your library for a basic land card, put it onto \
         the battlefield tapped, then shuffle.",
    )
    .unwrap();
    let a = &l.activated[0];
    assert!(a.tap && a.sacrifice);
    assert_eq!(
        a.effects,
        [Effect::Search(Search {
            basic: true,
            count: 1,
            to: Found::BattlefieldTapped,
            optional: false,
            must: false,
            spell_mana_value: None,
        })]
    );
    // "a card": as many as asked must be found (CR 701.23b frees only a stated quality).
    let demon = lowered(
        "Creature — Test",
        "When this creature enters, search your library for a card, put it into your hand, \
         then shuffle.",
    )
    .unwrap();
    assert!(matches!(
        demon.triggers[0].1[..],
        [Effect::Search(Search { must: true, .. })]
    ));
    // A search ends the resolution (its decision): an effect after it is refused.
    assert!(
        lowered(
            "Sorcery",
            "Search your library for a basic land card, put it into your hand, then shuffle. \
             You gain 2 life."
        )
        .is_err()
    );
}

#[test]
fn cr_700_2_modes_lower_as_marked_effect_lists() {
    let l = lowered(
        "Instant",
        "Choose one —\n• Creatures you control get +2/+0 until end of turn.\n• You gain 4 life.",
    )
    .unwrap();
    assert_eq!(
        l.effects,
        [
            Effect::Mode(0),
            Effect::PumpYours(2, 0, 0),
            Effect::Mode(1),
            Effect::GainLife(4)
        ]
    );
    assert_eq!(mode_count(&l.effects), 2);
    assert_eq!(
        mode_effects(&l.effects, Some(1)).collect::<Vec<_>>(),
        [&Effect::GainLife(4)]
    );
    // Each mode has its own target (CR 700.2a).
    let t = lowered(
        "Creature — Test",
        "When this creature enters, choose one —\n• Put two +1/+1 counters on target \
         creature you control.\n• You gain 4 life.",
    )
    .unwrap();
    let es = &t.triggers[0].1;
    assert_eq!(
        mode_target(es, Some(0)),
        Some(TargetKind::CreatureYouControl)
    );
    assert_eq!(mode_target(es, Some(1)), None);
}

#[test]
fn cr_701_5_counter_target_spell_targets_a_spell() {
    let l = lowered(
        "Instant",
        "Counter target spell. Draw a card, then discard a card.",
    )
    .unwrap();
    assert_eq!(
        l.effects,
        [
            Effect::Counter(TargetKind::Spell),
            Effect::Draw(1),
            Effect::Discard(1, false)
        ]
    );
}

#[test]
fn keywords_the_engine_lacks_are_named() {
    // CR 702.21a: ward with a generic mana cost lowers to the engine's ward trigger; a
    // second ward ability is not played.
    assert_eq!(lowered("Creature — Test", "Ward {2}").unwrap().ward, 2);
    assert_eq!(
        lowered("Creature — Test", "Ward {2}\nWard {1}").unwrap_err(),
        "keyword Ward"
    );
    assert_eq!(
        lowered("Creature — Test", "Menace\nHexproof")
            .unwrap()
            .keywords,
        kw::MENACE | kw::HEXPROOF
    );
    assert_eq!(
        lowered(
            "Creature — Test",
            "At the beginning of your upkeep, you draw a card and you lose 1 life."
        )
        .unwrap()
        .triggers,
        [(
            Trigger::YourUpkeep,
            vec![Effect::Draw(1), Effect::LoseLife(1)]
        )]
    );
    // A trigger with one target lowers; the target is chosen on the stack (CR 603.3d).
    assert_eq!(
        lowered(
            "Creature — Test",
            "When this creature enters, tap target creature an opponent controls."
        )
        .unwrap()
        .triggers,
        [(
            Trigger::Enters,
            vec![Effect::Tap(TargetKind::CreatureOpponentControls)]
        )]
    );
}

#[test]
fn cr_613_statics_lower_to_layered_effects() {
    // CR 613.4c (layer 7c) and 613.1f (layer 6): an anthem and a keyword grant.
    let l = lowered(
        "Enchantment",
        "Creatures you control get +1/+1.\nCreatures you control have trample.",
    )
    .unwrap();
    assert_eq!(l.statics.len(), 2);
    assert_eq!(l.statics[0].affects, Affects::Yours);
    assert_eq!((l.statics[0].power, l.statics[0].toughness), (1, 1));
    assert_eq!(l.statics[1].keywords, kw::TRAMPLE);
    // CR 604.2: a conditional static keeps its condition.
    let l = lowered(
        "Creature — Test",
        "This creature gets +2/+1 as long as there are seven or more cards in your graveyard.",
    )
    .unwrap();
    assert_eq!(
        l.statics[0].condition,
        Some(StaticCondition::GraveyardAtLeast(7))
    );
    assert_eq!(l.statics[0].affects, Affects::Source);
    // CR 509.1b: "can't be blocked".
    let l = lowered("Creature — Test", "This creature can't be blocked.").unwrap();
    assert!(l.statics[0].unblockable);
    // CR 613.4c lord: other creatures of a type.
    let l = lowered(
        "Creature — Elf",
        "Other Elf creatures you control get +1/+1.",
    )
    .unwrap();
    assert!(matches!(&l.statics[0].affects, Affects::Group(g) if g.other));
}

#[test]
fn cr_702_keywords_played_as_other_abilities() {
    // CR 702.108a: prowess is a cast trigger that pumps its source.
    let l = lowered("Creature — Test", "Prowess").unwrap();
    assert_eq!(
        l.triggers,
        [(
            Trigger::CastNoncreature,
            vec![Effect::Pump(1, 1, 0, TargetKind::Source)]
        )]
    );
    // CR 702.6a: equip is a sorcery-speed activated ability that attaches.
    let l = lowered(
        "Artifact — Equipment",
        "Equipped creature has hexproof and haste.\nEquip {1}",
    )
    .unwrap();
    assert_eq!(l.statics[0].affects, Affects::Attached);
    assert_eq!(l.statics[0].keywords, kw::HEXPROOF | kw::HASTE);
    assert_eq!(
        l.activated[0].effects,
        [Effect::Attach(TargetKind::CreatureYouControl)]
    );
    assert!(l.activated[0].sorcery);
    // CR 702.5a: enchant creature.
    let l = lowered(
        "Enchantment — Aura",
        "Enchant creature\nEnchanted creature has double strike.",
    )
    .unwrap();
    assert!(l.enchant);
    // A landfall trigger of an Equipment pumps the equipped creature, not a target.
    let l = lowered(
        "Artifact — Equipment",
        "Whenever a land you control enters, equipped creature gets +2/+2 until end of turn.\nEquip {1}",
    )
    .unwrap();
    assert_eq!(
        l.triggers[0].1,
        [Effect::Pump(2, 2, 0, TargetKind::Attached)]
    );
    assert_eq!(l.triggers[0].1[0].target(), None);
}

#[test]
fn cr_701_9_discards_lower_as_the_last_effect_and_701_17a_sacrifice_costs() {
    let l = lowered(
        "Creature — Test",
        "{1}{U}, {T}: Draw a card, then discard a card.",
    )
    .unwrap();
    assert_eq!(
        l.activated[0].effects,
        [Effect::Draw(1), Effect::Discard(1, false)]
    );
    let l = lowered(
        "Creature — Test",
        "When this creature enters, each opponent discards a card.",
    )
    .unwrap();
    assert_eq!(l.triggers[0].1, [Effect::Discard(1, true)]);
    assert_eq!(
        decision_last(vec![Effect::Discard(1, false), Effect::Draw(1)]),
        None
    );
    // CR 701.25a: surveil is a decision too, last in its ability.
    let l = lowered("Artifact Creature — Wall", "Defender\n{T}: Surveil 1.").unwrap();
    assert_eq!(l.activated[0].effects, [Effect::Surveil(1)]);
    let l = lowered(
        "Creature — Test",
        "{1}, Sacrifice this creature: Destroy target artifact or enchantment.",
    )
    .unwrap();
    assert!(l.activated[0].sacrifice);
    assert_eq!(
        l.activated[0].effects,
        [Effect::Destroy(TargetKind::ArtifactOrEnchantment)]
    );
}
