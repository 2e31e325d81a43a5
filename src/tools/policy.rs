//! What a tool run may do: sandbox roots, the session's enabled tools, granted capabilities,
//! the network allowlist, shell rules and the timeout clamp.
//!
//! Tools are disabled by default (seed 001). A human turns them on, per session
//! (`bob tool enable --session ID NAME…`, stored in `sessions/<id>/tools.json`) or per call of
//! `bob tool run` (`--enable NAME…` / `--enable-all`). Filesystem and shell tools also need an
//! enabled sandbox with a root: `--root DIR`, or `BOB_TOOL_SANDBOX_ENABLED=1` with
//! `BOB_TOOL_ROOTS=DIR[,DIR…]`.
//!
//! Environment: `BOB_TOOL_SANDBOX_ENABLED`, `BOB_TOOL_ROOTS`, `BOB_NET_ALLOWLIST`,
//! `BOB_TOOL_ALLOW_LOOPBACK`, `BOB_TOOL_ALLOW_PRIVATE`, `BOB_TOOL_MAX_TIMEOUT_MS` (default
//! 120000), `BOB_SANDBOX` (`full`, the default, or `weak`: see [`crate::sandbox`]),
//! `BOB_TOOL_REQUIRE_SANDBOX` (accepted, no effect: the full sandbox is always required unless
//! `weak` is chosen), `BOB_TOOL_SHELL_RULES` (a rules file replacing the built-in one),
//! `BOB_HTTP_CACHE_TTL_S` (default 3600).

use super::argv::ShellRules;
use super::registry::{self, Kind, ToolSpec};
use crate::clock;
use crate::contracts::SessionTools;
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::store;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Default clamp on any call's `timeout_ms`.
pub const DEFAULT_MAX_TIMEOUT_MS: u64 = 120_000;
/// Default freshness of a cached `http.get` response.
pub const DEFAULT_HTTP_CACHE_TTL_S: u64 = 3600;

/// The effective policy of one tool run.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Sandbox roots (canonical absolute paths); the first is the working root.
    pub roots: Vec<PathBuf>,
    pub sandbox_enabled: bool,
    /// Canonical names of the enabled tools.
    pub enabled: BTreeSet<String>,
    /// Where the enabled set came from, for messages.
    pub session_id: Option<String>,
    pub capabilities_granted: Vec<String>,
    /// `BOB_NET_ALLOWLIST`: when set, `net` alone allows only these domains.
    pub net_allowlist: Option<Vec<String>>,
    pub allow_loopback: bool,
    pub allow_private: bool,
    pub shell_rules: ShellRules,
    pub max_timeout_ms: u64,
    /// How `shell.exec` is confined (full unless the operator chose weak).
    pub sandbox_mode: crate::sandbox::Mode,
    pub http_cache_ttl_s: u64,
}

/// What the calling human adds on the command line.
#[derive(Debug, Clone, Default)]
pub struct PolicyOverrides {
    pub roots: Vec<PathBuf>,
    pub enable: Vec<String>,
    pub enable_all: bool,
    /// Capabilities granted for this call only (without a session).
    pub grant: Vec<String>,
    pub allow_loopback: bool,
    pub allow_private: bool,
    /// `--sandbox full|weak`.
    pub sandbox_mode: Option<crate::sandbox::Mode>,
    pub shell_rules: Option<PathBuf>,
    pub max_timeout_ms: Option<u64>,
}

fn truthy(name: &str) -> bool {
    std::env::var(name)
        .map(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
        .unwrap_or(false)
}

fn env_list(name: &str) -> Option<Vec<String>> {
    let v = std::env::var(name).ok()?;
    let items: Vec<String> = v
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    (!items.is_empty()).then_some(items)
}

fn env_u64(name: &str) -> Result<Option<u64>> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v.trim().parse().map(Some).map_err(|_| {
            Error::invalid(format!("{name} must be a non-negative integer (got {v:?})"))
        }),
        _ => Ok(None),
    }
}

/// Canonical name of a tool (alias resolved), or `tool.not_found`.
pub fn canonical_tool(name: &str) -> Result<&'static str> {
    registry::resolve(name).map(|t| t.name).ok_or_else(|| {
        Error::new(Code::ToolNotFound, format!("no tool named {name:?}"))
            .with("tool", name.to_string())
    })
}

/// The session's enabled-tools file; empty when absent.
pub fn load_session_tools(home: &Home, session_id: &str) -> Result<SessionTools> {
    let path = home.session_dir(session_id)?.join("tools.json");
    Ok(store::read_json(&path)?.unwrap_or_default())
}

/// Enables (or disables) tools for a session; returns the new set. A human act.
pub fn set_session_tools(
    home: &Home,
    session_id: &str,
    names: &[String],
    enable: bool,
) -> Result<SessionTools> {
    let path = home.session_dir(session_id)?.join("tools.json");
    let _lock = store::Lock::exclusive(&store::lock_path(&path))?;
    let mut cur: SessionTools = store::read_json(&path)?.unwrap_or_default();
    let mut set: BTreeSet<String> = cur.enabled.iter().cloned().collect();
    for n in names {
        let canonical = if n == "all" {
            None
        } else {
            Some(canonical_tool(n)?)
        };
        let targets: Vec<&str> = match canonical {
            Some(c) => vec![c],
            None => registry::registry().iter().map(|t| t.name).collect(),
        };
        for t in targets {
            if enable {
                set.insert(t.to_string());
            } else {
                set.remove(t);
            }
        }
    }
    cur.session_id = session_id.to_string();
    cur.enabled = set.into_iter().collect();
    cur.updated_at = clock::rfc3339(clock::now()?);
    store::write_json_atomic(&path, &cur)?;
    Ok(cur)
}

