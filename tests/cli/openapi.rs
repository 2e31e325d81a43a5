//! The OpenAPI document tells the truth: every operation with a JSON answer is called through
//! the real `bob serve`, and its answer validates against the schema the document gives for
//! that status; those schemas are the ones `bob schema NAME` prints.

use crate::TestEnv;
use crate::serve::{Server, create, post, replay, req, status_is, token, wait_run};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Where `v` breaks `schema` (the subset of OpenAPI 3.0 schemas schemars writes: `$ref` into
/// the components, `type`, `nullable`, `properties`, `required`, `additionalProperties`,
/// `items`, `enum`, `const`, `pattern`, `minimum`, `maximum`, `anyOf`, `oneOf`, `allOf`, `not`).
/// A JSON Schema crate was not used: the one at hand turns on serde_json features that would
/// change how the `bob` binary under test reads numbers.
fn violations(schemas: &Value, schema: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
    let Some(s) = schema.as_object() else {
        return;
    };
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/components/schemas/");
        let target = &schemas[name];
        assert!(target.is_object(), "unresolved {r}");
        if !(v.is_null() && s.get("nullable") == Some(&Value::Bool(true))) {
            violations(schemas, target, v, at, out);
        }
    }
    if v.is_null() && s.get("nullable") == Some(&Value::Bool(true)) {
        return;
    }
    let mut fail = |what: String| out.push(format!("{at}: {what} (got {v})"));
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(t) => vec![t.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let is = |t: &str| match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            "number" => v.is_number(),
            "integer" => v.is_i64() || v.is_u64(),
            _ => true,
        };
        if !types.iter().any(|t| is(t)) {
            fail(format!("not of type {t}"));
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        fail(format!("not one of {}", Value::Array(e.clone())));
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        fail(format!("not {c}"));
    }
    if let (Some(p), Some(text)) = (s.get("pattern").and_then(Value::as_str), v.as_str())
        && !regex::Regex::new(p).unwrap().is_match(text)
    {
        fail(format!("does not match {p}"));
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        fail(format!("below {min}"));
    }
    if let (Some(max), Some(n)) = (s.get("maximum").and_then(Value::as_f64), v.as_f64())
        && n > max
    {
        fail(format!("above {max}"));
    }
    if let Some(o) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !o.contains_key(r.as_str().unwrap_or_default()) {
                out.push(format!("{at}: {r} is required"));
            }
        }
        for (k, x) in o {
            let here = format!("{at}/{k}");
            match props.and_then(|p| p.get(k)) {
                Some(p) => violations(schemas, p, x, &here, out),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => out.push(format!("{here}: not allowed")),
                    Some(extra @ Value::Object(_)) => violations(schemas, extra, x, &here, out),
                    _ => {}
                },
            }
        }
    }
    if let (Some(items), Some(a)) = (s.get("items"), v.as_array()) {
        for (i, x) in a.iter().enumerate() {
            violations(schemas, items, x, &format!("{at}/{i}"), out);
        }
    }
    let passes = |sub: &Value| {
        let mut errs = Vec::new();
        violations(schemas, sub, v, at, &mut errs);
        errs
    };
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        for sub in all {
            out.extend(passes(sub));
        }
    }
    if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
        let errs: Vec<Vec<String>> = any.iter().map(passes).collect();
        if errs.iter().all(|e| !e.is_empty()) {
            out.push(format!("{at}: matches none of anyOf: {errs:?}"));
        }
    }
    if let Some(one) = s.get("oneOf").and_then(Value::as_array) {
        let n = one.iter().filter(|sub| passes(sub).is_empty()).count();
        if n != 1 {
            out.push(format!(
                "{at}: matches {n} of oneOf, not exactly one (got {v})"
            ));
        }
    }
    if let Some(not) = s.get("not")
        && passes(not).is_empty()
    {
        out.push(format!("{at}: matches what `not` refuses (got {v})"));
    }
}

/// Validates answers against the document's response schemas, remembering what it checked.
struct Checker {
    doc: Value,
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
        let mut errors = Vec::new();
        violations(
            &self.doc["components"]["schemas"],
            schema,
            body,
            "",
            &mut errors,
        );
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
    let mut c = Checker {
        doc: doc.clone(),
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
    let accepted = c.call(
        a,
        &tok,
        "post",
        "/v1/runs",
        "/v1/runs",
        Some(json!({"agent_id": "a", "message": "hi", "session_id": "s1"})),
    );
    let id = accepted["id"].as_str().unwrap().to_string();
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
