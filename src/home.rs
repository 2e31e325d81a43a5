//! The home directory: every persistent file lives under it (docs/design.md#home-layout).
//! Which directory is the `home` setting's business ([`crate::settings`]): `--home DIR`, then
//! `$BOB_HOME`, then `./runtime` only when that directory exists (a project's own home), else
//! the user's data directory `$XDG_DATA_HOME/bob` (`~/.local/share/bob`), so `bob` finds the
//! same home from any directory. Its `config.toml` is read over the user's own
//! `$XDG_CONFIG_HOME/bob/config.toml` (`~/.config/bob/config.toml`).
//!
//! Nothing here creates the home but [`Home::init`] (`bob init`) and the commands that write:
//! a command that only reads (`bob memory list`, `bob config show`) finds a missing home
//! empty and leaves it missing.
//!
//! An id that names a file or directory here (a session, an agent's audit log) follows the one
//! id rule of [`crate::ids`], checked again wherever the path is built.

use crate::error::{Error, Result};
use crate::id_rule as rule;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    pub fn at(root: impl Into<PathBuf>) -> Home {
        Home { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates the home and its standard subdirectories (idempotent).
    pub fn init(&self) -> Result<Vec<PathBuf>> {
        let dirs = [
            "sessions", "traces", "audit", "cache", "schedule", "mtg", "runs",
        ];
        let mut created = Vec::new();
        for d in std::iter::once("").chain(dirs) {
            let p = self.root.join(d);
            if !p.is_dir() {
                std::fs::create_dir_all(&p).map_err(|e| Error::io(&p, e))?;
                created.push(p);
            }
        }
        Ok(created)
    }

    /// Creates `dir` (under the home) if missing and returns it.
    pub fn ensure_dir(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))
    }

    pub fn session_dir(&self, session_id: &str) -> Result<PathBuf> {
        Ok(self
            .root
            .join("sessions")
            .join(rule::check("session_id", session_id)?))
    }
    pub fn checkpoint_path(&self, session_id: &str) -> Result<PathBuf> {
        Ok(self.session_dir(session_id)?.join("checkpoint.json"))
    }
    pub fn trace_path(&self, session_id: &str) -> Result<PathBuf> {
        Ok(self
            .root
            .join("traces")
            .join(format!("{}.jsonl", rule::check("session_id", session_id)?)))
    }
    /// `audit/<agent_id>/`; `agent_id` follows the id rule ([`crate::id_rule::check`]; `human` is the log
    /// of human acts, see [`crate::audit::HUMAN_AGENT`]).
    pub fn audit_dir(&self, agent_id: &str) -> Result<PathBuf> {
        Ok(self
            .root
            .join("audit")
            .join(rule::check("agent_id", agent_id)?))
    }
    pub fn turns_path(&self) -> PathBuf {
        self.root.join("turns.jsonl")
    }
    pub fn memory_db(&self) -> PathBuf {
        self.root.join("memory.db")
    }
    pub fn ledger_path(&self) -> PathBuf {
        self.root.join("memory_approvals.jsonl")
    }
    pub fn cache_dir(&self) -> PathBuf {
        self.root.join("cache")
    }
    pub fn schedule_dir(&self) -> PathBuf {
        self.root.join("schedule")
    }
    pub fn runs_dir(&self) -> PathBuf {
        self.root.join("runs")
    }
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    /// `last_session`: the session of the last `bob turn` run here (for `bob turn --continue`).
    pub fn last_session_path(&self) -> PathBuf {
        self.root.join("last_session")
    }

    /// The session of the last turn run in this home, if any (a file that does not hold a
    /// valid session id counts as none).
    pub fn last_session(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.last_session_path()).ok()?;
        let id = text.trim();
        rule::check("session_id", id).ok().map(str::to_string)
    }

    /// Records `session_id` as the last session (replaced atomically: a crash leaves the old
    /// one or the new one).
    pub fn remember_session(&self, session_id: &str) -> Result<()> {
        let id = rule::check("session_id", session_id)?;
        let path = self.last_session_path();
        let tmp = self.root.join(".last_session.tmp");
        std::fs::write(&tmp, format!("{id}\n")).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
    }
}
