//! Ids are bob's (issue 23 L1): a model's tool call cannot choose the run, agent or request id
//! it is recorded under, `human` and `system` are never agent ids, and an id that is malformed
//! or holds a secret is refused at every entry point (`bob turn`, `bob tool run`, `bob serve`)
//! rather than written.

use crate::TestEnv;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Stdio};
use std::time::Duration;

/// A stored secret that fits the id pattern (so only the redaction check can refuse it).
const SECRET: &str = "Zq8vLmN3pR7sT1wXk4";
/// An AWS access key id (the shipped rules mask it): also fits the id pattern.
const AWS_KEY_ID: &str = "AKIAZ7Q2WX3ERT4YUI5P";

fn store_secret(env: &TestEnv) {
    env.json(&["secrets", "set", "leaky"], &format!("{SECRET}\n"));
}

/// No file of the home holds `needle`, in its name or its bytes.
fn home_never_holds(env: &TestEnv, needle: &str) {
    let home = env.home();
    for p in crate::support::files_under(&home) {
        let rel = p.strip_prefix(&home).unwrap().display().to_string();
        assert!(!rel.contains(needle), "a path holds {needle:?}: {rel}");
        let bytes = std::fs::read(&p).unwrap_or_default();
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
            "{rel} holds {needle:?}"
        );
    }
}

