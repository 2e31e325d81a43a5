//! `GET /openapi.json`: the OpenAPI 3.0 document of every endpoint, built from [`ENDPOINTS`]
//! (one row per method and path) and the body types of [`crate::contracts::http`] through
//! schemars. It is served without a token, like `/healthz`: it describes the API and holds no
//! data of this home. A unit test checks that every route the router serves has its row, and
//! an integration test calls every row through the binary.

use crate::contracts::http::*;
use schemars::JsonSchema;
use serde_json::{Map, Value, json};

/// One documented operation.
pub struct Endpoint {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    /// Needs `Authorization: Bearer <token>`.
    pub auth: bool,
    /// The request body's schema (a component name), if it takes one.
    pub body: Option<&'static str>,
    /// The success status and its body: a component name, or a media type for non-JSON.
    pub ok: (u16, Answer),
    /// A second success status and its body, where there is one.
    pub also: Option<(u16, Answer)>,
}

pub enum Answer {
    Schema(&'static str),
    /// Any JSON object (a free-form document: this OpenAPI document itself).
    Object,
    Media(&'static str),
}

use Answer::{Media, Object, Schema};

const fn ep(
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    body: Option<&'static str>,
    ok: (u16, Answer),
) -> Endpoint {
    Endpoint {
        method,
        path,
        summary,
        auth: true,
        body,
        ok,
        also: None,
    }
}

const fn public(
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    ok: (u16, Answer),
) -> Endpoint {
    Endpoint {
        method,
        path,
        summary,
        auth: false,
        body: None,
        ok,
        also: None,
    }
}

/// Every endpoint `bob serve` answers.
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        also: Some((503, Schema("Health"))),
        ..public(
            "get",
            "/healthz",
            "Liveness: {\"ok\": true}; 503 with the shared database unreachable",
            (200, Schema("Health")),
        )
    },
    public("get", "/openapi.json", "This document", (200, Object)),
    public("get", "/", "The dashboard page", (200, Media("text/html"))),
    public(
        "get",
        "/dashboard.js",
        "The dashboard's script",
        (200, Media("text/javascript")),
    ),
    public(
        "get",
        "/dashboard.css",
        "The dashboard's style",
        (200, Media("text/css")),
    ),
    ep(
        "post",
        "/v1/runs",
        "Queue a run (the HTTP API contract)",
        Some("RunRequest"),
        (202, Schema("RunAccepted")),
    ),
    ep(
        "get",
        "/v1/runs",
        "List runs, newest first (?status, ?limit ≤ 500, ?offset)",
        None,
        (200, Schema("RunList")),
    ),
    ep(
        "get",
        "/v1/runs/{id}",
        "One run, with its tool results once it ended",
        None,
        (200, Schema("RunView")),
    ),
    ep(
        "get",
        "/v1/runs/{id}/events",
        "The run's lifecycle events, live (SSE; id = audit seq). While the model answers, also \
         `answer.delta` events (data `{event_type, run_id, text}`: the next piece of the answer, \
         masked, without an id: a reconnect gets the final answer from the record) and \
         `answer.reset` (a tool round starts the answer over)",
        None,
        (200, Media("text/event-stream")),
    ),
    Endpoint {
        also: Some((200, Schema("RunAccepted"))),
        ..ep(
            "post",
            "/v1/runs/{id}/cancel",
            "Cancel a queued (200, cancelled) or running (202, cancelling) run",
            None,
            (202, Schema("RunAccepted")),
        )
    },
    Endpoint {
        also: Some((200, Schema("ChatCommandAnswer"))),
        ..ep(
            "post",
            "/v1/chat/messages",
            "A chat message in the sender's persisted session (202); /new and /resume answer at once (200)",
            Some("ChatRequest"),
            (202, Schema("RunAccepted")),
        )
    },
    ep(
        "get",
        "/api/admin/status",
        "Run counts, recent runs, workers, backend",
        None,
        (200, Schema("AdminStatus")),
    ),
    ep(
        "get",
        "/api/admin/config",
        "config.toml as JSON, credentials blanked",
        None,
        (200, Schema("ConfigView")),
    ),
    ep(
        "post",
        "/api/admin/config",
        "Replace config.toml (validated, atomic)",
        Some("ConfigRequest"),
        (200, Schema("ConfigView")),
    ),
    ep(
        "get",
        "/api/admin/secrets",
        "Secret names (never values)",
        None,
        (200, Schema("SecretList")),
    ),
    ep(
        "post",
        "/api/admin/secrets",
        "Store a secret (one-way)",
        Some("SecretRequest"),
        (201, Schema("SecretStored")),
    ),
    ep(
        "get",
        "/api/admin/scheduler/jobs",
        "Scheduler jobs and the global pause",
        None,
        (200, Schema("SchedulerView")),
    ),
    ep(
        "post",
        "/api/admin/scheduler/jobs",
        "Add a scheduler job (the scheduler job contract)",
        Some("JobRequest"),
        (201, Schema("Job")),
    ),
    ep(
        "delete",
        "/api/admin/scheduler/jobs/{id}",
        "Delete a scheduler job",
        None,
        (200, Schema("JobDeleted")),
    ),
    ep(
        "post",
        "/api/admin/scheduler/control",
        "Pause or resume the scheduler or one job",
        Some("SchedulerControl"),
        (200, Schema("SchedulerControlAnswer")),
    ),
    ep(
        "get",
        "/api/admin/chat/sessions",
        "Chat sessions (?agent_id, ?user_id, ?room_id, ?limit, ?offset)",
        None,
        (200, Schema("ChatSessionList")),
    ),
    ep(
        "get",
        "/api/admin/chat/sessions/{id}/messages",
        "A chat session's messages, in order",
        None,
        (200, Schema("ChatConversation")),
    ),
    ep(
        "get",
        "/api/admin/runs",
        "Every run of the home, newest first, whoever started it (bob turn, the scheduler, this server), with its source (?limit, ?offset)",
        None,
        (200, Schema("AdminRunList")),
    ),
    ep(
        "get",
        "/api/admin/runs/{id}",
        "One run's bundle: request, turn record, events, tool results",
        None,
        (200, Schema("RunBundle")),
    ),
    ep(
        "get",
        "/api/admin/sessions",
        "Sessions with runs or a checkpoint, most recently active first (?limit, ?offset)",
        None,
        (200, Schema("AdminSessionList")),
    ),
    ep(
        "get",
        "/api/admin/sessions/{id}/messages",
        "A session's conversation, oldest first: messages, tool results, answers (send the next with POST /v1/runs {session_id})",
        None,
        (200, Schema("AdminConversation")),
    ),
    ep(
        "get",
        "/api/admin/memory/candidates",
        "Memory candidates (?status, ?user)",
        None,
        (200, Schema("CandidateList")),
    ),
    ep(
        "post",
        "/api/admin/memory/candidates/{id}/{action}",
        "approve, edit or reject a candidate (a human act)",
        Some("CandidateDecisionRequest"),
        (200, Schema("CandidateDecided")),
    ),
    ep(
        "get",
        "/api/admin/sessions/{id}/turbotime",
        "A session's TURBOTIME",
        None,
        (200, Schema("TurbotimeView")),
    ),
    ep(
        "post",
        "/api/admin/sessions/{id}/turbotime",
        "Set a session's TURBOTIME (a human act)",
        Some("TurbotimeRequest"),
        (200, Schema("TurbotimeView")),
    ),
];

