//! Sealed secrets in the shared database (the table `secrets`): the same rows as a home's
//! `secrets/secrets.db` (name, nonce, ciphertext, times, binding), and `secrets_changes`, a
//! counter a trigger raises at every row changed, so a long-running node learns cheaply that
//! another node set or removed a secret. The key that seals them is each node's own file, never
//! a row. Every call runs on the secrets' own connection ([`crate::db::secrets_connection`]):
//! a secret is read while another store may hold its transaction open (the redactor is loaded
//! during a write), and a call here waits for nothing else.

use crate::db::Database;
use crate::error::Result;
use crate::sealed::{Sealed, SecretInfo, SecretRows};

/// Sealed secrets in the shared database.
pub struct PgSecretRows {
    db: &'static Database,
}

impl PgSecretRows {
    pub fn new(db: &'static Database) -> PgSecretRows {
        PgSecretRows { db }
    }

    /// Whether the database holds any secret.
    pub fn any(&self) -> Result<bool> {
        // Typed: one round trip, no statement prepared first (every command asks).
        self.db.with(|c| {
            Ok(c.query_typed("SELECT EXISTS (SELECT 1 FROM secrets)", &[])?
                .first()
                .is_some_and(|r| r.get::<_, bool>(0)))
        })
    }
}

/// The database's count of changes to `secrets` (see the module docs).
pub fn changes(db: &Database) -> Result<i64> {
    db.with(|c| {
        Ok(c.query_one("SELECT changes FROM secrets_changes", &[])?
            .get(0))
    })
}

fn info_of(r: &postgres::Row) -> SecretInfo {
    SecretInfo {
        name: r.get(0),
        created_at: r.get(1),
        updated_at: r.get(2),
        bound_to: r.get(3),
    }
}

impl SecretRows for PgSecretRows {
    fn upsert(
        &mut self,
        name: &str,
        nonce: &[u8],
        ciphertext: &[u8],
        now: &str,
        binding: Option<Option<&str>>,
    ) -> Result<()> {
        let db = self.db;
        db.transaction(|tx| {
            tx.execute(
                "INSERT INTO secrets (name, nonce, ciphertext, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $4) ON CONFLICT (name) DO UPDATE \
                 SET nonce = $2, ciphertext = $3, updated_at = $4",
                &[&name, &nonce, &ciphertext, &now],
            )
            .map_err(|e| db.error(e))?;
            if let Some(b) = binding {
                tx.execute(
                    "UPDATE secrets SET bound_to = $2 WHERE name = $1",
                    &[&name, &b],
                )
                .map_err(|e| db.error(e))?;
            }
            Ok(())
        })
    }

    fn info(&self, name: &str) -> Result<Option<SecretInfo>> {
        let row = self.db.with(|c| {
            c.query_opt(
                "SELECT name, created_at, updated_at, bound_to FROM secrets WHERE name = $1",
                &[&name],
            )
        })?;
        Ok(row.as_ref().map(info_of))
    }

    fn list(&self) -> Result<Vec<SecretInfo>> {
        let rows = self.db.with(|c| {
            c.query(
                "SELECT name, created_at, updated_at, bound_to FROM secrets ORDER BY name",
                &[],
            )
        })?;
        Ok(rows.iter().map(info_of).collect())
    }

    fn remove(&mut self, name: &str) -> Result<bool> {
        let n = self
            .db
            .with(|c| c.execute("DELETE FROM secrets WHERE name = $1", &[&name]))?;
        Ok(n > 0)
    }

    fn sealed(&self, name: &str) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let row = self.db.with(|c| {
            c.query_opt(
                "SELECT nonce, ciphertext FROM secrets WHERE name = $1",
                &[&name],
            )
        })?;
        Ok(row.map(|r| (r.get(0), r.get(1))))
    }

    fn all_sealed(&self) -> Result<Vec<Sealed>> {
        let rows = self
            .db
            .with(|c| c.query("SELECT name, nonce, ciphertext FROM secrets", &[]))?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }

    fn bind(&self, name: &str, origin: &str) -> Result<Option<String>> {
        let row = self.db.with(|c| {
            c.execute(
                "UPDATE secrets SET bound_to = $2 WHERE name = $1 AND bound_to IS NULL",
                &[&name, &origin],
            )?;
            c.query_opt("SELECT bound_to FROM secrets WHERE name = $1", &[&name])
        })?;
        Ok(row.and_then(|r| r.get(0)))
    }
}
