//! Statics, control, choices and restrictions of Foundations cards through the binary, one
//! `--setup` scenario per rule with its Comprehensive Rules number: combat restrictions until
//! the end of the turn (CR 509.1a-b: Sower of Chaos, Rogue's Passage), colorless mana
//! (CR 106.1b: Rogue's Passage), attack requirements and blocking restrictions by type
//! (CR 508.1d, 509.1b: Juggernaut), P/T counted per land (CR 613.4c: Blanchwood Armor) and
//! exile until the source leaves the battlefield (CR 610.3: Banishing Light) and reflexive
//! triggers (CR 603.12: Faebloom Trick) and a discard chosen from a revealed hand, a decision
//! shown only to its seat (CR 701.20a, 701.9b: Pilfer).

use crate::TestEnv;
use crate::mtg::{act, decision, forests, on_battlefield, refused, setup, state};
use crate::mtg_planeswalkers::{act_and_resolve, resolve_all};
use serde_json::{Value, json};

/// Passes until the decision is of `kind` (at most 30 decisions).
fn pass_until(env: &TestEnv, id: &str, kind: &str) -> Value {
    for _ in 0..30 {
        let d = decision(env, id);
        if d["kind"] == kind {
            return d;
        }
        act(env, id, json!({"type": "pass"}));
    }
    panic!("no {kind} decision: {}", state(env, id));
}

/// p1 (active, main phase 1): Sower of Chaos and three Mountains; p2: Grizzly Bears.
fn sower_game(env: &TestEnv, id: &str) {
    // Ids: p1 library c1-c3, Sower of Chaos c4, Mountains c5-c7; p2 library c8-c10,
    // Grizzly Bears c11.
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3),
                           "battlefield": [{"card": "Sower of Chaos"}, {"card": "Mountain"},
                                           {"card": "Mountain"}, {"card": "Mountain"}]},
                    "p2": {"library": forests(3),
                           "battlefield": [{"card": "Grizzly Bears"}]}}}),
    );
}

#[test]
fn cr_509_1a_target_creature_cant_block_this_turn_and_it_ends_with_the_turn() {
    // Without the ability the Bears may block the Sower.
    let env = TestEnv::new();
    sower_game(&env, "free");
    pass_until(&env, "free", "declare_attackers");
    act(
        &env,
        "free",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    let d = pass_until(&env, "free", "declare_blockers");
    assert_eq!(d["player"], "p2", "{d}");

    // "{2}{R}: Target creature can't block this turn." on the Bears: no block is possible,
    // so the engine asks p2 nothing and the Sower's 4 damage is dealt.
    sower_game(&env, "sower");
    let ev = act_and_resolve(
        &env,
        "sower",
        json!({"type": "activate", "card": "c4", "ability": 0, "targets": ["c11"]}),
    );
    assert!(
        ev.iter().any(|e| e["type"] == "restricted"
            && e["card"] == "c11"
            && e["restriction"] == "cant_block"),
        "{ev:?}"
    );
    let s = state(&env, "sower");
    assert_eq!(
        on_battlefield(&s, "c11").unwrap()["this_turn"],
        json!(["cant_block"])
    );
    pass_until(&env, "sower", "declare_attackers");
    act(
        &env,
        "sower",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    for _ in 0..10 {
        let d = decision(&env, "sower");
        assert_ne!(d["kind"], "declare_blockers", "the Bears can't block: {d}");
        if state(&env, "sower")["players"]["p2"]["life"] == 16 {
            break;
        }
        act(&env, "sower", json!({"type": "pass"}));
    }
    let s = state(&env, "sower");
    assert_eq!(s["players"]["p2"]["life"], 16, "{s}");
    // CR 514.2: the restriction ends in the cleanup step; on p2's turn it is gone.
    for _ in 0..30 {
        if state(&env, "sower")["active"] == "p2" {
            break;
        }
        act(&env, "sower", json!({"type": "pass"}));
    }
    let s = state(&env, "sower");
    assert_eq!(s["active"], "p2", "{s}");
    assert!(
        on_battlefield(&s, "c11")
            .unwrap()
            .get("this_turn")
            .is_none(),
        "{s}"
    );
}

/// p1 (active, main phase 1): Grizzly Bears, Rogue's Passage, a Forest and three Mountains,
/// Shock and Grizzly Bears in hand; p2: Giant Spider (reach).
fn passage_game(env: &TestEnv, id: &str) {
    // Ids: p1 library c1-c3, Shock c4, Grizzly Bears c5 (hand), Grizzly Bears c6, Rogue's
    // Passage c7, Forest c8, Mountains c9-c11; p2 library c12-c14, Giant Spider c15.
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Shock", "Grizzly Bears"],
                           "battlefield": [{"card": "Grizzly Bears"}, {"card": "Rogue's Passage"},
                                           {"card": "Forest"}, {"card": "Mountain"},
                                           {"card": "Mountain"}, {"card": "Mountain"}]},
                    "p2": {"library": forests(3),
                           "battlefield": [{"card": "Giant Spider"}]}}}),
    );
}

