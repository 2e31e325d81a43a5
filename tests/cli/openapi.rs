//! The OpenAPI document tells the truth: every operation with a JSON answer is called through
//! the real `bob serve`, and its answer validates against the schema the document gives for
//! that status; those schemas are the ones `bob schema NAME` prints.

use crate::TestEnv;
use crate::serve::{Server, create, get, post, replay, req, status_is, token, wait_run};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// OpenAPI 3.0's `nullable` as JSON Schema says it: `null` is one more accepted type.
fn json_schema(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(json_schema).collect()),
        Value::Object(m) => {
            let mut out: Map<String, Value> = m
                .iter()
                .filter(|(k, _)| k.as_str() != "nullable")
                .map(|(k, v)| (k.clone(), json_schema(v)))
                .collect();
            if m.get("nullable") != Some(&Value::Bool(true)) {
                return Value::Object(out);
            }
            match out.get("type").cloned() {
                Some(Value::String(t)) => {
                    out.insert("type".into(), json!([t, "null"]));
                    Value::Object(out)
                }
                _ => json!({"anyOf": [Value::Object(out), {"type": "null"}]}),
            }
        }
        other => other.clone(),
    }
}

/// Validates answers against the document's response schemas, remembering what it checked.
struct Checker {
    doc: Value,
    components: Value,
    checked: BTreeSet<(String, String)>,
}

impl Checker {
    fn check(&mut self, method: &str, path: &str, status: u16, body: &Value) {
        let responses = &self.doc["paths"][path][method]["responses"];
        let schema = &responses[status.to_string()]["content"]["application/json"]["schema"];
        assert!(
            schema.is_object(),
            "{method} {path} answered {status}, which the document does not list: {responses} {body}"
        );
        let mut root = json_schema(schema);
        root["components"] = self.components.clone();
        let v = jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{path}: {e}"));
        let errors: Vec<String> = v
            .iter_errors(body)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {path} {status}: the answer does not match its schema {schema}:\n{}\n{body}",
            errors.join("\n")
        );
        self.checked.insert((method.to_string(), path.to_string()));
    }

    /// Calls `method concrete` (documented as `path`) and checks the answer.
    fn call(
        &mut self,
        a: std::net::SocketAddr,
        tok: &str,
        method: &str,
        path: &str,
        concrete: &str,
        body: Option<Value>,
    ) -> Value {
        let text = body.map(|b| b.to_string());
        let r = req(
            a,
            &method.to_uppercase(),
            concrete,
            Some(tok),
            text.as_deref().map(str::as_bytes),
        );
        let v = r.json();
        assert!(r.status < 300, "{method} {concrete}: {} {v}", r.status);
        self.check(method, path, r.status, &v);
        v
    }
}

