//! `bob memory`: candidates → ledger → LTM, query, STM bounds, users, import/export, bench.

use crate::TestEnv;
use serde_json::{Value, json};

fn propose(env: &TestEnv, args: &[&str], stdin: &str) -> Vec<Value> {
    let mut a = vec!["memory", "propose"];
    a.extend_from_slice(args);
    env.jsonl(&a, stdin)
}

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

fn ledger_lines(env: &TestEnv) -> Vec<String> {
    std::fs::read_to_string(env.home().join("memory_approvals.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn propose_approve_edit_reject_then_query() {
    let env = TestEnv::new();
    let rows = propose(
        &env,
        &[],
        r###"[{"text":"The user prefers metric units for every recipe","type":"preference","tags":["units"],"source":"user_said","why_store":"stable"},
            {"title":"Drone parts","tags":["drone","parts_list"],"body_md":"## BOM\n- frame\n- brushless motors","importance":6,"ttl_days":null},
            {"text":"The user dislikes cilantro in salsa","type":"preference"}]"###,
    );
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["status"] == "pending"));
    // Pending candidates are not memory.
    assert!(
        env.jsonl(&["memory", "query", "metric units"], "")
            .is_empty()
    );

    let approved = env.json(&["memory", "approve", &id(&rows[0])], "");
    assert_eq!(approved["candidate"]["status"], "approved");
    assert_eq!(approved["ledger_seq"], 0);
    let mem_id = approved["record"]["id"].as_str().unwrap().to_string();
    // A uuid4-layout id (the seed's record id), derived from the content.
    let uuid = uuid::Uuid::parse_str(&mem_id).expect("a uuid id");
    assert_eq!(uuid.get_version_num(), 4, "{mem_id}");
    assert_eq!(uuid.hyphenated().to_string(), mem_id);

    let edited = env.json(
        &[
            "memory",
            "approve",
            &id(&rows[1]),
            "--edit",
            r#"{"tags":["drone","bom"],"importance":9}"#,
        ],
        "",
    );
    assert_eq!(edited["candidate"]["decision"], "edit");
    assert_eq!(edited["record"]["tags"], json!(["drone", "bom"]));
    assert_eq!(
        edited["record"]["facts"],
        json!(["frame", "brushless motors"])
    );

    let rejected = env.json(
        &["memory", "reject", &id(&rows[2]), "--reason", "not durable"],
        "",
    );
    assert_eq!(rejected["candidate"]["status"], "rejected");
    assert!(rejected.get("record").is_none());

    // A second decision on any of them is a conflict, and writes nothing.
    env.fails(&["memory", "approve", &id(&rows[0])], "", 5, "conflict");
    env.fails(
        &["memory", "reject", &id(&rows[2]), "--reason", "x"],
        "",
        5,
        "conflict",
    );
    env.fails(&["memory", "approve", "cand_nope"], "", 4, "not_found");
    assert_eq!(ledger_lines(&env).len(), 3);

    let hits = env.jsonl(
        &["memory", "query", "which units does the user prefer?"],
        "",
    );
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["id"], mem_id.as_str());
    let s = hits[0]["score"].as_f64().unwrap();
    assert!(s > 0.0 && s <= 1.0);
    for k in ["id", "score", "excerpt", "title", "tags", "created_at"] {
        assert!(hits[0].get(k).is_some(), "{k}");
    }
    // Rejected content never reaches LTM.
    assert!(
        env.jsonl(&["memory", "query", "cilantro salsa"], "")
            .is_empty()
    );
    // Tag filter.
    assert_eq!(
        env.jsonl(&["memory", "query", "drone frame", "--tags", "bom"], "")
            .len(),
        1
    );
    assert!(
        env.jsonl(
            &["memory", "query", "drone frame", "--tags", "parts_list"],
            ""
        )
        .is_empty()
    );

    let block = env
        .bob(&["memory", "query", "metric units", "--format", "block"])
        .output()
        .unwrap();
    let block = String::from_utf8(block.stdout).unwrap();
    assert!(
        block.starts_with(&format!("=== RETRIEVED_MEMORY ===\n- id={mem_id}")),
        "{block}"
    );
    assert!(block.ends_with("=== END_RETRIEVED_MEMORY ===\n"), "{block}");

    let status = env.jsonl(&["memory", "candidates", "--status", "pending"], "");
    assert!(status.is_empty());
    env.jsonl(&["ledger", "verify"], "");
}

fn raw_bob(env: &TestEnv, args: &[&str]) -> std::process::Command {
    let mut c = env.std_command(args);
    c.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    c
}

fn one(env: &TestEnv, text: &str) -> String {
    let rows = propose(env, &[], &json!({"text": text}).to_string());
    id(&rows[0])
}

