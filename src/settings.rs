//! The one settings layer (docs/design.md#settings): every knob of bob, resolved once per process from
//! command-line flags, the environment, `<home>/config.toml` and the built-in defaults, in that
//! order of precedence, each value remembering where it came from.
//!
//! The command line builds one [`Settings`] at start-up ([`Settings::load`], given the flags it
//! parsed and a snapshot of the process environment), installs the process-wide parts once
//! ([`Settings::install`]: the clock, the redactor's rule file and known secret values) and
//! passes the value (or a typed part of it, such as [`crate::tools::policy::Policy`] or
//! [`crate::backend::config::ChatConfig`]) down. Subsystems read no environment variables;
//! this module reads none either: the caller hands it the environment it captured.
//!
//! Every setting is one row of [`SPECS`]: its `config.toml` key (`table.key`), the environment
//! variables that set it (first non-empty wins), the flag that sets it, its default and what
//! it means. `bob config show` prints them all with their sources, secrets blanked, and the
//! docs/settings.md's table documents the same rows.
//!
//! Flags: the global flags (`--home`, `--now`) are layered in here. A per-command knob that is
//! a setting (`turn.seed`, `search.keep_days`, `serve.*`) is layered by its
//! command with [`Settings::with_flags`] (source `flag`, origin the flag), so a clap flag never
//! reads the environment itself (no `env = "BOB_…"` in src/cli/). Other per-command flags
//! (`bob chat --model`, `bob tool run --root`, …) are applied by their command on top of the
//! value found here. Either way they beat everything for that command; `bob config show` shows
//! the settings as a command without such flags sees them.
//!
//! `config.toml` is strict: a key bob does not know, a value of the wrong type or a malformed
//! file is refused with `invalid.request` naming the file and the key (as git refuses a bad
//! config line), so a typo such as `modle = …` never silently falls back to a default. Every
//! command refuses to start on such a file, `bob config show` included.
//!
//! The home: `--home`, `BOB_HOME`, else `./runtime` when that directory exists, else
//! `$XDG_DATA_HOME/bob`, else `$HOME/.local/share/bob` (the captured `XDG_DATA_HOME` and
//! `HOME`). Two config files are read: the user's own (`$XDG_CONFIG_HOME/bob/config.toml`,
//! else `~/.config/bob/config.toml`), then the home's `config.toml`, whose keys win; both are
//! checked alike, and a value's origin names the file it came from.
//!
//! Environment values that are empty (or only whitespace) count as unset. Values are checked
//! for their type when a command uses them, with an error naming where the bad value came
//! from (`BOB_CHAT_TIMEOUT`, `--now`, `config.toml chat.timeout_s`).
//!
//! Documented exceptions (protocol, not settings): the variables bob sets for its own child
//! processes (`BOB_SCHEDULE_JOB_ID` for a scheduled turn, `BOB_NOW` exported for children when
//! `--now` pins the clock), the sandbox helper's internal handshake (its arguments), and the
//! locale variables (`LANG`, `LC_*`, `TERM`) passed through to a sandboxed program. An API key
//! named indirectly (`api_key_env = "MY_KEY"`) is looked up in the same captured environment
//! ([`Settings::env_var`]).

use crate::clock::{self, Clock};
use crate::contracts::{ConfigShow, SettingShown};
use crate::error::{Error, Result};
use crate::home::Home;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Flag,
    Env,
    Config,
    Default,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Flag => "flag",
            Source::Env => "env",
            Source::Config => "config",
            Source::Default => "default",
        }
    }
}

/// The type of a setting's value (how `config.toml` must spell it, how it is parsed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Text,
    /// A file or directory path.
    Path,
    /// An http(s) URL.
    Url,
    /// `true`/`false` (`1`/`0`, `yes`/`no`, `on`/`off` in the environment).
    Bool,
    /// A non-negative integer.
    Count,
    /// A positive number of seconds.
    Seconds,
    /// A list: an array of strings in `config.toml`, comma-separated in the environment.
    List,
    /// An RFC3339 timestamp.
    Time,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Path => "path",
            Kind::Url => "url",
            Kind::Bool => "bool",
            Kind::Count => "integer",
            Kind::Seconds => "seconds",
            Kind::List => "list",
            Kind::Time => "rfc3339",
        }
    }
}

/// One setting: where it can be set, its default and its meaning.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The `config.toml` key, `table.key`; also the setting's name.
    pub key: &'static str,
    /// Environment variables that set it, first non-empty wins.
    pub env: &'static [&'static str],
    /// The flag that sets it (documentation; `""` when none).
    pub flag: &'static str,
    pub default: Option<&'static str>,
    pub kind: Kind,
    /// A credential: `bob config show` prints `***`, and its value is masked in durable writes.
    pub secret: bool,
    /// Whether `config.toml` may set it (the home itself cannot be set from inside the home).
    pub file: bool,
    /// Another `config.toml` key read when this one is absent (`mtg.*` falls back to `chat.*`).
    pub fallback: Option<&'static str>,
    pub doc: &'static str,
}

const fn spec(
    key: &'static str,
    env: &'static [&'static str],
    flag: &'static str,
    default: Option<&'static str>,
    kind: Kind,
    doc: &'static str,
) -> Spec {
    Spec {
        key,
        env,
        flag,
        default,
        kind,
        secret: false,
        file: true,
        fallback: None,
        doc,
    }
}

impl Spec {
    const fn secret(mut self) -> Spec {
        self.secret = true;
        self
    }
    const fn env_only(mut self) -> Spec {
        self.file = false;
        self
    }
    const fn or_config(mut self, key: &'static str) -> Spec {
        self.fallback = Some(key);
        self
    }
}

use Kind::*;

