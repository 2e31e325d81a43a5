//! `bob mtg cards` and the compiled card rules through the binary: coverage of the shipped
//! Foundations set and of a card file, MTGJSON import, and one `--setup` scenario per rules
//! template the compiler and engine added, named by its Comprehensive Rules number.

use crate::TestEnv;
use crate::mtg::{act, decision, events_of, forests, in_graveyard, on_battlefield, setup, state};
use serde_json::{Value, json};

/// Imports the test creatures of the keyword scenarios (Scryfall card objects).
fn import_keyword_fixtures(env: &TestEnv) -> Value {
    let card = |name: &str, cost: &str, kw: &str, p: &str, t: &str| {
        json!({"object": "card", "layout": "normal", "name": name, "mana_cost": cost,
               "type_line": "Creature — Test", "oracle_text": kw, "power": p, "toughness": t,
               "keywords": [kw]})
    };
    let f = env.write(
        "keyword_fixtures.json",
        &json!([
            card("Fixture Menace", "{1}{R}", "Menace", "2", "2"),
            card("Fixture Hexproof", "{1}{G}", "Hexproof", "2", "2"),
            card(
                "Fixture Indestructible",
                "{1}{W}",
                "Indestructible",
                "1",
                "1"
            ),
            card("Fixture Flash", "{G}", "Flash", "1", "1"),
        ])
        .to_string(),
    );
    env.json(&["mtg", "cards", "import", f.to_str().unwrap()], "")
}

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

#[test]
fn coverage_of_the_shipped_set_counts_and_groups_every_card() {
    let env = TestEnv::new();
    let c = env.json(&["mtg", "cards", "coverage", "--set", "fdn"], "");
    assert_eq!(c["cards"], 271);
    let playable = c["playable"].as_u64().unwrap();
    assert!(playable >= 20, "{c}");
    assert!(c["compiled"].as_u64().unwrap() >= playable);
    let sum = |k: &str| -> u64 {
        c[k].as_array()
            .unwrap()
            .iter()
            .map(|m| m["cards"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(
        sum("missing_templates") + sum("not_in_engine") + playable,
        271
    );
    for r in ["common", "uncommon", "rare", "mythic"] {
        assert!(c["by_rarity"][r]["cards"].as_u64().unwrap() > 0, "{r}");
    }
    // The shipped set's playable cards are in the pool.
    let pool = env.jsonl(&["mtg", "cards"], "");
    assert!(pool.iter().any(|c| c["name"] == "Diregraf Ghoul"));
    env.fails(
        &["mtg", "cards", "coverage", "--set", "xyz"],
        "",
        2,
        "invalid.request",
    );
}

#[test]
fn coverage_and_import_read_mtgjson_atomic_cards() {
    let env = TestEnv::new();
    let f = env.write(
        "AtomicCards.json",
        &json!({"meta": {"version": "5.2.2"}, "data": {
            "Boltwave": [{"name": "Boltwave", "manaCost": "{R}", "type": "Sorcery",
                          "text": "Boltwave deals 3 damage to each opponent.", "layout": "normal"}],
            "Doom Blade": [{"name": "Doom Blade", "manaCost": "{1}{B}", "type": "Instant",
                            "text": "Destroy target nonblack creature.", "layout": "normal"}],
            "Fixture Shock Trooper": [{"name": "Fixture Shock Trooper", "manaCost": "{2}{R}",
                            "type": "Creature — Test", "text": "Menace", "power": "3",
                            "toughness": "1", "keywords": ["Menace"], "layout": "normal"}],
            "Delver of Secrets // Insectile Aberration": [{"side": "a"}, {"side": "b"}]
        }})
        .to_string(),
    );
    let c = env.json(&["mtg", "cards", "coverage", f.to_str().unwrap()], "");
    assert_eq!(c["cards"], 4);
    assert_eq!(c["playable"], 2);
    assert_eq!(
        c["unreadable"][0]["reason"],
        "multi-faced cards are not supported"
    );
    assert_eq!(
        c["missing_templates"][0]["examples"],
        json!(["Doom Blade"]),
        "{c}"
    );
    let imported = env.json(&["mtg", "cards", "import", f.to_str().unwrap()], "");
    assert_eq!(imported["added"], json!(["Fixture Shock Trooper"]));
    let refused = imported["refused"].as_array().unwrap();
    let doom = refused.iter().find(|r| r["name"] == "Doom Blade").unwrap();
    assert!(
        doom["reason"]
            .as_str()
            .unwrap()
            .contains("destroy target nonblack creature"),
        "{doom}"
    );
    // Not JSON, or JSON of another shape: invalid.request, nothing written.
    let bad = env.write("bad.json", "{\"data\": 3}");
    env.fails(
        &["mtg", "cards", "coverage", bad.to_str().unwrap()],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &["mtg", "cards", "import", bad.to_str().unwrap()],
        "",
        2,
        "invalid.request",
    );
}

#[test]
fn cr_702_111b_menace_is_blocked_only_by_two_or_more() {
    let env = TestEnv::new();
    import_keyword_fixtures(&env);
    // p1: library c1-c3, Fixture Menace c4; p2: library c5-c7, Grizzly Bears c8 and c9.
    setup(
        &env,
        "menace",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3), "battlefield": [{"card": "Fixture Menace"}]},
                    "p2": {"library": forests(3), "battlefield": [{"card": "Grizzly Bears"}, {"card": "Grizzly Bears"}]}}}),
    );
    act(
        &env,
        "menace",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    let e = refused_act(
        &env,
        "menace",
        json!({"type": "declare_blockers", "blocks": [{"blocker": "c8", "attacker": "c4"}]}),
    );
    assert!(e.to_string().contains("702.111b"), "{e}");
    let r = act(
        &env,
        "menace",
        json!({"type": "declare_blockers", "blocks": [{"blocker": "c8", "attacker": "c4"},
                                                     {"blocker": "c9", "attacker": "c4"}]}),
    );
    assert!(events_of(&r).iter().any(|e| e["type"] == "blocked"), "{r}");
}