#[test]
fn ledger_tampering_is_found_and_named() {
    for tamper in ["edit", "delete", "reorder"] {
        let env = TestEnv::new();
        for t in ["alpha fact one", "beta fact two", "gamma fact three"] {
            let c = one(&env, t);
            env.json(&["memory", "approve", &c], "");
        }
        let path = env.home().join("memory_approvals.jsonl");
        let mut lines = ledger_lines(&env);
        assert_eq!(lines.len(), 3);
        match tamper {
            "edit" => lines[1] = lines[1].replace("\"approve\"", "\"reject\""),
            "delete" => {
                lines.remove(1);
            }
            _ => lines.swap(0, 1),
        }
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let path_arg = path.to_str().unwrap();
        let out = env.bob(&["ledger", "verify", path_arg]).output().unwrap();
        assert_eq!(out.status.code(), Some(5), "{tamper}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let expected = if tamper == "reorder" { 1 } else { 2 };
        assert_eq!(report["first_bad_line"], expected, "{tamper}: {report}");
        assert_eq!(report["ok"], false);
    }
}

#[test]
fn two_concurrent_approvals_of_one_candidate_one_wins() {
    let env = TestEnv::new();
    let c = one(&env, "the user's favourite deck is mono-green");
    for _ in 0..3 {
        let c2 = one(&env, &format!("noise {}", uuid_like()));
        let _ = c2;
    }
    let a = raw_bob(&env, &["memory", "approve", &c]).spawn().unwrap();
    let b = raw_bob(&env, &["memory", "approve", &c]).spawn().unwrap();
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let mut codes = vec![a.status.code(), b.status.code()];
    codes.sort();
    assert_eq!(codes, vec![Some(0), Some(5)], "{a:?} {b:?}");
    let loser = if a.status.success() { &b } else { &a };
    let err: Value = serde_json::from_slice(loser.stderr.trim_ascii()).unwrap();
    assert_eq!(err["error"]["code"], "conflict");
    let decisions: Vec<String> = ledger_lines(&env)
        .into_iter()
        .filter(|l| l.contains(&c))
        .collect();
    assert_eq!(decisions.len(), 1);
    assert_eq!(
        env.jsonl(&["memory", "list", "--scope", "long_term"], "")
            .len(),
        1
    );
}

fn uuid_like() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[test]
fn users_are_isolated_and_shared_profiles_get_a_mirror() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.home()).unwrap();
    std::fs::write(
        env.home().join("profiles.json"),
        r#"{"profiles":{"alice":{"memory_user":"alice","shared_user":"family"},"bob":{"memory_user":"bob"}}}"#,
    )
    .unwrap();
    let a = propose(
        &env,
        &["--user", "alice"],
        r#"{"text":"alice keeps the spare key under the blue pot"}"#,
    );
    let b = propose(
        &env,
        &["--user", "bob"],
        r#"{"text":"bob keeps the spare key in the garage"}"#,
    );
    let d = propose(
        &env,
        &[],
        r#"{"text":"default user keeps the spare key nowhere"}"#,
    );
    let out = env.json(&["memory", "approve", &id(&a[0])], "");
    assert_eq!(out["mirrored"].as_array().unwrap().len(), 1);
    env.json(&["memory", "approve", &id(&b[0])], "");
    env.json(&["memory", "approve", &id(&d[0])], "");

    let q = |user: &str| -> Vec<String> {
        env.jsonl(
            &["memory", "query", "spare key", "-k", "10", "--user", user],
            "",
        )
        .iter()
        .map(|h| h["excerpt"].as_str().unwrap().to_string())
        .collect()
    };
    let alice = q("alice");
    assert_eq!(alice.len(), 1);
    assert!(alice[0].contains("blue pot"));
    let bob = q("bob");
    assert_eq!(bob.len(), 1);
    assert!(bob[0].contains("garage"));
    let dflt = q("default");
    assert_eq!(dflt.len(), 1);
    assert!(dflt[0].contains("nowhere"));
    let family = q("family");
    assert_eq!(family.len(), 1);
    assert!(family[0].contains("blue pot"));
    assert!(q("mallory").is_empty());
    // Listing follows the same rule; a path trick is not a user.
    assert_eq!(env.jsonl(&["memory", "list", "--user", "bob"], "").len(), 1);
    env.fails(
        &["memory", "query", "key", "--user", "../x"],
        "",
        2,
        "invalid.request",
    );
}

#[test]
fn stm_bounds_size_error_state_and_ttl() {
    let mut env = TestEnv::new();
    let first = env.json(
        &["memory", "stm", "add"],
        r#"{"intent":"entry 0","resolution":"r"}"#,
    );
    for i in 1..=200 {
        env.json(
            &["memory", "stm", "add"],
            &json!({"intent": format!("entry {i}")}).to_string(),
        );
    }
    let all = env.jsonl(&["memory", "stm", "list", "--limit", "1000"], "");
    assert_eq!(all.len(), 200);
    assert_eq!(all[0]["intent"], "entry 200");
    assert_eq!(all[199]["intent"], "entry 1");
    assert!(all.iter().all(|e| e["id"] != first["id"]));

    // Size rule: 3072 bytes of compact JSON content.
    let big = json!({"intent": "x".repeat(3100)}).to_string();
    let err = env.fails(&["memory", "stm", "add"], &big, 2, "invalid.request");
    assert_eq!(err["details"]["limit_bytes"], 3072);
    let ok = json!({"intent": "y".repeat(2900)}).to_string();
    env.json(&["memory", "stm", "add"], &ok);
    env.fails(
        &["memory", "stm", "add"],
        r#"{"intent":"q","open_questions":["a","b","c","d"]}"#,
        2,
        "invalid.request",
    );
    // Error state: refused, nothing written.
    let before = env.jsonl(&["memory", "stm", "list", "--limit", "1000"], "");
    env.fails(
        &["memory", "stm", "add", "--error-state"],
        r#"{"intent":"failed turn"}"#,
        3,
        "policy.denied",
    );
    env.fails(
        &["memory", "stm", "add"],
        r#"{"intent":"failed turn","error_state":true}"#,
        3,
        "policy.denied",
    );
    env.fails(&["memory", "stm", "add"], "{not json", 2, "invalid.request");
    let after = env.jsonl(&["memory", "stm", "list", "--limit", "1000"], "");
    assert_eq!(before, after);
    // STM is never LTM.
    assert!(env.jsonl(&["memory", "query", "entry"], "").is_empty());

    // TTL 72 h: hidden after, deleted by gc.
    env.now = "2026-02-17T23:59:00Z".into();
    assert_eq!(
        env.jsonl(&["memory", "stm", "list", "--limit", "1000"], "")
            .len(),
        200
    );
    env.now = "2026-02-18T00:00:01Z".into();
    assert!(env.jsonl(&["memory", "stm", "list"], "").is_empty());
    let tid = all[0]["id"].as_str().unwrap();
    env.fails(
        &["memory", "stm", "touch", tid, "--session", "s"],
        "",
        4,
        "not_found",
    );
    let gc = env.json(&["memory", "stm", "gc"], "");
    assert_eq!(gc["short_term_removed"].as_array().unwrap().len(), 200);
}

#[test]
fn stm_promotion_needs_access_pattern_and_human_approval() {
    let env = TestEnv::new();
    let e = env.json(
        &["memory", "stm", "add", "--session", "s1"],
        r#"{"intent":"user is building a cinewhoop drone","resolution":"listed frame options","entities":["cinewhoop"]}"#,
    );
    let cold = env.json(
        &["memory", "stm", "add"],
        r#"{"intent":"one-off question"}"#,
    );
    let eid = e["id"].as_str().unwrap();
    env.json(&["memory", "stm", "touch", eid, "--session", "s1"], "");
    env.json(&["memory", "stm", "touch", eid, "--session", "s2"], "");
    assert!(
        env.jsonl(&["memory", "promote"], "").is_empty(),
        "2 accesses is not enough"
    );
    let t = env.json(&["memory", "stm", "touch", eid, "--session", "s2"], "");
    assert_eq!(t["access_count"], 3);
    assert_eq!(t["sessions_seen"], json!(["s1", "s2"]));
    env.json(
        &["memory", "stm", "touch", cold["id"].as_str().unwrap()],
        "",
    );

    let dry = env.jsonl(&["memory", "promote", "--dry-run"], "");
    assert_eq!(dry.len(), 1);
    assert!(env.jsonl(&["memory", "candidates"], "").is_empty());
    let p = env.jsonl(&["memory", "promote"], "");
    assert_eq!(p.len(), 1);
    assert_eq!(p[0]["stm_id"], eid);
    assert!(
        env.jsonl(&["memory", "promote"], "").is_empty(),
        "attempted once"
    );
    // Still needs a human.
    assert!(
        env.jsonl(&["memory", "list", "--scope", "long_term"], "")
            .is_empty()
    );
    let cid = p[0]["candidate"]["id"].as_str().unwrap();
    env.json(&["memory", "approve", cid], "");
    let lt = env.jsonl(&["memory", "list", "--scope", "long_term"], "");
    assert_eq!(lt[0]["metadata"]["promoted_from"], eid);
    assert!(lt[0].get("body_md").is_none());
    let lt = env.jsonl(
        &["memory", "list", "--scope", "long_term", "--include-body"],
        "",
    );
    assert!(lt[0]["body_md"].as_str().unwrap().contains("cinewhoop"));
}

