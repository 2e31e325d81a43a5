//! What every endpoint shares: the error body and its HTTP status, body and parameter parsing,
//! running blocking work off the async threads, admitting and queueing a run, and a run's
//! summary. [`super::routes`], [`super::chat`] and [`super::admin`] build on it.
//!
//! Errors are Openclawssy's `{"error":{"code","message"}}` (plus `details` when there are any, and
//! `retry_after_seconds` for retry-later answers) with the canonical codes, and the HTTP status
//! follows the code: `invalid.request`/`tool.input_invalid` 400, a missing, malformed,
//! oversized, unknown or revoked token 401 (`policy.denied`, with `WWW-Authenticate`), other
//! `policy.denied`/`sandbox.required` 403, `not_found` 404, a body over the cap 413
//! (`invalid.request`), `conflict` 409, `chat.rate_limited` 429, `queue.full` 503 with
//! `Retry-After`, `upstream.error` 502, `timeout` 504 (a request not answered in time: 408),
//! anything else 500.

use super::auth;
use super::queue::{NewRun, RunRow};
use super::shared::Shared;
use crate::contracts::http::{ErrorAnswer, ErrorAnswerBody, ErrorBrief, RunView};
use crate::error::{Code, Error};
use crate::turn::ThinkingMode;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Longest run message accepted, in bytes.
pub(super) const MAX_MESSAGE: usize = 256 * 1024;
/// What `Retry-After` says when the queue is full.
const RETRY_AFTER_S: u64 = 2;

/// An error on its way out as an Openclawssy error body.
pub(super) struct ApiError {
    err: Error,
    status: Option<StatusCode>,
}

impl From<Error> for ApiError {
    fn from(err: Error) -> Self {
        ApiError { err, status: None }
    }
}

impl ApiError {
    pub(super) fn with_status(err: Error, status: StatusCode) -> ApiError {
        ApiError {
            err,
            status: Some(status),
        }
    }
    pub(super) fn unauthorized(message: &str) -> ApiError {
        Self::with_status(Error::denied(message), StatusCode::UNAUTHORIZED)
    }
}

fn status_of(code: Code) -> StatusCode {
    match code {
        Code::InvalidRequest | Code::ToolInputInvalid => StatusCode::BAD_REQUEST,
        Code::PolicyDenied | Code::SandboxRequired => StatusCode::FORBIDDEN,
        Code::NotFound | Code::ToolNotFound => StatusCode::NOT_FOUND,
        Code::Conflict | Code::Cancelled | Code::Incomplete => StatusCode::CONFLICT,
        Code::ChatRateLimited => StatusCode::TOO_MANY_REQUESTS,
        Code::QueueFull => StatusCode::SERVICE_UNAVAILABLE,
        Code::UpstreamError => StatusCode::BAD_GATEWAY,
        Code::Timeout => StatusCode::GATEWAY_TIMEOUT,
        Code::InternalError | Code::EvalThreshold => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let e = self.err;
        let status = self.status.unwrap_or_else(|| status_of(e.code));
        let retry = matches!(e.code, Code::QueueFull | Code::ChatRateLimited).then(|| {
            e.details
                .get("retry_after_seconds")
                .and_then(Value::as_u64)
                .unwrap_or(RETRY_AFTER_S)
        });
        let body = ErrorAnswer {
            error: ErrorAnswerBody {
                code: e.code.as_str().to_string(),
                message: e.message.clone(),
                details: (!e.details.is_empty()).then(|| e.details.clone()),
                retry_after_seconds: retry,
            },
        };
        let mut resp = (status, axum::Json(body)).into_response();
        if let Some(s) = retry {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        if status == StatusCode::UNAUTHORIZED {
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        resp
    }
}

pub(super) type ApiResult<T> = Result<T, ApiError>;

/// Runs blocking subsystem work off the async threads.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> crate::error::Result<T> + Send + 'static,
) -> ApiResult<T> {
    Ok(tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::internal(e.to_string()))??)
}

/// A read of the queue, on the reading connection (never behind a commit's sync).
pub(super) async fn with_reader<T: Send + 'static>(
    shared: &Arc<Shared>,
    f: impl FnOnce(&super::queue::Queue) -> crate::error::Result<T> + Send + 'static,
) -> ApiResult<T> {
    let s = shared.clone();
    blocking(move || {
        let q = s.reader.lock().unwrap_or_else(|e| e.into_inner());
        f(&q)
    })
    .await
}

/// Runs a queue operation off the async threads.
pub(super) async fn with_queue<T: Send + 'static>(
    shared: &Arc<Shared>,
    f: impl FnOnce(&mut super::queue::Queue) -> crate::error::Result<T> + Send + 'static,
) -> ApiResult<T> {
    let s = shared.clone();
    blocking(move || {
        let mut q = s.queue.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut q)
    })
    .await
}

pub(super) fn body_json(body: Result<Bytes, BytesRejection>) -> ApiResult<Map<String, Value>> {
    let bytes = body.map_err(|r| {
        let status = r.status();
        let msg = if status == StatusCode::PAYLOAD_TOO_LARGE {
            "the request body is too large".to_string()
        } else {
            format!("could not read the request body: {r}")
        };
        ApiError::with_status(Error::invalid(msg), status)
    })?;
    let v: Value =
        serde_json::from_slice(&bytes).map_err(|e| Error::bad_json("request body", &e))?;
    match v {
        Value::Object(m) => Ok(m),
        other => Err(Error::invalid(format!(
            "the request body must be a JSON object, not {}",
            crate::error::json_kind(&other)
        ))
        .into()),
    }
}

