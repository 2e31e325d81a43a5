//! `bob chat`: one call to the chat backend. Messages JSON in, the reply out.
//!
//! A raw model call, not a turn: it builds no run request (`TurnRequest`) and runs no role,
//! tool, NOTES patch, memory or turn record; it is the model stage of the stage-by-stage
//! pipeline (`bob context | bob chat | bob turn commit`) and a way to talk to the model
//! directly. Every turn (`bob turn`, a served run or chat message, a scheduled job, an eval
//! case) is built by `TurnRequest::new`; `bob chat -s` only reads and appends the session's
//! conversation.

use super::Ctx;
use super::live::{Footer, Live};
use super::output::read_input;
use crate::backend::{Backend, CallOpts, Cancel, ChatRequest, Delta, Overrides, Route, Watch};
use crate::contracts::{ChatMessage, Role};
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::PathBuf;

/// How to reach the chat backend (shared by `bob chat` and `bob turn`).
#[derive(Debug, Clone, clap::Args)]
pub struct BackendArgs {
    /// Backend: `openai` (HTTP, the default when configured), `replay:FILE` (scripted replies
    /// from a JSON Lines file, one {role?, content} per line) or `adversarial` (a built-in model
    /// that does the worst it can; see `bob eval run`) [env: BOB_BACKEND]
    #[arg(long, value_name = "SPEC")]
    pub backend: Option<String>,
    /// Chat Completions base URL [env: BOB_CHAT_BASE_URL, OPENAI_BASE_URL; default:
    /// https://api.openai.com/v1]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model id [env: BOB_CHAT_MODEL; default: gpt-4o-mini]
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// Name of the environment variable holding the API key [default: BOB_CHAT_API_KEY, then
    /// OPENAI_API_KEY]
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Connect timeout in seconds [env: BOB_CHAT_CONNECT_TIMEOUT; default: 10]
    #[arg(long, value_name = "SECS")]
    pub connect_timeout: Option<f64>,
    /// Read timeout in seconds (time without any bytes from the server) [env: BOB_CHAT_TIMEOUT;
    /// default: 120]
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Retries after the first attempt on 429, 5xx and connection errors [env:
    /// BOB_CHAT_MAX_RETRIES; default: 3]
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
}

impl BackendArgs {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key_env: self.api_key_env.clone(),
            connect_timeout_s: self.connect_timeout,
            timeout_s: self.timeout,
            max_retries: self.max_retries,
        }
    }
}

/// The session `--session` names, or with `--continue` the last one run in the home
/// (`not_found` when there is none); `None` when neither flag was given. Shared by `bob turn`
/// and `bob chat`.
pub(super) fn session_flag(
    ctx: &Ctx,
    session: Option<&String>,
    continue_last: bool,
) -> Result<Option<String>> {
    if !continue_last {
        return Ok(session.cloned());
    }
    let root = ctx.home.root().display().to_string();
    match ctx.home.last_session() {
        Some(s) => Ok(Some(s)),
        None => Err(Error::not_found(format!(
            "no last session to continue: no turn or chat session has run in the home {root}"
        ))
        .with("home", root)),
    }
}

