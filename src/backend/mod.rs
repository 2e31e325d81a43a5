//! Chat backends: one call to an LLM, messages in, one reply out (the backend contract, the backend guarantees).
//!
//! * [`openai`]: an OpenAI-compatible Chat Completions client over HTTP (reqwest), streamed
//!   (SSE) or not, with connect/read timeouts and retries (see [`retry`]), configured as seed
//!   001 describes (see [`config`]).
//! * [`replay`]: scripted replies read from a JSON Lines file, so pipelines, tests and demos run
//!   offline and deterministically.
//!
//! * [`adversarial`]: a model that does the worst it can on every call (`bob eval`'s proof that
//!   bob's code, not the model, holds the line).
//!
//! A backend is chosen by a spec: `openai`, `replay:FILE`, `adversarial` or
//! `adversarial:GOALS.json`, from `--backend`, else
//! `BOB_BACKEND`, else `backend` in the `[chat]` table of `config.toml`, else `openai` when any
//! chat setting is configured. With nothing configured [`Backend::resolve`] refuses with an
//! `invalid.request` that says how to configure one.
//!
//! The calls are `async`; the CLI builds a tokio runtime ([`runtime`]) only for the commands
//! that talk to a backend. [`Cancel`] lets Ctrl-C abort a call in flight (`run.cancelled`).

pub mod adversarial;
pub mod config;
pub mod openai;
pub mod replay;
pub mod retry;
mod sse;

use crate::contracts::ChatMessage;
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::settings::Settings;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use crate::contracts::Usage;
pub use config::{ChatConfig, Overrides, Route};

/// One request to a backend: the messages, optional OpenAI `tools`, and any other Chat
/// Completions parameters (`temperature`, `max_tokens`, `tool_choice`, …) passed through.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ChatRequest {
    pub fn new(messages: Vec<ChatMessage>) -> ChatRequest {
        ChatRequest {
            messages,
            ..ChatRequest::default()
        }
    }

    /// Reads a request as a person or a program gives it: text that is JSON is the request
    /// ([`ChatRequest::from_json`]); any other text is one user message (trailing newlines
    /// trimmed), so `echo hi | bob chat` asks "hi". Empty text is `invalid.request`.
    pub fn from_text(text: &str) -> Result<ChatRequest> {
        let t = text.trim();
        if t.is_empty() {
            return Err(Error::invalid(
                "chat request: no input (expected a message, messages JSON or plain text)",
            ));
        }
        // Text that opens like JSON must be JSON, so a broken request is never sent as a prompt.
        if t.starts_with('[') || t.starts_with('{') {
            let v: Value =
                serde_json::from_str(t).map_err(|e| Error::bad_json("chat request", &e))?;
            return ChatRequest::from_json(v);
        }
        match serde_json::from_str::<Value>(t) {
            Ok(v) => ChatRequest::from_json(v),
            Err(_) => Ok(ChatRequest::new(vec![ChatMessage::new(
                crate::contracts::Role::User,
                text.trim_end_matches(['\n', '\r']),
            )])),
        }
    }

    /// Accepts an array of ChatMessages or an object `{messages, tools?, model?, …}`.
    pub fn from_json(v: Value) -> Result<ChatRequest> {
        let mut req: ChatRequest = match v {
            Value::Array(_) => ChatRequest::new(
                serde_json::from_value(v).map_err(|e| Error::bad_json("messages", &e))?,
            ),
            Value::Object(_) => {
                serde_json::from_value(v).map_err(|e| Error::bad_json("chat request", &e))?
            }
            _ => {
                return Err(Error::invalid(
                    "chat input must be an array of messages or an object {messages, tools?, …}",
                ));
            }
        };
        // bob decides streaming itself.
        req.extra.remove("stream");
        req.extra.remove("stream_options");
        if req.messages.is_empty() {
            return Err(Error::invalid("chat request has no messages"));
        }
        Ok(req)
    }
}

