//! The surface of `bob` as insta snapshots, so a change to what a person or a program sees shows
//! up in review: every command's `--help` (the whole clap tree, hidden commands too, one
//! snapshot each under `snapshots/help/`) and one representative output of each subcommand, as
//! JSON and as the terminal view (`--format table`), under `snapshots/output/`. Everything runs
//! the real binary in a [`TestEnv`] (pinned clock, cleared environment); what still differs
//! between runs (the temp dir, ids, hashes, ports, durations) is replaced by a placeholder by
//! [`normalise`] before the comparison.
//!
//! Updating after an intended change: run `cargo insta review` after
//! `cargo test --locked --test cli surface::` (or run the tests with `INSTA_UPDATE=always` and
//! read `git diff tests/cli/snapshots/`), and commit the `.snap` files, never `.snap.new` ones.
//! With `INSTA_UPDATE` unset a difference or a missing snapshot fails the test (and leaves a
//! `.snap.new` beside it to review); with `CI` set insta writes nothing.

use crate::TestEnv;
use clap::CommandFactory;

/// Every command path of the clap tree, depth first in declaration order: `[]` (bob itself),
/// `["memory"]`, `["memory", "add"]`, …
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(prefix.clone());
        for sub in cmd.get_subcommands() {
            let mut p = prefix.clone();
            p.push(sub.get_name().to_string());
            walk(sub, p, out);
        }
    }
    let mut out = Vec::new();
    walk(&bob::cli::Cli::command(), Vec::new(), &mut out);
    out
}

/// The start of the temp dir's name in [`prepared`] homes.
const TMP_PREFIX: &str = "bob-surface-";

/// Replaces what differs between runs with placeholders: the temp dir's random part
/// (`/tmp/bob-surface-[RANDOM]`, as long as the name it replaces), loopback ports
/// (`127.0.0.1:[PORT]`), UUIDs (`[UUID]`), prefixed hex ids (`run_[ID]`, `tok_[ID]`), hex
/// digests of 16 digits or more (`[HASH]`), and the values of the keys named in `varying` (in
/// JSON `"key": value`, in the terminal view `key: value`): durations and the like.
fn normalise(env: &TestEnv, text: &str, varying: &[&str]) -> String {
    let mut t = text.replace(
        &env.dir.path().display().to_string(),
        &format!("/tmp/{TMP_PREFIX}[RANDOM]"),
    );
    let rules = [
        (r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]"),
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[UUID]",
        ),
        (r"\b([a-z]+)_[0-9a-f]{8,}\b", "${1}_[ID]"),
        (r"\b[0-9a-f]{16,}\b", "[HASH]"),
    ];
    for (re, to) in rules {
        t = regex::Regex::new(re)
            .unwrap()
            .replace_all(&t, to)
            .into_owned();
    }
    for key in varying {
        let k = regex::escape(key);
        let json = regex::Regex::new(&format!(r#""{k}": ("[^"]*"|[^,\n}}\]]+)"#)).unwrap();
        t = json
            .replace_all(&t, format!(r#""{key}": "[{}]""#, key.to_uppercase()))
            .into_owned();
        let view = regex::Regex::new(&format!(r"(?m)^(\s*){k}: .*$")).unwrap();
        t = view
            .replace_all(&t, format!("${{1}}{key}: [{}]", key.to_uppercase()))
            .into_owned();
    }
    t
}

/// `bob PATH… --help` of every command in the tree is its snapshot (`snapshots/help/bob-….snap`).
#[test]
fn every_help_page_is_the_snapshot() {
    let env = TestEnv::new();
    let paths = command_paths();
    assert!(paths.len() > 40, "the tree has {} commands", paths.len());
    let mut names = std::collections::BTreeSet::new();
    for path in paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = env.bob(&args).output().unwrap();
        assert!(out.status.success(), "bob {args:?}: {out:?}");
        assert!(out.stderr.is_empty(), "bob {args:?}: {out:?}");
        // Help is the same on every run: nothing to normalise.
        let text = String::from_utf8(out.stdout).unwrap();
        let name = std::iter::once("bob")
            .chain(path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("-");
        names.insert(format!("{name}.snap"));
        insta::with_settings!({
            snapshot_path => "snapshots/help",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!("bob {}", args.join(" ")),
        }, {
            insta::assert_snapshot!(name, text);
        });
    }
    // A command that is gone takes its snapshot with it.
    let dir = crate::env::repo_root().join("tests/cli/snapshots/help");
    let stale: Vec<_> = crate::support::files_under(&dir)
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_string))
        .filter(|f| f.ends_with(".snap") && !names.contains(f))
        .collect();
    assert!(stale.is_empty(), "snapshots of no command: {stale:?}");
}

/// One representative invocation of a subcommand: steps that run first (not snapshotted, each
/// must succeed), then the command whose output is the snapshot, run once as JSON and once, in
/// a second home prepared the same way, with `--format table`. In arguments `@replay` is the
/// replay backend (every chat call answers "Hello from the replay.") and `@root` a directory
/// holding `a.html`, a short page about tea.
struct Case {
    name: &'static str,
    setup: &'static [(&'static [&'static str], &'static str)],
    args: &'static [&'static str],
    stdin: &'static str,
    /// Keys whose values change from run to run (see [`normalise`]).
    varying: &'static [&'static str],
}

