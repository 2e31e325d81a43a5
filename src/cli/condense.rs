//! `bob condense`: a message list cut to the context caps, as the turn cuts its history.

use super::Ctx;
use super::output::{parse_json, read_input};
use crate::condense::{self, Caps, Mode};
use crate::contracts::ChatMessage;
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::PathBuf;

/// Deterministically condense a message list to fit the context caps
///
/// Input: a JSON array of chat messages, or `{"messages":[…]}`. Output:
/// `{messages, dropped:[{index, role, chars}], truncated:[index], total_chars}`. Tool messages
/// become concise `tool <name> result (<id>)` text; every message is cut to --per-message;
/// over --total, the oldest messages are dropped first (a leading system message is kept).
/// Lengths are in characters.
///
/// With --session, condenses that session's checkpoint `recent_messages` in place instead of
/// reading stdin (the revision is bumped only when something changed) and adds `session_id`
/// and `revision` to the output.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Condense this session's checkpoint recent_messages in place
    #[arg(long, value_name = "ID", conflicts_with = "input")]
    pub session: Option<String>,

    /// With --session: fail with conflict (exit 5) unless the stored revision is N
    #[arg(long, value_name = "N", requires = "session")]
    pub expect_revision: Option<u64>,

    /// Read the messages from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// Cap on every message's content, in characters
    #[arg(long, value_name = "N", default_value_t = Caps::default().per_message)]
    pub per_message: usize,

    /// Cap on the sum of all message contents, in characters
    #[arg(long, value_name = "N", default_value_t = Caps::default().total)]
    pub total: usize,

    /// Cap on a tool result's summary excerpt
    #[arg(long, value_name = "N", default_value_t = Caps::default().tool_summary)]
    pub tool_summary: usize,

    /// Cap on a tool result's error excerpt
    #[arg(long, value_name = "N", default_value_t = Caps::default().tool_error)]
    pub tool_error: usize,

    /// Cap on a tool result's output excerpt
    #[arg(long, value_name = "N", default_value_t = Caps::default().tool_output)]
    pub tool_output: usize,

    /// Condense now to half of --total (the condense_now action) instead of only when over it
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let caps = Caps {
        per_message: args.per_message,
        tool_summary: args.tool_summary,
        tool_error: args.tool_error,
        tool_output: args.tool_output,
        total: args.total,
    };
    let mode = if args.force {
        Mode::Force
    } else {
        Mode::Pressure
    };
    if let Some(id) = &args.session {
        return ctx.out.doc(&condense::session(
            &ctx.home,
            id,
            args.expect_revision,
            &caps,
            mode,
        )?);
    }
    let text = read_input(args.input.as_deref())?;
    let messages = parse_messages(&text)?;
    ctx.out.doc(&condense::condense(&messages, &caps, mode))
}

/// Condenses a checkpoint's recent messages under its lock; writes only when they change.
fn parse_messages(text: &str) -> Result<Vec<ChatMessage>> {
    let v: Value = parse_json("messages", text)?;
    let shape = || Error::invalid("expected a JSON array of messages or {\"messages\":[…]}");
    let items = match v {
        Value::Array(items) => items,
        Value::Object(mut m) => match m.remove("messages") {
            Some(Value::Array(items)) => items,
            _ => return Err(shape()),
        },
        _ => return Err(shape()),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value(item)
                .map_err(|e| Error::invalid(format!("messages[{i}]: {e}")).with("index", i))
        })
        .collect()
}