/// Every setting of bob. Keep the table in docs/settings.md in step (a test checks it).
#[rustfmt::skip]
pub static SPECS: &[Spec] = &[
    // The process.
    spec("home", &["BOB_HOME"], "--home", None, Path,
        "Home directory holding every persistent file (config.toml lives in it); unset = ./runtime when that directory exists, else $XDG_DATA_HOME/bob (~/.local/share/bob)").env_only(),
    spec("clock.now", &["BOB_NOW"], "--now", None, Time,
        "Pin the clock to this time (TTLs, schedules, tests); unset = the system clock"),
    spec("cli.max_input_bytes", &["BOB_MAX_INPUT_BYTES"], "", Some("67108864"), Count,
        "Cap on what one command reads from stdin or --input"),
    spec("cli.json_errors", &["BOB_JSON_ERRORS"], "", Some("false"), Bool,
        "Errors as JSON lines even when stderr is a terminal"),
    spec("cli.actor", &["BOB_ACTOR", "USER"], "--actor", Some("human"), Text,
        "Who the human acts of `bob memory` are recorded as"),
    spec("output.thinking_mode", &[], "", Some("never"), Text,
        "Default thinking_mode of a `bob serve` run: never, on_error or always"),
    // The chat backend (Bob v0 "Model configuration").
    spec("chat.backend", &["BOB_BACKEND"], "--backend", Some("openai"), Text,
        "openai, or replay:FILE (scripted replies, no network)"),
    spec("chat.base_url", &["BOB_CHAT_BASE_URL", "OPENAI_BASE_URL"], "--base-url", Some("https://api.openai.com/v1"), Url,
        "OpenAI-compatible endpoint"),
    spec("chat.api_key", &["BOB_CHAT_API_KEY", "OPENAI_API_KEY"], "", None, Text,
        "API key (or secret:NAME, a stored secret); no Authorization header when unset").secret(),
    spec("chat.api_key_env", &[], "--api-key-env", None, Text,
        "Name of the environment variable holding the API key"),
    spec("chat.model", &["BOB_CHAT_MODEL"], "--model", Some("gpt-4o-mini"), Text,
        "Model name sent with every call"),
    spec("chat.connect_timeout_s", &["BOB_CHAT_CONNECT_TIMEOUT"], "--connect-timeout", Some("10"), Seconds,
        "Connect timeout"),
    spec("chat.timeout_s", &["BOB_CHAT_TIMEOUT"], "--timeout", Some("120"), Seconds,
        "Read timeout of one call"),
    spec("chat.max_retries", &["BOB_CHAT_MAX_RETRIES"], "--max-retries", Some("3"), Count,
        "Retries after the first attempt on 429/5xx/network errors (at most 20)"),
    spec("chat.retry_base_ms", &["BOB_CHAT_RETRY_BASE_MS"], "", Some("500"), Count,
        "First backoff delay; doubles per retry"),
    spec("chat.retry_cap_s", &["BOB_CHAT_RETRY_CAP_S"], "", Some("60"), Count,
        "Longest backoff sleep, and longest Retry-After bob waits"),
    spec("chat.llama_slot_reset", &["BOB_LLAMA_SLOT_RESET"], "", Some("false"), Bool,
        "Erase a llama-server slot before each call"),
    spec("chat.llama_slot_id", &["BOB_LLAMA_SLOT_ID"], "", Some("0"), Count,
        "The llama-server slot to erase"),
    spec("chat.log_payloads", &["BOB_LOG_PAYLOADS"], "", Some("false"), Bool,
        "Log (redacted) request and response bodies to stderr"),
    // The MTG route: its own endpoint when route_remote is on; each key falls back to [chat].
    spec("mtg.route_remote", &["BOB_ROUTE_MTG_REMOTE"], "", Some("false"), Bool,
        "Send MTG agent calls to the [mtg] settings instead of the chat ones"),
    spec("mtg.base_url", &["BOB_MTG_BASE_URL", "OPENAI_BASE_URL"], "--base-url", Some("https://api.openai.com/v1"), Url,
        "Endpoint of the MTG route").or_config("chat.base_url"),
    spec("mtg.api_key", &["BOB_MTG_API_KEY", "OPENAI_API_KEY"], "", None, Text,
        "API key of the MTG route").secret().or_config("chat.api_key"),
    spec("mtg.api_key_env", &[], "--api-key-env", None, Text,
        "Name of the variable holding the MTG route's key").or_config("chat.api_key_env"),
    spec("mtg.model", &["BOB_MTG_MODEL", "BOB_CHAT_MODEL"], "--model", Some("gpt-5"), Text,
        "Model of the MTG route").or_config("chat.model"),
    spec("mtg.connect_timeout_s", &["BOB_CHAT_CONNECT_TIMEOUT"], "", Some("10"), Seconds,
        "Connect timeout of the MTG route").or_config("chat.connect_timeout_s"),
    spec("mtg.timeout_s", &["BOB_CHAT_TIMEOUT"], "", Some("120"), Seconds,
        "Read timeout of the MTG route").or_config("chat.timeout_s"),
    spec("mtg.max_retries", &["BOB_CHAT_MAX_RETRIES"], "", Some("3"), Count,
        "Retries of the MTG route").or_config("chat.max_retries"),
    spec("mtg.retry_base_ms", &["BOB_CHAT_RETRY_BASE_MS"], "", Some("500"), Count,
        "First backoff delay of the MTG route").or_config("chat.retry_base_ms"),
    // Tools and the sandbox.
    spec("tools.sandbox_enabled", &["BOB_TOOL_SANDBOX_ENABLED"], "--root", Some("false"), Bool,
        "Enable the filesystem/shell sandbox with tools.roots (a --root flag enables it too)"),
    spec("tools.roots", &["BOB_TOOL_ROOTS"], "--root", None, List,
        "Sandbox roots; the first is the working directory"),
    spec("tools.sandbox", &["BOB_SANDBOX"], "--sandbox", Some("full"), Text,
        "How shell.exec is confined: full (namespaces, seccomp) or weak (Landlock only)"),
    spec("tools.sandbox_memory_mb", &["BOB_SANDBOX_MEMORY_MB"], "", Some("4096"), Count,
        "Memory budget of one shell.exec call, MiB (cgroup memory.max where delegated; RLIMIT_AS always)"),
    spec("tools.sandbox_file_size_mb", &["BOB_SANDBOX_FILE_SIZE_MB"], "", Some("256"), Count,
        "Largest file a shell.exec program may write, MiB (RLIMIT_FSIZE)"),
    spec("tools.sandbox_cgroup", &["BOB_SANDBOX_CGROUP"], "", None, Path,
        "Delegated cgroup v2 directory for per-call cgroups (default: bob's own if it delegates memory and pids)"),
    spec("tools.require_sandbox", &["BOB_TOOL_REQUIRE_SANDBOX"], "--require-sandbox", Some("true"), Bool,
        "Accepted, no effect: the full sandbox is required unless weak"),
    spec("tools.shell_rules", &["BOB_TOOL_SHELL_RULES"], "--shell-rules", None, Path,
        "Shell allow/deny rules file (JSON) replacing the built-in one"),
    spec("tools.max_timeout_ms", &["BOB_TOOL_MAX_TIMEOUT_MS"], "--max-timeout-ms", Some("120000"), Count,
        "Clamp on any tool call's timeout_ms"),
    spec("tools.net_allowlist", &["BOB_NET_ALLOWLIST"], "", None, List,
        "When set, a bare `net` grant allows only these domains"),
    spec("tools.allow_loopback", &["BOB_TOOL_ALLOW_LOOPBACK"], "--allow-loopback", Some("false"), Bool,
        "Let http.get reach loopback addresses"),
    spec("tools.allow_private", &["BOB_TOOL_ALLOW_PRIVATE"], "--allow-private", Some("false"), Bool,
        "Let http.get reach private and link-local addresses"),
    spec("tools.http_cache_ttl_s", &["BOB_HTTP_CACHE_TTL_S"], "", Some("3600"), Count,
        "Freshness of a cached http.get response"),
    spec("tools.protocol", &["BOB_TOOL_PROTOCOL"], "", Some("native"), Text,
        "native (tools offered as OpenAI tools) or markers (TOOL_CALLS_JSON blocks only)"),
    spec("tools.stats", &["BOB_TOOL_STATS"], "", Some("false"), Bool,
        "`bob tool run` prints per-call timings on stderr"),
    // Domain tools.
    spec("domain.scryfall_base_url", &["BOB_SCRYFALL_BASE_URL"], "", Some("https://api.scryfall.com"), Url,
        "Scryfall API"),
    spec("domain.steam_base_url", &["BOB_STEAM_BASE_URL"], "", Some("https://store.steampowered.com"), Url,
        "Steam storefront API"),
    spec("domain.serpapi_base_url", &["BOB_SERPAPI_BASE_URL"], "", Some("https://serpapi.com"), Url,
        "SerpAPI"),
    spec("domain.serpapi_api_key", &["SERPAPI_API_KEY"], "", None, Text, "SerpAPI key").secret(),
    spec("domain.searxng_url", &["BOB_SEARXNG_URL"], "", None, Url,
        "A SearXNG instance (JSON format enabled)"),
    spec("domain.news_feeds", &["BOB_NEWS_FEEDS"], "", None, List, "News feed URLs"),
    spec("domain.news_cache_ttl_s", &["BOB_NEWS_CACHE_TTL_S"], "", Some("900"), Count,
        "Freshness of cached news"),
    // Memory, redaction, scheduler.
    spec("memory.rank_budget", &["BOB_MEMORY_RANK_BUDGET"], "", Some("5000"), Text,
        "Rows ranked exactly by `bob memory query` (a count, or `exact`)"),
    spec("memory.import_max_bytes", &["BOB_MEMORY_IMPORT_MAX_BYTES"], "", Some("268435456"), Count,
        "What one `bob memory import` reads at most, every file together (bytes)"),
    spec("memory.embeddings", &["BOB_MEMORY_EMBEDDINGS"], "", Some("none"), Text,
        "Embeddings of long-term memory: none (lexical retrieval only), local (all-MiniLM-L6-v2 in-process) or openai (an /embeddings endpoint)"),
    spec("memory.embedding_model", &["BOB_MEMORY_EMBEDDING_MODEL"], "", None, Path,
        "Directory of the local model (model.safetensors, tokenizer.json, config.json); scripts/fetch-embedding-model.sh fetches it"),
    spec("memory.embed_queue", &["BOB_MEMORY_EMBED_QUEUE"], "", Some("inline"), Text,
        "When a new long-term record is embedded: inline (right after the write; queued if the embedder fails) or defer (always queued for `bob memory reindex --missing`)"),
    spec("memory.embed_base_url", &["BOB_EMBED_BASE_URL", "BOB_CHAT_BASE_URL", "OPENAI_BASE_URL"], "", Some("https://api.openai.com/v1"), Url,
        "OpenAI-compatible endpoint of the openai embeddings").or_config("chat.base_url"),
    spec("memory.embed_api_key", &["BOB_EMBED_API_KEY", "BOB_CHAT_API_KEY", "OPENAI_API_KEY"], "", None, Text,
        "API key of the openai embeddings (or secret:NAME)").secret().or_config("chat.api_key"),
    spec("memory.embed_model", &["BOB_EMBED_MODEL"], "", Some("text-embedding-3-small"), Text,
        "Model of the openai embeddings"),
    spec("redact.rules", &["BOB_REDACT_RULES"], "", None, Path,
        "Redaction rules file (one regex a line); unset = <home>/redact.rules"),
    spec("keys.file", &["BOB_KEY_FILE"], "", None, Path,
        "The chain key's file, e.g. outside the home (the secrets key then lives next to it as bob-secrets.key); unset = $CREDENTIALS_DIRECTORY/bob-chain.key when that file exists, else <home>/keys/chain.key (BOB_KEY_FILE beats the credential, which beats config.toml)"),
    // The shared store.
    spec("database.url", &["BOB_DATABASE_URL"], "", None, Text,
        "PostgreSQL URL of the shared store (postgres://user:password@host:port/db, a unix-socket directory as ?host=DIR, sslmode; the password may be secret:NAME); unset = the home's embedded stores; shown with the password blanked"),
    spec("schedule.turn_cmd", &["BOB_SCHEDULE_TURN_CMD"], "", None, Text,
        "Shell command run instead of `bob turn` for a scheduled job (wrappers, tests)"),
    // Per-command knobs: the command's flag beats them for that command.
    spec("turn.seed", &["BOB_SEED"], "--seed", None, Count,
        "Replay seed of `bob turn` and `bob turn commit`: ids derive from it (byte-identical replays)"),
    spec("search.keep_days", &["BOB_STAGING_KEEP_DAYS"], "--keep-days", Some("7"), Count,
        "`bob search` keeps staged fetches this many days"),
    spec("search.keep_count", &["BOB_STAGING_KEEP_COUNT"], "--keep-count", Some("1000"), Count,
        "`bob search` keeps at most this many staged fetches (the newest)"),
    spec("serve.bind", &["BOB_SERVE_BIND"], "--bind", Some(DEFAULT_BIND), Text,
        "Address `bob serve` listens on (a non-loopback one also needs --public)"),
    spec("serve.workers", &["BOB_SERVE_WORKERS"], "--workers", Some("2"), Count,
        "`bob serve` worker threads running turns (1-256)"),
    spec("serve.queue", &["BOB_SERVE_QUEUE"], "--queue", Some("1000"), Count,
        "Most runs waiting in `bob serve`'s queue; beyond it queue.full (503)"),
    spec("serve.max_body", &["BOB_SERVE_MAX_BODY"], "--max-body", Some("1048576"), Count,
        "Largest request body `bob serve` reads, in bytes (at least 1024)"),
    spec("serve.request_timeout_s", &["BOB_SERVE_REQUEST_TIMEOUT"], "--request-timeout", Some("30"), Seconds,
        "Seconds `bob serve` gives a request to be answered (an SSE stream: to start)"),
    spec("serve.chat_rate", &["BOB_SERVE_CHAT_RATE"], "--chat-rate", Some("20"), Count,
        "Chat messages per minute per sender (case-folded) to one agent in one room before chat.rate_limited"),
    spec("serve.drain_timeout_s", &["BOB_SERVE_DRAIN_TIMEOUT"], "--drain-timeout", Some("20"), Seconds,
        "Seconds a `bob serve` drain (SIGTERM) gives running runs before re-queueing them"),
    spec("serve.run_rate", &["BOB_SERVE_RUN_RATE"], "", Some("600"), Count,
        "Runs each token may queue per minute (POST /v1/runs and chat messages; 0 = no limit)"),
    spec("serve.max_connections", &["BOB_SERVE_MAX_CONNECTIONS"], "", Some("1024"), Count,
        "Connections `bob serve` serves at once; more wait in the kernel's backlog"),
    spec("serve.max_connections_per_ip", &["BOB_SERVE_MAX_CONNECTIONS_PER_IP"], "", Some("128"), Count,
        "Connections one client address may hold open; more are answered 503 and closed"),
    spec("serve.header_timeout_s", &["BOB_SERVE_HEADER_TIMEOUT"], "", Some("5"), Seconds,
        "Seconds a connection has to send a request's head (also an idle kept-alive one)"),
    spec("serve.sse_max_s", &["BOB_SERVE_SSE_MAX"], "", Some("3600"), Seconds,
        "Longest an SSE event stream stays open; the client reconnects for more"),
    spec("serve.lease_s", &["BOB_SERVE_LEASE"], "", Some("30"), Seconds,
        "With database.url: seconds a claimed run's lease lasts unrenewed; after it another node recovers the run"),
    // Identity (Bob v0 naming), stated in every role's system prompt.
    spec("identity.display_name", &[], "", Some("Bob"), Text,
        "The name bob answers to (UI string)"),
    spec("identity.system_id", &[], "", Some("bob"), Text,
        "The stable canonical id"),
    spec("identity.creator", &[], "", Some("the bob project"), Text,
        "Who made bob: the answer to \"who created you?\""),
];

