//! Chat messages: the history a turn keeps and the messages a backend gets.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The role of a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// Spectator chat message, with the optional OpenAI fields bob passes through.
///
/// ```json
/// {"role":"user","content":"hello"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChatMessage {
    pub role: Role,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// OpenAI `tool_calls` on an assistant message, kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Value>,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: content.into(),
            name: None,
            tool_call_id: None,
            tool_calls: None,
        }
    }

    /// The native `tool_calls` entries (none when the field is absent or not an array).
    pub fn tool_call_list(&self) -> &[Value] {
        self.tool_calls
            .as_ref()
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// One OpenAI `tool_calls` item as bob writes it on an assistant message (from a streamed
/// reply, a replay script's Spectator item, or the calls a turn runs):
///
/// ```json
/// {"id":"c1","type":"function","function":{"name":"fs.list_dir","arguments":"{\"path\":\".\"}"}}
/// ```
///
/// Read leniently elsewhere (a server's items are kept verbatim in [`ChatMessage::tool_calls`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NativeToolCall {
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    pub function: FunctionCall,
}

/// The called function of a [`NativeToolCall`]: its name and its arguments as JSON text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

impl NativeToolCall {
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> NativeToolCall {
        NativeToolCall {
            id: id.into(),
            kind: "function".into(),
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.into(),
            },
        }
    }

    /// The `tool_calls` value of an assistant message holding `calls`.
    pub fn list(calls: impl IntoIterator<Item = NativeToolCall>) -> Value {
        Value::Array(
            calls
                .into_iter()
                .map(|c| serde_json::to_value(c).unwrap_or_default())
                .collect(),
        )
    }
}

/// One OpenAI `tools` definition offered to the model (native tool calling):
/// `{"type":"function","function":{"name","description","parameters"}}`, the parameters being
/// the tool's input JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NativeTool {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    pub function: FunctionDef,
}

/// The function a [`NativeTool`] offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FunctionDef {
    pub name: String,
    pub description: String,
    /// The tool's input JSON Schema (data, not a fixed shape).
    pub parameters: Value,
}

impl NativeTool {
    pub fn function(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
    ) -> NativeTool {
        NativeTool {
            kind: "function".into(),
            function: FunctionDef {
                name: name.into(),
                description: description.into(),
                parameters,
            },
        }
    }
}
