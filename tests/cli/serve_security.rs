//! `bob serve` under attack (issue 23, W1, W2 and the low items), through the real binary over
//! loopback: token scopes, the config API's allowlist, masked values in a config round trip,
//! secrets bound to the origin they were set for, and connection hygiene.

use crate::TestEnv;
use crate::serve::{Server, get, post, read_answer, replay, req, request_bytes};
use crate::support::domain as fx;
use crate::support::openai::OpenAi;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A token with `scopes` (none: `bob serve token create`'s default).
fn token(env: &TestEnv, scopes: &[&str]) -> String {
    let mut args = vec!["serve", "token", "create", "--name", "t"];
    for s in scopes {
        args.extend_from_slice(&["--scope", s]);
    }
    env.json(&args, "")["token"].as_str().unwrap().to_string()
}

/// Polls `GET /v1/runs/{id}` until the run has ended (20 s at most).
fn wait_ended(addr: SocketAddr, tok: &str, id: &str) -> Value {
    let t = Instant::now();
    loop {
        let v = get(addr, &format!("/v1/runs/{id}"), tok).json();
        if !matches!(v["status"].as_str(), Some("queued" | "running")) {
            return v;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "never ended: {v}");
        std::thread::sleep(Duration::from_millis(30));
    }
}

fn create(addr: SocketAddr, tok: &str) -> String {
    let r = post(
        addr,
        "/v1/runs",
        tok,
        &json!({"agent_id": "agent_default", "message": "hi"}),
    );
    assert_eq!(r.status, 202, "{}", r.text());
    r.json()["id"].as_str().unwrap().to_string()
}

fn config_text(env: &TestEnv) -> String {
    std::fs::read_to_string(env.home().join("config.toml")).unwrap_or_default()
}

#[test]
fn each_route_needs_a_scope_and_a_token_from_before_scopes_keeps_them_all() {
    let env = TestEnv::new();
    let backend = replay(&env, "ok");
    // `create` without --scope: runs, chat and read, not admin.
    let made = env.json(&["serve", "token", "create", "--name", "d"], "");
    assert_eq!(made["scopes"], json!(["runs", "chat", "read"]));
    let default = made["token"].as_str().unwrap().to_string();
    let runs = token(&env, &["runs"]);
    let chat = token(&env, &["chat"]);
    let read = token(&env, &["read"]);
    let admin = token(&env, &["admin"]);
    let both = token(&env, &["runs,read"]);
    let listed = env.jsonl(&["serve", "token", "list"], "");
    assert_eq!(listed[5]["scopes"], json!(["runs", "read"]));
    env.fails(
        &["serve", "token", "create", "--scope", "root"],
        "",
        2,
        "invalid.request",
    );
    // A token written before scopes existed (no `scopes` field) keeps every scope.
    let legacy = token(&env, &["admin"]);
    let path = env.home().join("serve/tokens.json");
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let last = file["tokens"].as_array_mut().unwrap().last_mut().unwrap();
    last.as_object_mut().unwrap().remove("scopes");
    std::fs::write(&path, file.to_string()).unwrap();
    assert_eq!(
        env.jsonl(&["serve", "token", "list"], "")[6]["scopes"],
        json!(["runs", "chat", "read", "admin"])
    );

    let srv = Server::start_env(&env, &["--backend", &backend], &[]);
    let a = srv.addr;
    let run_body = json!({"agent_id": "agent_default", "message": "hi"});
    let chat_body = json!({"user_id": "u", "room_id": "r", "agent_id": "agent_default",
                           "message": "hi"});
    let job = json!({"id": "j", "agent_id": "a", "schedule": "@every 1h", "message": "m"});
    // (token, POST /v1/runs, POST chat, GET /v1/runs, GET admin status, POST admin job)
    let cases: [(&str, &str, [bool; 5]); 7] = [
        ("default", &default, [true, true, true, true, false]),
        ("runs", &runs, [true, false, true, false, false]),
        ("chat", &chat, [false, true, false, false, false]),
        ("read", &read, [false, false, true, true, false]),
        ("admin", &admin, [true, true, true, true, true]),
        ("runs,read", &both, [true, false, true, true, false]),
        ("legacy", &legacy, [true, true, true, true, true]),
    ];
    for (i, (name, tok, allowed)) in cases.iter().enumerate() {
        let mut job = job.clone();
        job["id"] = json!(format!("j{i}"));
        let answers = [
            post(a, "/v1/runs", tok, &run_body),
            post(a, "/v1/chat/messages", tok, &chat_body),
            get(a, "/v1/runs", tok),
            get(a, "/api/admin/status", tok),
            post(a, "/api/admin/scheduler/jobs", tok, &job),
        ];
        for (r, ok) in answers.iter().zip(allowed) {
            if *ok {
                assert!(r.status < 300, "{name}: {} {}", r.status, r.text());
            } else {
                let e = r.error(403, "policy.denied");
                assert!(e["message"].as_str().unwrap().contains("scope"), "{e}");
            }
        }
    }
    // A chat token follows the run its message queued.
    let r = post(a, "/v1/chat/messages", &chat, &chat_body);
    let id = r.json()["id"].as_str().unwrap().to_string();
    assert_eq!(get(a, &format!("/v1/runs/{id}"), &chat).status, 200);
    // Cancelling is a runs act.
    post(a, &format!("/v1/runs/{id}/cancel"), &read, &json!({})).error(403, "policy.denied");
}

#[test]
fn w1_no_token_sets_a_command_tool_rule_or_url_over_http_and_the_next_tick_runs_nothing() {
    let env = TestEnv::new();
    let admin = token(&env, &["admin"]);
    std::fs::create_dir_all(env.home()).unwrap();
    std::fs::write(
        env.home().join("config.toml"),
        "[chat]\nmodel = \"m1\"\n\n[schedule]\nturn_cmd = \"echo {}\"\n",
    )
    .unwrap();
    let before = config_text(&env);
    let backend = replay(&env, "ok");
    let srv = Server::start_env(&env, &["--backend", &backend], &[]);
    let a = srv.addr;
    let pwned = env.path("pwned.txt");
    let current = get(a, "/api/admin/config", &admin).json()["config"].clone();
    let with = |table: &str, key: &str, v: Value| {
        let mut c = current.clone();
        if c.get(table).is_none() {
            c[table] = json!({});
        }
        c[table][key] = v;
        json!({ "config": c })
    };
    let attacks = [
        with(
            "schedule",
            "turn_cmd",
            json!(format!("id > {}; echo {{}} ", pwned.display())),
        ),
        with("tools", "roots", json!(["/"])),
        with("tools", "sandbox", json!("weak")),
        with("tools", "shell_rules", json!("/tmp/rules.json")),
        with("tools", "allow_loopback", json!(true)),
        with("redact", "rules", json!("/nonexistent/rules")),
        with("domain", "scryfall_base_url", json!("http://127.0.0.1:9")),
        with("domain", "serpapi_base_url", json!("http://127.0.0.1:9")),
        with("chat", "base_url", json!("http://127.0.0.1:9/v1")),
        with("chat", "backend", json!("replay:/etc/passwd")),
        with("chat", "api_key", json!("secret:github")),
        with("chat", "api_key_env", json!("HOME")),
        with("mtg", "route_remote", json!(true)),
        with("serve", "bind", json!("0.0.0.0:80")),
        // Removing a machine-only setting is a change too.
        json!({"config": {"chat": {"model": "m1"}}}),
    ];
    for attack in &attacks {
        let e = post(a, "/api/admin/config", &admin, attack).error(403, "policy.denied");
        assert!(e["details"]["settings"].is_array(), "{e}");
        assert_eq!(
            config_text(&env),
            before,
            "the config was written: {attack}"
        );
    }
    let e = post(a, "/api/admin/config", &admin, &attacks[0]).error(403, "policy.denied");
    assert_eq!(e["details"]["settings"], json!(["schedule.turn_cmd"]));
    // The allowlisted ones still change over HTTP.
    let r = post(
        a,
        "/api/admin/config",
        &admin,
        &with("chat", "model", json!("m2")),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(config_text(&env).contains("m2"));
    // The rest of the reproduction: a job through the API, then the next tick runs no `id`.
    let job = json!({"id": "j", "agent_id": "a", "schedule": "@every 1h", "message": "m"});
    assert_eq!(
        post(a, "/api/admin/scheduler/jobs", &admin, &job).status,
        201
    );
    let out = env
        .bob(&["schedule", "tick", "--timeout", "20s"])
        .env("BOB_NOW", "2026-02-15T02:00:00Z")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!pwned.exists(), "the tick ran the command set over HTTP");
}

#[test]
fn a_config_round_trip_never_writes_a_mask_and_a_new_masked_value_is_refused() {
    let env = TestEnv::new();
    let admin = token(&env, &["admin"]);
    std::fs::create_dir_all(env.home()).unwrap();
    let pw = "Zq7-url-password-81x";
    std::fs::write(
        env.home().join("config.toml"),
        format!(
            "[chat]\nmodel = \"m1\"\napi_key = \"sk-live-config-key-0123456789abcdef\"\n\n\
             [domain]\nsearxng_url = \"https://bob:{pw}@search.example/\"\n"
        ),
    )
    .unwrap();
    let backend = replay(&env, "ok");
    let srv = Server::start_env(&env, &["--backend", &backend], &[]);
    let a = srv.addr;
    let r = get(a, "/api/admin/config", &admin);
    assert!(!r.text().contains(pw), "{}", r.text());
    let mut cfg = r.json()["config"].clone();
    let url = cfg["domain"]["searxng_url"].as_str().unwrap().to_string();
    assert!(url.contains("[REDACTED]"), "{url}");
    // GET → POST: the masked URL and the blank key keep their stored values.
    cfg["chat"]["model"] = json!("m2");
    let r = post(a, "/api/admin/config", &admin, &json!({ "config": cfg }));
    assert_eq!(r.status, 200, "{}", r.text());
    let text = config_text(&env);
    assert!(
        text.contains(pw) && text.contains("sk-live-config-key") && text.contains("m2"),
        "{text}"
    );
    assert!(!text.contains("[REDACTED]"), "{text}");
    // A mask that is not what the stored value masks to is refused, never written.
    cfg["identity"] = json!({"creator": "me [REDACTED]"});
    post(a, "/api/admin/config", &admin, &json!({ "config": cfg })).error(400, "invalid.request");
    let mut moved = r.json()["config"].clone();
    moved["domain"]["searxng_url"] = json!(url.replace("search.example", "evil.example"));
    let e = post(a, "/api/admin/config", &admin, &json!({ "config": moved }));
    assert!(matches!(e.status, 400 | 403), "{}", e.text());
    assert_eq!(config_text(&env), text);
}

const GITHUB: &str = "ghp_0123456789abcdefABCDEF0123456789abcd";

/// Whether every call `llm` got (at least one) carried the secret as its bearer token.
fn got_the_secret(llm: &OpenAi) -> bool {
    let reqs = llm.requests();
    !reqs.is_empty()
        && reqs
            .iter()
            .all(|r| r.header("authorization") == Some(&format!("Bearer {GITHUB}")))
}

#[test]
fn w2_a_secret_goes_only_to_the_origin_it_was_set_for() {
    let env = TestEnv::new();
    let admin = token(&env, &["admin"]);
    env.json(&["secrets", "set", "github"], GITHUB);
    let good = OpenAi::always("fine");
    let evil = OpenAi::always("thanks");
    std::fs::write(
        env.home().join("config.toml"),
        format!(
            "[chat]\nbase_url = \"{}\"\napi_key = \"secret:github\"\nmodel = \"m\"\n",
            good.base_url()
        ),
    )
    .unwrap();
    let srv = Server::start_env(&env, &[], &[]);
    let a = srv.addr;
    // First use binds the secret to the configured origin.
    let id = create(a, &admin);
    assert_eq!(wait_ended(a, &admin, &id)["status"], "completed");
    assert!(got_the_secret(&good));
    let origin = good.base_url().trim_end_matches("/v1").to_string();
    assert_eq!(
        env.jsonl(&["secrets", "list"], "")[0]["bound_to"],
        origin.as_str()
    );
    // Over HTTP the base URL cannot move, whatever the key says.
    let mut cfg = get(a, "/api/admin/config", &admin).json()["config"].clone();
    for key in [json!(""), json!("[REDACTED]"), json!("secret:github")] {
        cfg["chat"]["base_url"] = json!(evil.base_url());
        cfg["chat"]["api_key"] = key;
        let e = post(a, "/api/admin/config", &admin, &json!({ "config": cfg }))
            .error(403, "policy.denied");
        assert!(
            e["details"]["settings"]
                .as_array()
                .unwrap()
                .contains(&json!("chat.base_url"))
        );
    }
    // Moved by any other way (by hand, an older bob), the secret is refused there.
    let moved = config_text(&env).replace(&good.base_url(), &evil.base_url());
    std::fs::write(env.home().join("config.toml"), moved).unwrap();
    let id = create(a, &admin);
    let run = wait_ended(a, &admin, &id);
    assert_eq!(run["status"], "failed", "{run}");
    assert_eq!(run["error"]["code"], "policy.denied", "{run}");
    assert!(
        run["error"]["message"]
            .as_str()
            .unwrap()
            .contains("chat.base_url"),
        "{run}"
    );
    assert!(evil.requests().is_empty(), "the secret's call went out");
    // Set again at the machine for the new origin, it goes there.
    env.json(
        &["secrets", "set", "github", "--for", &evil.base_url()],
        GITHUB,
    );
    let id = create(a, &admin);
    assert_eq!(wait_ended(a, &admin, &id)["status"], "completed");
    assert!(got_the_secret(&evil));
    env.fails(
        &["secrets", "set", "github", "--for", "ftp://x"],
        GITHUB,
        2,
        "invalid.request",
    );
}

#[test]
fn w2_the_serpapi_key_goes_only_to_the_origin_it_was_set_for() {
    const KEY: &str = "sk_serp_fixture_0123456789abcdef";
    let env = TestEnv::new();
    env.json(
        &["secrets", "set", "serp", "--for", "https://serpapi.com"],
        KEY,
    );
    let serp = fx::serpapi(KEY);
    let call = json!({"id": "c1", "tool": "game.knowledge_search",
                      "args": {"query": "burn deck", "game": "mtg"}});
    let run = |env: &TestEnv| -> Value {
        let out = env
            .bob(&["tool", "run", "--enable-all", "--grant", "net:127.0.0.1"])
            .env("BOB_SERPAPI_BASE_URL", serp.url(""))
            .env("SERPAPI_API_KEY", "secret:serp")
            .write_stdin(format!("{call}\n"))
            .output()
            .unwrap();
        crate::env::jsonl_of(&out, &["tool", "run"])[0].clone()
    };
    let r = run(&env);
    assert_eq!(r["error"]["code"], "policy.denied", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("domain.serpapi_base_url"),
        "{r}"
    );
    assert!(serp.requests().is_empty(), "the key went out");
    env.json(&["secrets", "set", "serp", "--for", &serp.url("")], KEY);
    let r = run(&env);
    assert_eq!(r["output"]["provider"], "serpapi", "{r}");
}

/// A connection to `to` from the loopback address `src` (127.0.0.0/8 is all this host's).
fn connect_from(src: std::net::Ipv4Addr, to: SocketAddr) -> TcpStream {
    use std::os::fd::FromRawFd;
    let SocketAddr::V4(to) = to else {
        panic!("not IPv4: {to}")
    };
    let sockaddr = |ip: std::net::Ipv4Addr, port: u16| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(ip.octets()),
        },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: a fresh socket, plain sockaddr_in values that outlive the calls; the descriptor
    // is owned by the TcpStream from here on.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let from = sockaddr(src, 0);
        let rc = libc::bind(fd, (&from as *const libc::sockaddr_in).cast(), len);
        assert_eq!(rc, 0, "bind {src}: {}", std::io::Error::last_os_error());
        let dest = sockaddr(*to.ip(), to.port());
        let rc = libc::connect(fd, (&dest as *const libc::sockaddr_in).cast(), len);
        assert_eq!(rc, 0, "connect: {}", std::io::Error::last_os_error());
        TcpStream::from_raw_fd(fd)
    }
}

