//! The dashboard's conversation and all-runs views (the HTTP API contract), token-authenticated
//! like the rest and read-only: a message is sent with `POST /v1/runs {agent_id, session_id,
//! message}` (a run in that session) and watched on `GET /v1/runs/{id}/events`.
//!
//! * `GET /api/admin/runs?limit&offset`: every run of the home, newest first, whoever started
//!   it: the run bundles under `runs/` (written for `bob turn`, the scheduler's turns and served
//!   runs alike) joined with the server's queue (runs still queued or running, and runs that
//!   ended before they had a bundle). Each names its `source` (`cli`, `http`, `chat`,
//!   `schedule` with its `job_id` (from the scheduler's history: its turn is a child `bob
//!   turn`), `eval`) and whether the queue holds it (`queued_here`: `/v1/runs/{id}` knows it).
//! * `GET /api/admin/runs/{id}`: one run's bundle (request, turn record, events, tool results),
//!   as `bob runs show` prints it; `not_found` when the run has no bundle yet.
//! * `GET /api/admin/sessions?limit`: the sessions with runs or a checkpoint, most recently
//!   active first: `{session_id, agent_id, runs, last_ts, last_message, revision}`.
//! * `GET /api/admin/sessions/{id}/messages`: the session's conversation, oldest first, from
//!   its runs' turn records and requests: the user's message, each tool result (`role: tool`,
//!   with `tool_name`, `tool_call_id`, its summary and error) and the answer (`role:
//!   assistant`, with the run's `status`, and `error` when it failed). A run still queued or
//!   running shows its message with `pending: true`. The checkpoint's recent user and
//!   assistant messages that no run recorded (a `bob chat -s` exchange, turns from before run
//!   bundles) are shown too, after the run message they follow there, with
//!   `from_checkpoint: true`.

use super::api::{ApiResult, blocking, check_limit, with_reader};
use super::queue::RunRow;
use super::shared::Shared;
use crate::contracts::http::{
    AdminConversation, AdminMessage, AdminRun, AdminRunList, AdminSession, AdminSessionList,
    BundledRun, ErrorAnswerBrief, ErrorBrief, QueuedRun, RunOutcome,
};
use crate::contracts::{ChatMessage, Role, RunBundle, RunSummary};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::ids;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/admin/runs", get(runs))
        .route("/api/admin/runs/{id}", get(run))
        .route("/api/admin/sessions", get(sessions))
        .route("/api/admin/sessions/{id}/messages", get(messages))
}

/// Longest output or message shown in a listing, in characters.
const PREVIEW_CHARS: usize = 200;

/// Statuses a queue row may have while its run has no bundle.
const UNBUNDLED: [&str; 4] = ["queued", "running", "failed", "cancelled"];

/// Most queue rows of each [`UNBUNDLED`] status joined into a listing.
const QUEUE_ROWS: u64 = 500;

