//! `bob init`: creates the home, its owner-only secrets key and a commented `config.toml`.

use super::Ctx;
use super::output::write_stdout;
use crate::contracts::InitReport;
use crate::error::Result;

/// The three commands a new home's owner runs next (also in the README's quick start).
const NEXT: [&str; 3] = [
    "bob config set chat.base_url https://api.openai.com/v1   # or any OpenAI-compatible endpoint",
    "bob secrets set chat_key && bob config set chat.api_key secret:chat_key",
    "bob chat \"Hello, bob\"",
];

/// Create the home directory and its layout
///
/// Creates the home, its standard subdirectories, the owner-only secrets key (secrets/key, or
/// bob-secrets.key next to the chain key when keys.file puts that outside the home) and a
/// commented config.toml (every line a comment until you uncomment it), then prints
/// the next three commands to run. Safe to run again: existing files are left untouched.
///
/// The home is --home, else $BOB_HOME, else ./runtime when that directory exists, else
/// $XDG_DATA_HOME/bob (~/.local/share/bob). stdout: {home, created, config_file, next}.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, ctx: &Ctx) -> Result<()> {
    let mut created = ctx.home.init()?;
    // The secrets key (owner-only) is made now, so its mode is settled before any secret.
    let key = crate::secrets::key_path(&ctx.home);
    if !key.exists() {
        crate::secrets::ensure_key(&ctx.home)?;
        created.push(key);
    }
    let config = ctx.home.config_path();
    if crate::config_file::write_template(&config)? {
        created.push(config.clone());
    }
    if ctx.out.is_human() {
        let mut text = format!("bob's home is {}\n", ctx.home.root().display());
        for p in &created {
            text.push_str(&format!("  created {}\n", p.display()));
        }
        text.push_str("\nNext:\n");
        for n in NEXT {
            text.push_str(&format!("  {n}\n"));
        }
        return write_stdout(text.as_bytes());
    }
    ctx.out.doc(&InitReport {
        home: ctx.home.root().display().to_string(),
        created: created.iter().map(|p| p.display().to_string()).collect(),
        config_file: config.display().to_string(),
        next: NEXT.iter().map(|n| n.to_string()).collect(),
    })
}
