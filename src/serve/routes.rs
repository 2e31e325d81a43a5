//! The endpoints (the HTTP API contract), the guard in front of them and the connection loop. Their
//! error bodies and statuses are [`super::api`]'s.
//!
//! A token in the URL (`?token=`, `?access_token=`, `?api_key=`, …) is refused outright, valid
//! or not, before anything else: URLs end up in logs and browser history.

use super::api::{
    ApiError, ApiResult, MAX_MESSAGE, STATUSES, admit_run, blocking, body_json, check_limit,
    enqueue, mode_str, opt_str, req_str, summary, system_text, thinking_mode, with_reader,
};
use super::auth;
use super::queue::RunRow;
use super::shared::Shared;
use crate::contracts::http::{
    Health, RunAccepted, RunList, RunTrace, RunView, SecretList, SecretStored,
};
use crate::contracts::{RunMode, TurnRequest};
use crate::error::{Code, Error};
use crate::ids::{self, Kind};
use crate::turn::Profile;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::StreamExt;
use serde_json::Value;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

pub(super) fn router(shared: Arc<Shared>) -> Router {
    let max_body = shared.opts.max_body;
    let api = Router::new()
        .route("/v1/runs", get(list_runs).post(create_run))
        .route("/v1/runs/{id}", get(get_run))
        .route("/v1/runs/{id}/events", get(run_events))
        .route("/v1/runs/{id}/cancel", axum::routing::post(cancel_run))
        .route("/api/admin/secrets", get(list_secrets).post(set_secret))
        .merge(super::admin::routes())
        .merge(super::chat::routes())
        .merge(super::conversation::routes())
        .route_layer(middleware::from_fn_with_state(
            shared.clone(),
            require_token,
        ));
    Router::new()
        .route("/healthz", get(healthz))
        .route("/openapi.json", get(openapi))
        .merge(super::dashboard::routes())
        .merge(api)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
}

/// Every request: no token in the URL; answered within the request timeout.
async fn guard(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if let Some(q) = req.uri().query() {
        let bad = url::form_urlencoded::parse(q.as_bytes()).any(|(k, _)| {
            let k = k.to_ascii_lowercase();
            k.contains("token") || k == "api_key" || k == "apikey" || k == "key" || k == "auth"
        });
        if bad {
            return ApiError::from(Error::invalid(
                "credentials are never accepted in the URL; send Authorization: Bearer <token>",
            ))
            .into_response();
        }
    }
    // The shared database is down: every route but /healthz says so (the server keeps
    // answering, reconnects on its own, and every run accepted before is still in the queue).
    if req.uri().path() != "/healthz"
        && let Some(e) = shared.store_down()
    {
        let err = Error::new(Code::UpstreamError, e.message).with("reason", "database_unreachable");
        return ApiError::with_status(err, StatusCode::SERVICE_UNAVAILABLE).into_response();
    }
    match tokio::time::timeout(shared.opts.request_timeout, next.run(req)).await {
        Ok(r) => redact_json(&shared, r).await,
        Err(_) => ApiError::with_status(
            Error::new(Code::Timeout, "the request was not completed in time"),
            StatusCode::REQUEST_TIMEOUT,
        )
        .into_response(),
    }
}

/// Every JSON answer (results and errors, which may echo input) passes through the home's
/// redactor, so no stored secret or rule match leaves the server; the redactor is the one
/// current at send time, so a stored run is re-masked with secrets stored after it was
/// written. SSE streams ([`Tail::poll`]) pass each event through the same redactor. An answer
/// marked [`Constant`] holds no data.
async fn redact_json(shared: &Arc<Shared>, resp: Response) -> Response {
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !is_json || resp.extensions().get::<Constant>().is_some() {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024 * 1024).await else {
        return ApiError::from(Error::internal("could not build the answer")).into_response();
    };
    let small = bytes.len() <= INLINE_REDACT_BYTES;
    let s2 = shared.clone();
    let redact = move || -> crate::error::Result<Vec<u8>> {
        let r = s2.redactor()?;
        let mut v: Value = serde_json::from_slice(&bytes)
            .map_err(|e| Error::internal(format!("answer is not JSON: {e}")))?;
        if r.redact_value(&mut v, "").is_empty() {
            return Ok(bytes.to_vec());
        }
        serde_json::to_vec(&v).map_err(|e| Error::internal(e.to_string()))
    };
    // A small answer takes microseconds: redacted in place rather than on the blocking pool
    // (two thread hand-offs per request).
    let redacted = if small {
        Ok(redact())
    } else {
        tokio::task::spawn_blocking(redact).await
    };
    match redacted {
        Ok(Ok(b)) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, axum::body::Body::from(b))
        }
        _ => ApiError::from(Error::internal("could not redact the answer")).into_response(),
    }
}

