//! `bob notes extract|apply` through the binary: the Spectator rules, capability gating,
//! traces, bad input and concurrent writers.

use crate::TestEnv;
use serde_json::{Value, json};

fn checkpoint_bytes(env: &TestEnv, session: &str) -> Option<Vec<u8>> {
    std::fs::read(
        env.home()
            .join("sessions")
            .join(session)
            .join("checkpoint.json"),
    )
    .ok()
}

fn trace(env: &TestEnv, session: &str) -> Vec<Value> {
    let p = env.home().join("traces").join(format!("{session}.jsonl"));
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("trace line is JSON"))
        .collect()
}

fn state(env: &TestEnv, session: &str) -> Value {
    env.json(&["state", "show", "--session", session], "")["state"].clone()
}

#[test]
fn extract_strips_every_block_and_reports_malformed_ones() {
    let env = TestEnv::new();
    let text = "Here is the plan.\n<<<NOTES_JSON>>>\n{\"set_goals\":[\"ship\"],\"add_decisions\":[\"a\"]}\n<<<END_NOTES_JSON>>>\nMore text.\n<<<NOTES_JSON>>>{\"add_decisions\": [\"b\"], SECRET}<<<END_NOTES_JSON>>>\n<<<NOTES_JSON>>>{\"add_decisions\":[\"c\"]}<<<END_NOTES_JSON>>>\nDone.";
    let x = env.json(&["notes", "extract", "--session", "s1"], text);
    assert_eq!(
        x["visible_text"],
        "Here is the plan.\n\nMore text.\n\nDone."
    );
    assert_eq!(x["patch"]["set_goals"], json!(["ship"]));
    assert_eq!(x["patch"]["add_decisions"], json!(["a", "c"]));
    assert_eq!(x["blocks"], 3);
    let errors = x["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["code"], "invalid.request");
    assert_eq!(errors[0]["details"]["block"], 2);
    // The malformed block was traced, and nothing was written to the checkpoint.
    let t = trace(&env, "s1");
    assert_eq!(t.len(), 1);
    assert_eq!(t[0]["kind"], "notes_patch");
    assert_eq!(t[0]["data"]["error"]["code"], "invalid.request");
    assert!(checkpoint_bytes(&env, "s1").is_none());
}

#[test]
fn extract_removes_an_unterminated_block_to_the_end() {
    let env = TestEnv::new();
    let x = env.json(
        &["notes", "extract"],
        "Answer.\n<<<NOTES_JSON>>>{\"set_goals\":[\"never applied\"]} and the rest",
    );
    assert_eq!(x["visible_text"], "Answer.");
    assert!(x["patch"].is_null());
    assert_eq!(x["errors"].as_array().unwrap().len(), 1);
    let plain = env.json(&["notes", "extract"], "no blocks here\n");
    assert_eq!(plain["visible_text"], "no blocks here\n");
    assert_eq!(plain["errors"], json!([]));
    assert!(
        !env.home().exists(),
        "extract without --session writes nothing"
    );
}

#[test]
fn apply_follows_the_patch_rules() {
    let env = TestEnv::new();
    env.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["old"],"open_loops":["l1","l2"],"decisions":["d1"],"episode_summary":"keep","memory_tags":["t1"]}"#,
    );
    // Absent keys change nothing.
    let r = env.json(&["notes", "apply", "--session", "s1"], "{}");
    assert_eq!(r["revision"], 2);
    assert_eq!(r["applied"], json!([]));
    let s = state(&env, "s1");
    assert_eq!(s["goals"], json!(["old"]));
    assert_eq!(s["episode_summary"], "keep");

    let r = env.json(
        &["notes", "apply", "--session", "s1"],
        r#"{"set_goals":["g1","g2"],"add_open_loops":["l2","l3"],"close_open_loops":["l1"],
            "add_decisions":["d1","d2"],"add_constraints":["c1"],"set_episode_summary":"new",
            "add_memory_tags":["t1","t2"]}"#,
    );
    assert_eq!(r["revision"], 3);
    assert_eq!(r["written"], true);
    let s = state(&env, "s1");
    assert_eq!(s["goals"], json!(["g1", "g2"]));
    assert_eq!(s["open_loops"], json!(["l2", "l3"]));
    assert_eq!(s["decisions"], json!(["d1", "d2"]));
    assert_eq!(s["constraints"], json!(["c1"]));
    assert_eq!(s["episode_summary"], "new");
    assert_eq!(s["memory_tags"], json!(["t1", "t2"]));
    let t = trace(&env, "s1");
    let last = t.last().unwrap();
    assert_eq!(last["kind"], "notes_patch");
    assert_eq!(last["data"]["revision"], 3);
    assert_eq!(last["ts"], 1771113600.0);
}

