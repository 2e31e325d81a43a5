//! Turn records, STM and secrets on the shared store: the same suite against the home's
//! embedded files and a real PostgreSQL (`shared_store::store_suite`), two nodes each.

use crate::shared_store::{Backend, store_suite};
use serde_json::{Value, json};

store_suite!(
    turn_records_committed_on_one_node_are_listed_and_shown_on_the_other,
    short_term_memory_is_one_store_for_both_nodes,
    racing_touches_of_one_stm_entry_count_every_access,
    a_secret_in_a_turn_is_at_rest_in_no_row_and_no_file,
);

/// `bob turn` on node a with a replayed model answering "Fine." to every role.
fn turn_on(b: &Backend, session: &str, message: &str) -> Value {
    let text: String = (0..2)
        .map(|_| format!("{}\n", json!({"content": "Fine."})))
        .collect();
    let script = b.a.env.write(&format!("script-{session}.jsonl"), &text);
    let spec = format!("replay:{}", script.display());
    b.a.json(&["turn", "--backend", &spec, "--session", session], message)
}

fn turn_records_committed_on_one_node_are_listed_and_shown_on_the_other(b: &Backend) {
    let first = turn_on(b, "t1", "hello");
    let second = turn_on(b, "t2", "hello again");
    for rec in [&first, &second] {
        assert_eq!(rec["status"], "completed", "{rec}");
        let id = rec["run_id"].as_str().unwrap();
        let shown = b.b.json(&["runs", "show", id], "");
        assert_eq!(shown["record"], *rec, "{shown}");
    }
    let listed = b.b.jsonl(&["runs", "list"], "");
    let ids: Vec<&str> = listed.iter().filter_map(|r| r["run_id"].as_str()).collect();
    assert_eq!(ids.len(), 2, "{listed:?}");
    assert!(ids.contains(&first["run_id"].as_str().unwrap()));
    assert!(ids.contains(&second["run_id"].as_str().unwrap()));
    let row = listed
        .iter()
        .find(|r| r["run_id"] == first["run_id"])
        .unwrap();
    assert_eq!(row["session_id"], "t1");
    assert_eq!(row["status"], "completed");
    let turns = b.a.env.home().join("turns.jsonl");
    match &b.db {
        // The embedded log is the home's turns.jsonl, a line per record.
        None => {
            let text = std::fs::read_to_string(&turns).unwrap();
            let lines: Vec<Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(lines, vec![first.clone(), second.clone()]);
        }
        // On the database the home keeps no turn log; the rows are in turn_records, and node b
        // (which ran nothing) shows a record with no bundle of its own.
        Some(db) => {
            assert!(!turns.exists(), "turns.jsonl written on the shared store");
            let n: i64 = db
                .client()
                .query_one("SELECT count(*) FROM turn_records", &[])
                .unwrap()
                .get(0);
            assert_eq!(n, 2);
            let shown =
                b.b.json(&["runs", "show", first["run_id"].as_str().unwrap()], "");
            assert_eq!(shown["path"], Value::Null, "{shown}");
        }
    }
    b.b.fails(&["runs", "show", "run_absent"], "", 4, "not_found");
}

fn short_term_memory_is_one_store_for_both_nodes(b: &Backend) {
    let e = b.a.json(
        &["memory", "stm", "add", "--session", "s1"],
        r#"{"intent":"user is building a cinewhoop drone","resolution":"listed frames"}"#,
    );
    let eid = e["id"].as_str().unwrap();
    // The other node sees the entry, and the accesses of both nodes add up.
    let listed = b.b.jsonl(&["memory", "stm", "list"], "");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["id"], eid);
    b.b.json(&["memory", "stm", "touch", eid, "--session", "s2"], "");
    b.a.json(&["memory", "stm", "touch", eid, "--session", "s1"], "");
    let t =
        b.b.json(&["memory", "stm", "touch", eid, "--session", "s2"], "");
    assert_eq!(t["access_count"], 3, "{t}");
    assert_eq!(t["sessions_seen"], json!(["s1", "s2"]));
    // Promotion on node a reads what node b touched, and marks the entry for both.
    let p = b.a.jsonl(&["memory", "promote"], "");
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0]["stm_id"], eid);
    assert!(
        b.b.jsonl(&["memory", "promote"], "").is_empty(),
        "attempted once"
    );
    // Expiry: after 72 hours the entry is hidden on both nodes and gc on either removes it.
    let later = "2026-02-18T00:00:01Z";
    let hidden =
        b.b.bob(&["memory", "stm", "list"])
            .env("BOB_NOW", later)
            .output()
            .unwrap();
    assert!(hidden.status.success());
    assert!(
        hidden.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&hidden.stdout)
    );
    let gc =
        b.a.bob(&["memory", "stm", "gc"])
            .env("BOB_NOW", later)
            .output()
            .unwrap();
    let gc: Value = serde_json::from_slice(&gc.stdout).unwrap();
    assert_eq!(gc["short_term_removed"], json!([eid]), "{gc}");
    b.b.fails(&["memory", "stm", "touch", eid], "", 4, "not_found");
    if let Some(db) = &b.db {
        let n: i64 = db
            .client()
            .query_one("SELECT count(*) FROM stm", &[])
            .unwrap()
            .get(0);
        assert_eq!(n, 0);
    }
}

