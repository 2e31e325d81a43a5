//! Issue 12's turn promises, through the binary: honest outcomes, Bob v0's complete turn
//! (THINK's tools, short-term memory in the working context, compact continuity), tool history
//! under Openclawssy, byte-reproducible replays and the stage-by-stage commit.

use crate::TestEnv;
use crate::support::http::{Reply, Request};
use crate::support::openai::{OpenAi, completion, role_of, tool_calls};
use crate::turn::{checkpoint, read_jsonl, sandbox, sandboxed_turn, trace};
use serde_json::{Value, json};
use std::path::Path;

fn script(env: &TestEnv, name: &str, lines: &[Value]) -> String {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    env.write(name, &text);
    // Relative to the test's working directory, so two homes describe the same backend.
    format!("replay:{name}")
}

#[test]
fn an_escalated_turn_is_incomplete_in_the_scheduler_result_too() {
    let env = TestEnv::new();
    let bad = |id: &str| json!({"id": id, "tool": "no.such_tool", "args": {}});
    let spec = script(
        &env,
        "esc.jsonl",
        &[
            json!({"role":"think","content":"ok"}),
            json!({"role":"respond","content":"","tool_calls":[bad("a"), bad("b")]}),
            json!({"role":"respond","content":"","tool_calls":[bad("c"), bad("d"), bad("e")]}),
        ],
    );
    let job = json!({"id":"j1","schedule":"@every 1h","message":"do it","session":"sj"});
    env.bob(&["schedule", "add"])
        .write_stdin(job.to_string())
        .assert()
        .success();
    let out = env
        .bob(&["schedule", "run", "j1"])
        .env("BOB_BACKEND", &spec)
        .output()
        .unwrap();
    let run: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    if run.is_null() {
        panic!("no run record: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(out.status.code(), Some(7), "{run}");
    assert_eq!(run["status"], "incomplete", "{run}");
    assert_eq!(run["turn_status"], "incomplete");
    assert_eq!(run["exit_code"], 7);
    assert_eq!(run["error"]["code"], "turn.incomplete");
}

#[test]
fn think_tool_requests_run_before_respond_and_their_results_reach_it() {
    let env = TestEnv::new();
    let root = sandbox(&env);
    std::fs::write(root.join("notes.txt"), "remember the milk").unwrap();
    env.bob(&["tool", "enable", "--session", "t1", "fs.read_text"])
        .assert()
        .success();
    let spec = script(
        &env,
        "think-tools.jsonl",
        &[
            json!({"role":"think","content":"Need the notes. <<<TOOL_CALLS_JSON>>>[{\"id\":\"k1\",\"tool\":\"fs.read_text\",\"args\":{\"path\":\"notes.txt\"}}]<<<END_TOOL_CALLS_JSON>>>"}),
            // Used only when RESPOND's request carries the result THINK's stage fetched.
            json!({"role":"respond","match":"remember the milk","content":"Your notes say: remember the milk."}),
        ],
    );
    let rec = sandboxed_turn(
        &env,
        &root,
        &["--backend", &spec, "--session", "t1"],
        "what do my notes say?",
    );
    assert_eq!(rec["status"], "completed", "{rec}");
    assert_eq!(rec["output"], "Your notes say: remember the milk.");
    assert_eq!(rec["tools"][0]["tool_name"], "fs.read_text");
    assert_eq!(rec["tools"][0]["status"], "ok");
    // Same runner as the final role: traced and audited.
    let tr = trace(&env, "t1");
    assert!(tr.iter().any(|e| e["kind"] == "tool_plan"
        && e["data"]["stage"] == "tools"
        && e["data"]["role"] == "think"));
    assert!(
        tr.iter()
            .any(|e| e["kind"] == "tool_done" && e["data"]["id"] == "call_1")
    );
    let day = env.home().join("audit/agent_default/2026-02-15.jsonl");
    let audit = read_jsonl(day);
    assert!(
        audit
            .iter()
            .any(|e| e["event_type"] == "tool.result" && e["payload"]["request_id"] == "call_1")
    );
    // Without the feature the respond line would never match and the turn would fail.
}

#[test]
fn stm_joins_the_working_context_is_touched_and_promotion_fires_across_sessions() {
    let env = TestEnv::new();
    let first = script(
        &env,
        "first.jsonl",
        &[
            json!({"role":"think","content":"A preference."}),
            json!({"role":"respond","content":"Noted: oolong it is."}),
        ],
    );
    let rec = env.json(
        &[
            "turn",
            "--backend",
            &first,
            "--session",
            "s1",
            "--user",
            "ann",
        ],
        "My favourite tea is oolong.",
    );
    assert_eq!(rec["status"], "completed");
    let stm = env.jsonl(&["memory", "stm", "list", "--user", "ann"], "");
    assert_eq!(stm.len(), 1);
    let id = stm[0]["id"].as_str().unwrap().to_string();
    // Three later turns in three other sessions mention oolong: each THINK request carries the
    // entry in the SHORT_TERM_MEMORY block (the scripted reply matches only then), marked
    // non-authoritative, and each turn touches it.
    for s in ["s2", "s3", "s4"] {
        let spec = script(
            &env,
            &format!("{s}.jsonl"),
            &[
                json!({"role":"think","match":"Non-authoritative trace of recent turns","content":"Recall the tea."}),
                json!({"role":"respond","content":"You like oolong."}),
            ],
        );
        let rec = env.json(
            &["turn", "--backend", &spec, "--session", s, "--user", "ann"],
            "Which oolong should I brew today?",
        );
        assert_eq!(rec["status"], "completed", "{rec}");
        let ev = trace(&env, s)
            .into_iter()
            .find(|e| e["kind"] == "stm_context")
            .expect("stm_context traced");
        assert!(
            ev["data"]["entries"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["id"] == id.as_str())
        );
    }
    let all = env.jsonl(&["memory", "stm", "list", "--user", "ann"], "");
    let e = all.iter().find(|e| e["id"] == id.as_str()).unwrap();
    assert_eq!(e["access_count"], 3, "{e}");
    assert_eq!(e["sessions_seen"], json!(["s1", "s2", "s3", "s4"]));
    // Bob v0: access_count >= 3 and sessions_seen >= 2, so promotion fires.
    let promoted = env.jsonl(&["memory", "promote", "--user", "ann"], "");
    assert!(
        promoted.iter().any(|p| p.to_string().contains(id.as_str())),
        "{promoted:?}"
    );
    let cands = env.jsonl(&["memory", "candidates", "--user", "ann"], "");
    assert!(
        cands
            .iter()
            .any(|c| c.to_string().contains("stm_promotion")),
        "{cands:?}"
    );
}

#[test]
fn every_turn_updates_active_context_and_open_threads_compactly() {
    let env = TestEnv::new();
    // No NOTES: the deterministic fallback.
    let spec = script(
        &env,
        "plain.jsonl",
        &[
            json!({"role":"think","content":"Simple."}),
            json!({"role":"respond","content":"Paris is the capital of France."}),
        ],
    );
    env.json(
        &["turn", "--backend", &spec, "--session", "c1"],
        "What is the capital\nof France?",
    );
    let st = &checkpoint(&env, "c1")["state"];
    assert_eq!(
        st["episode_summary"],
        "Last turn: What is the capital of France? → Paris is the capital of France."
    );
    let ev = trace(&env, "c1")
        .into_iter()
        .find(|e| e["kind"] == "continuity")
        .unwrap();
    assert_eq!(ev["data"]["source"], "fallback");
    // The model's NOTES win, and an incomplete turn leaves its request as an open thread.
    let spec = script(
        &env,
        "notes.jsonl",
        &[
            json!({"role":"think","content":"<<<NOTES_JSON>>>{\"set_episode_summary\":\"Planning a trip to Paris\",\"add_open_loops\":[\"book a hotel\"]}<<<END_NOTES_JSON>>>"}),
            json!({"role":"respond","content":"Let's plan it."}),
        ],
    );
    env.json(
        &["turn", "--backend", &spec, "--session", "c1"],
        "Help me plan a trip to Paris",
    );
    let st = &checkpoint(&env, "c1")["state"];
    assert_eq!(st["episode_summary"], "Planning a trip to Paris");
    assert_eq!(st["open_loops"], json!(["book a hotel"]));
    assert_eq!(
        state_json(&env, "c1"),
        json!({"active_context": "Planning a trip to Paris", "open_threads": ["book a hotel"]})
    );
    let call = json!({"role":"respond","content":"","tool_calls":[{"id":"x","tool":"fs.list_dir","args":{}}]});
    let spec = script(
        &env,
        "loop.jsonl",
        &[json!({"role":"think","content":"ok"}), call.clone(), call],
    );
    env.bob(&[
        "turn",
        "--backend",
        &spec,
        "--session",
        "c1",
        "--max-tool-rounds",
        "1",
    ])
    .write_stdin("list the files")
    .assert()
    .code(7);
    let st = &checkpoint(&env, "c1")["state"];
    assert_eq!(
        st["open_loops"],
        json!(["book a hotel", "unfinished: list the files"])
    );
    assert!(
        st["episode_summary"]
            .as_str()
            .unwrap()
            .starts_with("Last turn: list the files → ")
    );
    // state.json follows every turn, an incomplete one too.
    assert_eq!(
        state_json(&env, "c1"),
        json!({"active_context": st["episode_summary"], "open_threads": st["open_loops"]})
    );
}

/// `sessions/<id>/state.json`: Bob v0's compact state.
fn state_json(env: &TestEnv, session: &str) -> Value {
    let path = env.home().join("sessions").join(session).join("state.json");
    serde_json::from_slice(&std::fs::read(&path).expect("state.json after the turn")).unwrap()
}

#[test]
fn state_json_holds_the_compact_state_after_every_turn_redacted() {
    let env = TestEnv::new();
    let secret = "sk-proj-CNRYopenai0123456789abcdefXYZ";
    let spec = script(
        &env,
        "first.jsonl",
        &[
            json!({"role":"think","content":"Simple."}),
            json!({"role":"respond","content":"Paris is the capital of France."}),
        ],
    );
    env.json(
        &["turn", "--backend", &spec, "--session", "sj1"],
        "What is the capital of France?",
    );
    let first = state_json(&env, "sj1");
    assert_eq!(
        first,
        json!({"active_context": "Last turn: What is the capital of France? → Paris is the capital of France.",
               "open_threads": []})
    );
    // The next turn replaces it; a secret the model put in its NOTES is masked on disk.
    let notes = format!(
        "<<<NOTES_JSON>>>{{\"set_episode_summary\":\"Rotating the key {secret}\",\"add_open_loops\":[\"revoke {secret}\"]}}<<<END_NOTES_JSON>>>"
    );
    let spec = script(
        &env,
        "second.jsonl",
        &[
            json!({"role":"think","content": notes}),
            json!({"role":"respond","content":"Done."}),
        ],
    );
    env.json(
        &["turn", "--backend", &spec, "--session", "sj1"],
        "rotate my key",
    );
    let raw = std::fs::read_to_string(env.home().join("sessions/sj1/state.json")).unwrap();
    assert!(!raw.contains(secret), "{raw}");
    let v = state_json(&env, "sj1");
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["active_context", "open_threads"]);
    assert!(
        v["active_context"]
            .as_str()
            .unwrap()
            .starts_with("Rotating the key "),
        "{v}"
    );
    assert_eq!(v["open_threads"].as_array().unwrap().len(), 1, "{v}");
    // No temporary file is left next to it (written atomically).
    let names: Vec<String> = std::fs::read_dir(env.home().join("sessions/sj1"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("state"))
        .collect();
    assert_eq!(names, ["state.json"], "{names:?}");
}

#[test]
fn tool_results_are_capped_within_the_turn_and_kept_condensed_in_history() {
    let env = TestEnv::new();
    let root = sandbox(&env);
    let big: String = (0..15_141)
        .map(|i| (b'a' + (i % 26) as u8) as char)
        .collect();
    std::fs::write(root.join("big.txt"), &big).unwrap();
    env.bob(&["tool", "enable", "--session", "h1", "fs.read_text"])
        .assert()
        .success();
    let srv = OpenAi::start(|req: &Request, _| {
        let msgs = req.json()["messages"].as_array().unwrap().clone();
        match role_of(req).as_str() {
            "think" => Reply::json(200, &completion("Read it.")),
            _ if msgs.iter().any(|m| m["role"] == "tool") => {
                Reply::json(200, &completion("It is the alphabet, repeated."))
            }
            _ => Reply::json(
                200,
                &tool_calls(&[("r1", "fs.read_text", "{\"path\":\"big.txt\"}")]),
            ),
        }
    });
    let url = srv.base_url();
    let rec = sandboxed_turn(
        &env,
        &root,
        &["--base-url", &url, "--session", "h1"],
        "what is in big.txt?",
    );
    assert_eq!(rec["status"], "completed", "{rec}");
    // Within the turn: the 15,141-char result went back cut, with its size and reference.
    let reqs = srv.requests();
    let tool_msg = reqs
        .iter()
        .flat_map(|r| r.json()["messages"].as_array().unwrap().clone())
        .find(|m| m["role"] == "tool")
        .expect("a tool message went back");
    let content = tool_msg["content"].as_str().unwrap();
    assert!(content.chars().count() < 5_000, "{}", content.len());
    assert!(!content.contains(&big));
    let v: Value = serde_json::from_str(content).unwrap();
    assert_eq!(v["output"]["truncated"], true);
    assert!(v["output"]["chars"].as_u64().unwrap() > 15_141);
    // In history: a role "tool" message between the request and the answer, condensed.
    let msgs = checkpoint(&env, "h1")["recent_messages"].clone();
    let roles: Vec<&str> = msgs
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "tool", "assistant"]);
    let t = &msgs[1];
    assert_eq!(t["name"], "fs.read_text");
    // Ids are bob's: the model's `r1` is the turn's first call.
    assert_eq!(t["tool_call_id"], "call_1");
    let text = t["content"].as_str().unwrap();
    assert!(
        text.starts_with("tool fs.read_text result (call_1)\nstatus: ok"),
        "{text}"
    );
    assert!(text.chars().count() <= 1400, "{}", text.chars().count());
    // The next turn replays it, condensed, in HISTORY_JSON.
    let rec = sandboxed_turn(
        &env,
        &root,
        &["--base-url", &url, "--session", "h1"],
        "and again?",
    );
    assert_eq!(rec["status"], "completed");
    let reqs = srv.requests();
    let last_think = reqs.iter().rfind(|r| role_of(r) == "think").unwrap().json();
    let data = last_think["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(data.contains("tool fs.read_text result (call_1)"), "{data}");
    assert!(!data.contains(&big[..2000]));
}

/// Every file under `dir`, relative path → bytes.
fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    crate::support::files_under(dir)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            (rel, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Runs the same replay turn with --seed in `env`; its stdout.
fn seeded_turn(env: &TestEnv, seed: &str) -> Vec<u8> {
    std::fs::create_dir_all(env.path("sandbox")).unwrap();
    std::fs::write(env.path("sandbox/notes.txt"), "remember the milk").unwrap();
    let spec = script(
        env,
        "replay.jsonl",
        &[
            json!({"role":"think","content":"Read the notes. <<<NOTES_JSON>>>{\"add_open_loops\":[\"buy milk?\"]}<<<END_NOTES_JSON>>><<<MEMORY_CANDIDATES_JSON>>>[{\"text\":\"User keeps notes in notes.txt\",\"type\":\"fact\",\"tags\":[\"notes\"],\"ttl_days\":null,\"source\":\"user_said\",\"why_store\":\"where notes live\"}]<<<END_MEMORY_CANDIDATES_JSON>>>"}),
            json!({"role":"respond","content":"","tool_calls":[{"id":"t1","tool":"fs.read_text","args":{"path":"notes.txt"}}]}),
            json!({"role":"respond","content":"Your notes say: remember the milk."}),
        ],
    );
    let out = env
        .bob(&[
            "turn",
            "--backend",
            &spec,
            "--session",
            "r1",
            "--user",
            "ann",
            "--seed",
            seed,
        ])
        .env("BOB_TOOL_SANDBOX_ENABLED", "1")
        .env("BOB_TOOL_ROOTS", "sandbox")
        .write_stdin("what is in my notes?")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Two homes that start alike (the same per-home key that keys the hash chains), with `tools`
/// enabled for `session`, to run the same turn on their own.
fn twin_homes(session: &str, tools: &[&str]) -> (TestEnv, TestEnv) {
    let (a, b) = (TestEnv::new(), TestEnv::new());
    a.bob(&["init"]).assert().success();
    let mut enable = vec!["tool", "enable", "--session", session];
    enable.extend_from_slice(tools);
    a.bob(&enable).assert().success();
    // Any audited act creates the home's key (here a tool call, refused or not).
    a.bob(&["tool", "run", "--session", session])
        .write_stdin(r#"{"id":"k","tool":"fs.list_dir","args":{}}"#)
        .output()
        .unwrap();
    assert!(a.home().join("keys").exists());
    crate::support::copy_dir(&a.home(), &b.home());
    (a, b)
}

#[test]
fn a_seeded_replay_turn_is_byte_identical_across_runs_and_homes() {
    let (a, b) = twin_homes("r1", &["fs.read_text"]);
    let out_a = seeded_turn(&a, "42");
    let out_b = seeded_turn(&b, "42");
    assert_eq!(
        String::from_utf8_lossy(&out_a),
        String::from_utf8_lossy(&out_b)
    );
    let rec: Value = serde_json::from_slice(&out_a).unwrap();
    assert_eq!(rec["status"], "completed", "{rec}");
    assert_eq!(rec["memory_candidates"].as_array().unwrap().len(), 1);
    assert_eq!(rec["tools"][0]["status"], "ok");
    let (fa, fb) = (files(&a.home()), files(&b.home()));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    let differ: Vec<&String> = fa.keys().filter(|k| fa[*k] != fb[*k]).collect();
    assert!(differ.is_empty(), "files differ: {differ:?}");
    // Another seed draws other ids.
    let c = TestEnv::new();
    crate::support::copy_dir(&a.home(), &c.home());
    let _ = std::fs::remove_dir_all(c.home().join("runs"));
    let other: Value = serde_json::from_slice(&seeded_turn(&c, "43")).unwrap();
    assert_ne!(other["run_id"], rec["run_id"]);
}

/// A seeded panda turn in chat mode whose Solver stages a mutating intent (a confirm id) and
/// asks for a search (a search request id): its stdout.
fn seeded_panda_turn(env: &TestEnv) -> Vec<u8> {
    std::fs::create_dir_all(env.path("sandbox")).unwrap();
    std::fs::write(
        env.path("sandbox/a.html"),
        "<html><body><p>Frames.</p></body></html>",
    )
    .unwrap();
    let write = json!({"analysis": "", "final": "",
        "requests": [{"type": "search_request", "queries": ["a.html"], "fetch_mode": "file"}],
        "tool_intent": {"action": "docs.write_spreadsheet",
            "payload": {"rows": [{"part": "Frame", "quantity": 1}], "filename": "bom", "format": "csv"}}});
    let done = json!({"analysis": "", "final": "Confirm it to write the sheet."});
    let spec = script(
        env,
        "panda.jsonl",
        &[
            json!({"role": "thinking", "content": "{\"plan\": [\"write\"]}"}),
            json!({"role": "solver", "content": write.to_string()}),
            json!({"role": "solver", "content": done.to_string()}),
        ],
    );
    staged(
        env,
        &[
            "turn",
            "--profile",
            "panda",
            "--mode",
            "chat",
            "--session",
            "p1",
            "--backend",
            &spec,
            "--seed",
            "11",
        ],
        "make the BOM sheet",
    )
    .into_bytes()
}

#[test]
fn two_seeded_panda_turns_are_byte_identical_confirm_and_search_ids_included() {
    let (a, b) = twin_homes("p1", &["docs.write_spreadsheet", "web.search"]);
    let (out_a, out_b) = (seeded_panda_turn(&a), seeded_panda_turn(&b));
    assert_eq!(
        String::from_utf8_lossy(&out_a),
        String::from_utf8_lossy(&out_b)
    );
    let rec: Value = serde_json::from_slice(&out_a).unwrap();
    let tools = rec["tools"].as_array().unwrap();
    let staged_one = tools
        .iter()
        .find(|t| t["status"] == "requires_confirm")
        .unwrap_or_else(|| panic!("{rec}"));
    assert!(
        staged_one["result_ref"]
            .as_str()
            .unwrap()
            .starts_with("confirm:confirm_"),
        "{rec}"
    );
    assert!(
        tools.iter().any(|t| t["tool_name"] == "web.search"),
        "{rec}"
    );
    let (fa, fb) = (files(&a.home()), files(&b.home()));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    let differ: Vec<&String> = fa.keys().filter(|k| fa[*k] != fb[*k]).collect();
    assert!(differ.is_empty(), "files differ: {differ:?}");
    // The search call's id is bob's, like every call's of a turn (it is in the trace).
    let traced = String::from_utf8_lossy(&fa["traces/p1.jsonl"]).to_string();
    assert!(
        regex::Regex::new(r#""id":"call_\d+","tool":"web.search""#)
            .unwrap()
            .is_match(&traced),
        "{traced}"
    );
    // The staged intent is confirmed by that id.
    let id = staged_one["result_ref"]
        .as_str()
        .unwrap()
        .strip_prefix("confirm:")
        .unwrap();
    let r = b
        .bob(&["tool", "confirm", id, "--session", "p1"])
        .env("BOB_TOOL_SANDBOX_ENABLED", "1")
        .env("BOB_TOOL_ROOTS", "sandbox")
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(b.path("sandbox/bom.csv").exists());
}

/// `bob ARGS` in `env` with the sandbox on `./sandbox`, stdin; expects success; stdout.
fn staged(env: &TestEnv, args: &[&str], stdin: &str) -> String {
    let out = env
        .bob(args)
        .env("BOB_TOOL_SANDBOX_ENABLED", "1")
        .env("BOB_TOOL_ROOTS", "sandbox")
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bob {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_stage_by_stage_pipeline_with_turn_commit_leaves_the_home_bob_turn_leaves() {
    let lines = [
        json!({"role":"think","content":"Read the notes. <<<NOTES_JSON>>>{\"add_open_loops\":[\"buy milk?\"]}<<<END_NOTES_JSON>>><<<MEMORY_CANDIDATES_JSON>>>[{\"text\":\"User keeps notes in notes.txt\",\"type\":\"fact\",\"tags\":[\"notes\"],\"ttl_days\":null,\"source\":\"user_said\",\"why_store\":\"where notes live\"}]<<<END_MEMORY_CANDIDATES_JSON>>>"}),
        // Listed first: used once a respond request carries the tool's result.
        json!({"role":"respond","match":"remember the milk","content":"Your notes say: remember the milk."}),
        json!({"role":"respond","content":"","tool_calls":[{"id":"t1","tool":"fs.read_text","args":{"path":"notes.txt"}}]}),
    ];
    let msg = "what is in my notes?";
    let a = TestEnv::new();
    let b = TestEnv::new();
    // Both homes start alike: an earlier exchange (so short-term memory has an entry to show),
    // the tool enabled, the same key.
    {
        let env = &a;
        std::fs::create_dir_all(env.path("sandbox")).unwrap();
        env.bob(&["tool", "enable", "--session", "r1", "fs.read_text"])
            .assert()
            .success();
        let first = script(
            env,
            "first.jsonl",
            &[
                json!({"role":"think","content":"ok"}),
                json!({"role":"respond","content":"I will keep my notes in notes.txt."}),
            ],
        );
        staged(
            env,
            &[
                "turn",
                "--backend",
                &first,
                "--session",
                "r1",
                "--seed",
                "1",
            ],
            "I keep my notes in notes.txt",
        );
    }
    crate::support::copy_dir(&a.home(), &b.home());
    for env in [&a, &b] {
        std::fs::create_dir_all(env.path("sandbox")).unwrap();
        std::fs::write(env.path("sandbox/notes.txt"), "remember the milk").unwrap();
        script(env, "replay.jsonl", &lines);
    }
    let spec = "replay:replay.jsonl";
    // A: the whole turn.
    let rec_a = staged(
        &a,
        &["turn", "--backend", spec, "--session", "r1", "--seed", "5"],
        msg,
    );
    // B: the stage-by-stage pipeline of docs/turn.md, then `bob turn commit`.
    let input = json!({"session_id": "r1", "message": msg}).to_string();
    let think_req = staged(
        &b,
        &["context", "--session", "r1", "--role", "think"],
        &input,
    );
    let think: Value = serde_json::from_str(&staged(
        &b,
        &["chat", "--backend", spec, "--role", "think"],
        &think_req,
    ))
    .unwrap();
    let upstream = json!([{"role": "think", "content": think["message"]["content"]}]);
    b.write("upstream.json", &upstream.to_string());
    let respond_req = staged(
        &b,
        &[
            "context",
            "--session",
            "r1",
            "--role",
            "respond",
            "--upstream",
            "upstream.json",
        ],
        &input,
    );
    let r0: Value = serde_json::from_str(&staged(
        &b,
        &["chat", "--backend", spec, "--role", "respond"],
        &respond_req,
    ))
    .unwrap();
    let results: Vec<Value> = staged(
        &b,
        &["tool", "run", "--session", "r1"],
        &r0["message"].to_string(),
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    assert_eq!(results[0]["ok"], true, "{results:?}");
    let mut req1: Value = serde_json::from_str(&respond_req).unwrap();
    let msgs = req1["messages"].as_array_mut().unwrap();
    msgs.push(r0["message"].clone());
    for r in &results {
        msgs.push(json!({"role": "tool", "tool_call_id": r["request_id"],
            "content": json!({"id": r["request_id"], "tool": r["tool"], "ok": r["ok"],
                              "output": r["output"], "error": r["error"]}).to_string()}));
    }
    let r1: Value = serde_json::from_str(&staged(
        &b,
        &["chat", "--backend", spec, "--role", "respond"],
        &req1.to_string(),
    ))
    .unwrap();
    let commit = json!({"session_id": "r1", "message": msg, "replies": [
        {"role": "think", "message": think["message"], "usage": think["usage"]},
        {"role": "respond", "message": r0["message"], "usage": r0["usage"]},
        {"role": "respond", "message": r1["message"], "usage": r1["usage"]},
    ], "tool_results": results});
    let rec_b = staged(&b, &["turn", "commit", "--seed", "5"], &commit.to_string());
    // The same record, byte for byte (run id, ids, usage, tools, notes, revision).
    assert_eq!(rec_a, rec_b);
    let rec: Value = serde_json::from_str(&rec_a).unwrap();
    assert_eq!(rec["status"], "completed");
    assert_eq!(rec["output"], "Your notes say: remember the milk.");
    assert_eq!(rec["memory_candidates"].as_array().unwrap().len(), 1);
    // The same home where the turn's state lives: checkpoint (history with the tool message,
    // NOTES, continuity), turns.jsonl, the run's record and request.
    let run = rec["run_id"].as_str().unwrap();
    for f in [
        "sessions/r1/checkpoint.json".to_string(),
        "turns.jsonl".to_string(),
        format!("runs/{run}/record.json"),
        format!("runs/{run}/request.json"),
    ] {
        assert_eq!(
            std::fs::read_to_string(a.home().join(&f)).unwrap(),
            std::fs::read_to_string(b.home().join(&f)).unwrap(),
            "{f} differs"
        );
    }
    // ...and memory: the same short-term entries (the earlier one touched once by each) and
    // the same pending candidate.
    for args in [
        &["memory", "stm", "list"][..],
        &["memory", "candidates"][..],
    ] {
        assert_eq!(a.jsonl(args, ""), b.jsonl(args, ""), "{args:?} differs");
    }
    let stm = a.jsonl(&["memory", "stm", "list"], "");
    assert_eq!(stm.len(), 2);
    assert_eq!(stm[1]["access_count"], 1, "{stm:?}");
}