fn components() -> Map<String, Value> {
    let mut g = schemars::generate::SchemaSettings::openapi3().into_generator();
    fn add<T: JsonSchema>(g: &mut schemars::SchemaGenerator) {
        let _ = g.subschema_for::<T>();
    }
    add::<RunRequest>(&mut g);
    add::<ChatRequest>(&mut g);
    add::<SecretRequest>(&mut g);
    add::<ConfigRequest>(&mut g);
    add::<SchedulerControl>(&mut g);
    add::<CandidateDecisionRequest>(&mut g);
    add::<TurbotimeRequest>(&mut g);
    add::<crate::contracts::Job>(&mut g);
    add_answers(&mut g);
    let mut defs = g.take_definitions(true);
    constrain(&mut defs);
    defs
}

/// The rules the handlers check that the body types cannot state through schemars.
fn constrain(defs: &mut Map<String, Value>) {
    // A new job: the scheduler keeps next_run, last_status and last_run_id (setting one is
    // refused), and it needs a string id and schedule.
    if let Some(mut job) = defs.get("Job").cloned() {
        if let Some(props) = job["properties"].as_object_mut() {
            for kept in ["next_run", "last_status", "last_run_id"] {
                props.remove(kept);
            }
        }
        job["required"] = json!(["id", "schedule"]);
        job["description"] = json!(
            "A new scheduler job (the scheduler job contract); the scheduler keeps the rest of its state."
        );
        defs.insert("JobRequest".into(), job);
    }
    // TURBOTIME: `select` names TURBOTIME tools and goes only with `on: true`.
    if let Some(t) = defs.get_mut("TurbotimeRequest") {
        let tools = crate::tools::domain::turbotime::TOOLS;
        t["properties"]["select"]["items"] = json!({"type": "string", "enum": tools});
        t["oneOf"] = json!([
            {"properties": {"on": {"enum": [true]}}},
            {"properties": {"on": {"enum": [false]}, "select": {"maxItems": 0}}},
        ]);
    }
}

