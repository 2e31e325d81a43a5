//! `bob trace emit|query|tail|stats` through the binary.

use crate::TestEnv;
use crate::storage::{bob_std, read_lines};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

fn emit_many(env: &TestEnv, session: &str, events: &[Value]) {
    let input: String = events.iter().map(|e| format!("{e}\n")).collect();
    let v = env.json(&["trace", "emit", "--session", session], &input);
    assert_eq!(v["appended"], events.len());
}

#[test]
fn emit_writes_ts_kind_data_lines() {
    let env = TestEnv::new();
    let ev = env.json(
        &[
            "trace",
            "emit",
            "--session",
            "s1",
            "--kind",
            "llm_req",
            "--data",
            "{\"model\":\"m\"}",
        ],
        "",
    );
    // BOB_NOW = 2026-02-15T00:00:00Z
    assert_eq!(
        ev,
        json!({"ts": 1771113600.0, "kind": "llm_req", "data": {"model": "m"}})
    );
    let lines = read_lines(&env.home().join("traces/s1.jsonl"));
    assert_eq!(lines.len(), 1);
    assert_eq!(serde_json::from_str::<Value>(&lines[0]).unwrap(), ev);
    let ev = env.json(
        &[
            "trace",
            "emit",
            "--session",
            "s1",
            "--kind",
            "run.completed",
        ],
        "",
    );
    assert_eq!(ev["data"], json!({}));
}

#[test]
fn emit_rejects_bad_kinds_data_and_session_ids() {
    let env = TestEnv::new();
    for kind in ["LLM", "a b", "", "x\"y"] {
        env.fails(
            &["trace", "emit", "--session", "s", "--kind", kind],
            "",
            2,
            "invalid.request",
        );
    }
    for data in ["[1]", "{bad"] {
        env.fails(
            &[
                "trace",
                "emit",
                "--session",
                "s",
                "--kind",
                "k",
                "--data",
                data,
            ],
            "",
            2,
            "invalid.request",
        );
    }
    for id in ["../x", "a/b", ".."] {
        env.fails(
            &["trace", "emit", "--session", id, "--kind", "k"],
            "",
            2,
            "invalid.request",
        );
    }
    assert!(!env.home().join("x.jsonl").exists());
    // A bad stdin line stops the stream; the lines before it stay appended.
    let e = env.fails(
        &["trace", "emit", "--session", "s"],
        "{\"kind\":\"a\"}\n{\"kind\":\"b\"}\nnot json\n{\"kind\":\"c\"}\n",
        2,
        "invalid.request",
    );
    assert_eq!(e["details"]["line"], 3);
    assert_eq!(e["details"]["appended"], 2);
    assert_eq!(read_lines(&env.home().join("traces/s.jsonl")).len(), 2);
}

#[test]
fn query_filters_by_kind_time_and_limit() {
    let env = TestEnv::new();
    emit_many(
        &env,
        "s1",
        &[
            json!({"kind":"llm_req","ts":100.0,"data":{"n":1}}),
            json!({"kind":"tool_start","ts":200.0,"data":{"about":"llm_req"}}),
            json!({"kind":"llm_req","ts":300.0,"data":{"n":3}}),
            json!({"kind":"tool_done","ts":"2026-02-15T00:00:00Z","data":{}}),
            json!({"kind":"llm_req","ts":400.0,"data":{"llm_req":"llm_req"}}),
        ],
    );
    let q = |args: &[&str]| -> Vec<Value> {
        let mut a = vec!["trace", "query", "--session", "s1"];
        a.extend_from_slice(args);
        env.jsonl(&a, "")
    };
    let r = q(&["--kind", "llm_req"]);
    assert_eq!(
        r.iter()
            .map(|e| e["ts"].as_f64().unwrap())
            .collect::<Vec<_>>(),
        [100.0, 300.0, 400.0]
    );
    let r = q(&["--kind", "llm_req", "--kind", "tool_done"]);
    assert_eq!(r.len(), 4);
    assert_eq!(r[2]["ts"], 1771113600.0);
    let r = q(&[
        "--since",
        "1970-01-01T00:03:20Z",
        "--until",
        "1970-01-01T00:06:40Z",
    ]);
    assert_eq!(
        r.iter()
            .map(|e| e["ts"].as_f64().unwrap())
            .collect::<Vec<_>>(),
        [200.0, 300.0]
    );
    assert_eq!(q(&["--kind", "llm_req", "--limit", "2"]).len(), 2);
    assert_eq!(q(&["--kind", "nothing_here"]).len(), 0);
    // Original bytes are written, not re-serialized.
    let raw = env
        .bob(&["trace", "query", "--session", "s1", "--kind", "tool_start"])
        .output()
        .unwrap();
    let file = std::fs::read_to_string(env.home().join("traces/s1.jsonl")).unwrap();
    assert_eq!(
        String::from_utf8(raw.stdout).unwrap(),
        format!("{}\n", file.lines().nth(1).unwrap())
    );
}

