//! The `replay` backend: scripted replies from a JSON Lines file, for offline, deterministic
//! demos, CI scripts and tests (`--backend replay:FILE`, or `BOB_BACKEND=replay:FILE`).
//!
//! # Script format
//!
//! One JSON object per line; blank lines and lines starting with `#` are skipped.
//!
//! ```text
//! # the think role's reply
//! {"role":"think","content":"The user wants the file list. <<<NOTES_JSON>>>{\"add_open_loops\":[\"list files\"]}<<<END_NOTES_JSON>>>"}
//! # the respond role first asks for a tool (native OpenAI tool_calls) ...
//! {"role":"respond","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"fs.list_dir","arguments":"{\"path\":\".\"}"}}]}
//! # ... then answers once it has seen a tool result containing "notes.txt"
//! {"role":"respond","match":"notes.txt","content":"There is one file: notes.txt."}
//! # no role: used by any call, in order
//! {"content":"Hello!","usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}
//! # a scripted failure: a 429 becomes chat.rate_limited, any other status upstream.error
//! {"error":{"status":500,"message":"model overloaded"}}
//! ```
//!
//! Fields: `role` (optional: the pipeline role that may use the line, e.g. `think`, `respond`,
//! `reflection`, `planner`, `critic`, `governor`, `solo`), `match` (optional: the line is used
//! only when a non-system message of the request contains this text), `content`, `tool_calls`
//! (OpenAI `{id,type:"function",function:{name,arguments}}` items, or Spectator `{id,tool,args}`
//! items which are converted), `finish_reason`, `usage`, `model`, `error`.
//!
//! Choosing a line for a call made by role R: the first unused line whose `role` is R and whose
//! `match` matches the request, else the first unused line whose `role` is R and that has no
//! `match`; failing both, the same two steps among the lines without a `role`. (So a
//! `match` line answers a later round once the tool result it waits for is in the request,
//! even in a separate `bob chat` process.) Each line is used at
//! most once per process. No usable line left is an `upstream.error` ("replay script
//! exhausted"). Streaming replays the content in small deltas.

use super::{ChatReply, ChatRequest, Delta, Usage, upstream};
use crate::contracts::{ChatMessage, NativeToolCall, Role};
use crate::error::{Code, Error, Result};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptError {
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(default)]
    role: Option<String>,
    #[serde(default, rename = "match")]
    matches: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    error: Option<ScriptError>,
}

pub struct Replay {
    path: PathBuf,
    lines: Vec<Line>,
    used: Mutex<Vec<bool>>,
}

/// Converts a Spectator `{id, tool, args}` item to the OpenAI form; OpenAI items pass through.
fn openai_tool_call(v: &Value, n: usize) -> Value {
    if let Some(tool) = v.get("tool").and_then(Value::as_str) {
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or(format!("call_{n}"));
        let args = v
            .get("args")
            .map_or_else(|| "{}".to_string(), Value::to_string);
        serde_json::to_value(NativeToolCall::new(id, tool, args)).unwrap_or_default()
    } else {
        v.clone()
    }
}

impl Replay {
    /// Reads and checks the whole script.
    pub fn open(path: PathBuf) -> Result<Replay> {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let t = raw.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let line: Line = serde_json::from_str(t).map_err(|e| {
                Error::invalid(format!(
                    "replay script {} line {}: {e}",
                    path.display(),
                    i + 1
                ))
                .with("path", path.display().to_string())
                .with("line", i + 1)
            })?;
            lines.push(line);
        }
        let used = Mutex::new(vec![false; lines.len()]);
        Ok(Replay { path, lines, used })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn pick(&self, req: &ChatRequest, role: Option<&str>) -> Result<Line> {
        let mut used = self
            .used
            .lock()
            .map_err(|_| Error::internal("replay state poisoned"))?;
        let matches = |l: &Line| match &l.matches {
            None => true,
            Some(m) => req
                .messages
                .iter()
                .any(|msg| msg.role != Role::System && msg.content.contains(m.as_str())),
        };
        // Among usable lines, one whose `match` matched beats one without a `match`.
        let first = |want_role: bool, with_match: bool| {
            self.lines.iter().enumerate().position(|(i, l)| {
                !used[i]
                    && l.matches.is_some() == with_match
                    && matches(l)
                    && if want_role {
                        role.is_some() && l.role.as_deref() == role
                    } else {
                        l.role.is_none()
                    }
            })
        };
        let by_role = first(true, true).or_else(|| first(true, false));
        let any = || first(false, true).or_else(|| first(false, false));
        match by_role.or_else(any) {
            Some(i) => {
                used[i] = true;
                Ok(self.lines[i].clone())
            }
            None => Err(upstream(
                format!(
                    "replay script exhausted: no unused line in {} for role {}",
                    self.path.display(),
                    role.unwrap_or("(none)")
                ),
                None,
            )
            .with("role", role.unwrap_or_default().to_string())
            .retryable(false)),
        }
    }

    /// Answers one call from the script.
    pub fn chat(
        &self,
        req: &ChatRequest,
        role: Option<&str>,
        stream: bool,
        mut on_delta: Option<&mut (dyn FnMut(&Delta) + Send)>,
    ) -> Result<ChatReply> {
        let line = self.pick(req, role)?;
        if let Some(e) = &line.error {
            let status = e.status.unwrap_or(500);
            let code = match e.code.as_deref() {
                Some("timeout") => Code::Timeout,
                _ if status == 429 => Code::ChatRateLimited,
                _ => Code::UpstreamError,
            };
            return Err(Error::new(
                code,
                format!("upstream returned HTTP {status}: {}", e.message),
            )
            .with("status", status)
            .with("upstream_message", e.message.clone())
            .with("attempts", 1));
        }
        let content = line.content.clone().unwrap_or_default();
        let mut message = ChatMessage::new(Role::Assistant, content.clone());
        if let Some(tc) = &line.tool_calls {
            message.tool_calls = Some(Value::Array(
                tc.iter()
                    .enumerate()
                    .map(|(n, v)| openai_tool_call(v, n))
                    .collect(),
            ));
        }
        let mut first_delta_ms = None;
        if stream {
            if let Some(f) = on_delta.as_mut() {
                let chars: Vec<char> = content.chars().collect();
                for piece in chars.chunks(16) {
                    f(&Delta::Delta {
                        content: piece.iter().collect(),
                    });
                }
                for (i, tc) in message.tool_call_list().iter().enumerate() {
                    f(&Delta::ToolCallDelta {
                        index: i as u64,
                        id: tc.get("id").and_then(Value::as_str).map(str::to_string),
                        name: tc
                            .pointer("/function/name")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        arguments: tc
                            .pointer("/function/arguments")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    });
                }
            }
            first_delta_ms = Some(0);
        }
        let has_tools = message.tool_calls.is_some();
        Ok(ChatReply {
            message,
            usage: line.usage,
            cost: None,
            latency_ms: 0,
            model: line.model.unwrap_or_else(|| "replay".into()),
            finish_reason: Some(
                line.finish_reason
                    .unwrap_or_else(|| if has_tools { "tool_calls" } else { "stop" }.to_string()),
            ),
            attempts: 1,
            first_delta_ms,
        })
    }
}
