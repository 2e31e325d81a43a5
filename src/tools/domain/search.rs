//! `web.search` / `bob search` (seed 004): a SearchRequest in, SearchResultItems out, every
//! fetch staged under `<home>/scrape_staging/<uuid>/`.
//!
//! * `fetch_mode: http`: each query is a URL, fetched like `web.fetch_text` (the caller's
//!   `net` grants, the address policy, redirects re-checked); with `follow_links`, links of
//!   an HTML page are followed breadth-first up to `follow_links_depth`, at most
//!   `max_links_per_page` per page and `max_pages_per_query` pages per query.
//! * `fetch_mode: file`: each query is a path (or `file://` URL) inside the sandbox root, read
//!   through the sandbox (no path escapes).
//! * `fetch_mode: search_api`: each query goes to the configured search provider (SerpAPI or
//!   SearXNG, as `game.knowledge_search`); its first `k_per_query` results are fetched as in
//!   http mode when the policy allows it, else staged with the provider's snippet (the
//!   failure is listed in `errors`).
//! * `fetch_mode: playwright` is refused (`invalid.request`): bob runs no browser.
//!
//! A URL containing a `deny_patterns` entry (case-insensitive) is neither fetched nor
//! followed. Each staged fetch is a directory `scrape_staging/<uuid>/` holding `content.md`
//! (the extracted text), `raw.html` (the decoded body, when `save_raw`) and `item.json` (the
//! SearchResultItem), all redacted before the write. Staged text reaches long-term memory only
//! through a human: `persist_memory: true` proposes one pending memory candidate per item
//! (`bob memory candidates`), nothing more.

use super::{Ctx, knowledge, web};
use crate::clock;
use crate::error::{Code, Error, Result};
use crate::redact::Redactor;
use crate::store;
use crate::tools::fs::Sandbox;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FetchMode {
    Http,
    File,
    SearchApi,
    Playwright,
}

/// A seed 004 SearchRequest.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// `search_request` (optional).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    pub queries: Vec<String>,
    #[serde(default = "d_http")]
    pub fetch_mode: FetchMode,
    #[serde(default = "d_3")]
    pub k_per_query: usize,
    #[serde(default = "d_2")]
    pub max_pages_per_query: usize,
    #[serde(default)]
    pub follow_links: bool,
    #[serde(default = "d_1")]
    pub follow_links_depth: usize,
    #[serde(default = "d_3")]
    pub max_links_per_page: usize,
    #[serde(default)]
    pub deny_patterns: Vec<String>,
    #[serde(default = "yes")]
    pub save_raw: bool,
    #[serde(default)]
    pub persist_memory: bool,
}

fn d_http() -> FetchMode {
    FetchMode::Http
}
fn d_1() -> usize {
    1
}
fn d_2() -> usize {
    2
}
fn d_3() -> usize {
    3
}
fn yes() -> bool {
    true
}

fn check(r: &SearchRequest) -> Result<()> {
    let bad = |m: String| {
        Err(Error::new(
            Code::ToolInputInvalid,
            format!("search request: {m}"),
        ))
    };
    if r.fetch_mode == FetchMode::Playwright {
        return Err(Error::invalid(
            "fetch_mode playwright is not supported: bob runs no browser; use http, file or search_api",
        )
        .with("fetch_mode", "playwright"));
    }
    if let Some(k) = &r.kind
        && k != "search_request"
    {
        return bad(format!("type must be search_request (got {k:?})"));
    }
    if r.queries.is_empty() || r.queries.len() > 20 {
        return bad("queries must hold 1 to 20 entries".into());
    }
    if r.queries
        .iter()
        .any(|q| q.trim().is_empty() || q.len() > 2000)
    {
        return bad("each query must be 1 to 2000 characters".into());
    }
    for (name, v, max) in [
        ("k_per_query", r.k_per_query, 10),
        ("max_pages_per_query", r.max_pages_per_query, 20),
        ("max_links_per_page", r.max_links_per_page, 20),
    ] {
        if v == 0 || v > max {
            return bad(format!("{name} must be 1 to {max}"));
        }
    }
    if r.follow_links_depth > 3 {
        return bad("follow_links_depth must be 0 to 3".into());
    }
    if r.deny_patterns.len() > 50 || r.deny_patterns.iter().any(|p| p.is_empty()) {
        return bad("deny_patterns: at most 50 non-empty patterns".into());
    }
    Ok(())
}

