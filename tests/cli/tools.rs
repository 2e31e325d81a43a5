//! `bob tool`: registry, input shapes, sandbox escapes, shell policy, http.get, audit,
//! failure loop — through the real binary.

use crate::TestEnv;
use crate::support::http::{Reply, TestServer};
use crate::support::{code, write_caps};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const CANARY: &str = "CANARY-OUTSIDE-7f3a9";

/// A sandbox root with a file inside and a secret outside, plus hostile links.
fn setup(env: &TestEnv) -> PathBuf {
    let root = env.path("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("hello.txt"), "hello inside\n").unwrap();
    std::fs::write(root.join("sub/inner.txt"), "inner\n").unwrap();
    let outside = env.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), CANARY).unwrap();
    let sym =
        |target: &str, link: &str| std::os::unix::fs::symlink(target, root.join(link)).unwrap();
    sym("../outside/secret.txt", "rel_out");
    sym(&outside.join("secret.txt").display().to_string(), "abs_out");
    sym("../outside", "dir_out");
    sym("chain2", "chain1");
    sym("chain3", "chain2");
    sym("../outside/secret.txt", "chain3");
    sym("/nonexistent/nowhere", "dangling");
    sym("/proc/self/root", "proc_root");
    sym("/proc/self/cwd", "proc_cwd");
    sym("loop_b", "loop_a");
    sym("loop_a", "loop_b");
    sym("sub/../../outside/secret.txt", "sneaky");
    sym("hello.txt", "ok_link");
    root
}

/// The arguments of `bob tool run --enable-all --root ROOT EXTRA…`.
fn tool_run<'a>(root: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "tool",
        "run",
        "--enable-all",
        "--root",
        root.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args
}

fn run(env: &TestEnv, root: &Path, extra: &[&str], stdin: &str) -> Vec<Value> {
    env.jsonl(&tool_run(root, extra), stdin)
}

fn call(tool: &str, args: Value) -> String {
    json!([{"id": "t1", "tool": tool, "args": args}]).to_string()
}

#[test]
fn list_and_schema_publish_the_registry() {
    let env = TestEnv::new();
    let rows = env.jsonl(&["tool", "list"], "");
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "fs.read_text",
            "fs.list_dir",
            "fs.write_text",
            "shell.exec",
            "http.get",
            "scryfall.lookup",
            "steam.game_lookup",
            "game.knowledge_search",
            "news.headline_search",
            "web.fetch_text",
            "bom.normalize",
            "commerce.search_offers",
            "docs.write_spreadsheet",
            "bom.build",
            "web.search",
            "mtg.state",
            "mtg.actions",
            "mtg.act"
        ]
    );
    let s = env.json(&["tool", "schema", "fs.read_text"], "");
    assert_eq!(
        s["input_schema"]["properties"]["max_bytes"]["default"],
        20000
    );
    assert_eq!(s["input_schema"]["required"], json!(["path"]));
    assert_eq!(
        env.json(&["tool", "schema", "file.create"], "")["name"],
        "fs.write_text"
    );
    env.fails(&["tool", "schema", "fs.delete"], "", 4, "tool.not_found");
}

#[test]
fn tools_are_disabled_by_default_and_say_how_to_enable_them() {
    let env = TestEnv::new();
    let root = setup(&env);
    let c = call("fs.read_text", json!({"path": "hello.txt"}));
    let r = env.jsonl(&["tool", "run"], &c);
    assert_eq!(code(&r[0]), "policy.denied");
    assert!(
        r[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--enable"),
        "{}",
        r[0]
    );
    let r = env.jsonl(&["tool", "run", "--enable", "fs.read_text"], &c);
    assert_eq!(code(&r[0]), "sandbox.required");
    let msg = r[0]["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("--root")
            && msg.contains("BOB_TOOL_SANDBOX_ENABLED=1")
            && msg.contains("BOB_TOOL_ROOTS"),
        "{msg}"
    );
    // Roots without the switch are not enough; with it they are.
    let out = env
        .bob(&["tool", "run", "--enable", "fs.read_text"])
        .env("BOB_TOOL_ROOTS", &root)
        .write_stdin(c.clone())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(code(&v), "sandbox.required");
    let out = env
        .bob(&["tool", "run", "--enable", "fs.read_text"])
        .env(
            "BOB_TOOL_ROOTS",
            format!("{},/nonexistent-but-unused", root.display())
                .split(',')
                .next()
                .unwrap(),
        )
        .env("BOB_TOOL_SANDBOX_ENABLED", "1")
        .write_stdin(c.clone())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["output"]["text"], "hello inside\n");
}

