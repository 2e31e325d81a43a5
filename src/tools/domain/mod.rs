//! Domain tools (docs/design.md#module-map): real clients of public APIs, each with a base URL the
//! operator can point anywhere (the tests point them at local fixture servers).
//!
//! * TURBOTIME (the Bob v0 runtime): [`scryfall`] (`scryfall.lookup`), [`steam`] (`steam.game_lookup`),
//!   [`news`] (`news.headline_search`), [`knowledge`] (`game.knowledge_search`).
//! * JSON I/O: [`web`] (`web.fetch_text`), [`bom`] (`bom.normalize`), [`commerce`]
//!   (`commerce.search_offers`), [`spreadsheet`] (`docs.write_spreadsheet`), [`bom_build`]
//!   (`bom.build`), [`search`] (`web.search` and `bob search`: SearchRequest → staged
//!   SearchResultItems), [`render`] (its `fetch_mode: playwright`: pages rendered by headless
//!   Chromium behind a proxy that applies the http policy).
//!
//! Shared plumbing lives here:
//!
//! * [`DomainSettings`]: base URLs and keys, environment over `config.toml`'s `[domain]` table
//!   over the providers' public defaults.
//! * [`Client`]: the one HTTP path of every domain tool. Each hop goes through the same checks as
//!   `http.get` ([`super::http::check_hop`]: scheme, `net` capability, the class of every
//!   resolved address, redirects re-checked hop by hop, connection pinned to the checked
//!   addresses). Two things differ, and only for the tool's own API host (the host of its base
//!   URL): a TURBOTIME selection is the grant for it, and a loopback base URL is reachable when
//!   the operator set it (environment or `config.toml`), which is how the tests run. A redirect
//!   to any other host needs the session's own grants, exactly as for `http.get`.
//! * [`Cache`]: `cache/<tool>/<sha256 of the request key>.json`, fresh for a TTL by the
//!   injected clock, redacted before the write and written atomically through [`crate::store`].
//!   Request keys never carry an API key (callers build them without it).
//! * [`RateLimit`]: a minimum interval between requests to one API shared by every bob process
//!   of the home: a lock file and a state file holding the earliest time the next request may
//!   start, under `cache/<tool>/`. A 429 pushes that time out by its `Retry-After`.
//! * [`turbotime`]: the per-session toggle and selection (`sessions/<id>/turbotime.json`).

pub mod bom;
pub mod bom_build;
pub mod commerce;
pub mod html;
pub mod knowledge;
pub mod news;
pub mod render;
pub mod scryfall;
pub mod search;
pub mod spreadsheet;
pub mod steam;
pub mod turbotime;
pub mod web;

use super::policy::Policy;
use crate::clock;
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::redact::Redactor;
use crate::settings::{self, Settings};
use crate::store;
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Public default of `BOB_SCRYFALL_BASE_URL`.
pub const SCRYFALL_DEFAULT: &str = "https://api.scryfall.com";
/// Public default of `BOB_STEAM_BASE_URL` (the storefront API).
pub const STEAM_DEFAULT: &str = "https://store.steampowered.com";
/// Public default of `BOB_SERPAPI_BASE_URL`.
pub const SERPAPI_DEFAULT: &str = "https://serpapi.com";
/// Cap on a domain API response body.
pub const MAX_BODY: usize = super::http::MAX_BODY;
/// Longest URL a domain tool fetches or returns (a redirect to a longer one is refused).
pub const MAX_URL_BYTES: usize = 8 * 1024;

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Env,
    ConfigToml,
    Default,
}

/// One base URL and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BaseUrl {
    pub url: String,
    pub source: Source,
}

impl BaseUrl {
    /// Set by the operator (environment or config.toml), not the built-in default.
    pub fn operator_set(&self) -> bool {
        self.source != Source::Default
    }
}

/// Base URLs and keys of the domain tools.
#[derive(Debug, Clone)]
pub struct DomainSettings {
    pub scryfall: BaseUrl,
    pub steam: BaseUrl,
    pub serpapi: BaseUrl,
    /// `SERPAPI_API_KEY` / `serpapi_api_key`; `secret:NAME` names a secret of the home's store.
    pub serpapi_key: Option<String>,
    /// `BOB_SEARXNG_URL` / `searxng_url`: a SearXNG instance (its `/search?format=json`).
    pub searxng: Option<BaseUrl>,
    /// `BOB_NEWS_FEEDS` (comma-separated) / `news_feeds` (an array).
    pub news_feeds: Vec<String>,
    pub news_cache_ttl_s: u64,
}

