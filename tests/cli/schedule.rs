//! `bob schedule`: the Openclawssy job store, the missed-job policy, overlapping ticks,
//! pause/resume, failures and timeouts, through the real binary and real child processes.

use crate::TestEnv;
use serde_json::{Value, json};
use std::process::Output;
use std::time::{Duration, Instant};

const T0: &str = "2026-02-15T00:00:00Z";

/// A stand-in for `bob turn` (via BOB_SCHEDULE_TURN_CMD) that logs its argv and stdin to
/// `calls.log` beside the home and prints a turn record.
const FAKE_TURN: &str = r#"printf '%s|' "$@" >> "$BOB_HOME/../calls.log"; cat >> "$BOB_HOME/../calls.log"; echo >> "$BOB_HOME/../calls.log"; echo '{"run_id":"run_fake","status":"ok","output":"done"}'"#;

fn bob_with(env: &TestEnv, now: &str, turn_cmd: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = env.bob(args);
    cmd.env("BOB_NOW", now);
    if let Some(t) = turn_cmd {
        cmd.env("BOB_SCHEDULE_TURN_CMD", t);
    }
    cmd.output().expect("run bob")
}

fn ok_json(out: Output, what: &str) -> Value {
    assert!(
        out.status.success(),
        "{what} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: stdout not JSON ({e}): {:?}", out.stdout))
}

fn tick(env: &TestEnv, now: &str, turn_cmd: Option<&str>) -> Value {
    ok_json(
        bob_with(
            env,
            now,
            turn_cmd,
            &["schedule", "tick", "--timeout", "20s"],
        ),
        "tick",
    )
}

fn add(env: &TestEnv, job: Value) -> Value {
    env.json(&["schedule", "add"], &job.to_string())
}

fn show(env: &TestEnv, id: &str) -> Value {
    env.json(&["schedule", "show", id], "")
}

fn history(env: &TestEnv, id: Option<&str>) -> Vec<Value> {
    let mut args = vec!["schedule", "history"];
    args.extend(id);
    env.jsonl(&args, "")
}

fn calls(env: &TestEnv) -> String {
    std::fs::read_to_string(env.dir.path().join("calls.log")).unwrap_or_default()
}

fn jobs_bytes(env: &TestEnv) -> Option<Vec<u8>> {
    std::fs::read(env.home().join("schedule/jobs.json")).ok()
}

