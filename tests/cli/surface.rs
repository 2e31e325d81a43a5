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
//! With `CI` set (as in CI) insta writes nothing and fails on any difference or missing snapshot.

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
