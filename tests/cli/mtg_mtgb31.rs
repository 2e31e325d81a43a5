//! Kicker, searches by mana value and the other spell, cost and zone templates of the second
//! FDN round through the binary, one `--setup` scenario each, named by the Comprehensive Rules
//! number it implements: kicker (CR 702.33), a search for an instant or sorcery of a mana value
//! (CR 701.23, 202.3).

use crate::TestEnv;
use crate::mtg::{
    act, cast_options, copies, decision, events_of, life, on_battlefield, pass_until_resolved,
    refused, setup, state, tapped,
};
use serde_json::{Value, json};

/// A game in p1's first main phase of turn 3: p1's library, hand and battlefield, p2's
/// library (two Forests) and battlefield, ids in that order.
fn game(
    env: &TestEnv,
    id: &str,
    library: &[&str],
    hand: &[&str],
    mine: Vec<Value>,
    theirs: Vec<Value>,
) {
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": library, "hand": hand, "battlefield": mine},
                    "p2": {"library": ["Forest", "Forest"], "battlefield": theirs}}}),
    );
}

#[test]
fn cr_702_33_burst_lightning_deals_four_damage_only_when_kicked() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Burst Lightning c3 and c4, Mountains c5-c10.
    game(
        &env,
        "burst",
        &["Forest", "Forest"],
        &["Burst Lightning", "Burst Lightning"],
        copies("Mountain", 6),
        vec![],
    );
    // Both casts are offered, the kicked one with `"kicked": true`.
    let opts = cast_options(&env, "burst", "c3");
    assert!(opts.iter().any(|o| o["kicked"] == true), "{opts:?}");
    assert!(opts.iter().any(|o| o.get("kicked").is_none()), "{opts:?}");
    act(
        &env,
        "burst",
        json!({"type": "cast", "card": "c3", "targets": ["p2"], "tap": ["c5"]}),
    );
    pass_until_resolved(&env, "burst");
    assert_eq!(life(&state(&env, "burst"), "p2"), 18);
    // The kicker must be paid in full: one Mountain does not pay {R} plus {4}.
    let e = refused(
        &env,
        "burst",
        json!({"type": "cast", "card": "c4", "targets": ["p2"], "tap": ["c6"], "kicked": true}),
    );
    assert!(e.to_string().contains("exactly"), "{e}");
    act(
        &env,
        "burst",
        json!({"type": "cast", "card": "c4", "targets": ["p2"], "kicked": true}),
    );
    let s = state(&env, "burst");
    assert!(tapped(&s) == 6, "kicked, it cost five more mana: {s}");
    pass_until_resolved(&env, "burst");
    assert_eq!(life(&state(&env, "burst"), "p2"), 14);
}

#[test]
fn cr_702_33d_gnarlid_colony_enters_with_counters_only_when_kicked() {
    let env = TestEnv::new();
    // p1: hand Gnarlid Colony c3 and c4; Forests c5-c11.
    game(
        &env,
        "gnarlid",
        &["Forest", "Forest"],
        &["Gnarlid Colony", "Gnarlid Colony"],
        copies("Forest", 7),
        vec![],
    );
    act(
        &env,
        "gnarlid",
        json!({"type": "cast", "card": "c3", "kicked": true}),
    );
    pass_until_resolved(&env, "gnarlid");
    act(&env, "gnarlid", json!({"type": "cast", "card": "c4"}));
    pass_until_resolved(&env, "gnarlid");
    let s = state(&env, "gnarlid");
    let kicked = on_battlefield(&s, "c3").unwrap();
    let plain = on_battlefield(&s, "c4").unwrap();
    assert_eq!(kicked["counters"], 2, "{kicked}");
    assert_eq!(kicked["power"], 4, "{kicked}");
    assert!(
        kicked.to_string().contains("Trample"),
        "with a counter it has trample: {kicked}"
    );
    assert!(plain["counters"].as_i64().unwrap_or(0) == 0, "{plain}");
    assert!(!plain.to_string().contains("Trample"), "{plain}");
    // Kicked is a cast's choice only: a card without kicker refuses it.
    let env2 = TestEnv::new();
    game(
        &env2,
        "nokick",
        &["Forest"],
        &["Grizzly Bears"],
        copies("Forest", 6),
        vec![],
    );
    let e = refused(
        &env2,
        "nokick",
        json!({"type": "cast", "card": "c2", "kicked": true}),
    );
    assert!(e.to_string().contains("no kicker"), "{e}");
}

