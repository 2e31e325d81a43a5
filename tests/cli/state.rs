//! `bob state` and `bob caps` through the binary: revisions, conflicts, shapes, bad input.

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

#[test]
fn show_of_a_missing_session_is_not_found_unless_or_empty() {
    let env = TestEnv::new();
    let e = env.fails(&["state", "show", "--session", "s1"], "", 4, "not_found");
    assert_eq!(e["details"]["session_id"], "s1");
    assert!(!env.home().exists(), "a read must not create the home");
    let cp = env.json(&["state", "show", "--session", "s1", "--or-empty"], "");
    assert_eq!(cp["revision"], 0);
    assert_eq!(cp["session_id"], "s1");
    assert_eq!(cp["state"]["goals"], json!([]));
    assert!(!env.home().exists());
}

#[test]
fn set_replaces_the_state_and_bumps_the_revision() {
    let env = TestEnv::new();
    // The home does not exist yet: `state set` creates what it needs.
    let cp = env.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["ship v1"],"decisions":["rust"],"unknown_field":{"x":1}}"#,
    );
    assert_eq!(cp["revision"], 1);
    assert_eq!(cp["state"]["goals"], json!(["ship v1"]));
    assert_eq!(cp["updated_ts"], 1771113600.0);
    assert!(cp["state"].get("unknown_field").is_none());
    let shown = env.json(&["state", "show", "--session", "s1"], "");
    assert_eq!(shown, cp);
    // A whole checkpoint (e.g. from `state show`) round-trips; its session_id and revision
    // are ignored, its recent_messages kept.
    let cp2 = env.json(
        &["state", "set", "--session", "s1"],
        r#"{"session_id":"other","revision":77,"state":{"goals":["g2"]},
            "recent_messages":[{"role":"user","content":"hi"}]}"#,
    );
    assert_eq!(cp2["session_id"], "s1");
    assert_eq!(cp2["revision"], 2);
    assert_eq!(cp2["state"]["goals"], json!(["g2"]));
    assert_eq!(cp2["state"]["decisions"], json!([]));
    assert_eq!(cp2["recent_messages"][0]["content"], "hi");
}

#[test]
fn set_accepts_seed_001_state_json() {
    let env = TestEnv::new();
    let cp = env.json(
        &["state", "set", "--session", "s1"],
        r#"{"active_context":"debugging the MTG engine","open_threads":["fix stack order"]}"#,
    );
    assert_eq!(cp["state"]["episode_summary"], "debugging the MTG engine");
    assert_eq!(cp["state"]["open_loops"], json!(["fix stack order"]));
}

#[test]
fn expect_revision_mismatch_is_a_conflict_and_writes_nothing() {
    let env = TestEnv::new();
    env.json(&["state", "set", "--session", "s1"], r#"{"goals":["a"]}"#);
    let before = checkpoint_bytes(&env, "s1").unwrap();
    let e = env.fails(
        &["state", "set", "--session", "s1", "--expect-revision", "0"],
        r#"{"goals":["b"]}"#,
        5,
        "conflict",
    );
    assert_eq!(e["details"]["expected"], 0);
    assert_eq!(e["details"]["actual"], 1);
    assert_eq!(e["retryable"], true);
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
    let ok = env.json(
        &["state", "set", "--session", "s1", "--expect-revision", "1"],
        r#"{"goals":["b"]}"#,
    );
    assert_eq!(ok["revision"], 2);
    // Expecting revision 0 of a session that does not exist yet succeeds.
    let fresh = env.json(
        &["state", "set", "--session", "new", "--expect-revision", "0"],
        "{}",
    );
    assert_eq!(fresh["revision"], 1);
}

#[test]
fn bad_input_is_invalid_and_changes_nothing() {
    let env = TestEnv::new();
    env.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["keep"]}"#,
    );
    let before = checkpoint_bytes(&env, "s1").unwrap();
    for bad in [
        "",
        "{not json",
        "[1,2]",
        "\"text\"",
        r#"{"goals":"x"}"#,
        r#"{"goals":[1]}"#,
        r#"{"state":"x"}"#,
        r#"{"state":{"goals":[null]}}"#,
        r#"{"recent_messages":[{"role":"wizard","content":"x"}],"state":{}}"#,
        r#"{"capabilities_granted":["net work"]}"#,
        r#"{"capabilities_pending":[""]}"#,
    ] {
        env.fails(
            &["state", "set", "--session", "s1"],
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
}

#[test]
fn a_corrupt_checkpoint_is_reported_and_never_overwritten() {
    let env = TestEnv::new();
    let dir = env.home().join("sessions/s1");
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = b"{\"session_id\":\"s1\",\"revision\":3,\"state\":{\"goals\":[";
    std::fs::write(dir.join("checkpoint.json"), garbage).unwrap();
    let e = env.fails(
        &["state", "show", "--session", "s1"],
        "",
        1,
        "internal.error",
    );
    assert!(
        e["details"]["path"]
            .as_str()
            .unwrap()
            .ends_with("checkpoint.json")
    );
    env.fails(
        &["state", "set", "--session", "s1"],
        "{}",
        1,
        "internal.error",
    );
    env.fails(
        &["caps", "grant", "--session", "s1", "net"],
        "",
        1,
        "internal.error",
    );
    env.fails(
        &["notes", "apply", "--session", "s1"],
        r#"{"add_decisions":["x"]}"#,
        1,
        "internal.error",
    );
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), garbage);
}

