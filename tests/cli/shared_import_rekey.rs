//! `bob db import --from HOME` into a database whose chain key was rotated (`bob ledger rekey`
//! on the shared store) since the home's records were signed: the copied chains are brought to
//! the key in force with an epoch record per later epoch, so `bob ledger verify --all` passes
//! on every node, later appends chain after them, and a second import changes nothing. A node
//! that cannot open the epochs' keys is refused and nothing is written.

use crate::shared_store::{Node, report, verify_all};
use crate::support::pg;
use serde_json::{Value, json};

const LEDGER: &str = "postgres:memory_ledger";

/// A decision on `node`: one ledger record and one human act.
fn decide(node: &Node, text: &str) {
    let body = json!([{"text": text, "type": "fact"}]).to_string();
    let id = node.jsonl(&["memory", "propose"], &body)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    node.json(&["memory", "approve", &id], "");
}

#[test]
fn a_home_imported_after_two_rotations_joins_the_key_in_force_and_verifies() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    // An embedded home with two decisions (ledger records and audited human acts).
    let old = Node::embedded();
    decide(&old, "The office wifi is bobnet");
    decide(&old, "Backups run at 02:00");
    let home_ledger = old.jsonl(&["ledger", "show"], "");
    assert_eq!(home_ledger.len(), 2, "{home_ledger:?}");
    let first_key = home_ledger[0]["key_id"].as_str().unwrap().to_string();

    // Two nodes of a database sharing that home's key; the database's key is rotated twice
    // before the import.
    let node = || Node::on(db.url(), old.env.home().join("keys/chain.key"));
    let (a, b) = (node(), node());
    assert_eq!(a.json(&["ledger", "rekey"], "")["epoch"], 2);
    let third = b.json(&["ledger", "rekey"], "");
    assert_eq!(third["epoch"], 3, "{third}");
    let in_force = third["key_id"].as_str().unwrap().to_string();

    let from = old.env.home().display().to_string();
    let n = a.json(&["db", "import", "--from", &from], "");
    assert_eq!(n["ledger"]["copied"], 2, "{n}");
    assert!(n["audit"]["copied"].as_u64().unwrap() >= 2, "{n}");
    // Epochs 2 and 3 at the end of the ledger and of each copied audit day file.
    let epoch_records = n["epoch_records"].as_u64().unwrap();
    assert!(epoch_records >= 4 && epoch_records % 2 == 0, "{n}");

    let ledger = b.jsonl(&["ledger", "show"], "");
    assert_eq!(ledger.len(), 4, "{ledger:?}");
    assert_eq!(ledger[0]["key_id"], first_key.as_str());
    assert_eq!(ledger[2]["kind"], "key_epoch", "{ledger:?}");
    assert_eq!(ledger[2]["key_epoch"]["epoch"], 2, "{ledger:?}");
    assert_eq!(
        ledger[2]["key_epoch"]["previous_key_id"],
        first_key.as_str()
    );
    assert_eq!(ledger[3]["key_epoch"]["epoch"], 3, "{ledger:?}");
    assert_eq!(ledger[3]["key_id"], in_force.as_str(), "{ledger:?}");

    for node in [&a, &b] {
        let all = verify_all(node);
        let r = report(&all, LEDGER);
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], 4, "{r}");
        assert_eq!(r["retired_key_records"], 3, "{r}");
        // Every copied day file verifies too, and ends under the key in force.
        let days: Vec<&Value> = all
            .iter()
            .filter(|r| {
                r["path"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("postgres:audit_events/human/"))
            })
            .collect();
        assert!(!days.is_empty(), "{all:#?}");
        for d in days {
            assert_eq!(d["ok"], true, "{d}");
            assert!(d["retired_key_records"].as_u64().unwrap() >= 2, "{d}");
        }
    }

    // A decision made on the cluster afterwards chains after the epoch records.
    decide(&b, "The printer is on the second floor");
    let ledger = a.jsonl(&["ledger", "show"], "");
    assert_eq!(ledger.len(), 5);
    assert_eq!(ledger[4]["key_id"], in_force.as_str());
    assert_eq!(report(&verify_all(&a), LEDGER)["ok"], true);

    // Importing the same home again changes nothing.
    let again = b.json(&["db", "import", "--from", &from], "");
    assert_eq!(again["ledger"]["copied"], 0, "{again}");
    assert_eq!(again["ledger"]["unchanged"], 2, "{again}");
    assert_eq!(again["audit"]["copied"], 0, "{again}");
    assert_eq!(again["epoch_records"], 0, "{again}");
    assert_eq!(report(&verify_all(&b), LEDGER)["verified"], 5);
}

#[test]
fn an_import_after_a_rotation_by_a_node_without_the_secrets_key_is_refused_whole() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let old = Node::embedded();
    decide(&old, "The office wifi is bobnet");
    let a = Node::on(db.url(), old.env.home().join("keys/chain.key"));
    assert_eq!(a.json(&["ledger", "rekey"], "")["epoch"], 2);
    // The same chain key, but not the cluster's secrets key that seals the epochs' keys.
    let lone = tempfile::tempdir().unwrap();
    std::fs::copy(
        old.env.home().join("keys/chain.key"),
        lone.path().join("chain.key"),
    )
    .unwrap();
    let c = Node::on(db.url(), lone.path().join("chain.key"));
    let from = old.env.home().display().to_string();
    let e = c.fails(&["db", "import", "--from", &from], "", 5, "conflict");
    assert!(
        e["message"].as_str().unwrap().contains("secrets key"),
        "{e}"
    );
    // Nothing was written: the ledger is still empty, and the import by a node that holds the
    // key then succeeds and verifies.
    a.fails(&["ledger", "show"], "", 4, "not_found");
    let n = a.json(&["db", "import", "--from", &from], "");
    assert_eq!(n["ledger"]["copied"], 1, "{n}");
    assert_eq!(report(&verify_all(&a), LEDGER)["ok"], true);
}

#[test]
fn a_home_that_rekeyed_its_own_logs_is_refused_naming_what_to_do() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let old = Node::embedded();
    decide(&old, "The office wifi is bobnet");
    assert_eq!(old.json(&["ledger", "rekey"], "")["epoch"], 2);
    decide(&old, "Backups run at 02:00");
    let a = Node::on(db.url(), old.env.home().join("keys/chain.key"));
    let from = old.env.home().display().to_string();
    let e = a.fails(&["db", "import", "--from", &from], "", 5, "conflict");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("retired") && message.contains("bob memory export"),
        "{e}"
    );
    a.fails(&["ledger", "show"], "", 4, "not_found");
    assert!(a.jsonl(&["memory", "list"], "").is_empty());
}
