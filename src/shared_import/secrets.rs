//! The secrets of a home (`secrets/secrets.db`), for `bob db import`: each value is opened
//! with that home's secrets key (`secrets/key`, else this node's key) and sealed again with
//! this node's secrets key, the one every node of the database shares, so every node can open
//! the copy; the values never leave this process. A secret the database already holds is
//! `unchanged` when its value is the same, else `differing` and left as the database has it.
//! A row of the home that does not open, or a row of the database this node's key does not
//! open, is `conflict` and nothing is written. The secret the database URL's password names
//! stays in the homes (it unlocks the database) and is not copied.

use super::Counts;
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::sealed::{self, Sealer};

/// One secret of the home, opened: name, value, times, binding.
pub(super) struct Secret {
    name: String,
    value: String,
    created_at: String,
    updated_at: String,
    bound_to: Option<String>,
}

/// Reads and opens the home's secrets (read-only; none when it has no store).
pub(super) fn read(from: &Home, current: &Home) -> Result<Vec<Secret>> {
    let path = sealed::dir(from).join("secrets.db");
    if !path.exists() {
        return Ok(Vec::new());
    }
    let conn =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    let bound = conn
        .prepare("SELECT 1 FROM pragma_table_info('secrets') WHERE name = 'bound_to'")?
        .exists([])?;
    let mut stmt = conn.prepare(&format!(
        "SELECT name, nonce, ciphertext, created_at, updated_at, {} FROM secrets ORDER BY name",
        if bound { "bound_to" } else { "NULL" }
    ))?;
    type Row = (String, Vec<u8>, Vec<u8>, String, String, Option<String>);
    let rows: Vec<Row> = stmt
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let home_key = sealed::home_key_path(from);
    let key = if home_key.exists() {
        sealed::read_key(&home_key)?
    } else {
        sealed::load_key(current)?.ok_or_else(|| {
            Error::conflict(format!(
                "{} holds secrets but no key ({}) to open them: copy that home's key there",
                from.root().display(),
                home_key.display()
            ))
            .retryable(false)
        })?
    };
    let opener = Sealer::new(&key);
    let skip = crate::db::password_secret();
    let mut out = Vec::new();
    for (name, nonce, ct, created_at, updated_at, bound_to) in rows {
        if skip.as_deref() == Some(name.as_str()) {
            continue;
        }
        let value = opener.open(&name, &nonce, &ct).map_err(|_| {
            Error::conflict(format!(
                "secret {name:?} of {} does not open with that home's key {}: nothing was \
                 imported",
                from.root().display(),
                home_key.display()
            ))
            .with("secret", name.as_str())
            .retryable(false)
        })?;
        out.push(Secret {
            name,
            value,
            created_at,
            updated_at,
            bound_to,
        });
    }
    Ok(out)
}

/// Seals the secrets with this node's key and copies them in the import's transaction.
pub(super) fn copy(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    current: &Home,
    secrets: &[Secret],
    counts: &mut Counts,
) -> Result<()> {
    if secrets.is_empty() {
        return Ok(());
    }
    let sealer = Sealer::new(&sealed::ensure_key(current)?);
    for s in secrets {
        let (nonce, ct) = sealer.seal(&s.name, &s.value)?;
        let n = tx
            .execute(
                "INSERT INTO secrets (name, nonce, ciphertext, created_at, updated_at, bound_to)
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING",
                &[
                    &s.name,
                    &nonce,
                    &ct,
                    &s.created_at,
                    &s.updated_at,
                    &s.bound_to,
                ],
            )
            .map_err(|e| db.error(e))?;
        if n == 1 {
            counts.copied += 1;
            continue;
        }
        let row = tx
            .query_one(
                "SELECT nonce, ciphertext, bound_to FROM secrets WHERE name = $1",
                &[&s.name],
            )
            .map_err(|e| db.error(e))?;
        let held = sealer.open(&s.name, row.get(0), row.get(1)).map_err(|_| {
            Error::conflict(format!(
                "the database's secret {:?} does not open with this node's secrets key: \
                     install the key the database's nodes share (bob keys import)",
                s.name
            ))
            .with("secret", s.name.as_str())
            .retryable(false)
        })?;
        if held == s.value && row.get::<_, Option<String>>(2) == s.bound_to {
            counts.unchanged += 1;
        } else {
            counts.differing += 1;
        }
    }
    Ok(())
}