/// Largest JSON answer redacted on the async runtime's own thread.
const INLINE_REDACT_BYTES: usize = 16 * 1024;

/// Marks an answer whose body is a constant of the server (no stored data, no input echoed):
/// it skips the redactor.
#[derive(Clone, Copy)]
struct Constant;

fn constant(body: &Value) -> Response {
    let mut resp = axum::Json(body).into_response();
    resp.extensions_mut().insert(Constant);
    resp
}

/// Every endpoint but `/healthz`: `Authorization: Bearer <active token>` whose scopes the
/// route accepts (else `403 policy.denied`).
async fn require_token(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    req: Request,
    next: Next,
) -> Response {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(v), None) = (values.next(), values.next()) else {
        return ApiError::unauthorized("missing Authorization: Bearer <token>").into_response();
    };
    if v.len() > auth::MAX_TOKEN_LEN + 7 {
        return ApiError::unauthorized("the Authorization header is too long").into_response();
    }
    let Some(token) = v.to_str().ok().and_then(|s| s.strip_prefix("Bearer ")) else {
        return ApiError::unauthorized("the Authorization header must be Bearer <token>")
            .into_response();
    };
    let token = token.trim().to_string();
    let verifier = shared.clone();
    let ok = tokio::task::spawn_blocking(move || verifier.verifier.check(&token)).await;
    match ok {
        Ok(Ok(Some((id, scopes)))) => {
            let write = !matches!(
                *req.method(),
                axum::http::Method::GET | axum::http::Method::HEAD
            );
            let route = req.uri().path();
            let accepted = auth::Scopes::required(write, route);
            if !scopes.allows(accepted) {
                return ApiError::from(
                    Error::denied(format!(
                        "this token's scopes ({}) do not allow {} {route}: it needs one of {}",
                        scopes.names().join(","),
                        req.method(),
                        accepted.names().join(",")
                    ))
                    .with("needs", accepted.names()),
                )
                .into_response();
            }
            let mut req = req;
            req.extensions_mut().insert(auth::Caller(id));
            next.run(req).await
        }
        Ok(Ok(None)) => ApiError::unauthorized("unknown or revoked token").into_response(),
        Ok(Err(e)) => ApiError::from(e).into_response(),
        Err(e) => ApiError::from(Error::internal(e.to_string())).into_response(),
    }
}

async fn healthz(State(shared): State<Arc<Shared>>) -> Response {
    static OK: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
        serde_json::to_value(Health {
            ok: true,
            database: None,
            error: None,
        })
        .unwrap_or_default()
    });
    if let Some(e) = shared.store_down() {
        let body = Health {
            ok: false,
            database: Some("unreachable".into()),
            error: Some(e),
        };
        return (StatusCode::SERVICE_UNAVAILABLE, axum::Json(body)).into_response();
    }
    constant(&OK)
}

/// `GET /openapi.json` (no token: it describes the API, not this home's data).
async fn openapi() -> Response {
    static DOC: std::sync::LazyLock<Value> = std::sync::LazyLock::new(super::openapi::document);
    constant(&DOC)
}

async fn not_found() -> ApiError {
    Error::not_found("no such endpoint").into()
}

async fn method_not_allowed() -> ApiError {
    ApiError::with_status(
        Error::invalid("method not allowed on this endpoint"),
        StatusCode::METHOD_NOT_ALLOWED,
    )
}

