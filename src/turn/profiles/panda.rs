//! The `panda` profile (the JSON I/O contracts): its roles answer with JSON objects. Thinking's
//! `{plan, notes, save_plan}` and the Solver's `{analysis, requests, tool_intent,
//! needs_more_context, final, suggest_memory_save}` are read here, the Solver's intents become
//! tool calls, a `needs_more_context` reply loops back to Thinking, and a priced bill of
//! materials is proposed for memory.

use super::{Pass, Plugin, RoleSpec};
use crate::contracts::trace::{PandaContextLoop, PandaLoop};
use crate::contracts::{MemoryCandidate, ToolRequest, ToolResponse};
use crate::error::Result;
use crate::notes::{self};
use crate::sanitize;
use crate::tools::{self, CallDefaults};
use crate::turn::context::{enabled_tools, retrieve};
use crate::turn::prompts::Upstream;
use crate::turn::role_call::upstream_role;
use crate::turn::tool_loop::{FinalInputs, final_role};
use crate::turn::work::{Asked, Work};
use serde_json::{Value, json};

/// The `panda` profile's plug-in.
pub(super) struct Panda;

impl Plugin for Panda {
    fn roles(&self) -> &'static [RoleSpec] {
        ROLES
    }

    fn read_output(&self, w: &mut Work<'_>, role: &RoleSpec, raw: &str) -> Option<String> {
        read(w, role, raw)
    }

    fn own_tool_calls(
        &self,
        w: &mut Work<'_>,
        raw: &str,
        defaults: &CallDefaults,
    ) -> (Vec<Asked>, Option<String>) {
        panda_intents(raw, defaults, &mut w.ids)
    }

    /// JSON I/O Thinking's `plan[]`: its steps that are tool calls (objects, in any accepted
    /// shape: `{id, tool, args}`, `{action, payload}`) run in the Tools stage; the other steps
    /// are text.
    fn planned_tool_calls(
        &self,
        _role: &RoleSpec,
        raw: &str,
        defaults: &CallDefaults,
    ) -> (Vec<Asked>, Option<String>) {
        let calls: Vec<Value> = panda_object(raw)
            .and_then(|o| o.get("plan").and_then(Value::as_array).cloned())
            .unwrap_or_default()
            .into_iter()
            .filter(Value::is_object)
            .collect();
        if calls.is_empty() {
            return (Vec::new(), None);
        }
        match tools::parse::parse_calls_noting_ids(&Value::Array(calls).to_string(), defaults) {
            Ok(reqs) => (reqs, None),
            Err(e) => (Vec::new(), Some(e.message)),
        }
    }

    /// JSON I/O's orchestrator transcript entry, one per Solver loop (`panda_loop`); a reply
    /// that needs more context is kept for [`context_loops`].
    fn after_final_reply(
        &self,
        w: &mut Work<'_>,
        round: usize,
        raw: &str,
        calls: &[ToolRequest],
        malformed: bool,
    ) -> Result<()> {
        let obj = panda_object(raw).unwrap_or_default();
        let termination = if !calls.is_empty() || malformed {
            if round >= w.opts.max_tool_rounds {
                Some("tool_limit")
            } else {
                None
            }
        } else if obj.get("needs_more_context").and_then(Value::as_bool) == Some(true) {
            Some("needs_more_context")
        } else {
            Some("final")
        };
        w.plugin_state = (termination == Some("needs_more_context"))
            .then(|| json!({"requests": obj.get("requests"), "analysis": obj.get("analysis")}));
        w.trace.push(&PandaLoop {
            run_id: &w.run_id,
            round,
            solver_self_history: obj.get("analysis"),
            note_frames: &w.patch,
            tool_intents: w.ignored_ids.calls(calls),
            termination_reason: termination,
        })
    }

    /// JSON I/O's memory save heuristic: the first priced bill of materials of the turn is
    /// proposed for memory.
    fn after_tool(&self, w: &mut Work<'_>, req: &ToolRequest, resp: &ToolResponse) {
        if let Some(c) = priced_bom_candidate(req, resp)
            && !w
                .candidates
                .iter()
                .any(|x| x.tags.iter().any(|t| t == "bom"))
        {
            w.candidates.push(c);
        }
    }

    fn after_roles(&self, w: &mut Work<'_>, pass: &Pass<'_>, answer: String) -> Result<String> {
        context_loops(w, pass, answer)
    }

    /// The Solver's `final` string, decoded as the JSON streams in.
    fn live_answer(&self) -> Option<super::LiveAnswer> {
        let mut text = super::panda_live::FinalText::default();
        Some(Box::new(move |piece| text.push(piece)))
    }
}

