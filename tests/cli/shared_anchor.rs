//! Deleting the newest rows of a shared chain is found: `bob ledger anchor` on the shared store
//! signs every database chain's head and keeps the statement in the home, and
//! `bob ledger verify --all` checks the database against it.

use crate::shared_store::{Backend, report, reports};
use serde_json::Value;

const LEDGER: &str = "postgres:memory_ledger";
const HUMAN: &str = "postgres:audit_events/human";

#[test]
fn deleting_a_shared_chains_newest_rows_fails_verify_against_the_anchor() {
    let Some(b) = Backend::postgres() else { return };
    for text in ["The office wifi is bobnet", "Backups run at 02:00"] {
        let rows = b.a.jsonl(
            &["memory", "propose"],
            &format!(r#"[{{"text":"{text}","type":"fact"}}]"#),
        );
        b.a.json(&["memory", "approve", rows[0]["id"].as_str().unwrap()], "");
    }
    // The rows alone: deleting the newest is not seen without an anchor.
    let anchor = b.a.json(&["ledger", "anchor"], "");
    assert_eq!(anchor["shared"][LEDGER]["seq"], 1, "{anchor}");
    assert!(anchor["shared"][HUMAN]["hash"].is_string(), "{anchor}");
    assert!(anchor["mac"].is_string());
    let kept = b.a.env.home().join("keys/shared_anchor.json");
    let on_disk: Value = serde_json::from_slice(&std::fs::read(&kept).unwrap()).unwrap();
    assert_eq!(on_disk, anchor);
    let ok = b.a.bob(&["ledger", "verify", "--all"]).output().unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let all = reports(&ok);
    assert_eq!(report(&all, LEDGER)["anchor"], "ok");
    assert_eq!(report(&all, HUMAN)["anchor"], "ok");

    // The owner deletes the newest ledger row and the newest human audit row.
    let db = b.db.as_ref().unwrap();
    let mut c = db.client();
    c.batch_execute(
        "ALTER TABLE memory_ledger DISABLE TRIGGER memory_ledger_append_only;
         ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only;
         DELETE FROM memory_ledger WHERE seq = (SELECT max(seq) FROM memory_ledger);
         DELETE FROM audit_events WHERE chain = 'human'
             AND seq = (SELECT max(seq) FROM audit_events WHERE chain = 'human');",
    )
    .unwrap();
    // Node b keeps no anchor: the shorter chains still verify there...
    let unanchored = b.b.bob(&["ledger", "verify", "--all"]).output().unwrap();
    assert!(
        unanchored.status.success(),
        "the rows alone show the deletion"
    );
    // ...but node a, with its kept anchor, fails naming both chains.
    let out = b.a.bob(&["ledger", "verify", "--all"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = reports(&out);
    for name in [LEDGER, HUMAN] {
        let r = report(&all, name);
        assert_eq!(
            (r["ok"].clone(), r["anchor"].clone()),
            (false.into(), "behind".into()),
            "{r}"
        );
        assert!(
            r["reason"]
                .as_str()
                .unwrap()
                .contains("newest rows were deleted"),
            "{r}"
        );
    }
    // And the statement, copied elsewhere, fails node b's verify too.
    let copy = b.b.env.write("anchor.json", &anchor.to_string());
    let out =
        b.b.bob(&[
            "ledger",
            "verify",
            "--all",
            "--anchor",
            copy.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(report(&reports(&out), LEDGER)["anchor"], "behind");
}