/// Top-level tables of `config.toml` that a subsystem owns and checks itself (free-form keys,
/// such as a per-model table): kept whole, not checked key by key, and handed to that
/// subsystem by [`Settings::config_table`]. A new one is added here by name.
pub const OPEN_TABLES: &[&str] = &[PRICES_TABLE];

/// Where `bob serve` listens when nothing says otherwise: loopback only.
pub const DEFAULT_BIND: &str = "127.0.0.1:8765";

/// The open table of model prices in `config.toml` (`[prices]`), read by [`crate::cost`].
pub const PRICES_TABLE: &str = "prices";

/// `config.toml` as the settings read it: `table.key → value text`, and the open tables whole.
#[derive(Debug, Clone, Default)]
struct Config {
    values: BTreeMap<String, String>,
    open: BTreeMap<String, toml::Value>,
    /// The keys that came from the user's config file (not the home's), and that file.
    from_user: BTreeSet<String>,
    user_file: String,
}

/// The row of `key`.
pub fn spec_of(key: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.key == key)
}

/// One resolved value.
#[derive(Clone)]
pub struct Entry {
    pub value: String,
    pub source: Source,
    /// Where exactly: the flag, the variable, `config.toml chat.model`, or `default`.
    pub origin: String,
}

/// The command-line flags that feed the settings: the global ones, and the per-command flags
/// of the command being run ([`Flags::set`]; `bob turn --seed 5` is `turn.seed`).
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub home: Option<PathBuf>,
    pub now: Option<String>,
    /// Per-command flags given on this command line: setting key → value.
    pub command: BTreeMap<&'static str, String>,
}

