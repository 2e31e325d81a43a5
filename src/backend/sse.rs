//! Accumulates OpenAI `chat.completion.chunk` events into one reply, yielding the deltas.

use super::{Delta, Usage};
use crate::contracts::{ChatMessage, NativeToolCall, Role};
use serde_json::Value;

#[derive(Default)]
struct ToolCallAcc {
    id: String,
    name: String,
    arguments: String,
}

/// The reply built so far from stream chunks.
#[derive(Default)]
pub(crate) struct StreamAcc {
    content: String,
    tool_calls: Vec<ToolCallAcc>,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
    pub model: Option<String>,
}

impl StreamAcc {
    /// Folds one chunk in; returns the deltas it carried.
    pub fn feed(&mut self, chunk: &Value) -> Vec<Delta> {
        let mut out = Vec::new();
        if let Some(m) = chunk.get("model").and_then(Value::as_str) {
            self.model = Some(m.to_string());
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = serde_json::from_value(u.clone()).ok();
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return out;
        };
        if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(f.to_string());
        }
        let Some(delta) = choice.get("delta") else {
            return out;
        };
        if let Some(c) = delta.get("content").and_then(Value::as_str)
            && !c.is_empty()
        {
            self.content.push_str(c);
            out.push(Delta::Delta {
                content: c.to_string(),
            });
        }
        for (pos, tc) in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let index = tc
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(pos as u64);
            let i = (index as usize).min(63);
            while self.tool_calls.len() <= i {
                self.tool_calls.push(ToolCallAcc::default());
            }
            let acc = &mut self.tool_calls[i];
            let id = tc.get("id").and_then(Value::as_str).map(str::to_string);
            let f = tc.get("function");
            let name = f
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let args = f
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if let Some(id) = &id {
                acc.id = id.clone();
            }
            if let Some(n) = &name {
                acc.name.push_str(n);
            }
            acc.arguments.push_str(&args);
            out.push(Delta::ToolCallDelta {
                index,
                id,
                name,
                arguments: args,
            });
        }
        out
    }

    /// The assembled assistant message.
    pub fn message(&self) -> ChatMessage {
        let mut m = ChatMessage::new(Role::Assistant, self.content.clone());
        if !self.tool_calls.is_empty() {
            m.tool_calls = Some(NativeToolCall::list(
                self.tool_calls
                    .iter()
                    .map(|t| NativeToolCall::new(&t.id, &t.name, &t.arguments)),
            ));
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn folds_content_and_tool_calls() {
        let mut acc = StreamAcc::default();
        acc.feed(&json!({"choices":[{"delta":{"role":"assistant","content":"He"}}]}));
        acc.feed(&json!({"choices":[{"delta":{"content":"llo"}}]}));
        acc.feed(&json!({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"fs.list_dir","arguments":"{\"pa"}}]}}]}));
        acc.feed(&json!({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\".\"}"}}]},"finish_reason":"tool_calls"}]}));
        let m = acc.message();
        assert_eq!(m.content, "Hello");
        assert_eq!(
            m.tool_calls.unwrap()[0]["function"]["arguments"],
            "{\"path\":\".\"}"
        );
        assert_eq!(acc.finish_reason.as_deref(), Some("tool_calls"));
    }
}
