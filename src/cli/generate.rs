//! `bob generate` (hidden): the man pages and shell completions, written from the clap definitions.

use super::{Ctx, command, manpage};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

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
pub fn generate(root: &Path) -> Result<Vec<PathBuf>> {
    let man = root.join("man");
    let comp = root.join("completions");
    for d in [&man, &comp] {
        std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
    }
    let mut written = Vec::new();
    let cmd = command();
    write_man(&cmd, "bob", "", &man, &mut written)?;
    for shell in [
        clap_complete::Shell::Bash,
        clap_complete::Shell::Zsh,
        clap_complete::Shell::Fish,
    ] {
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut command(), "bob", &mut buf);
        let name = match shell {
            clap_complete::Shell::Bash => "bob.bash",
            clap_complete::Shell::Zsh => "_bob",
            _ => "bob.fish",
        };
        let p = comp.join(name);
        crate::store::write_bytes_atomic(&p, &buf)?;
        written.push(p);
    }
    // man/ and completions/ hold only generated files: drop pages of removed subcommands.
    for d in [&man, &comp] {
        for entry in std::fs::read_dir(d).map_err(|e| Error::io(d, e))?.flatten() {
            let p = entry.path();
            if !written.contains(&p) {
                std::fs::remove_file(&p).map_err(|e| Error::io(&p, e))?;
            }
        }
    }
    Ok(written)
}

fn write_man(
    cmd: &clap::Command,
    name: &str,
    path: &str,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    if cmd.is_hide_set() {
        return Ok(());
    }
    let cmd = cmd.clone().name(name.to_string());
    let buf = manpage::render(&cmd, path).map_err(|e| Error::internal(e.to_string()))?;
    let p = dir.join(format!("{name}.1"));
    crate::store::write_bytes_atomic(&p, &buf)?;
    written.push(p);
    for sub in cmd.get_subcommands() {
        let sub_path = match path {
            "" => sub.get_name().to_string(),
            _ => format!("{path} {}", sub.get_name()),
        };
        write_man(
            sub,
            &format!("{name}-{}", sub.get_name()),
            &sub_path,
            dir,
            written,
        )?;
    }
    Ok(())
}