impl Flags {
    /// Records a per-command flag given on the command line (`None`: not given).
    pub fn set(&mut self, key: &'static str, value: Option<impl ToString>) {
        debug_assert!(spec_of(key).is_some(), "unknown setting {key}");
        if let Some(v) = value {
            self.command.insert(key, v.to_string());
        }
    }

    fn get(&self, key: &str) -> Option<String> {
        match key {
            "home" => self.home.as_ref().map(|p| p.display().to_string()),
            "clock.now" => self.now.clone(),
            _ => self.command.get(key).cloned(),
        }
        .filter(|v| !v.trim().is_empty())
    }
}

/// The effective settings of this process (see the module docs).
#[derive(Clone)]
pub struct Settings {
    home: Home,
    /// The user's own config file (`$XDG_CONFIG_HOME/bob/config.toml`), read before the
    /// home's, whose values win.
    user_config: Option<PathBuf>,
    entries: BTreeMap<&'static str, Entry>,
    flags: Flags,
    /// The environment captured at start-up (for indirections such as `api_key_env`).
    env: Arc<BTreeMap<String, String>>,
    /// Tables present in `config.toml`.
    tables: BTreeSet<String>,
    /// The [`OPEN_TABLES`] present in `config.toml`.
    open: Arc<BTreeMap<String, toml::Value>>,
    clock: Clock,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("home", &self.home.root())
            .field("keys", &self.entries.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Default for Settings {
    /// Defaults only, home `./runtime`, the system clock (library use and unit tests).
    fn default() -> Settings {
        Settings::resolve(Flags::default(), BTreeMap::new(), None)
            .expect("defaults alone always resolve")
    }
}

impl Settings {
    /// Resolves every setting from `flags`, the captured environment `env` and the home's
    /// `config.toml`. A malformed config file, an unknown key or a value of the wrong type in
    /// it, or an unparsable clock is `invalid.request`.
    pub fn load(flags: Flags, env: impl IntoIterator<Item = (String, String)>) -> Result<Settings> {
        let env: BTreeMap<String, String> = env.into_iter().collect();
        let mut s = Settings::resolve(flags, env, None)?;
        let table = read_config(&s.home, s.user_config.as_deref())?;
        s = Settings::resolve(s.flags.clone(), Arc::unwrap_or_clone(s.env), Some(table))?;
        Ok(s)
    }

    /// The same flags and environment with `config.toml` read again (a long-lived process
    /// such as `bob serve` applies config edits to the next run).
    pub fn reload(&self) -> Result<Settings> {
        let table = read_config(&self.home, self.user_config.as_deref())?;
        Settings::resolve(self.flags.clone(), (*self.env).clone(), Some(table))
    }

    /// These settings with the per-command flags a command was given layered on top (flag
    /// beats everything); the values are checked when used, naming the flag.
    pub fn with_flags(&self, set: impl FnOnce(&mut Flags)) -> Settings {
        let mut flags = self.flags.clone();
        set(&mut flags);
        let mut s = self.clone();
        for (key, value) in &flags.command {
            let Some(sp) = spec_of(key) else { continue };
            s.entries.insert(
                sp.key,
                Entry {
                    value: value.clone(),
                    source: Source::Flag,
                    origin: sp.flag.to_string(),
                },
            );
        }
        s.flags = flags;
        s
    }

    /// The environment captured at start-up, whole (for a process that resolves settings for
    /// other homes, such as `bob eval run`'s per-case homes).
    pub fn captured_env(&self) -> impl Iterator<Item = (&str, &str)> {
        self.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Checks a `config.toml` text the way [`Settings::load`] reads it (unknown keys, types).
    pub fn check_config_text(text: &str) -> Result<()> {
        let table = parse_config(text, "config.toml", OPEN_TABLES)?;
        Settings::resolve(Flags::default(), BTreeMap::new(), Some(table)).map(|_| ())
    }

    fn resolve(
        flags: Flags,
        env: BTreeMap<String, String>,
        config: Option<Config>,
    ) -> Result<Settings> {
        let Config {
            values: config,
            open,
            from_user,
            user_file,
        } = config.unwrap_or_default();
        let tables: BTreeSet<String> = config
            .keys()
            .filter_map(|k| k.split_once('.').map(|(t, _)| t.to_string()))
            .collect();
        let mut entries = BTreeMap::new();
        for sp in SPECS {
            let from_flag = flags.get(sp.key).map(|v| {
                let origin = sp.flag.to_string();
                (v, Source::Flag, origin)
            });
            let from_env = || {
                sp.env.iter().find_map(|name| {
                    env.get(*name)
                        .filter(|v| !v.trim().is_empty())
                        .map(|v| (v.clone(), Source::Env, (*name).to_string()))
                })
            };
            let from_config = || {
                if !sp.file {
                    return None;
                }
                std::iter::once(sp.key).chain(sp.fallback).find_map(|k| {
                    config.get(k).map(|v| {
                        let file = if from_user.contains(k) {
                            user_file.as_str()
                        } else {
                            "config.toml"
                        };
                        (v.clone(), Source::Config, format!("{file} {k}"))
                    })
                })
            };
            let from_default = || {
                sp.default
                    .map(|d| (d.to_string(), Source::Default, "default".to_string()))
            };
            if let Some((value, source, origin)) = from_flag
                .or_else(from_env)
                .or_else(from_config)
                .or_else(from_default)
            {
                entries.insert(
                    sp.key,
                    Entry {
                        value,
                        source,
                        origin,
                    },
                );
            }
        }
        if !entries.contains_key("home") {
            let (value, origin) = default_home(&env);
            entries.insert(
                "home",
                Entry {
                    value,
                    source: Source::Default,
                    origin,
                },
            );
        }
        let home = Home::at(
            entries
                .get("home")
                .map(|e| e.value.clone())
                .unwrap_or_else(|| "runtime".into()),
        );
        let user_config = user_config_path(&env);
        let mut s = Settings {
            home,
            user_config,
            entries,
            flags,
            env: Arc::new(env),
            tables,
            open: Arc::new(open),
            clock: Clock::System,
        };
        s.clock = match s.get("clock.now") {
            Some(e) => Clock::Fixed(clock::parse_rfc3339(&e.value).map_err(|err| {
                Error::invalid(format!("{}: {}", e.origin, err.message))
                    .with("setting", "clock.now")
            })?),
            None => Clock::System,
        };
        Ok(s)
    }

    /// Installs the process-wide parts once: the clock read by [`clock::now`], and the
    /// redactor's rule file and the known secret values it masks by exact match (secret-named
    /// environment variables and the secret settings).
    pub fn install(&self) {
        clock::install(self.clock);
        crate::redact::install(self.path("redact.rules"), self.secret_values());
        let chain_key = self.chain_key_file();
        crate::secrets::install_key_file(chain_key.as_ref().map(|p| {
            p.parent()
                .unwrap_or(std::path::Path::new("/"))
                .join(crate::secrets::OUTSIDE_KEY_FILE)
        }));
        crate::chain::install_key_file(chain_key);
        crate::db::install(self.text(crate::db::SETTING), &self.home);
    }

    /// The chain key's file when it is not `<home>/keys/chain.key`: `BOB_KEY_FILE`, then
    /// systemd's credential `$CREDENTIALS_DIRECTORY/bob-chain.key` when that file exists, then
    /// `keys.file` in `config.toml` (the home's own file comes last: a process that can write
    /// the home must not be able to choose the key over the service's credential).
    pub fn chain_key_file(&self) -> Option<PathBuf> {
        if self.source("keys.file") == Source::Env {
            return self.path("keys.file");
        }
        if let Some(dir) = self.env_var("CREDENTIALS_DIRECTORY") {
            let p = PathBuf::from(dir).join("bob-chain.key");
            if p.is_file() {
                return Some(p);
            }
        }
        // A relative path in config.toml is taken from the home, as the file it sits in.
        self.path("keys.file").map(|p| self.home.root().join(p))
    }

    /// The home directory.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The user's config file, read before the home's `config.toml` (whose values win):
    /// `$XDG_CONFIG_HOME/bob/config.toml`, else `~/.config/bob/config.toml`; `None` when
    /// neither variable is set.
    pub fn user_config_path(&self) -> Option<&std::path::Path> {
        self.user_config.as_deref()
    }

    /// Where these settings were read from, for a "not configured" error: the home and the
    /// config files (`home`, `config_file`, `user_config_file`).
    pub fn read_from(&self) -> String {
        let mut t = format!(
            "home {}, config {}",
            self.home.root().display(),
            self.home.config_path().display()
        );
        if let Some(u) = &self.user_config {
            t.push_str(&format!(" and {}", u.display()));
        }
        t
    }

    /// The clock: fixed by `clock.now`, else the system clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// The resolved entry of `key`; `None` when unset with no default.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        debug_assert!(spec_of(key).is_some(), "unknown setting {key}");
        self.entries.get(key)
    }

    /// Where `key`'s value came from (`Default` when unset).
    pub fn source(&self, key: &str) -> Source {
        self.get(key).map_or(Source::Default, |e| e.source)
    }

    /// Whether something other than the default set `key`.
    pub fn is_set(&self, key: &str) -> bool {
        self.source(key) != Source::Default
    }

    /// The value as text.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key).map(|e| e.value.as_str())
    }

    /// The value as a path.
    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.text(key).map(PathBuf::from)
    }

