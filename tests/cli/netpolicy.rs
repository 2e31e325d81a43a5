//! `http.get`'s address policy through the real binary: IANA special-purpose blocks (embedded
//! IPv4 included) refused before connecting and on every redirect hop, `net:` grants by whole
//! labels or one exact IP, the cache keyed by the final URL with its hops re-checked, and no
//! secret at rest in `cache/http.db`.

use crate::TestEnv;
use crate::env::error_of;
use crate::support::http::{Reply, TestServer};
use crate::support::{code, write_caps};
use serde_json::{Value, json};

/// One `http.get` call; bob numbers it (`call_<n>`: a URL is not an id, see `crate::ids`).
fn get(url: &str, use_cache: bool) -> Value {
    json!({"tool": "http.get", "args": {"url": url, "use_cache": use_cache}})
}

fn calls(c: &[Value]) -> String {
    Value::Array(c.to_vec()).to_string()
}

/// `bob tool run --enable http.get --grant net:G… EXTRA…`.
fn run_args<'a>(grants: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["tool", "run", "--enable", "http.get"];
    for g in grants {
        a.extend(["--grant", g.as_str()]);
    }
    a.extend_from_slice(extra);
    a
}

/// URLs (literal addresses, so nothing is resolved) that must be refused as `policy.denied`
/// even though the exact address is granted, whatever the allow settings: every one is either
/// in a block that is never reachable or embeds a non-global IPv4. The port is a live loopback
/// server's, so a check that let one through would reach it (mapped) or at least try to connect.
const ALWAYS_REFUSED: &[(&str, &str)] = &[
    ("::127.0.0.1", "IPv4-compatible loopback"),
    ("::10.0.0.1", "IPv4-compatible private"),
    ("::8.8.8.8", "IPv4-compatible (deprecated block)"),
    ("::ffff:127.0.0.1", "IPv4-mapped loopback"),
    ("::ffff:192.168.0.1", "IPv4-mapped private"),
    ("::ffff:0:127.0.0.1", "IPv4-translated loopback"),
    ("::ffff:0:10.1.1.1", "IPv4-translated private"),
    ("64:ff9b::127.0.0.1", "NAT64 loopback"),
    ("64:ff9b::192.168.0.1", "NAT64 private"),
    ("64:ff9b::169.254.169.254", "NAT64 link-local (metadata)"),
    ("64:ff9b:1::8.8.8.8", "local-use NAT64"),
    ("2002:7f00:1::1", "6to4 of 127.0.0.1"),
    ("2002:a9fe:a9fe::1", "6to4 of 169.254.169.254"),
    (
        "2001:0:4136:e378:8000:63bf:80ff:fffe",
        "Teredo, client 127.0.0.1",
    ),
    (
        "2001:0:a00:1:8000:63bf:f7f7:f7f7",
        "Teredo, server 10.0.0.1",
    ),
    ("2001:4860:1::5efe:a9fe:a9fe", "ISATAP of 169.254.169.254"),
    ("192.0.0.1", "IETF protocol assignments"),
    ("192.0.0.8", "IPv4 dummy address"),
    ("192.0.0.170", "NAT64/DNS64 discovery"),
    ("192.0.2.1", "TEST-NET-1"),
    ("198.51.100.1", "TEST-NET-2"),
    ("203.0.113.1", "TEST-NET-3"),
    ("192.88.99.1", "6to4 relay anycast (deprecated)"),
    ("0.0.0.0", "this host"),
    ("0.1.2.3", "this network"),
    ("224.0.0.1", "multicast"),
    ("233.252.0.1", "MCAST-TEST-NET"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "limited broadcast"),
    ("::", "unspecified"),
    ("100::1", "discard-only"),
    ("2001::1", "IETF protocol assignments (Teredo of 0.0.0.0)"),
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("2001:10::1", "deprecated ORCHID"),
    ("5f00::1", "SRv6 SIDs"),
    ("fec0::1", "site-local"),
    ("ff02::1", "multicast"),
    ("4000::1", "outside 2000::/3"),
];

