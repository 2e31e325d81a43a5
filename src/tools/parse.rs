//! Turning every seed's way of asking for a tool into canonical request envelopes.
//!
//! Accepted, alone, in an array, or as JSON Lines:
//! * Openclawssy request envelopes `{request_id, run_id?, agent_id?, tool, input, timeout_ms?}`
//!   (missing fields filled from [`CallDefaults`]);
//! * Spectator items `{id, tool, args}`, and `<<<TOOL_CALLS_JSON>>>…<<<END_TOOL_CALLS_JSON>>>`
//!   blocks inside assistant text (plain text, or a JSON string);
//! * JSON I/O `tool_intent` `{action, payload}`, alone, as an array, or inside a Solver output
//!   object (`tool_intent` / `tool_intents`);
//! * OpenAI `tool_calls` items `{id, type:"function", function:{name, arguments}}` (arguments
//!   is a JSON string; one that does not parse fails that call with `tool.input_invalid`, the
//!   others still run), an assistant message carrying `tool_calls`, or a whole chat
//!   completion response (`choices[0].message`).
//!
//! Duplicate ids within one input are `invalid.request`.
//!
//! [`parse_calls_noting_ids`] also says which ids (`request_id`, `run_id`, `agent_id`) each
//! call carried itself: a turn assigns all three and records the ones a model's call set as
//! ignored (see [`crate::ids`]).

use crate::clock;
use crate::contracts::{DEFAULT_TIMEOUT_MS, ToolRequest};
use crate::error::{Error, Result};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Opening marker of a Spectator tool-calls block.
pub const BEGIN: &str = "<<<TOOL_CALLS_JSON>>>";
/// Closing marker of a Spectator tool-calls block.
pub const END: &str = "<<<END_TOOL_CALLS_JSON>>>";

/// Values for envelope fields a call does not carry.
#[derive(Debug, Clone)]
pub struct CallDefaults {
    pub run_id: String,
    pub agent_id: String,
    pub timeout_ms: u64,
    pub now: DateTime<Utc>,
}

impl CallDefaults {
    /// `run_<uuid>`, `agent_default`, 30 s, [`clock::now`].
    pub fn new() -> Result<CallDefaults> {
        Ok(CallDefaults {
            run_id: format!("run_{}", uuid::Uuid::new_v4().simple()),
            agent_id: "agent_default".into(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            now: clock::now()?,
        })
    }
}

/// Parses tool calls in any accepted shape into request envelopes, in order.
pub fn parse_calls(input: &str, defaults: &CallDefaults) -> Result<Vec<ToolRequest>> {
    Ok(parse_calls_noting_ids(input, defaults)?
        .into_iter()
        .map(|(r, _)| r)
        .collect())
}

/// [`parse_calls`], with the id fields each call set itself (`request_id` for a call's own
/// `request_id` or `id`; `run_id`; `agent_id`), in that order.
pub fn parse_calls_noting_ids(
    input: &str,
    defaults: &CallDefaults,
) -> Result<Vec<(ToolRequest, Vec<&'static str>)>> {
    let text = input.trim();
    if text.is_empty() {
        return Err(Error::invalid(
            "no tool calls: expected JSON on stdin or --input FILE",
        ));
    }
    let mut raw: Vec<Value> = Vec::new();
    match serde_json::from_str::<Value>(text) {
        Ok(v) => collect(v, &mut raw)?,
        Err(whole_err) => {
            if text.contains(BEGIN) {
                collect_blocks(text, &mut raw)?;
            } else {
                let mut any = false;
                for (i, line) in text.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    let v: Value = serde_json::from_str(line).map_err(|e| {
                        if i == 0 {
                            Error::bad_json("tool calls", &whole_err)
                        } else {
                            Error::invalid(format!("tool calls: line {}: {e}", i + 1))
                                .with("line", i + 1)
                        }
                    })?;
                    collect(v, &mut raw)?;
                    any = true;
                }
                if !any {
                    return Err(Error::bad_json("tool calls", &whole_err));
                }
            }
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(raw.len());
    for (i, v) in raw.into_iter().enumerate() {
        let set = set_ids(&v);
        let req = normalize(v, i + 1, defaults)?;
        if !seen.insert(req.request_id.clone()) {
            return Err(Error::invalid(format!(
                "duplicate tool call id {:?}: ids must be unique within one response",
                req.request_id
            ))
            .with("id", req.request_id));
        }
        out.push((req, set));
    }
    Ok(out)
}

/// The id fields a call object sets itself (a non-empty string or number).
fn set_ids(v: &Value) -> Vec<&'static str> {
    let set = |k: &str| match v.get(k) {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(_)) => true,
        _ => false,
    };
    let mut out = Vec::new();
    if set("request_id") || set("id") {
        out.push("request_id");
    }
    for k in ["run_id", "agent_id"] {
        if set(k) {
            out.push(k);
        }
    }
    out
}

