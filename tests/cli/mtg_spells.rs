//! Spell and effect templates through the binary, one `--setup` scenario each, named by the
//! Comprehensive Rules number it implements: library searches (CR 701.23) and sacrifice costs
//! (CR 701.17).

use crate::TestEnv;
use crate::mtg::{act, decision, events_of, on_battlefield, refused, setup, state};
use serde_json::{Value, json};

fn library_ids(s: &Value, seat: &str) -> Vec<String> {
    s["players"][seat]["library"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

fn actions_as(env: &TestEnv, id: &str, seat: &str) -> Value {
    env.json(&["mtg", "actions", "--game", id, "--as", seat], "")
}

/// The cards a pending search offers, as seen by `seat`.
fn choose_from(env: &TestEnv, id: &str, seat: &str) -> Vec<String> {
    let d = actions_as(env, id, seat);
    assert_eq!(d["kind"], "search", "{d}");
    d["options"][0]["choose_from"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["card"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn cr_701_23_evolving_wilds_sacrifices_itself_and_finds_a_basic_land_tapped() {
    let env = TestEnv::new();
    // p1: library Forest c1, Grizzly Bears c2, Plains c3; Evolving Wilds c4 in play.
    setup(
        &env,
        "wilds",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Grizzly Bears", "Plains"],
                           "battlefield": [{"card": "Evolving Wilds"}]},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    let r = act(
        &env,
        "wilds",
        json!({"type": "activate", "card": "c4", "ability": 0}),
    );
    let ev = events_of(&r);
    assert!(
        ev.iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == "c4"),
        "{ev:?}"
    );
    // The ability resolved into p1's search: a hidden decision, its options shown to p1 only.
    let d = decision(&env, "wilds");
    assert_eq!(d["kind"], "search", "{d}");
    assert_eq!(d["options"], json!([]), "{d}");
    assert!(d["options_hidden"].is_string(), "{d}");
    let p2 = actions_as(&env, "wilds", "p2");
    assert!(!p2.to_string().contains("Plains"), "{p2}");
    assert_eq!(choose_from(&env, "wilds", "p1"), ["c1", "c3"]);
    // A nonbasic card and two cards are refused; nothing changes.
    refused(&env, "wilds", json!({"type": "search", "cards": ["c2"]}));
    refused(
        &env,
        "wilds",
        json!({"type": "search", "cards": ["c1", "c3"]}),
    );
    let r = act(&env, "wilds", json!({"type": "search", "cards": ["c3"]}));
    let ev = events_of(&r);
    assert!(
        ev.iter()
            .any(|e| e["type"] == "searched" && e["found"] == 1 && e["shuffled"] == true),
        "{ev:?}"
    );
    let s = state(&env, "wilds");
    let plains = on_battlefield(&s, "c3").expect("the Plains entered");
    assert_eq!(plains["tapped"], true, "{s}");
    assert!(on_battlefield(&s, "c4").is_none(), "{s}");
    assert_eq!(s["players"]["p1"]["graveyard"][0]["id"], "c4", "{s}");
    let mut lib = library_ids(&s, "p1");
    lib.sort();
    assert_eq!(lib, ["c1", "c2"]);
}

#[test]
fn cr_701_23_a_search_for_a_card_must_find_one_and_a_declined_search_does_not_shuffle() {
    let env = TestEnv::new();
    // Rune-Scarred Demon (c4) searches for "a card": finding none is refused.
    let mut bf: Vec<Value> = (0..7).map(|_| json!({"card": "Swamp"})).collect();
    bf.push(json!({"card": "Forest"}));
    setup(
        &env,
        "demon",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Lightning Bolt", "Plains"],
                           "hand": ["Rune-Scarred Demon"], "battlefield": bf},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    act(&env, "demon", json!({"type": "cast", "card": "c4"}));
    while decision(&env, "demon")["kind"] == "priority" {
        act(&env, "demon", json!({"type": "pass"}));
    }
    assert_eq!(choose_from(&env, "demon", "p1"), ["c1", "c2", "c3"]);
    let e = refused(&env, "demon", json!({"type": "search", "cards": []}));
    assert!(e.to_string().contains("choose 1 card"), "{e}");
    let r = act(&env, "demon", json!({"type": "search", "cards": ["c2"]}));
    // A card put into the hand is not named in the events.
    assert!(!r["events"].to_string().contains("c2"), "{r}");
    let s = state(&env, "demon");
    assert_eq!(
        s["players"]["p1"]["hand"][0]["name"], "Lightning Bolt",
        "{s}"
    );

    // Campus Guide (c4): "you may search"; finding nothing declines, the library keeps its
    // order.
    setup(
        &env,
        "guide",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Lightning Bolt", "Plains", "Island"],
                           "hand": ["Campus Guide"],
                           "battlefield": [{"card": "Forest"}, {"card": "Forest"}]},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    act(&env, "guide", json!({"type": "cast", "card": "c5"}));
    while decision(&env, "guide")["kind"] == "priority" {
        act(&env, "guide", json!({"type": "pass"}));
    }
    assert_eq!(choose_from(&env, "guide", "p1"), ["c1", "c3", "c4"]);
    let r = act(&env, "guide", json!({"type": "search", "cards": []}));
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "searched" && e["shuffled"] == false),
        "{r}"
    );
    assert_eq!(
        library_ids(&state(&env, "guide"), "p1"),
        ["c1", "c2", "c3", "c4"]
    );
    // Finding the Island: it goes on top after the shuffle (CR 701.23).
    setup(
        &env,
        "guide2",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Lightning Bolt", "Plains", "Island"],
                           "hand": ["Campus Guide"],
                           "battlefield": [{"card": "Forest"}, {"card": "Forest"}]},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    act(&env, "guide2", json!({"type": "cast", "card": "c5"}));
    while decision(&env, "guide2")["kind"] == "priority" {
        act(&env, "guide2", json!({"type": "pass"}));
    }
    act(&env, "guide2", json!({"type": "search", "cards": ["c4"]}));
    assert_eq!(library_ids(&state(&env, "guide2"), "p1")[0], "c4");
}

#[test]
fn cr_701_17_burnished_hart_is_sacrificed_as_a_cost_and_finds_up_to_two_lands() {
    let env = TestEnv::new();
    let mut bf: Vec<Value> = (0..3).map(|_| json!({"card": "Forest"})).collect();
    bf.push(json!({"card": "Burnished Hart"}));
    setup(
        &env,
        "hart",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Island", "Plains"], "battlefield": bf},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    let r = act(
        &env,
        "hart",
        json!({"type": "activate", "card": "c7", "ability": 0}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == "c7"),
        "{r}"
    );
    while decision(&env, "hart")["kind"] == "priority" {
        act(&env, "hart", json!({"type": "pass"}));
    }
    refused(
        &env,
        "hart",
        json!({"type": "search", "cards": ["c1", "c2", "c3"]}),
    );
    act(
        &env,
        "hart",
        json!({"type": "search", "cards": ["c1", "c2"]}),
    );
    let s = state(&env, "hart");
    for c in ["c1", "c2"] {
        assert_eq!(on_battlefield(&s, c).unwrap()["tapped"], true, "{s}");
    }
    assert_eq!(s["players"]["p1"]["graveyard"][0]["name"], "Burnished Hart");
}

/// Passes until the decision is not a priority one (at most 20 passes).
fn pass_until_decision(env: &TestEnv, id: &str) -> Value {
    for _ in 0..20 {
        let d = decision(env, id);
        if d["kind"] != "priority" {
            return d;
        }
        act(env, id, json!({"type": "pass"}));
    }
    panic!("no decision came: {}", state(env, id));
}

#[test]
fn cr_701_9_draw_then_discard_asks_the_controller_as_the_trigger_resolves() {
    let env = TestEnv::new();
    // p1: library Forest c1, Plains c2; hand Icewind Elemental c3, Lightning Bolt c4.
    let bf: Vec<Value> = (0..5).map(|_| json!({"card": "Island"})).collect();
    setup(
        &env,
        "icewind",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Plains"],
                           "hand": ["Icewind Elemental", "Lightning Bolt"], "battlefield": bf},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    act(&env, "icewind", json!({"type": "cast", "card": "c3"}));
    let d = pass_until_decision(&env, "icewind");
    assert_eq!(d["kind"], "discard", "{d}");
    assert_eq!(d["player"], "p1", "{d}");
    // The options name p1's hand: hidden from everyone else.
    assert_eq!(d["options"], json!([]), "{d}");
    let mine = actions_as(&env, "icewind", "p1");
    assert_eq!(mine["options"][0]["count"], 1, "{mine}");
    refused(
        &env,
        "icewind",
        json!({"type": "discard", "cards": ["c4", "c1"]}),
    );
    let r = act(&env, "icewind", json!({"type": "discard", "cards": ["c4"]}));
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "discarded" && e["card"] == "c4"),
        "{r}"
    );
    let s = state(&env, "icewind");
    assert_eq!(s["players"]["p1"]["hand"][0]["id"], "c1", "{s}");
    assert_eq!(s["players"]["p1"]["graveyard"][0]["id"], "c4", "{s}");
    assert_eq!(decision(&env, "icewind")["kind"], "priority");
}

