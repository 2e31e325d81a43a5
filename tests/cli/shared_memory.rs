//! Memory on the shared store: long-term records, candidates and the approval ledger, one
//! suite run against the embedded home and against PostgreSQL (two homes on one database),
//! and what only the database has (rows, the append-only ledger, a tampered row found).

use crate::shared_store::{Backend, store_suite};
use serde_json::Value;
use std::process::Child;

store_suite!(
    memories_proposed_on_one_node_are_decided_and_found_on_the_other,
    racing_decisions_on_one_candidate_give_one_decision_and_conflicts,
    ranking_puts_the_best_match_first,
);

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

const THREE: &str = r###"[{"text":"The user prefers metric units for every recipe","type":"preference","tags":["units"],"source":"user_said","why_store":"stable"},
    {"title":"Drone parts","tags":["drone","parts_list"],"body_md":"## BOM\n- frame\n- brushless motors","importance":6,"ttl_days":null},
    {"text":"The user dislikes cilantro in salsa","type":"preference"}]"###;

fn memories_proposed_on_one_node_are_decided_and_found_on_the_other(b: &Backend) {
    let rows = b.a.jsonl(&["memory", "propose"], THREE);
    assert_eq!(rows.len(), 3);
    // Proposing the same content again while it is pending returns the same row.
    let again = b.b.jsonl(&["memory", "propose"], THREE);
    assert_eq!(
        again.iter().map(id).collect::<Vec<_>>(),
        rows.iter().map(id).collect::<Vec<_>>()
    );
    let pending =
        b.b.jsonl(&["memory", "candidates", "--status", "pending"], "");
    assert_eq!(pending.len(), 3, "{pending:?}");
    // Pending candidates are not memory.
    assert!(
        b.a.jsonl(&["memory", "query", "metric units"], "")
            .is_empty()
    );

    let approved = b.b.json(&["memory", "approve", &id(&rows[0])], "");
    assert_eq!(approved["candidate"]["status"], "approved");
    assert_eq!(approved["ledger_seq"], 0);
    let mem_id = approved["record"]["id"].as_str().unwrap().to_string();
    let edited = b.a.json(
        &[
            "memory",
            "approve",
            &id(&rows[1]),
            "--edit",
            r#"{"tags":["drone","bom"],"importance":9}"#,
        ],
        "",
    );
    assert_eq!(edited["ledger_seq"], 1);
    assert_eq!(
        edited["record"]["tags"],
        serde_json::json!(["drone", "bom"])
    );
    let rejected = b.b.json(
        &["memory", "reject", &id(&rows[2]), "--reason", "not durable"],
        "",
    );
    assert_eq!(rejected["candidate"]["status"], "rejected");
    assert_eq!(rejected["ledger_seq"], 2);
    // Decided once, on whichever node asks again.
    b.a.fails(&["memory", "approve", &id(&rows[0])], "", 5, "conflict");
    b.b.fails(&["memory", "approve", &id(&rows[2])], "", 5, "conflict");
    b.a.fails(&["memory", "approve", "cand_nope"], "", 4, "not_found");

    let hits = b.a.jsonl(
        &["memory", "query", "which units does the user prefer?"],
        "",
    );
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["id"], mem_id.as_str());
    let s = hits[0]["score"].as_f64().unwrap();
    assert!(s > 0.0 && s <= 1.0, "{s}");
    assert!(
        hits[0]["excerpt"].as_str().unwrap().contains("metric"),
        "{hits:?}"
    );
    assert!(
        b.b.jsonl(&["memory", "query", "cilantro salsa"], "")
            .is_empty()
    );
    assert_eq!(
        b.b.jsonl(&["memory", "query", "drone frame", "--tags", "bom"], "")
            .len(),
        1
    );
    assert!(
        b.b.jsonl(
            &["memory", "query", "drone frame", "--tags", "parts_list"],
            ""
        )
        .is_empty()
    );
    let listed = b.b.jsonl(&["memory", "list"], "");
    assert_eq!(listed.len(), 2, "{listed:?}");
    let decided =
        b.a.jsonl(&["memory", "candidates", "--status", "approved"], "");
    assert_eq!(decided.len(), 2);
    // The ledger's chain verifies from either node.
    for node in [&b.a, &b.b] {
        let reports = node.jsonl(&["ledger", "verify"], "");
        assert!(reports.iter().all(|r| r["ok"] == true), "{reports:?}");
        let verified: u64 = reports
            .iter()
            .filter(|r| {
                let p = r["path"].as_str().unwrap();
                p.ends_with("memory_approvals.jsonl") || p == "postgres:memory_ledger"
            })
            .map(|r| r["verified"].as_u64().unwrap())
            .sum();
        assert_eq!(verified, 3, "{reports:?}");
    }
}

