//! `bob serve` through the real binary over loopback: auth, hostile requests, the run queue
//! (validation, queue.full, one run per session, kill -9 durability, SIGTERM drain), SSE
//! events, and the run bundles that `bob runs` reads (from the server and from `bob turn`).

use crate::TestEnv;
use crate::support::http::Reply;
use crate::support::openai::{self, OpenAi};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A running `bob serve` on 127.0.0.1:<free port>; killed when dropped. Shared with
/// [`crate::serve_security`].
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) addr: SocketAddr,
    ready: Value,
}

impl Server {
    pub(crate) fn start(env: &TestEnv, extra: &[&str]) -> Server {
        Self::start_env(env, extra, &[])
    }

    /// A server whose chat backend is the fake OpenAI endpoint `llm`.
    pub(crate) fn start_on(env: &TestEnv, extra: &[&str], llm: &OpenAi) -> Server {
        let url = llm.base_url();
        let vars = [
            ("BOB_CHAT_BASE_URL", url.as_str()),
            ("BOB_CHAT_API_KEY", "k"),
            ("BOB_CHAT_MODEL", "m"),
        ];
        Self::start_env(env, extra, &vars)
    }

    pub(crate) fn start_env(env: &TestEnv, extra: &[&str], vars: &[(&str, &str)]) -> Server {
        let mut args = vec!["serve", "--bind", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut cmd = env.std_command(&args);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn bob serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("read the ready line");
        let ready: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).ok();
            panic!("bob serve did not start ({e}): {line:?} {err}")
        });
        let addr = ready["listening"].as_str().unwrap().parse().unwrap();
        Server { child, addr, ready }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) struct Resp {
    pub(crate) status: u16,
    head: String,
    body: Vec<u8>,
}

impl Resp {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {} {}",
                self.head,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
    /// Checks an Openclawssy error body: status, code; returns the error object.
    pub(crate) fn error(&self, status: u16, code: &str) -> Value {
        assert_eq!(
            self.status,
            status,
            "{} {}",
            self.head,
            String::from_utf8_lossy(&self.body)
        );
        let v = self.json();
        assert_eq!(v["error"]["code"], code, "{v}");
        assert!(v["error"]["message"].is_string(), "{v}");
        v["error"].clone()
    }
}

/// One raw HTTP/1.1 request (`Connection: close`), read to the end.
fn raw(addr: SocketAddr, request: &[u8]) -> Resp {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.write_all(request).unwrap();
    read_answer(s)
}

/// Reads one `Connection: close` answer to its end.
pub(crate) fn read_answer(mut s: TcpStream) -> Resp {
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(&buf)));
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut body = buf[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    Resp { status, head, body }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(nl) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..nl]).trim(), 16).unwrap_or(0);
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[nl + 2..nl + 2 + n]);
        b = &b[nl + 2 + n + 2..];
    }
}

/// The bytes of one `Connection: close` request.
pub(crate) fn request_bytes(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) -> Vec<u8> {
    let mut r = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(t) = token {
        r.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    if let Some(b) = body {
        r.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            b.len()
        ));
    }
    r.push_str("\r\n");
    let mut bytes = r.into_bytes();
    if let Some(b) = body {
        bytes.extend_from_slice(b);
    }
    bytes
}

pub(crate) fn req(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) -> Resp {
    raw(addr, &request_bytes(addr, method, path, token, body))
}

pub(crate) fn get(addr: SocketAddr, path: &str, token: &str) -> Resp {
    req(addr, "GET", path, Some(token), None)
}

pub(crate) fn post(addr: SocketAddr, path: &str, token: &str, body: &Value) -> Resp {
    req(
        addr,
        "POST",
        path,
        Some(token),
        Some(body.to_string().as_bytes()),
    )
}

/// A token with every scope (admin included).
pub(crate) fn token(env: &TestEnv) -> String {
    let v = env.json(
        &[
            "serve", "token", "create", "--name", "test", "--scope", "admin",
        ],
        "",
    );
    v["token"].as_str().unwrap().to_string()
}

/// A token and its id (as `serve token list` names it), for checking the actor of an act.
pub(crate) fn token_and_id(env: &TestEnv) -> (String, String) {
    let tok = token(env);
    let id = env.jsonl(&["serve", "token", "list"], "")[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    (tok, id)
}

/// A replay script answering every role of the `bob` profile with `text`.
/// A replay backend whose chat calls (three) each answer `text`.
pub(crate) fn replay(env: &TestEnv, text: &str) -> String {
    let line = json!({"content": text}).to_string();
    let p = env.write("replay.jsonl", &format!("{line}\n{line}\n{line}\n"));
    format!("replay:{}", p.display())
}

/// Polls `GET /v1/runs/{id}` until `pred` holds (20 s at most).
pub(crate) fn wait_run(
    addr: SocketAddr,
    tok: &str,
    id: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    let t = Instant::now();
    loop {
        let v = get(addr, &format!("/v1/runs/{id}"), tok).json();
        if pred(&v) {
            return v;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "run never got there: {v}"
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

pub(crate) fn status_is(s: &'static str) -> impl Fn(&Value) -> bool {
    move |v| v["status"] == s
}

pub(crate) fn create(addr: SocketAddr, tok: &str, body: Value) -> String {
    let r = post(addr, "/v1/runs", tok, &body);
    assert_eq!(r.status, 202, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json();
    assert_eq!(v["status"], "queued");
    v["id"].as_str().unwrap().to_string()
}

fn turns_with(env: &TestEnv, run_id: &str) -> usize {
    std::fs::read_to_string(env.home().join("turns.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| serde_json::from_str::<Value>(l).unwrap()["run_id"] == run_id)
        .count()
}

#[test]
fn tokens_are_stored_hashed_and_every_bad_credential_is_refused() {
    let env = TestEnv::new();
    let created = env.json(&["serve", "token", "create", "--name", "ci"], "");
    let tok = created["token"].as_str().unwrap().to_string();
    assert!(tok.starts_with("bob_") && tok.len() == 68, "{tok}");
    let stored = std::fs::read_to_string(env.home().join("serve/tokens.json")).unwrap();
    assert!(!stored.contains(&tok), "the token itself is stored");
    let listed = env.jsonl(&["serve", "token", "list"], "");
    assert_eq!(listed.len(), 1);
    assert!(!listed[0].to_string().contains(&tok[4..20]));

    let srv = Server::start(&env, &[]);
    let a = srv.addr;
    // /healthz needs nothing.
    let h = req(a, "GET", "/healthz", None, None);
    assert_eq!((h.status, h.json()), (200, json!({"ok": true})));
    // The API needs a valid bearer token.
    let r = req(a, "GET", "/v1/runs", None, None);
    r.error(401, "policy.denied");
    assert_eq!(r.header("www-authenticate").as_deref(), Some("Bearer"));
    get(a, "/v1/runs", "bob_0000").error(401, "policy.denied");
    get(a, "/v1/runs", &format!("{tok}x")).error(401, "policy.denied");
    get(a, "/v1/runs", &"A".repeat(10_000)).error(401, "policy.denied");
    raw(
        a,
        format!("GET /v1/runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic {tok}\r\n\r\n")
            .as_bytes(),
    )
    .error(401, "policy.denied");
    assert_eq!(get(a, "/v1/runs", &tok).status, 200);
    // A token in the URL is refused, valid or not, with or without a header.
    for path in [
        format!("/v1/runs?token={tok}"),
        format!("/v1/runs?access_token={tok}"),
        "/healthz?api_key=x".to_string(),
    ] {
        get(a, &path, &tok).error(400, "invalid.request");
    }
    // Revoked through the CLI while the server runs: refused on the next request.
    let id = created["id"].as_str().unwrap();
    let rv = env.json(&["serve", "token", "revoke", id], "");
    assert!(rv["revoked_at"].is_string());
    get(a, "/v1/runs", &tok).error(401, "policy.denied");
    env.fails(
        &["serve", "token", "revoke", "tok_nope"],
        "",
        4,
        "not_found",
    );
    // A second token still works.
    let t2 = token(&env);
    assert_eq!(get(a, "/v1/runs", &t2).status, 200);
}

#[test]
fn a_run_is_queued_executed_bundled_and_streamed() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "The answer is 42.");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let id = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": "What is the answer?", "thinking_mode": "always"}),
    );
    let run = wait_run(a, &tok, &id, status_is("completed"));
    assert_eq!(run["id"], id.as_str());
    assert_eq!(run["source"], "http");
    assert_eq!(run["output"], "The answer is 42.");
    assert_eq!(run["provider"], "replay");
    assert_eq!(run["model"], "replay");
    assert_eq!(run["thinking_mode"], "always");
    assert_eq!(run["tool_calls"], 0);
    assert!(run["duration_ms"].is_u64());
    assert_eq!(run["trace"]["tool_execution_results"], json!([]));
    // artifact_path names the bundle; `bob runs` reads it.
    let bundle = std::path::PathBuf::from(run["artifact_path"].as_str().unwrap());
    assert_eq!(bundle, env.home().join("runs").join(&id));
    for f in [
        "request.json",
        "record.json",
        "events.jsonl",
        "tool_results.json",
    ] {
        assert!(bundle.join(f).is_file(), "{f} missing");
    }
    let shown = env.json(&["runs", "show", &id], "");
    assert_eq!(shown["record"]["output"], "The answer is 42.");
    assert_eq!(shown["request"]["message"], "What is the answer?");
    assert_eq!(shown["request"]["source"], "http");
    let listed = env.jsonl(&["runs", "list"], "");
    assert_eq!(listed[0]["run_id"], id.as_str());
    // The SSE stream replays the lifecycle in order, with the audit log's seq.
    let sse = get(a, &format!("/v1/runs/{id}/events"), &tok);
    assert_eq!(sse.status, 200);
    let text = String::from_utf8(sse.body).unwrap();
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"run.created"), "{types:?}");
    assert_eq!(types.get(1), Some(&"run.started"));
    assert!(types.contains(&"model.requested"));
    assert_eq!(types.last(), Some(&"run.completed"));
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let bundled: Vec<Value> = std::fs::read_to_string(bundle.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        events, bundled,
        "the stream and the bundle hold the same audit events"
    );
    // Listing, with filters and paging.
    let id2 = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": "again"}),
    );
    wait_run(a, &tok, &id2, status_is("completed"));
    let all = get(a, "/v1/runs", &tok).json();
    assert_eq!(
        (
            all["total"].clone(),
            all["limit"].clone(),
            all["offset"].clone()
        ),
        (json!(2), json!(50), json!(0))
    );
    assert_eq!(all["runs"][0]["id"], id2.as_str(), "newest first");
    let page = get(a, "/v1/runs?limit=1&offset=1&status=completed", &tok).json();
    assert_eq!(page["runs"].as_array().unwrap().len(), 1);
    assert_eq!(page["runs"][0]["id"], id.as_str());
    assert_eq!(get(a, "/v1/runs?status=queued", &tok).json()["total"], 0);
    for bad in [
        "limit=0",
        "limit=501",
        "limit=abc",
        "offset=-1",
        "status=weird",
        "nope=1",
    ] {
        get(a, &format!("/v1/runs?{bad}"), &tok).error(400, "invalid.request");
    }
}

#[test]
fn a_run_can_ask_for_the_panda_profile_in_chat_mode() {
    let env = TestEnv::new();
    let tok = token(&env);
    // The panda profile's roles answer in JSON: Thinking's plan, then the Solver's final.
    let lines = [
        json!({"role": "thinking", "content": "{\"plan\": [\"answer\"]}"}),
        json!({"role": "solver", "content": json!({"analysis": "hidden", "final": "Panda here."}).to_string()}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let p = env.write("panda.jsonl", &text);
    let backend = format!("replay:{}", p.display());
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let id = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": "hi", "profile": "panda", "mode": "chat"}),
    );
    let run = wait_run(a, &tok, &id, |v| {
        v["status"] != "queued" && v["status"] != "running"
    });
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["profile"], "panda");
    // The Solver's JSON was read as the panda contract: only `final` is the answer.
    assert_eq!(run["output"], "Panda here.");
    let shown = env.json(&["runs", "show", &id], "");
    assert_eq!(shown["record"]["profile"], "panda");
    assert_eq!(shown["request"]["profile"], "panda");
    assert_eq!(shown["request"]["mode"], "chat");
    // Act is the default and is not written.
    let backend_id = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": "again", "profile": "panda"}),
    );
    wait_run(a, &tok, &backend_id, |v| {
        v["status"] != "queued" && v["status"] != "running"
    });
    let shown = env.json(&["runs", "show", &backend_id], "");
    assert!(shown["request"].get("mode").is_none(), "{shown}");
}

