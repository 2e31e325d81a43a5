//! The command line: one module per subcommand, registered in [`Command`] and dispatched in
//! one `match`. Modules here parse arguments and do I/O only; the work is in the library.

mod caps;
mod chat;
mod condense;
mod config;
mod context;
mod eval;
mod generate;
mod init;
mod ledger;
mod memory;
mod mtg;
mod notes;
pub mod output;
pub mod progress;
mod runs;
mod sanitize;
mod schedule;
mod schema;
mod search;
mod secrets;
mod serve;
mod state;
mod tool;
mod trace;
mod turn;

use crate::error::Result;
use crate::home::Home;
use crate::settings::Settings;
use clap::{Parser, Subcommand};
use output::{Format, Printer};
use std::path::PathBuf;

/// bob: a personal LLM agent runtime as composable JSON-in/JSON-out subcommands.
///
/// Every subcommand reads JSON on stdin (or --input FILE) and writes JSON (or JSON Lines) on
/// stdout. Errors go to stderr as one JSON line {"error":{"code","message","retryable","details"}}.
///
/// Exit codes: 0 ok; 1 internal error; 2 usage or invalid input (invalid.request,
/// tool.input_invalid); 3 policy denied (policy.denied, sandbox.required); 4 not found
/// (not_found, tool.not_found); 5 conflict; 6 upstream failure (upstream.error,
/// chat.rate_limited, queue.full); 7 a turn that did not answer (turn.incomplete: it escalated or
/// hit --max-tool-rounds); 124 timeout; 130 cancelled (run.cancelled). A closed stdout
/// (broken pipe) exits 0.
#[derive(Debug, Parser)]
#[command(name = "bob", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub globals: Globals,

    #[command(subcommand)]
    pub command: Command,
}

/// The options every subcommand takes.
#[derive(Debug, clap::Args)]
pub struct Globals {
    /// Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else
    /// the system clock] so TTLs and schedules are deterministic
    #[arg(long, global = true, value_name = "RFC3339")]
    pub now: Option<String>,

    /// Output format: json (default when stdout is not a terminal) or table (human view)
    #[arg(long, global = true, value_enum)]
    pub format: Option<Format>,

    /// Force JSON output even on a terminal
    #[arg(long, global = true, conflicts_with = "format")]
    pub json: bool,
}

/// `bob [options] turn …` alone: parsing it builds only the turn's arguments instead of every
/// subcommand's, about half a millisecond of each turn. Whatever it does not accept (help, a
/// mistake, another command) goes to the full [`Cli`], which reports it.
#[derive(Debug, Parser)]
#[command(name = "bob", version, propagate_version = true, max_term_width = 100)]
struct TurnCli {
    #[command(flatten)]
    globals: Globals,

    #[command(subcommand)]
    command: TurnOnly,
}

#[derive(Debug, Subcommand)]
enum TurnOnly {
    #[command(args_conflicts_with_subcommands = true)]
    Turn(turn::Args),
}

/// The global options and the subcommand of this process's command line.
fn parse() -> std::result::Result<(Globals, Command), clap::Error> {
    if std::env::args_os().skip(1).any(|a| a == "turn")
        && let Ok(c) = TurnCli::try_parse()
    {
        let TurnOnly::Turn(a) = c.command;
        return Ok((c.globals, Command::Turn(a)));
    }
    Cli::try_parse().map(|c| (c.globals, c.command))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the home directory and its layout
    Init(init::Args),
    /// Show or replace a session's checkpoint (revisioned)
    #[command(subcommand)]
    State(state::Args),
    /// List, request, grant or revoke a session's capabilities
    #[command(subcommand)]
    Caps(caps::Args),
    /// Extract NOTES_JSON patches from assistant text, or apply a patch to a checkpoint
    #[command(subcommand)]
    Notes(notes::Args),
    /// Deterministically condense a message list to fit the context caps
    Condense(condense::Args),
    /// Strip scaffold blocks, markers and chain-of-thought from model output
    Sanitize(sanitize::Args),
    /// Emit, query, follow and summarise trace events
    #[command(subcommand)]
    Trace(trace::Args),
    /// Show, verify or repair hash-chained logs (approval ledger, audit log)
    #[command(subcommand)]
    Ledger(ledger::Args),
    /// Print the JSON Schema of a contract type
    Schema(schema::Args),
    /// Run a SearchRequest: fetch, extract and stage web pages, files or search results
    Search(search::Args),
    /// List, describe and run tools under the sandbox and policy
    #[command(subcommand)]
    Tool(tool::Args),
    /// Short-term and long-term memory, candidates and approvals
    #[command(subcommand)]
    Memory(memory::Args),
    /// One call to the chat backend: messages JSON in, reply out
    Chat(chat::Args),
    /// Run one turn through the role pipeline (`bob turn commit`: the pipeline's last stage)
    #[command(args_conflicts_with_subcommands = true)]
    Turn(turn::Args),
    /// Build the labelled role inputs for a session and role
    Context(context::Args),
    /// Cron-friendly jobs that run turns
    #[command(subcommand)]
    Schedule(schedule::Args),
    /// Play Magic: The Gathering through the rules engine (state, actions, act, journal)
    #[command(subcommand)]
    Mtg(mtg::Args),
    /// Store, list and remove secrets (one-way: values are never shown)
    #[command(subcommand)]
    Secrets(secrets::Args),
    /// Serve the HTTP API (runs queue, SSE events) and manage its tokens
    Serve(serve::Args),
    /// Run the integrity suites (seed 002 §9) against a backend and report
    #[command(subcommand)]
    Eval(eval::Args),
    /// List and show run bundles (runs/<run_id>/)
    #[command(subcommand)]
    Runs(runs::Args),
    /// Show the effective settings and where each came from (flag, env, config, default)
    #[command(subcommand)]
    Config(config::Args),
    /// Regenerate man pages and shell completions
    #[command(hide = true)]
    Generate(generate::Args),
}

