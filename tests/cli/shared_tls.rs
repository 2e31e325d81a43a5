//! TLS to the shared database (`sslmode` and `sslrootcert` in `database.url`): every mode
//! through the binary against a real cluster with `ssl=on` and a certificate for `localhost`
//! made in the test (`support::pg::tls_cluster`), and one with `ssl=off`.

use crate::TestEnv;
use crate::shared_store::Node;
use crate::support::pg::{self, TestDb};
use serde_json::Value;

fn node(url: String) -> Node {
    Node {
        env: TestEnv::new(),
        url: Some(url),
        key_file: None,
    }
}

fn tls_db() -> Option<TestDb> {
    Some(pg::fresh_database_in(pg::tls_cluster()?))
}

fn ca() -> String {
    let cluster = pg::tls_cluster().expect("the TLS cluster is up");
    cluster.ca_file.as_ref().unwrap().display().to_string()
}

fn other_ca() -> String {
    let cluster = pg::tls_cluster().expect("the TLS cluster is up");
    cluster
        .other_ca_file
        .as_ref()
        .unwrap()
        .display()
        .to_string()
}

/// `bob db status` of a node that connects: the sslmode it reports and whether the connection
/// is encrypted (read from the server's `pg_stat_ssl`).
fn connected(n: &Node) -> (String, bool) {
    let st = n.json(&["db", "status"], "");
    assert_eq!(st["reachable"], true, "{st}");
    (
        st["sslmode"].as_str().unwrap().to_string(),
        st["tls"].as_bool().expect("tls is reported"),
    )
}

/// A connection refused for TLS: exit 6 `upstream.error` naming the host and saying so.
fn refused_as_tls(n: &Node, args: &[&str], host: &str) -> Value {
    let e = n.fails(args, "", 6, "upstream.error");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("TLS"), "{e}");
    assert!(message.contains(host), "{e}");
    assert_eq!(e["details"]["host"], host, "{e}");
    assert_eq!(e["details"]["tls"], true, "{e}");
    e
}

fn port(db: &TestDb) -> u16 {
    let url = db.tcp_url("localhost", "");
    url.rsplit_once(':')
        .and_then(|(_, rest)| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap()
}

#[test]
fn verify_full_with_the_right_ca_connects_and_memory_works_over_it() {
    let Some(db) = tls_db() else { return };
    let n = node(db.tcp_url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={}", ca()),
    ));
    assert_eq!(connected(&n), ("verify-full".to_string(), true));
    let proposed = n.jsonl(
        &["memory", "propose"],
        r#"{"text":"The user keeps the spare keys in the blue tin","type":"fact"}"#,
    );
    let cand = proposed[0]["id"].as_str().unwrap().to_string();
    let approved = n.json(&["memory", "approve", &cand], "");
    assert_eq!(approved["candidate"]["status"], "approved");
    let hits = n.jsonl(&["memory", "query", "where are the spare keys"], "");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["id"], approved["record"]["id"]);
    // The rows are in the database the TLS connection reached.
    let rows: i64 = db
        .client()
        .query_one("SELECT count(*) FROM memory_records", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows, 1);
}

