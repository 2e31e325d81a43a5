//! `web.search` / `bob search` (the JSON I/O contracts): a SearchRequest in, SearchResultItems out, every
//! fetch staged under `<home>/scrape_staging/<uuid>/`.
//!
//! * `fetch_mode: http`: each query is a URL, fetched like `web.fetch_text` (the caller's
//!   `net` grants, the address policy, redirects re-checked); with `follow_links`, links of
//!   an HTML page are followed breadth-first up to `follow_links_depth`, at most
//!   `max_links_per_page` per page and `max_pages_per_query` pages per query.
//! * `fetch_mode: file`: each query is a path (or `file://` URL) inside the sandbox root, read
//!   through the sandbox (no path escapes); with `follow_links`, an HTML file's relative
//!   (and `file:`) links are followed the same way, as paths inside the root (http links are
//!   not: file mode reads no network).
//! * `fetch_mode: search_api`: each query goes to the configured search provider (SerpAPI or
//!   SearXNG, as `game.knowledge_search`); its first `k_per_query` results are fetched (and,
//!   with `follow_links`, crawled) as in http mode when the policy allows it, with
//!   `max_pages_per_query` pages per result; a result whose page cannot be fetched is staged
//!   with the provider's snippet (the failure is listed in `errors`).
//! * `fetch_mode: playwright`: each query is a URL rendered by headless Chromium (see
//!   [`super::render`]: no Playwright, no Node, bob starts the browser itself), so text that
//!   scripts write is read; every request the page makes goes through a loopback proxy that
//!   applies the http mode's policy (grants, address policy, redirects re-checked, size caps,
//!   `deny_patterns`). The rendered DOM is then extracted, staged and crawled as in http mode
//!   (`raw.html` holds the rendered DOM); the requests the proxy refused are listed in the
//!   answer's `blocked`. No browser installed is `upstream.error`, before any fetch.
//!
//! A URL containing a `deny_patterns` entry (case-insensitive) is neither fetched nor
//! followed. Each staged fetch is a directory `scrape_staging/<uuid>/` holding `content.md`
//! (the extracted text), `raw.html` (the decoded body, when `save_raw`) and `item.json` (the
//! SearchResultItem), all redacted before the write. Staged text reaches long-term memory only
//! through a human: `persist_memory: true` proposes one pending memory candidate per item
//! (`bob memory candidates`), nothing more.

use super::knowledge::{self, SearchResultItem};
use super::{Ctx, render, web};
use crate::clock;
use crate::error::{Code, Error, Result};
use crate::redact::Redactor;
use crate::store;
use crate::tools::fs::Sandbox;
use crate::tools::spec::answer;
use crate::tools::spec::{Kind, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `web.search` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "web.search",
    description: "Run a JSON I/O SearchRequest ({queries, fetch_mode: http|file|search_api|playwright, k_per_query, max_pages_per_query, follow_links, …}): each fetch staged under scrape_staging/<uuid>/, SearchResultItems returned; playwright renders each URL in headless Chromium (scripts run, every request under the http policy); persist_memory only proposes candidates.",
    kind: Kind::Net,
    mutating: false,
    schema: || schemars::schema_for!(SearchRequest),
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FetchMode {
    Http,
    File,
    SearchApi,
    Playwright,
}

/// A JSON I/O SearchRequest.
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
) -> Result<SearchResultItem> {
    let id = ctx.uuid4().to_string();
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
    item.token_est = content.len().div_ceil(4) as u64;
    item.content_md = content;
    item.staged_path = Some(rel);
    let mut stored = serde_json::to_value(&item).map_err(|e| Error::internal(e.to_string()))?;
    redactor.redact_value(&mut stored, "");
    store::write_json_atomic(&dir.join("item.json"), &stored)?;
    Ok(item)
}

