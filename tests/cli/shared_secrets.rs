//! Secrets on the shared store: sealed rows in the database (the key only in each node's file),
//! a secret set on one node resolved and masked on the other (also by a node already serving),
//! a key that cannot open the database's secrets refused by `bob keys import`, and the database
//! password's own secret kept in the home.

use crate::TestEnv;
use crate::serve::{Server, create, get, replay, status_is, wait_run};
use crate::shared_store::{Backend, Node, store_suite};
use crate::support::pg;
use serde_json::json;
use std::time::{Duration, Instant};

store_suite!(a_secret_set_on_one_node_is_resolved_and_redacted_on_the_other);

fn a_secret_set_on_one_node_is_resolved_and_redacted_on_the_other(b: &Backend) {
    const VALUE: &str = "canary-Pq47-shared-secret";
    // The model echoes the key back: node b must mask it though only node a was told of it.
    let llm = crate::support::openai::OpenAi::always(&format!("the key is {VALUE}"));
    b.a.json(&["secrets", "set", "llm"], VALUE);
    let listed = b.b.jsonl(&["secrets", "list"], "");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["name"], "llm");
    std::fs::create_dir_all(b.b.env.home()).unwrap();
    std::fs::write(
        b.b.env.home().join("config.toml"),
        format!(
            "[chat]\nbase_url = \"{}\"\nmodel = \"m\"\napi_key = \"secret:llm\"\n",
            llm.base_url()
        ),
    )
    .unwrap();
    let rec = b.b.json(&["turn", "--session", "sec"], "hi");
    assert_eq!(rec["output"], "the key is [REDACTED]", "{rec}");
    let reqs = llm.requests();
    assert!(!reqs.is_empty());
    for r in &reqs {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {VALUE}").as_str())
        );
    }
    // Its first use bound it to the model's origin, for both nodes.
    let listed = b.a.jsonl(&["secrets", "list"], "");
    let origin = llm.base_url().trim_end_matches("/v1").to_string();
    assert_eq!(listed[0]["bound_to"], origin.as_str(), "{listed:?}");
    if let Some(db) = &b.db {
        // The database holds the sealed value only; the homes hold no secret store and no key.
        let mut c = db.client();
        let rows = c
            .query("SELECT nonce, ciphertext FROM secrets", &[])
            .unwrap();
        assert_eq!(rows.len(), 1);
        let ct: Vec<u8> = rows[0].get(1);
        assert!(!ct.windows(VALUE.len()).any(|w| w == VALUE.as_bytes()));
        for node in [&b.a, &b.b] {
            assert!(!node.env.home().join("secrets/secrets.db").exists());
            assert!(!node.env.home().join("secrets/key").exists());
        }
        let turns: i64 = c
            .query_one(
                "SELECT count(*) FROM turn_records WHERE record LIKE '%' || $1 || '%'",
                &[&VALUE],
            )
            .unwrap()
            .get(0);
        assert_eq!(turns, 0, "a turn record holds the secret");
    }
    // Removed on node b, it is gone for node a.
    b.b.json(&["secrets", "rm", "llm"], "");
    assert!(b.a.jsonl(&["secrets", "list"], "").is_empty());
    b.a.fails(&["secrets", "rm", "llm"], "", 4, "not_found");
}

/// Two nodes on one database sharing one key file.
fn two_nodes(db: &pg::TestDb, keys: &tempfile::TempDir) -> (Node, Node) {
    let node = || Node {
        env: TestEnv::new(),
        url: Some(db.url()),
        key_file: Some(keys.path().join("chain.key")),
    };
    (node(), node())
}