    /// The value as a boolean; anything but 1/0, true/false, yes/no, on/off is refused.
    pub fn bool(&self, key: &str) -> Result<bool> {
        let Some(e) = self.get(key) else {
            return Ok(false);
        };
        match e.value.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(bad(e, key, "true or false (1/0, yes/no, on/off)")),
        }
    }

    /// The value as a non-negative integer.
    pub fn u64(&self, key: &str) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(e) => e
                .value
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| bad(e, key, "a non-negative integer")),
        }
    }

    /// The value as a positive, finite number of seconds.
    pub fn seconds(&self, key: &str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(e) => e
                .value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0)
                .map(Some)
                .ok_or_else(|| bad(e, key, "a positive number of seconds")),
        }
    }

    /// The value as a list (comma-separated; empty items dropped); empty when unset.
    pub fn list(&self, key: &str) -> Vec<String> {
        self.text(key)
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A variable of the environment captured at start-up (empty counts as unset): only for
    /// indirections a setting names, such as `api_key_env`.
    pub fn env_var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// An [`OPEN_TABLES`] table of `config.toml`, whole, for the subsystem that owns it.
    pub fn config_table(&self, table: &str) -> Option<&toml::Value> {
        self.open.get(table)
    }

    /// Whether `config.toml` has a `[table]`.
    pub fn has_config_table(&self, table: &str) -> bool {
        self.tables.contains(table)
    }

    /// Values bob masks by exact match in durable writes: secret-named environment variables
    /// and the secret settings (a `secret:NAME` reference is not a value).
    pub fn secret_values(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .env
            .iter()
            .filter(|(k, _)| crate::redact::is_secret_env_name(k))
            .map(|(_, v)| v.clone())
            .collect();
        for sp in SPECS.iter().filter(|s| s.secret) {
            if let Some(e) = self.get(sp.key)
                && !e.value.starts_with(crate::secrets::REF_PREFIX)
            {
                v.push(e.value.clone());
            }
        }
        // The database URL's password, when written out (not a secret:NAME reference).
        if let Some(password) = self
            .text(crate::db::SETTING)
            .and_then(|u| crate::db::DbUrl::parse(u).ok())
            .and_then(|u| u.literal_password())
        {
            v.push(password);
        }
        v
    }

    /// The effective settings as JSON (`bob config show`): for each key its value (typed),
    /// source, origin, and the variables and flag that set it; secrets are `"***"` with
    /// `"set": true`, never their value.
    pub fn show(&self) -> ConfigShow {
        let mut settings = Vec::new();
        for sp in SPECS {
            let e = self.get(sp.key);
            let value = match e {
                None => Value::Null,
                Some(_) if sp.secret => Value::from("***"),
                Some(e) if sp.key == crate::db::SETTING => {
                    Value::from(crate::db::shown_url(&e.value))
                }
                Some(e) => typed(sp, e, self),
            };
            let row = SettingShown {
                value,
                set: sp.secret.then_some(e.is_some()),
                source: self.source(sp.key).as_str().to_string(),
                origin: e.map_or("default", |e| e.origin.as_str()).to_string(),
                env: sp.env.iter().map(|v| v.to_string()).collect(),
                flag: sp.flag.to_string(),
                kind: sp.kind.name().to_string(),
            };
            settings.push((sp.key.to_string(), row));
        }
        ConfigShow {
            home: self.home.root().display().to_string(),
            config_file: self.home.config_path().display().to_string(),
            config_file_exists: self.home.config_path().is_file(),
            user_config_file: self.user_config.as_ref().map(|p| p.display().to_string()),
            settings,
            // The open tables ([`OPEN_TABLES`]) as config.toml has them (prices, not secrets).
            tables: self
                .open
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
                .collect(),
        }
    }
}