#[test]
fn secrets_never_reach_the_database_or_the_ledger() {
    let env = TestEnv::new();
    let canary = "sk-proj-CANARYabcdefghijklmnopqrstuvwxyz0123";
    let bearer = "Bearer tok_CANARY_9f8e7d6c5b4a";
    let rows = propose(
        &env,
        &[],
        &json!([{"text": format!("the deploy key is {canary} ok"), "tags": ["ops"]},
                {"title": "curl recipe", "body_md": format!("curl -H 'Authorization: {bearer}' https://x")}])
        .to_string(),
    );
    assert!(
        !rows[0]["candidate"]["text"]
            .as_str()
            .unwrap()
            .contains("CANARY")
    );
    env.json(&["memory", "approve", &id(&rows[0])], "");
    env.json(
        &[
            "memory",
            "approve",
            &id(&rows[1]),
            "--edit",
            &json!({"text": format!("edited {canary} and {bearer}")}).to_string(),
        ],
        "",
    );
    env.json(
        &["memory", "stm", "add"],
        &json!({"intent": format!("used {canary}"), "resolution": bearer}).to_string(),
    );
    let home = env.home();
    let mut checked = 0;
    for f in ["memory.db", "memory.db-wal", "memory_approvals.jsonl"] {
        if let Ok(bytes) = std::fs::read(home.join(f)) {
            checked += 1;
            assert!(
                memchr::memmem::find(&bytes, b"CANARY").is_none(),
                "secret in {f}"
            );
        }
    }
    assert!(checked >= 2);
    assert!(
        !String::from_utf8_lossy(&env.bob(&["memory", "export"]).output().unwrap().stdout)
            .contains("CANARY")
    );
}

#[test]
fn a_ledger_decision_missing_from_the_database_is_replayed() {
    let env = TestEnv::new();
    let rows = propose(
        &env,
        &[],
        r#"{"text":"the user's cat is called Miso","tags":["pets"]}"#,
    );
    let cand: bob::contracts::MemoryCandidate =
        serde_json::from_value(rows[0]["candidate"].clone()).unwrap();
    // The process "crashed" right after the ledger append: the record is there, the DB is not.
    let rec = json!({
        "kind": "decision", "ts": "2026-02-15T00:00:00Z", "actor": "human", "user": "default",
        "decision": "approve", "candidate_id": id(&rows[0]),
        "content_digest": bob::memory::candidates::candidate_digest(&cand),
    });
    let serde_json::Value::Object(map) = rec else {
        unreachable!()
    };
    let keys = bob::chain::Keyring::open(&env.home()).unwrap();
    bob::chain::append(&keys, &env.home().join("memory_approvals.jsonl"), map).unwrap();
    let c = env.jsonl(&["memory", "candidates"], "");
    assert_eq!(c[0]["status"], "approved");
    assert_eq!(c[0]["ledger_seq"], 0);
    let hits = env.jsonl(&["memory", "query", "cat name"], "");
    assert_eq!(hits.len(), 1);
    // Idempotent: another command changes nothing, and a new decision is a conflict.
    env.fails(&["memory", "approve", &id(&rows[0])], "", 5, "conflict");
    assert_eq!(env.jsonl(&["memory", "list"], "").len(), 1);
    assert_eq!(ledger_lines(&env).len(), 1);
}

#[test]
fn think_output_yields_at_most_two_candidates_and_bad_input_is_refused() {
    let env = TestEnv::new();
    let think = "I should remember this.\n<<<MEMORY_CANDIDATES_JSON>>>\n[{\"text\":\"a1\"},{\"text\":\"a2\"},{\"text\":\"a3\"}]\n<<<END_MEMORY_CANDIDATES_JSON>>>\ndone";
    let out = env
        .bob(&["memory", "propose"])
        .write_stdin(think)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("dropped_candidates"));
    let rows = propose(
        &env,
        &[],
        r#"{"analysis":"x","memory_candidates":[{"text":"b1"},{"text":"b2"},{"text":"b3"}]}"#,
    );
    assert_eq!(rows.len(), 2);
    let rows = propose(
        &env,
        &[],
        r#"{"save_plan":{"title":"T","tags":["t"],"body_md":"plan body","ttl_days":3}}"#,
    );
    assert_eq!(rows[0]["candidate"]["ttl_days"], 3);
    let rows = propose(
        &env,
        &[],
        r#"{"suggest_memory_save":{"title":"S","body_md":"suggested","importance":6}}"#,
    );
    assert_eq!(rows[0]["candidate"]["importance"], 6);
    // The same pending content is not stored twice.
    let again = propose(
        &env,
        &[],
        r#"{"suggest_memory_save":{"title":"S","body_md":"suggested","importance":6}}"#,
    );
    assert_eq!(again[0]["id"], rows[0]["id"]);
    for bad in [
        "{oops",
        r#"{"text":""}"#,
        r#"{"text":"x","importance":11}"#,
        r#"{"unrelated":1}"#,
        "<<<MEMORY_CANDIDATES_JSON>>>[{\"text\":\"x\"}]",
        "plain words",
        "",
    ] {
        env.fails(&["memory", "propose"], bad, 2, "invalid.request");
    }
    let pending = id(&rows[0]);
    env.fails(
        &["memory", "approve", &pending, "--edit", "[1]"],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &[
            "memory",
            "approve",
            &pending,
            "--edit",
            r#"{"importance":0}"#,
        ],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &["memory", "reject", &pending, "--reason", " "],
        "",
        2,
        "invalid.request",
    );
    assert!(ledger_lines(&env).is_empty());
}

#[test]
fn hostile_query_text_never_breaks_the_query() {
    let env = TestEnv::new();
    let c = one(&env, "quotes \"and\" operators OR NEAR stars * in a record");
    env.json(&["memory", "approve", &c], "");
    for q in [
        "\"",
        "\"\"\"",
        "NEAR(",
        "a OR",
        "AND",
        "*",
        "col:x",
        "'; DROP TABLE ltm; --",
        "(((",
        "-",
        "^x",
        "{title}: x",
        "ünïcödé ☃",
        "",
    ] {
        env.bob(&["memory", "query", q]).assert().success();
    }
    assert_eq!(
        env.jsonl(&["memory", "query", "\"operators\" NEAR("], "")
            .len(),
        1
    );
    assert!(
        env.jsonl(&["memory", "query", "x", "-k", "0"], "")
            .is_empty()
    );
}