#[test]
fn a_wrong_ca_or_another_hosts_certificate_is_refused_as_tls() {
    let Some(db) = tls_db() else { return };
    let p = port(&db);
    // A CA that did not sign the server's certificate.
    let wrong_ca = node(db.tcp_url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={}", other_ca()),
    ));
    let e = refused_as_tls(&wrong_ca, &["db", "status"], &format!("localhost:{p}"));
    assert_eq!(e["details"]["sslmode"], "verify-full");
    refused_as_tls(
        &wrong_ca,
        &["memory", "query", "anything"],
        &format!("localhost:{p}"),
    );
    let also_ca = node(db.tcp_url(
        "localhost",
        &format!("sslmode=verify-ca&sslrootcert={}", other_ca()),
    ));
    refused_as_tls(&also_ca, &["db", "status"], &format!("localhost:{p}"));
    // The right CA, but the certificate names localhost, not 127.0.0.1.
    let wrong_host = node(db.tcp_url(
        "127.0.0.1",
        &format!("sslmode=verify-full&sslrootcert={}", ca()),
    ));
    refused_as_tls(&wrong_host, &["db", "status"], &format!("127.0.0.1:{p}"));
    // verify-ca checks the chain only, so the same host connects.
    let chain_only = node(db.tcp_url(
        "127.0.0.1",
        &format!("sslmode=verify-ca&sslrootcert={}", ca()),
    ));
    assert_eq!(connected(&chain_only), ("verify-ca".to_string(), true));
    // The refused nodes wrote nothing, not even the schema (`db status` applies none).
    let untouched: bool = db
        .client()
        .query_one("SELECT to_regclass('public.bob_schema') IS NULL", &[])
        .unwrap()
        .get(0);
    assert!(untouched);
}

#[test]
fn require_and_prefer_encrypt_without_a_ca_and_disable_does_not() {
    let Some(db) = tls_db() else { return };
    let require = node(db.tcp_url("localhost", "sslmode=require"));
    assert_eq!(connected(&require), ("require".to_string(), true));
    assert!(
        require
            .jsonl(&["memory", "query", "nothing yet"], "")
            .is_empty()
    );
    // libpq's default: TLS when the server offers it.
    let prefer = node(db.tcp_url("localhost", ""));
    assert_eq!(connected(&prefer), ("prefer".to_string(), true));
    let disable = node(db.tcp_url("localhost", "sslmode=disable"));
    assert_eq!(connected(&disable), ("disable".to_string(), false));
    // A unix socket never uses TLS, whatever the mode (as libpq).
    let Some(local) = pg::fresh_database() else {
        return;
    };
    let socket = node(format!(
        "{}&sslmode=verify-full&sslrootcert={}",
        local.url(),
        ca()
    ));
    assert_eq!(connected(&socket), ("verify-full".to_string(), false));
}

#[test]
fn a_server_without_tls_is_refused_when_tls_is_required() {
    let Some(cluster) = pg::plain_tcp_cluster() else {
        return;
    };
    let db = pg::fresh_database_in(cluster);
    let url = db.tcp_url("localhost", "sslmode=require");
    let host = url.split('@').nth(1).unwrap().split('/').next().unwrap();
    let require = node(url.clone());
    let e = refused_as_tls(&require, &["db", "status"], host);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("does not support TLS"),
        "{e}"
    );
    refused_as_tls(&require, &["db", "migrate"], host);
    let full = node(db.tcp_url("localhost", "sslmode=verify-full"));
    refused_as_tls(&full, &["db", "status"], host);
    // prefer falls back to a plain connection.
    let prefer = node(db.tcp_url("localhost", "sslmode=prefer"));
    assert_eq!(connected(&prefer), ("prefer".to_string(), false));
}

#[test]
fn tls_settings_that_cannot_work_are_invalid_requests() {
    // No server is needed: these are refused before connecting.
    let env = TestEnv::new();
    let missing = env.path("no-such-ca.pem");
    let not_pem = env.write("not-a-ca.pem", "hello\n");
    for (query, says) in [
        ("sslmode=allow".to_string(), "sslmode"),
        ("sslmode=verify-everything".to_string(), "sslmode"),
        (
            format!("sslmode=verify-full&sslrootcert={}", missing.display()),
            "cannot be read",
        ),
        (
            format!("sslmode=verify-ca&sslrootcert={}", not_pem.display()),
            "no usable certificate",
        ),
        (
            "sslmode=prefer&sslrootcert=system".to_string(),
            "sslrootcert=system",
        ),
    ] {
        let url = format!("postgresql://bob@localhost:1/bob?{query}");
        let out = env
            .bob(&["db", "status"])
            .env("BOB_DATABASE_URL", &url)
            .output()
            .unwrap();
        let e = crate::env::error_of(&out, 2, "invalid.request");
        assert!(
            e["message"].as_str().unwrap().contains(says),
            "{query}: {e}"
        );
        assert_eq!(e["details"]["setting"], "database.url", "{e}");
    }
}

