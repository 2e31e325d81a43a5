//! Turn records, STM and secrets on the shared store: the same suite against the home's
//! embedded files and a real PostgreSQL (`shared_store::store_suite`), two nodes each.

use crate::shared_store::{Backend, store_suite};
use serde_json::{Value, json};

store_suite!(turn_records_committed_on_one_node_are_listed_and_shown_on_the_other,);

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
