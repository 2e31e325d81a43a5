//! Semantic and hybrid memory retrieval on the real all-MiniLM-L6-v2 model (fetched once by
//! `support::model`), the openai embeddings provider against a loopback server, the queue of
//! records a failed embedder left, model changes, and the turn's retrieval.

use crate::TestEnv;
use crate::support::http::Reply;
use crate::support::model::embedding_model;
use crate::support::openai::{OpenAi, completion, embeddings};
use serde_json::Value;

const FACTS: [&str; 6] = [
    "Rex is my puppy",
    "I take the 7:40 train to work on weekdays",
    "My sister lives in Lisbon",
    "I am allergic to penicillin",
    "The garage door code is changed every spring",
    "Quarterly taxes are due in mid April",
];

fn config(env: &TestEnv, toml: &str) {
    env.write("home/config.toml", toml);
}

fn local(env: &TestEnv) {
    config(
        env,
        &format!(
            "[memory]\nembeddings = \"local\"\nembedding_model = \"{}\"\n",
            embedding_model().display()
        ),
    );
}

/// Proposes and approves `text`; returns the approval.
fn remember(env: &TestEnv, text: &str) -> Value {
    let rows = env.jsonl(
        &["memory", "propose"],
        &serde_json::json!({"text": text}).to_string(),
    );
    let id = rows[0]["id"].as_str().unwrap().to_string();
    env.json(&["memory", "approve", &id], "")
}

