//! Permanents through the binary, one `--setup` scenario per rule, named by the
//! Comprehensive Rules number: Equipment (CR 702.6, 704.5n), Auras (CR 303.4, 704.5m), the
//! legend rule (CR 704.5j), static abilities in layers (CR 613, 604.2) and prowess
//! (CR 702.108).

use crate::TestEnv;
use crate::mtg::{act, decision, events_of, in_graveyard, on_battlefield, refused, setup, state};
use serde_json::{Value, json};

fn keywords(s: &Value, card: &str) -> Vec<String> {
    on_battlefield(s, card).unwrap()["keywords"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect()
}

/// Passes until the stack is empty (at most 20 decisions).
fn resolve_all(env: &TestEnv, id: &str) {
    for _ in 0..20 {
        let s = state(env, id);
        if s["stack"].as_array().is_none_or(Vec::is_empty) {
            return;
        }
        act(env, id, json!({"type": "pass"}));
    }
    panic!("the stack never emptied: {}", state(env, id));
}

#[test]
fn cr_702_6a_equip_attaches_as_a_sorcery_and_704_5n_leaves_it_unattached() {
    let env = TestEnv::new();
    // p1: library c1-c3, Lightning Bolt c4 (hand), Swiftfoot Boots c5, Grizzly Bears c6 (sick),
    // Forest c7, Mountain c8; p2: library c9-c11, Grizzly Bears c12.
    setup(
        &env,
        "boots",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest"], "hand": ["Lightning Bolt"],
                           "battlefield": [{"card": "Swiftfoot Boots"},
                                           {"card": "Grizzly Bears", "sick": true},
                                           {"card": "Forest"}, {"card": "Mountain"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"],
                           "battlefield": [{"card": "Grizzly Bears"}]}}}),
    );
    // Equip targets a creature you control only (CR 702.6a).
    let e = refused(
        &env,
        "boots",
        json!({"type": "activate", "card": "c5", "ability": 0, "targets": ["c12"], "tap": ["c7"]}),
    );
    assert!(e.to_string().contains("c12"), "{e}");
    let r = act(
        &env,
        "boots",
        json!({"type": "activate", "card": "c5", "ability": 0, "targets": ["c6"], "tap": ["c7"]}),
    );
    assert!(
        events_of(&r).iter().any(|e| e["type"] == "activated"),
        "{r}"
    );
    resolve_all(&env, "boots");
    let s = state(&env, "boots");
    assert_eq!(
        on_battlefield(&s, "c5").unwrap()["attached_to"],
        "c6",
        "{s}"
    );
    // The Boots grant hexproof and haste while attached (layer 6): the sick bears can attack.
    let k = keywords(&s, "c6");
    assert!(
        k.contains(&"Hexproof".into()) && k.contains(&"Haste".into()),
        "{k:?}"
    );
    // p1's own spell may still target its hexproof creature (CR 702.11b).
    act(
        &env,
        "boots",
        json!({"type": "cast", "card": "c4", "targets": ["c6"], "tap": ["c8"]}),
    );
    resolve_all(&env, "boots");
    let s = state(&env, "boots");
    assert!(in_graveyard(&s, "p1", "c6"), "{s}");
    // CR 704.5n: the Equipment stays on the battlefield, unattached.
    let boots = on_battlefield(&s, "c5").expect("the boots stay");
    assert!(boots.get("attached_to").is_none(), "{boots}");
}

