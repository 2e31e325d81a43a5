//! `bob caps list|request|grant|revoke`: a session's capabilities (the State contract; the tool registry contract gates on them).
//!
//! Granting is a human act: `bob caps grant` (and `bob notes apply --actor human`) are the only
//! ways a capability becomes granted; a model can only request one.
//!
//! Every change made here is a human act, recorded in the audit log before it is committed
//! (`caps.request`, `caps.grant`, `caps.revoke`; actor `human`; payload `{session_id,
//! capability, changed, revision}`), so `bob ledger show` lists who widened a session and when.

use super::Ctx;
use crate::checkpoint;
use crate::contracts::Checkpoint;
use crate::error::{Error, Result};
use crate::human::{self, CapabilityChange};
use serde::Serialize;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Print {session_id, revision, granted, pending}
    ///
    /// A session with no checkpoint yet is not_found (exit 4) unless --or-empty.
    List(ListArgs),
    /// Ask for CAP: adds it to pending unless it is already granted
    Request(ChangeArgs),
    /// Grant CAP (a human act): adds it to granted and removes it from pending
    Grant(ChangeArgs),
    /// Revoke CAP: removes it from granted and from pending
    Revoke(ChangeArgs),
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Session id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Print empty lists for a session that has no checkpoint yet
    #[arg(long)]
    pub or_empty: bool,
}

#[derive(Debug, clap::Args)]
pub struct ChangeArgs {
    /// Session id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Capability: `name` or `name:scope`, e.g. net, net:huggingface.co
    #[arg(value_name = "CAP")]
    pub cap: String,
    /// Fail with conflict (exit 5) unless the stored revision is N
    #[arg(long, value_name = "N")]
    pub expect_revision: Option<u64>,
}

#[derive(Serialize)]
struct Listing<'a> {
    session_id: &'a str,
    revision: u64,
    granted: &'a [String],
    pending: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    changed: Option<bool>,
}

fn listing(cp: &Checkpoint, changed: Option<bool>) -> Listing<'_> {
    Listing {
        session_id: &cp.session_id,
        revision: cp.revision,
        granted: &cp.state.capabilities_granted,
        pending: &cp.state.capabilities_pending,
        changed,
    }
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let (a, change) = match args {
        Args::List(a) => {
            let cp = match checkpoint::load_existing(&ctx.home, &a.session)? {
                Some(cp) => cp,
                None if a.or_empty => checkpoint::fresh(&a.session),
                None => {
                    return Err(Error::not_found(format!(
                        "session {:?} has no checkpoint (use --or-empty)",
                        a.session
                    ))
                    .with("session_id", a.session.as_str()));
                }
            };
            return ctx.out.doc(&listing(&cp, None));
        }
        Args::Request(a) => (a, CapabilityChange::Request),
        Args::Grant(a) => (a, CapabilityChange::Grant),
        Args::Revoke(a) => (a, CapabilityChange::Revoke),
    };
    let (cp, changed) =
        human::change_capability(&ctx.home, &a.session, &a.cap, change, a.expect_revision)?;
    ctx.out.doc(&listing(&cp, Some(changed)))
}