#[test]
fn cr_702_11b_hexproof_is_targeted_only_by_its_controller() {
    let env = TestEnv::new();
    import_keyword_fixtures(&env);
    // p1: library c1-c2, Shock c3, Mountain c4, Fixture Hexproof c5; p2: library c6-c7,
    // Fixture Hexproof c8.
    setup(
        &env,
        "hex",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Shock"],
                           "battlefield": [{"card": "Mountain"}, {"card": "Fixture Hexproof"}]},
                    "p2": {"library": forests(2), "battlefield": [{"card": "Fixture Hexproof"}]}}}),
    );
    let options = decision(&env, "hex").to_string();
    assert!(!options.contains("\"c8\""), "{options}");
    refused_act(
        &env,
        "hex",
        json!({"type": "cast", "card": "c3", "targets": ["c8"]}),
    );
    let r = act(
        &env,
        "hex",
        json!({"type": "cast", "card": "c3", "targets": ["c5"]}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "died" && e["card"] == "c5")
    );
}

#[test]
fn cr_702_12b_indestructible_survives_lethal_damage_and_destroy() {
    let env = TestEnv::new();
    import_keyword_fixtures(&env);
    // p1: library c1-c2, Lightning Bolt c3, Murder c4, Mountain c5, Swamps c6-c8;
    // p2: library c9-c10, Fixture Indestructible c11.
    setup(
        &env,
        "ind",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Lightning Bolt", "Murder"],
                           "battlefield": [{"card": "Mountain"}, {"card": "Swamp"}, {"card": "Swamp"}, {"card": "Swamp"}]},
                    "p2": {"library": forests(2), "battlefield": [{"card": "Fixture Indestructible"}]}}}),
    );
    act(
        &env,
        "ind",
        json!({"type": "cast", "card": "c3", "targets": ["c11"]}),
    );
    // p1 keeps priority after casting (it could still cast Murder): pass to resolve.
    act(&env, "ind", json!({"type": "pass"}));
    let s = state(&env, "ind");
    assert_eq!(on_battlefield(&s, "c11").unwrap()["damage"], 3);
    let r = act(
        &env,
        "ind",
        json!({"type": "cast", "card": "c4", "targets": ["c11"]}),
    );
    assert!(
        !events_of(&r)
            .iter()
            .any(|e| e["type"] == "destroyed" || e["type"] == "died"),
        "{r}"
    );
    assert!(on_battlefield(&state(&env, "ind"), "c11").is_some());
}