/// The base URL of setting `key`, checked; `None` when unset with no default.
fn base(settings: &Settings, key: &str) -> Result<Option<BaseUrl>> {
    let Some(e) = settings.get(key) else {
        return Ok(None);
    };
    let source = match e.source {
        settings::Source::Flag | settings::Source::Env => Source::Env,
        settings::Source::Config => Source::ConfigToml,
        settings::Source::Default => Source::Default,
    };
    let (url, origin) = (e.value.trim().to_string(), e.origin.as_str());
    let parsed = url::Url::parse(&url).map_err(|err| {
        Error::invalid(format!("{origin}: not a URL: {url:?} ({err})")).with("setting", key)
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(Error::invalid(format!(
            "{origin} must be an http(s) URL with a host (got {url:?})"
        ))
        .with("setting", key));
    }
    Ok(Some(BaseUrl {
        url: url.trim_end_matches('/').to_string(),
        source,
    }))
}

impl DomainSettings {
    /// The `domain.*` settings (environment over `config.toml` `[domain]` over the providers'
    /// defaults). A malformed URL or number is `invalid.request` naming the setting.
    pub fn from_settings(home: &Home, settings: &Settings) -> Result<DomainSettings> {
        let required = |key: &str| {
            base(settings, key)?.ok_or_else(|| Error::internal(format!("{key} has no default")))
        };
        let serpapi = required("domain.serpapi_base_url")?;
        Ok(DomainSettings {
            scryfall: required("domain.scryfall_base_url")?,
            steam: required("domain.steam_base_url")?,
            // `secret:NAME` is the named secret of the home's store.
            serpapi_key: match settings
                .text("domain.serpapi_api_key")
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
            {
                Some(v) => Some(
                    // Bound to the origin it was set (or first used) for.
                    crate::secrets::resolve_ref(home, &v, &serpapi.url, "domain.serpapi_base_url")
                        .map_err(|e| {
                            if e.details.contains_key("setting") {
                                e
                            } else {
                                e.with("setting", "SERPAPI_API_KEY")
                            }
                        })?
                        .0,
                ),
                None => None,
            },
            serpapi,
            searxng: base(settings, "domain.searxng_url")?,
            news_feeds: settings.list("domain.news_feeds"),
            news_cache_ttl_s: settings.u64("domain.news_cache_ttl_s")?.unwrap_or(900),
        })
    }
}

/// What a tool call may use: the home, the session's policy, the settings, the time budget.
pub struct Ctx<'a> {
    pub home: &'a Home,
    pub policy: &'a Policy,
    pub settings: &'a DomainSettings,
    pub timeout: Duration,
    /// When the call must have answered (`timeout` from its start): every fetch of the call
    /// waits at most the time left but a reserve ([`super::deadline::Deadline::for_fetch`]),
    /// and CPU work runs where it can be abandoned.
    pub deadline: super::deadline::Deadline,
    /// The canonical name of the running tool.
    pub tool: &'static str,
    /// The runner's id source (seeded in replay mode).
    pub ids: &'a std::sync::Mutex<crate::ids::IdSource>,
}

impl Ctx<'_> {
    /// A fresh uuid from the runner's id source.
    pub fn uuid4(&self) -> uuid::Uuid {
        match self.ids.lock() {
            Ok(mut ids) => ids.uuid4(),
            Err(_) => uuid::Uuid::new_v4(),
        }
    }
}

impl Ctx<'_> {
    /// Whether TURBOTIME is on for the session and this tool is selected.
    pub fn turbotime_selected(&self) -> bool {
        self.policy.turbotime_selected(self.tool)
    }

    /// A client for the API at `base`.
    pub fn client(&self, base: &BaseUrl) -> Result<Client> {
        Client::new(self, base)
    }
}

