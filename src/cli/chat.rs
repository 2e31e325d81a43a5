//! `bob chat`: one call to the chat backend. Messages JSON in, the reply out.

use super::Ctx;
use super::output::{parse_json, read_input};
use crate::backend::{Backend, CallOpts, Cancel, ChatRequest, Delta, Overrides, Route};
use crate::error::Result;
use serde_json::{Value, json};
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
    #[arg(long)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RouteArg {
    Chat,
    Mtg,
}

/// Sends one Chat Completions request and prints the reply.
///
/// Input (stdin or --input): an array of messages `[{"role":"system","content":"…"},…]` or an
/// object `{"messages":[…],"tools":[…],"temperature":0.2,…}` (extra fields are passed through).
///
/// Output: `{"message":{"role":"assistant","content":"…","tool_calls"?:[…]},"usage":{…},
/// "latency_ms":N,"model":"…","finish_reason":"stop","attempts":N}`. With --stream, JSON Lines:
/// `{"event":"delta","content":"…"}` and `{"event":"tool_call_delta",…}` as they arrive (each
/// flushed), then `{"event":"done",…the reply…}`.
///
/// Errors: `upstream.error` (exit 6) carries the server's message and status; a 429 that
/// outlasts the retries is `chat.rate_limited` (exit 6); a read timeout is `timeout` (exit 124);
/// Ctrl-C is `run.cancelled` (exit 130). BOB_LLAMA_SLOT_RESET=1 erases llama-server slot
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
    /// Read the request from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Stream the reply as JSON Lines of deltas
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
    let text = read_input(args.input.as_deref())?;
    let v: Value = parse_json("chat request", &text)?;
    let req = ChatRequest::from_json(v)?;
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
    let opts = CallOpts {
        role: args.role.clone(),
        stream: args.stream,
        cancel: Cancel::on_ctrl_c(),
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
        if let Some(e) = write_err {
            return Err(e);
        }
        let mut done = json!({"event": "done"});
        if let (Value::Object(d), Ok(Value::Object(r))) = (&mut done, serde_json::to_value(&reply))
        {
            d.extend(r);
        }
        ctx.out.line(&done)
    } else {
        let mut reply = rt.block_on(backend.chat(&req, &opts, None))?;
        price(&mut reply);
        ctx.out.doc(&reply)
    }
}
