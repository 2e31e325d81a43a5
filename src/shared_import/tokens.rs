//! The serve tokens of a home (`serve/tokens.json`, hashes only), for `bob db import`: each
//! token joins the shared token list by its id, under the list's row lock in the import's
//! transaction, as it is (name, hash, scopes, a revocation), so a token made on the home works
//! on every `bob serve` of the database. A token the database already holds is `unchanged`
//! when it is the same, else `differing` and left as the database has it (it may have been
//! revoked on the cluster since); one whose hash the database holds under another id is
//! `differing` too (never two entries for one token).

use super::Counts;
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::serve::auth::TokenEntry;
use serde::{Deserialize, Serialize};

/// The token list's document, as the home's file and the database's row hold it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TokenList {
    tokens: Vec<TokenEntry>,
}

/// The home's tokens (none when it has no token file); a file that does not parse is an error.
pub(super) fn read(from: &Home) -> Result<Vec<TokenEntry>> {
    let path = crate::serve::auth::tokens_path(&crate::serve::serve_dir(from));
    Ok(crate::store::read_json::<TokenList>(&path)
        .map_err(|e| e.with("path", path.display().to_string()))?
        .unwrap_or_default()
        .tokens)
}

fn same(a: &TokenEntry, b: &TokenEntry) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}

/// Adds the home's tokens to the shared list in the import's transaction.
pub(super) fn copy(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    home: &[TokenEntry],
    counts: &mut Counts,
) -> Result<()> {
    if home.is_empty() {
        return Ok(());
    }
    let text =
        |list: &TokenList| serde_json::to_string(list).map_err(|e| Error::internal(e.to_string()));
    tx.execute(
        "INSERT INTO serve_tokens (id, doc) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
        &[&text(&TokenList::default())?],
    )
    .map_err(|e| db.error(e))?;
    let doc: String = tx
        .query_one("SELECT doc FROM serve_tokens WHERE id = 1 FOR UPDATE", &[])
        .map_err(|e| db.error(e))?
        .get(0);
    let mut shared: TokenList = serde_json::from_str(&doc).map_err(|e| {
        Error::internal(format!(
            "the shared token list does not parse (left untouched): {e}"
        ))
    })?;
    let mut changed = false;
    for t in home {
        let held = shared
            .tokens
            .iter()
            .find(|s| s.id == t.id || s.sha256 == t.sha256);
        match held {
            Some(s) if same(s, t) => counts.unchanged += 1,
            Some(_) => counts.differing += 1,
            None => {
                shared.tokens.push(t.clone());
                counts.copied += 1;
                changed = true;
            }
        }
    }
    if changed {
        tx.execute(
            "UPDATE serve_tokens SET doc = $1, updated_at = now() WHERE id = 1",
            &[&text(&shared)?],
        )
        .map_err(|e| db.error(e))?;
    }
    Ok(())
}