/// The schema of a path parameter: the run and session ids are safe path components, a
/// candidate decision is one of three actions; other ids are looked up (unknown: 404).
fn path_param(path: &str, name: &str) -> Value {
    let safe = path.starts_with("/v1/runs/")
        || path.starts_with("/api/admin/runs/")
        || path.starts_with("/api/admin/sessions/")
        || path.starts_with("/api/admin/chat/sessions/");
    match name {
        "action" => json!({"type": "string", "enum": ["approve", "edit", "reject"]}),
        "id" if safe => json!({"type": "string", "pattern": ID}),
        _ => json!({"type": "string"}),
    }
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The whole document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for e in ENDPOINTS {
        let mut op = json!({"summary": e.summary, "operationId": operation_id(e)});
        let params: Vec<Value> = e
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            .map(|p| {
                json!({"name": p, "in": "path", "required": true,
                             "schema": path_param(e.path, p)})
            })
            .collect();
        if !params.is_empty() {
            op["parameters"] = Value::Array(params);
        }
        if let Some(b) = e.body {
            op["requestBody"] = json!({"required": b != "CandidateDecisionRequest",
                "content": {"application/json": {"schema": reference(b)}}});
        }
        let mut responses = Map::new();
        for (status, answer) in std::iter::once(&e.ok).chain(e.also.as_ref()) {
            responses.insert(status.to_string(), answer_of(answer));
        }
        if e.auth || e.body.is_some() {
            responses.insert(
                "default".into(),
                json!({"description": "an error: the HTTP status follows the code",
                       "content": {"application/json": {"schema": reference("ErrorAnswer")}}}),
            );
        }
        op["responses"] = Value::Object(responses);
        if e.auth {
            // The token scopes the route accepts (any one of them), as the server checks them.
            let scopes = super::auth::Scopes::required(e.method != "get", e.path).names();
            op["description"] = json!(format!(
                "Needs a token with one of these scopes: {}.",
                scopes.join(", ")
            ));
            op["x-bob-scopes"] = json!(scopes);
        } else {
            op["security"] = json!([]);
        }
        let item = paths.entry(e.path.to_string()).or_insert_with(|| json!({}));
        item[e.method] = op;
    }
    json!({
        "openapi": "3.0.3",
        "info": {"title": "bob serve", "version": env!("CARGO_PKG_VERSION"),
                 "description": "The HTTP API of bob (the HTTP API contract). Every endpoint but /healthz, /openapi.json and the dashboard's files needs Authorization: Bearer <token> (bob serve token create --scope …) whose scopes the operation accepts (x-bob-scopes; 403 policy.denied otherwise): runs, chat, read, admin. Settings that run commands, choose where requests and secrets go, or change tools, rules or the sandbox are never changed over HTTP, whatever the scopes."},
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": components(),
        },
    })
}

