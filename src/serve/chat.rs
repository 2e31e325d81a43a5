//! Chat (the HTTP API contract): `POST /v1/chat/messages {user_id, room_id, agent_id, message,
//! thinking_mode?, system?}` queues a run in the sender's chat session and answers `202 {id, status,
//! session_id}`. A chat session is persisted per (agent, user, room) in the queue database
//! (`chat_sessions`); its id is the session of every run it queues, so its messages run one at a
//! time and share the checkpoint's history. `/new` starts a fresh session and `/resume` goes
//! back to the previous one; both answer `200 {response, session_id}` at once, with no run.
//!
//! Each sender may send `--chat-rate` messages per minute to one agent in one room (a sliding
//! window kept in memory); beyond it the answer is `429 chat.rate_limited` with
//! `retry_after_seconds` and `Retry-After`. The sender is normalised first ([`sender_key`]):
//! case-folded, with trailing digits and punctuation dropped, so `Alice`, `alice1` and `alice.`
//! are one sender (ids are ASCII, so case folding is all the Unicode normalisation they need).
//! A message that queues a run also counts against the token's `serve.run_rate`, so changing
//! rooms does not escape every limit.
//!
//! Admin: `GET /api/admin/chat/sessions?agent_id&user_id&room_id&limit&offset` and
//! `GET /api/admin/chat/sessions/{id}/messages`: the session's messages in order, rebuilt from
//! its runs: the user's message, the tool results (`tool_name`, `tool_call_id`, summary) and the
//! answer, each with its `run_id`.

use super::api::{
    ApiResult, MAX_MESSAGE, blocking, body_json, enqueue, mode_str, req_str, system_text,
    thinking_mode, with_queue, with_reader,
};
use super::queue::{ChatFilter, ChatKey};
use super::shared::Shared;
use crate::contracts::http::{
    ChatCommandAnswer, ChatConversation, ChatLine, ChatSessionList, RunAccepted,
};
use crate::error::{Code, Error};
use crate::ids::{self, Kind};
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/v1/chat/messages", post(message))
        .route("/api/admin/chat/sessions", get(sessions))
        .route("/api/admin/chat/sessions/{id}/messages", get(messages))
}

const WINDOW: Duration = Duration::from_secs(60);

/// The rate limit's key for a message of `user` to `agent` in `room`: the sender case-folded,
/// without trailing digits and punctuation (`Alice`, `alice1`, `alice.` and `ALICE-2` are one
/// sender; a sender that is nothing but those keeps them).
fn sender_key(agent: &str, room: &str, user: &str) -> String {
    let folded = user.to_lowercase();
    let base = folded.trim_end_matches(|c: char| c.is_ascii_digit() || c.is_ascii_punctuation());
    let sender = if base.is_empty() {
        folded.as_str()
    } else {
        base
    };
    format!(
        "{}\n{}\n{sender}",
        agent.to_lowercase(),
        room.to_lowercase()
    )
}

/// Counts one message of `sender`; `Err(seconds to wait)` when over the rate.
fn admit(shared: &Shared, sender: &str) -> Result<(), u64> {
    let rate = shared.opts.chat_rate as usize;
    let now = Instant::now();
    let mut map = shared.chat_rate.lock().unwrap_or_else(|e| e.into_inner());
    // Forget senders whose window is empty, so the map cannot grow without bound.
    if map.len() > 10_000 {
        map.retain(|_, q| q.back().is_some_and(|t| now.duration_since(*t) < WINDOW));
    }
    let q = map.entry(sender.to_string()).or_default();
    while q.front().is_some_and(|t| now.duration_since(*t) >= WINDOW) {
        q.pop_front();
    }
    if q.len() >= rate {
        let oldest = *q.front().expect("rate >= 1");
        let wait = WINDOW.saturating_sub(now.duration_since(oldest));
        return Err(wait.as_secs().max(1) + u64::from(wait.subsec_nanos() > 0));
    }
    q.push_back(now);
    Ok(())
}

/// A required id field of a chat message, checked by its rule (`agent_id`: an agent id;
/// `user_id`, `room_id`: user ids) and against the home's redactor ([`crate::ids`]).
fn required<'a>(
    shared: &Shared,
    m: &'a serde_json::Map<String, Value>,
    key: &str,
) -> ApiResult<&'a str> {
    let kind = if key == "agent_id" {
        Kind::Agent
    } else {
        Kind::User
    };
    Ok(ids::check_in_home(
        &shared.home,
        kind,
        key,
        req_str(m, key)?,
    )?)
}

