//! `bob keys export|import`: moves a node's chain and secrets keys ([`crate::keys`]).

use super::Ctx;
use crate::error::{Error, Result};
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

/// Export or import this node's chain and secrets keys (for nodes sharing one database)
///
/// Moves this node's keys (the chain key and the secrets key) to another node, so every node
/// of one shared database signs and reads with the same keys. The keys never sit in the
/// database; keep the bundle file off shared disks and delete it once imported.
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Write this node's keys to FILE (a new file, mode 0600; - for stdout, never a terminal)
    ///
    /// A brand-new home gets its keys made first. JSON {path, chain_key_id, secrets_key_id,
    /// chain_key_file, secrets_key_file} (fingerprints only). An existing FILE is conflict
    /// (exit 5); stdout on a terminal is policy.denied (exit 3).
    Export {
        /// The bundle file to create, or - for stdout (a pipe, never a terminal)
        file: PathBuf,
    },
    /// Install the keys of a bundle written by `bob keys export` on this node
    ///
    /// Each key goes where this node reads it (the home, or next to keys.file). The same key
    /// already there is left alone; another key is replaced only when nothing depends on it (no
    /// chained record written under it, no secret stored with it), else conflict (exit 5):
    /// import into a fresh home. A bundle file readable by others is policy.denied (exit 3).
    /// JSON {chain_key_id, chain, secrets_key_id, secrets, chain_key_file, secrets_key_file},
    /// chain/secrets: installed|unchanged|replaced; a change is audited (keys.import).
    Import {
        /// The bundle file, or - for stdin
        file: PathBuf,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Export { file } => {
            let to_stdout = file.as_os_str() == "-";
            if to_stdout && std::io::stdout().is_terminal() {
                return Err(Error::denied(
                    "bob keys export - would print the keys on a terminal: give a FILE, or pipe \
                     stdout (bob keys export - | ssh node2 bob keys import -)",
                ));
            }
            let (bundle, exported) = crate::keys::export(&ctx.home)?;
            if to_stdout {
                let mut out = std::io::stdout().lock();
                out.write_all(&bundle.to_bytes())
                    .and_then(|()| out.flush())
                    .map_err(|e| Error::internal(format!("writing stdout: {e}")))?;
                return Ok(());
            }
            crate::keys::write_bundle(&file, &bundle)?;
            ctx.out.doc(&crate::contracts::KeysExported {
                path: file.display().to_string(),
                chain_key_id: exported.chain_key_id,
                secrets_key_id: exported.secrets_key_id,
                chain_key_file: exported.chain_key_file,
                secrets_key_file: exported.secrets_key_file,
            })
        }
        Args::Import { file } => {
            let bundle = if file.as_os_str() == "-" {
                let mut bytes = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut bytes)
                    .map_err(|e| Error::invalid(format!("reading stdin: {e}")))?;
                crate::keys::Bundle::parse(&bytes)?
            } else {
                crate::keys::read_bundle(&file)?
            };
            ctx.out.doc(&crate::keys::import(&ctx.home, &bundle)?)
        }
    }
}
