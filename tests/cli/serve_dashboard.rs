//! The dashboard as a place to talk to bob, through the real binary over loopback: the
//! conversation API (sessions, a session's history from its turn records, the next message as
//! a run in that session), every run of the home listed with its source (`bob turn`, the
//! scheduler, the server), the scheduler's liveness, the URL and token hint `bob serve` prints,
//! and the page itself in headless Chromium (a conversation, a 360 px viewport).

use crate::TestEnv;
use crate::serve::{Server, create, get, post, replay, req, status_is, token, wait_run};
use crate::turn::{sandbox, sandboxed_turn, script};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};

fn sources_of(runs: &Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["source"].as_str().unwrap().to_string(),
                r["session_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn runs_from_bob_turn_the_scheduler_and_the_server_are_all_listed_with_their_source() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "one answer for all");
    // A CLI turn, a scheduler tick's turn, then a served run.
    env.bob(&["turn", "--backend", &backend, "--session", "s-cli"])
        .write_stdin("hello from the terminal")
        .assert()
        .success();
    env.json(
        &["schedule", "add"],
        &json!({"id": "nightly", "agentID": "agent_default", "schedule": "@every 1m",
                "message": "status?"})
        .to_string(),
    );
    let tick = env
        .bob(&["schedule", "tick", "--timeout", "20s"])
        .env("BOB_NOW", "2026-02-15T00:01:00Z")
        .env("BOB_BACKEND", &backend)
        .output()
        .unwrap();
    assert!(
        tick.status.success(),
        "{}",
        String::from_utf8_lossy(&tick.stderr)
    );
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let served = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "message": "hello over http"}),
    );
    wait_run(a, &tok, &served, status_is("completed"));

    let all = get(a, "/api/admin/runs", &tok).json();
    assert_eq!(all["total"], 3, "{all}");
    assert_eq!(
        sources_of(&all),
        [
            ("cli".to_string(), "s-cli".to_string()),
            ("http".to_string(), served.clone()),
            ("schedule".to_string(), "job-nightly".to_string()),
        ]
    );
    let runs = all["runs"].as_array().unwrap();
    let cli = runs.iter().find(|r| r["source"] == "cli").unwrap();
    assert_eq!(cli["status"], "completed");
    assert_eq!(cli["message"], "hello from the terminal");
    assert_eq!(cli["output"], "one answer for all");
    assert_eq!(cli["queued_here"], false, "{cli}");
    let http = runs.iter().find(|r| r["source"] == "http").unwrap();
    assert_eq!(http["queued_here"], true, "{http}");
    // The queue's own listing keeps its contract: only the server's runs.
    assert_eq!(get(a, "/v1/runs", &tok).json()["total"], 1);
    // A run the server did not queue is shown from its bundle.
    let cli_id = cli["id"].as_str().unwrap();
    let shown = get(a, &format!("/api/admin/runs/{cli_id}"), &tok).json();
    assert_eq!(shown["record"]["output"], "one answer for all");
    assert_eq!(shown["request"]["source"], "cli");
    assert!(shown["events"].as_array().unwrap().len() >= 3, "{shown}");
    get(a, &format!("/v1/runs/{cli_id}"), &tok).error(404, "not_found");
    // Paging, and hostile parameters.
    let page = get(a, "/api/admin/runs?limit=1&offset=1", &tok).json();
    assert_eq!(page["runs"].as_array().unwrap().len(), 1);
    assert_eq!(page["total"], 3);
    assert_eq!(
        page["runs"][0]["id"], all["runs"][1]["id"],
        "newest first, paged"
    );
    for bad in [
        "limit=0",
        "limit=501",
        "limit=x",
        "offset=-1",
        "status=completed",
    ] {
        get(a, &format!("/api/admin/runs?{bad}"), &tok).error(400, "invalid.request");
    }
    get(a, "/api/admin/runs/run_nope", &tok).error(404, "not_found");
    get(a, "/api/admin/runs/..%2Fsecrets", &tok).error(400, "invalid.request");
    req(a, "GET", "/api/admin/runs", None, None).error(401, "policy.denied");
}