/// The table of docs/settings.md, generated from [`SPECS`] (a unit test keeps them equal).
pub fn markdown_table() -> String {
    let code = |v: &str| {
        if v.is_empty() {
            String::new()
        } else {
            format!("`{v}`")
        }
    };
    let mut out = String::from(
        "| setting (`config.toml` key) | environment | flag | default | meaning |\n\
         | --- | --- | --- | --- | --- |\n",
    );
    for sp in SPECS {
        let key = if sp.file {
            code(sp.key)
        } else {
            format!("{} (not in config.toml)", code(sp.key))
        };
        let env: Vec<String> = sp.env.iter().map(|e| code(e)).collect();
        let mut doc = sp.doc.to_string();
        if let Some(f) = sp.fallback {
            doc.push_str(&format!("; falls back to `{f}` in the file"));
        }
        if sp.secret {
            doc.push_str("; a secret: shown as `***`");
        }
        out.push_str(&format!(
            "| {key} | {} | {} | {} | {} |\n",
            env.join(", "),
            code(sp.flag),
            sp.default.map(code).unwrap_or_else(|| "unset".into()),
            doc.replace('|', "\\|"),
        ));
    }
    out
}

/// The value of a row for `config show`, typed when it parses (else the raw text).
fn typed(sp: &Spec, e: &Entry, s: &Settings) -> Value {
    match sp.kind {
        Kind::Bool => s
            .bool(sp.key)
            .map(Value::Bool)
            .unwrap_or_else(|_| Value::from(e.value.clone())),
        Kind::Count => match s.u64(sp.key) {
            Ok(Some(n)) => Value::from(n),
            _ => Value::from(e.value.clone()),
        },
        Kind::Seconds => match s.seconds(sp.key) {
            Ok(Some(x)) => Value::from(x),
            _ => Value::from(e.value.clone()),
        },
        Kind::List => Value::from(s.list(sp.key)),
        _ => Value::from(e.value.clone()),
    }
}