/// A [`TestEnv`] whose temp dir path has the same length on every machine
/// (`/tmp/bob-surface-` and 8 random characters), so the columns of a table that shows a path
/// line up the same way everywhere once [`normalise`] has replaced it.
fn prepared() -> TestEnv {
    let env = TestEnv {
        dir: tempfile::Builder::new()
            .prefix(TMP_PREFIX)
            .rand_bytes(8)
            .tempdir_in("/tmp")
            .unwrap(),
        now: crate::env::NOW.to_string(),
    };
    let line = "{\"content\":\"Hello from the replay.\"}\n";
    env.write("replay.jsonl", &line.repeat(8));
    env.write(
        "root/a.html",
        "<html><head><title>Tea</title></head><body><article><h1>Tea</h1><p>Green tea is \
         steeped at 80 degrees for two minutes, black tea at 95 degrees for four.</p>\
         </article></body></html>",
    );
    env
}

/// Runs `args` (placeholders filled) with `--format table` when `table`; its stdout.
fn run(env: &TestEnv, args: &[&str], stdin: &str, table: bool) -> String {
    let replay = format!("replay:{}", env.path("replay.jsonl").display());
    let root = env.path("root").display().to_string();
    let mut a: Vec<&str> = if table {
        vec!["--format", "table"]
    } else {
        Vec::new()
    };
    a.extend(args.iter().map(|x| match *x {
        "@replay" => replay.as_str(),
        "@root" => root.as_str(),
        x => x,
    }));
    let out = env.bob(&a).write_stdin(stdin).output().unwrap();
    assert!(
        out.status.success(),
        "bob {a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The case's JSON output (each document or JSON Lines record pretty-printed) and its terminal
/// view are its two snapshots, `snapshots/output/NAME-json.snap` and `NAME-table.snap`.
fn check(case: &Case) {
    for table in [false, true] {
        let env = prepared();
        for (args, stdin) in case.setup {
            run(&env, args, stdin, false);
        }
        let out = run(&env, case.args, case.stdin, table);
        let text = if table {
            out
        } else {
            out.lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l)
                        .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {l}", case.name));
                    serde_json::to_string_pretty(&v).unwrap() + "\n"
                })
                .collect()
        };
        let text = normalise(&env, &text, case.varying);
        let view = if table { "table" } else { "json" };
        insta::with_settings!({
            snapshot_path => "snapshots/output",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!("bob {}{} (stdin: {:?})",
                if table { "--format table " } else { "" }, case.args.join(" "), case.stdin),
        }, {
            insta::assert_snapshot!(format!("{}-{view}", case.name), text);
        });
    }
}

/// Grants `net` to session s1: a checkpoint and a human act in the audit log.
const GRANT: (&[&str], &str) = (&["caps", "grant", "--session", "s1", "net"], "");
const TURN: (&[&str], &str) = (&["turn", "--backend", "@replay", "--session", "s1"], "hi");

macro_rules! output_snapshots {
    ($($test:ident: $case:expr;)*) => {
        $(
            #[test]
            fn $test() {
                check(&$case);
            }
        )*
        /// Every top-level subcommand has an output snapshot, but the hidden `generate` and
        /// `completion`, whose output is a shell script (tests/cli/examples.rs runs it).
        #[test]
        fn every_subcommand_has_an_output_snapshot() {
            let cases = [$($case.args[0]),*];
            for sub in bob::cli::Cli::command().get_subcommands() {
                assert!(
                    sub.is_hide_set()
                        || sub.get_name() == "completion"
                        || cases.contains(&sub.get_name()),
                    "bob {} has no output snapshot in surface.rs",
                    sub.get_name()
                );
            }
        }
    };
}

