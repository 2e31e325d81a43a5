//! `bob schedule` on two homes sharing one PostgreSQL database: one set of jobs, and ticks run
//! by cron on both machines at the same second run each due job once.

use crate::TestEnv;
use crate::support::pg;
use serde_json::{Value, json};

/// A stand-in for `bob turn` that logs each call to `$CALLS` and prints a turn record.
const FAKE_TURN: &str = r#"sleep 1; echo "$BOB_SCHEDULE_JOB_ID" >> "$CALLS"; cat > /dev/null; echo '{"run_id":"run_fake","status":"ok","output":"done"}'"#;

#[test]
fn ticks_on_two_homes_at_the_same_second_run_each_due_job_once() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let url = db.url();
    let (a, b) = (TestEnv::new(), TestEnv::new());
    let bob = |env: &TestEnv, args: &[&str]| {
        let mut c = env.bob(args);
        c.env("BOB_DATABASE_URL", &url);
        c
    };
    for id in ["j1", "j2", "j3"] {
        let out = bob(&a, &["schedule", "add"])
            .write_stdin(json!({"id": id, "schedule": "@every 1m", "message": "m"}).to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The other home sees the jobs added on the first; neither home holds a jobs.json.
    let listed = bob(&b, &["schedule", "list"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&listed.stdout).lines().count(), 3);
    assert!(!a.home().join("schedule/jobs.json").exists());

    let now = "2026-02-15T00:05:00Z";
    let spawn = |env: &TestEnv| {
        env.std_command(&["schedule", "tick"])
            .env("BOB_DATABASE_URL", &url)
            .env("BOB_NOW", now)
            .env("BOB_SCHEDULE_TURN_CMD", FAKE_TURN)
            .env("CALLS", env.dir.path().join("calls.log"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children = vec![spawn(&a), spawn(&b), spawn(&a), spawn(&b)];
    let mut ran = Vec::new();
    let mut reports = Vec::new();
    for c in children {
        let out = crate::env::succeeded(c);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        for r in v["ran"].as_array().unwrap() {
            ran.push(r["job_id"].as_str().unwrap().to_string());
        }
        reports.push(v);
    }
    ran.sort();
    assert_eq!(ran, ["j1", "j2", "j3"], "each due job ran exactly once");
    let calls = |env: &TestEnv| {
        std::fs::read_to_string(env.dir.path().join("calls.log"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    assert_eq!(calls(&a) + calls(&b), 3, "{reports:#?}");
    // Every job's result is in the shared store, whichever node ran it.
    for id in ["j1", "j2", "j3"] {
        let out = bob(&b, &["schedule", "show", id]).output().unwrap();
        let j: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["last_status"], "ok", "{j}");
        assert_eq!(j["next_run"], "2026-02-15T00:06:00Z", "{j}");
    }
    // A second tick at the same time finds nothing due on either node.
    for env in [&a, &b] {
        let out = bob(env, &["schedule", "tick"])
            .env("BOB_NOW", now)
            .env("BOB_SCHEDULE_TURN_CMD", FAKE_TURN)
            .env("CALLS", env.dir.path().join("calls.log"))
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["ran"], json!([]), "{v}");
    }
}
