//! Tokens, +1/+1 counters and the newer trigger events through the binary, one `--setup`
//! scenario each, named by the Comprehensive Rules number it implements: Food (CR 111.10b),
//! counted tokens (608.2h), counters on the entering creature (122.1, 603.2), the second
//! draw and first life gain of a turn (121.2, 119.9), deaths seen together (603.10a),
//! attack triggers (508.3a) and typed triggers and targets (205.3m).

use crate::TestEnv;
use crate::mtg::{act, decision, events_of, forests, life, on_battlefield, setup, state};
use serde_json::{Value, json};

/// A game at `step` of p1's turn 3: each library three Forests (p1 c1-c3), then p1's hand,
/// p1's battlefield, p2's library (three Forests), p2's battlefield, ids in that order.
fn game(env: &TestEnv, id: &str, step: &str, hand: &[&str], mine: &[&str], theirs: &[&str]) {
    let bf = |v: &[&str]| -> Vec<Value> { v.iter().map(|c| json!({"card": c})).collect() };
    setup(
        env,
        id,
        json!({"active": "p1", "turn": 3, "step": step,
        "players": {"p1": {"library": forests(3), "hand": hand, "battlefield": bf(mine)},
                    "p2": {"library": forests(3), "battlefield": bf(theirs)}}}),
    );
}

fn named(s: &Value, name: &str) -> Vec<Value> {
    s["battlefield"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == name)
        .cloned()
        .collect()
}

fn counters(s: &Value, id: &str) -> i64 {
    on_battlefield(s, id)
        .and_then(|c| c["counters"].as_i64())
        .unwrap_or(0)
}

/// Passes until the stack is empty (at most 10 passes).
fn resolve_all(env: &TestEnv, id: &str) {
    for _ in 0..10 {
        let s = state(env, id);
        if s["stack"].as_array().is_none_or(Vec::is_empty) {
            return;
        }
        let d = decision(env, id);
        if d["kind"] != "priority" {
            return;
        }
        act(env, id, json!({"type": "pass"}));
    }
}

#[test]
fn cr_111_10b_a_food_token_is_an_artifact_sacrificed_for_three_life() {
    let env = TestEnv::new();
    // Bake into a Pie c4, six Swamps c5-c10; p2's Grizzly Bears c14.
    game(
        &env,
        "pie",
        "main1",
        &["Bake into a Pie"],
        &["Swamp"; 6],
        &["Grizzly Bears"],
    );
    let r = act(
        &env,
        "pie",
        json!({"type": "cast", "card": "c4", "targets": ["c14"]}),
    );
    assert!(
        events_of(&r).iter().any(|e| e["type"] == "token_created"),
        "{r}"
    );
    let s = state(&env, "pie");
    let food = named(&s, "Food Token");
    assert_eq!(food.len(), 1, "{s}");
    assert_eq!(food[0]["power"], Value::Null, "a Food is no creature");
    let id = food[0]["id"].as_str().unwrap().to_string();
    let r = act(
        &env,
        "pie",
        json!({"type": "activate", "card": id, "ability": 0}),
    );
    let ev = events_of(&r);
    assert!(
        ev.iter()
            .any(|e| e["type"] == "life_gained" && e["amount"] == 3),
        "{ev:?}"
    );
    let s = state(&env, "pie");
    assert_eq!(life(&s, "p1"), 23);
    // CR 704.5d: the sacrificed token ceased to exist.
    assert!(named(&s, "Food Token").is_empty(), "{s}");
}

#[test]
fn cr_608_2h_hare_apparent_counts_the_other_hares_as_it_resolves() {
    let env = TestEnv::new();
    // Hare Apparent c4 in hand; two Hares c5-c6 and Plains c7-c8 on the battlefield.
    game(
        &env,
        "hares",
        "main1",
        &["Hare Apparent"],
        &["Hare Apparent", "Hare Apparent", "Plains", "Plains"],
        &[],
    );
    act(&env, "hares", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "hares");
    let s = state(&env, "hares");
    let rabbits = named(&s, "Rabbit Token");
    assert_eq!(rabbits.len(), 2, "{s}");
    assert_eq!(
        (
            rabbits[0]["power"].as_i64(),
            rabbits[0]["toughness"].as_i64()
        ),
        (Some(1), Some(1))
    );
}

