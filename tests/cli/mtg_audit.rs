//! `bob mtg` against the rules audit's findings, through the binary: the starting player's
//! skipped first draw step, a stop rule that reads only public information, hidden decisions
//! shown only to their seat, step changes in the journal, what `ask` sends the model, a
//! `--setup` position that says what it skips, and a play loop that journals each decision.

use crate::TestEnv;
use serde_json::{Value, json};

fn setup(env: &TestEnv, id: &str, position: Value) -> Value {
    let p = env.write(&format!("{id}.json"), &position.to_string());
    env.json(
        &["mtg", "new", "--setup", p.to_str().unwrap(), "--game", id],
        "",
    )
}

fn actions_as(env: &TestEnv, id: &str, seat: &str) -> Value {
    env.json(&["mtg", "actions", "--game", id, "--as", seat], "")
}

fn state(env: &TestEnv, id: &str) -> Value {
    env.json(&["mtg", "state", "--game", id, "--as", "all"], "")
}

/// Acts for whoever decides, with the current decision id.
fn act(env: &TestEnv, id: &str, action: Value) -> Value {
    let mut a = action;
    a["decision_id"] = env.json(&["mtg", "actions", "--game", id], "")["decision_id"].clone();
    env.json(&["mtg", "act", "--game", id], &a.to_string())
}

fn events_of(v: &Value) -> Vec<Value> {
    v["events"].as_array().cloned().unwrap_or_default()
}

fn steps_in(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "step")
        .map(|e| e["step"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_starting_player_skips_the_first_draw_step() {
    // CR 103.8a. p1 starts (turn 1 is p1's) and holds a Shock it could cast with its untapped
    // Mountain, which used to give it priority in a draw step it must skip.
    let env = TestEnv::new();
    let out = setup(
        &env,
        "first",
        json!({"active": "p1", "turn": 1, "step": "upkeep",
        "players": {"p1": {"library": ["Mountain", "Mountain"], "hand": ["Shock"],
                           "battlefield": [{"card": "Mountain"}]},
                    "p2": {"library": ["Forest", "Forest"]}}}),
    );
    assert_eq!(out["decision"]["player"], "p1");
    let r = act(&env, "first", json!({"type": "pass"}));
    let s = state(&env, "first");
    assert_eq!(s["turn"], 1);
    assert_eq!(s["step"], "main1", "{r}");
    assert_eq!(s["players"]["p1"]["library_count"], 2, "no draw on turn 1");
    let steps = steps_in(&events_of(&r));
    assert_eq!(
        steps.first().map(String::as_str),
        Some("main1"),
        "{steps:?}"
    );
    assert!(!steps.contains(&"draw".to_string()), "{steps:?}");

    // The other player's first turn has its draw step, entered and drawn.
    let mut all = Vec::new();
    for _ in 0..40 {
        let s = state(&env, "first");
        if s["turn"] == 2 && s["step"] == "main1" {
            break;
        }
        all.extend(events_of(&act(&env, "first", json!({"type": "pass"}))));
    }
    let steps = steps_in(&all);
    assert!(steps.contains(&"draw".to_string()), "{steps:?}");
    assert!(
        all.iter()
            .any(|e| e["type"] == "drew" && e["player"] == "p2")
    );
}

/// A position where p2 holds `p2_card` in hand and the other card in its library: what both
/// players can see (life, board, hand and library counts, card table) is the same.
fn hidden_instant_position(p2_card: &str, other: &str) -> Value {
    json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {
            "p1": {"library": ["Forest", "Forest", "Forest", "Forest"], "hand": ["Hill Giant"]},
            "p2": {"library": [other, "Forest", "Forest", "Forest"], "hand": [p2_card],
                   "battlefield": [{"card": "Mountain"}]}}})
}

/// Who decides what, decision by decision, while both players pass.
fn stop_pattern(env: &TestEnv, id: &str, n: usize) -> Vec<(String, u64, String)> {
    let mut out = Vec::new();
    for _ in 0..n {
        let s = state(env, id);
        out.push((
            s["priority"].as_str().unwrap_or("").to_string(),
            s["turn"].as_u64().unwrap(),
            s["step"].as_str().unwrap().to_string(),
        ));
        act(env, id, json!({"type": "pass"}));
    }
    out
}

#[test]
fn whether_the_engine_stops_for_a_player_does_not_depend_on_its_hand() {
    let env = TestEnv::new();
    setup(
        &env,
        "holds",
        hidden_instant_position("Shock", "Hill Giant"),
    );
    setup(
        &env,
        "bluffs",
        hidden_instant_position("Hill Giant", "Shock"),
    );
    let holds = stop_pattern(&env, "holds", 16);
    let bluffs = stop_pattern(&env, "bluffs", 16);
    assert_eq!(
        holds, bluffs,
        "the stop pattern must be the same whether or not p2 holds a castable instant"
    );
    // And p2 is given the chance to act on p1's turn (it could cast Shock there).
    assert!(
        holds.iter().any(|(p, t, _)| p == "p2" && *t == 3),
        "{holds:?}"
    );
}