#[test]
fn session_enable_and_disable_are_stored_per_session() {
    let env = TestEnv::new();
    let root = setup(&env);
    let c = call("fs.read", json!({"path": "hello.txt"}));
    let r = root.to_str().unwrap();
    let t = env.json(&["tool", "enable", "--session", "s1", "fs.read"], "");
    assert_eq!(t["enabled"], json!(["fs.read_text"]));
    assert!(env.home().join("sessions/s1/tools.json").exists());
    let v = env.jsonl(&["tool", "run", "--session", "s1", "--root", r], &c);
    assert_eq!(v[0]["ok"], true, "{}", v[0]);
    // Another session has nothing enabled.
    let v = env.jsonl(&["tool", "run", "--session", "s2", "--root", r], &c);
    assert_eq!(code(&v[0]), "policy.denied");
    assert!(
        v[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("bob tool enable --session s2")
    );
    env.json(&["tool", "disable", "--session", "s1", "fs.read_text"], "");
    let v = env.jsonl(&["tool", "run", "--session", "s1", "--root", r], &c);
    assert_eq!(code(&v[0]), "policy.denied");
    env.fails(
        &["tool", "enable", "--session", "s1", "fs.delete"],
        "",
        4,
        "tool.not_found",
    );
    env.fails(
        &["tool", "enable", "--session", "../x", "fs.read_text"],
        "",
        2,
        "invalid.request",
    );
}

/// ≥ 50 escape attempts through every fs tool: none may succeed or show the canary.
#[test]
fn path_escape_corpus_has_zero_escapes() {
    let env = TestEnv::new();
    let root = setup(&env);
    let outside = env.path("outside");
    let abs_secret = outside.join("secret.txt").display().to_string();
    let pid = std::process::id();
    let mut paths: Vec<String> = vec![
        "../outside/secret.txt".into(),
        "../../outside/secret.txt".into(),
        "./../outside/secret.txt".into(),
        "sub/../../outside/secret.txt".into(),
        "sub/../sub/../../outside/secret.txt".into(),
        "sub/./../../outside/secret.txt".into(),
        "..".into(),
        "../".into(),
        "../..".into(),
        "../../../../../../../../etc/passwd".into(),
        "....//outside/secret.txt".into(),
        "..%2foutside%2fsecret.txt".into(),
        "%2e%2e/outside/secret.txt".into(),
        "..\\outside\\secret.txt".into(),
        "sub/../../outside/./secret.txt".into(),
        "sub//..//..//outside//secret.txt".into(),
        "/etc/passwd".into(),
        "/etc/shadow".into(),
        abs_secret.clone(),
        format!("{}/../outside/secret.txt", root.display()),
        format!("{}/sub/../../outside/secret.txt", root.display()),
        format!("//{}", abs_secret.trim_start_matches('/')),
        "/".into(),
        "/proc/self/root/etc/passwd".into(),
        format!("/proc/self/root{abs_secret}"),
        format!("/proc/self/cwd/outside/secret.txt"),
        format!("/proc/{pid}/root{abs_secret}"),
        format!("/proc/{pid}/cwd/outside/secret.txt"),
        "/proc/self/fd/0".into(),
        "/proc/self/fd/3".into(),
        "/proc/self/environ".into(),
        "/dev/stdin".into(),
        "/dev/zero".into(),
        "rel_out".into(),
        "abs_out".into(),
        "dir_out/secret.txt".into(),
        "dir_out/../outside/secret.txt".into(),
        "./dir_out/secret.txt".into(),
        "sub/../dir_out/secret.txt".into(),
        "chain1".into(),
        "chain2".into(),
        "chain3".into(),
        "dangling".into(),
        "proc_root/etc/passwd".into(),
        format!("proc_root{abs_secret}"),
        "proc_cwd/outside/secret.txt".into(),
        "proc_cwd/../outside/secret.txt".into(),
        "loop_a".into(),
        "sneaky".into(),
        "hello.txt/../../outside/secret.txt".into(),
        "hello.txt\0../outside".into(),
        "~/secret.txt".into(),
        "dir_out".into(),
    ];
    for i in 0..4 {
        paths.push(format!("/proc/self/fd/{i}/secret.txt"));
    }
    assert!(paths.len() >= 50, "{}", paths.len());
    let mut calls = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        calls.push(json!({"id": format!("r{i}"), "tool": "fs.read_text", "args": {"path": p}}));
        calls.push(json!({"id": format!("l{i}"), "tool": "fs.list_dir", "args": {"path": p}}));
        calls.push(json!({"id": format!("w{i}"), "tool": "fs.write_text", "args": {"path": format!("{p}/pwned.txt"), "text": "x"}}));
        calls.push(json!({"id": format!("o{i}"), "tool": "fs.write_text", "args": {"path": p, "text": "x", "overwrite": true}}));
    }
    calls.push(json!({"id": "ok", "tool": "fs.read_text", "args": {"path": "ok_link"}}));
    let out = env
        .bob(&tool_run(&root, &[]))
        .write_stdin(Value::Array(calls.clone()).to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains(CANARY), "canary escaped");
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), calls.len());
    // Names that only look encoded (`..%2f…`, `..\\…`) are ordinary file names inside the
    // root: creating one is allowed, and must land inside the root.
    let literal = ["..%2foutside%2fsecret.txt", "..\\outside\\secret.txt"];
    for r in &rows[..rows.len() - 1] {
        let id = r["request_id"].as_str().unwrap();
        if r["ok"] == true {
            let p = r["output"]["path"].as_str().unwrap();
            // Or overwrite=true replaced a symlink in the root by a file (never its target).
            assert!(
                id.starts_with('o') && (literal.contains(&p) || !p.contains('/')),
                "escape succeeded: {r}"
            );
            let meta = std::fs::symlink_metadata(root.join(p)).unwrap();
            assert!(meta.is_file(), "{r}");
            assert_eq!(std::fs::read_to_string(root.join(p)).unwrap(), "x");
            continue;
        }
        let c = code(r);
        assert!(
            [
                "policy.denied",
                "not_found",
                "invalid.request",
                "tool.input_invalid",
                "conflict"
            ]
            .contains(&c),
            "{id}: {r}"
        );
    }
    assert_eq!(rows.last().unwrap()["output"]["text"], "hello inside\n");
    // Nothing was written outside, and the secret is intact.
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        CANARY
    );
    assert!(!outside.join("pwned.txt").exists());
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    assert!(!Path::new("/etc/pwned.txt").exists());
}

