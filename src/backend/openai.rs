//! The OpenAI-compatible Chat Completions client (`POST {base_url}/chat/completions`).
//!
//! * The system prompt is sent as a true `system` message (the backend guarantees); messages go as given.
//! * Streaming uses SSE (`stream: true`, `stream_options.include_usage`), parsed with
//!   `eventsource-stream`; each `chat.completion.chunk` yields [`Delta`]s.
//! * Connect and read timeouts come from [`ChatConfig`]; a read timeout is a `timeout` error.
//! * 429, 5xx and connection failures are retried with exponential backoff and jitter, up to
//!   `max_retries` times, honouring `Retry-After` (seconds or an HTTP date, measured against the
//!   server's `Date` header when it sends one). A `Retry-After` longer than the retry cap ends
//!   the call at once. A 429 that outlasts the retries is `chat.rate_limited`; anything else is
//!   `upstream.error` carrying the server's message and status.
//! * A stream that fails after deltas were delivered is not retried (the caller already saw
//!   part of the answer).
//! * `BOB_LLAMA_SLOT_RESET=1` first POSTs `/slots/<BOB_LLAMA_SLOT_ID or 0>?action=erase` to a
//!   llama-server, best effort (failures are ignored).
//! * `BOB_LOG_PAYLOADS=1` logs request and response bodies to stderr as JSON lines
//!   `{"payload":"request"|"response",…}`, after redaction with [`Redactor`]; never otherwise.

use super::config::ChatConfig;
use super::retry::{backoff, parse_retry_after, retryable_status};
use super::sse::StreamAcc;
use super::{ChatReply, ChatRequest, Delta, Usage, upstream};
use crate::contracts::ChatMessage;
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::redact::Redactor;
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Largest error body read from the server.
const MAX_ERROR_BODY: usize = 64 * 1024;

pub struct Client {
    cfg: ChatConfig,
    http: reqwest::Client,
    redactor: Option<Redactor>,
}

/// One failed attempt: the error, whether to retry, and the server's requested delay.
struct Failure {
    error: Error,
    retry: bool,
    retry_after: Option<Duration>,
}

impl Failure {
    fn fatal(error: Error) -> Failure {
        Failure {
            error,
            retry: false,
            retry_after: None,
        }
    }
}