#[test]
fn cr_701_9_each_opponent_discards_is_the_opponents_choice() {
    let env = TestEnv::new();
    let rat_game = |id: &str, p2_hand: Value| {
        setup(
            &env,
            id,
            json!({"active": "p1", "turn": 3, "step": "main1",
            "players": {"p1": {"library": ["Forest"], "hand": ["Burglar Rat"],
                               "battlefield": [{"card": "Swamp"}, {"card": "Swamp"}]},
                        "p2": {"library": ["Forest"], "hand": p2_hand}}}),
        );
    };
    // p2 holds Forest c6 and Plains c7: p2 chooses.
    rat_game("rat", json!(["Forest", "Plains"]));
    act(&env, "rat", json!({"type": "cast", "card": "c2"}));
    let d = pass_until_decision(&env, "rat");
    assert_eq!(
        (d["kind"].as_str(), d["player"].as_str()),
        (Some("discard"), Some("p2"))
    );
    act(&env, "rat", json!({"type": "discard", "cards": ["c7"]}));
    let s = state(&env, "rat");
    assert_eq!(s["players"]["p2"]["graveyard"][0]["name"], "Plains", "{s}");
    assert_eq!(s["players"]["p2"]["hand"][0]["name"], "Forest", "{s}");
    // With one card there is nothing to choose: it is discarded at once.
    rat_game("rat1", json!(["Plains"]));
    act(&env, "rat1", json!({"type": "cast", "card": "c2"}));
    let s = state(&env, "rat1");
    assert_eq!(s["players"]["p2"]["graveyard"][0]["name"], "Plains", "{s}");
}

