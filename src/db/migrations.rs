//! The shared store's schema, as numbered migrations applied in order (see [`super`]).
//!
//! A migration is never edited once released: a change is a new, higher-numbered one.

/// One schema step.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: i32,
    pub name: &'static str,
    pub sql: &'static str,
}

/// Every migration, in order.
pub static MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "checkpoints",
    // One row per session; `doc` is the checkpoint JSON as bob writes it (redacted). A row
    // at revision 0 with no document is a session being created: it gives two first writers
    // one row to lock, so the second sees the first's commit.
    sql: "CREATE TABLE checkpoints (
              session_id text PRIMARY KEY,
              revision bigint NOT NULL CHECK (revision >= 0),
              doc text,
              updated_at timestamptz NOT NULL DEFAULT now(),
              CHECK ((revision = 0) = (doc IS NULL))
          );",
}];
