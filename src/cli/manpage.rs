//! The man page of one subcommand: clap_mangen's NAME, SYNOPSIS, DESCRIPTION, OPTIONS and
//! SUBCOMMANDS, then the sections clap cannot know: EXAMPLES (from [`super::examples`]),
//! ENVIRONMENT (from [`crate::settings::SPECS`]), FILES (the home's layout) and EXIT STATUS
//! (from [`crate::error::Code`]). `bob(1)` lists every variable and file; a subcommand's page
//! lists the variables of its own flags and points to `bob(1)` for the rest.

use super::examples::{self, Example};
use crate::error::Code;
use crate::settings::SPECS;
use roff::{Roff, bold, italic, roman};

/// What the home holds, as `(path, what it is)`; the same layout as docs/design.md's.
pub const HOME_FILES: &[(&str, &str)] = &[
    (
        "config.toml",
        "settings; flags and environment variables override it",
    ),
    (
        "sessions/<session_id>/checkpoint.json",
        "a session's checkpoint, revisioned",
    ),
    (
        "sessions/<session_id>/state.json",
        "the compact context of the session's last turn",
    ),
    ("turns.jsonl", "one turn record per turn, append-only"),
    ("traces/<session_id>.jsonl", "trace events {ts, kind, data}"),
    (
        "audit/<agent_id>/YYYY-MM-DD.jsonl",
        "audit events, redacted, hash-chained",
    ),
    (
        "memory.db",
        "SQLite: short- and long-term memory, candidates, users",
    ),
    (
        "memory_approvals.jsonl",
        "the approval ledger of memory decisions, hash-chained",
    ),
    ("cache/", "the caches of http.get and the domain tools"),
    ("schedule/jobs.json", "scheduler jobs"),
    ("mtg/<game_id>/", "a game's journal and its state cache"),
    (
        "runs/<run_id>/",
        "run bundles: request, turn record, events, tool results",
    ),
    ("scrape_staging/<uuid>/", "staged web fetches"),
    ("secrets/", "encrypted secrets and their owner-only key"),
    (
        "serve/",
        "API tokens (hashed), the durable run queue, the server lock",
    ),
    (
        "keys/",
        "the key of the hash chains and its manifest (or keys.file)",
    ),
];

/// The environment variable that makes `bob` answer a shell's completion request instead of
/// running (set by the scripts `bob completion` prints); not a setting.
const COMPLETE_VAR: (&str, &str) = (
    "BOB_COMPLETE",
    "Set by the completion scripts of bob completion: bob then prints completions for the \
     command line that follows and exits.",
);

/// Renders the man page of `cmd`, whose subcommand path is `path` (`""` for `bob`).
pub fn render(cmd: &clap::Command, path: &str) -> std::io::Result<Vec<u8>> {
    // clap_mangen would render the examples of `--help` as an "EXTRA" section: drop them there.
    let man = clap_mangen::Man::new(cmd.clone().after_help(None::<&str>));
    let mut buf = Vec::new();
    man.render_title(&mut buf)?;
    man.render_name_section(&mut buf)?;
    man.render_synopsis_section(&mut buf)?;
    man.render_description_section(&mut buf)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut buf)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut buf)?;
    }
    let mut roff = Roff::new();
    examples_section(&mut roff, examples::of(path));
    environment_section(&mut roff, cmd, path.is_empty());
    files_section(&mut roff, path.is_empty());
    exit_status_section(&mut roff);
    roff.to_writer(&mut buf)?;
    if cmd.get_version().is_some() {
        man.render_version_section(&mut buf)?;
    }
    Ok(buf)
}

fn examples_section(roff: &mut Roff, examples: &[Example]) {
    if examples.is_empty() {
        return;
    }
    roff.control("SH", ["EXAMPLES"]);
    for e in examples {
        roff.control("PP", []).text([roman(e.about)]);
        roff.control("RS", ["4"])
            .control("nf", [])
            .text([bold(e.line)])
            .control("fi", [])
            .control("RE", []);
    }
}

fn environment_section(roff: &mut Roff, cmd: &clap::Command, all: bool) {
    let flags: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    roff.control("SH", ["ENVIRONMENT"]);
    for sp in SPECS {
        if sp.env.is_empty() || !(all || flags.iter().any(|f| *f == sp.flag)) {
            continue;
        }
        let mut about = sp.doc.to_string();
        about.push_str(&format!(" (setting {}", sp.key));
        if let Some(d) = sp.default {
            about.push_str(&format!("; default {d}"));
        }
        about.push(')');
        roff.control("TP", [])
            .text([bold(sp.env.join(", "))])
            .text([roman(about)]);
    }
    if all {
        roff.control("TP", [])
            .text([bold(COMPLETE_VAR.0)])
            .text([roman(COMPLETE_VAR.1)]);
    }
    roff.control("PP", []).text([roman(if all {
        "Precedence, highest first: a flag, then the environment, then config.toml in the home, \
         then the default. bob config show prints every setting's value and where it came from."
    } else {
        "Every other setting can also come from the environment or config.toml; bob(1) lists \
         them all, and bob config show prints their values."
    })]);
}

fn files_section(roff: &mut Roff, all: bool) {
    roff.control("SH", ["FILES"]);
    roff.text([roman(
        "Everything bob keeps lives in its home: --home DIR, else $BOB_HOME, else ./runtime.",
    )]);
    if !all {
        roff.control("TP", [])
            .text([italic("HOME/config.toml")])
            .text([roman(HOME_FILES[0].1)]);
        roff.control("PP", [])
            .text([roman("bob(1) lists the whole layout of the home.")]);
        return;
    }
    for (path, about) in HOME_FILES {
        roff.control("TP", [])
            .text([italic(format!("HOME/{path}"))])
            .text([roman(*about)]);
    }
}

fn exit_status_section(roff: &mut Roff) {
    roff.control("SH", ["EXIT STATUS"]);
    roff.text([roman(
        "Errors are one JSON line on stderr, {\"error\":{\"code\",\"message\",\"retryable\",\"details\"}} \
         (human text on a terminal), and set the exit status:",
    )]);
    roff.control("TP", []).text([bold("0")]).text([roman(
        "success; also when stdout is closed early (a broken pipe)",
    )]);
    let mut statuses: Vec<i32> = Code::ALL.iter().map(|c| c.exit_code()).collect();
    statuses.sort_unstable();
    statuses.dedup();
    for status in statuses {
        let lines: Vec<String> = Code::ALL
            .iter()
            .filter(|c| c.exit_code() == status)
            .map(|c| format!("{}: {}", c.as_str(), c.meaning()))
            .collect();
        roff.control("TP", [])
            .text([bold(status.to_string())])
            .text([roman(lines.join("; "))]);
    }
}
