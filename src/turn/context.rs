//! Context assembly: what a role's request is built from besides the checkpoint. The
//! enabled tools (as text and as native definitions), memory retrieval, the relevant
//! short-term entries, and [`role_request`], the exact first request of a role (`bob
//! context`), built from the same pieces without writing anything.

use super::prompts::{self, RoleInputs, Upstream};
use super::recap;
use super::work::Work;
use super::{Profile, RoleSpec};
use crate::backend::ChatRequest;
use crate::checkpoint;
use crate::condense::{self, Caps, Mode};
use crate::contracts::NativeTool;
use crate::contracts::trace::{Retrieval, ScoredId, StmContext, StmTouch};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::memory::Memory;
use crate::tools::{self};
use serde_json::{Map, Value};

/// The tools enabled for the session (a human's `bob tool enable`); the full [`Policy`](crate::tools::Policy) is
/// built only when a tool is actually called.
/// With TURBOTIME on, its selected tools are enabled too (the Bob v0 runtime).
pub(super) fn enabled_tools(home: &Home, session_id: &str) -> Result<Vec<String>> {
    let mut enabled = tools::policy::load_session_tools(home, session_id)?.enabled;
    tools::domain::turbotime::load(home, session_id)?.enable_selected(&mut enabled);
    Ok(enabled)
}

/// The tools the final role may use: `- name: description` lines for the enabled tools.
pub(super) fn tools_text(enabled: &[String]) -> String {
    tools::registry()
        .iter()
        .filter(|t| enabled.iter().any(|e| e == t.name))
        .map(|t| format!("- {}: {}", t.name, t.description))
        .collect::<Vec<_>>()
        .join("\n")
}

/// OpenAI `tools` definitions of the enabled tools (native tool calling).
pub(super) fn native_tools(enabled: &[String]) -> Option<Value> {
    let defs: Vec<Value> = tools::registry()
        .iter()
        .filter(|t| enabled.iter().any(|e| e == t.name))
        .map(|t| {
            let parameters = serde_json::to_value((t.schema)()).unwrap_or_else(|_| {
                Value::Object(Map::from_iter([("type".into(), "object".into())]))
            });
            serde_json::to_value(NativeTool::function(t.name, t.description, parameters))
                .unwrap_or_default()
        })
        .collect();
    (!defs.is_empty()).then_some(Value::Array(defs))
}

/// Whether the final role is offered native `tools` (`tools.protocol = "markers"`,
/// `BOB_TOOL_PROTOCOL=markers`, turns it off; the marker protocol is always accepted).
pub(super) fn native_enabled(settings: &crate::settings::Settings) -> bool {
    settings.text("tools.protocol") != Some("markers")
}

pub(super) fn retrieve(w: &mut Work<'_>, role: &RoleSpec, query: &str) -> Result<Option<String>> {
    let home = w.home;
    if !home.memory_db().exists() {
        w.trace.push(&Retrieval::Hits {
            run_id: &w.run_id,
            role: role.name,
            query,
            hits: Vec::new(),
            note: Some("no memory store yet"),
            ranking: None,
            fallback: None,
        })?;
        return Ok(None);
    }
    let user = w
        .opts
        .user_id
        .clone()
        .unwrap_or_else(|| "default".to_string());
    let found = match w.prefetched.take() {
        Some(found) => found,
        None => w
            .memory()
            .and_then(|m| super::mem::retrieve(m, &user, query)),
    };
    match found {
        Ok(r) => {
            for (id, _) in &r.hits {
                if !w.retrieved.contains(id) {
                    w.retrieved.push(id.clone());
                }
            }
            w.trace.push(&Retrieval::Hits {
                run_id: &w.run_id,
                role: role.name,
                query,
                hits: r
                    .hits
                    .iter()
                    .map(|(id, score)| ScoredId { id, score: *score })
                    .collect(),
                note: None,
                ranking: (r.mode != "lexical" || r.fallback.is_some()).then_some(r.mode),
                fallback: r
                    .fallback
                    .as_ref()
                    .map(|why| format!("lexical ranking: {why}")),
            })?;
            Ok(r.block)
        }
        Err(e) => {
            // Retrieval is non-authoritative: a failure is traced, the turn goes on.
            w.trace.push(&Retrieval::Failed {
                run_id: &w.run_id,
                role: role.name,
                query,
                error: &e,
            })?;
            Ok(None)
        }
    }
}

/// The enabled tools that change nothing (THINK's Tools stage runs only these).
pub(super) fn read_only(enabled: &[String]) -> Vec<String> {
    enabled
        .iter()
        .filter(|t| tools::resolve(t).is_some_and(|s| !s.mutating))
        .cloned()
        .collect()
}

