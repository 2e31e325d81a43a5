//! `news.headline_search`: headlines matching a query from the RSS, Atom and JSON Feed feeds
//! the operator configured (`BOB_NEWS_FEEDS`, or `news_feeds` in `config.toml`'s `[domain]`),
//! parsed with `feed-rs`.
//!
//! Each feed is fetched through the domain client (a feed's host is that feed's API host: a
//! TURBOTIME selection reaches the configured feeds and nothing else) and its parsed entries
//! cached under `cache/news/` for `BOB_NEWS_CACHE_TTL_S` (default 900 s). A feed that fails
//! (unreachable, HTTP error, not a feed) is reported in `feeds` with its error and the others
//! still answer. Headlines match when every query word is in the title or summary
//! (case-insensitive), are deduplicated by link (then title), sorted newest first, and cut to
//! `limit`. At most [`MAX_ENTRIES_PER_FEED`] entries of one feed are kept.
//!
//! A feed that answers 429 or 503 with `Retry-After` (delta-seconds or an HTTP date; a 429
//! without one counts as [`DEFAULT_429_WAIT_S`]) is not asked again until then, by any bob
//! process of the home (wall-clock time kept in `cache/news/retry-after.<sha256 of url>`):
//! until then it is reported `{ok: false, skipped: true, retry_after_s}` without a request,
//! and the other feeds still answer.

use super::{BaseUrl, Cache, Ctx, Source, clip};
use crate::clock;
use crate::error::{Code, Error, Result};
use crate::tools::spec::{Kind, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashSet;

/// The `news.headline_search` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "news.headline_search",
    description: "TURBOTIME: headlines from the configured RSS/Atom/JSON feeds ({query, since?, limit?}), deduplicated, newest first.",
    kind: Kind::Net,
    mutating: false,
    schema: || schemars::schema_for!(NewsInput),
};

pub const MAX_ENTRIES_PER_FEED: usize = 500;

/// How long a feed that answers 429 without a `Retry-After` is left alone.
pub const DEFAULT_429_WAIT_S: u64 = 60;

/// When a feed may be asked again, shared by every process of the home (module docs).
struct FeedPause {
    path: std::path::PathBuf,
}

impl FeedPause {
    fn new(ctx: &Ctx<'_>, feed: &str) -> FeedPause {
        FeedPause {
            path: ctx.home.cache_dir().join("news").join(format!(
                "retry-after.{}",
                crate::store::sha256_hex(feed.as_bytes())
            )),
        }
    }
    /// Seconds left before the feed may be asked again (None: ask now).
    fn remaining_s(&self) -> Option<u64> {
        let until: u64 = std::fs::read_to_string(&self.path)
            .ok()?
            .trim()
            .parse()
            .ok()?;
        let now = super::wall_ms();
        (until > now).then(|| (until - now).div_ceil(1000))
    }
    fn set(&self, secs: u64) -> Result<()> {
        if let Some(d) = self.path.parent() {
            std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
        }
        let until = super::wall_ms().saturating_add(secs.saturating_mul(1000));
        crate::store::write_bytes_atomic(&self.path, until.to_string().as_bytes())
    }
}

/// `news.headline_search` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewsInput {
    /// Words that must all appear in a headline's title or summary (empty: every headline).
    #[serde(default)]
    pub query: String,
    /// Only headlines published at or after this RFC 3339 time.
    #[serde(default)]
    pub since: Option<String>,
    /// At most this many headlines (1–100, default 20).
    #[serde(default = "d_limit")]
    pub limit: usize,
}

fn d_limit() -> usize {
    20
}

fn parse_feed(url: &str, body: &[u8]) -> Result<Value> {
    let feed = feed_rs::parser::parse(body).map_err(|e| {
        Error::new(
            Code::UpstreamError,
            format!("not an RSS, Atom or JSON feed: {e}"),
        )
    })?;
    let source = feed
        .title
        .as_ref()
        .map(|t| t.content.clone())
        .unwrap_or_else(|| url.to_string());
    let entries: Vec<Value> = feed
        .entries
        .iter()
        .take(MAX_ENTRIES_PER_FEED)
        .map(|e| {
            let published = e.published.or(e.updated).map(clock::rfc3339);
            json!({
                "title": e.title.as_ref().map(|t| clip(t.content.trim(), 500)),
                "link": e.links.first().map(|l| l.href.clone()),
                "summary": e.summary.as_ref().map(|s| clip(s.content.trim(), 1000)),
                "published": published,
            })
        })
        .collect();
    Ok(json!({"source": source, "entries": entries}))
}