/// A `--system` text: not blank (an empty instruction is a mistake, not a choice). Shared by
/// `bob turn` and `bob chat`.
pub(super) fn system_text(text: &str) -> Result<String> {
    if text.trim().is_empty() {
        return Err(Error::invalid("--system is empty"));
    }
    Ok(text.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RouteArg {
    Chat,
    Mtg,
}

/// One raw call to the chat backend (not a turn): messages JSON in, reply out
///
/// A raw model call: no roles, no tools run, no NOTES patch, no memory, no turn record or
/// run bundle (`bob turn` runs a turn). It is the model stage of the stage-by-stage
/// pipeline (`bob context | bob chat | bob turn commit`); with --session or --continue it
/// reads the session's conversation and appends the exchange to it.
///
/// Sends one Chat Completions request and prints the reply.
///
/// The message: `bob chat "What is 6x7?"`, or stdin (or --input): plain text (one user
/// message: `echo hi | bob chat`), an array of messages `[{"role":"system","content":"…"},…]`
/// or an object `{"messages":[…],"tools":[…],"temperature":0.2,…}` (extra fields are passed
/// through). Text starting with `[` or `{` must be that JSON. --system puts a system message
/// first.
///
/// A conversation: with --session S (or --continue, `-c`: the session of the last turn or
/// chat run in this home) the session's user and assistant messages (what its turns and
/// earlier chats said) go before the message, and the exchange is appended to the session, so
/// the next `bob chat -c` or `bob turn -c` goes on from it. Without either flag the call
/// remembers nothing.
///
/// On a terminal (stdout a terminal, no --json): the answer's text, then one dim line with
/// the model, tokens, cost and time; streamed as it arrives when the backend streams
/// (--stream, or by default for an HTTP backend), with a spinner while waiting and a line
/// per retry. Piped or with --json: JSON, as follows.
///
/// Output: `{"message":{"role":"assistant","content":"…","tool_calls"?:[…]},"usage":{…},
/// "latency_ms":N,"model":"…","finish_reason":"stop","attempts":N}`. With --stream, JSON Lines:
/// `{"event":"delta","content":"…"}` and `{"event":"tool_call_delta",…}` as they arrive (each
/// flushed), then `{"event":"done",…the reply…}`.
///
/// Errors: `upstream.error` (exit 6) carries the server's message and status; a 429 that
/// outlasts the retries is `chat.rate_limited` (exit 6); a read timeout is `timeout` (exit 124);
/// Ctrl-C is `run.cancelled` (exit 130; on a terminal the text received so far stays shown).
/// BOB_LLAMA_SLOT_RESET=1 erases llama-server slot
/// BOB_LLAMA_SLOT_ID (default 0) first; BOB_LOG_PAYLOADS=1 logs redacted request/response bodies
/// to stderr.
///
/// Replay script (--backend replay:FILE): JSON Lines of scripted replies, e.g.
/// `{"role":"think","content":"…"}` or `{"content":"…","tool_calls":[…]}`; a line with a role is
/// used only by that role (--role), lines without one are used in order; `{"match":"text",…}`
/// limits a line to requests containing the text (and such a line, once it matches, is
/// preferred over lines without a match); `{"error":{"status":429,"message":"…"}}` scripts a
/// failure. Each line is used once per process.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The user message (instead of reading stdin)
    #[arg(value_name = "MESSAGE", conflicts_with = "input")]
    pub message: Option<String>,
    /// A system message put before the others
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,
    /// Talk in this session: its conversation goes before the message and the exchange is
    /// stored in it [default: none, the call remembers nothing]
    #[arg(long, short = 's')]
    pub session: Option<String>,
    /// Go on with the session of the last turn or chat session run in this home
    #[arg(long = "continue", short = 'c', conflicts_with = "session")]
    pub continue_last: bool,
    /// Read the request from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Stream the reply: JSON Lines of deltas, or on a terminal the text as it arrives
    #[arg(long)]
    pub stream: bool,
    /// The pipeline role making the call (replay scripts match on it)
    #[arg(long)]
    pub role: Option<String>,
    /// Which model configuration to use (mtg: BOB_MTG_* when BOB_ROUTE_MTG_REMOTE=true)
    #[arg(long, value_enum, default_value = "chat")]
    pub route: RouteArg,
    #[command(flatten)]
    pub backend: BackendArgs,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let mut req = match &args.message {
        Some(m) if m.trim().is_empty() => {
            return Err(Error::invalid("the message is empty"));
        }
        Some(m) => ChatRequest::new(vec![ChatMessage::new(Role::User, m.clone())]),
        None => ChatRequest::from_text(&read_input(args.input.as_deref())?)?,
    };
    let conversation = match session_flag(ctx, args.session.as_ref(), args.continue_last)? {
        Some(s) => Some(Conversation::load(&ctx.home, &s)?),
        None => None,
    };
    let asked = conversation
        .as_ref()
        .map(|c| c.put_before(&mut req.messages));
    if let Some(system) = &args.system {
        req.messages
            .insert(0, ChatMessage::new(Role::System, system_text(system)?));
    }
    let remember = |reply: &crate::backend::ChatReply| -> Result<()> {
        if let (Some(c), Some(asked)) = (&conversation, &asked) {
            c.append(&ctx.home, asked, &reply.message.content)?;
            ctx.home.remember_session(&c.session_id)?;
        }
        Ok(())
    };
    let route = match args.route {
        RouteArg::Chat => Route::Chat,
        RouteArg::Mtg => Route::Mtg,
    };
    let backend = Backend::resolve(
        &ctx.home,
        &ctx.settings,
        args.backend.backend.as_deref(),
        route,
        &args.backend.overrides(),
    )?;
    let prices = crate::cost::Prices::load(&ctx.settings)?;
    let price = |r: &mut crate::backend::ChatReply| {
        r.cost = prices.cost(&r.model, &backend.model(), r.usage.as_ref());
    };
    let rt = crate::backend::runtime()?;
    if ctx.out.is_human() {
        let session = conversation.as_ref().map(|c| c.session_id.as_str());
        return on_terminal(&args, session, ctx, &backend, &req, &rt, price, remember);
    }
    let opts = CallOpts {
        role: args.role.clone(),
        stream: args.stream,
        cancel: Cancel::on_ctrl_c(),
        watch: None,
    };
    if args.stream {
        let mut write_err = None;
        let mut sink = |d: &Delta| {
            if write_err.is_none()
                && let Err(e) = ctx.out.line(d)
            {
                write_err = Some(e);
            }
        };
        let mut reply = rt.block_on(backend.chat(&req, &opts, Some(&mut sink)))?;
        price(&mut reply);
        remember(&reply)?;
        if let Some(e) = write_err {
            return Err(e);
        }
        ctx.out.line(&StreamDone {
            event: "done",
            reply: &reply,
        })
    } else {
        let mut reply = rt.block_on(backend.chat(&req, &opts, None))?;
        price(&mut reply);
        remember(&reply)?;
        ctx.out.doc(&reply)
    }
}

/// The last line of a streamed reply: `{"event":"done",…the reply…}`.
#[derive(serde::Serialize)]
struct StreamDone<'a> {
    event: &'static str,
    #[serde(flatten)]
    reply: &'a crate::backend::ChatReply,
}

