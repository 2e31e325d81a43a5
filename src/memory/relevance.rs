//! Retrieval quality per ranking mode on a JSON Lines evaluation set (`bob memory bench
//! --dataset FILE.jsonl`).
//!
//! The file's lines are of two kinds, in any order:
//!
//! ```json
//! {"memories": [{"id": "m1", "text": "Rex is my puppy"}, {"id": "m2", "text": "..."}]}
//! {"query": "what is my dog called?", "relevant": ["m1"]}
//! ```
//!
//! Every memory is stored (as an approved record would be) in a private in-memory store,
//! embedded when embeddings are configured, and every query is run in each mode (lexical;
//! semantic and hybrid when embeddings are configured), top 10. Per mode: recall@1/5/10 (the
//! share of a query's relevant memories in its top k, averaged), MRR (1 / rank of the first
//! relevant memory), nDCG@10 (binary relevance), and the latency of one query (its embedding
//! included) p50/p95. With `scale`, the store is then grown to that many records (copies of
//! the set's memories, vectors copied, not recomputed) and the latency is measured again.

use super::ltm::{self, record_from_candidate};
use super::vectors::Mode;
use super::{Memory, QueryOpts, embed};
use crate::contracts::{MemoryCandidate, MemoryRecord};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

#[derive(Debug, Deserialize)]
struct SetMemory {
    id: Value,
    text: String,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Line {
    Memories { memories: Vec<SetMemory> },
    Query { query: String, relevant: Vec<Value> },
}

fn id_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Figures of one ranking mode.
#[derive(Debug, Clone, Serialize)]
pub struct ModeReport {
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub recall_at_10: f64,
    pub mrr: f64,
    pub ndcg_at_10: f64,
    pub latency_ms_p50: f64,
    pub latency_ms_p95: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaled_latency_ms_p50: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaled_latency_ms_p95: Option<f64>,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    pub memories: usize,
    pub queries: usize,
    /// The embedder's model (`none` without embeddings).
    pub model: String,
    /// Time to embed every memory of the set, and the rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed_per_s: Option<f64>,
    /// Records in the store for the `scaled_*` latencies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaled_to: Option<usize>,
    pub modes: BTreeMap<&'static str, ModeReport>,
    /// With `detail`: every query's best [`DETAIL_DEPTH`] per mode.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_query: Vec<QueryDetail>,
}

/// How many hits per mode a query's detail lists: the pool each ranking gives the hybrid
/// fusion of a top-10 query.
pub const DETAIL_DEPTH: usize = 40;

/// One query's rankings (with `detail`), ids as the set names them.
#[derive(Debug, Clone, Serialize)]
pub struct QueryDetail {
    pub query: String,
    pub relevant: Vec<String>,
    pub ranked: BTreeMap<&'static str, Vec<RankedId>>,
}

/// One hit of a detail ranking, with the component scores it carries.
#[derive(Debug, Clone, Serialize)]
pub struct RankedId {
    pub id: String,
    pub score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<f64>,
    /// The share of the query's words (weighted by rarity) the memory holds, as the hybrid
    /// fusion computes it ([`super::fusion::coverage`]); in the lexical and semantic lists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<f64>,
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    (sorted[i.min(sorted.len() - 1)] * 1000.0).round() / 1000.0
}

fn ndcg10(ranked: &[String], relevant: &[String]) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .filter(|(_, s)| relevant.contains(s))
        .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
        .sum();
    let ideal: f64 = (0..relevant.len().min(10))
        .map(|i| 1.0 / ((i + 2) as f64).log2())
        .sum();
    if ideal == 0.0 { 0.0 } else { dcg / ideal }
}