#[test]
fn a_client_certificate_signs_in_where_the_server_requires_one() {
    let Some(db) = tls_db() else { return };
    let cluster = pg::tls_cluster().expect("the TLS cluster is up");
    let (cert, key) = cluster.client_cert.clone().unwrap();
    let (stranger_cert, stranger_key) = cluster.stranger_cert.clone().unwrap();
    let p = port(&db);
    // `certuser` signs in only with a certificate of the cluster's CA naming it.
    let as_certuser = |query: String| {
        node(
            db.tcp_url(
                "localhost",
                &format!("sslmode=verify-full&sslrootcert={}{query}", ca()),
            )
            .replacen("bob@", "certuser@", 1),
        )
    };
    let without = as_certuser(String::new());
    let e = without.fails(&["db", "migrate"], "", 6, "upstream.error");
    assert_eq!(e["details"]["cause"], "auth_failed", "{e}");
    assert_eq!(e["details"]["host"], format!("localhost:{p}"), "{e}");
    let with = as_certuser(format!(
        "&sslcert={}&sslkey={}",
        cert.display(),
        key.display()
    ));
    assert_eq!(connected(&with), ("verify-full".to_string(), true));
    with.json(&["db", "migrate"], "");
    with.json(
        &["state", "set", "--session", "s"],
        r#"{"goals":["by certificate"]}"#,
    );
    let doc: String = db
        .client()
        .query_one("SELECT doc FROM checkpoints WHERE session_id = 's'", &[])
        .unwrap()
        .get(0);
    assert!(doc.contains("by certificate"), "{doc}");
    // A certificate of a CA the server does not trust: refused in the handshake.
    let stranger = as_certuser(format!(
        "&sslcert={}&sslkey={}",
        stranger_cert.display(),
        stranger_key.display()
    ));
    refused_as_tls(&stranger, &["db", "migrate"], &format!("localhost:{p}"));
    // Settings that cannot work: invalid.request before connecting, naming the file.
    let half = as_certuser(format!("&sslcert={}", cert.display()));
    let e = half.fails(&["db", "status"], "", 2, "invalid.request");
    assert!(e["message"].as_str().unwrap().contains("sslkey"), "{e}");
    let missing = as_certuser(format!(
        "&sslcert=/nonexistent.crt&sslkey={}",
        key.display()
    ));
    let e = missing.fails(&["db", "status"], "", 2, "invalid.request");
    assert_eq!(e["details"]["path"], "/nonexistent.crt", "{e}");
    let dir = tempfile::tempdir().unwrap();
    let open_key = dir.path().join("open.key");
    std::fs::copy(&key, &open_key).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&open_key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let readable = as_certuser(format!(
        "&sslcert={}&sslkey={}",
        cert.display(),
        open_key.display()
    ));
    let e = readable.fails(&["db", "status"], "", 2, "invalid.request");
    assert!(e["message"].as_str().unwrap().contains("0644"), "{e}");
    let cert_as_key = dir.path().join("cert-as.key");
    std::fs::copy(&cert, &cert_as_key).unwrap();
    std::fs::set_permissions(&cert_as_key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let not_a_key = as_certuser(format!(
        "&sslcert={}&sslkey={}",
        cert.display(),
        cert_as_key.display()
    ));
    let e = not_a_key.fails(&["db", "status"], "", 2, "invalid.request");
    assert!(
        e["message"].as_str().unwrap().contains("private key"),
        "{e}"
    );
    // The URL shown keeps the files' paths.
    let st = with.json(&["db", "status"], "");
    assert!(st["url"].as_str().unwrap().contains("sslcert="), "{st}");
}
