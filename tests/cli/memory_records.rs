//! Seed 004's memory record: uuid ids (legacy `mem_` ids still valid) and the tag index
//! `bob memory export --index` writes.

use crate::TestEnv;
use serde_json::{Value, json};

/// Proposes and approves a memory with `tags`.
fn remember(env: &TestEnv, text: &str, tags: &[&str]) {
    let rows = env.jsonl(
        &["memory", "propose"],
        &json!({"text": text, "tags": tags}).to_string(),
    );
    let id = rows[0]["id"].as_str().unwrap().to_string();
    env.json(&["memory", "approve", &id], "");
}

#[test]
fn export_index_maps_tags_to_ids_with_each_records_metadata() {
    let env = TestEnv::new();
    remember(&env, "Rex is my puppy", &["pets", "family"]);
    remember(&env, "My sister lives in Lisbon", &["family"]);
    remember(&env, "The boiler was serviced in May", &[]);
    let records = env.jsonl(&["memory", "list"], "");
    let id_of = |title: &str| -> String {
        records
            .iter()
            .find(|r| r["title"] == title)
            .unwrap_or_else(|| panic!("{title} not listed: {records:?}"))["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (rex, sister, boiler) = (
        id_of("Rex is my puppy"),
        id_of("My sister lives in Lisbon"),
        id_of("The boiler was serviced in May"),
    );
    let ix = env.json(&["memory", "export", "--index"], "");
    assert_eq!(ix["records"], 3, "{ix}");
    assert_eq!(ix["tags"]["pets"], json!([rex]));
    assert_eq!(ix["tags"]["family"], json!([rex, sister]));
    assert_eq!(ix["tags"].as_object().unwrap().len(), 2);
    let m = &ix["memories"][&boiler];
    assert_eq!(m["title"], "The boiler was serviced in May");
    assert_eq!(m["tags"], json!([]));
    assert!(m.get("body_md").is_none(), "{m}");
    for key in ["created_at", "summary", "source", "type", "token_est"] {
        assert!(m.get(key).is_some(), "{key} missing: {m}");
    }
    // Every exported record is in the index, and nothing else.
    let export = env.bob(&["memory", "export"]).output().unwrap().stdout;
    let exported: Vec<Value> = String::from_utf8(export)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(exported.len(), 3);
    for r in &exported {
        assert!(ix["memories"].get(r["id"].as_str().unwrap()).is_some());
    }
    // --output writes the same document to a file; --user limits it to one store.
    let out = env.path("index.json");
    let done = env
        .bob(&[
            "memory",
            "export",
            "--index",
            "--output",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(done.status.success(), "{done:?}");
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(written, ix);
    let other = env.json(&["memory", "export", "--index", "--user", "nobody"], "");
    assert_eq!(other, json!({"records": 0, "tags": {}, "memories": {}}));
}

/// The id a record got before ids were UUIDs: `mem_` + 16 hex of SHA-256 over its content.
fn legacy_id(user: &str, title: &str, body: &str, kind: &str) -> String {
    use sha2::Digest;
    let canon = json!([user, title, body, Vec::<String>::new(), kind]).to_string();
    format!(
        "mem_{}",
        &hex::encode(sha2::Sha256::digest(canon.as_bytes()))[..16]
    )
}

#[test]
fn new_ids_are_uuids_and_legacy_mem_ids_keep_working() {
    let env = TestEnv::new();
    let legacy = legacy_id("default", "Pets", "Rex is my puppy", "fact");
    let line = |id: &str, body: &str| {
        json!({"id": id, "title": "Pets", "body_md": body, "created_at": "2026-01-01T00:00:00Z",
               "tags": [], "type": "fact", "user": "default"})
        .to_string()
            + "\n"
    };
    // An old export's line keeps its `mem_` id; it is what queries return.
    let old = env.write("old.jsonl", &line(&legacy, "Rex is my puppy"));
    let rep = env.json(&["memory", "import", old.to_str().unwrap()], "");
    assert_eq!(rep["imported"], 1, "{rep}");
    let hits = env.jsonl(&["memory", "query", "Rex puppy"], "");
    assert_eq!(hits[0]["id"], legacy.as_str());
    // The same content under another id is the record already stored, not a second one.
    let again = env.write("again.jsonl", &line("note-1", "Rex is my puppy"));
    let rep = env.json(&["memory", "import", again.to_str().unwrap()], "");
    assert_eq!(rep["imported"], 0, "{rep}");
    // New content gets a uuid4-layout id; the same content again keeps it.
    let new = env.write("new.jsonl", &line("note-2", "My sister lives in Lisbon"));
    env.json(&["memory", "import", new.to_str().unwrap()], "");
    let ids: Vec<String> = env
        .jsonl(&["memory", "list"], "")
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    let fresh = ids.iter().find(|i| **i != legacy).unwrap();
    let u = uuid::Uuid::parse_str(fresh).expect("a uuid");
    assert_eq!(u.get_version_num(), 4);
    assert_eq!(u.hyphenated().to_string(), *fresh);
    let rep = env.json(&["memory", "import", new.to_str().unwrap()], "");
    assert_eq!(rep["imported"], 0, "{rep}");
    // Both kinds of id are accepted where an id is: the export round-trips them.
    let export = env.bob(&["memory", "export"]).output().unwrap().stdout;
    let other = TestEnv::new();
    let file = other.write("export.jsonl", std::str::from_utf8(&export).unwrap());
    other.json(&["memory", "import", file.to_str().unwrap()], "");
    let export2 = other.bob(&["memory", "export"]).output().unwrap().stdout;
    assert_eq!(export, export2);
}
