//! Semantic and hybrid memory retrieval on the shared store: the suite of `memory_semantic`
//! run against the embedded home and against PostgreSQL (two homes on one database, each
//! with its own cache of the vectors), on the real all-MiniLM-L6-v2 model and on the openai
//! provider against a loopback server.

use crate::shared_store::{Backend, store_suite};
use crate::support::http::Reply;
use crate::support::model::embedding_model;
use crate::support::openai::{OpenAi, completion, embeddings};
use serde_json::Value;

store_suite!(
    a_paraphrase_approved_on_one_node_is_found_by_meaning_on_the_other,
    a_deferred_queue_is_filled_by_reindex_missing_on_either_node,
    a_model_change_needs_a_reindex_on_every_node,
    each_nodes_cache_sees_what_the_other_wrote_since,
    users_taking_turns_on_one_node_each_find_their_own_vectors,
);

const FACTS: [&str; 6] = [
    "Rex is my puppy",
    "I take the 7:40 train to work on weekdays",
    "My sister lives in Lisbon",
    "I am allergic to penicillin",
    "The garage door code is changed every spring",
    "Quarterly taxes are due in mid April",
];

/// Writes `toml` as both nodes' config (one file on the embedded backend).
fn config(b: &Backend, toml: &str) {
    b.a.env.write("home/config.toml", toml);
    b.b.env.write("home/config.toml", toml);
}

fn local(b: &Backend, extra: &str) {
    config(
        b,
        &format!(
            "[memory]\nembeddings = \"local\"\nembedding_model = \"{}\"\n{extra}",
            embedding_model().display()
        ),
    );
}

/// Proposes and approves `text` on `node`; returns the approval.
fn remember(node: &crate::shared_store::Node, text: &str) -> Value {
    let rows = node.jsonl(
        &["memory", "propose"],
        &serde_json::json!({ "text": text }).to_string(),
    );
    let id = rows[0]["id"].as_str().unwrap().to_string();
    node.json(&["memory", "approve", &id], "")
}

fn titles(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["title"].as_str().unwrap().to_string())
        .collect()
}

fn a_paraphrase_approved_on_one_node_is_found_by_meaning_on_the_other(b: &Backend) {
    local(b, "");
    for (i, f) in FACTS.iter().enumerate() {
        let node = if i % 2 == 0 { &b.a } else { &b.b };
        let d = remember(node, f);
        assert!(d.get("embedding").is_none(), "embedded at once: {d}");
    }
    let q = "what is my dog called?";
    let lexical = b.b.jsonl(&["memory", "query", q, "--mode", "lexical"], "");
    assert!(
        !titles(&lexical).contains(&"Rex is my puppy".to_string()),
        "words alone should not find it: {lexical:?}"
    );
    let semantic =
        b.b.jsonl(&["memory", "query", q, "--mode", "semantic", "-k", "3"], "");
    assert_eq!(semantic[0]["title"], "Rex is my puppy", "{semantic:?}");
    assert!(semantic[0]["semantic_score"].as_f64().unwrap() > 0.3);
    assert_eq!(semantic.len(), 3);
    // Default with embeddings configured: hybrid, on either node.
    let hybrid = b.a.jsonl(
        &["memory", "query", "which medicine must I avoid", "-k", "2"],
        "",
    );
    assert_eq!(
        hybrid[0]["title"], "I am allergic to penicillin",
        "{hybrid:?}"
    );
    let both =
        b.b.jsonl(&["memory", "query", "my sister in Lisbon", "-k", "1"], "");
    assert_eq!(both[0]["title"], "My sister lives in Lisbon");
    let (sem, lex) = (
        both[0]["semantic_score"].as_f64().unwrap(),
        both[0]["lexical_score"].as_f64().unwrap(),
    );
    assert!(sem > 0.0 && lex > 0.0, "{both:?}");
    // The hybrid score is the embedded store's: 0.5 × cosine + 0.5 × lexical × coverage² +
    // 0.1 × coverage², where the record holds every word of the query (coverage 1).
    let score = both[0]["score"].as_f64().unwrap();
    assert!(
        (score - (0.5 * sem + 0.5 * lex + 0.1)).abs() < 0.002,
        "hybrid score of both rankings: {both:?}"
    );
    assert!(
        both[0]["excerpt"].as_str().unwrap().contains("Lisbon"),
        "{both:?}"
    );
    // The RETRIEVED_MEMORY block uses the same ranking.
    let out =
        b.a.bob(&["memory", "query", q, "-k", "1", "--format", "block"])
            .output()
            .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Rex is my puppy"));
}