#[test]
fn cr_702_8a_flash_creature_is_cast_at_instant_speed() {
    let env = TestEnv::new();
    import_keyword_fixtures(&env);
    // p1: library c1-c2, Grizzly Bears c3; p2: library c4-c5, Fixture Flash c6, Grizzly Bears
    // c7, Forests c8-c9.
    setup(
        &env,
        "flash",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Grizzly Bears"]},
                    "p2": {"library": forests(2), "hand": ["Fixture Flash", "Grizzly Bears"],
                           "battlefield": [{"card": "Forest"}, {"card": "Forest"}]}}}),
    );
    // p1 holds a card in its main phase: the engine stops for it (on what both players see),
    // it can only pass; then p2 decides on p1's turn.
    let d = decision(&env, "flash");
    assert_eq!(d["player"], "p1", "{d}");
    act(&env, "flash", json!({"type": "pass"}));
    let d = decision(&env, "flash");
    assert_eq!(d["player"], "p2", "{d}");
    refused_act(&env, "flash", json!({"type": "cast", "card": "c7"}));
    act(&env, "flash", json!({"type": "cast", "card": "c6"}));
    // The caster keeps priority (CR 117.3c) and, with a land still untapped, is asked.
    act(&env, "flash", json!({"type": "pass"}));
    let s = state(&env, "flash");
    assert_eq!(on_battlefield(&s, "c6").unwrap()["controller"], "p2");
}

#[test]
fn cr_614_1c_a_creature_that_enters_tapped() {
    let env = TestEnv::new();
    // p1: library c1-c2, Diregraf Ghoul c3, Swamp c4.
    setup(
        &env,
        "ghoul",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Diregraf Ghoul"], "battlefield": [{"card": "Swamp"}]},
                    "p2": {"library": forests(2)}}}),
    );
    act(&env, "ghoul", json!({"type": "cast", "card": "c3"}));
    let s = state(&env, "ghoul");
    assert_eq!(on_battlefield(&s, "c3").unwrap()["tapped"], true);
}

#[test]
fn cr_608_2c_joust_through_deals_damage_then_gains_life() {
    let env = TestEnv::new();
    // p1: library c1-c3, Grizzly Bears c4; p2: library c5-c7, Joust Through c8, Plains c9.
    setup(
        &env,
        "joust",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3), "battlefield": [{"card": "Grizzly Bears"}]},
                    "p2": {"library": forests(3), "hand": ["Joust Through"], "battlefield": [{"card": "Plains"}]}}}),
    );
    // Not attacking yet: no legal target.
    act(
        &env,
        "joust",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    let r = act(
        &env,
        "joust",
        json!({"type": "cast", "card": "c8", "targets": ["c4"]}),
    );
    let ev = events_of(&r);
    assert!(
        ev.iter().any(|e| e["type"] == "died" && e["card"] == "c4"),
        "{ev:?}"
    );
    let s = state(&env, "joust");
    assert_eq!(s["players"]["p2"]["life"], 21);
    assert!(in_graveyard(&s, "p1", "c4"));
}

#[test]
fn cr_122_1_a_counter_then_it_gains_hexproof_until_end_of_turn() {
    let env = TestEnv::new();
    // p1: library c1-c2, Snakeskin Veil c3, Forest c4, Grizzly Bears c5.
    setup(
        &env,
        "veil",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Snakeskin Veil"],
                           "battlefield": [{"card": "Forest"}, {"card": "Grizzly Bears"}]},
                    "p2": {"library": forests(2)}}}),
    );
    act(
        &env,
        "veil",
        json!({"type": "cast", "card": "c3", "targets": ["c5"]}),
    );
    let bears = on_battlefield(&state(&env, "veil"), "c5").unwrap();
    assert_eq!(bears["power"], 3);
    assert_eq!(bears["toughness"], 3);
    assert_eq!(bears["counters"], 1);
    assert_eq!(bears["keywords"], json!(["Hexproof"]));
}

#[test]
fn cr_611_2c_overrun_changes_the_creatures_you_control_as_it_resolves() {
    let env = TestEnv::new();
    // p1: library c1-c2, Overrun c3, Forests c4-c8, Grizzly Bears c9; p2: library c10-c11,
    // Grizzly Bears c12.
    let mut bf: Vec<Value> = (0..5).map(|_| json!({"card": "Forest"})).collect();
    bf.push(json!({"card": "Grizzly Bears"}));
    setup(
        &env,
        "overrun",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Overrun"], "battlefield": bf},
                    "p2": {"library": forests(2), "battlefield": [{"card": "Grizzly Bears"}]}}}),
    );
    act(&env, "overrun", json!({"type": "cast", "card": "c3"}));
    let s = state(&env, "overrun");
    let mine = on_battlefield(&s, "c9").unwrap();
    assert_eq!(
        (mine["power"].as_i64(), mine["toughness"].as_i64()),
        (Some(5), Some(5))
    );
    assert_eq!(mine["keywords"], json!(["Trample"]));
    assert_eq!(on_battlefield(&s, "c12").unwrap()["power"], 2);
}