#[test]
fn cr_509_1b_target_creature_cant_be_blocked_this_turn() {
    let env = TestEnv::new();
    passage_game(&env, "passage");
    // "{4}, {T}: Target creature can't be blocked this turn." (its mana ability is not an
    // activated ability to choose: index 0 is this one).
    let ev = act_and_resolve(
        &env,
        "passage",
        json!({"type": "activate", "card": "c7", "ability": 0, "targets": ["c6"],
               "tap": ["c8", "c9", "c10", "c11"]}),
    );
    assert!(
        ev.iter().any(|e| e["type"] == "restricted"
            && e["card"] == "c6"
            && e["restriction"] == "cant_be_blocked"),
        "{ev:?}"
    );
    let s = state(&env, "passage");
    assert_eq!(on_battlefield(&s, "c7").unwrap()["tapped"], true, "{s}");
    pass_until(&env, "passage", "declare_attackers");
    act(
        &env,
        "passage",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c6", "defender": "p2"}]}),
    );
    for _ in 0..10 {
        let d = decision(&env, "passage");
        assert_ne!(
            d["kind"], "declare_blockers",
            "the Bears can't be blocked: {d}"
        );
        if state(&env, "passage")["players"]["p2"]["life"] == 18 {
            break;
        }
        act(&env, "passage", json!({"type": "pass"}));
    }
    assert_eq!(state(&env, "passage")["players"]["p2"]["life"], 18);
}

#[test]
fn cr_106_1b_colorless_mana_pays_generic_costs_only() {
    let env = TestEnv::new();
    passage_game(&env, "colorless");
    // {C} can't pay Shock's {R} …
    let e = refused(
        &env,
        "colorless",
        json!({"type": "cast", "card": "c4", "targets": ["c15"], "tap": ["c7"]}),
    );
    assert!(e.to_string().contains("exactly"), "{e}");
    // … but pays the generic part of a cost: Grizzly Bears' {1}, with the Forest's {G}.
    act(
        &env,
        "colorless",
        json!({"type": "cast", "card": "c5", "tap": ["c7", "c8"]}),
    );
    resolve_all(&env, "colorless");
    let s = state(&env, "colorless");
    assert!(on_battlefield(&s, "c5").is_some(), "{s}");
    assert_eq!(on_battlefield(&s, "c7").unwrap()["tapped"], true, "{s}");
}

