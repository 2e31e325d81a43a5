//! Target counts of the FDN cards through the binary, one `--setup` scenario each, named by
//! the Comprehensive Rules number it implements: an optional target ("up to one target",
//! CR 601.2c / 115.1) chosen or declined with `choose_no_target`, a target card in any
//! graveyard (CR 406.3), and "other target" never naming the source (CR 109.1).

use crate::TestEnv;
use crate::mtg::{
    act, decision, events_of, in_graveyard, on_battlefield, pass_until_resolved, refused, setup,
    state,
};
use serde_json::{Value, json};

fn lands(name: &str, n: usize) -> Vec<Value> {
    (0..n).map(|_| json!({"card": name})).collect()
}

fn targets_offered(d: &Value) -> Vec<Value> {
    d["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["type"] == "choose_target")
        .map(|o| o["target"].clone())
        .collect()
}

fn offers_no_target(d: &Value) -> bool {
    d["options"]
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["type"] == "choose_no_target")
}

/// p1 casts Ambush Wolf (c3) with Forests c6-c8 in play; p1's graveyard holds Shock (c4) and
/// Forest (c5), p2's graveyard Grizzly Bears (c11); p2's library c9-c10.
fn wolf_game(env: &TestEnv, id: &str, graveyards: bool) {
    let (mine, theirs): (Vec<&str>, Vec<&str>) = if graveyards {
        (vec!["Shock", "Forest"], vec!["Grizzly Bears"])
    } else {
        (Vec::new(), Vec::new())
    };
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Ambush Wolf"],
                           "graveyard": mine, "battlefield": lands("Forest", 3)},
                    "p2": {"library": ["Forest", "Forest"], "graveyard": theirs}}}),
    );
    act(env, id, json!({"type": "cast", "card": "c3"}));
    pass_until_resolved(env, id);
}

#[test]
fn cr_601_2c_ambush_wolf_exiles_up_to_one_target_card_from_any_graveyard() {
    let env = TestEnv::new();
    wolf_game(&env, "wolf", true);
    let d = decision(&env, "wolf");
    assert_eq!(d["kind"], "choose_target", "{d}");
    // Every card of both graveyards, and no target at all.
    let offered = targets_offered(&d);
    for c in ["c4", "c5", "c11"] {
        assert!(offered.contains(&json!(c)), "{d}");
    }
    assert_eq!(offered.len(), 3, "{d}");
    assert!(offers_no_target(&d), "{d}");
    // A card on the battlefield or in a library is not a card in a graveyard.
    refused(
        &env,
        "wolf",
        json!({"type": "choose_target", "target": "c6"}),
    );
    refused(
        &env,
        "wolf",
        json!({"type": "choose_target", "target": "c1"}),
    );
    act(
        &env,
        "wolf",
        json!({"type": "choose_target", "target": "c11"}),
    );
    let ev = pass_until_resolved(&env, "wolf");
    let s = state(&env, "wolf");
    assert!(!in_graveyard(&s, "p2", "c11"), "{s}");
    assert_eq!(s["players"]["p2"]["exile"][0]["id"], "c11", "{s}");
    assert!(in_graveyard(&s, "p1", "c4"), "{s}");
    assert!(on_battlefield(&s, "c3").is_some(), "{s}");
    let _ = ev;
}

#[test]
fn cr_601_2c_ambush_wolf_may_choose_no_target_and_then_exiles_nothing() {
    let env = TestEnv::new();
    wolf_game(&env, "none", true);
    let out = act(&env, "none", json!({"type": "choose_no_target"}));
    let mut ev = events_of(&out);
    ev.extend(pass_until_resolved(&env, "none"));
    // The ability is put on the stack and resolves; it exiles nothing.
    assert!(
        ev.iter()
            .any(|e| e["type"] == "ability_resolved" && e["card"] == "c3"),
        "{ev:?}"
    );
    assert!(!ev.iter().any(|e| e["type"] == "exiled"), "{ev:?}");
    let s = state(&env, "none");
    assert!(
        in_graveyard(&s, "p2", "c11") && in_graveyard(&s, "p1", "c4"),
        "{s}"
    );
    // The decision is gone: no further choice of target is asked.
    assert_eq!(decision(&env, "none")["kind"], "priority");
}