#[test]
fn cr_702_33d_grow_from_the_ashes_kicked_finds_two_basic_lands() {
    let env = TestEnv::new();
    // p1: library Forest c1, Plains c2, Grizzly Bears c3; hand Grow from the Ashes c4;
    // Forests c5-c9.
    game(
        &env,
        "grow",
        &["Forest", "Plains", "Grizzly Bears"],
        &["Grow from the Ashes"],
        copies("Forest", 5),
        vec![],
    );
    act(
        &env,
        "grow",
        json!({"type": "cast", "card": "c4", "kicked": true}),
    );
    pass_until_resolved(&env, "grow");
    let d = env.json(&["mtg", "actions", "--game", "grow", "--as", "p1"], "");
    assert_eq!(d["kind"], "search", "{d}");
    assert_eq!(d["options"][0]["count"], 2, "{d}");
    act(
        &env,
        "grow",
        json!({"type": "search", "cards": ["c1", "c2"]}),
    );
    let s = state(&env, "grow");
    assert!(
        on_battlefield(&s, "c1").is_some() && on_battlefield(&s, "c2").is_some(),
        "{s}"
    );
}

#[test]
fn cr_701_23_micromancer_finds_only_an_instant_or_sorcery_of_mana_value_one() {
    let env = TestEnv::new();
    // p1: library Shock c1, Essence Scatter c2, Forest c3; hand Micromancer c4; Islands c5-c8.
    game(
        &env,
        "micro",
        &["Shock", "Essence Scatter", "Forest"],
        &["Micromancer"],
        copies("Island", 4),
        vec![],
    );
    act(&env, "micro", json!({"type": "cast", "card": "c4"}));
    pass_until_resolved(&env, "micro");
    let d = env.json(&["mtg", "actions", "--game", "micro", "--as", "p1"], "");
    assert_eq!(d["kind"], "search", "{d}");
    let from: Vec<&str> = d["options"][0]["choose_from"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["card"].as_str().unwrap())
        .collect();
    assert_eq!(from, ["c1"], "{d}");
    refused(&env, "micro", json!({"type": "search", "cards": ["c2"]}));
    act(&env, "micro", json!({"type": "search", "cards": ["c1"]}));
    let s = state(&env, "micro");
    let hand = s["players"]["p1"]["hand"].to_string();
    assert!(hand.contains("\"c1\""), "{s}");
}

#[test]
fn cr_603_4_sun_blessed_healer_returns_a_small_permanent_only_when_kicked() {
    let env = TestEnv::new();
    // p1: library c1-c2; hand Sun-Blessed Healer c3 and c4; graveyard Grizzly Bears c5, Hill
    // Giant c6, Forest c7; Plains c8-c13.
    setup(
        &env,
        "healer",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"],
                           "hand": ["Sun-Blessed Healer", "Sun-Blessed Healer"],
                           "graveyard": ["Grizzly Bears", "Hill Giant", "Forest"],
                           "battlefield": copies("Plains", 6)},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    act(
        &env,
        "healer",
        json!({"type": "cast", "card": "c3", "kicked": true}),
    );
    pass_until_resolved(&env, "healer");
    // Only the nonland permanent card of mana value 2 or less is a target.
    let d = decision(&env, "healer");
    assert_eq!(d["kind"], "choose_target", "{d}");
    let opts = d["options"].to_string();
    assert!(
        opts.contains("c5") && !opts.contains("c6") && !opts.contains("c7"),
        "{d}"
    );
    refused(
        &env,
        "healer",
        json!({"type": "choose_target", "target": "c6"}),
    );
    act(
        &env,
        "healer",
        json!({"type": "choose_target", "target": "c5"}),
    );
    pass_until_resolved(&env, "healer");
    let s = state(&env, "healer");
    assert!(on_battlefield(&s, "c5").is_some(), "{s}");
    // Not kicked: the enters trigger's condition fails, so it does not trigger at all.
    act(&env, "healer", json!({"type": "cast", "card": "c4"}));
    pass_until_resolved(&env, "healer");
    let d = decision(&env, "healer");
    assert_eq!(d["kind"], "priority", "{d}");
    let s = state(&env, "healer");
    assert!(on_battlefield(&s, "c4").is_some(), "{s}");
    assert!(s["stack"].as_array().is_none_or(Vec::is_empty), "{s}");
    assert!(crate::mtg::in_graveyard(&s, "p1", "c6"), "{s}");
}

