//! Integrity through the binary: keyed hash chains and their manifest (every tamper case),
//! audit before delivery (SIGKILL loops, a torn or unwritable audit log, a broken pipe), and
//! ledger → database crash recovery (a simulated crash and a SIGKILL loop).

use crate::env::{TestEnv, error_of};
use rand::Rng;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// helpers

/// `bob ledger verify ARGS`: (exit code, one report per file).
fn verify(env: &TestEnv, args: &[&str]) -> (i32, Vec<Value>) {
    let mut a = vec!["ledger", "verify"];
    a.extend_from_slice(args);
    let out = env.bob(&a).output().unwrap();
    let rows = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    if !out.status.success() {
        error_of(&out, 5, "conflict");
    }
    (out.status.code().unwrap(), rows)
}

fn row_for<'a>(rows: &'a [Value], suffix: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["path"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no report for {suffix}: {rows:?}"))
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// Recomputes a chain from scratch the way someone without the key would: plain SHA-256 of
/// every record without its hash, `prev` relinked.
fn recompute_unkeyed(lines: &mut [String]) {
    let mut prev = "0".repeat(64);
    for (i, l) in lines.iter_mut().enumerate() {
        let mut m: Map<String, Value> = serde_json::from_str(l).unwrap();
        m.shift_remove("hash");
        m.insert("seq".into(), json!(i));
        m.insert("prev".into(), json!(prev));
        let hash = hex::encode(Sha256::digest(serde_json::to_vec(&m).unwrap()));
        m.insert("hash".into(), json!(hash));
        prev = hash;
        *l = serde_json::to_string(&m).unwrap();
    }
}

fn propose(env: &TestEnv, texts: &[String]) -> Vec<String> {
    let items: Vec<Value> = texts.iter().map(|t| json!({"text": t})).collect();
    env.jsonl(&["memory", "propose"], &Value::Array(items).to_string())
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// A home with a ledger of `n` approvals.
fn ledger_with(env: &TestEnv, n: usize) -> PathBuf {
    let texts: Vec<String> = (0..n).map(|i| format!("fact number {i}")).collect();
    for id in propose(env, &texts) {
        env.json(&["memory", "approve", &id], "");
    }
    env.home().join("memory_approvals.jsonl")
}

fn root(env: &TestEnv) -> PathBuf {
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    // 2 KB per result, so a run of a few thousand reads delivers in several flushed batches.
    std::fs::write(root.join("a.txt"), "alpha beta gamma delta\n".repeat(90)).unwrap();
    root
}

fn reads(prefix: &str, n: usize) -> String {
    let calls: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("{prefix}{i}"), "tool": "fs.read_text", "args": {"path": "a.txt"}}))
        .collect();
    Value::Array(calls).to_string()
}