const THINKING: &str = "You are the Thinking stage. Reply with one JSON object only: \
{\"plan\": [short steps], \"notes\": {\"facts\": [], \"open_qs\": [], \"decisions\": [], \"todos\": []}, \
\"save_plan\": null or {\"title\", \"tags\", \"body_md\", \"importance\", \"ttl_days\"}}. The user never \
sees it. A plan step may be a read-only tool call {\"id\", \"tool\", \"args\"} naming one of the \
tools listed; the runtime runs it before the Solver answers, which gets its result. You cannot \
write, run commands or change anything.";

const SOLVER: &str = "You are the Solver stage, the only one that answers the user. Reply with \
one JSON object only: {\"analysis\": private reasoning, \"requests\": [], \"tool_intent\": null or \
{\"action\": tool name, \"payload\": {input}}, \"needs_more_context\": false, \"final\": the answer the \
user sees, \"suggest_memory_save\": null or {\"title\", \"tags\", \"body_md\", \"importance\", \
\"ttl_days\"}}. Propose a memory save for a priced bill of materials, a sourcing guide or a \
reusable troubleshooting flow.";

const ROLES: &[RoleSpec] = &[
    RoleSpec {
        name: "thinking",
        instructions: THINKING,
        wants_retrieval: true,
        proposes_memory: true,
        is_final: false,
        plans_tools: true,
    },
    RoleSpec {
        name: "solver",
        instructions: SOLVER,
        wants_retrieval: false,
        proposes_memory: true,
        is_final: true,
        plans_tools: false,
    },
];

/// JSON I/O outputs parsed as contracts (the `panda` profile): a Thinking object
/// `{plan, notes, save_plan}` (its NoteFrames become a NOTES patch, `save_plan` a memory
/// candidate; the visible text is the plan, as private upstream notes) or a Solver object
/// `{analysis, requests, tool_intent, needs_more_context, final, suggest_memory_save}`
/// (`final` is the visible answer; `tool_intent` runs through the tool loop, which reads
/// it from the raw reply; `analysis` is never shown). `None` when the reply is not a JSON
/// object: it is then read like any other role's text.
fn read(w: &mut Work<'_>, role: &RoleSpec, raw: &str) -> Option<String> {
    let obj = panda_object(raw)?;
    if let Some(n) = obj.get("notes").filter(|n| n.is_object()) {
        match notes::parse_patch(n) {
            Ok(p) => {
                w.patch.merge(p.patch);
                for k in p.ignored_keys {
                    if !w.notes_ignored_keys.contains(&k) {
                        w.notes_ignored_keys.push(k);
                    }
                }
            }
            Err(e) => w
                .notes_errors
                .push(format!("{}: NoteFrames: {}", role.name, e.message)),
        }
    }
    for key in ["save_plan", "suggest_memory_save"] {
        if let Some(v) = obj.get(key).filter(|v| v.is_object())
            && role.proposes_memory
        {
            match crate::turn::mem::extract(&json!({ key: v }).to_string()) {
                Ok(c) => w.candidates.extend(c),
                Err(e) => w
                    .notes_errors
                    .push(format!("{}: {key}: {}", role.name, e.message)),
            }
        }
    }
    if role.is_final {
        return Some(
            obj.get("final")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        );
    }
    let plan = match obj.get("plan") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| {
                format!(
                    "- {}",
                    s.as_str().map_or_else(|| s.to_string(), str::to_string)
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    Some(plan)
}
/// JSON I/O's memory save heuristic: a priced bill of materials (a `bom.build` result with at
/// least one priced row) is proposed for memory (pending a human's approval).
fn priced_bom_candidate(req: &ToolRequest, resp: &ToolResponse) -> Option<MemoryCandidate> {
    if tools::resolve(&req.tool).map(|s| s.name) != Some("bom.build") || !resp.ok {
        return None;
    }
    let out = resp.output.as_ref()?;
    let rows = out.get("rows")?.as_array()?;
    if !rows
        .iter()
        .any(|r| r.get("price").is_some_and(Value::is_number))
    {
        return None;
    }
    let mut body =
        String::from("| part | quantity | price | seller | link |\n|---|---|---|---|---|\n");
    for r in rows.iter().take(100) {
        let f = |k: &str| match r.get(k) {
            Some(Value::String(s)) => s.replace('|', "/"),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        };
        body.push_str(&format!(
            "| {} | {} | {} {} | {} | {} |\n",
            f("part"),
            f("quantity"),
            f("price"),
            f("currency"),
            f("seller"),
            f("link")
        ));
    }
    let source = out.get("source_url").and_then(Value::as_str).unwrap_or("");
    body.push_str(&format!("\nSource: {source}\n"));
    let mut c = MemoryCandidate::new(body);
    c.title = Some(format!("Priced BOM: {source}").chars().take(120).collect());
    c.kind = "reference".into();
    c.tags = vec!["bom".into(), "pricing".into()];
    c.source = "tool:bom.build".into();
    c.why_store = Some("a priced bill of materials (JSON I/O memory save heuristic)".into());
    c.importance = Some(6);
    Some(c)
}

/// A JSON I/O role output: one JSON object, bare or in a ```json fence.
fn panda_object(raw: &str) -> Option<serde_json::Map<String, Value>> {
    let t = raw.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .map(|x| x.trim_end().trim_end_matches("```"))
        .unwrap_or(t)
        .trim();
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(obj)) => Some(obj),
        _ => None,
    }
}

