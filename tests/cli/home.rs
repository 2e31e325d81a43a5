//! A home that follows the user (issue 27 item 3): `--home`, `$BOB_HOME`, `./runtime` only
//! when it exists, else `$XDG_DATA_HOME/bob` (`~/.local/share/bob`); the user's own
//! `~/.config/bob/config.toml` read under the home's; reads that create nothing; `bob init`'s
//! commented config and next commands; `bob config path|set|unset`; "not configured" naming
//! what was read.

use crate::TestEnv;
use crate::env::{NOW, error_of};
use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

/// `bob ARGS` standing in `cwd` as a user whose home directory is `user`, with no BOB_HOME.
fn bob_as_user(cwd: &Path, user: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("bob").unwrap();
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", user)
        .env("BOB_NOW", NOW)
        .current_dir(cwd)
        .args(args);
    cmd
}

fn ok_json(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (a fresh working directory, a fresh user home directory) inside the test's temp dir.
fn places(env: &TestEnv) -> (std::path::PathBuf, std::path::PathBuf) {
    let cwd = env.path("work");
    let user = env.path("user");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&user).unwrap();
    (cwd, user)
}

#[test]
fn reads_in_a_fresh_place_create_no_home() {
    let env = TestEnv::new();
    let (cwd, user) = places(&env);
    for args in [
        &["memory", "list"][..],
        &["memory", "candidates"],
        &["memory", "stm", "list"],
        &["memory", "export"],
        &["config", "show"],
        &["config", "path"],
        &["runs", "list"],
        &["secrets", "list"],
    ] {
        let out = bob_as_user(&cwd, &user, args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!cwd.join("runtime").exists(), "{args:?} created ./runtime");
        assert!(
            !user.join(".local").exists(),
            "{args:?} created the data home"
        );
    }
}

#[test]
fn the_home_is_the_user_data_dir_unless_runtime_exists_or_one_is_named() {
    let env = TestEnv::new();
    let (cwd, user) = places(&env);
    let data_home = user.join(".local/share/bob");
    let v = ok_json(&mut bob_as_user(&cwd, &user, &["config", "path"]));
    assert_eq!(v["home"], data_home.display().to_string());
    assert_eq!(
        v["user_config_file"],
        user.join(".config/bob/config.toml").display().to_string()
    );

    // XDG_DATA_HOME moves it; the same home from any directory.
    let xdg = env.path("xdg");
    let v = ok_json(bob_as_user(&cwd, &user, &["config", "path"]).env("XDG_DATA_HOME", &xdg));
    assert_eq!(v["home"], xdg.join("bob").display().to_string());

    // bob init there: a commented config.toml and the next three commands.
    let v = ok_json(&mut bob_as_user(&cwd, &user, &["init"]));
    assert_eq!(v["home"], data_home.display().to_string());
    assert_eq!(v["next"].as_array().unwrap().len(), 3);
    let config = std::fs::read_to_string(data_home.join("config.toml")).unwrap();
    assert!(
        config
            .lines()
            .all(|l| l.trim().is_empty() || l.starts_with('#') || l == "[chat]")
    );
    let other = env.path("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    let v = ok_json(&mut bob_as_user(&other, &user, &["config", "path"]));
    assert_eq!(v["home"], data_home.display().to_string());
    assert_eq!(v["config_file_exists"], true);

    // ./runtime wins when it exists; BOB_HOME and --home win over it.
    std::fs::create_dir_all(cwd.join("runtime")).unwrap();
    let v = ok_json(&mut bob_as_user(&cwd, &user, &["config", "path"]));
    assert_eq!(v["home"], "runtime");
    let named = env.path("named");
    let v = ok_json(bob_as_user(&cwd, &user, &["config", "path"]).env("BOB_HOME", &named));
    assert_eq!(v["home"], named.display().to_string());
    let flag = env.path("flag");
    let v = ok_json(
        bob_as_user(
            &cwd,
            &user,
            &["--home", flag.to_str().unwrap(), "config", "path"],
        )
        .env("BOB_HOME", &named),
    );
    assert_eq!(v["home"], flag.display().to_string());
}

#[test]
fn the_users_config_is_read_under_the_homes() {
    let env = TestEnv::new();
    let (cwd, user) = places(&env);
    let mine = user.join(".config/bob/config.toml");
    std::fs::create_dir_all(mine.parent().unwrap()).unwrap();
    std::fs::write(&mine, "[chat]\nmodel = \"from-user\"\ntimeout_s = 7\n").unwrap();
    let show = |cmd: &mut Command| {
        let v = ok_json(cmd);
        v["settings"].clone()
    };
    let s = show(&mut bob_as_user(
        &cwd,
        &user,
        &["config", "show", "chat.model", "chat.timeout_s"],
    ));
    assert_eq!(s["chat.model"]["value"], "from-user");
    assert_eq!(
        s["chat.model"]["origin"],
        format!("{} chat.model", mine.display())
    );
    // The home's file wins key by key.
    ok_json(&mut bob_as_user(
        &cwd,
        &user,
        &["config", "set", "chat.model", "from-home"],
    ));
    let s = show(&mut bob_as_user(
        &cwd,
        &user,
        &["config", "show", "chat.model", "chat.timeout_s"],
    ));
    assert_eq!(s["chat.model"]["value"], "from-home");
    assert_eq!(s["chat.model"]["origin"], "config.toml chat.model");
    assert_eq!(s["chat.timeout_s"]["value"], 7.0);
    // A bad user file is refused like a bad home file, naming it.
    std::fs::write(&mine, "[chat]\nmodle = \"x\"\n").unwrap();
    let out = bob_as_user(&cwd, &user, &["config", "show"])
        .output()
        .unwrap();
    let err = error_of(&out, 2, "invalid.request");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains(&mine.display().to_string()),
        "{err}"
    );
}