#[test]
fn idle_sockets_of_one_address_cannot_keep_healthz_from_another() {
    let env = TestEnv::new();
    let backend = replay(&env, "ok");
    // The defaults (1,024 connections, 128 per address), but an idle socket is closed only
    // after 20 s here, so the check below falls within the idle sockets' life.
    let srv = Server::start_env(
        &env,
        &["--backend", &backend],
        &[("BOB_SERVE_HEADER_TIMEOUT", "20")],
    );
    let a = srv.addr;
    // The issue's reproduction: 1,030 idle sockets from one address.
    let idle: Vec<TcpStream> = (0..1030).map(|_| TcpStream::connect(a).unwrap()).collect();
    // Another address is answered at once (before any idle socket's 20 s are up).
    let mut s = connect_from(std::net::Ipv4Addr::new(127, 0, 0, 2), a);
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(&request_bytes(a, "GET", "/healthz", None, None))
        .unwrap();
    let r = read_answer(s);
    assert_eq!((r.status, r.json()), (200, json!({"ok": true})));
    // The first address got its 128; each one over them a 503 and a closed connection.
    let mut refused = 0;
    for mut s in idle.into_iter().skip(128) {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).expect("closed by the server");
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("HTTP/1.1 503"), "{text}");
        assert!(text.contains("max_connections_per_ip"), "{text}");
        refused += 1;
    }
    assert_eq!(refused, 902);
}

