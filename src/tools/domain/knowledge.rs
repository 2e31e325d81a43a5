//! `game.knowledge_search`: community and meta knowledge through a configured search
//! provider: SerpAPI's Google engine (`SERPAPI_API_KEY`, `BOB_SERPAPI_BASE_URL`) when a key is
//! set, else a SearXNG instance's JSON API (`BOB_SEARXNG_URL`, `/search?format=json`), else a
//! clear `invalid.request` naming what to set. Results are JSON I/O SearchResultItems
//! (`url, title, snippet, content_md, token_est, score, source, domain, fetched_at,
//! staged_path`; nothing is fetched or staged here, so `content_md` is the snippet and
//! `staged_path` is null). Cached under `cache/knowledge/` for an hour; the cache key never
//! holds the API key, and the key is redacted from every error.

use super::{Cache, Ctx, RateLimit, clip, get_limited, status_error};
use crate::clock;
use crate::error::{Code, Error, Result};
use crate::tools::spec::{Kind, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// The `game.knowledge_search` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "game.knowledge_search",
    description: "TURBOTIME: community/meta search through SerpAPI or SearXNG ({query, game?}); SearchResultItems.",
    kind: Kind::Net,
    mutating: false,
    schema: || schemars::schema_for!(KnowledgeInput),
};

pub const CACHE_TTL_S: u64 = 3600;

/// `game.knowledge_search` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeInput {
    pub query: String,
    /// The game the query is about (prefixed to the query).
    #[serde(default)]
    pub game: Option<String>,
    /// At most this many results (1–20, default 8).
    #[serde(default = "d_k")]
    pub k: usize,
}

fn d_k() -> usize {
    8
}

/// One JSON I/O SearchResultItem from a search API hit.
pub fn item(
    url: &str,
    title: &str,
    snippet: &str,
    score: f64,
    source: &str,
) -> Result<SearchResultItem> {
    let domain = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    Ok(SearchResultItem {
        url: url.to_string(),
        title: title.to_string(),
        snippet: snippet.to_string(),
        content_md: snippet.to_string(),
        token_est: snippet.len().div_ceil(4) as u64,
        score,
        source: source.to_string(),
        domain,
        fetched_at: clock::rfc3339(clock::now()?),
        staged_path: None,
    })
}

/// A JSON I/O SearchResultItem: a page found (and, by `web.search`, fetched and staged).
#[derive(Debug, Clone, Serialize)]
pub struct SearchResultItem {
    pub url: String,
    pub title: String,
    pub snippet: String,
    /// The page as Markdown (the snippet when nothing was fetched).
    pub content_md: String,
    pub token_est: u64,
    pub score: f64,
    /// `serpapi`, `searxng`, `web`, `file`, `search_api`, `playwright`.
    pub source: String,
    pub domain: String,
    pub fetched_at: String,
    /// Where it was staged under the home (`scrape_staging/<id>/`); `null` when it was not.
    pub staged_path: Option<String>,
}

/// `game.knowledge_search`'s answer.
#[derive(Serialize)]
struct Found {
    query: String,
    provider: &'static str,
    count: usize,
    results: Vec<SearchResultItem>,
}

