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
    // A whole checkpoint (e.g. from `state show`) round-trips: its revision is the expected
    // revision, the fields it names are set, the others (decisions) kept, its recent_messages
    // stored.
    let cp2 = env.json(
        &["state", "set", "--session", "s1"],
        r#"{"session_id":"s1","revision":1,"state":{"goals":["g2"]},
            "recent_messages":[{"role":"user","content":"hi"}]}"#,
    );
    assert_eq!(cp2["session_id"], "s1");
    assert_eq!(cp2["revision"], 2);
    assert_eq!(cp2["state"]["goals"], json!(["g2"]));
    assert_eq!(cp2["state"]["decisions"], json!(["rust"]));
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
fn a_grant_must_name_a_capability_bob_checks_and_names_are_case_sensitive() {
    let env = TestEnv::new();
    env.json(&["caps", "request", "--session", "s1", "NET"], "");
    let before = checkpoint_bytes(&env, "s1").unwrap();
    // `NET` would be stored and allow nothing (bob compares capability names exactly).
    let e = env.fails(
        &["caps", "grant", "--session", "s1", "NET"],
        "",
        2,
        "invalid.request",
    );
    assert_eq!(e["details"]["did_you_mean"], "net", "{e}");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains("case-sensitive") && msg.contains("net:<domain or IP>"),
        "{msg}"
    );
    assert!(
        e["details"]["known"]
            .as_array()
            .unwrap()
            .contains(&json!("fs:dotfiles")),
        "{e}"
    );
    let e = env.fails(
        &["caps", "grant", "--session", "s1", "NET:Example.com"],
        "",
        2,
        "invalid.request",
    );
    assert_eq!(e["details"]["did_you_mean"], "net:example.com", "{e}");
    for unknown in ["shell", "fs:everything", "mtg:g1:p3", "network"] {
        let e = env.fails(
            &["caps", "grant", "--session", "s1", unknown],
            "",
            2,
            "invalid.request",
        );
        assert!(e["details"].get("did_you_mean").is_none(), "{e}");
    }
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
    // --grant on a tool run is held to the same list.
    env.fails(
        &["tool", "run", "--grant", "Net"],
        r#"{"id":"x","tool":"http.get","args":{"url":"http://example.com/"}}"#,
        2,
        "invalid.request",
    );
    // The capabilities bob checks are granted; a model's `NET` request stays pending (a human
    // revokes it) and the grant of `net` does not absorb it.
    for cap in ["net", "net:Example.com", "fs:dotfiles", "mtg:g-1:x:p2"] {
        env.json(&["caps", "grant", "--session", "s1", cap], "");
    }
    let caps = env.json(&["caps", "list", "--session", "s1"], "");
    assert_eq!(
        caps["granted"],
        json!(["net", "net:example.com", "fs:dotfiles", "mtg:g-1:x:p2"])
    );
    assert_eq!(caps["pending"], json!(["NET"]));
    let r = env.json(&["caps", "revoke", "--session", "s1", "NET"], "");
    assert_eq!(r["pending"], json!([]));
}

