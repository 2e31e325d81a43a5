//! `bob memory import` and `bob memory gc` on the shared store: the suite run against the
//! embedded home and against PostgreSQL (two homes on one database). An import is one ledger
//! batch seen by every node and embedded like an approval; gc removes each expired record
//! once, with one ledger record, even when two nodes collect at the same time.

use crate::shared_store::{Backend, Node, store_suite};
use crate::support::http::Reply;
use crate::support::openai::{OpenAi, completion, embeddings};
use serde_json::{Value, json};

store_suite!(
    an_import_is_one_ledger_batch_seen_and_embedded_on_every_node,
    a_bad_import_writes_nothing_on_either_node,
    a_large_import_stores_each_record_once_on_either_node,
    gc_removes_each_expired_record_once_across_nodes,
);

/// `n` memory records as JSON Lines, `first` the first one's text.
fn records(n: usize, first: &str) -> String {
    let mut text = String::new();
    for i in 0..n {
        let body = if i == 0 {
            first.to_string()
        } else {
            format!("body of note {i}")
        };
        text.push_str(
            &json!({"title": format!("note {i}"), "created_at": "2026-02-01T00:00:00Z",
                    "body_md": body, "tags": ["io"]})
            .to_string(),
        );
        text.push('\n');
    }
    text
}

fn stored(node: &Node) -> usize {
    node.jsonl(&["memory", "list", "--limit", "100000"], "")
        .len()
}

/// The ledger's records of `kind` (none while the ledger is empty).
fn ledger(node: &Node, kind: &str) -> Vec<Value> {
    let out = node
        .bob(&["ledger", "show", "--kind", kind])
        .output()
        .unwrap();
    if !out.status.success() {
        crate::env::error_of(&out, 4, "not_found");
        return Vec::new();
    }
    crate::env::jsonl_of(&out, &["ledger", "show"])
}

fn verifies(node: &Node) {
    let reports = node.jsonl(&["ledger", "verify"], "");
    assert!(reports.iter().all(|r| r["ok"] == true), "{reports:?}");
}

fn an_import_is_one_ledger_batch_seen_and_embedded_on_every_node(b: &Backend) {
    let server = OpenAi::start(|req, _| {
        embeddings(req, 64).unwrap_or_else(|| Reply::json(200, &completion("ok")))
    });
    let toml = format!(
        "[memory]\nembeddings = \"openai\"\nembed_base_url = \"{}\"\nembed_model = \"hash-64\"\n",
        server.base_url()
    );
    let text = records(30, "my sister lives in Lisbon");
    for node in [&b.a, &b.b] {
        node.env.write("home/config.toml", &toml);
        node.env.write("notes.jsonl", &text);
    }
    let file = |node: &Node| node.env.path("notes.jsonl").display().to_string();
    let rep = b.a.json(&["memory", "import", &file(&b.a)], "");
    assert_eq!(
        (rep["count"].as_u64(), rep["imported"].as_u64()),
        (Some(30), Some(30)),
        "{rep}"
    );
    assert!(rep.get("embedding").is_none(), "embedded at once: {rep}");
    assert_eq!(stored(&b.b), 30);
    let batches = ledger(&b.b, "import");
    assert_eq!(batches.len(), 1, "{batches:?}");
    assert_eq!(batches[0]["count"], 30);
    assert_eq!(batches[0]["records"].as_array().unwrap().len(), 30);
    assert_eq!(batches[0]["seq"], rep["ledger_seq"]);
    // Imported records are found by meaning on the other node.
    let hits = b.b.jsonl(
        &[
            "memory",
            "query",
            "sister Lisbon",
            "--mode",
            "semantic",
            "-k",
            "1",
        ],
        "",
    );
    assert_eq!(hits[0]["title"], "note 0", "{hits:?}");
    assert!(
        hits[0]["semantic_score"].as_f64().unwrap() > 0.3,
        "{hits:?}"
    );
    // The same file again, from the other node: a second batch that stores nothing new.
    let again = b.b.json(&["memory", "import", &file(&b.b)], "");
    assert_eq!(
        (again["imported"].as_u64(), again["unchanged"].as_u64()),
        (Some(0), Some(30)),
        "{again}"
    );
    assert_eq!(stored(&b.a), 30);
    assert_eq!(ledger(&b.a, "import").len(), 2);
    verifies(&b.a);
    verifies(&b.b);
}

