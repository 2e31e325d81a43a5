//! The command line: one module per subcommand, registered in [`Command`] and dispatched in
//! one `match`. Modules here parse arguments and do I/O only; the work is in the library.

mod caps;
mod chat;
mod completion;
mod condense;
mod config;
mod context;
mod db;
mod eval;
pub mod examples;
mod generate;
mod init;
mod keys;
mod ledger;
mod live;
pub mod manpage;
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
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use output::{Format, Printer};
use std::path::PathBuf;

/// The options every subcommand takes.
#[derive(Debug, clap::Args)]
pub struct Globals {
    /// Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it
    /// exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]
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

/// The global options and the subcommand of this process's command line.
///
/// Parsed first with [`LazyCli`], which builds the arguments of the named subcommand only
/// (clap's deferred subcommands) instead of all of them: building the whole tree of ~40
/// subcommands was ~0.9M instructions and ~100 page faults of every invocation. Whatever it
/// rejects (help, a mistake, no subcommand) is parsed again by the eager [`Cli`], so help, usage
/// and error messages are exactly those of the full tree; only `--version` (identical in both)
/// is answered by the lazy parser itself.
fn parse(argv: Vec<std::ffi::OsString>) -> std::result::Result<(Globals, Command), clap::Error> {
    use clap::error::ErrorKind;
    match LazyCli::try_parse_from(&argv) {
        Ok(c) => Ok((c.globals, c.command.into())),
        Err(e) if e.kind() == ErrorKind::DisplayVersion => Err(e),
        Err(_) => parse_full(argv),
    }
}

/// Parses with the full tree of [`command`], as the eager [`Cli`] does.
fn parse_full(
    argv: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
) -> std::result::Result<(Globals, Command), clap::Error> {
    let mut cmd = command();
    let mut matches = cmd.try_get_matches_from_mut(argv)?;
    Cli::from_arg_matches_mut(&mut matches)
        .map(|c| (c.globals, c.command))
        .map_err(|e| e.format(&mut cmd))
}

/// The whole command line as clap builds it, each subcommand's help ending with its examples:
/// what help, usage errors, man pages and completions are made from.
pub fn command() -> clap::Command {
    examples::attach(Cli::command())
}

/// Declares the command line twice from one definition: [`Cli`] / [`Command`], the full tree
/// (help, errors, man pages, completions), and `LazyCli` / `LazyCommand`, the same options and
/// subcommands in the same order with the same attributes but `defer`red: a subcommand's
/// arguments are built only when parsing reaches it (its name and description are there from the
/// start, for help). One definition, so the two parsers cannot drift apart.
macro_rules! command_line {
    ($(#[$cli_attr:meta])* ; $($(#[$attr:meta])* $variant:ident($args:ty),)*) => {
        $(#[$cli_attr])*
        #[derive(Debug, Parser)]
        #[command(name = "bob", version, propagate_version = true, max_term_width = 100)]
        pub struct Cli {
            #[command(flatten)]
            pub globals: Globals,

            #[command(subcommand)]
            pub command: Command,
        }

        #[derive(Debug, Subcommand)]
        pub enum Command {
            $($(#[$attr])* $variant($args),)*
        }

        $(#[$cli_attr])*
        #[derive(Debug, Parser)]
        #[command(name = "bob", version, propagate_version = true, max_term_width = 100)]
        struct LazyCli {
            #[command(flatten)]
            globals: Globals,

            #[command(subcommand)]
            command: LazyCommand,
        }

        #[derive(Debug, Subcommand)]
        #[command(defer = true)]
        enum LazyCommand {
            $($(#[$attr])* $variant($args),)*
        }

        impl From<LazyCommand> for Command {
            fn from(c: LazyCommand) -> Command {
                match c {
                    $(LazyCommand::$variant(a) => Command::$variant(a),)*
                }
            }
        }

        /// Each subcommand's name and the command its arguments type builds alone: with the
        /// type's doc comment as its help text, when the type has one.
        #[cfg(test)]
        fn args_alone() -> Vec<(&'static str, clap::Command)> {
            vec![$((
                stringify!($variant),
                <$args as clap::Args>::augment_args(clap::Command::new(stringify!($variant))),
            ),)*]
        }
    };
}

/// A group of subcommands (`bob tool …`) as the arguments of its parent: it builds exactly what
/// `#[command(subcommand)]` builds, but as an `Args` newtype it is deferred whole by
/// `LazyCommand` (clap defers a newtype's arguments, not a nested enum's registration).
#[derive(Debug)]
pub struct Group<T>(pub T);

impl<T: Subcommand> clap::Args for Group<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        T::augment_subcommands(cmd.subcommand_required(true).arg_required_else_help(true))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        T::augment_subcommands_for_update(cmd)
            .subcommand_required(false)
            .arg_required_else_help(false)
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Group<T> {
    fn from_arg_matches(m: &clap::ArgMatches) -> std::result::Result<Self, clap::Error> {
        T::from_arg_matches(m).map(Group)
    }

    fn from_arg_matches_mut(m: &mut clap::ArgMatches) -> std::result::Result<Self, clap::Error> {
        T::from_arg_matches_mut(m).map(Group)
    }

    fn update_from_arg_matches(
        &mut self,
        m: &clap::ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        self.0.update_from_arg_matches(m)
    }

    fn update_from_arg_matches_mut(
        &mut self,
        m: &mut clap::ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(m)
    }
}

command_line! {
    /// bob: a personal LLM agent runtime as composable JSON-in/JSON-out subcommands.
    ///
    /// Every subcommand reads JSON on stdin (or --input FILE) and writes JSON (or JSON Lines) on
    /// stdout. Errors go to stderr as one JSON line {"error":{"code","message","retryable","details"}}.
    ///
    /// Exit codes: 0 ok; 1 internal error; 2 usage or invalid input (invalid.request,
    /// tool.input_invalid); 3 policy denied (policy.denied, sandbox.required); 4 not found
    /// (not_found, tool.not_found); 5 conflict; 6 upstream failure (upstream.error,
    /// chat.rate_limited, queue.full); 7 a turn that did not answer (turn.incomplete: it escalated or
    /// hit --max-tool-rounds); 8 an eval threshold not met (eval.threshold); 124 timeout; 130
    /// cancelled (run.cancelled). A closed stdout
    /// (broken pipe) exits 0.
    ///
    /// Words: a session is one conversation, with a revisioned checkpoint (its state); a
    /// profile is the roles a turn runs, one model call each (bob: think, respond; spectator;
    /// solo; panda: thinking, then a solver whose JSON output is read as contracts); a NOTES
    /// patch is the state change a model writes in its reply; a capability (net:HOST, …) is a
    /// permission only a human grants; STM and LTM are short- and long-term memory, and an LTM
    /// record exists only once a human approved its candidate; TURBOTIME switches on a session's
    /// domain tools and a planning path; Openclawssy, JSON I/O, Spectator and Bob v0 are earlier
    /// agent projects whose formats bob reads; a replay script is a JSON Lines file of scripted
    /// model replies (--backend replay:FILE), for offline runs.
    ;
    // A subcommand whose `Args` struct has a doc comment has none here: clap shows the
    // variant's doc instead of the struct's, so the help text lives with its arguments.
    Init(init::Args),
    /// Show or replace a session's checkpoint (revisioned)
    State(Group<state::Args>),
    /// List, request, grant or revoke a session's capabilities
    Caps(Group<caps::Args>),
    /// Extract NOTES_JSON patches from assistant text, or apply a patch to a checkpoint
    Notes(Group<notes::Args>),
    Condense(condense::Args),
    /// Strip scaffold blocks, markers and chain-of-thought from model output
    Sanitize(sanitize::Args),
    /// Emit, query, follow and summarise trace events
    Trace(Group<trace::Args>),
    /// Show, verify, anchor, rekey or repair hash-chained logs (approval ledger, audit log)
    Ledger(Group<ledger::Args>),
    Schema(schema::Args),
    Search(search::Args),
    /// List, describe and run tools under the sandbox and policy
    Tool(Group<tool::Args>),
    /// Short-term and long-term memory, candidates and approvals
    Memory(Group<memory::Args>),
    Chat(chat::Args),
    #[command(args_conflicts_with_subcommands = true)]
    Turn(turn::Args),
    Context(context::Args),
    /// Cron-friendly jobs that run turns
    Schedule(Group<schedule::Args>),
    /// Play Magic: The Gathering through the rules engine (state, actions, act, journal)
    Mtg(Group<mtg::Args>),
    Secrets(Group<secrets::Args>),
    Serve(serve::Args),
    Eval(Group<eval::Args>),
    /// List and show run bundles (runs/<run_id>/)
    Runs(Group<runs::Args>),
    /// Show the effective settings and where each came from; set or unset one in config.toml
    Config(Group<config::Args>),
    Completion(completion::Args),
    Db(Group<db::Args>),
    Keys(Group<keys::Args>),
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
    // Before any thread starts: the local embedding model's own thread pool is set up here.
    crate::memory::embed::prepare_process(std::env::var_os("CANDLE_NUM_THREADS").is_some());
    output::install_panic_hook();
    if std::env::var_os(completion::VAR).is_some() {
        // A shell asks for completions: answer and exit. The home gives the values to offer.
        let home = Settings::load(crate::settings::Flags::default(), environment())
            .ok()
            .map(|s| s.home().clone());
        completion::answer(command(), home);
    }
    let (cli, command) = match parse(std::env::args_os().collect()) {
        Ok(parsed) => parsed,
        Err(e) => return output::clap_error(e),
    };
    // The one place the process environment is read for settings (docs/design.md#settings).
    let flags = crate::settings::Flags {
        home: cli.home.clone(),
        now: cli.now.clone(),
        ..Default::default()
    };
    let settings = match Settings::load(flags, environment()) {
        Ok(s) => s,
        Err(e) => return output::report(&e),
    };
    settings.install();
    crate::memory::embed::install(crate::memory::embed::EmbedConfig::from_settings(&settings));
    if let Err(e) = output::install(&settings) {
        return output::report(&e);
    }
    if let Some(now) = &cli.now {
        // Child processes (a scheduled `bob turn`) see the pinned clock too: protocol, not a
        // setting read back.
        // SAFETY: set_var is unsound only while another thread reads the environment; this
        // runs at startup, before bob spawns any thread or starts the tokio runtime.
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

/// The process environment's variables that are valid UTF-8.
fn environment() -> impl Iterator<Item = (String, String)> {
    std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
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
        Command::Memory(Group(a)) => memory::stdin_expectation(a),
        Command::Chat(_) => "a messages JSON (or plain text)",
        Command::Context(_) => "a TurnInput JSON {session_id, message, …} or plain text",
        Command::Schedule(_) => "a job JSON",
        Command::Mtg(Group(a)) => mtg::stdin_expectation(a),
        Command::Secrets(_) => "the secret value",
        _ => "JSON input",
    }
}

fn run(command: Command, ctx: &Ctx) -> Result<()> {
    match command {
        Command::Init(a) => init::run(a, ctx),
        Command::State(Group(a)) => state::run(a, ctx),
        Command::Caps(Group(a)) => caps::run(a, ctx),
        Command::Notes(Group(a)) => notes::run(a, ctx),
        Command::Condense(a) => condense::run(a, ctx),
        Command::Sanitize(a) => sanitize::run(a, ctx),
        Command::Trace(Group(a)) => trace::run(a, ctx),
        Command::Ledger(Group(a)) => ledger::run(a, ctx),
        Command::Schema(a) => schema::run(a, ctx),
        Command::Search(a) => search::run(a, ctx),
        Command::Tool(Group(a)) => tool::run(a, ctx),
        Command::Memory(Group(a)) => memory::run(a, ctx),
        Command::Chat(a) => chat::run(a, ctx),
        Command::Turn(a) => turn::run(a, ctx),
        Command::Context(a) => context::run(a, ctx),
        Command::Schedule(Group(a)) => schedule::run(a, ctx),
        Command::Mtg(Group(a)) => mtg::run(a, ctx),
        Command::Secrets(Group(a)) => secrets::run(a, ctx),
        Command::Serve(a) => serve::run(a, ctx),
        Command::Eval(Group(a)) => eval::run(a, ctx),
        Command::Runs(Group(a)) => runs::run(a, ctx),
        Command::Config(Group(a)) => config::run(a, ctx),
        Command::Completion(a) => completion::run(a, ctx),
        Command::Db(Group(a)) => db::run(a, ctx),
        Command::Keys(Group(a)) => keys::run(a, ctx),
        Command::Generate(a) => generate::run(a, ctx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
        command().debug_assert();
        LazyCli::command().debug_assert();
    }

    /// A subcommand's help text is its arguments type's doc comment when that type has one (a doc
    /// comment on the enum variant would replace it, and the long text would never be shown).
    #[test]
    fn every_arguments_doc_comment_is_the_subcommands_help() {
        let text = |c: &clap::Command| c.get_long_about().or(c.get_about()).map(|s| s.to_string());
        let full = command();
        let alone = args_alone();
        let mut checked = 0;
        for (sub, (variant, own)) in full.get_subcommands().zip(&alone) {
            assert_eq!(sub.get_name(), variant.to_lowercase(), "subcommand order");
            if let Some(doc) = text(own) {
                assert_eq!(text(sub), Some(doc), "bob {}'s help", sub.get_name());
                checked += 1;
            }
        }
        assert!(
            checked >= 10,
            "only {checked} subcommands with their own doc"
        );
    }

    /// Every subcommand path of the full tree, e.g. `["tool", "run"]`.
    fn paths(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(prefix.clone());
        for sub in cmd.get_subcommands() {
            let mut p = prefix.clone();
            p.push(sub.get_name().to_string());
            paths(sub, p, out);
        }
    }

    /// What [`parse`] answers, as text: the parsed command or the rendered error.
    fn rendered(r: std::result::Result<(Globals, Command), clap::Error>) -> String {
        match r {
            Ok(parsed) => format!("{parsed:?}"),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    /// [`parse`] (the lazy parser, falling back to the full tree) answers exactly like the full
    /// tree alone: the same help and usage on every subcommand path, the same version lines and
    /// errors, the same parsed command.
    #[test]
    fn lazy_parser_matches_the_full_tree() {
        let mut all = Vec::new();
        paths(&command(), Vec::new(), &mut all);
        assert!(all.len() > 60, "only {} subcommand paths", all.len());
        let mut argvs: Vec<Vec<String>> = Vec::new();
        for p in &all {
            for tail in [
                &["--help"][..],
                &["-h"],
                &["--version"],
                &["--no-such-flag"],
                &[],
            ] {
                let mut argv = vec!["bob".to_string()];
                argv.extend(p.iter().cloned());
                argv.extend(tail.iter().map(|s| s.to_string()));
                argvs.push(argv);
            }
            let mut help = vec!["bob".to_string(), "help".to_string()];
            help.extend(p.iter().cloned());
            argvs.push(help);
        }
        for line in [
            "bob --home /h tool run --enable scryfall.lookup --grant net:127.0.0.1 --input f",
            "bob tool run --timeout-ms nope",
            "bob tol run",
            "bob --json turn --session s1 hello",
            "bob turn commit --help",
            "bob notes apply --session s1 --expect-revision 3",
            "bob --format table --json state show --session s",
            "bob state show --session s --now 2026-01-01T00:00:00Z",
        ] {
            argvs.push(line.split(' ').map(str::to_string).collect());
        }
        for argv in &argvs {
            let full = parse_full(argv);
            let os = argv.iter().map(std::ffi::OsString::from).collect();
            assert_eq!(rendered(parse(os)), rendered(full), "{argv:?}");
        }
    }
}
