//! Prompts as people type them and what a terminal shows of the answer (issue 27 items 1, 2
//! and the 401 truth of item 6): `bob chat "text"`, plain text on stdin, `--system`, `bob turn
//! "text"`, `-s`/`-c`, the answer-first terminal view with its footer, live streaming with a
//! spinner and retry lines, and pipes that keep the JSON exactly.

use crate::TestEnv;
use crate::support::http::Reply;
use crate::support::openai::{OpenAi, completion, sse_events};
use crate::support::pty::{self, On};
use serde_json::{Value, json};
use std::time::Duration;

/// Both stdout and stderr are the terminal, as in a person's shell.
const SHELL: On = On {
    stdout: true,
    stderr: true,
};

/// The messages of the request the server got.
fn messages(srv: &OpenAi, n: usize) -> Vec<(String, String)> {
    srv.requests()[n].json()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The reply to `req` as a real server gives it: SSE chunks when the request streams.
fn reply_to(req: &crate::support::http::Request, text: &str) -> Reply {
    if req.json()["stream"] == true {
        let mid = text.len() / 2;
        Reply::sse(
            &sse_events(&[&text[..mid], &text[mid..]]),
            Duration::from_millis(20),
        )
    } else {
        Reply::json(200, &completion(text))
    }
}

fn chat_args(srv: &OpenAi) -> Vec<String> {
    vec!["chat".into(), "--base-url".into(), srv.base_url()]
}

#[test]
fn plain_text_on_stdin_is_one_user_message() {
    let env = TestEnv::new();
    let srv = OpenAi::always("hello back");
    let args = chat_args(&srv);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = env.bob(&args).write_stdin("hi\n").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["message"]["content"], "hello back");
    assert_eq!(messages(&srv, 0), [("user".to_string(), "hi".to_string())]);
    // Text that opens like JSON must be JSON: a broken request is never sent as a prompt.
    env.fails(&args, "[{\"role\":", 2, "invalid.request");
    env.fails(&args, "  \n", 2, "invalid.request");
    assert_eq!(srv.requests().len(), 1);
}