#[test]
fn cr_603_3d_an_optional_target_with_no_legal_choice_still_triggers() {
    let env = TestEnv::new();
    // Both graveyards empty: zero targets is the only choice, so none is asked, and the
    // ability still goes on the stack and resolves (it is not removed as a mandatory
    // target's ability would be).
    setup(
        &env,
        "empty",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Ambush Wolf"],
                           "battlefield": lands("Forest", 3)},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    let out = act(&env, "empty", json!({"type": "cast", "card": "c3"}));
    let mut ev = events_of(&out);
    ev.extend(pass_until_resolved(&env, "empty"));
    assert!(ev.iter().any(|e| e["type"] == "triggered"), "{ev:?}");
    assert!(
        ev.iter()
            .any(|e| e["type"] == "ability_resolved" && e["card"] == "c3"),
        "{ev:?}"
    );
    assert_eq!(decision(&env, "empty")["kind"], "priority");
}

#[test]
fn cr_109_1_mischievous_pup_returns_up_to_one_other_permanent_you_control() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Mischievous Pup c3; Grizzly Bears c4, Plains c5-c7; p2:
    // library c8-c9, Hill Giant c10.
    let mut mine = vec![json!({"card": "Grizzly Bears"})];
    mine.extend(lands("Plains", 3));
    setup(
        &env,
        "pup",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Mischievous Pup"],
                           "battlefield": mine},
                    "p2": {"library": ["Forest", "Forest"],
                           "battlefield": [{"card": "Hill Giant"}]}}}),
    );
    act(&env, "pup", json!({"type": "cast", "card": "c3"}));
    pass_until_resolved(&env, "pup");
    let d = decision(&env, "pup");
    assert_eq!(d["kind"], "choose_target", "{d}");
    // Any permanent p1 controls (lands too) but the Pup itself; nothing of p2's.
    let offered = targets_offered(&d);
    for c in ["c4", "c5", "c6", "c7"] {
        assert!(offered.contains(&json!(c)), "{d}");
    }
    assert!(
        !offered.contains(&json!("c3")) && !offered.contains(&json!("c10")),
        "{d}"
    );
    assert!(offers_no_target(&d), "{d}");
    let e = refused(
        &env,
        "pup",
        json!({"type": "choose_target", "target": "c3"}),
    );
    assert!(e.to_string().contains("not a legal target"), "{e}");
    refused(
        &env,
        "pup",
        json!({"type": "choose_target", "target": "c10"}),
    );
    act(
        &env,
        "pup",
        json!({"type": "choose_target", "target": "c4"}),
    );
    pass_until_resolved(&env, "pup");
    let s = state(&env, "pup");
    assert!(on_battlefield(&s, "c4").is_none(), "{s}");
    assert!(
        s["players"]["p1"]["hand"].to_string().contains("\"c4\""),
        "{s}"
    );
    assert!(on_battlefield(&s, "c3").is_some(), "{s}");
}

#[test]
fn cr_601_2c_choose_no_target_is_refused_for_a_mandatory_target() {
    let env = TestEnv::new();
    // p1: library c1-c2, Bigfin Bouncer c3, Islands c4-c7; p2: library c8-c9, Grizzly Bears
    // c10. Its "return target creature an opponent controls" target is not optional.
    setup(
        &env,
        "bigfin",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Bigfin Bouncer"],
                           "battlefield": lands("Island", 4)},
                    "p2": {"library": ["Forest", "Forest"],
                           "battlefield": [{"card": "Grizzly Bears"}]}}}),
    );
    act(&env, "bigfin", json!({"type": "cast", "card": "c3"}));
    pass_until_resolved(&env, "bigfin");
    let d = decision(&env, "bigfin");
    assert_eq!(d["kind"], "choose_target", "{d}");
    assert!(!offers_no_target(&d), "{d}");
    let e = refused(&env, "bigfin", json!({"type": "choose_no_target"}));
    assert!(e.to_string().contains("not optional"), "{e}");
}
