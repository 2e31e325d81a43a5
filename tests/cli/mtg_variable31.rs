//! Effects decided as they resolve and the untap rules, through the binary, one `--setup`
//! scenario each, named by the Comprehensive Rules number it implements: doubling a power
//! (CR 701.10), damage only at exactly N life and "… instead" (608.2c), "for each" (608.2h),
//! "doesn't untap" and untapping (502.3, 701.26), stun counters (122.1d), combat damage
//! prevention (615.1) and Treasures for a countered spell's controller (111.10a).

use crate::TestEnv;
use crate::mtg::{
    act, decision, events_of, forests, in_graveyard, life, on_battlefield, setup, state,
};
use serde_json::{Value, json};

fn bf(v: &[&str]) -> Vec<Value> {
    v.iter().map(|c| json!({"card": c})).collect()
}

fn name_of(s: &Value, id: &str) -> String {
    on_battlefield(s, id).map_or(String::new(), |c| c["name"].as_str().unwrap().to_string())
}

/// Passes (whoever decides) until `done` holds, collecting the events (at most 40 passes).
fn pass_until(env: &TestEnv, id: &str, done: impl Fn(&Value, &Value) -> bool) -> Vec<Value> {
    let mut ev = Vec::new();
    for _ in 0..40 {
        let s = state(env, id);
        let d = decision(env, id);
        if done(&s, &d) {
            return ev;
        }
        let a = match d["kind"].as_str() {
            Some("declare_attackers") => json!({"type": "declare_attackers", "attackers": []}),
            Some("declare_blockers") => json!({"type": "declare_blockers", "blocks": []}),
            _ => json!({"type": "pass"}),
        };
        ev.extend(events_of(&act(env, id, a)));
    }
    panic!("never reached: {}", state(env, id));
}

#[test]
fn cr_701_10_bulk_up_doubles_the_targets_power_until_end_of_turn() {
    let env = TestEnv::new();
    // p1: library c1-c3, Bulk Up c4, Mountains c5-c6, Grizzly Bears c7.
    setup(
        &env,
        "bulk",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Bulk Up"],
                           "battlefield": bf(&["Mountain", "Mountain", "Grizzly Bears"])},
                    "p2": {"library": forests(3)}}}),
    );
    act(
        &env,
        "bulk",
        json!({"type": "cast", "card": "c4", "targets": ["c7"]}),
    );
    let s = state(&env, "bulk");
    let bears = on_battlefield(&s, "c7").unwrap();
    assert_eq!(
        (bears["power"].as_i64(), bears["toughness"].as_i64()),
        (Some(4), Some(2)),
        "{s}"
    );
}

#[test]
fn cr_608_2c_second_rite_deals_ten_only_at_exactly_ten_life() {
    for (life_total, after) in [(10, 0), (11, 11)] {
        let env = TestEnv::new();
        let id = format!("rite{life_total}");
        // p1: library c1-c3, the Rite c4, Mountains c5-c8.
        setup(
            &env,
            &id,
            json!({"active": "p1", "turn": 3, "step": "main1",
            "players": {"p1": {"library": forests(3), "hand": ["Hidetsugu's Second Rite"],
                               "battlefield": bf(&["Mountain"; 4])},
                        "p2": {"library": forests(3), "life": life_total}}}),
        );
        act(
            &env,
            &id,
            json!({"type": "cast", "card": "c4", "targets": ["p2"]}),
        );
        let s = state(&env, &id);
        assert_eq!(life(&s, "p2"), after, "{s}");
    }
}

/// p1: library c1-c3, Shock c4, Tragic Banshee c5, Swamps c6-c10, Mountain c11; p2: library
/// c12-c14, Grizzly Bears c15 and c16.
fn banshee_game(env: &TestEnv, id: &str) {
    let mut mine = vec!["Swamp"; 5];
    mine.push("Mountain");
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Shock", "Tragic Banshee"],
                           "battlefield": bf(&mine)},
                    "p2": {"library": forests(3),
                           "battlefield": bf(&["Grizzly Bears", "Grizzly Bears"])}}}),
    );
}