#[test]
fn cr_120_3_boltwave_deals_damage_to_each_opponent() {
    let env = TestEnv::new();
    setup(
        &env,
        "wave",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Boltwave"], "battlefield": [{"card": "Mountain"}]},
                    "p2": {"library": forests(2)}}}),
    );
    act(&env, "wave", json!({"type": "cast", "card": "c3"}));
    let s = state(&env, "wave");
    assert_eq!(s["players"]["p2"]["life"], 17);
    assert_eq!(s["players"]["p1"]["life"], 20);
}

fn hand_size(s: &Value, seat: &str) -> usize {
    s["players"][seat]["hand"].as_array().map_or_else(
        || s["players"][seat]["hand_size"].as_u64().unwrap_or(0) as usize,
        Vec::len,
    )
}

fn tokens_of(s: &Value, name: &str) -> Vec<Value> {
    s["battlefield"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == name)
        .cloned()
        .collect()
}

#[test]
fn cr_603_6a_an_enters_trigger_goes_on_the_stack_and_resolves() {
    let env = TestEnv::new();
    // p1: library c1-c2, Helpful Hunter c3, Plains c4-c5.
    setup(
        &env,
        "hunter",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Helpful Hunter"],
                           "battlefield": [{"card": "Plains"}, {"card": "Plains"}]},
                    "p2": {"library": forests(2)}}}),
    );
    let r = act(&env, "hunter", json!({"type": "cast", "card": "c3"}));
    let ev = events_of(&r);
    let at = |t: &str| ev.iter().position(|e| e["type"] == t);
    assert!(
        at("triggered").unwrap() < at("ability_resolved").unwrap(),
        "{ev:?}"
    );
    assert!(at("triggered").unwrap() < at("drew").unwrap());
    let s = state(&env, "hunter");
    assert_eq!(hand_size(&s, "p1"), 1);
    assert!(on_battlefield(&s, "c3").is_some());
}

#[test]
fn cr_111_1_an_enters_trigger_creates_creature_tokens() {
    let env = TestEnv::new();
    let plains: Vec<Value> = (0..6).map(|_| json!({"card": "Plains"})).collect();
    setup(
        &env,
        "heir",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Guarded Heir"], "battlefield": plains},
                    "p2": {"library": forests(2)}}}),
    );
    act(&env, "heir", json!({"type": "cast", "card": "c3"}));
    let s = state(&env, "heir");
    let knights = tokens_of(&s, "Knight Token");
    assert_eq!(knights.len(), 2, "{s}");
    for k in &knights {
        assert_eq!(
            (k["power"].as_i64(), k["toughness"].as_i64()),
            (Some(3), Some(3))
        );
        assert_eq!(k["controller"], "p1");
        assert_eq!(k["sick"], true);
    }
}

#[test]
fn cr_508_3a_an_attack_trigger_drains() {
    let env = TestEnv::new();
    setup(
        &env,
        "syphon",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3), "battlefield": [{"card": "Sanguine Syphoner"}]},
                    "p2": {"library": forests(3)}}}),
    );
    act(
        &env,
        "syphon",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    let s = state(&env, "syphon");
    // The trigger (1 and 1) and then the unblocked 1/3's combat damage.
    assert_eq!(s["players"]["p1"]["life"], 21);
    assert_eq!(s["players"]["p2"]["life"], 18);
}

#[test]
fn cr_207_2c_landfall_creates_a_token_when_a_land_is_played() {
    let env = TestEnv::new();
    // p1: library c1-c2, Forest c3, Elfsworn Giant c4.
    setup(
        &env,
        "landfall",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Forest"],
                           "battlefield": [{"card": "Elfsworn Giant"}]},
                    "p2": {"library": forests(2)}}}),
    );
    act(&env, "landfall", json!({"type": "play_land", "card": "c3"}));
    let s = state(&env, "landfall");
    let elves = tokens_of(&s, "Elf Warrior Token");
    assert_eq!(elves.len(), 1, "{s}");
    assert_eq!(elves[0]["power"], 1);
}

