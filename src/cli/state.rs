//! `bob state show|set`: read or replace a session's checkpoint.

use super::Ctx;
use super::output::{parse_json, read_input};
use crate::checkpoint;
use crate::contracts::{ChatMessage, State};
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::PathBuf;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Print the session's checkpoint JSON
    ///
    /// A session with no checkpoint yet is not_found (exit 4), so a mistyped id is noticed;
    /// with --or-empty it prints the fresh checkpoint (revision 0) instead. Nothing is written.
    Show(ShowArgs),
    /// Replace the session's state (and, if given, its recent messages); bumps the revision
    ///
    /// Input (stdin or --input FILE): a Checkpoint (its `state` and `recent_messages` are used;
    /// its session_id, revision and updated_ts are ignored) or a bare State. A seed 001
    /// state.json is accepted: `active_context` becomes `episode_summary`, `open_threads`
    /// becomes `open_loops`. Unknown fields are ignored. Prints the committed checkpoint.
    ///
    /// This is an operator's command: the state it writes may grant capabilities. Models change
    /// state only through `bob notes apply`, which never lets them grant.
    Set(SetArgs),
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Session id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Print a fresh checkpoint (revision 0) for a session that has none yet
    #[arg(long)]
    pub or_empty: bool,
}

#[derive(Debug, clap::Args)]
pub struct SetArgs {
    /// Session id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Fail with conflict (exit 5) unless the stored revision is N (0 = no checkpoint yet)
    #[arg(long, value_name = "N")]
    pub expect_revision: Option<u64>,
    /// Read the input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Show(a) => {
            let cp = match checkpoint::load_existing(&ctx.home, &a.session)? {
                Some(cp) => cp,
                None if a.or_empty => checkpoint::fresh(&a.session),
                None => {
                    return Err(Error::not_found(format!(
                        "session {:?} has no checkpoint (use --or-empty for a fresh one)",
                        a.session
                    ))
                    .with("session_id", a.session.as_str()));
                }
            };
            ctx.out.doc(&cp)
        }
        Args::Set(a) => {
            // Validate the id before reading a possibly large input.
            ctx.home.checkpoint_path(&a.session)?;
            let text = read_input(a.input.as_deref())?;
            let value: Value = parse_json("state", &text)?;
            let (state, messages) = state_input(value)?;
            let (cp, ()) = checkpoint::update(&ctx.home, &a.session, a.expect_revision, |cp| {
                cp.state = state;
                if let Some(m) = messages {
                    cp.recent_messages = m;
                }
                Ok(())
            })?;
            ctx.out.doc(&cp)
        }
    }
}

/// Reads a Checkpoint-shaped or State-shaped document.
fn state_input(value: Value) -> Result<(State, Option<Vec<ChatMessage>>)> {
    let Value::Object(mut map) = value else {
        return Err(Error::invalid(
            "state: expected a JSON object (a Checkpoint or a State)",
        ));
    };
    let bad = |what: &str, e: serde_json::Error| Error::invalid(format!("{what}: {e}"));
    match map.remove("state") {
        Some(state @ Value::Object(_)) => {
            let state: State =
                serde_json::from_value(state).map_err(|e| bad("checkpoint.state", e))?;
            let messages = match map.remove("recent_messages") {
                None | Some(Value::Null) => None,
                Some(m) => Some(
                    serde_json::from_value(m).map_err(|e| bad("checkpoint.recent_messages", e))?,
                ),
            };
            Ok((state, messages))
        }
        Some(_) => Err(Error::invalid("checkpoint.state must be a JSON object")),
        None => Ok((
            serde_json::from_value(Value::Object(map)).map_err(|e| bad("state", e))?,
            None,
        )),
    }
}
