//! Issue 23 L2, L3, L4, W3: redaction sees what is written. Secrets that reach a store only in
//! an escaped or encoded form (a stored secret holding `"`, `\` and `%` inside JSON-escaped
//! failure-loop snippets, a PEM block cut by a snippet, a URL-encoded assignment), a private
//! key's bare base64 body, a password told in prose, and a secret used as an object key are
//! run through the real binary; then every file of the home is searched for the secret in
//! each form it could take (raw, JSON-escaped once and twice, percent-encoded).

use crate::TestEnv;
use serde_json::{Value, json};
use std::path::Path;

/// A stored secret with a quote, a backslash, a percent sign and non-ASCII text.
const QUOTED: &str = r#"CNRY"qu\ot%e-ü-77"#;
/// A password told in prose.
const PROSE: &str = "CNRYprosePw31";
/// A password in a URL-encoded query.
const ENCODED: &str = "CNRYencPw5522";
/// A stored secret with spaces, which a form-encoded query writes as `+`.
const SPACED: &str = "CNRY spaced Pw 88!";

/// An OpenSSH ed25519 private key body (made for this test, used nowhere).
const KEY_BODY: [&str; 5] = [
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "QyNTUxOQAAACBl9ZB4JgZ0mCmKZc8k1q2uR4bWv5kqz3m3jz8zq1hFQAAAAJgq3k9zKt5P",
    "cwAAAAtzc2gtZWQyNTUxOQAAACBl9ZB4JgZ0mCmKZc8k1q2uR4bWv5kqz3m3jz8zq1hFQA",
    "AAAEBv1u6n0m7Qk3kYdG3cXq0Fb2b4x9kYqJ9K9nZ2w8j0xGX1kHgmBnSYKYplzySNHBfx",
    "Zvq5HhtbVM=",
];

/// Every form a secret can take in a file: raw, JSON-escaped once and twice, percent-encoded.
fn forms(secret: &str) -> Vec<String> {
    let once = serde_json::to_string(secret).unwrap();
    let once = once[1..once.len() - 1].to_string();
    let twice = serde_json::to_string(&once).unwrap();
    let twice = twice[1..twice.len() - 1].to_string();
    let ascii: String = secret
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                format!("\\u{:04x}", c as u32)
            }
        })
        .collect();
    let pct: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    let mut v = vec![secret.to_string(), once, twice, ascii, pct];
    v.sort();
    v.dedup();
    v
}

/// `(file, needle)` for every needle found in a file of `home`, and the files holding
/// `[REDACTED]`.
fn scan(home: &Path, needles: &[String]) -> (Vec<String>, Vec<String>) {
    let files = crate::support::files_under(home);
    let (mut hits, mut masked) = (Vec::new(), Vec::new());
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let rel = f.strip_prefix(home).unwrap().display().to_string();
        for n in needles {
            if bytes.windows(n.len()).any(|w| w == n.as_bytes()) {
                hits.push(format!("{n:?} in {rel}"));
            }
        }
        if bytes.windows(10).any(|w| w == b"[REDACTED]") {
            masked.push(rel);
        }
    }
    (hits, masked)
}

#[test]
fn secrets_in_escaped_cut_encoded_keyed_and_prose_form_are_not_at_rest() {
    let env = TestEnv::new();
    env.json(&["secrets", "set", "quoted"], QUOTED);
    env.json(&["secrets", "set", "spaced"], SPACED);
    let root = env.path("workspace");
    std::fs::create_dir_all(&root).unwrap();
    let pem = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----\n",
        KEY_BODY.join("\n")
    );
    // 300 characters before the key: the 400-character snippet cuts the block before its END.
    std::fs::write(
        root.join("deploy.txt"),
        format!("{}\n{pem}", "x".repeat(300)),
    )
    .unwrap();
    // `sed -n 2,6p id_ed25519`: the body without its BEGIN/END lines.
    std::fs::write(root.join("body.txt"), format!("{}\n", KEY_BODY.join("\n"))).unwrap();
    std::fs::write(
        root.join("quoted.txt"),
        format!("the value is <{QUOTED}>\n"),
    )
    .unwrap();
    std::fs::write(
        root.join("prose.txt"),
        format!("note: my password is {PROSE}. also pw={PROSE}x\n"),
    )
    .unwrap();
    std::fs::write(
        root.join("url.txt"),
        format!("https://example.com/cb?cfg=DB_PASSWORD%3D{ENCODED}%26mode%3D1\n"),
    )
    .unwrap();
    std::fs::write(
        root.join("form.txt"),
        format!(
            "https://example.com/search?u=a&q={}&x=1\n",
            url::form_urlencoded::byte_serialize(SPACED.as_bytes()).collect::<String>()
        ),
    )
    .unwrap();
    let calls: Vec<Value> = [
        "deploy.txt",
        "body.txt",
        "quoted.txt",
        "prose.txt",
        "url.txt",
        "form.txt",
    ]
    .iter()
    .enumerate()
    .map(|(i, f)| json!({"id": format!("r{i}"), "tool": "fs.read_text", "args": {"path": f}}))
    .collect();
    let root_s = root.display().to_string();
    let out = env
        .bob(&[
            "tool",
            "run",
            "--session",
            "s",
            "--root",
            &root_s,
            "--enable-all",
        ])
        .write_stdin(Value::Array(calls).to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A secret used as an object key, in a trace event and in the session's state.
    let data = json!({QUOTED: 1, "nested": {format!("my password is {PROSE}"): "v"}}).to_string();
    env.bob(&[
        "trace",
        "emit",
        "--session",
        "s",
        "--kind",
        "keyed",
        "--data",
        &data,
    ])
    .assert()
    .success();

    let mut needles: Vec<String> = [QUOTED, PROSE, ENCODED, SPACED]
        .iter()
        .flat_map(|s| forms(s))
        .collect();
    needles.extend(KEY_BODY.iter().map(|l| l[..20.min(l.len())].to_string()));
    needles.retain(|n| n.len() >= 8);
    let (hits, masked) = scan(&env.home(), &needles);
    for want in ["sessions/s/failure_loop.json", "traces/s.jsonl"] {
        assert!(
            masked.iter().any(|m| m == want),
            "{want} holds no mask: {masked:?}"
        );
    }
    assert!(masked.iter().any(|m| m.starts_with("audit/")), "{masked:?}");
    assert!(hits.is_empty(), "secrets at rest:\n{}", hits.join("\n"));
}

