//! Every setting of bob as one row of [`SPECS`]: its `config.toml` key, the environment
//! variables and the flag that set it, its type, its default and what it means; and the table
//! of docs/settings.md generated from the rows.

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
    pub(super) fn name(self) -> &'static str {
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
    spec("search.browser", &["BOB_BROWSER"], "", None, Path,
        "Chromium (or Chrome) binary that renders fetch_mode playwright pages; unset = /usr/lib/chromium/chromium, else chromium, chromium-browser, google-chrome or google-chrome-stable on PATH"),
    spec("search.render_timeout_s", &["BOB_RENDER_TIMEOUT_S"], "", Some("30"), Seconds,
        "Most seconds one fetch_mode playwright page may take (the call's timeout bounds it too); then the browser is killed"),
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

/// The row of `key`.
pub fn spec_of(key: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.key == key)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_user_guide_documents_every_setting_in_one_table() {
        let guide = include_str!("../../docs/settings.md");
        let table = markdown_table();
        assert!(
            guide.contains(&table),
            "docs/settings.md's table is stale; replace it with:\n{table}"
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
}
