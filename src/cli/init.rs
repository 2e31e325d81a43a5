use super::Ctx;
use crate::error::Result;
use serde_json::json;

/// Creates the home (--home, $BOB_HOME or ./runtime) and its standard subdirectories. Safe to
/// run again: existing files are left untouched.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, ctx: &Ctx) -> Result<()> {
    let created = ctx.home.init()?;
    ctx.out.doc(&json!({
        "home": ctx.home.root().display().to_string(),
        "created": created.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    }))
}