/// The documented body of a success status.
fn answer_of(answer: &Answer) -> Value {
    match answer {
        Schema(s) => {
            json!({"description": "ok", "content": {"application/json": {"schema": reference(s)}}})
        }
        Object => {
            json!({"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}})
        }
        // For an event stream, the schema of each event (OpenAPI 3.2's itemSchema).
        Media(m @ "text/event-stream") => json!({"description": "ok", "content": {*m: {"schema": {
                "type": "object", "required": ["data"],
                "properties": {"data": {"type": "string",
                                        "description": "the audit event (or answer delta), as JSON"},
                               "event": {"type": "string"}, "id": {"type": "string"}}}}}}),
        Media(m) => {
            json!({"description": "ok", "content": {*m: {"schema": {"type": "string"}}}})
        }
    }
}

fn operation_id(e: &Endpoint) -> String {
    let mut id = e.method.to_string();
    for part in e.path.split('/').filter(|p| !p.is_empty()) {
        let part = part.trim_start_matches('{').trim_end_matches('}');
        id.push('_');
        id.extend(
            part.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }),
        );
    }
    if e.path == "/" {
        id.push_str("_index");
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(method, path)` of every `.route(...)` in the router's sources.
    fn served() -> Vec<(String, String)> {
        let sources = [
            include_str!("routes.rs"),
            include_str!("admin.rs"),
            include_str!("chat.rs"),
            include_str!("conversation.rs"),
            include_str!("dashboard.rs"),
        ];
        let method = regex::Regex::new(r"\b(get|post|delete|put|patch)\(").unwrap();
        let mut out = Vec::new();
        for src in sources {
            // Each `.route(` call up to its balanced closing parenthesis.
            for (at, _) in src.match_indices(".route(") {
                let body = &src[at + ".route(".len()..];
                let mut depth = 1;
                let end = body
                    .char_indices()
                    .find(|&(_, c)| {
                        depth += match c {
                            '(' => 1,
                            ')' => -1,
                            _ => 0,
                        };
                        depth == 0
                    })
                    .map(|(i, _)| i)
                    .unwrap();
                let call = &body[..end];
                let path = call.split('"').nth(1).unwrap();
                let handlers = &call[call.find(',').unwrap()..];
                for m in method.captures_iter(handlers) {
                    out.push((m[1].to_string(), path.to_string()));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn every_served_route_is_documented_and_every_documented_route_is_served() {
        let served = served();
        assert!(served.len() > 20, "{served:?}");
        let mut documented: Vec<(String, String)> = ENDPOINTS
            .iter()
            .map(|e| (e.method.to_string(), e.path.to_string()))
            .collect();
        documented.sort();
        assert_eq!(served, documented);
    }

    /// The published patterns accept exactly what the handlers accept (Schemathesis found
    /// the document looser than the server: schema-valid ids and names were refused).
    #[test]
    fn the_id_and_name_patterns_match_the_servers_own_checks() {
        let safe = regex::Regex::new(ID).unwrap();
        let user = regex::Regex::new(USER_ID).unwrap();
        let secret = regex::Regex::new(SECRET_NAME).unwrap();
        let long = "a".repeat(128);
        let too_long = "a".repeat(129);
        let dots = format!("..{}", "b".repeat(126));
        let samples = [
            "",
            ".",
            "..",
            "...",
            ".a",
            "a.",
            "..a",
            "a",
            "run_0f",
            "u@x:y-z.w",
            "@alice:example.org",
            "human",
            "-a",
            "_a",
            "a/b",
            "a b",
            "é",
            "a\n",
            "%2e",
            &long,
            &too_long,
            &dots,
        ];
        for s in samples {
            assert_eq!(
                safe.is_match(s),
                crate::ids::check("id", s).is_ok(),
                "ID on {s:?}"
            );
            assert_eq!(
                user.is_match(s),
                crate::ids::check_user("user_id", s).is_ok(),
                "USER_ID on {s:?}"
            );
            let name_ok = crate::secrets::check_name(s).is_ok();
            assert_eq!(secret.is_match(s), name_ok, "SECRET_NAME on {s:?}");
        }
        let doc = document();
        // Agent ids: the id rule, and never a reserved actor.
        let agent = &doc["components"]["schemas"]["RunRequest"]["properties"]["agent_id"];
        assert_eq!(agent["pattern"], ID, "{agent}");
        assert_eq!(
            agent["not"]["enum"],
            json!(crate::ids::RESERVED_ACTORS),
            "{agent}"
        );
        // A run names any profile `bob turn` takes, and its mode.
        let props = &doc["components"]["schemas"]["RunRequest"]["properties"];
        for p in ["bob", "spectator", "solo", "panda"] {
            assert!(crate::turn::Profile::parse(p).is_some(), "{p}");
            assert!(
                props["profile"]["enum"]
                    .as_array()
                    .unwrap()
                    .contains(&json!(p))
            );
        }
        assert_eq!(
            props["mode"]["enum"],
            json!(["chat", "act", null]),
            "{props}"
        );
        let p = &doc["paths"]["/v1/runs/{id}/cancel"]["post"]["responses"];
        assert!(p["200"].is_object() && p["202"].is_object(), "{p}");
        let events = &doc["paths"]["/v1/runs/{id}/events"]["get"]["responses"]["200"];
        assert_eq!(
            events["content"]["text/event-stream"]["schema"]["required"],
            json!(["data"])
        );
    }

    #[test]
    fn each_operation_names_the_token_scopes_it_accepts() {
        let doc = document();
        let scopes = |path: &str, method: &str| doc["paths"][path][method]["x-bob-scopes"].clone();
        assert_eq!(scopes("/v1/runs", "post"), json!(["runs", "admin"]));
        assert_eq!(scopes("/v1/runs", "get"), json!(["runs", "read", "admin"]));
        assert_eq!(
            scopes("/v1/chat/messages", "post"),
            json!(["chat", "admin"])
        );
        assert_eq!(
            scopes("/v1/runs/{id}/cancel", "post"),
            json!(["runs", "admin"])
        );
        assert_eq!(scopes("/api/admin/config", "get"), json!(["read", "admin"]));
        assert_eq!(scopes("/api/admin/config", "post"), json!(["admin"]));
        assert_eq!(scopes("/healthz", "get"), Value::Null);
    }

    #[test]
    fn every_reference_resolves() {
        let doc = document();
        let text = doc.to_string();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        let re = regex::Regex::new(r##""\$ref":"#/components/schemas/([A-Za-z0-9_]+)""##).unwrap();
        for c in re.captures_iter(&text) {
            assert!(schemas.contains_key(&c[1]), "{} is not a component", &c[1]);
        }
    }
}