fn denied(r: &SearchRequest, url: &str) -> bool {
    let u = url.to_lowercase();
    r.deny_patterns
        .iter()
        .any(|p| u.contains(&p.to_lowercase()))
}

/// Stages one fetch and returns its SearchResultItem.
#[allow(clippy::too_many_arguments)]
fn stage(
    ctx: &Ctx<'_>,
    redactor: &Redactor,
    r: &SearchRequest,
    url: &str,
    title: &str,
    content: &str,
    raw: Option<&str>,
    score: f64,
    source: &str,
) -> Result<Value> {
    let id = uuid::Uuid::new_v4().to_string();
    let rel = format!("scrape_staging/{id}/");
    let dir = ctx.home.root().join("scrape_staging").join(&id);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let content = redactor.redact_str(content).into_owned();
    store::write_bytes_atomic(&dir.join("content.md"), content.as_bytes())?;
    if r.save_raw
        && let Some(raw) = raw
    {
        store::write_bytes_atomic(&dir.join("raw.html"), redactor.redact_str(raw).as_bytes())?;
    }
    let snippet: String = content
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(300)
        .collect();
    let mut item = knowledge::item(url, title, &snippet, score, source)?;
    item["content_md"] = json!(content);
    item["token_est"] = json!(content.len().div_ceil(4));
    item["staged_path"] = json!(rel);
    let mut stored = item.clone();
    redactor.redact_value(&mut stored, "");
    store::write_json_atomic(&dir.join("item.json"), &stored)?;
    Ok(item)
}

/// Runs a SearchRequest.
pub fn run(ctx: &Ctx<'_>, sandbox: Option<&Sandbox>, r: &SearchRequest) -> Result<Value> {
    check(r)?;
    let redactor = Redactor::load(ctx.home)?;
    let mut items: Vec<Value> = Vec::new();
    let mut errors: Vec<Value> = Vec::new();
    for q in &r.queries {
        match r.fetch_mode {
            FetchMode::Http => crawl(ctx, &redactor, r, q, 1.0, "web", &mut items, &mut errors)?,
            FetchMode::File => {
                let Some(sb) = sandbox else {
                    return Err(Error::new(
                        Code::SandboxRequired,
                        "fetch_mode file reads inside the tool sandbox: pass --root DIR (or set BOB_TOOL_SANDBOX_ENABLED=1 and BOB_TOOL_ROOTS)",
                    ));
                };
                let path = q.strip_prefix("file://").unwrap_or(q);
                let read = sb.read_text(&crate::tools::registry::ReadTextInput {
                    path: path.to_string(),
                    max_bytes: super::MAX_BODY as u64,
                });
                match read {
                    Ok(v) => {
                        let raw = v["text"].as_str().unwrap_or("").to_string();
                        let is_html = path.ends_with(".html") || path.ends_with(".htm");
                        let ct = if is_html { "text/html" } else { "text/plain" };
                        let p =
                            web::page_of(q, 200, raw, Some(ct), "UTF-8", v["truncated"] == true);
                        let raw = p.is_html.then_some(p.raw.as_str());
                        items.push(stage(
                            ctx, &redactor, r, q, &p.title, &p.content, raw, 1.0, "file",
                        )?);
                    }
                    Err(e) => errors.push(json!({"query": q, "error": e})),
                }
            }
            FetchMode::SearchApi => {
                let found = knowledge::search(
                    ctx,
                    &knowledge::KnowledgeInput {
                        query: q.clone(),
                        game: None,
                        k: r.k_per_query,
                    },
                )?;
                for hit in found["results"].as_array().into_iter().flatten() {
                    let url = hit["url"].as_str().unwrap_or("");
                    if url.is_empty() || denied(r, url) {
                        continue;
                    }
                    let score = hit["score"].as_f64().unwrap_or(0.0);
                    match web::fetch_page(ctx, url) {
                        Ok(p) if p.status < 400 => {
                            let raw = p.is_html.then_some(p.raw.as_str());
                            items.push(stage(
                                ctx,
                                &redactor,
                                r,
                                &p.url,
                                &p.title,
                                &p.content,
                                raw,
                                score,
                                "search_api",
                            )?);
                        }
                        other => {
                            let e = match other {
                                Err(e) => json!(e),
                                Ok(p) => {
                                    json!({"code": "upstream.error", "message": format!("HTTP {}", p.status)})
                                }
                            };
                            errors.push(json!({"query": q, "url": url, "error": e}));
                            let title = hit["title"].as_str().unwrap_or("");
                            let snippet = hit["snippet"].as_str().unwrap_or("");
                            items.push(stage(
                                ctx,
                                &redactor,
                                r,
                                url,
                                title,
                                snippet,
                                None,
                                score,
                                "search_api",
                            )?);
                        }
                    }
                }
            }
            FetchMode::Playwright => unreachable!("refused by check"),
        }
    }
    let mut candidates = Vec::new();
    if r.persist_memory && !items.is_empty() {
        let mem = crate::memory::Memory::open(ctx.home)?;
        for it in &items {
            let mut text = format!(
                "{}\n\n{}\n\nSource: {} (staged at {})",
                it["title"].as_str().unwrap_or(""),
                it["snippet"].as_str().unwrap_or(""),
                it["url"].as_str().unwrap_or(""),
                it["staged_path"].as_str().unwrap_or("")
            );
            text.truncate(text.char_indices().nth(3000).map_or(text.len(), |(i, _)| i));
            let mut c = crate::contracts::MemoryCandidate::new(text);
            c.title = it["title"]
                .as_str()
                .filter(|t| !t.is_empty())
                .map(|t| t.chars().take(120).collect());
            c.kind = "reference".into();
            c.tags = vec!["web".into()];
            c.source = "web.search".into();
            c.why_store = Some("persist_memory was requested for this search".into());
            let row = mem.propose(
                c,
                crate::memory::ProposeCtx {
                    user: None,
                    session_id: ctx.policy.session_id.clone(),
                    run_id: None,
                },
            )?;
            candidates.push(json!(row.id));
        }
    }
    Ok(json!({
        "fetch_mode": r.fetch_mode,
        "count": items.len(),
        "items": items,
        "errors": errors,
        "memory_candidates": candidates,
        "fetched_at": clock::rfc3339(clock::now()?),
    }))
}

