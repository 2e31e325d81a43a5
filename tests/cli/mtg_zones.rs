//! Spells, costs and zones through the binary, one `--setup` scenario each, named by the
//! Comprehensive Rules number it implements: counterspells by spell type (CR 701.5), mass
//! damage and returns (CR 120.3, 506.4), sacrificed sources that deal damage (CR 113.7a),
//! artifact targets (CR 115.1).

use crate::TestEnv;
use crate::mtg::{
    act, copies, decision, events_of, in_graveyard, on_battlefield, pass_until_resolved, setup,
    state,
};
use serde_json::{Value, json};

/// The targets the current decision offers for casting or activating `card`.
fn targets_for(env: &TestEnv, id: &str, card: &str) -> Vec<Value> {
    decision(env, id)["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["card"] == card)
        .map(|o| o["targets"].clone())
        .collect()
}

#[test]
fn cr_701_5_essence_scatter_counters_only_a_creature_spell() {
    let env = TestEnv::new();
    // p1: hand Grizzly Bears c3, Lightning Bolt c4, Essence Scatter c5; lands c6-c10.
    let mut bf = copies("Forest", 2);
    bf.extend(copies("Mountain", 1));
    bf.extend(copies("Island", 2));
    setup(
        &env,
        "scatter",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"],
                           "hand": ["Grizzly Bears", "Lightning Bolt", "Essence Scatter"],
                           "battlefield": bf},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    act(
        &env,
        "scatter",
        json!({"type": "cast", "card": "c3", "tap": ["c6", "c7"]}),
    );
    act(
        &env,
        "scatter",
        json!({"type": "cast", "card": "c4", "targets": ["p2"], "tap": ["c8"]}),
    );
    // Two spells on the stack; only the creature spell is a legal target.
    assert_eq!(targets_for(&env, "scatter", "c5"), [json!(["c3"])]);
    let e = crate::mtg::refused(
        &env,
        "scatter",
        json!({"type": "cast", "card": "c5", "targets": ["c4"]}),
    );
    assert!(e.to_string().contains("not a legal target"), "{e}");
    act(
        &env,
        "scatter",
        json!({"type": "cast", "card": "c5", "targets": ["c3"]}),
    );
    pass_until_resolved(&env, "scatter");
    let s = state(&env, "scatter");
    assert!(in_graveyard(&s, "p1", "c3"), "{s}");
    assert!(on_battlefield(&s, "c3").is_none(), "{s}");
    assert_eq!(s["players"]["p2"]["life"], 17, "{s}");
}

#[test]
fn cr_120_3_seismic_rupture_damages_each_creature_without_flying() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Seismic Rupture c3; Mountains c4-c6, Grizzly Bears c7; p2:
    // library c8-c9, Wind Drake c10, Hill Giant c11.
    let mut bf = copies("Mountain", 3);
    bf.push(json!({"card": "Grizzly Bears"}));
    setup(
        &env,
        "rupture",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Seismic Rupture"],
                           "battlefield": bf},
                    "p2": {"library": ["Forest", "Forest"],
                           "battlefield": [{"card": "Wind Drake"}, {"card": "Hill Giant"}]}}}),
    );
    let mut ev = events_of(&act(&env, "rupture", json!({"type": "cast", "card": "c3"})));
    ev.extend(pass_until_resolved(&env, "rupture"));
    let hit: Vec<(&str, i64)> = ev
        .iter()
        .filter(|e| e["type"] == "damage")
        .map(|e| (e["target"].as_str().unwrap(), e["amount"].as_i64().unwrap()))
        .collect();
    assert_eq!(hit, [("c7", 2), ("c11", 2)], "{ev:?}");
    let s = state(&env, "rupture");
    assert!(in_graveyard(&s, "p1", "c7"), "the 2/2 died: {s}");
    assert!(on_battlefield(&s, "c10").is_some(), "{s}");
    assert_eq!(s["players"]["p2"]["life"], 20, "{s}");
}

