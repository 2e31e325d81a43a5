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
use crate::tools::spec::answer;
use crate::tools::spec::{Kind, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
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
    let entries: Vec<FeedEntry> = feed
        .entries
        .iter()
        .take(MAX_ENTRIES_PER_FEED)
        .map(|e| FeedEntry {
            title: e.title.as_ref().map(|t| clip(t.content.trim(), 500)),
            link: e.links.first().map(|l| l.href.clone()),
            summary: e.summary.as_ref().map(|s| clip(s.content.trim(), 1000)),
            published: e.published.or(e.updated).map(clock::rfc3339),
        })
        .collect();
    answer(&Feed { source, entries })
}

/// A feed as cached: its title and its newest entries.
#[derive(Serialize)]
struct Feed {
    source: String,
    entries: Vec<FeedEntry>,
}

#[derive(Serialize)]
struct FeedEntry {
    title: Option<String>,
    link: Option<String>,
    summary: Option<String>,
    published: Option<String>,
}

/// `news.headline_search`'s answer.
#[derive(Serialize)]
struct Headlines {
    query: String,
    count: usize,
    headlines: Vec<Headline>,
    feeds: Vec<FeedReport>,
    feeds_failed: usize,
}

/// One headline; its fields as the (cached) feed holds them.
#[derive(Serialize)]
struct Headline {
    title: Value,
    link: Value,
    source: Value,
    published: Value,
}

/// How reading one feed went.
#[derive(Serialize)]
#[serde(untagged)]
enum FeedReport {
    Read {
        url: String,
        /// `true`.
        ok: bool,
        source: Value,
        entries: usize,
        cached: Value,
    },
    Failed {
        url: String,
        /// `false`.
        ok: bool,
        error: Error,
        #[serde(skip_serializing_if = "Option::is_none")]
        retry_after_s: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<bool>,
    },
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
                reports.push(FeedReport::Read {
                    url: feed.clone(),
                    ok: true,
                    source: v["source"].clone(),
                    entries: n,
                    cached: v.get("cached").cloned().unwrap_or(Value::Bool(false)),
                });
                for e in v["entries"].as_array().into_iter().flatten() {
                    let mut e = e.clone();
                    e["source"] = v["source"].clone();
                    all.push(e);
                }
            }
            Err(e) => {
                let retry_after_s = e.details.get("retry_after_s").cloned();
                let skipped = retry_after_s
                    .is_some()
                    .then(|| e.details.contains_key("skipped"));
                reports.push(FeedReport::Failed {
                    url: feed.clone(),
                    ok: false,
                    error: e,
                    retry_after_s,
                    skipped,
                });
            }
        }
    }
    let words: Vec<String> = i.query.split_whitespace().map(str::to_lowercase).collect();
    let mut seen = HashSet::new();
    let mut hits: Vec<Headline> = all
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
        .map(|e| Headline {
            title: e["title"].clone(),
            link: e["link"].clone(),
            source: e["source"].clone(),
            published: e["published"].clone(),
        })
        .collect();
    // RFC 3339 in UTC sorts as text; undated headlines last.
    hits.sort_by(|a, b| {
        b.published
            .as_str()
            .unwrap_or("")
            .cmp(a.published.as_str().unwrap_or(""))
    });
    hits.truncate(i.limit);
    let failed = reports
        .iter()
        .filter(|r| matches!(r, FeedReport::Failed { .. }))
        .count();
    answer(&Headlines {
        query: i.query.clone(),
        count: hits.len(),
        headlines: hits,
        feeds: reports,
        feeds_failed: failed,
    })
}