output_snapshots! {
    output_init: Case { name: "init", setup: &[], args: &["init"], stdin: "", varying: &[] };
    output_state: Case {
        name: "state-show", setup: &[GRANT], args: &["state", "show", "--session", "s1"],
        stdin: "", varying: &[],
    };
    output_caps: Case {
        name: "caps-grant", setup: &[], args: &["caps", "grant", "--session", "s1", "net"],
        stdin: "", varying: &[],
    };
    output_notes: Case {
        name: "notes-extract", setup: &[], args: &["notes", "extract"],
        stdin: "Done.<<<NOTES_JSON>>>{\"add_decisions\":[\"tea at five\"]}<<<END_NOTES_JSON>>>",
        varying: &[],
    };
    output_condense: Case {
        name: "condense", setup: &[], args: &["condense"],
        stdin: r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#,
        varying: &[],
    };
    output_sanitize: Case {
        name: "sanitize", setup: &[], args: &["sanitize"],
        stdin: "Hi <think>the plan</think> there", varying: &[],
    };
    output_trace: Case {
        name: "trace-query",
        setup: &[(&["trace", "emit", "--session", "s1"], r#"{"kind":"note","data":{"x":1}}"#)],
        args: &["trace", "query", "--session", "s1"], stdin: "", varying: &[],
    };
    output_ledger: Case {
        name: "ledger-verify", setup: &[GRANT], args: &["ledger", "verify"], stdin: "",
        varying: &[],
    };
    output_schema: Case {
        name: "schema-notes-patch", setup: &[], args: &["schema", "notes-patch"], stdin: "",
        varying: &[],
    };
    output_search: Case {
        name: "search-file", setup: &[], args: &["search", "--root", "@root"],
        stdin: r#"{"queries":["a.html"],"fetch_mode":"file"}"#, varying: &[],
    };
    output_tool: Case {
        name: "tool-list", setup: &[], args: &["tool", "list"], stdin: "", varying: &[],
    };
    output_memory: Case {
        name: "memory-candidates",
        setup: &[(&["memory", "propose"], r#"{"text":"The user likes green tea"}"#)],
        args: &["memory", "candidates"], stdin: "", varying: &[],
    };
    output_chat: Case {
        name: "chat", setup: &[], args: &["chat", "--backend", "@replay"],
        stdin: r#"[{"role":"user","content":"hi"}]"#, varying: &["latency_ms"],
    };
    output_turn: Case {
        name: "turn", setup: &[], args: TURN.0, stdin: TURN.1, varying: &["latency_ms"],
    };
    output_context: Case {
        name: "context", setup: &[GRANT], args: &["context", "--session", "s1", "--role", "respond"],
        stdin: "hi", varying: &[],
    };
    output_schedule: Case {
        name: "schedule-list",
        setup: &[(&["schedule", "add", "--id", "daily", "--schedule", "@every 1h", "--message", "hello"], "")],
        args: &["schedule", "list"], stdin: "", varying: &[],
    };
    output_mtg: Case {
        name: "mtg-new", setup: &[],
        args: &["mtg", "new", "--deck", "gruul-40", "--deck", "orzhov-40", "--game", "g1", "--seed", "7"],
        stdin: "", varying: &[],
    };
    output_secrets: Case {
        name: "secrets-list",
        setup: &[(&["secrets", "set", "api_key", "--for", "https://example.com"], "sk-abcdefgh1234")],
        args: &["secrets", "list"], stdin: "", varying: &[],
    };
    output_serve: Case {
        name: "serve-token-create", setup: &[],
        args: &["serve", "token", "create", "--name", "ci"], stdin: "", varying: &[],
    };
    output_eval: Case {
        name: "eval-list", setup: &[], args: &["eval", "list"], stdin: "", varying: &[],
    };
    output_runs: Case {
        name: "runs-list", setup: &[TURN], args: &["runs", "list"], stdin: "", varying: &[],
    };
    output_config: Case {
        name: "config-show", setup: &[], args: &["config", "show"], stdin: "", varying: &[],
    };
    output_db: Case {
        name: "db-status", setup: &[], args: &["db", "status"], stdin: "", varying: &[],
    };
    output_keys: Case {
        name: "keys-export", setup: &[], args: &["keys", "export", "bundle.json"], stdin: "",
        varying: &[],
    };
}
