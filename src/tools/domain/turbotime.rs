//! The per-session TURBOTIME toggle and tool selection (the Bob v0 runtime), set by a human with
//! `bob tool turbotime on|off --session S [--select TOOL…]` and stored in
//! `sessions/<id>/turbotime.json`.
//!
//! With TURBOTIME on, a selected TURBOTIME tool is enabled for the session and may reach its
//! own API host (the host of its base URL) without a `net` grant: Bob v0's "a selected
//! TURBOTIME tool bypasses the sandbox gate", narrowed to exactly that host. Nothing else is
//! widened: other tools, other hosts and redirects elsewhere keep the session's own policy.
//! Every change is audited as a human act (`turbotime.set`, actor `human`).

use crate::clock;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::store;
use serde::{Deserialize, Serialize};

/// The TURBOTIME tools (Bob v0 "TURBOTIME tools (v0)").
pub const TOOLS: &[&str] = &[
    "scryfall.lookup",
    "steam.game_lookup",
    "game.knowledge_search",
    "news.headline_search",
];

/// `sessions/<id>/turbotime.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Turbotime {
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub on: bool,
    /// Selected TURBOTIME tools (canonical names).
    #[serde(default)]
    pub selected: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub updated_at: String,
}

fn path(home: &Home, session_id: &str) -> Result<std::path::PathBuf> {
    Ok(home.session_dir(session_id)?.join("turbotime.json"))
}

/// The session's TURBOTIME state (off when never set).
pub fn load(home: &Home, session_id: &str) -> Result<Turbotime> {
    let mut t: Turbotime = store::read_json(&path(home, session_id)?)?.unwrap_or_default();
    t.session_id = session_id.to_string();
    Ok(t)
}

impl Turbotime {
    /// Adds the selected TURBOTIME tools to a session's `enabled` tools when TURBOTIME is on
    /// (the Bob v0 runtime: a selected tool is enabled for the session), keeping each name once.
    pub fn enable_selected(&self, enabled: &mut Vec<String>) {
        if self.on {
            for t in &self.selected {
                if !enabled.contains(t) {
                    enabled.push(t.clone());
                }
            }
        }
    }

    /// What a turn record says of TURBOTIME: `{on: true, selected}` when it is on, else
    /// nothing.
    pub fn turn_record(&self) -> Option<crate::contracts::TurbotimeNote> {
        self.on.then(|| crate::contracts::TurbotimeNote {
            on: true,
            selected: self.selected.clone(),
        })
    }
}

/// Turns TURBOTIME on (with `select`, replacing the selection; without, keeping it) or off
/// (the selection is kept for the next `on`). Audited as a human act.
pub fn set(home: &Home, session_id: &str, on: bool, select: &[String]) -> Result<Turbotime> {
    set_by(home, session_id, on, select, "human")
}

/// [`set`] on behalf of `actor` (the dashboard's `http:<token id>`), the audit event's actor.
pub fn set_by(
    home: &Home,
    session_id: &str,
    on: bool,
    select: &[String],
    actor: &str,
) -> Result<Turbotime> {
    crate::ids::check_in_home(home, crate::ids::Kind::Id, "session_id", session_id)?;
    let mut selected = Vec::new();
    for name in select {
        // TURBOTIME tools have no aliases: a name is one of them or it is not.
        match TOOLS.iter().copied().find(|t| t == name) {
            Some(c) if TOOLS.contains(&c) => {
                if !selected.iter().any(|s| s == c) {
                    selected.push(c.to_string());
                }
            }
            _ => {
                return Err(Error::invalid(format!(
                    "{name:?} is not a TURBOTIME tool (TURBOTIME tools: {})",
                    TOOLS.join(", ")
                ))
                .with("tool", name.clone()));
            }
        }
    }
    if !on && !select.is_empty() {
        return Err(Error::invalid(
            "--select goes with `turbotime on` (turning it off keeps the selection)",
        ));
    }
    let p = path(home, session_id)?;
    let _lock = store::Lock::exclusive(&store::lock_path(&p))?;
    let mut t: Turbotime = store::read_json(&p)?.unwrap_or_default();
    let before = t.clone();
    t.session_id = session_id.to_string();
    t.on = on;
    if !select.is_empty() {
        t.selected = selected;
    }
    t.updated_at = clock::rfc3339(clock::now()?);
    crate::audit::open_human(home)?.record(
        actor,
        &crate::contracts::audit::TurbotimeSet {
            session_id,
            on: t.on,
            selected: &t.selected,
            was_on: before.on,
            was_selected: &before.selected,
        },
    )?;
    store::write_json_atomic(&p, &t)?;
    Ok(t)
}