fn tool_run_args(root: &Path) -> Vec<String> {
    [
        "tool",
        "run",
        "--enable-all",
        "--root",
        root.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Every whole record of every audit day file of the home.
fn audit_events(env: &TestEnv) -> Vec<Value> {
    let mut out = Vec::new();
    for f in bob::chain::discover(&env.home()) {
        if f.file_name().unwrap() == "memory_approvals.jsonl" {
            continue;
        }
        let log = bob::store::read_jsonl(&f).unwrap();
        out.extend(log.records.into_iter().map(|(_, v)| v));
    }
    out
}

fn audited_results(env: &TestEnv) -> HashSet<String> {
    audit_events(env)
        .iter()
        .filter(|e| e["event_type"] == "tool.result")
        .map(|e| e["payload"]["request_id"].as_str().unwrap().to_string())
        .collect()
}

/// Complete response lines of a stdout capture (a kill may cut the last one).
fn delivered(path: &Path) -> Vec<Value> {
    let text = std::fs::read(path).unwrap();
    text.split(|b| *b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .collect()
}

/// Repairs every chained log whose tail a kill tore, after checking that verify reports the
/// torn record and does not count it as verified.
fn repair_torn(env: &TestEnv) -> usize {
    let mut repaired = 0;
    for f in bob::chain::discover(&env.home()) {
        let bytes = std::fs::read(&f).unwrap();
        if bytes.last().is_none_or(|b| *b == b'\n') {
            continue;
        }
        let path = f.to_str().unwrap();
        let (code, rows) = verify(env, &[path]);
        let r = &rows[0];
        assert_eq!((code, r["ok"].clone()), (0, json!(true)), "{r}");
        let whole = bytes.iter().filter(|b| **b == b'\n').count();
        assert_eq!(
            r["verified"], whole as u64,
            "a torn record was counted: {r}"
        );
        assert_eq!(r["torn_line"], whole as u64 + 1, "{r}");
        env.json(&["ledger", "repair", path], "");
        repaired += 1;
    }
    repaired
}

// ---------------------------------------------------------------------------------------
// tamper evidence

#[test]
fn every_tamper_case_is_detected() {
    let env = TestEnv::new();
    let ledger = ledger_with(&env, 5);
    let key = std::fs::read(env.home().join("keys/chain.key")).unwrap();
    let (code, rows) = verify(&env, &["--all"]);
    // The approval ledger, and the human acts' audit log (one event per approval).
    assert_eq!((code, rows.len()), (0, 2), "{rows:?}");
    let r = row_for(&rows, "memory_approvals.jsonl");
    assert_eq!(r["integrity"], "keyed");
    assert_eq!(r["verified"], 5);
    let r = row_for(&rows, "audit/human/2026-02-15.jsonl");
    assert_eq!((&r["ok"], &r["verified"]), (&json!(true), &json!(5)), "{r}");
    let pristine = std::fs::read(&ledger).unwrap();
    let manifest = std::fs::read(env.home().join("keys/manifest.json")).unwrap();
    let restore = || {
        std::fs::write(&ledger, &pristine).unwrap();
        std::fs::write(env.home().join("keys/manifest.json"), &manifest).unwrap();
    };
    let broken = |what: &str, line: Option<u64>| {
        let (code, rows) = verify(&env, &[]);
        assert_eq!(code, 5, "{what} not detected: {rows:?}");
        let r = row_for(&rows, "memory_approvals.jsonl");
        assert_eq!(r["ok"], false, "{what}: {r}");
        if let Some(l) = line {
            assert_eq!(r["first_bad_line"], l, "{what}: {r}");
        }
        r["reason"].as_str().unwrap().to_string()
    };
    let mut detected = 0;

    // 1. An edited line.
    let mut l = lines(&ledger);
    l[2] = l[2].replace("\"approve\"", "\"reject\"");
    write_lines(&ledger, &l);
    assert!(broken("edit", Some(3)).contains("edited"));
    detected += 1;
    restore();
    // 2. A deleted line.
    let mut l = lines(&ledger);
    l.remove(1);
    write_lines(&ledger, &l);
    broken("deletion", Some(2));
    detected += 1;
    restore();
    // 3. Reordered lines.
    let mut l = lines(&ledger);
    l.swap(1, 2);
    write_lines(&ledger, &l);
    broken("reorder", Some(2));
    detected += 1;
    restore();
    // 4. The tail deleted (with any `.head` anchor beside it).
    let mut l = lines(&ledger);
    l.truncate(3);
    write_lines(&ledger, &l);
    let _ = std::fs::remove_file(env.home().join("memory_approvals.jsonl.head"));
    assert!(broken("tail + head deleted", None).contains("tail deleted"));
    // and bob refuses to append on top of it
    let id = propose(&env, &["another fact".into()]).remove(0);
    env.fails(&["memory", "approve", &id], "", 5, "conflict");
    detected += 1;
    restore();
    // 5. The chain recomputed from scratch without the key, after an edit.
    let mut l = lines(&ledger);
    l[1] = l[1].replace("\"approve\"", "\"reject\"");
    recompute_unkeyed(&mut l);
    write_lines(&ledger, &l);
    assert!(broken("recomputed chain", Some(1)).contains("without the key"));
    detected += 1;
    restore();
    // 6. The manifest edited (an attacker lowering the anchor to hide a deleted tail).
    let mut l = lines(&ledger);
    l.truncate(4);
    write_lines(&ledger, &l);
    let text = String::from_utf8(manifest.clone()).unwrap();
    let edited = text.replace("\"seq\": 4", "\"seq\": 3");
    assert_ne!(edited, text);
    std::fs::write(env.home().join("keys/manifest.json"), edited).unwrap();
    assert!(broken("manifest edited", None).contains("mac"));
    detected += 1;
    restore();
    // 7. The manifest deleted.
    std::fs::remove_file(env.home().join("keys/manifest.json")).unwrap();
    assert!(broken("manifest deleted", None).contains("missing"));
    detected += 1;
    restore();
    assert_eq!(verify(&env, &[]).0, 0, "restored");

    // 8. A whole audit day file deleted.
    let root = root(&env);
    let args = tool_run_args(&root);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut day1 = env.bob(&args);
    day1.env("BOB_NOW", "2026-02-14T12:00:00Z");
    assert!(
        day1.write_stdin(reads("d1_", 3))
            .output()
            .unwrap()
            .status
            .success()
    );
    env.jsonl(&args, &reads("d2_", 3));
    let (code, rows) = verify(&env, &["--all"]);
    // The ledger, two audit days of the agent, and the human acts' log.
    assert_eq!((code, rows.len()), (0, 4), "{rows:?}");
    let day_file = env.home().join("audit/agent_default/2026-02-14.jsonl");
    std::fs::remove_file(&day_file).unwrap();
    let (code, rows) = verify(&env, &["--all"]);
    assert_eq!(code, 5);
    let r = row_for(&rows, "2026-02-14.jsonl");
    assert_eq!(
        (r["ok"].clone(), r["integrity"].clone()),
        (json!(false), json!("missing"))
    );
    assert!(r["reason"].as_str().unwrap().contains("file deleted"));
    assert_eq!(row_for(&rows, "agent_default/2026-02-15.jsonl")["ok"], true);
    assert_eq!(row_for(&rows, "memory_approvals.jsonl")["ok"], true);
    detected += 1;

    // 9. An unlisted log planted in the home (written without the key).
    let planted = env.home().join("audit/agent_x/2026-02-15.jsonl");
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    let mut l = lines(&env.home().join("audit/agent_default/2026-02-15.jsonl"));
    recompute_unkeyed(&mut l);
    write_lines(&planted, &l);
    let (_, rows) = verify(&env, &["--all"]);
    let r = row_for(&rows, "agent_x/2026-02-15.jsonl");
    assert_eq!(r["ok"], false);
    assert!(r["reason"].as_str().unwrap().contains("not listed"));
    detected += 1;
    assert_eq!(detected, 9);

    // The key never appears in any output or log.
    let hexkey = hex::encode(&key);
    for f in crate::support::files_under(&env.home()) {
        if f.ends_with("keys/chain.key") {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        assert!(!text.contains(&hexkey), "key leaked into {}", f.display());
    }
}

#[test]
fn the_key_is_owner_only_and_created_by_the_first_append_not_by_verify() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.fails(&["ledger", "verify", "--all"], "", 4, "not_found");
    assert!(!env.home().join("keys").exists(), "verify created the key");
    ledger_with(&env, 1);
    let mode = |p: &str| {
        std::fs::metadata(env.home().join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("keys"), 0o700);
    assert_eq!(mode("keys/chain.key"), 0o600);
    assert_eq!(
        std::fs::read(env.home().join("keys/chain.key"))
            .unwrap()
            .len(),
        32
    );
}

#[test]
fn legacy_unkeyed_logs_fail_verify_and_writers_until_a_rekey_adopts_them() {
    let env = TestEnv::new();
    // A ledger written before keys existed: plain SHA-256 links and a `.head` anchor.
    let ledger = env.home().join("memory_approvals.jsonl");
    std::fs::create_dir_all(env.home()).unwrap();
    let mut l: Vec<String> = (0..3)
        .map(|i| {
            json!({"kind": "gc", "ts": "2026-01-01T00:00:00Z", "actor": "x", "user": "*", "n": i})
                .to_string()
        })
        .collect();
    recompute_unkeyed(&mut l);
    write_lines(&ledger, &l);
    let last: Value = serde_json::from_str(&l[2]).unwrap();
    std::fs::write(
        env.home().join("memory_approvals.jsonl.head"),
        json!({"seq": 2, "hash": last["hash"]}).to_string(),
    )
    .unwrap();
    // Unkeyed records fail unless accepted explicitly, and are then still named.
    let (code, rows) = verify(&env, &[]);
    assert_eq!(code, 5, "{rows:?}");
    assert_eq!(rows[0]["integrity"], "legacy");
    assert!(
        rows[0]["reason"]
            .as_str()
            .unwrap()
            .contains("--allow-legacy")
    );
    let (code, rows) = verify(&env, &["--allow-legacy"]);
    assert_eq!(code, 0, "{rows:?}");
    assert_eq!(rows[0]["legacy_records"], 3);
    assert!(rows[0]["warning"].as_str().unwrap().contains("recomputed"));
    // Legacy checks still hold: a deleted tail is caught by the old `.head`.
    let pristine = std::fs::read(&ledger).unwrap();
    write_lines(&ledger, &l[..2]);
    assert_eq!(verify(&env, &["--allow-legacy"]).0, 5);
    std::fs::write(&ledger, &pristine).unwrap();

    // No writer adopts them: the key is not created behind the user's back.
    let id = propose(&env, &["a fact".into()]).remove(0);
    env.fails(&["memory", "approve", &id], "", 5, "conflict");
    assert!(!env.home().join("keys/chain.key").exists());

    // A human rekey adopts the legacy prefix; writes go on under the new key.
    let done = env.json(&["ledger", "rekey"], "");
    assert_eq!(
        (&done["epoch"], &done["key"]),
        (&json!(1), &json!("created"))
    );
    assert_eq!(done["previous_key"], "none");
    env.json(&["memory", "approve", &id], "");
    let (code, _) = verify(&env, &[]);
    assert_eq!(code, 5, "the legacy prefix still needs --allow-legacy");
    let (code, rows) = verify(&env, &["--allow-legacy"]);
    assert_eq!(code, 0, "{rows:?}");
    let r = row_for(&rows, "memory_approvals.jsonl");
    assert_eq!(r["integrity"], "mixed");
    assert_eq!(
        (&r["legacy_records"], &r["verified"]),
        (&json!(3), &json!(4))
    );
    // The rekey is a human act in the audit log.
    let acts = std::fs::read_to_string(env.home().join("audit/human/2026-02-15.jsonl")).unwrap();
    assert!(acts.contains("\"event_type\":\"ledger.rekey\""), "{acts}");
    // Rewriting the legacy prefix now (recomputed, unkeyed) is detected.
    let mut l = lines(&ledger);
    l[0] = l[0].replace("\"actor\":\"x\"", "\"actor\":\"y\"");
    let mut prefix = l[..3].to_vec();
    recompute_unkeyed(&mut prefix);
    l[..3].clone_from_slice(&prefix);
    write_lines(&ledger, &l);
    let (code, rows) = verify(&env, &["--allow-legacy"]);
    assert_eq!(code, 5);
    assert_eq!(row_for(&rows, "memory_approvals.jsonl")["ok"], false);
}

// ---------------------------------------------------------------------------------------
// audit before delivery

#[test]
fn a_torn_or_unwritable_audit_log_stops_the_run_before_any_tool_runs() {
    let env = TestEnv::new();
    let root = root(&env);
    let args = tool_run_args(&root);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    env.jsonl(&args, &reads("first_", 1));
    let day = env.home().join("audit/agent_default/2026-02-15.jsonl");
    let mut f = std::fs::OpenOptions::new().append(true).open(&day).unwrap();
    std::io::Write::write_all(&mut f, b"{\"event_id\":\"evt_torn").unwrap();
    drop(f);
    let mut calls: Vec<Value> = serde_json::from_str(&reads("r", 1000)).unwrap();
    calls.insert(
        0,
        json!({"id": "w", "tool": "fs.write_text", "args": {"path": "written.txt", "text": "x"}}),
    );
    let stdin = Value::Array(calls).to_string();
    let out = env.bob(&args).write_stdin(stdin.clone()).output().unwrap();
    let err = error_of(&out, 5, "conflict");
    assert!(err["message"].as_str().unwrap().contains("torn"), "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("bob ledger repair")
    );
    assert!(
        out.stdout.is_empty(),
        "results delivered: {}",
        out.stdout.len()
    );
    assert!(!root.join("written.txt").exists(), "a tool ran");

    // Unwritable: the day's audit file cannot be opened for appending.
    env.json(&["ledger", "repair", day.to_str().unwrap()], "");
    let mut next = env.bob(&args);
    next.env("BOB_NOW", "2026-02-16T00:00:00Z");
    std::fs::create_dir_all(env.home().join("audit/agent_default/2026-02-16.jsonl")).unwrap();
    let out = next.write_stdin(stdin.clone()).output().unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    assert!(!root.join("written.txt").exists(), "a tool ran");
    // After the repair the original day's log takes appends again.
    let rows = env.jsonl(&args, &stdin);
    assert_eq!(rows.len(), 1001);
    assert!(root.join("written.txt").exists());
}

#[test]
fn a_broken_pipe_exits_0_with_every_executed_call_audited() {
    let env = TestEnv::new();
    let root = root(&env);
    let calls = env.write("calls.json", &reads("p", 4000));
    let bob = assert_cmd::cargo::cargo_bin("bob");
    let script = format!(
        "{} tool run --enable-all --root {} < {} | head -c 1; exit ${{PIPESTATUS[0]}}",
        bob.display(),
        root.display(),
        calls.display()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("BOB_HOME", env.home())
        .env("BOB_NOW", &env.now)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"{");
    // The reader closed the pipe after the first result: that result, and every call that
    // executed, is in the audit log (as a call/result pair), and the chain verifies.
    let events = audit_events(&env);
    let called: HashSet<&str> = events
        .iter()
        .filter(|e| e["event_type"] == "tool.call")
        .map(|e| e["payload"]["request_id"].as_str().unwrap())
        .collect();
    let results = audited_results(&env);
    assert!(
        results.contains("p0"),
        "the delivered result was not audited"
    );
    assert_eq!(called.len(), results.len());
    assert!(
        results.len() < 4000,
        "the run did not stop at the closed pipe"
    );
    assert_eq!(verify(&env, &["--all"]).0, 0);
}

#[test]
fn sigkill_at_random_instants_never_delivers_an_unaudited_result() {
    let env = TestEnv::new();
    let root = root(&env);
    let args = tool_run_args(&root);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // One unkilled run sets the range of kill delays.
    let t = Instant::now();
    env.jsonl(&args, &reads("warm_", 1500));
    let span = t.elapsed().as_millis().max(20) as u64;
    let mut rng = rand::thread_rng();
    let mut total = 0;
    for k in 0..20 {
        let input = env.write(&format!("in{k}.json"), &reads(&format!("k{k}_"), 1500));
        let out = env.path(&format!("out{k}.jsonl"));
        let mut child = env
            .std_command(&args)
            .stdin(std::fs::File::open(&input).unwrap())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(rng.gen_range(0..span)));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        repair_torn(&env);
        total += delivered(&out).len();
    }
    // Kill delays span a whole run, so some kills land after deliveries (else this proves
    // nothing).
    assert!(total > 0, "no result was delivered before any kill");
    let audited = audited_results(&env);
    let mut unaudited = 0;
    for k in 0..20 {
        for r in delivered(&env.path(&format!("out{k}.jsonl"))) {
            unaudited += usize::from(!audited.contains(r["request_id"].as_str().unwrap()));
        }
    }
    assert_eq!(
        unaudited, 0,
        "{unaudited} of {total} delivered results have no audit record"
    );
    assert_eq!(verify(&env, &["--all"]).0, 0);
}

// ---------------------------------------------------------------------------------------
// ledger → database crash recovery

fn ledger_decisions(env: &TestEnv) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    let log = bob::store::read_jsonl(&env.home().join("memory_approvals.jsonl")).unwrap();
    for (_, r) in log.records {
        if r["kind"] == "decision" {
            out.entry(r["candidate_id"].as_str().unwrap().to_string())
                .or_default()
                .push(r["decision"].as_str().unwrap().to_string());
        }
    }
    out
}

fn statuses(env: &TestEnv) -> HashMap<String, String> {
    env.jsonl(&["memory", "candidates"], "")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_decision_on_the_ledger_but_not_in_the_database_is_replayed_and_never_repeated() {
    let env = TestEnv::new();
    let ids = propose(&env, &["first".into(), "second".into()]);
    env.json(&["memory", "approve", &ids[0]], "");
    let rows = env.jsonl(&["memory", "candidates"], "");
    let row = rows.iter().find(|r| r["id"] == ids[1].as_str()).unwrap();
    let cand: bob::contracts::MemoryCandidate =
        serde_json::from_value(row["candidate"].clone()).unwrap();
    // Crash right after the ledger's fdatasync: the record is appended the way bob appends
    // it, and neither the manifest's anchor nor the database is updated.
    let manifest = env.home().join("keys/manifest.json");
    let before = std::fs::read(&manifest).unwrap();
    let rec = json!({
        "kind": "decision", "ts": "2026-02-15T00:00:00Z", "actor": "human", "user": "default",
        "decision": "approve", "candidate_id": ids[1],
        "content_digest": bob::memory::candidates::candidate_digest(&cand),
    });
    let Value::Object(map) = rec else {
        unreachable!()
    };
    let keys = bob::chain::Keyring::open(&env.home()).unwrap();
    bob::chain::append(&keys, &env.home().join("memory_approvals.jsonl"), map).unwrap();
    std::fs::write(&manifest, before).unwrap();
    // The ledger verifies (one keyed record past the anchor), the next command replays it,
    // and a second decision is a conflict.
    let (code, rows) = verify(&env, &[]);
    assert_eq!(
        (code, rows[0]["unanchored"].clone()),
        (0, json!(1)),
        "{rows:?}"
    );
    let err = env.fails(
        &["memory", "reject", &ids[1], "--reason", "no"],
        "",
        5,
        "conflict",
    );
    assert!(
        err["message"].as_str().unwrap().contains("approved"),
        "{err}"
    );
    assert_eq!(statuses(&env)[&ids[1]], "approved");
    assert_eq!(ledger_decisions(&env)[&ids[1]], ["approve"]);
    assert_eq!(env.jsonl(&["memory", "query", "second"], "").len(), 1);
    // The next append re-anchors the log.
    let id = propose(&env, &["third".into()]).remove(0);
    env.json(&["memory", "reject", &id, "--reason", "no"], "");
    let (_, rows) = verify(&env, &[]);
    assert_eq!(
        (rows[0]["ok"].clone(), rows[0]["unanchored"].clone()),
        (json!(true), Value::Null)
    );
}

#[test]
fn a_ledger_decision_the_database_cannot_apply_still_blocks_a_second_decision() {
    let env = TestEnv::new();
    let id = propose(&env, &["content".into()]).remove(0);
    // A decision whose digest does not match the candidate (e.g. written by a buggy or
    // older writer): replay cannot apply it, yet the ledger has decided the candidate.
    let rec = json!({
        "kind": "decision", "ts": "2026-02-15T00:00:00Z", "actor": "human", "user": "default",
        "decision": "approve", "candidate_id": id, "content_digest": "0".repeat(64),
    });
    let Value::Object(map) = rec else {
        unreachable!()
    };
    let keys = bob::chain::Keyring::open(&env.home()).unwrap();
    bob::chain::append(&keys, &env.home().join("memory_approvals.jsonl"), map).unwrap();
    let err = env.fails(
        &["memory", "reject", &id, "--reason", "no"],
        "",
        5,
        "conflict",
    );
    assert!(err["message"].as_str().unwrap().contains("ledger"), "{err}");
    assert_eq!(ledger_decisions(&env)[&id].len(), 1);
}

#[test]
fn approve_killed_at_random_instants_is_never_lost_and_never_doubled() {
    let env = TestEnv::new();
    let texts: Vec<String> = (0..21).map(|i| format!("kill test fact {i}")).collect();
    let ids = propose(&env, &texts);
    let t = Instant::now();
    env.json(&["memory", "approve", &ids[20]], "");
    let span = t.elapsed().as_millis().max(10) as u64 * 2;
    let mut rng = rand::thread_rng();
    for id in &ids[..20] {
        let mut child = env
            .std_command(&["memory", "approve", id])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(rng.gen_range(0..span)));
        let _ = child.kill();
        let _ = child.wait();
        repair_torn(&env);
        // A second, opposite decision: allowed only if the approval never reached the ledger.
        let out = env
            .bob(&["memory", "reject", id, "--reason", "second thoughts"])
            .output()
            .unwrap();
        let on_ledger = ledger_decisions(&env);
        if out.status.success() {
            assert_eq!(on_ledger[id], ["reject"]);
        } else {
            error_of(&out, 5, "conflict");
            assert_eq!(on_ledger[id], ["approve"]);
        }
    }
    let on_ledger = ledger_decisions(&env);
    let db = statuses(&env);
    for id in &ids {
        let d = &on_ledger[id];
        assert_eq!(d.len(), 1, "{id} decided {} times: {d:?}", d.len());
        let want = if d[0] == "approve" {
            "approved"
        } else {
            "rejected"
        };
        assert_eq!(db[id], want, "{id}: ledger says {d:?}");
    }
    assert_eq!(verify(&env, &["--all"]).0, 0);
}

/// Appends to one chained log let go of its locks before their fdatasync and anchor it in
/// the manifest afterwards (an anchoring a later head already covers is skipped): six
/// processes auditing human acts at once leave every record, one unbroken chain, and the
/// manifest anchoring its very last record.
#[test]
fn processes_auditing_at_once_leave_one_chain_anchored_at_its_last_record() {
    let env = TestEnv::new();
    env.json(&["caps", "grant", "net", "--session", "first"], "");
    let (procs, rounds) = (6, 15);
    let workers: Vec<_> = (0..procs)
        .map(|p| {
            let cmds: Vec<_> = (0..rounds)
                .flat_map(|_| ["grant", "revoke"])
                .map(|verb| env.std_command(&["caps", verb, "net", "--session", &format!("s{p}")]))
                .collect();
            std::thread::spawn(move || {
                for mut c in cmds {
                    let out = c.output().unwrap();
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let (code, rows) = verify(&env, &[]);
    assert_eq!(code, 0, "{rows:?}");
    let row = row_for(&rows, "2026-02-15.jsonl");
    let records = 1 + procs * rounds * 2;
    assert_eq!(
        (
            row["ok"].clone(),
            row["verified"].clone(),
            row["unanchored"].clone()
        ),
        (json!(true), json!(records), Value::Null),
        "{rows:?}"
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(env.home().join("keys/manifest.json")).unwrap())
            .unwrap();
    let head = manifest["files"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.starts_with("audit/human/"))
        .map(|(_, v)| v["seq"].clone());
    assert_eq!(head, Some(json!(records - 1)), "{manifest}");
}