#[test]
fn ttl_hides_records_and_gc_removes_them_on_the_ledger() {
    let mut env = TestEnv::new();
    let rows = propose(
        &env,
        &[],
        r#"{"text":"temporary parking spot level 3","ttl_days":1}"#,
    );
    env.json(&["memory", "approve", &id(&rows[0])], "");
    assert_eq!(env.jsonl(&["memory", "query", "parking"], "").len(), 1);
    env.now = "2026-02-16T00:00:01Z".into();
    assert!(env.jsonl(&["memory", "query", "parking"], "").is_empty());
    assert!(env.jsonl(&["memory", "list"], "").is_empty());
    let gc = env.json(&["memory", "gc"], "");
    assert_eq!(gc["long_term_removed"].as_array().unwrap().len(), 1);
    let last: Value = serde_json::from_str(ledger_lines(&env).last().unwrap()).unwrap();
    assert_eq!(last["kind"], "gc");
    assert_eq!(last["records"][0]["id"], gc["long_term_removed"][0]);
    assert!(
        env.bob(&["memory", "export"])
            .output()
            .unwrap()
            .stdout
            .is_empty()
    );
    env.jsonl(&["ledger", "verify"], "");
}

#[test]
fn large_bodies_are_stored_as_a_blob_with_a_summary() {
    let env = TestEnv::new();
    let body = format!(
        "First paragraph about telemetry.\n\n{}",
        "lorem ipsum ".repeat(2000)
    );
    let rows = propose(
        &env,
        &[],
        &json!({"title": "Big", "body_md": body}).to_string(),
    );
    let out = env.json(&["memory", "approve", &id(&rows[0])], "");
    let blob = &out["record"]["metadata"]["body_blob"];
    let path = env.home().join(blob["path"].as_str().unwrap());
    assert_eq!(std::fs::read_to_string(path).unwrap(), body);
    assert!(out["record"]["body_md"].as_str().unwrap().len() < 1000);
    assert_eq!(out["record"]["summary"], "First paragraph about telemetry.");
}

#[test]
fn markdown_import_and_jsonl_export_round_trip() {
    let env = TestEnv::new();
    env.write(
        "notes/drone.md",
        "---\ntags: [drone, parts]\n---\n# Cinewhoop build\n\nParts chosen for the 3.5 inch build.\n\n- frame: Roma F35\n- motors: 1804\n\nSee #fpv later.\n",
    );
    env.write("notes/sub/plain.md", "Just a plain note with no heading.\n");
    env.write("notes/skip.txt", "not markdown");
    env.write(
        "notes/secret.md",
        "# Ops\n\nThe key is sk-proj-CANARYabcdefghijklmnopqrstuvwxyz0123.\n",
    );
    let rep = env.json(
        &["memory", "import", env.path("notes").to_str().unwrap()],
        "",
    );
    assert_eq!(rep["imported"], 3);
    let again = env.json(
        &["memory", "import", env.path("notes").to_str().unwrap()],
        "",
    );
    assert_eq!(again["imported"], 0);
    assert_eq!(again["unchanged"], 3);
    for f in ["memory.db", "memory.db-wal", "memory_approvals.jsonl"] {
        if let Ok(bytes) = std::fs::read(env.home().join(f)) {
            assert!(
                memchr::memmem::find(&bytes, b"CANARY").is_none(),
                "secret in {f}"
            );
        }
    }
    let lines = ledger_lines(&env);
    assert_eq!(lines.len(), 2);
    let batch: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(batch["kind"], "import");
    assert_eq!(batch["count"], 3);

    let list = env.jsonl(&["memory", "list", "--include-body"], "");
    let drone = list
        .iter()
        .find(|r| r["title"] == "Cinewhoop build")
        .unwrap();
    assert_eq!(drone["tags"], json!(["drone", "parts", "fpv"]));
    assert_eq!(drone["facts"], json!(["frame: Roma F35", "motors: 1804"]));
    assert_eq!(drone["summary"], "Parts chosen for the 3.5 inch build.");
    assert_eq!(drone["source"], "imported");
    assert!(list.iter().any(|r| r["title"] == "plain"));

    let export = env.bob(&["memory", "export"]).output().unwrap().stdout;
    let file = env.write("export.jsonl", std::str::from_utf8(&export).unwrap());
    let other = TestEnv::new();
    let rep = other.json(&["memory", "import", "--jsonl", file.to_str().unwrap()], "");
    assert_eq!(rep["imported"], 3);
    let export2 = other.bob(&["memory", "export"]).output().unwrap().stdout;
    assert_eq!(export, export2);
    other.fails(
        &[
            "memory",
            "import",
            "--jsonl",
            env.write("bad.jsonl", "{\"id\":1}\n").to_str().unwrap(),
        ],
        "",
        2,
        "invalid.request",
    );
    other.fails(
        &["memory", "import", env.path("missing").to_str().unwrap()],
        "",
        4,
        "not_found",
    );
}

#[test]
fn bench_harness_scores_the_synthetic_longmemeval_fixture() {
    let env = TestEnv::new();
    let fixture = crate::env::repo_root().join("tests/fixtures/memory/longmemeval_small.json");
    let r = env.json(
        &[
            "memory",
            "bench",
            "--dataset",
            fixture.to_str().unwrap(),
            "--detail",
        ],
        "",
    );
    assert_eq!(r["questions"], 20);
    for k in [
        "recall_any_at_1",
        "recall_any_at_5",
        "recall_any_at_10",
        "ndcg_at_10",
    ] {
        let v = r[k].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&v), "{k}={v}");
    }
    assert!(r["recall_any_at_10"].as_f64().unwrap() >= r["recall_any_at_1"].as_f64().unwrap());
    assert!(r["recall_any_at_5"].as_f64().unwrap() >= 0.8, "{r}");
    let bad = env.write("bad.json", r#"[{"question":"q"}]"#);
    env.fails(
        &["memory", "bench", "--dataset", bad.to_str().unwrap()],
        "",
        2,
        "invalid.request",
    );
}

#[test]
fn many_fresh_homes_each_created_by_six_writers_at_once_all_succeed() {
    // The race of the test below, run on twenty fresh homes: switching a new file to WAL takes
    // a lock SQLite does not wait for, so a writer creating the home beside another lost it
    // now and then (`conflict: database is locked`) until bob tried the switch again.
    for _ in 0..20 {
        writers_on_a_fresh_home_all_succeed(6);
    }
}

#[test]
fn concurrent_writers_on_a_fresh_home_all_succeed() {
    // cron and a shell starting together: creation, migration and writes must not fail.
    writers_on_a_fresh_home_all_succeed(6);
}

