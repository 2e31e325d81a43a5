//! Redaction sees what is written (issue 23, W3 and L2-L4): a stored secret holding `"` and
//! `\` used as an object key and read back by tools (JSON-escaped in `checkpoint.json`, cut by
//! the failure loop's 400-character snippets and the history's excerpts), a PEM key whose END
//! line is missing, a URL-encoded `DB_PASSWORD%3D…`, a password said in prose and a private
//! key's bare base64 body, through `bob trace emit`, `bob tool run --session` and a whole
//! `bob turn`; then every file of the home is read byte-wise: none of them may be found.

use crate::TestEnv;
use crate::support::http::Reply;
use crate::support::openai::{OpenAi, completion, role_of, tool_calls};
use serde_json::{Value, json};
use std::path::Path;

/// The stored secret: a `"` and a `\` make its JSON-escaped form differ from it.
const SECRET: &str = r#"CNRYesc7"qt\bs-9931zz"#;
/// Parts of it that a leak (whole, escaped or cut) shows.
const SECRET_PARTS: [&str; 2] = ["CNRYesc7", "9931zz"];
const URL_PW: &str = "CNRYurlenc42";
const PROSE_PW: &str = "CNRYprose5x";
const KEY_BODY: &str = "CNRYkeyBody";
const PEM_BODY: &str = "CNRYpemCut";