#[test]
fn cr_608_2h_heartfire_immolator_deals_its_last_known_power_after_it_is_sacrificed() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Shock c3; Heartfire Immolator c4, Mountains c5-c6; p2: library
    // c7-c8, Hill Giant c9.
    setup(
        &env,
        "immolator",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Shock"],
                           "battlefield": [{"card": "Heartfire Immolator"},
                                           {"card": "Mountain"}, {"card": "Mountain"}]},
                    "p2": {"library": ["Forest", "Forest"],
                           "battlefield": [{"card": "Hill Giant"}]}}}),
    );
    // Prowess makes it 3/3 until end of turn.
    act(
        &env,
        "immolator",
        json!({"type": "cast", "card": "c3", "targets": ["p2"], "tap": ["c5"]}),
    );
    pass_until_resolved(&env, "immolator");
    assert_eq!(
        on_battlefield(&state(&env, "immolator"), "c4").unwrap()["power"],
        3
    );
    let r = act(
        &env,
        "immolator",
        json!({"type": "activate", "card": "c4", "ability": 0, "targets": ["c9"]}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == "c4"),
        "{r}"
    );
    // The damage may come in the same answer (an opponent with nothing to do passes).
    let mut ev = events_of(&r);
    ev.extend(pass_until_resolved(&env, "immolator"));
    assert!(
        ev.iter()
            .any(|e| e["type"] == "damage" && e["target"] == "c9" && e["amount"] == 3),
        "{ev:?}"
    );
    let s = state(&env, "immolator");
    assert!(crate::mtg::in_graveyard(&s, "p2", "c9"), "{s}");
    assert!(crate::mtg::in_graveyard(&s, "p1", "c4"), "{s}");
}

#[test]
fn cr_608_2h_a_kicked_healer_killed_in_response_still_returns_the_card() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Sun-Blessed Healer c3, graveyard Grizzly Bears c4, Plains c5-c8;
    // p2: library c9-c10, hand Shock c11, Mountain c12.
    setup(
        &env,
        "lki",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Sun-Blessed Healer"],
                           "graveyard": ["Grizzly Bears"], "battlefield": copies("Plains", 4)},
                    "p2": {"library": ["Forest", "Forest"], "hand": ["Shock"],
                           "battlefield": [{"card": "Mountain"}]}}}),
    );
    act(
        &env,
        "lki",
        json!({"type": "cast", "card": "c3", "kicked": true}),
    );
    pass_until_resolved(&env, "lki");
    act(
        &env,
        "lki",
        json!({"type": "choose_target", "target": "c4"}),
    );
    // p1 passes with the trigger on the stack; p2 kills the Healer in response.
    act(&env, "lki", json!({"type": "pass"}));
    let d = decision(&env, "lki");
    assert_eq!(d["player"], "p2", "{d}");
    act(
        &env,
        "lki",
        json!({"type": "cast", "card": "c11", "targets": ["c3"]}),
    );
    pass_until_resolved(&env, "lki");
    let s = state(&env, "lki");
    assert!(crate::mtg::in_graveyard(&s, "p1", "c3"), "{s}");
    assert!(
        on_battlefield(&s, "c4").is_some(),
        "kicked as it last existed: {s}"
    );
}

#[test]
fn cr_113_6_reassembling_skeleton_returns_itself_from_the_graveyard_tapped() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Reassembling Skeleton c3 (so p1 keeps priority afterwards),
    // graveyard Reassembling Skeleton c4, Swamps c5-c8.
    setup(
        &env,
        "skeleton",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Reassembling Skeleton"],
                           "graveyard": ["Reassembling Skeleton"],
                           "battlefield": copies("Swamp", 4)},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    let d = decision(&env, "skeleton");
    assert!(
        d["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["type"] == "activate" && o["card"] == "c4"),
        "{d}"
    );
    let mut ev = events_of(&act(
        &env,
        "skeleton",
        json!({"type": "activate", "card": "c4", "ability": 0, "tap": ["c5", "c6"]}),
    ));
    ev.extend(pass_until_resolved(&env, "skeleton"));
    let s = state(&env, "skeleton");
    let back = on_battlefield(&s, "c4").unwrap_or_else(|| panic!("{s}"));
    assert_eq!(back["tapped"], true, "{back}");
    assert!(
        ev.iter()
            .any(|e| e["type"] == "returned_from_graveyard" && e["card"] == "c4"),
        "{ev:?}"
    );
    // On the battlefield the ability cannot be activated.
    let e = refused(
        &env,
        "skeleton",
        json!({"type": "activate", "card": "c4", "ability": 0}),
    );
    assert!(e.to_string().contains("only from your graveyard"), "{e}");
}