/// `n` `bob memory stm add` started at once on a new home (two users): all succeed and all
/// entries are kept.
fn writers_on_a_fresh_home_all_succeed(n: usize) {
    let env = TestEnv::new();
    let children: Vec<_> = (0..n)
        .map(|i| {
            let mut c = raw_bob(
                &env,
                &[
                    "memory",
                    "stm",
                    "add",
                    "--user",
                    if i % 2 == 0 { "default" } else { "other" },
                ],
            );
            c.stdin(std::process::Stdio::piped());
            let mut child = c.spawn().unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(
                    json!({"intent": format!("parallel {i}")})
                        .to_string()
                        .as_bytes(),
                )
                .unwrap();
            child
        })
        .collect();
    for c in children {
        crate::env::succeeded(c);
    }
    assert_eq!(
        env.jsonl(&["memory", "stm", "list"], "").len(),
        n.div_ceil(2)
    );
    assert_eq!(
        env.jsonl(&["memory", "stm", "list", "--all-users"], "")
            .len(),
        n
    );
}

#[test]
fn ledger_show_filters_by_kind_candidate_user_actor_and_time() {
    let mut env = TestEnv::new();
    let rows = propose(
        &env,
        &[],
        r#"[{"text":"alpha fact one"},{"text":"beta fact two"},{"text":"gamma fact three"}]"#,
    );
    let bob_rows = propose(&env, &["--user", "bob"], r#"{"text":"bob's own fact"}"#);
    env.json(&["memory", "approve", &id(&rows[0]), "--actor", "ann"], "");
    env.now = "2026-02-16T00:00:00Z".into();
    let edited = env.json(
        &[
            "memory",
            "approve",
            &id(&rows[1]),
            "--edit",
            r#"{"importance":9}"#,
        ],
        "",
    );
    env.json(
        &[
            "memory",
            "reject",
            &id(&rows[2]),
            "--reason",
            "noise",
            "--actor",
            "ann",
        ],
        "",
    );
    env.now = "2026-02-17T00:00:00Z".into();
    env.json(&["memory", "approve", &id(&bob_rows[0])], "");
    let md = env.write("n/one.md", "# Imported\n\nsome imported text\n");
    env.json(&["memory", "import", md.to_str().unwrap()], "");

    let show = |args: &[&str]| -> Vec<Value> {
        let mut a = vec!["ledger", "show"];
        a.extend_from_slice(args);
        env.jsonl(&a, "")
    };
    let seqs =
        |v: Vec<Value>| -> Vec<u64> { v.iter().map(|r| r["seq"].as_u64().unwrap()).collect() };
    assert_eq!(seqs(show(&[])), vec![0, 1, 2, 3, 4]);
    assert_eq!(seqs(show(&["--kind", "approve"])), vec![0, 3]);
    assert_eq!(seqs(show(&["--kind", "edit"])), vec![1]);
    assert_eq!(
        seqs(show(&["--kind", "reject", "--kind", "import"])),
        vec![2, 4]
    );
    assert_eq!(seqs(show(&["--kind", "decision"])), vec![0, 1, 2, 3]);
    assert_eq!(seqs(show(&["--candidate", &id(&rows[1])])), vec![1]);
    let mem = edited["record"]["id"].as_str().unwrap();
    assert_eq!(seqs(show(&["--memory", mem])), vec![1]);
    assert_eq!(seqs(show(&["--user", "bob"])), vec![3]);
    assert_eq!(seqs(show(&["--actor", "ann"])), vec![0, 2]);
    assert_eq!(
        seqs(show(&["--since", "2026-02-16T00:00:00Z"])),
        vec![1, 2, 3, 4]
    );
    assert_eq!(
        seqs(show(&[
            "--since",
            "2026-02-16T00:00:00+00:00",
            "--until",
            "2026-02-17T00:00:00Z"
        ])),
        vec![1, 2]
    );
    // --limit keeps the newest N matches, still oldest first; --tail is its old name.
    assert_eq!(
        seqs(show(&["--kind", "decision", "--limit", "2"])),
        vec![2, 3]
    );
    assert_eq!(seqs(show(&["--tail", "1"])), vec![4]);
    assert!(show(&["--kind", "gc"]).is_empty());
    assert!(show(&["--user", "nobody", "--kind", "approve"]).is_empty());

    for bad in [
        &["--kind", "approved"][..],
        &["--kind", ""],
        &["--since", "yesterday"],
        &["--until", "2026-13-01T00:00:00Z"],
        &["--limit", "-1"],
        &["--limit", "many"],
    ] {
        let mut a = vec!["ledger", "show"];
        a.extend_from_slice(bad);
        env.fails(&a, "", 2, "invalid.request");
    }
}

/// A store written by the schema-2 code (rows indexed by an insert trigger) migrates to the
/// current schema: the trigger is gone, old rows stay found, new rows are indexed exactly once.
#[test]
fn a_schema_2_store_migrates_and_indexes_new_rows_once() {
    let env = TestEnv::new();
    let old = env.write(
        "a/old.md",
        "# Harbor crane\n\nThe harbor crane lifts containers.\n",
    );
    env.json(&["memory", "import", old.to_str().unwrap()], "");
    let db = env.home().join("memory.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TRIGGER ltm_ai AFTER INSERT ON ltm BEGIN
               INSERT INTO ltm_fts(rowid, title, summary, body, tags, owner)
               VALUES (new.rid, new.title, new.summary, new.body, new.tags, new.owner);
             END;
             PRAGMA user_version = 2;",
        )
        .unwrap();
    }
    let new = env.write("b/new.md", "# Harbor tug\n\nThe harbor tug pushes ships.\n");
    let rep = env.json(&["memory", "import", new.to_str().unwrap()], "");
    assert_eq!(rep["imported"], 1);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, bob::memory::db::SCHEMA_VERSION);
    let triggers: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'ltm_ai'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(triggers, 0);
    conn.execute("INSERT INTO ltm_fts(ltm_fts) VALUES('integrity-check')", [])
        .unwrap();
    let hits = env.jsonl(&["memory", "query", "harbor", "-k", "10"], "");
    let mut titles: Vec<&str> = hits.iter().map(|h| h["title"].as_str().unwrap()).collect();
    titles.sort();
    assert_eq!(titles, vec!["Harbor crane", "Harbor tug"]);
}

