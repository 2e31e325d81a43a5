//! The one settings layer: precedence (flag > env > config.toml > default) with each value's
//! source, `bob config show` with secrets blanked, strict config.toml, and subsystems that take
//! their settings from config.toml as well as from the environment.

use crate::TestEnv;
use crate::support::openai::OpenAi;
use serde_json::{Value, json};

const MSGS: &str = r#"[{"role":"user","content":"hi"}]"#;

fn show(cmd: &mut assert_cmd::Command) -> Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn setting<'a>(v: &'a Value, key: &str) -> &'a Value {
    &v["settings"][key]
}

/// The model each `bob chat` sent, as the test server saw it.
fn sent_model(srv: &OpenAi, i: usize) -> String {
    srv.requests()[i].json()["model"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn flag_beats_env_beats_config_beats_default_and_config_show_says_which() {
    let env = TestEnv::new();
    let srv = OpenAi::always("ok");
    env.write(
        "home/config.toml",
        &format!(
            "[chat]\nbase_url = \"{}\"\nmodel = \"file-model\"\nmax_retries = 1\n",
            srv.base_url()
        ),
    );
    // flag > env > config
    let run = |args: &[&str], env_model: Option<&str>| {
        let mut c = env.bob(args);
        if let Some(m) = env_model {
            c.env("BOB_CHAT_MODEL", m);
        }
        let out = c.write_stdin(MSGS).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["chat", "--model", "flag-model"], Some("env-model"));
    run(&["chat"], Some("env-model"));
    run(&["chat"], None);
    assert_eq!(sent_model(&srv, 0), "flag-model");
    assert_eq!(sent_model(&srv, 1), "env-model");
    assert_eq!(sent_model(&srv, 2), "file-model");

    let v = show(
        env.bob(&["config", "show"])
            .env("BOB_CHAT_MODEL", "env-model"),
    );
    assert_eq!(setting(&v, "chat.model")["value"], "env-model");
    assert_eq!(setting(&v, "chat.model")["source"], "env");
    assert_eq!(setting(&v, "chat.model")["origin"], "BOB_CHAT_MODEL");
    assert_eq!(setting(&v, "chat.max_retries")["value"], 1);
    assert_eq!(setting(&v, "chat.max_retries")["source"], "config");
    assert_eq!(setting(&v, "chat.timeout_s")["value"], 120.0);
    assert_eq!(setting(&v, "chat.timeout_s")["source"], "default");
    assert_eq!(setting(&v, "home")["source"], "env");
    let v = show(&mut env.bob(&["config", "show", "chat.model"]));
    assert_eq!(setting(&v, "chat.model")["source"], "config");
    assert_eq!(
        v["settings"].as_object().unwrap().len(),
        1,
        "only the keys asked for"
    );
    // mtg.* falls back to the file's [chat] keys.
    let v = show(&mut env.bob(&["config", "show", "mtg.model"]));
    assert_eq!(setting(&v, "mtg.model")["value"], "file-model");
    assert_eq!(setting(&v, "mtg.model")["origin"], "config.toml chat.model");

    // Without the file: the default, and the backend is not configured.
    std::fs::remove_file(env.home().join("config.toml")).unwrap();
    let v = show(&mut env.bob(&["config", "show", "chat.model"]));
    assert_eq!(setting(&v, "chat.model")["value"], "gpt-4o-mini");
    assert_eq!(setting(&v, "chat.model")["source"], "default");
    env.fails(&["config", "show", "chat.nope"], "", 4, "not_found");
}

#[test]
fn the_clock_is_pinned_by_flag_env_or_config_everywhere() {
    let env = TestEnv::new();
    let ts = |cmd: &mut assert_cmd::Command| -> f64 {
        let out = cmd.write_stdin("").output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["ts"].as_f64().unwrap()
    };
    let emit = ["trace", "emit", "--session", "s1", "--kind", "k"];
    // BOB_NOW (the TestEnv's 2026-02-15T00:00:00Z) pins it.
    assert_eq!(ts(&mut env.bob(&emit)), 1_771_113_600.0);
    // --now beats BOB_NOW.
    let mut args = vec!["--now", "2027-01-01T00:00:00Z"];
    args.extend(emit);
    assert_eq!(ts(&mut env.bob(&args)), 1_798_761_600.0);
    // config.toml pins it when neither flag nor env does.
    env.write(
        "home/config.toml",
        "[clock]\nnow = \"2030-01-01T00:00:00Z\"\n",
    );
    assert_eq!(ts(env.bob(&emit).env_remove("BOB_NOW")), 1_893_456_000.0);
    // ... and the env still beats the file.
    assert_eq!(ts(&mut env.bob(&emit)), 1_771_113_600.0);
    let v = show(
        env.bob(&["config", "show", "clock.now"])
            .env_remove("BOB_NOW"),
    );
    assert_eq!(setting(&v, "clock.now")["source"], "config");
    // A bad clock in any source is refused up front, naming the source.
    let e = env.fails(
        &["--now", "yesterday", "sanitize"],
        "x",
        2,
        "invalid.request",
    );
    assert!(e["message"].as_str().unwrap().contains("--now"), "{e}");
    let out = env
        .bob(&["sanitize"])
        .env("BOB_NOW", "soon")
        .write_stdin("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("BOB_NOW"));
}

#[test]
fn config_show_blanks_secrets_but_says_they_are_set() {
    let env = TestEnv::new();
    let env_key = "sk-env-0123456789abcdefghijklmnop";
    let file_key = "serp-file-0123456789abcdefghijkl";
    env.write(
        "home/config.toml",
        &format!("[domain]\nserpapi_api_key = \"{file_key}\"\n"),
    );
    for format in [&[][..], &["--format", "table"][..]] {
        let mut args = vec!["config", "show"];
        args.extend(format);
        let out = env
            .bob(&args)
            .env("BOB_CHAT_API_KEY", env_key)
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains(env_key) && !text.contains(file_key),
            "{text}"
        );
        assert!(text.contains("***"), "{text}");
        if format.is_empty() {
            let v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                setting(&v, "chat.api_key"),
                &json!({"value": "***", "set": true, "source": "env",
                        "origin": "BOB_CHAT_API_KEY",
                        "env": ["BOB_CHAT_API_KEY", "OPENAI_API_KEY"], "kind": "text"})
            );
            assert_eq!(setting(&v, "domain.serpapi_api_key")["value"], "***");
            assert_eq!(setting(&v, "domain.serpapi_api_key")["source"], "config");
            assert_eq!(setting(&v, "mtg.api_key")["set"], false);
            assert_eq!(setting(&v, "mtg.api_key")["value"], Value::Null);
        } else {
            assert!(
                text.contains("SOURCE") && text.contains("chat.api_key"),
                "{text}"
            );
        }
    }
}

#[test]
fn unknown_keys_and_wrong_types_in_config_toml_are_refused_by_every_command() {
    let env = TestEnv::new();
    env.write("home/config.toml", "[chat]\nmodle = \"typo\"\n");
    for args in [&["sanitize"][..], &["config", "show"][..]] {
        let e = env.fails(args, "x", 2, "invalid.request");
        assert_eq!(e["details"]["key"], "chat.modle", "{e}");
        assert!(
            e["message"].as_str().unwrap().contains("config.toml"),
            "{e}"
        );
        assert!(
            e["details"]["known"]
                .as_array()
                .unwrap()
                .contains(&json!("chat.model")),
            "{e}"
        );
    }
    env.write("home/config.toml", "[wizard]\nspell = 1\n");
    let e = env.fails(&["sanitize"], "x", 2, "invalid.request");
    assert_eq!(e["details"]["key"], "wizard.spell");
    env.write("home/config.toml", "[tools]\nmax_timeout_ms = \"soon\"\n");
    let e = env.fails(&["config", "show"], "", 2, "invalid.request");
    assert_eq!(e["details"]["key"], "tools.max_timeout_ms");
    // A bad environment value is refused where it is used, naming the variable.
    env.write("home/config.toml", "");
    let e = crate::env::error_of(
        &env.bob(&["chat", "--base-url", "http://127.0.0.1:9/v1"])
            .env("BOB_CHAT_TIMEOUT", "slow")
            .write_stdin(MSGS)
            .output()
            .unwrap(),
        2,
        "invalid.request",
    );
    assert!(
        e["message"].as_str().unwrap().contains("BOB_CHAT_TIMEOUT"),
        "{e}"
    );
}

#[test]
fn subsystems_take_their_settings_from_config_toml_not_only_the_environment() {
    let env = TestEnv::new();
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("hello.txt"), "hello from the root").unwrap();
    let call =
        json!([{"id": "t1", "tool": "fs.read_text", "args": {"path": "hello.txt"}}]).to_string();
    // The tool policy: no --root, no BOB_TOOL_* variable; the sandbox comes from the file.
    let r = env.jsonl(&["tool", "run", "--enable", "fs.read_text"], &call);
    assert_eq!(r[0]["error"]["code"], "sandbox.required", "{r:?}");
    env.write(
        "home/config.toml",
        &format!(
            "[tools]\nsandbox_enabled = true\nroots = [{:?}]\n",
            root.display().to_string()
        ),
    );
    let r = env.jsonl(&["tool", "run", "--enable", "fs.read_text"], &call);
    assert_eq!(r[0]["ok"], true, "{r:?}");
    assert!(
        r[0]["output"].to_string().contains("hello from the root"),
        "{r:?}"
    );
    // The environment beats the file: switching the sandbox off there wins.
    let out = env
        .bob(&["tool", "run", "--enable", "fs.read_text"])
        .env("BOB_TOOL_SANDBOX_ENABLED", "0")
        .write_stdin(call.clone())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "sandbox.required", "{v}");

    // The redactor: a rule file named in config.toml masks what the audit log stores.
    let rules = env.write("rules.txt", "hello from the [a-z]+\n");
    env.write(
        "home/config.toml",
        &format!(
            "[tools]\nsandbox_enabled = true\nroots = [{:?}]\n[redact]\nrules = {:?}\n",
            root.display().to_string(),
            rules.display().to_string()
        ),
    );
    let r = env.jsonl(&["tool", "run", "--enable", "fs.read_text"], &call);
    assert_eq!(r[0]["ok"], true, "{r:?}");
    let mut audit = String::new();
    for e in crate::support::files_under(&env.home().join("audit")) {
        audit.push_str(&std::fs::read_to_string(e).unwrap());
    }
    // The earlier runs (before the rule) stored the text; the last one did not.
    let last = audit.lines().last().unwrap();
    assert!(
        !last.contains("hello from the root") && last.contains("payload.output.text"),
        "{last}"
    );
}