/// A Solver output's `tool_intent` (or `tool_intents`) as tool requests, then each of its
/// `requests` that is a SearchRequest (`type: search_request`) as a `web.search` call; nothing
/// when there are none.
fn panda_intents(
    raw: &str,
    defaults: &CallDefaults,
    ids: &mut crate::ids::IdSource,
) -> (Vec<Asked>, Option<String>) {
    let Some(obj) = panda_object(raw) else {
        return (Vec::new(), None);
    };
    // `requests` entries of type search_request are SearchRequests for web.search.
    let searches: Vec<Asked> = obj
        .get("requests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r.get("type").and_then(Value::as_str) == Some("search_request"))
        .enumerate()
        .map(|(i, r)| {
            let req = ToolRequest {
                request_id: format!("search_{i}_{}", ids.hex32()),
                run_id: defaults.run_id.clone(),
                agent_id: defaults.agent_id.clone(),
                tool: "web.search".into(),
                input: r.clone(),
                timeout_ms: defaults.timeout_ms,
                created_at: crate::clock::rfc3339(defaults.now),
            };
            (req, Vec::new())
        })
        .collect();
    let has = ["tool_intent", "tool_intents"]
        .iter()
        .any(|k| obj.get(*k).is_some_and(|v| !v.is_null()));
    if !has {
        return (searches, None);
    }
    match tools::parse::parse_calls_noting_ids(&Value::Object(obj).to_string(), defaults) {
        Ok(mut reqs) => {
            reqs.extend(searches);
            (reqs, None)
        }
        Err(e) => (searches, Some(e.message)),
    }
}

/// Most times one panda turn goes back from the Solver to Thinking for more context.
const MAX_CONTEXT_LOOPS: usize = 2;

/// JSON I/O's loop: a panda Solver reply with `needs_more_context: true` sends the turn back
/// to Thinking, with the Solver's `requests` and `analysis` added to the upstream notes, and
/// then to the Solver again; at most [`MAX_CONTEXT_LOOPS`] times (traced as
/// `panda_context_loop`), after which the Solver's last answer stands.
fn context_loops(w: &mut Work<'_>, pass: &Pass<'_>, mut answer: String) -> Result<String> {
    let Pass {
        cp,
        history,
        user_text,
        message,
        recap,
    } = *pass;
    let roles = ROLES;
    let mut loops = 0;
    while let Some(ask) = w.plugin_state.take() {
        if loops >= MAX_CONTEXT_LOOPS || w.escalated {
            w.trace.push(&PandaContextLoop {
                run_id: &w.run_id,
                loop_no: loops,
                stopped: Some("context_limit"),
                requests: &ask["requests"],
            })?;
            break;
        }
        loops += 1;
        w.trace.push(&PandaContextLoop {
            run_id: &w.run_id,
            loop_no: loops,
            stopped: None,
            requests: &ask["requests"],
        })?;
        let requests = match &ask["requests"] {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        let analysis = ask["analysis"].as_str().unwrap_or("");
        w.upstream.push(Upstream {
            role: "solver".into(),
            content: sanitize::sanitize(&format!(
                "The solver needs more context before it can answer.\nRequests: {requests}\nAnalysis so far: {analysis}"
            )),
        });
        for role in roles {
            w.cancel.check()?;
            let retrieval = if role.wants_retrieval {
                retrieve(w, role, message)?
            } else {
                None
            };
            if role.is_final {
                let enabled = enabled_tools(w.home, &w.opts.session_id)?;
                answer = final_role(
                    w,
                    role,
                    FinalInputs {
                        cp,
                        history,
                        user_text,
                        retrieval: retrieval.as_deref(),
                        recap,
                        stm: None,
                        enabled: &enabled,
                    },
                    Vec::new(),
                )?;
            } else {
                upstream_role(w, role, cp, history, user_text, retrieval.as_deref(), recap)?;
            }
        }
    }
    Ok(answer)
}
