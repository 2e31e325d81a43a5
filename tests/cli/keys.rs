//! The chain key through the binary: a lost or different key is never replaced silently (the
//! T1 reproduction of issue 23), `bob ledger rekey` and its key epochs, a key kept outside the
//! home (`BOB_KEY_FILE`, systemd's credential), and a whole-home rollback found by a kept
//! `bob ledger anchor` statement.

use crate::env::{TestEnv, error_of};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// `bob ledger verify ARGS` (with `extra` environment): (exit code, one report per file).
fn verify_with(env: &TestEnv, extra: &[(&str, &Path)], args: &[&str]) -> (i32, Vec<Value>) {
    let mut a = vec!["ledger", "verify"];
    a.extend_from_slice(args);
    let mut cmd = env.bob(&a);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let rows = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    if !out.status.success() {
        error_of(&out, 5, "conflict");
    }
    (out.status.code().unwrap(), rows)
}

fn verify(env: &TestEnv, args: &[&str]) -> (i32, Vec<Value>) {
    verify_with(env, &[], args)
}

fn row_for<'a>(rows: &'a [Value], suffix: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["path"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no report for {suffix}: {rows:?}"))
}

/// `bob caps request` for session `s1` (a human act: a chained audit write).
fn caps_request(env: &TestEnv, cap: &str) -> std::process::Output {
    env.bob(&["caps", "request", "--session", "s1", cap])
        .output()
        .unwrap()
}

