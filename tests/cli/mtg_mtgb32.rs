//! Costs chosen as a spell is cast, through the binary, one `--setup` scenario each, named by
//! the Comprehensive Rules number it implements: X chosen in the cast (CR 107.3a, 601.2f) and
//! additional costs: discard a card, sacrifice a creature or pay mana (CR 601.2b, 601.2h).

use crate::TestEnv;
use crate::mtg::{
    act, cast_options, copies, decision, events_of, in_graveyard, life, on_battlefield,
    pass_until_resolved, refused, setup, state, tapped,
};
use serde_json::{Value, json};

/// A game in p1's first main phase of turn 3: p1's hand and battlefield, p2's battlefield;
/// ids: p1's library c1-c2, then the hand, then p1's battlefield, then p2's.
fn game(env: &TestEnv, id: &str, hand: &[&str], mine: Vec<Value>, theirs: Vec<Value>) {
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": hand, "battlefield": mine},
                    "p2": {"library": ["Forest", "Forest"], "battlefield": theirs}}}),
    );
}

#[test]
fn cr_107_3a_exsanguinate_drains_the_x_chosen_in_the_cast() {
    let env = TestEnv::new();
    // p1: hand Exsanguinate c3 and Savannah Lions c4; Swamps c5-c10.
    game(
        &env,
        "drain",
        &["Exsanguinate", "Savannah Lions"],
        copies("Swamp", 6),
        vec![],
    );
    // X = 0 is the plain cast; X = 1 … 4 are offered (six Swamps less {B}{B}), no more.
    let opts = cast_options(&env, "drain", "c3");
    let mut xs: Vec<i64> = opts.iter().filter_map(|o| o["x"].as_i64()).collect();
    xs.sort();
    assert_eq!(xs, vec![1, 2, 3, 4], "{opts:?}");
    assert!(opts.iter().any(|o| o.get("x").is_none()), "{opts:?}");
    // X more than the mana can pay, and X on a card without {X}, are refused.
    let e = refused(&env, "drain", json!({"type": "cast", "card": "c3", "x": 5}));
    assert!(e.to_string().contains("mana"), "{e}");
    let e = refused(&env, "drain", json!({"type": "cast", "card": "c4", "x": 1}));
    assert!(e.to_string().contains("{X}"), "{e}");
    let mut ev = events_of(&act(
        &env,
        "drain",
        json!({"type": "cast", "card": "c3", "x": 3}),
    ));
    assert_eq!(
        tapped(&state(&env, "drain")),
        5,
        "X = 3 costs {{3}}{{B}}{{B}}"
    );
    ev.extend(pass_until_resolved(&env, "drain"));
    assert!(
        ev.iter()
            .any(|e| e["type"] == "life_lost" && e["player"] == "p2" && e["amount"] == 3),
        "{ev:?}"
    );
    assert_eq!(life(&state(&env, "drain"), "p2"), 17);
    assert_eq!(
        life(&state(&env, "drain"), "p1"),
        23,
        "the life lost this way is gained"
    );
}

#[test]
fn cr_601_2b_thrill_of_possibility_discards_a_card_as_it_is_cast() {
    let env = TestEnv::new();
    // p1: hand Thrill of Possibility c3 and c4, Savannah Lions c5; Mountains c6-c9.
    game(
        &env,
        "thrill",
        &[
            "Thrill of Possibility",
            "Thrill of Possibility",
            "Savannah Lions",
        ],
        copies("Mountain", 4),
        vec![],
    );
    // One option per card to discard: the other two cards of the hand, never the spell itself.
    let mut discards: Vec<String> = cast_options(&env, "thrill", "c3")
        .iter()
        .map(|o| o["discard"].as_str().unwrap().to_string())
        .collect();
    discards.sort();
    assert_eq!(discards, vec!["c4", "c5"]);
    // Without the discard, discarding itself, or a card not in hand: refused.
    let e = refused(&env, "thrill", json!({"type": "cast", "card": "c3"}));
    assert!(e.to_string().contains("discard"), "{e}");
    refused(
        &env,
        "thrill",
        json!({"type": "cast", "card": "c3", "discard": "c3"}),
    );
    refused(
        &env,
        "thrill",
        json!({"type": "cast", "card": "c3", "discard": "c6"}),
    );
    refused(
        &env,
        "thrill",
        json!({"type": "cast", "card": "c3", "sacrifice": "c6"}),
    );
    let out = act(
        &env,
        "thrill",
        json!({"type": "cast", "card": "c3", "discard": "c5"}),
    );
    // The cost is paid as it is cast, before it resolves (CR 601.2h).
    assert!(
        events_of(&out)
            .iter()
            .any(|e| e["type"] == "discarded" && e["card"] == "c5"),
        "{out}"
    );
    assert!(in_graveyard(&state(&env, "thrill"), "p1", "c5"));
    pass_until_resolved(&env, "thrill");
    let s = state(&env, "thrill");
    let hand: Vec<&str> = s["players"]["p1"]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(hand.len(), 3, "c4 and the two cards drawn: {s}");
    assert!(hand.contains(&"c1") && hand.contains(&"c2"), "{s}");
}

