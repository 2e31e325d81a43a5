//! The dashboard's admin APIs (the HTTP API contract), token-authenticated like the rest, each a thin
//! call into the subsystem the CLI uses for the same thing:
//!
//! * `GET /api/admin/status`: run counts by status, the newest runs, the worker pool, and the
//!   backend (kind, base URL, model; never a key).
//! * `GET /api/admin/config`: config.toml as JSON with credential values blanked (`secret:`
//!   references are names and stay); `POST /api/admin/config {config}` replaces it whole,
//!   validated the way the backend and the server read it, written atomically under a lock; a
//!   blank credential keeps the stored value, and so does any value holding the redaction mask
//!   that masks to what the stored value masks to (a GET→POST round trip of a URL with
//!   credentials in it); any other masked value is refused, never written. Only the settings
//!   of [`HTTP_SETTABLE`] may differ from the stored file: a change to any other setting (the
//!   ones that run commands, choose where requests and secrets go, change tools, rules, the
//!   sandbox, the server itself) is `403 policy.denied` naming them, whatever the token's
//!   scopes. Those are changed at the machine (`config.toml`, the environment, flags).
//! * `GET|POST /api/admin/scheduler/jobs` (the GET also says when a tick last began,
//!   `last_tick`, and whether one began in the last 150 s, `ticking`), `DELETE /api/admin/scheduler/jobs/{id}`,
//!   `POST /api/admin/scheduler/control {action: pause|resume, job_id?}`: [`crate::schedule`],
//!   as `bob schedule add|list|rm|pause|resume`.
//! * `GET /api/admin/memory/candidates?status&user`, `POST
//!   /api/admin/memory/candidates/{id}/approve|edit|reject`: [`crate::memory`], as `bob memory
//!   candidates|approve|reject`. A decision is a human act: the ledger records the actor as
//!   `http:<token id>`, the token the request came with.
//! * `GET /api/admin/sessions/{id}/turbotime`, `POST /api/admin/sessions/{id}/turbotime {on,
//!   select?}`: a session's TURBOTIME toggle and tool selection (the Bob v0 runtime), as `bob tool
//!   turbotime on|off --session ID [--select TOOL…]`, a human act audited (`turbotime.set`) with
//!   the actor `http:<token id>`. The answer lists the TURBOTIME tools the selection may name.

use super::Shared;
use super::api::{ApiResult, STATUSES, blocking, body_json, opt_str, summary, with_reader};
use super::auth::Caller;
use crate::contracts::Job;
use crate::contracts::http::{
    AdminRuns, AdminStatus, BackendStatus, CandidateList, ConfigView, ErrorAnswerBrief, JobDeleted,
    RunCounts, RunView, SchedulerControlAnswer, SchedulerView, TurbotimeView,
};
use crate::error::Error;
use crate::memory::Memory;
use crate::memory::candidates::Decision;
use crate::schedule::{self, Scheduler};
use crate::tools::domain::turbotime;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use serde_json::{Map, Value, json};
use std::sync::Arc;

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/admin/status", get(status))
        .route("/api/admin/config", get(get_config).post(set_config))
        .route("/api/admin/scheduler/jobs", get(jobs).post(add_job))
        .route("/api/admin/scheduler/jobs/{id}", delete(remove_job))
        .route("/api/admin/scheduler/control", post(control))
        .route("/api/admin/memory/candidates", get(candidates))
        .route("/api/admin/memory/candidates/{id}/{action}", post(decide))
        .route(
            "/api/admin/sessions/{id}/turbotime",
            get(turbotime).post(set_turbotime),
        )
}