#[test]
fn config_show_prints_every_setting_with_its_source_from_each_source() {
    let env = TestEnv::new();
    let key = "sk-env-9876543210zyxwvutsrqponm";
    env.write(
        "home/config.toml",
        "[search]\nkeep_count = 3\n[prices]\n\"m1\" = { input = 1.5, output = 2 }\n",
    );
    let out = env
        .bob(&["--now", "2027-01-01T00:00:00Z", "config", "show"])
        .env("BOB_SEED", "9")
        .env("BOB_CHAT_API_KEY", key)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains(key), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    // One of each source, the per-command knobs among them.
    let row = |k: &str| setting(&v, k).clone();
    assert_eq!(row("clock.now")["source"], "flag");
    assert_eq!(row("clock.now")["origin"], "--now");
    assert_eq!(row("turn.seed")["value"], 9);
    assert_eq!(row("turn.seed")["source"], "env");
    assert_eq!(row("turn.seed")["origin"], "BOB_SEED");
    assert_eq!(row("turn.seed")["flag"], "--seed");
    assert_eq!(row("search.keep_count")["value"], 3);
    assert_eq!(row("search.keep_count")["source"], "config");
    assert_eq!(
        row("search.keep_count")["origin"],
        "config.toml search.keep_count"
    );
    assert_eq!(row("search.keep_days")["value"], 7);
    assert_eq!(row("search.keep_days")["source"], "default");
    assert_eq!(row("serve.drain_timeout_s")["value"], 20.0);
    assert_eq!(row("serve.drain_timeout_s")["source"], "default");
    assert_eq!(row("chat.api_key")["value"], "***");
    assert_eq!(row("chat.api_key")["source"], "env");
    // Every setting has a row with its source; the open tables follow whole.
    let rows = v["settings"].as_object().unwrap();
    assert!(rows.len() >= 55, "{}", rows.len());
    for (k, r) in rows {
        assert!(
            ["flag", "env", "config", "default"].contains(&r["source"].as_str().unwrap()),
            "{k}: {r}"
        );
        assert!(r["origin"].is_string(), "{k}: {r}");
    }
    assert_eq!(v["tables"]["prices"]["m1"]["input"], 1.5, "{v}");
}