#[test]
fn a_session_is_a_conversation_its_history_comes_from_its_turn_records() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "Noted.");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let sid = "web-s1";
    let first = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "session_id": sid, "message": "first question"}),
    );
    wait_run(a, &tok, &first, status_is("completed"));
    // A turn of the same session from the terminal, with a tool call: it is part of the
    // conversation too.
    let root = sandbox(&env);
    std::fs::write(root.join("notes.txt"), "milk").unwrap();
    env.bob(&["tool", "enable", "--session", sid, "fs.list_dir"])
        .assert()
        .success();
    let spec = script(
        &env,
        &[
            json!({"role":"solo","content":"Let me look.","tool_calls":[{"id":"t1","tool":"fs.list_dir","args":{"path":"."}}]}),
            json!({"role":"solo","match":"notes.txt","content":"You have notes.txt."}),
        ],
    );
    let rec = sandboxed_turn(
        &env,
        &root,
        &["--backend", &spec, "--profile", "solo", "--session", sid],
        "what files do I have?",
    );
    assert_eq!(rec["output"], "You have notes.txt.");
    let second = create(
        a,
        &tok,
        json!({"agent_id": "agent_default", "session_id": sid, "message": "second question"}),
    );
    wait_run(a, &tok, &second, status_is("completed"));

    let sessions = get(a, "/api/admin/sessions", &tok).json();
    let s = &sessions["sessions"][0];
    assert_eq!(s["session_id"], sid, "most recent first: {sessions}");
    assert_eq!(s["runs"], 3, "{s}");
    assert_eq!(s["last_message"], "second question");
    assert_eq!(s["agent_id"], "agent_default");
    assert_eq!(s["revision"], 3, "each turn committed the checkpoint: {s}");

    let conv = get(a, &format!("/api/admin/sessions/{sid}/messages"), &tok).json();
    assert_eq!(conv["session_id"], sid);
    assert_eq!(conv["agent_id"], "agent_default");
    assert_eq!(conv["revision"], 3);
    let msgs = conv["messages"].as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "tool",
            "assistant",
            "user",
            "assistant"
        ],
        "{conv}"
    );
    assert_eq!(msgs[0]["content"], "first question");
    assert_eq!(msgs[0]["source"], "http");
    assert_eq!(msgs[0]["run_id"], first.as_str());
    assert_eq!(msgs[1]["content"], "Noted.");
    assert_eq!(msgs[1]["status"], "completed");
    assert_eq!(msgs[2]["content"], "what files do I have?");
    assert_eq!(msgs[2]["source"], "cli");
    assert_eq!(msgs[3]["tool_name"], "fs.list_dir");
    assert!(
        msgs[3]["output"].as_str().unwrap().contains("notes.txt"),
        "{}",
        msgs[3]
    );
    assert_eq!(msgs[4]["content"], "You have notes.txt.");
    assert_eq!(msgs[5]["content"], "second question");
    assert_eq!(msgs[6]["run_id"], second.as_str());
    // The served runs really ran in that session: the model saw the earlier turns.
    let second_req = env.json(&["runs", "show", &second], "");
    assert_eq!(second_req["record"]["session_id"], sid);

    // A `bob chat -s` exchange in the same session has no run: it is shown from the
    // checkpoint, after the run it followed, and nothing is shown twice.
    let llm = crate::support::openai::OpenAi::always("Chat says hi.");
    env.json(
        &[
            "chat",
            "--base-url",
            &llm.base_url(),
            "-s",
            sid,
            "a quick chat",
        ],
        "",
    );
    let conv = get(a, &format!("/api/admin/sessions/{sid}/messages"), &tok).json();
    let msgs = conv["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 9, "{conv}");
    assert_eq!(msgs[6]["run_id"], second.as_str());
    assert_eq!(msgs[7]["content"], "a quick chat");
    assert_eq!(msgs[8]["content"], "Chat says hi.");
    assert_eq!(msgs[8]["role"], "assistant");
    assert!(
        msgs[7..].iter().all(|m| m["from_checkpoint"] == true),
        "{conv}"
    );
    assert!(
        msgs[..7].iter().all(|m| m.get("from_checkpoint").is_none()),
        "{conv}"
    );

    // Hostile or unknown sessions; paging; scopes.
    get(a, "/api/admin/sessions/nope/messages", &tok).error(404, "not_found");
    get(a, "/api/admin/sessions/..%2Fx/messages", &tok).error(400, "invalid.request");
    get(a, "/api/admin/sessions?limit=0", &tok).error(400, "invalid.request");
    get(a, "/api/admin/sessions?room=1", &tok).error(400, "invalid.request");
    let chat_only = env.json(
        &["serve", "token", "create", "--name", "c", "--scope", "chat"],
        "",
    )["token"]
        .as_str()
        .unwrap()
        .to_string();
    get(a, "/api/admin/sessions", &chat_only).error(403, "policy.denied");
    get(
        a,
        &format!("/api/admin/sessions/{sid}/messages"),
        &chat_only,
    )
    .error(403, "policy.denied");
    req(a, "GET", "/api/admin/sessions", None, None).error(401, "policy.denied");
    // A message to an unknown session starts it; one naming a secret-shaped id is refused.
    let bad = post(
        a,
        "/v1/runs",
        &tok,
        &json!({"agent_id": "agent_default", "session_id": "../x", "message": "hi"}),
    );
    bad.error(400, "invalid.request");
}