fn a_deferred_queue_is_filled_by_reindex_missing_on_either_node(b: &Backend) {
    local(b, "embed_queue = \"defer\"\n");
    let d = remember(&b.a, "Rex is my puppy");
    assert!(
        d["embedding"]
            .as_str()
            .unwrap()
            .contains("memory.embed_queue"),
        "{d}"
    );
    // Stored at once and found by its words; nothing to rank by meaning yet.
    let hits =
        b.b.jsonl(&["memory", "query", "Rex puppy", "--mode", "lexical"], "");
    assert_eq!(hits[0]["title"], "Rex is my puppy");
    let q = "what is my dog called?";
    assert!(
        b.b.jsonl(&["memory", "query", q, "--mode", "semantic"], "")
            .is_empty()
    );
    // A hybrid query says how many records are found by their words only.
    let out = b.b.bob(&["memory", "query", "Rex"]).output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("reindex --missing"), "{stderr}");
    let r = b.b.json(&["memory", "reindex", "--missing"], "");
    assert_eq!(r["embedded"], 1, "{r}");
    assert_eq!(
        b.a.json(&["memory", "reindex", "--missing"], "")["embedded"],
        0
    );
    let hits = b.a.jsonl(&["memory", "query", q, "--mode", "semantic"], "");
    assert_eq!(hits[0]["title"], "Rex is my puppy");
}