#[test]
fn a_connection_that_sends_no_request_head_is_closed_after_the_header_timeout() {
    let env = TestEnv::new();
    let backend = replay(&env, "ok");
    let srv = Server::start_env(
        &env,
        &["--backend", &backend],
        &[("BOB_SERVE_HEADER_TIMEOUT", "1")],
    );
    let a = srv.addr;
    for first in [&b""[..], b"GET /healthz HTTP/1.1\r\nHost: x\r\n"] {
        let mut s = TcpStream::connect(a).unwrap();
        s.write_all(first).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out)
            .expect("the server closes an idle connection");
        assert!(!String::from_utf8_lossy(&out).contains("200 OK"), "{out:?}");
    }
    // A kept-alive connection idle after its answer is closed too.
    let mut s = TcpStream::connect(a).unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out)
        .expect("the server closes an idle kept-alive connection");
    assert!(String::from_utf8_lossy(&out).starts_with("HTTP/1.1 200"));
}

#[test]
fn an_event_stream_ends_after_its_limit_while_the_run_still_runs() {
    let env = TestEnv::new();
    let tok = token(&env, &[]);
    let hung = OpenAi::start(|_, _| crate::support::http::Reply::hang());
    let url = hung.base_url();
    let srv = Server::start_env(
        &env,
        &[],
        &[
            ("BOB_CHAT_BASE_URL", url.as_str()),
            ("BOB_CHAT_MODEL", "m"),
            ("BOB_SERVE_SSE_MAX", "1"),
        ],
    );
    let a = srv.addr;
    let id = create(a, &tok);
    let t = Instant::now();
    while hung.requests().is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the run never called"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut s = TcpStream::connect(a).unwrap();
    s.write_all(&request_bytes(
        a,
        "GET",
        &format!("/v1/runs/{id}/events"),
        Some(&tok),
        None,
    ))
    .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).expect("the stream ends");
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("text/event-stream"), "{text}");
    assert_eq!(
        get(a, &format!("/v1/runs/{id}"), &tok).json()["status"],
        "running"
    );
}