#[test]
fn the_scheduler_counts_as_running_only_when_a_tick_began_recently() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "x");
    env.json(
        &["schedule", "add"],
        &json!({"id": "hourly", "agentID": "agent_default", "schedule": "@every 1h",
                "message": "status?"})
        .to_string(),
    );
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let v = get(a, "/api/admin/scheduler/jobs", &tok).json();
    assert_eq!(
        (&v["ticking"], &v["last_tick"]),
        (&json!(false), &Value::Null),
        "{v}"
    );
    // A tick long ago (a stopped cron): known, but not ticking.
    env.bob(&["schedule", "tick"])
        .env("BOB_NOW", "2026-01-01T00:00:00Z")
        .assert()
        .success();
    let v = get(a, "/api/admin/scheduler/jobs", &tok).json();
    assert_eq!(v["ticking"], false, "{v}");
    assert_eq!(v["last_tick"], "2026-01-01T00:00:00Z");
    // A tick now (nothing due: the job is first due an hour after it was added).
    let out = env.json(&["schedule", "tick"], "");
    assert_eq!(out["ran"], json!([]), "{out}");
    let v = get(a, "/api/admin/scheduler/jobs", &tok).json();
    assert_eq!(v["ticking"], true, "{v}");
    assert_eq!(v["jobs"][0]["id"], "hourly");
}

#[test]
fn bob_serve_prints_the_dashboard_url_and_how_to_get_a_token_on_stderr() {
    let env = TestEnv::new();
    let backend = replay(&env, "x");
    // stdout's first line stays the JSON ready line (Server::start parses it).
    let mut srv = Server::start(&env, &["--backend", &backend]);
    let mut err = BufReader::new(srv.child.stderr.take().unwrap());
    let mut text = String::new();
    for _ in 0..3 {
        err.read_line(&mut text).unwrap();
    }
    assert!(
        text.contains(&format!("http://{}/", srv.addr)),
        "no URL: {text}"
    );
    assert!(text.contains("has no token yet"), "{text}");
    let cmd = text.lines().nth(2).unwrap().trim().to_string();
    assert!(
        cmd.starts_with("bob --home ") && cmd.contains("serve token create"),
        "{text}"
    );
    // The command printed works as shown: it makes a token that the server accepts.
    let args = shlex::split(&cmd).unwrap();
    let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let made = env.json(&args, "");
    let tok = made["token"].as_str().unwrap();
    assert_eq!(get(srv.addr, "/api/admin/status", tok).status, 200);
    drop(srv);
    // Started again, it says a token exists.
    let mut srv = Server::start(&env, &["--backend", &backend]);
    let mut err = BufReader::new(srv.child.stderr.take().unwrap());
    let mut text = String::new();
    for _ in 0..2 {
        err.read_line(&mut text).unwrap();
    }
    assert!(text.contains("1 active token"), "{text}");
}