fn preview(s: &str) -> String {
    let mut it = s.chars();
    let head: String = it.by_ref().take(PREVIEW_CHARS).collect();
    if it.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// `?limit&offset` (and nothing else) of a listing; `limit` 1..=500, default 50.
fn page(q: Option<String>) -> ApiResult<(u64, u64)> {
    let (mut limit, mut offset) = (50u64, 0u64);
    for (k, v) in url::form_urlencoded::parse(q.unwrap_or_default().as_bytes()) {
        let num = |what: &str| {
            v.parse::<u64>().map_err(|_| {
                Error::invalid(format!("{what} must be a non-negative integer (got {v:?})"))
                    .with("field", what)
            })
        };
        match k.as_ref() {
            "limit" => limit = num("limit")?,
            "offset" => offset = num("offset")?,
            other => {
                return Err(Error::invalid(format!("unknown query parameter {other:?}")).into());
            }
        }
    }
    check_limit(limit)?;
    Ok((limit, offset))
}

/// The queue rows that may lack a bundle (see [`UNBUNDLED`]), by id.
async fn unbundled_rows(shared: &Arc<Shared>) -> ApiResult<HashMap<String, RunRow>> {
    with_reader(shared, |q| {
        let mut out = HashMap::new();
        for s in UNBUNDLED {
            for r in q.list(Some(s), QUEUE_ROWS, 0)?.0 {
                out.insert(r.id.clone(), r);
            }
        }
        Ok(out)
    })
    .await
}

/// A bundle's `request.json` (what was asked), if it reads.
fn request_of(home: &Home, run_id: &str) -> Option<Value> {
    let path = crate::runs::dir(home, run_id).ok()?.join("request.json");
    crate::store::read_json::<Value>(&path).ok().flatten()
}

/// A run of the home before its listing entry is filled in: a bundle (with when its turn
/// record was written), or a queue row without one.
enum Listed<'a> {
    Bundle(RunSummary, u64),
    Queued(&'a RunRow),
}

impl Listed<'_> {
    fn id(&self) -> &str {
        match self {
            Listed::Bundle(b, _) => &b.run_id,
            Listed::Queued(r) => &r.id,
        }
    }
    fn session_id(&self) -> &str {
        match self {
            Listed::Bundle(b, _) => &b.session_id,
            Listed::Queued(r) => &r.session_id,
        }
    }
    fn agent_id(&self) -> &str {
        match self {
            Listed::Bundle(b, _) => &b.agent_id,
            Listed::Queued(r) => &r.agent_id,
        }
    }
    fn ts(&self) -> &str {
        match self {
            Listed::Bundle(b, _) => &b.ts,
            Listed::Queued(r) => &r.created_at,
        }
    }
    /// A run still in the queue without a bundle counts as the newest of its start time.
    fn written(&self) -> u64 {
        match self {
            Listed::Bundle(_, w) => *w,
            Listed::Queued(_) => u64::MAX,
        }
    }
}

/// A queue row as a listing entry.
fn row_entry(r: &RunRow) -> QueuedRun {
    QueuedRun {
        id: r.id.clone(),
        session_id: r.session_id.clone(),
        agent_id: r.agent_id.clone(),
        source: r.source.clone(),
        status: r.status.clone(),
        ts: r.created_at.clone(),
        tool_calls: r.tool_calls,
        duration_ms: r.duration_ms,
        message: preview(&r.message),
        output: preview(r.output.as_deref().unwrap_or_default()),
        error: r.error.as_ref().map(ErrorBrief::of),
        queued_here: true,
    }
}

/// When a bundle's turn record was written (nanoseconds since the epoch; 0 when unknown):
/// orders runs that started in the same second, or under a pinned clock.
fn written_ns(home: &Home, run_id: &str) -> u64 {
    crate::runs::dir(home, run_id)
        .ok()
        .and_then(|d| std::fs::metadata(d.join("record.json")).ok())
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The runs the scheduler started, by run id, with their job: a scheduled turn is a child
/// `bob turn`, whose bundle says `cli`; the scheduler's history says whose it was.
fn scheduled_runs(home: &Home) -> HashMap<String, String> {
    let Ok((history, _)) = crate::schedule::Scheduler::new(home).history(None) else {
        return HashMap::new();
    };
    history
        .into_iter()
        .filter_map(|r| Some((r.run_id?, r.job_id)))
        .collect()
}

/// Every run of the home (bundles joined with the queue's rows), newest first, before their
/// bundle details are read ([`complete`] fills those in).
fn every_run<'a>(home: &Home, rows: &'a HashMap<String, RunRow>) -> Result<Vec<Listed<'a>>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for b in crate::runs::list(home)? {
        seen.insert(b.run_id.clone());
        let written = written_ns(home, &b.run_id);
        out.push(Listed::Bundle(b, written));
    }
    for r in rows.values().filter(|r| !seen.contains(&r.id)) {
        out.push(Listed::Queued(r));
    }
    out.sort_by(|a, b| {
        b.ts()
            .cmp(a.ts())
            .then_with(|| b.written().cmp(&a.written()))
            .then_with(|| b.id().cmp(a.id()))
    });
    Ok(out)
}

