//! Where the chat backend is and how to talk to it (Bob v0 "Model configuration").
//!
//! Precedence, highest first: command-line flags (`--base-url`, `--model`, `--api-key-env`,
//! timeouts), then environment variables, then `<home>/config.toml`, then the Bob v0 defaults.
//! Everything but the command's flags comes from [`crate::settings::Settings`] (keys `chat.*`
//! and `mtg.*`; each `mtg.*` key of the file falls back to the same `chat.*` key).
//!
//! | setting | chat route | mtg route | default |
//! | --- | --- | --- | --- |
//! | base URL | `BOB_CHAT_BASE_URL`, `OPENAI_BASE_URL` | `BOB_MTG_BASE_URL`, `OPENAI_BASE_URL` | `https://api.openai.com/v1` |
//! | API key | `BOB_CHAT_API_KEY`, `OPENAI_API_KEY` | `BOB_MTG_API_KEY`, `OPENAI_API_KEY` | none (no `Authorization` header) |
//! | model | `BOB_CHAT_MODEL` | `BOB_MTG_MODEL`, `BOB_CHAT_MODEL` | `gpt-4o-mini` / `gpt-5` |
//!
//! `BOB_ROUTE_MTG_REMOTE=true` sends MTG calls to the MTG settings; otherwise MTG calls use the
//! chat settings. Timeouts: `BOB_CHAT_CONNECT_TIMEOUT` (seconds, default 10),
//! `BOB_CHAT_TIMEOUT` (read timeout in seconds, default 120); retries: `BOB_CHAT_MAX_RETRIES`
//! (default 3 retries after the first attempt), `BOB_CHAT_RETRY_BASE_MS` (default 500).
//!
//! The config file has a `[chat]` table and an optional `[mtg]` table with the same keys:
//!
//! ```toml
//! [chat]
//! base_url = "http://127.0.0.1:8080/v1"
//! model = "qwen2.5-7b-instruct"
//! api_key_env = "MY_LLM_KEY"      # name of the variable holding the key (preferred)
//! connect_timeout_s = 5
//! timeout_s = 60
//! max_retries = 2
//! backend = "openai"              # or "replay:/path/to/script.jsonl"
//! ```

use crate::error::{Error, Result};
use crate::settings::{Settings, Source};
use std::time::Duration;

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_CHAT_MODEL: &str = "gpt-4o-mini";
pub const DEFAULT_MTG_MODEL: &str = "gpt-5";

/// Which configuration a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Route {
    #[default]
    Chat,
    Mtg,
}

/// Values given on the command line; they beat everything else.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Name of the environment variable that holds the API key.
    pub api_key_env: Option<String>,
    pub connect_timeout_s: Option<f64>,
    pub timeout_s: Option<f64>,
    pub max_retries: Option<u32>,
}

/// The resolved settings of the OpenAI-compatible client.
#[derive(Clone)]
pub struct ChatConfig {
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    /// Where the key came from (a variable name or `config.toml`), for `describe`.
    pub api_key_source: Option<String>,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    pub max_retries: u32,
    pub retry_base: Duration,
    /// Cap on one backoff sleep, and on a `Retry-After` bob is willing to wait.
    pub retry_cap: Duration,
    /// `BOB_LLAMA_SLOT_RESET=1`: erase a llama-server slot before each call.
    pub slot_reset: Option<u32>,
    /// `BOB_LOG_PAYLOADS=1`: log (redacted) request and response bodies to stderr.
    pub log_payloads: bool,
    /// True when anything (flag, env, file) configured this backend explicitly.
    pub explicit: bool,
}

impl std::fmt::Debug for ChatConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[REDACTED]"))
            .finish_non_exhaustive()
    }
}

fn secs(what: &str, x: f64) -> Result<Duration> {
    if x.is_finite() && x > 0.0 && x < 86_400.0 {
        Ok(Duration::from_secs_f64(x))
    } else {
        Err(Error::invalid(format!(
            "{what} must be between 0 and 86400 seconds, got {x}"
        )))
    }
}

/// Whether MTG calls go to the MTG settings (`mtg.route_remote`, `BOB_ROUTE_MTG_REMOTE=true`).
pub fn route_mtg_remote(settings: &Settings) -> Result<bool> {
    settings.bool("mtg.route_remote")
}