#[test]
fn session_ids_with_path_tricks_are_invalid() {
    let env = TestEnv::new();
    for id in ["../x", "a/b", "..", ".", "", "/etc", "a b", "x\ny"] {
        env.fails(
            &["state", "show", "--session", id],
            "",
            2,
            "invalid.request",
        );
        env.fails(
            &["state", "set", "--session", id],
            "{}",
            2,
            "invalid.request",
        );
        env.fails(
            &["caps", "request", "--session", id, "net"],
            "",
            2,
            "invalid.request",
        );
        env.fails(
            &["notes", "apply", "--session", id],
            r#"{"add_decisions":["x"]}"#,
            2,
            "invalid.request",
        );
        env.fails(
            &["notes", "extract", "--session", id],
            "x",
            2,
            "invalid.request",
        );
    }
    assert!(!env.path("x").exists());
    assert!(!env.home().exists(), "nothing was created anywhere");
}

#[test]
fn input_over_the_cap_is_invalid_and_writes_nothing() {
    let env = TestEnv::new();
    env.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["keep"]}"#,
    );
    let before = checkpoint_bytes(&env, "s1").unwrap();
    // 100 MB of a syntactically plausible state, generated here (never committed).
    let big = env.path("big.json");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&big).unwrap());
        f.write_all(b"{\"goals\":[\"").unwrap();
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..100 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(b"\"]}").unwrap();
    }
    let big = big.to_str().unwrap();
    let e = env.fails(
        &["state", "set", "--session", "s1", "--input", big],
        "",
        2,
        "invalid.request",
    );
    assert!(e["details"]["limit_bytes"].is_number());
    env.fails(
        &["notes", "apply", "--session", "s1", "--input", big],
        "",
        2,
        "invalid.request",
    );
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
}

#[test]
fn caps_request_grant_revoke_and_list() {
    let env = TestEnv::new();
    env.fails(&["caps", "list", "--session", "s1"], "", 4, "not_found");
    let l = env.json(&["caps", "list", "--session", "s1", "--or-empty"], "");
    assert_eq!(l["granted"], json!([]));
    assert_eq!(l["pending"], json!([]));

    let r = env.json(
        &["caps", "request", "--session", "s1", "net:HuggingFace.co"],
        "",
    );
    assert_eq!(r["pending"], json!(["net:huggingface.co"]));
    assert_eq!(r["changed"], true);
    let g = env.json(
        &["caps", "grant", "--session", "s1", "net:huggingface.co"],
        "",
    );
    assert_eq!(g["granted"], json!(["net:huggingface.co"]));
    assert_eq!(g["pending"], json!([]));
    // Requesting what is granted changes nothing: pending never holds a granted capability.
    let again = env.json(
        &["caps", "request", "--session", "s1", "net:huggingface.co"],
        "",
    );
    assert_eq!(again["pending"], json!([]));
    assert_eq!(again["changed"], false);
    let l = env.json(&["caps", "list", "--session", "s1"], "");
    assert_eq!(l["granted"], json!(["net:huggingface.co"]));
    assert_eq!(l["revision"], 3);
    let v = env.json(
        &["caps", "revoke", "--session", "s1", "net:huggingface.co"],
        "",
    );
    assert_eq!(v["granted"], json!([]));
    assert_eq!(v["changed"], true);
    let cp = env.json(&["state", "show", "--session", "s1"], "");
    assert_eq!(cp["state"]["capabilities_granted"], json!([]));
}