/// The body's `system`: the caller's own instructions for every role of the run, as
/// `bob turn --system` gives them (`None` when absent); blank, non-string or over
/// [`MAX_MESSAGE`] bytes is `invalid.request` naming the field.
pub(super) fn system_text(m: &Map<String, Value>) -> ApiResult<Option<String>> {
    match opt_str(m, "system")? {
        None => Ok(None),
        Some(s) if s.trim().is_empty() => Err(Error::invalid("system is empty")
            .with("field", "system")
            .into()),
        Some(s) if s.len() > MAX_MESSAGE => Err(Error::invalid(format!(
            "system is longer than {MAX_MESSAGE} bytes"
        ))
        .with("field", "system")
        .into()),
        Some(s) => Ok(Some(s.to_string())),
    }
}

/// The body's `thinking_mode`, or `default` when it has none.
pub(super) fn thinking_mode(
    m: &Map<String, Value>,
    default: ThinkingMode,
) -> ApiResult<ThinkingMode> {
    Ok(match opt_str(m, "thinking_mode")? {
        None => default,
        Some(t) => ThinkingMode::parse(t).ok_or_else(|| {
            Error::invalid(format!(
                "thinking_mode must be one of never|on_error|always (got {t:?})"
            ))
            .with("field", "thinking_mode")
        })?,
    })
}

pub(super) fn opt_str<'a>(m: &'a Map<String, Value>, key: &str) -> ApiResult<Option<&'a str>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::invalid(format!(
            "{key} must be a string, not {}",
            crate::error::json_kind(other)
        ))
        .with("field", key)
        .into()),
    }
}

/// A string field that must be present: `invalid.request` naming the field otherwise.
pub(super) fn req_str<'a>(m: &'a Map<String, Value>, key: &str) -> ApiResult<&'a str> {
    opt_str(m, key)?.ok_or_else(|| {
        Error::invalid(format!("{key} is required"))
            .with("field", key)
            .into()
    })
}

/// Counts one run against the caller token's `serve.run_rate` (POST /v1/runs and chat
/// messages): `429 chat.rate_limited` with `Retry-After` beyond it, the code the API gives
/// every rate limit.
pub(super) fn admit_run(shared: &Shared, caller: &auth::Caller) -> ApiResult<()> {
    shared.admit_run(&caller.0).map_err(|wait| {
        Error::new(
            Code::ChatRateLimited,
            format!(
                "this token may queue {} runs a minute (serve.run_rate); retry in {wait}s",
                shared.opts.run_rate
            ),
        )
        .with("retry_after_seconds", wait)
        .into()
    })
}

/// Puts a validated run in the queue (durable on return) and wakes a worker. The message is
/// redacted first, and ids holding a secret value are refused: the queue is a durable write
/// like any other.
pub(super) async fn enqueue(shared: &Arc<Shared>, run: NewRun) -> ApiResult<()> {
    let s2 = shared.clone();
    let mut run = run;
    blocking(move || {
        // The queue is a durable write like any other: known secrets never reach it.
        let redactor = s2.redactor()?;
        run.message = redactor.redact_str(&run.message).into_owned();
        // Ids name files and are kept as given, so one holding a secret is refused.
        let ids = [
            ("agent_id", Some(&run.agent_id)),
            ("session_id", Some(&run.session_id)),
            ("user_id", run.user_id.as_ref()),
        ];
        for (field, v) in ids {
            if let Some(v) = v
                && redactor.redact_str(v) != v.as_str()
            {
                return Err(Error::invalid(format!(
                    "{field} holds a secret value; it was not stored"
                ))
                .with("field", field));
            }
        }
        s2.accept(run)
    })
    .await?;
    shared.kick();
    Ok(())
}

/// A list's `limit`: 1 to 500 (the HTTP API contract).
pub(super) fn check_limit(limit: u64) -> ApiResult<()> {
    if limit == 0 || limit > 500 {
        return Err(Error::invalid("limit must be between 1 and 500")
            .with("field", "limit")
            .into());
    }
    Ok(())
}

pub(super) fn mode_str(m: ThinkingMode) -> &'static str {
    match m {
        ThinkingMode::Never => "never",
        ThinkingMode::OnError => "on_error",
        ThinkingMode::Always => "always",
    }
}

/// Every status a run can have (the `status` filter's values).
pub(crate) const STATUSES: [&str; 6] = [
    "queued",
    "running",
    "completed",
    "incomplete",
    "failed",
    "cancelled",
];

/// A run without its trace (listings).
pub(super) fn summary(shared: &Shared, r: &RunRow) -> RunView {
    RunView {
        id: r.id.clone(),
        agent_id: r.agent_id.clone(),
        session_id: r.session_id.clone(),
        source: r.source.clone(),
        status: r.status.clone(),
        output: r.output.clone().unwrap_or_default(),
        artifact_path: crate::runs::dir(&shared.home, &r.id)
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        duration_ms: r.duration_ms.unwrap_or(0),
        tool_calls: r.tool_calls,
        provider: r.provider.clone().unwrap_or_default(),
        model: r.model.clone().unwrap_or_default(),
        thinking_mode: r.thinking_mode.clone(),
        profile: r.profile.clone(),
        created_at: r.created_at.clone(),
        started_at: r.started_at.clone(),
        finished_at: r.finished_at.clone(),
        error: r.error.as_ref().map(ErrorBrief::of),
        reason: r
            .error
            .as_ref()
            .and_then(|e| e.pointer("/details/reason"))
            .cloned(),
        trace: None,
    }
}