/// Where a test's screenshot goes: the file `var` names (`docs/…` for the README's copies), else
/// the test's home.
fn save_png(env: &TestEnv, var: &str, name: &str, png: &[u8], tok: &str) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(
        !String::from_utf8_lossy(png).contains(tok),
        "the token is in the picture's bytes"
    );
    let out = std::env::var_os(var)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| env.home().join(name));
    std::fs::write(&out, png).unwrap();
}

/// Whether the page, and the runs table within its box, fit the viewport's width.
const FITS: &str = "const d = document.documentElement; const t = document.getElementById('runs-table'); \
     return d.scrollWidth <= window.innerWidth && document.body.scrollWidth <= window.innerWidth \
       && t.getBoundingClientRect().right <= window.innerWidth + 0.5 \
       && t.scrollWidth <= t.parentElement.clientWidth";

/// The dashboard in a real headless Chromium as a place to talk to bob: start a session, send
/// two messages and see each answer (replay backend), both runs in that one session; open a
/// session whose turn called a tool (collapsed); the runs of `bob turn` are listed with their
/// source; at 360 and 420 px nothing scrolls sideways. Screenshots:
/// `BOB_DASHBOARD_SCREENSHOT=docs/dashboard.png`, `BOB_DASHBOARD_CHAT_SCREENSHOT=docs/dashboard-chat.png`.
#[test]
fn the_dashboard_in_headless_chromium_holds_a_conversation_and_fits_a_phone() {
    use crate::support::webdriver::Browser;
    let Some(browser) = Browser::start("the_dashboard_in_headless_chromium_holds_a_conversation")
    else {
        return;
    };
    let env = TestEnv::new();
    let tok = token(&env);
    // A terminal turn that called a tool, in session s-tools.
    let root = sandbox(&env);
    std::fs::write(root.join("deck.txt"), "4 Lightning Bolt").unwrap();
    env.bob(&["tool", "enable", "--session", "s-tools", "fs.list_dir"])
        .assert()
        .success();
    let spec = script(
        &env,
        &[
            json!({"role":"solo","content":"Let me look.","tool_calls":[{"id":"t1","tool":"fs.list_dir","args":{"path":"."}}]}),
            json!({"role":"solo","match":"deck.txt","content":"Your deck list is deck.txt."}),
        ],
    );
    sandboxed_turn(
        &env,
        &root,
        &[
            "--backend",
            &spec,
            "--profile",
            "solo",
            "--session",
            "s-tools",
        ],
        "where is my deck list?",
    );
    let backend = replay(&env, "Bolt the bird.");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;

    browser.goto(&format!("http://{a}/"));
    browser.type_into("#token", &tok);
    browser.click("#signin-form button");
    browser.wait_for("the app", "return !document.getElementById('app').hidden");
    // A new session, two messages, each answer in the conversation.
    browser.click("#chat-new");
    browser.wait_for(
        "the new session",
        "return document.getElementById('chat-info').textContent.includes('is new')",
    );
    let sid = browser.eval("return document.getElementById('chat-session').value");
    let sid = sid.as_str().unwrap().to_string();
    assert!(sid.starts_with("web-"), "{sid}");
    browser.type_into("#chat-message", "What should I bolt?");
    browser.click("#chat-send");
    let answered = |n: usize| {
        format!(
            "const a = [...document.querySelectorAll('#chat-log li.msg.assistant')]; \
             return a.length === {n} && a.every((li) => !li.classList.contains('pending') \
               && li.textContent === 'Bolt the bird.')"
        )
    };
    browser.wait_for("the first answer", &answered(1));
    browser.type_into("#chat-message", "And after that?");
    browser.click("#chat-send");
    browser.wait_for("the second answer", &answered(2));
    let users = browser.eval(
        "return [...document.querySelectorAll('#chat-log li.msg.user')].map((li) => li.textContent)",
    );
    assert_eq!(users, json!(["What should I bolt?", "And after that?"]));
    // Both were runs of that one session, as the server recorded them.
    let conv = get(a, &format!("/api/admin/sessions/{sid}/messages"), &tok).json();
    let runs: Vec<&str> = conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(runs.len(), 2, "{conv}");
    assert_eq!(conv["revision"], 2, "{conv}");
    for r in runs {
        assert_eq!(
            get(a, &format!("/v1/runs/{r}"), &tok).json()["session_id"],
            sid.as_str()
        );
    }
    // The chat survives a reload: the history comes back from the server.
    browser.goto(&format!("http://{a}/"));
    browser.wait_for("the history after a reload", &answered(2));
    let png = browser.screenshot();
    save_png(
        &env,
        "BOB_DASHBOARD_CHAT_SCREENSHOT",
        "dashboard-chat.png",
        &png,
        &tok,
    );

    // The terminal session: its tool call is there, collapsed.
    browser.wait_for(
        "s-tools in the session list",
        "return !!document.querySelector('#chat-session option[value=\"s-tools\"]')",
    );
    browser.eval(
        "const s = document.getElementById('chat-session'); s.value = 's-tools'; \
         s.dispatchEvent(new Event('change')); return true",
    );
    browser.wait_for(
        "the tool call, collapsed",
        "const d = document.querySelector('#chat-log li.tool details'); \
         return !!d && !d.open && d.querySelector('summary').textContent.includes('fs.list_dir')",
    );
    assert_eq!(
        browser.eval(
            "return [...document.querySelectorAll('#chat-log li.msg.assistant')].map((li) => li.textContent)"
        ),
        json!(["Your deck list is deck.txt."])
    );
    // Runs of every source are listed; the terminal one opens from its bundle.
    browser.wait_for(
        "the cli run in the list",
        "return !!document.querySelector('#runs tr[data-source=\"cli\"]')",
    );
    browser.click("#runs tr[data-source=\"cli\"]");
    browser.wait_for(
        "the cli run's detail",
        "return document.getElementById('detail-output').textContent === 'Your deck list is deck.txt.' \
           && document.getElementById('detail-status').textContent === '(completed)' \
           && document.getElementById('detail-cancel').hidden \
           && document.querySelectorAll('#detail-tools tr').length === 1",
    );
    // A phone: nothing scrolls sideways at 360 or 420 px.
    for w in [360, 420] {
        browser.viewport(Some((w, 800)));
        browser.wait_for(
            &format!("a {w} px viewport"),
            &format!("return document.documentElement.clientWidth === {w}"),
        );
        // A mobile viewport zooms out to fit wider content: innerWidth then exceeds it.
        let fits = format!("if (window.innerWidth !== {w}) return false; {FITS}");
        assert_eq!(browser.eval(&fits), json!(true), "overflow at {w} px");
    }
    browser.viewport(None);
    browser.eval("window.scrollTo(0, 0); return true");
    let png = browser.screenshot();
    save_png(
        &env,
        "BOB_DASHBOARD_SCREENSHOT",
        "dashboard.png",
        &png,
        &tok,
    );
}