/// A `bob serve` already running on node b masks a secret stored afterwards on node a (its
/// files never change: it learns of it from the database's count of secret changes).
#[test]
fn a_serving_node_masks_a_secret_stored_on_another_node() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let keys = tempfile::tempdir().unwrap();
    let (a, b) = two_nodes(&db, &keys);
    const LATE: &str = "CNRYclusterSecret4417";
    let tok = b.json(
        &[
            "serve", "token", "create", "--name", "t", "--scope", "admin",
        ],
        "",
    )["token"]
        .as_str()
        .unwrap()
        .to_string();
    let backend = replay(&b.env, &format!("The answer is {LATE}."));
    let url = db.url();
    let key = keys.path().join("chain.key");
    let srv = Server::start_env(
        &b.env,
        &["--backend", &backend],
        &[
            ("BOB_DATABASE_URL", url.as_str()),
            ("BOB_KEY_FILE", key.to_str().unwrap()),
        ],
    );
    let id = create(
        srv.addr,
        &tok,
        json!({"agent_id": "agent_default", "message": "What is the answer?"}),
    );
    let run = wait_run(srv.addr, &tok, &id, status_is("completed"));
    assert!(run.to_string().contains(LATE), "before the secret: {run}");
    a.json(&["secrets", "set", "late"], LATE);
    let t = Instant::now();
    loop {
        let body = get(srv.addr, &format!("/v1/runs/{id}"), &tok).text();
        if !body.contains(LATE) {
            assert!(body.contains("[REDACTED]"), "{body}");
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "node b still serves the secret set on node a: {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // A run answered after that is stored masked.
    let id = create(
        srv.addr,
        &tok,
        json!({"agent_id": "agent_default", "message": "Again?"}),
    );
    wait_run(srv.addr, &tok, &id, status_is("completed"));
    let mut c = db.client();
    let n: i64 = c
        .query_one(
            "SELECT count(*) FROM turn_records WHERE run_id = $1 AND record LIKE '%[REDACTED]%'",
            &[&id],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 1, "the second run's record is not masked");
}

/// `bob keys import` on a node of the database refuses a secrets key that does not open the
/// database's secrets, and takes the one that does.
#[test]
fn keys_import_refuses_a_key_that_cannot_open_the_databases_secrets() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let keys = tempfile::tempdir().unwrap();
    let (a, _) = two_nodes(&db, &keys);
    a.json(&["secrets", "set", "upstream"], "a-long-secret-value");
    // A home of its own (other keys) exports a bundle; a fresh node of the database refuses it.
    let stranger = TestEnv::new();
    let foreign = stranger.path("foreign.json");
    stranger.json(&["keys", "export", foreign.to_str().unwrap()], "");
    let fresh_keys = tempfile::tempdir().unwrap();
    let c = Node {
        env: TestEnv::new(),
        url: Some(db.url()),
        key_file: Some(fresh_keys.path().join("chain.key")),
    };
    let e = c.fails(
        &["keys", "import", foreign.to_str().unwrap()],
        "",
        5,
        "conflict",
    );
    assert_eq!(e["details"]["secret"], "upstream", "{e}");
    assert!(
        !fresh_keys.path().join("bob-secrets.key").exists(),
        "a refused import wrote a key"
    );
    // The cluster's own bundle is taken, and the node then reads the secret's list.
    let ours = a.env.path("ours.json");
    a.json(&["keys", "export", ours.to_str().unwrap()], "");
    c.json(&["keys", "import", ours.to_str().unwrap()], "");
    let listed = c.jsonl(&["secrets", "list"], "");
    assert_eq!(listed[0]["name"], "upstream");
}

/// The secret the database URL's password names is stored in the home (it unlocks the
/// database), listed with the others, and never written to the database.
#[test]
fn the_database_passwords_secret_stays_in_the_home() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let keys = tempfile::tempdir().unwrap();
    let node = Node {
        env: TestEnv::new(),
        url: Some(db.url_with_password("secret:dbpw")),
        key_file: Some(keys.path().join("chain.key")),
    };
    node.json(&["secrets", "set", "dbpw"], pg::PASSWORD);
    node.json(&["secrets", "set", "other"], "another-long-value");
    let names: Vec<String> = node
        .jsonl(&["secrets", "list"], "")
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["dbpw", "other"]);
    assert!(node.env.home().join("secrets/secrets.db").exists());
    let mut c = db.client();
    let in_db: Vec<String> = c
        .query("SELECT name FROM secrets ORDER BY name", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(in_db, ["other"]);
}
