//! No secret at rest (issue 11, Deliver 3): canary secrets of many kinds go through every
//! command that writes durably (traces, state, NOTES, a whole turn with tool calls and a failing
//! tool, tool runs, memory candidates / approval / STM / import, schedule jobs, capability
//! requests, an http.get whose URL and body carry them), then every file under the home is read
//! byte-wise (memory.db with its -wal/-shm, cache/http.db included), case-insensitively: no
//! canary may be found. Each canary is unique, so a hit names its kind and its file.
//!
//! Files the user asks a tool to write inside the sandbox root (`fs.write_text`) are the user's
//! data, not bob's records: they are written as asked, and the root here lies outside the home.

use crate::TestEnv;
use crate::support::http::{Reply, TestServer};
use crate::support::openai::{OpenAi, completion, role_of, tool_calls};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One planted secret: its kind, the text it is planted in, and the secret bytes searched for.
struct Canary {
    kind: &'static str,
    planted: String,
    needle: String,
}

fn b64(s: &str) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let b = s.as_bytes();
    let mut out = String::new();
    for chunk in b.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The value of a secret-named environment variable bob runs with (masked by exact match only:
/// it is planted with no context that says secret).
const ENV_SECRET: &str = "CNRYenvValue4242";
/// The password of the backend URL.
const URL_PW: &str = "CNRYurlPw5511";

fn canaries() -> Vec<Canary> {
    let c = |kind, planted: String, needle: &str| Canary {
        kind,
        planted,
        needle: needle.to_string(),
    };
    let basic = b64("alice:CNRYbasicPw77");
    let pem_body = "MIIEowIBAAKCAQEACNRYpemBody0123456789abcdefABCDEF";
    vec![
        c(
            "openai",
            "key sk-proj-CNRYopenai0123456789abcdefXYZ".into(),
            "sk-proj-CNRYopenai0123456789abcdefXYZ",
        ),
        c(
            "anthropic",
            "anthropic sk-ant-api03-CNRYanthropic0123456789abcdefghij".into(),
            "CNRYanthropic0123456789abcdefghij",
        ),
        c(
            "github-ghp",
            "gh ghp_CNRYgithub0123456789abcdefghijklmnop".into(),
            "ghp_CNRYgithub0123456789abcdefghijklmnop",
        ),
        c(
            "github-pat",
            "pat github_pat_11CNRYpat0123456789abcdef_ghijklmnop".into(),
            "CNRYpat0123456789abcdef",
        ),
        c(
            "slack",
            "slack xoxb-CNRY-slack-1234567890-abcdef".into(),
            "CNRY-slack-1234567890",
        ),
        c(
            "aws-key-id",
            "aws AKIACNRYAWSKEY7Q2X9L here".into(),
            "AKIACNRYAWSKEY7Q2X9L",
        ),
        c(
            "aws-secret",
            "aws_secret_access_key = CNRYawsSecret/K7MDENG/bPxRfiCY99".into(),
            "CNRYawsSecret/K7MDENG",
        ),
        c(
            "google",
            "google AIzaCNRYgoogle0123456789abcdefghijklmno".into(),
            "CNRYgoogle0123456789",
        ),
        c(
            "stripe",
            "stripe sk_live_CNRYstripe0123456789abcd".into(),
            "CNRYstripe0123456789",
        ),
        c(
            "pem",
            format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{pem_body}\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n-----END RSA PRIVATE KEY-----"
            ),
            "CNRYpemBody0123456789",
        ),
        c(
            "jwt",
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJDTlJZIn0.CNRYjwtSignature0123".into(),
            "CNRYjwtSignature0123",
        ),
        c(
            "basic-auth",
            format!("Authorization: Basic {basic}"),
            basic.trim_end_matches('='),
        ),
        c(
            "bearer",
            "Authorization: Bearer CNRYbearerTok9x8y7z6".into(),
            "CNRYbearerTok9x8y7z6",
        ),
        c(
            "url-password",
            format!("db https://alice:{URL_PW}@db.example.com/x"),
            URL_PW,
        ),
        c(
            "password-free-text",
            "login with password=CNRYfreePw1 please".into(),
            "CNRYfreePw1",
        ),
        c("db-password", "DB_PASSWORD=hu7CNRY".into(), "hu7CNRY"),
        c(
            "json-in-string",
            r#"{"client":{"password":"CNRYjsonStr8"}}"#.into(),
            "CNRYjsonStr8",
        ),
        c(
            "camel-secretKey",
            "secretKey: CNRYcamel9".into(),
            "CNRYcamel9",
        ),
        c(
            "query-param",
            "GET https://api.example.com/v1?api_key=CNRYquery77&q=cats".into(),
            "CNRYquery77",
        ),
        c(
            "env-value",
            format!("the value {ENV_SECRET} alone"),
            ENV_SECRET,
        ),
    ]
}

