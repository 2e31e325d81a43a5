//! `bob completion SHELL`: the script that makes a shell complete bob's command lines.
//!
//! The script asks `bob` itself at every Tab (it runs `BOB_COMPLETE=<shell> bob -- <words>`), so
//! besides subcommands and flags it completes values that live in the home: session ids, game
//! ids and run ids, and the names of tools and built-in decks. Each is a directory listing or a
//! table in the binary, cheap enough for a keystroke. The static scripts under `completions/`
//! (`bob generate`) complete subcommands and flags only, for shells where bob is not on PATH.

use super::Ctx;
use crate::error::{Error, Result};
use crate::home::Home;
use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use clap_complete::env::{Bash, EnvCompleter, Fish, Zsh};
use std::path::Path;

/// The variable that turns a `bob` process into a completion answer.
pub const VAR: &str = "BOB_COMPLETE";

/// A shell `bob completion` writes a script for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Print the completion script of a shell (bash, zsh or fish)
///
/// The script asks bob itself at each Tab, so besides subcommands and flags it completes
/// the session, game and run ids of the home (found as for any command) and the names of
/// tools and built-in decks. Install it once: save it where the shell looks for completions
/// (bash: ~/.local/share/bash-completion/completions/bob; fish:
/// ~/.config/fish/completions/bob.fish) or source it from the shell's startup file (zsh:
/// source <(bob completion zsh) in ~/.zshrc).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to write the script for
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: Args, _ctx: &Ctx) -> Result<()> {
    let shell: &dyn EnvCompleter = match args.shell {
        Shell::Bash => &Bash,
        Shell::Zsh => &Zsh,
        Shell::Fish => &Fish,
    };
    let mut buf = Vec::new();
    shell
        .write_registration(VAR, "bob", "bob", "bob", &mut buf)
        .map_err(|e| Error::internal(e.to_string()))?;
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(&buf).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::internal(format!(
            "cannot write the completion script: {e}"
        ))),
        _ => Ok(()),
    }
}

/// Answers the completion request the environment holds (when [`VAR`] is set) for the command
/// line `cmd` parses, with values from `home` (if one resolved), and exits; returns otherwise.
pub fn answer(cmd: clap::Command, home: Option<Home>) {
    clap_complete::CompleteEnv::with_factory(move || with_candidates(cmd.clone(), home.clone()))
        .var(VAR)
        .complete();
}

/// `cmd` with value candidates on the arguments that name things bob keeps or knows.
fn with_candidates(cmd: clap::Command, home: Option<Home>) -> clap::Command {
    at(cmd, "", &home)
}

fn at(mut cmd: clap::Command, path: &str, home: &Option<Home>) -> clap::Command {
    let ids: Vec<String> = cmd
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    for id in ids {
        let candidates = match (path, id.as_str()) {
            (_, "session") => dir_names(home, "sessions"),
            (_, "game") => dir_names(home, "mtg"),
            ("runs show", "id") => dir_names(home, "runs"),
            (_, "deck") => ArgValueCandidates::new(|| {
                crate::mtg::decks::builtin()
                    .into_iter()
                    .map(|d| CompletionCandidate::new(d.name))
                    .collect::<Vec<_>>()
            }),
            ("tool enable" | "tool disable", "names")
            | ("tool schema", "name")
            | ("tool run", "enable") => ArgValueCandidates::new(|| {
                crate::tools::registry()
                    .iter()
                    .map(|t| CompletionCandidate::new(t.name))
                    .collect::<Vec<_>>()
            }),
            _ => continue,
        };
        cmd = cmd.mut_arg(&id, |a| a.add(candidates));
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let sub = if path.is_empty() {
            name.clone()
        } else {
            format!("{path} {name}")
        };
        cmd = cmd.mut_subcommand(&name, |s| at(s, &sub, home));
    }
    cmd
}

/// The entries of `<home>/<dir>` as candidates (a session's, game's or run's id).
fn dir_names(home: &Option<Home>, dir: &'static str) -> ArgValueCandidates {
    let root = home.as_ref().map(|h| h.root().join(dir));
    ArgValueCandidates::new(move || {
        let Some(root) = &root else { return Vec::new() };
        subdirectories(root)
            .into_iter()
            .map(CompletionCandidate::new)
            .collect::<Vec<_>>()
    })
}

/// The names of the directories in `dir`, sorted; none when it cannot be read.
fn subdirectories(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}
