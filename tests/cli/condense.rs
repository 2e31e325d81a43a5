//! `bob condense`: Openclawssy caps through the binary, stdin and checkpoint modes.

use crate::TestEnv;
use serde_json::{Value, json};

fn chars(v: &Value) -> usize {
    v.as_str().unwrap().chars().count()
}

fn history(n: usize, len: usize) -> Value {
    let mut msgs = vec![json!({"role":"system","content":"You are bob."})];
    for i in 0..n {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        msgs.push(json!({"role": role, "content": format!("m{i:03} {}", "é".repeat(len))}));
    }
    Value::Array(msgs)
}

#[test]
fn long_history_drops_oldest_keeps_system_and_latest() {
    let env = TestEnv::new();
    let input = history(40, 995);
    let v = env.json(&["condense"], &input.to_string());
    let msgs = v["messages"].as_array().unwrap();
    let total: usize = msgs.iter().map(|m| chars(&m["content"])).sum();
    assert_eq!(v["total_chars"], total);
    assert!(total <= 12000, "{total}");
    assert_eq!(msgs[0]["content"], "You are bob.");
    assert!(
        msgs.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .starts_with("m039")
    );
    let dropped = v["dropped"].as_array().unwrap();
    assert_eq!(dropped[0]["index"], 1, "oldest dropped first");
    assert_eq!(dropped.len() + msgs.len(), 41);
    assert_eq!(dropped[0]["chars"], 1000);
    // Deterministic: same input, same bytes.
    let a = env
        .bob(&["condense"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    let b = env
        .bob(&["condense"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn caps_flags_force_and_object_input() {
    let env = TestEnv::new();
    let input = json!({"messages": history(10, 500)});
    let v = env.json(&["condense", "--per-message", "100"], &input.to_string());
    for m in v["messages"].as_array().unwrap() {
        assert!(chars(&m["content"]) <= 100);
    }
    assert_eq!(v["truncated"].as_array().unwrap().len(), 10);
    let p = env.json(&["condense", "--total", "3000"], &input.to_string());
    assert!(p["total_chars"].as_u64().unwrap() <= 3000);
    let f = env.json(
        &["condense", "--total", "3000", "--force"],
        &input.to_string(),
    );
    assert!(f["total_chars"].as_u64().unwrap() <= 1500);
    assert!(f["dropped"].as_array().unwrap().len() > p["dropped"].as_array().unwrap().len());
}

#[test]
fn tool_messages_are_normalized_with_their_own_caps() {
    let env = TestEnv::new();
    let seed000 = json!({"id":"t1","tool":"fs.read_text","ok":true,
        "output":{"text":"x".repeat(5000)},"error":null});
    let seed003 = json!({"request_id":"req_9","run_id":"run_1","tool":"shell.exec","ok":false,
        "error":{"code":"timeout","message":"took too long ".repeat(100)},
        "duration_ms":20000,"finished_at":"2026-02-15T00:00:00Z"});
    let input = json!([
        {"role":"tool","content": seed000.to_string()},
        {"role":"tool","content": seed003.to_string()},
        {"role":"tool","content":"plain text output","name":"http.get","tool_call_id":"c7"},
    ]);
    let v = env.json(&["condense", "--tool-output", "50"], &input.to_string());
    let m = v["messages"].as_array().unwrap();
    let a = m[0]["content"].as_str().unwrap();
    assert!(
        a.starts_with("tool fs.read_text result (t1)\nstatus: ok\noutput: "),
        "{a}"
    );
    assert!(a.lines().last().unwrap().chars().count() <= "output: ".len() + 50);
    let b = m[1]["content"].as_str().unwrap();
    assert!(b.starts_with("tool shell.exec result (req_9)\nstatus: failed\nerror: timeout: took"));
    assert!(b.lines().nth(2).unwrap().chars().count() <= "error: ".len() + 320);
    assert_eq!(
        m[2]["content"],
        "tool http.get result (c7)\noutput: plain text output"
    );
    assert_eq!(m[2]["tool_call_id"], "c7");
}

#[test]
fn wrong_shapes_are_invalid_request() {
    let env = TestEnv::new();
    env.fails(&["condense"], "", 2, "invalid.request");
    env.fails(&["condense"], "not json", 2, "invalid.request");
    env.fails(&["condense"], "{\"nope\":1}", 2, "invalid.request");
    env.fails(&["condense"], "\"text\"", 2, "invalid.request");
    let e = env.fails(
        &["condense"],
        "[{\"role\":\"user\",\"content\":\"ok\"},{\"role\":\"wizard\",\"content\":\"x\"}]",
        2,
        "invalid.request",
    );
    assert_eq!(e["details"]["index"], 1);
    env.fails(&["condense", "--total", "-5"], "[]", 2, "invalid.request");
}

#[test]
fn session_mode_condenses_the_checkpoint_in_place() {
    let env = TestEnv::new();
    env.fails(&["condense", "--session", "s1"], "", 4, "not_found");
    env.fails(
        &["condense", "--session", "../etc"],
        "",
        2,
        "invalid.request",
    );
    let state = json!({"state": {"goals": ["g"]}, "recent_messages": history(30, 995)});
    env.json(&["state", "set", "--session", "s1"], &state.to_string());
    let before = env.json(&["state", "show", "--session", "s1"], "");
    let rev = before["revision"].as_u64().unwrap();
    let v = env.json(&["condense", "--session", "s1"], "");
    assert_eq!(v["revision"], rev + 1);
    assert!(!v["dropped"].as_array().unwrap().is_empty());
    let after = env.json(&["state", "show", "--session", "s1"], "");
    assert_eq!(after["recent_messages"], v["messages"]);
    assert_eq!(after["state"]["goals"], json!(["g"]));
    // Nothing left to do: no new revision.
    let again = env.json(&["condense", "--session", "s1"], "");
    assert_eq!(again["revision"], rev + 1);
    // A stale expected revision is a conflict and changes nothing.
    env.fails(
        &[
            "condense",
            "--session",
            "s1",
            "--force",
            "--expect-revision",
            "0",
        ],
        "",
        5,
        "conflict",
    );
    let forced = env.json(&["condense", "--session", "s1", "--force"], "");
    assert!(forced["total_chars"].as_u64().unwrap() <= 6000);
    assert_eq!(forced["revision"], rev + 2);
}
