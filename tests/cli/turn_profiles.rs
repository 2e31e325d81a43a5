//! Issue 24's turn engine through the binary: what a profile plugs into the shared stages
//! (panda Thinking's `plan[]` tool calls in the Tools stage) and TURBOTIME's planning path.

use crate::TestEnv;
use crate::turn::{sandbox, sandboxed_turn, script, trace};
use serde_json::json;

#[test]
fn panda_thinking_plan_calls_run_in_the_tools_stage_under_the_policy_gate() {
    let env = TestEnv::new();
    let root = sandbox(&env);
    std::fs::write(root.join("notes.txt"), "remember the milk").unwrap();
    env.bob(&[
        "tool",
        "enable",
        "--session",
        "pp",
        "fs.read_text",
        "fs.write_text",
    ])
    .assert()
    .success();
    let thinking = json!({
        "plan": [
            "read the user's notes",
            {"id": "k1", "tool": "fs.read_text", "args": {"path": "notes.txt"}},
            // Changes something: refused in the Tools stage, never runs.
            {"id": "k2", "tool": "fs.write_text", "args": {"path": "pwned.txt", "text": "x"}},
            // Not enabled for the session: the policy fails it, it never runs.
            {"id": "k3", "tool": "fs.list_dir", "args": {"path": "."}},
            "answer from them"
        ],
        "notes": {"facts": [], "open_qs": [], "decisions": [], "todos": []}
    });
    let solver = json!({"analysis": "", "requests": [], "tool_intent": null,
        "needs_more_context": false, "final": "Your notes say: remember the milk."});
    let spec = script(
        &env,
        &[
            json!({"role": "thinking", "content": thinking.to_string()}),
            // Used only when the Solver's request carries the result the plan's call fetched.
            json!({"role": "solver", "match": "remember the milk", "content": solver.to_string()}),
        ],
    );
    let rec = sandboxed_turn(
        &env,
        &root,
        &["--profile", "panda", "--backend", &spec, "--session", "pp"],
        "what do my notes say?",
    );
    assert_eq!(rec["status"], "completed", "{rec}");
    assert_eq!(rec["output"], "Your notes say: remember the milk.");
    let tools = rec["tools"].as_array().unwrap();
    let by = |name: &str| {
        tools
            .iter()
            .find(|t| t["tool_name"] == name)
            .unwrap_or_else(|| panic!("{name} in {rec}"))
    };
    assert_eq!(by("fs.read_text")["status"], "ok", "{rec}");
    assert_eq!(by("fs.write_text")["status"], "refused", "{rec}");
    assert_eq!(by("fs.write_text")["error"]["code"], "policy.denied");
    assert_eq!(by("fs.list_dir")["status"], "error", "{rec}");
    assert!(!root.join("pwned.txt").exists());
    // The stage is the shared one: traced as THINK's is, and audited by the same runner.
    assert!(trace(&env, "pp").iter().any(|e| e["kind"] == "tool_plan"
        && e["data"]["role"] == "thinking"
        && e["data"]["stage"] == "tools"));
}

