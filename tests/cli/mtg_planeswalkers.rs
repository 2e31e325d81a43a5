//! Planeswalkers through the binary (CR 306, 606), one `--setup` scenario per rule, named by
//! the Comprehensive Rules number: loyalty as it enters (306.5b), loyalty abilities once per
//! turn at sorcery speed (606.3) with their costs (606.4, 606.6), attacks on a planeswalker
//! (508.1b) whose damage removes loyalty (120.3c), "any target" (115.4) and 704.5i.
//!
//! No Foundations planeswalker plays yet (each waits for an effect the engine lacks), so the
//! scenarios use an imported test card whose abilities use effects the engine has.

use crate::TestEnv;
use crate::mtg::{
    act, decision, events_of, forests, in_graveyard, on_battlefield, refused, setup, state,
};
use serde_json::{Value, json};

/// Imports "Fixture Walker" (loyalty 3): +1 gain 2 life, −2 3 damage to any target, 0 draw.
fn import_walker(env: &TestEnv) {
    let f = env.write(
        "walker.json",
        &json!([{"object": "card", "layout": "normal", "name": "Fixture Walker",
                 "mana_cost": "{2}{R}", "type_line": "Legendary Planeswalker — Test",
                 "oracle_text": "+1: You gain 2 life.\n\u{2212}2: Fixture Walker deals 3 damage to any target.\n0: Draw a card.",
                 "loyalty": "3", "keywords": []}])
        .to_string(),
    );
    let out = env.json(&["mtg", "cards", "import", f.to_str().unwrap()], "");
    assert_eq!(out["added"], json!(["Fixture Walker"]), "{out}");
}

fn loyalty(s: &Value, card: &str) -> Value {
    on_battlefield(s, card).map_or(Value::Null, |c| c["loyalty"].clone())
}

/// Passes until the stack is empty (at most 20 decisions).
pub(crate) fn resolve_all(env: &TestEnv, id: &str) {
    for _ in 0..20 {
        if state(env, id)["stack"].as_array().is_none_or(Vec::is_empty) {
            return;
        }
        act(env, id, json!({"type": "pass"}));
    }
    panic!("the stack never emptied: {}", state(env, id));
}

/// Acts, then passes until the stack is empty; returns every event on the way.
pub(crate) fn act_and_resolve(env: &TestEnv, id: &str, action: Value) -> Vec<Value> {
    let mut ev = events_of(&act(env, id, action));
    for _ in 0..20 {
        if state(env, id)["stack"].as_array().is_none_or(Vec::is_empty) {
            return ev;
        }
        ev.extend(events_of(&act(env, id, json!({"type": "pass"}))));
    }
    panic!("the stack never emptied: {}", state(env, id));
}

#[test]
fn cr_306_5b_a_cast_planeswalker_enters_with_its_loyalty_and_606_3_activates_once_per_turn() {
    let env = TestEnv::new();
    import_walker(&env);
    // p1: library c1-c3, Fixture Walker c4 and Forest c5 (hand: p1 keeps priority in its main
    // phase), Mountains c6-c8; p2: library c9-c11.
    setup(
        &env,
        "pw",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Fixture Walker", "Forest"],
                           "battlefield": [{"card": "Mountain"}, {"card": "Mountain"}, {"card": "Mountain"}]},
                    "p2": {"library": forests(3)}}}),
    );
    act(&env, "pw", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "pw");
    let s = state(&env, "pw");
    assert_eq!(loyalty(&s, "c4"), 3, "{s}");
    // The surface offers its loyalty abilities, named.
    let d = decision(&env, "pw");
    let acts: Vec<&Value> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["type"] == "activate" && o["card"] == "c4")
        .collect();
    assert!(acts.iter().any(|o| o["ability"] == 0), "{d}");
    assert!(acts.iter().all(|o| o["name"] == "Fixture Walker"), "{d}");
    // +1 (CR 606.4): the cost is paid as it is activated, before it resolves.
    let r = act(
        &env,
        "pw",
        json!({"type": "activate", "card": "c4", "ability": 0}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "loyalty" && e["card"] == "c4" && e["amount"] == 1),
        "{r}"
    );
    assert_eq!(loyalty(&state(&env, "pw"), "c4"), 4);
    resolve_all(&env, "pw");
    let s = state(&env, "pw");
    assert_eq!(s["players"]["p1"]["life"], 22, "{s}");
    // CR 606.3: one loyalty ability of a permanent per turn.
    let e = refused(
        &env,
        "pw",
        json!({"type": "activate", "card": "c4", "ability": 2}),
    );
    assert!(e.to_string().contains("606.3"), "{e}");
    let d = decision(&env, "pw");
    assert!(
        !d["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["type"] == "activate" && o["card"] == "c4"),
        "{d}"
    );
}