#[test]
fn a_model_may_request_but_never_grant() {
    let env = TestEnv::new();
    let r = env.json(
        &["notes", "apply", "--session", "s1"],
        r#"{"actions":["request_permission:net:huggingface.co","grant_permission:net:huggingface.co","grant_permission:net","launch_missiles"]}"#,
    );
    assert_eq!(r["requested"], json!(["net:huggingface.co"]));
    assert_eq!(r["granted"], json!([]));
    let refused: Vec<&str> = r["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        refused,
        [
            "grant_permission:net:huggingface.co",
            "grant_permission:net"
        ]
    );
    assert_eq!(r["ignored_actions"][0]["action"], "launch_missiles");
    let s = state(&env, "s1");
    assert_eq!(s["capabilities_granted"], json!([]));
    assert_eq!(s["capabilities_pending"], json!(["net:huggingface.co"]));
    // Inside assistant text too (the default actor is the model).
    env.json(
        &["notes", "apply", "--session", "s1"],
        "ok <<<NOTES_JSON>>>{\"actions\":[\"grant_permission:net\"]}<<<END_NOTES_JSON>>>",
    );
    assert_eq!(state(&env, "s1")["capabilities_granted"], json!([]));
    // The actions were traced.
    let t = trace(&env, "s1");
    let actions: Vec<&Value> = t.iter().filter(|e| e["kind"] == "actions").collect();
    assert_eq!(actions.len(), 2);
    assert_eq!(actions[0]["data"]["refused"].as_array().unwrap().len(), 2);
    assert_eq!(
        actions[0]["data"]["ignored_actions"][0]["action"],
        "launch_missiles"
    );

    // A human may grant; a later request of a granted capability stays out of pending.
    let r = env.json(
        &["notes", "apply", "--session", "s1", "--actor", "human"],
        r#"{"actions":["grant_permission:net:huggingface.co"]}"#,
    );
    assert_eq!(r["granted"], json!(["net:huggingface.co"]));
    env.json(
        &["notes", "apply", "--session", "s1"],
        r#"{"actions":["request_permission:net:huggingface.co"]}"#,
    );
    let s = state(&env, "s1");
    assert_eq!(s["capabilities_granted"], json!(["net:huggingface.co"]));
    assert_eq!(s["capabilities_pending"], json!([]));
    // Only the human's patch is a human act in the audit log, with what it granted.
    let acts = crate::state::human_acts(&env);
    assert_eq!(acts.len(), 1, "{acts:?}");
    assert_eq!(acts[0]["event_type"], "notes.apply");
    assert_eq!(acts[0]["actor"], "human");
    assert_eq!(acts[0]["payload"]["granted"], json!(["net:huggingface.co"]));
    env.json(&["ledger", "verify", "--all"], "");
}

#[test]
fn note_frames_and_unknown_keys() {
    let env = TestEnv::new();
    let r = env.json(
        &["notes", "apply", "--session", "s1"],
        r#"{"facts":["budget is $200"],"open_qs":["which frame?"],"decisions":["5 inch props"],"todos":["price motors"],"mood":"great"}"#,
    );
    assert_eq!(r["ignored_keys"], json!(["mood"]));
    let s = state(&env, "s1");
    assert_eq!(s["open_loops"], json!(["which frame?", "price motors"]));
    assert_eq!(s["decisions"], json!(["5 inch props"]));
    assert_eq!(s["constraints"], json!(["budget is $200"]));
    assert!(s.get("mood").is_none());
}

