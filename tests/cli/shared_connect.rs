//! Why connecting to the shared database failed, through the binary: each cause (refused,
//! timed out, no server socket, an unknown host, a wrong or missing password, a database that
//! does not exist) is exit 6 `upstream.error` whose message says it in words and whose
//! `details.cause` names it, the host named and the password nowhere.

use crate::TestEnv;
use crate::shared_store::Node;
use crate::support::pg;
use serde_json::Value;

/// The error of a command on a node whose `database.url` is `url`, checked for `cause`.
fn fails_with(url: &str, cause: &str, words: &str) -> Value {
    let node = Node {
        env: TestEnv::new(),
        url: Some(url.to_string()),
        key_file: None,
    };
    let e = node.fails(
        &["state", "show", "--session", "s"],
        "",
        6,
        "upstream.error",
    );
    assert_eq!(e["details"]["cause"], cause, "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains(words), "{e}");
    assert!(
        message.contains(e["details"]["host"].as_str().unwrap()),
        "{e}"
    );
    assert!(
        !e.to_string().contains("hunter2"),
        "the password leaked: {e}"
    );
    // `bob db status` reports the same reason, and exits 6 too.
    let out = node.bob(&["db", "status"]).output().unwrap();
    assert_eq!(out.status.code(), Some(6));
    let st: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["reachable"], false, "{st}");
    assert!(st["error"].as_str().unwrap().contains(words), "{st}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("hunter2"));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hunter2"));
    e
}

#[test]
fn a_refused_connection_says_it_was_refused() {
    // Nothing listens on port 1 of loopback.
    let e = fails_with(
        "postgres://bob:hunter2@127.0.0.1:1/bob",
        "refused",
        "connection refused",
    );
    assert_eq!(e["details"]["host"], "127.0.0.1:1", "{e}");
}

#[test]
fn a_server_that_never_accepts_is_a_timeout_after_the_urls_connect_timeout() {
    use socket2::{Domain, Socket, Type};
    // A listener whose accept queue (length 0) is full: the kernel drops the next connection's
    // SYN, so connecting waits until the timeout.
    let listener = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    listener
        .bind(
            &"127.0.0.1:0"
                .parse::<std::net::SocketAddr>()
                .unwrap()
                .into(),
        )
        .unwrap();
    listener.listen(0).unwrap();
    let addr = listener.local_addr().unwrap().as_socket().unwrap();
    let _queued: Vec<std::net::TcpStream> = (0..3)
        .filter_map(|_| {
            std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(300)).ok()
        })
        .collect();
    let started = std::time::Instant::now();
    let e = fails_with(
        &format!(
            "postgres://bob:hunter2@127.0.0.1:{}/bob?connect_timeout=1",
            addr.port()
        ),
        "timeout",
        "timed out",
    );
    assert_eq!(e["details"]["host"], format!("127.0.0.1:{}", addr.port()));
    // Two commands, each giving up after the URL's 1 s (not the default 10 s).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_missing_socket_and_an_unknown_host_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let e = fails_with(
        &format!(
            "postgresql://bob:hunter2@localhost/bob?host={}",
            dir.path().display()
        ),
        "no_socket",
        "no server socket",
    );
    assert_eq!(e["details"]["host"], dir.path().display().to_string());
    fails_with(
        "postgres://bob:hunter2@no-such-host.invalid:5432/bob",
        "unknown_host",
        "could not be resolved",
    );
}

#[test]
fn a_wrong_or_missing_password_and_a_missing_database_say_so() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let e = fails_with(
        &db.url_with_password("hunter2"),
        "auth_failed",
        "password authentication failed",
    );
    assert_eq!(e["details"]["sqlstate"], "28P01", "{e}");
    // The server asks for a password the URL does not give.
    let no_password = db.url().replace("user=bob", "user=pwuser");
    fails_with(&no_password, "auth_failed", "password");
    let e = fails_with(
        &db.url().replace(&format!("/{}?", db.name), "/no_such_db?"),
        "no_database",
        "does not exist",
    );
    assert_eq!(e["details"]["sqlstate"], "3D000", "{e}");
}