#[test]
fn cr_608_2c_tragic_banshee_gives_minus_thirteen_instead_after_a_death() {
    let env = TestEnv::new();
    // No creature died this turn: -1/-1.
    banshee_game(&env, "calm");
    act(&env, "calm", json!({"type": "cast", "card": "c5"}));
    pass_until(&env, "calm", |_, d| d["kind"] != "priority");
    let d = decision(&env, "calm");
    assert_eq!(d["kind"], "choose_target", "{d}");
    act(
        &env,
        "calm",
        json!({"type": "choose_target", "target": "c15"}),
    );
    pass_until(&env, "calm", |s, _| {
        s["stack"].as_array().is_none_or(Vec::is_empty)
    });
    let s = state(&env, "calm");
    let bears = on_battlefield(&s, "c15").unwrap();
    assert_eq!(
        (bears["power"].as_i64(), bears["toughness"].as_i64()),
        (Some(1), Some(1)),
        "{s}"
    );
    // Morbid: Shock kills one bear first, the other gets -13/-13 and dies.
    let env = TestEnv::new();
    banshee_game(&env, "morbid");
    act(
        &env,
        "morbid",
        json!({"type": "cast", "card": "c4", "targets": ["c15"], "tap": ["c11"]}),
    );
    pass_until(&env, "morbid", |s, _| {
        s["stack"].as_array().is_none_or(Vec::is_empty)
    });
    assert!(in_graveyard(&state(&env, "morbid"), "p2", "c15"));
    act(&env, "morbid", json!({"type": "cast", "card": "c5"}));
    pass_until(&env, "morbid", |_, d| d["kind"] == "choose_target");
    act(
        &env,
        "morbid",
        json!({"type": "choose_target", "target": "c16"}),
    );
    pass_until(&env, "morbid", |s, _| {
        s["stack"].as_array().is_none_or(Vec::is_empty)
    });
    let s = state(&env, "morbid");
    assert!(in_graveyard(&s, "p2", "c16"), "{s}");
}

#[test]
fn cr_502_3_slumbering_cerberus_stays_tapped_in_its_untap_step() {
    let env = TestEnv::new();
    // p2's end step; p1: library c1-c3, tapped Cerberus c4, tapped Mountain c5.
    setup(
        &env,
        "sleep",
        json!({"active": "p2", "turn": 4, "step": "end",
        "players": {"p1": {"library": forests(3),
                           "battlefield": [{"card": "Slumbering Cerberus", "tapped": true},
                                           {"card": "Mountain", "tapped": true}]},
                    "p2": {"library": forests(3)}}}),
    );
    pass_until(&env, "sleep", |s, d| {
        s["active"] == "p1" && s["step"] == "main1" && d["player"] == "p1"
    });
    let s = state(&env, "sleep");
    assert_eq!(name_of(&s, "c4"), "Slumbering Cerberus", "{s}");
    assert_eq!(on_battlefield(&s, "c4").unwrap()["tapped"], true, "{s}");
    assert_eq!(on_battlefield(&s, "c5").unwrap()["tapped"], false, "{s}");
}

#[test]
fn cr_701_26_morbid_cerberus_untaps_at_the_end_step_after_a_death() {
    let env = TestEnv::new();
    // p1: library c1-c3, Shock c4, tapped Cerberus c5, Mountain c6; p2: Grizzly Bears c10.
    setup(
        &env,
        "wake",
        json!({"active": "p1", "turn": 3, "step": "main2",
        "players": {"p1": {"library": forests(3), "hand": ["Shock"],
                           "battlefield": [{"card": "Slumbering Cerberus", "tapped": true},
                                           {"card": "Mountain"}]},
                    "p2": {"library": forests(3), "battlefield": bf(&["Grizzly Bears"])}}}),
    );
    let mut ev = events_of(&act(
        &env,
        "wake",
        json!({"type": "cast", "card": "c4", "targets": ["c10"]}),
    ));
    ev.extend(pass_until(&env, "wake", |s, _| s["active"] == "p2"));
    assert!(
        ev.iter()
            .any(|e| e["type"] == "untapped" && e["card"] == "c5"),
        "{ev:?}"
    );
}