#[test]
fn assistant_text_applies_good_blocks_and_reports_bad_ones() {
    let env = TestEnv::new();
    let text = "Sure.\n<<<NOTES_JSON>>>{\"add_decisions\":[\"a\"]}<<<END_NOTES_JSON>>>\n<<<NOTES_JSON>>>{\"set_goals\":\"x\"}<<<END_NOTES_JSON>>>\n<<<NOTES_JSON>>>{\"add_decisions\":[\"b\"]}<<<END_NOTES_JSON>>>";
    let r = env.json(&["notes", "apply", "--session", "s1"], text);
    assert_eq!(r["revision"], 1);
    assert_eq!(r["errors"].as_array().unwrap().len(), 1);
    assert_eq!(r["errors"][0]["details"]["block"], 2);
    let s = state(&env, "s1");
    assert_eq!(s["decisions"], json!(["a", "b"]));
    assert_eq!(s["goals"], json!([]));
    let kinds: Vec<Value> = trace(&env, "s1")
        .iter()
        .map(|e| e["kind"].clone())
        .collect();
    assert_eq!(kinds, [json!("notes_patch"), json!("notes_patch")]);

    // Text with no block changes nothing and writes nothing.
    let before = checkpoint_bytes(&env, "s1").unwrap();
    let r = env.json(&["notes", "apply", "--session", "s1"], "just an answer");
    assert_eq!(r["written"], false);
    assert_eq!(r["revision"], 1);
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
}

#[test]
fn bad_patches_are_invalid_and_change_nothing() {
    let env = TestEnv::new();
    env.json(
        &["notes", "apply", "--session", "s1"],
        r#"{"add_decisions":["keep"]}"#,
    );
    let before = checkpoint_bytes(&env, "s1").unwrap();
    let trace_before = trace(&env, "s1").len();
    for bad in [
        "",
        "   \n",
        "{not json",
        "[1,2]",
        r#"{"set_goals":"x"}"#,
        r#"{"add_decisions":[1]}"#,
        r#"{"set_episode_summary":["x"]}"#,
        r#"{"actions":"condense_now"}"#,
        r#"{"facts":"x"}"#,
        r#"{"notes":{"todos":7}}"#,
    ] {
        env.fails(
            &["notes", "apply", "--session", "s1"],
            bad,
            2,
            "invalid.request",
        );
        assert_eq!(
            checkpoint_bytes(&env, "s1").unwrap(),
            before,
            "input {bad:?}"
        );
    }
    assert_eq!(trace(&env, "s1").len(), trace_before);
    env.fails(
        &[
            "notes",
            "apply",
            "--session",
            "s1",
            "--expect-revision",
            "5",
        ],
        r#"{"add_decisions":["x"]}"#,
        5,
        "conflict",
    );
    env.fails(
        &["notes", "apply", "--session", "s1", "--actor", "root"],
        "{}",
        2,
        "invalid.request",
    );
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
}