/// Refused unless the operator allows private (or loopback) addresses explicitly.
const REFUSED_UNLESS_ALLOWED: &[(&str, &str)] = &[
    ("127.0.0.1", "loopback"),
    ("::1", "loopback"),
    ("10.0.0.1", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.1", "private"),
    ("100.64.0.1", "shared"),
    ("169.254.169.254", "link-local"),
    ("198.18.0.1", "benchmarking"),
    ("198.19.255.254", "benchmarking"),
    ("2001:2::1", "benchmarking"),
    ("fd00::1", "unique-local"),
    ("fe80::1", "link-local"),
];

fn url_of(ip: &str, port: u16) -> String {
    if ip.contains(':') {
        format!("http://[{ip}]:{port}/x")
    } else {
        format!("http://{ip}:{port}/x")
    }
}

#[test]
fn special_purpose_and_embedded_ipv4_addresses_are_refused_before_connecting() {
    let env = TestEnv::new();
    let server = TestServer::start(|_, _| Reply::new(200, "reached"));
    let port = server.addr.port();
    let run = |set: &[(&str, &str)], extra: &[&str]| {
        let grants: Vec<String> = set.iter().map(|(ip, _)| format!("net:{ip}")).collect();
        let c: Vec<Value> = set
            .iter()
            .map(|(ip, _)| get(&url_of(ip, port), false))
            .collect();
        let mut args = run_args(&grants, extra);
        args.extend(["--timeout-ms", "3000"]);
        let rows = env.jsonl(&args, &calls(&c));
        assert_eq!(rows.len(), set.len());
        for ((ip, what), row) in set.iter().zip(&rows) {
            assert_eq!(
                (row["ok"].as_bool(), code(row)),
                (Some(false), "policy.denied"),
                "{ip} ({what}) with {extra:?}: {row}"
            );
            assert!(
                row["error"]["details"]["block"].is_string(),
                "{ip} ({what}): {row}"
            );
        }
        rows
    };
    run(ALWAYS_REFUSED, &[]);
    let rows = run(ALWAYS_REFUSED, &["--allow-loopback", "--allow-private"]);
    // The message names the embedded address and its block.
    let nat64 = &rows[7]["error"];
    assert_eq!(nat64["details"]["address_class"], "loopback", "{nat64}");
    assert!(
        nat64["message"]
            .as_str()
            .unwrap()
            .contains("embeds (ipv4) the loopback address 127.0.0.1"),
        "{nat64}"
    );
    let rows = run(REFUSED_UNLESS_ALLOWED, &[]);
    for ((_, class), row) in REFUSED_UNLESS_ALLOWED.iter().zip(&rows) {
        assert_eq!(row["error"]["details"]["address_class"], *class, "{row}");
        assert!(
            row["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--allow-"),
            "{row}"
        );
    }
    // Nothing was connected to.
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    // The explicit, documented setting still opens the loopback server (tests rely on it).
    let g = vec!["net:127.0.0.1".to_string()];
    let ok = env.jsonl(
        &run_args(&g, &["--allow-loopback"]),
        &calls(&[get(&url_of("127.0.0.1", port), false)]),
    );
    assert_eq!(ok[0]["output"]["body"], "reached", "{}", ok[0]);
    let ok = env.jsonl(
        &run_args(&g, &["--allow-private"]),
        &calls(&[get(&url_of("127.0.0.1", port), false)]),
    );
    assert_eq!(
        code(&ok[0]),
        "policy.denied",
        "private does not open loopback"
    );
}

#[test]
fn every_redirect_hop_is_classified() {
    let env = TestEnv::new();
    let server = TestServer::start(move |req, _| match req.path.as_str() {
        "/hello" => Reply::new(200, "hello"),
        p => {
            let port: u16 = p.rsplit('/').next().unwrap().parse().unwrap();
            let target = if p.starts_with("/mapped/") {
                format!("http://[::ffff:127.0.0.1]:{port}/hello")
            } else if p.starts_with("/nat64/") {
                format!("http://[64:ff9b::7f00:1]:{port}/hello")
            } else {
                format!("http://[2002:7f00:1::1]:{port}/hello")
            };
            Reply::redirect(&target)
        }
    });
    let port = server.addr.port();
    let grants: Vec<String> = [
        "net:127.0.0.1",
        "net:::ffff:127.0.0.1",
        "net:64:ff9b::7f00:1",
        "net:2002:7f00:1::1",
    ]
    .map(String::from)
    .to_vec();
    let c: Vec<Value> = ["mapped", "nat64", "sixtofour"]
        .iter()
        .map(|k| get(&server.url(&format!("/{k}/{port}")), false))
        .collect();
    let rows = env.jsonl(
        &run_args(&grants, &["--allow-loopback", "--allow-private"]),
        &calls(&c),
    );
    for row in &rows {
        assert_eq!(code(row), "policy.denied", "{row}");
        assert_eq!(
            row["error"]["details"]["redirected_from"]
                .as_array()
                .map(Vec::len),
            Some(1),
            "{row}"
        );
    }
    // Only the three first hops reached the server.
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn net_grants_match_whole_labels_and_exact_addresses() {
    let env = TestEnv::new();
    let server = TestServer::start(|_, _| Reply::new(200, "reached"));
    let url = server.url("/x");
    let c = calls(&[get(&url, false)]);
    // Grants stored in a session (as an older bob or a note may have written them): partial
    // labels and near-miss addresses allow nothing.
    write_caps(
        &env,
        "s1",
        &[
            "net:1",
            "net:0.1",
            "net:0.0.1",
            "net:.1",
            "net:.com",
            "net:27.0.0.1",
            "net:127.0.0.10",
            "net:127.0.0",
        ],
    );
    env.json(&["tool", "enable", "--session", "s1", "http.get"], "");
    let v = env.jsonl(&["tool", "run", "--session", "s1", "--allow-loopback"], &c);
    assert_eq!(code(&v[0]), "policy.denied", "{}", v[0]);
    assert!(server.requests().is_empty());
    // The exact address, in any spelling the URL parser accepts, is allowed.
    for spelled in ["127.0.0.1", "127.1", "2130706433", "0x7f.0.0.1"] {
        let u = format!("http://{spelled}:{}/x", server.addr.port());
        let g = vec!["net:127.0.0.1".to_string()];
        let v = env.jsonl(
            &run_args(&g, &["--allow-loopback"]),
            &calls(&[get(&u, false)]),
        );
        assert_eq!(v[0]["output"]["body"], "reached", "{spelled}: {}", v[0]);
    }
    // A domain grant covers whole labels only (localhost resolves to loopback here).
    let u = format!("http://LocalHost:{}/x", server.addr.port());
    for (grant, ok) in [
        ("net:localhost", true),
        ("net:LOCALHOST.", true),
        ("net:calhost", false),
        ("net:host", false),
    ] {
        let g = vec![grant.to_string()];
        let v = env.jsonl(
            &run_args(&g, &["--allow-loopback"]),
            &calls(&[get(&u, false)]),
        );
        assert_eq!(v[0]["ok"].as_bool(), Some(ok), "{grant}: {}", v[0]);
    }
    // Granting a partial label is refused where grants are made.
    for bad in [
        "net:1",
        "net:0.1",
        "net:.com",
        "net:127.1",
        "net:*.example.com",
    ] {
        env.fails(
            &["caps", "grant", "--session", "s2", bad],
            "",
            2,
            "invalid.request",
        );
        let g = vec![bad.to_string()];
        let out = env
            .bob(&run_args(&g, &[]))
            .write_stdin(c.clone())
            .output()
            .unwrap();
        error_of(&out, 2, "invalid.request");
    }
    let v = env.json(&["caps", "grant", "--session", "s2", "net:example.com"], "");
    assert_eq!(v["granted"], json!(["net:example.com"]));
    // BOB_NET_ALLOWLIST follows the same rules: an IP entry is that address only, a partial
    // label is refused.
    write_caps(&env, "s3", &["net"]);
    env.json(&["tool", "enable", "--session", "s3", "http.get"], "");
    let with_allowlist = |list: &str| {
        env.bob(&["tool", "run", "--session", "s3", "--allow-loopback"])
            .env("BOB_NET_ALLOWLIST", list)
            .write_stdin(c.clone())
            .output()
            .unwrap()
    };
    let out = with_allowlist("example.com,127.0.0.10");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(code(&v), "policy.denied", "{v}");
    error_of(&with_allowlist("example.com,0.1"), 2, "invalid.request");
    let out = with_allowlist("example.com,127.0.0.1");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["output"]["body"], "reached", "{v}");
}

#[test]
fn a_cached_redirect_target_is_served_only_to_callers_allowed_every_hop() {
    let env = TestEnv::new();
    let b = TestServer::start_at("127.0.0.2", |_, n| Reply::new(200, format!("B body {n}")));
    let b_url = b.url("/b");
    let target = b_url.clone();
    let a = TestServer::start(move |_, _| Reply::redirect(&target));
    let a_url = a.url("/a");
    let both = vec!["net:127.0.0.1".to_string(), "net:127.0.0.2".to_string()];
    let only_a = vec!["net:127.0.0.1".to_string()];
    let only_b = vec!["net:127.0.0.2".to_string()];
    let lo = ["--allow-loopback"];
    // Caller 1, allowed both hosts, fetches A → B and fills the cache.
    let v = env.jsonl(&run_args(&both, &lo), &calls(&[get(&a_url, true)]));
    assert_eq!(
        (
            v[0]["output"]["body"].as_str(),
            v[0]["output"]["cached"].as_bool()
        ),
        (Some("B body 0"), Some(false)),
        "{}",
        v[0]
    );
    let v = env.jsonl(&run_args(&both, &lo), &calls(&[get(&a_url, true)]));
    assert_eq!(v[0]["output"]["cached"], true, "{}", v[0]);
    assert_eq!((a.requests().len(), b.requests().len()), (1, 1));
    // Caller 2, allowed only A's host, asks for A: refused, not served B's body.
    let v = env.jsonl(&run_args(&only_a, &lo), &calls(&[get(&a_url, true)]));
    assert_eq!(code(&v[0]), "policy.denied", "{}", v[0]);
    assert!(!v[0].to_string().contains("B body"), "{}", v[0]);
    assert_eq!(v[0]["error"]["details"]["cached"], true, "{}", v[0]);
    // Allowed both hosts but not loopback: the cached hop's address is re-checked too.
    let v = env.jsonl(&run_args(&both, &[]), &calls(&[get(&a_url, true)]));
    assert_eq!(code(&v[0]), "policy.denied", "{}", v[0]);
    // The entry is keyed by the final URL: a caller allowed B gets it for B directly.
    let v = env.jsonl(&run_args(&only_b, &lo), &calls(&[get(&b_url, true)]));
    assert_eq!(
        (
            v[0]["output"]["body"].as_str(),
            v[0]["output"]["cached"].as_bool()
        ),
        (Some("B body 0"), Some(true)),
        "{}",
        v[0]
    );
    assert_eq!((a.requests().len(), b.requests().len()), (1, 1));
}

fn cache_bytes(env: &TestEnv) -> Vec<u8> {
    let dir = env.home().join("cache");
    let mut all = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("http.db")
        {
            all.extend(std::fs::read(&p).unwrap());
        }
    }
    all
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn the_cache_holds_no_secret_and_never_mixes_urls_differing_in_one() {
    let env = TestEnv::new();
    let body_key = "sk-proj-CANARYbodyabcdefghijklmnopqrst";
    let server = TestServer::start(move |_, n| {
        Reply::new(200, format!("response {n}: here is {body_key} for you"))
    });
    let port = server.addr.port();
    let secret_q1 = "CANARYqueryKEY1111";
    let secret_q2 = "CANARYqueryKEY2222";
    let url_pw = "CANARYurlPassw0rd";
    let url1 = format!("http://bob:{url_pw}@127.0.0.1:{port}/s?page=2&api_key={secret_q1}");
    let url2 = format!("http://bob:{url_pw}@127.0.0.1:{port}/s?page=2&api_key={secret_q2}");
    let g = vec!["net:127.0.0.1".to_string()];
    let args = run_args(&g, &["--allow-loopback"]);
    let v = env.jsonl(&args, &calls(&[get(&url1, true)]));
    assert_eq!(v[0]["output"]["cached"], false, "{}", v[0]);
    assert!(
        v[0]["output"]["body"]
            .as_str()
            .unwrap()
            .starts_with("response 0")
    );
    // The same URL but another secret is a different entry: fetched live, not served 1's body.
    let v = env.jsonl(&args, &calls(&[get(&url2, true)]));
    assert_eq!(v[0]["output"]["cached"], false, "{}", v[0]);
    assert!(
        v[0]["output"]["body"]
            .as_str()
            .unwrap()
            .starts_with("response 1")
    );
    // Each is then a hit for itself, redacted.
    for (u, n) in [(&url1, 0), (&url2, 1)] {
        let v = env.jsonl(&args, &calls(&[get(u, true)]));
        let out = &v[0]["output"];
        assert_eq!(out["cached"], true, "{}", v[0]);
        let body = out["body"].as_str().unwrap();
        assert!(body.starts_with(&format!("response {n}")), "{body}");
        assert!(!body.contains(body_key), "{body}");
        assert!(!out.to_string().contains("CANARY"), "{out}");
        assert!(out["url"].as_str().unwrap().contains("page=2"), "{out}");
    }
    assert_eq!(server.requests().len(), 2);
    let bytes = cache_bytes(&env);
    assert!(
        contains(&bytes, "response 0"),
        "the bodies are in the cache"
    );
    for secret in [body_key, secret_q1, secret_q2, url_pw, "CANARY"] {
        assert!(!contains(&bytes, secret), "{secret} is in cache/http.db*");
    }
    // The lookup key lives outside the cache, owner-only.
    let key = env.home().join("keys/http-cache.key");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&key).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(std::fs::read(&key).unwrap().len(), 32);
}

#[test]
fn the_unredacted_cache_of_earlier_versions_is_wiped() {
    let env = TestEnv::new();
    let server = TestServer::start(|_, _| Reply::new(200, "fresh"));
    let dir = env.home().join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    {
        let conn = rusqlite::Connection::open(dir.join("http.db")).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.execute_batch(
            "CREATE TABLE http_cache (url TEXT PRIMARY KEY, fetched_at INTEGER NOT NULL, response TEXT NOT NULL);
             INSERT INTO http_cache VALUES ('https://x/?api_key=CANARYlegacyKEY', 0, '{\"body\":\"CANARYlegacyBODY\"}');",
        )
        .unwrap();
    }
    assert!(contains(&cache_bytes(&env), "CANARYlegacy"));
    let g = vec!["net:127.0.0.1".to_string()];
    let v = env.jsonl(
        &run_args(&g, &["--allow-loopback"]),
        &calls(&[get(&server.url("/f"), true)]),
    );
    assert_eq!(v[0]["output"]["body"], "fresh", "{}", v[0]);
    assert!(!contains(&cache_bytes(&env), "CANARYlegacy"));
}
