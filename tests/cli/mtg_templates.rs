//! The compiler's newer templates through the binary, one `--setup` scenario each, named by
//! the Comprehensive Rules number it implements: intervening-if triggers (CR 603.4) and the
//! beginning-of-step triggers they ride on.

use crate::TestEnv;
use crate::mtg::{act, decision, events_of, forests, on_battlefield, setup, state};
use serde_json::{Value, json};

fn tokens_named(s: &Value, name: &str) -> usize {
    s["battlefield"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == name)
        .count()
}

fn hand_len(s: &Value, seat: &str) -> usize {
    s["players"][seat]["hand"].as_array().map_or(0, Vec::len)
}

/// Passes until `p1` has priority in `step` (at most 40 decisions).
fn pass_to(env: &TestEnv, id: &str, step: &str) {
    for _ in 0..40 {
        let s = state(env, id);
        let d = decision(env, id);
        if s["step"] == step && d["player"] == "p1" && d["kind"] == "priority" {
            return;
        }
        act(env, id, json!({"type": "pass"}));
    }
    panic!("never reached {step}: {}", state(env, id));
}

/// Searslicer Goblin (c4) on p1's battlefield at declare attackers; both hands empty, so the
/// game runs on by itself after the declaration.
fn goblin_game(env: &TestEnv, id: &str) {
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3), "battlefield": [{"card": "Searslicer Goblin"}]},
                    "p2": {"library": forests(3)}}}),
    );
}

#[test]
fn cr_603_4_raid_end_step_trigger_only_after_attacking() {
    let env = TestEnv::new();
    goblin_game(&env, "raid");
    let r = act(
        &env,
        "raid",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    let ev = events_of(&r);
    assert!(
        ev.iter()
            .any(|e| e["type"] == "triggered" && e["card"] == "c4"),
        "{ev:?}"
    );
    let s = state(&env, "raid");
    assert_eq!(tokens_named(&s, "Goblin Token"), 1, "{s}");
    assert_eq!(s["players"]["p2"]["life"], 18);

    // The same turn without an attack: the end step comes and nothing triggers.
    goblin_game(&env, "no-raid");
    let r = act(
        &env,
        "no-raid",
        json!({"type": "declare_attackers", "attackers": []}),
    );
    assert!(
        !events_of(&r).iter().any(|e| e["type"] == "triggered"),
        "{r}"
    );
    assert_eq!(tokens_named(&state(&env, "no-raid"), "Goblin Token"), 0);
}

/// p1: library c1-c3, Skyship Buccaneer c4, then Islands and the given creature.
fn buccaneer_game(env: &TestEnv, id: &str, step: &str) {
    let mut bf: Vec<Value> = (0..5).map(|_| json!({"card": "Island"})).collect();
    bf.push(json!({"card": "Searslicer Goblin"}));
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": step,
        "players": {"p1": {"library": forests(3), "hand": ["Skyship Buccaneer"], "battlefield": bf},
                    "p2": {"library": forests(3)}}}),
    );
}

#[test]
fn cr_603_4_raid_enters_trigger_checks_whether_you_attacked_this_turn() {
    let env = TestEnv::new();
    // Attack with the Goblin (c10), then cast the Buccaneer in the second main phase.
    buccaneer_game(&env, "attacked", "declare_attackers");
    act(
        &env,
        "attacked",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c10", "defender": "p2"}]}),
    );
    pass_to(&env, "attacked", "main2");
    let r = act(&env, "attacked", json!({"type": "cast", "card": "c4"}));
    assert!(events_of(&r).iter().any(|e| e["type"] == "drew"), "{r}");
    let s = state(&env, "attacked");
    assert_eq!(hand_len(&s, "p1"), 1, "{s}");

    // Cast before any attack this turn: the ability does not trigger.
    buccaneer_game(&env, "quiet", "main1");
    let r = act(&env, "quiet", json!({"type": "cast", "card": "c4"}));
    let ev = events_of(&r);
    assert!(!ev.iter().any(|e| e["type"] == "triggered"), "{ev:?}");
    assert_eq!(hand_len(&state(&env, "quiet"), "p1"), 0);
}