#[test]
fn cr_122_1_good_fortune_unicorn_puts_the_counter_on_the_creature_that_entered() {
    let env = TestEnv::new();
    // Grizzly Bears c4 in hand; the Unicorn c5 and two Forests c6-c7.
    game(
        &env,
        "unicorn",
        "main1",
        &["Grizzly Bears"],
        &["Good-Fortune Unicorn", "Forest", "Forest"],
        &[],
    );
    act(&env, "unicorn", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "unicorn");
    let s = state(&env, "unicorn");
    assert_eq!(counters(&s, "c4"), 1, "{s}");
    assert_eq!(on_battlefield(&s, "c4").unwrap()["power"], 3);
    assert_eq!(counters(&s, "c5"), 0, "not on the Unicorn itself");
}

#[test]
fn cr_121_2_the_second_draw_of_a_turn_triggers_once_even_within_one_effect() {
    let env = TestEnv::new();
    // Divination c4; Erudite Wizard c5, three Islands c6-c8. Set up in the main phase, no
    // card was drawn this turn before Divination's two.
    game(
        &env,
        "wizard",
        "main1",
        &["Divination"],
        &["Erudite Wizard", "Island", "Island", "Island"],
        &[],
    );
    let r = act(&env, "wizard", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "wizard");
    let s = state(&env, "wizard");
    assert_eq!(counters(&s, "c5"), 1, "{r} {s}");
}

#[test]
fn cr_119_9_only_the_first_life_gain_of_a_turn_triggers() {
    let env = TestEnv::new();
    // Two Sacred Nectars c4-c5; Cat Collector c6 (on p1's turn) and four Plains c7-c10.
    game(
        &env,
        "cats",
        "main1",
        &["Sacred Nectar", "Sacred Nectar"],
        &["Cat Collector", "Plains", "Plains", "Plains", "Plains"],
        &[],
    );
    act(&env, "cats", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "cats");
    act(&env, "cats", json!({"type": "cast", "card": "c5"}));
    resolve_all(&env, "cats");
    let s = state(&env, "cats");
    assert_eq!(life(&s, "p1"), 28);
    assert_eq!(named(&s, "Cat Token").len(), 1, "{s}");
}

#[test]
fn cr_603_10a_bloodwitch_triggers_for_another_death_and_its_own() {
    let env = TestEnv::new();
    // Two Lightning Bolts c4-c5; Vengeful Bloodwitch c6, Grizzly Bears c7, two Mountains.
    game(
        &env,
        "witch",
        "main1",
        &["Lightning Bolt", "Lightning Bolt"],
        &[
            "Vengeful Bloodwitch",
            "Grizzly Bears",
            "Mountain",
            "Mountain",
        ],
        &[],
    );
    act(
        &env,
        "witch",
        json!({"type": "cast", "card": "c4", "targets": ["c7"]}),
    );
    resolve_all(&env, "witch");
    let s = state(&env, "witch");
    assert_eq!((life(&s, "p1"), life(&s, "p2")), (21, 19), "{s}");
    act(
        &env,
        "witch",
        json!({"type": "cast", "card": "c5", "targets": ["c6"]}),
    );
    resolve_all(&env, "witch");
    let s = state(&env, "witch");
    assert_eq!((life(&s, "p1"), life(&s, "p2")), (22, 18), "{s}");
}

#[test]
fn cr_508_3a_attacks_while_you_control_a_big_creature() {
    let env = TestEnv::new();
    // Courageous Goblin c4 with a 4-power Armasaur Guide c5: +1/+0 and menace.
    game(
        &env,
        "big",
        "declare_attackers",
        &[],
        &["Courageous Goblin", "Armasaur Guide"],
        &["Grizzly Bears"],
    );
    let r = act(
        &env,
        "big",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "triggered" && e["card"] == "c4"),
        "{r}"
    );
    // Alone, nothing triggers.
    game(
        &env,
        "small",
        "declare_attackers",
        &[],
        &["Courageous Goblin"],
        &["Grizzly Bears"],
    );
    let r = act(
        &env,
        "small",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c4", "defender": "p2"}]}),
    );
    assert!(
        !events_of(&r).iter().any(|e| e["type"] == "triggered"),
        "{r}"
    );
}