impl Policy {
    /// Builds the policy from the environment, the session's files (enabled tools, granted
    /// capabilities from its checkpoint) and the human's command-line overrides.
    pub fn from_env_and_session(
        home: &Home,
        session_id: Option<&str>,
        o: PolicyOverrides,
    ) -> Result<Policy> {
        let mut roots_raw: Vec<PathBuf> = o.roots.clone();
        let flag_roots = !roots_raw.is_empty();
        if !flag_roots && let Some(list) = env_list("BOB_TOOL_ROOTS") {
            roots_raw = list.into_iter().map(PathBuf::from).collect();
        }
        let sandbox_enabled = flag_roots || truthy("BOB_TOOL_SANDBOX_ENABLED");
        let mut roots = Vec::new();
        for r in &roots_raw {
            let c = std::fs::canonicalize(r).map_err(|e| {
                Error::invalid(format!("sandbox root {}: {e}", r.display()))
                    .with("root", r.display().to_string())
            })?;
            if !c.is_dir() {
                return Err(Error::invalid(format!(
                    "sandbox root {} is not a directory",
                    r.display()
                )));
            }
            roots.push(c);
        }
        let mut enabled = BTreeSet::new();
        let mut caps = Vec::new();
        if let Some(sid) = session_id {
            enabled.extend(load_session_tools(home, sid)?.enabled);
            caps.extend(
                crate::checkpoint::load(home, sid)?
                    .state
                    .capabilities_granted,
            );
        }
        if o.enable_all {
            enabled.extend(registry::registry().iter().map(|t| t.name.to_string()));
        }
        for n in &o.enable {
            enabled.insert(canonical_tool(n)?.to_string());
        }
        caps.extend(o.grant.iter().cloned());
        let shell_rules = match o.shell_rules.clone().or_else(|| {
            std::env::var_os("BOB_TOOL_SHELL_RULES")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        }) {
            Some(p) => ShellRules::load_file(&p)?,
            None => ShellRules::builtin()?,
        };
        let max_timeout_ms = match o.max_timeout_ms {
            Some(v) => v,
            None => env_u64("BOB_TOOL_MAX_TIMEOUT_MS")?.unwrap_or(DEFAULT_MAX_TIMEOUT_MS),
        };
        let sandbox_mode = match o.sandbox_mode {
            Some(m) => m,
            None => match std::env::var("BOB_SANDBOX") {
                Ok(v) if !v.trim().is_empty() => crate::sandbox::Mode::parse(&v)?,
                _ => crate::sandbox::Mode::Full,
            },
        };
        Ok(Policy {
            roots,
            sandbox_enabled,
            enabled,
            session_id: session_id.map(str::to_string),
            capabilities_granted: caps,
            net_allowlist: env_list("BOB_NET_ALLOWLIST"),
            allow_loopback: o.allow_loopback || truthy("BOB_TOOL_ALLOW_LOOPBACK"),
            allow_private: o.allow_private || truthy("BOB_TOOL_ALLOW_PRIVATE"),
            shell_rules,
            max_timeout_ms,
            sandbox_mode,
            http_cache_ttl_s: env_u64("BOB_HTTP_CACHE_TTL_S")?.unwrap_or(DEFAULT_HTTP_CACHE_TTL_S),
        })
    }

    /// The working root, if the sandbox is usable.
    pub fn root(&self) -> Option<&Path> {
        if self.sandbox_enabled {
            self.roots.first().map(PathBuf::as_path)
        } else {
            None
        }
    }

    /// Clamps a request's timeout.
    pub fn clamp_timeout(&self, timeout_ms: u64) -> u64 {
        timeout_ms.clamp(1, self.max_timeout_ms.max(1))
    }

    /// Refuses a tool that is not enabled, or a fs/shell tool without a sandbox root.
    pub fn check_tool(&self, requested: &str, spec: &ToolSpec) -> Result<()> {
        if !self.enabled.contains(spec.name) {
            let how = match &self.session_id {
                Some(s) => format!(
                    "a human enables it with `bob tool enable --session {s} {}`",
                    spec.name
                ),
                None => format!(
                    "a human enables it with `bob tool run --enable {}` (or `--enable-all`)",
                    spec.name
                ),
            };
            return Err(Error::denied(format!(
                "tool {requested} is not enabled (tools are disabled by default); {how}"
            ))
            .with("tool", requested.to_string()));
        }
        if matches!(spec.kind, Kind::Fs | Kind::Shell) && self.root().is_none() {
            let why = if self.sandbox_enabled {
                "the sandbox has no root"
            } else {
                "the sandbox is not enabled"
            };
            return Err(Error::new(
                Code::SandboxRequired,
                format!("{requested} needs the tool sandbox, but {why}: pass `--root DIR` to `bob tool run`, or set BOB_TOOL_SANDBOX_ENABLED=1 and BOB_TOOL_ROOTS=DIR[,DIR...]"),
            )
            .with("tool", requested.to_string()));
        }
        Ok(())
    }

    /// Whether `net` capabilities allow fetching from `host` (seed 000 §4): `net:<domain>`
    /// (the host or a subdomain) always does; `net` does when no global allowlist is set, or
    /// when the host is on it.
    pub fn net_allows(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let under = |d: &str| {
            let d = d.trim().trim_end_matches('.').to_ascii_lowercase();
            !d.is_empty() && (host == d || host.ends_with(&format!(".{d}")))
        };
        for c in &self.capabilities_granted {
            if let Some(d) = c.strip_prefix("net:")
                && under(d)
            {
                return true;
            }
        }
        if self.capabilities_granted.iter().any(|c| c == "net") {
            return match &self.net_allowlist {
                None => true,
                Some(list) => list.iter().any(|d| under(d)),
            };
        }
        false
    }
}