#[test]
fn cr_122_1d_grappling_kraken_stuns_and_the_stun_counter_replaces_an_untap() {
    let env = TestEnv::new();
    // p1: library c1-c3, Forest c4, Kraken c5; p2: library c6-c8, Grizzly Bears c9.
    setup(
        &env,
        "kraken",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Forest"],
                           "battlefield": bf(&["Grappling Kraken"])},
                    "p2": {"library": forests(3), "battlefield": bf(&["Grizzly Bears"])}}}),
    );
    act(&env, "kraken", json!({"type": "play_land", "card": "c4"}));
    let d = decision(&env, "kraken");
    assert_eq!(d["kind"], "choose_target", "{d}");
    act(
        &env,
        "kraken",
        json!({"type": "choose_target", "target": "c9"}),
    );
    pass_until(&env, "kraken", |s, _| {
        s["stack"].as_array().is_none_or(Vec::is_empty)
    });
    let s = state(&env, "kraken");
    let bears = on_battlefield(&s, "c9").unwrap();
    assert_eq!(
        (bears["tapped"].as_bool(), bears["stun"].as_i64()),
        (Some(true), Some(1)),
        "{s}"
    );
    // p2's untap step: the stun counter goes instead of the untap.
    let ev = pass_until(&env, "kraken", |s, d| {
        s["active"] == "p2" && s["step"] == "main1" && d["player"] == "p2"
    });
    assert!(
        ev.iter()
            .any(|e| e["type"] == "stun" && e["card"] == "c9" && e["amount"] == -1),
        "{ev:?}"
    );
    let s = state(&env, "kraken");
    let bears = on_battlefield(&s, "c9").unwrap();
    assert_eq!(
        (bears["tapped"].as_bool(), bears.get("stun")),
        (Some(true), None),
        "{s}"
    );
}

#[test]
fn cr_615_1_fleeting_flight_prevents_the_combat_damage_dealt_to_it() {
    let env = TestEnv::new();
    // p1: library c1-c3, Fleeting Flight c4, Plains c5, Grizzly Bears c6; p2: library c7-c9,
    // Dwynen c10 (3/4 reach).
    setup(
        &env,
        "flight",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Fleeting Flight"],
                           "battlefield": bf(&["Plains", "Grizzly Bears"])},
                    "p2": {"library": forests(3), "battlefield": bf(&["Dwynen, Gilt-Leaf Daen"])}}}),
    );
    act(
        &env,
        "flight",
        json!({"type": "cast", "card": "c4", "targets": ["c6"]}),
    );
    let s = state(&env, "flight");
    let bears = on_battlefield(&s, "c6").unwrap();
    assert_eq!(bears["power"], 3, "{s}");
    assert!(
        bears["keywords"]
            .as_array()
            .unwrap()
            .contains(&json!("Flying")),
        "{s}"
    );
    pass_until(&env, "flight", |_, d| d["kind"] == "declare_attackers");
    act(
        &env,
        "flight",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c6", "defender": "p2"}]}),
    );
    let d = decision(&env, "flight");
    assert_eq!(d["kind"], "declare_blockers", "{d}");
    let r = act(
        &env,
        "flight",
        json!({"type": "declare_blockers", "blocks": [{"blocker": "c10", "attacker": "c6"}]}),
    );
    let mut ev = events_of(&r);
    ev.extend(pass_until(&env, "flight", |s, _| {
        s["step"] != "declare_blockers" && s["step"] != "combat_damage"
    }));
    // The bear dealt its 3; the 3 Dwynen would have dealt it were prevented.
    assert!(
        ev.iter()
            .any(|e| e["type"] == "damage" && e["source"] == "c6" && e["amount"] == 3),
        "{ev:?}"
    );
    assert!(
        !ev.iter()
            .any(|e| e["type"] == "damage" && e["target"] == "c6"),
        "{ev:?}"
    );
    let s = state(&env, "flight");
    assert_eq!(on_battlefield(&s, "c6").unwrap()["damage"], 0, "{s}");
}

#[test]
fn cr_608_2h_dwynen_gains_a_life_for_each_attacking_elf() {
    let env = TestEnv::new();
    // p1: library c1-c3, Dwynen c4, Llanowar Elves c5, Grizzly Bears c6.
    setup(
        &env,
        "elves",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3),
                           "battlefield": bf(&["Dwynen, Gilt-Leaf Daen", "Llanowar Elves", "Grizzly Bears"])},
                    "p2": {"library": forests(3)}}}),
    );
    let mut ev = events_of(&act(
        &env,
        "elves",
        json!({"type": "declare_attackers", "attackers": [
            {"attacker": "c4", "defender": "p2"},
            {"attacker": "c5", "defender": "p2"},
            {"attacker": "c6", "defender": "p2"}]}),
    ));
    ev.extend(pass_until(&env, "elves", |s, _| {
        s["stack"].as_array().is_none_or(Vec::is_empty)
    }));
    // Two attacking Elves (Dwynen itself and the Llanowar Elves), not the Bears.
    assert!(
        ev.iter()
            .any(|e| e["type"] == "life_gained" && e["amount"] == 2),
        "{ev:?}"
    );
}

