//! An OpenAI-compatible Chat Completions server for tests, on the scripted [`TestServer`]:
//! real HTTP on 127.0.0.1, real SSE chunking. Helpers build `chat.completion` bodies, SSE
//! chunk streams and tool calls; [`OpenAi`] records when each request arrived so tests can check
//! delays (Retry-After) from the server's side.

use super::http::{Reply, Request, TestServer};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A `chat.completion` body with `content`.
pub fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-test", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    })
}

/// A `chat.completion` body asking for native tool calls `(id, name, arguments-as-text)`.
pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
        })
        .collect();
    json!({
        "id": "chatcmpl-test", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls},
                     "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    })
}

/// SSE `data:` payloads streaming `pieces`, then a usage chunk and `[DONE]`.
pub fn sse_events(pieces: &[&str]) -> Vec<String> {
    let mut ev = vec![
        json!({"object":"chat.completion.chunk","model":"test-model",
               "choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})
        .to_string(),
    ];
    for p in pieces {
        ev.push(
            json!({"object":"chat.completion.chunk","model":"test-model",
                   "choices":[{"index":0,"delta":{"content":p}}]})
            .to_string(),
        );
    }
    ev.push(
        json!({"object":"chat.completion.chunk","model":"test-model",
               "choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})
        .to_string(),
    );
    ev.push(
        json!({"object":"chat.completion.chunk","model":"test-model","choices":[],
               "usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}})
        .to_string(),
    );
    ev.push("[DONE]".to_string());
    ev
}

/// The pipeline role named in a request's system message (`ROLE: think`), if any.
pub fn role_of(req: &Request) -> String {
    let v = req.json();
    let sys = v["messages"][0]["content"].as_str().unwrap_or("");
    sys.lines()
        .find_map(|l| l.strip_prefix("ROLE: "))
        .unwrap_or("")
        .trim()
        .to_string()
}

/// All message contents of a request, joined.
pub fn all_text(req: &Request) -> String {
    req.json()["messages"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| m["content"].as_str().unwrap_or("").to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// OpenAI's check on function names (`^[a-zA-Z0-9_-]{1,64}$`), in `tools` and in the
/// `tool_calls` of the messages: an HTTP 400 `invalid_request_error` naming the parameter, as
/// OpenAI answers, so every test fails if bob ever sends a name OpenAI refuses.
fn invalid_function_name(req: &Request) -> Option<Reply> {
    let body = req.json();
    let valid = |n: &str| {
        (1..=64).contains(&n.len())
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    let mut names: Vec<(String, Value)> = Vec::new();
    for (i, t) in body["tools"].as_array().into_iter().flatten().enumerate() {
        names.push((
            format!("tools[{i}].function.name"),
            t["function"]["name"].clone(),
        ));
    }
    for (i, m) in body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (j, c) in m["tool_calls"].as_array().into_iter().flatten().enumerate() {
            names.push((
                format!("messages[{i}].tool_calls[{j}].function.name"),
                c["function"]["name"].clone(),
            ));
        }
    }
    let (param, _) = names
        .into_iter()
        .find(|(_, n)| !n.as_str().is_some_and(valid))?;
    Some(Reply::json(
        400,
        &json!({"error": {
            "message": format!("Invalid '{param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."),
            "type": "invalid_request_error", "param": param, "code": "invalid_value"}}),
    ))
}

/// A running OpenAI-compatible server.
pub struct OpenAi {
    pub server: TestServer,
    arrivals: Arc<Mutex<Vec<Instant>>>,
}

impl OpenAi {
    /// Answers with `handler(request, n)`; records each arrival time.
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> OpenAi {
        let arrivals = Arc::new(Mutex::new(Vec::new()));
        let a2 = arrivals.clone();
        let server = TestServer::start(move |req, n| {
            a2.lock().unwrap().push(Instant::now());
            if let Some(refusal) = invalid_function_name(req) {
                return refusal;
            }
            handler(req, n)
        });
        OpenAi { server, arrivals }
    }

    /// Answers the n-th request with `replies[n]` (the last one repeats).
    pub fn script(replies: Vec<Reply>) -> OpenAi {
        OpenAi::start(move |_, n| replies[n.min(replies.len() - 1)].clone())
    }

    /// Always answers `content`.
    pub fn always(content: &str) -> OpenAi {
        let body = completion(content);
        OpenAi::start(move |_, _| Reply::json(200, &body))
    }

    /// The base URL to give bob (`…/v1`).
    pub fn base_url(&self) -> String {
        self.server.url("/v1")
    }

    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    /// Time between the arrival of request `a` and request `b`.
    pub fn gap(&self, a: usize, b: usize) -> Duration {
        let t = self.arrivals.lock().unwrap();
        t[b].duration_since(t[a])
    }
}

/// The `/v1/embeddings` answer of a test server: for each input, a vector of `dim` counts of
/// the input's lower-cased words hashed into `dim` buckets (so texts sharing words point the
/// same way), in the OpenAI response shape. `None` when `req` is not an embeddings request.
pub fn embeddings(req: &Request, dim: usize) -> Option<Reply> {
    if !req.path.ends_with("/embeddings") {
        return None;
    }
    let body = req.json();
    let inputs: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => {
            return Some(Reply::json(
                400,
                &json!({"error": {"message": "input missing"}}),
            ));
        }
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mut v = vec![0f64; dim];
            for w in text
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
            {
                let h = w
                    .bytes()
                    .fold(5381u64, |h, b| h.wrapping_mul(33) ^ u64::from(b));
                v[(h % dim as u64) as usize] += 1.0;
            }
            json!({"object": "embedding", "index": i, "embedding": v})
        })
        .collect();
    Some(Reply::json(
        200,
        &json!({"object": "list", "data": data, "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1}}),
    ))
}
