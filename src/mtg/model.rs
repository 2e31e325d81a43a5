//! The `model` agent's contract (Bob v0 "MTG grounding"): the model sees only its seat's
//! visible state and the ActionSurface, and answers with one action. Its reply may be plain
//! JSON, a `<<<TOOL_CALLS_JSON>>>` block calling `mtg.act`, or an OpenAI tool call of
//! `mtg.act`. This module builds the messages and reads replies; the CLI makes the calls.

use super::action::{ActionRequest, Viewer, surface, visible};
use super::agents::{Agent, AgentKind};
use super::engine::Move;
use super::state::{Pending, State};
use crate::contracts::{ChatMessage, Role};
use serde_json::Value;

pub const SYSTEM: &str = "You play Magic: The Gathering through a rules engine. You see your \
seat's visible state and the ActionSurface {decision_id, player, kind, options}. Reply with \
exactly one action as a JSON object {\"decision_id\": …, \"type\": …, …} built from the \
options (for declare_attackers, declare_blockers, assign_damage, bottom and discard, combine \
the listed per-object choices). No prose. You may instead call the tool mtg.act with the \
action as its arguments.";

/// The system prompt of `bob mtg ask`.
pub const TUTOR: &str = "You are a patient Magic: The Gathering tutor. Answer the player's \
question from their visible state (and their legal actions, when shown) only: never guess the \
opponent's hand or any library. Name the rule when it helps. Be brief.";

/// The first messages for one decision.
pub fn messages(s: &State) -> Vec<ChatMessage> {
    let seat = s.decider().map_or(Viewer::All, Viewer::Seat);
    vec![
        ChatMessage::new(Role::System, SYSTEM),
        ChatMessage::new(
            Role::User,
            format!("STATE:\n{}\n\nACTIONS:\n{}", visible(s, seat), surface(s)),
        ),
    ]
}

fn from_args(args: &Value) -> Option<Value> {
    let v = match args {
        Value::String(s) => serde_json::from_str(s).ok()?,
        v => v.clone(),
    };
    match v.get("action") {
        Some(a @ Value::Object(_)) => {
            let mut a = a.clone();
            if let Some(d) = v.get("decision_id") {
                a["decision_id"] = d.clone();
            }
            Some(a)
        }
        _ => Some(v),
    }
}

fn is_act(name: Option<&str>) -> bool {
    matches!(name, Some("mtg.act" | "mtg_act"))
}

/// Reads an action out of a reply; `decision_id` defaults to the current one.
pub fn parse_reply(
    s: &State,
    content: &str,
    tool_calls: &[Value],
) -> Result<ActionRequest, String> {
    let mut found: Option<Value> = None;
    for c in tool_calls {
        if is_act(c["function"]["name"].as_str()) {
            found = from_args(&c["function"]["arguments"]);
            break;
        }
    }
    if found.is_none()
        && let Some(i) = content.find("<<<TOOL_CALLS_JSON>>>")
    {
        let rest = &content[i + "<<<TOOL_CALLS_JSON>>>".len()..];
        let body = rest.split("<<<").next().unwrap_or(rest).trim();
        let v: Value = serde_json::from_str(body).map_err(|e| format!("TOOL_CALLS_JSON: {e}"))?;
        let calls = match v {
            Value::Array(a) => a,
            o => vec![o],
        };
        let call = calls
            .iter()
            .find(|c| is_act(c["tool"].as_str().or(c["name"].as_str())))
            .ok_or("TOOL_CALLS_JSON has no mtg.act call")?;
        found = from_args(
            call.get("args")
                .or(call.get("arguments"))
                .unwrap_or(&Value::Null),
        );
    }
    let mut v = match found {
        Some(v) => v,
        None => {
            let (a, b) = (content.find('{'), content.rfind('}'));
            let (Some(a), Some(b)) = (a, b) else {
                return Err("the reply holds no JSON action".into());
            };
            serde_json::from_str(&content[a..=b])
                .map_err(|e| format!("the action is not JSON: {e}"))?
        }
    };
    if !v.is_object() {
        return Err("the action must be a JSON object".into());
    }
    if v.get("decision_id").is_none() {
        v["decision_id"] = Value::String(s.decision_id());
    }
    serde_json::from_value(v).map_err(|e| format!("not an action: {e}"))
}

/// The documented safe default after too many illegal replies: pass priority, attack with
/// nothing (but what must attack, CR 508.1d), block nothing, keep the hand; bottom, discard and damage as the heuristic player
/// would.
pub fn safe_default(s: &State) -> Option<Move> {
    Some(match s.pending {
        Pending::GameOver => return None,
        Pending::Priority => Move::Pass,
        // CR 508.1d: a creature that attacks each combat if able still attacks.
        Pending::DeclareAttackers => Move::Attack(s.required_attackers()),
        Pending::DeclareBlockers => Move::Block(Vec::new()),
        Pending::Mulligan { .. } => Move::Keep,
        _ => return Agent::new(AgentKind::Heuristic, 0).decide(s),
    })
}
