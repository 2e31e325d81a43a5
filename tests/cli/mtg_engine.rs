//! The engine's rules for compiled Foundations cards, through the binary: mana abilities of
//! permanents, activated abilities, targeted triggers. One `--setup` scenario per rule, named
//! by its Comprehensive Rules number.

use crate::TestEnv;
use crate::mtg::{act, decision, events_of, forests, life, on_battlefield, setup, state};
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

#[test]
fn cr_602_5a_a_tap_ability_of_a_sick_creature_is_refused_then_grants_haste() {
    let env = TestEnv::new();
    // p1: library c1-c3, Forest c4 (hand), Axgard Cavalry c5, Grizzly Bears c6 (sick).
    let position = |sick: bool| {
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Forest"],
                           "battlefield": [{"card": "Axgard Cavalry", "sick": sick},
                                           {"card": "Grizzly Bears", "sick": true}]},
                    "p2": {"library": forests(3)}}})
    };
    setup(&env, "cav", position(true));
    assert!(options_for(&env, "cav", "c5").is_empty());
    let r = refused_act(
        &env,
        "cav",
        json!({"type": "activate", "card": "c5", "targets": ["c6"]}),
    );
    assert!(r.to_string().contains("602.5a"), "{r}");

    setup(&env, "cav2", position(false));
    let opts = options_for(&env, "cav2", "c5");
    assert!(
        opts.iter()
            .any(|o| o["type"] == "activate" && o["targets"] == json!(["c6"])),
        "{opts:?}"
    );
    let r = act(
        &env,
        "cav2",
        json!({"type": "activate", "card": "c5", "ability": 0, "targets": ["c6"]}),
    );
    let ev = events_of(&r);
    assert!(ev.iter().any(|e| e["type"] == "activated"), "{ev:?}");
    let s = state(&env, "cav2");
    let bears = on_battlefield(&s, "c6").unwrap();
    assert!(
        bears["keywords"]
            .as_array()
            .unwrap()
            .contains(&json!("Haste")),
        "{s}"
    );
    assert_eq!(on_battlefield(&s, "c5").unwrap()["tapped"], true);
    // The bears, sick but hasty now, attack (CR 702.10b).
    act(&env, "cav2", json!({"type": "pass"}));
    let d = decision(&env, "cav2");
    assert_eq!(d["kind"], "declare_attackers", "{d}");
    act(
        &env,
        "cav2",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c6", "defender": "p2"}]}),
    );
}

#[test]
fn cr_602_2_a_mana_ability_cost_pumps_its_source_each_activation() {
    let env = TestEnv::new();
    // p1: library c1-c2, Forest c3 (hand), Shivan Dragon c4, Mountains c5-c6.
    setup(
        &env,
        "shivan",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Forest"],
                           "battlefield": [{"card": "Shivan Dragon"}, {"card": "Mountain"}, {"card": "Mountain"}]},
                    "p2": {"library": forests(2)}}}),
    );
    for _ in 0..2 {
        act(&env, "shivan", json!({"type": "activate", "card": "c4"}));
        act(&env, "shivan", json!({"type": "pass"}));
    }
    let s = state(&env, "shivan");
    assert_eq!(on_battlefield(&s, "c4").unwrap()["power"], 7, "{s}");
    // No untapped Mountain is left: the ability is no longer offered.
    assert!(options_for(&env, "shivan", "c4").is_empty());
    refused_act(&env, "shivan", json!({"type": "activate", "card": "c4"}));
}

#[test]
fn cr_602_5d_a_sorcery_speed_ability_waits_for_its_main_phase_and_an_instant_speed_one_does_not() {
    let env = TestEnv::new();
    // p1: library c1-c2, Grizzly Bears c3 (hand); p2: library c4-c5, Treetop Snarespinner c6,
    // Spectral Sailor c7, Forests c8-c10, Islands c11-c14.
    let mut lands: Vec<Value> = (0..3).map(|_| json!({"card": "Forest"})).collect();
    lands.extend((0..4).map(|_| json!({"card": "Island"})));
    let mut perms = vec![
        json!({"card": "Treetop Snarespinner"}),
        json!({"card": "Spectral Sailor"}),
    ];
    perms.extend(lands);
    setup(
        &env,
        "timing",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Grizzly Bears"]},
                    "p2": {"library": forests(2), "battlefield": perms}}}),
    );
    act(&env, "timing", json!({"type": "pass"}));
    // p2 has priority on p1's turn: the sailor's draw is offered, the spider's counter is not.
    let d = decision(&env, "timing");
    assert_eq!(d["player"], "p2", "{d}");
    assert!(options_for(&env, "timing", "c6").is_empty(), "{d}");
    let r = refused_act(
        &env,
        "timing",
        json!({"type": "activate", "card": "c6", "targets": ["c6"]}),
    );
    assert!(r.to_string().contains("602.5d"), "{r}");
    let before = state(&env, "timing")["players"]["p2"]["hand"]
        .as_array()
        .unwrap()
        .len();
    act(&env, "timing", json!({"type": "activate", "card": "c7"}));
    act(&env, "timing", json!({"type": "pass"}));
    act(&env, "timing", json!({"type": "pass"}));
    let s = state(&env, "timing");
    assert_eq!(
        s["players"]["p2"]["hand"].as_array().unwrap().len(),
        before + 1,
        "{s}"
    );
}

#[test]
fn cr_603_3d_an_enters_trigger_targets_as_it_goes_on_the_stack() {
    let env = TestEnv::new();
    // p1: library c1-c2, Bigfin Bouncer c3, Islands c4-c7; p2: library c8-c9, Grizzly Bears
    // c10.
    let islands: Vec<Value> = (0..4).map(|_| json!({"card": "Island"})).collect();
    setup(
        &env,
        "bigfin",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Bigfin Bouncer"], "battlefield": islands},
                    "p2": {"library": forests(2), "battlefield": [{"card": "Grizzly Bears"}]}}}),
    );
    // Neither player can respond (public information): the shark resolves at once, and
    act(&env, "bigfin", json!({"type": "cast", "card": "c3"}));
    // the shark resolved; its trigger waits for p1's choice of target.
    let d = decision(&env, "bigfin");
    assert_eq!(d["kind"], "choose_target", "{d}");
    assert_eq!(d["player"], "p1");
    let targets: Vec<&Value> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["target"])
        .collect();
    // Only a creature an opponent controls: not the shark itself.
    assert_eq!(targets, [&json!("c10")], "{d}");
    refused_act(
        &env,
        "bigfin",
        json!({"type": "choose_target", "target": "c3"}),
    );
    act(
        &env,
        "bigfin",
        json!({"type": "choose_target", "target": "c10"}),
    );
    // Nobody can respond: the ability resolves and returns the bears to their owner's hand.
    let s = state(&env, "bigfin");
    assert!(on_battlefield(&s, "c10").is_none(), "{s}");
    assert!(
        s["players"]["p2"]["hand"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "c10")
    );

    // With no creature to return, the trigger is removed as it would go on the stack.
    let islands: Vec<Value> = (0..4).map(|_| json!({"card": "Island"})).collect();
    setup(
        &env,
        "bigfin2",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Bigfin Bouncer", "Forest"], "battlefield": islands},
                    "p2": {"library": forests(2)}}}),
    );
    let r = act(&env, "bigfin2", json!({"type": "cast", "card": "c3"}));
    assert!(
        !events_of(&r).iter().any(|e| e["type"] == "triggered"),
        "{r}"
    );
    assert_eq!(decision(&env, "bigfin2")["kind"], "priority");
}