#[test]
fn cr_508_1d_attacks_each_combat_if_able_and_509_1b_cant_be_blocked_by_walls() {
    let env = TestEnv::new();
    // Ids: p1 library c1-c3, Juggernaut c4, Grizzly Bears c5; p2 library c6-c8, Wall of
    // Stone c9, Grizzly Bears c10.
    setup(
        &env,
        "jug",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3),
                           "battlefield": [{"card": "Juggernaut"}, {"card": "Grizzly Bears"}]},
                    "p2": {"library": forests(3),
                           "battlefield": [{"card": "Wall of Stone"}, {"card": "Grizzly Bears"}]}}}),
    );
    // Leaving Juggernaut out (or attacking with nothing) is refused, naming the rule.
    for attackers in [json!([]), json!([{"attacker": "c5", "defender": "p2"}])] {
        let e = refused(
            &env,
            "jug",
            json!({"type": "declare_attackers", "attackers": attackers}),
        );
        assert!(e.to_string().contains("508.1d"), "{e}");
    }
    act(
        &env,
        "jug",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    let d = pass_until(&env, "jug", "declare_blockers");
    // The Wall may block nothing (Juggernaut is the only attacker); the Bears may block it.
    let opts = d["options"][0]["choose_from"].as_array().unwrap().clone();
    assert!(opts.iter().all(|o| o["blocker"] != "c9"), "{d}");
    assert!(opts.iter().any(|o| o["blocker"] == "c10"), "{d}");
    refused(
        &env,
        "jug",
        json!({"type": "declare_blockers", "blocks": [{"blocker": "c9", "attacker": "c4"}]}),
    );
    act(
        &env,
        "jug",
        json!({"type": "declare_blockers", "blocks": [{"blocker": "c10", "attacker": "c4"}]}),
    );
}

#[test]
fn cr_613_4c_enchanted_creature_gets_plus_one_for_each_forest_you_control() {
    let env = TestEnv::new();
    // Ids: p1 library c1-c3, Blanchwood Armor c4, Forest c5 (hand), Grizzly Bears c6,
    // Forests c7-c9; p2 library c10-c12, Forest c13.
    setup(
        &env,
        "armor",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Blanchwood Armor", "Forest"],
                           "battlefield": [{"card": "Grizzly Bears"}, {"card": "Forest"},
                                           {"card": "Forest"}, {"card": "Forest"}]},
                    "p2": {"library": forests(3), "battlefield": [{"card": "Forest"}]}}}),
    );
    act_and_resolve(
        &env,
        "armor",
        json!({"type": "cast", "card": "c4", "targets": ["c6"], "tap": ["c7", "c8", "c9"]}),
    );
    let s = state(&env, "armor");
    let bears = on_battlefield(&s, "c6").unwrap();
    // Three Forests of its controller (the opponent's does not count): 2/2 + 3/3.
    assert_eq!(
        (bears["power"].clone(), bears["toughness"].clone()),
        (json!(5), json!(5)),
        "{s}"
    );
    // The count follows the battlefield as it changes (CR 611.3a): a fourth Forest.
    act(&env, "armor", json!({"type": "play_land", "card": "c5"}));
    let s = state(&env, "armor");
    assert_eq!(on_battlefield(&s, "c6").unwrap()["power"], 6, "{s}");
}

/// Passes (choosing `target` when a trigger asks) until the stack is empty; returns the
/// events on the way.
fn resolve_choosing(env: &TestEnv, id: &str, target: &str) -> Vec<Value> {
    let mut ev = Vec::new();
    for _ in 0..20 {
        let d = decision(env, id);
        if d["kind"] == "choose_target" {
            ev.extend(crate::mtg::events_of(&act(
                env,
                id,
                json!({"type": "choose_target", "target": target}),
            )));
            continue;
        }
        if state(env, id)["stack"].as_array().is_none_or(Vec::is_empty) {
            return ev;
        }
        ev.extend(crate::mtg::events_of(&act(
            env,
            id,
            json!({"type": "pass"}),
        )));
    }
    panic!("the stack never emptied: {}", state(env, id));
}

/// p1 (active, main phase 1): Banishing Light in hand, three Plains; p2: Broken Wings in
/// hand, Grizzly Bears and three Forests.
fn banishing_game(env: &TestEnv, id: &str) {
    // Ids: p1 library c1-c3, Banishing Light c4, Plains c5-c7; p2 library c8-c10, Broken
    // Wings c11, Grizzly Bears c12, Forests c13-c15.
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Banishing Light"],
                           "battlefield": [{"card": "Plains"}, {"card": "Plains"}, {"card": "Plains"}]},
                    "p2": {"library": forests(3), "hand": ["Broken Wings"],
                           "battlefield": [{"card": "Grizzly Bears"}, {"card": "Forest"},
                                           {"card": "Forest"}, {"card": "Forest"}]}}}),
    );
}