#[test]
fn cr_601_2h_eaten_alive_sacrifices_a_creature_or_pays_three_and_black() {
    let env = TestEnv::new();
    // p1: hand Eaten Alive c3 and c4; Swamps c5-c10, Savannah Lions c11; p2: library c12-c13,
    // Savannah Lions c14 and c15.
    let mut mine = copies("Swamp", 6);
    mine.push(json!({"card": "Savannah Lions"}));
    game(
        &env,
        "eaten",
        &["Eaten Alive", "Eaten Alive"],
        mine,
        copies("Savannah Lions", 2),
    );
    // Per target: sacrifice Lions c11, or pay {3}{B} more (six Swamps can).
    let opts = cast_options(&env, "eaten", "c3");
    assert!(
        opts.iter()
            .any(|o| o["sacrifice"] == "c11" && o["targets"] == json!(["c14"])),
        "{opts:?}"
    );
    assert!(
        opts.iter()
            .any(|o| o.get("sacrifice").is_none() && o["targets"] == json!(["c14"])),
        "{opts:?}"
    );
    // Only a creature you control can be sacrificed; a discard is not its cost.
    refused(
        &env,
        "eaten",
        json!({"type": "cast", "card": "c3", "targets": ["c14"], "sacrifice": "c15"}),
    );
    refused(
        &env,
        "eaten",
        json!({"type": "cast", "card": "c3", "targets": ["c14"], "sacrifice": "c5"}),
    );
    refused(
        &env,
        "eaten",
        json!({"type": "cast", "card": "c3", "targets": ["c14"], "discard": "c4"}),
    );
    let out = act(
        &env,
        "eaten",
        json!({"type": "cast", "card": "c3", "targets": ["c14"], "sacrifice": "c11"}),
    );
    assert!(
        events_of(&out)
            .iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == "c11"),
        "{out}"
    );
    let s = state(&env, "eaten");
    assert!(in_graveyard(&s, "p1", "c11"), "{s}");
    assert_eq!(tapped(&s), 1, "sacrificing, it cost {{B}} only");
    pass_until_resolved(&env, "eaten");
    let s = state(&env, "eaten");
    assert!(on_battlefield(&s, "c14").is_none(), "{s}");
    assert!(
        s["players"]["p2"]["exile"]
            .as_array()
            .is_some_and(|v| v.iter().any(|c| c["id"] == "c14")),
        "exiled, not destroyed: {s}"
    );
    // No creature left to sacrifice: the plain cast pays {3}{B} more, five Swamps in all.
    act(
        &env,
        "eaten",
        json!({"type": "cast", "card": "c4", "targets": ["c15"]}),
    );
    assert_eq!(tapped(&state(&env, "eaten")), 6);
    pass_until_resolved(&env, "eaten");
    assert!(on_battlefield(&state(&env, "eaten"), "c15").is_none());
}

#[test]
fn cr_602_2b_hungry_ghoul_sacrifices_another_creature_as_its_cost() {
    let env = TestEnv::new();
    // p1: Hungry Ghoul c3, Savannah Lions c4, Swamps c5-c6 (hand empty); p2: library c7-c8,
    // Savannah Lions c9.
    let mut mine = vec![
        json!({"card": "Hungry Ghoul"}),
        json!({"card": "Savannah Lions"}),
    ];
    mine.extend(copies("Swamp", 2));
    game(&env, "ghoul", &[], mine, copies("Savannah Lions", 1));
    // One activation per creature it could sacrifice: the Lions, never the Ghoul itself.
    let opts: Vec<Value> = decision(&env, "ghoul")["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["type"] == "activate")
        .cloned()
        .collect();
    assert_eq!(opts.len(), 1, "{opts:?}");
    assert_eq!(opts[0]["sacrifice"], "c4");
    assert_eq!(opts[0]["name"], "Hungry Ghoul");
    // Without the creature, with itself ("another"), or with the opponent's: refused.
    let e = refused(&env, "ghoul", json!({"type": "activate", "card": "c3"}));
    assert!(e.to_string().contains("sacrifice"), "{e}");
    refused(
        &env,
        "ghoul",
        json!({"type": "activate", "card": "c3", "sacrifice": "c3"}),
    );
    refused(
        &env,
        "ghoul",
        json!({"type": "activate", "card": "c3", "sacrifice": "c9"}),
    );
    let out = act(
        &env,
        "ghoul",
        json!({"type": "activate", "card": "c3", "sacrifice": "c4"}),
    );
    assert!(
        events_of(&out)
            .iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == "c4"),
        "{out}"
    );
    assert!(in_graveyard(&state(&env, "ghoul"), "p1", "c4"));
    pass_until_resolved(&env, "ghoul");
    let s = state(&env, "ghoul");
    let ghoul = on_battlefield(&s, "c3").unwrap();
    assert_eq!(ghoul["counters"], 1, "{ghoul}");
    // No other creature left: the ability cannot be activated (no option offers it).
    let d = decision(&env, "ghoul");
    assert!(
        d["options"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["type"] != "activate"),
        "{d}"
    );
}