#[test]
fn add_list_show_rm_and_duplicates() {
    let env = TestEnv::new();
    let job = add(
        &env,
        json!({"id":"job_daily_report","agentID":"agent_default","schedule":"@every 1h","message":"Generate status report"}),
    );
    assert_eq!(job["agentID"], "agent_default");
    assert_eq!(job["enabled"], true);
    assert_eq!(job["next_run"], "2026-02-15T01:00:00Z");
    // Flags alone (no stdin read), and flags overriding stdin.
    env.json(
        &[
            "schedule",
            "add",
            "--id",
            "b",
            "--schedule",
            "@every 90s",
            "--message",
            "hi",
            "--timeout",
            "45s",
        ],
        "",
    );
    let c = env.json(
        &["schedule", "add", "--schedule", "2026-03-01T09:00:00+01:00"],
        r#"{"id":"c","schedule":"@every 1m","message":"m"}"#,
    );
    assert_eq!(c["next_run"], "2026-03-01T08:00:00Z");
    let b = show(&env, "b");
    assert_eq!(b["timeout_s"], 45);
    assert_eq!(b["next_run"], "2026-02-15T00:01:30Z");
    let list = env.jsonl(&["schedule", "list"], "");
    let ids: Vec<&str> = list.iter().map(|j| j["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["job_daily_report", "b", "c"]);
    // The file on disk keeps the Openclawssy wire names.
    let file: Value =
        serde_json::from_slice(&jobs_bytes(&env).unwrap()).expect("jobs.json is JSON");
    assert_eq!(file["paused"], false);
    assert_eq!(file["jobs"][0]["agentID"], "agent_default");

    let e = env.fails(
        &["schedule", "add"],
        r#"{"id":"b","schedule":"@every 5m"}"#,
        5,
        "conflict",
    );
    assert!(e["message"].as_str().unwrap().contains("already exists"));
    let removed = env.json(&["schedule", "rm", "b"], "");
    assert_eq!(removed["id"], "b");
    env.fails(&["schedule", "show", "b"], "", 4, "not_found");
    env.fails(&["schedule", "rm", "b"], "", 4, "not_found");
    assert_eq!(env.jsonl(&["schedule", "list"], "").len(), 2);
}

#[test]
fn seed_job_with_last_run_continues_from_it() {
    let env = TestEnv::new();
    let job = add(
        &env,
        json!({"id":"job_daily_report","agentID":"agent_default","schedule":"@every 1h",
               "message":"Generate status report","enabled":true,"lastRun":"2026-02-14T22:30:00Z"}),
    );
    assert_eq!(job["lastRun"], "2026-02-14T22:30:00Z");
    assert_eq!(job["next_run"], "2026-02-14T23:30:00Z");
    // Already overdue: it runs once at the next check.
    let r = tick(&env, T0, Some(FAKE_TURN));
    assert_eq!(r["ran"].as_array().unwrap().len(), 1);
    assert_eq!(
        show(&env, "job_daily_report")["next_run"],
        "2026-02-15T01:00:00Z"
    );
}

#[test]
fn schedules_other_than_every_and_rfc3339_are_rejected() {
    let env = TestEnv::new();
    for bad in [
        "*/5 * * * *",
        "@daily",
        "@every",
        "@every -5m",
        "@every 5x",
        "0 9 * * 1-5",
    ] {
        let e = env.fails(
            &["schedule", "add", "--id", "x", "--schedule", bad],
            "",
            2,
            "invalid.request",
        );
        let msg = e["message"].as_str().unwrap();
        assert!(
            msg.contains("@every <Go duration>") && msg.contains("RFC3339"),
            "{bad}: {msg}"
        );
        assert_eq!(e["details"]["field"], "schedule");
    }
    assert!(
        jobs_bytes(&env).is_none(),
        "a rejected create wrote jobs.json"
    );
    // And on update.
    add(&env, json!({"id":"a","schedule":"@every 5m"}));
    let before = jobs_bytes(&env);
    env.fails(
        &["schedule", "update", "a", "--schedule", "*/5 * * * *"],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &["schedule", "update", "a"],
        r#"{"schedule":"@weekly"}"#,
        2,
        "invalid.request",
    );
    assert_eq!(jobs_bytes(&env), before);
    // Go's forms are accepted.
    for (i, good) in [
        "@every 90s",
        "@every 1h30m",
        "@every 2h45m10s",
        "@every 1.5h",
        "@every 100000ms",
    ]
    .iter()
    .enumerate()
    {
        let id = format!("g{i}");
        env.json(&["schedule", "add", "--id", &id, "--schedule", good], "");
    }
    assert_eq!(show(&env, "g3")["next_run"], "2026-02-15T01:30:00Z");
}

#[test]
fn a_missed_every_job_runs_once_then_continues_from_that_run() {
    let env = TestEnv::new();
    add(
        &env,
        json!({"id":"r","agentID":"agent_a","schedule":"@every 1h","message":"report"}),
    );
    let stored = jobs_bytes(&env);

    // Before the due time: nothing runs, nothing is written, nothing is started.
    let r = tick(&env, "2026-02-15T00:59:59Z", Some(FAKE_TURN));
    assert_eq!(r["ran"], json!([]));
    assert_eq!(r["skipped"], 1);
    assert_eq!(jobs_bytes(&env), stored);
    assert_eq!(calls(&env), "");

    // Missed by five intervals (offline from 01:00 to 05:30): exactly one run.
    let late = "2026-02-15T05:30:00Z";
    let r = tick(&env, late, Some(FAKE_TURN));
    let ran = r["ran"].as_array().unwrap();
    assert_eq!(ran.len(), 1, "{r}");
    assert_eq!(ran[0]["due"], "2026-02-15T01:00:00Z");
    assert_eq!(ran[0]["status"], "ok");
    assert_eq!(ran[0]["run_id"], "run_fake");
    assert_eq!(r["failed"], 0);
    let job = show(&env, "r");
    assert_eq!(job["lastRun"], late);
    assert_eq!(job["next_run"], "2026-02-15T06:30:00Z");
    assert_eq!(job["last_status"], "ok");
    assert_eq!(job["last_run_id"], "run_fake");
    // The turn got the job's session, agent and message.
    assert_eq!(
        calls(&env),
        "--session|job-r|--agent|agent_a|{\"session_id\":\"job-r\",\"message\":\"report\"}\n"
    );

    // A second tick at the same moment runs nothing.
    let r = tick(&env, late, Some(FAKE_TURN));
    assert_eq!(r["ran"], json!([]));
    let r = tick(&env, "2026-02-15T06:29:59Z", Some(FAKE_TURN));
    assert_eq!(r["ran"], json!([]));
    // Next interval from the run time.
    let r = tick(&env, "2026-02-15T06:30:00Z", Some(FAKE_TURN));
    assert_eq!(r["ran"].as_array().unwrap().len(), 1);
    assert_eq!(show(&env, "r")["next_run"], "2026-02-15T07:30:00Z");

    let h = history(&env, Some("r"));
    let dues: Vec<&str> = h.iter().map(|r| r["due"].as_str().unwrap()).collect();
    assert_eq!(dues, ["2026-02-15T01:00:00Z", "2026-02-15T06:30:00Z"]);
    assert_eq!(h[0]["trigger"], "tick");
    assert_eq!(h[0]["started"], late);
}

#[test]
fn a_past_one_shot_runs_once_then_is_disabled() {
    let env = TestEnv::new();
    add(
        &env,
        json!({"id":"once","schedule":"2026-02-15T09:00:00Z","message":"m"}),
    );
    add(
        &env,
        json!({"id":"later","schedule":"2026-03-01T00:00:00Z","message":"m"}),
    );
    assert_eq!(tick(&env, T0, Some(FAKE_TURN))["ran"], json!([]));
    let r = tick(&env, "2026-02-16T12:00:00Z", Some(FAKE_TURN));
    let ran = r["ran"].as_array().unwrap();
    assert_eq!(ran.len(), 1);
    assert_eq!(ran[0]["job_id"], "once");
    assert_eq!(ran[0]["due"], "2026-02-15T09:00:00Z");
    let job = show(&env, "once");
    assert_eq!(job["enabled"], false);
    assert!(job.get("next_run").is_none(), "{job}");
    assert_eq!(job["lastRun"], "2026-02-16T12:00:00Z");
    // A later tick does not run it again.
    assert_eq!(
        tick(&env, "2026-02-17T00:00:00Z", Some(FAKE_TURN))["ran"],
        json!([])
    );
    assert_eq!(history(&env, Some("once")).len(), 1);
    // Resuming a one-shot that already ran is refused; a new time re-arms it.
    env.fails(&["schedule", "resume", "once"], "", 5, "conflict");
    let re = env.json(
        &[
            "schedule",
            "update",
            "once",
            "--schedule",
            "2026-02-18T00:00:00Z",
        ],
        "",
    );
    assert_eq!(re["next_run"], "2026-02-18T00:00:00Z");
    env.json(&["schedule", "resume", "once"], "");
    let r = tick(&env, "2026-02-18T00:00:00Z", Some(FAKE_TURN));
    assert_eq!(r["ran"].as_array().unwrap().len(), 1);
}

#[test]
fn overlapping_ticks_run_each_due_time_once() {
    let env = TestEnv::new();
    for id in ["a", "b", "c"] {
        add(
            &env,
            json!({"id": id, "schedule":"@every 1m","message":"m"}),
        );
    }
    let slow = format!("sleep 1; {FAKE_TURN}");
    let now = "2026-02-15T00:05:00Z";
    let bob = assert_cmd::cargo::cargo_bin("bob");
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(&bob)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("BOB_HOME", env.home())
                .env("BOB_NOW", now)
                .env("BOB_SCHEDULE_TURN_CMD", &slow)
                .args(["schedule", "tick"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ran = Vec::new();
    for c in children {
        let v = ok_json(c.wait_with_output().unwrap(), "concurrent tick");
        for r in v["ran"].as_array().unwrap() {
            ran.push(r["job_id"].as_str().unwrap().to_string());
        }
    }
    ran.sort();
    assert_eq!(ran, ["a", "b", "c"], "each due job ran exactly once");
    let h = history(&env, None);
    assert_eq!(h.len(), 3, "{h:?}");
    assert_eq!(calls(&env).lines().count(), 3);
    for id in ["a", "b", "c"] {
        let j = show(&env, id);
        assert_eq!(j["last_status"], "ok");
        assert_eq!(j["next_run"], "2026-02-15T00:06:00Z");
    }
}

#[test]
fn pause_and_resume_globally_and_per_job() {
    let env = TestEnv::new();
    add(&env, json!({"id":"a","schedule":"@every 1h","message":"m"}));
    add(&env, json!({"id":"b","schedule":"@every 1h","message":"m"}));
    let p = env.json(&["schedule", "pause"], "");
    assert_eq!(p, json!({"paused": true, "jobs": 2}));
    let r = tick(&env, "2026-02-15T03:00:00Z", Some(FAKE_TURN));
    assert_eq!(r["paused"], true);
    assert_eq!(r["ran"], json!([]));
    assert_eq!(r["skipped"], 2);
    assert_eq!(env.json(&["schedule", "status"], "")["paused"], true);
    env.json(&["schedule", "resume"], "");
    // Per job: pausing `a` leaves `b` running.
    let a = env.json(&["schedule", "pause", "a"], "");
    assert_eq!(a["enabled"], false);
    let r = tick(&env, "2026-02-15T03:00:00Z", Some(FAKE_TURN));
    let ran: Vec<&str> = r["ran"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["job_id"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["b"]);
    // Resumed, `a` (missed while paused) runs once at the next tick.
    assert_eq!(env.json(&["schedule", "resume", "a"], "")["enabled"], true);
    let r = tick(&env, "2026-02-15T03:10:00Z", Some(FAKE_TURN));
    assert_eq!(r["ran"][0]["job_id"], "a");
    assert_eq!(r["ran"].as_array().unwrap().len(), 1);
    assert_eq!(show(&env, "a")["next_run"], "2026-02-15T04:10:00Z");
    env.fails(&["schedule", "pause", "zzz"], "", 4, "not_found");
}

#[test]
fn a_failed_turn_is_recorded_and_the_job_stays_scheduled() {
    let env = TestEnv::new();
    add(
        &env,
        json!({"id":"f","schedule":"@every 10m","message":"m"}),
    );
    let failing = r#"echo 'progress...' >&2; echo '{"error":{"code":"upstream.error","message":"backend said 502","retryable":true}}' >&2; exit 6"#;
    let r = tick(&env, "2026-02-15T00:10:00Z", Some(failing));
    assert_eq!(r["failed"], 1);
    let run = &r["ran"][0];
    assert_eq!(run["status"], "failed");
    assert_eq!(run["exit_code"], 6);
    assert_eq!(run["error"]["code"], "upstream.error");
    assert_eq!(run["error"]["message"], "backend said 502");
    let job = show(&env, "f");
    assert_eq!(job["last_status"], "failed");
    assert_eq!(job["next_run"], "2026-02-15T00:20:00Z");
    assert!(job["enabled"].as_bool().unwrap());
    let h = history(&env, Some("f"));
    assert_eq!(h[0]["error"]["code"], "upstream.error");
    // `run` reports the run and exits with the failure's class.
    let out = bob_with(&env, T0, Some(failing), &["schedule", "run", "f"]);
    assert_eq!(out.status.code(), Some(6));
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["trigger"], "manual");
    assert_eq!(rec["status"], "failed");
    // ...and leaves next_run alone.
    assert_eq!(show(&env, "f")["next_run"], "2026-02-15T00:20:00Z");
}

#[test]
fn the_real_bob_turn_runs_as_the_child_and_its_result_is_recorded() {
    // No override: the job runs `bob turn` through this very binary with no backend set up.
    // Whatever the turn does (it cannot reach a model here), the run is recorded.
    let env = TestEnv::new();
    add(
        &env,
        json!({"id":"real","agentID":"agent_default","schedule":"@every 1m","message":"hello"}),
    );
    let r = tick(&env, "2026-02-15T00:01:00Z", None);
    let run = &r["ran"][0];
    assert_eq!(run["job_id"], "real");
    assert_eq!(run["session"], "job-real");
    let status = run["status"].as_str().unwrap();
    let job = show(&env, "real");
    assert_eq!(job["last_status"], status);
    if status != "ok" {
        assert!(run["error"]["code"].is_string(), "{run}");
        assert!(history(&env, Some("real"))[0]["error"].is_object());
    }
    assert_eq!(job["next_run"], "2026-02-15T00:02:00Z");
}

#[test]
fn a_hung_turn_is_killed_at_its_timeout() {
    let env = TestEnv::new();
    add(
        &env,
        json!({"id":"hang","schedule":"@every 1m","message":"m","timeout_s":1}),
    );
    let pidfile = env.path("grandchild.pid");
    let hang = format!("sleep 60 & echo $! > '{}'; wait", pidfile.display());
    let started = Instant::now();
    let r = tick(&env, "2026-02-15T00:01:00Z", Some(&hang));
    assert!(started.elapsed() < Duration::from_secs(30));
    let run = &r["ran"][0];
    assert_eq!(run["status"], "timeout");
    assert_eq!(run["error"]["code"], "timeout");
    assert_eq!(r["failed"], 1);
    assert_eq!(show(&env, "hang")["last_status"], "timeout");
    // The whole process group went, including the turn's own child.
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while running(pid.trim()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !running(pid.trim()),
        "grandchild {pid} survived the timeout"
    );
    // The runner's --timeout applies to jobs without timeout_s.
    add(
        &env,
        json!({"id":"hang2","schedule":"@every 1m","message":"m"}),
    );
    env.json(&["schedule", "pause", "hang"], "");
    let out = bob_with(
        &env,
        "2026-02-15T00:01:00Z",
        Some("sleep 60"),
        &["schedule", "tick", "--timeout", "1s"],
    );
    let v = ok_json(out, "tick");
    assert_eq!(v["ran"][0]["status"], "timeout");
    // The turn gets SIGTERM first, so it can record its own cancellation.
    env.json(&["schedule", "pause", "hang2"], "");
    add(
        &env,
        json!({"id":"graceful","schedule":"@every 1m","message":"m","timeout_s":1}),
    );
    let marker = env.path("got-term");
    let trap = format!(
        "trap 'echo term > \"{}\"; exit 143' TERM; sleep 60 & wait",
        marker.display()
    );
    let v = tick(&env, "2026-02-15T00:01:00Z", Some(&trap));
    assert_eq!(v["ran"][0]["status"], "timeout");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "term\n");
}

/// Whether a process exists and is not a zombie awaiting its reaper.
fn running(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

#[test]
fn bad_input_is_refused_and_never_damages_jobs() {
    let env = TestEnv::new();
    env.fails(&["schedule", "add"], "{not json", 2, "invalid.request");
    env.fails(&["schedule", "add"], "[1,2]", 2, "invalid.request");
    env.fails(&["schedule", "add"], "", 2, "invalid.request");
    env.fails(&["schedule", "add"], r#"{"id":"x"}"#, 2, "invalid.request");
    env.fails(
        &["schedule", "add"],
        r#"{"schedule":"@every 1m"}"#,
        2,
        "invalid.request",
    );
    env.fails(
        &["schedule", "add"],
        r#"{"id":"../../etc","schedule":"@every 1m"}"#,
        2,
        "invalid.request",
    );
    env.fails(
        &["schedule", "add"],
        r#"{"id":"x","schedule":"@every 1m","agentID":"../a"}"#,
        2,
        "invalid.request",
    );
    env.fails(
        &["schedule", "add"],
        r#"{"id":"x","schedule":"@every 1m","next_run":"2020-01-01T00:00:00Z"}"#,
        2,
        "invalid.request",
    );
    env.fails(
        &["schedule", "add"],
        r#"{"id":"x","schedule":"@every 1m","enabled":"yes"}"#,
        2,
        "invalid.request",
    );
    env.fails(&["schedule", "run", "nope"], "", 4, "not_found");
    env.fails(&["schedule", "history", "nope"], "", 4, "not_found");
    env.fails(
        &["schedule", "update", "nope", "--message", "x"],
        "",
        4,
        "not_found",
    );
    env.fails(
        &["schedule", "tick", "--timeout", "soon"],
        "",
        2,
        "invalid.request",
    );

    // A corrupt jobs.json is reported by every command and left byte for byte.
    let path = env.home().join("schedule/jobs.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let corrupt = b"{\"jobs\": [ {\"id\": \"a\", \"sched";
    std::fs::write(&path, corrupt).unwrap();
    for args in [
        vec!["schedule", "tick"],
        vec!["schedule", "list"],
        vec!["schedule", "pause"],
        vec!["schedule", "rm", "a"],
    ] {
        let e = env.fails(&args, "", 2, "invalid.request");
        assert!(e["message"].as_str().unwrap().contains("corrupt"), "{e}");
    }
    env.fails(
        &["schedule", "add", "--id", "b", "--schedule", "@every 1m"],
        "",
        2,
        "invalid.request",
    );
    assert_eq!(std::fs::read(&path).unwrap(), corrupt);
}

#[test]
fn history_reports_torn_lines_without_dropping_records() {
    let env = TestEnv::new();
    add(&env, json!({"id":"h","schedule":"@every 1m","message":"m"}));
    tick(&env, "2026-02-15T00:01:00Z", Some(FAKE_TURN));
    let path = env.home().join("schedule/history.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"job_id\":\"h\",\"trig");
    std::fs::write(&path, text).unwrap();
    let out = env.bob(&["schedule", "history", "h"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("torn"));
    // The next append seals the torn line rather than gluing onto it.
    tick(&env, "2026-02-15T00:02:00Z", Some(FAKE_TURN));
    assert_eq!(history(&env, Some("h")).len(), 2);
    assert_eq!(
        env.jsonl(&["schedule", "history", "--limit", "1"], "")
            .len(),
        1
    );
}

#[test]
fn daemon_ticks_and_stops_cleanly_on_sigterm() {
    let env = TestEnv::new();
    add(&env, json!({"id":"d","schedule":"@every 1m","message":"m"}));
    let bob = assert_cmd::cargo::cargo_bin("bob");
    let child = std::process::Command::new(&bob)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("BOB_HOME", env.home())
        .env("BOB_NOW", "2026-02-15T00:01:00Z")
        .env("BOB_SCHEDULE_TURN_CMD", FAKE_TURN)
        .args(["schedule", "daemon", "--interval", "1s"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while history(&env, None).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    // Let it tick again (nothing due: the clock is pinned) before stopping it.
    std::thread::sleep(Duration::from_millis(1200));
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "one report per tick that ran something");
    assert_eq!(lines[0]["ran"][0]["job_id"], "d");
    assert_eq!(history(&env, None).len(), 1);
}

#[test]
fn install_prints_cron_and_systemd_with_absolute_paths() {
    let env = TestEnv::new();
    let out = env
        .bob(&["schedule", "install", "--cron"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    let bob = assert_cmd::cargo::cargo_bin("bob");
    assert!(
        line.starts_with(&format!("* * * * * {} --home ", bob.display())),
        "{line}"
    );
    assert!(
        line.contains(&format!("{} schedule tick", env.home().display())),
        "{line}"
    );
    let out = env
        .bob(&["schedule", "install", "--systemd"])
        .output()
        .unwrap();
    let units = String::from_utf8(out.stdout).unwrap();
    assert!(units.contains(&format!(
        "ExecStart={} --home {} schedule tick",
        bob.display(),
        env.home().display()
    )));
    assert!(units.contains("[Timer]"));
    env.fails(&["schedule", "install"], "", 2, "invalid.request");
}

#[test]
fn run_runs_a_paused_job_now_and_update_changes_settable_fields() {
    let env = TestEnv::new();
    let file = env.write(
        "job.json",
        r#"{"id":"m","schedule":"@every 1h","message":"old"}"#,
    );
    env.json(&["schedule", "add", "--input", file.to_str().unwrap()], "");
    env.json(&["schedule", "pause"], "");
    env.json(&["schedule", "pause", "m"], "");
    let out = bob_with(
        &env,
        "2026-02-15T00:20:00Z",
        Some(FAKE_TURN),
        &["schedule", "run", "m"],
    );
    let run = ok_json(out, "run");
    assert_eq!(run["status"], "ok");
    assert_eq!(run["trigger"], "manual");
    assert!(run.get("due").is_none());
    let job = show(&env, "m");
    assert_eq!(job["lastRun"], "2026-02-15T00:20:00Z");
    assert_eq!(job["last_run_id"], "run_fake");
    assert_eq!(job["next_run"], "2026-02-15T01:00:00Z");
    assert_eq!(job["enabled"], false);

    let u = env.json(
        &["schedule", "update", "m"],
        r#"{"message":"new","agentID":"agent_b","timeout_s":9}"#,
    );
    assert_eq!(u["message"], "new");
    assert_eq!(u["agentID"], "agent_b");
    assert_eq!(u["timeout_s"], 9);
    assert_eq!(u["next_run"], "2026-02-15T01:00:00Z");
    // A new interval is placed from the last run.
    let u = env.json(&["schedule", "update", "m", "--schedule", "@every 5m"], "");
    assert_eq!(u["next_run"], "2026-02-15T00:25:00Z");
    env.fails(
        &["schedule", "update", "m"],
        r#"{"last_status":"ok"}"#,
        2,
        "invalid.request",
    );
    env.fails(
        &["schedule", "update", "m"],
        r#"{"id":"other"}"#,
        2,
        "invalid.request",
    );
    let st = env.json(&["schedule", "status"], "");
    assert_eq!(st["jobs"], 1);
    assert_eq!(st["enabled"], 0);
    assert_eq!(st["paused"], true);
}

#[test]
fn a_hand_written_seed_array_of_jobs_is_read_and_placed_by_schedule() {
    let env = TestEnv::new();
    let path = env.home().join("schedule/jobs.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        r#"[
  {"id":"job_daily_report","agentID":"agent_default","schedule":"@every 1h",
   "message":"Generate status report","enabled":true,"lastRun":"2026-02-14T22:30:00Z"},
  {"id":"fresh","schedule":"@every 1h","message":"m"},
  {"id":"later","schedule":"@every 1h","message":"m","lastRun":"2026-02-14T23:59:00Z"},
  {"id":"shot","schedule":"2026-02-14T12:00:00Z","message":"m"}
]"#,
    )
    .unwrap();
    assert_eq!(env.jsonl(&["schedule", "list"], "").len(), 4);
    let r = tick(&env, T0, Some(FAKE_TURN));
    let mut ran: Vec<&str> = r["ran"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["job_id"].as_str().unwrap())
        .collect();
    ran.sort();
    assert_eq!(ran, ["fresh", "job_daily_report", "shot"]);
    // Written back in the object form, with the bookkeeping filled in.
    let file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(file["paused"], false);
    assert_eq!(file["jobs"][0]["next_run"], "2026-02-15T01:00:00Z");
    assert_eq!(file["jobs"][2].get("next_run"), None);
    assert_eq!(file["jobs"][3]["enabled"], false);
    // A wrong shape is reported with its position and left alone.
    std::fs::write(&path, r#"{"jobs": 5}"#).unwrap();
    let e = env.fails(&["schedule", "list"], "", 2, "invalid.request");
    assert!(e["message"].as_str().unwrap().contains("corrupt"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"jobs": 5}"#);
}

#[test]
fn a_due_job_runs_a_real_bob_turn_with_the_replay_backend() {
    let env = TestEnv::new();
    let script = env.write(
        "replay.jsonl",
        "{\"role\":\"think\",\"content\":\"Nothing to look up.\"}\n{\"role\":\"respond\",\"content\":\"done\"}\n",
    );
    add(
        &env,
        json!({"id":"report","agentID":"agent_sched","schedule":"@every 1h","message":"Generate status report"}),
    );
    let out = env
        .bob(&["schedule", "tick"])
        .env("BOB_NOW", "2026-02-15T01:00:00Z")
        .env("BOB_BACKEND", format!("replay:{}", script.display()))
        .output()
        .unwrap();
    let r = ok_json(out, "tick");
    let run = &r["ran"][0];
    assert_eq!(run["status"], "ok", "{r}");
    assert_eq!(run["turn_status"], "completed");
    assert_eq!(r["failed"], 0);
    let run_id = run["run_id"].as_str().expect("run_id").to_string();
    assert!(!run_id.is_empty());
    let job = show(&env, "report");
    assert_eq!(job["last_status"], "ok");
    assert_eq!(job["last_run_id"], run_id.as_str());
    assert_eq!(job["next_run"], "2026-02-15T02:00:00Z");
    // The turn ran in the job's session, as its agent, with its message.
    let turns = std::fs::read_to_string(env.home().join("turns.jsonl")).unwrap();
    let record: Value = serde_json::from_str(turns.lines().last().unwrap()).unwrap();
    assert_eq!(record["run_id"], run_id.as_str());
    assert_eq!(record["session_id"], "job-report");
    assert_eq!(record["agent_id"], "agent_sched");
    assert_eq!(record["output"], "done");
    assert_eq!(history(&env, Some("report"))[0]["run_id"], run_id.as_str());
}