#[test]
fn cr_506_4_aetherize_returns_every_attacking_creature() {
    let env = TestEnv::new();
    // p1 attacks with Grizzly Bears c3 and Hill Giant c4 (Serra Angel c5 stays home);
    // p2: hand Aetherize c8, Islands c9-c12.
    setup(
        &env,
        "aeth",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": ["Forest", "Forest"],
                           "battlefield": [{"card": "Grizzly Bears"}, {"card": "Hill Giant"},
                                           {"card": "Serra Angel"}]},
                    "p2": {"library": ["Forest", "Forest"], "hand": ["Aetherize"],
                           "battlefield": copies("Island", 4)}}}),
    );
    act(
        &env,
        "aeth",
        json!({"type": "declare_attackers", "attackers": [
            {"attacker": "c3", "defender": "p2"}, {"attacker": "c4", "defender": "p2"}]}),
    );
    for _ in 0..5 {
        let d = decision(&env, "aeth");
        if d["player"] == "p2" && d["kind"] == "priority" {
            break;
        }
        act(&env, "aeth", json!({"type": "pass"}));
    }
    act(&env, "aeth", json!({"type": "cast", "card": "c8"}));
    pass_until_resolved(&env, "aeth");
    let s = state(&env, "aeth");
    let hand: Vec<&str> = s["players"]["p1"]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(hand.contains(&"c3") && hand.contains(&"c4"), "{s}");
    assert!(on_battlefield(&s, "c5").is_some(), "{s}");
    assert_eq!(s["players"]["p2"]["life"], 20, "{s}");
}

#[test]
fn cr_113_7a_fanatical_firebrand_is_sacrificed_and_still_deals_its_damage() {
    let env = TestEnv::new();
    setup(
        &env,
        "brand",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest"], "battlefield": [{"card": "Fanatical Firebrand"}]},
                    "p2": {"library": ["Forest"]}}}),
    );
    let r = act(
        &env,
        "brand",
        json!({"type": "activate", "card": "c2", "ability": 0, "targets": ["p2"]}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == "c2"),
        "{r}"
    );
    pass_until_resolved(&env, "brand");
    let s = state(&env, "brand");
    assert_eq!(s["players"]["p2"]["life"], 19, "{s}");
    assert!(in_graveyard(&s, "p1", "c2"), "{s}");
}

#[test]
fn cr_115_1_abrade_and_broken_wings_target_only_what_they_name() {
    let env = TestEnv::new();
    // p1: hand Abrade c1, Broken Wings c2; lands c3-c7; p2: Burnished Hart c8 (an artifact
    // creature), Wind Drake c9, Grizzly Bears c10.
    let mut bf = copies("Mountain", 2);
    bf.extend(copies("Forest", 3));
    setup(
        &env,
        "abrade",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"hand": ["Abrade", "Broken Wings"], "battlefield": bf},
                    "p2": {"battlefield": [{"card": "Burnished Hart"}, {"card": "Wind Drake"},
                                           {"card": "Grizzly Bears"}]}}}),
    );
    let abrade: Vec<Value> = decision(&env, "abrade")["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["card"] == "c1" && o["mode"] == 1)
        .map(|o| o["targets"].clone())
        .collect();
    assert_eq!(abrade, [json!(["c8"])], "destroy target artifact");
    let wings = targets_for(&env, "abrade", "c2");
    assert_eq!(wings, [json!(["c8"]), json!(["c9"])], "no Grizzly Bears");
    act(
        &env,
        "abrade",
        json!({"type": "cast", "card": "c2", "targets": ["c9"], "tap": ["c5", "c6", "c7"]}),
    );
    pass_until_resolved(&env, "abrade");
    act(
        &env,
        "abrade",
        json!({"type": "cast", "card": "c1", "mode": 1, "targets": ["c8"]}),
    );
    pass_until_resolved(&env, "abrade");
    let s = state(&env, "abrade");
    assert!(
        in_graveyard(&s, "p2", "c8") && in_graveyard(&s, "p2", "c9"),
        "{s}"
    );
    assert!(on_battlefield(&s, "c10").is_some(), "{s}");
}