fn a_large_import_stores_each_record_once_on_either_node(b: &Backend) {
    // More records than one statement inserts on the shared store, and a record repeated
    // after the first statement's: it is stored once, as one record per statement would.
    let mut text = records(1200, "the first note");
    let first = text.lines().next().unwrap().to_string();
    text.push_str(&first);
    text.push('\n');
    b.a.env.write("many.jsonl", &text);
    b.b.env.write("many.jsonl", &text);
    let file = |node: &Node| node.env.path("many.jsonl").display().to_string();
    let rep = b.a.json(&["memory", "import", &file(&b.a)], "");
    assert_eq!(
        (
            rep["count"].as_u64(),
            rep["imported"].as_u64(),
            rep["unchanged"].as_u64()
        ),
        (Some(1201), Some(1200), Some(1)),
        "{rep}"
    );
    let listed = b.b.jsonl(
        &["memory", "list", "--limit", "100000", "--include-body"],
        "",
    );
    assert_eq!(listed.len(), 1200);
    let mut titles: Vec<&str> = listed
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    titles.sort_unstable();
    titles.dedup();
    assert_eq!(titles.len(), 1200, "each record once");
    assert!(listed.iter().any(|r| r["body_md"] == "the first note"));
    assert!(listed.iter().any(|r| r["body_md"] == "body of note 1199"));
    let batches = ledger(&b.b, "import");
    assert_eq!(batches.len(), 1, "{batches:?}");
    assert_eq!(batches[0]["count"], 1201);
    // Again from the other node: nothing new.
    let again = b.b.json(&["memory", "import", &file(&b.b)], "");
    assert_eq!(
        (again["imported"].as_u64(), again["unchanged"].as_u64()),
        (Some(0), Some(1201)),
        "{again}"
    );
    assert_eq!(stored(&b.a), 1200);
    verifies(&b.a);
    verifies(&b.b);
}

fn a_bad_import_writes_nothing_on_either_node(b: &Backend) {
    let mut text = records(5, "fine");
    text.push_str("this line is not a record\n");
    b.a.env.write("bad.jsonl", &text);
    let out =
        b.a.bob(&[
            "memory",
            "import",
            b.a.env.path("bad.jsonl").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let e: Value = serde_json::from_slice(&out.stderr).unwrap_or(Value::Null);
    assert_eq!(e["error"]["code"], "invalid.request", "{e}");
    for node in [&b.a, &b.b] {
        assert_eq!(stored(node), 0);
        assert!(ledger(node, "import").is_empty());
    }
    // An empty source is refused the same way.
    b.b.env.write("empty.jsonl", "");
    b.b.fails(
        &[
            "memory",
            "import",
            b.b.env.path("empty.jsonl").to_str().unwrap(),
        ],
        "",
        2,
        "invalid.request",
    );
    assert!(ledger(&b.a, "import").is_empty());
}

fn gc_removes_each_expired_record_once_across_nodes(b: &Backend) {
    let server = OpenAi::start(|req, _| {
        embeddings(req, 64).unwrap_or_else(|| Reply::json(200, &completion("ok")))
    });
    let toml = format!(
        "[memory]\nembeddings = \"openai\"\nembed_base_url = \"{}\"\nembed_model = \"hash-64\"\n",
        server.base_url()
    );
    for node in [&b.a, &b.b] {
        node.env.write("home/config.toml", &toml);
    }
    let rows = b.a.jsonl(
        &["memory", "propose"],
        r#"[{"text":"temporary parking spot level 3","ttl_days":1},
            {"text":"the office wifi is called bobnet"}]"#,
    );
    for r in &rows {
        b.b.json(&["memory", "approve", r["id"].as_str().unwrap()], "");
    }
    // Nothing has expired yet: gc removes nothing and writes no ledger record.
    let gc = b.a.json(&["memory", "gc"], "");
    assert!(
        gc["long_term_removed"].as_array().unwrap().is_empty(),
        "{gc}"
    );
    assert!(ledger(&b.b, "gc").is_empty());
    // Two days on, both nodes collect at once.
    let later = "2026-02-17T00:00:00Z";
    let run = |node: &Node| {
        let out = node
            .bob(&["memory", "gc"])
            .env("BOB_NOW", later)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["long_term_removed"].as_array().unwrap().len()
    };
    let (x, y) = std::thread::scope(|s| {
        let x = s.spawn(|| run(&b.a));
        let y = s.spawn(|| run(&b.b));
        (x.join().unwrap(), y.join().unwrap())
    });
    assert_eq!(x + y, 1, "one removal in all: {x} + {y}");
    for node in [&b.a, &b.b] {
        let gcs = ledger(node, "gc");
        assert_eq!(gcs.len(), 1, "{gcs:?}");
        assert_eq!(gcs[0]["records"].as_array().unwrap().len(), 1);
        assert_eq!(gcs[0]["reason"], "ttl expired");
        let left = node.jsonl(&["memory", "export"], "");
        assert_eq!(left.len(), 1, "{left:?}");
        assert!(left[0]["body_md"].as_str().unwrap().contains("bobnet"));
        verifies(node);
    }
    // In the database, the removed record's vector went with it, and the user's count of
    // vectors (what each node's cache is checked against) says so.
    if let Some(db) = &b.db {
        let mut c = db.client();
        let n: i64 = c
            .query_one("SELECT count(*) FROM memory_vectors", &[])
            .unwrap()
            .get(0);
        let marked: i64 = c
            .query_one(
                "SELECT n FROM memory_vector_marks WHERE user_id = 'default'",
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!((n, marked), (1, 1));
    }
    let hits = b.b.jsonl(
        &["memory", "query", "office wifi", "--mode", "semantic"],
        "",
    );
    assert_eq!(hits.len(), 1, "{hits:?}");
}
