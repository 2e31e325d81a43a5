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
    assert!(mem_id.starts_with("mem_") && mem_id.len() == 20, "{mem_id}");

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
        block.starts_with("=== RETRIEVED_MEMORY ===\n- id=mem_"),
        "{block}"
    );
    assert!(block.ends_with("=== END_RETRIEVED_MEMORY ===\n"), "{block}");

    let status = env.jsonl(&["memory", "candidates", "--status", "pending"], "");
    assert!(status.is_empty());
    env.jsonl(&["ledger", "verify"], "");
}
