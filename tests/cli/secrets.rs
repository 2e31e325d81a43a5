//! `bob secrets`: one-way, encrypted at rest, resolved only where referenced, redacted.

use crate::TestEnv;
use crate::support::openai::OpenAi;
use std::os::unix::fs::PermissionsExt;

const VALUE: &str = "canary-Zx81-secret-value";

#[test]
fn secrets_are_one_way_and_encrypted_at_rest() {
    let env = TestEnv::new();
    env.json(&["init"], "");
    let key = env.home().join("secrets/key");
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "key mode {mode:o}");
    assert_eq!(std::fs::read(&key).unwrap().len(), 32);
    let set = env.json(&["secrets", "set", "openai"], &format!("{VALUE}\n"));
    assert_eq!(set["name"], "openai");
    assert!(!set.to_string().contains(VALUE));
    env.json(&["secrets", "set", "other.key"], "another-long-value");
    // Replacing keeps one entry.
    env.json(&["secrets", "set", "openai"], VALUE);
    let listed = env.jsonl(&["secrets", "list"], "");
    let names: Vec<&str> = listed.iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["openai", "other.key"]);
    for v in &listed {
        assert!(!v.to_string().contains(VALUE));
    }
    // Nothing under the home holds the value in the clear.
    for entry in crate::support::files_under(&env.home()) {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !bytes.windows(VALUE.len()).any(|w| w == VALUE.as_bytes()),
            "{} holds the secret",
            entry.display()
        );
    }
    // Hostile input.
    env.fails(&["secrets", "set", "../x"], VALUE, 2, "invalid.request");
    env.fails(&["secrets", "set", "short"], "abc", 2, "invalid.request");
    env.fails(&["secrets", "set", "empty"], "", 2, "invalid.request");
    env.fails(&["secrets", "rm", "nope"], "", 4, "not_found");
    env.json(&["secrets", "rm", "other.key"], "");
    assert_eq!(env.jsonl(&["secrets", "list"], "").len(), 1);
    // A key readable by others is refused.
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    env.fails(&["secrets", "list"], "", 3, "policy.denied");
}

#[test]
fn an_api_key_reference_is_resolved_for_the_backend_and_redacted_everywhere() {
    let env = TestEnv::new();
    // The model echoes the key back: it must not land anywhere bob writes.
    let llm = OpenAi::always(&format!("the key is {VALUE}"));
    env.json(&["secrets", "set", "llm"], VALUE);
    std::fs::write(
        env.home().join("config.toml"),
        format!(
            "[chat]\nbase_url = \"{}\"\nmodel = \"m\"\napi_key = \"secret:llm\"\n",
            llm.base_url()
        ),
    )
    .unwrap();
    let out = env
        .bob(&["turn", "--session", "s1"])
        .write_stdin("hi")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The answer printed on stdout is masked as serve's answers and turns.jsonl are.
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        !printed.contains(VALUE),
        "bob turn printed the secret: {printed}"
    );
    let record: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(record["output"], "the key is [REDACTED]", "{record}");
    let reqs = llm.requests();
    assert!(!reqs.is_empty());
    for r in &reqs {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {VALUE}").as_str())
        );
    }
    // The run bundle and the audit log never hold the value.
    for dir in ["runs", "audit"] {
        for f in crate::support::files_under(&env.home().join(dir)) {
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(!text.contains(VALUE), "{} holds the secret", f.display());
        }
    }
    // A reference to a missing secret is not_found, named.
    std::fs::write(
        env.home().join("config.toml"),
        format!(
            "[chat]\nbase_url = \"{}\"\nmodel = \"m\"\napi_key = \"secret:nope\"\n",
            llm.base_url()
        ),
    )
    .unwrap();
    let e = env.fails(&["turn", "--session", "s1"], "hi", 4, "not_found");
    assert!(e["message"].as_str().unwrap().contains("nope"));
}

/// Typed at a terminal, a secret is not echoed, is asked for twice, and is stored only when
/// both entries match.
#[test]
fn a_secret_typed_at_a_terminal_is_not_echoed_and_is_confirmed() {
    use crate::support::pty::{self, On};
    let env = TestEnv::new();
    let on = On {
        stdout: false,
        stderr: true,
    };
    let typed = b"sk-typed-0123456789abcdef\nsk-typed-0123456789abcdef\n";
    let Some(d) = pty::run(env.std_command(&["secrets", "set", "llm"]), on, Some(typed)) else {
        return;
    };
    let screen = d.terminal_text();
    assert_eq!(d.code, Some(0), "{screen}");
    assert!(
        screen.contains("value of secret llm") && screen.contains("again"),
        "{screen:?}"
    );
    assert!(
        !screen.contains("sk-typed"),
        "the secret was echoed: {screen:?}"
    );
    let out: serde_json::Value = serde_json::from_slice(&d.stdout).unwrap();
    assert_eq!(out["stored"], true);
    // The value stored is the one typed: the backend receives it as the API key.
    let llm = OpenAi::always("ok");
    let url = llm.base_url();
    let out = env
        .bob(&["chat", "--base-url", &url, "hi"])
        .env("BOB_CHAT_API_KEY", "secret:llm")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        llm.requests()[0].header("authorization"),
        Some("Bearer sk-typed-0123456789abcdef")
    );

    // Two different entries: nothing stored.
    let typed = b"first-value-123456\nsecond-value-123456\n";
    let Some(d) = pty::run(
        env.std_command(&["secrets", "set", "other"]),
        on,
        Some(typed),
    ) else {
        return;
    };
    assert_eq!(d.code, Some(2), "{}", d.terminal_text());
    assert!(!d.terminal_text().contains("first-value"));
    let list = env.bob(&["secrets", "list"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&list.stdout).contains("other"));
}
