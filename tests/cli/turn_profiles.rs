//! Issue 24's turn engine through the binary: what a profile plugs into the shared stages
//! (panda Thinking's `plan[]` tool calls in the Tools stage) and TURBOTIME's planning path.

use crate::TestEnv;
use crate::turn::{sandbox, sandboxed_turn, trace};
use serde_json::{Value, json};

fn script(env: &TestEnv, name: &str, lines: &[Value]) -> String {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let path = env.write(name, &text);
    format!("replay:{}", path.display())
}

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
        "plan.jsonl",
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