/// Runs a SearchRequest.
pub fn run(ctx: &Ctx<'_>, sandbox: Option<&Sandbox>, r: &SearchRequest) -> Result<Value> {
    check(r)?;
    let redactor = Redactor::load(ctx.home)?;
    let mut items: Vec<SearchResultItem> = Vec::new();
    let mut errors: Vec<PageFailure> = Vec::new();
    let mut blocked: Vec<BlockedRequest> = Vec::new();
    // No browser: one clear error before anything is fetched.
    let browser = match r.fetch_mode {
        FetchMode::Playwright => Some(render::Browser::find(&ctx.policy.settings)?),
        _ => None,
    };
    for q in &r.queries {
        match r.fetch_mode {
            FetchMode::Http | FetchMode::Playwright => {
                let mut fetch_http = |u: &str| web::fetch_page(ctx, u);
                let mut rendered = |u: &str| {
                    let Some(browser) = &browser else {
                        return Err(Error::internal("playwright mode without a browser"));
                    };
                    let done = render::render(ctx, browser, u, &r.deny_patterns)?;
                    for b in done.blocked {
                        if blocked.len() < MAX_BLOCKED {
                            blocked.push(BlockedRequest {
                                query: q.clone(),
                                page: done.page.url.clone(),
                                url: b.url,
                                error: b.error,
                            });
                        }
                    }
                    Ok(done.page)
                };
                let (fetch, source): (&mut FetchPage<'_>, _) = match r.fetch_mode {
                    FetchMode::Playwright => (&mut rendered, "web"),
                    _ => (&mut fetch_http, "web"),
                };
                let crawl_ = Crawl {
                    query: q,
                    score: 1.0,
                    source,
                };
                crawl_.run(
                    ctx,
                    &redactor,
                    r,
                    q,
                    fetch,
                    &web::links,
                    &mut items,
                    &mut errors,
                )?;
            }
            FetchMode::File => {
                let Some(sb) = sandbox else {
                    return Err(Error::new(
                        Code::SandboxRequired,
                        "fetch_mode file reads inside the tool sandbox: pass --root DIR (or set BOB_TOOL_SANDBOX_ENABLED=1 and BOB_TOOL_ROOTS)",
                    ));
                };
                let start = q.strip_prefix("file://").unwrap_or(q);
                let mut fetch = |path: &str| read_file_page(sb, path, ctx.deadline);
                let crawl_ = Crawl {
                    query: q,
                    score: 1.0,
                    source: "file",
                };
                crawl_.run(
                    ctx,
                    &redactor,
                    r,
                    start,
                    &mut fetch,
                    &file_links,
                    &mut items,
                    &mut errors,
                )?;
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
                    let crawl_ = Crawl {
                        query: q,
                        score,
                        source: "search_api",
                    };
                    let mut fetch = |u: &str| web::fetch_page(ctx, u);
                    let staged = crawl_.run(
                        ctx,
                        &redactor,
                        r,
                        url,
                        &mut fetch,
                        &web::links,
                        &mut items,
                        &mut errors,
                    )?;
                    if !staged {
                        // The result page could not be fetched: stage the provider's snippet.
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
    }
    let mut candidates = Vec::new();
    if r.persist_memory && !items.is_empty() {
        let mem = crate::memory::Memory::open(ctx.home)?;
        for it in &items {
            let mut text = format!(
                "{}\n\n{}\n\nSource: {} (staged at {})",
                it.title,
                it.snippet,
                it.url,
                it.staged_path.as_deref().unwrap_or("")
            );
            text.truncate(text.char_indices().nth(3000).map_or(text.len(), |(i, _)| i));
            let mut c = crate::contracts::MemoryCandidate::new(text);
            c.title = Some(it.title.as_str())
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
            candidates.push(row.id);
        }
    }
    answer(&Searched {
        fetch_mode: r.fetch_mode,
        count: items.len(),
        items,
        errors,
        blocked,
        memory_candidates: candidates,
        fetched_at: clock::rfc3339(clock::now()?),
    })
}

/// `web.search`'s answer.
#[derive(Serialize)]
struct Searched {
    fetch_mode: FetchMode,
    count: usize,
    items: Vec<SearchResultItem>,
    errors: Vec<PageFailure>,
    /// `fetch_mode: playwright`: requests of the rendered pages the proxy refused (absent
    /// in the other modes and when nothing was refused).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    blocked: Vec<BlockedRequest>,
    memory_candidates: Vec<String>,
    fetched_at: String,
}

/// Most refused requests one search lists.
const MAX_BLOCKED: usize = 200;

/// A request a rendered page made that the proxy refused or could not complete: the page
/// was still staged, without what that request would have brought.
#[derive(Serialize)]
struct BlockedRequest {
    query: String,
    /// The page being rendered.
    page: String,
    /// The refused request.
    url: String,
    error: Error,
}

/// A page that was not staged, and why.
#[derive(Serialize)]
struct PageFailure {
    query: String,
    url: String,
    error: Failure,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Failure {
    /// Refused before fetching (a deny pattern) or answered with an HTTP error status.
    Refused {
        code: &'static str,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
    },
    Failed(Error),
}

/// A file of the sandbox as a page (HTML by its extension); its `url` is the path as given.
fn read_file_page(
    sb: &Sandbox,
    path: &str,
    deadline: crate::tools::deadline::Deadline,
) -> Result<web::Page> {
    let v = sb.read_text(&crate::tools::fs::ReadTextInput {
        path: path.to_string(),
        max_bytes: super::MAX_BODY as u64,
    })?;
    let raw = v["text"].as_str().unwrap_or("").to_string();
    let lower = path.to_ascii_lowercase();
    let ct = if lower.ends_with(".html") || lower.ends_with(".htm") {
        "text/html"
    } else {
        "text/plain"
    };
    web::page_of(
        path,
        200,
        raw,
        Some(ct),
        "UTF-8",
        v["truncated"] == true,
        deadline,
    )
}

/// The links of a sandbox file page that name other files (relative hrefs, `file:` URLs),
/// as paths resolved against the page's own path; a relative page gives relative paths, so
/// every path is read inside the root again (an `..` cannot climb above it). http(s) links
/// are not followed in file mode: it reads no network.
fn file_links(page: &web::Page) -> Vec<String> {
    let relative = !page.url.starts_with('/');
    let base = if relative {
        format!("file:///{}", page.url)
    } else {
        format!("file://{}", page.url)
    };
    let Ok(base) = url::Url::parse(&base) else {
        return Vec::new();
    };
    web::joined_links(page, Some(&base), &["file"])
        .into_iter()
        .filter_map(|u| url::Url::parse(&u).ok()?.to_file_path().ok())
        .filter_map(|p| {
            let s = p.to_str()?.to_string();
            Some(if relative {
                s.trim_start_matches('/').to_string()
            } else {
                s
            })
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// How a crawl fetches one page (a URL, or a path in file mode).
type FetchPage<'a> = dyn FnMut(&str) -> Result<web::Page> + 'a;

/// One query's crawl (any fetch mode): the start page, then its links breadth-first up to
/// `follow_links_depth` (when `follow_links`), at most `max_links_per_page` links per page and
/// `max_pages_per_query` pages per start; a page at depth d scores `score / (d + 1)`.
struct Crawl<'a> {
    query: &'a str,
    score: f64,
    source: &'a str,
}

impl Crawl<'_> {
    /// Returns whether the start page itself was staged.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        ctx: &Ctx<'_>,
        redactor: &Redactor,
        r: &SearchRequest,
        start: &str,
        fetch: &mut FetchPage<'_>,
        follow: &dyn Fn(&web::Page) -> Vec<String>,
        items: &mut Vec<SearchResultItem>,
        errors: &mut Vec<PageFailure>,
    ) -> Result<bool> {
        let mut frontier = vec![start.to_string()];
        let mut seen: Vec<String> = Vec::new();
        let mut pages = 0;
        let mut start_staged = false;
        let max_depth = if r.follow_links {
            r.follow_links_depth
        } else {
            0
        };
        let query = self.query;
        for depth in 0..=max_depth {
            let mut next = Vec::new();
            for url in frontier {
                if pages >= r.max_pages_per_query {
                    return Ok(start_staged);
                }
                if seen.contains(&url) {
                    continue;
                }
                seen.push(url.clone());
                if denied(r, &url) {
                    errors.push(PageFailure {
                        query: query.to_string(),
                        url,
                        error: Failure::Refused {
                            code: "policy.denied",
                            message: "matches a deny pattern".into(),
                            status: None,
                        },
                    });
                    continue;
                }
                pages += 1;
                match fetch(&url) {
                    Ok(p) if p.status < 400 => {
                        if depth < max_depth {
                            next.extend(
                                follow(&p)
                                    .into_iter()
                                    .filter(|l| !denied(r, l))
                                    .take(r.max_links_per_page),
                            );
                        }
                        let raw = p.is_html.then_some(p.raw.as_str());
                        let s = self.score / (depth as f64 + 1.0);
                        items.push(stage(
                            ctx,
                            redactor,
                            r,
                            &p.url,
                            &p.title,
                            &p.content,
                            raw,
                            s,
                            self.source,
                        )?);
                        start_staged |= depth == 0;
                    }
                    Ok(p) => errors.push(PageFailure {
                        query: query.to_string(),
                        url,
                        error: Failure::Refused {
                            code: "upstream.error",
                            message: format!("HTTP {}", p.status),
                            status: Some(p.status),
                        },
                    }),
                    Err(e) => errors.push(PageFailure {
                        query: query.to_string(),
                        url,
                        error: Failure::Failed(e),
                    }),
                }
            }
            frontier = next;
        }
        Ok(start_staged)
    }
}

/// How long staged fetches are kept under `scrape_staging/` (see [`gc_staging`]).
#[derive(Debug, Clone, Copy)]
pub struct Retention {
    /// Older staged fetches are removed.
    pub max_age: chrono::Duration,
    /// At most this many (the newest) are kept.
    pub max_count: usize,
}

/// Applies `keep` to `scrape_staging/`: a staged fetch (a `<uuid>/` directory) is removed when
/// it was fetched before `now - max_age` (its `item.json` `fetched_at`, else the directory's
/// modification time) or when it is not among the `max_count` newest. Anything that is not a
/// uuid-named directory is left alone (nothing is followed through a symlink). Returns
/// `{staging_dir, removed, kept}`.
pub fn gc_staging(
    home: &crate::home::Home,
    keep: &Retention,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Value> {
    let dir = home.root().join("scrape_staging");
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return answer(&Pruned {
                staging_dir: dir.display().to_string(),
                removed: 0,
                kept: 0,
            });
        }
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let mut staged: Vec<(chrono::DateTime<chrono::Utc>, std::path::PathBuf)> = Vec::new();
    for e in rd.filter_map(|e| e.ok()) {
        let name = e.file_name();
        let is_uuid = name
            .to_str()
            .is_some_and(|n| uuid::Uuid::parse_str(n).is_ok());
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if !is_uuid || !meta.is_dir() {
            continue;
        }
        let fetched = store::read_json::<Value>(&e.path().join("item.json"))
            .ok()
            .flatten()
            .and_then(|v| v["fetched_at"].as_str().map(str::to_string))
            .and_then(|t| clock::parse_rfc3339(&t).ok());
        let when = match fetched {
            Some(t) => t,
            None => match meta.modified() {
                Ok(t) => chrono::DateTime::<chrono::Utc>::from(t),
                Err(_) => continue,
            },
        };
        staged.push((when, e.path()));
    }
    // Newest first (then by name, for a stable order).
    staged.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let cutoff = now - keep.max_age;
    let mut removed = 0;
    let mut kept = 0;
    for (i, (when, path)) in staged.iter().enumerate() {
        if i < keep.max_count && *when >= cutoff {
            kept += 1;
            continue;
        }
        match std::fs::remove_dir_all(path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    answer(&Pruned {
        staging_dir: dir.display().to_string(),
        removed,
        kept,
    })
}

/// What a prune of the staging area did.
#[derive(Serialize)]
struct Pruned {
    staging_dir: String,
    removed: u64,
    kept: u64,
}
