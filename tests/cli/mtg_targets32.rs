//! Target counts of the FDN cards through the binary, one `--setup` scenario each, named by
//! the Comprehensive Rules number it implements: an optional target ("up to one target",
//! CR 601.2c / 115.1) chosen or declined with `choose_no_target`, a target card in any
//! graveyard (CR 406.3), and "other target" never naming the source (CR 109.1).

use crate::TestEnv;
use crate::mtg::{
    act, copies, decision, events_of, in_graveyard, on_battlefield, pass_until_resolved, refused,
    setup, state,
};
use serde_json::{Value, json};

fn targets_offered(d: &Value) -> Vec<Value> {
    d["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["type"] == "choose_target")
        .map(|o| o["target"].clone())
        .collect()
}

/// The game's journal replays to the same state (its moves, the new ones included).
fn replays(env: &TestEnv, id: &str) {
    let r = env.json(&["mtg", "replay", "--game", id], "");
    assert_eq!(r["matches"], true, "{r}");
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
                           "graveyard": mine, "battlefield": copies("Forest", 3)},
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
    replays(&env, "none");
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
                           "battlefield": copies("Forest", 3)},
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
    mine.extend(copies("Plains", 3));
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
                           "battlefield": copies("Island", 4)},
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

/// p1 (Forests c4-c6, Grizzly Bears c7) casts `spell` (c3); p2 has Hill Giant c10, and in
/// `p2_hand` (c8…) cards with Mountains after the giant.
fn two_target_game(env: &TestEnv, id: &str, spell: &str, p2_hand: &[&str]) {
    let mut mine = copies("Forest", 3);
    mine.extend(copies("Island", 2));
    mine.push(json!({"card": "Grizzly Bears"}));
    let mut theirs = vec![json!({"card": "Hill Giant"})];
    theirs.extend(copies("Mountain", p2_hand.len()));
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": [spell],
                           "battlefield": mine},
                    "p2": {"library": ["Forest", "Forest"], "hand": p2_hand,
                           "battlefield": theirs}}}),
    );
}