async fn status(State(shared): State<Arc<Shared>>) -> ApiResult<axum::Json<AdminStatus>> {
    let mut counts = RunCounts::default();
    for s in STATUSES {
        let (_, n) = with_reader(&shared, move |q| q.list(Some(s), 1, 0)).await?;
        counts.set(s, n);
    }
    let (rows, total) = with_reader(&shared, |q| q.list(None, 10, 0)).await?;
    let recent: Vec<RunView> = rows.iter().map(|r| summary(&shared, r)).collect();
    let (home, spec) = (shared.home.clone(), shared.opts.backend.clone());
    let settings = shared.opts.settings.clone();
    let backend = blocking(move || {
        Ok(
            match settings.reload().and_then(|settings| {
                crate::backend::Backend::resolve(
                    &home,
                    &settings,
                    spec.as_deref(),
                    crate::backend::Route::Chat,
                    &Default::default(),
                )
            }) {
                Ok(b) => BackendStatus::Resolved {
                    provider: b.describe()["kind"].clone(),
                    model: b.model(),
                    describe: b.describe(),
                },
                Err(e) => BackendStatus::Unresolved {
                    error: ErrorAnswerBrief {
                        code: e.code,
                        message: e.message,
                    },
                },
            },
        )
    })
    .await?;
    Ok(axum::Json(AdminStatus {
        runs: AdminRuns {
            total,
            by_status: counts,
            recent,
        },
        workers: shared.opts.workers,
        queue_capacity: shared.opts.queue_cap,
        draining: shared.draining.load(std::sync::atomic::Ordering::SeqCst),
        backend,
    }))
}

/// How recent the last scheduler tick must be for the scheduler to count as ticking: cron
/// and the daemon tick every minute by default, so two and a half missed minutes mean none is.
const TICKING_WITHIN_S: i64 = 150;

async fn jobs(State(shared): State<Arc<Shared>>) -> ApiResult<axum::Json<SchedulerView<Job>>> {
    let home = shared.home.clone();
    let (file, last_tick, now) = blocking(move || {
        let s = Scheduler::new(&home);
        Ok((s.load()?, s.last_tick(), crate::clock::now()?))
    })
    .await?;
    let ticking = last_tick.is_some_and(|t| (now - t).num_seconds() <= TICKING_WITHIN_S);
    Ok(axum::Json(SchedulerView {
        paused: file.paused,
        jobs: file.jobs,
        last_tick: last_tick.map(crate::clock::rfc3339),
        ticking,
    }))
}

async fn add_job(
    State(shared): State<Arc<Shared>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let m = body_json(body)?;
    let home = shared.home.clone();
    let job = blocking(move || {
        let job = schedule::job_from_json(m)?;
        Scheduler::new(&home).add(job, crate::clock::now()?)
    })
    .await?;
    Ok((StatusCode::CREATED, axum::Json(job)).into_response())
}

