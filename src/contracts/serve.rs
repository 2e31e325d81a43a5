//! What `bob serve` prints: the ready line a starting server writes, and its API tokens as
//! `bob serve token create|list|revoke` show them (never the hash; the token itself only once,
//! when it is made).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The one line a server prints on stdout once it listens.
///
/// ```json
/// {"listening":"127.0.0.1:8765","pid":4242,"workers":2,"queue":1000,"recovered":0}
/// ```
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ServeReady {
    /// The address it listens on (the port chosen when `:0` was asked for).
    pub listening: String,
    pub pid: u32,
    pub workers: usize,
    /// The queue's capacity.
    pub queue: u64,
    /// Runs the crash rule settled at start (see the run queue).
    pub recovered: usize,
}

/// A token just made: the only time `token` is shown.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TokenCreated {
    pub id: String,
    pub name: String,
    pub scopes: Vec<String>,
    pub token: String,
    pub created_at: String,
}

/// One token of `bob serve token list` (`revoked_at` is `null` while it is valid).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TokenListed {
    pub id: String,
    pub name: String,
    pub scopes: Vec<String>,
    pub created_at: String,
    pub revoked_at: Option<String>,
}

/// A token just revoked.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TokenRevoked {
    pub id: String,
    pub name: String,
    pub revoked_at: Option<String>,
}