#[test]
fn step_changes_are_journal_events_first_strike_damage_included() {
    let env = TestEnv::new();
    setup(
        &env,
        "steps",
        json!({"active": "p1", "turn": 3, "step": "declare_attackers",
        "players": {"p1": {"library": ["Forest", "Forest"], "battlefield": [{"card": "Youthful Knight"}]},
                    "p2": {"library": ["Forest", "Forest"], "battlefield": [{"card": "Grizzly Bears"}]}}}),
    );
    act(
        &env,
        "steps",
        json!({"type": "declare_attackers", "attackers": [{"attacker": "c3", "defender": "p2"}]}),
    );
    let r = act(
        &env,
        "steps",
        json!({"type": "declare_blockers", "blocks": [{"blocker": "c6", "attacker": "c3"}]}),
    );
    let steps = steps_in(&events_of(&r));
    let at = |name: &str| steps.iter().position(|s| s == name);
    assert!(
        at("first_strike_damage").is_some() && at("first_strike_damage") < at("combat_damage"),
        "{steps:?}"
    );
    let journal = env.jsonl(&["mtg", "journal", "--game", "steps"], "");
    let journaled: Vec<Value> = journal.iter().flat_map(events_of).collect();
    let steps = steps_in(&journaled);
    for want in [
        "declare_blockers",
        "first_strike_damage",
        "combat_damage",
        "end_of_combat",
    ] {
        assert!(steps.contains(&want.to_string()), "{want} in {steps:?}");
    }
    assert_eq!(
        env.json(&["mtg", "replay", "--game", "steps"], "")["matches"],
        true
    );
}

#[test]
fn a_setup_position_says_which_turns_and_steps_it_skips() {
    let env = TestEnv::new();
    let out = setup(
        &env,
        "later",
        json!({"active": "p2", "turn": 6, "step": "main1",
        "players": {"p1": {"library": ["Forest"]},
                    "p2": {"library": ["Forest"], "hand": ["Grizzly Bears"],
                           "battlefield": [{"card": "Forest"}, {"card": "Forest"}]}}}),
    );
    let started = events_of(&out)
        .into_iter()
        .find(|e| e["type"] == "started_from_position")
        .unwrap_or_else(|| panic!("no started_from_position event: {out}"));
    assert_eq!(started["turn"], 6);
    assert_eq!(started["turns_skipped"], 5);
    assert_eq!(started["steps_skipped"], json!(["untap", "upkeep", "draw"]));
    let journal = env.jsonl(&["mtg", "journal", "--game", "later"], "");
    assert!(
        events_of(&journal[0])
            .iter()
            .any(|e| e["type"] == "started_from_position" && e["turns_skipped"] == 5)
    );
}

#[test]
fn a_hidden_decisions_options_are_shown_only_to_its_seat_and_name_cards() {
    let env = TestEnv::new();
    // p1 must discard down to seven in its cleanup step: the options are its hand.
    let mut hand = vec!["Shock"; 2];
    hand.extend(["Forest"; 7]);
    let out = setup(
        &env,
        "discard",
        json!({"active": "p1", "turn": 3, "step": "cleanup",
        "players": {"p1": {"library": ["Forest"], "hand": hand},
                    "p2": {"library": ["Forest"]}}}),
    );
    assert_eq!(out["decision"]["kind"], "discard");
    let theirs = actions_as(&env, "discard", "p2");
    assert_eq!(theirs["kind"], "discard");
    assert_eq!(theirs["waiting_for"], "p1");
    assert_eq!(theirs["options"], json!([]));
    assert!(!theirs.to_string().contains("Shock"), "{theirs}");
    let anyone = env.json(&["mtg", "actions", "--game", "discard"], "");
    assert_eq!(anyone["options"], json!([]), "{anyone}");
    assert!(anyone["options_hidden"].is_string());
    assert!(!anyone.to_string().contains("Shock"), "{anyone}");
    let mine = actions_as(&env, "discard", "p1");
    let from = mine["options"][0]["choose_from"].as_array().unwrap();
    assert_eq!(from.len(), 9);
    assert!(
        from.iter()
            .any(|c| c["card"] == "c2" && c["name"] == "Shock"),
        "{mine}"
    );
    // Priority options name their cards too.
    setup(
        &env,
        "named",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest"], "hand": ["Shock", "Mountain"]},
                    "p2": {"library": ["Forest"]}}}),
    );
    let d = actions_as(&env, "named", "p1");
    let opts = d["options"].as_array().unwrap();
    assert!(
        opts.iter()
            .any(|o| o["type"] == "play_land" && o["card"] == "c3" && o["name"] == "Mountain"),
        "{d}"
    );
    // p2 asking about p1's priority decision learns nothing of p1's hand.
    let other = actions_as(&env, "named", "p2");
    assert_eq!(other["options"], json!([]));
    assert_eq!(other["waiting_for"], "p1");
}