async fn remove_job(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<JobDeleted<Job>>> {
    let home = shared.home.clone();
    let job = blocking(move || Scheduler::new(&home).remove(&id)).await?;
    Ok(axum::Json(JobDeleted { deleted: job }))
}

async fn control(
    State(shared): State<Arc<Shared>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<axum::Json<SchedulerControlAnswer<Job>>> {
    let m = body_json(body)?;
    let resume = match opt_str(&m, "action")? {
        Some("pause") => false,
        Some("resume") => true,
        _ => {
            return Err(Error::invalid("action must be pause or resume")
                .with("field", "action")
                .into());
        }
    };
    let job_id = opt_str(&m, "job_id")?.map(str::to_string);
    let home = shared.home.clone();
    let out = blocking(move || {
        let s = Scheduler::new(&home);
        Ok(match job_id {
            Some(id) => SchedulerControlAnswer::Job {
                job: s.set_enabled(&id, resume, crate::clock::now()?)?,
            },
            None => SchedulerControlAnswer::All(crate::contracts::SchedulerPaused {
                paused: !resume,
                jobs: s.set_paused(!resume)?,
            }),
        })
    })
    .await?;
    Ok(axum::Json(out))
}

async fn candidates(
    State(shared): State<Arc<Shared>>,
    RawQuery(q): RawQuery,
) -> ApiResult<axum::Json<CandidateList<crate::contracts::CandidateRow>>> {
    let (mut status, mut user) = (None, None);
    for (k, v) in url::form_urlencoded::parse(q.unwrap_or_default().as_bytes()) {
        match k.as_ref() {
            "status" => status = Some(v.into_owned()),
            "user" => user = Some(v.into_owned()),
            other => {
                return Err(Error::invalid(format!("unknown query parameter {other:?}")).into());
            }
        }
    }
    let home = shared.home.clone();
    let rows =
        blocking(move || Memory::open(&home)?.candidates(status.as_deref(), user.as_deref()))
            .await?;
    Ok(axum::Json(CandidateList { candidates: rows }))
}

async fn decide(
    State(shared): State<Arc<Shared>>,
    Extension(caller): Extension<Caller>,
    Path((id, action)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<axum::Json<crate::memory::candidates::Decided>> {
    let empty = body.as_ref().is_ok_and(|b| b.is_empty());
    let m = if empty {
        serde_json::Map::new()
    } else {
        body_json(body)?
    };
    let decision = match action.as_str() {
        "approve" => Decision::Approve,
        "edit" => match m.get("fields") {
            Some(f @ Value::Object(_)) => Decision::Edit(f.clone()),
            _ => {
                return Err(Error::invalid(
                    "edit needs {\"fields\": {…candidate fields to replace…}}",
                )
                .with("field", "fields")
                .into());
            }
        },
        "reject" => Decision::Reject {
            reason: opt_str(&m, "reason")?.unwrap_or("rejected").to_string(),
        },
        other => {
            return Err(Error::not_found(format!(
                "no candidate action {other:?} (approve, edit, reject)"
            ))
            .into());
        }
    };
    let home = shared.home.clone();
    let actor = format!("http:{}", caller.0);
    let decided = blocking(move || Memory::open(&home)?.decide(&id, decision, &actor)).await?;
    Ok(axum::Json(decided))
}

fn turbotime_view(t: &turbotime::Turbotime) -> TurbotimeView {
    TurbotimeView {
        session_id: t.session_id.clone(),
        on: t.on,
        selected: t.selected.clone(),
        updated_at: t.updated_at.clone(),
        tools: turbotime::TOOLS.iter().map(|s| s.to_string()).collect(),
    }
}

async fn turbotime(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<TurbotimeView>> {
    let home = shared.home.clone();
    let t = blocking(move || turbotime::load(&home, &id)).await?;
    Ok(axum::Json(turbotime_view(&t)))
}

async fn set_turbotime(
    State(shared): State<Arc<Shared>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<axum::Json<TurbotimeView>> {
    let m = body_json(body)?;
    let on = match m.get("on") {
        Some(Value::Bool(b)) => *b,
        _ => {
            return Err(Error::invalid("on (true or false) is required")
                .with("field", "on")
                .into());
        }
    };
    let select = match m.get("select") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    Error::invalid("select must be a list of tool names").with("field", "select")
                })
            })
            .collect::<crate::error::Result<Vec<_>>>()?,
        Some(_) => {
            return Err(Error::invalid("select must be a list of tool names")
                .with("field", "select")
                .into());
        }
    };
    let home = shared.home.clone();
    let actor = format!("http:{}", caller.0);
    let t = blocking(move || turbotime::set_by(&home, &id, on, &select, &actor)).await?;
    Ok(axum::Json(turbotime_view(&t)))
}

/// Whether a config key holds a credential (its value is blanked when shown).
fn sensitive(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace('-', "_");
    k == "authorization"
        || ["key", "token", "secret", "password", "passwd"]
            .iter()
            .any(|s| k == *s || k.ends_with(&format!("_{s}")))
}

/// Blanks credential values (a `secret:NAME` reference is a name, and stays).
fn blank(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if sensitive(k)
                    && let Value::String(s) = x
                    && !s.starts_with(crate::secrets::REF_PREFIX)
                {
                    s.clear();
                } else {
                    blank(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(blank),
        _ => {}
    }
}

/// A blank (or masked) credential in a posted config keeps the stored value: the GET showed it
/// blank, or masked by the answer redaction that every JSON answer passes through.
fn keep_blanked(new: &mut Value, old: &Value) {
    if let (Value::Object(n), Value::Object(o)) = (new, old) {
        for (k, x) in n.iter_mut() {
            let Some(prev) = o.get(k) else { continue };
            if sensitive(k) && matches!(x.as_str(), Some("" | crate::redact::MASK)) {
                *x = prev.clone();
            } else {
                keep_blanked(x, prev);
            }
        }
    }
}

/// Any other string holding the mask: the stored value at the same place when it masks to
/// exactly this (the answer redaction of a GET masked part of it, e.g. a URL's password),
/// else `invalid.request`: a masked value is never written.
fn keep_masked(
    new: &mut Value,
    old: Option<&Value>,
    key: &str,
    path: &str,
    r: &crate::redact::Redactor,
) -> crate::error::Result<()> {
    match new {
        Value::String(s) if s.contains(crate::redact::MASK) => {
            let masked_old = old.and_then(Value::as_str).map(|o| {
                let mut v = json!({ key: o });
                r.redact_value(&mut v, "");
                (o.to_string(), v[key].clone(), r.redact_str(o).into_owned())
            });
            match masked_old {
                Some((o, by_field, by_text)) if by_field == *s || by_text == *s => {
                    *s = o;
                    Ok(())
                }
                _ => Err(Error::invalid(format!(
                    "{path} holds the redaction mask {}: send the real value, or the value the \
                     GET answered unchanged",
                    crate::redact::MASK
                ))
                .with("setting", path)),
            }
        }
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                keep_masked(x, old.and_then(|o| o.get(k)), k, &p, r)?;
            }
            Ok(())
        }
        Value::Array(a) => {
            for (i, x) in a.iter_mut().enumerate() {
                keep_masked(x, old.and_then(|o| o.get(i)), key, path, r)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The settings a token may change over HTTP: an allowlist. Everything else (commands such as
/// `schedule.turn_cmd`, `tools.*`, `redact.*`, `chat.backend`, every base URL, key and key
/// variable, the MTG route switch, feeds, the clock, the actor, the server's own `serve.*`)
/// is changed at the machine only. `prices` is an open table, compared whole.
pub const HTTP_SETTABLE: &[&str] = &[
    "output.thinking_mode",
    "chat.model",
    "chat.connect_timeout_s",
    "chat.timeout_s",
    "chat.max_retries",
    "chat.retry_base_ms",
    "chat.retry_cap_s",
    "mtg.model",
    "mtg.connect_timeout_s",
    "mtg.timeout_s",
    "mtg.max_retries",
    "mtg.retry_base_ms",
    "memory.rank_budget",
    "search.keep_days",
    "search.keep_count",
    "domain.news_cache_ttl_s",
    "identity.display_name",
    "identity.system_id",
    "identity.creator",
    crate::cost::TABLE,
];

/// A config as `table.key → value` (an open table, or a value outside a table, whole).
fn flatten(v: &Value) -> std::collections::BTreeMap<String, Value> {
    let mut out = std::collections::BTreeMap::new();
    if let Value::Object(m) = v {
        for (t, x) in m {
            match x {
                Value::Object(keys) if !crate::settings::OPEN_TABLES.contains(&t.as_str()) => {
                    for (k, y) in keys {
                        out.insert(format!("{t}.{k}"), y.clone());
                    }
                }
                other => {
                    out.insert(t.clone(), other.clone());
                }
            }
        }
    }
    out
}

/// The settings `new` adds, removes or changes against `old` that HTTP may not change.
fn forbidden_changes(new: &Value, old: &Value) -> Vec<String> {
    let (n, o) = (flatten(new), flatten(old));
    let mut keys: Vec<&String> = n.keys().chain(o.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| n.get(*k) != o.get(*k) && !HTTP_SETTABLE.contains(&k.as_str()))
        .cloned()
        .collect()
}

fn read_config(home: &crate::home::Home) -> crate::error::Result<Value> {
    let path = home.config_path();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Value::Object(Map::new())),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let v: toml::Value = toml::from_str(&text)
        .map_err(|e| Error::invalid(format!("{}: {}", path.display(), e.message())))?;
    serde_json::to_value(v).map_err(|e| Error::internal(e.to_string()))
}

/// `GET /api/admin/config`: config.toml as JSON, credentials blanked.
pub(super) async fn get_config(
    State(shared): State<Arc<Shared>>,
) -> ApiResult<axum::Json<ConfigView>> {
    let home = shared.home.clone();
    let mut v = blocking(move || read_config(&home)).await?;
    blank(&mut v);
    Ok(axum::Json(ConfigView {
        config: v,
        written: None,
    }))
}

/// `POST /api/admin/config {config}`: the whole new config, validated as bob reads it, then
/// written atomically under a lock. Blank credentials keep their stored values; a masked
/// value is kept or refused; a change outside [`HTTP_SETTABLE`] is refused.
pub(super) async fn set_config(
    State(shared): State<Arc<Shared>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<axum::Json<ConfigView>> {
    let mut m = body_json(body)?;
    let mut new = match m.remove("config") {
        Some(c @ Value::Object(_)) => c,
        _ => {
            return Err(Error::invalid("the body must be {\"config\": {…}}")
                .with("field", "config")
                .into());
        }
    };
    let home = shared.home.clone();
    let mut shown = blocking(move || {
        let path = home.config_path();
        let _lock = crate::store::Lock::exclusive(&crate::store::lock_path(&path))?;
        let old = read_config(&home)?;
        keep_blanked(&mut new, &old);
        keep_masked(
            &mut new,
            Some(&old),
            "",
            "",
            &*crate::redact::for_home(&home)?,
        )?;
        let t: toml::Value = serde_json::from_value(new.clone())
            .map_err(|e| Error::invalid(format!("config: {e}")))?;
        let text = toml::to_string(&t)
            .map_err(|e| Error::invalid(format!("config cannot be written as TOML: {e}")))?;
        // Validated the way its readers read it, in a scratch home, before it replaces anything.
        let scratch = tempfile_dir(&home)?;
        let probe = crate::home::Home::at(&scratch);
        std::fs::write(probe.config_path(), &text).map_err(|e| Error::io(&scratch, e))?;
        let checked = crate::settings::Settings::check_config_text(&text)
            .and_then(|()| super::default_thinking(&probe).map(|_| ()));
        let _ = std::fs::remove_dir_all(&scratch);
        checked?;
        // Valid, but HTTP may change only the allowlisted settings.
        let forbidden = forbidden_changes(&new, &old);
        if !forbidden.is_empty() {
            return Err(Error::denied(format!(
                "{} can be changed only at the machine (config.toml, the environment or a \
                 flag), never over HTTP; the config was not written",
                forbidden.join(", ")
            ))
            .with("settings", forbidden));
        }
        crate::store::write_bytes_atomic(&path, text.as_bytes())?;
        Ok(new)
    })
    .await?;
    blank(&mut shown);
    Ok(axum::Json(ConfigView {
        config: shown,
        written: Some(true),
    }))
}

/// A fresh private directory under `serve/` for validating a config.
fn tempfile_dir(home: &crate::home::Home) -> crate::error::Result<std::path::PathBuf> {
    let d = super::serve_dir(home).join(format!("tmp-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{Kind, spec_of};

    /// The allowlist names real settings only, and none that runs something, says where a
    /// request or a secret goes, holds a key, a path or a rule, or is the server's own.
    #[test]
    fn the_http_allowlist_holds_no_command_url_key_path_or_policy_setting() {
        for key in HTTP_SETTABLE {
            if crate::settings::OPEN_TABLES.contains(key) {
                continue;
            }
            let spec = spec_of(key).unwrap_or_else(|| panic!("{key} is not a setting"));
            assert!(spec.file, "{key}");
            assert!(!spec.secret, "{key}");
            assert!(
                !matches!(spec.kind, Kind::Url | Kind::Path | Kind::List),
                "{key}"
            );
            for family in ["schedule.", "tools.", "redact.", "serve.", "clock.", "cli."] {
                assert!(!key.starts_with(family), "{key}");
            }
            for part in [
                "base_url",
                "api_key",
                "backend",
                "route_remote",
                "log_payloads",
            ] {
                assert!(!key.contains(part), "{key}");
            }
        }
    }

    #[test]
    fn a_change_outside_the_allowlist_is_named_and_an_unchanged_one_is_not() {
        let old = json!({"chat": {"model": "a", "base_url": "http://x/v1"},
                         "schedule": {"turn_cmd": "echo {}"}});
        let mut new = old.clone();
        new["chat"]["model"] = json!("b");
        new["output"] = json!({"thinking_mode": "always"});
        assert!(forbidden_changes(&new, &old).is_empty());
        new["chat"]["base_url"] = json!("http://evil/v1");
        new["schedule"] = json!({});
        new["tools"] = json!({"roots": ["/"]});
        assert_eq!(
            forbidden_changes(&new, &old),
            ["chat.base_url", "schedule.turn_cmd", "tools.roots"]
        );
        new["prices"] = json!({"m": {"input": 1.0}});
        assert_eq!(forbidden_changes(&new, &old).len(), 3);
    }
}
