//! Ward through the binary (CR 702.21a), one `--setup` scenario per rule: the trigger as a
//! spell targets the ward permanent, the payer's `ward` decision (pay or let it be countered),
//! and the countering at once when the cost cannot be paid. Cackling Prowler (FDN, ward {2}).
//! Also "this spell can't be countered" (CR 101.2), the static that stops a counterspell.

use crate::TestEnv;
use crate::mtg::{
    act, decision, events_of, forests, in_graveyard, on_battlefield, refused, setup, state,
};
use crate::mtg_planeswalkers::{act_and_resolve, resolve_all};
use serde_json::json;

/// p1: two Lightning Bolts in hand, Grizzly Bears and `mountains` Mountains; p2: a Lightning
/// Bolt in hand, Cackling Prowler (ward {2}) and a Mountain.
fn ward_game(env: &TestEnv, id: &str, mountains: usize) {
    let mut bf = vec![json!({"card": "Mountain"}); mountains];
    bf.insert(0, json!({"card": "Grizzly Bears"}));
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Lightning Bolt", "Lightning Bolt"],
                           "battlefield": bf},
                    "p2": {"library": forests(3), "hand": ["Lightning Bolt"],
                           "battlefield": [{"card": "Cackling Prowler"}, {"card": "Mountain"}]}}}),
    );
}

#[test]
fn cr_702_21a_ward_counters_the_spell_unless_its_controller_pays() {
    let env = TestEnv::new();
    // Ids: p1 library c1-c3, Bolts c4-c5, Grizzly Bears c6, Mountains c7-c10; p2 library
    // c11-c13, Bolt c14, Cackling Prowler c15, Mountain c16.
    ward_game(&env, "ward", 4);
    // Bolting the Prowler triggers ward above the Bolt.
    let r = act(
        &env,
        "ward",
        json!({"type": "cast", "card": "c4", "targets": ["c15"], "tap": ["c7"]}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "ward_triggered" && e["card"] == "c15" && e["source"] == "c4"),
        "{r}"
    );
    let s = state(&env, "ward");
    let stack = s["stack"].as_array().unwrap();
    assert_eq!(stack.len(), 2, "{s}");
    assert_eq!(stack[1]["ward"]["counters"], "c4", "{s}");
    // Both pass: the trigger resolves and p1 decides (only p1 sees the choice as its own).
    act_until_ward(&env, "ward");
    let d = decision(&env, "ward");
    assert_eq!(d["kind"], "ward", "{d}");
    assert_eq!(d["player"], "p1");
    // Paying needs the mana: tapping one Mountain for {2} is refused.
    let e = refused(
        &env,
        "ward",
        json!({"type": "ward", "pay": true, "tap": ["c8"]}),
    );
    assert!(
        e.to_string().contains("c8") || e.to_string().contains("pay"),
        "{e}"
    );
    let r = act(&env, "ward", json!({"type": "ward", "pay": true}));
    assert!(
        events_of(&r).iter().any(|e| e["type"] == "ward_paid"),
        "{r}"
    );
    resolve_all(&env, "ward");
    let s = state(&env, "ward");
    assert!(in_graveyard(&s, "p2", "c15"), "the paid Bolt resolves: {s}");

    // Declining counters the spell: it goes to its owner's graveyard, the Prowler lives.
    let env = TestEnv::new();
    ward_game(&env, "decline", 4);
    act(
        &env,
        "decline",
        json!({"type": "cast", "card": "c4", "targets": ["c15"], "tap": ["c7"]}),
    );
    act_until_ward(&env, "decline");
    let r = act(&env, "decline", json!({"type": "ward", "pay": false}));
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "countered" && e["card"] == "c4"),
        "{r}"
    );
    let s = state(&env, "decline");
    assert!(in_graveyard(&s, "p1", "c4"));
    assert!(on_battlefield(&s, "c15").is_some());
    assert!(s["stack"].as_array().unwrap().is_empty(), "{s}");
}