fn audit_agents(env: &TestEnv) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(env.home().join("audit"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn trace(env: &TestEnv, session: &str) -> Vec<Value> {
    std::fs::read_to_string(env.home().join("traces").join(format!("{session}.jsonl")))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn replay(env: &TestEnv, lines: &[Value]) -> String {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    format!("replay:{}", env.write("script.jsonl", &text).display())
}

/// The L1 reproduction: inside `bob turn`, a model's tool calls set `request_id` to a stored
/// secret, `run_id` to an AWS key id and `agent_id` to `human`. The calls run under bob's ids,
/// the model's are named in the trace as ignored, no audit directory or record is made from
/// them, agent calls never reach the log of human acts, and no file of the home holds either
/// value.
#[test]
fn a_models_tool_call_cannot_choose_its_ids() {
    let env = TestEnv::new();
    store_secret(&env);
    let root = env.path("sandbox");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "remember the milk").unwrap();
    env.json(
        &[
            "tool",
            "enable",
            "--session",
            "s1",
            "fs.list_dir",
            "fs.read_text",
        ],
        "",
    );
    let human_before = env.audit_events("human").len();
    let block = json!([{
        "request_id": SECRET, "run_id": AWS_KEY_ID, "agent_id": "human",
        "tool": "fs.read_text", "input": {"path": "notes.txt"},
    }]);
    let spec = replay(
        &env,
        &[
            // Round 0: a native call whose id is the secret.
            json!({"role": "solo", "content": "", "tool_calls": [
                {"id": SECRET, "type": "function", "function": {"name": "fs.list_dir",
                 "arguments": "{\"path\":\".\"}"}}]}),
            // Round 1: an Openclawssy envelope in a marker block choosing every id.
            json!({"role": "solo", "content":
                format!("<<<TOOL_CALLS_JSON>>>{block}<<<END_TOOL_CALLS_JSON>>>")}),
            // Round 2: an agent id made of the secret (the issue's `audit/agent-<secret>/`).
            json!({"role": "solo", "content": format!(
                "<<<TOOL_CALLS_JSON>>>{}<<<END_TOOL_CALLS_JSON>>>",
                json!([{"id": "r3", "agent_id": format!("agent-{SECRET}"), "tool": "fs.list_dir",
                        "args": {"path": "."}}]))}),
            json!({"role": "solo", "content": "Your note says: remember the milk."}),
        ],
    );
    let out = env
        .bob(&[
            "turn",
            "--backend",
            &spec,
            "--profile",
            "solo",
            "--session",
            "s1",
        ])
        .env("BOB_TOOL_SANDBOX_ENABLED", "1")
        .env("BOB_TOOL_ROOTS", &root)
        .write_stdin("what is in my notes?")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run_id = rec["run_id"].as_str().unwrap();
    assert!(run_id.starts_with("run_"), "{rec}");
    assert_eq!(rec["agent_id"], "agent_default");
    // Both calls ran, under ids bob gave them.
    let tools = rec["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 3, "{rec}");
    assert!(tools.iter().all(|t| t["status"] == "ok"), "{rec}");
    for (i, t) in tools.iter().enumerate() {
        let r = t["result_ref"].as_str().unwrap();
        assert!(r.ends_with(&format!("#call_{}", i + 1)), "{r}");
    }
    assert_eq!(rec["output"], "Your note says: remember the milk.");

    // The agent's calls are in the agent's log, under the turn's run id and bob's request ids.
    let events = env.audit_events("agent_default");
    let calls: Vec<&Value> = events
        .iter()
        .filter(|e| e["event_type"] == "tool.call" || e["event_type"] == "tool.result")
        .collect();
    assert_eq!(calls.len(), 6, "{events:?}");
    for e in &calls {
        assert_eq!(e["run_id"], run_id, "{e}");
        assert_eq!(e["agent_id"], "agent_default", "{e}");
        let id = e["payload"]["request_id"].as_str().unwrap();
        assert!(["call_1", "call_2", "call_3"].contains(&id), "{e}");
    }
    // The log of human acts holds only the human's own act (the tool enable).
    let human = env.audit_events("human");
    assert_eq!(human.len(), human_before, "{human:?}");
    assert!(human.iter().all(|e| e["actor"] == "human"), "{human:?}");
    assert_eq!(audit_agents(&env), vec!["agent_default", "human"]);

    // The trace names the ids each model set as ignored.
    let plans: Vec<Value> = trace(&env, "s1")
        .into_iter()
        .filter(|e| e["kind"] == "tool_plan" && e["data"]["calls"].is_array())
        .flat_map(|e| e["data"]["calls"].as_array().unwrap().clone())
        .collect();
    assert_eq!(
        plans,
        vec![
            json!({"id": "call_1", "tool": "fs.list_dir", "ignored_ids": ["request_id"]}),
            json!({"id": "call_2", "tool": "fs.read_text",
                   "ignored_ids": ["request_id", "run_id", "agent_id"]}),
            json!({"id": "call_3", "tool": "fs.list_dir",
                   "ignored_ids": ["request_id", "agent_id"]}),
        ]
    );
    // Nothing in the home holds the model's values: no directory, manifest entry or record.
    home_never_holds(&env, SECRET);
    home_never_holds(&env, AWS_KEY_ID);
}

/// The turn's own ids are checked at the entry point: a reserved actor as agent, a malformed
/// session or a session holding a stored secret is refused before anything is written.
#[test]
fn bob_turn_refuses_reserved_malformed_and_secret_ids() {
    let env = TestEnv::new();
    store_secret(&env);
    let spec = replay(&env, &vec![json!({"content": "hi"}); 4]);
    for (args, field) in [
        (vec!["--agent", "human"], "agent_id"),
        (vec!["--agent", "system"], "agent_id"),
        (vec!["--agent", "a:b"], "agent_id"),
        (vec!["--session", "..hidden"], "session_id"),
        (vec!["--session", SECRET], "session_id"),
        (vec!["--user", SECRET], "user_id"),
    ] {
        let mut a = vec!["turn", "--backend", &spec];
        a.extend_from_slice(&args);
        let err = env.fails(&a, "hello", 2, "invalid.request");
        assert_eq!(err["details"]["field"], field, "{args:?}: {err}");
        assert!(!err.to_string().contains(SECRET), "{err}");
    }
    assert!(!env.home().join("sessions").join(SECRET).exists());
    assert!(!env.home().join("audit").join("human").exists());
    assert!(!env.home().join("turns.jsonl").exists());
    home_never_holds(&env, SECRET);
    // A user id may name a person elsewhere (`@` and `:` are kept for users).
    let rec = env.json(
        &["turn", "--backend", &spec, "--user", "alice@example.com"],
        "hello",
    );
    assert_eq!(rec["user_id"], "alice@example.com");
}

/// `bob tool run` checks its flags' and every request's ids before anything runs: one bad id
/// refuses the whole input (`invalid.request`, exit 2, naming the field and the call).
#[test]
fn bob_tool_run_refuses_bad_ids_before_running_anything() {
    let env = TestEnv::new();
    store_secret(&env);
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    let root_s = root.display().to_string();
    let write = |id_field: &str, id: &str| {
        let mut call = json!({"request_id": "ok1", "tool": "fs.write_text",
            "input": {"path": "pwned.txt", "text": "x"}});
        call[id_field] = json!(id);
        json!([{"request_id": "first", "tool": "fs.list_dir", "input": {"path": "."}}, call])
            .to_string()
    };
    let run = ["tool", "run", "--enable-all", "--root", &root_s];
    for (field, id) in [
        ("agent_id", "human"),
        ("agent_id", "system"),
        ("run_id", "../../etc"),
        ("run_id", AWS_KEY_ID),
        ("request_id", SECRET),
        ("request_id", "a b"),
        ("agent_id", &format!("agent-{SECRET}")),
        ("run_id", &"r".repeat(65)),
    ] {
        let err = env.fails(&run, &write(field, id), 2, "invalid.request");
        assert_eq!(err["details"]["field"], field, "{field}={id}: {err}");
        assert_eq!(err["details"]["call"], 2, "{err}");
        assert!(!err.to_string().contains(SECRET), "{err}");
    }
    for (flag, id, field) in [
        ("--agent-id", "human", "agent_id"),
        ("--agent-id", SECRET, "agent_id"),
        ("--run-id", "run:1", "run_id"),
        ("--session", "_s", "session_id"),
    ] {
        let mut a = run.to_vec();
        a.extend_from_slice(&[flag, id]);
        let err = env.fails(&a, &write("request_id", "fine"), 2, "invalid.request");
        assert_eq!(err["details"]["field"], field, "{flag} {id}: {err}");
    }
    // Nothing ran and nothing was audited.
    assert!(!root.join("pwned.txt").exists());
    assert_eq!(audit_agents(&env), Vec::<String>::new());
    home_never_holds(&env, SECRET);
    home_never_holds(&env, AWS_KEY_ID);
    // Good ids run.
    let out = env.jsonl(&run, &write("agent_id", "agent_7.b-c"));
    assert!(out.iter().all(|r| r["ok"] == true), "{out:?}");
    assert!(root.join("pwned.txt").exists());
    assert_eq!(env.audit_events("agent_7.b-c").len(), 2);
}

/// A running `bob serve` on 127.0.0.1:<free port>; killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(env: &TestEnv) -> Server {
        let mut child = env
            .std_command(&["serve", "--bind", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn bob serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the ready line");
        let ready: Value = serde_json::from_str(&line).expect("a JSON ready line");
        let addr = ready["listening"].as_str().unwrap().parse().unwrap();
        Server { child, addr }
    }

    /// `POST path` with a JSON body; (status, body).
    fn post(&self, path: &str, token: &str, body: &Value) -> (u16, Value) {
        let body = body.to_string();
        let mut s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAuthorization: Bearer \
             {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut buf = String::new();
        let _ = s.read_to_string(&mut buf);
        let (head, body) = buf.split_once("\r\n\r\n").expect("an HTTP answer");
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, serde_json::from_str(body).unwrap_or(Value::Null))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `bob serve` refuses the same ids at `POST /v1/runs` and `/v1/chat/messages` (400,
/// `invalid.request` naming the field) and queues nothing under them.
#[test]
fn serve_refuses_reserved_malformed_and_secret_ids() {
    let env = TestEnv::new();
    store_secret(&env);
    let tok = env.json(&["serve", "token", "create", "--name", "t"], "")["token"]
        .as_str()
        .unwrap()
        .to_string();
    let server = Server::start(&env);
    let run = |extra: Value| {
        let mut b = json!({"agent_id": "agent_default", "message": "hi"});
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        server.post("/v1/runs", &tok, &b)
    };
    for (body, field) in [
        (json!({"agent_id": "human"}), "agent_id"),
        (json!({"agent_id": "system"}), "agent_id"),
        (json!({"agent_id": SECRET}), "agent_id"),
        (json!({"agent_id": "a@b"}), "agent_id"),
        (json!({"session_id": SECRET}), "session_id"),
        (json!({"session_id": ".s"}), "session_id"),
        (json!({"user_id": AWS_KEY_ID}), "user_id"),
        (json!({"user_id": "-alice"}), "user_id"),
    ] {
        let (status, v) = run(body.clone());
        assert_eq!(status, 400, "{body}: {v}");
        assert_eq!(v["error"]["code"], "invalid.request", "{v}");
        assert_eq!(v["error"]["details"]["field"], field, "{body}: {v}");
        assert!(!v.to_string().contains(SECRET), "{v}");
    }
    for (body, field) in [
        (json!({"agent_id": "human"}), "agent_id"),
        (json!({"user_id": SECRET}), "user_id"),
        (json!({"room_id": "r/1"}), "room_id"),
    ] {
        let mut b = json!({"agent_id": "agent_default", "user_id": "@alice:example.org",
                           "room_id": "general", "message": "hi"});
        for (k, v) in body.as_object().unwrap() {
            b[k] = v.clone();
        }
        let (status, v) = server.post("/v1/chat/messages", &tok, &b);
        assert_eq!(status, 400, "{b}: {v}");
        assert_eq!(v["error"]["details"]["field"], field, "{b}: {v}");
    }
    // A good request is accepted, a user id naming a person elsewhere included.
    let (status, v) = run(json!({"session_id": "s-1", "user_id": "alice@example.com"}));
    assert_eq!(status, 202, "{v}");
    drop(server);
    assert!(!env.home().join("audit").join("human").exists());
    home_never_holds(&env, SECRET);
}

/// Scheduler jobs carry ids into `jobs.json`, the history and the turns they run: a reserved
/// actor as `agentID`, a malformed id or one holding a stored secret is refused, not stored.
#[test]
fn scheduler_jobs_refuse_reserved_malformed_and_secret_ids() {
    let env = TestEnv::new();
    store_secret(&env);
    let job = |k: &str, v: &str| {
        let mut j = json!({"id": "daily", "schedule": "@every 1h", "message": "hi",
                           "agentID": "agent_default"});
        j[k] = json!(v);
        j.to_string()
    };
    for (k, v) in [
        ("agentID", "human"),
        ("agentID", "system"),
        ("agentID", SECRET),
        ("id", SECRET),
        ("id", "a:b"),
        ("session", SECRET),
    ] {
        let err = env.fails(&["schedule", "add"], &job(k, v), 2, "invalid.request");
        assert_eq!(err["details"]["field"], k, "{k}={v}: {err}");
    }
    home_never_holds(&env, SECRET);
    env.json(&["schedule", "add"], &job("session", "s1"));
}

/// Memory users are keys of every row and ledger record: a user id that holds a stored secret
/// or breaks the user rule is refused, while one naming a person elsewhere is kept as given.
#[test]
fn memory_users_refuse_secret_and_malformed_ids() {
    let env = TestEnv::new();
    store_secret(&env);
    let cand = r#"[{"text":"The user prefers metric units","type":"preference","tags":["units"],"source":"user_said","why_store":"stable"}]"#;
    for user in [SECRET, ".alice", "a/b"] {
        let err = env.fails(
            &["memory", "propose", "--user", user],
            cand,
            2,
            "invalid.request",
        );
        assert!(
            err["details"]["field"] == "user" || err["details"]["field"] == "memory_user",
            "{user}: {err}"
        );
    }
    home_never_holds(&env, SECRET);
    let rows = env.jsonl(&["memory", "propose", "--user", "alice@example.com"], cand);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let listed = env.jsonl(&["memory", "candidates", "--user", "alice@example.com"], "");
    assert_eq!(listed.len(), 1, "{listed:?}");
}

/// A human's commands that write under a session (tool enable, TURBOTIME, caps, state, NOTES,
/// trace emit) refuse a session id holding a stored secret: no `sessions/<secret>/` and no
/// `traces/<secret>.jsonl` is ever made.
#[test]
fn session_writes_refuse_a_session_id_holding_a_secret() {
    let env = TestEnv::new();
    store_secret(&env);
    let state = json!({"state": {"goals": ["g"]}}).to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["tool", "enable", "--session", SECRET, "fs.list_dir"],
            String::new(),
        ),
        (
            vec!["tool", "turbotime", "on", "--session", SECRET],
            String::new(),
        ),
        (
            vec!["caps", "grant", "--session", SECRET, "net"],
            String::new(),
        ),
        (
            vec!["caps", "request", "--session", SECRET, "net"],
            String::new(),
        ),
        (vec!["state", "set", "--session", SECRET], state.clone()),
        (
            vec!["notes", "apply", "--session", SECRET],
            r#"{"set_goals":["g"]}"#.to_string(),
        ),
        (
            vec!["trace", "emit", "--session", SECRET, "--kind", "k"],
            String::new(),
        ),
    ];
    for (args, stdin) in &cases {
        let err = env.fails(args, stdin, 2, "invalid.request");
        assert_eq!(err["details"]["field"], "session_id", "{args:?}: {err}");
    }
    assert!(!env.home().join("sessions").join(SECRET).exists());
    home_never_holds(&env, SECRET);
    // The same commands write under an ordinary session.
    env.json(&["tool", "enable", "--session", "s1", "fs.list_dir"], "");
    env.json(&["state", "set", "--session", "s1"], &state);
}