#[test]
fn turbotime_on_runs_the_planning_path_goal_plan_tools_answer() {
    let env = TestEnv::new();
    let root = sandbox(&env);
    std::fs::write(root.join("deck.txt"), "4 Lightning Bolt").unwrap();
    env.bob(&["tool", "enable", "--session", "tt", "fs.read_text"])
        .assert()
        .success();
    env.json(
        &[
            "tool",
            "turbotime",
            "on",
            "--session",
            "tt",
            "--select",
            "news.headline_search",
        ],
        "",
    );
    let spec = script(
        &env,
        &[
            json!({"role": "goal", "content": "Goal: tell the user how many bolts the deck runs."}),
            // The plan's read-only request runs in the Tools stage, before the answer.
            json!({"role": "plan", "match": "Goal: tell the user", "content": "1. read the deck <<<TOOL_CALLS_JSON>>>[{\"id\":\"r1\",\"tool\":\"fs.read_text\",\"args\":{\"path\":\"deck.txt\"}}]<<<END_TOOL_CALLS_JSON>>>"}),
            // Used only when the answer's request carries the goal, the plan and the result.
            json!({"role": "answer", "match": "4 Lightning Bolt", "content": "Your deck runs 4 Lightning Bolt."}),
        ],
    );
    let rec = sandboxed_turn(
        &env,
        &root,
        &["--backend", &spec, "--session", "tt"],
        "how many bolts do I run?",
    );
    assert_eq!(rec["status"], "completed", "{rec}");
    assert_eq!(rec["profile"], "bob");
    assert_eq!(rec["output"], "Your deck runs 4 Lightning Bolt.");
    assert_eq!(rec["tools"][0]["tool_name"], "fs.read_text");
    assert_eq!(rec["tools"][0]["status"], "ok", "{rec}");
    assert_eq!(rec["turbotime"]["on"], true);
    let events = trace(&env, "tt");
    let roles: Vec<&str> = events
        .iter()
        .filter(|e| e["kind"] == "llm_req")
        .map(|e| e["data"]["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["goal", "plan", "answer"]);
    let path = events.iter().find(|e| e["kind"] == "turbotime").unwrap();
    assert_eq!(path["data"]["path"], "planning");
    assert!(events.iter().any(|e| e["kind"] == "tool_plan"
        && e["data"]["role"] == "plan"
        && e["data"]["stage"] == "tools"));

    // Off again: the profile's own roles.
    env.json(&["tool", "turbotime", "off", "--session", "tt"], "");
    let spec = script(
        &env,
        &[
            json!({"role": "think", "content": "ok"}),
            json!({"role": "respond", "content": "Four."}),
        ],
    );
    let rec = sandboxed_turn(
        &env,
        &root,
        &["--backend", &spec, "--session", "tt"],
        "and again?",
    );
    assert_eq!(rec["output"], "Four.");
    assert!(rec["turbotime"].is_null(), "{rec}");
}

#[test]
fn with_turbotime_on_context_and_turn_commit_know_the_planning_path_roles() {
    let env = TestEnv::new();
    env.bob(&["tool", "enable", "--session", "tc", "fs.read_text"])
        .assert()
        .success();
    let input = json!({"session_id": "tc", "message": "plan my deck"}).to_string();
    // Off: the planning path's roles are no roles of the profile.
    let out = env
        .bob(&["context", "--session", "tc", "--role", "plan"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    env.json(
        &[
            "tool",
            "turbotime",
            "on",
            "--session",
            "tc",
            "--select",
            "scryfall.lookup",
        ],
        "",
    );
    // On: `bob context` builds the plan role's request, with the read-only tools it may ask for.
    let req = env.json(&["context", "--session", "tc", "--role", "plan"], &input);
    let system = req["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("PLAN stage"), "{system}");
    assert!(system.contains("fs.read_text"), "{system}");
    assert!(system.contains("scryfall.lookup"), "{system}");
    // `bob turn commit` takes the path's replies and commits the answer.
    let reply = |text: &str| json!({"role": "assistant", "content": text});
    let commit = json!({"session_id": "tc", "message": "plan my deck", "replies": [
        {"role": "goal", "message": reply("Goal: a deck plan.")},
        {"role": "plan", "message": reply("1. list the cards")},
        {"role": "answer", "message": reply("Start from your 4 Lightning Bolt.")},
    ], "tool_results": []});
    let rec = env.json(&["turn", "commit", "--session", "tc"], &commit.to_string());
    assert_eq!(rec["status"], "completed", "{rec}");
    assert_eq!(rec["output"], "Start from your 4 Lightning Bolt.");
    // The last reply must still be the final role's.
    let bad = json!({"session_id": "tc", "message": "plan my deck", "replies": [
        {"role": "plan", "message": reply("1. list the cards")},
    ], "tool_results": []});
    env.fails(
        &["turn", "commit", "--session", "tc"],
        &bad.to_string(),
        2,
        "invalid.request",
    );
}

#[test]
fn turn_commit_records_panda_thinking_plan_calls_with_their_results() {
    let env = TestEnv::new();
    let thinking = json!({
        "plan": [
            {"id": "k1", "tool": "fs.read_text", "args": {"path": "notes.txt"}},
            {"id": "k2", "tool": "fs.write_text", "args": {"path": "pwned.txt", "text": "x"}}
        ],
        "notes": {"facts": [], "open_qs": [], "decisions": [], "todos": []}
    });
    let solver = json!({"analysis": "", "requests": [], "tool_intent": null,
        "needs_more_context": false, "final": "Your notes say: remember the milk."});
    let reply = |text: String| json!({"role": "assistant", "content": text});
    let commit = json!({"session_id": "pc", "message": "what do my notes say?", "replies": [
        {"role": "thinking", "message": reply(thinking.to_string())},
        {"role": "solver", "message": reply(solver.to_string())},
    ], "tool_results": [
        {"request_id": "k1", "run_id": "run_x", "tool": "fs.read_text", "ok": true,
         "output": {"text": "remember the milk"}, "error": null, "duration_ms": 1,
         "finished_at": "2026-01-01T00:00:00Z"}
    ]});
    let rec = env.json(
        &["turn", "commit", "--session", "pc", "--profile", "panda"],
        &commit.to_string(),
    );
    assert_eq!(rec["status"], "completed", "{rec}");
    let tools = rec["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "{rec}");
    assert_eq!(tools[0]["tool_name"], "fs.read_text");
    assert_eq!(tools[0]["status"], "ok", "{rec}");
    // The plan's changing call is refused in the record, as `bob turn` refuses it.
    assert_eq!(tools[1]["tool_name"], "fs.write_text");
    assert_eq!(tools[1]["status"], "refused", "{rec}");
}

#[test]
fn context_labels_plain_upstream_with_the_planning_paths_previous_role() {
    let env = TestEnv::new();
    let input = json!({"session_id": "tl", "message": "plan my deck"}).to_string();
    let upstream = env.path("plan.txt");
    std::fs::write(&upstream, "1. list the cards").unwrap();
    let up = upstream.to_str().unwrap();
    env.json(
        &[
            "tool",
            "turbotime",
            "on",
            "--session",
            "tl",
            "--select",
            "scryfall.lookup",
        ],
        "",
    );
    let req = env.json(
        &[
            "context",
            "--session",
            "tl",
            "--role",
            "answer",
            "--upstream",
            up,
        ],
        &input,
    );
    let all: String = req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(all.contains("[plan]\n1. list the cards"), "{all}");
}
