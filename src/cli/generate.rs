//! `bob generate` (hidden): the man pages and shell completions, written from the clap definitions.

use super::{Ctx, command, manpage};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Regenerate man pages and shell completions
///
/// Writes man pages (man/) and bash, zsh and fish completions (completions/) generated from the
/// clap definitions. The repository commits the output; a test fails when it is stale.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory that receives man/ and completions/
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let written = generate(&args.out)?;
    ctx.out.rows(
        &written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>(),
    )
}

/// Generates every man page and completion file under `root`; returns the files written.
/// man/ and completions/ hold only generated files: pages of removed subcommands are dropped.
pub fn generate(root: &Path) -> Result<Vec<PathBuf>> {
    let mut pages = Vec::new();
    let cmd = command();
    render_man(&cmd, "bob", "", &mut pages)?;
    let mut completions = Vec::new();
    for (shell, name) in [
        (clap_complete::Shell::Bash, "bob.bash"),
        (clap_complete::Shell::Zsh, "_bob"),
        (clap_complete::Shell::Fish, "bob.fish"),
    ] {
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut command(), "bob", &mut buf);
        completions.push((name.to_string(), buf));
    }
    let mut written = crate::store::write_generated_dir(&root.join("man"), &pages)?;
    written.extend(crate::store::write_generated_dir(
        &root.join("completions"),
        &completions,
    )?);
    Ok(written)
}

/// The man page of `cmd` (named `name`, reached by `bob <path>`) and of each visible
/// subcommand, as `(file name, roff)`.
fn render_man(
    cmd: &clap::Command,
    name: &str,
    path: &str,
    pages: &mut Vec<(String, Vec<u8>)>,
) -> Result<()> {
    if cmd.is_hide_set() {
        return Ok(());
    }
    let cmd = cmd.clone().name(name.to_string());
    let buf = manpage::render(&cmd, path).map_err(|e| Error::internal(e.to_string()))?;
    pages.push((format!("{name}.1"), buf));
    for sub in cmd.get_subcommands() {
        let sub_path = match path {
            "" => sub.get_name().to_string(),
            _ => format!("{path} {}", sub.get_name()),
        };
        render_man(sub, &format!("{name}-{}", sub.get_name()), &sub_path, pages)?;
    }
    Ok(())
}