/// p1: library c1-c3, hand (Lightning Bolt c4 when `strike`), then Nessian Hornbeetle,
/// `other` and a Mountain.
fn beetle_game(env: &TestEnv, id: &str, other: &str, strike: bool) {
    let hand: Vec<&str> = if strike {
        vec!["Lightning Bolt"]
    } else {
        vec![]
    };
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": hand,
                           "battlefield": [{"card": "Nessian Hornbeetle"}, {"card": other},
                                           {"card": "Mountain"}]},
                    "p2": {"library": forests(3)}}}),
    );
}

#[test]
fn cr_603_4_beginning_of_combat_trigger_with_a_power_condition() {
    let env = TestEnv::new();
    // A 4/3 beside the Hornbeetle (c5, ids after the Strike c4): a counter at combat.
    beetle_game(&env, "big", "Skyship Buccaneer", true);
    pass_to(&env, "big", "beginning_of_combat");
    let s = state(&env, "big");
    // The trigger is on the stack: kill the 4/3 (c6) in response.
    assert_eq!(s["stack"].as_array().map_or(0, Vec::len), 1, "{s}");
    act(
        &env,
        "big",
        json!({"type": "cast", "card": "c4", "targets": ["c6"]}),
    );
    for _ in 0..3 {
        if state(&env, "big")["stack"]
            .as_array()
            .is_none_or(Vec::is_empty)
        {
            break;
        }
        act(&env, "big", json!({"type": "pass"}));
    }
    // CR 603.4: on resolution the condition no longer holds, so no counter.
    let s = state(&env, "big");
    assert!(on_battlefield(&s, "c6").is_none(), "{s}");
    assert!(
        on_battlefield(&s, "c5").unwrap().get("counters").is_none(),
        "{s}"
    );

    // Left alone (an empty hand: the game runs on to the attack), the trigger resolves and
    // puts the counter on.
    beetle_game(&env, "kept", "Skyship Buccaneer", false);
    let s = state(&env, "kept");
    assert_eq!(s["step"], "declare_attackers");
    assert_eq!(on_battlefield(&s, "c4").unwrap()["counters"], 1, "{s}");

    // With only a 2/1 beside it, nothing triggers.
    beetle_game(&env, "small", "Searslicer Goblin", false);
    let s = state(&env, "small");
    assert_eq!(s["step"], "declare_attackers");
    assert!(on_battlefield(&s, "c4").unwrap().get("counters").is_none());
}

/// p1: library c1-c3, Goblin Boarders c4, three Mountains c5-c7 and Searslicer Goblin c8.
fn boarders_game(env: &TestEnv, id: &str, step: &str) {
    let mut bf: Vec<Value> = (0..3).map(|_| json!({"card": "Mountain"})).collect();
    bf.push(json!({"card": "Searslicer Goblin"}));
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": step,
        "players": {"p1": {"library": forests(3), "hand": ["Goblin Boarders"], "battlefield": bf},
                    "p2": {"library": forests(3)}}}),
    );
}

#[test]
fn cr_614_1c_raid_enters_with_a_counter_only_after_attacking() {
    let env = TestEnv::new();
    boarders_game(&env, "raided", "declare_attackers");
    act(
        &env,
        "raided",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c8", "defender": "p2"}]}),
    );
    pass_to(&env, "raided", "main2");
    let r = act(&env, "raided", json!({"type": "cast", "card": "c4"}));
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "counters" && e["card"] == "c4"),
        "{r}"
    );
    let s = state(&env, "raided");
    let b = on_battlefield(&s, "c4").unwrap();
    assert_eq!(
        (b["counters"].as_i64(), b["power"].as_i64()),
        (Some(1), Some(4)),
        "{b}"
    );

    boarders_game(&env, "calm", "main1");
    act(&env, "calm", json!({"type": "cast", "card": "c4"}));
    let s = state(&env, "calm");
    let b = on_battlefield(&s, "c4").unwrap();
    assert!(b.get("counters").is_none(), "{b}");
    assert_eq!(b["power"], 3);
}