#[test]
fn cr_608_2h_inspiring_call_draws_for_each_creature_with_a_counter_and_shields_them() {
    let env = TestEnv::new();
    // p1: library c1-c3, Inspiring Call c4, Forests c5-c7, Bears with a counter c8, Bears c9.
    setup(
        &env,
        "call",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["Inspiring Call"],
                           "battlefield": [{"card": "Forest"}, {"card": "Forest"}, {"card": "Forest"},
                                           {"card": "Grizzly Bears", "counters": 1},
                                           {"card": "Grizzly Bears"}]},
                    "p2": {"library": forests(3)}}}),
    );
    act(&env, "call", json!({"type": "cast", "card": "c4"}));
    let s = state(&env, "call");
    assert_eq!(
        s["players"]["p1"]["hand"].as_array().map(Vec::len),
        Some(1),
        "{s}"
    );
    let kws = |id: &str| on_battlefield(&s, id).unwrap()["keywords"].clone();
    assert!(
        kws("c8")
            .as_array()
            .unwrap()
            .contains(&json!("Indestructible")),
        "{s}"
    );
    assert!(
        !kws("c9")
            .as_array()
            .unwrap()
            .contains(&json!("Indestructible")),
        "{s}"
    );
}

#[test]
fn cr_111_10a_an_offer_you_cant_refuse_gives_the_countered_spells_controller_two_treasures() {
    let env = TestEnv::new();
    // p1: library c1-c3, the Offer c4, Island c5; p2: library c6-c8, Shock c9, Mountain c10.
    setup(
        &env,
        "offer",
        json!({"active": "p2", "turn": 4, "step": "main1",
        "players": {"p1": {"library": forests(3), "hand": ["An Offer You Can't Refuse"],
                           "battlefield": bf(&["Island"])},
                    "p2": {"library": forests(3), "hand": ["Shock"], "battlefield": bf(&["Mountain"])}}}),
    );
    act(
        &env,
        "offer",
        json!({"type": "cast", "card": "c9", "targets": ["p1"]}),
    );
    let d = decision(&env, "offer");
    assert_eq!(d["player"], "p1", "{d}");
    act(
        &env,
        "offer",
        json!({"type": "cast", "card": "c4", "targets": ["c9"]}),
    );
    pass_until(&env, "offer", |s, _| {
        s["stack"].as_array().is_none_or(Vec::is_empty)
    });
    let s = state(&env, "offer");
    assert_eq!(life(&s, "p1"), 20, "{s}");
    let treasures: Vec<&Value> = s["battlefield"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "Treasure Token")
        .collect();
    assert_eq!(treasures.len(), 2, "{s}");
    assert!(treasures.iter().all(|t| t["controller"] == "p2"), "{s}");
}

/// p1 at declare attackers: library c1-c3, Midnight Snack c4, Healer's Hawk c5, Swamps c6-c8.
fn snack_game(env: &TestEnv, id: &str) {
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": forests(3),
                           "battlefield": bf(&["Midnight Snack", "Healer's Hawk", "Swamp", "Swamp", "Swamp"])},
                    "p2": {"library": forests(3)}}}),
    );
    act(
        env,
        id,
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c5", "defender": "p2"}]}),
    );
}

#[test]
fn cr_119_3_midnight_snack_makes_food_after_a_raid_and_drains_the_life_gained_this_turn() {
    // Raid: the end step trigger makes a Food.
    let env = TestEnv::new();
    snack_game(&env, "raid");
    let ev = pass_until(&env, "raid", |s, _| s["active"] == "p2");
    assert!(ev.iter().any(|e| e["type"] == "token_created"), "{ev:?}");
    // The sacrifice: p2 loses the 1 life p1 gained with the lifelinked Hawk this turn.
    let env = TestEnv::new();
    snack_game(&env, "drain");
    pass_until(&env, "drain", |s, d| {
        s["step"] == "main2" && d["player"] == "p1"
    });
    let s = state(&env, "drain");
    assert_eq!((life(&s, "p1"), life(&s, "p2")), (21, 19), "{s}");
    act(
        &env,
        "drain",
        json!({"type": "activate", "card": "c4", "ability": 0}),
    );
    pass_until(&env, "drain", |s, _| {
        s["stack"].as_array().is_none_or(Vec::is_empty)
    });
    let s = state(&env, "drain");
    assert_eq!(life(&s, "p2"), 18, "{s}");
    assert!(in_graveyard(&s, "p1", "c4"), "{s}");
}