/// A thread flips `race` between a regular file and a symlink to the secret while bob reads
/// it in a loop: the canary must never be read.
#[test]
fn symlink_swap_race_never_escapes() {
    let env = TestEnv::new();
    let root = setup(&env);
    let target = env.path("outside/secret.txt");
    let race = root.join("race");
    std::fs::write(&race, "inside").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (stop2, race2, root2) = (stop.clone(), race.clone(), root.clone());
    let flipper = std::thread::spawn(move || {
        let mut n = 0u64;
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
            let tmp = root2.join(format!(".tmp{}", n % 2));
            let _ = std::fs::remove_file(&tmp);
            if n.is_multiple_of(2) {
                let _ = std::os::unix::fs::symlink(&target, &tmp);
            } else {
                let _ = std::fs::write(&tmp, "inside");
            }
            let _ = std::fs::rename(&tmp, &race2);
            n += 1;
        }
        n
    });
    let calls: Vec<Value> = (0..300)
        .map(|i| json!({"id": format!("c{i}"), "tool": "fs.read_text", "args": {"path": "race"}}))
        .collect();
    let stdin = Value::Array(calls).to_string();
    let mut reads_ok = 0;
    let mut denied = 0;
    for _ in 0..5 {
        let rows = run(&env, &root, &[], &stdin);
        for r in rows {
            assert!(!r.to_string().contains(CANARY), "escape: {r}");
            if r["ok"] == true {
                assert_eq!(r["output"]["text"], "inside");
                reads_ok += 1;
            } else {
                denied += 1;
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let flips = flipper.join().unwrap();
    assert!(flips > 10, "the flipper did not run ({flips})");
    assert!(
        reads_ok > 0 && denied > 0,
        "the race was not exercised: ok {reads_ok}, denied {denied}"
    );
}

#[test]
fn write_text_refuses_to_overwrite_unless_asked_and_writes_atomically() {
    let env = TestEnv::new();
    let root = setup(&env);
    let r = run(
        &env,
        &root,
        &[],
        &call("fs.write_text", json!({"path": "hello.txt", "text": "new"})),
    );
    assert_eq!(code(&r[0]), "conflict");
    let r = run(
        &env,
        &root,
        &[],
        &call(
            "fs.write_text",
            json!({"path": "hello.txt", "text": "new", "overwrite": true}),
        ),
    );
    assert_eq!(r[0]["ok"], true, "{}", r[0]);
    assert_eq!(
        std::fs::read_to_string(root.join("hello.txt")).unwrap(),
        "new"
    );
    // Overwriting a symlink replaces the link, never its outside target.
    let r = run(
        &env,
        &root,
        &[],
        &call(
            "fs.write_text",
            json!({"path": "rel_out", "text": "x", "overwrite": true}),
        ),
    );
    assert_eq!(r[0]["ok"], true, "{}", r[0]);
    assert_eq!(
        std::fs::read_to_string(env.path("outside/secret.txt")).unwrap(),
        CANARY
    );
    let r = run(&env, &root, &[], &call("fs.list_dir", json!({})));
    let names: Vec<&str> = r[0]["output"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"hello.txt") && names.contains(&"sub"),
        "{names:?}"
    );
    assert!(!names.iter().any(|n| n.contains("bob-tmp")));
    let r = run(
        &env,
        &root,
        &[],
        &call("fs.read_text", json!({"path": "hello.txt", "max_bytes": 2})),
    );
    assert_eq!(r[0]["output"]["text"], "ne");
    assert_eq!(r[0]["output"]["truncated"], true);
}

#[test]
fn a_wire_name_is_refused_in_bobs_formats_naming_the_tool_and_read_back_in_openai_calls() {
    let env = TestEnv::new();
    let root = setup(&env);
    // bob's own formats take bob's names: the wire form is refused, naming the tool meant.
    let calls = json!([
        {"id": "a", "tool": "fs-read_text", "args": {"path": "hello.txt"}},
        {"request_id": "b", "tool": "fs-read_text", "input": {"path": "hello.txt"}},
        {"id": "c", "action": "fs-read_text", "payload": {"path": "hello.txt"}},
        // An OpenAI function call is where wire names belong: read back to fs.read_text.
        {"id": "d", "type": "function",
         "function": {"name": "fs-read_text", "arguments": "{\"path\":\"hello.txt\"}"}},
        {"id": "e", "tool": "fs-nothing", "args": {}}
    ]);
    let r = run(&env, &root, &[], &calls.to_string());
    for v in &r[..3] {
        assert_eq!(code(v), "tool.not_found", "{v}");
        assert_eq!(v["error"]["details"]["bob_name"], "fs.read_text", "{v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("wire form of \"fs.read_text\"") && msg.contains("not executed"),
            "{msg}"
        );
    }
    assert_eq!(r[3]["ok"], true, "{}", r[3]);
    assert_eq!(r[3]["tool"], "fs.read_text", "{}", r[3]);
    assert_eq!(code(&r[4]), "tool.not_found");
    assert!(
        r[4]["error"]["details"].get("bob_name").is_none(),
        "{}",
        r[4]
    );
    // Enabling by wire name is refused the same way.
    let e = env.fails(
        &["tool", "enable", "--session", "s1", "fs-read_text"],
        "",
        4,
        "tool.not_found",
    );
    assert_eq!(e["details"]["bob_name"], "fs.read_text", "{e}");
}

