//! A session's tool set: which tools a human enabled for it (`sessions/<id>/tools.json`,
//! changed only as an audited human act) and the [`Policy`] one tool run gets from it, the
//! settings and the command line. This is where a tool name meets the registry (aliases,
//! `all`), so the policy itself, which every tool consults, knows no tool table.

use super::argv::ShellRules;
use super::domain::turbotime;
use super::policy::{
    DEFAULT_HTTP_CACHE_TTL_S, DEFAULT_MAX_TIMEOUT_MS, NetScope, Policy, PolicyOverrides,
    check_grant, load_session_tools,
};
use super::registry;
use crate::clock;
use crate::contracts::SessionTools;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::settings::Settings;
use crate::store;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Canonical name of a tool (alias resolved), or `tool.not_found`.
pub fn canonical_tool(name: &str) -> Result<&'static str> {
    registry::resolve(name)
        .map(|t| t.name)
        .ok_or_else(|| super::wire::not_found(name, "see `bob tool list`"))
}

/// Enables (or disables) tools for a session; returns the new set. A human act, audited
/// (`tool.enable` / `tool.disable`, actor `human`) before the file is replaced.
pub fn set_session_tools(
    home: &Home,
    session_id: &str,
    names: &[String],
    enable: bool,
) -> Result<SessionTools> {
    crate::ids::check_in_home(home, crate::ids::Kind::Id, "session_id", session_id)?;
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
    let was: Vec<String> = std::mem::take(&mut cur.enabled);
    cur.session_id = session_id.to_string();
    cur.enabled = set.into_iter().collect();
    cur.updated_at = clock::rfc3339(clock::now()?);
    // A human act: recorded before it is committed, under the file's lock.
    crate::audit::human_act(
        home,
        &crate::contracts::audit::ToolsChanged {
            enable,
            session_id,
            names,
            enabled: &cur.enabled,
            was_enabled: &was,
        },
    )?;
    store::write_json_atomic(&path, &cur)?;
    Ok(cur)
}

impl Policy {
    /// Builds the policy from the settings (`tools.*`), the session's files (enabled tools,
    /// granted capabilities from its checkpoint) and the human's command-line overrides.
    pub fn load(
        home: &Home,
        settings: &Settings,
        session_id: Option<&str>,
        o: PolicyOverrides,
    ) -> Result<Policy> {
        let mut roots_raw: Vec<PathBuf> = o.roots.clone();
        let flag_roots = !roots_raw.is_empty();
        if !flag_roots {
            roots_raw = settings
                .list("tools.roots")
                .into_iter()
                .map(PathBuf::from)
                .collect();
        }
        let sandbox_enabled = flag_roots || settings.bool("tools.sandbox_enabled")?;
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
        let mut turbotime = turbotime::Turbotime::default();
        if let Some(sid) = session_id {
            enabled.extend(load_session_tools(home, sid)?.enabled);
            turbotime = turbotime::load(home, sid)?;
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
        for g in &o.grant {
            check_grant(g)?;
        }
        caps.extend(o.grant.iter().cloned());
        let net_allowlist = Some(settings.list("tools.net_allowlist")).filter(|l| !l.is_empty());
        for entry in net_allowlist.iter().flatten() {
            NetScope::parse(entry).map_err(|e| e.with("setting", "tools.net_allowlist"))?;
        }
        let custom_shell_rules = match o
            .shell_rules
            .clone()
            .or_else(|| settings.path("tools.shell_rules"))
        {
            Some(p) => Some(ShellRules::load_file(&p)?),
            None => None,
        };
        let max_timeout_ms = match o.max_timeout_ms {
            Some(v) => v,
            None => settings
                .u64("tools.max_timeout_ms")?
                .unwrap_or(DEFAULT_MAX_TIMEOUT_MS),
        };
        let sandbox_mode = match o.sandbox_mode {
            Some(m) => m,
            None => match settings.text("tools.sandbox") {
                Some(v) if !v.trim().is_empty() => crate::sandbox::Mode::parse(v)?,
                _ => crate::sandbox::Mode::Full,
            },
        };
        Ok(Policy {
            roots,
            sandbox_enabled,
            enabled,
            session_id: session_id.map(str::to_string),
            capabilities_granted: caps,
            net_allowlist,
            allow_loopback: o.allow_loopback || settings.bool("tools.allow_loopback")?,
            allow_private: o.allow_private || settings.bool("tools.allow_private")?,
            custom_shell_rules,
            max_timeout_ms,
            sandbox_mode,
            http_cache_ttl_s: settings
                .u64("tools.http_cache_ttl_s")?
                .unwrap_or(DEFAULT_HTTP_CACHE_TTL_S),
            turbotime,
            settings: settings.clone(),
        })
    }
}