/// Every canary in its context, one per line.
fn all_text() -> String {
    canaries()
        .iter()
        .map(|c| c.planted.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The canaries as JSON: free text, secret-named fields, JSON held in a string.
fn all_json() -> Value {
    json!({
        "text": all_text(),
        "lines": canaries().iter().map(|c| c.planted.clone()).collect::<Vec<_>>(),
        "secretKey": "CNRYcamel9",
        "config": r#"{"client":{"password":"CNRYjsonStr8"}}"#,
    })
}

/// One-line canaries that can be part of a file name (no `/`, no newline).
fn path_safe() -> Vec<String> {
    canaries()
        .iter()
        .filter(|c| !c.planted.contains('/') && !c.planted.contains('\n'))
        .map(|c| c.planted.clone())
        .collect()
}

/// `bob ARGS` with the canary environment (a secret-named variable, a backend URL with a
/// password); expects success.
fn run(env: &TestEnv, args: &[&str], stdin: &str, extra: &[(&str, &str)]) -> Vec<u8> {
    let mut cmd = env.bob(args);
    cmd.env("BOB_CANARY_API_KEY", ENV_SECRET);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = cmd.write_stdin(stdin).output().unwrap();
    assert!(
        out.status.success(),
        "bob {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn no_canary_secret_is_at_rest_anywhere_in_the_home() {
    let env = TestEnv::new();
    let root = env.path("workspace");
    std::fs::create_dir_all(&root).unwrap();
    let text = all_text();
    let data = all_json();

    // Traces: one event with --data, two from JSON Lines on stdin.
    run(
        &env,
        &[
            "trace",
            "emit",
            "--session",
            "cn",
            "--kind",
            "canary.test",
            "--data",
            &data.to_string(),
        ],
        "",
        &[],
    );
    let lines = format!(
        "{}\n{}\n",
        json!({"kind": "canary.text", "data": {"note": text}}),
        json!({"kind": "canary.json", "data": data})
    );
    run(&env, &["trace", "emit", "--session", "cn"], &lines, &[]);

    // State and NOTES (checkpoint), capability requests.
    let state = json!({"goals": [text], "episode_summary": text, "open_loops": path_safe(),
        "decisions": [data.to_string()]});
    run(
        &env,
        &["state", "set", "--session", "cn"],
        &state.to_string(),
        &[],
    );
    let notes = json!({"add_decisions": [text], "add_constraints": path_safe(),
        "set_episode_summary": data.to_string(),
        "actions": ["request_permission:net:https://alice:CNRYcapsPw@example.com"]});
    run(
        &env,
        &["notes", "apply", "--session", "cn"],
        &notes.to_string(),
        &[],
    );
    let caps_out = env
        .bob(&[
            "caps",
            "request",
            "--session",
            "cn",
            "net:api.example.com?token=CNRYcapsTok1",
        ])
        .output()
        .unwrap();
    let _ = caps_out; // a malformed capability may be refused; whatever it writes is checked.

    // A whole turn: the backend URL carries a password, the API key is a secret-named variable,
    // the replies carry every canary (answer, NOTES, memory candidates) and the respond role
    // calls tools whose arguments carry them and which fail (errors, failure_loop.json).
    let reply_text = format!(
        "Here: {text}\n<<<NOTES_JSON>>>{}<<<END_NOTES_JSON>>>\n<<<MEMORY_CANDIDATES_JSON>>>{}<<<END_MEMORY_CANDIDATES_JSON>>>",
        json!({"add_decisions": [text], "add_open_loops": path_safe()}),
        json!([{"text": text, "type": "fact", "tags": ["canary"], "why_store": data.to_string()}]),
    );
    let calls: Vec<(String, String, String)> = path_safe()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (
                format!("c{i}"),
                "fs.read_text".to_string(),
                json!({"path": format!("missing {p}.txt")}).to_string(),
            )
        })
        .collect();
    let srv = OpenAi::start(move |req, _| {
        let has_tool = req.json()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool");
        if role_of(req) == "respond" && !has_tool {
            let c: Vec<(&str, &str, &str)> = calls
                .iter()
                .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
                .collect();
            Reply::json(200, &tool_calls(&c))
        } else {
            Reply::json(200, &completion(&reply_text))
        }
    });
    let base = srv
        .base_url()
        .replace("http://", &format!("http://alice:{URL_PW}@"));
    run(
        &env,
        &["tool", "enable", "--session", "cn", "fs.read_text"],
        "",
        &[],
    );
    let root_s = root.display().to_string();
    let turn_env = [
        ("BOB_CHAT_BASE_URL", base.as_str()),
        ("BOB_CHAT_API_KEY", "sk-proj-CNRYopenai0123456789abcdefXYZ"),
        ("BOB_CHAT_MODEL", "test-model"),
        ("BOB_TOOL_SANDBOX_ENABLED", "1"),
        ("BOB_TOOL_ROOTS", root_s.as_str()),
    ];
    let msg = format!("please remember {text}");
    // Every call fails (missing files), so the failure loop escalates: an incomplete turn
    // (exit 7) that still wrote its record, history, audit and trace.
    let mut cmd = env.bob(&["turn", "--session", "cn"]);
    cmd.env("BOB_CANARY_API_KEY", ENV_SECRET).envs(turn_env);
    let out = cmd.write_stdin(msg.as_str()).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 7)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        rec["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "{rec}"
    );
    assert!(
        !srv.requests().is_empty(),
        "the turn reached the backend through the URL with a password"
    );

    // Tool runs: failing calls whose arguments carry the canaries, and a write into the sandbox
    // root (user data, outside the home).
    let mut tool_calls_in: Vec<Value> = path_safe()
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"id": format!("r{i}"), "tool": "fs.read_text", "args": {"path": format!("nope {p}")}}))
        .collect();
    tool_calls_in.push(
        json!({"id": "w", "tool": "fs.write_text", "args": {"path": "notes.txt", "text": text}}),
    );
    run(
        &env,
        &[
            "tool",
            "run",
            "--session",
            "cn",
            "--root",
            &root_s,
            "--enable-all",
        ],
        &Value::Array(tool_calls_in).to_string(),
        &[],
    );

    // Memory: a candidate proposed and approved (ledger, LTM), STM, a markdown import.
    // (`source` is an enum now: the URL with a password goes in the free-text title.)
    let cand = json!({"text": text, "type": "fact", "tags": ["canary"], "why_store": data.to_string(),
        "title": "https://alice:CNRYurlPw5511@example.com/src"});
    let proposed: Value =
        serde_json::from_slice(&run(&env, &["memory", "propose"], &cand.to_string(), &[])).unwrap();
    let id = proposed["candidates"][0]["id"]
        .as_str()
        .or_else(|| proposed[0]["id"].as_str())
        .or_else(|| proposed["id"].as_str())
        .unwrap_or_else(|| panic!("candidate id in {proposed}"))
        .to_string();
    // Approved with an edit: the edited candidate goes into the ledger record too.
    let edit = json!({"text": format!("edited: {text}")}).to_string();
    run(&env, &["memory", "approve", &id, "--edit", &edit], "", &[]);
    let stm = json!({"intent": "canaries", "resolution": text, "open_questions": [], "tools_used": ["fs.read_text"],
        "entities": path_safe()});
    run(
        &env,
        &["memory", "stm", "add", "--session", "cn"],
        &stm.to_string(),
        &[],
    );
    // The import's source path (in its ledger record) names a secret too.
    let md = env.write(
        "import/token=CNRYimportTok5/canaries.md",
        &format!("# Canaries\n\n{text}\n"),
    );
    run(&env, &["memory", "import", md.to_str().unwrap()], "", &[]);

    // A schedule job whose message carries them.
    let job = json!({"id": "canary-job", "schedule": "@every 1h", "message": text});
    run(&env, &["schedule", "add"], &job.to_string(), &[]);

    let (files, stores, hits, kinds) = scan(&env.home());
    // The secrets did reach each store (masked): the cells are real.
    for want in [
        "traces/cn.jsonl",
        "turns.jsonl",
        "sessions/cn/checkpoint.json",
        "sessions/cn/failure_loop.json",
        "memory_approvals.jsonl",
        "schedule/jobs.json",
    ] {
        assert!(
            stores.contains(want),
            "{want} holds no [REDACTED]: {stores:?}"
        );
    }
    assert!(stores.iter().any(|s| s.starts_with("audit/")), "{stores:?}");
    assert!(
        stores.iter().any(|s| s.starts_with("memory.db")),
        "{stores:?}"
    );
    // The user's own file in the sandbox root is written as asked (outside the home).
    assert!(
        std::fs::read_to_string(root.join("notes.txt"))
            .unwrap()
            .contains("CNRYfreePw1")
    );
    eprintln!(
        "canary: {kinds} kinds x {} files ({} holding [REDACTED]: {stores:?}): {} found",
        files.len(),
        stores.len(),
        hits.len()
    );
    assert!(hits.is_empty(), "canaries at rest:\n{}", hits.join("\n"));
}

