//! `bob db status|migrate|import`: the shared store's database ([`crate::db`]).

use super::Ctx;
use crate::error::Result;

/// The shared store's PostgreSQL database: status and schema migrations
///
/// The shared store: the PostgreSQL database named by database.url (BOB_DATABASE_URL, or
/// [database] url in config.toml). Unset, every store stays in the home (the default).
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Print which store this home uses and, for the database, whether it is reachable
    ///
    /// JSON {backend: "postgres"|"embedded", url?, host?, sslmode?, tls?, reachable,
    /// schema_version?, latest_version, error?}; the URL's password is blanked; sslmode is the
    /// mode asked for (prefer when the URL names none), tls whether the connection is encrypted.
    /// Applies no migration. A database that cannot be reached is still reported, then
    /// upstream.error (exit 6) naming the host (and saying so when TLS failed).
    Status,
    /// Apply the schema migrations this bob knows to the database (each exactly once, under an
    /// advisory lock, so nodes may run it at the same time)
    ///
    /// JSON {url, host, applied: [VERSION…], schema_version}. Every command also migrates on
    /// first use; this is for doing it ahead of time. invalid.request (exit 2) when
    /// database.url is unset; upstream.error (exit 6) when the database cannot be reached.
    Migrate,
    /// Copy an embedded home's stores into the database: memories, candidates, approval
    /// ledger, audit events, checkpoints, turn records, STM, jobs, serve runs, secrets, serve
    /// tokens and memory vectors
    ///
    /// JSON {from, url, memories, candidates, ledger, checkpoints, audit, turn_records, stm,
    /// jobs, runs, chat_sessions, secrets, serve_tokens, vectors: {copied, unchanged,
    /// differing}, not_copied: []}. Vectors keep their model: with the same model configured,
    /// semantic queries find the copied records without a reindex. All in one transaction; the home is only read. A row already in the database
    /// is left as it is (differing: the database holds another version), so a second run
    /// copies nothing. The home's ledger records are copied as they are: where the database's
    /// ledger and the home's overlap they must be the same records, and they must be keyed
    /// with this node's chain key (keys.file), else conflict (exit 5) and nothing is written.
    /// Secrets are sealed again with this node's secrets key; a run still running in the home
    /// is conflict.
    Import {
        /// The home to copy from (its directory)
        #[arg(long, value_name = "HOME")]
        from: std::path::PathBuf,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Status => {
            let (status, error) = crate::db::status()?;
            ctx.out.doc(&status)?;
            error.map_or(Ok(()), Err)
        }
        Args::Migrate => ctx.out.doc(&crate::db::migrate()?),
        Args::Import { from } => ctx.out.doc(&crate::shared_import::import_home(
            &crate::home::Home::at(from),
            &ctx.home,
        )?),
    }
}