/// A run's listing entry: a bundle's filled in from its request and turn record (source,
/// message, output, duration, error); a served run takes its status from the queue, the
/// server's own record.
fn complete(
    home: &Home,
    rows: &HashMap<String, RunRow>,
    scheduled: &HashMap<String, String>,
    run: Listed,
) -> AdminRun {
    let b = match run {
        Listed::Queued(r) => return AdminRun::Queued(row_entry(r)),
        Listed::Bundle(b, _) => b,
    };
    let request = request_of(home, &b.run_id).unwrap_or_default();
    let record = crate::runs::record(home, &b.run_id).ok().flatten();
    let job_id = scheduled.get(&b.run_id).cloned();
    let source = match job_id {
        Some(_) => Value::from("schedule"),
        None => request
            .get("source")
            .cloned()
            .unwrap_or_else(|| Value::from("unknown")),
    };
    let status = rows
        .get(&b.run_id)
        .map_or(b.status, |row| row.status.clone());
    let queued_here = rows.contains_key(&b.run_id) || source == "http" || source == "chat";
    AdminRun::Bundled(BundledRun {
        message: preview(request["message"].as_str().unwrap_or_default()),
        outcome: record.map(|r| RunOutcome {
            output: preview(&r.output),
            duration_ms: r.latency_ms,
            error: r.error.map(|e| ErrorAnswerBrief {
                code: e.code,
                message: e.message,
            }),
        }),
        id: b.run_id,
        session_id: b.session_id,
        agent_id: b.agent_id,
        status,
        ts: b.ts,
        tool_calls: b.tools,
        queued_here,
        source,
        job_id,
    })
}

/// The `limit` entries of `all` from `offset` on, and how many there are in all.
fn one_page<T>(all: Vec<T>, limit: u64, offset: u64) -> (Vec<T>, u64) {
    let total = all.len() as u64;
    let page = all
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .collect();
    (page, total)
}

async fn runs(
    State(shared): State<Arc<Shared>>,
    RawQuery(q): RawQuery,
) -> ApiResult<axum::Json<AdminRunList>> {
    let (limit, offset) = page(q)?;
    let rows = unbundled_rows(&shared).await?;
    let home = shared.home.clone();
    let (runs, total) = blocking(move || {
        let (list, total) = one_page(every_run(&home, &rows)?, limit, offset);
        let scheduled = scheduled_runs(&home);
        let runs = list
            .into_iter()
            .map(|run| complete(&home, &rows, &scheduled, run))
            .collect();
        Ok((runs, total))
    })
    .await?;
    Ok(axum::Json(AdminRunList {
        runs,
        total,
        limit,
        offset,
    }))
}