/// `bob turn --seed N` in a fresh home: the run id (derived from the seed, the session and the
/// revision) says which seed the turn used.
fn seeded_run_id(env_seed: Option<&str>, config_seed: Option<u64>, flag: Option<&str>) -> String {
    let env = TestEnv::new();
    if let Some(s) = config_seed {
        env.write("home/config.toml", &format!("[turn]\nseed = {s}\n"));
    }
    let script = env.write(
        "replay.jsonl",
        &format!(
            "{}\n{}\n",
            json!({"role": "think", "content": "ok"}),
            json!({"role": "respond", "content": "hello"})
        ),
    );
    let spec = format!("replay:{}", script.display());
    let mut args = vec!["turn", "--session", "s1", "--backend", &spec];
    if let Some(f) = flag {
        args.extend(["--seed", f]);
    }
    let mut cmd = env.bob(&args);
    if let Some(s) = env_seed {
        cmd.env("BOB_SEED", s);
    }
    let v = show(cmd.write_stdin("hi"));
    v["run_id"].as_str().unwrap().to_string()
}

#[test]
fn per_command_knobs_take_flag_then_env_then_config() {
    // turn.seed: the same seed from any source draws the same ids; the flag beats the env,
    // the env beats the file.
    let by_flag = seeded_run_id(None, None, Some("7"));
    assert_eq!(seeded_run_id(Some("7"), None, None), by_flag);
    assert_eq!(seeded_run_id(None, Some(7), None), by_flag);
    assert_eq!(seeded_run_id(Some("8"), Some(8), Some("7")), by_flag);
    assert_eq!(seeded_run_id(Some("7"), Some(8), None), by_flag);
    assert_ne!(seeded_run_id(None, Some(8), None), by_flag);
    assert_ne!(seeded_run_id(None, None, None), by_flag, "unseeded: random");
    // A bad value is refused naming where it came from.
    let env = TestEnv::new();
    let e = crate::env::error_of(
        &env.bob(&["turn", "--backend", "replay:none.jsonl"])
            .env("BOB_SEED", "lucky")
            .write_stdin("hi")
            .output()
            .unwrap(),
        2,
        "invalid.request",
    );
    assert!(e["message"].as_str().unwrap().contains("BOB_SEED"), "{e}");

    // search.keep_count: `bob search --gc` keeps what the setting says.
    let env = TestEnv::new();
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("a.html"),
        "<html><body><p>Alpha.</p></body></html>",
    )
    .unwrap();
    let req = json!({"queries": ["a.html", "a.html"], "fetch_mode": "file"}).to_string();
    for now in ["2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"] {
        show(
            env.bob(&[
                "search",
                "--root",
                root.to_str().unwrap(),
                "--keep-count",
                "9",
            ])
            .env("BOB_NOW", now)
            .write_stdin(req.clone()),
        );
    }
    let gc = |cmd: &mut assert_cmd::Command| show(cmd.env("BOB_NOW", "2026-01-02T00:00:00Z"));
    env.write("home/config.toml", "[search]\nkeep_count = 3\n");
    assert_eq!(gc(&mut env.bob(&["search", "--gc"]))["kept"], 3);
    assert_eq!(
        gc(env
            .bob(&["search", "--gc"])
            .env("BOB_STAGING_KEEP_COUNT", "2"))["kept"],
        2
    );
    assert_eq!(
        gc(env
            .bob(&["search", "--gc", "--keep-count", "1"])
            .env("BOB_STAGING_KEEP_COUNT", "2"))["kept"],
        1
    );
    let e = crate::env::error_of(
        &env.bob(&["search", "--gc"])
            .env("BOB_STAGING_KEEP_COUNT", "many")
            .output()
            .unwrap(),
        2,
        "invalid.request",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("BOB_STAGING_KEEP_COUNT"),
        "{e}"
    );
    env.write("home/config.toml", "[search]\nkeep_count = \"many\"\n");
    env.fails(&["search", "--gc"], "", 2, "invalid.request");
}