/// What every subcommand gets: the resolved home, the settings and the output gate.
pub struct Ctx {
    pub home: Home,
    pub settings: Settings,
    pub out: Printer,
}

/// Parses the command line, runs the subcommand, reports errors; returns the exit code.
pub fn main() -> i32 {
    output::install_panic_hook();
    let (cli, command) = match parse() {
        Ok(parsed) => parsed,
        Err(e) => return output::clap_error(e),
    };
    // The one place the process environment is read for settings (DESIGN.md §9).
    let flags = crate::settings::Flags {
        home: cli.home.clone(),
        now: cli.now.clone(),
        ..Default::default()
    };
    let settings = match Settings::load(
        flags,
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
    ) {
        Ok(s) => s,
        Err(e) => return output::report(&e),
    };
    settings.install();
    if let Err(e) = output::install(&settings) {
        return output::report(&e);
    }
    if let Some(now) = &cli.now {
        // Child processes (a scheduled `bob turn`) see the pinned clock too: protocol, not a
        // setting read back. SAFETY: single-threaded at this point.
        unsafe { std::env::set_var(crate::clock::NOW_ENV, now) };
    }
    let format = if cli.json {
        Some(Format::Json)
    } else {
        cli.format
    };
    let ctx = Ctx {
        home: settings.home().clone(),
        settings,
        out: Printer::new(format),
    };
    progress::expect_on_stdin(stdin_expectation(&command));
    // Every durable write of this process is redacted with this home's rules.
    crate::redact::set_process_home(&ctx.home);
    match run(command, &ctx) {
        Ok(()) => 0,
        Err(e) => output::report(&e),
    }
}

/// What `command` reads when it reads stdin, for the note a person at a terminal sees.
fn stdin_expectation(command: &Command) -> &'static str {
    match command {
        Command::Turn(_) => "a TurnInput JSON {session_id, message, …} or plain text",
        Command::State(_) => "a State or Checkpoint JSON",
        Command::Notes(_) => "assistant text with NOTES blocks, or a NOTES payload JSON",
        Command::Condense(_) => "a message list JSON",
        Command::Sanitize(_) => "model output text",
        Command::Trace(_) => "trace events as JSON Lines",
        Command::Search(_) => "a SearchRequest JSON",
        Command::Tool(_) => "tool calls JSON (envelopes, TOOL_CALLS blocks or OpenAI tool_calls)",
        Command::Memory(a) => memory::stdin_expectation(a),
        Command::Chat(_) => "a messages JSON (or plain text)",
        Command::Context(_) => "a TurnInput JSON {session_id, message, …} or plain text",
        Command::Schedule(_) => "a job JSON",
        Command::Mtg(a) => mtg::stdin_expectation(a),
        Command::Secrets(_) => "the secret value",
        _ => "JSON input",
    }
}

fn run(command: Command, ctx: &Ctx) -> Result<()> {
    match command {
        Command::Init(a) => init::run(a, ctx),
        Command::State(a) => state::run(a, ctx),
        Command::Caps(a) => caps::run(a, ctx),
        Command::Notes(a) => notes::run(a, ctx),
        Command::Condense(a) => condense::run(a, ctx),
        Command::Sanitize(a) => sanitize::run(a, ctx),
        Command::Trace(a) => trace::run(a, ctx),
        Command::Ledger(a) => ledger::run(a, ctx),
        Command::Schema(a) => schema::run(a, ctx),
        Command::Search(a) => search::run(a, ctx),
        Command::Tool(a) => tool::run(a, ctx),
        Command::Memory(a) => memory::run(a, ctx),
        Command::Chat(a) => chat::run(a, ctx),
        Command::Turn(a) => turn::run(a, ctx),
        Command::Context(a) => context::run(a, ctx),
        Command::Schedule(a) => schedule::run(a, ctx),
        Command::Mtg(a) => mtg::run(a, ctx),
        Command::Secrets(a) => secrets::run(a, ctx),
        Command::Serve(a) => serve::run(a, ctx),
        Command::Eval(a) => eval::run(a, ctx),
        Command::Runs(a) => runs::run(a, ctx),
        Command::Config(a) => config::run(a, ctx),
        Command::Generate(a) => generate::run(a, ctx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
        TurnCli::command().debug_assert();
    }
}