/// A response from a domain API.
#[derive(Debug)]
pub struct Response {
    pub url: String,
    pub status: u16,
    pub content_type: Option<String>,
    pub retry_after: Option<String>,
    pub body: Vec<u8>,
    pub truncated: bool,
}

impl Response {
    /// The body as JSON, or `upstream.error` saying the API sent something else.
    pub fn json(&self, api: &str) -> Result<Value> {
        serde_json::from_slice(&self.body).map_err(|e| {
            Error::new(
                Code::UpstreamError,
                format!(
                    "{api} sent a response that is not valid JSON (HTTP {}): {e}",
                    self.status
                ),
            )
            .with("status", self.status)
        })
    }
}

/// The HTTP path of one domain tool call (see the module docs).
pub struct Client {
    policy: Policy,
    deadline: super::deadline::Deadline,
}

impl Client {
    fn new(ctx: &Ctx<'_>, base: &BaseUrl) -> Result<Client> {
        let u = url::Url::parse(&base.url)
            .map_err(|e| Error::invalid(format!("base URL {:?}: {e}", base.url)))?;
        let host = match u.host() {
            Some(url::Host::Domain(d)) => d.to_string(),
            Some(url::Host::Ipv4(a)) => a.to_string(),
            Some(url::Host::Ipv6(a)) => a.to_string(),
            None => {
                return Err(Error::invalid(format!(
                    "base URL {:?} has no host",
                    base.url
                )));
            }
        };
        let mut policy = ctx.policy.clone();
        if ctx.turbotime_selected() {
            // Bob v0: a selected TURBOTIME tool bypasses the gate, for its own API host only.
            policy.capabilities_granted.push(format!("net:{host}"));
        } else if !policy.net_allows(&host) {
            let how = match &policy.session_id {
                Some(s) => format!(
                    "a human selects it with `bob tool turbotime on --session {s} --select {}` or grants `net:{host}` with `bob caps grant --session {s} net:{host}`",
                    ctx.tool
                ),
                None => format!(
                    "the caller grants it with `bob tool run --grant net:{host}`, or a human selects it in a session's TURBOTIME (`bob tool turbotime on --session ID --select {}`)",
                    ctx.tool
                ),
            };
            return Err(Error::denied(format!(
                "{} calls {host}, which needs the capability net:{host} or a TURBOTIME selection; {how}",
                ctx.tool
            ))
            .with("tool", ctx.tool)
            .with("host", host));
        }
        let loopback = matches!(u.host(), Some(url::Host::Ipv4(a)) if a.is_loopback())
            || matches!(u.host(), Some(url::Host::Ipv6(a)) if a.is_loopback())
            || host.eq_ignore_ascii_case("localhost");
        if base.operator_set() && loopback {
            policy.allow_loopback = true;
        }
        Ok(Client {
            policy,
            deadline: ctx.deadline.for_fetch(),
        })
    }

    /// A client under the caller's policy as is (no API host): `web.fetch_text`'s, which is
    /// `http.get`'s policy.
    pub fn plain(ctx: &Ctx<'_>) -> Client {
        Client {
            policy: ctx.policy.clone(),
            deadline: ctx.deadline.for_fetch(),
        }
    }

    /// GET `url` with `headers`, each hop checked; the body capped at [`MAX_BODY`].
    pub fn get(&self, url: &str, headers: &[(&str, &str)]) -> Result<Response> {
        let first = super::http::check_hop(url, &self.policy)?;
        let p = self.policy.clone();
        let deadline = self.deadline;
        deadline.check()?;
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        std::thread::scope(|s| {
            s.spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| Error::internal(format!("tokio runtime: {e}")))?;
                rt.block_on(async move {
                    match tokio::time::timeout(deadline.remaining(), hops(first, &p, &headers))
                        .await
                    {
                        Ok(r) => r,
                        Err(_) => Err(deadline.error()),
                    }
                })
            })
            .join()
            .unwrap_or_else(|_| Err(Error::internal("domain client worker panicked")))
        })
    }
}