#[test]
fn hostile_requests_get_the_right_error_and_nothing_is_queued() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "ok");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let bad_bodies: Vec<(Vec<u8>, &str)> = vec![
        (b"not json".to_vec(), "not JSON"),
        (b"[1,2]".to_vec(), "an array"),
        (b"{\"message\":\"hi\"}".to_vec(), "no agent_id"),
        (b"{\"agent_id\":\"a\"}".to_vec(), "no message"),
        (
            b"{\"agent_id\":\"a\",\"message\":\"  \"}".to_vec(),
            "empty message",
        ),
        (
            b"{\"agent_id\":7,\"message\":\"hi\"}".to_vec(),
            "agent_id a number",
        ),
        (
            b"{\"agent_id\":\"../etc\",\"message\":\"hi\"}".to_vec(),
            "agent_id a path",
        ),
        (
            b"{\"agent_id\":\"a\",\"message\":\"hi\",\"session_id\":\"../../x\"}".to_vec(),
            "session a path",
        ),
        (
            b"{\"agent_id\":\"a\",\"message\":\"hi\",\"thinking_mode\":\"sometimes\"}".to_vec(),
            "mode",
        ),
        (
            b"{\"agent_id\":\"a\",\"message\":\"hi\",\"profile\":\"evil\"}".to_vec(),
            "profile",
        ),
        (
            b"{\"agent_id\":\"a\",\"message\":\"hi\",\"mode\":\"yolo\"}".to_vec(),
            "run mode",
        ),
        (
            format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
            "deeply nested",
        ),
        (
            format!(
                "{{\"agent_id\":\"a\",\"message\":{}}}",
                "{\"a\":".repeat(5000)
            )
            .into_bytes(),
            "nested object",
        ),
    ];
    for (body, what) in &bad_bodies {
        let r = req(a, "POST", "/v1/runs", Some(&tok), Some(body));
        assert_eq!(
            r.status,
            400,
            "{what}: {}",
            String::from_utf8_lossy(&r.body)
        );
        assert_eq!(r.json()["error"]["code"], "invalid.request", "{what}");
    }
    // A body over the cap: 413, Openclawssy error body.
    let huge = format!(
        "{{\"agent_id\":\"a\",\"message\":\"{}\"}}",
        "x".repeat(2 * 1024 * 1024)
    );
    req(a, "POST", "/v1/runs", Some(&tok), Some(huge.as_bytes())).error(413, "invalid.request");
    // Path tricks in {id}, unknown ids, unknown endpoints, wrong methods.
    for p in [
        "/v1/runs/..%2F..%2Fetc%2Fpasswd",
        "/v1/runs/%2e%2e",
        "/v1/runs/a%00b/events",
    ] {
        get(a, p, &tok).error(400, "invalid.request");
    }
    get(a, "/v1/runs/run_nope", &tok).error(404, "not_found");
    get(a, "/v1/runs/run_nope/events", &tok).error(404, "not_found");
    get(a, "/v1/nothing", &tok).error(404, "not_found");
    req(a, "DELETE", "/v1/runs", Some(&tok), None).error(405, "invalid.request");
    // Oversized request head: refused by the HTTP layer, server stays up.
    let big = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
        "y".repeat(64 * 1024)
    );
    let mut s = TcpStream::connect(a).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = s.write_all(big.as_bytes());
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let head = String::from_utf8_lossy(&out);
    assert!(!head.starts_with("HTTP/1.1 200"), "{head}");
    // Nothing was queued by any of it, and the server still answers.
    assert_eq!(get(a, "/v1/runs", &tok).json()["total"], 0);
    assert_eq!(req(a, "GET", "/healthz", None, None).status, 200);
}

#[test]
fn a_full_queue_answers_queue_full_with_retry_after_and_sessions_run_one_at_a_time() {
    let env = TestEnv::new();
    let tok = token(&env);
    let llm = OpenAi::start(|_, _| Reply::hang());
    let srv = Server::start_on(&env, &["--workers", "2", "--queue", "2"], &llm);
    let a = srv.addr;
    let r1 = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "one", "session_id": "s1"}),
    );
    wait_run(a, &tok, &r1, status_is("running"));
    // Same session: stays queued although a worker is free.
    let r2 = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "two", "session_id": "s1"}),
    );
    // Another session: runs in parallel on the second worker.
    let r3 = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "three", "session_id": "s2"}),
    );
    wait_run(a, &tok, &r3, status_is("running"));
    assert_eq!(
        get(a, &format!("/v1/runs/{r2}"), &tok).json()["status"],
        "queued"
    );
    // Both workers are busy: with r2, one more fills the queue (cap 2); the next is refused.
    let r4 = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "four", "session_id": "s3"}),
    );
    let full = post(
        a,
        "/v1/runs",
        &tok,
        &json!({"agent_id": "a", "message": "six"}),
    );
    let e = full.error(503, "queue.full");
    assert!(e["retry_after_seconds"].as_u64().unwrap() >= 1);
    assert!(full.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    let queued = get(a, "/v1/runs?status=queued", &tok).json();
    assert_eq!(queued["total"], 2, "{queued}");
    let ids: Vec<&str> = queued["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&r2.as_str()) && ids.contains(&r4.as_str()));
}

#[test]
fn runs_posted_at_once_share_commits_but_each_is_accepted_or_refused_against_the_cap() {
    let env = TestEnv::new();
    let tok = token(&env);
    let llm = OpenAi::start(|_, _| Reply::hang());
    let srv = Server::start_on(&env, &["--workers", "1", "--queue", "15"], &llm);
    let a = srv.addr;
    // The only worker is held by a run that never ends: nothing leaves the queue.
    let busy = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "hold", "session_id": "busy"}),
    );
    wait_run(a, &tok, &busy, status_is("running"));
    let answers: Vec<Resp> = std::thread::scope(|sc| {
        let tok = &tok;
        let posts: Vec<_> = (0..40)
            .map(|i| {
                sc.spawn(move || {
                    let body = json!({"agent_id": "a", "message": format!("m{i}"),
                                      "session_id": format!("s{i}")});
                    post(a, "/v1/runs", tok, &body)
                })
            })
            .collect();
        posts.into_iter().map(|p| p.join().unwrap()).collect()
    });
    let mut accepted = Vec::new();
    for r in &answers {
        if r.status == 202 {
            accepted.push(r.json()["id"].as_str().unwrap().to_string());
        } else {
            r.error(503, "queue.full");
        }
    }
    assert_eq!(accepted.len(), 15, "exactly the cap is accepted");
    let queued = get(a, "/v1/runs?status=queued&limit=500", &tok).json();
    assert_eq!(queued["total"], 15, "{queued}");
    let mut listed: Vec<String> = queued["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    listed.sort();
    accepted.sort();
    assert_eq!(
        listed, accepted,
        "every 202 is in the queue, nothing else is"
    );
}