pub fn search(ctx: &Ctx<'_>, i: &NewsInput) -> Result<Value> {
    if i.limit == 0 || i.limit > 100 {
        return Err(Error::new(
            Code::ToolInputInvalid,
            "news.headline_search: limit must be 1 to 100",
        ));
    }
    if i.query.len() > 500 {
        return Err(Error::new(
            Code::ToolInputInvalid,
            "news.headline_search: query is longer than 500 characters",
        ));
    }
    let since = match &i.since {
        Some(s) => Some(clock::parse_rfc3339(s).map_err(|_| {
            Error::new(
                Code::ToolInputInvalid,
                format!("news.headline_search: since must be an RFC 3339 time (got {s:?})"),
            )
        })?),
        None => None,
    };
    if ctx.settings.news_feeds.is_empty() {
        return Err(Error::invalid(
            "news.headline_search has no feeds: set BOB_NEWS_FEEDS (comma-separated feed URLs) or news_feeds = [...] under [domain] in config.toml",
        ));
    }
    let cache = Cache::new(ctx.home, "news", ctx.settings.news_cache_ttl_s);
    let mut reports = Vec::new();
    let mut all: Vec<Value> = Vec::new();
    for feed in &ctx.settings.news_feeds {
        let pause = FeedPause::new(ctx, feed);
        let got = cache.get(feed).and_then(|hit| match hit {
            Some(v) => Ok(v),
            None => {
                if let Some(secs) = pause.remaining_s() {
                    return Err(Error::new(
                        Code::UpstreamError,
                        format!("feed asked bob to wait (Retry-After); skipped for {secs} s more"),
                    )
                    .retryable(true)
                    .with("skipped", true)
                    .with("retry_after_s", secs));
                }
                let base = BaseUrl {
                    url: feed.clone(),
                    source: Source::Env,
                };
                let r = ctx.client(&base)?.get(feed, &[(
                    "Accept",
                    "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, */*;q=0.5",
                )])?;
                if r.status == 429 || r.status == 503 {
                    let wait = r.retry_after.as_deref().and_then(super::retry_after_s);
                    let wait = if r.status == 429 {
                        Some(wait.unwrap_or(DEFAULT_429_WAIT_S))
                    } else {
                        wait
                    };
                    if let Some(secs) = wait {
                        pause.set(secs)?;
                        return Err(super::status_error("feed", &r).with("retry_after_s", secs));
                    }
                }
                if r.status != 200 {
                    return Err(super::status_error("feed", &r));
                }
                if r.truncated {
                    return Err(Error::new(
                        Code::UpstreamError,
                        format!("feed is larger than {} bytes", super::MAX_BODY),
                    ));
                }
                let v = parse_feed(feed, &r.body)?;
                cache.put(feed, &v)?;
                Ok(v)
            }
        });
        match got {
            Ok(v) => {
                let n = v["entries"].as_array().map_or(0, Vec::len);
                reports.push(json!({"url": feed, "ok": true, "source": v["source"], "entries": n, "cached": v.get("cached").cloned().unwrap_or(json!(false))}));
                for e in v["entries"].as_array().into_iter().flatten() {
                    let mut e = e.clone();
                    e["source"] = v["source"].clone();
                    all.push(e);
                }
            }
            Err(e) => {
                let mut r = json!({"url": feed, "ok": false, "error": e});
                if let Some(secs) = e.details.get("retry_after_s") {
                    r["retry_after_s"] = secs.clone();
                    r["skipped"] = json!(e.details.get("skipped").is_some());
                }
                reports.push(r);
            }
        }
    }
    let words: Vec<String> = i.query.split_whitespace().map(str::to_lowercase).collect();
    let mut seen = HashSet::new();
    let mut hits: Vec<Value> = all
        .into_iter()
        .filter(|e| {
            let hay = format!(
                "{} {}",
                e["title"].as_str().unwrap_or(""),
                e["summary"].as_str().unwrap_or("")
            )
            .to_lowercase();
            words.iter().all(|w| hay.contains(w.as_str()))
        })
        .filter(|e| match (since, e["published"].as_str()) {
            (Some(s), Some(p)) => clock::parse_rfc3339(p).is_ok_and(|p| p >= s),
            (Some(_), None) => false,
            (None, _) => true,
        })
        .filter(|e| {
            let key = e["link"]
                .as_str()
                .map(str::to_string)
                .or_else(|| e["title"].as_str().map(|t| t.trim().to_lowercase()))
                .unwrap_or_default();
            !key.is_empty() && seen.insert(key)
        })
        .map(|e| {
            json!({"title": e["title"], "link": e["link"], "source": e["source"], "published": e["published"]})
        })
        .collect();
    // RFC 3339 in UTC sorts as text; undated headlines last.
    hits.sort_by(|a, b| {
        b["published"]
            .as_str()
            .unwrap_or("")
            .cmp(a["published"].as_str().unwrap_or(""))
    });
    hits.truncate(i.limit);
    let failed = reports.iter().filter(|r| r["ok"] == false).count();
    Ok(json!({
        "query": i.query,
        "count": hits.len(),
        "headlines": hits,
        "feeds": reports,
        "feeds_failed": failed,
    }))
}