/// The reply of one call, as `bob chat` prints it.
///
/// ```json
/// {"message":{"role":"assistant","content":"hi"},"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10},
///  "cost":0.0000019,"latency_ms":412,"model":"gpt-4o-mini","finish_reason":"stop","attempts":1}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatReply {
    pub message: ChatMessage,
    /// Token usage as the server reported it; `null` when the reply had none (unknown, not 0).
    #[serde(default)]
    pub usage: Option<Usage>,
    /// What the call cost by the `[prices]` table ([`crate::cost`]); `null` when the usage is
    /// unknown or the model is not priced. Set by the caller that knows the table.
    #[serde(default)]
    pub cost: Option<f64>,
    pub latency_ms: u64,
    pub model: String,
    pub finish_reason: Option<String>,
    /// HTTP attempts made (1 + retries).
    #[serde(default)]
    pub attempts: u32,
    /// Time to the first streamed delta, when streaming.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_delta_ms: Option<u64>,
}

/// One piece of a streamed reply (`bob chat --stream` prints each as a JSON line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Delta {
    /// `{"event":"delta","content":"Hel"}`
    Delta { content: String },
    /// `{"event":"tool_call_delta","index":0,"id":"call_1","name":"fs.list_dir","arguments":"{\"pa"}`
    ToolCallDelta {
        index: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default)]
        arguments: String,
    },
}

/// Per-call options.
#[derive(Clone, Default)]
pub struct CallOpts {
    /// The pipeline role making the call (replay scripts match on it).
    pub role: Option<String>,
    /// Stream the reply (SSE).
    pub stream: bool,
    pub cancel: Cancel,
    /// Told what the call is doing while it waits (a retry and its delay), for a live view.
    pub watch: Option<Watch>,
}

/// Something a call (or a turn) reports while it works, for whoever shows it live; the
/// backend itself never prints.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveEvent<'a> {
    /// The attempt failed and the call tries again after `delay`; `reason` says what failed,
    /// e.g. `429 from api.example.com`.
    Retry {
        attempt: u32,
        delay: std::time::Duration,
        reason: &'a str,
    },
    /// A turn's role call starts; `answers`: it is the role whose text is the answer.
    Call { role: &'a str, answers: bool },
    /// Text of the answering role's reply, as it arrives (raw: not yet sanitized).
    Text(&'a str),
}

/// A receiver of [`LiveEvent`]s, shared by everything one command runs.
#[derive(Clone)]
pub struct Watch(Arc<dyn Fn(&LiveEvent) + Send + Sync>);

impl Watch {
    pub fn new(f: impl Fn(&LiveEvent) + Send + Sync + 'static) -> Watch {
        Watch(Arc::new(f))
    }

    /// Reports `event`.
    pub fn tell(&self, event: &LiveEvent) {
        (self.0)(event)
    }
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

/// A cancellation signal shared by everything in one command (Ctrl-C sets it).
#[derive(Clone)]
pub struct Cancel {
    tx: Arc<tokio::sync::watch::Sender<bool>>,
    /// Also cancelled by SIGINT (see [`Cancel::on_ctrl_c`]).
    ctrl_c: bool,
}

impl Default for Cancel {
    fn default() -> Self {
        Cancel {
            tx: Arc::new(tokio::sync::watch::Sender::new(false)),
            ctrl_c: false,
        }
    }
}

/// Raised by SIGINT once [`Cancel::on_ctrl_c`] was first called (the handler is installed once).
static SIGINT: std::sync::LazyLock<Arc<AtomicBool>> =
    std::sync::LazyLock::new(|| crate::signals::flag(&[libc::SIGINT]));

/// How often a call in flight looks at the SIGINT flag.
const SIGINT_POLL: std::time::Duration = std::time::Duration::from_millis(10);

impl Cancel {
    /// A signal that Ctrl-C (SIGINT) sets. The handler only raises a flag, so it needs no
    /// thread listening: [`Cancel::check`] (before each tool call, say) sees it at once, and a
    /// call in flight within 10 ms.
    pub fn on_ctrl_c() -> Cancel {
        std::sync::LazyLock::force(&SIGINT);
        Cancel {
            ctrl_c: true,
            ..Cancel::default()
        }
    }
    pub fn cancel(&self) {
        self.tx.send_replace(true);
    }
    pub fn is_cancelled(&self) -> bool {
        *self.tx.borrow() || (self.ctrl_c && SIGINT.load(Ordering::SeqCst))
    }
    /// Resolves once cancelled.
    pub async fn cancelled(&self) {
        let mut rx = self.tx.subscribe();
        if !self.ctrl_c {
            let _ = rx.wait_for(|v| *v).await;
            return;
        }
        let sigint = async {
            while !SIGINT.load(Ordering::SeqCst) {
                tokio::time::sleep(SIGINT_POLL).await;
            }
        };
        tokio::select! {
            _ = rx.wait_for(|v| *v) => {}
            _ = sigint => {}
        }
    }
    /// `run.cancelled` if cancelled.
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(cancelled_error())
        } else {
            Ok(())
        }
    }
}