fn collect_blocks(text: &str, out: &mut Vec<Value>) -> Result<()> {
    let mut rest = text;
    let mut found = false;
    while let Some(start) = rest.find(BEGIN) {
        let after = &rest[start + BEGIN.len()..];
        let Some(end) = after.find(END) else {
            return Err(Error::invalid(format!(
                "{BEGIN} block is not closed by {END}"
            )));
        };
        let body = after[..end].trim();
        let v: Value =
            serde_json::from_str(body).map_err(|e| Error::bad_json("TOOL_CALLS_JSON block", &e))?;
        collect(v, out)?;
        found = true;
        rest = &after[end + END.len()..];
    }
    if !found {
        return Err(Error::invalid("no tool calls found in the text"));
    }
    Ok(())
}

/// Flattens containers (arrays, assistant messages, Solver outputs, chat responses) into
/// individual call objects.
fn collect(v: Value, out: &mut Vec<Value>) -> Result<()> {
    match v {
        Value::Array(items) => {
            for item in items {
                collect(item, out)?;
            }
            Ok(())
        }
        Value::String(s) => {
            if s.contains(BEGIN) {
                collect_blocks(&s, out)
            } else {
                Err(Error::invalid(
                    "a string holds no tool calls (expected <<<TOOL_CALLS_JSON>>> blocks)",
                ))
            }
        }
        Value::Object(mut m) => {
            if let Some(Value::Array(mut choices)) = m.remove("choices")
                && !choices.is_empty()
            {
                let first = choices.swap_remove(0);
                let msg = first.get("message").cloned().unwrap_or(first);
                return collect(msg, out);
            }
            if m.get("role").and_then(Value::as_str) == Some("assistant")
                || (m.contains_key("tool_calls") && !is_call(&m))
            {
                match m.remove("tool_calls") {
                    Some(Value::Array(calls)) if !calls.is_empty() => {
                        return collect(Value::Array(calls), out);
                    }
                    _ => {}
                }
                return match m.remove("content") {
                    Some(Value::String(s)) if s.contains(BEGIN) => collect_blocks(&s, out),
                    _ => Err(Error::invalid(
                        "the assistant message carries no tool calls",
                    )),
                };
            }
            if !is_call(&m) && (m.contains_key("tool_intent") || m.contains_key("tool_intents")) {
                let mut any = false;
                for k in ["tool_intent", "tool_intents"] {
                    match m.remove(k) {
                        None | Some(Value::Null) => {}
                        Some(v) => {
                            collect(v, out)?;
                            any = true;
                        }
                    }
                }
                if !any {
                    return Err(Error::invalid("tool_intent is null: no tool calls"));
                }
                return Ok(());
            }
            out.push(Value::Object(m));
            Ok(())
        }
        other => Err(Error::invalid(format!(
            "not a tool call: expected an object or array, got {other}"
        ))),
    }
}

fn is_call(m: &Map<String, Value>) -> bool {
    m.contains_key("tool") || m.contains_key("function") || m.contains_key("action")
}

fn str_field(m: &Map<String, Value>, k: &str) -> Result<Option<String>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) if k == "id" || k == "request_id" => Ok(Some(n.to_string())),
        Some(other) => Err(Error::invalid(format!("{k} must be a string, got {other}"))),
    }
}