#[test]
fn after_kill_9_every_accepted_run_is_completed_or_failed_interrupted_never_lost_or_run_twice() {
    let env = TestEnv::new();
    let tok = token(&env);
    let llm = OpenAi::start(|_, _| Reply::hang());
    let mut srv = Server::start_on(&env, &["--workers", "1"], &llm);
    let a = srv.addr;
    let running = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "slow", "session_id": "s1"}),
    );
    wait_run(a, &tok, &running, status_is("running"));
    let queued: Vec<String> = (0..3)
        .map(|i| {
            create(
                a,
                &tok,
                json!({"agent_id": "a", "message": format!("m{i}"), "session_id": format!("q{i}")}),
            )
        })
        .collect();
    // kill -9: no chance to clean up.
    // SAFETY: kill takes no pointers; the pid is our own child, not yet reaped (waited on
    // just below), so it cannot have been reused by another process.
    unsafe { libc::kill(srv.pid(), libc::SIGKILL) };
    srv.child.wait().unwrap();
    assert_eq!(turns_with(&env, &running), 0);

    let backend = replay(&env, "done");
    let srv2 = Server::start(&env, &["--backend", &backend, "--workers", "2"]);
    assert_eq!(srv2.ready["recovered"], 1);
    let a = srv2.addr;
    let r = get(a, &format!("/v1/runs/{running}"), &tok).json();
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["reason"], "interrupted", "{r}");
    for id in &queued {
        let v = wait_run(a, &tok, id, status_is("completed"));
        assert_eq!(v["output"], "done");
    }
    // Every accepted run is accounted for exactly once; the interrupted one never ran again.
    let all = get(a, "/v1/runs", &tok).json();
    assert_eq!(all["total"], 4);
    assert_eq!(turns_with(&env, &running), 0);
    for id in &queued {
        assert_eq!(turns_with(&env, id), 1, "{id} ran more or less than once");
    }
    // A third start finds nothing to recover.
    drop(srv2);
    let srv3 = Server::start(&env, &["--backend", &backend]);
    assert_eq!(srv3.ready["recovered"], 0);
}

#[test]
fn sigterm_drains_running_runs_keeps_queued_ones_and_exits_0() {
    let env = TestEnv::new();
    let tok = token(&env);
    // The model answers after a pause long enough for SIGTERM to land mid-run.
    let llm = OpenAi::start(|_, _| {
        std::thread::sleep(Duration::from_millis(700));
        Reply::json(200, &openai::completion("finished"))
    });
    let mut srv = Server::start_on(&env, &["--workers", "1"], &llm);
    let a = srv.addr;
    let first = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "x", "session_id": "s"}),
    );
    wait_run(a, &tok, &first, status_is("running"));
    let second = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "y", "session_id": "s"}),
    );
    // SAFETY: kill takes no pointers; the pid is our own child, not yet reaped (waited on
    // just below), so it cannot have been reused by another process.
    unsafe { libc::kill(srv.pid(), libc::SIGTERM) };
    let status = srv.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(turns_with(&env, &first), 1, "the running run finished");
    assert_eq!(
        turns_with(&env, &second),
        0,
        "the queued run was not started"
    );
    let backend = replay(&env, "later");
    let srv2 = Server::start(&env, &["--backend", &backend]);
    assert_eq!(srv2.ready["recovered"], 0);
    let v = get(srv2.addr, &format!("/v1/runs/{first}"), &tok).json();
    assert_eq!(
        (v["status"].clone(), v["output"].clone()),
        (json!("completed"), json!("finished"))
    );
    let v = wait_run(srv2.addr, &tok, &second, status_is("completed"));
    assert_eq!(v["output"], "later");
}

#[test]
fn non_loopback_bind_needs_public_and_one_server_per_home() {
    let env = TestEnv::new();
    env.fails(&["serve", "--bind", "0.0.0.0:0"], "", 3, "policy.denied");
    let backend = replay(&env, "x");
    let _srv = Server::start(&env, &["--backend", &backend]);
    let out = env
        .bob(&["serve", "--bind", "127.0.0.1:0"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    crate::env::error_of(&out, 5, "conflict");
    env.fails(
        &["serve", "--workers", "0", "--bind", "127.0.0.1:0"],
        "",
        2,
        "invalid.request",
    );
}

/// The server's knobs are settings (flag > env > config.toml > default), shown by `bob config
/// show`, and a bad value names where it came from.
#[test]
fn serve_options_come_from_flags_env_and_config_in_that_order() {
    let env = TestEnv::new();
    let backend = replay(&env, "x");
    env.json(&["init"], "");
    std::fs::write(
        env.home().join("config.toml"),
        "[serve]\nworkers = 3\nqueue = 7\nchat_rate = 4\n",
    )
    .unwrap();
    let shown = env.json(&["config", "show"], "");
    assert_eq!(shown["settings"]["serve.workers"]["value"], 3, "{shown}");
    assert_eq!(shown["settings"]["serve.workers"]["source"], "config");
    assert_eq!(shown["settings"]["serve.bind"]["value"], "127.0.0.1:8765");
    // config says 7, the environment 8, the flag 9: the flag wins; workers stay config's.
    let srv = Server::start_env(
        &env,
        &["--backend", &backend, "--queue", "9"],
        &[("BOB_SERVE_QUEUE", "8"), ("BOB_SERVE_WORKERS", "")],
    );
    assert_eq!(srv.ready["workers"], 3, "{}", srv.ready);
    assert_eq!(srv.ready["queue"], 9, "{}", srv.ready);
    drop(srv);
    let srv = Server::start_env(&env, &["--backend", &backend], &[("BOB_SERVE_QUEUE", "8")]);
    assert_eq!(srv.ready["queue"], 8, "{}", srv.ready);
    drop(srv);
    let bad = env
        .bob(&["serve"])
        .env("BOB_SERVE_WORKERS", "0")
        .output()
        .unwrap();
    let e = crate::env::error_of(&bad, 2, "invalid.request");
    assert!(
        e["message"].as_str().unwrap().contains("BOB_SERVE_WORKERS"),
        "{e}"
    );
    std::fs::write(
        env.home().join("config.toml"),
        "[serve]\nbind = \"nowhere\"\n",
    )
    .unwrap();
    let e = env.fails(&["serve"], "", 2, "invalid.request");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("config.toml serve.bind"),
        "{e}"
    );
    // A non-loopback address from the settings still needs the --public flag.
    std::fs::write(
        env.home().join("config.toml"),
        "[serve]\nbind = \"0.0.0.0:0\"\n",
    )
    .unwrap();
    env.fails(&["serve"], "", 3, "policy.denied");
}

/// Every number the server runs with is checked at start: a value it cannot run with (a chat
/// rate of 0 would leave no room in a sender's window; a drain of 10^19 s overflows the clock)
/// stops `bob serve` with `invalid.request` naming the setting and where the value came from,
/// before anything listens. The edges of each range still start.
#[test]
fn serve_refuses_every_out_of_range_option_naming_the_setting() {
    let env = TestEnv::new();
    // (flags, variables, the setting named, where its value came from)
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str, &'a str);
    let cases: &[Case] = &[
        (&["--chat-rate", "0"], &[], "serve.chat_rate", "--chat-rate"),
        (
            &["--chat-rate", "4294967296"],
            &[],
            "serve.chat_rate",
            "--chat-rate",
        ),
        (&["--workers", "257"], &[], "serve.workers", "--workers"),
        (&["--queue", "0"], &[], "serve.queue", "--queue"),
        (&["--max-body", "1023"], &[], "serve.max_body", "--max-body"),
        (
            &["--request-timeout", "0.5"],
            &[],
            "serve.request_timeout_s",
            "--request-timeout",
        ),
        (
            &["--drain-timeout", "1e19"],
            &[],
            "serve.drain_timeout_s",
            "--drain-timeout",
        ),
        (
            &[],
            &[("BOB_SERVE_RUN_RATE", "4294967296")],
            "serve.run_rate",
            "BOB_SERVE_RUN_RATE",
        ),
        (
            &[],
            &[("BOB_SERVE_MAX_CONNECTIONS", "0")],
            "serve.max_connections",
            "BOB_SERVE_MAX_CONNECTIONS",
        ),
        (
            &[],
            &[("BOB_SERVE_MAX_CONNECTIONS", "1048577")],
            "serve.max_connections",
            "BOB_SERVE_MAX_CONNECTIONS",
        ),
        (
            &[],
            &[("BOB_SERVE_MAX_CONNECTIONS_PER_IP", "0")],
            "serve.max_connections_per_ip",
            "BOB_SERVE_MAX_CONNECTIONS_PER_IP",
        ),
        (
            &[],
            &[("BOB_SERVE_HEADER_TIMEOUT", "0.05")],
            "serve.header_timeout_s",
            "BOB_SERVE_HEADER_TIMEOUT",
        ),
        (
            &[],
            &[("BOB_SERVE_SSE_MAX", "0.5")],
            "serve.sse_max_s",
            "BOB_SERVE_SSE_MAX",
        ),
        (
            &[],
            &[("BOB_SERVE_SSE_MAX", "31536001")],
            "serve.sse_max_s",
            "BOB_SERVE_SSE_MAX",
        ),
    ];
    for (flags, vars, setting, from) in cases {
        let mut args = vec!["serve", "--bind", "127.0.0.1:0"];
        args.extend_from_slice(flags);
        let mut cmd = env.bob(&args);
        for (k, v) in *vars {
            cmd.env(k, v);
        }
        let out = cmd.timeout(Duration::from_secs(20)).output().unwrap();
        assert!(out.stdout.is_empty(), "{flags:?} {vars:?} listened");
        let e = crate::env::error_of(&out, 2, "invalid.request");
        assert_eq!(e["details"]["setting"], *setting, "{flags:?} {vars:?}: {e}");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains(setting) && message.contains(from), "{e}");
    }
    // From config.toml, the error names the file's key.
    env.json(&["init"], "");
    std::fs::write(env.home().join("config.toml"), "[serve]\nchat_rate = 0\n").unwrap();
    let e = env.fails(
        &["serve", "--bind", "127.0.0.1:0"],
        "",
        2,
        "invalid.request",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("config.toml serve.chat_rate must be"),
        "{e}"
    );
    std::fs::remove_file(env.home().join("config.toml")).unwrap();
    // The least of each range (and a run rate of 0: no limit) is a server that starts.
    let backend = replay(&env, "x");
    let srv = Server::start_env(
        &env,
        &[
            "--backend",
            &backend,
            "--chat-rate",
            "1",
            "--workers",
            "1",
            "--queue",
            "1",
            "--max-body",
            "1024",
            "--request-timeout",
            "1",
            "--drain-timeout",
            "0.01",
        ],
        &[
            ("BOB_SERVE_RUN_RATE", "0"),
            ("BOB_SERVE_MAX_CONNECTIONS", "1"),
            ("BOB_SERVE_MAX_CONNECTIONS_PER_IP", "1"),
            ("BOB_SERVE_HEADER_TIMEOUT", "0.1"),
            ("BOB_SERVE_SSE_MAX", "1"),
        ],
    );
    assert_eq!(srv.ready["workers"], 1, "{}", srv.ready);
    assert_eq!(srv.ready["queue"], 1, "{}", srv.ready);
}

