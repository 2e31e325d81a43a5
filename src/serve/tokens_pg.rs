//! Serve tokens in the shared database: one row holding the token list (what
//! `serve/tokens.json` holds in a home), so a token made on one node is accepted by every node
//! of the database and a revocation on one node holds on all.
//!
//! A change reads the row `FOR UPDATE` and writes it back in one transaction (the cluster-wide
//! form of the file's lock). Only hashes are stored, as in the file. A server keeps its copy for
//! a second: a revocation takes effect on every node within a second, and a token it does not
//! know is looked for in a fresh copy, so a token made on another node works at once.

use crate::db::Database;
use crate::error::{Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

fn parse<F: DeserializeOwned>(doc: &str) -> Result<F> {
    serde_json::from_str(doc).map_err(|e| {
        Error::internal(format!(
            "the shared token list does not parse (left untouched): {e}"
        ))
    })
}

/// The token list `F` (the home's token file document; empty when no token was ever made).
pub(super) fn load<F: DeserializeOwned + Default>(db: &Database) -> Result<F> {
    let row = db.with(|c| c.query_opt("SELECT doc FROM serve_tokens WHERE id = 1", &[]))?;
    match row {
        Some(r) => parse(r.get(0)),
        None => Ok(F::default()),
    }
}

/// Read-modify-write of the token list under the row lock.
pub(super) fn mutate<F: Serialize + DeserializeOwned + Default, T>(
    db: &Database,
    f: impl FnOnce(&mut F) -> Result<T>,
) -> Result<T> {
    db.transaction(|tx| {
        let empty =
            serde_json::to_string(&F::default()).map_err(|e| Error::internal(e.to_string()))?;
        tx.execute(
            "INSERT INTO serve_tokens (id, doc) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
            &[&empty],
        )
        .map_err(|e| db.error(e))?;
        let doc: String = tx
            .query_one("SELECT doc FROM serve_tokens WHERE id = 1 FOR UPDATE", &[])
            .map_err(|e| db.error(e))?
            .get(0);
        let mut file: F = parse(&doc)?;
        let out = f(&mut file)?;
        let text = serde_json::to_string(&file).map_err(|e| Error::internal(e.to_string()))?;
        tx.execute(
            "UPDATE serve_tokens SET doc = $1, updated_at = now() WHERE id = 1",
            &[&text],
        )
        .map_err(|e| db.error(e))?;
        Ok(out)
    })
}