fn racing_decisions_on_one_candidate_give_one_decision_and_conflicts(b: &Backend) {
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"text":"The deploy window is Tuesday mornings","type":"fact"}]"#,
    );
    let cand = id(&rows[0]);
    let children: Vec<Child> = (0..6)
        .map(|i| {
            let node = if i % 2 == 0 { &b.a } else { &b.b };
            if i % 3 == 2 {
                node.spawn(&["memory", "reject", &cand, "--reason", "racing"], "")
            } else {
                node.spawn(&["memory", "approve", &cand], "")
            }
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let codes: Vec<i32> = outs.iter().map(|o| o.status.code().unwrap()).collect();
    assert_eq!(codes.iter().filter(|&&c| c == 0).count(), 1, "{codes:?}");
    for o in outs.iter().filter(|o| o.status.code() != Some(0)) {
        assert_eq!(
            o.status.code(),
            Some(5),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let e: Value = serde_json::from_slice(&o.stderr).unwrap();
        assert_eq!(crate::support::code(&e), "conflict", "{e}");
    }
    let winner: Value =
        serde_json::from_slice(&outs.iter().find(|o| o.status.success()).unwrap().stdout).unwrap();
    assert_eq!(winner["ledger_seq"], 0);
    let seen = b.b.jsonl(&["memory", "candidates"], "");
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["status"], winner["candidate"]["status"]);
    assert_eq!(seen[0]["ledger_seq"], 0);
    // One ledger record, whose chain verifies.
    let reports = b.a.jsonl(&["ledger", "verify"], "");
    assert!(reports.iter().all(|r| r["ok"] == true), "{reports:?}");
    let ledger: Vec<&Value> = reports
        .iter()
        .filter(|r| {
            let p = r["path"].as_str().unwrap();
            p.ends_with("memory_approvals.jsonl") || p == "postgres:memory_ledger"
        })
        .collect();
    assert_eq!(ledger.len(), 1, "{reports:?}");
    assert_eq!(ledger[0]["verified"], 1, "{reports:?}");
}

fn ranking_puts_the_best_match_first(b: &Backend) {
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"title":"Espresso grind size","text":"Grind espresso fine, about 18 g in, 36 g out","type":"fact","importance":5},
            {"title":"Kitchen scale","text":"The kitchen scale also weighs espresso shots","type":"fact","importance":5},
            {"title":"Tea","text":"Green tea steeps at 80 degrees for two minutes","type":"fact","importance":5}]"#,
    );
    for r in &rows {
        b.b.json(&["memory", "approve", &id(r)], "");
    }
    let hits =
        b.a.jsonl(&["memory", "query", "espresso grind", "-k", "3"], "");
    let titles: Vec<&str> = hits.iter().map(|h| h["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Espresso grind size", "Kitchen scale"], "{hits:?}");
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    // (bm25 gives a word found in most records almost no weight: the second may score 0.)
    assert!(scores[0] > scores[1] && scores[1] >= 0.0, "{scores:?}");
    assert!(scores[0] <= 1.0);
}

// What only the database has.