#[test]
fn cr_610_3a_exiled_until_banishing_light_leaves_then_it_returns() {
    let env = TestEnv::new();
    banishing_game(&env, "banish");
    act(&env, "banish", json!({"type": "cast", "card": "c4"}));
    let ev = resolve_choosing(&env, "banish", "c12");
    assert!(
        ev.iter()
            .any(|e| e["type"] == "exiled" && e["card"] == "c12"),
        "{ev:?}"
    );
    let s = state(&env, "banish");
    assert!(on_battlefield(&s, "c12").is_none(), "{s}");
    assert_eq!(s["players"]["p2"]["exile"][0]["id"], "c12", "{s}");
    // p2 destroys Banishing Light (Broken Wings, at instant speed on p1's turn): the Bears
    // come back under their owner's control as a new, summoning-sick object.
    for _ in 0..10 {
        if decision(&env, "banish")["player"] == "p2" {
            break;
        }
        act(&env, "banish", json!({"type": "pass"}));
    }
    let ev = act_and_resolve(
        &env,
        "banish",
        json!({"type": "cast", "card": "c11", "targets": ["c4"]}),
    );
    assert!(
        ev.iter()
            .any(|e| e["type"] == "returned_from_exile" && e["card"] == "c12"),
        "{ev:?}"
    );
    let s = state(&env, "banish");
    let bears = on_battlefield(&s, "c12").expect("the Bears returned");
    assert_eq!(bears["controller"], "p2", "{s}");
    assert!(s["players"]["p2"].get("exile").is_none(), "{s}");
}

#[test]
fn cr_610_3c_nothing_is_exiled_if_banishing_light_left_first() {
    let env = TestEnv::new();
    banishing_game(&env, "gone");
    act(&env, "gone", json!({"type": "cast", "card": "c4"}));
    // Banishing Light resolves; its trigger goes on the stack targeting the Bears.
    for _ in 0..10 {
        let d = decision(&env, "gone");
        if d["kind"] == "choose_target" {
            act(
                &env,
                "gone",
                json!({"type": "choose_target", "target": "c12"}),
            );
            break;
        }
        act(&env, "gone", json!({"type": "pass"}));
    }
    // With the trigger on the stack p2 destroys Banishing Light in response.
    for _ in 0..5 {
        if decision(&env, "gone")["player"] == "p2" {
            break;
        }
        act(&env, "gone", json!({"type": "pass"}));
    }
    let s = state(&env, "gone");
    assert_eq!(
        s["stack"].as_array().unwrap().len(),
        1,
        "the trigger waits: {s}"
    );
    let ev = act_and_resolve(
        &env,
        "gone",
        json!({"type": "cast", "card": "c11", "targets": ["c4"]}),
    );
    assert!(
        ev.iter()
            .all(|e| e["type"] != "exiled" && e["type"] != "returned_from_exile"),
        "{ev:?}"
    );
    let s = state(&env, "gone");
    assert!(on_battlefield(&s, "c12").is_some(), "never exiled: {s}");
    assert!(on_battlefield(&s, "c4").is_none(), "{s}");
    assert!(s["players"]["p2"].get("exile").is_none(), "{s}");
}