async fn create_run(
    State(shared): State<Arc<Shared>>,
    axum::extract::Extension(caller): axum::extract::Extension<auth::Caller>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    if shared.draining.load(Ordering::SeqCst) {
        return Err(Error::new(Code::QueueFull, "the server is shutting down").into());
    }
    let m = body_json(body)?;
    let agent_id = req_str(&m, "agent_id")?;
    ids::check_in_home(&shared.home, Kind::Agent, "agent_id", agent_id)?;
    let message = req_str(&m, "message")?;
    if message.trim().is_empty() {
        return Err(Error::invalid("message is empty")
            .with("field", "message")
            .into());
    }
    if message.len() > MAX_MESSAGE {
        return Err(
            Error::invalid(format!("message is longer than {MAX_MESSAGE} bytes"))
                .with("field", "message")
                .into(),
        );
    }
    let system = system_text(&m)?;
    let thinking = thinking_mode(&m, shared.default_thinking)?;
    let profile = match opt_str(&m, "profile")? {
        None => Profile::default(),
        Some(p) => Profile::parse(p).ok_or_else(|| {
            Error::invalid(format!(
                "profile must be bob, spectator, solo or panda (got {p:?})"
            ))
            .with("field", "profile")
        })?,
    };
    let mode = match opt_str(&m, "mode")? {
        None => RunMode::default(),
        Some(x) => RunMode::parse(x).ok_or_else(|| {
            Error::invalid(format!("mode must be chat or act (got {x:?})")).with("field", "mode")
        })?,
    };
    let id = format!("run_{}", uuid::Uuid::new_v4().simple());
    // A run names no session unless asked: then it is a session of its own.
    let session_id = match opt_str(&m, "session_id")? {
        Some(s) => ids::check_in_home(&shared.home, Kind::Id, "session_id", s)?.to_string(),
        None => id.clone(),
    };
    let user_id = match opt_str(&m, "user_id")? {
        Some(u) => Some(ids::check_in_home(&shared.home, Kind::User, "user_id", u)?.to_string()),
        None => None,
    };
    let run = TurnRequest::new("http", agent_id, session_id, message)
        .with_user(user_id)
        .with_thinking_mode(mode_str(thinking))
        .with_profile(profile.as_str())
        .with_mode(mode)
        .with_system(system)
        .queued(&id, crate::clock::rfc3339(crate::clock::now()?));
    admit_run(&shared, &caller)?;
    enqueue(&shared, run).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(RunAccepted {
            id,
            status: "queued".into(),
            session_id: None,
        }),
    )
        .into_response())
}

async fn list_runs(
    State(shared): State<Arc<Shared>>,
    axum::extract::RawQuery(q): axum::extract::RawQuery,
) -> ApiResult<axum::Json<RunList>> {
    let (mut status, mut limit, mut offset) = (None, 50u64, 0u64);
    for (k, v) in url::form_urlencoded::parse(q.unwrap_or_default().as_bytes()) {
        let num = |what: &str| {
            v.parse::<u64>().map_err(|_| {
                Error::invalid(format!("{what} must be a non-negative integer (got {v:?})"))
                    .with("field", what)
            })
        };
        match k.as_ref() {
            "status" => {
                if !STATUSES.contains(&v.as_ref()) {
                    return Err(Error::invalid(format!(
                        "status must be one of {} (got {v:?})",
                        STATUSES.join("|")
                    ))
                    .with("field", "status")
                    .into());
                }
                status = Some(v.to_string());
            }
            "limit" => limit = num("limit")?,
            "offset" => offset = num("offset")?,
            other => {
                return Err(Error::invalid(format!("unknown query parameter {other:?}")).into());
            }
        }
    }
    check_limit(limit)?;
    let (rows, total) =
        with_reader(&shared, move |q| q.list(status.as_deref(), limit, offset)).await?;
    let runs = rows.iter().map(|r| summary(&shared, r)).collect();
    Ok(axum::Json(RunList {
        runs,
        total,
        limit,
        offset,
    }))
}

fn checked_id(id: &str) -> ApiResult<&str> {
    ids::check("run_id", id).map_err(ApiError::from)
}

async fn fetch_row(shared: &Arc<Shared>, id: &str) -> ApiResult<RunRow> {
    let id2 = id.to_string();
    with_reader(shared, move |q| q.get(&id2))
        .await?
        .ok_or_else(|| {
            Error::not_found(format!("no run {id:?}"))
                .with("run_id", id)
                .into()
        })
}