async fn hops(
    first: super::http::Hop,
    p: &Policy,
    headers: &[(String, String)],
) -> Result<Response> {
    let mut hop = first;
    let mut chain: Vec<String> = Vec::new();
    loop {
        let client = super::http::pinned_client(&hop)?;
        let mut req = client.get(hop.url.clone());
        for (k, v) in headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let mut resp = req.send().await.map_err(|e| {
            Error::new(
                Code::UpstreamError,
                format!("GET {}: {e}", hop.url.origin().ascii_serialization()),
            )
        })?;
        let status = resp.status();
        if status.is_redirection()
            && let Some(loc) = resp.headers().get(reqwest::header::LOCATION)
        {
            if chain.len() >= super::http::MAX_REDIRECTS {
                return Err(Error::new(Code::UpstreamError, "too many redirects"));
            }
            let loc = loc
                .to_str()
                .map_err(|_| Error::new(Code::UpstreamError, "redirect Location is not text"))?;
            let next = hop.url.join(loc).map_err(|e| {
                Error::new(
                    Code::UpstreamError,
                    format!("bad redirect Location {loc:?}: {e}"),
                )
            })?;
            if next.as_str().len() > MAX_URL_BYTES {
                return Err(Error::new(
                    Code::UpstreamError,
                    format!("a redirect Location is longer than {MAX_URL_BYTES} bytes"),
                ));
            }
            chain.push(hop.url.origin().ascii_serialization());
            hop = super::http::check_hop(next.as_str(), p)
                .map_err(|e| e.with("redirected_from", chain.clone()))?;
            continue;
        }
        let h = |name: reqwest::header::HeaderName| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let content_type = h(reqwest::header::CONTENT_TYPE);
        let retry_after = h(reqwest::header::RETRY_AFTER);
        let (body, truncated) = super::http::read_capped(&mut resp, MAX_BODY).await?;
        return Ok(Response {
            url: hop.url.to_string(),
            status: status.as_u16(),
            content_type,
            retry_after,
            body,
            truncated,
        });
    }
}

/// Seconds to wait from a `Retry-After` value (delta-seconds, or an HTTP date), if parseable.
pub fn retry_after_s(v: &str) -> Option<u64> {
    let v = v.trim();
    if let Ok(s) = v.parse::<u64>() {
        return Some(s);
    }
    let t = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let now = chrono::Utc::now();
    Some((t.with_timezone(&chrono::Utc) - now).num_seconds().max(0) as u64)
}

/// A per-tool cache directory with a TTL (see the module docs).
pub struct Cache {
    dir: PathBuf,
    ttl_s: i64,
    home: Home,
}

impl Cache {
    pub fn new(home: &Home, tool_dir: &str, ttl_s: u64) -> Cache {
        Cache {
            dir: home.cache_dir().join(tool_dir),
            ttl_s: ttl_s as i64,
            home: home.clone(),
        }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(format!("{}.json", store::sha256_hex(key.as_bytes())))
    }

    /// A fresh entry for `key`: its value with `cached: true` and `age_s`.
    pub fn get(&self, key: &str) -> Result<Option<Value>> {
        let Ok(Some(entry)) = store::read_json::<Value>(&self.path(key)) else {
            return Ok(None);
        };
        let now = clock::now()?.timestamp();
        let Some(at) = entry.get("fetched_at_unix").and_then(Value::as_i64) else {
            return Ok(None);
        };
        let want = store::sha256_hex(key.as_bytes());
        if entry.get("key_sha256").and_then(Value::as_str) != Some(want.as_str()) {
            return Ok(None);
        }
        if now < at || now - at >= self.ttl_s {
            return Ok(None);
        }
        let mut v = entry.get("value").cloned().unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("cached".into(), Value::Bool(true));
            m.insert("age_s".into(), Value::from(now - at));
        }
        Ok(Some(v))
    }

    /// Stores `value` for `key`, redacted, atomically.
    pub fn put(&self, key: &str, value: &Value) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        let now = clock::now()?;
        let r = Redactor::load(&self.home)?;
        let mut entry = super::spec::answer(&CacheEntry {
            key_sha256: store::sha256_hex(key.as_bytes()),
            fetched_at: clock::rfc3339(now),
            fetched_at_unix: now.timestamp(),
            value,
        })?;
        r.redact_value(&mut entry, "");
        store::write_json_atomic(&self.path(key), &entry)
    }
}