/// The error of a call cut short by Ctrl-C.
pub fn cancelled_error() -> Error {
    Error::new(Code::Cancelled, "cancelled by the user (SIGINT)").retryable(false)
}

/// The tokio runtime the backend calls run on; built only by commands that need it. One
/// thread: every call is driven by `block_on` on the caller's thread, so no worker thread is
/// started and no wake-up crosses threads.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::internal(format!("starting the async runtime: {e}")))
}

/// A configured backend.
pub enum Backend {
    OpenAi(openai::Client),
    Replay(replay::Replay),
    Adversarial(adversarial::Adversary),
}

/// What a backend is as traces and the admin status show it: its `kind` first, then where it
/// answers from; never a key.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Described<'a> {
    #[serde(rename = "openai")]
    OpenAi {
        base_url: &'a str,
        model: &'a str,
    },
    Replay {
        file: String,
    },
    Adversarial {
        goals: Option<String>,
    },
}

/// The message `bob turn`/`bob chat` give when no backend is configured.
pub const NOT_CONFIGURED: &str = "no chat backend is configured: set BOB_CHAT_BASE_URL (an \
OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1), BOB_CHAT_API_KEY and BOB_CHAT_MODEL \
(or OPENAI_BASE_URL/OPENAI_API_KEY, or a [chat] table in <home>/config.toml), or run offline \
with --backend replay:FILE (or BOB_BACKEND=replay:FILE)";