#[test]
fn every_json_answer_of_the_server_matches_its_documented_schema() {
    let env = TestEnv::new();
    let tok = token(&env);
    let backend = replay(&env, "fine");
    let srv = Server::start(&env, &["--backend", &backend]);
    let a = srv.addr;
    let doc = req(a, "GET", "/openapi.json", None, None).json();
    let components = json_schema(&doc["components"]);
    let mut c = Checker {
        doc: doc.clone(),
        components,
        checked: BTreeSet::new(),
    };

    // The components are the schemas `bob schema` prints.
    let listed: Vec<String> = env
        .jsonl(&["schema", "--list"], "")
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    for name in ["http-admin-status", "http-admin-run-list", "http-health"] {
        assert!(listed.contains(&name.to_string()), "{name}: {listed:?}");
    }
    let printed = env.json(&["schema", "http-admin-status"], "");
    let shown = &doc["components"]["schemas"]["AdminStatus"];
    let keys = |s: &Value| {
        s["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect::<Vec<_>>())
    };
    assert_eq!(keys(&printed), keys(shown));
    assert_eq!(printed["required"], shown["required"]);

    let r = req(a, "GET", "/healthz", None, None);
    c.check("get", "/healthz", r.status, &r.json());

    // Runs.
    let id = create(
        a,
        &tok,
        json!({"agent_id": "a", "message": "hi", "session_id": "s1"}),
    );
    c.check(
        "post",
        "/v1/runs",
        202,
        &json!({"id": id, "status": "queued"}),
    );
    let run = wait_run(a, &tok, &id, status_is("completed"));
    c.check("get", "/v1/runs/{id}", 200, &run);
    c.call(a, &tok, "get", "/v1/runs", "/v1/runs", None);
    // A cancel answers 200 (queued) or 202 (running); a run that ended already is a conflict.
    for _ in 0..10 {
        let ids: Vec<String> = (0..3)
            .map(|_| {
                create(
                    a,
                    &tok,
                    json!({"agent_id": "a", "message": "more", "session_id": "s2"}),
                )
            })
            .collect();
        let r = req(
            a,
            "POST",
            &format!("/v1/runs/{}/cancel", ids[2]),
            Some(&tok),
            None,
        );
        if r.status != 409 {
            c.check("post", "/v1/runs/{id}/cancel", r.status, &r.json());
            break;
        }
    }

    // Chat.
    let msg =
        |text: &str| json!({"user_id": "u1", "room_id": "room", "agent_id": "a", "message": text});
    let r = post(a, "/v1/chat/messages", &tok, &msg("hello"));
    let sent = r.json();
    c.check("post", "/v1/chat/messages", r.status, &sent);
    wait_run(
        a,
        &tok,
        sent["id"].as_str().unwrap(),
        status_is("completed"),
    );
    let r = post(a, "/v1/chat/messages", &tok, &msg("/new"));
    c.check("post", "/v1/chat/messages", r.status, &r.json());
    let chat = sent["session_id"].as_str().unwrap();
    c.call(
        a,
        &tok,
        "get",
        "/api/admin/chat/sessions",
        "/api/admin/chat/sessions",
        None,
    );
    c.call(
        a,
        &tok,
        "get",
        "/api/admin/chat/sessions/{id}/messages",
        &format!("/api/admin/chat/sessions/{chat}/messages"),
        None,
    );

    // The admin views of runs and sessions.
    c.call(
        a,
        &tok,
        "get",
        "/api/admin/status",
        "/api/admin/status",
        None,
    );
    c.call(a, &tok, "get", "/api/admin/runs", "/api/admin/runs", None);
    c.call(
        a,
        &tok,
        "get",
        "/api/admin/runs/{id}",
        &format!("/api/admin/runs/{id}"),
        None,
    );
    c.call(
        a,
        &tok,
        "get",
        "/api/admin/sessions",
        "/api/admin/sessions",
        None,
    );
    c.call(
        a,
        &tok,
        "get",
        "/api/admin/sessions/{id}/messages",
        "/api/admin/sessions/s1/messages",
        None,
    );
    let t = "/api/admin/sessions/{id}/turbotime";
    c.call(a, &tok, "get", t, "/api/admin/sessions/s1/turbotime", None);
    c.call(
        a,
        &tok,
        "post",
        t,
        "/api/admin/sessions/s1/turbotime",
        Some(json!({"on": false})),
    );

    // Config and secrets.
    let cfg = c.call(
        a,
        &tok,
        "get",
        "/api/admin/config",
        "/api/admin/config",
        None,
    );
    c.call(
        a,
        &tok,
        "post",
        "/api/admin/config",
        "/api/admin/config",
        Some(json!({"config": cfg["config"]})),
    );
    let s = "/api/admin/secrets";
    c.call(
        a,
        &tok,
        "post",
        s,
        s,
        Some(json!({"name": "demo", "value": "a-long-secret-value"})),
    );
    c.call(a, &tok, "get", s, s, None);

    // The scheduler.
    let jobs = "/api/admin/scheduler/jobs";
    let job = json!({"id": "daily", "agent_id": "a", "schedule": "@every 1h", "message": "report"});
    c.call(a, &tok, "post", jobs, jobs, Some(job));
    c.call(a, &tok, "get", jobs, jobs, None);
    let control = "/api/admin/scheduler/control";
    c.call(
        a,
        &tok,
        "post",
        control,
        control,
        Some(json!({"action": "pause"})),
    );
    c.call(
        a,
        &tok,
        "post",
        control,
        control,
        Some(json!({"action": "resume", "job_id": "daily"})),
    );
    c.call(
        a,
        &tok,
        "delete",
        "/api/admin/scheduler/jobs/{id}",
        "/api/admin/scheduler/jobs/daily",
        None,
    );

    // Memory candidates.
    let rows = env.jsonl(
        &["memory", "propose"],
        r#"[{"text":"The user prefers metric units everywhere","type":"preference"},
            {"text":"The user dislikes cilantro in salsa","type":"preference"}]"#,
    );
    let cands = "/api/admin/memory/candidates";
    c.call(a, &tok, "get", cands, cands, None);
    let decide = "/api/admin/memory/candidates/{id}/{action}";
    let cand = |i: usize, act: &str| format!("{cands}/{}/{act}", rows[i]["id"].as_str().unwrap());
    c.call(a, &tok, "post", decide, &cand(0, "approve"), None);
    c.call(
        a,
        &tok,
        "post",
        decide,
        &cand(1, "reject"),
        Some(json!({"reason": "not useful"})),
    );

    // Every documented operation with a JSON answer was checked.
    let mut expected = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let json_answer = op["responses"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(status, _)| status.as_str() != "default")
                .any(|(_, r)| r["content"]["application/json"]["schema"]["$ref"].is_string());
            if json_answer {
                expected.insert((method.clone(), path.clone()));
            }
        }
    }
    let missed: Vec<_> = expected.difference(&c.checked).collect();
    assert!(missed.is_empty(), "not checked: {missed:?}");
}