impl Client {
    pub fn new(cfg: ChatConfig, home: &Home) -> Result<Client> {
        let http = reqwest::Client::builder()
            .connect_timeout(cfg.connect_timeout)
            .read_timeout(cfg.read_timeout)
            .user_agent(concat!("bob/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::internal(format!("building the HTTP client: {e}")))?;
        let redactor = if cfg.log_payloads {
            let mut r = Redactor::load(home)?;
            if let Some(k) = &cfg.api_key {
                r.add_literal(k.clone());
            }
            Some(r)
        } else {
            None
        };
        Ok(Client {
            cfg,
            http,
            redactor,
        })
    }

    pub fn config(&self) -> &ChatConfig {
        &self.cfg
    }

    fn log_payload(&self, what: &str, mut body: Value) {
        if let Some(r) = &self.redactor {
            r.redact_value(&mut body, "body");
            /// A logged request or response body (BOB_LOG_PAYLOADS=1), redacted.
            #[derive(serde::Serialize)]
            struct Logged<'a> {
                payload: &'a str,
                url: String,
                body: Value,
            }
            let line = Logged {
                payload: what,
                url: self.cfg.endpoint(),
                body,
            };
            eprintln!("{}", serde_json::to_string(&line).unwrap_or_default());
        }
    }

    /// The JSON body sent to `/chat/completions`.
    pub fn body(&self, req: &ChatRequest, stream: bool) -> Value {
        let mut body = serde_json::Map::new();
        body.insert(
            "model".into(),
            Value::String(req.model.clone().unwrap_or_else(|| self.cfg.model.clone())),
        );
        body.insert(
            "messages".into(),
            serde_json::to_value(&req.messages).unwrap_or(Value::Null),
        );
        if let Some(t) = &req.tools {
            body.insert("tools".into(), t.clone());
        }
        for (k, v) in &req.extra {
            body.entry(k.clone()).or_insert_with(|| v.clone());
        }
        body.insert("stream".into(), Value::Bool(stream));
        if stream {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        Value::Object(body)
    }

    async fn slot_reset(&self) {
        if let Some(slot) = self.cfg.slot_reset {
            let mut rb = self.http.post(self.cfg.slot_erase_url(slot));
            if let Some(k) = &self.cfg.api_key {
                rb = rb.bearer_auth(k);
            }
            let _ = rb.send().await;
        }
    }

    /// One call with retries. Deltas go to `on_delta` when streaming.
    pub async fn chat(
        &self,
        req: &ChatRequest,
        stream: bool,
        mut on_delta: Option<&mut (dyn FnMut(&Delta) + Send)>,
        watch: Option<&super::Watch>,
    ) -> Result<ChatReply> {
        let started = Instant::now();
        let body = self.body(req, stream);
        self.log_payload("request", body.clone());
        self.slot_reset().await;
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let mut emitted = false;
            let r = self
                .attempt(&body, stream, &mut on_delta, &mut emitted, started)
                .await;
            match r {
                Ok(mut reply) => {
                    reply.attempts = attempt;
                    reply.latency_ms = started.elapsed().as_millis() as u64;
                    return Ok(reply);
                }
                Err(f) => {
                    let last = attempt > self.cfg.max_retries;
                    if !f.retry || emitted || last {
                        return Err(f.error.with("attempts", attempt));
                    }
                    let delay = match f.retry_after {
                        Some(d) if d > self.cfg.retry_cap => {
                            return Err(f
                                .error
                                .with("attempts", attempt)
                                .with("retry_after_seconds", d.as_secs_f64().ceil() as u64));
                        }
                        Some(d) => d,
                        None => backoff(self.cfg.retry_base, self.cfg.retry_cap, attempt - 1),
                    };
                    if let Some(w) = watch {
                        w.tell(&super::LiveEvent::Retry {
                            attempt,
                            delay,
                            reason: &self.retry_reason(&f.error),
                        });
                    }
                    tokio::time::sleep(delay).await;
                }
            }
        }
    }

    async fn attempt(
        &self,
        body: &Value,
        stream: bool,
        on_delta: &mut Option<&mut (dyn FnMut(&Delta) + Send)>,
        emitted: &mut bool,
        started: Instant,
    ) -> std::result::Result<ChatReply, Failure> {
        let mut rb = self.http.post(self.cfg.endpoint()).json(body);
        if let Some(k) = &self.cfg.api_key {
            rb = rb.bearer_auth(k);
        }
        if stream {
            rb = rb.header(reqwest::header::ACCEPT, "text/event-stream");
        }
        let resp = rb.send().await.map_err(|e| self.transport_failure(e))?;
        let status = resp.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(self.status_failure(resp).await);
        }
        // A server that does not stream answers a streamed request with one JSON body.
        let json_body = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if stream && !json_body {
            self.read_stream(resp, on_delta, emitted, started).await
        } else {
            let bytes = resp.bytes().await.map_err(|e| self.transport_failure(e))?;
            let v: Value = serde_json::from_slice(&bytes).map_err(|e| {
                Failure::fatal(upstream(
                    format!("malformed JSON from upstream: {e}"),
                    Some(status),
                ))
            })?;
            self.log_payload("response", v.clone());
            parse_completion(&v, &self.cfg.model).map_err(Failure::fatal)
        }
    }

    /// What failed, in a few words: `429 from HOST`, `connection error to HOST`.
    fn retry_reason(&self, error: &Error) -> String {
        let url = self.cfg.endpoint();
        let host = reqwest::Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or(url);
        match error.details.get("status").and_then(Value::as_u64) {
            Some(status) => format!("{status} from {host}"),
            None if error.code == Code::Timeout => format!("timeout connecting to {host}"),
            None => format!("connection error to {host}"),
        }
    }

