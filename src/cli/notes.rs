//! `bob notes extract|apply`: the NOTES patch protocol as two pipeline stages.

use super::Ctx;
use super::output::read_input;
use crate::error::Result;
use crate::notes::{self, Actor, session};
use serde_json::Value;
use std::path::PathBuf;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Remove every NOTES_JSON block from assistant text and parse the patches
    ///
    /// Reads assistant text on stdin (or --input FILE), or a chat message / `bob chat` output
    /// holding it in `content` / `message.content`; prints {patch, visible_text, errors,
    /// blocks}. Several blocks merge in order; a malformed or unterminated block is removed,
    /// reported in `errors` (invalid.request) and never applied. With --session, malformed
    /// blocks are also traced (kind notes_patch). Exits 0 even when blocks were malformed.
    Extract(ExtractArgs),
    /// Apply a NOTES patch to a session's checkpoint (bumps the revision)
    ///
    /// Input: a bare NOTES payload, a JSON I/O NoteFrames object, or assistant text holding
    /// NOTES_JSON blocks (as text, or as a chat message / `bob chat` output). A bare payload that is not valid JSON or has a wrong shape is
    /// invalid.request (exit 2) and nothing is written; malformed blocks inside assistant text
    /// are reported in `errors` while the well-formed ones apply. Unknown payload keys are
    /// ignored and listed in `ignored_keys`. Text with no block changes nothing.
    ///
    /// A model-originated patch (the default actor) may request capabilities but never grant
    /// them: `grant_permission:` actions are refused and listed in `refused`.
    Apply(ApplyArgs),
}

#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// Trace malformed blocks to this session's trace log
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Read the input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ActorArg {
    /// The patch comes from a model: it may request, never grant, capabilities
    Model,
    /// The patch comes from a human: grant_permission actions take effect
    Human,
}

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// Session id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Who wrote the patch
    #[arg(long, value_enum, default_value = "model")]
    pub actor: ActorArg,
    /// Fail with conflict (exit 5) unless the stored revision is N (0 = no checkpoint yet)
    #[arg(long, value_name = "N")]
    pub expect_revision: Option<u64>,
    /// Read the input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Extract(a) => extract(a, ctx),
        Args::Apply(a) => apply(a, ctx),
    }
}

fn extract(a: ExtractArgs, ctx: &Ctx) -> Result<()> {
    if let Some(s) = &a.session {
        ctx.home.trace_path(s)?;
    }
    let text = read_input(a.input.as_deref())?;
    let chat = serde_json::from_str::<Value>(text.trim()).ok();
    let mut x = notes::extract(
        chat.as_ref()
            .and_then(notes::assistant_content)
            .unwrap_or(&text),
    );
    if let Some(s) = &a.session
        && let Err(te) = session::trace_errors(&ctx.home, s, &x.errors)
    {
        x.errors.push(te);
    }
    ctx.out.doc(&x)
}

fn apply(a: ApplyArgs, ctx: &Ctx) -> Result<()> {
    let actor = match a.actor {
        ActorArg::Model => Actor::Model,
        ActorArg::Human => Actor::Human,
    };
    // Validate the id before reading a possibly large input.
    ctx.home.checkpoint_path(&a.session)?;
    let text = read_input(a.input.as_deref())?;
    let applied =
        session::apply_to_session(&ctx.home, &a.session, &text, actor, a.expect_revision)?;
    ctx.out.doc(&applied)
}