#[test]
fn state_set_never_changes_capabilities() {
    let env = TestEnv::new();
    env.json(&["caps", "grant", "--session", "s1", "net"], "");
    env.json(&["caps", "request", "--session", "s1", "shell:ls"], "");
    let before = checkpoint_bytes(&env, "s1").unwrap();
    // Naming other capabilities than the stored ones is refused, whatever the mode.
    for (input, replace) in [
        (r#"{"capabilities_granted":[]}"#, false),
        (
            r#"{"capabilities_granted":["net","net:evil.example"]}"#,
            false,
        ),
        (r#"{"goals":["x"],"capabilities_pending":[]}"#, false),
        (r#"{"state":{"capabilities_granted":["net:x.y"]}}"#, false),
        (r#"{"capabilities_granted":[]}"#, true),
    ] {
        let mut args = vec!["state", "set", "--session", "s1"];
        if replace {
            args.push("--replace");
        }
        let e = env.fails(&args, input, 2, "invalid.request");
        assert!(e["message"].as_str().unwrap().contains("bob caps"), "{e}");
        assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before, "{input}");
    }
    // The stored values (as a set: order and repeats do not matter) are accepted; so is a
    // state that leaves them out, in either mode: they are kept.
    for (input, replace) in [
        (
            r#"{"goals":["a"],"capabilities_granted":["net","net"],"capabilities_pending":["shell:ls"]}"#,
            false,
        ),
        (r#"{"goals":["b"]}"#, false),
        (r#"{"goals":["c"]}"#, true),
    ] {
        let mut args = vec!["state", "set", "--session", "s1"];
        if replace {
            args.push("--replace");
        }
        let cp = env.json(&args, input);
        assert_eq!(
            cp["state"]["capabilities_granted"],
            json!(["net"]),
            "{input}"
        );
        assert_eq!(
            cp["state"]["capabilities_pending"],
            json!(["shell:ls"]),
            "{input}"
        );
    }
}

#[test]
fn state_set_merges_unless_replace_is_given() {
    let env = TestEnv::new();
    let messages = json!([{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]);
    env.json(
        &["state", "set", "--session", "s1"],
        &json!({"state": {"goals": ["g"], "decisions": ["d"]}, "recent_messages": messages})
            .to_string(),
    );
    env.json(&["caps", "grant", "--session", "s1", "net:example.com"], "");
    // A bare State sets the fields it names and keeps the rest, the messages and the grants.
    let cp = env.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["g2"],"active_context":"busy"}"#,
    );
    assert_eq!(cp["revision"], 3);
    assert_eq!(cp["state"]["goals"], json!(["g2"]));
    assert_eq!(cp["state"]["episode_summary"], "busy");
    assert_eq!(cp["state"]["decisions"], json!(["d"]));
    assert_eq!(cp["recent_messages"], messages);
    assert_eq!(
        cp["state"]["capabilities_granted"],
        json!(["net:example.com"])
    );
    // A Checkpoint without recent_messages keeps them too.
    let cp = env.json(
        &["state", "set", "--session", "s1"],
        r#"{"state":{"constraints":["c"]}}"#,
    );
    assert_eq!(cp["recent_messages"], messages);
    assert_eq!(cp["state"]["goals"], json!(["g2"]));
    // --replace: the input is the whole state; messages become the input's (none here);
    // capabilities are still kept.
    let cp = env.json(
        &["state", "set", "--session", "s1", "--replace"],
        r#"{"goals":["only"]}"#,
    );
    assert_eq!(cp["state"]["goals"], json!(["only"]));
    assert_eq!(cp["state"]["decisions"], json!([]));
    assert_eq!(cp["state"]["constraints"], json!([]));
    assert_eq!(cp["state"]["episode_summary"], "");
    assert_eq!(cp["recent_messages"], json!([]));
    assert_eq!(
        cp["state"]["capabilities_granted"],
        json!(["net:example.com"])
    );
}

#[test]
fn a_stale_checkpoint_is_a_conflict_and_writes_nothing() {
    let env = TestEnv::new();
    env.json(&["state", "set", "--session", "s1"], r#"{"goals":["1"]}"#);
    env.json(&["state", "set", "--session", "s1"], r#"{"goals":["2"]}"#);
    let at2 = env.json(&["state", "show", "--session", "s1"], "");
    assert_eq!(at2["revision"], 2);
    env.json(&["caps", "grant", "--session", "s1", "net"], "");
    let before = checkpoint_bytes(&env, "s1").unwrap();
    // Someone edits the checkpoint read at revision 2 while the session moved on to 3.
    let mut stale = at2.clone();
    stale["state"]["goals"] = json!(["stale edit"]);
    let e = env.fails(
        &["state", "set", "--session", "s1"],
        &stale.to_string(),
        5,
        "conflict",
    );
    assert_eq!(e["details"]["expected"], 2);
    assert_eq!(e["details"]["actual"], 3);
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
    // --expect-revision contradicting the checkpoint's own revision is refused.
    env.fails(
        &["state", "set", "--session", "s1", "--expect-revision", "3"],
        &stale.to_string(),
        2,
        "invalid.request",
    );
    // Another session's checkpoint is refused (its revision is not this session's).
    let mut other = stale.clone();
    other["session_id"] = json!("s2");
    other["revision"] = json!(3);
    let e = env.fails(
        &["state", "set", "--session", "s1"],
        &other.to_string(),
        2,
        "invalid.request",
    );
    assert_eq!(e["details"]["input_session_id"], "s2");
    for bad in [
        r#"{"revision":-1,"state":{}}"#,
        r#"{"revision":"3","state":{}}"#,
    ] {
        env.fails(
            &["state", "set", "--session", "s1"],
            bad,
            2,
            "invalid.request",
        );
    }
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
    // Re-read at the current revision, the same edit goes through (the grant is kept).
    let mut fresh = env.json(&["state", "show", "--session", "s1"], "");
    fresh["state"]["goals"] = json!(["fresh edit"]);
    let cp = env.json(&["state", "set", "--session", "s1"], &fresh.to_string());
    assert_eq!(cp["revision"], 4);
    assert_eq!(cp["state"]["goals"], json!(["fresh edit"]));
    assert_eq!(cp["state"]["capabilities_granted"], json!(["net"]));
}

/// Every event of the human-acts audit log (`audit/human/*.jsonl`), oldest first.
pub fn human_acts(env: &TestEnv) -> Vec<Value> {
    env.audit_events("human")
}

#[test]
fn every_human_act_is_audited_and_the_log_verifies() {
    let env = TestEnv::new();
    let kinds = |env: &TestEnv| -> Vec<String> {
        human_acts(env)
            .iter()
            .map(|e| e["event_type"].as_str().unwrap().to_string())
            .collect()
    };
    env.json(&["caps", "request", "--session", "s1", "net"], "");
    env.json(&["caps", "grant", "--session", "s1", "net"], "");
    env.json(&["caps", "revoke", "--session", "s1", "net"], "");
    env.json(
        &[
            "tool",
            "enable",
            "--session",
            "s1",
            "fs.read_text",
            "http.get",
        ],
        "",
    );
    env.json(&["tool", "disable", "--session", "s1", "http.get"], "");
    env.json(&["state", "set", "--session", "s1"], r#"{"goals":["g"]}"#);
    // A refused act leaves no record.
    env.fails(
        &["state", "set", "--session", "s1"],
        r#"{"capabilities_granted":["net"]}"#,
        2,
        "invalid.request",
    );
    let c: Vec<Value> = ["one", "two", "three"]
        .iter()
        .map(|t| {
            env.json(
                &["memory", "propose"],
                &json!({"text": format!("fact {t}"), "type": "fact"}).to_string(),
            )
        })
        .collect();
    let id = |i: usize| c[i]["id"].as_str().unwrap().to_string();
    env.json(&["memory", "approve", &id(0), "--actor", "alice"], "");
    env.json(
        &[
            "memory",
            "approve",
            &id(1),
            "--edit",
            r#"{"text":"fact 2"}"#,
        ],
        "",
    );
    env.json(&["memory", "reject", &id(2), "--reason", "noise"], "");
    assert_eq!(
        kinds(&env),
        [
            "caps.request",
            "caps.grant",
            "caps.revoke",
            "tool.enable",
            "tool.disable",
            "state.set",
            "memory.decision",
            "memory.decision",
            "memory.decision"
        ]
    );
    let acts = human_acts(&env);
    for e in &acts {
        assert_eq!(e["actor"], "human", "{e}");
        assert_eq!(e["agent_id"], "human", "{e}");
        assert!(e["prev"].is_string() && e["hash"].is_string(), "{e}");
    }
    assert_eq!(acts[1]["payload"]["capability"], "net");
    assert_eq!(acts[1]["payload"]["changed"], true);
    assert_eq!(
        acts[3]["payload"]["enabled"],
        json!(["fs.read_text", "http.get"])
    );
    assert_eq!(acts[5]["payload"]["changed"], json!(["goals"]));
    assert_eq!(acts[5]["payload"]["mode"], "merge");
    assert_eq!(acts[6]["payload"]["by"], "alice");
    assert_eq!(acts[6]["payload"]["decision"], "approve");
    assert_eq!(acts[7]["payload"]["decision"], "edit");
    assert_eq!(acts[8]["payload"]["decision"], "reject");
    // The audit log and the ledger still verify.
    let rows = env.jsonl(&["ledger", "verify", "--all"], "");
    assert!(
        rows.iter().any(|r| r.to_string().contains("audit/human")),
        "{rows:?}"
    );
    // An unwritable audit log stops the act: nothing is granted.
    let audit = env.home().join("audit/human");
    for f in std::fs::read_dir(&audit).unwrap() {
        let f = f.unwrap().path();
        let mut bytes = std::fs::read(&f).unwrap();
        bytes.extend_from_slice(b"{\"torn");
        std::fs::write(&f, bytes).unwrap();
    }
    let before = checkpoint_bytes(&env, "s1").unwrap();
    env.fails(
        &["caps", "grant", "--session", "s1", "net"],
        "",
        5,
        "conflict",
    );
    assert_eq!(checkpoint_bytes(&env, "s1").unwrap(), before);
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
