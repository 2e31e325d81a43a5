//! `bob db import --from HOME` of the stores beyond memory: turn records, short-term memory,
//! scheduler jobs, the runs of the home's `bob serve` and its secrets. Each is read back
//! through the binary by another node of the database; a second import changes nothing.

use crate::TestEnv;
use crate::serve::{Server, create, get, replay, status_is, wait_run};
use crate::shared_store::Node;
use crate::support::pg;
use serde_json::{Value, json};

const SECRET: &str = "CNRYimported-secret-6620";
const STORES: [&str; 6] = [
    "turn_records",
    "stm",
    "jobs",
    "runs",
    "chat_sessions",
    "secrets",
];

#[test]
fn db_import_copies_turns_stm_jobs_runs_and_secrets_once() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    // An embedded home with one of each.
    let old = TestEnv::new();
    old.json(&["secrets", "set", "api"], SECRET);
    let script = replay(&old, "Fine.");
    let turn = old.json(&["turn", "--backend", &script, "--session", "t1"], "hello");
    let run_id = turn["run_id"].as_str().unwrap().to_string();
    old.json(
        &["memory", "stm", "add", "--session", "t2"],
        &json!({"intent": "move to the cluster", "resolution": "imported",
                "open_questions": [], "tools_used": []})
        .to_string(),
    );
    old.json(
        &["schedule", "add"],
        &json!({"id": "nightly", "schedule": "@every 1h", "message": "report"}).to_string(),
    );
    let tok = old.json(
        &[
            "serve", "token", "create", "--name", "t", "--scope", "admin",
        ],
        "",
    )["token"]
        .as_str()
        .unwrap()
        .to_string();
    let served = {
        let srv = Server::start(&old, &["--backend", &replay(&old, "Served.")]);
        let id = create(
            srv.addr,
            &tok,
            json!({"agent_id": "agent_default", "message": "hi", "session_id": "s9"}),
        );
        wait_run(srv.addr, &tok, &id, status_is("completed"));
        id
    };
    let stm_before = old.jsonl(&["memory", "stm", "list"], "");
    assert!(stm_before.len() >= 2, "{stm_before:?}");
    let from = old.home().display().to_string();
    let node = |env: TestEnv| Node {
        env,
        url: Some(db.url()),
        key_file: Some(old.home().join("keys/chain.key")),
    };
    let importer = node(TestEnv::new());
    let n = importer.json(&["db", "import", "--from", &from], "");
    assert_eq!(n["turn_records"]["copied"], 2, "{n}");
    assert_eq!(n["stm"]["copied"], stm_before.len(), "{n}");
    assert_eq!(n["jobs"]["copied"], 1, "{n}");
    assert_eq!(n["runs"]["copied"], 1, "{n}");
    assert_eq!(n["secrets"]["copied"], 1, "{n}");
    assert_eq!(n["not_copied"], json!([]), "{n}");
    assert_eq!(n["serve_tokens"]["copied"], 1, "{n}");

    // Read back by another node of the database.
    let b = node(TestEnv::new());
    let shown = b.json(&["runs", "show", &run_id], "");
    assert_eq!(shown["record"], turn, "{shown}");
    let runs: Vec<Value> = b.jsonl(&["runs", "list"], "");
    assert!(
        runs.iter().any(|r| r["run_id"] == served.as_str()),
        "{runs:?}"
    );
    let stm = b.jsonl(&["memory", "stm", "list"], "");
    assert_eq!(stm, stm_before);
    let job = b.json(&["schedule", "show", "nightly"], "");
    assert_eq!(job["message"], "report", "{job}");
    let secrets = b.jsonl(&["secrets", "list"], "");
    assert_eq!(secrets.len(), 1);
    assert_eq!(secrets[0]["name"], "api");
    // The secret opens on the new node: a model echoing it is masked.
    let echo = replay(&b.env, &format!("It is {SECRET}."));
    let masked = b.json(&["turn", "--backend", &echo, "--session", "t3"], "hi");
    assert_eq!(masked["output"], "It is [REDACTED].", "{masked}");
    // The served run, from a server of the database.
    let tok_b = b.json(
        &[
            "serve", "token", "create", "--name", "t", "--scope", "admin",
        ],
        "",
    )["token"]
        .as_str()
        .unwrap()
        .to_string();
    let url = db.url();
    let key = old.home().join("keys/chain.key");
    let srv = Server::start_env(
        &b.env,
        &["--backend", &replay(&b.env, "x")],
        &[
            ("BOB_DATABASE_URL", url.as_str()),
            ("BOB_KEY_FILE", key.to_str().unwrap()),
        ],
    );
    let run = get(srv.addr, &format!("/v1/runs/{served}"), &tok_b).json();
    assert_eq!(
        (run["status"].as_str(), run["output"].as_str()),
        (Some("completed"), Some("Served.")),
        "{run}"
    );
    drop(srv);

    // Run twice: nothing changes.
    let again = importer.json(&["db", "import", "--from", &from], "");
    for store in STORES {
        assert_eq!(again[store]["copied"], 0, "{store}: {again}");
        assert_eq!(again[store]["differing"], 0, "{store}: {again}");
        assert_eq!(
            again[store]["unchanged"], n[store]["copied"],
            "{store}: {again}"
        );
    }
    let mut c = db.client();
    let turns: i64 = c
        .query_one("SELECT count(*) FROM turn_records", &[])
        .unwrap()
        .get(0);
    assert_eq!(turns, 3, "two imported, one turned on node b");
}

/// A home whose `bob serve` still holds a running run is refused whole.
#[test]
fn db_import_refuses_a_home_with_a_run_still_running() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let old = TestEnv::new();
    old.json(
        &["schedule", "add"],
        &json!({"id": "nightly", "schedule": "@every 1h", "message": "report"}).to_string(),
    );
    let tok = old.json(
        &[
            "serve", "token", "create", "--name", "t", "--scope", "admin",
        ],
        "",
    )["token"]
        .as_str()
        .unwrap()
        .to_string();
    let llm = crate::support::openai::OpenAi::start(|_, _| {
        std::thread::sleep(std::time::Duration::from_secs(30));
        crate::support::http::Reply::json(200, &crate::support::openai::completion("late"))
    });
    let srv = Server::start_env(
        &old,
        &[],
        &[
            ("BOB_CHAT_BASE_URL", llm.base_url().as_str()),
            ("BOB_CHAT_API_KEY", "k"),
            ("BOB_CHAT_MODEL", "m"),
        ],
    );
    let id = create(
        srv.addr,
        &tok,
        json!({"agent_id": "agent_default", "message": "hi"}),
    );
    wait_run(srv.addr, &tok, &id, status_is("running"));
    let node = Node {
        env: TestEnv::new(),
        url: Some(db.url()),
        key_file: Some(old.home().join("keys/chain.key")),
    };
    let from = old.home().display().to_string();
    let e = node.fails(&["db", "import", "--from", &from], "", 5, "conflict");
    assert_eq!(e["details"]["run_id"], id.as_str(), "{e}");
    let mut c = db.client();
    let jobs: i64 = c
        .query_one("SELECT count(*) FROM schedule_jobs", &[])
        .unwrap()
        .get(0);
    assert_eq!(jobs, 0, "a refused import wrote something");
}
