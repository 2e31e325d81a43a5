//! Two `bob serve` nodes (two homes) on one PostgreSQL database: one run queue for both, a run
//! posted to either read and cancelled from the other, each queued run claimed once, and a node
//! killed with -9 leaving its running runs to the other after their lease, so every run ends
//! exactly once.

use crate::TestEnv;
use crate::serve::{Server, create, get, post, replay, sse_events, status_is, wait_run};
use crate::support::http::Reply;
use crate::support::openai::{self, OpenAi};
use crate::support::pg;
use serde_json::{Value, json};
use std::time::Duration;

/// Turns of `run_id` this node ran: its run bundle's record (turn records themselves live in
/// the shared database, which does not say which node wrote one).
fn turns_with(env: &TestEnv, run_id: &str) -> usize {
    usize::from(
        env.home()
            .join("runs")
            .join(run_id)
            .join("record.json")
            .exists(),
    )
}

/// A token made in the shared database (every node accepts it).
fn token(env: &TestEnv, url: &str) -> String {
    let out = env
        .bob(&[
            "serve", "token", "create", "--name", "test", "--scope", "admin",
        ])
        .env("BOB_DATABASE_URL", url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["token"].as_str().unwrap().to_string()
}

const TERMINAL: [&str; 4] = ["completed", "failed", "cancelled", "incomplete"];

#[test]
fn two_nodes_share_one_queue_and_a_killed_nodes_runs_end_exactly_once() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let url = db.url();
    let (env_a, env_b) = (TestEnv::new(), TestEnv::new());
    let (tok_a, tok_b) = (token(&env_a, &url), token(&env_b, &url));
    // Node A's model never answers: its runs stay running until cancelled or killed. (It holds
    // each call until the test ends, at most 60 s: a slow machine cannot let one complete.)
    // A run asked to "use a tool" first gets a tool call (a read-only listing), then waits too.
    let llm = OpenAi::start(|req, _| {
        let after_tool = req.json()["messages"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"));
        if openai::all_text(req).contains("use a tool") && !after_tool {
            return Reply::json(
                200,
                &openai::tool_calls(&[("c1", "fs.list_dir", r#"{"path":"."}"#)]),
            );
        }
        Reply::hang()
    });
    let llm_url = llm.base_url();
    let mut node_a = Server::start_env(
        &env_a,
        &["--workers", "2"],
        &[
            ("BOB_DATABASE_URL", url.as_str()),
            ("BOB_SERVE_LEASE", "2"),
            ("BOB_CHAT_BASE_URL", llm_url.as_str()),
            ("BOB_CHAT_API_KEY", "k"),
            ("BOB_CHAT_MODEL", "m"),
        ],
    );
    let a = node_a.addr;
    let run = |addr, tok: &str, session: &str| {
        create(
            addr,
            tok,
            json!({"agent_id": "a", "message": "hi", "session_id": session}),
        )
    };
    // A claims two runs (two workers); the third waits behind its session, the fourth for a
    // worker.
    let r1 = run(a, &tok_a, "s1");
    let r2 = run(a, &tok_a, "s2");
    wait_run(a, &tok_a, &r1, status_is("running"));
    wait_run(a, &tok_a, &r2, status_is("running"));
    let r3 = run(a, &tok_a, "s1");
    let r4 = run(a, &tok_a, "s4");

    // Node B answers at once. It takes the run posted to A that A has no worker for, but not
    // the one whose session runs on A.
    let backend = replay(&env_b, "done");
    let node_b = Server::start_env(
        &env_b,
        &["--backend", &backend, "--workers", "2"],
        &[("BOB_DATABASE_URL", url.as_str()), ("BOB_SERVE_LEASE", "2")],
    );
    let b = node_b.addr;
    let v = wait_run(b, &tok_b, &r4, status_is("completed"));
    assert_eq!(v["output"], "done");
    assert_eq!(
        get(b, &format!("/v1/runs/{r3}"), &tok_b).json()["status"],
        "queued"
    );
    assert_eq!(
        get(b, &format!("/v1/runs/{r1}"), &tok_b).json()["status"],
        "running"
    );

    // Tokens are shared: A's token works on B, and one revoked on B is refused on A (within
    // the second a server keeps its copy). Neither home holds a token file.
    assert_eq!(get(b, &format!("/v1/runs/{r4}"), &tok_a).status, 200);
    let spare = token(&env_b, &url);
    assert_eq!(get(a, "/v1/runs", &spare).status, 200);
    let listed = env_b
        .bob(&["serve", "token", "list"])
        .env("BOB_DATABASE_URL", &url)
        .output()
        .unwrap();
    let ids: Vec<Value> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    let spare_id = ids.last().unwrap()["id"].as_str().unwrap().to_string();
    let revoked = env_b
        .bob(&["serve", "token", "revoke", &spare_id])
        .env("BOB_DATABASE_URL", &url)
        .output()
        .unwrap();
    assert!(
        revoked.status.success(),
        "{}",
        String::from_utf8_lossy(&revoked.stderr)
    );
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(get(a, "/v1/runs", &spare).status, 401);
    assert!(!env_a.home().join("serve/tokens.json").exists());
    assert!(!env_b.home().join("serve/tokens.json").exists());

    // A run running on A is cancelled from B: A's turn sees it at its next heartbeat.
    let r = post(b, &format!("/v1/runs/{r2}/cancel"), &tok_b, &json!({}));
    assert_eq!(r.status, 202, "{}", r.text());
    let v = wait_run(a, &tok_a, &r2, status_is("cancelled"));
    assert_eq!(v["error"]["code"], "run.cancelled", "{v}");
    // Its events stream from B too (the audit events are in the database): the run ran on A,
    // its cancel was asked on B, and B's stream holds both, in chain order.
    let events = sse_events(b, &tok_b, &r2);
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"run.created"), "{types:?}");
    assert!(types.contains(&"run.started"), "{types:?}");
    assert!(types.contains(&"model.requested"), "{types:?}");
    assert!(types.contains(&"run.cancel_requested"), "{types:?}");
    assert_eq!(types.last(), Some(&"run.cancelled"), "{types:?}");
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert_eq!(
        events,
        sse_events(a, &tok_a, &r2),
        "both nodes stream the same events"
    );
    // A queued run posted to B is cancelled from A.
    let blocked = run(b, &tok_b, "s1");
    let r = post(a, &format!("/v1/runs/{blocked}/cancel"), &tok_a, &json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        get(b, &format!("/v1/runs/{blocked}"), &tok_b).json()["status"],
        "cancelled"
    );

    // A run on A calls a tool (its `tool.call` is in the database), then waits on the model.
    let tooled = create(
        a,
        &tok_a,
        json!({"agent_id": "a", "message": "use a tool", "session_id": "t1"}),
    );
    let mut c = db.client();
    let t = std::time::Instant::now();
    while c
        .query(
            "SELECT 1 FROM audit_events WHERE run_id = $1 AND event_type = 'tool.call'",
            &[&tooled],
        )
        .unwrap()
        .is_empty()
    {
        assert!(t.elapsed() < Duration::from_secs(20), "no tool.call");
        std::thread::sleep(Duration::from_millis(50));
    }
    // More runs to both nodes, then A dies with -9 while it holds some.
    let mut more: Vec<String> = (0..4).map(|i| run(b, &tok_b, &format!("b{i}"))).collect();
    more.extend((0..4).map(|i| run(a, &tok_a, &format!("a{i}"))));
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill takes no pointers; the pid is our own child, not yet reaped.
    unsafe { libc::kill(node_a.child.id() as i32, libc::SIGKILL) };
    node_a.child.wait().unwrap();

    // B recovers A's running runs after their lease, by what their audit events say: r1
    // called the model but no tool, so nothing of it took effect and it is queued again and
    // run to the end on B (then r3, whose session it blocked); the run that called a tool ends
    // failed/interrupted and is never run again.
    let v = wait_run(b, &tok_b, &r1, status_is("completed"));
    assert_eq!(v["output"], "done", "{v}");
    let attempts: i64 = c
        .query_one("SELECT attempts FROM serve_runs WHERE id = $1", &[&r1])
        .unwrap()
        .get(0);
    assert_eq!(attempts, 2, "r1 ran once on A and once on B");
    wait_run(b, &tok_b, &r3, status_is("completed"));
    let v = wait_run(b, &tok_b, &tooled, status_is("failed"));
    assert_eq!(v["reason"], "interrupted", "{v}");
    let mut all = vec![
        r1.clone(),
        r2.clone(),
        r3.clone(),
        r4.clone(),
        blocked.clone(),
        tooled.clone(),
    ];
    all.extend(more);
    for id in &all {
        let v = wait_run(b, &tok_b, id, |v| {
            TERMINAL.contains(&v["status"].as_str().unwrap_or(""))
        });
        // Exactly one ending: completed runs ran once (on B: A's model never answered),
        // the others never completed a turn anywhere.
        let (on_a, on_b) = (turns_with(&env_a, id), turns_with(&env_b, id));
        match v["status"].as_str().unwrap() {
            "completed" => assert_eq!((on_a, on_b), (0, 1), "{id}: {v}"),
            "failed" => {
                assert_eq!(v["reason"], "interrupted", "{v}");
                assert_eq!(on_b, 0, "{id} ran again after it was interrupted");
            }
            "cancelled" => assert_eq!(on_b, 0, "{v}"),
            other => panic!("{id} ended {other}: {v}"),
        }
    }
    let listed = get(b, "/v1/runs?limit=100", &tok_b).json();
    assert_eq!(listed["total"], all.len(), "{listed}");
    // In the database, each run has one row, and none is left running or leased.
    let open: i64 = c
        .query_one(
            "SELECT count(*) FROM serve_runs WHERE status NOT IN ('completed','failed','cancelled','incomplete')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(open, 0);
    let rows: i64 = c
        .query_one("SELECT count(*) FROM serve_runs", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows as usize, all.len());
    // Nothing of the queue is in either home.
    assert!(!env_a.home().join("serve/queue.db").exists());
    assert!(!env_b.home().join("serve/queue.db").exists());
}

/// Takes the test's database away (as a server restart or an outage would): every connection to
/// it is cut and it answers to no name until [`restore`].
fn take_away(db: &pg::TestDb) {
    let mut admin = db.admin();
    for _ in 0..200 {
        let _ = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
            &[&db.name],
        );
        if admin
            .batch_execute(&format!("ALTER DATABASE {0} RENAME TO {0}_away", db.name))
            .is_ok()
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("could not take the database away");
}

fn restore(db: &pg::TestDb) {
    db.admin()
        .batch_execute(&format!("ALTER DATABASE {0}_away RENAME TO {0}", db.name))
        .unwrap();
}

fn health(addr: std::net::SocketAddr) -> (u16, Value) {
    let r = crate::serve::req(addr, "GET", "/healthz", None, None);
    (r.status, r.json())
}

#[test]
fn a_database_outage_is_reported_by_healthz_and_the_server_carries_on_after_it() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let url = db.url();
    let env = TestEnv::new();
    let tok = token(&env, &url);
    let backend = replay(&env, "done");
    let srv = Server::start_env(
        &env,
        &["--backend", &backend],
        &[("BOB_DATABASE_URL", url.as_str()), ("BOB_SERVE_LEASE", "1")],
    );
    let a = srv.addr;
    let before = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "hi", "session_id": "s1"}),
    );
    wait_run(a, &tok, &before, status_is("completed"));
    assert_eq!(health(a), (200, json!({"ok": true})));

    take_away(&db);
    let t = std::time::Instant::now();
    let (status, body) = loop {
        let (status, body) = health(a);
        if status != 200 || t.elapsed() > Duration::from_secs(20) {
            break (status, body);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["ok"], false, "{body}");
    assert_eq!(body["error"]["code"], "upstream.error", "{body}");
    get(a, "/v1/runs", &tok).error(503, "upstream.error");

    restore(&db);
    let t = std::time::Instant::now();
    while health(a).0 != 200 {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the server never reconnected"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Nothing accepted before is lost, and new runs are taken again.
    assert_eq!(
        get(a, &format!("/v1/runs/{before}"), &tok).json()["status"],
        "completed"
    );
    let after = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "hi", "session_id": "s2"}),
    );
    wait_run(a, &tok, &after, status_is("completed"));
}