/// Issue 23 item 3's property: a random stored secret (quotes, backslashes, percent signs,
/// escapes-like text, non-ASCII) goes through every store a real `bob turn` writes — the
/// checkpoint's tool messages, the failure loop's snippets (the model's calls fail until the
/// loop escalates), traces, the audit log, `turns.jsonl`, NOTES, memory candidates — and
/// through a JSON-escaped copy of itself in the model's answer; then the whole home is
/// searched for it in every form.
mod property {
    use super::*;
    use crate::support::http::Reply;
    use crate::support::openai::{OpenAi, completion, role_of, tool_calls};
    use proptest::prelude::*;

    fn run_turn(secret: &str) {
        let env = TestEnv::new();
        env.json(&["secrets", "set", "prop"], secret);
        let root = env.path("workspace");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("s.txt"), format!("value={secret}\n")).unwrap();
        let escaped = serde_json::to_string(secret).unwrap();
        let reply = format!(
            "Found {escaped} and {secret}.\n<<<NOTES_JSON>>>{}<<<END_NOTES_JSON>>>\n<<<MEMORY_CANDIDATES_JSON>>>{}<<<END_MEMORY_CANDIDATES_JSON>>>",
            json!({"add_decisions": [format!("use {secret}")]}),
            json!([{"text": format!("the key is {secret}"), "type": "fact", "tags": ["t"], "why_store": escaped}]),
        );
        let read = json!({"path": "s.txt"}).to_string();
        let missing = json!({"path": format!("missing {escaped}.txt")}).to_string();
        let srv = OpenAi::start(move |req, _| {
            let tools = req.json()["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "tool")
                .count();
            if role_of(req) == "respond" && tools < 6 {
                Reply::json(
                    200,
                    &tool_calls(&[
                        ("c1", "fs.read_text", read.as_str()),
                        ("c2", "fs.read_text", missing.as_str()),
                        ("c3", "fs.read_text", missing.as_str()),
                    ]),
                )
            } else {
                Reply::json(200, &completion(&reply))
            }
        });
        env.bob(&["tool", "enable", "--session", "p", "fs.read_text"])
            .assert()
            .success();
        let root_s = root.display().to_string();
        let out = env
            .bob(&["turn", "--session", "p"])
            .env("BOB_CHAT_BASE_URL", srv.base_url())
            .env("BOB_CHAT_API_KEY", "test-key")
            .env("BOB_CHAT_MODEL", "test-model")
            .env("BOB_TOOL_SANDBOX_ENABLED", "1")
            .env("BOB_TOOL_ROOTS", &root_s)
            .write_stdin(format!("please keep {secret} safe"))
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 7)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (hits, masked) = scan(&env.home(), &forms(secret));
        for want in [
            "sessions/p/checkpoint.json",
            "sessions/p/failure_loop.json",
            "turns.jsonl",
        ] {
            assert!(masked.iter().any(|m| m == want), "{want}: {masked:?}");
        }
        assert!(hits.is_empty(), "{secret:?} at rest:\n{}", hits.join("\n"));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn a_random_stored_secret_is_at_rest_in_no_form(
            body in r#"[A-Za-z0-9"\\%'$ü€ /=:{}\[\]]{4,16}"#
        ) {
            run_turn(&format!("CNRY{body}Z"));
        }
    }
}