#[test]
fn caps_reject_malformed_capabilities() {
    let env = TestEnv::new();
    env.json(&["caps", "request", "--session", "s1", "net"], "");
    let before = checkpoint_bytes(&env, "s1").unwrap();
    for bad in ["", "net work", "net:", ":x", "net\t", "a\u{7}b", "what?"] {
        env.fails(
            &["caps", "grant", "--session", "s1", bad],
            "",
            2,
            "invalid.request",
        );
    }
    env.fails(
        &[
            "caps",
            "grant",
            "--session",
            "s1",
            "net",
            "--expect-revision",
            "9",
        ],
        "",
        5,
        "conflict",
    );
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
}

#[test]
fn state_set_keeps_the_capability_invariant() {
    let env = TestEnv::new();
    let cp = env.json(
        &["state", "set", "--session", "s1"],
        r#"{"capabilities_granted":["net","net"],"capabilities_pending":["net","shell:ls"]}"#,
    );
    assert_eq!(cp["state"]["capabilities_granted"], json!(["net"]));
    assert_eq!(cp["state"]["capabilities_pending"], json!(["shell:ls"]));
}

#[allow(dead_code)]
fn _v(_: Value) {}

#[test]
fn racing_writers_expecting_the_same_revision_get_one_winner() {
    let env = TestEnv::new();
    let bob = assert_cmd::cargo::cargo_bin("bob");
    let children: Vec<_> = (0..6)
        .map(|i| {
            let mut c = std::process::Command::new(&bob);
            c.args([
                "state",
                "set",
                "--session",
                "race",
                "--expect-revision",
                "0",
            ])
            .env_clear()
            .env("BOB_HOME", env.home())
            .env("BOB_NOW", &env.now)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
            let mut child = c.spawn().unwrap();
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            writeln!(stdin, r#"{{"goals":["writer {i}"]}}"#).unwrap();
            drop(stdin);
            child
        })
        .collect();
    let codes: Vec<i32> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap().status.code().unwrap())
        .collect();
    assert_eq!(codes.iter().filter(|&&c| c == 0).count(), 1, "{codes:?}");
    assert_eq!(codes.iter().filter(|&&c| c == 5).count(), 5, "{codes:?}");
    let cp = env.json(&["state", "show", "--session", "race"], "");
    assert_eq!(cp["revision"], 1);
}

#[test]
fn a_missing_input_file_is_not_found() {
    let env = TestEnv::new();
    let missing = env.path("nope.json");
    env.fails(
        &[
            "state",
            "set",
            "--session",
            "s1",
            "--input",
            missing.to_str().unwrap(),
        ],
        "",
        4,
        "not_found",
    );
    assert!(!env.home().exists());
}

#[test]
fn a_checkpoint_at_the_last_revision_is_an_error_not_a_panic() {
    let env = TestEnv::new();
    let dir = env.home().join("sessions/s1");
    std::fs::create_dir_all(&dir).unwrap();
    let cp = format!(
        r#"{{"session_id":"s1","revision":{},"state":{{}}}}"#,
        u64::MAX
    );
    std::fs::write(dir.join("checkpoint.json"), &cp).unwrap();
    env.fails(
        &["notes", "apply", "--session", "s1"],
        "{}",
        1,
        "internal.error",
    );
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), cp.as_bytes());
}