#[test]
fn the_rankings_tables_follow_every_insert_update_and_delete_of_a_record() {
    let Some(b) = Backend::postgres() else { return };
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"text":"Backups run nightly at 02:00","type":"fact"},{"text":"The espresso grinder sits on shelf three","type":"fact"}]"#,
    );
    for r in &rows {
        b.b.json(&["memory", "approve", &id(r)], "");
    }
    let mut c = b.db.as_ref().unwrap().client();
    let count =
        |c: &mut ::postgres::Client, sql: &str| -> i64 { c.query_one(sql, &[]).unwrap().get(0) };
    let records = "SELECT count(*) FROM memory_rank";
    let posted = |c: &mut ::postgres::Client, word: &str| postings_and_holders(c, word).0;
    let posted_records = format!("SELECT count(DISTINCT rid) FROM ({LIVE_POSTINGS}) p");
    assert_eq!(count(&mut c, records), 2);
    assert_eq!(posted(&mut c, "backup"), 1);
    assert_eq!(count(&mut c, &posted_records), 2);
    assert_eq!(b.a.jsonl(&["memory", "query", "backups"], "").len(), 1);
    // An update (by hand: bob itself never updates a record) re-ranks it by its new words.
    c.execute(
        "UPDATE memory_records SET title = 'Snapshots', summary = 'Snapshots run hourly', \
         body = 'Snapshots run hourly' WHERE body LIKE 'Backups%'",
        &[],
    )
    .unwrap();
    assert_eq!(posted(&mut c, "snapshot"), 1);
    assert_eq!(posted(&mut c, "backup"), 0);
    let hits = b.a.jsonl(&["memory", "query", "snapshots"], "");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(b.a.jsonl(&["memory", "query", "backups"], "").is_empty());
    // A deleted record leaves the ranking with it.
    c.execute(
        "DELETE FROM memory_records WHERE body LIKE 'Snapshots%'",
        &[],
    )
    .unwrap();
    assert_eq!(count(&mut c, records), 1);
    assert_eq!(count(&mut c, &posted_records), 1);
    assert!(b.a.jsonl(&["memory", "query", "snapshots"], "").is_empty());
    assert_eq!(b.a.jsonl(&["memory", "query", "espresso"], "").len(), 1);
}

#[test]
fn the_postings_rank_every_match_as_the_rows_do() {
    let Some(b) = Backend::postgres() else { return };
    // Words in titles, tags, summaries and bodies, some repeated, so weights, frequencies and
    // lengths all count.
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"title":"Espresso grinder","tags":["coffee"],"body_md":"The espresso grinder sits on shelf three; espresso beans beside it","importance":7},
            {"title":"Coffee","tags":["espresso"],"body_md":"Filter coffee on weekdays, espresso on Sundays"},
            {"text":"The grinder's burrs were replaced in March","type":"fact"},
            {"text":"Tea, not coffee, after six","type":"preference","tags":["coffee"]},
            {"text":"Shelf three holds the spare burrs","type":"fact"}]"#,
    );
    for r in &rows {
        b.b.json(&["memory", "approve", &id(r)], "");
    }
    let query = |budget: &str, extra: &[&str]| {
        lexical_scores(
            &b,
            "espresso grinder coffee burrs shelf",
            "10",
            budget,
            extra,
        )
    };
    // `exact` reads the postings; a budget of 0 postings leaves the rows' ranking (the table
    // has no statistics yet, so it ranks every match too).
    let postings = query("exact", &[]);
    assert_eq!(postings.len(), 5, "{postings:?}");
    let by_rows = query("0", &[]);
    assert_eq!(postings.len(), by_rows.len());
    for ((a, x), (b, y)) in postings.iter().zip(&by_rows) {
        assert_eq!(a, b, "{postings:?} {by_rows:?}");
        assert!((x - y).abs() < 1e-9, "{postings:?} {by_rows:?}");
    }
    // A filter on tags ranks rows.
    let tagged = query("exact", &["--tags", "coffee"]);
    assert_eq!(tagged.len(), 2, "{tagged:?}");
}

/// The ids and scores of node a's lexical `memory query` of `text` (`-k k`, the rank budget
/// `budget`, and `extra` arguments).
fn lexical_scores(
    b: &Backend,
    text: &str,
    k: &str,
    budget: &str,
    extra: &[&str],
) -> Vec<(String, f64)> {
    let mut args = vec!["memory", "query", text, "-k", k, "--mode", "lexical"];
    args.extend_from_slice(extra);
    let out =
        b.a.bob(&args)
            .env("BOB_MEMORY_RANK_BUDGET", budget)
            .output()
            .unwrap();
    crate::env::jsonl_of(&out, &args)
        .iter()
        .map(|h| (id(h), h["score"].as_f64().unwrap()))
        .collect()
}

/// Every posting a query would read (user, lexeme, rid): those waiting in `memory_terms` and
/// those in `memory_blocks` not marked gone.
const LIVE_POSTINGS: &str = "SELECT t.user_id, t.lexeme, t.rid FROM memory_terms t \
     UNION ALL \
     SELECT p.user_id, p.lexeme, x.rid FROM memory_blocks p, bob_memory_block(p.postings, p.exps) x \
     WHERE NOT EXISTS (SELECT FROM memory_terms_gone g \
                       WHERE (g.user_id, g.lexeme, g.rid) = (p.user_id, p.lexeme, x.rid))";