#[test]
fn cr_508_3a_attacking_with_three_or_more_creatures() {
    let env = TestEnv::new();
    // Armasaur Guide c4, Grizzly Bears c5-c6.
    let three = |id: &str, n: usize| {
        game(
            &env,
            id,
            "declare_attackers",
            &[],
            &["Armasaur Guide", "Grizzly Bears", "Grizzly Bears"],
            &[],
        );
        let attackers: Vec<Value> = ["c4", "c5", "c6"][..n]
            .iter()
            .map(|a| json!({"attacker": a, "defender": "p2"}))
            .collect();
        act(
            &env,
            id,
            json!({"type": "declare_attackers", "attackers": attackers}),
        )
    };
    three("three", 3);
    let d = decision(&env, "three");
    assert_eq!(d["kind"], "choose_target", "{d}");
    act(
        &env,
        "three",
        json!({"type": "choose_target", "target": "c5"}),
    );
    resolve_all(&env, "three");
    assert_eq!(counters(&state(&env, "three"), "c5"), 1);
    let r = three("two", 2);
    assert!(
        !events_of(&r).iter().any(|e| e["type"] == "triggered"),
        "{r}"
    );
}

#[test]
fn cr_205_3m_another_angel_entering() {
    let env = TestEnv::new();
    // Youthful Valkyrie c4 and Grizzly Bears c5 in hand; a Valkyrie c6 on the battlefield,
    // two Plains and two Forests.
    game(
        &env,
        "angels",
        "main1",
        &["Youthful Valkyrie", "Grizzly Bears"],
        &["Youthful Valkyrie", "Plains", "Plains", "Forest", "Forest"],
        &[],
    );
    act(&env, "angels", json!({"type": "cast", "card": "c5"}));
    resolve_all(&env, "angels");
    assert_eq!(
        counters(&state(&env, "angels"), "c6"),
        0,
        "a Bear is no Angel"
    );
    act(&env, "angels", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "angels");
    let s = state(&env, "angels");
    assert_eq!(counters(&s, "c6"), 1, "{s}");
    assert_eq!(counters(&s, "c4"), 0, "not for itself: another Angel");
}

#[test]
fn cr_603_4_dwynens_elite_makes_an_elf_only_beside_another_elf() {
    let env = TestEnv::new();
    game(
        &env,
        "elves",
        "main1",
        &["Dwynen's Elite"],
        &["Dwynen's Elite", "Forest", "Forest"],
        &[],
    );
    act(&env, "elves", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "elves");
    assert_eq!(named(&state(&env, "elves"), "Elf Warrior Token").len(), 1);
    game(
        &env,
        "alone",
        "main1",
        &["Dwynen's Elite"],
        &["Forest", "Forest"],
        &[],
    );
    act(&env, "alone", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "alone");
    assert!(named(&state(&env, "alone"), "Elf Warrior Token").is_empty());
}

#[test]
fn cr_205_3m_a_counter_on_target_vampire_you_control_after_an_opponent_lost_life() {
    let env = TestEnv::new();
    // Lightning Bolt c4; Stromkirk Bloodthief c5, a Mountain c6; p2's Grizzly Bears c10.
    game(
        &env,
        "thief",
        "main2",
        &["Lightning Bolt"],
        &["Stromkirk Bloodthief", "Mountain"],
        &["Grizzly Bears"],
    );
    act(
        &env,
        "thief",
        json!({"type": "cast", "card": "c4", "targets": ["p2"]}),
    );
    // With an empty hand the game runs on to the end step, where the ability triggers.
    for _ in 0..5 {
        if decision(&env, "thief")["kind"] != "priority" {
            break;
        }
        act(&env, "thief", json!({"type": "pass"}));
    }
    let d = decision(&env, "thief");
    assert_eq!(d["kind"], "choose_target", "{d}");
    // Only the Vampire is a legal target, not p2's Bears.
    let options = d["options"].to_string();
    assert!(options.contains("c5") && !options.contains("c10"), "{d}");
    act(
        &env,
        "thief",
        json!({"type": "choose_target", "target": "c5"}),
    );
    resolve_all(&env, "thief");
    assert_eq!(counters(&state(&env, "thief"), "c5"), 1);
}