/// The live short-term entries relevant to `message` (from the prefetch when one ran), touched
/// for this session so their access counts and sessions seen grow; traced as `stm_context`.
/// Non-authoritative: a failure is traced and the turn goes on without them.
pub(super) fn working_stm(
    w: &mut Work<'_>,
    message: &str,
) -> Result<Vec<crate::contracts::StmEntry>> {
    let found = match w.prefetch.take(message) {
        Some(p) => {
            if let Some(m) = p.memory {
                w.memory = Some(m);
            }
            w.prefetched = Some(p.found);
            p.stm
        }
        None if !w.home.memory_db().exists() => return Ok(Vec::new()),
        None => {
            let user = w.opts.user_id.clone().unwrap_or_else(|| "default".into());
            w.memory()
                .and_then(|m| super::mem::relevant_stm(m, &user, message))
        }
    };
    let sid = w.opts.session_id.clone();
    let touched = found.and_then(|entries| {
        if entries.is_empty() {
            return Ok(entries);
        }
        w.memory()
            .and_then(|m| super::mem::touch(m, &entries, &sid))
    });
    match touched {
        Ok(entries) => {
            if !entries.is_empty() {
                w.trace.push(&StmContext::Touched {
                    run_id: &w.run_id,
                    entries: entries
                        .iter()
                        .map(|e| StmTouch {
                            id: &e.id,
                            access_count: e.access_count,
                            sessions_seen: e.sessions_seen.len(),
                        })
                        .collect(),
                })?;
            }
            Ok(entries)
        }
        Err(e) => {
            w.trace.push(&StmContext::Failed {
                run_id: &w.run_id,
                error: &e,
            })?;
            Ok(Vec::new())
        }
    }
}

/// The role whose output comes just before `role_name`'s in a turn of `session_id` (on the
/// planning path's own order when TURBOTIME is on and the role is one of its), which is how
/// `bob context --upstream` labels plain-text upstream; `"upstream"` for a first role.
pub fn previous_role(
    home: &crate::home::Home,
    profile: Profile,
    session_id: &str,
    role_name: &str,
) -> Result<&'static str> {
    let turbotime_on = tools::domain::turbotime::load(home, session_id)?.on;
    let path = profile
        .plugin()
        .turbotime()
        .filter(|_| turbotime_on)
        .map(|p| p.roles())
        .unwrap_or_default();
    let roles = if path.iter().any(|r| r.name == role_name) {
        path
    } else {
        profile.roles()
    };
    Ok(roles
        .iter()
        .take_while(|r| r.name != role_name)
        .last()
        .map_or("upstream", |r| r.name))
}

/// The exact request `role` of `profile` would send for `message` in session `session_id`
/// (its first round), without calling anything or writing anything: `bob context`. `system`
/// is the person's own instructions (`--system`), placed as the turn places them.
/// The home is the settings' home.
#[allow(clippy::too_many_arguments)]
pub fn role_request(
    settings: &crate::settings::Settings,
    profile: Profile,
    role_name: &str,
    session_id: &str,
    user_id: Option<&str>,
    message: &str,
    system: Option<&str>,
    upstream: &[Upstream],
) -> Result<ChatRequest> {
    let home = settings.home();
    // With TURBOTIME on, the planning path's roles are the turn's too.
    let turbotime_on = tools::domain::turbotime::load(home, session_id)?.on;
    let role = profile.turn_role(role_name, turbotime_on).ok_or_else(|| {
        Error::invalid(format!(
            "profile {} has no role {role_name:?} (roles: {})",
            profile.as_str(),
            profile
                .turn_roles(turbotime_on)
                .iter()
                .map(|r| r.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    let cp = checkpoint::load(home, session_id)?;
    let recap = recap::build(message, &cp);
    let user_text = recap
        .as_ref()
        .and_then(|r| r.rewritten.clone())
        .unwrap_or_else(|| message.to_string());
    let history =
        condense::condense(&cp.recent_messages, &Caps::default(), Mode::Pressure).messages;
    let mem = if home.memory_db().exists() {
        Some(Memory::open_fast(home)?)
    } else {
        None
    };
    let user = user_id.unwrap_or("default");
    let retrieval = match &mem {
        Some(mem) if role.wants_retrieval => super::mem::retrieve(mem, user, message)?.block,
        _ => None,
    };
    // The same short-term entries the turn would show (not touched: this writes nothing).
    let stm = match &mem {
        Some(mem) => super::mem::stm_block(&super::mem::relevant_stm(mem, user, message)?),
        None => None,
    };
    let (tools_list, native) = if role.is_final {
        let enabled = enabled_tools(home, session_id)?;
        let native = if native_enabled(settings) {
            native_tools(&enabled)
        } else {
            None
        };
        (Some(tools_text(&enabled)), native)
    } else if role.plans_tools {
        let enabled = enabled_tools(home, session_id)?;
        (Some(tools_text(&read_only(&enabled))), None)
    } else {
        (None, None)
    };
    let facts = prompts::TurnFacts {
        identity: super::Identity::from_settings(settings)?,
        date: crate::clock::now()?.format("%Y-%m-%d").to_string(),
        nonce: super::nonce("context", None),
        instructions: system.filter(|s| !s.trim().is_empty()).map(str::to_string),
    };
    let inputs = RoleInputs {
        facts: Some(&facts),
        state: Some(&cp.state),
        history: &history,
        upstream,
        user: &user_text,
        retrieval: retrieval.as_deref(),
        recap: recap.as_ref().map(|r| r.summary.as_str()),
        tools: tools_list.as_deref(),
        recovery: None,
        stm: stm.as_deref(),
    };
    let mut req = ChatRequest::new(prompts::build(profile, role, &inputs));
    req.tools = native;
    wire_request(&mut req);
    Ok(req)
}

/// Native tool calling speaks the wire names OpenAI accepts (`fs-read_text`); everything else
/// in bob keeps the registry's names ([`tools::wire`]). Applied to every request the final
/// role sends, so any `tool_calls` in its messages (this turn's rounds, history) match.
pub(super) fn wire_request(req: &mut ChatRequest) {
    tools::wire::to_wire(req.tools.as_mut(), &mut req.messages);
}