pub fn search(ctx: &Ctx<'_>, i: &KnowledgeInput) -> Result<Value> {
    let q = match &i.game {
        Some(g) if !g.trim().is_empty() => format!("{} {}", g.trim(), i.query.trim()),
        _ => i.query.trim().to_string(),
    };
    if i.query.trim().is_empty() || q.len() > 500 {
        return Err(Error::new(
            Code::ToolInputInvalid,
            "game.knowledge_search: query must be 1 to 500 characters",
        ));
    }
    if i.k == 0 || i.k > 20 {
        return Err(Error::new(
            Code::ToolInputInvalid,
            "game.knowledge_search: k must be 1 to 20",
        ));
    }
    let s = ctx.settings;
    let (base, provider) = match (&s.serpapi_key, &s.searxng) {
        (Some(_), _) => (&s.serpapi, "serpapi"),
        (None, Some(x)) => (x, "searxng"),
        (None, None) => {
            return Err(Error::invalid(
                "game.knowledge_search has no search provider: set SERPAPI_API_KEY (SerpAPI; BOB_SERPAPI_BASE_URL to change its address) or BOB_SEARXNG_URL (a SearXNG instance with the JSON format enabled), or serpapi_api_key / searxng_url under [domain] in config.toml",
            ));
        }
    };
    let mut u = url::Url::parse(&format!(
        "{}/{}",
        base.url,
        if provider == "serpapi" {
            "search.json"
        } else {
            "search"
        }
    ))
    .map_err(|e| Error::internal(e.to_string()))?;
    if provider == "serpapi" {
        u.query_pairs_mut()
            .append_pair("engine", "google")
            .append_pair("q", &q)
            .append_pair("num", &i.k.to_string());
    } else {
        u.query_pairs_mut()
            .append_pair("q", &q)
            .append_pair("format", "json");
    }
    let key = format!("{provider} {u} k={}", i.k);
    let cache = Cache::new(ctx.home, "knowledge", CACHE_TTL_S);
    if let Some(v) = cache.get(&key)? {
        return Ok(v);
    }
    let mut full = u.clone();
    if let Some(k) = s.serpapi_key.as_deref().filter(|_| provider == "serpapi") {
        full.query_pairs_mut().append_pair("api_key", k);
    }
    let client = ctx.client(base)?;
    let limit = RateLimit::new(ctx.home, "knowledge", provider, Duration::from_millis(200));
    let api = if provider == "serpapi" {
        "SerpAPI"
    } else {
        "SearXNG"
    };
    let r = get_limited(
        &client,
        &[&limit],
        full.as_str(),
        &[("Accept", "application/json")],
        api,
    )
    .map_err(|e| scrub(e, s.serpapi_key.as_deref()))?;
    let results = if provider == "serpapi" {
        serpapi_items(&r, i.k)
    } else {
        searxng_items(&r, i.k)
    }
    .map_err(|e| scrub(e, s.serpapi_key.as_deref()))?;
    let out = serde_json::to_value(Found {
        query: q,
        provider,
        count: results.len(),
        results,
    })
    .map_err(|e| Error::internal(e.to_string()))?;
    cache.put(&key, &out)?;
    Ok(out)
}

/// Removes the API key from an error's text (a provider may echo the request URL).
pub fn scrub(e: Error, key: Option<&str>) -> Error {
    let Some(k) = key.filter(|k| !k.is_empty()) else {
        return e;
    };
    let text = serde_json::to_string(&e)
        .unwrap_or_default()
        .replace(k, "[REDACTED]");
    serde_json::from_str(&text).unwrap_or_else(|_| Error::new(e.code, "provider error (redacted)"))
}

/// SerpAPI Google results; its `{"error": "Google hasn't returned any results…"}` is an empty
/// result, any other `error` an `upstream.error` (401/403: the key).
pub fn serpapi_items(r: &super::Response, k: usize) -> Result<Vec<SearchResultItem>> {
    let v = match r.json("SerpAPI") {
        Ok(v) => v,
        Err(e) if r.status != 200 => {
            return Err(status_error("SerpAPI", r).with("parse", e.message));
        }
        Err(e) => return Err(e),
    };
    if let Some(err) = v.get("error").and_then(Value::as_str) {
        if r.status == 200 && err.contains("hasn't returned any results") {
            return Ok(Vec::new());
        }
        return Err(Error::new(
            Code::UpstreamError,
            format!("SerpAPI (HTTP {}): {}", r.status, clip(err, 300)),
        )
        .retryable(r.status >= 500)
        .with("status", r.status));
    }
    if r.status != 200 {
        return Err(status_error("SerpAPI", r));
    }
    let rows = v
        .get("organic_results")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let n = rows.len().max(1) as f64;
    rows.iter()
        .filter_map(|o| {
            let link = o.get("link")?.as_str()?;
            let pos = o.get("position").and_then(Value::as_f64).unwrap_or(n);
            Some(item(
                link,
                o.get("title").and_then(Value::as_str).unwrap_or(""),
                o.get("snippet").and_then(Value::as_str).unwrap_or(""),
                1.0 / pos.max(1.0),
                "serpapi",
            ))
        })
        .take(k)
        .collect()
}

fn searxng_items(r: &super::Response, k: usize) -> Result<Vec<SearchResultItem>> {
    if r.status != 200 {
        return Err(status_error("SearXNG", r));
    }
    let v = r.json("SearXNG")?;
    let rows = v.get("results").and_then(Value::as_array).ok_or_else(|| {
        Error::new(
            Code::UpstreamError,
            "SearXNG answered without a results array",
        )
    })?;
    rows.iter()
        .filter_map(|o| {
            let url = o.get("url")?.as_str()?;
            Some(item(
                url,
                o.get("title").and_then(Value::as_str).unwrap_or(""),
                o.get("content").and_then(Value::as_str).unwrap_or(""),
                o.get("score").and_then(Value::as_f64).unwrap_or(0.0),
                "searxng",
            ))
        })
        .take(k)
        .collect()
}
