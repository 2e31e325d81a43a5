//! "You may" as a spell or ability resolves (CR 603.5, 608.2d), through the binary: the
//! controller's `may` decision (decline, or accept paying its cost: mana, sacrificing another
//! creature, discarding a card), the effects after it happening only on accepting, bad
//! answers refused with nothing changed, and no decision when accepting is impossible. FDN
//! cards: Reclamation Sage, Frenzied Goblin, Vampire Gourmand, Incinerating Blast.

use crate::TestEnv;
use crate::mtg::{
    act, decision, events_of, forests, in_graveyard, on_battlefield, refused, setup, state,
};
use serde_json::{Value, json};

/// Passes priority until the decision is of `kind`; returns the events on the way.
fn until(env: &TestEnv, id: &str, kind: &str) -> Vec<Value> {
    let mut ev = Vec::new();
    for _ in 0..20 {
        let d = decision(env, id);
        if d["kind"] == kind {
            return ev;
        }
        assert_eq!(d["kind"], "priority", "waiting for {kind}: {d}");
        ev.extend(events_of(&act(env, id, json!({"type": "pass"}))));
    }
    panic!("no {kind} decision came: {}", state(env, id));
}

/// p1: Reclamation Sage and a Forest in hand, three Forests; p2: Swiftfoot Boots.
/// Ids: p1 library c1-c3, Sage c4, Forest c5, Forests c6-c8; p2 library c9-c11, Boots c12.
fn sage_game(env: &TestEnv, id: &str) {
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Reclamation Sage", "Forest"],
                           "battlefield": [{"card": "Forest"}, {"card": "Forest"}, {"card": "Forest"}]},
                    "p2": {"library": forests(3), "battlefield": [{"card": "Swiftfoot Boots"}]}}}),
    );
    act(env, id, json!({"type": "cast", "card": "c4"}));
    until(env, id, "choose_target");
    act(env, id, json!({"type": "choose_target", "target": "c12"}));
    until(env, id, "may");
}

#[test]
fn cr_608_2d_you_may_destroy_happens_only_if_its_controller_accepts() {
    let env = TestEnv::new();
    sage_game(&env, "sage");
    let d = decision(&env, "sage");
    assert_eq!(d["player"], "p1", "{d}");
    let options = d["options"].as_array().unwrap();
    assert_eq!(options.len(), 2, "{d}");
    assert!(
        options
            .iter()
            .all(|o| o["type"] == "may" && o["source"] == "c4" && o["name"] == "Reclamation Sage"),
        "{d}"
    );
    // Nothing to pay: naming a card or mana sources is refused, nothing changes.
    let e = refused(
        &env,
        "sage",
        json!({"type": "may", "accept": true, "card": "c5"}),
    );
    assert!(e.to_string().contains("names no card"), "{e}");
    refused(
        &env,
        "sage",
        json!({"type": "may", "accept": true, "tap": ["c6"]}),
    );
    refused(
        &env,
        "sage",
        json!({"type": "may", "accept": false, "card": "c5"}),
    );
    // Declining: the Boots stay.
    let r = act(&env, "sage", json!({"type": "may", "accept": false}));
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "may" && e["accept"] == false && e["source"] == "c4"),
        "{r}"
    );
    let s = state(&env, "sage");
    assert!(on_battlefield(&s, "c12").is_some(), "{s}");
    assert_eq!(decision(&env, "sage")["kind"], "priority");

    // Accepting destroys the target.
    let env = TestEnv::new();
    sage_game(&env, "yes");
    let r = act(&env, "yes", json!({"type": "may", "accept": true}));
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "destroyed" && e["card"] == "c12"),
        "{r}"
    );
    let s = state(&env, "yes");
    assert!(in_graveyard(&s, "p2", "c12"), "{s}");
}

/// p1 attacks with Frenzied Goblin (and has `mountains` untapped Mountains); p2 has Grizzly
/// Bears. Ids: p1 library c1-c3, Forest c4 (hand), Goblin c5, Mountains c6..; p2 library
/// and Bears after.
fn goblin_game(env: &TestEnv, id: &str, mountains: usize) -> String {
    let mut bf = vec![json!({"card": "Mountain"}); mountains];
    bf.insert(0, json!({"card": "Frenzied Goblin"}));
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Forest"], "battlefield": bf},
                    "p2": {"library": forests(3), "battlefield": [{"card": "Grizzly Bears"}]}}}),
    );
    until(env, id, "declare_attackers");
    act(
        env,
        id,
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c5", "defender": "p2"}]}),
    );
    format!("c{}", 9 + mountains)
}

