//! The durable primitives under real processes: crash safety (SIGKILL mid-stream), concurrent
//! appenders, and hash-chain verification/repair through `bob ledger`.

use crate::TestEnv;
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `bob ARGS` as a std Command (for spawning and killing), with the TestEnv environment.
pub fn bob_std(env: &TestEnv, args: &[&str]) -> Command {
    env.std_command(args)
}

/// The lines of a file (no newlines); a missing file has none.
pub fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn events(proc_id: usize, n: usize) -> String {
    (0..n)
        .map(|i| format!("{}\n", json!({"kind":"load","data":{"proc":proc_id,"i":i}})))
        .collect()
}

#[test]
fn sigkill_mid_stream_leaves_whole_records_and_a_torn_tail_is_reported_then_sealed() {
    let env = TestEnv::new();
    let path = env.home().join("traces/crash.jsonl");
    let mut child = bob_std(&env, &["trace", "emit", "--session", "crash"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        // Errors are expected once the child is killed.
        let _ = stdin.write_all(events(0, 20_000).as_bytes());
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while read_lines(&path).len() < 300 {
        assert!(Instant::now() < deadline, "emit made no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    feeder.join().unwrap();

    let bytes = std::fs::read(&path).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let torn = !text.ends_with('\n');
    let whole: Vec<&str> = text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .collect();
    assert!(
        whole.len() >= 300 && whole.len() < 20_000,
        "{}",
        whole.len()
    );
    for (i, l) in whole.iter().enumerate() {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("line {i}: {e}: {l}"));
        // Records are whole and in order: none lost before the kill point.
        assert_eq!(v["data"]["i"], i, "line {}", i + 1);
        assert_eq!(v["kind"], "load");
    }
    // A kill can leave at most one torn last line; plant one (as a crash inside write(2)
    // would) if the kill happened between records, so its handling is always exercised.
    if !torn {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"ts\":1771113600.0,\"kind\":\"lo").unwrap();
    }
    let n_whole = whole.len() as u64;
    let st = env.json(&["trace", "stats", "--session", "crash"], "");
    assert_eq!(st["events"], n_whole);
    assert_eq!(st["torn"], true);
    assert_eq!(st["bad_lines"], 1);
    let out = env
        .bob(&["trace", "query", "--session", "crash", "--kind", "load"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count() as u64,
        n_whole
    );
    let warn: Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stderr).lines().next().unwrap()).unwrap();
    assert_eq!(warn["warning"]["kind"], "torn");
    assert_eq!(warn["warning"]["line"], n_whole + 1);

    // The next append seals the torn line and lands as its own whole record.
    env.json(
        &["trace", "emit", "--session", "crash", "--kind", "after"],
        "",
    );
    let lines = read_lines(&path);
    assert_eq!(lines.len() as u64, n_whole + 2);
    let last: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(last["kind"], "after");
    assert_eq!(
        env.jsonl(
            &["trace", "query", "--session", "crash", "--kind", "after"],
            ""
        )
        .len(),
        1
    );
    let st = env.json(&["trace", "stats", "--session", "crash"], "");
    assert_eq!(st["events"], n_whole + 1);
    assert_eq!(st["torn"], false);
    assert_eq!(
        st["bad_lines"], 1,
        "the sealed torn line stays reported as damaged"
    );
}

#[test]
fn four_processes_appending_concurrently_lose_and_tear_nothing() {
    let env = TestEnv::new();
    let mut children = Vec::new();
    for p in 0..4 {
        let child = bob_std(&env, &["trace", "emit", "--session", "conc"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        children.push((p, child));
    }
    // Feed all four at once so their appends interleave.
    let feeders: Vec<_> = children
        .iter_mut()
        .map(|(p, c)| {
            let mut stdin = c.stdin.take().unwrap();
            let input = events(*p, 1000);
            std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap())
        })
        .collect();
    for f in feeders {
        f.join().unwrap();
    }
    for (p, c) in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "proc {p}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["appended"], 1000);
    }
    let bytes = std::fs::read(env.home().join("traces/conc.jsonl")).unwrap();
    assert_eq!(bytes.last(), Some(&b'\n'));
    let text = String::from_utf8(bytes).unwrap();
    let mut seen = HashSet::new();
    let mut last_i = [-1i64; 4];
    for l in text.lines() {
        let v: Value =
            serde_json::from_str(l).unwrap_or_else(|e| panic!("torn or glued line {l:?}: {e}"));
        let (p, i) = (
            v["data"]["proc"].as_u64().unwrap(),
            v["data"]["i"].as_i64().unwrap(),
        );
        assert!(seen.insert((p, i)), "duplicate ({p}, {i})");
        assert!(i > last_i[p as usize], "proc {p} out of order");
        last_i[p as usize] = i;
    }
    assert_eq!(seen.len(), 4000);
    let st = env.json(&["trace", "stats", "--session", "conc"], "");
    assert_eq!(st["events"], 4000);
    assert_eq!(st["bad_lines"], 0);
}

fn keys(env: &TestEnv) -> bob::chain::Keyring {
    bob::chain::Keyring::open(&env.home()).unwrap()
}

fn chained_log(env: &TestEnv, n: usize) -> std::path::PathBuf {
    let path = env.path("ledger.jsonl");
    let keys = keys(env);
    for i in 0..n {
        let mut rec = Map::new();
        rec.insert("event".into(), json!("approve"));
        rec.insert("candidate".into(), json!(format!("c{i}")));
        bob::chain::append(&keys, &path, rec).unwrap();
    }
    path
}

/// Runs `bob ledger verify FILE`; returns (exit code, report row).
fn verify(env: &TestEnv, path: &Path) -> (i32, Value) {
    let out = env
        .bob(&["ledger", "verify", path.to_str().unwrap()])
        .output()
        .unwrap();
    let row = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "verify stdout ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    if !out.status.success() {
        let err: Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stderr).lines().last().unwrap())
                .unwrap();
        assert_eq!(err["error"]["code"], "conflict");
    }
    (out.status.code().unwrap(), row)
}