#[test]
fn bob_turn_writes_a_run_bundle_that_bob_runs_reads() {
    let env = TestEnv::new();
    let backend = replay(&env, "from the cli");
    let rec = env.json(&["turn", "--backend", &backend, "--session", "s1"], "hello");
    let id = rec["run_id"].as_str().unwrap();
    let shown = env.json(&["runs", "show", id], "");
    assert_eq!(shown["record"], rec);
    assert_eq!(shown["request"]["source"], "cli");
    assert_eq!(shown["request"]["message"], "hello");
    let types: Vec<&str> = shown["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"run.created"));
    assert_eq!(types.last(), Some(&"run.completed"));
    let listed = env.jsonl(&["runs", "list"], "");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["status"], "completed");
    env.fails(&["runs", "show", "../../etc"], "", 2, "invalid.request");
    env.fails(&["runs", "show", "run_missing"], "", 4, "not_found");
}

#[test]
fn a_secret_canary_never_appears_in_any_answer_stream_or_bundle() {
    let env = TestEnv::new();
    let tok = token(&env);
    let cli_canary = "canary-from-the-cli-9f3e";
    let api_canary = "canary-from-the-api-7a1c";
    env.json(&["secrets", "set", "cli_canary"], cli_canary);
    // The model repeats both canaries.
    let backend = replay(&env, &format!("here: {cli_canary} and {api_canary}"));
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let set = post(
        a,
        "/api/admin/secrets",
        &tok,
        &json!({"name": "api_canary", "value": api_canary}),
    );
    assert_eq!(set.status, 201);
    let mut seen = String::from_utf8_lossy(&set.body).into_owned();
    post(
        a,
        "/api/admin/secrets",
        &tok,
        &json!({"name": "../bad", "value": api_canary}),
    )
    .error(400, "invalid.request");
    post(
        a,
        "/api/admin/secrets",
        &tok,
        &json!({"name": "x", "value": "short"}),
    )
    .error(400, "invalid.request");
    let listed = get(a, "/api/admin/secrets", &tok).json();
    let names: Vec<&str> = listed["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["api_canary", "cli_canary"]);
    seen.push_str(&listed.to_string());
    // Through every run route, and echoed in an error.
    let id = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": format!("use {cli_canary} {api_canary}")}),
    );
    let run = wait_run(a, &tok, &id, status_is("completed"));
    assert!(
        run["output"].as_str().unwrap().contains("[REDACTED]"),
        "{run}"
    );
    seen.push_str(&run.to_string());
    seen.push_str(&String::from_utf8_lossy(&get(a, "/v1/runs", &tok).body));
    seen.push_str(&String::from_utf8_lossy(
        &get(a, &format!("/v1/runs/{id}/events"), &tok).body,
    ));
    let refused = post(
        a,
        "/v1/runs",
        &tok,
        &json!({"agent_id": api_canary, "message": "x"}),
    );
    refused.error(400, "invalid.request");
    seen.push_str(&String::from_utf8_lossy(&refused.body));
    seen.push_str(&env.json(&["runs", "show", &id], "").to_string());
    for c in [cli_canary, api_canary] {
        assert!(!seen.contains(c), "{c} leaked: {seen}");
        for dir in ["runs", "audit", "serve"] {
            for f in crate::support::files_under(&env.home().join(dir)) {
                let bytes = std::fs::read(&f).unwrap();
                if let Some(i) = bytes.windows(c.len()).position(|w| w == c.as_bytes()) {
                    let lo = i.saturating_sub(300);
                    panic!(
                        "{c} in {}: {}",
                        f.display(),
                        String::from_utf8_lossy(&bytes[lo..(i + 100).min(bytes.len())])
                    );
                }
            }
        }
    }
}

#[test]
fn admin_apis_drive_the_scheduler_and_memory_approvals_as_the_cli_does() {
    let env = TestEnv::new();
    let (tok, tok_id) = token_and_id(&env);
    let backend = replay(&env, "fine");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let id = create(a, &tok, json!({"agent_id": "a", "message": "hi"}));
    wait_run(a, &tok, &id, status_is("completed"));
    let st = get(a, "/api/admin/status", &tok).json();
    assert_eq!(st["runs"]["by_status"]["completed"], 1, "{st}");
    assert_eq!(st["runs"]["recent"][0]["id"], id.as_str());
    assert_eq!(st["backend"]["provider"], "replay");
    req(a, "GET", "/api/admin/status", None, None).error(401, "policy.denied");

    // Scheduler jobs: the same jobs.json `bob schedule` reads.
    let job = json!({"id": "daily", "agent_id": "a", "schedule": "@every 1h", "message": "report"});
    let r = post(a, "/api/admin/scheduler/jobs", &tok, &job);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    post(a, "/api/admin/scheduler/jobs", &tok, &job).error(409, "conflict");
    post(
        a,
        "/api/admin/scheduler/jobs",
        &tok,
        &json!({"id": "c", "schedule": "*/5 * * * *"}),
    )
    .error(400, "invalid.request");
    post(
        a,
        "/api/admin/scheduler/jobs",
        &tok,
        &json!({"schedule": "@every 1h"}),
    )
    .error(400, "invalid.request");
    let cli = env.json(&["schedule", "show", "daily"], "");
    assert_eq!(cli["message"], "report");
    let r = post(
        a,
        "/api/admin/scheduler/control",
        &tok,
        &json!({"action": "pause"}),
    );
    assert_eq!(r.json()["paused"], true);
    assert_eq!(
        get(a, "/api/admin/scheduler/jobs", &tok).json()["paused"],
        true
    );
    assert_eq!(env.json(&["schedule", "status"], "")["paused"], true);
    post(
        a,
        "/api/admin/scheduler/control",
        &tok,
        &json!({"action": "resume"}),
    );
    let r = post(
        a,
        "/api/admin/scheduler/control",
        &tok,
        &json!({"action": "pause", "job_id": "daily"}),
    );
    assert_eq!(r.json()["job"]["enabled"], false);
    post(
        a,
        "/api/admin/scheduler/control",
        &tok,
        &json!({"action": "explode"}),
    )
    .error(400, "invalid.request");
    post(
        a,
        "/api/admin/scheduler/control",
        &tok,
        &json!({"action": "pause", "job_id": "nope"}),
    )
    .error(404, "not_found");
    let r = req(
        a,
        "DELETE",
        "/api/admin/scheduler/jobs/daily",
        Some(&tok),
        None,
    );
    assert_eq!(r.status, 200);
    req(
        a,
        "DELETE",
        "/api/admin/scheduler/jobs/daily",
        Some(&tok),
        None,
    )
    .error(404, "not_found");
    assert_eq!(
        get(a, "/api/admin/scheduler/jobs", &tok).json()["jobs"],
        json!([])
    );

    // Memory candidates: approve, edit, reject, recorded in the ledger as the token's act.
    let rows = env.jsonl(
        &["memory", "propose"],
        r#"[{"text":"The user prefers metric units everywhere","type":"preference"},
            {"text":"The user owns a grey cat named Pixel","type":"fact"},
            {"text":"The user dislikes cilantro in salsa","type":"preference"}]"#,
    );
    let ids: Vec<String> = rows
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let pending = get(a, "/api/admin/memory/candidates?status=pending", &tok).json();
    assert_eq!(pending["candidates"].as_array().unwrap().len(), 3);
    let path = |id: &str, act: &str| format!("/api/admin/memory/candidates/{id}/{act}");
    let r = req(a, "POST", &path(&ids[0], "approve"), Some(&tok), None);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    req(a, "POST", &path(&ids[0], "approve"), Some(&tok), None).error(409, "conflict");
    let r = post(
        a,
        &path(&ids[1], "edit"),
        &tok,
        &json!({"fields": {"text": "The user owns a cat named Pixel"}}),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    post(
        a,
        &path(&ids[2], "edit"),
        &tok,
        &json!({"text": "no fields"}),
    )
    .error(400, "invalid.request");
    let r = post(
        a,
        &path(&ids[2], "reject"),
        &tok,
        &json!({"reason": "not useful"}),
    );
    assert_eq!(r.status, 200);
    req(a, "POST", &path("cand_nope", "approve"), Some(&tok), None).error(404, "not_found");
    req(a, "POST", &path(&ids[0], "detonate"), Some(&tok), None).error(404, "not_found");
    assert_eq!(
        get(a, "/api/admin/memory/candidates?status=pending", &tok).json()["candidates"],
        json!([])
    );
    let ledger = std::fs::read_to_string(env.home().join("memory_approvals.jsonl")).unwrap();
    assert_eq!(
        ledger.matches(&format!("http:{tok_id}")).count(),
        3,
        "{ledger}"
    );
    let verify = env.bob(&["ledger", "verify"]).output().unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
}