#[test]
fn cr_608_2d_you_may_pay_mana_taps_it_then_the_effect_happens() {
    let env = TestEnv::new();
    // Ids: Mountains c6-c7; p2 library c8-c10, Bears c11.
    let bears = goblin_game(&env, "gob", 2);
    assert_eq!(bears, "c11");
    until(&env, "gob", "choose_target");
    act(
        &env,
        "gob",
        json!({"type": "choose_target", "target": bears}),
    );
    until(&env, "gob", "may");
    let d = decision(&env, "gob");
    assert!(
        d["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["accept"] == true && o["cost"] == "{R}"),
        "{d}"
    );
    // The Goblin is no mana source; tapping two Mountains for {R} is not exact.
    refused(
        &env,
        "gob",
        json!({"type": "may", "accept": true, "tap": ["c5"]}),
    );
    refused(
        &env,
        "gob",
        json!({"type": "may", "accept": true, "tap": ["c6", "c7"]}),
    );
    let r = act(
        &env,
        "gob",
        json!({"type": "may", "accept": true, "tap": ["c7"]}),
    );
    let ev = events_of(&r);
    assert!(
        ev.iter().any(|e| e["type"] == "restricted"
            && e["card"] == bears
            && e["restriction"] == "cant_block"),
        "{r}"
    );
    let s = state(&env, "gob");
    assert_eq!(on_battlefield(&s, "c7").unwrap()["tapped"], true, "{s}");
    assert_eq!(on_battlefield(&s, "c6").unwrap()["tapped"], false, "{s}");

    // With no untapped mana source accepting is impossible: no decision, no restriction.
    let env = TestEnv::new();
    let bears = goblin_game(&env, "poor", 0);
    until(&env, "poor", "choose_target");
    act(
        &env,
        "poor",
        json!({"type": "choose_target", "target": bears}),
    );
    let ev = until(&env, "poor", "declare_blockers");
    assert!(
        ev.iter()
            .all(|e| e["type"] != "restricted" && e["type"] != "may"),
        "{ev:?}"
    );
}

#[test]
fn cr_701_17a_you_may_sacrifice_another_creature_then_draw_and_cant_be_blocked() {
    let env = TestEnv::new();
    // Ids: p1 library c1-c3, Forest c4 (hand), Vampire Gourmand c5, Grizzly Bears c6,
    // Swamp c7; p2 library c8-c10, Hill Giant c11.
    setup(
        &env,
        "vamp",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Forest"],
                           "battlefield": [{"card": "Vampire Gourmand"}, {"card": "Grizzly Bears"},
                                           {"card": "Swamp"}]},
                    "p2": {"library": forests(3), "battlefield": [{"card": "Hill Giant"}]}}}),
    );
    until(&env, "vamp", "declare_attackers");
    act(
        &env,
        "vamp",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c5", "defender": "p2"}]}),
    );
    until(&env, "vamp", "may");
    let d = decision(&env, "vamp");
    let accepting: Vec<&Value> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["accept"] == true)
        .collect();
    // One option per other creature p1 controls: the Bears, not the Gourmand itself.
    assert_eq!(accepting.len(), 1, "{d}");
    assert_eq!(accepting[0]["card"], "c6", "{d}");
    assert_eq!(accepting[0]["cost"], "sacrifice", "{d}");
    let e = refused(
        &env,
        "vamp",
        json!({"type": "may", "accept": true, "card": "c5"}),
    );
    assert!(e.to_string().contains("another creature"), "{e}");
    refused(
        &env,
        "vamp",
        json!({"type": "may", "accept": true, "card": "c11"}),
    );
    refused(&env, "vamp", json!({"type": "may", "accept": true}));
    let hand = state(&env, "vamp")["players"]["p1"]["hand"]
        .as_array()
        .unwrap()
        .len();
    let r = act(
        &env,
        "vamp",
        json!({"type": "may", "accept": true, "card": "c6"}),
    );
    let ev = events_of(&r);
    assert!(
        ev.iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == "c6"),
        "{r}"
    );
    assert!(
        ev.iter()
            .any(|e| e["type"] == "drew" && e["player"] == "p1"),
        "{r}"
    );
    assert!(
        ev.iter().any(|e| e["type"] == "restricted"
            && e["card"] == "c5"
            && e["restriction"] == "cant_be_blocked"),
        "{r}"
    );
    let s = state(&env, "vamp");
    assert!(in_graveyard(&s, "p1", "c6"), "{s}");
    assert_eq!(
        s["players"]["p1"]["hand"].as_array().unwrap().len(),
        hand + 1
    );
    // The Hill Giant cannot block the Gourmand now: no block is asked, and p2 takes 2.
    let mut ev = ev;
    ev.extend(until(&env, "vamp", "declare_attackers"));
    assert!(
        ev.iter()
            .all(|e| e["type"] != "blocked" || e["blocks"] == json!([])),
        "{ev:?}"
    );
    assert!(
        ev.iter().any(|e| e["type"] == "damage"
            && e["source"] == "c5"
            && e["target"] == "p2"
            && e["amount"] == 2),
        "{ev:?}"
    );
}