async fn run(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<RunBundle>> {
    ids::check("run_id", &id)?;
    let home = shared.home.clone();
    let shown = blocking(move || crate::runs::show(&home, &id)).await?;
    Ok(axum::Json(shown))
}

async fn sessions(
    State(shared): State<Arc<Shared>>,
    RawQuery(q): RawQuery,
) -> ApiResult<axum::Json<AdminSessionList>> {
    let (limit, offset) = page(q)?;
    let rows = unbundled_rows(&shared).await?;
    let home = shared.home.clone();
    let (sessions, total) = blocking(move || {
        let (mut list, total) = one_page(session_list(&home, &rows)?, limit, offset);
        for s in &mut list {
            let message = match s.last_run.as_deref() {
                Some(last) => match rows.get(last) {
                    Some(r) => r.message.clone(),
                    None => request_of(&home, last)
                        .and_then(|r| r["message"].as_str().map(str::to_string))
                        .unwrap_or_default(),
                },
                None => String::new(),
            };
            s.last_message = preview(&message);
            s.revision = crate::checkpoint::load_existing(&home, &s.session_id)
                .ok()
                .flatten()
                .map(|c| c.revision);
        }
        Ok((list, total))
    })
    .await?;
    Ok(axum::Json(AdminSessionList {
        sessions,
        total,
        limit,
        offset,
    }))
}

/// The sessions of every run (see [`every_run`]) and of every checkpoint, most recently
/// active first (`last_message` and `revision` left for the caller to fill in).
fn session_list(home: &Home, rows: &HashMap<String, RunRow>) -> Result<Vec<AdminSession>> {
    let mut by: HashMap<String, AdminSession> = HashMap::new();
    // Newest first: the first run seen of a session is its latest.
    for r in every_run(home, rows)? {
        let e = by
            .entry(r.session_id().to_string())
            .or_insert_with(|| AdminSession {
                session_id: r.session_id().to_string(),
                agent_id: Some(r.agent_id().to_string()),
                runs: 0,
                last_ts: Some(r.ts().to_string()),
                last_run: Some(r.id().to_string()),
                last_message: String::new(),
                revision: None,
            });
        e.runs += 1;
    }
    let dir = home.root().join("sessions");
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for d in entries.flatten() {
            let sid = d.file_name().to_string_lossy().into_owned();
            if by.contains_key(&sid) || !ids::is_valid(&sid) {
                continue;
            }
            if let Ok(Some(cp)) = crate::checkpoint::load_existing(home, &sid) {
                let ts = chrono::DateTime::from_timestamp_millis((cp.updated_ts * 1000.0) as i64)
                    .map(crate::clock::rfc3339);
                by.insert(
                    sid.clone(),
                    AdminSession {
                        session_id: sid,
                        agent_id: None,
                        runs: 0,
                        last_ts: ts,
                        last_run: None,
                        last_message: String::new(),
                        revision: None,
                    },
                );
            }
        }
    }
    let mut out: Vec<AdminSession> = by.into_values().collect();
    out.sort_by(|a, b| {
        b.last_ts
            .cmp(&a.last_ts)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    Ok(out)
}

async fn messages(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<AdminConversation>> {
    ids::check("session_id", &id)?;
    let id2 = id.clone();
    let queued = with_reader(&shared, move |q| q.session_runs(&id2)).await?;
    let home = shared.home.clone();
    let out = blocking(move || conversation(&home, &id, queued)).await?;
    Ok(axum::Json(out))
}

/// A message's role and text when a person said it: a user message that is not pending, or
/// an answer, whose content is text.
fn spoken(m: &AdminMessage) -> Option<(Role, &str)> {
    match m {
        AdminMessage::User {
            content: Value::String(c),
            pending: false,
            ..
        } => Some((Role::User, c)),
        AdminMessage::Answer {
            content: Value::String(c),
            ..
        } => Some((Role::Assistant, c)),
        AdminMessage::QueuedAnswer { content, .. } => Some((Role::Assistant, content)),
        _ => None,
    }
}

/// `messages` (from the session's runs) with the user and assistant messages of the
/// checkpoint that no run recorded (`bob chat -s` exchanges, or a session's history from
/// before its runs), each placed after the run message it follows in the checkpoint and
/// marked `from_checkpoint`. The checkpoint's messages are matched to the runs' in order; a
/// run's tool-calling assistant steps and tool messages are not shown twice.
fn with_checkpoint_exchanges(
    messages: Vec<AdminMessage>,
    kept: &[ChatMessage],
) -> Vec<AdminMessage> {
    // Each run message's place among `messages`, in order.
    let from_runs: Vec<usize> = (0..messages.len())
        .filter(|&i| spoken(&messages[i]).is_some())
        .collect();
    let mut extra: Vec<(Option<usize>, AdminMessage)> = Vec::new();
    let (mut next, mut after) = (0, None);
    for m in kept {
        if !matches!(m.role, Role::User | Role::Assistant) || m.tool_calls.is_some() {
            continue;
        }
        let same = |&i: &usize| spoken(&messages[i]) == Some((m.role, m.content.as_str()));
        match from_runs[next..].iter().position(same) {
            Some(k) => {
                after = Some(from_runs[next + k]);
                next += k + 1;
            }
            None => extra.push((
                after,
                AdminMessage::Kept {
                    role: m.role,
                    content: m.content.clone(),
                    from_checkpoint: true,
                },
            )),
        }
    }
    if extra.is_empty() {
        return messages;
    }
    let mut out = Vec::with_capacity(messages.len() + extra.len());
    let mut extra = extra.into_iter().peekable();
    while let Some((None, _)) = extra.peek() {
        out.push(extra.next().unwrap().1);
    }
    for (i, m) in messages.into_iter().enumerate() {
        out.push(m);
        while extra.peek().is_some_and(|(a, _)| *a == Some(i)) {
            out.push(extra.next().unwrap().1);
        }
    }
    out
}

/// Session `id`'s conversation (see the module docs); `not_found` when it has no run and no
/// checkpoint.
fn conversation(home: &Home, id: &str, queued: Vec<RunRow>) -> Result<AdminConversation> {
    let rows: HashMap<String, RunRow> = queued.into_iter().map(|r| (r.id.clone(), r)).collect();
    // This session's runs, oldest first.
    let mut runs: Vec<Listed> = every_run(home, &rows)?
        .into_iter()
        .filter(|r| r.session_id() == id)
        .collect();
    runs.reverse();
    let checkpoint = crate::checkpoint::load_existing(home, id)?;
    if runs.is_empty() && checkpoint.is_none() {
        return Err(Error::not_found(format!("no session {id:?}")).with("session_id", id));
    }
    let scheduled = scheduled_runs(home);
    let mut messages = Vec::new();
    let mut agent = None;
    for r in &runs {
        let run_id = r.id().to_string();
        agent = Some(r.agent_id().to_string());
        let Listed::Bundle(..) = r else {
            let row = &rows[&run_id];
            let pending = matches!(row.status.as_str(), "queued" | "running");
            messages.push(AdminMessage::User {
                role: "user".into(),
                content: Value::from(row.message.clone()),
                run_id: run_id.clone(),
                ts: Value::from(row.created_at.clone()),
                source: Value::from(row.source.clone()),
                pending,
            });
            if !pending {
                messages.push(AdminMessage::QueuedAnswer {
                    role: "assistant".into(),
                    content: row.output.clone().unwrap_or_default(),
                    run_id,
                    status: row.status.clone(),
                    error: row.error.clone(),
                });
            }
            continue;
        };
        let shown = crate::runs::show(home, &run_id)?;
        let record = &shown.record;
        let request = shown.request.unwrap_or_default();
        let source = match scheduled.contains_key(&run_id) {
            true => Value::from("schedule"),
            false => request["source"].clone(),
        };
        messages.push(AdminMessage::User {
            role: "user".into(),
            content: request["message"].clone(),
            run_id: run_id.clone(),
            ts: record["ts"].clone(),
            source,
            pending: false,
        });
        for t in shown.tool_results.as_array().into_iter().flatten() {
            messages.push(AdminMessage::Tool {
                role: "tool".into(),
                tool_name: t["tool"].clone(),
                tool_call_id: t["tool_call_id"].clone(),
                content: t["summary"].clone(),
                output: t["output"].clone(),
                error: t["error"].clone(),
                run_id: run_id.clone(),
            });
        }
        let status = rows.get(&run_id).map_or(record["status"].clone(), |row| {
            Value::from(row.status.clone())
        });
        messages.push(AdminMessage::Answer {
            role: "assistant".into(),
            content: record["output"].clone(),
            run_id,
            status,
            error: record["error"].clone(),
            usage: record["usage"].clone(),
            cost: record["cost"].clone(),
            latency_ms: record["latency_ms"].clone(),
        });
    }
    if let Some(cp) = &checkpoint {
        messages = with_checkpoint_exchanges(messages, &cp.recent_messages);
    }
    Ok(AdminConversation {
        session_id: id.to_string(),
        agent_id: agent,
        revision: checkpoint.as_ref().map(|c| c.revision),
        episode_summary: checkpoint.map(|c| c.state.episode_summary),
        messages,
    })
}
