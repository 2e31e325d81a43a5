//! Audit events on the shared store: with `database.url` set, every audit event is a row of a
//! keyed chain in the database (one chain per agent), written by any node, never updated or
//! deleted, and `bob ledger verify --all` checks every chain there and finds an edit made
//! anyway.

use crate::shared_store::{Backend, report, reports};
use serde_json::Value;

#[test]
fn audit_events_are_chained_rows_and_an_edit_made_anyway_is_found() {
    let Some(b) = Backend::postgres() else { return };
    // Human acts on both nodes, and a memory decision (the ledger and the audit log).
    b.a.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["one audit log for the cluster"]}"#,
    );
    b.b.json(
        &["state", "set", "--session", "s2"],
        r#"{"goals":["from the other node"]}"#,
    );
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"text":"The cluster shares one audit log","type":"fact"}]"#,
    );
    b.b.json(&["memory", "approve", rows[0]["id"].as_str().unwrap()], "");
    for node in [&b.a, &b.b] {
        assert!(
            !node.env.home().join("audit").join("human").exists(),
            "an audit event was written to a home"
        );
    }
    let mut c = b.db.as_ref().unwrap().client();
    let events: Vec<Value> = c
        .query(
            "SELECT record FROM audit_events WHERE chain = 'human' ORDER BY seq",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| serde_json::from_str(r.get::<_, &str>(0)).unwrap())
        .collect();
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["state.set", "state.set", "memory.decision"],
        "{events:?}"
    );
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["seq"], i, "{e}");
        assert_eq!(e["actor"], "human", "{e}");
        assert_eq!(e["hash"].as_str().unwrap().len(), 64, "{e}");
    }
    assert_eq!(events[1]["prev"], events[0]["hash"]);

    // Both nodes verify every chain: the ledger and the audit events.
    for node in [&b.a, &b.b] {
        let out = node.bob(&["ledger", "verify", "--all"]).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let all = reports(&out);
        let audit = report(&all, "postgres:audit_events/human");
        assert_eq!(audit["ok"], true, "{audit}");
        assert_eq!(audit["verified"], 3, "{audit}");
        assert_eq!(report(&all, "postgres:memory_ledger")["ok"], true);
    }

    // The rows are append-only: UPDATE, DELETE and TRUNCATE are refused by the database.
    for sql in [
        "UPDATE audit_events SET record = '{}' WHERE seq = 0",
        "DELETE FROM audit_events WHERE seq = 2",
        "TRUNCATE audit_events",
    ] {
        let e = c.batch_execute(sql).unwrap_err();
        let why = e.as_db_error().map(|d| d.message().to_string());
        assert!(
            why.as_deref().is_some_and(|m| m.contains("append-only")),
            "{sql}: {e:?}"
        );
    }
    // An edit made anyway (the owner disabling the trigger) is found: the first state.set is
    // made to say it replaced the state.
    let forged = events[0]
        .to_string()
        .replace(r#""mode":"merge""#, r#""mode":"replace""#);
    assert_ne!(forged, events[0].to_string());
    c.batch_execute("ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only")
        .unwrap();
    c.execute(
        "UPDATE audit_events SET record = $1 WHERE chain = 'human' AND seq = 0",
        &[&forged],
    )
    .unwrap();
    let out = b.b.bob(&["ledger", "verify", "--all"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = reports(&out);
    let audit = report(&all, "postgres:audit_events/human");
    assert_eq!(audit["ok"], false, "{audit}");
    assert_eq!(audit["first_bad_line"], 1, "{audit}");
    assert_eq!(report(&all, "postgres:memory_ledger")["ok"], true);
    // A record deleted anyway is found too: the chain skips a seq at the record after it.
    c.execute(
        "UPDATE audit_events SET record = $1 WHERE chain = 'human' AND seq = 0",
        &[&events[0].to_string()],
    )
    .unwrap();
    c.batch_execute("DELETE FROM audit_events WHERE chain = 'human' AND seq = 1")
        .unwrap();
    let all = reports(&b.a.bob(&["ledger", "verify", "--all"]).output().unwrap());
    let audit = report(&all, "postgres:audit_events/human");
    assert_eq!(
        (audit["ok"].clone(), audit["first_bad_line"].clone()),
        (false.into(), 2.into()),
        "{audit}"
    );
}

#[test]
fn ledger_show_reads_the_shared_stores_chains() {
    let Some(b) = Backend::postgres() else { return };
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"text":"Ledger rows live in the database","type":"fact"}]"#,
    );
    let id = rows[0]["id"].as_str().unwrap();
    b.a.json(&["memory", "approve", id], "");
    // Node B shows the ledger node A wrote: the database's, not a home file (there is none).
    let shown = b.b.jsonl(&["ledger", "show"], "");
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0]["candidate_id"], id);
    assert_eq!(shown[0]["decision"], "approve");
    assert_eq!(shown[0]["seq"], 0);
    assert!(!b.b.env.home().join("memory_approvals.jsonl").exists());
    let filtered = b.b.jsonl(&["ledger", "show", "--kind", "reject"], "");
    assert!(filtered.is_empty(), "{filtered:?}");
    // Any chain verify names can be shown, the audit events of an agent included.
    let named = b.b.jsonl(&["ledger", "show", "postgres:memory_ledger"], "");
    assert_eq!(named, shown);
    let acts =
        b.b.jsonl(&["ledger", "show", "postgres:audit_events/human"], "");
    assert_eq!(acts.len(), 1, "{acts:?}");
    assert_eq!(acts[0]["event_type"], "memory.decision");
    b.b.fails(
        &["ledger", "show", "postgres:audit_events/nobody_here"],
        "",
        4,
        "not_found",
    );
}

#[test]
fn db_import_copies_a_homes_audit_events_verbatim_once() {
    let Some(b) = Backend::postgres() else { return };
    // An embedded home with human acts in its audit log.
    let old = crate::TestEnv::new();
    old.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["audited at home"]}"#,
    );
    let rows = old.jsonl(
        &["memory", "propose"],
        r#"[{"text":"Imported audit events still verify","type":"fact"}]"#,
    );
    old.json(&["memory", "approve", rows[0]["id"].as_str().unwrap()], "");
    let lines = old.audit_lines("human");
    assert_eq!(lines.len(), 2, "{lines:?}");
    let day = std::fs::read_dir(old.home().join("audit/human"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let chain = format!(
        "postgres:audit_events/human/{}",
        day.file_stem().unwrap().to_str().unwrap()
    );
    let node = crate::shared_store::Node {
        env: crate::TestEnv::new(),
        url: b.a.url.clone(),
        key_file: Some(old.home().join("keys/chain.key")),
    };
    let from = old.home().display().to_string();
    let n = node.json(&["db", "import", "--from", &from], "");
    assert_eq!(n["audit"]["copied"], 2, "{n}");
    let again = node.json(&["db", "import", "--from", &from], "");
    assert_eq!(again["audit"]["copied"], 0, "{again}");
    assert_eq!(again["audit"]["unchanged"], 2, "{again}");
    // Copied verbatim: shown as the home holds them, and the chain verifies.
    let shown = node.jsonl(&["ledger", "show", &chain], "");
    let held: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(shown, held);
    let out = node.bob(&["ledger", "verify", "--all"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = reports(&out);
    let r = report(&all, &chain);
    assert_eq!(
        (r["ok"].clone(), r["verified"].clone()),
        (true.into(), 2.into()),
        "{r}"
    );
}