fn bad(e: &Entry, key: &str, what: &str) -> Error {
    Error::invalid(format!("{} must be {what}, got {:?}", e.origin, e.value))
        .with("setting", key.to_string())
}

/// The home when neither `--home` nor `BOB_HOME` names one: `./runtime` when that directory
/// exists (a project's own home), else `$XDG_DATA_HOME/bob`, else `$HOME/.local/share/bob`,
/// else `./runtime`. Returns the directory and how it was chosen.
fn default_home(env: &BTreeMap<String, String>) -> (String, String) {
    let var = |k: &str| env.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
    if std::path::Path::new("runtime").is_dir() {
        return ("runtime".into(), "default (./runtime exists)".into());
    }
    if let Some(d) = var("XDG_DATA_HOME").filter(|d| d.starts_with('/')) {
        return (format!("{d}/bob"), "default ($XDG_DATA_HOME/bob)".into());
    }
    if let Some(h) = var("HOME").filter(|h| h.starts_with('/')) {
        return (
            format!("{h}/.local/share/bob"),
            "default (~/.local/share/bob)".into(),
        );
    }
    ("runtime".into(), "default".into())
}

/// The user's config file: `$XDG_CONFIG_HOME/bob/config.toml`, else
/// `$HOME/.config/bob/config.toml`.
fn user_config_path(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let var = |k: &str| env.get(k).map(|v| v.trim()).filter(|v| v.starts_with('/'));
    var("XDG_CONFIG_HOME")
        .map(|d| PathBuf::from(d).join("bob/config.toml"))
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".config/bob/config.toml")))
}