#[test]
fn cr_303_4_an_aura_enters_attached_and_704_5m_goes_to_the_graveyard_without_it() {
    let env = TestEnv::new();
    // p1: library c1-c3, Twinblade Blessing c4, Lightning Bolt c5 (hand), Grizzly Bears c6,
    // Plains c7-c9, Mountain c10.
    setup(
        &env,
        "aura",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest"],
                           "hand": ["Twinblade Blessing", "Lightning Bolt"],
                           "battlefield": [{"card": "Grizzly Bears"}, {"card": "Plains"},
                                           {"card": "Plains"}, {"card": "Plains"},
                                           {"card": "Mountain"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"]}}}),
    );
    // An Aura spell needs the creature it will enchant as its target (CR 303.4a).
    refused(
        &env,
        "aura",
        json!({"type": "cast", "card": "c4", "tap": ["c7", "c8", "c9"]}),
    );
    act(
        &env,
        "aura",
        json!({"type": "cast", "card": "c4", "targets": ["c6"], "tap": ["c7", "c8", "c9"]}),
    );
    resolve_all(&env, "aura");
    let s = state(&env, "aura");
    assert_eq!(
        on_battlefield(&s, "c4").unwrap()["attached_to"],
        "c6",
        "{s}"
    );
    assert!(keywords(&s, "c6").contains(&"Double strike".into()), "{s}");
    let r = act(
        &env,
        "aura",
        json!({"type": "cast", "card": "c5", "targets": ["c6"], "tap": ["c10"]}),
    );
    let mut ev = events_of(&r);
    for _ in 0..5 {
        if ev.iter().any(|e| e["type"] == "put_into_graveyard") {
            break;
        }
        ev = events_of(&act(&env, "aura", json!({"type": "pass"})));
    }
    assert!(
        ev.iter()
            .any(|e| e["type"] == "put_into_graveyard" && e["reason"] == "aura_unattached"),
        "{ev:?}"
    );
    let s = state(&env, "aura");
    assert!(
        in_graveyard(&s, "p1", "c4") && in_graveyard(&s, "p1", "c6"),
        "{s}"
    );
}

#[test]
fn cr_704_5j_the_legend_rule_keeps_one_of_two_same_named_legends() {
    let env = TestEnv::new();
    // p1: library c1-c3, Tatyova c4 (hand), Tatyova c5, Forests c6-c8, Islands c9-c10.
    setup(
        &env,
        "legend",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest"],
                           "hand": ["Tatyova, Benthic Druid"],
                           "battlefield": [{"card": "Tatyova, Benthic Druid"},
                                           {"card": "Forest"}, {"card": "Forest"},
                                           {"card": "Forest"}, {"card": "Island"},
                                           {"card": "Island"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"]}}}),
    );
    act(&env, "legend", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "legend");
    // The controller chooses which to keep (a decision of that seat, each option named).
    let d = decision(&env, "legend");
    assert_eq!(d["kind"], "legend_rule", "{d}");
    assert_eq!(d["player"], "p1");
    let keep: Vec<&str> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["keep"].as_str().unwrap())
        .collect();
    assert_eq!(keep, ["c5", "c4"], "{d}");
    assert_eq!(d["options"][0]["name"], "Tatyova, Benthic Druid");
    let e = refused(&env, "legend", json!({"type": "legend_rule", "keep": "c6"}));
    assert!(e.to_string().contains("c6"), "{e}");
    // Keeping the older one puts the newer into the graveyard (the engine once kept the
    // newest without asking).
    let r = act(&env, "legend", json!({"type": "legend_rule", "keep": "c5"}));
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "died" && e["card"] == "c4" && e["reason"] == "legend_rule"),
        "{r}"
    );
    let s = state(&env, "legend");
    let tatyovas = s["battlefield"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "Tatyova, Benthic Druid")
        .count();
    assert_eq!(tatyovas, 1, "{s}");
    assert!(
        on_battlefield(&s, "c5").is_some() && in_graveyard(&s, "p1", "c4"),
        "{s}"
    );
}

#[test]
fn cr_613_4c_statics_add_in_layer_7c_while_their_source_and_condition_hold() {
    let env = TestEnv::new();
    // p1: library c1-c3, graveyard c4-c10 (seven cards), Anthem of Champions c11, Grizzly
    // Bears c12, Billowing Shriekmass c13, Inspiring Paladin c14; p2: Inspiring Paladin c18.
    let position = |graveyard: usize| {
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest"],
                           "graveyard": vec!["Forest"; graveyard],
                           "battlefield": [{"card": "Anthem of Champions"},
                                           {"card": "Grizzly Bears"},
                                           {"card": "Billowing Shriekmass"},
                                           {"card": "Inspiring Paladin"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"],
                           "battlefield": [{"card": "Inspiring Paladin"}]}}})
    };
    setup(&env, "layers", position(7));
    let s = state(&env, "layers");
    let pt = |s: &Value, c: &str| {
        let o = on_battlefield(s, c).unwrap();
        (
            o["power"].as_i64().unwrap(),
            o["toughness"].as_i64().unwrap(),
        )
    };
    assert_eq!(pt(&s, "c12"), (3, 3), "anthem on 2/2 bears: {s}");
    // Threshold (CR 604.2): +2/+1 with seven cards in the graveyard, plus the anthem.
    assert_eq!(pt(&s, "c13"), (5, 5), "{s}");
    // "During your turn": p1's Paladin has first strike, p2's does not, nor gets the anthem.
    assert!(keywords(&s, "c14").contains(&"First strike".into()), "{s}");
    let p2_paladin = s["battlefield"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["controller"] == "p2")
        .unwrap()
        .clone();
    assert_eq!(p2_paladin["power"], 3, "{p2_paladin}");
    assert!(
        !p2_paladin["keywords"].to_string().contains("First strike"),
        "{p2_paladin}"
    );

    // Six cards in the graveyard (ids one lower): the condition does not hold, only the
    // anthem applies to the 2/3 Shriekmass.
    setup(&env, "layers6", position(6));
    let s = state(&env, "layers6");
    assert_eq!(pt(&s, "c11"), (3, 3));
    assert_eq!(pt(&s, "c12"), (3, 4), "{s}");
}