#[test]
fn cr_400_7_zombify_returns_a_creature_card_and_its_enters_trigger_fetches_another() {
    let env = TestEnv::new();
    // p1: library c1-c2; hand Zombify c3; graveyard Vampire Soulcaller c4, Grizzly Bears c5,
    // Lightning Bolt c6; Swamps c7-c10.
    setup(
        &env,
        "zombify",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Zombify"],
                           "graveyard": ["Vampire Soulcaller", "Grizzly Bears", "Lightning Bolt"],
                           "battlefield": copies("Swamp", 4)},
                    "p2": {"library": ["Forest", "Forest"],
                           "graveyard": ["Hill Giant"]}}}),
    );
    // Only creature cards of p1's own graveyard are targets (not the Bolt, not p2's Giant).
    assert_eq!(
        targets_for(&env, "zombify", "c3"),
        [json!(["c4"]), json!(["c5"])]
    );
    crate::mtg::refused(
        &env,
        "zombify",
        json!({"type": "cast", "card": "c3", "targets": ["c6"]}),
    );
    let mut ev = events_of(&act(
        &env,
        "zombify",
        json!({"type": "cast", "card": "c3", "targets": ["c4"]}),
    ));
    ev.extend(pass_until_resolved(&env, "zombify"));
    assert!(
        ev.iter().any(|e| e["type"] == "returned_from_graveyard"
            && e["card"] == "c4"
            && e["to"] == "battlefield"),
        "{ev:?}"
    );
    // The Soulcaller entered: its trigger targets a creature card in p1's graveyard.
    let d = decision(&env, "zombify");
    assert_eq!(d["kind"], "choose_target", "{d}");
    let opts = d["options"].to_string();
    assert!(
        opts.contains("c5") && !opts.contains("c6") && !opts.contains("c13"),
        "{d}"
    );
    act(
        &env,
        "zombify",
        json!({"type": "choose_target", "target": "c5"}),
    );
    pass_until_resolved(&env, "zombify");
    let s = state(&env, "zombify");
    assert!(on_battlefield(&s, "c4").is_some(), "{s}");
    assert!(
        s["players"]["p1"]["hand"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "c5"),
        "{s}"
    );
    assert!(
        !in_graveyard(&s, "p1", "c5") && in_graveyard(&s, "p1", "c6"),
        "{s}"
    );
}

#[test]
fn cr_601_2f_luminous_rebuke_costs_less_only_against_a_tapped_creature() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Luminous Rebuke c3, Plains c4-c5; p2: library c6-c7, Grizzly
    // Bears c8 (tapped), Hill Giant c9.
    setup(
        &env,
        "rebuke",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Luminous Rebuke"],
                           "battlefield": copies("Plains", 2)},
                    "p2": {"library": ["Forest", "Forest"],
                           "battlefield": [{"card": "Grizzly Bears", "tapped": true},
                                           {"card": "Hill Giant"}]}}}),
    );
    // Two lands pay {1}{W}: only the tapped creature makes it that cheap.
    assert_eq!(targets_for(&env, "rebuke", "c3"), [json!(["c8"])]);
    let e = crate::mtg::refused(
        &env,
        "rebuke",
        json!({"type": "cast", "card": "c3", "targets": ["c9"]}),
    );
    assert!(e.to_string().contains("not enough"), "{e}");
    act(
        &env,
        "rebuke",
        json!({"type": "cast", "card": "c3", "targets": ["c8"]}),
    );
    pass_until_resolved(&env, "rebuke");
    let s = state(&env, "rebuke");
    assert!(in_graveyard(&s, "p2", "c8"), "{s}");
}