fn rewrite(path: &Path, f: impl FnOnce(&mut Vec<String>)) {
    let mut lines = read_lines(path);
    f(&mut lines);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

#[test]
fn hash_chain_finds_edits_deletions_and_reordering() {
    let env = TestEnv::new();
    let path = chained_log(&env, 6);
    let (code, row) = verify(&env, &path);
    assert_eq!(
        (code, row["ok"].clone(), row["verified"].clone()),
        (0, json!(true), json!(6))
    );
    let pristine = std::fs::read(&path).unwrap();

    // Edit line 3's content.
    rewrite(&path, |l| l[2] = l[2].replace("\"c2\"", "\"c9\""));
    let (code, row) = verify(&env, &path);
    assert_eq!((code, row["first_bad_line"].clone()), (5, json!(3)));
    assert!(row["reason"].as_str().unwrap().contains("edited"));

    // Delete line 4.
    std::fs::write(&path, &pristine).unwrap();
    rewrite(&path, |l| {
        l.remove(3);
    });
    let (code, row) = verify(&env, &path);
    assert_eq!((code, row["first_bad_line"].clone()), (5, json!(4)));

    // Swap lines 2 and 3.
    std::fs::write(&path, &pristine).unwrap();
    rewrite(&path, |l| l.swap(1, 2));
    let (code, row) = verify(&env, &path);
    assert_eq!((code, row["first_bad_line"].clone()), (5, json!(2)));

    // Delete the last line: the head anchor notices.
    std::fs::write(&path, &pristine).unwrap();
    rewrite(&path, |l| {
        l.pop();
    });
    let (code, row) = verify(&env, &path);
    assert_eq!(code, 5);
    assert_eq!(row["ok"], false);
}

#[test]
fn torn_chain_tail_verifies_up_to_it_and_repair_moves_it_aside() {
    let env = TestEnv::new();
    let path = chained_log(&env, 3);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"{\"event\":\"approve\",\"candi").unwrap();
    drop(f);
    let (code, row) = verify(&env, &path);
    assert_eq!(code, 0);
    assert_eq!(row["ok"], true);
    assert_eq!(row["verified"], 3);
    assert_eq!(row["torn_line"], 4);
    // Appending to a chain with a torn tail is refused until repaired.
    let err = bob::chain::append(&keys(&env), &path, Map::new()).unwrap_err();
    assert_eq!(err.code.as_str(), "conflict");
    let rep = env.json(&["ledger", "repair", path.to_str().unwrap()], "");
    assert_eq!(rep["repaired"], true);
    let side = rep["torn_saved_to"].as_str().unwrap();
    assert_eq!(
        std::fs::read_to_string(side).unwrap(),
        "{\"event\":\"approve\",\"candi"
    );
    let (code, row) = verify(&env, &path);
    assert_eq!((code, row["torn_line"].clone()), (0, Value::Null));
    bob::chain::append(&keys(&env), &path, Map::new()).unwrap();
    let (code, row) = verify(&env, &path);
    assert_eq!((code, row["verified"].clone()), (0, json!(4)));
    // Repairing a whole log changes nothing.
    let rep = env.json(&["ledger", "repair", path.to_str().unwrap()], "");
    assert_eq!(rep["repaired"], false);
}