/// With a slow model: the run detail opened while the run is live shows Cancel, and the
/// terminal event alone (no click, no reload) turns it into the finished run without Cancel;
/// the conversation shows that it waits on the model, then the answer; the scheduler's label
/// says "not running" until a tick happens, then "running".
#[test]
fn the_dashboard_follows_a_slow_run_to_its_end_and_labels_the_scheduler_honestly() {
    use crate::support::http::Reply;
    use crate::support::openai::{OpenAi, completion};
    use crate::support::webdriver::Browser;
    let Some(browser) = Browser::start("the_dashboard_follows_a_slow_run_to_its_end") else {
        return;
    };
    let env = TestEnv::new();
    let tok = token(&env);
    let llm = OpenAi::start(|_, _| {
        std::thread::sleep(std::time::Duration::from_millis(700));
        Reply::json(200, &completion("Slow answer."))
    });
    let srv = Server::start_on(&env, &[], &llm);
    let a = srv.addr;
    env.json(
        &["schedule", "add"],
        &json!({"id": "hourly", "agentID": "agent_default", "schedule": "@every 1h",
                "message": "status?"})
        .to_string(),
    );
    browser.goto(&format!("http://{a}/"));
    browser.type_into("#token", &tok);
    browser.click("#signin-form button");
    browser.wait_for("the app", "return !document.getElementById('app').hidden");
    browser.wait_for(
        "the scheduler labelled not running",
        "return document.getElementById('sched-state').textContent.startsWith('(not running')",
    );
    // A run queued from the page opens in the detail pane while it is live.
    browser.type_into("#run-message", "take your time");
    browser.click("#run-form button");
    browser.wait_for(
        "the live run with its Cancel button",
        "const s = document.getElementById('detail-status').textContent; \
         return (s === '(queued)' || s === '(running)') && !document.getElementById('detail-cancel').hidden",
    );
    browser.wait_for(
        "the finished run, without Cancel",
        "return document.getElementById('detail-status').textContent === '(completed)' \
           && document.getElementById('detail-cancel').hidden \
           && document.getElementById('detail-output').textContent === 'Slow answer.'",
    );
    // The conversation says what it waits on, then shows the answer.
    browser.click("#chat-new");
    browser.type_into("#chat-message", "slowly, please");
    browser.click("#chat-send");
    browser.wait_for(
        "the wait on the model",
        "return document.getElementById('chat-status').textContent.startsWith('waiting on the model')",
    );
    browser.wait_for(
        "the answer",
        "const a = document.querySelector('#chat-log li.msg.assistant'); \
         return !!a && a.textContent === 'Slow answer.' && !a.classList.contains('pending') \
           && document.getElementById('chat-status').textContent === ''",
    );
    // A tick now: the label turns to running (the page polls the jobs).
    env.json(&["schedule", "tick"], "");
    browser.wait_for(
        "the scheduler labelled running",
        "return document.getElementById('sched-state').textContent.startsWith('(running: last tick')",
    );
}