#[test]
fn admin_config_blanks_credentials_validates_and_writes_atomically() {
    let env = TestEnv::new();
    let tok = token(&env);
    std::fs::create_dir_all(env.home()).unwrap();
    let key = "sk-live-config-key-0123456789abcdef";
    std::fs::write(
        env.home().join("config.toml"),
        format!("[chat]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m1\"\napi_key = \"{key}\"\n\n[mtg]\napi_key = \"secret:mtg\"\n"),
    )
    .unwrap();
    let backend = replay(&env, "x");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let r = get(a, "/api/admin/config", &tok);
    assert!(!String::from_utf8_lossy(&r.body).contains(key));
    let mut cfg = r.json()["config"].clone();
    assert_eq!(cfg["chat"]["api_key"], "");
    assert_eq!(cfg["chat"]["model"], "m1");
    // Every answer passes the redactor, which masks any field named like a credential.
    assert_eq!(cfg["mtg"]["api_key"], "[REDACTED]");
    // Change the model and the thinking default; the blank key keeps the stored one.
    cfg["chat"]["model"] = json!("m2");
    cfg["output"] = json!({"thinking_mode": "on_error"});
    let r = post(a, "/api/admin/config", &tok, &json!({"config": cfg}));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert!(!String::from_utf8_lossy(&r.body).contains(key));
    let text = std::fs::read_to_string(env.home().join("config.toml")).unwrap();
    assert!(
        text.contains("m2") && text.contains(key) && text.contains("on_error"),
        "{text}"
    );
    assert!(
        text.contains("secret:mtg"),
        "a masked reference is kept: {text}"
    );
    // Invalid configs are refused and the file is untouched.
    for bad in [
        json!({"config": {"chat": {"modle": "typo"}}}),
        json!({"config": {"output": {"thinking_mode": "sometimes"}}}),
        json!({"config": {"chat": {"model": 5}}}),
        json!({"config": "not an object"}),
        json!({"chat": {}}),
    ] {
        post(a, "/api/admin/config", &tok, &bad).error(400, "invalid.request");
    }
    assert_eq!(
        std::fs::read_to_string(env.home().join("config.toml")).unwrap(),
        text
    );
    assert!(
        std::fs::read_dir(env.home().join("serve"))
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with("tmp-")),
        "scratch dirs are removed"
    );
}

#[test]
fn the_dashboard_is_served_from_the_binary_with_a_strict_policy() {
    let env = TestEnv::new();
    let backend = replay(&env, "x");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let page = req(a, "GET", "/", None, None);
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    let csp = page.header("content-security-policy").unwrap();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    assert_eq!(
        page.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );
    let html = String::from_utf8(page.body).unwrap();
    assert!(
        html.contains("src=\"/dashboard.js\"") && !html.contains("<script>"),
        "no inline script"
    );
    let js = req(a, "GET", "/dashboard.js", None, None);
    assert_eq!(js.status, 200);
    assert!(
        js.header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    let js = String::from_utf8(js.body).unwrap();
    // It calls the authenticated API with a header, never puts the token in a URL, and
    // renders with textContent only.
    assert!(js.contains("Authorization: \"Bearer \" + token"));
    assert!(!js.contains("innerHTML") && !js.contains("?token"));
    for path in [
        "/v1/runs",
        "/api/admin/memory/candidates",
        "/api/admin/scheduler/control",
        "/api/admin/secrets",
    ] {
        assert!(js.contains(path), "{path}");
    }
    assert_eq!(req(a, "GET", "/dashboard.css", None, None).status, 200);
}

#[test]
fn slow_clients_are_cut_off_while_others_are_answered() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "x");
    let srv = Server::start(&env, &["--backend", &backend, "--request-timeout", "1"]);
    let a = srv.addr;
    // A body that never finishes: the request timeout answers 408 with an Openclawssy body.
    let mut slow = TcpStream::connect(a).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    slow.write_all(
        format!("POST /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"agent").as_bytes(),
    )
    .unwrap();
    // A head that never finishes (slowloris): the connection is closed, nothing answered.
    let mut loris = TcpStream::connect(a).unwrap();
    loris
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    loris
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a")
        .unwrap();
    // Meanwhile the server answers everyone else.
    assert_eq!(req(a, "GET", "/healthz", None, None).status, 200);
    let mut out = Vec::new();
    let _ = slow.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("\"code\":\"timeout\""), "{text}");
    let mut out = Vec::new();
    let r = loris.read_to_end(&mut out);
    assert!(r.is_ok() || out.is_empty(), "{r:?}");
    assert!(
        !String::from_utf8_lossy(&out).contains("200 OK"),
        "a partial head is never served"
    );
    // Nothing queued, server up.
    assert_eq!(get(a, "/v1/runs", &tok).json()["total"], 0);
}

