//! CLI conventions, init, schema, ledger and the storage primitives, through the binary.

use crate::TestEnv;

#[test]
fn init_creates_the_home_and_is_idempotent() {
    let env = TestEnv::new();
    let v = env.json(&["init"], "");
    assert!(env.home().join("sessions").is_dir());
    assert!(!v["created"].as_array().unwrap().is_empty());
    let again = env.json(&["init"], "");
    assert_eq!(again["created"].as_array().unwrap().len(), 0);
}

#[test]
fn unknown_schema_is_not_found_and_known_schema_is_json_schema() {
    let env = TestEnv::new();
    env.fails(&["schema", "nope"], "", 4, "not_found");
    for name in [
        "state",
        "checkpoint",
        "notes-patch",
        "tool-request",
        "tool-response",
        "error",
        "trace-event",
        "audit-event",
        "memory-candidate",
        "memory-record",
        "job",
        "chat-message",
        "turn-request",
    ] {
        let s = env.json(&["schema", name], "");
        assert_eq!(s["type"], "object", "{name}");
    }
    // Every listed contract prints a schema of an object.
    let listed = env.jsonl(&["schema", "--list"], "");
    assert!(listed.len() >= 19, "{listed:?}");
    for name in &listed {
        let s = env.json(&["schema", name.as_str().unwrap()], "");
        assert!(
            s["type"] == "object" || s.get("oneOf").is_some() || s.get("anyOf").is_some(),
            "{name}: {s}"
        );
    }
}

#[test]
fn usage_errors_are_invalid_request_with_exit_2() {
    let env = TestEnv::new();
    env.fails(&["--no-such-flag"], "", 2, "invalid.request");
    env.fails(&["--now", "yesterday", "init"], "", 2, "invalid.request");
}

#[test]
fn broken_pipe_exits_zero() {
    let env = TestEnv::new();
    // `head -c 1` closes the pipe after one byte while bob is still writing a long listing.
    let bob = assert_cmd::cargo::cargo_bin("bob");
    let status = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("set -o pipefail; for i in $(seq 200); do echo x; done | '{}' generate --out '{}' >/dev/null && '{}' schema checkpoint | head -c 1 >/dev/null", bob.display(), env.path("gen").display(), bob.display()))
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn ledger_verify_without_logs_is_not_found() {
    let env = TestEnv::new();
    env.fails(&["ledger", "verify"], "", 4, "not_found");
}

/// bob parses its command line with a tree whose subcommands are built on demand and falls
/// back to the full tree for anything that is not a plain, valid invocation: help, version,
/// mistakes and missing subcommands read exactly as the full tree writes them.
#[test]
fn command_line_help_version_and_errors_come_from_the_full_tree() {
    let env = TestEnv::new();
    let stdout = |args: &[&str]| {
        let out = env.bob(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(stdout(&["--version"]), format!("bob {version}\n"));
    assert_eq!(
        stdout(&["tool", "--version"]),
        format!("bob-tool {version}\n")
    );
    // `init`'s arguments carry their own description; the full tree shows the subcommand's
    // one-line description (the deferred tree alone would show the other).
    let help = stdout(&["init", "--help"]);
    assert!(
        help.starts_with("Create the home directory and its layout\n"),
        "{help}"
    );
    let help = stdout(&["help", "tool", "run"]);
    assert!(help.contains("Usage: bob tool run [OPTIONS]"), "{help}");
    assert!(help.contains("--enable <NAME>..."), "{help}");
    assert!(stdout(&["tool", "--help"]).contains("Commands:\n  list"));

    let e = env.fails(&["tool", "run", "--bogus"], "", 2, "invalid.request");
    assert_eq!(e["message"], "unexpected argument '--bogus' found");
    assert!(
        e["details"]["usage"]
            .as_str()
            .unwrap()
            .contains("Usage: bob tool run [OPTIONS]"),
        "{e}"
    );
    let e = env.fails(&["tol", "run"], "", 2, "invalid.request");
    assert!(
        e["details"]["usage"]
            .as_str()
            .unwrap()
            .contains("a similar subcommand exists: 'tool'"),
        "{e}"
    );
    let e = env.fails(
        &["tool", "run", "--timeout-ms", "soon"],
        "",
        2,
        "invalid.request",
    );
    assert!(
        e["message"].as_str().unwrap().contains("--timeout-ms"),
        "{e}"
    );
    // No subcommand: the full tree's help, on stderr, exit 2.
    let out = env.bob(&["tool"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: bob tool [OPTIONS] <COMMAND>"));

    // And a valid invocation, globals on either side of the subcommand, parses and runs.
    let rows = env.jsonl(
        &[
            "--json",
            "tool",
            "list",
            "--home",
            env.home().to_str().unwrap(),
        ],
        "",
    );
    assert!(
        rows.iter().any(|r| r["name"] == "scryfall.lookup"),
        "{rows:?}"
    );
}

#[test]
fn man_pages_and_completions_are_current() {
    let env = TestEnv::new();
    let out = env.path("gen");
    env.bob(&["generate", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let root = crate::env::repo_root();
    let mut stale = Vec::new();
    for sub in ["man", "completions"] {
        for entry in std::fs::read_dir(out.join(sub)).unwrap() {
            let p = entry.unwrap().path();
            let committed = root.join(sub).join(p.file_name().unwrap());
            if std::fs::read(&committed).ok() != Some(std::fs::read(&p).unwrap()) {
                stale.push(committed.display().to_string());
            }
        }
        let generated = std::fs::read_dir(out.join(sub)).unwrap().count();
        let committed = std::fs::read_dir(root.join(sub))
            .map(|d| d.count())
            .unwrap_or(0);
        if generated != committed {
            stale.push(format!(
                "{sub}/ has {committed} files, generator writes {generated}"
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated docs (run `cargo run -- generate`): {stale:?}"
    );
}

#[test]
fn http_test_server_redirects_and_streams_chunked_sse() {
    use crate::support::http::{Reply, TestServer};
    let server = TestServer::start(|req, n| {
        if n == 0 {
            Reply::redirect("/b")
        } else {
            Reply::sse(
                &[format!("{{\"path\":\"{}\"}}", req.path), "[DONE]".into()],
                std::time::Duration::from_millis(5),
            )
        }
    });
    // A plain HTTP/1.1 client over a TcpStream, so the test needs no curl: follow the redirect
    // by hand and read the chunked SSE body to the end.
    let get = |path: &str| {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(
            server
                .url("")
                .trim_start_matches("http://")
                .trim_end_matches('/'),
        )
        .unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        text
    };
    let first = get("/a");
    assert!(first.starts_with("HTTP/1.1 30"), "{first}");
    let location = first
        .lines()
        .find_map(|l| l.strip_prefix("Location: "))
        .expect("a Location header");
    let body = get(location.trim());
    assert!(body.contains("Transfer-Encoding: chunked"), "{body}");
    assert!(
        body.contains("data: {\"path\":\"/b\"}") && body.contains("data: [DONE]"),
        "{body}"
    );
    assert_eq!(server.requests().len(), 2);
}