#[test]
fn query_all_and_file_and_errors() {
    let env = TestEnv::new();
    emit_many(&env, "a", &[json!({"kind":"x"})]);
    emit_many(&env, "b", &[json!({"kind":"x"}), json!({"kind":"y"})]);
    assert_eq!(
        env.jsonl(&["trace", "query", "--all", "--kind", "x"], "")
            .len(),
        2
    );
    assert_eq!(
        env.jsonl(&["trace", "query", "--all", "--limit", "2"], "")
            .len(),
        2
    );
    let f = env.home().join("traces/b.jsonl");
    assert_eq!(
        env.jsonl(&["trace", "query", "--file", f.to_str().unwrap()], "")
            .len(),
        2
    );
    env.fails(&["trace", "query", "--session", "nope"], "", 4, "not_found");
    env.fails(
        &["trace", "query", "--file", "/nonexistent.jsonl"],
        "",
        4,
        "not_found",
    );
    env.fails(&["trace", "query"], "", 2, "invalid.request");
    env.fails(
        &["trace", "query", "--all", "--kind", "Bad Kind"],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &["trace", "query", "--all", "--since", "yesterday"],
        "",
        2,
        "invalid.request",
    );
}

#[test]
fn damaged_lines_are_warned_about_never_printed() {
    let env = TestEnv::new();
    emit_many(&env, "s", &[json!({"kind":"k","ts":1.0})]);
    let path = env.home().join("traces/s.jsonl");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"ts\":2.0,\"kind\":\"k\",\"data\":{}\n[1,2]\n{\"ts\":3.0,\"kind\":\"k\",\"data\":{}}\n{\"ts\":4.0,\"ki");
    std::fs::write(&path, bytes).unwrap();
    let out = env
        .bob(&["trace", "query", "--session", "s", "--kind", "k"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let got: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        got.iter()
            .map(|e| e["ts"].as_f64().unwrap())
            .collect::<Vec<_>>(),
        [1.0, 3.0]
    );
    let warnings: Vec<Value> = String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: Vec<(u64, &str)> = warnings
        .iter()
        .map(|w| {
            (
                w["warning"]["line"].as_u64().unwrap(),
                w["warning"]["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(lines, [(2, "malformed"), (3, "malformed"), (5, "torn")]);
    let st = env.json(&["trace", "stats", "--session", "s"], "");
    assert_eq!(st["events"], 2);
    assert_eq!(st["bad_lines"], 3);
    assert_eq!(st["torn"], true);
}

#[test]
fn stats_count_by_kind_with_first_and_last() {
    let env = TestEnv::new();
    emit_many(
        &env,
        "s",
        &[
            json!({"kind":"llm_req","ts":10.0}),
            json!({"kind":"llm_done","ts":20.0}),
            json!({"kind":"llm_req","ts":30.0}),
        ],
    );
    emit_many(&env, "t", &[json!({"kind":"tool_plan"})]);
    let st = env.json(&["trace", "stats", "--session", "s"], "");
    assert_eq!(st["events"], 3);
    assert_eq!(st["by_kind"], json!({"llm_done":1,"llm_req":2}));
    assert_eq!(st["first_ts"], 10.0);
    assert_eq!(st["last_ts"], 30.0);
    assert_eq!(st["first"], "1970-01-01T00:00:10Z");
    assert_eq!(st["bad_lines"], 0);
    let rows = env.jsonl(&["trace", "stats"], "");
    assert_eq!(rows.len(), 2);
    env.fails(&["trace", "stats", "--session", "zzz"], "", 4, "not_found");
}

#[test]
fn tail_prints_last_lines() {
    let env = TestEnv::new();
    let events: Vec<Value> = (0..50)
        .map(|i| json!({"kind":"k","ts": i as f64}))
        .collect();
    emit_many(&env, "s", &events);
    let r = env.jsonl(&["trace", "tail", "--session", "s", "-n", "3"], "");
    assert_eq!(
        r.iter()
            .map(|e| e["ts"].as_f64().unwrap())
            .collect::<Vec<_>>(),
        [47.0, 48.0, 49.0]
    );
    assert_eq!(
        env.jsonl(&["trace", "tail", "--session", "s"], "").len(),
        10
    );
    env.fails(&["trace", "tail", "--session", "none"], "", 4, "not_found");
}

#[test]
fn tail_follow_streams_appends_and_stops_on_sigint_with_exit_0() {
    let env = TestEnv::new();
    emit_many(&env, "s", &[json!({"kind":"first","ts":1.0})]);
    let mut child = bob_std(
        &env,
        &["trace", "tail", "--session", "s", "-n", "1", "--follow"],
    )
    .stdout(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&line).unwrap()["kind"],
        "first"
    );
    emit_many(
        &env,
        "s",
        &[
            json!({"kind":"second","ts":2.0}),
            json!({"kind":"third","ts":3.0}),
        ],
    );
    for want in ["second", "third"] {
        line.clear();
        out.read_line(&mut line).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&line).unwrap()["kind"], want);
    }
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert_eq!(status.code(), Some(0));
            break;
        }
        assert!(
            Instant::now() < deadline,
            "tail --follow did not stop on SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