#[test]
fn the_chat_limit_keys_on_the_normalised_sender_per_room_and_runs_on_the_token() {
    let env = TestEnv::new();
    let tok = token(&env, &[]);
    let other = token(&env, &[]);
    let backend = replay(&env, "ok");
    let srv = Server::start_env(
        &env,
        &["--backend", &backend, "--chat-rate", "2"],
        &[("BOB_SERVE_RUN_RATE", "5")],
    );
    let a = srv.addr;
    let msg = |tok: &str, user: &str, room: &str| {
        post(
            a,
            "/v1/chat/messages",
            tok,
            &json!({"user_id": user, "room_id": room, "agent_id": "agent_default",
                    "message": "hi"}),
        )
    };
    assert_eq!(msg(&tok, "alice", "r1").status, 202);
    assert_eq!(msg(&tok, "Alice", "r1").status, 202);
    for alias in ["alice1", "alice.", "ALICE", "alice-2"] {
        let e = msg(&tok, alias, "r1").error(429, "chat.rate_limited");
        assert!(
            e["retry_after_seconds"].as_u64().unwrap() >= 1,
            "{alias}: {e}"
        );
    }
    // Another sender, or another room, has its own allowance.
    assert_eq!(msg(&tok, "bob", "r1").status, 202);
    assert_eq!(msg(&tok, "alice", "r2").status, 202);
    // Five runs a minute for this token, chat messages included: two more, then 429.
    let run = json!({"agent_id": "agent_default", "message": "hi"});
    assert_eq!(post(a, "/v1/runs", &tok, &run).status, 202);
    post(a, "/v1/runs", &tok, &run).error(429, "chat.rate_limited");
    msg(&tok, "carol", "r3").error(429, "chat.rate_limited");
    // Another token is not held back by it.
    assert_eq!(post(a, "/v1/runs", &other, &run).status, 202);
}

#[test]
fn a_bad_redaction_rule_file_stops_the_server_at_start_with_a_clear_error() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.home()).unwrap();
    std::fs::write(env.home().join("redact.rules"), "([unclosed\n").unwrap();
    let e = env.fails(
        &["serve", "--bind", "127.0.0.1:0"],
        "",
        2,
        "invalid.request",
    );
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("redaction rules"), "{msg}");
    assert!(
        msg.contains("not a valid") || msg.contains("regex") || msg.contains("unclosed"),
        "{msg}"
    );
    assert!(
        e["details"]["path"]
            .as_str()
            .unwrap()
            .ends_with("redact.rules"),
        "{e}"
    );
    // Fixed, it starts.
    std::fs::write(env.home().join("redact.rules"), "secret-[0-9]+\n").unwrap();
    let backend = replay(&env, "ok");
    let srv = Server::start_env(&env, &["--backend", &backend], &[]);
    assert_eq!(req(srv.addr, "GET", "/healthz", None, None).status, 200);
}
