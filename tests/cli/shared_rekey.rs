//! `bob ledger rekey` with several writers: a rotation on one node is followed by the other
//! (the other process on one home, or the other home on one database), an append racing it
//! lands wholly before or after it, and on the shared store the epoch record is verified (a
//! tampered one, or a record signed with the retired key after it, fails), and a running
//! `bob serve` picks up the new key at its next append.

use crate::shared_store::{Backend, Node, report, reports, store_suite, verify_all};
use serde_json::{Map, Value};

store_suite!(
    a_rotation_on_one_node_is_followed_by_the_other_and_verifies_on_both,
    an_append_racing_a_rotation_lands_wholly_before_or_after_it,
);

const LEDGER: &str = "postgres:memory_ledger";

/// Proposes `texts` on `node`; their candidate ids.
fn propose(node: &Node, texts: &[String]) -> Vec<String> {
    let body: Vec<Value> = texts
        .iter()
        .map(|t| serde_json::json!({"text": t, "type": "fact"}))
        .collect();
    node.jsonl(&["memory", "propose"], &Value::Array(body).to_string())
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// A decision on `node`: one record in the approval ledger and one human act.
fn decide(node: &Node, text: &str) {
    let id = propose(node, &[text.to_string()]).remove(0);
    node.json(&["memory", "approve", &id], "");
}

/// The approval ledger's records (the database's on the shared store, else the home's).
fn ledger(node: &Node) -> Vec<Value> {
    node.jsonl(&["ledger", "show"], "")
}

fn a_rotation_on_one_node_is_followed_by_the_other_and_verifies_on_both(b: &Backend) {
    decide(&b.a, "The office wifi is bobnet");
    let first = ledger(&b.a)[0]["key_id"].as_str().unwrap().to_string();

    let done = b.a.json(&["ledger", "rekey"], "");
    assert_eq!(done["epoch"], 2, "{done}");
    let second = done["key_id"].as_str().unwrap().to_string();
    assert_ne!(second, first);
    if b.db.is_some() {
        assert_eq!(done["backend"], "postgres", "{done}");
        assert_eq!(done["previous_key_id"], first.as_str(), "{done}");
        assert_eq!(done["first_epoch_recorded"], true, "{done}");
        let chains = done["chains"].as_array().unwrap();
        assert!(
            chains.iter().any(|c| c["chain"] == LEDGER && c["seq"] == 1),
            "{done}"
        );
        // The nodes' key file is not changed: it still holds the first key.
        let key = std::fs::read(b.a.key_file.as_ref().unwrap()).unwrap();
        use sha2::Digest;
        assert_eq!(hex::encode(sha2::Sha256::digest(&key))[..16], first);
    }

    // The other node's next record is signed with the new key.
    decide(&b.b, "Backups run at 02:00");
    let records = ledger(&b.b);
    let last = records.last().unwrap();
    assert_eq!(last["key_id"], second.as_str(), "{records:?}");
    assert_eq!(records[0]["key_id"], first.as_str());
    if b.db.is_some() {
        let mark = &records[1];
        assert_eq!(mark["kind"], "key_epoch", "{records:?}");
        assert_eq!(mark["key_epoch"]["previous_key_id"], first.as_str());
        assert_eq!(mark["key_id"], second.as_str());
    }

    // Both nodes verify every chain across the epochs.
    for node in [&b.a, &b.b] {
        let all = verify_all(node);
        if b.db.is_some() {
            let r = report(&all, LEDGER);
            assert_eq!(r["ok"], true, "{r}");
            assert_eq!(r["verified"], 3, "{r}");
            assert_eq!(r["retired_key_records"], 1, "{r}");
            let human = report(&all, "postgres:audit_events/human");
            assert_eq!(human["ok"], true, "{human}");
        }
    }

    // A second rotation, from the other node, and an append on the first.
    let again = b.b.json(&["ledger", "rekey"], "");
    assert_eq!(again["epoch"], 3, "{again}");
    decide(&b.a, "The printer is on the second floor");
    let records = ledger(&b.a);
    assert_eq!(
        records.last().unwrap()["key_id"],
        again["key_id"].as_str().unwrap()
    );
    for node in [&b.a, &b.b] {
        verify_all(node);
    }
}

fn an_append_racing_a_rotation_lands_wholly_before_or_after_it(b: &Backend) {
    decide(&b.a, "The first fact before the race");
    let first = ledger(&b.a)[0]["key_id"].as_str().unwrap().to_string();
    let texts: Vec<String> = (0..6).map(|i| format!("Racing fact number {i}")).collect();
    let ids = propose(&b.b, &texts);
    // Six decisions on one node while the other rotates the key.
    let deciders: Vec<_> = ids
        .iter()
        .map(|id| b.b.spawn(&["memory", "approve", id], ""))
        .collect();
    let done = b.a.json(&["ledger", "rekey"], "");
    for child in deciders {
        crate::env::succeeded(child);
    }
    let second = done["key_id"].as_str().unwrap();
    let records = ledger(&b.a);
    assert_eq!(
        records.iter().filter(|r| r["kind"] == "decision").count(),
        7
    );
    // The keys never interleave: the old key up to the rotation, the new one after it.
    let keys: Vec<&str> = records
        .iter()
        .map(|r| r["key_id"].as_str().unwrap())
        .collect();
    let turn = keys.iter().position(|k| *k == second).unwrap_or(keys.len());
    assert!(
        keys[..turn].iter().all(|k| *k == first),
        "old key records: {keys:?}"
    );
    assert!(
        keys[turn..].iter().all(|k| *k == second),
        "a record signed with the retired key after the rotation: {keys:?}"
    );
    if b.db.is_some() {
        assert_eq!(records[turn]["kind"], "key_epoch", "{records:?}");
    }
    for node in [&b.a, &b.b] {
        verify_all(node);
    }
}

/// The database's rows of `table` (`memory_ledger`) in `seq` order, with their `seq`.
fn ledger_rows(b: &Backend) -> Vec<(i64, String)> {
    let mut c = b.db.as_ref().unwrap().client();
    c.query("SELECT seq, record FROM memory_ledger ORDER BY seq", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

fn failing_verify(node: &Node) -> Vec<Value> {
    let out = node.bob(&["ledger", "verify", "--all"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    reports(&out)
}

#[test]
fn a_tampered_epoch_record_fails_verify_with_a_clear_message() {
    let Some(b) = Backend::postgres() else { return };
    decide(&b.a, "The office wifi is bobnet");
    b.a.json(&["ledger", "rekey"], "");
    decide(&b.b, "Backups run at 02:00");
    verify_all(&b.a);

    // The owner edits the epoch record (its actor), with the trigger disabled.
    let db = b.db.as_ref().unwrap();
    let mut c = db.client();
    c.batch_execute("ALTER TABLE memory_ledger DISABLE TRIGGER memory_ledger_append_only")
        .unwrap();
    let n = c
        .execute(
            "UPDATE memory_ledger SET record = replace(record, '\"actor\":\"system\"', \
             '\"actor\":\"mallory\"') WHERE record LIKE '%\"key_epoch\"%'",
            &[],
        )
        .unwrap();
    assert_eq!(n, 1);
    for node in [&b.a, &b.b] {
        let all = failing_verify(node);
        let r = report(&all, LEDGER);
        assert_eq!(r["ok"], false);
        assert_eq!(r["first_bad_line"], 2, "{r}");
        let why = r["reason"].as_str().unwrap();
        assert!(
            why.contains("the key epoch 2 record") && why.contains("does not verify under key"),
            "{why}"
        );
    }
}

#[test]
fn a_record_signed_with_the_retired_key_after_the_rotation_fails_verify() {
    let Some(b) = Backend::postgres() else { return };
    decide(&b.a, "The office wifi is bobnet");
    b.a.json(&["ledger", "rekey"], "");
    // Someone holding the retired key (the nodes' key file) chains a record after the epoch
    // record, as a node that kept signing with it would.
    let old: [u8; 32] = std::fs::read(b.a.key_file.as_ref().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let rows = ledger_rows(&b);
    let (seq, last) = rows.last().unwrap();
    let last: Value = serde_json::from_str(last).unwrap();
    let old_id = rows[0].1.clone();
    let old_id: Value = serde_json::from_str(&old_id).unwrap();
    let mut rec = Map::new();
    rec.insert("kind".into(), Value::from("decision"));
    rec.insert("decision".into(), Value::from("reject"));
    rec.insert("actor".into(), Value::from("mallory"));
    rec.insert("key_id".into(), old_id["key_id"].clone());
    rec.insert("seq".into(), Value::from(seq + 1));
    rec.insert("prev".into(), last["hash"].clone());
    use hmac::Mac;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&old).unwrap();
    mac.update(&serde_json::to_vec(&rec).unwrap());
    rec.insert(
        "hash".into(),
        Value::from(hex::encode(mac.finalize().into_bytes())),
    );
    let mut c = b.db.as_ref().unwrap().client();
    c.execute(
        "INSERT INTO memory_ledger (seq, record) VALUES ($1, $2)",
        &[&(seq + 1), &serde_json::to_string(&rec).unwrap()],
    )
    .unwrap();
    let all = failing_verify(&b.b);
    let r = report(&all, LEDGER);
    let why = r["reason"].as_str().unwrap();
    assert_eq!(r["first_bad_line"], seq + 2, "{r}");
    assert!(
        why.contains("retired at key epoch 2")
            && why.contains("no record signed with a retired key"),
        "{why}"
    );
}

#[test]
fn a_node_without_the_secrets_key_refuses_to_sign_after_a_rotation() {
    let Some(b) = Backend::postgres() else { return };
    decide(&b.a, "The office wifi is bobnet");
    b.a.json(&["ledger", "rekey"], "");
    // A third node with the chain key file but not the cluster's secrets key: it cannot open
    // the new key, and it does not sign with its own (retired) one.
    let keys = tempfile::tempdir().unwrap();
    let copy = keys.path().join("chain.key");
    std::fs::copy(b.a.key_file.as_ref().unwrap(), &copy).unwrap();
    let c = Node {
        env: crate::TestEnv::new(),
        url: b.a.url.clone(),
        key_file: Some(copy),
    };
    let id = propose(&b.a, &["Only the cluster's nodes decide".to_string()]).remove(0);
    let e = c.fails(&["memory", "approve", &id], "", 5, "conflict");
    assert!(
        e["message"].as_str().unwrap().contains("secrets key"),
        "{e}"
    );
    let before = ledger_rows(&b).len();
    b.b.json(&["memory", "approve", &id], "");
    assert_eq!(ledger_rows(&b).len(), before + 1);
    verify_all(&b.b);
}

#[test]
fn a_running_serve_node_signs_with_the_new_key_after_a_rotation() {
    use crate::serve::{Server, req};
    let Some(b) = Backend::postgres() else { return };
    let token = b.b.json(
        &[
            "serve", "token", "create", "--name", "t", "--scope", "admin",
        ],
        "",
    )["token"]
        .as_str()
        .unwrap()
        .to_string();
    let url = b.b.url.clone().unwrap();
    let key = b.b.key_file.as_ref().unwrap().display().to_string();
    let srv = Server::start_env(
        &b.b.env,
        &[],
        &[
            ("BOB_DATABASE_URL", url.as_str()),
            ("BOB_KEY_FILE", key.as_str()),
        ],
    );
    let ids = propose(
        &b.a,
        &[
            "Decided before the rotation".to_string(),
            "Decided after the rotation".to_string(),
        ],
    );
    let path = |id: &str| format!("/api/admin/memory/candidates/{id}/approve");
    let r = req(srv.addr, "POST", &path(&ids[0]), Some(&token), None);
    assert_eq!(r.status, 200);
    let done = b.a.json(&["ledger", "rekey"], "");
    // The server loaded the old key at its start; its next record is under the new one.
    let r = req(srv.addr, "POST", &path(&ids[1]), Some(&token), None);
    assert_eq!(r.status, 200);
    let records = ledger(&b.a);
    let last = records.last().unwrap();
    assert_eq!(last["kind"], "decision");
    assert_eq!(last["key_id"], done["key_id"], "{records:?}");
    // Its audit event of that act too (the audit log's own connection, the same check).
    let acts =
        b.a.jsonl(&["ledger", "show", "postgres:audit_events/human"], "");
    let act = acts.last().unwrap();
    assert_eq!(act["event_type"], "memory.decision", "{acts:?}");
    assert_eq!(act["key_id"], done["key_id"], "{acts:?}");
    drop(srv);
    for node in [&b.a, &b.b] {
        let all = verify_all(node);
        assert_eq!(report(&all, LEDGER)["ok"], true);
    }
}

/// The anchor kept before a rotation still checks the chains after it (the statement is signed
/// with the node's key file, which a rotation of the database's chains leaves alone), and one
/// taken after it finds the epoch record and what follows deleted.
#[test]
fn the_kept_anchor_checks_the_chains_across_a_rotation() {
    let Some(b) = Backend::postgres() else { return };
    decide(&b.a, "The office wifi is bobnet");
    b.a.json(&["ledger", "anchor"], "");
    b.a.json(&["ledger", "rekey"], "");
    decide(&b.b, "Backups run at 02:00");
    let all = verify_all(&b.a);
    assert_eq!(report(&all, LEDGER)["anchor"], "ok");
    let anchor = b.a.json(&["ledger", "anchor"], "");
    assert_eq!(anchor["shared"][LEDGER]["seq"], 2, "{anchor}");
    let mut c = b.db.as_ref().unwrap().client();
    c.batch_execute(
        "ALTER TABLE memory_ledger DISABLE TRIGGER memory_ledger_append_only;
         DELETE FROM memory_ledger WHERE seq >= 1;",
    )
    .unwrap();
    let all = failing_verify(&b.a);
    let r = report(&all, LEDGER);
    assert_eq!(r["anchor"], "behind", "{r}");
    // Without the anchor the rows alone show it too: the chain ends under the retired key.
    let all = failing_verify(&b.b);
    let why = report(&all, LEDGER)["reason"].as_str().unwrap().to_string();
    assert!(
        why.contains("ends under key") && why.contains("retired at key epoch 2"),
        "{why}"
    );
}

/// The key epochs' advisory lock (`chain::pg::EPOCH_LOCK`): appenders take it shared, a
/// rotation exclusively.
const EPOCH_LOCK: i64 = 0x0062_6f62_6b65_7973;

/// The race made deterministic: a rotation waits for an append that is checking the epoch (it
/// holds the lock shared), and an append waits for a rotation under way (it holds the lock
/// exclusively), so an append never straddles the epoch record.
#[test]
fn appends_and_a_rotation_wait_for_each_other_at_the_epoch_lock() {
    use std::time::Duration;
    let Some(b) = Backend::postgres() else { return };
    decide(&b.a, "The office wifi is bobnet");
    let db = b.db.as_ref().unwrap();
    let still_running = |child: &mut std::process::Child| {
        std::thread::sleep(Duration::from_millis(1500));
        child.try_wait().unwrap().is_none()
    };

    // An appender in the middle of its append: the rotation waits for it.
    let mut c = db.client();
    let mut tx = c.transaction().unwrap();
    tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&EPOCH_LOCK])
        .unwrap();
    let mut rekey = b.a.spawn(&["ledger", "rekey"], "");
    assert!(still_running(&mut rekey), "the rotation did not wait");
    tx.commit().unwrap();
    let out = crate::env::succeeded(rekey);
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();

    // A rotation under way: the appender waits for it, then signs with the newest key.
    let id = propose(
        &b.b,
        &["Decided while a rotation held the lock".to_string()],
    )
    .remove(0);
    let mut tx = c.transaction().unwrap();
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&EPOCH_LOCK])
        .unwrap();
    let mut approve = b.b.spawn(&["memory", "approve", &id], "");
    assert!(still_running(&mut approve), "the append did not wait");
    tx.commit().unwrap();
    crate::env::succeeded(approve);
    let records = ledger(&b.a);
    assert_eq!(records.last().unwrap()["key_id"], done["key_id"]);
    verify_all(&b.b);
}

/// A chain whose last record is under another key (a node with the wrong key file wrote it)
/// is not vouched for by a rotation: refused, nothing written.
#[test]
fn a_rotation_refuses_a_chain_ending_under_another_key() {
    let Some(b) = Backend::postgres() else { return };
    decide(&b.a, "The office wifi is bobnet");
    let keys = tempfile::tempdir().unwrap();
    let stray = Node {
        env: crate::TestEnv::new(),
        url: b.a.url.clone(),
        key_file: Some(keys.path().join("chain.key")),
    };
    decide(&stray, "Written with a key of its own");
    let before = ledger_rows(&b).len();
    let e = b.a.fails(&["ledger", "rekey"], "", 5, "conflict");
    assert_eq!(e["details"]["chain"], LEDGER, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("not the key in force"),
        "{e}"
    );
    assert_eq!(ledger_rows(&b).len(), before);
    let mut c = b.db.as_ref().unwrap().client();
    let epochs: i64 = c
        .query_one("SELECT count(*) FROM chain_keys", &[])
        .unwrap()
        .get(0);
    assert_eq!(epochs, 0, "the rotation was not rolled back");
}