#[test]
fn message_argument_system_and_model_flags() {
    let env = TestEnv::new();
    let srv = OpenAi::always("42");
    let url = srv.base_url();
    let out = env
        .bob(&[
            "chat",
            "--base-url",
            &url,
            "-m",
            "tiny",
            "--system",
            "be brief",
            "6x7?",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["message"]["content"], "42");
    assert_eq!(
        messages(&srv, 0),
        [
            ("system".to_string(), "be brief".to_string()),
            ("user".to_string(), "6x7?".to_string())
        ]
    );
    assert_eq!(srv.requests()[0].json()["model"], "tiny");
    // --system also goes before messages read from stdin.
    let out = env
        .bob(&["chat", "--base-url", &url, "--system", "S"])
        .write_stdin(r#"[{"role":"user","content":"u"}]"#)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        messages(&srv, 1)[0],
        ("system".to_string(), "S".to_string())
    );
    // A message argument and --input cannot both be the message.
    let out = env
        .bob(&["chat", "--base-url", &url, "--input", "x.json", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    env.fails(&["chat", "--base-url", &url, " "], "", 2, "invalid.request");
}

#[test]
fn turn_takes_the_message_as_an_argument_and_continues_the_last_session() {
    let env = TestEnv::new();
    let srv = OpenAi::always("noted");
    let url = srv.base_url();
    // No turn has run yet: nothing to continue.
    let err = env.fails(
        &["turn", "--base-url", &url, "-c", "again"],
        "",
        4,
        "not_found",
    );
    assert!(err["message"].as_str().unwrap().contains("no last session"));
    assert!(srv.requests().is_empty());

    let out = env
        .bob(&["turn", "--base-url", &url, "-s", "trip", "plan my trip"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["session_id"], "trip");
    assert_eq!(rec["output"], "noted");
    assert!(crate::support::openai::all_text(&srv.requests()[0]).contains("plan my trip"));

    let out = env
        .bob(&["turn", "--base-url", &url, "--continue", "and the hotel?"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["session_id"], "trip");
    assert_eq!(rec["revision"], 2, "the same session, one turn later");

    // Plain text on stdin is still the message; -s and -c exclude each other.
    let out = env
        .bob(&["turn", "--base-url", &url])
        .write_stdin("hi\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["session_id"], "default");
    let out = env
        .bob(&["turn", "--base-url", &url, "-s", "a", "-c", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn turn_system_instructions_reach_every_role_below_the_rules() {
    let env = TestEnv::new();
    let srv = OpenAi::always("bonjour");
    let url = srv.base_url();
    let rec = env.json(
        &[
            "turn",
            "--base-url",
            &url,
            "--system",
            "Answer in French.",
            "hi",
        ],
        "",
    );
    assert_eq!(rec["output"], "bonjour");
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 2, "think and respond");
    for r in &reqs {
        let first = r.json()["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_string();
        let rules = first.find("Rules (authoritative").unwrap();
        let mine = first
            .find("Answer in French.")
            .unwrap_or_else(|| panic!("{}: {first}", crate::support::openai::role_of(r)));
        assert!(mine > rules, "the person's text comes after bob's rules");
        // Only in the system message: never data in the user message.
        assert_eq!(
            crate::support::openai::all_text(r)
                .matches("Answer in French.")
                .count(),
            1
        );
    }
    // The turn input may carry it as `system`; without either, nothing is added.
    env.json(
        &["turn", "--base-url", &url],
        r#"{"session_id":"j","message":"hi","system":"Use haiku."}"#,
    );
    assert!(crate::support::openai::all_text(&srv.requests()[2]).contains("Use haiku."));
    env.json(&["turn", "--base-url", &url, "-s", "plain", "hi"], "");
    assert!(!crate::support::openai::all_text(&srv.requests()[4]).contains("person running"));
    // A blank instruction is a mistake, refused before any call.
    env.fails(
        &["turn", "--base-url", &url, "--system", " ", "hi"],
        "",
        2,
        "invalid.request",
    );
    assert_eq!(srv.requests().len(), 6);
    // Stage by stage, `bob context` places it where the turn does.
    let staged = env.json(
        &["context", "--role", "respond"],
        r#"{"session_id":"j","message":"hi","system":"Use haiku."}"#,
    );
    let first = staged["messages"][0]["content"].as_str().unwrap();
    let mine = first
        .find("Use haiku.")
        .expect("bob context carries --system");
    assert!(mine > first.find("Rules (authoritative").unwrap());
    assert_eq!(staged.to_string().matches("Use haiku.").count(), 1);
    let plain = env.json(
        &["context", "--role", "respond"],
        r#"{"session_id":"j","message":"hi"}"#,
    );
    assert!(!plain.to_string().contains("Use haiku."));
}

/// A served run's `system` goes where `bob turn --system` puts it: in every role's system
/// message, after bob's rules, once; the run's bundle keeps it in `request.json`, and a run
/// without it sends and records none.
#[test]
fn a_served_runs_system_text_reaches_every_role_below_the_rules() {
    use crate::serve::{Server, create, post, status_is, token, wait_run};
    let env = TestEnv::new();
    let tok = token(&env);
    let srv = OpenAi::start(|req, _| reply_to(req, "bonjour"));
    let server = Server::start_on(&env, &[], &srv);
    let a = server.addr;
    let id = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": "hi", "system": "Answer in French."}),
    );
    let run = wait_run(a, &tok, &id, status_is("completed"));
    assert_eq!(run["output"], "bonjour", "{run}");
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 2, "think and respond");
    for r in &reqs {
        let first = r.json()["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_string();
        let rules = first.find("Rules (authoritative").unwrap();
        let mine = first
            .find("Answer in French.")
            .unwrap_or_else(|| panic!("{}: {first}", crate::support::openai::role_of(r)));
        assert!(mine > rules, "the caller's text comes after bob's rules");
        assert_eq!(
            crate::support::openai::all_text(r)
                .matches("Answer in French.")
                .count(),
            1
        );
    }
    let shown = env.json(&["runs", "show", &id], "");
    assert_eq!(shown["request"]["system"], "Answer in French.", "{shown}");
    // Without it nothing is added, and the request is written as before.
    let plain = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": "hi"}),
    );
    wait_run(a, &tok, &plain, status_is("completed"));
    assert_eq!(srv.requests().len(), 4);
    for r in &srv.requests()[2..] {
        assert!(!crate::support::openai::all_text(r).contains("Answer in French."));
    }
    let shown = env.json(&["runs", "show", &plain], "");
    assert!(shown["request"].get("system").is_none(), "{shown}");
    // A blank or non-string instruction is refused and nothing is queued.
    for body in [
        json!({"agent_id": "agent_default", "message": "hi", "system": "  "}),
        json!({"agent_id": "agent_default", "message": "hi", "system": 7}),
    ] {
        let e = post(a, "/v1/runs", &tok, &body).error(400, "invalid.request");
        assert_eq!(e["details"]["field"], "system", "{e}");
    }
    assert_eq!(srv.requests().len(), 4);
}

#[test]
fn a_chat_messages_system_text_reaches_every_role_and_a_blank_one_is_refused() {
    use crate::serve::{Server, post, status_is, token, wait_run};
    let env = TestEnv::new();
    let tok = token(&env);
    let srv = OpenAi::start(|req, _| reply_to(req, "bonjour"));
    let server = Server::start_on(&env, &[], &srv);
    let a = server.addr;
    let body = |system: Value| {
        let mut b = json!({"user_id": "u1", "room_id": "r1", "agent_id": "agent_default",
            "message": "hi"});
        if !system.is_null() {
            b["system"] = system;
        }
        b
    };
    let r = post(
        a,
        "/v1/chat/messages",
        &tok,
        &body(json!("Answer in French.")),
    );
    assert_eq!(r.status, 202, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_string();
    let run = wait_run(a, &tok, &id, status_is("completed"));
    assert_eq!(run["output"], "bonjour", "{run}");
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 2, "think and respond");
    for r in &reqs {
        let first = r.json()["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_string();
        let rules = first.find("Rules (authoritative").unwrap();
        let mine = first.find("Answer in French.").unwrap();
        assert!(mine > rules, "the caller's text comes after bob's rules");
    }
    // A blank or non-string instruction is refused and nothing is queued.
    for bad in [json!("  "), json!(7)] {
        let e = post(a, "/v1/chat/messages", &tok, &body(bad)).error(400, "invalid.request");
        assert_eq!(e["details"]["field"], "system", "{e}");
    }
    assert_eq!(srv.requests().len(), 2);
    // Without it nothing is added.
    let r = post(a, "/v1/chat/messages", &tok, &body(Value::Null));
    let id = r.json()["id"].as_str().unwrap().to_string();
    wait_run(a, &tok, &id, status_is("completed"));
    for r in &srv.requests()[2..] {
        assert!(!crate::support::openai::all_text(r).contains("Answer in French."));
    }
}

#[test]
fn chat_talks_in_a_session_and_continues_the_last_one() {
    let env = TestEnv::new();
    let srv = OpenAi::start(|_, n| Reply::json(200, &completion(&format!("answer {n}"))));
    let url = srv.base_url();
    // Nothing to continue in a fresh home; without -s/-c a chat remembers nothing.
    let err = env.fails(&["chat", "--base-url", &url, "-c", "x"], "", 4, "not_found");
    assert!(err["message"].as_str().unwrap().contains("no last session"));
    env.json(&["chat", "--base-url", &url, "just once"], "");
    assert!(!env.path("last_session").exists());

    let v = env.json(
        &["chat", "--base-url", &url, "-s", "trip", "I go to Rome"],
        "",
    );
    assert_eq!(v["message"]["content"], "answer 1");
    assert_eq!(
        messages(&srv, 1),
        [("user".to_string(), "I go to Rome".to_string())]
    );
    let v = env.json(
        &[
            "chat",
            "--base-url",
            &url,
            "-c",
            "--system",
            "Be brief.",
            "where?",
        ],
        "",
    );
    assert_eq!(v["message"]["content"], "answer 2");
    let pair = |r: &str, c: &str| (r.to_string(), c.to_string());
    assert_eq!(
        messages(&srv, 2),
        [
            pair("system", "Be brief."),
            pair("user", "I go to Rome"),
            pair("assistant", "answer 1"),
            pair("user", "where?"),
        ]
    );
    // The session is a turn's session too: `bob turn -c` sees the chat's conversation.
    let rec = env.json(&["turn", "--base-url", &url, "-c", "and the hotel?"], "");
    assert_eq!(rec["session_id"], "trip");
    assert_eq!(rec["revision"], 3);
    let seen = crate::support::openai::all_text(&srv.requests()[3]);
    assert!(
        seen.contains("I go to Rome") && seen.contains("answer 2"),
        "{seen}"
    );
    // -s and -c exclude each other.
    let out = env
        .bob(&["chat", "--base-url", &url, "-s", "a", "-c", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A session id that breaks the rule is refused before any call.
    let n = srv.requests().len();
    env.fails(
        &["chat", "--base-url", &url, "-s", "../x", "hi"],
        "",
        2,
        "invalid.request",
    );
    assert_eq!(srv.requests().len(), n);
}

/// Drops escape sequences and carriage returns from what a terminal was sent.
fn plain(drawn: &str) -> String {
    let mut out = String::new();
    let mut chars = drawn.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else if c != '\r' {
            out.push(c);
        }
    }
    out
}

#[test]
fn on_a_terminal_chat_prints_the_answer_then_a_dim_footer() {
    let env = TestEnv::new();
    let srv = OpenAi::start(|req, _| {
        std::thread::sleep(Duration::from_millis(300));
        reply_to(req, "The answer is 42.")
    });
    let url = srv.base_url();
    // The spinner turns while the server thinks.
    let mut cmd = env.std_command(&["chat", "--base-url", &url, "6x7?"]);
    cmd.env("BOB_CHAT_MODEL", "m1");
    let Some(d) = pty::run(cmd, SHELL, None) else {
        return;
    };
    assert_eq!(d.code, Some(0), "{}", d.terminal_text());
    let text = plain(&d.terminal_text());
    assert!(!text.contains('{'), "no JSON on a terminal: {text:?}");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let answer = lines
        .iter()
        .position(|l| l.ends_with("The answer is 42."))
        .unwrap();
    assert_eq!(
        answer + 2,
        lines.len(),
        "the answer, then only the footer: {lines:?}"
    );
    let footer = lines[answer + 1];
    assert!(footer.contains("5 tokens"), "{footer}");
    assert!(footer.contains(" s"), "{footer}");
    // The footer is dim; nothing of the spinner is drawn after the answer.
    let raw = d.terminal_text();
    assert!(raw.contains("\x1b[2m"), "{raw:?}");
    let after = &raw[raw.find("The answer is 42.").unwrap()..];
    assert!(
        !after.contains("waiting"),
        "spinner after the answer: {after:?}"
    );
}

#[test]
fn on_a_terminal_the_answer_streams_as_it_arrives() {
    let env = TestEnv::new();
    let events = sse_events(&["Hel", "lo ", "world"]);
    let srv = OpenAi::start(move |_, _| Reply::sse(&events, Duration::from_millis(30)));
    let url = srv.base_url();
    let Some(d) = pty::run(
        env.std_command(&["chat", "--base-url", &url, "hi"]),
        SHELL,
        None,
    ) else {
        return;
    };
    assert_eq!(d.code, Some(0), "{}", d.terminal_text());
    // Streaming is the default on a terminal when the backend can stream.
    assert_eq!(srv.requests()[0].json()["stream"], true);
    let text = plain(&d.terminal_text());
    assert_eq!(
        text.matches("Hello world").count(),
        1,
        "printed once: {text:?}"
    );
    assert!(
        !text.contains("event"),
        "no JSON events on a terminal: {text:?}"
    );
    assert!(!text.contains("content"), "{text:?}");
    assert!(text.contains("5 tokens"), "{text:?}");

    // Piped: the JSON Lines events exactly as before, no escape codes.
    let out = env
        .bob(&["chat", "--base-url", &url, "--stream", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!out.stdout.contains(&0x1b) && !out.stderr.contains(&0x1b));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0], json!({"event": "delta", "content": "Hel"}));
    assert_eq!(lines.last().unwrap()["event"], "done");
}

#[test]
fn a_retry_is_one_line_on_the_terminal_and_nothing_when_piped() {
    let env = TestEnv::new();
    let script = || {
        OpenAi::start(|req, n| match n {
            0 => Reply::json(429, &json!({"error":{"message":"slow down"}}))
                .header("Retry-After", "1"),
            _ => reply_to(req, "finally"),
        })
    };
    let srv = script();
    let url = srv.base_url();
    let Some(d) = pty::run(
        env.std_command(&["chat", "--base-url", &url, "hi"]),
        SHELL,
        None,
    ) else {
        return;
    };
    assert_eq!(d.code, Some(0), "{}", d.terminal_text());
    let text = plain(&d.terminal_text());
    assert!(
        text.contains("retrying in 1 s: 429 from 127.0.0.1"),
        "{text:?}"
    );
    let retry = text.find("retrying").unwrap();
    assert!(text.find("finally").unwrap() > retry);

    let srv = script();
    let url = srv.base_url();
    let out = env
        .bob(&["chat", "--base-url", &url, "hi"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["attempts"], 2);
}

#[test]
fn a_turn_on_a_terminal_shows_its_answer_not_its_record() {
    let env = TestEnv::new();
    let srv = OpenAi::start(|req, _| {
        let role = crate::support::openai::role_of(req);
        let text = if role == "respond" {
            "Pack light: three shirts and one jacket will do for a week."
        } else {
            "plan: answer briefly"
        };
        let stream = req.json()["stream"] == true;
        if stream {
            Reply::sse(
                &sse_events(&[&text[..20], &text[20..]]),
                Duration::from_millis(20),
            )
        } else {
            Reply::json(200, &completion(text))
        }
    });
    let url = srv.base_url();
    let Some(d) = pty::run(
        env.std_command(&["turn", "--base-url", &url, "-s", "trip", "what to pack?"]),
        SHELL,
        None,
    ) else {
        return;
    };
    assert_eq!(d.code, Some(0), "{}", d.terminal_text());
    let text = plain(&d.terminal_text());
    assert!(!text.contains("run_id") && !text.contains('{'), "{text:?}");
    assert_eq!(
        text.matches("three shirts and one jacket").count(),
        1,
        "{text:?}"
    );
    assert!(
        !text.contains("plan: answer"),
        "a non-final role's text is not the answer"
    );
    assert!(text.contains("session trip"), "{text:?}");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.last().unwrap().contains("session trip"), "{lines:?}");
    // The record is kept all the same.
    let turns = std::fs::read_to_string(env.home().join("turns.jsonl")).unwrap();
    assert!(turns.contains("three shirts"));
}

#[test]
fn a_refused_key_is_not_retried_and_says_none_was_sent() {
    let env = TestEnv::new();
    let srv = OpenAi::script(vec![Reply::json(
        401,
        &json!({"error":{"message":"Incorrect API key provided"}}),
    )]);
    let url = srv.base_url();
    let err = env.fails(&["chat", "--base-url", &url, "hi"], "", 6, "upstream.error");
    assert_eq!(err["retryable"], false);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("no API key was sent"),
        "{err}"
    );
    assert_eq!(srv.requests().len(), 1);
    // With a key, the server's word stands, without the hint; 403 alike.
    let srv = OpenAi::script(vec![Reply::json(
        403,
        &json!({"error":{"message":"forbidden"}}),
    )]);
    let url = srv.base_url();
    let out = env
        .bob(&["chat", "--base-url", &url, "hi"])
        .env("BOB_CHAT_API_KEY", "sk-test-abcdefghijklmnop")
        .output()
        .unwrap();
    let err = crate::env::error_of(&out, 6, "upstream.error");
    assert_eq!(err["retryable"], false);
    assert!(!err["message"].as_str().unwrap().contains("no API key"));
    assert_eq!(srv.requests().len(), 1);
}

#[test]
fn usage_errors_are_clap_text_on_a_terminal_and_json_when_piped() {
    let env = TestEnv::new();
    let Some(d) = pty::run(
        env.std_command(&["chat", "--no-such-flag"]),
        On {
            stdout: false,
            stderr: true,
        },
        None,
    ) else {
        return;
    };
    assert_eq!(d.code, Some(2));
    let text = plain(&d.terminal_text());
    assert!(
        text.contains("unexpected argument '--no-such-flag'"),
        "{text:?}"
    );
    assert!(text.contains("Usage:"), "{text:?}");
    assert!(!text.contains("{\"error\""), "{text:?}");
    let out = env.bob(&["chat", "--no-such-flag"]).output().unwrap();
    let err = crate::env::error_of(&out, 2, "invalid.request");
    assert!(err["details"]["usage"].as_str().unwrap().contains("Usage:"));
}

#[test]
fn ctrl_c_on_a_terminal_keeps_what_was_received_and_exits_130() {
    let env = TestEnv::new();
    // One piece arrives, then the server stalls for a minute.
    let events = sse_events(&["Partial answer so far", " and the rest"]);
    let srv = OpenAi::start(move |_, _| {
        let mut r = Reply::sse(&events, Duration::ZERO);
        for c in r.chunks.iter_mut().skip(2) {
            c.0 = Duration::from_secs(60);
        }
        r
    });
    let url = srv.base_url();
    let when = |seen: &[u8]| String::from_utf8_lossy(seen).contains("Partial answer");
    let interrupt = |pid: u32| {
        // SAFETY: signals the child this test spawned.
        unsafe { libc::kill(pid as i32, libc::SIGINT) };
    };
    let start = std::time::Instant::now();
    let Some(d) = pty::run_acting(
        env.std_command(&["chat", "--base-url", &url, "hi"]),
        SHELL,
        None,
        Some((&when, &interrupt)),
    ) else {
        return;
    };
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "Ctrl-C did not stop the call"
    );
    assert_eq!(d.code, Some(130), "{}", d.terminal_text());
    let text = plain(&d.terminal_text());
    assert!(text.contains("Partial answer so far"), "{text:?}");
    assert!(!text.contains("the rest"), "{text:?}");
    assert!(text.contains("run.cancelled"), "{text:?}");
    // The text received stays on its own line, before the error.
    let partial = text.find("Partial answer").unwrap();
    let err = text.find("run.cancelled").unwrap();
    assert!(text[partial..err].contains('\n'), "{text:?}");
}

#[test]
fn a_turn_on_a_terminal_shows_the_answer_while_it_still_arrives() {
    let env = TestEnv::new();
    let first = "The first line of the answer arrives at once.\n";
    let srv = OpenAi::start(move |req, _| {
        if crate::support::openai::role_of(req) != "respond" {
            return reply_to(req, "plan: answer");
        }
        // The answer's first line now, the rest two seconds later.
        let mut r = Reply::sse(&sse_events(&[first, "And then the rest."]), Duration::ZERO);
        for c in r.chunks.iter_mut().skip(2) {
            c.0 = Duration::from_secs(2);
        }
        r
    });
    let url = srv.base_url();
    let still_running = std::sync::atomic::AtomicBool::new(false);
    let when = |seen: &[u8]| String::from_utf8_lossy(seen).contains("arrives at once");
    let check = |pid: u32| {
        // Not yet waited for, an ended child is a zombie: state Z in /proc/PID/stat.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next();
        let alive = matches!(state, Some(s) if s != "Z" && s != "X");
        still_running.store(alive, std::sync::atomic::Ordering::SeqCst);
    };
    let Some(d) = pty::run_acting(
        env.std_command(&["turn", "--base-url", &url, "--stream", "hi"]),
        SHELL,
        None,
        Some((&when, &check)),
    ) else {
        return;
    };
    assert_eq!(d.code, Some(0), "{}", d.terminal_text());
    assert!(
        still_running.load(std::sync::atomic::Ordering::SeqCst),
        "the answer's first line showed only once the turn had ended"
    );
    let text = plain(&d.terminal_text());
    assert_eq!(text.matches("arrives at once").count(), 1, "{text:?}");
    assert_eq!(text.matches("And then the rest.").count(), 1, "{text:?}");
}

#[test]
fn a_panda_turn_on_a_terminal_streams_the_solvers_final_answer_only() {
    let env = TestEnv::new();
    let head = r#"{"analysis":"private musing","requests":[],"tool_intent":null,"needs_more_context":false,"final":"The first line of the panda answer.\n"#;
    let tail = r#"And the rest \"quoted\"."}"#;
    let srv = OpenAi::start(move |req, _| {
        if crate::support::openai::role_of(req) != "solver" {
            return reply_to(req, r#"{"plan":["answer the user"],"notes":{}}"#);
        }
        if req.json()["stream"] != true {
            return Reply::json(200, &completion(&format!("{head}{tail}")));
        }
        // The answer's first line now, the rest two seconds later.
        let mut r = Reply::sse(&sse_events(&[head, tail]), Duration::ZERO);
        for c in r.chunks.iter_mut().skip(2) {
            c.0 = Duration::from_secs(2);
        }
        r
    });
    let url = srv.base_url();
    let still_running = std::sync::atomic::AtomicBool::new(false);
    let when = |seen: &[u8]| String::from_utf8_lossy(seen).contains("first line of the panda");
    let check = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next();
        let alive = matches!(state, Some(s) if s != "Z" && s != "X");
        still_running.store(alive, std::sync::atomic::Ordering::SeqCst);
    };
    let Some(d) = pty::run_acting(
        env.std_command(&["turn", "--base-url", &url, "--profile", "panda", "hi"]),
        SHELL,
        None,
        Some((&when, &check)),
    ) else {
        return;
    };
    assert_eq!(d.code, Some(0), "{}", d.terminal_text());
    // Streaming is the default on a terminal for panda too.
    assert!(srv.requests().iter().all(|r| r.json()["stream"] == true));
    assert!(
        still_running.load(std::sync::atomic::Ordering::SeqCst),
        "the Solver's first line showed only once the turn had ended"
    );
    let text = plain(&d.terminal_text());
    assert_eq!(
        text.matches("first line of the panda answer.").count(),
        1,
        "{text:?}"
    );
    assert_eq!(
        text.matches("And the rest \"quoted\".").count(),
        1,
        "{text:?}"
    );
    for hidden in ["analysis", "private musing", "{", "needs_more_context"] {
        assert!(!text.contains(hidden), "{hidden} shown: {text:?}");
    }
    // Piped, the record's answer is the same text.
    let rec = env.json(
        &[
            "turn",
            "--base-url",
            &url,
            "--profile",
            "panda",
            "--stream",
            "hi",
        ],
        "",
    );
    assert_eq!(
        rec["output"],
        "The first line of the panda answer.\nAnd the rest \"quoted\"."
    );
}
