//! `bob init`: creates the home and its owner-only secrets key.

use super::Ctx;
use crate::error::Result;
use serde_json::json;

/// Creates the home (--home, $BOB_HOME or ./runtime), its standard subdirectories and the
/// owner-only secrets key (secrets/key). Safe to run again: existing files are left untouched.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, ctx: &Ctx) -> Result<()> {
    let mut created = ctx.home.init()?;
    // The secrets key (owner-only) is made now, so its mode is settled before any secret.
    let key = crate::secrets::dir(&ctx.home).join("key");
    if !key.exists() {
        crate::secrets::ensure_key(&ctx.home)?;
        created.push(key);
    }
    ctx.out.doc(&json!({
        "home": ctx.home.root().display().to_string(),
        "created": created.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    }))
}