#[test]
fn unknown_tools_are_never_executed_and_inputs_are_validated() {
    let env = TestEnv::new();
    let root = setup(&env);
    let calls = json!([
        {"id": "a", "tool": "fs.delete", "args": {"path": "hello.txt"}},
        {"id": "b", "tool": "fs.read_text", "args": {"path": 5}},
        {"id": "c", "tool": "fs.read_text", "args": {"path": "hello.txt", "mode": "rw"}},
        {"id": "d", "tool": "fs.read_text", "args": {}},
        {"id": "e", "tool": "shell.exec", "args": {"cmd": "ls", "timeout_s": "soon"}},
        {"id": "f", "tool": "fs.read_text", "args": {"path": "hello.txt"}}
    ]);
    let r = run(&env, &root, &[], &calls.to_string());
    assert_eq!(code(&r[0]), "tool.not_found");
    assert!(root.join("hello.txt").exists());
    for v in &r[1..5] {
        assert_eq!(code(v), "tool.input_invalid", "{v}");
    }
    assert!(
        r[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown field"),
        "{}",
        r[2]
    );
    assert_eq!(r[5]["ok"], true);
    assert!(r[0].get("output").is_none() && r[0]["error"]["message"].is_string());
    // Envelope ids that would be path tricks refuse the whole input before anything runs
    // (`crate::ids`; more in `ids::`).
    let bad = json!({"request_id": "z", "agent_id": "../../etc", "tool": "fs.read_text", "input": {"path": "hello.txt"}});
    let err = env.fails(
        &tool_run(&root, &[]),
        &bad.to_string(),
        2,
        "invalid.request",
    );
    assert_eq!(err["details"]["field"], "agent_id", "{err}");
    assert!(!env.home().join("etc").exists() && !env.path("etc").exists());
}

#[test]
fn duplicate_ids_refuse_the_whole_response_and_run_nothing() {
    let env = TestEnv::new();
    let root = setup(&env);
    let calls = json!([
        {"id": "x", "tool": "fs.write_text", "args": {"path": "made.txt", "text": "1"}},
        {"id": "x", "tool": "fs.read_text", "args": {"path": "hello.txt"}}
    ]);
    env.fails(
        &tool_run(&root, &[]),
        &calls.to_string(),
        2,
        "invalid.request",
    );
    assert!(!root.join("made.txt").exists());
    env.fails(&["tool", "run"], "not json at all", 2, "invalid.request");
    env.fails(&["tool", "run"], "", 2, "invalid.request");
    env.fails(&["tool", "run"], "[1,2]", 2, "invalid.request");
}

#[test]
fn every_input_shape_is_accepted() {
    let env = TestEnv::new();
    let root = setup(&env);
    let read = json!({"path": "hello.txt"});
    let shapes = [
        // Openclawssy envelope, one and JSON Lines
        json!({"request_id": "q1", "run_id": "run_x", "agent_id": "agent_x", "tool": "fs.read", "input": read, "timeout_ms": 5000, "created_at": "2026-02-15T00:00:00Z"}).to_string(),
        format!("{}\n{}\n", json!({"request_id": "q1", "tool": "fs.read_text", "input": read}), json!({"request_id": "q2", "tool": "fs.list_dir", "input": {}})),
        // Spectator array and marker block inside text
        json!([{"id": "t1", "tool": "fs.read_text", "args": read}]).to_string(),
        format!("Let me look.\n<<<TOOL_CALLS_JSON>>>\n{}\n<<<END_TOOL_CALLS_JSON>>>\nDone.", json!([{"id": "t1", "tool": "fs.read_text", "args": read}])),
        // JSON I/O tool_intent alone and inside a Solver output
        json!({"action": "fs.read_text", "payload": read}).to_string(),
        json!({"analysis": "x", "needs_more_context": false, "tool_intent": {"action": "file.create", "payload": {"file_path": "made.txt", "content": "hi"}}}).to_string(),
        // OpenAI tool_calls and an assistant message carrying them
        json!([{"id": "call_1", "type": "function", "function": {"name": "fs.read_text", "arguments": read.to_string()}}]).to_string(),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "fs.read_text", "arguments": read.to_string()}}]}).to_string(),
    ];
    for s in &shapes {
        let r = run(&env, &root, &[], s);
        assert!(!r.is_empty(), "{s}");
        for v in &r {
            assert_eq!(v["ok"], true, "{s} -> {v}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(root.join("made.txt")).unwrap(),
        "hi"
    );
    let r = run(&env, &root, &[], &shapes[0]);
    assert_eq!(
        (r[0]["request_id"].as_str(), r[0]["run_id"].as_str()),
        (Some("q1"), Some("run_x"))
    );
    // A bad OpenAI arguments string fails that call only.
    let bad = json!([
        {"id": "c1", "type": "function", "function": {"name": "fs.read_text", "arguments": "{\"path\": oops"}},
        {"id": "c2", "type": "function", "function": {"name": "fs.read_text", "arguments": read.to_string()}}
    ]);
    let r = run(&env, &root, &[], &bad.to_string());
    assert_eq!(code(&r[0]), "tool.input_invalid");
    assert_eq!(r[1]["ok"], true);
    // Rendered as Spectator tool-role messages.
    let r = run(&env, &root, &["--as", "tool-messages"], &bad.to_string());
    assert_eq!(r[1]["role"], "tool");
    assert_eq!(r[1]["tool_call_id"], "c2");
    let content: Value = serde_json::from_str(r[1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(content["id"], "c2");
    assert_eq!(content["ok"], true);
    assert_eq!(content["output"]["text"], "hello inside\n");
    assert!(content["error"].is_null());
    let content: Value = serde_json::from_str(r[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(content["error"]["code"], "tool.input_invalid");
}

fn shell(env: &TestEnv, root: &Path, extra: &[&str], cmd: &str) -> Value {
    let mut v = run(
        env,
        root,
        extra,
        &call("shell.exec", json!({"cmd": cmd, "timeout_s": 10})),
    );
    v.remove(0)
}

#[test]
fn shell_denies_every_dangerous_form() {
    let env = TestEnv::new();
    let root = setup(&env);
    let denied = [
        "ls | cat",
        "ls; rm -rf /",
        "ls && echo x",
        "ls & ",
        "echo x > out.txt",
        "echo x >> out.txt",
        "cat < hello.txt",
        "echo $(id)",
        "echo `id`",
        "echo $HOME",
        "ls\nid",
        "find . -exec rm {} ;",
        "find . -execdir id \\;",
        "find . -delete",
        "find . -ok id",
        "find . -fprint out",
        "git -c core.pager=id log",
        "git --exec-path=/tmp status",
        "git -C /etc status",
        "git --config-env=x=y status",
        "rg --pre ./x pattern",
        "rg --pre=./x pattern",
        "rg --pre-glob '*' x",
        "rg -z x",
        "sed -i s/a/b/ hello.txt",
        "sed -i.bak s/a/b/ hello.txt",
        "sed --in-place s/a/b/ hello.txt",
        "sed -ni p hello.txt",
        "sed 's/a/b/e' hello.txt",
        "sed -e '1e id' hello.txt",
        "sed 'w out.txt' hello.txt",
        "sed -f script.sed hello.txt",
        "xargs rm",
        "env",
        "env FOO=1 ls",
        "nohup ls",
        "timeout 5 ls",
        "sudo ls",
        "sh -c id",
        "bash -c id",
        "bash -lc id",
        "python3 -c 'print(1)'",
        "perl -e 'print 1'",
        "ruby -e 'p 1'",
        "node -e 1",
        "awk 'BEGIN{system(\"id\")}'",
        "/bin/ls",
        "./script.sh",
        "cat /etc/passwd",
        "cat ../outside/secret.txt",
        "cat /proc/self/environ",
        "ls --color=/etc",
        "curl http://example.com",
        "rm -rf .",
        "git push",
        "git branch -D main",
        "chmod 777 hello.txt",
    ];
    for cmd in denied {
        let v = shell(&env, &root, &[], cmd);
        assert_eq!(code(&v), "policy.denied", "{cmd:?} -> {v}");
    }
    assert!(!root.join("out.txt").exists());
    assert!(root.join("hello.txt").exists());
}

#[test]
fn shell_runs_allowed_commands_with_a_scrubbed_environment() {
    let env = TestEnv::new();
    let root = setup(&env);
    let v = shell(
        &env,
        &root,
        &[],
        "echo 'hello world' \"quoted;not an operator\"",
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["output"]["stdout"],
        "hello world quoted;not an operator\n"
    );
    assert_eq!(v["output"]["exit_code"], 0);
    assert!(
        v["output"]["sandbox"]["layers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == "env-scrubbed")
    );
    let v = shell(&env, &root, &[], "cat hello.txt");
    assert_eq!(v["output"]["stdout"], "hello inside\n");
    let v = shell(&env, &root, &[], "ls sub");
    assert_eq!(v["output"]["stdout"], "inner.txt\n");
    let v = run(
        &env,
        &root,
        &[],
        &call(
            "run_command",
            json!({"cmd": "ls", "cwd": "sub", "requires_confirm": true}),
        ),
    );
    assert_eq!(v[0]["output"]["stdout"], "inner.txt\n", "{}", v[0]);
    let v = run(
        &env,
        &root,
        &[],
        &call("shell.exec", json!({"cmd": "ls", "cwd": "dir_out"})),
    );
    assert_eq!(code(&v[0]), "policy.denied", "{}", v[0]);
    let v = shell(&env, &root, &[], "false");
    assert_eq!(
        (v["ok"].as_bool(), v["output"]["exit_code"].as_i64()),
        (Some(true), Some(1))
    );

    // The canary key in bob's environment never reaches the child. (printenv and sh have no
    // built-in argv spec, so their allow rules carry one.)
    let rules = env.write(
        "rules.json",
        &json!({"rules": [
            {"action": "allow", "prefix": ["printenv"], "match": [["printenv"]], "spec": {"operands": ["text"]}},
            {"action": "allow", "prefix": ["sh"], "match": [["sh", "x.sh"]], "spec": {"operands": ["read_path"]}}
        ]})
        .to_string(),
    );
    let out = env
        .bob(&tool_run(
            &root,
            &["--shell-rules", rules.to_str().unwrap()],
        ))
        .env("OPENAI_API_KEY", "sk-canary-should-not-leak-0123456789")
        .env("BOB_CHAT_API_KEY", "canary-chat-key-987654321")
        .env("LANG", "C.UTF-8")
        .write_stdin(call("shell.exec", json!({"cmd": "printenv"})))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let stdout = v["output"]["stdout"].as_str().unwrap();
    assert!(
        stdout.contains("PATH=") && stdout.contains("LANG=C.UTF-8"),
        "{v}"
    );
    assert!(
        !stdout.contains("canary") && !stdout.contains("API_KEY") && !stdout.contains("BOB_HOME"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "HOME={}",
            std::fs::canonicalize(&root).unwrap().display()
        )),
        "{stdout}"
    );
}

#[test]
fn shell_output_is_capped() {
    let env = TestEnv::new();
    let root = setup(&env);
    std::fs::write(root.join("big.txt"), "x".repeat(200_000)).unwrap();
    let v = shell(&env, &root, &[], "cat big.txt");
    assert_eq!(v["output"]["stdout"].as_str().unwrap().len(), 64 * 1024);
    assert_eq!(v["output"]["stdout_truncated"], true);
}

#[test]
fn shell_rules_with_false_examples_are_refused() {
    let env = TestEnv::new();
    let root = setup(&env);
    let bad = env.write("bad.json", &json!({"rules": [{"action": "allow", "prefix": ["ls"], "match": [["ls"]], "not_match": [["ls", "-la"]]}]}).to_string());
    let e = env.fails(
        &tool_run(&root, &["--shell-rules", bad.to_str().unwrap()]),
        &call("shell.exec", json!({"cmd": "ls"})),
        2,
        "invalid.request",
    );
    assert!(e["message"].as_str().unwrap().contains("not_match"), "{e}");
}

#[test]
fn shell_timeout_kills_the_whole_process_group() {
    let env = TestEnv::new();
    let root = setup(&env);
    // The background job would leave a marker 2 s after it started, long after the 1 s timeout.
    std::fs::write(
        root.join("spawn.sh"),
        "( sleep 2; echo survived > marker ) &\nsleep 60\n",
    )
    .unwrap();
    let rules = env.write(
        "rules.json",
        // A program without a built-in spec needs one in its allow rule (argv allowlist).
        &json!({"rules": [{"action": "allow", "prefix": ["sh"], "match": [["sh", "spawn.sh"]], "spec": {"operands": ["read_path"]}}]})
            .to_string(),
    );
    for mode in ["full", "weak"] {
        let started = std::time::Instant::now();
        let v = run(
            &env,
            &root,
            &["--shell-rules", rules.to_str().unwrap(), "--sandbox", mode],
            &call("shell.exec", json!({"cmd": "sh spawn.sh", "timeout_s": 1})),
        );
        assert_eq!(code(&v[0]), "timeout", "{}", v[0]);
        assert_eq!(
            v[0]["error"]["details"]["sandbox"]["mode"], mode,
            "{}",
            v[0]
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
        std::thread::sleep(std::time::Duration::from_secs(3));
        assert!(
            !root.join("marker").exists(),
            "{mode}: the background job survived the timeout"
        );
    }
    // timeout_ms is clamped by the configured maximum.
    let v = run(
        &env,
        &root,
        &["--shell-rules", rules.to_str().unwrap(), "--max-timeout-ms", "300"],
        &json!([{"request_id": "t", "tool": "shell.exec", "input": {"cmd": "sh spawn.sh"}, "timeout_ms": 60000}]).to_string(),
    );
    assert_eq!(code(&v[0]), "timeout");
    assert_eq!(v[0]["error"]["details"]["timeout_ms"], 300);
}

#[test]
fn http_get_is_capability_gated_loopback_guarded_and_redirects_rechecked() {
    let env = TestEnv::new();
    let server = TestServer::start(|req, _| match req.path.as_str() {
        "/hello" => Reply::new(200, "hi there").header("Content-Type", "text/plain"),
        "/to-other" => Reply::redirect("http://127.0.0.2:9/x"),
        "/to-hello" => Reply::redirect("/hello"),
        _ => Reply::new(404, "no"),
    });
    let get = |url: &str| call("http.get", json!({"url": url, "use_cache": false}));
    let url = server.url("/hello");
    // Not enabled, then enabled without the capability.
    let v = env.jsonl(&["tool", "run"], &get(&url));
    assert_eq!(code(&v[0]), "policy.denied");
    let v = env.jsonl(&["tool", "run", "--enable", "http.get"], &get(&url));
    assert_eq!(code(&v[0]), "policy.denied");
    assert!(
        v[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("net:127.0.0.1"),
        "{}",
        v[0]
    );
    // The capability from the session checkpoint, but loopback not allowed.
    write_caps(&env, "s1", &["net:127.0.0.1"]);
    env.json(&["tool", "enable", "--session", "s1", "http.get"], "");
    let v = env.jsonl(&["tool", "run", "--session", "s1"], &get(&url));
    assert_eq!(code(&v[0]), "policy.denied");
    assert!(
        v[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("loopback"),
        "{}",
        v[0]
    );
    assert!(server.requests().is_empty());
    // Explicitly allowed.
    let v = env.jsonl(
        &["tool", "run", "--session", "s1", "--allow-loopback"],
        &get(&url),
    );
    assert_eq!(v[0]["ok"], true, "{}", v[0]);
    assert_eq!(v[0]["output"]["status"], 200);
    assert_eq!(v[0]["output"]["body"], "hi there");
    let out = env
        .bob(&["tool", "run", "--session", "s1"])
        .env("BOB_TOOL_ALLOW_LOOPBACK", "1")
        .write_stdin(get(&url))
        .output()
        .unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["ok"],
        true
    );
    // A granted net:other.example does not allow 127.0.0.1; plain `net` with an allowlist that
    // lacks it neither.
    write_caps(&env, "s2", &["net:other.example"]);
    env.json(&["tool", "enable", "--session", "s2", "http.get"], "");
    assert_eq!(
        code(
            &env.jsonl(
                &["tool", "run", "--session", "s2", "--allow-loopback"],
                &get(&url)
            )[0]
        ),
        "policy.denied"
    );
    write_caps(&env, "s3", &["net"]);
    env.json(&["tool", "enable", "--session", "s3", "http.get"], "");
    let out = env
        .bob(&["tool", "run", "--session", "s3", "--allow-loopback"])
        .env("BOB_NET_ALLOWLIST", "example.com")
        .write_stdin(get(&url))
        .output()
        .unwrap();
    assert_eq!(
        code(&serde_json::from_slice::<Value>(&out.stdout).unwrap()),
        "policy.denied"
    );
    let out = env
        .bob(&["tool", "run", "--session", "s3", "--allow-loopback"])
        .env("BOB_NET_ALLOWLIST", "example.com,127.0.0.1")
        .write_stdin(get(&url))
        .output()
        .unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["ok"],
        true
    );
    // A redirect to a host the capability does not cover is refused before it is fetched.
    let before = server.requests().len();
    let v = env.jsonl(
        &["tool", "run", "--session", "s1", "--allow-loopback"],
        &get(&server.url("/to-other")),
    );
    assert_eq!(code(&v[0]), "policy.denied", "{}", v[0]);
    assert_eq!(server.requests().len(), before + 1);
    let v = env.jsonl(
        &["tool", "run", "--session", "s1", "--allow-loopback"],
        &get(&server.url("/to-hello")),
    );
    assert_eq!(v[0]["output"]["body"], "hi there", "{}", v[0]);
    assert_eq!(v[0]["output"]["redirects"].as_array().unwrap().len(), 1);
    // Other schemes are refused.
    let v = env.jsonl(
        &["tool", "run", "--session", "s1"],
        &get("file:///etc/passwd"),
    );
    assert_eq!(code(&v[0]), "policy.denied");
}

#[test]
fn http_get_cache_hits_until_the_ttl_passes() {
    let mut env = TestEnv::new();
    let server = TestServer::start(|_, n| Reply::new(200, format!("response {n}")));
    let c = call("http.get", json!({"url": server.url("/c")}));
    let args = [
        "tool",
        "run",
        "--enable",
        "http.get",
        "--grant",
        "net:127.0.0.1",
        "--allow-loopback",
    ];
    let v = env.jsonl(&args, &c);
    assert_eq!(
        (
            v[0]["output"]["body"].as_str(),
            v[0]["output"]["cached"].as_bool()
        ),
        (Some("response 0"), Some(false))
    );
    env.now = "2026-02-15T00:59:00Z".into();
    let v = env.jsonl(&args, &c);
    assert_eq!(
        (
            v[0]["output"]["body"].as_str(),
            v[0]["output"]["cached"].as_bool()
        ),
        (Some("response 0"), Some(true))
    );
    assert_eq!(server.requests().len(), 1);
    assert!(env.home().join("cache/http.db").exists());
    env.now = "2026-02-15T01:00:01Z".into();
    let v = env.jsonl(&args, &c);
    assert_eq!(
        (
            v[0]["output"]["body"].as_str(),
            v[0]["output"]["cached"].as_bool()
        ),
        (Some("response 1"), Some(false))
    );
    assert_eq!(server.requests().len(), 2);
    // use_cache=false always fetches; the policy is checked before the cache.
    let v = env.jsonl(
        &args,
        &call(
            "http.get",
            json!({"url": server.url("/c"), "use_cache": false}),
        ),
    );
    assert_eq!(v[0]["output"]["body"], "response 2");
    let v = env.jsonl(&["tool", "run", "--enable", "http.get"], &c);
    assert_eq!(code(&v[0]), "policy.denied");
}

#[test]
fn audit_records_every_call_redacted_and_hash_chained() {
    let env = TestEnv::new();
    let root = setup(&env);
    std::fs::create_dir_all(env.home()).unwrap();
    std::fs::write(env.home().join("redact.rules"), "project-[0-9]{4}\n").unwrap();
    let openai = "sk-proj-CANARYabcdefghijklmnopqrstuv";
    let bearer = "Bearer CANARYtok3nvalue99";
    let url_pw = "https://bob:CANARYpassw0rd@example.com/x";
    let env_tok = "CANARY-env-token-value-42";
    let rule = "project-4242";
    let text = format!("{openai}\n{bearer}\n{url_pw}\n{env_tok}\n{rule}\n");
    let calls = json!([
        {"id": "w", "tool": "fs.write_text", "args": {"path": "secrets.txt", "text": text}},
        {"id": "r", "tool": "fs.read_text", "args": {"path": "secrets.txt"}},
        {"id": "x", "tool": "fs.nope", "args": {"token": "CANARY-field-token"}}
    ]);
    let out = env
        .bob(&tool_run(
            &root,
            &["--run-id", "run_a1", "--agent-id", "agent_t"],
        ))
        .env("MY_SERVICE_TOKEN", env_tok)
        .write_stdin(calls.to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        rows[1]["output"]["text"], text,
        "the caller gets the real output"
    );
    let path = env.home().join("audit/agent_t/2026-02-15.jsonl");
    let audit = std::fs::read_to_string(&path).unwrap();
    assert!(
        !audit.contains("CANARY"),
        "a secret reached the audit log:\n{audit}"
    );
    assert!(!audit.contains(rule));
    let events: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "tool.call",
            "tool.result",
            "tool.call",
            "tool.result",
            "tool.call",
            "tool.result"
        ]
    );
    let mut last = None;
    for e in &events {
        assert_eq!(
            (e["run_id"].as_str(), e["agent_id"].as_str()),
            (Some("run_a1"), Some("agent_t"))
        );
        let seq = e["seq"].as_u64().unwrap();
        assert!(last.is_none_or(|l| seq > l));
        last = Some(seq);
        assert!(
            e["event_id"].is_string() && e["ts"] == "2026-02-15T00:00:00Z" && e["prev"].is_string()
        );
    }
    assert_eq!(events[0]["redactions"], json!(["payload.input.text"]));
    assert_eq!(events[3]["redactions"], json!(["payload.output.text"]));
    assert_eq!(events[4]["redactions"], json!(["payload.input.token"]));
    assert_eq!(events[5]["payload"]["error"]["code"], "tool.not_found");
    // The chain verifies, and an edit breaks it.
    let v = env.jsonl(&["ledger", "verify"], "");
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["ok"], true, "{}", v[0]);
    let tampered = audit.replacen("\"ok\":true", "\"ok\":false", 1);
    assert_ne!(tampered, audit);
    std::fs::write(&path, tampered).unwrap();
    env.fails(&["ledger", "verify"], "", 5, "conflict");
    // A second run appends to the same chain after a repair-free file (fresh agent here).
    for _ in 0..2 {
        run(
            &env,
            &root,
            &["--agent-id", "agent_u"],
            &call("fs.list_dir", json!({})),
        );
    }
    let v = env.jsonl(
        &[
            "ledger",
            "verify",
            env.home()
                .join("audit/agent_u/2026-02-15.jsonl")
                .to_str()
                .unwrap(),
        ],
        "",
    );
    assert_eq!(v[0]["ok"], true);
    assert_eq!(v[0]["verified"], 4);
}

#[test]
fn failure_loop_is_persisted_per_session() {
    let env = TestEnv::new();
    let root = setup(&env);
    env.json(&["tool", "enable", "--session", "s1", "all"], "");
    let r = root.to_str().unwrap();
    let fail =
        |id: &str| json!({"id": id, "tool": "fs.read_text", "args": {"path": "missing.txt"}});
    let good = |id: &str| json!({"id": id, "tool": "fs.read_text", "args": {"path": "hello.txt"}});
    let last = |rows: &[Value]| {
        rows.last().unwrap()["failure_loop"]["state"]["state"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let rows = env.jsonl(
        &[
            "tool",
            "run",
            "--session",
            "s1",
            "--root",
            r,
            "--report-loop",
        ],
        &json!([fail("a")]).to_string(),
    );
    assert_eq!(last(&rows), "normal");
    let rows = env.jsonl(
        &[
            "tool",
            "run",
            "--session",
            "s1",
            "--root",
            r,
            "--report-loop",
        ],
        &json!([fail("b")]).to_string(),
    );
    assert_eq!(last(&rows), "recovery");
    let l = env.json(&["tool", "loop", "--session", "s1"], "");
    assert_eq!(l["state"]["state"], "recovery");
    let rows = env.jsonl(
        &[
            "tool",
            "run",
            "--session",
            "s1",
            "--root",
            r,
            "--report-loop",
        ],
        &json!([fail("c"), good("d"), fail("e"), fail("f")]).to_string(),
    );
    let fl = &rows.last().unwrap()["failure_loop"]["state"];
    assert_eq!(fl["state"], "escalate", "{fl}");
    assert!(!fl["attempts"].as_array().unwrap().is_empty());
    assert!(
        fl["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().contains("not_found"))
    );
    assert!(!fl["snippets"].as_array().unwrap().is_empty());
    let rows = env.jsonl(
        &[
            "tool",
            "run",
            "--session",
            "s1",
            "--root",
            r,
            "--report-loop",
        ],
        &json!([good("g"), good("h")]).to_string(),
    );
    assert_eq!(last(&rows), "recovery");
    let rows = env.jsonl(
        &[
            "tool",
            "run",
            "--session",
            "s1",
            "--root",
            r,
            "--report-loop",
        ],
        &json!([good("i")]).to_string(),
    );
    assert_eq!(last(&rows), "normal");
    assert!(env.home().join("sessions/s1/failure_loop.json").exists());
}

#[test]
fn http_get_times_out_on_a_hung_server() {
    let env = TestEnv::new();
    let server = TestServer::start(|_, _| Reply::hang());
    let req = json!({"request_id": "h", "tool": "http.get", "input": {"url": server.url("/"), "use_cache": false}, "timeout_ms": 400});
    let started = std::time::Instant::now();
    let v = env.jsonl(
        &[
            "tool",
            "run",
            "--enable",
            "http.get",
            "--grant",
            "net:127.0.0.1",
            "--allow-loopback",
        ],
        &req.to_string(),
    );
    assert_eq!(code(&v[0]), "timeout", "{}", v[0]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn the_full_sandbox_is_the_default_and_weak_mode_is_reported() {
    let env = TestEnv::new();
    let root = setup(&env);
    // --require-sandbox is still accepted; full is the default either way.
    for extra in [&[][..], &["--require-sandbox"][..]] {
        let v = shell(&env, &root, extra, "pwd");
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["output"]["sandbox"]["mode"], "full", "{v}");
        let layers = v["output"]["sandbox"]["layers"].as_array().unwrap();
        for l in [
            "user-ns",
            "pid-ns",
            "net-ns",
            "new-root",
            "seccomp",
            "caps-dropped",
        ] {
            assert!(layers.iter().any(|x| x == l), "{l} missing: {v}");
        }
    }
    // A symlink resolved by the child itself leads nowhere: the outside is not mounted.
    let v = shell(&env, &root, &[], "cat rel_out");
    assert!(!v.to_string().contains(CANARY), "{v}");
    assert_ne!(v["output"]["exit_code"], 0, "{v}");
    // Weak mode only when asked, and then reported as such (Landlock where the kernel has it).
    let v = shell(&env, &root, &["--sandbox", "weak"], "pwd");
    assert_eq!(v["output"]["sandbox"]["mode"], "weak", "{v}");
    let layers = v["output"]["sandbox"]["layers"].as_array().unwrap();
    assert!(!layers.iter().any(|x| x == "user-ns"), "{v}");
    if layers.iter().any(|l| l == "landlock") {
        let v = shell(&env, &root, &["--sandbox", "weak"], "cat rel_out");
        assert!(!v.to_string().contains(CANARY), "{v}");
        assert_ne!(v["output"]["exit_code"], 0, "{v}");
    }
}
