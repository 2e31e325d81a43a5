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

/// Accepts every connection on `listener` and holds it open without ever answering.
fn hold_silently<L, S>(accept: L)
where
    L: FnMut() -> std::io::Result<S> + Send + 'static,
    S: Send + 'static,
{
    let mut accept = accept;
    std::thread::spawn(move || {
        let mut held = Vec::new();
        while let Ok(s) = accept() {
            held.push(s);
        }
    });
}

#[test]
fn a_server_that_accepts_and_never_answers_is_a_timeout_within_the_connect_timeout() {
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    hold_silently(move || tcp.accept());
    let dir = tempfile::tempdir().unwrap();
    let unix = std::os::unix::net::UnixListener::bind(dir.path().join(".s.PGSQL.5432")).unwrap();
    hold_silently(move || unix.accept());
    let urls = [
        // The TLS request (sslmode=prefer by default) is never answered.
        (
            format!("postgres://bob:hunter2@127.0.0.1:{port}/bob?connect_timeout=1"),
            format!("127.0.0.1:{port}"),
        ),
        // Neither is the startup message: no TLS asked for.
        (
            format!(
                "postgres://bob:hunter2@127.0.0.1:{port}/bob?connect_timeout=1&sslmode=disable"
            ),
            format!("127.0.0.1:{port}"),
        ),
        // Nor over a unix socket.
        (
            format!(
                "postgresql://bob:hunter2@localhost/bob?host={}&connect_timeout=1",
                dir.path().display()
            ),
            dir.path().display().to_string(),
        ),
    ];
    for (url, host) in urls {
        let node = Node {
            env: TestEnv::new(),
            url: Some(url.clone()),
            key_file: None,
        };
        let started = std::time::Instant::now();
        let out = node
            .bob(&["state", "show", "--session", "s"])
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let took = started.elapsed();
        let e = crate::env::error_of(&out, 6, "upstream.error");
        assert_eq!(e["details"]["cause"], "timeout", "{url}: {e}");
        assert_eq!(e["details"]["host"], host.as_str(), "{e}");
        let message = e["message"].as_str().unwrap();
        assert!(
            message.contains("timed out") && message.contains(&host),
            "{e}"
        );
        assert!(
            !e.to_string().contains("hunter2"),
            "the password leaked: {e}"
        );
        // Given up after the URL's 1 s (not the default 10 s, and not never).
        assert!(
            took >= std::time::Duration::from_millis(900)
                && took < std::time::Duration::from_secs(6),
            "{url}: {took:?}"
        );
        // `bob db status` gives up as soon, and says why.
        let started = std::time::Instant::now();
        let out = node
            .bob(&["db", "status"])
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(6), "{url}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(6),
            "{url}"
        );
        let st: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(st["reachable"], false, "{st}");
        assert!(st["error"].as_str().unwrap().contains("timed out"), "{st}");
    }
}