#[test]
fn ask_sends_the_askers_view_with_oracle_text_and_recent_events() {
    use crate::support::openai::{OpenAi, all_text};
    let env = TestEnv::new();
    // p1: library c1-c2, hand Shock c3 and Hill Giant c4, Mountain c5 in play; p2: library
    // c6-c7, hand Lightning Bolt c8 (hidden from p1), Grizzly Bears c9 in play.
    setup(
        &env,
        "tutor",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Shock", "Hill Giant"],
                           "battlefield": [{"card": "Mountain"}]},
                    "p2": {"library": ["Forest", "Forest"], "hand": ["Lightning Bolt"],
                           "battlefield": [{"card": "Grizzly Bears"}]}}}),
    );
    let r = act(
        &env,
        "tutor",
        json!({"type": "cast", "card": "c3", "targets": ["c9"]}),
    );
    // Both pass: Shock resolves and the Bears die.
    let mut seen = events_of(&r);
    for _ in 0..2 {
        if seen.iter().any(|e| e["type"] == "died") {
            break;
        }
        seen.extend(events_of(&act(&env, "tutor", json!({"type": "pass"}))));
    }
    assert!(
        seen.iter()
            .any(|e| e["type"] == "died" && e["card"] == "c9"),
        "{seen:?}"
    );
    let srv = OpenAi::always("Cast Hill Giant next turn.");
    let url = srv.base_url();
    let out = env.json(
        &[
            "mtg",
            "ask",
            "--game",
            "tutor",
            "--as",
            "p1",
            "What now?",
            "--base-url",
            &url,
        ],
        "",
    );
    assert_eq!(out["answer"], "Cast Hill Giant next turn.");
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 1);
    let sent = all_text(&reqs[0]);
    // The oracle text of every card p1 can see: its hand, the graveyards, the battlefield.
    for text in [
        "Shock deals 2 damage to any target.",
        "Hill Giant",
        "Grizzly Bears",
        "({T}: Add {R}.)",
    ] {
        assert!(sent.contains(text), "{text:?} not sent: {sent}");
    }
    // The recent events: the Shock cast at the Bears and their death.
    assert!(sent.contains("RECENT EVENTS"), "{sent}");
    assert!(sent.contains(r#""type":"died""#), "{sent}");
    assert!(sent.contains(r#""type":"cast""#), "{sent}");
    // Never p2's hidden hand.
    assert!(!sent.contains("Lightning Bolt"), "{sent}");
    assert!(sent.contains("What now?"));
}

#[test]
fn a_person_plays_a_seat_through_stdin_and_each_answer_is_journaled() {
    let env = TestEnv::new();
    // p1: library c1-c2, hand Forest c3 and Grizzly Bears c4; p2: library c5-c6, hand Shock c7.
    setup(
        &env,
        "person",
        json!({"active": "p1", "turn": 3, "step": "main1",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Forest", "Grizzly Bears"]},
                    "p2": {"library": ["Forest", "Forest"], "hand": ["Shock"]}}}),
    );
    let answers = format!(
        "not an action\n{}\n{}\n",
        json!({"decision_id": "d1", "type": "cast", "card": "c4"}),
        json!({"decision_id": "d1", "type": "play_land", "card": "c3"})
    );
    let out = env
        .bob(&[
            "mtg",
            "play",
            "--game",
            "person",
            "--p1",
            "human",
            "--p2",
            "heuristic",
        ])
        .write_stdin(answers)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Both refused answers are reported; the same decision is asked again each time.
    assert_eq!(stderr.matches("invalid.request").count(), 2, "{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let prompts: Vec<&Value> = lines
        .iter()
        .filter(|l| l.get("decision").is_some())
        .collect();
    assert_eq!(
        prompts.len(),
        4,
        "three asks of d1, one of the next: {stdout}"
    );
    assert!(prompts.iter().all(|p| p["state"]["viewer"] == "p1"));
    assert!(
        !stdout.contains("Shock"),
        "p2's hand is never shown to p1: {stdout}"
    );
    let summary = lines.last().unwrap();
    assert_eq!(summary["decisions_taken"], 1, "{summary}");
    let journal = env.jsonl(&["mtg", "journal", "--game", "person"], "");
    let decisions: Vec<&Value> = journal.iter().filter(|l| l["type"] == "decision").collect();
    assert_eq!(decisions.len(), 1);
    assert_eq!(decisions[0]["action"]["type"], "play_land");
    assert_eq!(decisions[0]["player"], "p1");
    assert_eq!(
        env.json(&["mtg", "replay", "--game", "person"], "")["matches"],
        true
    );
}

#[test]
fn selfplay_counts_its_forced_decisions_apart() {
    let env = TestEnv::new();
    let r = env.json(
        &[
            "mtg",
            "selfplay",
            "--games",
            "20",
            "--deck",
            "green-stompy-60",
            "--deck",
            "izzet-burn-60",
        ],
        "",
    );
    assert_eq!(r["invariant_violations"], 0, "{r}");
    let (all, forced) = (
        r["decisions"].as_u64().unwrap(),
        r["forced_decisions"].as_u64().unwrap(),
    );
    assert!(forced > 0 && forced < all, "{r}");
}