    fn transport_failure(&self, e: reqwest::Error) -> Failure {
        let url = self.cfg.endpoint();
        if e.is_timeout() {
            let phase = if e.is_connect() { "connect" } else { "read" };
            let limit = if e.is_connect() {
                self.cfg.connect_timeout
            } else {
                self.cfg.read_timeout
            };
            return Failure {
                error: Error::new(
                    Code::Timeout,
                    format!(
                        "upstream {phase} timed out after {:.1}s ({url})",
                        limit.as_secs_f64()
                    ),
                )
                .with("upstream", url)
                .with("phase", phase),
                retry: e.is_connect(),
                retry_after: None,
            };
        }
        let connect = e.is_connect() || e.is_request();
        let mut msg = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            msg.push_str(&format!(": {s}"));
            src = s.source();
        }
        Failure {
            error: upstream(format!("cannot reach {url}: {msg}"), None).with("upstream", url),
            retry: connect,
            retry_after: None,
        }
    }

    async fn status_failure(&self, resp: reqwest::Response) -> Failure {
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let mut body = Vec::new();
        let mut s = resp.bytes_stream();
        while let Some(Ok(chunk)) = s.next().await {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_ERROR_BODY {
                body.truncate(MAX_ERROR_BODY);
                break;
            }
        }
        let server_message = error_message(&body);
        let reference = headers
            .get(reqwest::header::DATE)
            .and_then(|v| v.to_str().ok())
            .and_then(|d| chrono::DateTime::parse_from_rfc2822(d).ok())
            .map(|d| d.with_timezone(&chrono::Utc))
            .or_else(|| crate::clock::now().ok())
            .unwrap_or_default();
        let retry_after = headers
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, reference));
        let code = if status == 429 {
            Code::ChatRateLimited
        } else {
            Code::UpstreamError
        };
        let mut error = Error::new(
            code,
            format!("upstream returned HTTP {status}: {server_message}"),
        )
        .with("status", status)
        .with("upstream_message", server_message);
        if let Some(d) = retry_after {
            error = error.with("retry_after_seconds", d.as_secs_f64());
        }
        // A refused credential does not get better by asking again; say when none was sent.
        if status == 401 || status == 403 {
            error = error.retryable(false);
            if self.cfg.api_key.is_none() {
                error.message.push_str(
                    " (no API key was sent: set BOB_CHAT_API_KEY, or name the variable with --api-key-env)",
                );
                error = error.with("api_key_sent", false);
            }
        }
        Failure {
            error,
            retry: retryable_status(status),
            retry_after,
        }
    }

    async fn read_stream(
        &self,
        resp: reqwest::Response,
        on_delta: &mut Option<&mut (dyn FnMut(&Delta) + Send)>,
        emitted: &mut bool,
        started: Instant,
    ) -> std::result::Result<ChatReply, Failure> {
        use eventsource_stream::Eventsource;
        let mut events = resp.bytes_stream().eventsource();
        let mut acc = StreamAcc::default();
        let mut first_delta_ms = None;
        let mut done = false;
        while let Some(ev) = events.next().await {
            let ev = match ev {
                Ok(ev) => ev,
                Err(eventsource_stream::EventStreamError::Transport(e)) => {
                    return Err(self.transport_failure(e));
                }
                Err(e) => {
                    return Err(Failure::fatal(upstream(
                        format!("malformed event stream from upstream: {e}"),
                        None,
                    )));
                }
            };
            let data = ev.data.trim();
            if data == "[DONE]" {
                done = true;
                break;
            }
            if data.is_empty() {
                continue;
            }
            let chunk: Value = serde_json::from_str(data).map_err(|e| {
                Failure::fatal(upstream(
                    format!("malformed JSON in event stream from upstream: {e}"),
                    None,
                ))
            })?;
            if let Some(err) = chunk.get("error") {
                return Err(Failure::fatal(upstream(
                    format!("upstream error in stream: {}", error_text(err)),
                    None,
                )));
            }
            self.log_payload("response_chunk", chunk.clone());
            for d in acc.feed(&chunk) {
                if first_delta_ms.is_none() {
                    first_delta_ms = Some(started.elapsed().as_millis() as u64);
                }
                *emitted = true;
                if let Some(f) = on_delta.as_mut() {
                    f(&d);
                }
            }
        }
        if !done && acc.finish_reason.is_none() {
            return Err(Failure {
                error: upstream("upstream closed the event stream early", None),
                retry: !*emitted,
                retry_after: None,
            });
        }
        Ok(ChatReply {
            message: acc.message(),
            usage: acc.usage,
            cost: None,
            latency_ms: 0,
            model: acc.model.clone().unwrap_or_else(|| self.cfg.model.clone()),
            finish_reason: acc.finish_reason.clone(),
            attempts: 0,
            first_delta_ms,
        })
    }
}

fn error_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(m) => m
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| v.to_string()),
        other => other.to_string(),
    }
}

/// The server's error message: `error.message`, `error`, `message`, or the body text.
fn error_message(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        if let Some(e) = v.get("error") {
            return error_text(e);
        }
        if let Some(m) = v.get("message").and_then(Value::as_str) {
            return m.to_string();
        }
    }
    let text = String::from_utf8_lossy(body);
    let t: String = text.trim().chars().take(500).collect();
    if t.is_empty() {
        "(empty body)".into()
    } else {
        t
    }
}

/// Reads a non-streamed `chat.completion` object.
pub fn parse_completion(v: &Value, default_model: &str) -> Result<ChatReply> {
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| upstream("upstream reply has no choices[0]", None))?;
    let msg = choice
        .get("message")
        .ok_or_else(|| upstream("upstream reply has no choices[0].message", None))?;
    let mut message: ChatMessage = serde_json::from_value(msg.clone())
        .map_err(|e| upstream(format!("upstream message has the wrong shape: {e}"), None))?;
    if matches!(&message.tool_calls, Some(Value::Null)) {
        message.tool_calls = None;
    }
    let usage: Option<Usage> = v
        .get("usage")
        .filter(|u| u.is_object())
        .and_then(|u| serde_json::from_value(u.clone()).ok());
    Ok(ChatReply {
        message,
        usage,
        cost: None,
        latency_ms: 0,
        model: v
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(default_model)
            .to_string(),
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        attempts: 0,
        first_delta_ms: None,
    })
}
