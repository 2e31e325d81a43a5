//! `bob state show|set`: read a session's checkpoint, or change its state by hand.

use super::Ctx;
use super::output::{parse_json, read_input};
use crate::checkpoint;
use crate::error::{Error, Result};
use crate::human;
use serde_json::Value;
use std::path::PathBuf;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Print the session's checkpoint JSON
    ///
    /// A session with no checkpoint yet is not_found (exit 4), so a mistyped id is noticed;
    /// with --or-empty it prints the fresh checkpoint (revision 0) instead. Nothing is written.
    Show(ShowArgs),
    /// Change the session's state by hand (a human act, audited); bumps the revision
    ///
    /// Input (stdin or --input FILE): a bare State, or a Checkpoint (as `state show` prints it).
    /// The fields the input names are set; the fields it does not name are kept, and so are the
    /// recent messages unless a Checkpoint carries `recent_messages`. With --replace the input
    /// is the whole state: fields it does not name are reset, and the recent messages become
    /// the input's (none for a bare State).
    ///
    /// Capabilities change only through `bob caps`: `capabilities_granted` and
    /// `capabilities_pending` are always kept; an input that names them with other values than
    /// the stored ones is invalid.request (exit 2) and nothing is written.
    ///
    /// A Checkpoint's `revision` is the revision it was read at and is checked like
    /// --expect-revision: a stale checkpoint (revision 2 when the session is at 3) is conflict
    /// (exit 5) and nothing is written. A Checkpoint of another session is invalid.request (pipe
    /// its `.state` to copy a state across sessions).
    ///
    /// A Bob v0 state.json is accepted: `active_context` becomes `episode_summary`,
    /// `open_threads` becomes `open_loops`. Unknown fields are ignored. Every change is recorded
    /// in the audit log (`state.set`, actor human) before it is committed. Prints the committed
    /// checkpoint.
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
    /// Replace the whole state and the recent messages instead of merging (capabilities are
    /// still kept: they change only through `bob caps`)
    #[arg(long)]
    pub replace: bool,
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
            let cp = human::set_state(&ctx.home, &a.session, value, a.replace, a.expect_revision)?;
            ctx.out.doc(&cp)
        }
    }
}