/// Every chained log of the home.
fn logs(home: &Path) -> Vec<PathBuf> {
    let mut out = vec![home.join("memory_approvals.jsonl")];
    out.retain(|p| p.exists());
    out.extend(
        crate::support::files_under(&home.join("audit"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl")),
    );
    out
}

/// Rewrites a log the way someone without the key would, in the legacy format: each record
/// without its key id, relinked with plain SHA-256; `forge` edits a record first.
fn recompute_as_legacy(path: &Path, forge: impl Fn(usize, &mut Map<String, Value>)) {
    let mut prev = "0".repeat(64);
    let mut text = String::new();
    for (i, l) in std::fs::read_to_string(path).unwrap().lines().enumerate() {
        let mut m: Map<String, Value> = serde_json::from_str(l).unwrap();
        for k in ["key_id", "seq", "prev", "hash"] {
            m.shift_remove(k);
        }
        forge(i, &mut m);
        m.insert("seq".into(), json!(i));
        m.insert("prev".into(), json!(prev));
        let hash = hex::encode(Sha256::digest(serde_json::to_vec(&m).unwrap()));
        m.insert("hash".into(), json!(hash));
        prev = hash;
        text.push_str(&serde_json::to_string(&m).unwrap());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

fn manifest(home: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(home.join("keys/manifest.json")).unwrap()).unwrap()
}

/// Issue 23 T1: the key deleted and every log recomputed with plain SHA-256 used to verify as
/// `legacy` (exit 0), and the next ordinary command made a new key that adopted the forged
/// logs (then `mixed`, no warning). Now verify fails, writers refuse without making a key,
/// and after a human `bob ledger rekey` the forged records are reported for what they are.
#[test]
fn a_lost_key_never_launders_forged_logs() {
    for delete_whole_keys_dir in [false, true] {
        let env = TestEnv::new();
        for cap in ["net", "fs:dotfiles", "net:example.com"] {
            assert!(caps_request(&env, cap).status.success());
        }
        let old_key_id = manifest(&env.home())["key_id"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(verify(&env, &[]).0, 0);
        // The attack: the key gone, every log recomputed (and forged) without it.
        if delete_whole_keys_dir {
            std::fs::remove_dir_all(env.home().join("keys")).unwrap();
        } else {
            std::fs::remove_file(env.home().join("keys/chain.key")).unwrap();
        }
        for log in logs(&env.home()) {
            recompute_as_legacy(&log, |i, m| {
                if i == 1 {
                    m.insert("actor".into(), json!("forged"));
                }
            });
        }

        let (code, rows) = verify(&env, &[]);
        assert_eq!(code, 5, "forged logs verified: {rows:?}");
        let reason = rows[0]["reason"].as_str().unwrap();
        if delete_whole_keys_dir {
            assert_eq!(rows[0]["integrity"], "legacy");
            assert!(reason.contains("--allow-legacy"), "{reason}");
        } else {
            assert_eq!(rows[0]["integrity"], "key_missing");
            assert!(
                reason.contains("missing") && reason.contains(&old_key_id),
                "{reason}"
            );
        }
        // The next ordinary command refuses and makes no key.
        let out = caps_request(&env, "net:other.example");
        let err = error_of(&out, 5, "conflict");
        assert!(
            err["message"]
                .as_str()
                .unwrap()
                .contains("bob ledger rekey"),
            "{err}"
        );
        assert!(
            !env.home().join("keys/chain.key").exists(),
            "a key was made"
        );
        assert_eq!(verify(&env, &[]).0, 5, "still refused after the writer");

        // A human starts a new key epoch; work goes on.
        let done = env.json(&["ledger", "rekey"], "");
        assert_eq!(done["key"], "created");
        if delete_whole_keys_dir {
            assert_eq!(
                (&done["epoch"], &done["previous_key"]),
                (&json!(1), &json!("none"))
            );
        } else {
            assert_eq!(
                (&done["epoch"], &done["previous_key"]),
                (&json!(2), &json!("missing"))
            );
            assert_eq!(done["previous_key_id"], old_key_id.as_str());
        }
        assert_ne!(done["key_id"], old_key_id.as_str());
        assert!(caps_request(&env, "net:other.example").status.success());

        // The forged records are never reported as keyed: they fail unless accepted, and then
        // are named as unkeyed legacy links with a warning.
        let (code, rows) = verify(&env, &[]);
        assert_eq!(code, 5, "{rows:?}");
        let (code, rows) = verify(&env, &["--allow-legacy"]);
        assert_eq!(code, 0, "{rows:?}");
        let r = row_for(&rows, "audit/human/2026-02-15.jsonl");
        assert_eq!(r["integrity"], "mixed");
        assert_eq!(r["legacy_records"], 3, "{r}");
        assert!(r["warning"].as_str().unwrap().contains("legacy"), "{r}");
        let epochs = r["epochs"].as_array().unwrap();
        assert_eq!(epochs[0]["checked"], "sha256", "{r}");
        assert_eq!(epochs.last().unwrap()["checked"], "key", "{r}");
        assert_eq!(epochs.last().unwrap()["key_id"], done["key_id"], "{r}");
        // The rekey is on record as a human act, with what it found.
        let act = env
            .audit_events("human")
            .into_iter()
            .find(|e| e["event_type"] == "ledger.rekey")
            .expect("the rekey is audited");
        assert_eq!(act["actor"], "human");
        assert_eq!(act["payload"]["previous_key"], done["previous_key"]);
    }
}

/// A key lost with its logs intact: after the rekey the old epoch's records are reported as
/// unverifiable (their key is gone), never as verified, and never silently.
#[test]
fn records_of_a_lost_keys_epoch_are_reported_unverifiable() {
    let env = TestEnv::new();
    assert!(caps_request(&env, "net").status.success());
    assert!(caps_request(&env, "fs:dotfiles").status.success());
    let old = manifest(&env.home())["key_id"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::remove_file(env.home().join("keys/chain.key")).unwrap();
    env.json(&["ledger", "rekey"], "");
    assert!(caps_request(&env, "net:example.com").status.success());
    assert_eq!(verify(&env, &[]).0, 5);
    let (code, rows) = verify(&env, &["--allow-legacy"]);
    assert_eq!(code, 0, "{rows:?}");
    let r = row_for(&rows, "audit/human/2026-02-15.jsonl");
    assert_eq!(
        (&r["unverifiable"], &r["verified"]),
        (&json!(2), &json!(4)),
        "{r}"
    );
    let w = r["warning"].as_str().unwrap();
    assert!(w.contains("epoch 1") && w.contains(&old), "{w}");
    let epochs = r["epochs"].as_array().unwrap();
    assert_eq!(
        (
            &epochs[0]["epoch"],
            &epochs[0]["checked"],
            &epochs[0]["key_id"]
        ),
        (&json!(1), &json!("links_only"), &json!(old))
    );
    // The old epoch's records are still frozen: rewriting one breaks the chain.
    let log = env.home().join("audit/human/2026-02-15.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, text.replacen("\"caps.request\"", "\"caps.grant\"", 1)).unwrap();
    assert_eq!(verify(&env, &["--allow-legacy"]).0, 5);
}

/// Another key in place of the home's: writers and verify refuse it; a rekey adopts it as the
/// new epoch's key. A rotation of a key still at hand keeps the old epoch verifiable.
#[test]
fn a_different_key_is_refused_and_a_rotation_keeps_the_old_epoch_verifiable() {
    let env = TestEnv::new();
    assert!(caps_request(&env, "net").status.success());
    let key = env.home().join("keys/chain.key");
    let original = std::fs::read(&key).unwrap();
    std::fs::write(&key, [7u8; 32]).unwrap();
    let err = error_of(&caps_request(&env, "fs:dotfiles"), 5, "conflict");
    assert!(
        err["message"].as_str().unwrap().contains("another key"),
        "{err}"
    );
    let (code, rows) = verify(&env, &[]);
    assert_eq!(code, 5);
    assert!(
        rows[0]["reason"]
            .as_str()
            .unwrap()
            .contains("written under key"),
        "{rows:?}"
    );
    assert_eq!(
        std::fs::read(&key).unwrap(),
        [7u8; 32],
        "the key was replaced"
    );

    // Put back, then rotated on purpose: the old key is kept as retired.
    std::fs::write(&key, &original).unwrap();
    let old = manifest(&env.home())["key_id"]
        .as_str()
        .unwrap()
        .to_string();
    let done = env.json(&["ledger", "rekey"], "");
    assert_eq!(
        (&done["epoch"], &done["previous_key"], &done["key"]),
        (&json!(2), &json!("retired"), &json!("created"))
    );
    assert!(done["previous_manifest_authentic"].as_bool().unwrap());
    assert!(env.home().join(format!("keys/retired/{old}.key")).exists());
    assert_ne!(std::fs::read(&key).unwrap(), original);
    assert!(caps_request(&env, "fs:dotfiles").status.success());
    // Every record is checked by a key: no --allow-legacy needed.
    let (code, rows) = verify(&env, &[]);
    assert_eq!(code, 0, "{rows:?}");
    let r = row_for(&rows, "audit/human/2026-02-15.jsonl");
    assert_eq!(r["retired_key_records"], 1, "{r}");
    assert_eq!(r["epochs"][0]["checked"], "retired_key", "{r}");
    let m = manifest(&env.home());
    assert_eq!(m["epochs"][0]["key_id"], old.as_str());
    assert_eq!(m["epochs"][0]["key"], "retired");
}

/// A whole home restored from an older copy (logs, manifest and key together) verifies on
/// its own; against an anchor statement kept from before, it fails.
#[test]
fn a_rolled_back_home_fails_verify_against_a_kept_anchor() {
    let env = TestEnv::new();
    assert!(caps_request(&env, "net").status.success());
    let snapshot = env.path("snapshot");
    crate::support::copy_dir(&env.home(), &snapshot);
    assert!(caps_request(&env, "fs:dotfiles").status.success());
    assert!(caps_request(&env, "net:example.com").status.success());
    let anchor = env.json(&["ledger", "anchor"], "");
    assert_eq!(anchor["epoch"], 1);
    assert_eq!(anchor["key_id"], manifest(&env.home())["key_id"]);
    assert!(anchor["mac"].is_string() && anchor["ts"].is_string());
    let key_hex = hex::encode(std::fs::read(env.home().join("keys/chain.key")).unwrap());
    assert!(
        !anchor.to_string().contains(&key_hex),
        "the key is in the anchor"
    );
    let kept = env.path("kept-anchor.json");
    std::fs::write(&kept, anchor.to_string()).unwrap();
    let kept_s = kept.to_str().unwrap();
    assert_eq!(verify(&env, &["--anchor", kept_s]).0, 0);

    // The rollback: the whole home replaced by the older copy.
    std::fs::remove_dir_all(env.home()).unwrap();
    crate::support::copy_dir(&snapshot, &env.home());
    assert_eq!(
        verify(&env, &[]).0,
        0,
        "a consistent older home verifies alone"
    );
    let (code, rows) = verify(&env, &["--anchor", kept_s]);
    assert_eq!(code, 5, "{rows:?}");
    let r = row_for(&rows, "audit/human/2026-02-15.jsonl");
    assert_eq!(r["anchor"], "behind", "{r}");
    assert!(r["reason"].as_str().unwrap().contains("rolled back"), "{r}");
    // Written on after the rollback: the kept head's seq now holds another record.
    assert!(caps_request(&env, "net:other.example").status.success());
    assert!(caps_request(&env, "net:third.example").status.success());
    let (code, rows) = verify(&env, &["--anchor", kept_s]);
    assert_eq!(code, 5);
    assert_eq!(
        row_for(&rows, "audit/human/2026-02-15.jsonl")["anchor"],
        "diverges"
    );

    // An edited anchor is refused.
    let mut forged = anchor.clone();
    forged["generation"] = json!(0);
    std::fs::write(&kept, forged.to_string()).unwrap();
    let out = env
        .bob(&["ledger", "verify", "--anchor", kept_s])
        .output()
        .unwrap();
    let err = error_of(&out, 5, "conflict");
    assert!(err["message"].as_str().unwrap().contains("mac"), "{err}");
}

/// The key kept outside the home (`BOB_KEY_FILE`): the home holds no key, a process without
/// the key file cannot write or verify, and losing access to it stops every writer.
#[test]
fn the_key_can_live_outside_the_home() {
    let env = TestEnv::new();
    let key = env.path("vault/bob-chain.key");
    let with_key = |args: &[&str]| env.bob(args).env("BOB_KEY_FILE", &key).output().unwrap();
    let ok = |out: std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        )
    };
    ok(with_key(&["caps", "request", "--session", "s1", "net"]));
    assert_eq!(std::fs::read(&key).unwrap().len(), 32);
    assert!(
        !env.home().join("keys/chain.key").exists(),
        "a key in the home"
    );
    assert!(env.home().join("keys/manifest.json").exists());
    assert_eq!(
        verify_with(&env, &[("BOB_KEY_FILE", &key)], &[]).0,
        0,
        "verify with the key"
    );
    // Without the key file: nothing is written, no key is made in the home.
    let err = error_of(&caps_request(&env, "fs:dotfiles"), 5, "conflict");
    assert!(
        err["message"].as_str().unwrap().contains("missing"),
        "{err}"
    );
    assert!(!env.home().join("keys/chain.key").exists());
    assert_eq!(verify(&env, &[]).0, 5);
    // The key file taken away: writers refuse, and none is made in its place.
    let away = env.path("vault/moved.key");
    std::fs::rename(&key, &away).unwrap();
    let out = with_key(&["caps", "request", "--session", "s1", "fs:dotfiles"]);
    error_of(&out, 5, "conflict");
    assert!(!key.exists(), "a new key was made in place of the lost one");
    std::fs::rename(&away, &key).unwrap();
    ok(with_key(&[
        "caps",
        "request",
        "--session",
        "s1",
        "fs:dotfiles",
    ]));

    // systemd's credential: `$CREDENTIALS_DIRECTORY/bob-chain.key` (when BOB_KEY_FILE is unset).
    let creds = env.path("credentials");
    std::fs::create_dir_all(&creds).unwrap();
    std::fs::copy(&key, creds.join("bob-chain.key")).unwrap();
    let out = env
        .bob(&["caps", "request", "--session", "s1", "net:example.com"])
        .env("CREDENTIALS_DIRECTORY", &creds)
        .output()
        .unwrap();
    ok(out);
    assert_eq!(
        verify_with(&env, &[("CREDENTIALS_DIRECTORY", &creds)], &[]).0,
        0
    );
    // BOB_KEY_FILE beats the credential.
    let wrong = env.path("wrong.key");
    std::fs::write(&wrong, [9u8; 32]).unwrap();
    let (code, _) = verify_with(
        &env,
        &[("CREDENTIALS_DIRECTORY", &creds), ("BOB_KEY_FILE", &wrong)],
        &[],
    );
    assert_eq!(code, 5);
    assert!(!env.home().join("keys/chain.key").exists());
    // `keys.file` in config.toml, relative to the home, when neither is set.
    std::fs::copy(&key, env.path("vault/from-config.key")).unwrap();
    std::fs::write(
        env.home().join("config.toml"),
        "[keys]\nfile = \"../vault/from-config.key\"\n",
    )
    .unwrap();
    ok(env
        .bob(&["caps", "request", "--session", "s1", "net:third.example"])
        .output()
        .unwrap());
    assert_eq!(verify(&env, &[]).0, 0);
    assert!(!env.home().join("keys/chain.key").exists());
}

/// A rotation while other processes write: an append lands before the rekey (and is adopted
/// into the old epoch) or after it under the new key, which a writer that loaded the old key
/// follows; none is refused, and none is written yet reported as refused (the act it records
/// would then not have happened). Rekeys run for as long as the writers do, so they
/// interleave; then every append is in a log once, the records span several key epochs, and
/// the home verifies with every record checked by a key.
#[test]
fn a_rekey_while_processes_append_leaves_a_home_that_verifies() {
    let env = TestEnv::new();
    assert!(caps_request(&env, "net").status.success());
    let records = |home: &Path| -> Vec<Value> {
        logs(home)
            .iter()
            .flat_map(|l| {
                std::fs::read_to_string(l)
                    .unwrap()
                    .lines()
                    .map(|r| serde_json::from_str::<Value>(r).unwrap())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let before = records(&env.home()).len();
    assert!(caps_request(&env, "net:probe.example").status.success());
    let per_request = records(&env.home()).len() - before;
    let base = records(&env.home()).len();
    let codes = env.path("codes");
    std::fs::create_dir_all(&codes).unwrap();
    let mut writers: Vec<std::process::Child> = (0..4)
        .map(|w| {
            let script = format!(
                "for i in $(seq 1 25); do \"$BOB\" caps request --session s{w} net:h$i.example \
                 >/dev/null 2>&1; echo $? >> \"$CODES/w{w}\"; done"
            );
            std::process::Command::new("sh")
                .args(["-c", &script])
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("BOB", assert_cmd::cargo::cargo_bin("bob"))
                .env("BOB_HOME", env.home())
                .env("BOB_NOW", &env.now)
                .env("CODES", &codes)
                .current_dir(env.dir.path())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut rekeys = 0;
    while rekeys < 3 || writers.iter_mut().any(|w| w.try_wait().unwrap().is_none()) {
        let done = env.json(&["ledger", "rekey"], "");
        assert_eq!(done["previous_key"], "retired");
        rekeys += 1;
    }
    let codes: Vec<String> = (0..4)
        .flat_map(|w| {
            std::fs::read_to_string(codes.join(format!("w{w}")))
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(codes.len(), 100);
    assert!(
        codes.iter().all(|c| c == "0"),
        "an append was refused while rekeys ran: {codes:?}"
    );
    let succeeded = codes.len();
    let all = records(&env.home());
    let rotations = all
        .iter()
        .filter(|r| r["event_type"] == "ledger.rekey")
        .count();
    assert_eq!(rotations, rekeys, "each rekey is recorded once");
    assert_eq!(
        all.len() - rotations,
        base + succeeded * per_request,
        "every successful append is in a log, and nothing else: {codes:?} {}",
        all.iter()
            .map(|r| format!("{} {} {}\n", r["event_type"], r["payload"], r["key_id"]))
            .collect::<String>()
    );
    let epochs: std::collections::BTreeSet<&str> =
        all.iter().filter_map(|r| r["key_id"].as_str()).collect();
    assert!(
        epochs.len() >= 2,
        "the rekeys interleaved: {epochs:?}, {rekeys} rekeys"
    );
    assert!(caps_request(&env, "fs:dotfiles").status.success());
    let (code, rows) = verify(&env, &[]);
    assert_eq!(code, 0, "{rows:?}");
    let verified: u64 = rows.iter().filter_map(|r| r["verified"].as_u64()).sum();
    assert_eq!(verified as usize, all.len() + per_request, "{rows:?}");
}

/// HMAC-SHA256 of `bytes` under `key`, hex.
fn mac(key: &[u8], bytes: &[u8]) -> String {
    use hmac::Mac;
    let mut m = <hmac::Hmac<Sha256> as Mac>::new_from_slice(key).unwrap();
    m.update(bytes);
    hex::encode(m.finalize().into_bytes())
}

/// A home written by the previous version (records without `key_id`, a version 1 manifest)
/// verifies and takes appends as it is: the key is the same key, so nothing needs a rekey.
#[test]
fn a_home_keyed_before_records_named_their_key_still_verifies_and_appends() {
    let env = TestEnv::new();
    for cap in ["net", "fs:dotfiles"] {
        assert!(caps_request(&env, cap).status.success());
    }
    let key = std::fs::read(env.home().join("keys/chain.key")).unwrap();
    let mut m = manifest(&env.home());
    // Rewrite every log as the previous version wrote it.
    for log in logs(&env.home()) {
        let mut prev = "0".repeat(64);
        let mut text = String::new();
        for l in std::fs::read_to_string(&log).unwrap().lines() {
            let mut r: Map<String, Value> = serde_json::from_str(l).unwrap();
            for k in ["key_id", "prev", "hash"] {
                r.shift_remove(k);
            }
            r.insert("prev".into(), json!(prev));
            let hash = mac(&key, &serde_json::to_vec(&r).unwrap());
            r.insert("hash".into(), json!(hash));
            text.push_str(&serde_json::to_string(&r).unwrap());
            text.push('\n');
            prev = hash;
        }
        std::fs::write(&log, text).unwrap();
        let rel = log.strip_prefix(env.home()).unwrap().to_str().unwrap();
        m["files"][rel]["hash"] = json!(prev);
    }
    let mut m = m.as_object().unwrap().clone();
    m.shift_remove("mac");
    m.insert("version".into(), json!(1));
    let body = serde_json::to_vec(&m).unwrap();
    m.insert("mac".into(), json!(mac(&key, &body)));
    std::fs::write(
        env.home().join("keys/manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
    let (code, rows) = verify(&env, &[]);
    assert_eq!(code, 0, "{rows:?}");
    assert_eq!(rows[0]["integrity"], "keyed");
    assert!(caps_request(&env, "net:example.com").status.success());
    let (code, rows) = verify(&env, &[]);
    assert_eq!((code, &rows[0]["verified"]), (0, &json!(3)), "{rows:?}");
    // An edit of an old record is still caught by the key.
    let log = env.home().join("audit/human/2026-02-15.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, text.replacen("\"net\"", "\"net:evil.example\"", 1)).unwrap();
    assert_eq!(verify(&env, &[]).0, 5);
}