async fn get_run(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<RunView>> {
    let id = checked_id(&id)?;
    let row = fetch_row(&shared, id).await?;
    let mut v = summary(&shared, &row);
    if matches!(
        row.status.as_str(),
        "completed" | "incomplete" | "failed" | "cancelled"
    ) {
        let path = crate::runs::dir(&shared.home, id)?.join("tool_results.json");
        let results: Option<Value> =
            blocking(move || crate::store::read_json::<Value>(&path)).await?;
        v.trace = Some(RunTrace {
            tool_execution_results: results.unwrap_or_else(|| Value::Array(Vec::new())),
        });
    }
    Ok(axum::Json(v))
}

/// `POST /v1/runs/{id}/cancel`: see [`super::cancel::cancel`]. `200 {id, status:"cancelled"}` for a
/// queued run, `202 {id, status:"cancelling"}` for a running one.
async fn cancel_run(
    State(shared): State<Arc<Shared>>,
    axum::extract::Extension(caller): axum::extract::Extension<auth::Caller>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let id = checked_id(&id)?.to_string();
    let actor = format!("http:{}", caller.0);
    let s2 = shared.clone();
    let out = blocking(move || super::cancel::cancel(&s2, &id, &actor)).await?;
    let status = if out.status == "cancelled" {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    Ok((status, axum::Json(out)).into_response())
}

/// `GET /api/admin/secrets`: names and times only.
async fn list_secrets(
    State(shared): State<Arc<Shared>>,
) -> ApiResult<axum::Json<SecretList<crate::contracts::http::SecretShown>>> {
    let home = shared.home.clone();
    let list = blocking(
        move || match crate::secrets::Secrets::open_existing(&home)? {
            Some(s) => s.list(),
            None => Ok(Vec::new()),
        },
    )
    .await?;
    Ok(axum::Json(SecretList { secrets: list }))
}

/// `POST /api/admin/secrets {name, value}`: one-way; the answer never holds the value.
async fn set_secret(
    State(shared): State<Arc<Shared>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let m = body_json(body)?;
    let name = req_str(&m, "name")?.to_string();
    let value = req_str(&m, "value")?.to_string();
    let home = shared.home.clone();
    let info = blocking(move || {
        let now = crate::clock::rfc3339(crate::clock::now()?);
        crate::secrets::Secrets::open(&home)?.set(&name, &value, &now)
    })
    .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(SecretStored {
            name: info.name,
            created_at: info.created_at,
            updated_at: info.updated_at,
            stored: true,
        }),
    )
        .into_response())
}

/// Where an SSE stream is in the run's audit log.
struct Tail {
    shared: Arc<Shared>,
    id: String,
    agent_id: String,
    /// With the shared store: its audit chains (any node's runs), and the last `seq` sent.
    db: Option<&'static crate::db::Database>,
    after: Option<u64>,
    file: Option<std::path::PathBuf>,
    offset: u64,
    carry: Vec<u8>,
    done: bool,
    /// What this stream sent of the answer as it streams.
    answer: super::live::Sent,
}

impl Tail {
    /// New events of this run: from the shared database's audit chain of its agent (whichever
    /// node ran it), else the new complete lines of this home's audit file.
    fn read_new(&mut self) -> Vec<Value> {
        use std::io::{Read, Seek, SeekFrom};
        if let Some(db) = self.db {
            let events = crate::audit::pg::run_events(db, &self.agent_id, &self.id, self.after)
                .unwrap_or_default();
            if let Some(seq) = events.last().and_then(|e| e["seq"].as_u64()) {
                self.after = Some(seq);
            }
            return events;
        }
        let Some(path) = &self.file else {
            return Vec::new();
        };
        let Ok(mut f) = std::fs::File::open(path) else {
            return Vec::new();
        };
        let mut buf = Vec::new();
        if f.seek(SeekFrom::Start(self.offset)).is_err() || f.read_to_end(&mut buf).is_err() {
            return Vec::new();
        }
        self.offset += buf.len() as u64;
        self.carry.extend_from_slice(&buf);
        let Some(last_nl) = self.carry.iter().rposition(|b| *b == b'\n') else {
            return Vec::new();
        };
        let rest = self.carry.split_off(last_nl + 1);
        let whole = std::mem::replace(&mut self.carry, rest);
        crate::store::parse_jsonl(&whole)
            .records
            .into_iter()
            .map(|(_, v)| v)
            .filter(|v| v.get("run_id").and_then(Value::as_str) == Some(self.id.as_str()))
            .collect()
    }