#[test]
fn cr_702_41a_affinity_and_a_mocking_sprite_make_claws_out_cost_two() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Claws Out c3; Plains c4-c5, Mocking Sprite c6, Savannah Lions
    // c7-c8.
    let mut bf = copies("Plains", 2);
    bf.push(json!({"card": "Mocking Sprite"}));
    bf.extend(copies("Savannah Lions", 2));
    setup(
        &env,
        "claws",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Claws Out"],
                           "battlefield": bf},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    // {3}{W}{W}, less 2 for two Cats and 1 for the Sprite: the two Plains pay it exactly.
    act(
        &env,
        "claws",
        json!({"type": "cast", "card": "c3", "tap": ["c4", "c5"]}),
    );
    pass_until_resolved(&env, "claws");
    let s = state(&env, "claws");
    // The 2/1 Lions and Sprite got +2/+2.
    assert_eq!(on_battlefield(&s, "c7").unwrap()["power"], 4, "{s}");
    assert_eq!(on_battlefield(&s, "c6").unwrap()["toughness"], 3, "{s}");
}

#[test]
fn cr_702_34a_think_twice_is_cast_again_with_flashback_then_exiled() {
    let env = TestEnv::new();
    // p1: library c1-c4, hand Think Twice c5; Islands c6-c10.
    setup(
        &env,
        "think",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest", "Forest"],
                           "hand": ["Think Twice"], "battlefield": copies("Island", 5)},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    act(
        &env,
        "think",
        json!({"type": "cast", "card": "c5", "tap": ["c6", "c7"]}),
    );
    pass_until_resolved(&env, "think");
    let s = state(&env, "think");
    assert!(in_graveyard(&s, "p1", "c5"), "{s}");
    // From the graveyard it costs its flashback cost {2}{U}: two lands are not enough.
    let e = crate::mtg::refused(
        &env,
        "think",
        json!({"type": "cast", "card": "c5", "tap": ["c8", "c9"]}),
    );
    assert!(e.to_string().contains("pay"), "{e}");
    let mut ev = events_of(&act(
        &env,
        "think",
        json!({"type": "cast", "card": "c5", "tap": ["c8", "c9", "c10"]}),
    ));
    ev.extend(pass_until_resolved(&env, "think"));
    let s = state(&env, "think");
    assert!(!in_graveyard(&s, "p1", "c5"), "{s}");
    assert_eq!(s["players"]["p1"]["exile"][0]["id"], "c5", "{s}");
    assert_eq!(
        s["players"]["p1"]["hand"].as_array().unwrap().len(),
        2,
        "{s}"
    );
    let exiled: Vec<&Value> = ev.iter().filter(|e| e["type"] == "exiled").collect();
    assert_eq!(exiled.len(), 1, "{ev:?}");
    assert_eq!(exiled[0]["from"], "stack", "{ev:?}");
    // Exiled, it can't be cast again.
    crate::mtg::refused(&env, "think", json!({"type": "cast", "card": "c5"}));
}

#[test]
fn cr_406_3_angel_of_finality_exiles_target_players_graveyard() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Angel of Finality c3; Plains c4-c7; p2: library c8-c9,
    // graveyard Grizzly Bears c10, Shock c11.
    setup(
        &env,
        "angel",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Angel of Finality"],
                           "battlefield": copies("Plains", 4)},
                    "p2": {"library": ["Forest", "Forest"],
                           "graveyard": ["Grizzly Bears", "Shock"]}}}),
    );
    act(&env, "angel", json!({"type": "cast", "card": "c3"}));
    pass_until_resolved(&env, "angel");
    let d = decision(&env, "angel");
    assert_eq!(d["kind"], "choose_target", "{d}");
    act(
        &env,
        "angel",
        json!({"type": "choose_target", "target": "p2"}),
    );
    pass_until_resolved(&env, "angel");
    let s = state(&env, "angel");
    assert_eq!(s["players"]["p2"]["graveyard"], json!([]), "{s}");
    let exiled: Vec<&str> = s["players"]["p2"]["exile"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(exiled, ["c10", "c11"], "{s}");
}