/// p1: library Forest c1, hand `card` c2, then `lands` and Grizzly Bears.
fn modal_game(env: &TestEnv, id: &str, card: &str, land: &str, lands: usize) {
    let mut bf: Vec<Value> = (0..lands).map(|_| json!({"card": land})).collect();
    bf.push(json!({"card": "Grizzly Bears"}));
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest"], "hand": [card], "battlefield": bf},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
}

#[test]
fn cr_700_2_a_modal_spell_is_cast_with_its_mode() {
    let env = TestEnv::new();
    // Goblin Surprise c2; Grizzly Bears c6.
    modal_game(&env, "surprise", "Goblin Surprise", "Mountain", 3);
    let d = decision(&env, "surprise");
    let modes: Vec<Value> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["card"] == "c2")
        .map(|o| o["mode"].clone())
        .collect();
    assert_eq!(modes, [json!(0), json!(1)], "{d}");
    let e = refused(&env, "surprise", json!({"type": "cast", "card": "c2"}));
    assert!(e.to_string().contains("choose a mode"), "{e}");
    refused(
        &env,
        "surprise",
        json!({"type": "cast", "card": "c2", "mode": 2}),
    );
    act(
        &env,
        "surprise",
        json!({"type": "cast", "card": "c2", "mode": 1}),
    );
    pass_until_decision(&env, "surprise");
    let s = state(&env, "surprise");
    let goblins = s["battlefield"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "Goblin Token")
        .count();
    assert_eq!(goblins, 2, "{s}");
    assert_eq!(on_battlefield(&s, "c6").unwrap()["power"], 2, "{s}");

    // The other mode: creatures you control get +2/+0, no tokens.
    modal_game(&env, "surprise0", "Goblin Surprise", "Mountain", 3);
    let r = act(
        &env,
        "surprise0",
        json!({"type": "cast", "card": "c2", "mode": 0}),
    );
    assert!(!r.to_string().contains("token_created"), "{r}");
    let s = state(&env, "surprise0");
    assert_eq!(on_battlefield(&s, "c6").unwrap()["power"], 4, "{s}");
}

