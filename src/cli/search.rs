//! `bob search`: a SearchRequest run and its fetches staged.

use super::Ctx;
use super::output::read_input;
use crate::contracts::ToolRequest;
use crate::error::{Error, Result};
use crate::tools::domain::search::{Retention, gc_staging};
use crate::tools::{CallDefaults, Policy, PolicyOverrides, Runner};
use serde_json::Value;
use std::path::PathBuf;

/// Run a SearchRequest: fetch, extract and stage web pages, files or search results
///
/// Run a SearchRequest (the JSON I/O contracts) read from stdin: fetch, extract and stage every page under
/// scrape_staging/<uuid>/ and print {items: [SearchResultItem…], errors, memory_candidates}
///
/// The request: {"queries": [...], "fetch_mode": "http"|"file"|"search_api"|"playwright",
/// "k_per_query", "max_pages_per_query", "follow_links", "follow_links_depth",
/// "max_links_per_page", "deny_patterns", "save_raw", "persist_memory"}. It runs as the tool
/// web.search through the tool runner (audited); network access needs net grants (the
/// session's, or --grant), file mode a sandbox root. persist_memory only proposes memory
/// candidates for a human to approve.
///
/// playwright renders each URL in headless Chromium (no Playwright or Node: bob starts the
/// browser itself; setting search.browser / BOB_BROWSER, else Debian's chromium), so text
/// written by scripts is read. Every request the page makes goes through a loopback proxy bob
/// runs for that page, under the same grants and address policy as http mode; what it refuses
/// is listed in "blocked". One page takes at most search.render_timeout_s (30 s) and the
/// call's time; then the browser is killed. No browser installed: upstream.error.
///
/// Staged fetches are kept for --keep-days days, and at most --keep-count of them (the newest):
/// the older ones are removed after each search (reported as staging_removed), or alone with
/// --gc.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only apply the staging retention (no SearchRequest is read); prints {staging_dir, removed, kept}
    #[arg(long)]
    gc: bool,
    /// Keep staged fetches this many days [default: setting search.keep_days
    /// (BOB_STAGING_KEEP_DAYS, config.toml), else 7]
    #[arg(long, value_name = "DAYS")]
    keep_days: Option<u32>,
    /// Keep at most this many staged fetches (the newest) [default: setting search.keep_count
    /// (BOB_STAGING_KEEP_COUNT, config.toml), else 1000]
    #[arg(long, value_name = "N")]
    keep_count: Option<usize>,
    /// Read the SearchRequest from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Session whose granted capabilities apply
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Sandbox root for fetch_mode file
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
    /// Grant a capability (net, net:<domain>) for this search
    #[arg(long, value_name = "CAP")]
    grant: Vec<String>,
    /// Let fetches reach loopback addresses
    #[arg(long)]
    allow_loopback: bool,
    /// Let fetches reach private and link-local addresses
    #[arg(long)]
    allow_private: bool,
    /// Time budget of the whole search
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    timeout_ms: u64,
}

pub fn run(a: Args, ctx: &Ctx) -> Result<()> {
    let settings = ctx.settings.with_flags(|f| {
        f.set("search.keep_days", a.keep_days);
        f.set("search.keep_count", a.keep_count);
    });
    let keep_days = settings.u64("search.keep_days")?.unwrap_or(7);
    let keep_days = i64::try_from(keep_days)
        .ok()
        .and_then(chrono::Duration::try_days)
        .ok_or_else(|| {
            Error::invalid(format!("search.keep_days {keep_days} is too large"))
                .with("setting", "search.keep_days")
        })?;
    let keep_count = settings.u64("search.keep_count")?.unwrap_or(1000);
    let keep = Retention {
        max_age: keep_days,
        max_count: usize::try_from(keep_count).unwrap_or(usize::MAX),
    };
    if a.gc {
        let report = gc_staging(&ctx.home, &keep, crate::clock::now()?)?;
        return ctx.out.doc(&report);
    }
    let text = read_input(a.input.as_deref())?;
    let request: Value =
        serde_json::from_str(&text).map_err(|e| Error::bad_json("SearchRequest", &e))?;
    let policy = Policy::load(
        &ctx.home,
        &ctx.settings,
        a.session.as_deref(),
        PolicyOverrides {
            roots: a.root.clone(),
            // Running `bob search` is the human's choice of this one tool.
            enable: vec!["web.search".into()],
            grant: a.grant.clone(),
            allow_loopback: a.allow_loopback,
            allow_private: a.allow_private,
            ..Default::default()
        },
    )?;
    let defaults = CallDefaults::new()?;
    let mut runner = Runner::new(
        &ctx.home,
        policy,
        &defaults.run_id,
        "human",
        a.session.clone(),
    )?;
    let req = ToolRequest {
        request_id: format!("search_{}", uuid::Uuid::new_v4().simple()),
        run_id: defaults.run_id.clone(),
        agent_id: "human".into(),
        tool: "web.search".into(),
        input: request,
        timeout_ms: a.timeout_ms,
        created_at: crate::clock::rfc3339(crate::clock::now()?),
    };
    let resp = runner.run(&req);
    runner.flush()?;
    match (resp.ok, resp.output, resp.error) {
        (true, Some(mut out), _) => {
            // The fetches just staged are the newest: the retention never removes them
            // unless --keep-count is smaller than this search.
            let gc = gc_staging(&ctx.home, &keep, crate::clock::now()?)?;
            out["staging_removed"] = gc["removed"].clone();
            ctx.out.doc(&out)
        }
        (_, _, Some(e)) => Err(e),
        _ => Err(Error::internal("web.search returned nothing")),
    }
}