#[test]
fn cr_603_12_when_you_do_triggers_after_the_spell_and_targets_then() {
    let env = TestEnv::new();
    // Ids: p1 library c1-c3, Faebloom Trick c4, Islands c5-c7; p2 library c8-c10, Grizzly
    // Bears c11.
    let game = |id: &str, bears: bool| {
        let bf = if bears {
            json!([{"card": "Grizzly Bears"}])
        } else {
            json!([])
        };
        setup(
            &env,
            id,
            json!({"active": "p1", "turn": 3, "step": "main1",
            "players": {"p1": {"library": forests(3), "hand": ["Faebloom Trick"],
                               "battlefield": [{"card": "Island"}, {"card": "Island"},
                                               {"card": "Island"}]},
                        "p2": {"library": forests(3), "battlefield": bf}}}),
        );
    };
    game("trick", true);
    // Cast without a target: the reflexive trigger's target is chosen only once it triggers.
    act(&env, "trick", json!({"type": "cast", "card": "c4"}));
    let mut d = decision(&env, "trick");
    for _ in 0..5 {
        if d["kind"] == "choose_target" {
            break;
        }
        act(&env, "trick", json!({"type": "pass"}));
        d = decision(&env, "trick");
    }
    assert_eq!(d["kind"], "choose_target", "{d}");
    let s = state(&env, "trick");
    // The two Faeries exist before the trigger resolves.
    let faeries = s["battlefield"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "Faerie Token")
        .count();
    assert_eq!(faeries, 2, "{s}");
    let mut ev = crate::mtg::events_of(&act(
        &env,
        "trick",
        json!({"type": "choose_target", "target": "c11"}),
    ));
    ev.extend(crate::mtg::events_of(&act(
        &env,
        "trick",
        json!({"type": "pass"}),
    )));
    // (The game then runs on to p2's turn, whose untap step untaps the Bears again.)
    assert!(
        ev.iter()
            .any(|e| e["type"] == "tapped" && e["card"] == "c11"),
        "{ev:?}"
    );

    // No creature of the opponent: the Faeries are made, the trigger is removed (CR 603.3d).
    game("alone", false);
    let ev = act_and_resolve(&env, "alone", json!({"type": "cast", "card": "c4"}));
    assert!(ev.iter().all(|e| e["type"] != "triggered"), "{ev:?}");
    let s = state(&env, "alone");
    assert_eq!(s["battlefield"].as_array().unwrap().len(), 5, "{s}");
}

#[test]
fn cr_701_9b_you_choose_a_nonland_card_from_the_revealed_hand_shown_only_to_you() {
    let env = TestEnv::new();
    // Ids: p1 library c1-c3, Pilfer c4, Swamps c5-c6; p2 library c7-c9, Shock c10, Forest
    // c11, Grizzly Bears c12.
    setup(
        &env,
        "pilfer",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Pilfer"],
                           "battlefield": [{"card": "Swamp"}, {"card": "Swamp"}]},
                    "p2": {"library": forests(3), "hand": ["Shock", "Forest", "Grizzly Bears"]}}}),
    );
    act(&env, "pilfer", json!({"type": "cast", "card": "c4"}));
    let d = pass_until(&env, "pilfer", "choose_discard");
    assert_eq!(d["player"], "p1", "{d}");
    // Only the chooser sees the options; the other seat and an unnamed viewer see none.
    assert_eq!(d["options"], json!([]), "{d}");
    let theirs = env.json(&["mtg", "actions", "--game", "pilfer", "--as", "p2"], "");
    assert_eq!(theirs["options"], json!([]), "{theirs}");
    let mine = env.json(&["mtg", "actions", "--game", "pilfer", "--as", "p1"], "");
    let from = mine["options"][0]["choose_from"].clone();
    assert_eq!(
        from,
        json!([{"card": "c10", "name": "Shock"}, {"card": "c12", "name": "Grizzly Bears"}]),
        "{mine}"
    );
    // A land, or two cards, are refused.
    refused(&env, "pilfer", json!({"type": "discard", "cards": ["c11"]}));
    refused(
        &env,
        "pilfer",
        json!({"type": "discard", "cards": ["c10", "c12"]}),
    );
    act(&env, "pilfer", json!({"type": "discard", "cards": ["c12"]}));
    let s = state(&env, "pilfer");
    assert!(crate::mtg::in_graveyard(&s, "p2", "c12"), "{s}");
    let hand = s["players"]["p2"]["hand"].as_array().unwrap().clone();
    assert!(hand.iter().any(|c| c["id"] == "c10") && hand.iter().all(|c| c["id"] != "c12"));
}