/// p1 casts Incinerating Blast at p2's Hill Giant, holding Shock and a Forest.
/// Ids: p1 library c1-c3, Blast c4, Shock c5, Forest c6, Mountains c7-c11; p2 library
/// c12-c14, Hill Giant c15.
fn blast_game(env: &TestEnv, id: &str) {
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Incinerating Blast", "Shock", "Forest"],
                           "battlefield": vec![json!({"card": "Mountain"}); 5]},
                    "p2": {"library": forests(3), "battlefield": [{"card": "Hill Giant"}]}}}),
    );
    act(
        env,
        id,
        json!({"type": "cast", "card": "c4", "targets": ["c15"]}),
    );
    until(env, id, "may");
}

#[test]
fn cr_701_9a_you_may_discard_a_card_then_draw_after_the_damage() {
    let env = TestEnv::new();
    blast_game(&env, "blast");
    let s = state(&env, "blast");
    // The damage came first, then the question; state-based actions wait until the
    // resolution is over (CR 704.3), so the Giant dies only after the answer.
    assert_eq!(on_battlefield(&s, "c15").unwrap()["damage"], 6, "{s}");
    // The options name p1's hand: only p1 sees them.
    let d = decision(&env, "blast");
    assert_eq!(d["options"], json!([]), "{d}");
    assert!(d["options_hidden"].is_string(), "{d}");
    let d = env.json(&["mtg", "actions", "--game", "blast", "--as", "p1"], "");
    let cards: Vec<&Value> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["accept"] == true)
        .map(|o| &o["card"])
        .collect();
    assert_eq!(cards, vec!["c5", "c6"], "{d}");
    refused(
        &env,
        "blast",
        json!({"type": "may", "accept": true, "card": "c1"}),
    );
    let r = act(
        &env,
        "blast",
        json!({"type": "may", "accept": true, "card": "c5"}),
    );
    let ev = events_of(&r);
    let discard = ev
        .iter()
        .position(|e| e["type"] == "discarded" && e["card"] == "c5");
    let drew = ev
        .iter()
        .position(|e| e["type"] == "drew" && e["player"] == "p1");
    assert!(discard.is_some() && drew > discard, "{r}");
    let s = state(&env, "blast");
    assert!(in_graveyard(&s, "p1", "c5"), "{s}");
    assert!(in_graveyard(&s, "p1", "c4"), "{s}");
    assert!(in_graveyard(&s, "p2", "c15"), "{s}");

    // Declining keeps the hand as it was.
    let env = TestEnv::new();
    blast_game(&env, "keep");
    let r = act(&env, "keep", json!({"type": "may", "accept": false}));
    assert!(events_of(&r).iter().all(|e| e["type"] != "drew"), "{r}");
    let s = state(&env, "keep");
    assert_eq!(
        s["players"]["p1"]["hand"].as_array().unwrap().len(),
        2,
        "{s}"
    );
}