#[test]
fn cr_702_21a_ward_counters_at_once_when_its_cost_cannot_be_paid() {
    let env = TestEnv::new();
    // Ids: p1 library c1-c3, Bolts c4-c5, Grizzly Bears c6, Mountains c7-c8; p2 library
    // c9-c11, Bolt c12, Cackling Prowler c13, Mountain c14.
    ward_game(&env, "poor", 2);
    // One Mountain left after the Bolt: {2} can't be paid, so no decision: countered.
    let ev = act_and_resolve(
        &env,
        "poor",
        json!({"type": "cast", "card": "c4", "targets": ["c13"], "tap": ["c7"]}),
    );
    assert!(
        ev.iter()
            .any(|e| e["type"] == "countered" && e["card"] == "c4"),
        "{ev:?}"
    );
    let s = state(&env, "poor");
    assert!(on_battlefield(&s, "c13").is_some(), "{s}");
    // Targeting an opponent's creature without ward triggers nothing.
    let ev = act_and_resolve(
        &env,
        "poor",
        json!({"type": "cast", "card": "c5", "targets": ["p2"], "tap": ["c8"]}),
    );
    assert!(!ev.iter().any(|e| e["type"] == "ward_triggered"), "{ev:?}");
}

/// Passes until the pending decision is a `ward` payment (at most 10 decisions).
fn act_until_ward(env: &TestEnv, id: &str) {
    for _ in 0..10 {
        if decision(env, id)["kind"] == "ward" {
            return;
        }
        act(env, id, json!({"type": "pass"}));
    }
    panic!("no ward decision: {}", state(env, id));
}

#[test]
fn cr_101_2_a_spell_that_cant_be_countered_resolves_through_a_counterspell() {
    let env = TestEnv::new();
    let f = env.write(
        "stubborn.json",
        &json!([{"object": "card", "layout": "normal", "name": "Fixture Stubborn Bear",
                 "mana_cost": "{1}{G}", "type_line": "Creature — Bear",
                 "oracle_text": "This spell can't be countered.", "power": "2", "toughness": "2",
                 "keywords": []}])
        .to_string(),
    );
    env.json(&["mtg", "cards", "import", f.to_str().unwrap()], "");
    // p1: library Forest c1, Plains c2; hand Fixture Stubborn Bear c3, Refute c4; Islands
    // c5-c7, Forests c8-c9.
    setup(
        &env,
        "stubborn",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Plains"],
                           "hand": ["Fixture Stubborn Bear", "Refute"],
                           "battlefield": [{"card": "Island"}, {"card": "Island"}, {"card": "Island"},
                                           {"card": "Forest"}, {"card": "Forest"}]},
                    "p2": {"library": forests(2)}}}),
    );
    act(
        &env,
        "stubborn",
        json!({"type": "cast", "card": "c3", "tap": ["c8", "c9"]}),
    );
    let mut ev = events_of(&act(
        &env,
        "stubborn",
        json!({"type": "cast", "card": "c4", "targets": ["c3"]}),
    ));
    // Refute resolves (draw, then a discard decision) without countering the Bear.
    for _ in 0..20 {
        let d = decision(&env, "stubborn");
        let s = state(&env, "stubborn");
        if d["kind"] == "discard" {
            let card = d["options"][0]["choose_from"][0]["card"].clone();
            ev.extend(events_of(&act(
                &env,
                "stubborn",
                json!({"type": "discard", "cards": [card]}),
            )));
        } else if s["stack"].as_array().is_none_or(Vec::is_empty) {
            break;
        } else {
            ev.extend(events_of(&act(&env, "stubborn", json!({"type": "pass"}))));
        }
    }
    assert!(!ev.iter().any(|e| e["type"] == "countered"), "{ev:?}");
    let s = state(&env, "stubborn");
    assert!(on_battlefield(&s, "c3").is_some(), "{s}");
    assert!(in_graveyard(&s, "p1", "c4"), "{s}");
}