/// Five lines of a private key's base64 body, as `sed -n 2,6p id_ed25519` prints them.
fn key_lines() -> String {
    (0..5)
        .map(|i| {
            let line = format!("QUFBQUFBQ{i}{KEY_BODY}{}", "xY7zQ9pL".repeat(9));
            line[..70].to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A PEM private key whose END line is gone, longer than any snippet or excerpt.
fn cut_pem() -> String {
    let body: String = (0..24)
        .map(|i| {
            format!(
                "MIIEpAIBAAKCAQEA{PEM_BODY}{i:02}{}\n",
                "aB3dE5gH7jK9".repeat(4)
            )
        })
        .collect();
    format!("-----BEGIN RSA PRIVATE KEY-----\n{body}")
}

/// A tool's view of the leaks.
fn leak_text() -> String {
    format!(
        "stored secret: {SECRET}\n\
         callback https://example.com/cb?next=%2Fx%3FDB_PASSWORD%3D{URL_PW}%26q%3D1\n\
         fyi my password is {PROSE_PW} thanks\n\
         {}\n\
         {}",
        key_lines(),
        cut_pem()
    )
}

/// The secret again and again, so that any cut of the text falls inside one of them.
fn repeated_secret() -> String {
    vec![SECRET; 60].join(" ")
}

fn needles() -> Vec<&'static str> {
    let mut n = SECRET_PARTS.to_vec();
    n.extend([URL_PW, PROSE_PW, KEY_BODY, PEM_BODY]);
    n
}

/// (hits as `needle in file`, files holding `[REDACTED]`).
fn scan(home: &Path) -> (Vec<String>, Vec<String>) {
    let files = crate::support::files_under(home);
    let (mut hits, mut masked) = (Vec::new(), Vec::new());
    for f in &files {
        let bytes = std::fs::read(f).unwrap().to_ascii_lowercase();
        let rel = f.strip_prefix(home).unwrap().display().to_string();
        for n in needles() {
            let n = n.to_ascii_lowercase();
            if bytes.windows(n.len()).any(|w| w == n.as_bytes()) {
                hits.push(format!("{n} in {rel}"));
            }
        }
        if bytes.windows(10).any(|w| w == b"[redacted]") {
            masked.push(rel);
        }
    }
    (hits, masked)
}

fn ok(env: &TestEnv, args: &[&str], stdin: &str, extra: &[(&str, &str)]) -> Vec<u8> {
    let out = env
        .bob(args)
        .envs(extra.iter().copied())
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bob {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn secrets_in_keys_escaped_cut_encoded_prose_and_bare_key_bodies_are_not_at_rest() {
    let env = TestEnv::new();
    let root = env.path("workspace");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("leak.txt"), leak_text()).unwrap();
    std::fs::write(root.join("cut.txt"), repeated_secret()).unwrap();
    std::fs::write(root.join("pem.txt"), cut_pem()).unwrap();
    ok(&env, &["secrets", "set", "canary"], SECRET, &[]);

    // A secret as an object key, and as a key of JSON held in a string.
    let keyed = json!({SECRET: {"v": 1}, "args": json!({SECRET: "x", "note": "fine"}).to_string(),
        "prose": format!("my password is {PROSE_PW}")});
    ok(
        &env,
        &[
            "trace",
            "emit",
            "--session",
            "rd",
            "--kind",
            "redact.keys",
            "--data",
            &keyed.to_string(),
        ],
        "",
        &[],
    );

    // Tool runs: the outputs carry every leak, and their first 400 characters become the
    // failure loop's snippets (cut.txt: the cut falls inside a secret); the arguments carry
    // the secret as a key.
    let root_s = root.display().to_string();
    let calls = json!([
        {"id": "r1", "tool": "fs.read_text", "args": {"path": "leak.txt"}},
        {"id": "r2", "tool": "fs.read_text", "args": {"path": "cut.txt"}},
        {"id": "r3", "tool": "fs.read_text", "args": {"path": "pem.txt"}},
        {"id": "r4", "tool": "fs.read_text", "args": {"path": "nope.txt", SECRET: 1}},
    ]);
    ok(
        &env,
        &[
            "tool",
            "run",
            "--session",
            "rd",
            "--root",
            &root_s,
            "--enable-all",
        ],
        &calls.to_string(),
        &[],
    );

    // A turn: the model reads both files (tool messages in checkpoint.json hold the output as
    // JSON-escaped text, cut to an excerpt), and a call with the secret as an argument's key.
    let read =
        |id: &str, args: Value| (id.to_string(), "fs.read_text".to_string(), args.to_string());
    let turn_calls = [
        read("c1", json!({"path": "leak.txt"})),
        read("c2", json!({"path": "cut.txt"})),
        read("c3", json!({"path": "pem.txt"})),
        read("c4", json!({"path": "nope.txt", SECRET: true})),
    ];
    let srv = OpenAi::start(move |req, _| {
        let has_tool = req.json()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool");
        if role_of(req) == "respond" && !has_tool {
            let c: Vec<(&str, &str, &str)> = turn_calls
                .iter()
                .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
                .collect();
            Reply::json(200, &tool_calls(&c))
        } else {
            Reply::json(200, &completion("Read them."))
        }
    });
    ok(
        &env,
        &["tool", "enable", "--session", "rd", "fs.read_text"],
        "",
        &[],
    );
    let base = srv.base_url();
    let out = env
        .bob(&["turn", "--session", "rd"])
        .envs([
            ("BOB_CHAT_BASE_URL", base.as_str()),
            ("BOB_CHAT_MODEL", "test-model"),
            ("BOB_TOOL_SANDBOX_ENABLED", "1"),
            ("BOB_TOOL_ROOTS", root_s.as_str()),
        ])
        .write_stdin("read the files")
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 7)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        rec["tools"].as_array().is_some_and(|t| t.len() == 4),
        "{rec}"
    );

    let (hits, masked) = scan(&env.home());
    assert!(hits.is_empty(), "secrets at rest:\n{}", hits.join("\n"));
    for want in [
        "traces/rd.jsonl",
        "sessions/rd/checkpoint.json",
        "sessions/rd/failure_loop.json",
        "turns.jsonl",
    ] {
        assert!(
            masked.iter().any(|m| m == want),
            "{want} holds no [REDACTED]: {masked:?}"
        );
    }
    assert!(masked.iter().any(|m| m.starts_with("audit/")), "{masked:?}");
    // The user's own file is untouched.
    assert!(
        std::fs::read_to_string(root.join("leak.txt"))
            .unwrap()
            .contains(URL_PW)
    );
}
