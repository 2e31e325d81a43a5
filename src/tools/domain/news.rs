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

use super::{BaseUrl, Cache, Ctx, Source, clip};
use crate::clock;
use crate::error::{Code, Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashSet;

pub const MAX_ENTRIES_PER_FEED: usize = 500;

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
        let got = cache.get(feed).and_then(|hit| match hit {
            Some(v) => Ok(v),
            None => {
                let base = BaseUrl {
                    url: feed.clone(),
                    source: Source::Env,
                };
                let r = ctx.client(&base)?.get(feed, &[(
                    "Accept",
                    "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, */*;q=0.5",
                )])?;
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
            Err(e) => reports.push(json!({"url": feed, "ok": false, "error": e})),
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