/// How many postings `word` has, and how many records' `tsvector` hold it.
fn postings_and_holders(c: &mut ::postgres::Client, word: &str) -> (i64, i64) {
    let count =
        |c: &mut ::postgres::Client, sql: String| -> i64 { c.query_one(&sql, &[]).unwrap().get(0) };
    (
        count(
            c,
            format!("SELECT count(*) FROM ({LIVE_POSTINGS}) p WHERE p.lexeme = '{word}'"),
        ),
        count(
            c,
            format!("SELECT count(*) FROM memory_rank WHERE tsv @@ '{word}'::tsquery"),
        ),
    )
}

/// A JSON Lines file of `n` records (`<dir>/<name>.jsonl`) that all hold "harbor", a third
/// "lantern" and the rest "rope", with frequencies and lengths that differ, each tagged `t`.
fn harbor_records(dir: &std::path::Path, name: &str, n: usize) -> String {
    let lines: Vec<String> = (0..n)
        .map(|i| {
            let extra = if i % 3 == 0 { "lantern" } else { "rope" };
            serde_json::json!({
                "id": "x", "title": format!("Harbor note {name} {i}"),
                "created_at": "2025-06-01T12:00:00Z", "tags": ["t"],
                "summary": format!("note {i}"), "facts": [],
                "body_md": format!("{} {extra} {}", "harbor ".repeat(i % 5), "word ".repeat(i % 7)),
                "source": "imported", "token_est": 0, "ttl_days": null, "type": "fact",
                "importance": 1 + i % 10, "user": "default"})
            .to_string()
        })
        .collect();
    let file = dir.join(format!("{name}.jsonl"));
    std::fs::write(&file, lines.join("\n")).unwrap();
    file.display().to_string()
}

#[test]
fn the_postings_blocks_follow_every_edit_and_rank_as_the_rows_do() {
    let Some(b) = Backend::postgres() else { return };
    let mut c = b.db.as_ref().unwrap().client();
    // No statistics may appear mid-test: the rows' ranking would take N from them.
    b.a.json(&["db", "migrate"], "");
    c.batch_execute("ALTER TABLE memory_records SET (autovacuum_enabled = false)")
        .unwrap();
    // 200 records holding "harbor", a third of them "lantern" too, with frequencies and
    // lengths that differ; every one tagged `t`. The import packs them once it commits:
    // "harbor" into three blocks of 64 and one of 8.
    let dir = tempfile::tempdir().unwrap();
    let file = harbor_records(dir.path(), "r", 200);
    b.a.json(&["memory", "import", "--jsonl", &file], "");
    let count =
        |c: &mut ::postgres::Client, sql: &str| -> i64 { c.query_one(sql, &[]).unwrap().get(0) };
    assert_eq!(postings_and_holders(&mut c, "harbor"), (200, 200));
    assert_eq!(
        count(
            &mut c,
            "SELECT count(*) FROM memory_blocks WHERE lexeme = 'harbor'"
        ),
        4
    );
    assert_eq!(
        count(
            &mut c,
            "SELECT count(*) FROM memory_terms WHERE lexeme = 'harbor'"
        ),
        0
    );
    // The ranking by postings (no tag filter) and by rows (a tag every record has) agree.
    let query = |extra: &[&str]| lexical_scores(&b, "harbor lantern", "30", "exact", extra);
    let agree = || {
        let by_postings = query(&[]);
        let by_rows = query(&["--tags", "t"]);
        assert_eq!(by_postings.len(), 30, "{by_postings:?}");
        for ((a, x), (b, y)) in by_postings.iter().zip(&by_rows) {
            assert_eq!(a, b, "{by_postings:?} {by_rows:?}");
            assert!((x - y).abs() < 1e-9, "{by_postings:?} {by_rows:?}");
        }
    };
    agree();
    // Edits by hand (bob itself never updates a record, and nothing packs after these):
    // deletes, rewrites that drop a word, expiries. A packed posting of a record deleted or
    // rewritten is marked gone; the query leaves it out.
    c.batch_execute(
        "DELETE FROM memory_records WHERE rid % 7 = 0;
         UPDATE memory_records SET title = 'Lantern', summary = 'lantern', body = 'lantern lantern'
             WHERE rid % 11 = 0;
         UPDATE memory_records SET expires_unix = 1 WHERE rid % 13 = 0;",
    )
    .unwrap();
    let gone = "SELECT count(*) FROM memory_terms_gone WHERE lexeme = 'harbor'";
    assert!(count(&mut c, gone) > 40, "{}", count(&mut c, gone));
    for word in ["harbor", "lantern", "rope"] {
        let (posted, holding) = postings_and_holders(&mut c, word);
        assert_eq!(posted, holding, "{word}");
    }
    agree();
    // A new record packs its words: the marks are consumed and the blocks they fell in
    // rewritten without the postings gone.
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"text":"The harbor lantern was relit","type":"fact","tags":["t"]}]"#,
    );
    b.b.json(&["memory", "approve", &id(&rows[0])], "");
    assert_eq!(count(&mut c, gone), 0);
    for word in ["harbor", "lantern", "rope"] {
        let (posted, holding) = postings_and_holders(&mut c, word);
        assert_eq!(posted, holding, "{word}");
    }
    // Blocks of 16 to 64 postings; at most one under half full.
    let blocks: Vec<i32> = c
        .query(
            "SELECT length(postings) / 16 FROM memory_blocks WHERE lexeme = 'harbor'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(blocks.iter().all(|n| (16..=64).contains(n)), "{blocks:?}");
    assert!(
        blocks.iter().filter(|n| **n < 32).count() <= 1,
        "{blocks:?}"
    );
    agree();
}