#[test]
fn a_thousand_concurrent_connections_are_all_answered() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "x");
    // One client address may hold 128 connections unless told otherwise: this one holds 1,000.
    // The timeouts are the defaults: each request is sent as soon as its connection is open
    // (no client here is slow), and every answer is read only once all 1,000 are open, so a
    // loaded machine delays the answers but cannot make a client look slow.
    let srv = Server::start_env(
        &env,
        &["--backend", &backend],
        &[("BOB_SERVE_MAX_CONNECTIONS_PER_IP", "1024")],
    );
    let a = srv.addr;
    let opened = std::sync::Arc::new(std::sync::Barrier::new(20));
    let handles: Vec<_> = (0..20)
        .map(|t| {
            let tok = tok.clone();
            let opened = opened.clone();
            std::thread::spawn(move || {
                let conns: Vec<TcpStream> = (0..50)
                    .map(|k| {
                        let i = t * 50 + k;
                        let mut s = TcpStream::connect(a).unwrap();
                        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
                        let path = if i % 2 == 0 { "/healthz" } else { "/v1/runs?limit=1" };
                        s.write_all(
                            format!("GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\nConnection: close\r\n\r\n")
                                .as_bytes(),
                        )
                        .unwrap();
                        s
                    })
                    .collect();
                opened.wait();
                conns
                    .into_iter()
                    .map(|mut s| {
                        let mut out = Vec::new();
                        let _ = s.read_to_end(&mut out);
                        let head = String::from_utf8_lossy(&out);
                        head.lines().next().unwrap_or("(closed)").to_string()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let statuses: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let not_ok: Vec<&String> = statuses
        .iter()
        .filter(|l| !l.starts_with("HTTP/1.1 200"))
        .collect();
    assert!(
        not_ok.is_empty(),
        "{} of 1000 not answered 200: {:?}",
        not_ok.len(),
        &not_ok[..not_ok.len().min(5)]
    );
    assert_eq!(get(a, "/v1/runs", &tok).json()["total"], 0);
}

#[test]
fn chat_messages_run_in_persisted_sessions_with_new_resume_and_a_sender_rate() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "chat answer");
    let srv = Server::start(&env, &["--backend", &backend, "--chat-rate", "4"]);
    let a = srv.addr;
    let msg = |user: &str, text: &str| {
        post(
            a,
            "/v1/chat/messages",
            &tok,
            &json!({"user_id": user, "room_id": "dev-room",
            "agent_id": "agent_default", "message": text, "thinking_mode": "on_error"}),
        )
    };
    let r1 = msg("u1", "hello");
    assert_eq!(r1.status, 202, "{}", String::from_utf8_lossy(&r1.body));
    let v1 = r1.json();
    assert_eq!(v1["status"], "queued");
    let s1 = v1["session_id"].as_str().unwrap().to_string();
    let done = wait_run(a, &tok, v1["id"].as_str().unwrap(), status_is("completed"));
    assert_eq!(done["source"], "chat");
    assert_eq!(done["session_id"], s1.as_str());
    // The same sender and room stay in the session.
    let v2 = msg("u1", "again").json();
    assert_eq!(v2["session_id"], s1.as_str());
    wait_run(a, &tok, v2["id"].as_str().unwrap(), status_is("completed"));
    // /new answers at once with a fresh session; /resume goes back.
    let n = msg("u1", "/new");
    assert_eq!(n.status, 200);
    let s2 = n.json()["session_id"].as_str().unwrap().to_string();
    assert_ne!(s2, s1);
    assert!(n.json()["response"].is_string());
    let back = msg("u1", "/resume");
    assert_eq!(back.status, 200);
    assert_eq!(back.json()["session_id"], s1.as_str());
    // That was u1's fourth message this minute (--chat-rate 4): the fifth is refused.
    let limited = msg("u1", "too many");
    let e = limited.error(429, "chat.rate_limited");
    assert!(e["retry_after_seconds"].as_u64().unwrap() >= 1);
    assert!(limited.header("retry-after").is_some());
    // Another sender is not limited, and gets its own session.
    let other = msg("u2", "hi").json();
    assert_ne!(other["session_id"], s1.as_str());
    // Validation.
    for bad in [
        json!({"room_id": "r", "agent_id": "a", "message": "x"}),
        json!({"user_id": "u3", "room_id": "../r", "agent_id": "a", "message": "x"}),
        json!({"user_id": "u3", "room_id": "r", "agent_id": "a", "message": ""}),
        json!({"user_id": "u3", "room_id": "r", "agent_id": "a", "message": "x", "thinking_mode": "maybe"}),
    ] {
        post(a, "/v1/chat/messages", &tok, &bad).error(400, "invalid.request");
    }
    // Admin: sessions filtered and paged, messages in order with their run ids.
    let ss = get(
        a,
        "/api/admin/chat/sessions?user_id=u1&room_id=dev-room",
        &tok,
    )
    .json();
    assert_eq!(ss["total"], 2, "{ss}");
    let page = get(
        a,
        "/api/admin/chat/sessions?user_id=u1&limit=1&offset=1",
        &tok,
    )
    .json();
    assert_eq!(page["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(
        page["sessions"][0]["id"],
        s1.as_str(),
        "oldest on the second page"
    );
    let m = get(a, &format!("/api/admin/chat/sessions/{s1}/messages"), &tok).json();
    let roles: Vec<&str> = m["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"], "{m}");
    assert_eq!(m["messages"][0]["content"], "hello");
    assert_eq!(m["messages"][1]["content"], "chat answer");
    assert_eq!(m["messages"][0]["run_id"], v1["id"]);
    get(a, "/api/admin/chat/sessions/chat_nope/messages", &tok).error(404, "not_found");
    get(a, "/api/admin/chat/sessions/..%2Fx/messages", &tok).error(400, "invalid.request");
    get(a, "/api/admin/chat/sessions?limit=0", &tok).error(400, "invalid.request");
}

#[test]
fn a_scheduler_tick_leaves_a_run_bundle_for_each_job_run() {
    let env = TestEnv::new();
    let backend = replay(&env, "scheduled answer");
    env.json(
        &["schedule", "add"],
        &json!({"id": "nightly", "agentID": "agent_default", "schedule": "@every 1m", "message": "status?"}).to_string(),
    );
    let out = env
        .bob(&["schedule", "tick", "--timeout", "20s"])
        .env("BOB_NOW", "2026-02-15T00:01:00Z")
        .env("BOB_BACKEND", &backend)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ran"][0]["status"], "ok", "{report}");
    let listed = env.jsonl(&["runs", "list"], "");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["session_id"], "job-nightly");
    let shown = env.json(&["runs", "show", listed[0]["run_id"].as_str().unwrap()], "");
    assert_eq!(shown["record"]["output"], "scheduled answer");
    assert_eq!(shown["request"]["message"], "status?");
}

/// The events of the run's audit log, as `GET /v1/runs/{id}/events` streams them.
pub(crate) fn sse_events(a: SocketAddr, tok: &str, id: &str) -> Vec<Value> {
    let sse = get(a, &format!("/v1/runs/{id}/events"), tok);
    assert_eq!(sse.status, 200);
    String::from_utf8(sse.body)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

fn types_of(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_queued_or_running_run_is_cancelled_audited_and_streamed() {
    let env = TestEnv::new();
    let (tok, tok_id) = token_and_id(&env);
    // The model takes far longer than the test: only a cancel ends the running run.
    let llm = OpenAi::start(|_, _| {
        std::thread::sleep(Duration::from_secs(20));
        Reply::json(200, &openai::completion("too late"))
    });
    let srv = Server::start_on(&env, &["--workers", "1"], &llm);
    let a = srv.addr;
    let running = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "slow", "session_id": "s1"}),
    );
    wait_run(a, &tok, &running, status_is("running"));
    let queued = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "waits", "session_id": "s2"}),
    );
    // A queued run is cancelled at once and never starts.
    let r = post(a, &format!("/v1/runs/{queued}/cancel"), &tok, &json!({}));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json(), json!({"id": queued, "status": "cancelled"}));
    let v = get(a, &format!("/v1/runs/{queued}"), &tok).json();
    assert_eq!(v["status"], "cancelled");
    assert_eq!(v["error"]["code"], "run.cancelled");
    assert_eq!(v["reason"], "cancelled");
    let types = types_of(&sse_events(a, &tok, &queued));
    assert_eq!(types, ["run.created", "run.cancelled"]);
    // A running run: its turn is cut short through the cancel signal.
    let t = Instant::now();
    let r = post(a, &format!("/v1/runs/{running}/cancel"), &tok, &json!({}));
    assert_eq!(r.status, 202, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["status"], "cancelling");
    let v = wait_run(a, &tok, &running, status_is("cancelled"));
    assert!(
        t.elapsed() < Duration::from_secs(15),
        "the backend call was not dropped"
    );
    assert_eq!(v["error"]["code"], "run.cancelled");
    let events = sse_events(a, &tok, &running);
    let types = types_of(&events);
    assert_eq!(types.first().map(String::as_str), Some("run.created"));
    assert_eq!(types.last().map(String::as_str), Some("run.cancelled"));
    // Who cancelled is on the audit log: a human act by the token's caller.
    let asked = events
        .iter()
        .find(|e| e["event_type"] == "run.cancel_requested")
        .expect("run.cancel_requested is audited");
    assert_eq!(asked["actor"], format!("http:{tok_id}"), "{asked}");
    // The turn record and the bundle say cancelled; nothing was committed.
    let shown = env.json(&["runs", "show", &running], "");
    assert_eq!(shown["record"]["status"], "cancelled");
    // The bundle holds the run's events as the log does, the cancel request included (it is
    // the server's own event, not the turn's).
    assert_eq!(shown["events"], json!(events), "{shown}");
    assert_eq!(turns_with(&env, &queued), 0, "the queued run never ran");
    // A run that ended, an unknown run, a bad id, no token.
    post(a, &format!("/v1/runs/{running}/cancel"), &tok, &json!({})).error(409, "conflict");
    post(a, &format!("/v1/runs/{queued}/cancel"), &tok, &json!({})).error(409, "conflict");
    post(a, "/v1/runs/run_nope/cancel", &tok, &json!({})).error(404, "not_found");
    post(a, "/v1/runs/..%2F..%2Fetc/cancel", &tok, &json!({})).error(400, "invalid.request");
    req(a, "POST", &format!("/v1/runs/{running}/cancel"), None, None).error(401, "policy.denied");
    let verified = env.json(&["ledger", "verify", "--all"], "");
    assert!(verified.to_string().contains("true"), "{verified}");
}

#[test]
fn a_drain_requeues_a_run_that_outlasts_the_window_and_the_next_server_runs_it_once() {
    let env = TestEnv::new();
    let tok = token(&env);
    let llm = OpenAi::start(|_, _| {
        std::thread::sleep(Duration::from_secs(20));
        Reply::json(200, &openai::completion("too late"))
    });
    let mut srv = Server::start_on(&env, &["--workers", "1", "--drain-timeout", "0.3"], &llm);
    let a = srv.addr;
    let id = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "slow", "session_id": "s"}),
    );
    wait_run(a, &tok, &id, status_is("running"));
    let t = Instant::now();
    // SAFETY: kill takes no pointers; the pid is our own child, not yet reaped (waited on
    // just below), so it cannot have been reused by another process.
    unsafe { libc::kill(srv.pid(), libc::SIGTERM) };
    let status = srv.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(
        t.elapsed() < Duration::from_secs(15),
        "the drain did not cut the run short"
    );
    assert!(
        !env.home().join("runs").join(&id).exists(),
        "a re-queued attempt leaves no bundle"
    );
    let backend = replay(&env, "done now");
    let srv2 = Server::start(&env, &["--backend", &backend]);
    assert_eq!(
        srv2.ready["recovered"], 0,
        "the row was re-queued, not left running"
    );
    let v = wait_run(srv2.addr, &tok, &id, status_is("completed"));
    assert_eq!(v["output"], "done now");
    let records: Vec<Value> = std::fs::read_to_string(env.home().join("turns.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["run_id"] == id.as_str())
        .collect();
    let statuses: Vec<&str> = records
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["cancelled", "completed"],
        "the cut-short attempt is on record; the run completed once"
    );
}