async fn message(
    State(shared): State<Arc<Shared>>,
    axum::extract::Extension(caller): axum::extract::Extension<super::auth::Caller>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    if shared.draining.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(Error::new(Code::QueueFull, "the server is shutting down").into());
    }
    let m = body_json(body)?;
    let key = ChatKey {
        agent_id: required(&shared, &m, "agent_id")?.to_string(),
        user_id: required(&shared, &m, "user_id")?.to_string(),
        room_id: required(&shared, &m, "room_id")?.to_string(),
    };
    let text = req_str(&m, "message")?.trim().to_string();
    if text.is_empty() || text.len() > MAX_MESSAGE {
        return Err(
            Error::invalid(format!("message must be 1-{MAX_MESSAGE} bytes of text"))
                .with("field", "message")
                .into(),
        );
    }
    let thinking = thinking_mode(&m, shared.default_thinking)?;
    let system = system_text(&m)?;
    if let Err(wait) = admit(
        &shared,
        &sender_key(&key.agent_id, &key.room_id, &key.user_id),
    ) {
        return Err(Error::new(
            Code::ChatRateLimited,
            format!("chat sender is rate limited; retry in {wait}s"),
        )
        .with("retry_after_seconds", wait)
        .into());
    }
    let now = crate::clock::rfc3339(crate::clock::now()?);
    match text.as_str() {
        "/new" => {
            let (k, n) = (key.clone(), now.clone());
            let s = with_queue(&shared, move |q| q.chat_new(&k, &n)).await?;
            return Ok(axum::Json(ChatCommandAnswer {
                response: "Started a new chat session.".into(),
                session_id: Some(s.id),
            })
            .into_response());
        }
        "/resume" => {
            let k = key.clone();
            let s = with_queue(&shared, move |q| q.chat_resume(&k)).await?;
            let body = match s {
                Some(s) => ChatCommandAnswer {
                    response: "Resumed the previous chat session.".into(),
                    session_id: Some(s.id),
                },
                None => ChatCommandAnswer {
                    response: "There is no earlier chat session to resume.".into(),
                    session_id: None,
                },
            };
            return Ok(axum::Json(body).into_response());
        }
        _ => {}
    }
    super::api::admit_run(&shared, &caller)?;
    let (k, n) = (key.clone(), now.clone());
    let session = with_queue(&shared, move |q| q.chat_session(&k, &n)).await?;
    let id = format!("run_{}", uuid::Uuid::new_v4().simple());
    let run = crate::contracts::TurnRequest::new("chat", &key.agent_id, &session.id, text)
        .with_user(Some(key.user_id.clone()))
        .with_thinking_mode(mode_str(thinking))
        .with_system(system)
        .queued(&id, now);
    enqueue(&shared, run).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(RunAccepted {
            id,
            status: "queued".into(),
            session_id: Some(session.id),
        }),
    )
        .into_response())
}

async fn sessions(
    State(shared): State<Arc<Shared>>,
    RawQuery(q): RawQuery,
) -> ApiResult<axum::Json<ChatSessionList<super::queue::ChatSession>>> {
    let (mut f, mut limit, mut offset) = (ChatFilter::default(), 50u64, 0u64);
    for (k, v) in url::form_urlencoded::parse(q.unwrap_or_default().as_bytes()) {
        let num = |what: &str| {
            v.parse::<u64>().map_err(|_| {
                Error::invalid(format!("{what} must be a non-negative integer")).with("field", what)
            })
        };
        match k.as_ref() {
            "agent_id" => f.agent_id = Some(v.into_owned()),
            "user_id" => f.user_id = Some(v.into_owned()),
            "room_id" => f.room_id = Some(v.into_owned()),
            "limit" => limit = num("limit")?,
            "offset" => offset = num("offset")?,
            other => {
                return Err(Error::invalid(format!("unknown query parameter {other:?}")).into());
            }
        }
    }
    super::api::check_limit(limit)?;
    let (rows, total) = with_reader(&shared, move |q| q.chat_sessions(&f, limit, offset)).await?;
    Ok(axum::Json(ChatSessionList {
        sessions: rows,
        total,
        limit,
        offset,
    }))
}

async fn messages(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ChatConversation<super::queue::ChatSession>>> {
    ids::check("session_id", &id)?;
    let id2 = id.clone();
    let (session, runs) = with_reader(&shared, move |q| {
        Ok((q.chat_get(&id2)?, q.session_runs(&id2)?))
    })
    .await?;
    let Some(session) = session else {
        return Err(Error::not_found(format!("no chat session {id:?}")).into());
    };
    let home = shared.home.clone();
    let out = blocking(move || -> crate::error::Result<Vec<ChatLine>> {
        let mut out = Vec::new();
        for r in runs {
            out.push(ChatLine::User {
                role: "user".into(),
                content: r.message,
                run_id: r.id.clone(),
                created_at: r.created_at,
            });
            let path = crate::runs::dir(&home, &r.id)?.join("tool_results.json");
            let tools: Option<Vec<Value>> = crate::store::read_json(&path)?;
            for t in tools.unwrap_or_default() {
                out.push(ChatLine::Tool {
                    role: "tool".into(),
                    tool_name: t["tool"].clone(),
                    tool_call_id: t["tool_call_id"].clone(),
                    content: t["summary"].clone(),
                    error: t["error"].clone(),
                    run_id: r.id.clone(),
                });
            }
            match r.status.as_str() {
                "completed" | "incomplete" => out.push(ChatLine::Answer {
                    role: "assistant".into(),
                    content: r.output.unwrap_or_default(),
                    run_id: r.id,
                }),
                "queued" | "running" => {}
                other => out.push(ChatLine::Failed {
                    role: "assistant".into(),
                    content: String::new(),
                    status: other.to_string(),
                    error: r.error,
                    run_id: r.id,
                }),
            }
        }
        Ok(out)
    })
    .await?;
    Ok(axum::Json(ChatConversation {
        session,
        messages: out,
    }))
}

#[cfg(test)]
mod tests {
    use super::sender_key;

    #[test]
    fn senders_differing_in_case_trailing_digits_or_punctuation_share_a_key() {
        let k = sender_key("agent_a", "room", "alice");
        for u in ["Alice", "alice1", "alice.", "ALICE-22", "alice_"] {
            assert_eq!(sender_key("agent_a", "room", u), k, "{u}");
        }
        assert_ne!(sender_key("agent_a", "room", "bob"), k);
        assert_ne!(sender_key("agent_a", "other", "alice"), k);
        assert_ne!(sender_key("agent_b", "room", "alice"), k);
        assert_ne!(
            sender_key("agent_a", "room", "123"),
            sender_key("agent_a", "room", "124")
        );
    }
}