/// http mode for one query: the page, then its links breadth-first (module docs).
#[allow(clippy::too_many_arguments)]
fn crawl(
    ctx: &Ctx<'_>,
    redactor: &Redactor,
    r: &SearchRequest,
    start: &str,
    score: f64,
    source: &str,
    items: &mut Vec<Value>,
    errors: &mut Vec<Value>,
) -> Result<()> {
    let mut frontier = vec![start.to_string()];
    let mut seen: Vec<String> = Vec::new();
    let mut pages = 0;
    let max_depth = if r.follow_links {
        r.follow_links_depth
    } else {
        0
    };
    for depth in 0..=max_depth {
        let mut next = Vec::new();
        for url in frontier {
            if pages >= r.max_pages_per_query {
                return Ok(());
            }
            if seen.contains(&url) {
                continue;
            }
            seen.push(url.clone());
            if denied(r, &url) {
                errors.push(json!({"query": start, "url": url, "error": {"code": "policy.denied", "message": "matches a deny pattern"}}));
                continue;
            }
            pages += 1;
            match web::fetch_page(ctx, &url) {
                Ok(p) if p.status < 400 => {
                    if depth < max_depth {
                        next.extend(
                            web::links(&p)
                                .into_iter()
                                .filter(|l| !denied(r, l))
                                .take(r.max_links_per_page),
                        );
                    }
                    let raw = p.is_html.then_some(p.raw.as_str());
                    let s = score / (depth as f64 + 1.0);
                    items.push(stage(ctx, redactor, r, &p.url, &p.title, &p.content, raw, s, source)?);
                }
                Ok(p) => errors.push(json!({"query": start, "url": url, "error": {"code": "upstream.error", "message": format!("HTTP {}", p.status), "status": p.status}})),
                Err(e) => errors.push(json!({"query": start, "url": url, "error": e})),
            }
        }
        frontier = next;
    }
    Ok(())
}