#[test]
fn a_drained_and_requeued_run_that_then_crashes_ends_failed_interrupted_not_cancelled() {
    let env = TestEnv::new();
    let tok = token(&env);
    // First server: the run outlasts the drain window, is cut short and re-queued; its
    // attempt leaves a `cancelled` turn record behind.
    let slow = OpenAi::start(|_, _| {
        std::thread::sleep(Duration::from_secs(20));
        Reply::json(200, &openai::completion("too late"))
    });
    let mut srv = Server::start_on(&env, &["--workers", "1", "--drain-timeout", "0.3"], &slow);
    let id = create(
        srv.addr,
        &tok,
        json!({"agent_id": "a", "message": "slow", "session_id": "s"}),
    );
    wait_run(srv.addr, &tok, &id, status_is("running"));
    // SAFETY: kill takes no pointers; the pid is our own child, not yet reaped (waited on
    // just below), so it cannot have been reused by another process.
    unsafe { libc::kill(srv.pid(), libc::SIGTERM) };
    assert_eq!(srv.child.wait().unwrap().code(), Some(0));
    assert_eq!(
        turns_with(&env, &id),
        1,
        "the cut-short attempt is on record"
    );
    // Second server: the re-queued run starts again and the server dies under it (kill -9).
    let hang = OpenAi::start(|_, _| Reply::hang());
    let mut srv2 = Server::start_on(&env, &["--workers", "1"], &hang);
    assert_eq!(srv2.ready["recovered"], 0);
    wait_run(srv2.addr, &tok, &id, status_is("running"));
    // SAFETY: kill takes no pointers; the pid is our own child, not yet reaped (waited on
    // just below), so it cannot have been reused by another process.
    unsafe { libc::kill(srv2.pid(), libc::SIGKILL) };
    srv2.child.wait().unwrap();
    // Third server: the earlier attempt's `cancelled` record says nothing of the latest one,
    // which may have run part way: failed, interrupted, and never started again.
    let backend = replay(&env, "must not run");
    let srv3 = Server::start(&env, &["--backend", &backend]);
    assert_eq!(srv3.ready["recovered"], 1);
    let v = get(srv3.addr, &format!("/v1/runs/{id}"), &tok).json();
    assert_eq!(
        (v["status"].clone(), v["reason"].clone()),
        (json!("failed"), json!("interrupted")),
        "{v}"
    );
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(turns_with(&env, &id), 1, "the run was not started again");
    assert!(
        !env.home().join("runs").join(&id).exists(),
        "no bundle was made from the earlier attempt's record"
    );
}