#[test]
fn writers_on_two_nodes_and_a_deleter_at_once_lose_no_posting_and_keep_none_stale() {
    let Some(b) = Backend::postgres() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Three batches each (500 records a batch, one transaction an import), the same words,
    // while an approval commits and records are deleted by hand, 5 at a time.
    let (one, two) = (
        harbor_records(dir.path(), "one", 1400),
        harbor_records(dir.path(), "two", 1400),
    );
    b.a.json(
        &[
            "memory",
            "import",
            "--jsonl",
            &harbor_records(dir.path(), "zero", 300),
        ],
        "",
    );
    let rows = b.b.jsonl(
        &["memory", "propose"],
        r#"[{"text":"The harbor lantern was relit","type":"fact"}]"#,
    );
    let mut children = [
        b.a.spawn(&["memory", "import", "--jsonl", &one], ""),
        b.b.spawn(&["memory", "import", "--jsonl", &two], ""),
        b.b.spawn(&["memory", "approve", &id(&rows[0])], ""),
    ];
    let mut c = b.db.as_ref().unwrap().client();
    let mut deleted = 0;
    while children
        .iter_mut()
        .any(|ch| ch.try_wait().unwrap().is_none())
    {
        deleted += c
            .execute(
                "DELETE FROM memory_records WHERE rid IN \
                 (SELECT rid FROM memory_records ORDER BY random() LIMIT 5)",
                &[],
            )
            .unwrap();
    }
    for child in children {
        crate::env::succeeded(child);
    }
    assert!(deleted > 0);
    for word in ["harbor", "lantern", "rope", "word", "note"] {
        let (posted, holding) = postings_and_holders(&mut c, word);
        assert_eq!(posted, holding, "{word}");
    }
    let holding = postings_and_holders(&mut c, "harbor").1;
    assert_eq!(holding as u64 + deleted, 3101);
    let most: i32 = c
        .query_one("SELECT max(length(postings) / 16) FROM memory_blocks", &[])
        .unwrap()
        .get(0);
    assert!(most <= 64, "{most}");
    // No posting twice.
    let twice: i64 = c
        .query_one(
            &format!(
                "SELECT count(*) FROM (SELECT 1 FROM ({LIVE_POSTINGS}) p \
                 GROUP BY user_id, lexeme, rid HAVING count(*) > 1) d"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(twice, 0);
}

#[test]
fn migrating_to_schema_17_rebuilds_postings_a_racing_packer_left_stale() {
    let Some(b) = Backend::postgres() else { return };
    let dir = tempfile::tempdir().unwrap();
    b.a.json(
        &[
            "memory",
            "import",
            "--jsonl",
            &harbor_records(dir.path(), "one", 300),
        ],
        "",
    );
    let mut c = b.db.as_ref().unwrap().client();
    // What a packer racing another left at schema 16: records deleted, their packed postings
    // kept in the blocks with no gone mark. And one record's posting also waiting, twice.
    // Then the database is put back at 16 (its packer as migration 16 made it).
    c.batch_execute(
        "DELETE FROM memory_records WHERE rid IN \
             (SELECT rid FROM memory_records ORDER BY rid LIMIT 7); \
         DELETE FROM memory_terms_gone; \
         INSERT INTO memory_terms SELECT r.user_id, 'harbor', r.rid, 1, 1, 0, 0, NULL \
             FROM memory_records r ORDER BY r.rid DESC LIMIT 1; \
         DROP FUNCTION bob_memory_pack(text, text[]); \
         ALTER FUNCTION bob_memory_pack_held(text, text[]) RENAME TO bob_memory_pack; \
         DELETE FROM bob_schema WHERE version > 16",
    )
    .unwrap();
    let stale = postings_and_holders(&mut c, "harbor");
    assert_eq!(stale.0, stale.1 + 8, "{stale:?}");
    let m = b.b.json(&["db", "migrate"], "");
    assert_eq!(m["applied"], serde_json::json!([17]), "{m}");
    for word in ["harbor", "lantern", "rope", "word", "note"] {
        let (posted, holding) = postings_and_holders(&mut c, word);
        assert_eq!(posted, holding, "{word}");
    }
    assert_eq!(postings_and_holders(&mut c, "harbor").1, 293);
    // The rebuilt postings rank as the rows do (a tag every record has ranks rows).
    let query = |extra: &[&str]| lexical_scores(&b, "harbor lantern", "30", "exact", extra);
    let (by_postings, by_rows) = (query(&[]), query(&["--tags", "t"]));
    assert_eq!(by_postings.len(), 30, "{by_postings:?}");
    for ((a, x), (b, y)) in by_postings.iter().zip(&by_rows) {
        assert_eq!(a, b, "{by_postings:?} {by_rows:?}");
        assert!((x - y).abs() < 1e-9, "{by_postings:?} {by_rows:?}");
    }
}

#[test]
fn memory_lives_in_the_database_and_a_tampered_ledger_row_is_found() {
    let Some(b) = Backend::postgres() else { return };
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"text":"Backups run nightly at 02:00","type":"fact"}]"#,
    );
    b.b.json(&["memory", "approve", &id(&rows[0])], "");
    assert!(
        !b.a.env.home().join("memory_approvals.jsonl").exists()
            && !b.b.env.home().join("memory_approvals.jsonl").exists(),
        "the ledger was written to a home"
    );
    let mut c = b.db.as_ref().unwrap().client();
    let n: i64 = c
        .query_one("SELECT count(*) FROM memory_records", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 1);
    let record: String = c
        .query_one("SELECT record FROM memory_ledger WHERE seq = 0", &[])
        .unwrap()
        .get(0);
    let record: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["decision"], "approve");
    assert_eq!(record["hash"].as_str().unwrap().len(), 64);
    // The ledger is append-only: UPDATE and DELETE are refused by the database.
    for sql in [
        "UPDATE memory_ledger SET record = '{}' WHERE seq = 0",
        "DELETE FROM memory_ledger",
    ] {
        let e = c.execute(sql, &[]).unwrap_err();
        let why = e.as_db_error().map(|d| d.message().to_string());
        assert!(
            why.as_deref().is_some_and(|m| m.contains("append-only")),
            "{e:?}"
        );
    }
    // An edit made anyway (the owner disabling the trigger) is found by verify.
    let forged = record.to_string().replace("approve", "reject");
    c.batch_execute("ALTER TABLE memory_ledger DISABLE TRIGGER memory_ledger_append_only")
        .unwrap();
    c.execute(
        "UPDATE memory_ledger SET record = $1 WHERE seq = 0",
        &[&forged],
    )
    .unwrap();
    let out = b.a.bob(&["ledger", "verify"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shared = reports
        .iter()
        .find(|r| r["path"] == "postgres:memory_ledger")
        .expect("the shared ledger is verified");
    assert_eq!(shared["ok"], false, "{shared}");
    assert_eq!(shared["first_bad_line"], 1, "{shared}");
}

#[test]
fn a_node_with_another_chain_key_cannot_pass_off_its_records() {
    let Some(b) = Backend::postgres() else { return };
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"text":"The office wifi is called bobnet","type":"fact"}]"#,
    );
    b.a.json(&["memory", "approve", &id(&rows[0])], "");
    // A node without the shared key (its own, in its home) verifies nothing as its own.
    let out =
        b.b.bob(&["ledger", "verify"])
            .env_remove("BOB_KEY_FILE")
            .output()
            .unwrap();
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn db_import_copies_an_embedded_home_once_and_its_chain_still_verifies() {
    let Some(b) = Backend::postgres() else { return };
    // An embedded home with history: decided and pending candidates, a ledger, a checkpoint.
    let old = crate::TestEnv::new();
    let rows = old.jsonl(&["memory", "propose"], THREE);
    old.json(&["memory", "approve", &id(&rows[0])], "");
    old.json(
        &["memory", "reject", &id(&rows[2]), "--reason", "not durable"],
        "",
    );
    old.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["move to the cluster"]}"#,
    );
    let from = old.home().display().to_string();
    // A node that does not hold that home's chain key cannot take its ledger.
    let e =
        b.a.fails(&["db", "import", "--from", &from], "", 5, "conflict");
    assert!(e["message"].as_str().unwrap().contains("chain key"), "{e}");
    let node = crate::shared_store::Node {
        env: crate::TestEnv::new(),
        url: b.a.url.clone(),
        key_file: Some(old.home().join("keys/chain.key")),
    };
    let n = node.json(&["db", "import", "--from", &from], "");
    assert_eq!(n["memories"]["copied"], 1, "{n}");
    assert_eq!(n["candidates"]["copied"], 3, "{n}");
    assert_eq!(n["ledger"]["copied"], 2, "{n}");
    assert_eq!(n["checkpoints"]["copied"], 1, "{n}");
    // Run twice, it changes nothing.
    let again = node.json(&["db", "import", "--from", &from], "");
    for store in ["memories", "candidates", "ledger", "checkpoints"] {
        assert_eq!(again[store]["copied"], 0, "{again}");
        assert_eq!(again[store]["differing"], 0, "{again}");
    }
    assert_eq!(again["ledger"]["unchanged"], 2, "{again}");
    assert_eq!(again["memories"]["unchanged"], 1, "{again}");
    // The copies are the shared store now: found, decided once, and the chain verifies.
    let hits = node.jsonl(&["memory", "query", "metric units"], "");
    assert_eq!(hits.len(), 1, "{hits:?}");
    node.fails(&["memory", "approve", &id(&rows[0])], "", 5, "conflict");
    let next = node.json(&["memory", "approve", &id(&rows[1])], "");
    assert_eq!(next["ledger_seq"], 2, "{next}");
    let reports = node.jsonl(&["ledger", "verify"], "");
    let shared = reports
        .iter()
        .find(|r| r["path"] == "postgres:memory_ledger")
        .unwrap();
    assert_eq!(shared["ok"], true, "{shared}");
    assert_eq!(shared["verified"], 3, "{shared}");
    let cp = node.json(&["state", "show", "--session", "s1"], "");
    assert_eq!(cp["state"]["goals"][0], "move to the cluster");
    // The cluster went on past the home: importing it again still changes nothing, and the
    // candidate decided since is the database's version.
    let third = node.json(&["db", "import", "--from", &from], "");
    assert_eq!(third["ledger"]["copied"], 0, "{third}");
    assert_eq!(third["ledger"]["unchanged"], 2, "{third}");
    assert_eq!(third["candidates"]["differing"], 1, "{third}");
    let seen = node.jsonl(&["memory", "candidates", "--status", "approved"], "");
    assert_eq!(seen.len(), 2);
    // A home whose ledger differs from the database's where they overlap is refused whole.
    let other = crate::shared_store::Node {
        env: crate::TestEnv::new(),
        url: None,
        key_file: node.key_file.clone(),
    };
    let rows = other.jsonl(
        &["memory", "propose"],
        r#"[{"text":"Another home's fact","type":"fact"}]"#,
    );
    other.json(&["memory", "approve", &id(&rows[0])], "");
    let e = node.fails(
        &[
            "db",
            "import",
            "--from",
            &other.env.home().display().to_string(),
        ],
        "",
        5,
        "conflict",
    );
    assert!(e["message"].as_str().unwrap().contains("ledger"), "{e}");
    let hits = node.jsonl(&["memory", "query", "another home"], "");
    assert!(hits.is_empty(), "a refused import wrote nothing: {hits:?}");
}