/// The id of the first card named `name` in `player`'s library (top first).
fn in_library(s: &Value, player: &str, name: &str) -> String {
    s["players"][player]["library"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no {name} in {player}'s library: {s}"))
}

#[test]
fn cr_401_5_look_at_the_top_four_and_reveal_a_small_creature_into_the_hand() {
    let env = TestEnv::new();
    setup(
        &env,
        "rally",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Hill Giant", "Grizzly Bears", "Savannah Lions", "Plains", "Forest", "Forest"],
                           "hand": ["Forest"],
                           "battlefield": [{"card": "Squad Rallier"}, {"card": "Plains"}, {"card": "Plains"}, {"card": "Plains"}]},
                    "p2": {"library": forests(3)}}}),
    );
    let s = state(&env, "rally");
    let (giant, bears, lions) = (
        in_library(&s, "p1", "Hill Giant"),
        in_library(&s, "p1", "Grizzly Bears"),
        in_library(&s, "p1", "Savannah Lions"),
    );
    let rallier = s["battlefield"][0]["id"].as_str().unwrap().to_string();
    act(
        &env,
        "rally",
        json!({"type": "activate", "card": rallier, "ability": 0}),
    );
    until(&env, "rally", "look");
    // The library is hidden: only p1 sees the options.
    let d = decision(&env, "rally");
    assert_eq!(d["options"], json!([]), "{d}");
    let d = env.json(&["mtg", "actions", "--game", "rally", "--as", "p1"], "");
    let o = &d["options"][0];
    assert_eq!(o["look_at"].as_array().unwrap().len(), 4, "{d}");
    let choose: Vec<&Value> = o["choose_from"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["card"])
        .collect();
    // Power 2 or less: the Bears and the Lions, not the Giant (3) or the Plains.
    assert_eq!(choose, vec![&json!(bears), &json!(lions)], "{d}");
    let e = refused(&env, "rally", json!({"type": "look", "cards": [giant]}));
    assert!(e.to_string().contains("power"), "{e}");
    refused(
        &env,
        "rally",
        json!({"type": "look", "cards": [bears, lions]}),
    );
    let r = act(&env, "rally", json!({"type": "look", "cards": [bears]}));
    assert!(
        events_of(&r).iter().any(|e| e["type"] == "looked_at"
            && e["looked_at"] == 4
            && e["revealed"] == json!(bears)
            && e["bottom"] == 3),
        "{r}"
    );
    let s = state(&env, "rally");
    let hand: Vec<&Value> = s["players"]["p1"]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["id"])
        .collect();
    assert!(hand.contains(&&json!(bears)), "{s}");
    // The two Forests that were not looked at are on top now; the other three are below.
    let lib: Vec<&str> = s["players"]["p1"]["library"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(lib.len(), 5, "{s}");
    assert_eq!(&lib[..2], &["Forest", "Forest"], "{s}");
}

#[test]
fn cr_401_5_raid_look_at_the_top_three_keep_one_on_top_and_the_rest_to_the_graveyard() {
    let env = TestEnv::new();
    setup(
        &env,
        "plunder",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Hill Giant", "Grizzly Bears", "Plains", "Forest"],
                           "hand": ["Gutless Plunderer"],
                           "battlefield": [{"card": "Grizzly Bears"}, {"card": "Swamp"}, {"card": "Swamp"}, {"card": "Swamp"}]},
                    "p2": {"library": forests(3)}}}),
    );
    let s = state(&env, "plunder");
    let giant = in_library(&s, "p1", "Hill Giant");
    let plunderer = s["players"]["p1"]["hand"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let attacker = s["battlefield"][0]["id"].as_str().unwrap().to_string();
    // Raid: attack first, then cast it in the second main phase.
    until(&env, "plunder", "declare_attackers");
    act(
        &env,
        "plunder",
        json!({"type": "declare_attackers", "attackers": [{"attacker": attacker, "defender": "p2"}]}),
    );
    for _ in 0..10 {
        if state(&env, "plunder")["step"] == "main2" {
            break;
        }
        act(&env, "plunder", json!({"type": "pass"}));
    }
    act(&env, "plunder", json!({"type": "cast", "card": plunderer}));
    until(&env, "plunder", "look");
    let d = env.json(&["mtg", "actions", "--game", "plunder", "--as", "p1"], "");
    assert_eq!(
        d["options"][0]["choose_from"].as_array().unwrap().len(),
        3,
        "{d}"
    );
    assert_eq!(d["options"][0]["to"], "top", "{d}");
    let r = act(&env, "plunder", json!({"type": "look", "cards": [giant]}));
    let ev = events_of(&r);
    let looked = ev
        .iter()
        .find(|e| e["type"] == "looked_at")
        .expect("looked_at");
    // The card kept on top is not named; the other two are in the graveyard.
    assert_eq!(looked["graveyard"].as_array().unwrap().len(), 2, "{r}");
    assert!(looked.get("revealed").is_none(), "{r}");
    let s = state(&env, "plunder");
    assert_eq!(s["players"]["p1"]["library"][0]["id"], json!(giant), "{s}");
    assert_eq!(s["players"]["p1"]["library_count"], 2, "{s}");
    assert_eq!(
        s["players"]["p1"]["graveyard"].as_array().unwrap().len(),
        2,
        "{s}"
    );
}