impl Backend {
    /// Picks and builds the backend from `spec` (the `--backend` flag), the `chat.backend`
    /// setting (`BOB_BACKEND`, `config.toml`) and the chat settings.
    pub fn resolve(
        home: &Home,
        settings: &Settings,
        spec: Option<&str>,
        route: Route,
        flags: &Overrides,
    ) -> Result<Backend> {
        let spec = spec
            .map(str::to_string)
            .or_else(|| {
                settings.is_set("chat.backend").then(|| {
                    settings
                        .text("chat.backend")
                        .unwrap_or_default()
                        .to_string()
                })
            })
            .unwrap_or_default();
        let spec = spec.trim();
        if let Some(path) = spec.strip_prefix("replay:") {
            if path.is_empty() {
                return Err(Error::invalid("--backend replay:FILE needs a file name"));
            }
            return Ok(Backend::Replay(replay::Replay::open(PathBuf::from(path))?));
        }
        if spec == "adversarial" {
            return Ok(Backend::Adversarial(adversarial::Adversary::new(
                adversarial::Goals::default(),
            )));
        }
        if let Some(path) = spec.strip_prefix("adversarial:") {
            return Ok(Backend::Adversarial(adversarial::Adversary::open(
                std::path::Path::new(path),
            )?));
        }
        match spec {
            "" | "openai" => {
                let mut cfg = ChatConfig::resolve(settings, route, flags)?;
                // `api_key = "secret:NAME"` (or a variable holding it) names a stored secret.
                if let Some(k) = &cfg.api_key
                    && k.starts_with(crate::secrets::REF_PREFIX)
                {
                    cfg.api_key_source = Some(k.clone());
                    // Bound to the origin it was set (or first used) for.
                    let setting = if route == Route::Mtg && config::route_mtg_remote(settings)? {
                        "mtg.base_url"
                    } else {
                        "chat.base_url"
                    };
                    cfg.api_key =
                        Some(crate::secrets::resolve_ref(home, k, &cfg.base_url, setting)?.0);
                }
                if spec.is_empty() && !cfg.explicit {
                    return Err(Error::invalid(format!(
                        "{NOT_CONFIGURED} (read: {})",
                        settings.read_from()
                    ))
                    .with("home", home.root().display().to_string())
                    .with(
                        "config_file",
                        settings.home().config_path().display().to_string(),
                    )
                    .with(
                        "user_config_file",
                        settings.user_config_path().map(|p| p.display().to_string()),
                    )
                    .with(
                        "configure_with",
                        vec![
                            "BOB_CHAT_BASE_URL",
                            "BOB_CHAT_API_KEY",
                            "BOB_CHAT_MODEL",
                            "--backend replay:FILE",
                        ],
                    ));
                }
                Ok(Backend::OpenAi(openai::Client::new(cfg, home)?))
            }
            other => Err(Error::invalid(format!(
                "unknown backend {other:?}: use openai, replay:FILE or adversarial"
            ))),
        }
    }

    /// What this backend is, for traces (`{"kind":"openai","base_url","model"}`), never a key.
    pub fn describe(&self) -> Value {
        let d = match self {
            Backend::OpenAi(c) => Described::OpenAi {
                base_url: &c.config().base_url,
                model: &c.config().model,
            },
            Backend::Replay(r) => Described::Replay {
                file: r.path().display().to_string(),
            },
            Backend::Adversarial(a) => Described::Adversarial {
                goals: a.source().map(|p| p.display().to_string()),
            },
        };
        serde_json::to_value(d).unwrap_or_default()
    }

    /// Whether a call can stream its reply as it arrives (an HTTP backend; a terminal view
    /// streams by default when it can).
    pub fn streams(&self) -> bool {
        matches!(self, Backend::OpenAi(_))
    }

    /// The model name this backend reports.
    pub fn model(&self) -> String {
        match self {
            Backend::OpenAi(c) => c.config().model.clone(),
            Backend::Replay(_) => "replay".into(),
            Backend::Adversarial(_) => "adversarial".into(),
        }
    }

    /// One call. Streamed deltas go to `on_delta` as they arrive. Ctrl-C (via `opts.cancel`)
    /// aborts with `run.cancelled`.
    pub async fn chat(
        &self,
        req: &ChatRequest,
        opts: &CallOpts,
        on_delta: Option<&mut (dyn FnMut(&Delta) + Send)>,
    ) -> Result<ChatReply> {
        opts.cancel.check()?;
        let call = async {
            match self {
                Backend::OpenAi(c) => {
                    c.chat(req, opts.stream, on_delta, opts.watch.as_ref())
                        .await
                }
                Backend::Replay(r) => r.chat(req, opts.role.as_deref(), opts.stream, on_delta),
                Backend::Adversarial(a) => a.chat(req, opts.role.as_deref()),
            }
        };
        tokio::select! {
            r = call => r,
            _ = opts.cancel.cancelled() => Err(cancelled_error()),
        }
    }
}

/// An `upstream.error`, with the HTTP status when there was one.
pub(crate) fn upstream(message: impl Into<String>, status: Option<u16>) -> Error {
    let e = Error::new(Code::UpstreamError, message);
    match status {
        Some(s) => e.with("status", s),
        None => e,
    }
}
