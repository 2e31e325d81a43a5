//! `bob secrets`: the one-way secrets store (set, list, rm; never get).

use super::Ctx;
use crate::error::{Error, Result};
use crate::secrets::{self, Secrets};
use serde_json::json;
use std::io::Read;

/// Values are encrypted at rest (XChaCha20-Poly1305, key in secrets/key, mode 0600) and never
/// shown again. Config refers to them by name: `api_key = "secret:NAME"` in config.toml's
/// [chat] table (or BOB_CHAT_API_KEY=secret:NAME). Every stored value is redacted wherever bob
/// writes (audit, traces, ledger, run bundles). A secret is sent to one origin only
/// (scheme://host[:port]): the one named by `set --for URL`, else the one it is first sent to;
/// sending it anywhere else is refused (policy.denied) until it is set again with --for.
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Store a secret; the value is read from stdin (one trailing newline dropped), never argv
    Set {
        /// Secret name: 1-64 characters of letters, digits and _ . -
        name: String,
        /// Bind the secret to this URL's origin (scheme://host[:port]): it is sent there and
        /// nowhere else. Without it the secret is bound to the origin of its first use
        #[arg(long = "for", value_name = "URL")]
        for_url: Option<String>,
    },
    /// List secret names (JSON Lines {name, created_at, updated_at, bound_to?}; never values)
    List,
    /// Remove a secret
    Rm {
        /// Secret name
        name: String,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Set { name, for_url } => {
            secrets::check_name(&name)?;
            let origin = for_url
                .as_deref()
                .map(|u| secrets::origin_of(u).map_err(|e| e.with("field", "for")))
                .transpose()?;
            let mut buf = Vec::new();
            super::progress::note_waiting_on_stdin();
            std::io::stdin()
                .take(secrets::MAX_VALUE as u64 + 3)
                .read_to_end(&mut buf)
                .map_err(|e| Error::internal(format!("reading stdin: {e}")))?;
            let mut value = String::from_utf8(buf)
                .map_err(|_| Error::invalid("the secret value must be UTF-8"))?;
            if value.ends_with('\n') {
                value.pop();
                if value.ends_with('\r') {
                    value.pop();
                }
            }
            let now = crate::clock::rfc3339(crate::clock::now()?);
            let info = Secrets::open(&ctx.home)?.set_for(&name, &value, &now, origin.as_deref())?;
            ctx.out
                .doc(&json!({"name": info.name, "created_at": info.created_at,
                                "updated_at": info.updated_at, "bound_to": info.bound_to,
                                "stored": true}))
        }
        Args::List => {
            if let Some(s) = Secrets::open_existing(&ctx.home)? {
                for i in s.list()? {
                    ctx.out.line(&i)?;
                }
            }
            Ok(())
        }
        Args::Rm { name } => {
            let mut s = Secrets::open_existing(&ctx.home)?
                .ok_or_else(|| Error::not_found(format!("no secret named {name:?}")))?;
            s.remove(&name)?;
            ctx.out.doc(&json!({"name": name, "removed": true}))
        }
    }
}
