//! `bob serve`: the HTTP API and its tokens.

use super::Ctx;
use crate::contracts::{ServeReady, TokenCreated, TokenListed, TokenRevoked};
use crate::error::{Error, Result};
use crate::serve::{self, auth};

/// A token's scopes by name.
fn scope_names(e: &auth::TokenEntry) -> Vec<String> {
    e.scopes().names().into_iter().map(str::to_string).collect()
}

/// Serve the HTTP API (runs queue, SSE events) and manage its tokens
///
/// Serves the HTTP API (the HTTP API contract) on this home, or manages its tokens.
///
/// Endpoints: GET /healthz (no auth); POST /v1/runs {agent_id, message, thinking_mode?,
/// session_id?, user_id?, profile?, mode?} → 202 {id, status:"queued"}; GET
/// /v1/runs?status&limit&offset; GET /v1/runs/{id}; GET /v1/runs/{id}/events (SSE). Every
/// endpoint but /healthz needs
/// `Authorization: Bearer <token>` (`bob serve token create`). Also POST /v1/chat/messages,
/// the /api/admin/* APIs and the dashboard at /. Errors are
/// {"error":{"code","message"}} with the HTTP status of the code.
///
/// GET /openapi.json (no auth) is the OpenAPI document of every endpoint.
///
/// Prints one JSON line {listening, pid, workers, queue, recovered} once the listener is up,
/// and on stderr the dashboard's URL (http://ADDR/) and the command that makes a token.
/// SIGTERM or SIGINT drains (running runs get --drain-timeout to finish, then are re-queued;
/// queued runs stay queued) and exits 0. POST /v1/runs/{id}/cancel cancels a queued or
/// running run.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Sub>,
    /// Address to listen on; a port of 0 picks a free one [default: setting serve.bind,
    /// else 127.0.0.1:8765]
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Allow a non-loopback --bind (the API is then reachable from the network)
    #[arg(long)]
    pub public: bool,
    /// Worker threads running turns [default: setting serve.workers, else 2]
    #[arg(long, value_name = "N")]
    pub workers: Option<u64>,
    /// Most runs waiting in the queue; beyond it POST /v1/runs answers queue.full (503)
    /// [default: setting serve.queue, else 1000]
    #[arg(long = "queue", value_name = "N")]
    pub queue_cap: Option<u64>,
    /// Largest request body, in bytes [default: setting serve.max_body, else 1048576]
    #[arg(long, value_name = "BYTES")]
    pub max_body: Option<u64>,
    /// Seconds to answer a request (an SSE stream: to start it) [default: setting
    /// serve.request_timeout_s, else 30]
    #[arg(long, value_name = "SECS")]
    pub request_timeout: Option<f64>,
    /// Backend for every run: openai or replay:FILE [default: BOB_BACKEND, config.toml]
    #[arg(long, value_name = "SPEC")]
    pub backend: Option<String>,
    /// Chat messages each sender (user_id, case-folded, trailing digits and punctuation
    /// dropped) may send per minute to one agent in one room; beyond it chat.rate_limited
    /// [default: setting serve.chat_rate, else 20]
    #[arg(long, value_name = "N")]
    pub chat_rate: Option<u64>,
    /// Seconds a drain (SIGTERM) gives running runs to finish; then each is cut short and
    /// re-queued (or, if it already called a tool, failed with reason interrupted) [default:
    /// setting serve.drain_timeout_s (BOB_SERVE_DRAIN_TIMEOUT, config.toml), else 20]
    #[arg(long, value_name = "SECS")]
    pub drain_timeout: Option<f64>,
}

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// Create, list or revoke API tokens (stored hashed in serve/tokens.json)
    #[command(subcommand)]
    Token(TokenCmd),
}

#[derive(Debug, clap::Subcommand)]
pub enum TokenCmd {
    /// Create a token and print it once: {id, name, scopes, token, created_at}
    Create {
        /// A label for the token
        #[arg(long, default_value = "default")]
        name: String,
        /// What the token may do: runs (queue, cancel and read runs), chat (chat messages),
        /// read (every GET, admin views included), admin (the admin writes, and everything else).
        /// Repeat it or give a comma list [default: runs,chat,read]. No scope lets a token
        /// change the settings that run commands, choose where secrets go, or change tools,
        /// rules or the sandbox: those are changed at the machine only
        #[arg(long = "scope", value_name = "SCOPE")]
        scopes: Vec<String>,
    },
    /// List tokens (JSON Lines {id, name, scopes, created_at, revoked_at?}; never the token)
    List,
    /// Revoke a token by id; it stops working on the next request
    Revoke {
        /// The token id (tok_…)
        id: String,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let dir = serve::serve_dir(&ctx.home);
    let now = || crate::clock::now().map(crate::clock::rfc3339);
    match args.command {
        Some(Sub::Token(TokenCmd::Create { name, scopes })) => {
            let scopes = auth::Scopes::parse(&scopes)?;
            let (e, token) = auth::create(&dir, &name, scopes, &now()?)?;
            ctx.out.doc(&TokenCreated {
                scopes: scope_names(&e),
                id: e.id,
                name: e.name,
                token,
                created_at: e.created_at,
            })
        }
        Some(Sub::Token(TokenCmd::List)) => {
            for e in auth::list(&dir)? {
                ctx.out.line(&TokenListed {
                    scopes: scope_names(&e),
                    id: e.id,
                    name: e.name,
                    created_at: e.created_at,
                    revoked_at: e.revoked_at,
                })?;
            }
            Ok(())
        }
        Some(Sub::Token(TokenCmd::Revoke { id })) => {
            let e = auth::revoke(&dir, &id, &now()?)?;
            ctx.out.doc(&TokenRevoked {
                id: e.id,
                name: e.name,
                revoked_at: e.revoked_at,
            })
        }
        None => {
            let settings = ctx.settings.with_flags(|f| {
                f.set("serve.bind", args.bind.as_ref());
                f.set("serve.workers", args.workers);
                f.set("serve.queue", args.queue_cap);
                f.set("serve.max_body", args.max_body);
                f.set("serve.request_timeout_s", args.request_timeout);
                f.set("serve.chat_rate", args.chat_rate);
                f.set("serve.drain_timeout_s", args.drain_timeout);
            });
            let opts = serve::Options::from_settings(&settings, args.backend)?;
            if !serve::is_loopback(&opts.bind) {
                if !args.public {
                    return Err(Error::denied(format!(
                        "{} is not a loopback address: pass --public to serve the API to the network",
                        opts.bind
                    )));
                }
                eprintln!(
                    "bob serve: WARNING: listening on {}, a non-loopback address: the API is reachable from the network (bearer tokens still required)",
                    opts.bind
                );
            }
            let (workers, cap) = (opts.workers, opts.queue_cap);
            let mut printed = Ok(());
            serve::run(&ctx.home, opts, |addr, recovered| {
                printed = ctx.out.line(&ServeReady {
                    listening: addr.to_string(),
                    pid: std::process::id(),
                    workers,
                    queue: cap,
                    recovered,
                });
                // For the person who started it: where to point a browser and how to sign in.
                // On stderr, so a script reading the JSON line on stdout is not disturbed.
                eprintln!("{}", serve::welcome(&ctx.home, addr));
            })?;
            printed
        }
    }
}