/// Whether `text` looks like this format (its first non-blank line is a `memories` or `query`
/// object), rather than a LongMemEval JSON array.
pub fn is_jsonl_set(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

fn record_of(text: &str, n: usize) -> MemoryRecord {
    let c = MemoryCandidate::new(text);
    let mut r = record_from_candidate(
        &c,
        super::DEFAULT_USER,
        "2026-01-01T00:00:00Z",
        c.text.clone(),
        Value::Null,
    );
    // Distinct ids even for repeated texts.
    r.id = format!("mem_{n:016x}");
    r
}

/// Runs the evaluation set in `text`; `progress(done, total)` follows the embedding and the
/// queries. With `detail`, the report also lists every query's rankings.
pub fn run(
    text: &str,
    scale: Option<usize>,
    detail: bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SetReport> {
    let mut memories: Vec<(String, String)> = Vec::new();
    let mut queries: Vec<(String, Vec<String>)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let l: Line = serde_json::from_str(line).map_err(|e| {
            Error::invalid(format!(
                "dataset line {}: not a {{\"memories\":[{{id,text}}…]}} or {{\"query\",\"relevant\":[ids]}} line: {e}",
                i + 1
            ))
            .with("line", i + 1)
        })?;
        match l {
            Line::Memories { memories: m } => {
                memories.extend(m.into_iter().map(|m| (id_str(&m.id), m.text)))
            }
            Line::Query { query, relevant } => {
                queries.push((query, relevant.iter().map(id_str).collect()))
            }
        }
    }
    if memories.is_empty() || queries.is_empty() {
        return Err(Error::invalid(
            "the dataset needs at least one memory and one query",
        ));
    }
    let mem = Memory::in_memory()?;
    let mut by_record: HashMap<String, String> = HashMap::new();
    {
        let tx = mem.begin()?;
        let store = mem.ltm();
        let before = store.max_rid()?;
        for (n, (id, text)) in memories.iter().enumerate() {
            let r = record_of(text, n);
            if by_record.insert(r.id.clone(), id.clone()).is_none() {
                store.insert_row(&r)?;
            }
        }
        store.index_after(before)?;
        tx.commit()?;
    }
    let provider = embed::provider();
    let mut modes = vec![Mode::Lexical];
    let (mut model, mut embed_ms, mut embed_per_s) = ("none".to_string(), None, None);
    if provider != embed::Provider::None {
        let started = Instant::now();
        let rep = mem.reindex(false, progress)?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        model = rep.model;
        embed_ms = Some(ms.round() as u64);
        embed_per_s = Some(((rep.embedded as f64) / (ms / 1000.0).max(1e-9)).round());
        modes.extend([Mode::Semantic, Mode::Hybrid]);
    }
    let opts = QueryOpts {
        k: 10,
        ..QueryOpts::default()
    };
    let mut out = BTreeMap::new();
    let total = queries.len() * modes.len();
    let mut done = 0;
    for &mode in &modes {
        // One query first so the vector index is loaded before timing.
        mem.query_ranked(&queries[0].0, &opts, mode, true)?;
        let (mut r1, mut r5, mut r10, mut mrr, mut ndcg) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut lat = Vec::with_capacity(queries.len());
        for (q, relevant) in &queries {
            let t = Instant::now();
            let hits = mem.query_ranked(q, &opts, mode, true)?.hits;
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
            let ranked: Vec<String> = hits
                .iter()
                .filter_map(|h| by_record.get(&h.id).cloned())
                .collect();
            let rel = relevant.len().max(1) as f64;
            let at = |k: usize| {
                ranked
                    .iter()
                    .take(k)
                    .filter(|s| relevant.contains(s))
                    .count() as f64
                    / rel
            };
            r1 += at(1);
            r5 += at(5);
            r10 += at(10);
            mrr += ranked
                .iter()
                .position(|s| relevant.contains(s))
                .map_or(0.0, |p| 1.0 / (p as f64 + 1.0));
            ndcg += ndcg10(&ranked, relevant);
            done += 1;
            progress(done, total);
        }
        lat.sort_by(f64::total_cmp);
        let n = queries.len() as f64;
        out.insert(
            mode.as_str(),
            ModeReport {
                recall_at_1: round4(r1 / n),
                recall_at_5: round4(r5 / n),
                recall_at_10: round4(r10 / n),
                mrr: round4(mrr / n),
                ndcg_at_10: round4(ndcg / n),
                latency_ms_p50: percentile(&lat, 0.5),
                latency_ms_p95: percentile(&lat, 0.95),
                scaled_latency_ms_p50: None,
                scaled_latency_ms_p95: None,
            },
        );
    }
    let mut per_query = Vec::new();
    if detail {
        let deep = QueryOpts {
            k: DETAIL_DEPTH,
            ..QueryOpts::default()
        };
        for (q, relevant) in &queries {
            let mut ranked = BTreeMap::new();
            let mut pools = Vec::new();
            for &mode in &modes {
                pools.push((mode, mem.query_ranked(q, &deep, mode, true)?.hits));
            }
            // The coverage of every record of the two pools the hybrid ranking fuses.
            let pooled: Vec<String> = pools
                .iter()
                .filter(|(m, _)| *m != Mode::Hybrid)
                .flat_map(|(_, hits)| hits.iter().map(|h| h.id.clone()))
                .collect();
            let cover: HashMap<String, f64> = pooled
                .iter()
                .cloned()
                .zip(super::fusion::coverage(
                    &mem.conn,
                    &ltm::query_words(q),
                    &pooled,
                )?)
                .collect();
            for (mode, hits) in pools {
                let ids = hits
                    .into_iter()
                    .filter_map(|h| {
                        Some(RankedId {
                            id: by_record.get(&h.id)?.clone(),
                            score: h.score,
                            lexical: h.lexical_score,
                            semantic: h.semantic_score,
                            coverage: (mode != Mode::Hybrid)
                                .then(|| cover.get(&h.id).map(|c| round4(*c)))
                                .flatten(),
                        })
                    })
                    .collect();
                ranked.insert(mode.as_str(), ids);
            }
            per_query.push(QueryDetail {
                query: q.clone(),
                relevant: relevant.clone(),
                ranked,
            });
        }
    }
    let mut scaled_to = None;
    if let Some(target) = scale.filter(|&t| t > by_record.len()) {
        grow(&mem, &memories, target)?;
        scaled_to = Some(target);
        for &mode in &modes {
            mem.query_ranked(&queries[0].0, &opts, mode, true)?;
            let mut lat = Vec::new();
            for (q, _) in &queries {
                let t = Instant::now();
                mem.query_ranked(q, &opts, mode, true)?;
                lat.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            lat.sort_by(f64::total_cmp);
            if let Some(m) = out.get_mut(mode.as_str()) {
                m.scaled_latency_ms_p50 = Some(percentile(&lat, 0.5));
                m.scaled_latency_ms_p95 = Some(percentile(&lat, 0.95));
            }
        }
    }
    Ok(SetReport {
        memories: by_record.len(),
        queries: queries.len(),
        model,
        embed_ms,
        embed_per_s,
        scaled_to,
        modes: out,
        per_query,
    })
}

/// Grows the store to `target` records: copies of the set's memories (a copy marker in the
/// text so each is its own record) with the vectors of their originals.
fn grow(mem: &Memory, memories: &[(String, String)], target: usize) -> Result<()> {
    let tx = mem.begin()?;
    let store = mem.ltm();
    let before = store.max_rid()?;
    let have: i64 = mem
        .conn
        .query_row("SELECT count(*) FROM ltm", [], |r| r.get(0))?;
    let n = memories.len();
    for i in 0..target.saturating_sub(have as usize) {
        let orig = record_of(&memories[i % n].1, i % n);
        let mut r = record_of(&format!("{} (copy {i})", memories[i % n].1), n + i);
        r.id = format!("dup{i}_{}", orig.id);
        r.title = ltm::truncate_chars(&r.title, 120);
        store.insert_row(&r)?;
    }
    store.index_after(before)?;
    if mem.vectors_ready()? {
        mem.conn.execute(
            "INSERT OR REPLACE INTO ltm_vectors(rid, id, user, model, dim, vector) \
             SELECT l.rid, l.id, l.user, v.model, v.dim, v.vector FROM ltm l \
             JOIN ltm_vectors v ON v.id = substr(l.id, instr(l.id, '_') + 1) \
             WHERE l.rid > ?1",
            [before],
        )?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_figures_on_a_small_set() {
        let set = r#"{"memories":[{"id":"a","text":"Rex is my puppy"},{"id":"b","text":"My sister lives in Lisbon"}]}
{"query":"where does my sister live","relevant":["b"]}
{"query":"puppy name","relevant":["a"]}
"#;
        let r = run(set, None, false, &mut |_, _| {}).unwrap();
        assert_eq!((r.memories, r.queries), (2, 2));
        let lex = &r.modes["lexical"];
        assert_eq!(lex.recall_at_1, 1.0);
        assert_eq!(lex.mrr, 1.0);
        assert!(run("{\"memories\":[]}\n", None, false, &mut |_, _| {}).is_err());
        assert!(run("{\"nope\":1}\n", None, false, &mut |_, _| {}).is_err());
    }
}