/// Every file under `home`, read byte-wise and case-insensitively for every canary: the files,
/// the files holding `[REDACTED]`, the hits (`kind in file`) and the number of kinds searched.
fn scan(home: &Path) -> (Vec<PathBuf>, BTreeSet<String>, Vec<String>, usize) {
    let files = crate::support::files_under(home);
    let mut needles: Vec<(String, String)> = canaries()
        .into_iter()
        .map(|c| (c.kind.to_string(), c.needle))
        .collect();
    needles.extend(
        [
            ("caps-url-password", "CNRYcapsPw"),
            ("caps-query-token", "CNRYcapsTok1"),
            ("http-query-token", "CNRYhttpTok3"),
            ("http-query-sig", "CNRYhttpSig4"),
            ("import-path-token", "CNRYimportTok5"),
        ]
        .map(|(k, n)| (k.to_string(), n.to_string())),
    );
    let mut hits = Vec::new();
    let mut stores = BTreeSet::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap().to_ascii_lowercase();
        let rel = f.strip_prefix(home).unwrap().display().to_string();
        for (kind, needle) in &needles {
            let n = needle.to_ascii_lowercase();
            if bytes.windows(n.len()).any(|w| w == n.as_bytes()) {
                hits.push(format!("{kind} in {rel}"));
            }
        }
        if bytes.windows(10).any(|w| w == b"[redacted]") {
            stores.insert(rel);
        }
    }
    (files, stores, hits, needles.len())
}