    /// One poll: the row's state, then the new events; ends after the terminal state's events.
    fn poll(&mut self) -> Vec<Event> {
        let row = {
            let q = self.shared.reader.lock().unwrap_or_else(|e| e.into_inner());
            q.get(&self.id).ok().flatten()
        };
        let Some(row) = row else {
            self.done = true;
            return Vec::new();
        };
        if self.file.is_none()
            && let Some(started) = row.started_at.as_ref().or(row.finished_at.as_ref())
            && let Ok(t) = crate::clock::parse_rfc3339(started)
            && let Ok(dir) = self.shared.home.audit_dir(&self.agent_id)
        {
            self.file = Some(dir.join(format!("{}.jsonl", t.format("%Y-%m-%d"))));
        }
        let terminal = !matches!(row.status.as_str(), "queued" | "running");
        let events = self.read_new();
        if terminal || self.shared.draining.load(Ordering::SeqCst) {
            self.done = true;
        }
        // Every event passes the redactor current at send time (a secret stored after the
        // event was written is masked too); without one, nothing is sent.
        let Ok(redactor) = self.shared.redactor() else {
            self.done = true;
            return Vec::new();
        };
        // The answer so far goes first: the run's terminal event comes after its last delta.
        let deltas = match self.shared.answer_so_far(&self.id) {
            Some(so_far) if !self.done => self.answer.next(&self.id, &so_far, &redactor),
            _ => Vec::new(),
        };
        let deltas = deltas.into_iter().map(|ev| {
            Event::default()
                .event(ev.name())
                .data(serde_json::to_string(&ev).unwrap_or_default())
        });
        deltas
            .chain(events.into_iter().map(|mut ev| {
                redactor.redact_value(&mut ev, "");
                let mut e = Event::default()
                    .event(ev["event_type"].as_str().unwrap_or("event"))
                    .data(ev.to_string());
                if let Some(seq) = ev["seq"].as_u64() {
                    e = e.id(seq.to_string());
                }
                e
            }))
            .collect()
    }
}

async fn run_events(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let id = checked_id(&id)?.to_string();
    let row = fetch_row(&shared, &id).await?;
    let tail = Tail {
        shared: shared.clone(),
        id,
        agent_id: row.agent_id,
        db: crate::db::audit_connection()?,
        after: None,
        file: None,
        offset: 0,
        carry: Vec::new(),
        done: false,
        answer: Default::default(),
    };
    let stream = futures_util::stream::unfold((tail, true), |(mut tail, first)| async move {
        if tail.done {
            return None;
        }
        if !first {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let (tail, events) = tokio::task::spawn_blocking(move || {
            let ev = tail.poll();
            (tail, ev)
        })
        .await
        .ok()?;
        Some((events, (tail, false)))
    })
    .flat_map(|evs| futures_util::stream::iter(evs.into_iter().map(Ok::<_, Infallible>)));
    // A stream ends after `serve.sse_max_s` whatever the run does; the client reconnects.
    let stream = stream.take_until(tokio::time::sleep(shared.opts.sse_max));
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}

/// Accepts connections until SIGTERM/SIGINT, then lets open connections finish. A client
/// address over `serve.max_connections_per_ip` is answered
/// [`super::limits::TOO_MANY_FROM_IP`] and closed at once; a connection has
/// `serve.header_timeout_s` to send each request's head.
pub(super) async fn serve(listener: tokio::net::TcpListener, app: Router, shared: Arc<Shared>) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(tokio::sync::Semaphore::new(shared.opts.max_connections));
    let per_ip = Arc::new(super::limits::PerIp {
        open: Default::default(),
        cap: shared.opts.max_connections_per_ip,
    });
    let header_timeout = shared.opts.header_timeout;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let sigterm = async move {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::pin!(sigterm);
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p { Ok(p) => p, Err(_) => break },
            _ = &mut sigterm => break,
            _ = tokio::signal::ctrl_c() => break,
        };
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(s) => s,
                // Out of descriptors or a connection reset before accept: back off, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            _ = &mut sigterm => break,
            _ = tokio::signal::ctrl_c() => break,
        };
        // One address holds at most its share of the slots: over it, a 503 and the door.
        let Some(held) = per_ip.take(peer.ip()) else {
            let _ = stream.try_write(super::limits::TOO_MANY_FROM_IP);
            continue;
        };
        let svc = hyper_util::service::TowerToHyperService::new(app.clone());
        let mut stop = stop_rx.clone();
        tasks.spawn(async move {
            let _permit = permit;
            let _held = held;
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .max_buf_size(16 * 1024)
                .serve_connection(TokioIo::new(stream), svc);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = async { let _ = stop.wait_for(|s| *s).await; } => {
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(30), conn.as_mut()).await;
                }
            }
        });
        while tasks.try_join_next().is_some() {}
    }
    drop(listener);
    shared.draining.store(true, Ordering::SeqCst);
    shared.kick();
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(35), async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
}