#[test]
fn condense_actions_condense_recent_messages() {
    let env = TestEnv::new();
    // 20 messages of 1000 chars: 20000 chars, over the 12000 total cap.
    let messages: Vec<Value> = (0..20)
        .map(|i| json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": format!("{i:02}{}", "x".repeat(998))}))
        .collect();
    env.json(
        &["state", "set", "--session", "s1"],
        &json!({"state": {}, "recent_messages": messages}).to_string(),
    );
    // condense_smart acts under pressure: down to the 12000-char total.
    let r = env.json(
        &["notes", "apply", "--session", "s1"],
        r#"{"actions":["condense_smart"]}"#,
    );
    assert_eq!(r["condense"], "condense_smart");
    assert_eq!(r["condensed"]["status"], "done");
    assert_eq!(r["condensed"]["dropped"], 8);
    let cp = env.json(&["state", "show", "--session", "s1"], "");
    let kept = cp["recent_messages"].as_array().unwrap();
    assert_eq!(kept.len(), 12);
    assert!(
        kept[0]["content"].as_str().unwrap().starts_with("08"),
        "oldest dropped first"
    );
    // condense_now (which wins over condense_smart) halves the budget right away.
    let r = env.json(
        &["notes", "apply", "--session", "s1"],
        r#"{"actions":["condense_smart","condense_now"]}"#,
    );
    assert_eq!(r["condense"], "condense_now");
    assert_eq!(r["actions"], json!(["condense_smart", "condense_now"]));
    assert_eq!(r["condensed"]["action"], "condense_now");
    assert!(r["condensed"]["total_chars"].as_u64().unwrap() <= 6000);
    let cp = env.json(&["state", "show", "--session", "s1"], "");
    let kept = cp["recent_messages"].as_array().unwrap();
    assert_eq!(kept.len(), 6);
    assert!(
        kept[5]["content"].as_str().unwrap().starts_with("19"),
        "newest kept"
    );
    let actions: Vec<Value> = trace(&env, "s1")
        .into_iter()
        .filter(|e| e["kind"] == "actions")
        .collect();
    assert_eq!(actions[1]["data"]["condense"]["dropped"], 6);
}

#[test]
fn concurrent_writers_never_lose_an_update() {
    let env = TestEnv::new();
    let bob = assert_cmd::cargo::cargo_bin("bob");
    let children: Vec<_> = (0..4)
        .map(|p| {
            let script = format!(
                "for i in $(seq 1 25); do echo '{{\"add_decisions\":[\"p{p}-'$i'\"]}}' | '{}' notes apply --session race >/dev/null || exit 1; done",
                bob.display()
            );
            std::process::Command::new("bash")
                .arg("-c")
                .arg(script)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("BOB_HOME", env.home())
                .env("BOB_NOW", &env.now)
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let cp = env.json(&["state", "show", "--session", "race"], "");
    assert_eq!(cp["revision"], 100);
    let decisions = cp["state"]["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 100);
    for p in 0..4 {
        for i in 1..=25 {
            assert!(decisions.contains(&json!(format!("p{p}-{i}"))), "p{p}-{i}");
        }
    }
    let t = trace(&env, "race");
    assert_eq!(t.len(), 100);
}

#[test]
fn non_utf8_input_is_invalid_and_writes_nothing() {
    let env = TestEnv::new();
    for args in [
        &["notes", "apply", "--session", "s1"][..],
        &["notes", "extract", "--session", "s1"][..],
        &["state", "set", "--session", "s1"][..],
    ] {
        let out = env
            .bob(args)
            .write_stdin(b"{\"add_decisions\":[\"\xff\xfe\"]}".to_vec())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(err["error"]["code"], "invalid.request");
    }
    assert!(!env.home().exists());
}

#[test]
fn apply_output_snapshot() {
    let env = TestEnv::new();
    let r = env.json(
        &["notes", "apply", "--session", "snap"],
        "Noted.\n<<<NOTES_JSON>>>{\"set_goals\":[\"ship\"],\"add_decisions\":[\"a\"],\"mood\":1,\"actions\":[\"request_permission:net:example.com\",\"grant_permission:net\",\"condense_smart\",\"dance\"]}<<<END_NOTES_JSON>>>\n<<<NOTES_JSON>>>{oops}<<<END_NOTES_JSON>>>",
    );
    insta::assert_json_snapshot!("notes_apply_output", r);
    let e = env.fails(
        &[
            "notes",
            "apply",
            "--session",
            "snap",
            "--expect-revision",
            "0",
        ],
        "{}",
        5,
        "conflict",
    );
    insta::assert_json_snapshot!("notes_apply_conflict", e);
}

#[test]
fn chat_output_is_read_through_its_content() {
    let env = TestEnv::new();
    let reply = json!({
        "message": {"role": "assistant", "content": "Done.\n<<<NOTES_JSON>>>{\"add_decisions\":[\"from chat\"]}<<<END_NOTES_JSON>>>"},
        "usage": {"prompt_tokens": 3}
    })
    .to_string();
    let x = env.json(&["notes", "extract"], &reply);
    assert_eq!(x["visible_text"], "Done.");
    assert_eq!(x["patch"]["add_decisions"], json!(["from chat"]));
    let r = env.json(&["notes", "apply", "--session", "s1"], &reply);
    assert_eq!(r["applied"], json!(["add_decisions"]));
    // A bare chat message too; its unmarked JSON content is never a patch.
    let msg = json!({"role": "assistant", "content": "{\"set_goals\":[\"sneaky\"]}"}).to_string();
    let r = env.json(&["notes", "apply", "--session", "s1"], &msg);
    assert_eq!(r["written"], false);
    assert_eq!(state(&env, "s1")["goals"], json!([]));
    assert_eq!(state(&env, "s1")["decisions"], json!(["from chat"]));
}