/// The HTTP cache cell: http.get of a loopback URL whose query carries secrets and whose body
/// carries every canary; the cache (bodies and URL keys) and every other file then hold none.
#[test]
fn http_cache_holds_no_canary() {
    let env = TestEnv::new();
    let text = all_text();
    let body_text = text.clone();
    let web = TestServer::start(move |_, _| {
        Reply::new(200, body_text.clone()).header("Content-Type", "text/plain")
    });
    run(
        &env,
        &["caps", "grant", "--session", "cn", "net:127.0.0.1"],
        "",
        &[],
    );
    let url = web.url("/data?api_key=CNRYquery77&token=CNRYhttpTok3&sig=CNRYhttpSig4");
    let call = json!([{"id": "h", "tool": "http.get", "args": {"url": url}}]).to_string();
    for _ in 0..2 {
        let out = run(
            &env,
            &[
                "tool",
                "run",
                "--session",
                "cn",
                "--enable-all",
                "--allow-loopback",
            ],
            &call,
            &[],
        );
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["ok"], true, "{v}");
    }
    assert!(!web.requests().is_empty());
    let (files, _, hits, kinds) = scan(&env.home());
    assert!(
        files.iter().any(|f| f.ends_with("cache/http.db")),
        "the http cache was written"
    );
    eprintln!(
        "canary (http cache): {kinds} kinds x {} files: {} found",
        files.len(),
        hits.len()
    );
    assert!(hits.is_empty(), "canaries at rest:\n{}", hits.join("\n"));
}