#[test]
fn the_conversation_shows_the_answer_while_the_run_still_streams_it() {
    use crate::support::http::Reply;
    use crate::support::openai::{OpenAi, completion, role_of, sse_events};
    use crate::support::webdriver::Browser;
    let Some(browser) = Browser::start("the_conversation_shows_the_answer_while_it_streams") else {
        return;
    };
    let env = TestEnv::new();
    let tok = token(&env);
    let first: String = (0..80).map(|i| format!("w{i} ")).collect();
    let llm = OpenAi::start(move |req, _| {
        if role_of(req) != "respond" {
            return Reply::json(200, &completion("plan: answer"));
        }
        // Most of the answer now, its end four seconds later.
        let mut r = Reply::sse(
            &sse_events(&[&first, "The end."]),
            std::time::Duration::ZERO,
        );
        for c in r.chunks.iter_mut().skip(2) {
            c.0 = std::time::Duration::from_secs(4);
        }
        r
    });
    let srv = Server::start_on(&env, &[], &llm);
    let a = srv.addr;
    browser.goto(&format!("http://{a}/"));
    browser.type_into("#token", &tok);
    browser.click("#signin-form button");
    browser.wait_for("the app", "return !document.getElementById('app').hidden");
    browser.click("#chat-new");
    browser.type_into("#chat-message", "tell me a long one");
    browser.click("#chat-send");
    browser.wait_for(
        "the answer's beginning",
        "const a = document.getElementById('chat-live'); \
         return !!a && a.textContent.startsWith('w0 w1 w2') && !a.classList.contains('pending')",
    );
    // The run is still going: its end has not arrived yet.
    let run_id = browser.eval("return document.getElementById('chat-live').dataset.run");
    let run = get(a, &format!("/v1/runs/{}", run_id.as_str().unwrap()), &tok).json();
    assert_eq!(run["status"], "running", "{run}");
    assert!(
        !browser
            .eval("return document.getElementById('chat-live').textContent")
            .as_str()
            .unwrap()
            .contains("The end."),
    );
    // At the end the audited answer replaces the streamed text.
    browser.wait_for(
        "the whole answer",
        "const a = document.querySelector('#chat-log li.msg.assistant'); \
         return !!a && a.textContent.endsWith('The end.') && a.textContent.startsWith('w0 w1') \
           && !a.classList.contains('pending') && document.getElementById('chat-status').textContent === ''",
    );
}