#[test]
fn turbotime_is_set_per_session_through_the_admin_api_as_an_audited_human_act() {
    let env = TestEnv::new();
    let (tok, tok_id) = token_and_id(&env);
    let srv = Server::start(&env, &[]);
    let a = srv.addr;
    let path = "/api/admin/sessions/s1/turbotime";
    let v = get(a, path, &tok).json();
    assert_eq!(v["on"], false);
    assert_eq!(v["selected"], json!([]));
    assert!(
        v["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("scryfall.lookup"))
    );
    let v = post(
        a,
        path,
        &tok,
        &json!({"on": true, "select": ["scryfall.lookup", "news.headline_search"]}),
    )
    .json();
    assert_eq!(
        (v["on"].clone(), v["selected"].clone()),
        (
            json!(true),
            json!(["scryfall.lookup", "news.headline_search"])
        )
    );
    // The same effect as `bob tool turbotime on --session s1 --select …`.
    let listed = env.jsonl(&["tool", "list", "--session", "s1"], "");
    let selected: Vec<&str> = listed
        .iter()
        .filter(|t| t["turbotime_selected"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(selected, ["scryfall.lookup", "news.headline_search"]);
    let other = env.jsonl(&["tool", "list", "--session", "s2"], "");
    assert!(other.iter().all(|t| t["turbotime_selected"] != true));
    // Off keeps the selection; the CLI sees it off.
    let v = post(a, path, &tok, &json!({"on": false})).json();
    assert_eq!(v["on"], false);
    assert_eq!(v["selected"].as_array().unwrap().len(), 2);
    let listed = env.jsonl(&["tool", "list", "--session", "s1"], "");
    assert!(listed.iter().all(|t| t["turbotime_selected"] != true));
    // Each change is a human act on the audit log, with the token's caller as actor.
    let sets: Vec<Value> = env
        .audit_events("human")
        .into_iter()
        .filter(|e| e["event_type"] == "turbotime.set")
        .collect();
    assert_eq!(sets.len(), 2);
    assert!(sets.iter().all(|e| e["actor"] == format!("http:{tok_id}")));
    assert_eq!(sets[0]["payload"]["on"], true);
    assert_eq!(sets[1]["payload"]["was_on"], true);
    // Hostile input changes nothing.
    for bad in [
        json!({}),
        json!({"on": "yes"}),
        json!({"on": true, "select": "scryfall.lookup"}),
        json!({"on": true, "select": [1]}),
        json!({"on": true, "select": ["shell.exec"]}),
        json!({"on": false, "select": ["scryfall.lookup"]}),
    ] {
        post(a, path, &tok, &bad).error(400, "invalid.request");
    }
    post(
        a,
        "/api/admin/sessions/..%2Fx/turbotime",
        &tok,
        &json!({"on": true}),
    )
    .error(400, "invalid.request");
    req(a, "POST", path, None, Some(b"{\"on\":true}")).error(401, "policy.denied");
    assert_eq!(get(a, path, &tok).json()["on"], false);
    assert_eq!(
        env.audit_events("human")
            .iter()
            .filter(|e| e["event_type"] == "turbotime.set")
            .count(),
        2
    );
}

/// The dashboard in a real headless Chromium: sign in with a token, approve a memory candidate
/// and turn TURBOTIME on by clicking, see the banner; the CLI sees both effects. Saves a
/// screenshot in the test's home.
#[test]
fn the_dashboard_in_headless_chromium_approves_a_candidate_and_turns_turbotime_on() {
    use crate::support::webdriver::Browser;
    let Some(browser) = Browser::start("the_dashboard_in_headless_chromium") else {
        return;
    };
    let env = TestEnv::new();
    let (tok, tok_id) = token_and_id(&env);
    let proposed = env.jsonl(
        &["memory", "propose"],
        r#"[{"text":"The user plays mono-red burn in Modern","type":"preference"},
            {"text":"The user keeps a 60-card deck list in decks/","type":"fact"}]"#,
    );
    let cand = proposed[0]["id"].as_str().unwrap().to_string();
    let backend = replay(&env, "Bolt the bird.");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let run = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": "What should I bolt?"}),
    );
    wait_run(a, &tok, &run, status_is("completed"));

    browser.goto(&format!("http://{a}/"));
    // A wrong token is refused on the page; the right one signs in.
    browser.type_into("#token", "bob_wrong");
    browser.click("#signin-form button");
    browser.wait_for(
        "the sign-in error",
        "return document.getElementById('signin-error').textContent.includes('unknown or revoked token')",
    );
    browser.type_into("#token", &tok);
    browser.click("#signin-form button");
    browser.wait_for("the app", "return !document.getElementById('app').hidden");
    browser.wait_for(
        "the run in the list",
        &format!("return !!document.querySelector('#runs tr[data-id=\"{run}\"]')"),
    );
    // Approve the first candidate by clicking its button.
    let approve = format!("#candidates tr[data-id=\"{cand}\"] button");
    browser.click(&approve);
    browser.wait_for(
        "the approved candidate to leave the pending list",
        &format!("return !document.querySelector('#candidates tr[data-id=\"{cand}\"]')"),
    );
    let rows = env.jsonl(&["memory", "candidates"], "");
    let row = rows.iter().find(|r| r["id"] == cand.as_str()).unwrap();
    assert_eq!(row["status"], "approved", "{row}");
    let ledger = std::fs::read_to_string(env.home().join("memory_approvals.jsonl")).unwrap();
    assert!(ledger.contains(&format!("http:{tok_id}")), "{ledger}");
    // TURBOTIME for session s1: select a tool, turn it on, see the banner.
    browser.type_into("#turbo-session", "s1");
    browser.click("#turbo-load");
    browser.wait_for(
        "session s1's TURBOTIME",
        "return document.getElementById('turbo-state').textContent.startsWith('Session s1:')",
    );
    browser.click("#turbo-tools input[value=\"scryfall.lookup\"]");
    assert_eq!(
        browser.eval("return document.getElementById('turbo-banner').hidden"),
        json!(true),
        "no banner while TURBOTIME is off"
    );
    browser.click("#turbo-toggle");
    browser.wait_for(
        "the TURBOTIME banner",
        "const b = document.getElementById('turbo-banner'); \
         return !b.hidden && b.offsetHeight > 0 && b.textContent.includes('TURBOTIME is ON') \
           && b.textContent.includes('scryfall.lookup')",
    );
    let listed = env.jsonl(&["tool", "list", "--session", "s1"], "");
    let selected: Vec<&str> = listed
        .iter()
        .filter(|t| t["turbotime_selected"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(selected, ["scryfall.lookup"]);
    // The run's details, then the picture.
    browser.click(&format!("#runs tr[data-id=\"{run}\"]"));
    browser.wait_for(
        "the run's output and its live events",
        "return document.getElementById('detail-output').textContent === 'Bolt the bird.' \
           && document.querySelectorAll('#detail-events li').length >= 3",
    );
    let png = browser.screenshot();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    // docs/dashboard.png is the conversation test's picture (serve_dashboard.rs).
    std::fs::write(env.home().join("dashboard.png"), &png).unwrap();
    assert!(
        !String::from_utf8_lossy(&png).contains(&tok),
        "the token is in the picture's bytes"
    );
}

/// Pins the redactor reload: a secret stored through the API while the server runs (after a
/// run warmed every cache) is masked in the very next run's durable writes (turn record, trace,
/// bundle, audit, queue), with no restart.
#[test]
fn a_secret_stored_while_serving_is_masked_in_the_next_runs_writes_without_a_restart() {
    let env = TestEnv::new();
    let tok = token(&env);
    let canary = "canary-stored-mid-serve-5d2b";
    // The first run's two calls answer plainly; every later call repeats the canary.
    let llm = OpenAi::start(move |_, n| {
        let text = if n < 2 {
            "warm".to_string()
        } else {
            format!("the key is {canary}")
        };
        Reply::json(200, &openai::completion(&text))
    });
    let srv = Server::start_on(&env, &["--workers", "1"], &llm);
    let a = srv.addr;
    let first = create(a, &tok, json!({"agent_id": "a", "message": "warm up"}));
    let v = wait_run(a, &tok, &first, status_is("completed"));
    assert_eq!(v["output"], "warm");
    let set = post(
        a,
        "/api/admin/secrets",
        &tok,
        &json!({"name": "mid_serve", "value": canary}),
    );
    assert_eq!(set.status, 201);
    let second = create(a, &tok, json!({"agent_id": "a", "message": "again"}));
    let v = wait_run(a, &tok, &second, status_is("completed"));
    assert_eq!(v["output"], "the key is [REDACTED]", "{v}");
    assert_eq!(
        llm.requests().len(),
        4,
        "the model did see the canary-bearing turn"
    );
    let mut scanned = 0;
    for f in crate::support::files_under(&env.home()) {
        let bytes = std::fs::read(&f).unwrap();
        scanned += 1;
        assert!(
            !bytes.windows(canary.len()).any(|w| w == canary.as_bytes()),
            "{} holds the secret in clear",
            f.display()
        );
    }
    assert!(scanned > 10);
    let turns = std::fs::read_to_string(env.home().join("turns.jsonl")).unwrap();
    assert!(turns.contains("the key is [REDACTED]"), "{turns}");
}

/// Pins the server's watch of the redactor's sources (`redact::watch_sources`): a secret
/// stored by another process (`bob secrets set`, into a secrets store that did not exist when
/// the server started) and a rule file written by hand while the server runs both apply to
/// the very next run, with no restart.
#[test]
fn a_secret_or_rule_added_by_another_process_while_serving_masks_the_next_run() {
    let env = TestEnv::new();
    let tok = token(&env);
    let canary = "canary-from-the-cli-91fe";
    let llm = OpenAi::start(move |_, n| {
        let text = if n < 2 {
            "warm".to_string()
        } else {
            format!("the key is {canary}, the project is project-4711")
        };
        Reply::json(200, &openai::completion(&text))
    });
    let srv = Server::start_on(&env, &["--workers", "2"], &llm);
    let a = srv.addr;
    assert!(
        !env.home().join("secrets").exists(),
        "the secrets store exists before the test sets one"
    );
    let first = create(a, &tok, json!({"agent_id": "a", "message": "warm up"}));
    let v = wait_run(a, &tok, &first, status_is("completed"));
    assert_eq!(v["output"], "warm");
    env.json(&["secrets", "set", "from_cli"], canary);
    std::fs::write(env.home().join("redact.rules"), "project-[0-9]{4}\n").unwrap();
    let second = create(a, &tok, json!({"agent_id": "a", "message": "again"}));
    let v = wait_run(a, &tok, &second, status_is("completed"));
    assert_eq!(
        v["output"], "the key is [REDACTED], the project is [REDACTED]",
        "{v}"
    );
    let turns = std::fs::read_to_string(env.home().join("turns.jsonl")).unwrap();
    assert!(
        !turns.contains(canary) && !turns.contains("project-4711"),
        "{turns}"
    );
}

#[test]
fn the_openapi_document_is_served_without_a_token_and_names_only_served_routes() {
    let env = TestEnv::new();
    let tok = token(&env);
    let srv = Server::start(&env, &[]);
    let a = srv.addr;
    let r = req(a, "GET", "/openapi.json", None, None);
    assert_eq!(r.status, 200);
    let doc = r.json();
    assert_eq!(doc["openapi"], "3.0.3");
    let paths = doc["paths"].as_object().unwrap();
    for p in [
        "/v1/runs",
        "/v1/runs/{id}",
        "/v1/runs/{id}/events",
        "/v1/runs/{id}/cancel",
        "/v1/chat/messages",
        "/api/admin/sessions/{id}/turbotime",
        "/healthz",
    ] {
        assert!(paths.contains_key(p), "{p} missing");
    }
    assert_eq!(
        doc["paths"]["/v1/runs"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/RunRequest"
    );
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    assert!(
        schemas["RunRequest"]["required"]
            .as_array()
            .unwrap()
            .contains(&json!("agent_id"))
    );
    // Every documented operation is answered by a route (never the unknown-endpoint 404 or 405).
    let mut calls = 0;
    for (path, item) in paths {
        for method in item.as_object().unwrap().keys() {
            let concrete = path
                .replace("{id}", "run_nope")
                .replace("{action}", "approve");
            let body = (method == "post").then_some(&b"{}"[..]);
            let r = req(a, &method.to_uppercase(), &concrete, Some(&tok), body);
            let unknown =
                r.status == 404 && String::from_utf8_lossy(&r.body).contains("no such endpoint");
            assert!(
                !unknown && r.status != 405,
                "{method} {path}: {} {}",
                r.status,
                String::from_utf8_lossy(&r.body)
            );
            calls += 1;
        }
    }
    assert!(calls >= 25, "{calls}");
    // And an endpoint that does not exist is not in it.
    get(a, "/v1/nope", &tok).error(404, "not_found");
    assert!(!paths.contains_key("/v1/nope"));
}

/// Issue 23 W3: a run written before a secret was stored is served masked, by `GET
/// /v1/runs/{id}` and by its SSE stream (`text/event-stream`): every byte passes the redactor
/// current at send time, not the one current when the run was written. (The run's audit
/// events carry no message text, so the stream is checked with a rule added to the home's rule
/// file afterwards, which matches an object key of every `run.created` event.)
#[test]
fn a_secret_stored_after_a_run_was_written_is_masked_when_the_run_is_served() {
    const LATE: &str = "CNRYlateSecret9071";
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, &format!("The answer is {LATE}."));
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let id = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": format!("Is {LATE} the answer?")}),
    );
    let run = wait_run(a, &tok, &id, status_is("completed"));
    assert!(
        run.to_string().contains(LATE),
        "written before the secret: {run}"
    );
    let sse = String::from_utf8(get(a, &format!("/v1/runs/{id}/events"), &tok).body).unwrap();
    assert!(sse.contains("\"message_chars\":"), "{sse}");
    env.json(&["secrets", "set", "late"], LATE);
    std::fs::write(env.home().join("redact.rules"), "message_chars\n").unwrap();
    let served = get(a, &format!("/v1/runs/{id}"), &tok);
    let body = String::from_utf8_lossy(&served.body).into_owned();
    assert!(
        !body.contains(LATE) && body.contains("[REDACTED]"),
        "{body}"
    );
    let sse = get(a, &format!("/v1/runs/{id}/events"), &tok);
    assert_eq!(sse.status, 200);
    let text = String::from_utf8_lossy(&sse.body).into_owned();
    assert!(
        !text.contains("message_chars") && text.contains("\"[REDACTED]\":"),
        "{text}"
    );
}

#[test]
fn a_runs_answer_streams_over_its_events_masked_across_deltas() {
    let env = TestEnv::new();
    let tok = token(&env);
    let secret = "split-secret-4c1d-9e7f-a2b8";
    env.json(&["secrets", "set", "split_canary"], secret);
    let before: String = (0..60).map(|i| format!("a{i} ")).collect();
    let after: String = (0..90).map(|i| format!("b{i} ")).collect();
    let (head, tail) = secret.split_at(11);
    let pieces = [
        before.clone(),
        format!("the key is {head}"),
        format!("{tail} and then "),
        after.clone(),
    ];
    let llm = OpenAi::start(move |req, _| {
        if openai::role_of(req) != "respond" {
            return Reply::json(200, &openai::completion("plan: answer"));
        }
        assert_eq!(req.json()["stream"], true, "a served run streams");
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        Reply::sse(&openai::sse_events(&refs), Duration::from_millis(300))
    });
    let srv = Server::start_on(&env, &[], &llm);
    let a = srv.addr;
    let id = create(a, &tok, json!({"agent_id": "a", "message": "the key?"}));
    // Read while the run is in flight: the stream ends after the run's terminal event.
    let sse = get(a, &format!("/v1/runs/{id}/events"), &tok);
    let body = String::from_utf8(sse.body).unwrap();
    assert!(!body.contains(head) && !body.contains(tail), "{body}");
    let events: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let types = types_of(&events);
    let first_delta = types.iter().position(|t| t == "answer.delta");
    let done = types.iter().position(|t| t == "run.completed").unwrap();
    assert!(first_delta.is_some_and(|d| d < done), "{types:?}");
    assert!(body.contains("event: answer.delta"), "{body}");
    let streamed: String = events
        .iter()
        .filter(|e| e["event_type"] == "answer.delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(streamed.contains("the key is [REDACTED]"), "{streamed}");
    // What streamed begins the final, audited answer, which comes from the run record.
    let run = wait_run(a, &tok, &id, status_is("completed"));
    let output = run["output"].as_str().unwrap();
    assert!(output.starts_with(&streamed), "{streamed:?} / {output:?}");
    assert!(
        output.len() > streamed.len(),
        "the held-back tail comes with the record"
    );
}