#[test]
fn cr_603_3b_simultaneous_dies_triggers_go_on_the_stack_in_apnap_order_and_704_5d_tokens_cease_to_exist()
 {
    let env = TestEnv::new();
    import_sage(&env);
    // p1: library c1-c3, Fixture Sage c4; p2: library c5-c7, Shock c8, Mountain c9,
    // Fixture Sage c10.
    setup(
        &env,
        "apnap",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3), "battlefield": [{"card": "Fixture Sage"}]},
                    "p2": {"library": forests(3), "hand": ["Shock"],
                           "battlefield": [{"card": "Mountain"}, {"card": "Fixture Sage"}]}}}),
    );
    act(
        &env,
        "apnap",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    // p2 may Shock now; it passes instead, then blocks.
    while decision(&env, "apnap")["kind"] == "priority" {
        act(&env, "apnap", json!({"type": "pass"}));
    }
    let r = act(
        &env,
        "apnap",
        json!({"type": "declare_blockers", "blocks": [{"blocker": "c10", "attacker": "c4"}]}),
    );
    let mut ev = events_of(&r);
    while decision(&env, "apnap")["kind"] == "priority"
        && ev.iter().all(|e| e["type"] != "token_created")
    {
        ev.extend(events_of(&act(&env, "apnap", json!({"type": "pass"}))));
    }
    // Active player's trigger went on the stack first, so p2's resolved first: p2's Insect
    // is the first token created.
    let triggered: Vec<&Value> = ev.iter().filter(|e| e["type"] == "triggered").collect();
    assert_eq!(triggered.len(), 2, "{ev:?}");
    assert_eq!(triggered[0]["card"], "c4");
    assert_eq!(triggered[1]["card"], "c10");
    let s = state(&env, "apnap");
    while decision(&env, "apnap")["kind"] == "priority"
        && tokens_of(&state(&env, "apnap"), "Insect Token").len() < 2
    {
        act(&env, "apnap", json!({"type": "pass"}));
    }
    let s2 = state(&env, "apnap");
    let insects = tokens_of(&s2, "Insect Token");
    assert_eq!(insects.len(), 2, "{s}");
    assert_eq!(insects[0]["controller"], "p2");
    assert_eq!(insects[0]["keywords"], json!(["Flying"]));
}

fn import_sage(env: &TestEnv) {
    let f = env.write(
        "sage.json",
        &json!([{"object": "card", "layout": "normal", "name": "Fixture Sage",
                 "mana_cost": "{B}", "type_line": "Creature — Elf Warlock",
                 "oracle_text": "When this creature dies, create a 1/1 black and green Insect creature token with flying.",
                 "power": "1", "toughness": "1", "keywords": []}])
        .to_string(),
    );
    let imported = env.json(&["mtg", "cards", "import", f.to_str().unwrap()], "");
    assert_eq!(imported["added"], json!(["Fixture Sage"]), "{imported}");
}

#[test]
fn cr_700_4_a_dies_trigger_makes_a_token_and_704_5d_the_token_ceases_to_exist() {
    let env = TestEnv::new();
    import_sage(&env);
    // p1: library c1-c2, Shock c3 and c4, Mountains c5-c6, Fixture Sage c7.
    setup(
        &env,
        "sage",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(2), "hand": ["Shock", "Shock"],
                           "battlefield": [{"card": "Mountain"}, {"card": "Mountain"}, {"card": "Fixture Sage"}]},
                    "p2": {"library": forests(2)}}}),
    );
    act(
        &env,
        "sage",
        json!({"type": "cast", "card": "c3", "targets": ["c7"]}),
    );
    act(&env, "sage", json!({"type": "pass"}));
    // The dies trigger is on the stack; p1 (who could still Shock) passes to resolve it.
    let on_stack = state(&env, "sage")["stack"].clone();
    assert_eq!(on_stack[0]["id"], "c7");
    assert_eq!(on_stack[0]["ability"], 0);
    act(&env, "sage", json!({"type": "pass"}));
    let s = state(&env, "sage");
    assert!(in_graveyard(&s, "p1", "c7"));
    let insect = tokens_of(&s, "Insect Token");
    assert_eq!(insect.len(), 1, "{s}");
    let id = insect[0]["id"].as_str().unwrap().to_string();
    assert_eq!(id, "c10");
    act(
        &env,
        "sage",
        json!({"type": "cast", "card": "c4", "targets": [id]}),
    );
    let s = state(&env, "sage");
    assert!(on_battlefield(&s, &id).is_none());
    assert!(!in_graveyard(&s, "p1", &id), "{s}");
    assert_eq!(s["players"]["p1"]["graveyard"].as_array().unwrap().len(), 3);
}
