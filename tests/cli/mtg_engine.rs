//! The engine's rules for compiled Foundations cards, through the binary: mana abilities of
//! permanents, activated abilities, targeted triggers. One `--setup` scenario per rule, named
//! by its Comprehensive Rules number.

use crate::TestEnv;
use crate::mtg::{act, decision, events_of, forests, on_battlefield, setup, state};
use serde_json::{Value, json};

fn refused_act(env: &TestEnv, id: &str, action: Value) -> Value {
    let mut a = action;
    a["decision_id"] = decision(env, id)["decision_id"].clone();
    env.fails(
        &["mtg", "act", "--game", id],
        &a.to_string(),
        2,
        "invalid.request",
    )
}

/// The priority options of the current decision that use `card`.
fn options_for(env: &TestEnv, id: &str, card: &str) -> Vec<Value> {
    decision(env, id)["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["card"] == card)
        .cloned()
        .collect()
}

fn life(s: &Value, seat: &str) -> i64 {
    s["players"][seat]["life"].as_i64().unwrap()
}

#[test]
fn cr_605_3a_a_dual_land_pays_either_colour_and_614_1c_a_gain_land_enters_tapped() {
    let env = TestEnv::new();
    // p1: library c1-c2, Shock c3, Bloodfell Caves c4 (hand), Bloodfell Caves c5 (battlefield).
    setup(
        &env,
        "dual",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Shock", "Bloodfell Caves"],
                           "battlefield": [{"card": "Bloodfell Caves"}]},
                    "p2": {"library": forests(2)}}}),
    );
    // The dual land on the battlefield makes {R}: Shock is offered and its payment taps c5.
    assert!(!options_for(&env, "dual", "c3").is_empty());
    // Played, the other one enters tapped and its enters trigger gains 1 life (CR 603.6a).
    act(&env, "dual", json!({"type": "play_land", "card": "c4"}));
    let s = state(&env, "dual");
    assert_eq!(s["stack"][0]["name"], "Bloodfell Caves", "{s}");
    act(&env, "dual", json!({"type": "pass"}));
    let s = state(&env, "dual");
    assert_eq!(on_battlefield(&s, "c4").unwrap()["tapped"], true);
    assert_eq!(life(&s, "p1"), 21);
    // A tapped land pays nothing.
    refused_act(
        &env,
        "dual",
        json!({"type": "cast", "card": "c3", "targets": ["p2"], "tap": ["c4"]}),
    );
    act(
        &env,
        "dual",
        json!({"type": "cast", "card": "c3", "targets": ["p2"], "tap": ["c5"]}),
    );
    act(&env, "dual", json!({"type": "pass"}));
    let s = state(&env, "dual");
    assert_eq!(life(&s, "p2"), 18, "{s}");
    assert_eq!(on_battlefield(&s, "c5").unwrap()["tapped"], true);
}

#[test]
fn cr_302_6_a_summoning_sick_mana_creature_cannot_tap_for_mana() {
    let env = TestEnv::new();
    // p1: library c1-c2, Grizzly Bears c3, Forest c4, Llanowar Elves c5 (sick).
    setup(
        &env,
        "elves",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Grizzly Bears"],
                           "battlefield": [{"card": "Forest"}, {"card": "Llanowar Elves", "sick": true}]},
                    "p2": {"library": forests(2)}}}),
    );
    assert!(options_for(&env, "elves", "c3").is_empty());
    let r = refused_act(
        &env,
        "elves",
        json!({"type": "cast", "card": "c3", "tap": ["c4", "c5"]}),
    );
    assert!(r.to_string().contains("302.6"), "{r}");

    // The same position with the elf under p1's control since the turn began: it pays {G}.
    setup(
        &env,
        "elves2",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Grizzly Bears"],
                           "battlefield": [{"card": "Forest"}, {"card": "Llanowar Elves"}]},
                    "p2": {"library": forests(2)}}}),
    );
    assert!(!options_for(&env, "elves2", "c3").is_empty());
    let r = act(&env, "elves2", json!({"type": "cast", "card": "c3"}));
    assert!(!events_of(&r).is_empty());
    let s = state(&env, "elves2");
    // Automatic payment taps the land and the elf (two sources for {1}{G}).
    assert_eq!(on_battlefield(&s, "c4").unwrap()["tapped"], true);
    assert_eq!(on_battlefield(&s, "c5").unwrap()["tapped"], true);
}
