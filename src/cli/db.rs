//! `bob db status|migrate`: the shared store's database ([`crate::db`]).

use super::Ctx;
use crate::error::Result;

/// The shared store: the PostgreSQL database named by database.url (BOB_DATABASE_URL, or
/// [database] url in config.toml). Unset, every store stays in the home (the default).
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Print which store this home uses and, for the database, whether it is reachable
    ///
    /// JSON {backend: "postgres"|"embedded", url?, host?, reachable, schema_version?,
    /// latest_version, error?}; the URL's password is blanked. Applies no migration. A database
    /// that cannot be reached is still reported, then upstream.error (exit 6) naming the host.
    Status,
    /// Apply the schema migrations this bob knows to the database (each exactly once, under an
    /// advisory lock, so nodes may run it at the same time)
    ///
    /// JSON {url, host, applied: [VERSION…], schema_version}. Every command also migrates on
    /// first use; this is for doing it ahead of time. invalid.request (exit 2) when
    /// database.url is unset; upstream.error (exit 6) when the database cannot be reached.
    Migrate,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Status => {
            let (status, error) = crate::db::status()?;
            ctx.out.doc(&status)?;
            error.map_or(Ok(()), Err)
        }
        Args::Migrate => ctx.out.doc(&crate::db::migrate()?),
    }
}