#[test]
fn cr_606_3_loyalty_abilities_are_sorcery_speed_and_606_6_minus_needs_the_loyalty() {
    let env = TestEnv::new();
    import_walker(&env);
    // p1: library c1-c3, Lightning Bolts c4-c5 (hand), Fixture Walker c6 (loyalty 1),
    // Mountains c7-c8; p2: library c9-c11.
    setup(
        &env,
        "pw",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Lightning Bolt", "Lightning Bolt"],
                           "battlefield": [{"card": "Fixture Walker", "loyalty": 1},
                                           {"card": "Mountain"}, {"card": "Mountain"}]},
                    "p2": {"library": forests(3)}}}),
    );
    // CR 606.6: a -2 cost can't be paid with 1 loyalty.
    let e = refused(
        &env,
        "pw",
        json!({"type": "activate", "card": "c6", "ability": 1, "targets": ["p2"]}),
    );
    assert!(e.to_string().contains("606.6"), "{e}");
    // With a spell on the stack it is not sorcery speed (CR 606.3).
    act(
        &env,
        "pw",
        json!({"type": "cast", "card": "c4", "targets": ["p2"], "tap": ["c7"]}),
    );
    let s = state(&env, "pw");
    assert_eq!(s["stack"].as_array().unwrap().len(), 1, "{s}");
    let e = refused(
        &env,
        "pw",
        json!({"type": "activate", "card": "c6", "ability": 0}),
    );
    assert!(e.to_string().contains("sorcery"), "{e}");
}

#[test]
fn cr_508_1b_a_creature_attacks_a_planeswalker_and_120_3c_its_damage_removes_loyalty() {
    let env = TestEnv::new();
    import_walker(&env);
    // p1: library c1-c3, Grizzly Bears c4, Hill Giant c5; p2: library c6-c8, Fixture Walker
    // c9 (loyalty 3).
    setup(
        &env,
        "atk",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3), "battlefield": [{"card": "Grizzly Bears"}, {"card": "Hill Giant"}]},
                    "p2": {"library": forests(3), "battlefield": [{"card": "Fixture Walker"}]}}}),
    );
    let d = decision(&env, "atk");
    assert_eq!(d["options"][0]["planeswalkers"][0]["id"], "c9", "{d}");
    // Only a planeswalker the defending player controls can be attacked.
    let e = refused(
        &env,
        "atk",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "c5"}]}),
    );
    assert!(e.to_string().contains("508.1b"), "{e}");
    // No blocker can block: the game runs on through combat damage, 2 damage to the walker
    // (3 -> 1 loyalty) and 3 to the player.
    let r = act(
        &env,
        "atk",
        json!({"type": "declare_attackers", "attackers": [
            {"attacker": "c4", "defender": "c9"}, {"attacker": "c5", "defender": "p2"}]}),
    );
    let ev = events_of(&r);
    assert!(
        ev.iter().any(|e| e["type"] == "damage"
            && e["source"] == "c4"
            && e["target"] == "c9"
            && e["amount"] == 2),
        "{ev:?}"
    );
    assert!(
        ev.iter()
            .any(|e| e["type"] == "damage" && e["source"] == "c5" && e["target"] == "p2"),
        "{ev:?}"
    );
    let s = state(&env, "atk");
    assert_eq!(loyalty(&s, "c9"), 1, "{s}");
    assert_eq!(s["players"]["p2"]["life"], 17);
}

#[test]
fn cr_704_5i_a_planeswalker_with_no_loyalty_goes_to_the_graveyard_and_115_4_any_target_includes_it()
{
    let env = TestEnv::new();
    import_walker(&env);
    // p1: library c1-c3, Lightning Bolt c4, Fixture Walker c5 (loyalty 2), Mountain c6;
    // p2: library c7-c9, Fixture Walker c10.
    setup(
        &env,
        "sba",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Lightning Bolt"],
                           "battlefield": [{"card": "Fixture Walker", "loyalty": 2}, {"card": "Mountain"}]},
                    "p2": {"library": forests(3), "battlefield": [{"card": "Fixture Walker"}]}}}),
    );
    // "any target" (CR 115.4): Lightning Bolt may target the opposing planeswalker.
    let d = decision(&env, "sba");
    assert!(
        d["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["type"] == "cast" && o["card"] == "c4" && o["targets"] == json!(["c10"])),
        "{d}"
    );
    let ev = act_and_resolve(
        &env,
        "sba",
        json!({"type": "cast", "card": "c4", "targets": ["c10"]}),
    );
    // 3 damage removes its 3 loyalty: 704.5i puts it into the graveyard.
    assert!(
        ev.iter().any(|e| e["type"] == "put_into_graveyard"
            && e["card"] == "c10"
            && e["reason"] == "zero_loyalty"),
        "{ev:?}"
    );
    assert!(in_graveyard(&state(&env, "sba"), "p2", "c10"));
    // Paying -2 from 2 loyalty leaves 0: the walker goes at once, its ability still resolves.
    let r = act(
        &env,
        "sba",
        json!({"type": "activate", "card": "c5", "ability": 1, "targets": ["p2"]}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "put_into_graveyard" && e["card"] == "c5"),
        "{r}"
    );
    resolve_all(&env, "sba");
    let s = state(&env, "sba");
    assert!(in_graveyard(&s, "p1", "c5"));
    assert_eq!(s["players"]["p2"]["life"], 17, "{s}");
}