fn titles(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["title"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_paraphrase_is_found_by_meaning_and_hits_carry_both_scores() {
    let env = TestEnv::new();
    local(&env);
    for f in FACTS {
        let d = remember(&env, f);
        assert!(d.get("embedding").is_none(), "{d}");
    }
    let q = "what is my dog called?";
    let lexical = env.jsonl(&["memory", "query", q, "--mode", "lexical"], "");
    assert!(
        !titles(&lexical).contains(&"Rex is my puppy".to_string()),
        "words alone should not find it: {lexical:?}"
    );
    let semantic = env.jsonl(&["memory", "query", q, "--mode", "semantic", "-k", "3"], "");
    assert_eq!(semantic[0]["title"], "Rex is my puppy", "{semantic:?}");
    assert!(semantic[0]["semantic_score"].as_f64().unwrap() > 0.3);
    // Default with embeddings configured: hybrid.
    let hybrid = env.jsonl(
        &["memory", "query", "which medicine must I avoid", "-k", "2"],
        "",
    );
    assert_eq!(
        hybrid[0]["title"], "I am allergic to penicillin",
        "{hybrid:?}"
    );
    assert!(hybrid[0].get("semantic_score").is_some());
    let both = env.jsonl(&["memory", "query", "my sister in Lisbon", "-k", "1"], "");
    assert_eq!(both[0]["title"], "My sister lives in Lisbon");
    assert!(both[0]["lexical_score"].as_f64().unwrap() > 0.0, "{both:?}");
    assert!(
        both[0]["semantic_score"].as_f64().unwrap() > 0.0,
        "{both:?}"
    );
    // The hybrid score is 0.5 × cosine + 0.5 × lexical score × coverage² + 0.1 × coverage²;
    // the record holds both words of the query ("sister", "lisbon"), so its coverage is 1.
    let (sem, lex) = (
        both[0]["semantic_score"].as_f64().unwrap(),
        both[0]["lexical_score"].as_f64().unwrap(),
    );
    let score = both[0]["score"].as_f64().unwrap();
    assert!(
        (score - (0.5 * sem + 0.5 * lex + 0.1)).abs() < 0.002,
        "hybrid score of both rankings: {both:?}"
    );
    // The RETRIEVED_MEMORY block uses the same ranking.
    let out = env
        .bob(&[
            "memory",
            "query",
            "what is my dog called?",
            "-k",
            "1",
            "--format",
            "block",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Rex is my puppy"));
}

#[test]
fn without_embeddings_queries_are_lexical_and_unchanged() {
    let env = TestEnv::new();
    remember(&env, "Rex is my puppy");
    let hits = env.jsonl(&["memory", "query", "Rex puppy"], "");
    assert_eq!(hits.len(), 1);
    assert!(hits[0].get("semantic_score").is_none() && hits[0].get("lexical_score").is_none());
    let e = env.fails(
        &["memory", "query", "dog", "--mode", "semantic"],
        "",
        2,
        "invalid.request",
    );
    assert!(
        e["message"].as_str().unwrap().contains("memory.embeddings"),
        "{e}"
    );
    let e = env.fails(&["memory", "reindex"], "", 2, "invalid.request");
    assert!(
        e["message"].as_str().unwrap().contains("memory.embeddings"),
        "{e}"
    );
}

#[test]
fn a_missing_model_queues_the_record_and_retrieval_falls_back_to_lexical() {
    let env = TestEnv::new();
    config(
        &env,
        "[memory]\nembeddings = \"local\"\nembedding_model = \"/nonexistent/minilm\"\n",
    );
    let d = remember(&env, "Rex is my puppy");
    // Stored at once, queued, and the reason names the setting.
    assert!(
        d["embedding"]
            .as_str()
            .unwrap()
            .contains("memory.embedding_model"),
        "{d}"
    );
    let out = env.bob(&["memory", "query", "Rex"]).output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("fallback") && stderr.contains("memory.embedding_model"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Rex is my puppy"));
    let e = env.fails(
        &["memory", "query", "dog", "--mode", "semantic"],
        "",
        2,
        "invalid.request",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("memory.embedding_model"),
        "{e}"
    );
    // With the model in place, the queue is filled.
    local(&env);
    let r = env.json(&["memory", "reindex", "--missing"], "");
    assert_eq!(r["embedded"], 1, "{r}");
    assert_eq!(
        env.json(&["memory", "reindex", "--missing"], "")["embedded"],
        0
    );
    let hits = env.jsonl(
        &[
            "memory",
            "query",
            "what is my dog called?",
            "--mode",
            "semantic",
        ],
        "",
    );
    assert_eq!(hits[0]["title"], "Rex is my puppy");
}

#[test]
fn with_a_deferred_queue_writes_never_embed_and_reindex_missing_fills_the_queue() {
    let env = TestEnv::new();
    config(
        &env,
        &format!(
            "[memory]\nembeddings = \"local\"\nembedding_model = \"{}\"\nembed_queue = \"defer\"\n",
            embedding_model().display()
        ),
    );
    let d = remember(&env, "Rex is my puppy");
    assert!(
        d["embedding"]
            .as_str()
            .unwrap()
            .contains("memory.embed_queue"),
        "{d}"
    );
    // Stored at once and found by its words; nothing to rank by meaning yet.
    let hits = env.jsonl(&["memory", "query", "Rex puppy", "--mode", "lexical"], "");
    assert_eq!(hits[0]["title"], "Rex is my puppy");
    let q = "what is my dog called?";
    assert!(
        env.jsonl(&["memory", "query", q, "--mode", "semantic"], "")
            .is_empty()
    );
    let r = env.json(&["memory", "reindex", "--missing"], "");
    assert_eq!(r["embedded"], 1, "{r}");
    let hits = env.jsonl(&["memory", "query", q, "--mode", "semantic"], "");
    assert_eq!(hits[0]["title"], "Rex is my puppy");
    // A value that is neither is refused, naming the setting.
    config(
        &env,
        "[memory]\nembeddings = \"local\"\nembed_queue = \"later\"\n",
    );
    let e = env.fails(&["memory", "reindex"], "", 2, "invalid.request");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("memory.embed_queue"),
        "{e}"
    );
}

#[test]
fn openai_embeddings_are_batched_retried_and_a_model_change_needs_a_reindex() {
    let env = TestEnv::new();
    let server = OpenAi::start(|req, n| {
        if n == 0 {
            return Reply::json(
                503,
                &serde_json::json!({"error": {"message": "warming up"}}),
            );
        }
        embeddings(req, 64).unwrap_or_else(|| Reply::json(200, &completion("ok")))
    });
    config(
        &env,
        &format!(
            "[memory]\nembeddings = \"openai\"\nembed_base_url = \"{}\"\nembed_model = \"hash-64\"\n\
             [chat]\nretry_base_ms = 1\n",
            server.base_url()
        ),
    );
    // Import several records at once: one batched request (after one retried 503).
    let md: String = FACTS.iter().map(|f| format!("- {f}\n")).collect();
    let dir = env.path("notes");
    std::fs::create_dir_all(&dir).unwrap();
    for (i, f) in FACTS.iter().enumerate() {
        std::fs::write(dir.join(format!("n{i}.md")), format!("# {f}\n\n{f}\n")).unwrap();
    }
    let _ = md;
    let rep = env.json(&["memory", "import", dir.to_str().unwrap()], "");
    assert_eq!(rep["imported"], FACTS.len(), "{rep}");
    assert!(rep.get("embedding").is_none(), "{rep}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "one 503, then one batch");
    let body = reqs[1].json();
    assert_eq!(body["model"], "hash-64");
    assert_eq!(body["input"].as_array().unwrap().len(), FACTS.len());
    let hits = env.jsonl(
        &[
            "memory",
            "query",
            "Lisbon sister",
            "--mode",
            "semantic",
            "-k",
            "1",
        ],
        "",
    );
    assert_eq!(hits[0]["title"], "My sister lives in Lisbon");
    // Switching to the local model: the stored vectors are another model's.
    local(&env);
    let e = env.fails(
        &["memory", "query", "dog", "--mode", "semantic"],
        "",
        5,
        "conflict",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("bob memory reindex"),
        "{e}"
    );
    let r = env.json(&["memory", "reindex"], "");
    assert_eq!(r["embedded"], FACTS.len());
    assert!(
        r["model"]
            .as_str()
            .unwrap()
            .starts_with("local:all-MiniLM-L6-v2")
    );
    let hits = env.jsonl(
        &[
            "memory",
            "query",
            "what is my dog called?",
            "--mode",
            "semantic",
            "-k",
            "1",
        ],
        "",
    );
    assert_eq!(hits[0]["title"], "Rex is my puppy");
}

fn retrieval_events(env: &TestEnv, session: &str) -> Vec<Value> {
    std::fs::read_to_string(env.home().join("traces").join(format!("{session}.jsonl")))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "retrieval")
        .collect()
}

#[test]
fn the_turn_retrieves_by_meaning_and_traces_a_fallback() {
    let env = TestEnv::new();
    local(&env);
    for f in FACTS {
        remember(&env, f);
    }
    let chat = OpenAi::always("Your dog is Rex.");
    let turn = |session: &str| {
        let out = env
            .bob(&["turn"])
            .env("BOB_CHAT_BASE_URL", chat.base_url())
            .write_stdin(
                serde_json::json!({"session_id": session, "message": "what is my dog called?"})
                    .to_string(),
            )
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    turn("s1");
    let ev = retrieval_events(&env, "s1");
    assert_eq!(ev[0]["data"]["ranking"], "hybrid", "{ev:?}");
    let rex = env.jsonl(
        &[
            "memory",
            "query",
            "Rex is my puppy",
            "--mode",
            "lexical",
            "-k",
            "1",
        ],
        "",
    );
    assert_eq!(ev[0]["data"]["hits"][0]["id"], rex[0]["id"], "{ev:?}");
    // A broken model: the turn still runs, ranked lexically, and the trace says why.
    config(
        &env,
        "[memory]\nembeddings = \"local\"\nembedding_model = \"/nonexistent/minilm\"\n",
    );
    turn("s2");
    let ev = retrieval_events(&env, "s2");
    assert_eq!(ev[0]["data"]["ranking"], "lexical", "{ev:?}");
    assert!(
        ev[0]["data"]["fallback"]
            .as_str()
            .unwrap()
            .contains("memory.embedding_model"),
        "{ev:?}"
    );
}

#[test]
fn convert_prints_the_record_of_a_markdown_file_without_storing_it() {
    let env = TestEnv::new();
    let md = env.write(
        "notes/garden.md",
        "---\ntags: [garden, plants]\n---\n# Basil care\n\nWater the basil twice a week.\n\n- full sun\n- pinch the flowers\n",
    );
    let r = env.json(&["memory", "convert", md.to_str().unwrap()], "");
    assert_eq!(r["title"], "Basil care", "{r}");
    assert_eq!(r["summary"], "Water the basil twice a week.");
    assert_eq!(
        r["facts"],
        serde_json::json!(["full sun", "pinch the flowers"])
    );
    assert!(
        uuid::Uuid::parse_str(r["id"].as_str().unwrap()).is_ok(),
        "{r}"
    );
    assert!(r["token_est"].as_u64().unwrap() > 0);
    assert!(
        !env.home().join("memory.db").exists(),
        "convert stores nothing"
    );
    env.fails(
        &["memory", "convert", "/nonexistent.md"],
        "",
        4,
        "not_found",
    );
}
