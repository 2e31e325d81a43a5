//! `bob context`: the labelled role inputs a turn would send, as a chat request.

use super::Ctx;
use super::output::read_input;
use crate::error::{Error, Result};
use crate::turn::prompts::Upstream;
use crate::turn::{Profile, TurnInput};
use std::path::PathBuf;

/// Build the labelled role inputs for a session and role
///
/// Builds the exact request one role of a profile would send (its first round): the system
/// message, an optional `Recent conversation summary` system message, and the labelled
/// STATE / HISTORY_JSON / UPSTREAM / USER blocks, each neutralized. Reads the session's
/// checkpoint and (for roles that want it) the memory store; writes nothing.
///
/// stdin (or --input): the turn input, `{"session_id","message",…}` or plain text.
/// --upstream FILE: earlier roles' outputs, a JSON array `[{"role":"think","content":"…"}]` or
/// plain text (one entry for the previous role).
///
/// Output: `{"messages":[…],"tools"?:[…]}`, which `bob chat` accepts as is:
///   bob context --session s1 --role think <msg.json | bob chat --role think
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session id [default: the input's session_id, else `default`]
    #[arg(long)]
    pub session: Option<String>,
    /// Role within the profile (bob: think, respond; spectator: reflection, planner, critic,
    /// governor; solo: solo)
    #[arg(long)]
    pub role: String,
    /// Pipeline profile
    #[arg(long, default_value = "bob", value_parser = ["bob", "spectator", "solo"])]
    pub profile: String,
    /// Earlier roles' outputs (JSON array of {role, content}, or plain text)
    #[arg(long, value_name = "FILE")]
    pub upstream: Option<PathBuf>,
    /// Memory user for retrieval [default: the input's user_id, else `default`]
    #[arg(long)]
    pub user: Option<String>,
    /// Read the turn input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

/// Reads an upstream file: a JSON array of `{role, content}` or plain text.
pub fn read_upstream(path: &std::path::Path, previous_role: &str) -> Result<Vec<Upstream>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let t = text.trim();
    if t.starts_with('[') {
        serde_json::from_str(t).map_err(|e| Error::bad_json("upstream", &e))
    } else {
        Ok(vec![Upstream {
            role: previous_role.to_string(),
            content: t.to_string(),
        }])
    }
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let profile = Profile::parse(&args.profile)
        .ok_or_else(|| Error::invalid(format!("unknown profile {:?}", args.profile)))?;
    let input = TurnInput::parse(&read_input(args.input.as_deref())?)?;
    let session = args
        .session
        .or(input.session_id.clone())
        .unwrap_or_else(|| "default".to_string());
    let previous = crate::turn::previous_role(&ctx.home, profile, &session, &args.role)?;
    let upstream = match &args.upstream {
        Some(p) => read_upstream(p, previous)?,
        None => Vec::new(),
    };
    let user = args.user.or(input.user_id.clone());
    let req = crate::turn::pipeline::role_request(
        &ctx.settings,
        profile,
        &args.role,
        &session,
        user.as_deref(),
        &input.message,
        input.system.as_deref(),
        &upstream,
    )?;
    ctx.out.doc(&req)
}