fn normalize(v: Value, index: usize, d: &CallDefaults) -> Result<ToolRequest> {
    let Value::Object(m) = v else {
        return Err(Error::invalid("a tool call must be a JSON object"));
    };
    let auto_id = || format!("call_{index}");
    let (id, tool, input) = if let Some(f) = m.get("function") {
        // OpenAI tool call; its name may be the wire form `bob context` offers
        // (`fs-read_text`, see [`super::wire`]), read back to bob's name.
        let name = super::wire::WireNames::default().original(
            f.get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| Error::invalid("tool call function has no name"))?,
        );
        let input = match f.get("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Map::new()),
            // Not JSON: kept as the string, so that this one call fails tool.input_invalid.
            Some(Value::String(s)) => {
                serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
            }
            Some(other) => other.clone(),
        };
        (str_field(&m, "id")?, name, input)
    } else if let Some(action) = m.get("action") {
        // JSON I/O tool intent.
        let name = action
            .as_str()
            .ok_or_else(|| Error::invalid("tool_intent action must be a string"))?
            .to_string();
        let input = m.get("payload").cloned().unwrap_or(Value::Null);
        (str_field(&m, "id")?, name, input)
    } else if let Some(tool) = m.get("tool") {
        let name = tool
            .as_str()
            .ok_or_else(|| Error::invalid("tool must be a string"))?
            .to_string();
        if m.contains_key("request_id") || m.contains_key("input") {
            // Openclawssy envelope.
            let input = m.get("input").cloned().unwrap_or(Value::Null);
            let id = str_field(&m, "request_id")?.or(str_field(&m, "id")?);
            (id, name, input)
        } else {
            // Spectator item.
            let input = m.get("args").cloned().unwrap_or(Value::Null);
            (str_field(&m, "id")?, name, input)
        }
    } else {
        return Err(Error::invalid(
            "not a tool call: expected tool (Openclawssy/000), action (the JSON I/O contracts) or function (OpenAI)",
        ));
    };
    if tool.trim().is_empty() {
        return Err(Error::invalid("tool name is empty"));
    }
    let timeout_ms = match m.get("timeout_ms") {
        None | Some(Value::Null) => d.timeout_ms,
        Some(v) => v
            .as_u64()
            .ok_or_else(|| Error::invalid("timeout_ms must be a non-negative integer"))?,
    };
    Ok(ToolRequest {
        request_id: id.filter(|s| !s.is_empty()).unwrap_or_else(auto_id),
        run_id: str_field(&m, "run_id")?.unwrap_or_else(|| d.run_id.clone()),
        agent_id: str_field(&m, "agent_id")?.unwrap_or_else(|| d.agent_id.clone()),
        tool,
        input,
        timeout_ms,
        created_at: str_field(&m, "created_at")?.unwrap_or_else(|| clock::rfc3339(d.now)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d() -> CallDefaults {
        CallDefaults {
            run_id: "run_t".into(),
            agent_id: "agent_t".into(),
            timeout_ms: 30_000,
            now: clock::parse_rfc3339("2026-02-15T00:00:00Z").unwrap(),
        }
    }

    fn tools(s: &str) -> Vec<(String, String)> {
        parse_calls(s, &d())
            .unwrap()
            .into_iter()
            .map(|r| (r.request_id, r.tool))
            .collect()
    }

    #[test]
    fn every_shape_parses() {
        let want = vec![("a".to_string(), "fs.list_dir".to_string())];
        assert_eq!(
            tools(r#"{"request_id":"a","tool":"fs.list_dir","input":{}}"#),
            want
        );
        assert_eq!(
            tools(r#"[{"id":"a","tool":"fs.list_dir","args":{}}]"#),
            want
        );
        assert_eq!(
            tools(
                "x <<<TOOL_CALLS_JSON>>>[{\"id\":\"a\",\"tool\":\"fs.list_dir\",\"args\":{}}]<<<END_TOOL_CALLS_JSON>>> y"
            ),
            want
        );
        assert_eq!(
            tools(
                r#"[{"id":"a","type":"function","function":{"name":"fs.list_dir","arguments":"{}"}}]"#
            ),
            want
        );
        assert_eq!(
            tools(
                r#"{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"fs.list_dir","arguments":"{}"}}]}"#
            ),
            want
        );
        assert_eq!(
            tools(r#"{"analysis":"..","tool_intent":{"action":"fs.list_dir","payload":{}}}"#),
            vec![("call_1".to_string(), "fs.list_dir".to_string())]
        );
        assert_eq!(
            tools("{\"id\":\"a\",\"tool\":\"fs.list_dir\",\"args\":{}}\n{\"id\":\"b\",\"tool\":\"fs.read_text\",\"args\":{}}\n").len(),
            2
        );
    }

    #[test]
    fn duplicates_and_garbage_are_invalid() {
        for bad in [
            r#"[{"id":"a","tool":"x","args":{}},{"id":"a","tool":"y","args":{}}]"#,
            "not json",
            "[1]",
            r#"{"role":"assistant","content":"hi"}"#,
            "<<<TOOL_CALLS_JSON>>>[",
        ] {
            assert!(parse_calls(bad, &d()).is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_openai_arguments_stay_a_string() {
        let r = parse_calls(
            r#"[{"id":"a","type":"function","function":{"name":"fs.read_text","arguments":"{oops"}}]"#,
            &d(),
        )
        .unwrap();
        assert_eq!(r[0].input, Value::String("{oops".into()));
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(s in "\\PC{0,200}") {
            let _ = parse_calls(&s, &d());
        }

        #[test]
        fn never_panics_on_marker_soup(a in "[\\[\\]{}\":,a-z0-9 ]{0,60}", b in "[\\[\\]{}\":,a-z0-9 ]{0,60}") {
            let _ = parse_calls(&format!("{a}{BEGIN}{b}{END}{a}"), &d());
            let _ = parse_calls(&format!("[{{\"tool\":\"x\",\"args\":{a}}}]"), &d());
        }
    }
}