/// Reads one config file; a missing file is empty.
fn read_config_file(path: &std::path::Path) -> Result<Config> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_config(&text, &path.display().to_string(), OPEN_TABLES)
            .map_err(|e| e.with("path", path.display().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(Config::default()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Reads the user's config file, then `<home>/config.toml` over it (the home's values and
/// tables win) into `key → value text`; missing files are empty.
fn read_config(home: &Home, user: Option<&std::path::Path>) -> Result<Config> {
    let mut config = read_config_file(&home.config_path())?;
    let Some(user) = user.filter(|u| *u != home.config_path()) else {
        return Ok(config);
    };
    let theirs = read_config_file(user)?;
    for (k, v) in theirs.values {
        if !config.values.contains_key(&k) {
            config.from_user.insert(k.clone());
            config.values.insert(k, v);
        }
    }
    for (k, v) in theirs.open {
        config.open.entry(k).or_insert(v);
    }
    config.user_file = user.display().to_string();
    Ok(config)
}

/// Parses config text, refusing unknown keys and values of the wrong type.
fn parse_config(text: &str, name: &str, open_tables: &[&str]) -> Result<Config> {
    let doc: toml::Table =
        toml::from_str(text).map_err(|e| Error::invalid(format!("{name}: {}", e.message())))?;
    let mut out = BTreeMap::new();
    let mut open = BTreeMap::new();
    for (table, v) in &doc {
        if open_tables.contains(&table.as_str()) {
            open.insert(table.clone(), v.clone());
            continue;
        }
        let toml::Value::Table(t) = v else {
            return Err(unknown(name, table));
        };
        for (k, v) in t {
            let key = format!("{table}.{k}");
            let Some(sp) = spec_of(&key).filter(|s| s.file) else {
                return Err(unknown(name, &key));
            };
            let text = value_text(sp, v).ok_or_else(|| {
                Error::invalid(format!(
                    "{name}: {key} must be {}, got {}",
                    match sp.kind {
                        Kind::Bool => "true or false",
                        Kind::Count => "a non-negative integer",
                        Kind::Seconds => "a number of seconds",
                        Kind::List => "an array of strings (without commas)",
                        _ => "a string",
                    },
                    v.type_str()
                ))
                .with("key", key.clone())
            })?;
            out.insert(key, text);
        }
    }
    Ok(Config {
        values: out,
        open,
        ..Config::default()
    })
}

fn unknown(name: &str, key: &str) -> Error {
    let table = key.split('.').next().unwrap_or(key);
    let known: Vec<&str> = SPECS
        .iter()
        .filter(|s| s.file && s.key.split('.').next() == Some(table))
        .map(|s| s.key)
        .collect();
    let mut e = Error::invalid(format!(
        "{name}: unknown key {key:?} (see `bob config show` for the known settings)"
    ))
    .with("key", key.to_string());
    if !known.is_empty() {
        e = e.with("known", known);
    }
    e
}

/// A config value as the text the settings hold, if it has the setting's type.
fn value_text(sp: &Spec, v: &toml::Value) -> Option<String> {
    use toml::Value as T;
    match (sp.kind, v) {
        (Kind::Bool, T::Boolean(b)) => Some(b.to_string()),
        (Kind::Count, T::Integer(n)) if *n >= 0 => Some(n.to_string()),
        (Kind::Seconds, T::Integer(n)) if *n > 0 => Some(n.to_string()),
        (Kind::Seconds, T::Float(x)) if x.is_finite() && *x > 0.0 => Some(x.to_string()),
        (Kind::List, T::Array(items)) => items
            .iter()
            .map(|i| i.as_str().filter(|s| !s.contains(',')).map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(|v| v.join(",")),
        (Kind::List | Kind::Text | Kind::Path | Kind::Url | Kind::Time, T::String(s)) => {
            Some(s.clone())
        }
        (Kind::Text, T::Integer(n)) if sp.key == "memory.rank_budget" => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_user_guide_documents_every_setting_in_one_table() {
        let guide = include_str!("../docs/settings.md");
        let table = markdown_table();
        assert!(
            guide.contains(&table),
            "docs/settings.md's table is stale; replace it with:\n{table}"
        );
    }

    /// docs/design.md#settings: the process environment is read in one place, `src/cli/mod.rs`, which
    /// hands it to [`Settings::load`]; everything else takes its settings from the value.
    /// The exceptions are the documented protocol ones (module docs), each named here.
    #[test]
    fn only_the_command_line_reads_the_environment() {
        const READS: [&str; 6] = [
            "env::var(",
            "env::var_os(",
            "env::vars(",
            "env::vars_os(",
            "getenv(",
            "env::var;",
        ];
        const EXCEPTIONS: [(&str, &str); 3] = [
            ("cli/mod.rs", "captures the environment for Settings::load"),
            (
                "sandbox/mod.rs",
                "LANG/LC_*/TERM pass-through to a sandboxed program",
            ),
            (
                "tools/argv/tests.rs",
                "a unit test honours POSIXLY_CORRECT as glibc does",
            ),
        ];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut stack = vec![root.clone()];
        let mut offenders = Vec::new();
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().and_then(|x| x.to_str()) != Some("rs") {
                    continue;
                }
                seen += 1;
                let rel = p.strip_prefix(&root).unwrap().display().to_string();
                let text = std::fs::read_to_string(&p).unwrap();
                if EXCEPTIONS.iter().any(|(f, _)| *f == rel) {
                    continue;
                }
                // This test names the patterns it looks for.
                let text = match rel.as_str() {
                    "settings.rs" => text.split("#[cfg(test)]").next().unwrap_or(""),
                    _ => text.as_str(),
                };
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    // A clap `env = "…"` reads a variable behind the settings' back too.
                    let clap_env = rel.starts_with("cli/") && code.contains("env = \"");
                    if clap_env || READS.iter().any(|r| code.contains(r)) {
                        offenders.push(format!("src/{rel}:{}: {}", n + 1, line.trim()));
                    }
                }
            }
        }
        assert!(
            seen > 50,
            "walked only {seen} files under {}",
            root.display()
        );
        assert!(
            offenders.is_empty(),
            "read the environment outside src/cli/mod.rs (make it a setting, take it from \
             Settings):\n{}",
            offenders.join("\n")
        );
    }

    #[test]
    fn keys_are_unique_and_tabled() {
        let mut seen = BTreeSet::new();
        for s in SPECS {
            assert!(seen.insert(s.key), "duplicate {}", s.key);
            assert!(!s.file || s.key.contains('.'), "{} needs a table", s.key);
        }
    }

    #[test]
    fn flag_beats_env_beats_config_beats_default() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            "[clock]\nnow = \"2020-01-01T00:00:00Z\"\n[chat]\nmodel = \"file\"\ntimeout_s = 5\n",
        )
        .unwrap();
        let home = Some(dir.path().to_path_buf());
        let s = Settings::load(
            Flags {
                home: home.clone(),
                now: Some("2022-01-01T00:00:00Z".into()),
                ..Flags::default()
            },
            env(&[
                ("BOB_NOW", "2021-01-01T00:00:00Z"),
                ("BOB_CHAT_MODEL", "envm"),
            ]),
        )
        .unwrap();
        assert_eq!(s.source("clock.now"), Source::Flag);
        assert_eq!(s.text("chat.model"), Some("envm"));
        assert_eq!(s.source("chat.model"), Source::Env);
        assert_eq!(s.seconds("chat.timeout_s").unwrap(), Some(5.0));
        assert_eq!(s.source("chat.timeout_s"), Source::Config);
        assert_eq!(s.source("chat.max_retries"), Source::Default);
        assert_eq!(s.source("home"), Source::Flag);
        let s = Settings::load(
            Flags {
                home,
                ..Flags::default()
            },
            env(&[]),
        )
        .unwrap();
        assert_eq!(s.source("clock.now"), Source::Config);
        assert_eq!(s.text("chat.model"), Some("file"));
        // mtg.* falls back to chat.* in the file.
        assert_eq!(s.text("mtg.model"), Some("file"));
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_refused() {
        for bad in [
            "[chat]\nmodle = \"x\"\n",
            "[nope]\nx = 1\n",
            "top = 1\n",
            "[chat]\nbase_url = 5\n",
            "[chat]\ntimeout_s = \"slow\"\n",
            "[home]\nx = 1\n",
        ] {
            let e = Settings::check_config_text(bad).unwrap_err();
            assert_eq!(e.code, crate::error::Code::InvalidRequest, "{bad}");
        }
        Settings::check_config_text("[tools]\nroots = [\"/a\", \"/b\"]\n").unwrap();
    }

    #[test]
    fn an_open_table_is_kept_whole_for_its_owner() {
        let text = "[prices.\"gpt-4o\"]\ninput = 2.5\n[chat]\nmodel = \"m\"\n";
        assert!(parse_config(text, "config.toml", &[]).is_err());
        let c = parse_config(text, "config.toml", &["prices"]).unwrap();
        assert_eq!(c.open["prices"]["gpt-4o"]["input"].as_float(), Some(2.5));
        assert_eq!(c.values["chat.model"], "m");
    }
}
