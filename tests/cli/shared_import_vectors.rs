//! `bob db import --from HOME` of a home's serve tokens and memory vectors: a token made on
//! the home opens `bob serve` on a node of the database, and the copied vectors serve a
//! semantic query there with no reindex (the same real embedding model on both); a second
//! import copies nothing.

use crate::TestEnv;
use crate::serve::{Server, get};
use crate::shared_store::Node;
use crate::support::model::embedding_model;
use crate::support::pg;
use serde_json::json;

const FACTS: [&str; 3] = [
    "Rex is my puppy",
    "My sister lives in Lisbon",
    "I am allergic to penicillin",
];

fn embeddings_config(env: &TestEnv) {
    env.write(
        "home/config.toml",
        &format!(
            "[memory]\nembeddings = \"local\"\nembedding_model = \"{}\"\n",
            embedding_model().display()
        ),
    );
}

#[test]
fn db_import_copies_serve_tokens_and_vectors_once() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let old = TestEnv::new();
    embeddings_config(&old);
    for f in FACTS {
        let rows = old.jsonl(&["memory", "propose"], &json!({ "text": f }).to_string());
        let id = rows[0]["id"].as_str().unwrap().to_string();
        let d = old.json(&["memory", "approve", &id], "");
        assert!(d.get("embedding").is_none(), "embedded at once: {d}");
    }
    let made = old.json(
        &[
            "serve", "token", "create", "--name", "ops", "--scope", "admin",
        ],
        "",
    );
    let tok = made["token"].as_str().unwrap().to_string();
    let revoked = old.json(&["serve", "token", "create", "--name", "gone"], "");
    let revoked_tok = revoked["token"].as_str().unwrap().to_string();
    old.json(
        &["serve", "token", "revoke", revoked["id"].as_str().unwrap()],
        "",
    );

    let key = old.home().join("keys/chain.key");
    let node = || {
        let env = TestEnv::new();
        embeddings_config(&env);
        Node {
            env,
            url: Some(db.url()),
            key_file: Some(key.clone()),
        }
    };
    let importer = node();
    let from = old.home().display().to_string();
    let n = importer.json(&["db", "import", "--from", &from], "");
    assert_eq!(n["memories"]["copied"], 3, "{n}");
    assert_eq!(n["vectors"]["copied"], 3, "{n}");
    assert_eq!(n["serve_tokens"]["copied"], 2, "{n}");
    assert_eq!(n["not_copied"], json!([]), "{n}");
    // The vectors are in the database as the home made them, before any query ran.
    let mut c = db.client();
    let (count, models): (i64, i64) = {
        let r = c
            .query_one(
                "SELECT count(*), count(DISTINCT model) FROM memory_vectors",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!((count, models), (3, 1));

    // Another node finds a record by meaning only, with nothing re-embedded.
    let b = node();
    let q = "what is my dog called?";
    let lexical = b.jsonl(&["memory", "query", q, "--mode", "lexical"], "");
    assert!(
        !lexical.iter().any(|h| h["title"] == "Rex is my puppy"),
        "words alone should not find it: {lexical:?}"
    );
    let semantic = b.jsonl(&["memory", "query", q, "--mode", "semantic", "-k", "1"], "");
    assert_eq!(semantic[0]["title"], "Rex is my puppy", "{semantic:?}");
    let missing = b.json(&["memory", "reindex", "--missing"], "");
    assert_eq!(
        missing["embedded"], 0,
        "nothing was left to embed: {missing}"
    );

    // The home's token opens a server of the database; the revoked one stays revoked.
    let url = db.url();
    let srv = Server::start_env(
        &b.env,
        &["--backend", &crate::serve::replay(&b.env, "x")],
        &[
            ("BOB_DATABASE_URL", url.as_str()),
            ("BOB_KEY_FILE", key.to_str().unwrap()),
        ],
    );
    assert_eq!(get(srv.addr, "/v1/runs", &tok).status, 200);
    assert_eq!(get(srv.addr, "/v1/runs", &revoked_tok).status, 401);
    drop(srv);

    // Run twice: nothing changes.
    let again = importer.json(&["db", "import", "--from", &from], "");
    for store in ["vectors", "serve_tokens", "memories"] {
        assert_eq!(again[store]["copied"], 0, "{store}: {again}");
        assert_eq!(again[store]["differing"], 0, "{store}: {again}");
        assert_eq!(
            again[store]["unchanged"], n[store]["copied"],
            "{store}: {again}"
        );
    }
    let tokens: String = c
        .query_one("SELECT doc FROM serve_tokens", &[])
        .unwrap()
        .get(0);
    let tokens: serde_json::Value = serde_json::from_str(&tokens).unwrap();
    assert_eq!(tokens["tokens"].as_array().unwrap().len(), 2, "{tokens}");
}