fn a_model_change_needs_a_reindex_on_every_node(b: &Backend) {
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
        b,
        &format!(
            "[memory]\nembeddings = \"openai\"\nembed_base_url = \"{}\"\nembed_model = \"hash-64\"\n\
             [chat]\nretry_base_ms = 1\n",
            server.base_url()
        ),
    );
    for f in FACTS {
        let d = remember(&b.a, f);
        assert!(d.get("embedding").is_none(), "{d}");
    }
    let hits = b.b.jsonl(
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
    assert!(
        hits[0]["semantic_score"].as_f64().unwrap() > 0.5,
        "{hits:?}"
    );
    // Switching to the local model: the stored vectors are another model's.
    local(b, "");
    for node in [&b.a, &b.b] {
        let e = node.fails(
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
    }
    // Without --mode, the query falls back to the lexical ranking and says why.
    let out = b.a.bob(&["memory", "query", "Lisbon"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("My sister lives in Lisbon"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fallback"));
    let r = b.b.json(&["memory", "reindex"], "");
    assert_eq!(r["embedded"], FACTS.len(), "{r}");
    assert!(
        r["model"]
            .as_str()
            .unwrap()
            .starts_with("local:all-MiniLM-L6-v2")
    );
    let hits = b.a.jsonl(
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
    assert!(
        hits[0]["semantic_score"].as_f64().unwrap() > 0.3,
        "{hits:?}"
    );
}

fn each_nodes_cache_sees_what_the_other_wrote_since(b: &Backend) {
    let server = OpenAi::start(|req, _| {
        embeddings(req, 64).unwrap_or_else(|| Reply::json(200, &completion("ok")))
    });
    config(
        b,
        &format!(
            "[memory]\nembeddings = \"openai\"\nembed_base_url = \"{}\"\nembed_model = \"hash-64\"\n",
            server.base_url()
        ),
    );
    let semantic = |node: &crate::shared_store::Node, q: &str| {
        titles(&node.jsonl(&["memory", "query", q, "--mode", "semantic", "-k", "1"], ""))
    };
    remember(&b.a, FACTS[0]);
    assert_eq!(semantic(&b.a, "Rex puppy"), ["Rex is my puppy"]);
    assert_eq!(semantic(&b.b, "Lisbon sister"), ["Rex is my puppy"]);
    // Written on the other node after both read their vectors: each sees it at once.
    remember(&b.b, FACTS[2]);
    assert_eq!(
        semantic(&b.a, "Lisbon sister"),
        ["My sister lives in Lisbon"]
    );
    assert_eq!(
        semantic(&b.b, "Lisbon sister"),
        ["My sister lives in Lisbon"]
    );
    // A full reindex replaces every vector; an answer read from a cache file cut short or
    // of garbage is never used.
    let r = b.a.json(&["memory", "reindex"], "");
    assert_eq!(r["embedded"], 2, "{r}");
    for node in [&b.a, &b.b] {
        let dir = node.env.home().join("cache").join("memory-vectors");
        if let Ok(files) = std::fs::read_dir(&dir) {
            for f in files {
                let p = f.unwrap().path();
                let bytes = std::fs::read(&p).unwrap();
                std::fs::write(&p, &bytes[..bytes.len() - 3]).unwrap();
            }
        }
    }
    assert_eq!(semantic(&b.b, "Rex puppy"), ["Rex is my puppy"]);
    assert_eq!(
        semantic(&b.a, "Lisbon sister"),
        ["My sister lives in Lisbon"]
    );
    // Another user's records are never ranked.
    let hits = b.b.jsonl(
        &[
            "memory",
            "query",
            "Rex puppy",
            "--mode",
            "semantic",
            "--user",
            "bob2",
        ],
        "",
    );
    assert!(hits.is_empty(), "{hits:?}");
}

fn users_taking_turns_on_one_node_each_find_their_own_vectors(b: &Backend) {
    let server = OpenAi::start(|req, _| {
        embeddings(req, 64).unwrap_or_else(|| Reply::json(200, &completion("ok")))
    });
    let with_model = |model: &str| {
        format!(
            "[memory]\nembeddings = \"openai\"\nembed_base_url = \"{}\"\nembed_model = \"{model}\"\n",
            server.base_url()
        )
    };
    config(b, &with_model("hash-64"));
    let own = [("ana", [FACTS[0], FACTS[2]]), ("ben", [FACTS[3], FACTS[5]])];
    for (user, facts) in own {
        let text: String = facts
            .iter()
            .map(|f| {
                let r = serde_json::json!({"title": f, "body_md": f, "created_at": "2026-02-01T00:00:00Z"});
                format!("{r}\n")
            })
            .collect();
        b.a.env.write("facts.jsonl", &text);
        let path = b.a.env.path("facts.jsonl").display().to_string();
        let rep = b.a.json(&["memory", "import", &path, "--user", user], "");
        assert_eq!(rep["imported"], 2, "{rep}");
    }
    let top = |user: &str, q: &str| {
        titles(&b.b.jsonl(
            &[
                "memory", "query", q, "--mode", "semantic", "-k", "1", "--user", user,
            ],
            "",
        ))
    };
    let each_finds_their_own = || {
        for _ in 0..2 {
            assert_eq!(top("ana", "Rex puppy"), ["Rex is my puppy"]);
            assert_eq!(
                top("ben", "penicillin allergy"),
                ["I am allergic to penicillin"]
            );
            // The other user's best match by meaning is never one of ana's records.
            assert_eq!(top("ben", "Rex puppy").len(), 1);
            assert!(!top("ben", "Rex puppy").contains(&FACTS[0].to_string()));
            assert!(!top("ana", "penicillin allergy").contains(&FACTS[3].to_string()));
        }
    };
    each_finds_their_own();
    // On the shared store the node keeps each user's vectors (one cache each): with nothing
    // changed, a query reads only the change counter, so both users are answered with the
    // vectors' table out of reach.
    if let Some(db) = &b.db {
        let mut c = db.client();
        c.batch_execute("ALTER TABLE memory_vectors RENAME TO memory_vectors_away")
            .unwrap();
        each_finds_their_own();
        c.batch_execute("ALTER TABLE memory_vectors_away RENAME TO memory_vectors")
            .unwrap();
    }
    // A model change is refused for either user until a reindex, as before.
    config(b, &with_model("hash-32"));
    for user in ["ana", "ben"] {
        let e = b.b.fails(
            &[
                "memory", "query", "dog", "--mode", "semantic", "--user", user,
            ],
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
    }
}
