//! `bob keys export|import`: one node's chain and secrets keys moved to another node, kept
//! outside the home with `BOB_KEY_FILE`, never overwritten when something depends on them,
//! never written to a terminal, and the import audited.

use super::TestEnv;
use super::env::error_of;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn ok(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Node A exports; node B (keys outside its home) imports and then holds the same two keys;
/// a second import changes nothing; a third home whose logs depend on its own key refuses.
#[test]
fn keys_move_to_a_second_node_outside_its_home() {
    let a = TestEnv::new();
    a.json(&["secrets", "set", "upstream"], "a-long-secret-value\n");
    let bundle = a.path("bundle.json");
    let exported = a.json(&["keys", "export", bundle.to_str().unwrap()], "");
    assert_eq!(mode(&bundle), 0o600, "the bundle is owner-only");
    let a_chain = std::fs::read(a.home().join("keys/chain.key")).unwrap();
    let a_secrets = std::fs::read(a.home().join("secrets/key")).unwrap();
    assert_eq!(exported["path"], bundle.to_str().unwrap());
    assert_eq!(exported["chain_key_id"].as_str().unwrap().len(), 16);
    let text = std::fs::read_to_string(&bundle).unwrap();
    assert!(text.contains(&hex(&a_chain)) && text.contains(&hex(&a_secrets)));
    assert!(
        !String::from_utf8_lossy(&a.bob(&["keys", "export", "-"]).output().unwrap().stderr)
            .contains(&hex(&a_chain)),
        "a key on stderr"
    );
    // Never over an existing file.
    let again = a
        .bob(&["keys", "export", bundle.to_str().unwrap()])
        .output()
        .unwrap();
    error_of(&again, 5, "conflict");

    // Node B keeps its keys outside the home.
    let b = TestEnv::new();
    let vault = b.path("vault");
    let chain_file = vault.join("bob-chain.key");
    let import = |env: &TestEnv, key_file: Option<&Path>| {
        let mut cmd = env.bob(&["keys", "import", bundle.to_str().unwrap()]);
        if let Some(k) = key_file {
            cmd.env("BOB_KEY_FILE", k);
        }
        cmd.output().unwrap()
    };
    let imported = ok(&import(&b, Some(&chain_file)));
    assert_eq!(imported["chain"], "installed");
    assert_eq!(imported["secrets"], "installed");
    assert_eq!(imported["chain_key_id"], exported["chain_key_id"]);
    assert_eq!(std::fs::read(&chain_file).unwrap(), a_chain);
    assert_eq!(
        std::fs::read(vault.join("bob-secrets.key")).unwrap(),
        a_secrets
    );
    assert_eq!(mode(&chain_file), 0o600);
    assert_eq!(mode(&vault.join("bob-secrets.key")), 0o600);
    assert!(
        !b.home().join("keys/chain.key").exists(),
        "a key in B's home"
    );
    assert!(!b.home().join("secrets/key").exists(), "a key in B's home");
    // The import is audited, fingerprints only.
    let events = b.audit_events("human");
    let ev = events
        .iter()
        .find(|e| e["event_type"] == "keys.import")
        .expect("a keys.import event");
    assert_eq!(ev["payload"]["chain_key_id"], exported["chain_key_id"]);
    assert!(!serde_json::to_string(ev).unwrap().contains(&hex(&a_chain)));
    // B's secrets are sealed with A's key: B can store and use secrets under it, and its
    // chained logs verify under the shared key.
    let mut set = b.bob(&["secrets", "set", "upstream"]);
    set.env("BOB_KEY_FILE", &chain_file)
        .write_stdin("another-long-value\n");
    ok(&set.output().unwrap());
    assert!(!b.home().join("secrets/key").exists());
    let verify = b
        .bob(&["ledger", "verify", "--all"])
        .env("BOB_KEY_FILE", &chain_file)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    // Again: nothing changes, nothing new is audited.
    let twice = ok(&import(&b, Some(&chain_file)));
    assert_eq!(
        (twice["chain"].as_str(), twice["secrets"].as_str()),
        (Some("unchanged"), Some("unchanged"))
    );
    assert_eq!(
        b.audit_events("human")
            .iter()
            .filter(|e| e["event_type"] == "keys.import")
            .count(),
        1
    );

    // Node C already wrote chained records under its own key: refused, nothing changed.
    let c = TestEnv::new();
    c.json(&["caps", "request", "--session", "s1", "net"], "");
    let c_key = std::fs::read(c.home().join("keys/chain.key")).unwrap();
    let err = error_of(&import(&c, None), 5, "conflict");
    assert!(
        err["message"].as_str().unwrap().contains("fresh home"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(c.home().join("keys/chain.key")).unwrap(),
        c_key
    );

    // A freshly initialised home (a secrets key, no secret, no record) takes the keys.
    let d = TestEnv::new();
    d.json(&["init"], "");
    let replaced = ok(&import(&d, None));
    assert_eq!(replaced["secrets"], "replaced");
    assert_eq!(
        std::fs::read(d.home().join("secrets/key")).unwrap(),
        a_secrets
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A bundle readable by others is refused, a damaged one is invalid, and the bundle is never
/// written to a terminal (a pipe is fine).
#[test]
fn bundles_are_owner_only_and_never_drawn_on_a_terminal() {
    let a = TestEnv::new();
    let bundle = a.path("bundle.json");
    a.json(&["keys", "export", bundle.to_str().unwrap()], "");
    let b = TestEnv::new();
    std::fs::set_permissions(&bundle, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = b
        .bob(&["keys", "import", bundle.to_str().unwrap()])
        .output()
        .unwrap();
    error_of(&out, 3, "policy.denied");
    assert!(!b.home().join("keys/chain.key").exists());
    std::fs::set_permissions(&bundle, std::fs::Permissions::from_mode(0o600)).unwrap();
    let text = std::fs::read_to_string(&bundle).unwrap();
    let damaged = text.replacen("\"chain_key\":\"", "\"chain_key\":\"00", 1);
    b.fails(&["keys", "import", "-"], &damaged, 2, "invalid.request");
    assert!(!b.home().join("keys/chain.key").exists());

    // Piped: the bundle itself, and it imports from stdin.
    let piped = a.bob(&["keys", "export", "-"]).output().unwrap();
    assert!(piped.status.success());
    let out = b
        .bob(&["keys", "import", "-"])
        .write_stdin(piped.stdout.clone())
        .output()
        .unwrap();
    assert_eq!(ok(&out)["chain"], "installed");
    // On a terminal: refused before any key is read.
    let on = crate::support::pty::On {
        stdout: true,
        stderr: false,
    };
    let Some(drawn) = crate::support::pty::run(a.std_command(&["keys", "export", "-"]), on, None)
    else {
        eprintln!("no pty on this machine: the terminal refusal is not checked");
        return;
    };
    assert_eq!(
        drawn.code,
        Some(3),
        "{}",
        String::from_utf8_lossy(&drawn.stderr)
    );
    assert!(!drawn.terminal_text().contains("chain_key"));
}