/// With a small rank budget the query ranks only the rows of its rarest words (by the bm25 of
/// the whole query) plus the title rows of the other words while the budget allows, so the best
/// hit is still found; a row matching only the common word outside the title can drop out,
/// which is the documented approximation.
#[test]
fn a_small_rank_budget_ranks_the_rare_words_rows_and_keeps_the_best_hit() {
    let env = TestEnv::new();
    let rec = |title: &str, body: &str, tags: &[&str]| {
        json!({"id": "x", "title": title, "created_at": "2026-01-01T00:00:00Z", "tags": tags,
               "summary": body, "facts": [], "body_md": body, "source": "imported",
               "token_est": 1, "ttl_days": null, "type": "fact", "importance": 5,
               "user": "default"})
        .to_string()
    };
    let mut lines = Vec::new();
    for i in 0..200 {
        lines.push(rec(
            &format!("Filler {i}"),
            &format!("filler text number {i}"),
            &[],
        ));
    }
    for i in 0..45 {
        lines.push(rec(
            &format!("Note {i}"),
            &format!("a zephyr note number {i}"),
            &[],
        ));
    }
    for i in 0..60 {
        lines.push(rec(
            &format!("Log {i}"),
            &format!("a harbor log number {i}"),
            &[],
        ));
    }
    lines.push(rec(
        "Harbor zephyr crossing",
        "the harbor zephyr crossing",
        &[],
    ));
    lines.push(rec(
        "Harbor master",
        "harbor master of the harbor",
        &["harbor"],
    ));
    let file = env.write("recs.jsonl", &(lines.join("\n") + "\n"));
    env.json(&["memory", "import", "--jsonl", file.to_str().unwrap()], "");

    let query = |budget: &str, text: &str| -> Vec<String> {
        let out = env
            .bob(&["memory", "query", text, "-k", "10"])
            .env("BOB_MEMORY_RANK_BUDGET", budget)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["title"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let exact = query("exact", "harbor zephyr");
    assert_eq!(exact[..2], ["Harbor zephyr crossing", "Harbor master"]);
    // The default budget covers this small store: the same ranking.
    assert_eq!(query("5000", "harbor zephyr"), exact);
    // Budget 46: harbor (62 rows) + zephyr (46) do not fit; zephyr's rows are the candidates,
    // and harbor's 2 title rows would exceed the budget.
    let cand = query("46", "harbor zephyr");
    assert_eq!(cand.len(), 10);
    assert_eq!(cand[0], "Harbor zephyr crossing");
    assert!(!cand.contains(&"Harbor master".to_string()), "{cand:?}");
    assert!(cand[1..].iter().all(|t| t.starts_with("Note ")), "{cand:?}");
    // Budget 48: harbor's title rows fit too, so the title match is back in second place.
    let titled = query("48", "harbor zephyr");
    assert_eq!(titled[..2], exact[..2]);
    assert!(
        titled[2..].iter().all(|t| t.starts_with("Note ")),
        "{titled:?}"
    );
    // Hostile text takes the same path safely.
    let hostile = query("1", r#""zephyr" OR NEAR(harbor) col:* AND -x ^ {title}: "#);
    assert_eq!(hostile[0], "Harbor zephyr crossing");
    // (An empty variable counts as unset, like every setting's: docs/settings.md.)
    for bad in ["-1", "lots", "1e9"] {
        let out = env
            .bob(&["memory", "query", "harbor zephyr"])
            .env("BOB_MEMORY_RANK_BUDGET", bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "budget {bad:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("invalid.request"));
    }
}

/// One solo turn whose model calls `fs.read_text` twice while it is not enabled (two
/// `policy.denied` failures in the turn record).
fn failing_turn(env: &TestEnv, session: &str) {
    let call = |id: &str| json!({"id": id, "tool": "fs.read_text", "args": {"path": "x.txt"}});
    let lines = [
        json!({"role": "solo", "content": "", "tool_calls": [call("f1"), call("f2")]}),
        json!({"role": "solo", "content": "I could not read it."}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let p = env.write(&format!("{session}.jsonl"), &text);
    let backend = format!("replay:{}", p.display());
    let rec = env.json(
        &[
            "turn",
            "--backend",
            &backend,
            "--profile",
            "solo",
            "--session",
            session,
        ],
        "read x.txt",
    );
    let tools = rec["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "{rec}");
    assert!(tools.iter().all(|t| t["status"] != "ok"), "{rec}");
}

/// p1 passes main 2 with a land still playable; p2 then draws from an empty library and loses.
fn finished_game(env: &TestEnv, id: &str) {
    let pos = json!({"active": "p1", "turn": 3, "step": "main2",
        "players": {"p1": {"library": ["Forest", "Forest"], "hand": ["Forest"], "battlefield": [{"card": "Forest"}]},
                    "p2": {"library": []}}});
    let p = env.write(&format!("{id}.json"), &pos.to_string());
    env.json(
        &["mtg", "new", "--setup", p.to_str().unwrap(), "--game", id],
        "",
    );
    for _ in 0..30 {
        let d = env.json(&["mtg", "actions", "--game", id], "");
        if d["kind"] == "game_over" {
            return;
        }
        let a = json!({"decision_id": d["decision_id"], "type": "pass"});
        env.json(&["mtg", "act", "--game", id], &a.to_string());
    }
    panic!("the game did not end");
}

fn practice(env: &TestEnv, now: &str, since: &str) -> Value {
    let out = env
        .bob(&["memory", "practice", "--since", since])
        .env("BOB_NOW", now)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn practice_proposes_pending_candidates_from_recent_turns_and_games() {
    let env = TestEnv::new();
    failing_turn(&env, "p1");
    failing_turn(&env, "p2");
    finished_game(&env, "pg");
    // BOB_NOW of the harness is when the turns and the game happened.
    let t0 = std::fs::read_to_string(env.home().join("turns.jsonl")).unwrap();
    let ts: Value = serde_json::from_str(t0.lines().next().unwrap()).unwrap();
    let ts = ts["ts"].as_str().unwrap().to_string();
    let start = chrono::DateTime::parse_from_rfc3339(&ts).unwrap();
    let later = (start + chrono::Duration::days(10)).to_rfc3339();

    // The game's end already proposed both seats' lessons (pending).
    let at_end = env.jsonl(&["memory", "candidates"], "");
    assert!(!at_end.is_empty());
    assert!(
        at_end.iter().all(|c| c["session_id"] == "mtg:pg"),
        "{at_end:?}"
    );
    // Ten days later, a 7-day window sees nothing and proposes nothing.
    let none = practice(&env, &later, "7d");
    assert_eq!(none["turns_read"], 0, "{none}");
    assert_eq!(none["games_read"], json!([]));
    assert_eq!(none["candidates"], json!([]));
    assert_eq!(env.jsonl(&["memory", "candidates"], "").len(), at_end.len());

    // A 30-day window: the recurring tool failure and the game's lesson.
    let out = practice(&env, &later, "30d");
    assert_eq!(out["turns_read"], 2, "{out}");
    assert_eq!(out["games_read"], json!(["pg"]));
    let cands = out["candidates"].as_array().unwrap();
    let tool = cands
        .iter()
        .find(|c| {
            c["candidate"]["tags"]
                .as_array()
                .unwrap()
                .contains(&json!("tool:fs.read_text"))
        })
        .unwrap_or_else(|| panic!("a tool-failure candidate: {out}"));
    let text = tool["candidate"]["text"].as_str().unwrap();
    assert!(
        text.contains("failed in 4 of 4 calls over 2 turn(s)") && text.contains("policy.denied"),
        "{text}"
    );
    assert!(
        cands.iter().any(|c| c["candidate"]["type"] == "mtg_lesson"
            && c["candidate"]["title"] == "Play a land every turn"
            && c["session_id"] == "mtg:pg"),
        "{out}"
    );
    assert!(cands.iter().all(|c| c["status"] == "pending"));
    // Pending candidates only: long-term memory and the ledger are untouched.
    // The game's lessons are the rows game end proposed (the same path, no duplicates).
    let pending = env.jsonl(&["memory", "candidates", "--status", "pending"], "");
    assert_eq!(pending.len(), cands.len());
    for c in &at_end {
        assert!(cands.iter().any(|p| p["id"] == c["id"]), "{c}");
    }
    assert!(env.jsonl(&["memory", "list"], "").is_empty());
    assert!(ledger_lines(&env).is_empty());
    // Deterministic: the same window proposes the same rows again, nothing new.
    let again = practice(&env, &later, "30d");
    let ids =
        |v: &Value| -> Vec<String> { v["candidates"].as_array().unwrap().iter().map(id).collect() };
    assert_eq!(ids(&again), ids(&out));
    assert_eq!(env.jsonl(&["memory", "candidates"], "").len(), cands.len());
    // An approved practice candidate reaches long-term memory through the usual path.
    env.json(&["memory", "approve", &id(tool)], "");
    assert_eq!(env.jsonl(&["memory", "list"], "").len(), 1);
    env.fails(
        &["memory", "practice", "--since", "soon"],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &["memory", "practice", "--since", "0d"],
        "",
        2,
        "invalid.request",
    );
}

// ---------------------------------------------------------------------------------------
// memory admin (issue 12 item 11)

fn seed_record(id: &str, title: &str) -> Value {
    json!({"id": id, "title": title, "created_at": "2026-02-01T00:00:00Z", "tags": ["seed"],
           "summary": title, "facts": [], "body_md": format!("{title} body"), "source": "imported",
           "token_est": 3, "ttl_days": null})
}

fn ids_of(env: &TestEnv) -> Vec<String> {
    let mut ids: Vec<String> = env
        .jsonl(&["memory", "list", "--limit", "100"], "")
        .iter()
        .map(id)
        .collect();
    ids.sort();
    ids
}

#[test]
fn import_detects_json_lines_by_extension_and_content_and_keeps_seed_ids() {
    let u1 = "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b";
    let u2 = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d";
    let lines = [
        seed_record(u1, "first seed memory"),
        seed_record(u2, "second seed memory"),
        seed_record("note-7", "a non-uuid id"),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n")
        + "\n";
    // 1. A .jsonl file without --jsonl: three records, not one markdown document; the seed's
    // uuid4 ids are kept, a non-uuid id becomes a content id.
    let env = TestEnv::new();
    let file = env.write("export.jsonl", &lines);
    let rep = env.json(&["memory", "import", file.to_str().unwrap()], "");
    assert_eq!(
        (rep["count"].as_u64(), rep["imported"].as_u64()),
        (Some(3), Some(3)),
        "{rep}"
    );
    let ids = ids_of(&env);
    assert!(
        ids.contains(&u1.to_string()) && ids.contains(&u2.to_string()),
        "{ids:?}"
    );
    assert!(!ids.contains(&"note-7".to_string()), "{ids:?}");
    assert_eq!(
        ids.iter()
            .filter(|i| *i != u1 && *i != u2 && uuid::Uuid::parse_str(i).is_ok())
            .count(),
        1,
        "{ids:?}"
    );
    // The kept id is what a query returns (and what a [mem:<id>] citation names).
    let hits = env.jsonl(&["memory", "query", "first seed"], "");
    assert_eq!(hits[0]["id"], u1);
    // Importing the same file again changes nothing.
    let again = env.json(&["memory", "import", file.to_str().unwrap()], "");
    assert_eq!(again["imported"], 0);

    // 2. By content: JSON Lines under another name (no extension, .txt) is detected too.
    let env = TestEnv::new();
    let file = env.write("dump", &format!("\n{lines}"));
    let rep = env.json(&["memory", "import", file.to_str().unwrap()], "");
    assert_eq!(rep["count"], 3, "{rep}");
    // 3. A directory: markdown and JSON Lines files side by side, each detected.
    let env = TestEnv::new();
    env.write("dir/a.md", "# A note\n\nsome text #tag\n");
    env.write("dir/sub/more.ndjson", &lines);
    env.write("dir/ignored.txt", "not imported");
    let rep = env.json(&["memory", "import", env.path("dir").to_str().unwrap()], "");
    assert_eq!(rep["count"], 4, "{rep}");
    assert!(ids_of(&env).contains(&u2.to_string()));
    // 4. --markdown forces one document; --jsonl and --markdown together are a usage error.
    let env = TestEnv::new();
    let file = env.write("export.jsonl", &lines);
    let rep = env.json(
        &["memory", "import", "--markdown", file.to_str().unwrap()],
        "",
    );
    assert_eq!(rep["count"], 1, "{rep}");
    let out = env
        .bob(&[
            "memory",
            "import",
            "--jsonl",
            "--markdown",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // 5. A markdown file is still one document, even when a line inside is JSON.
    let env = TestEnv::new();
    let md = env.write("note.md", "# Title\n\n{\"id\":\"x\",\"title\":\"y\"}\n");
    let rep = env.json(&["memory", "import", md.to_str().unwrap()], "");
    assert_eq!(rep["count"], 1, "{rep}");
    // 6. A bad line in a detected JSON Lines file names the line; nothing is imported.
    let env = TestEnv::new();
    let bad = env.write("bad.jsonl", &format!("{lines}{{\"title\":\n"));
    let e = env.fails(
        &["memory", "import", bad.to_str().unwrap()],
        "",
        2,
        "invalid.request",
    );
    assert_eq!(e["details"]["line"], 4, "{e}");
    assert!(ids_of(&env).is_empty());
}

#[test]
fn user_is_accepted_wherever_a_user_is_meaningful() {
    let env = TestEnv::new();
    let alice: Vec<String> = ["alice one", "alice two", "alice three"]
        .iter()
        .map(|t| id(&propose(&env, &["--user", "alice"], &json!({"text": t}).to_string())[0]))
        .collect();
    // Another user's candidate is not_found and stays pending; the owner's is decided.
    let e = env.fails(
        &["memory", "approve", &alice[0], "--user", "bob"],
        "",
        4,
        "not_found",
    );
    assert_eq!(e["details"]["user"], "bob");
    env.fails(
        &[
            "memory", "reject", &alice[1], "--reason", "x", "--user", "bob",
        ],
        "",
        4,
        "not_found",
    );
    assert!(ledger_lines(&env).is_empty());
    let a = env.json(&["memory", "approve", &alice[0], "--user", "alice"], "");
    assert_eq!(a["candidate"]["status"], "approved");
    assert_eq!(a["record"]["user"], "alice");
    let r = env.json(
        &[
            "memory", "reject", &alice[1], "--reason", "dup", "--user", "alice",
        ],
        "",
    );
    assert_eq!(r["candidate"]["status"], "rejected");
    let ed = env.json(
        &[
            "memory",
            "approve",
            &alice[2],
            "--user",
            "alice",
            "--edit",
            r#"{"type":"preference"}"#,
        ],
        "",
    );
    assert_eq!(ed["record"]["type"], "preference");
    env.fails(
        &["memory", "approve", &alice[2], "--user", "../x"],
        "",
        2,
        "invalid.request",
    );
    // STM: touch checks the owner; gc takes a user.
    let e = env.json(
        &["memory", "stm", "add", "--user", "alice"],
        r#"{"intent":"plan the trip"}"#,
    );
    let sid = id(&e);
    env.fails(
        &["memory", "stm", "touch", &sid, "--user", "bob"],
        "",
        4,
        "not_found",
    );
    let t = env.json(&["memory", "stm", "touch", &sid, "--user", "alice"], "");
    assert_eq!(t["access_count"], 1);
    let later = ["--now", "2026-02-20T00:00:00Z"];
    let mut gc = vec!["memory", "stm", "gc", "--user", "bob"];
    gc.extend_from_slice(&later);
    assert_eq!(env.json(&gc, "")["short_term_removed"], json!([]));
    let mut gc = vec!["memory", "gc", "--user", "alice"];
    gc.extend_from_slice(&later);
    assert_eq!(env.json(&gc, "")["short_term_removed"], json!([sid]));
}

#[test]
fn candidate_type_and_source_are_validated_on_propose_and_on_edit() {
    let env = TestEnv::new();
    for bad in [
        r#"{"text":"x","type":"bogus"}"#,
        r#"{"text":"x","source":"martian"}"#,
        r#"{"text":"x","type":""}"#,
        r#"{"title":"t","body_md":"b","type":"nonsense"}"#,
        r#"{"text":"x","source":"tool:"}"#,
        r#"{"text":"x","source":"tool:Bad Name"}"#,
    ] {
        let e = env.fails(&["memory", "propose"], bad, 2, "invalid.request");
        assert!(e["details"]["accepted"].is_array(), "{bad}: {e}");
    }
    assert!(env.jsonl(&["memory", "candidates"], "").is_empty());
    // Bob v0's values (and a model's odd spelling of them) are accepted, stored canonical.
    let rows = propose(
        &env,
        &[],
        r#"[{"text":"metric units","type":"Preference ","source":"USER_SAID"},
            {"text":"how to deploy","type":"procedure","source":"tool_output"},
            {"text":"a priced BOM","type":"reference","source":"tool:bom.build"}]"#,
    );
    assert_eq!(rows[2]["candidate"]["source"], "tool:bom.build");
    assert_eq!(rows[0]["candidate"]["type"], "preference");
    assert_eq!(rows[0]["candidate"]["source"], "user_said");
    let c = id(&rows[1]);
    // --edit with a bogus enum is refused and nothing is committed.
    for edit in [r#"{"type":"bogus"}"#, r#"{"source":"whatever"}"#] {
        let e = env.fails(
            &["memory", "approve", &c, "--edit", edit],
            "",
            2,
            "invalid.request",
        );
        assert!(e["details"]["field"].is_string(), "{e}");
    }
    assert!(ledger_lines(&env).is_empty());
    assert!(env.jsonl(&["memory", "list"], "").is_empty());
    let row = env.jsonl(&["memory", "candidates", "--status", "pending"], "");
    assert_eq!(row.len(), 3);
    // A valid edit goes through.
    let ok = env.json(
        &[
            "memory",
            "approve",
            &c,
            "--edit",
            r#"{"type":"project_decision"}"#,
        ],
        "",
    );
    assert_eq!(ok["record"]["type"], "project_decision");
}

#[test]
fn practice_reads_old_journals_without_a_start_time_by_their_file_time() {
    let env = TestEnv::new();
    finished_game(&env, "old");
    let journal = env.home().join("mtg/old/journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = chrono::DateTime::parse_from_rfc3339(lines[0]["ts"].as_str().unwrap()).unwrap();
    // A journal written before `game_start.ts` existed: no line carries a time.
    for l in &mut lines {
        l.as_object_mut().unwrap().remove("ts");
    }
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&journal, body).unwrap();
    // Its file time says when it was last written: two days after BOB_NOW's start.
    let written = start + chrono::Duration::days(2);
    std::fs::File::options()
        .write(true)
        .open(&journal)
        .unwrap()
        .set_modified(std::time::SystemTime::from(written))
        .unwrap();
    let later = (start + chrono::Duration::days(10)).to_rfc3339();
    let none = practice(&env, &later, "7d");
    assert_eq!(none["games_read"], json!([]), "{none}");
    let out = practice(&env, &later, "9d");
    assert_eq!(out["games_read"], json!(["old"]), "{out}");
    let cands = out["candidates"].as_array().unwrap();
    for seat in ["seat:p1", "seat:p2"] {
        assert!(
            cands.iter().any(|c| c["candidate"]["tags"]
                .as_array()
                .unwrap()
                .contains(&json!(seat))),
            "{seat}: {out}"
        );
    }
}

/// A finished game journaled under older rules no longer replays (its state cache gone, the
/// engine refuses the journal), yet its journal still says how it ended: practice reads it.
#[test]
fn practice_reads_a_finished_game_journaled_under_older_rules() {
    let env = TestEnv::new();
    finished_game(&env, "v1");
    let dir = env.home().join("mtg/v1");
    let journal = dir.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = lines[0]["ts"].as_str().unwrap().to_string();
    lines[0]["rules_version"] = json!("core-v1");
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&journal, body).unwrap();
    for f in std::fs::read_dir(&dir).unwrap() {
        let p = f.unwrap().path();
        if p.file_name().unwrap() != "journal.jsonl" && p.is_file() {
            std::fs::remove_file(p).unwrap();
        }
    }
    let later = (chrono::DateTime::parse_from_rfc3339(&start).unwrap() + chrono::Duration::days(1))
        .to_rfc3339();
    let out = practice(&env, &later, "7d");
    assert_eq!(out["games_read"], json!(["v1"]), "{out}");
    assert!(!out["candidates"].as_array().unwrap().is_empty(), "{out}");
}