#[test]
fn config_set_and_unset_are_checked_like_the_file() {
    let env = TestEnv::new();
    let file = env.home().join("config.toml");
    let v = ok_json(&mut env.bob(&["config", "set", "chat.max_retries", "5"]));
    assert_eq!(v["config_file"], file.display().to_string());
    let v = ok_json(&mut env.bob(&["config", "show", "chat.max_retries"]));
    assert_eq!(v["settings"]["chat.max_retries"]["value"], 5);
    assert_eq!(v["settings"]["chat.max_retries"]["source"], "config");
    let before = std::fs::read_to_string(&file).unwrap();
    env.fails(
        &["config", "set", "chat.max_retries", "lots"],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &["config", "set", "chat.modle", "x"],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &["config", "set", "home", "/elsewhere"],
        "",
        2,
        "invalid.request",
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "a refused edit changes nothing"
    );
    let v = ok_json(&mut env.bob(&["config", "unset", "chat.max_retries"]));
    assert_eq!(v["removed"], true);
    let v = ok_json(&mut env.bob(&["config", "show", "chat.max_retries"]));
    assert_eq!(v["settings"]["chat.max_retries"]["source"], "default");
}

#[test]
fn not_configured_names_the_home_and_the_config_files_read() {
    let env = TestEnv::new();
    let (cwd, user) = places(&env);
    let out = bob_as_user(&cwd, &user, &["chat", "hi"]).output().unwrap();
    let err = error_of(&out, 2, "invalid.request");
    let msg = err["message"].as_str().unwrap();
    let home = user.join(".local/share/bob");
    assert!(
        msg.contains(&home.join("config.toml").display().to_string()),
        "{msg}"
    );
    assert!(
        msg.contains(&user.join(".config/bob/config.toml").display().to_string()),
        "{msg}"
    );
    assert_eq!(err["details"]["home"], home.display().to_string());
    assert!(!home.exists(), "a failed chat creates no home");
}