/// A cached answer on disk: the key's digest (never the key: it may hold a query), when it was
/// fetched and the answer.
#[derive(Serialize)]
struct CacheEntry<'a> {
    key_sha256: String,
    fetched_at: String,
    fetched_at_unix: i64,
    value: &'a Value,
}

/// Milliseconds since the epoch by the wall clock (rate limits are real time, not `BOB_NOW`).
pub(crate) fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A minimum interval between requests, shared by every process of the home (module docs).
pub struct RateLimit {
    state: PathBuf,
    interval: Duration,
}

impl RateLimit {
    pub fn new(home: &Home, tool_dir: &str, bucket: &str, interval: Duration) -> RateLimit {
        RateLimit {
            state: home
                .cache_dir()
                .join(tool_dir)
                .join(format!("ratelimit.{bucket}")),
            interval,
        }
    }

    /// Waits for this process's turn (at most `budget`; `upstream.error` if the wait would be
    /// longer), then books the next slot.
    pub fn acquire(&self, budget: Duration) -> Result<()> {
        if let Some(d) = self.state.parent() {
            std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
        }
        let _lock = store::Lock::exclusive(&store::lock_path(&self.state))?;
        let next: u64 = std::fs::read_to_string(&self.state)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        let now = wall_ms();
        if next > now {
            let wait = Duration::from_millis(next - now);
            if wait > budget {
                return Err(Error::new(
                    Code::UpstreamError,
                    format!(
                        "the API asked bob to wait {} s before the next request (rate limit); try again later",
                        wait.as_secs().max(1)
                    ),
                )
                .retryable(true)
                .with("retry_after_s", wait.as_secs().max(1)));
            }
            std::thread::sleep(wait);
        }
        let at = wall_ms().max(next) + self.interval.as_millis() as u64;
        std::fs::write(&self.state, at.to_string()).map_err(|e| Error::io(&self.state, e))
    }

    /// After a 429: no process of this home sends before `secs` from now.
    pub fn back_off(&self, secs: u64) -> Result<()> {
        let _lock = store::Lock::exclusive(&store::lock_path(&self.state))?;
        let at = wall_ms() + secs.saturating_mul(1000);
        let cur: u64 = std::fs::read_to_string(&self.state)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        std::fs::write(&self.state, at.max(cur).to_string()).map_err(|e| Error::io(&self.state, e))
    }
}

/// Longest `Retry-After` bob waits out inside one call before it reports the limit instead.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(5);

/// GET through the rate limit; a 429 is honoured once (wait its `Retry-After` if short, else
/// report it with `retry_after_s`), never retried in a loop.
pub fn get_limited(
    client: &Client,
    limits: &[&RateLimit],
    url: &str,
    headers: &[(&str, &str)],
    api: &str,
) -> Result<Response> {
    let started = Instant::now();
    for attempt in 0..2 {
        for l in limits {
            l.acquire(MAX_RETRY_WAIT)?;
        }
        let r = client.get(url, headers)?;
        if r.status != 429 {
            return Ok(r);
        }
        let secs = r
            .retry_after
            .as_deref()
            .and_then(retry_after_s)
            .unwrap_or(1);
        for l in limits {
            l.back_off(secs)?;
        }
        if attempt == 1
            || Duration::from_secs(secs) > MAX_RETRY_WAIT.saturating_sub(started.elapsed())
        {
            return Err(Error::new(
                Code::UpstreamError,
                format!("{api} is rate limiting bob (HTTP 429); retry after {secs} s"),
            )
            .retryable(true)
            .with("status", 429)
            .with("retry_after_s", secs));
        }
    }
    unreachable!("the loop returns")
}

/// `upstream.error` for an unexpected HTTP status.
pub fn status_error(api: &str, r: &Response) -> Error {
    // Redacted before the cut: the error lands in the audit log.
    let body = String::from_utf8_lossy(&r.body);
    let snippet: String = crate::redact::before_cut(&body).chars().take(300).collect();
    Error::new(
        Code::UpstreamError,
        format!("{api} answered HTTP {}", r.status),
    )
    .retryable(r.status >= 500)
    .with("status", r.status)
    .with("body", snippet)
}

/// Cuts `s` to at most `n` characters.
pub fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}