impl ChatConfig {
    /// Resolves the settings for `route`: the command's flags, then [`Settings`] (environment,
    /// `config.toml`, defaults).
    pub fn resolve(settings: &Settings, route: Route, flags: &Overrides) -> Result<ChatConfig> {
        let route = if route == Route::Mtg && !route_mtg_remote(settings)? {
            Route::Chat
        } else {
            route
        };
        let table = match route {
            Route::Chat => "chat",
            Route::Mtg => "mtg",
        };
        let key = |name: &str| format!("{table}.{name}");
        let explicit = flags.base_url.is_some()
            || flags.api_key_env.is_some()
            || settings.is_set(&key("base_url"))
            || settings.is_set(&key("api_key"))
            || settings.is_set(&key("api_key_env"))
            || settings.has_config_table(table)
            || (route == Route::Mtg && settings.has_config_table("chat"));

        let base_url = flags
            .base_url
            .clone()
            .or_else(|| settings.text(&key("base_url")).map(str::to_string))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let parsed = url::Url::parse(&base_url)
            .map_err(|e| Error::invalid(format!("base URL {base_url:?} is not a URL: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::invalid(format!(
                "base URL {base_url:?} must be http or https"
            )));
        }
        let model = flags
            .model
            .clone()
            .or_else(|| settings.text(&key("model")).map(str::to_string))
            .unwrap_or_else(|| match route {
                Route::Chat => DEFAULT_CHAT_MODEL.to_string(),
                Route::Mtg => DEFAULT_MTG_MODEL.to_string(),
            });

        // The key: a flag naming a variable, then a key in the environment, then the config
        // file (this route's own table before the [chat] fallback; a variable name before a
        // literal key).
        let by_var = |var: &str, what: String| -> Result<(Option<String>, Option<String>)> {
            match settings.env_var(var) {
                Some(k) => Ok((Some(k.to_string()), Some(var.to_string()))),
                None => Err(Error::invalid(format!(
                    "{what} {var}: that environment variable is not set"
                ))),
            }
        };
        let key_entry = settings.get(&key("api_key"));
        let var_entry = settings.get(&key("api_key_env"));
        let own_table = |e: &crate::settings::Entry, name: &str| {
            e.origin == format!("config.toml {}", key(name))
        };
        let (api_key, api_key_source) = if let Some(var) = &flags.api_key_env {
            by_var(var, "--api-key-env".into())?
        } else if let Some(e) = key_entry.filter(|e| e.source == Source::Env) {
            (Some(e.value.clone()), Some(e.origin.clone()))
        } else {
            let mut file: Vec<(&crate::settings::Entry, bool)> = Vec::new();
            for own in [true, false] {
                if let Some(e) = var_entry.filter(|e| own_table(e, "api_key_env") == own) {
                    file.push((e, true));
                }
                if let Some(e) = key_entry.filter(|e| own_table(e, "api_key") == own) {
                    file.push((e, false));
                }
            }
            match file.first() {
                Some((e, true)) => by_var(&e.value, format!("{} =", e.origin))?,
                Some((e, false)) => (Some(e.value.clone()), Some("config.toml".to_string())),
                None => (None, None),
            }
        };

        let connect = match flags.connect_timeout_s {
            Some(x) => Some(x),
            None => settings.seconds(&key("connect_timeout_s"))?,
        };
        let read = match flags.timeout_s {
            Some(x) => Some(x),
            None => settings.seconds(&key("timeout_s"))?,
        };
        let max_retries = match flags.max_retries {
            Some(x) => x,
            None => settings
                .u64(&key("max_retries"))?
                .map(|x| x.min(20) as u32)
                .unwrap_or(3),
        };
        let retry_base_ms = settings.u64(&key("retry_base_ms"))?.unwrap_or(500);
        let slot_reset = if settings.bool("chat.llama_slot_reset")? {
            Some(settings.u64("chat.llama_slot_id")?.unwrap_or(0) as u32)
        } else {
            None
        };
        Ok(ChatConfig {
            base_url: base_url.trim_end_matches('/').to_string(),
            model,
            api_key,
            api_key_source,
            connect_timeout: secs("connect timeout", connect.unwrap_or(10.0))?,
            read_timeout: secs("read timeout", read.unwrap_or(120.0))?,
            max_retries: max_retries.min(20),
            retry_base: Duration::from_millis(retry_base_ms.min(60_000)),
            retry_cap: Duration::from_secs(settings.u64("chat.retry_cap_s")?.unwrap_or(60)),
            slot_reset,
            log_payloads: settings.bool("chat.log_payloads")?,
            explicit,
        })
    }

    /// The `/chat/completions` endpoint.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }

    /// The llama-server slot-erase URL (`/slots/<id>?action=erase` at the server root, i.e.
    /// the base URL without a trailing `/v1`).
    pub fn slot_erase_url(&self, slot: u32) -> String {
        let root = self.base_url.strip_suffix("/v1").unwrap_or(&self.base_url);
        format!("{root}/slots/{slot}?action=erase")
    }
}