fn damage_to(ev: &[Value], target: &str) -> Vec<(String, i64)> {
    ev.iter()
        .filter(|e| e["type"] == "damage" && e["target"] == target)
        .map(|e| {
            (
                e["source"].as_str().unwrap().to_string(),
                e["amount"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn cr_120_3_bite_down_deals_damage_equal_to_power_to_its_second_target() {
    let env = TestEnv::new();
    // p1: library c1-c2, Bite Down c3, Forests c4-c6, Islands c7-c8, Grizzly Bears c9; p2:
    // library c10-c11, Hill Giant c12.
    two_target_game(&env, "bite", "Bite Down", &[]);
    let d = decision(&env, "bite");
    // The cast offered with both targets: the bears first, the giant second.
    let casts: Vec<&Value> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["type"] == "cast" && o["card"] == "c3")
        .collect();
    assert_eq!(casts.len(), 1, "{d}");
    assert_eq!(casts[0]["targets"], json!(["c9", "c12"]), "{d}");
    // One target, a wrong order, or three targets are refused.
    let e = refused(
        &env,
        "bite",
        json!({"type": "cast", "card": "c3", "targets": ["c9"]}),
    );
    assert!(e.to_string().contains("needs two targets"), "{e}");
    refused(
        &env,
        "bite",
        json!({"type": "cast", "card": "c3", "targets": ["c12", "c9"]}),
    );
    refused(
        &env,
        "bite",
        json!({"type": "cast", "card": "c3", "targets": ["c9", "c12", "p2"]}),
    );
    // A two-target cast names no X or additional cost (none of these spells has one).
    for extra in [
        json!({"x": 1}),
        json!({"discard": "c4"}),
        json!({"sacrifice": "c9"}),
    ] {
        let mut cast = json!({"type": "cast", "card": "c3", "targets": ["c9", "c12"]});
        cast.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let e = refused(&env, "bite", cast);
        assert!(e.to_string().contains("two targets takes no"), "{e}");
    }
    let out = act(
        &env,
        "bite",
        json!({"type": "cast", "card": "c3", "targets": ["c9", "c12"]}),
    );
    let mut ev = events_of(&out);
    ev.extend(pass_until_resolved(&env, "bite"));
    let cast = ev.iter().find(|e| e["type"] == "cast").unwrap();
    assert_eq!(
        (&cast["target"], &cast["second"]),
        (&json!("c9"), &json!("c12"))
    );
    // One way only: the bears deal 2 to the giant, the giant deals nothing back.
    assert_eq!(damage_to(&ev, "c12"), [("c9".to_string(), 2)], "{ev:?}");
    assert!(damage_to(&ev, "c9").is_empty(), "{ev:?}");
    let s = state(&env, "bite");
    assert_eq!(on_battlefield(&s, "c12").unwrap()["damage"], 2, "{s}");
    replays(&env, "bite");
}

#[test]
fn cr_701_12b_no_damage_when_the_first_target_is_gone() {
    let env = TestEnv::new();
    // p1: library c1-c2, Bite Down c3, Forests c4-c6, Islands c7-c8, Grizzly Bears c9; p2:
    // library c10-c11, Shock c12, Hill Giant c13, Mountain c14.
    two_target_game(&env, "gone", "Bite Down", &["Shock"]);
    act(
        &env,
        "gone",
        json!({"type": "cast", "card": "c3", "targets": ["c9", "c13"]}),
    );
    // p2 answers by shocking the bears before Bite Down resolves.
    for _ in 0..3 {
        if decision(&env, "gone")["player"] == "p2" {
            break;
        }
        act(&env, "gone", json!({"type": "pass"}));
    }
    assert_eq!(decision(&env, "gone")["player"], "p2");
    act(
        &env,
        "gone",
        json!({"type": "cast", "card": "c12", "targets": ["c9"]}),
    );
    let ev = pass_until_resolved(&env, "gone");
    let s = state(&env, "gone");
    assert!(in_graveyard(&s, "p1", "c9"), "{s}");
    // Its second target is still legal: the spell resolves (not fizzled) but deals nothing.
    assert!(!ev.iter().any(|e| e["type"] == "fizzled"), "{ev:?}");
    assert!(damage_to(&ev, "c13").is_empty(), "{ev:?}");
    assert!(in_graveyard(&s, "p1", "c3"), "{s}");
    replays(&env, "gone");
}

#[test]
fn cr_701_12a_bushwhack_fights_in_its_second_mode() {
    let env = TestEnv::new();
    // p1: library c1-c2, Bushwhack c3, Forests c4-c6, Islands c7-c8, Grizzly Bears c9; p2:
    // library c10-c11, Hill Giant c12.
    two_target_game(&env, "fight", "Bushwhack", &[]);
    let e = refused(
        &env,
        "fight",
        json!({"type": "cast", "card": "c3", "mode": 0, "targets": ["c9", "c12"]}),
    );
    assert!(e.to_string().contains("at most one target"), "{e}");
    let out = act(
        &env,
        "fight",
        json!({"type": "cast", "card": "c3", "mode": 1, "targets": ["c9", "c12"]}),
    );
    let mut ev = events_of(&out);
    ev.extend(pass_until_resolved(&env, "fight"));
    // Each deals damage equal to its power to the other: the bears die, the giant survives.
    assert_eq!(damage_to(&ev, "c12"), [("c9".to_string(), 2)], "{ev:?}");
    assert_eq!(damage_to(&ev, "c9"), [("c12".to_string(), 3)], "{ev:?}");
    let s = state(&env, "fight");
    assert!(in_graveyard(&s, "p1", "c9"), "{s}");
    assert!(on_battlefield(&s, "c12").is_some(), "{s}");
}

#[test]
fn cr_608_2c_felling_blow_grows_that_creature_then_it_deals_its_power() {
    let env = TestEnv::new();
    // p1: library c1-c2, Felling Blow c3, Forests c4-c6, Islands c7-c8, Grizzly Bears c9;
    // p2: library c10-c11, Hill Giant c12.
    two_target_game(&env, "blow", "Felling Blow", &[]);
    let out = act(
        &env,
        "blow",
        json!({"type": "cast", "card": "c3", "targets": ["c9", "c12"]}),
    );
    let mut ev = events_of(&out);
    ev.extend(pass_until_resolved(&env, "blow"));
    // The counter first: the bears are 3/3 and deal 3, killing the giant.
    assert_eq!(damage_to(&ev, "c12"), [("c9".to_string(), 3)], "{ev:?}");
    let s = state(&env, "blow");
    assert!(in_graveyard(&s, "p2", "c12"), "{s}");
    assert_eq!(on_battlefield(&s, "c9").unwrap()["power"], 3, "{s}");
}

#[test]
fn cr_400_7_run_away_together_returns_one_creature_of_each_player() {
    let env = TestEnv::new();
    // p1: library c1-c2, Run Away Together c3, Forests c4-c6, Islands c7-c8, Grizzly Bears
    // c9; p2: library c10-c11, Hill Giant c12.
    two_target_game(&env, "run", "Run Away Together", &[]);
    // Both of one player's creatures are not "controlled by different players".
    refused(
        &env,
        "run",
        json!({"type": "cast", "card": "c3", "targets": ["c12", "c12"]}),
    );
    act(
        &env,
        "run",
        json!({"type": "cast", "card": "c3", "targets": ["c9", "c12"]}),
    );
    pass_until_resolved(&env, "run");
    let s = state(&env, "run");
    assert!(
        on_battlefield(&s, "c9").is_none() && on_battlefield(&s, "c12").is_none(),
        "{s}"
    );
    assert!(
        s["players"]["p1"]["hand"].to_string().contains("\"c9\""),
        "{s}"
    );
    assert!(
        s["players"]["p2"]["hand"].to_string().contains("\"c12\""),
        "{s}"
    );
}