fn racing_touches_of_one_stm_entry_count_every_access(b: &Backend) {
    let e = b.a.json(&["memory", "stm", "add"], r#"{"intent":"raced"}"#);
    let eid = e["id"].as_str().unwrap();
    let children: Vec<_> = (0..6)
        .map(|i| {
            let node = if i % 2 == 0 { &b.a } else { &b.b };
            node.spawn(
                &["memory", "stm", "touch", eid, "--session", &format!("r{i}")],
                "",
            )
        })
        .collect();
    for c in children {
        crate::env::succeeded(c);
    }
    let listed = b.b.jsonl(&["memory", "stm", "list"], "");
    assert_eq!(listed[0]["access_count"], 6, "{listed:?}");
    assert_eq!(listed[0]["sessions_seen"].as_array().unwrap().len(), 6);
}

/// A stored secret that the user sends and the model echoes back reaches neither the home's
/// files nor any row of any table of the shared database (audit events, turn records, STM):
/// redaction sits in front of every durable write, on both backends.
fn a_secret_in_a_turn_is_at_rest_in_no_row_and_no_file(b: &Backend) {
    const CANARY: &str = "cnry-7Qw2Zp9Lx4Vb8Rt6";
    b.a.json(&["secrets", "set", "canary"], &format!("{CANARY}\n"));
    let text: String = (0..2)
        .map(|_| format!("{}\n", json!({"content": format!("Echo: {CANARY}")})))
        .collect();
    let script = b.a.env.write("script-canary.jsonl", &text);
    let spec = format!("replay:{}", script.display());
    let rec = b.a.json(
        &["turn", "--backend", &spec, "--session", "canary"],
        &format!("please remember {CANARY}"),
    );
    assert_eq!(rec["status"], "completed", "{rec}");
    // A memory carrying it, proposed and approved: the record's row and the ranking's copy.
    let proposed = b.a.jsonl(
        &["memory", "propose"],
        &json!([{"text": format!("The vault code is {CANARY}"), "type": "fact"}]).to_string(),
    );
    b.a.json(
        &["memory", "approve", proposed[0]["id"].as_str().unwrap()],
        "",
    );
    for file in crate::support::files_under(&b.a.env.home()) {
        let bytes = std::fs::read(&file).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(CANARY),
            "the secret is at rest in {}",
            file.display()
        );
    }
    if let Some(db) = &b.db {
        let mut client = db.client();
        let tables: Vec<String> = client
            .query(
                "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public'",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(tables.iter().any(|t| t == "audit_events"), "{tables:?}");
        let ranked: i64 = client
            .query_one("SELECT count(*) FROM memory_rank", &[])
            .unwrap()
            .get(0);
        assert_eq!(
            ranked, 1,
            "the approved memory is in the ranking's copy (scanned too)"
        );
        let (mut rows, mut echoed) = (0, false);
        for table in &tables {
            let sql = format!("SELECT t::text FROM \"{table}\" t");
            for row in client.query(&sql, &[]).unwrap() {
                let line: String = row.get(0);
                rows += 1;
                echoed |= line.contains("Echo: [REDACTED]");
                assert!(
                    !line.contains(CANARY),
                    "the secret is at rest in {table}: {line}"
                );
            }
        }
        // The turn did write to the database (its audit events, turn record, STM entry and
        // checkpoint), the answer masked.
        assert!(rows > 2, "only {rows} rows in the database");
        assert!(echoed, "the model's answer reached no row");
    }
}