/// The terminal view: the answer's text (streamed when the backend streams), a spinner while
/// waiting, a line per retry, then the footer; see [`super::live`].
#[allow(clippy::too_many_arguments)]
fn on_terminal(
    args: &Args,
    session: Option<&str>,
    ctx: &Ctx,
    backend: &Backend,
    req: &ChatRequest,
    rt: &tokio::runtime::Runtime,
    price: impl Fn(&mut crate::backend::ChatReply),
    remember: impl Fn(&crate::backend::ChatReply) -> Result<()>,
) -> Result<()> {
    let _ = ctx;
    let live = Live::start("waiting for the model", None);
    let watcher = live.clone();
    let opts = CallOpts {
        role: args.role.clone(),
        stream: args.stream || backend.streams(),
        cancel: Cancel::on_ctrl_c(),
        watch: Some(Watch::new(move |e| watcher.event(e))),
    };
    let shown = live.clone();
    let mut sink = |d: &Delta| {
        if let Delta::Delta { content } = d {
            shown.text(content);
        }
    };
    let sink: Option<&mut (dyn FnMut(&Delta) + Send)> =
        if opts.stream { Some(&mut sink) } else { None };
    let mut reply = match rt.block_on(backend.chat(req, &opts, sink)) {
        Ok(r) => r,
        Err(e) => {
            live.abandon();
            return Err(e);
        }
    };
    price(&mut reply);
    if let Err(e) = remember(&reply) {
        live.abandon();
        return Err(e);
    }
    let mut answer = reply.message.content.clone();
    if let Some(calls) = reply.message.tool_calls.as_ref().and_then(Value::as_array) {
        for c in calls {
            answer.push_str(&format!(
                "\n[tool call] {}({})",
                c["function"]["name"].as_str().unwrap_or("?"),
                c["function"]["arguments"].as_str().unwrap_or("")
            ));
        }
    }
    live.finish(
        &answer,
        &Footer {
            session: session.map(str::to_string),
            model: Some(reply.model.clone()),
            tokens: reply.usage.as_ref().map(|u| u.total_tokens),
            cost: reply.cost,
            elapsed: live.elapsed(),
        },
    )
}