#[test]
fn cr_111_2_stroke_of_midnight_gives_the_token_to_the_destroyed_permanents_controller() {
    let env = TestEnv::new();
    // Stroke of Midnight c4, three Plains c5-c7; p2's Grizzly Bears c11.
    game(
        &env,
        "stroke",
        "main1",
        &["Stroke of Midnight"],
        &["Plains", "Plains", "Plains"],
        &["Grizzly Bears"],
    );
    act(
        &env,
        "stroke",
        json!({"type": "cast", "card": "c4", "targets": ["c11"]}),
    );
    resolve_all(&env, "stroke");
    let s = state(&env, "stroke");
    let humans = named(&s, "Human Token");
    assert_eq!(humans.len(), 1, "{s}");
    assert_eq!(humans[0]["controller"], "p2");
    assert!(on_battlefield(&s, "c11").is_none());
}

#[test]
fn cr_122_1_mossborn_hydra_doubles_its_counters_on_landfall() {
    let env = TestEnv::new();
    // Mossborn Hydra c4 and a Forest c5 in hand; three Forests c6-c8.
    game(
        &env,
        "hydra",
        "main1",
        &["Mossborn Hydra", "Forest"],
        &["Forest", "Forest", "Forest"],
        &[],
    );
    act(&env, "hydra", json!({"type": "cast", "card": "c4"}));
    resolve_all(&env, "hydra");
    assert_eq!(
        counters(&state(&env, "hydra"), "c4"),
        1,
        "it enters with one"
    );
    act(&env, "hydra", json!({"type": "play_land", "card": "c5"}));
    resolve_all(&env, "hydra");
    assert_eq!(counters(&state(&env, "hydra"), "c4"), 2);
}

#[test]
fn cr_608_2h_krenko_counts_the_goblins_as_the_ability_resolves() {
    let env = TestEnv::new();
    // Krenko c4 and a Searslicer Goblin c5: two Goblins, two tokens.
    game(
        &env,
        "krenko",
        "main1",
        &[],
        &["Krenko, Mob Boss", "Searslicer Goblin"],
        &[],
    );
    act(
        &env,
        "krenko",
        json!({"type": "activate", "card": "c4", "ability": 0}),
    );
    resolve_all(&env, "krenko");
    assert_eq!(named(&state(&env, "krenko"), "Goblin Token").len(), 2);
}

#[test]
fn cr_111_10a_a_treasure_pays_one_mana_of_any_color_and_is_sacrificed() {
    let env = TestEnv::new();
    // Lightning Bolt c4, two Shocks c5-c6; Gleaming Barrier c7 and two Mountains c8-c9.
    game(
        &env,
        "treasure",
        "main1",
        &["Lightning Bolt", "Shock", "Shock"],
        &["Gleaming Barrier", "Mountain", "Mountain"],
        &[],
    );
    for spell in ["c4", "c5"] {
        act(
            &env,
            "treasure",
            json!({"type": "cast", "card": spell, "targets": ["c7"]}),
        );
        resolve_all(&env, "treasure");
    }
    let s = state(&env, "treasure");
    let t = named(&s, "Treasure Token");
    assert_eq!(t.len(), 1, "the Barrier died: {s}");
    let id = t[0]["id"].as_str().unwrap().to_string();
    // Both Mountains are tapped: only the Treasure can pay for the second Shock.
    let r = act(
        &env,
        "treasure",
        json!({"type": "cast", "card": "c6", "targets": ["p2"], "tap": [id]}),
    );
    assert!(
        events_of(&r)
            .iter()
            .any(|e| e["type"] == "sacrificed" && e["card"] == id.as_str()),
        "{r}"
    );
    resolve_all(&env, "treasure");
    let s = state(&env, "treasure");
    assert!(named(&s, "Treasure Token").is_empty(), "{s}");
    assert_eq!(life(&s, "p2"), 18);
}