#[test]
fn cr_700_2a_a_modal_trigger_chooses_its_mode_then_its_target_on_the_stack() {
    let env = TestEnv::new();
    // Apothecary Stomper c2; Grizzly Bears c9.
    modal_game(&env, "stomper", "Apothecary Stomper", "Forest", 6);
    act(&env, "stomper", json!({"type": "cast", "card": "c2"}));
    let d = pass_until_decision(&env, "stomper");
    assert_eq!(d["kind"], "choose_mode", "{d}");
    let modes: Vec<Value> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["mode"].clone())
        .collect();
    assert_eq!(modes, [json!(0), json!(1)], "{d}");
    refused(&env, "stomper", json!({"type": "choose_mode", "mode": 5}));
    act(&env, "stomper", json!({"type": "choose_mode", "mode": 0}));
    let d = decision(&env, "stomper");
    assert_eq!(d["kind"], "choose_target", "{d}");
    act(
        &env,
        "stomper",
        json!({"type": "choose_target", "target": "c9"}),
    );
    let s = state(&env, "stomper");
    assert_eq!(on_battlefield(&s, "c9").unwrap()["counters"], 2, "{s}");
    assert_eq!(s["players"]["p1"]["life"], 20, "{s}");

    // The life mode has no target: no target decision follows.
    modal_game(&env, "stomper1", "Apothecary Stomper", "Forest", 6);
    act(&env, "stomper1", json!({"type": "cast", "card": "c2"}));
    pass_until_decision(&env, "stomper1");
    act(&env, "stomper1", json!({"type": "choose_mode", "mode": 1}));
    let s = state(&env, "stomper1");
    assert_eq!(s["players"]["p1"]["life"], 24, "{s}");
    assert!(
        on_battlefield(&s, "c9").unwrap()["counters"].is_null(),
        "{s}"
    );
}

#[test]
fn cr_701_5_refute_counters_a_spell_then_draws_and_discards() {
    let env = TestEnv::new();
    // p1: library Forest c1, Plains c2; hand Grizzly Bears c3, Refute c4, Lightning Bolt c5;
    // Islands c6-c8, Forests c9-c10.
    let mut bf: Vec<Value> = (0..3).map(|_| json!({"card": "Island"})).collect();
    bf.extend((0..2).map(|_| json!({"card": "Forest"})));
    setup(
        &env,
        "refute",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Plains"],
                           "hand": ["Grizzly Bears", "Refute", "Lightning Bolt"],
                           "battlefield": bf},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    // Refute needs a spell to target: none on the stack yet.
    let d = decision(&env, "refute");
    assert!(
        !d["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["card"] == "c4"),
        "{d}"
    );
    act(
        &env,
        "refute",
        json!({"type": "cast", "card": "c3", "tap": ["c9", "c10"]}),
    );
    let d = decision(&env, "refute");
    let targets: Vec<Value> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["card"] == "c4")
        .map(|o| o["targets"].clone())
        .collect();
    assert_eq!(targets, [json!(["c3"])], "{d}");
    // A permanent is not a spell.
    refused(
        &env,
        "refute",
        json!({"type": "cast", "card": "c4", "targets": ["c6"]}),
    );
    act(
        &env,
        "refute",
        json!({"type": "cast", "card": "c4", "targets": ["c3"]}),
    );
    let d = pass_until_decision(&env, "refute");
    assert_eq!(d["kind"], "discard", "{d}");
    act(&env, "refute", json!({"type": "discard", "cards": ["c5"]}));
    let s = state(&env, "refute");
    let yard: Vec<&str> = s["players"]["p1"]["graveyard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(yard, ["c3", "c4", "c5"], "{s}");
    assert!(on_battlefield(&s, "c3").is_none(), "{s}");
    assert_eq!(s["players"]["p1"]["hand"][0]["id"], "c1", "{s}");
}