#[test]
fn cr_702_108a_prowess_pumps_until_end_of_turn_when_a_noncreature_spell_is_cast() {
    let env = TestEnv::new();
    // p1: library c1-c3, Shock c4 (hand), Elementalist Adept c5, Mountain c6.
    setup(
        &env,
        "prowess",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest"], "hand": ["Shock"],
                           "battlefield": [{"card": "Elementalist Adept"},
                                           {"card": "Mountain"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"]}}}),
    );
    let r = act(
        &env,
        "prowess",
        json!({"type": "cast", "card": "c4", "targets": ["p2"]}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "triggered" && e["card"] == "c5"),
        "{r}"
    );
    resolve_all(&env, "prowess");
    let s = state(&env, "prowess");
    let adept = on_battlefield(&s, "c5").unwrap();
    assert_eq!(
        (adept["power"].clone(), adept["toughness"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(s["players"]["p2"]["life"], 18);
}

#[test]
fn cr_701_9_a_discard_in_an_ability_is_the_controllers_decision_mid_resolution() {
    let env = TestEnv::new();
    // p1: library c1-c3, Shock c4 (hand), Strix Lookout c5, Islands c6-c7.
    setup(
        &env,
        "loot",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest"], "hand": ["Shock"],
                           "battlefield": [{"card": "Strix Lookout"}, {"card": "Island"},
                                           {"card": "Island"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"]}}}),
    );
    act(
        &env,
        "loot",
        json!({"type": "activate", "card": "c5", "ability": 0}),
    );
    if decision(&env, "loot")["kind"] != "discard" {
        act(&env, "loot", json!({"type": "pass"}));
    }
    // "Draw a card, then discard a card": p1 drew c1 and now chooses what to discard.
    let d = decision(&env, "loot");
    assert_eq!(d["kind"], "discard", "{d}");
    assert_eq!(d["player"], "p1", "{d}");
    // The hidden hand's options are shown to the deciding seat only.
    let other = env.json(&["mtg", "actions", "--game", "loot", "--as", "p2"], "");
    assert!(!other.to_string().contains("c4"), "{other}");
    act(&env, "loot", json!({"type": "discard", "cards": ["c4"]}));
    let s = state(&env, "loot");
    assert!(in_graveyard(&s, "p1", "c4"), "{s}");
    assert_eq!(
        s["players"]["p1"]["hand"].as_array().unwrap().len(),
        1,
        "{s}"
    );
    assert_eq!(s["step"], "main1", "the turn goes on: {s}");
}

#[test]
fn cr_701_17a_a_sacrifice_cost_is_paid_on_activation_and_the_ability_still_resolves() {
    let env = TestEnv::new();
    // p1: library c1-c3, Cathar Commando c4, Plains c5; p2: library c6-c8, Swiftfoot Boots c9.
    setup(
        &env,
        "commando",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest"],
                           "battlefield": [{"card": "Cathar Commando"}, {"card": "Plains"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"],
                           "battlefield": [{"card": "Swiftfoot Boots"}]}}}),
    );
    let r = act(
        &env,
        "commando",
        json!({"type": "activate", "card": "c4", "ability": 0, "targets": ["c9"]}),
    );
    let ev = events_of(&r);
    assert!(
        ev.iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == "c4"),
        "{ev:?}"
    );
    resolve_all(&env, "commando");
    let s = state(&env, "commando");
    assert!(
        in_graveyard(&s, "p1", "c4") && in_graveyard(&s, "p2", "c9"),
        "{s}"
    );
}

#[test]
fn cr_701_9b_each_opponent_discards_as_the_enters_trigger_resolves() {
    let env = TestEnv::new();
    // p1: library c1-c3, Burglar Rat c4 (hand), Swamps c5-c6; p2: library c7-c9, hand
    // Shock c10, Forest c11.
    setup(
        &env,
        "rat",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest", "Forest"], "hand": ["Burglar Rat"],
                           "battlefield": [{"card": "Swamp"}, {"card": "Swamp"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"],
                           "hand": ["Shock", "Forest"]}}}),
    );
    act(&env, "rat", json!({"type": "cast", "card": "c4"}));
    for _ in 0..6 {
        if decision(&env, "rat")["kind"] == "discard" {
            break;
        }
        act(&env, "rat", json!({"type": "pass"}));
    }
    let d = decision(&env, "rat");
    assert_eq!(
        (d["kind"].as_str(), d["player"].as_str()),
        (Some("discard"), Some("p2")),
        "{d}"
    );
    act(&env, "rat", json!({"type": "discard", "cards": ["c11"]}));
    let s = state(&env, "rat");
    assert!(in_graveyard(&s, "p2", "c11"), "{s}");
    assert!(on_battlefield(&s, "c4").is_some(), "{s}");
}

#[test]
fn cr_701_25a_surveil_is_the_controllers_hidden_choice_as_the_ability_resolves() {
    let env = TestEnv::new();
    // p1: library c1 (Mountain), c2-c3; Rune-Sealed Wall c4.
    setup(
        &env,
        "surveil",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Mountain", "Forest", "Forest"],
                           "battlefield": [{"card": "Rune-Sealed Wall"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"]}}}),
    );
    act(
        &env,
        "surveil",
        json!({"type": "activate", "card": "c4", "ability": 0}),
    );
    if decision(&env, "surveil")["kind"] != "surveil" {
        act(&env, "surveil", json!({"type": "pass"}));
    }
    let d = env.json(&["mtg", "actions", "--game", "surveil", "--as", "p1"], "");
    assert_eq!(d["kind"], "surveil", "{d}");
    assert_eq!(d["options"][0]["look_at"][0]["card"], "c1", "{d}");
    assert_eq!(d["options"][0]["look_at"][0]["name"], "Mountain", "{d}");
    // The library card is hidden from the other seat and from an unnamed viewer.
    let other = env.json(&["mtg", "actions", "--game", "surveil", "--as", "p2"], "");
    assert!(!other.to_string().contains("c1"), "{other}");
    let anyone = decision(&env, "surveil");
    assert!(!anyone.to_string().contains("Mountain"), "{anyone}");
    // Only a card looked at may go to the graveyard.
    refused(
        &env,
        "surveil",
        json!({"type": "surveil", "graveyard": ["c2"]}),
    );
    act(
        &env,
        "surveil",
        json!({"type": "surveil", "graveyard": ["c1"]}),
    );
    let s = state(&env, "surveil");
    assert!(in_graveyard(&s, "p1", "c1"), "{s}");
    assert_eq!(s["players"]["p1"]["library"][0]["id"], "c2", "{s}");
}

#[test]
fn cr_701_25a_surveil_puts_the_rest_back_in_the_order_the_player_chooses() {
    let env = TestEnv::new();
    // p1: library c1 (Mountain), c2 (Forest), c3 (Island), c4; Lightshell Duo c5 (hand),
    // Islands c6-c9.
    setup(
        &env,
        "order",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Mountain", "Forest", "Island", "Forest"],
                           "hand": ["Lightshell Duo"],
                           "battlefield": [{"card": "Island"}, {"card": "Island"},
                                           {"card": "Island"}, {"card": "Island"}]},
                    "p2": {"library": ["Forest", "Forest", "Forest"]}}}),
    );
    act(&env, "order", json!({"type": "cast", "card": "c5"}));
    for _ in 0..10 {
        if decision(&env, "order")["kind"] == "surveil" {
            break;
        }
        act(&env, "order", json!({"type": "pass"}));
    }
    let d = env.json(&["mtg", "actions", "--game", "order", "--as", "p1"], "");
    assert_eq!(d["kind"], "surveil", "{d}");
    assert_eq!(d["options"][0]["count"], 2, "{d}");
    assert_eq!(d["options"][0]["top_in_any_order"], true, "{d}");
    // `top` must list every card kept, once.
    refused(
        &env,
        "order",
        json!({"type": "surveil", "graveyard": [], "top": ["c2"]}),
    );
    refused(
        &env,
        "order",
        json!({"type": "surveil", "graveyard": ["c1"], "top": ["c2", "c1"]}),
    );
    act(
        &env,
        "order",
        json!({"type": "surveil", "graveyard": [], "top": ["c2", "c1"]}),
    );
    let s = state(&env, "order");
    let lib: Vec<&str> = s["players"]["p1"]["library"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(lib, ["c2", "c1", "c3", "c4"], "{s}");
}
