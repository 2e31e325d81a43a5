//! The turn's use of the memory library: retrieval, candidate extraction, proposals and the
//! short-term entry of a finished turn. Kept in one place so the pipeline does not depend on
//! the store's internals.

use crate::contracts::{MemoryCandidate, StmEntry, ToolRecord, ToolUse};
use crate::error::Result;
use crate::memory::stm::{STM_MAX_ENTRY_BYTES, STM_MAX_OPEN_QUESTIONS, content_size};
use crate::memory::{self, Memory, ProposeCtx, QueryOpts};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

/// Retrieval hits (id, score), the rendered Spectator block (`None` without hits), and how
/// they were ranked.
pub struct Retrieved {
    pub hits: Vec<(String, f64)>,
    pub block: Option<String>,
    /// `lexical`, `semantic` or `hybrid`.
    pub mode: &'static str,
    /// Why the ranking fell back to lexical (a missing or broken embedding model, a model
    /// change awaiting `bob memory reindex`).
    pub fallback: Option<String>,
}

/// How many hits a role gets.
pub const RETRIEVAL_K: usize = 5;

/// Ranked long-term query of `user`'s store for `query`, ranked as `bob memory query` ranks
/// by default (hybrid when embeddings are configured; lexical, with the reason, when the
/// embedder cannot be used).
pub fn retrieve(mem: &Memory, user: &str, query: &str) -> Result<Retrieved> {
    let opts = QueryOpts {
        k: RETRIEVAL_K,
        tags: Vec::new(),
        user: user.to_string(),
    };
    let mode = memory::vectors::Mode::default_for(memory::embed::provider());
    let ranked = mem.query_ranked(query, &opts, mode, false)?;
    let hits = ranked.hits;
    Ok(Retrieved {
        hits: hits.iter().map(|h| (h.id.clone(), h.score)).collect(),
        block: (!hits.is_empty()).then(|| memory::render_block(&hits)),
        mode: ranked.mode.as_str(),
        fallback: ranked.fallback,
    })
}

/// The candidates in one `<<<MEMORY_CANDIDATES_JSON>>>` payload (at most 2 per THINK output).
pub fn extract(payload: &str) -> Result<Vec<MemoryCandidate>> {
    let text = format!(
        "{}{payload}{}",
        memory::candidates::BLOCK_OPEN,
        memory::candidates::BLOCK_CLOSE
    );
    Ok(memory::extract_candidates(&text)?.candidates)
}

/// Proposes candidates as pending (after replaying any ledger decision a crash left out of
/// the database, as [`Memory::open`] does); returns each one's id or error.
pub fn propose(
    mem: &Memory,
    cands: Vec<MemoryCandidate>,
    user: Option<&str>,
    session_id: &str,
    run_id: &str,
) -> Result<Vec<Result<String>>> {
    mem.reconcile()?;
    Ok(cands
        .into_iter()
        .map(|c| {
            mem.propose(
                c,
                ProposeCtx {
                    user: user.map(str::to_string),
                    session_id: Some(session_id.to_string()),
                    run_id: Some(run_id.to_string()),
                },
            )
            .map(|row| row.id)
        })
        .collect())
}

/// The answer after its `[mem:id]` citations were checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Citations {
    /// The answer without the citations that named no retrieved memory.
    pub text: String,
    /// Ids cited that were retrieved this turn (first-citation order, once each).
    pub cited: Vec<String>,
    /// Ids cited that were not (first-citation order, once each); removed from `text`.
    pub removed: Vec<String>,
}

/// Checks the `[mem:<id>]` citations of `answer` (the retrieved-memory block) against the ids retrieved this
/// turn. A citation of anything else (a made-up id, one from an earlier turn, a memory of
/// another user) is removed together with the blanks before it, so "milk [mem:x]." reads
/// "milk.". Text without `[mem:` is returned unchanged.
pub fn check_citations(answer: &str, retrieved: &[String]) -> Citations {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"[ \t]*\[mem:[ \t]*(?P<id>[^\]\s]{1,200})[ \t]*\]")
            .expect("citation grammar compiles")
    });
    let mut out = Citations::default();
    if !answer.contains("[mem:") {
        out.text = answer.to_string();
        return out;
    }
    let text = RE.replace_all(answer, |c: &regex::Captures<'_>| {
        let id = c["id"].to_string();
        if retrieved.contains(&id) {
            if !out.cited.contains(&id) {
                out.cited.push(id);
            }
            c[0].to_string()
        } else {
            if !out.removed.contains(&id) {
                out.removed.push(id);
            }
            String::new()
        }
    });
    out.text = text.into_owned();
    out
}

/// Most ids kept in the state's `memory_refs` (the oldest go first).
pub const MAX_MEMORY_REFS: usize = 64;

/// Adds `cited` to `refs` (a cited id already there moves to the end), keeping at most
/// [`MAX_MEMORY_REFS`].
pub fn add_memory_refs(refs: &mut Vec<String>, cited: &[String]) {
    for id in cited {
        refs.retain(|r| r != id);
        refs.push(id.clone());
    }
    if refs.len() > MAX_MEMORY_REFS {
        refs.drain(..refs.len() - MAX_MEMORY_REFS);
    }
}

/// What a finished turn leaves in short-term memory.
pub struct TurnSummary<'a> {
    pub user: Option<&'a str>,
    pub session_id: &'a str,
    /// The user's message.
    pub message: &'a str,
    /// The visible answer.
    pub output: &'a str,
    /// The session's open loops after the commit (the newest become `open_questions`).
    pub open_loops: &'a [String],
    pub tools: &'a [ToolRecord],
    /// A tool failed during the turn: the entry may be wrong and is never promoted.
    pub tainted: bool,
}

const INTENT_BYTES: usize = 300;
const RESOLUTION_BYTES: usize = 600;
const QUESTION_BYTES: usize = 200;
const ENTITY_BYTES: usize = 120;
const MAX_ENTITIES: usize = 8;
const MAX_TOOLS: usize = 8;

/// `s` on one line (whitespace runs become one space), cut to at most `max` bytes on a char
/// boundary, `…` marking a cut.
fn one_line(s: &str, max: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() <= max {
        return s;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The Bob v0 STM entry of a turn: intent (the message), resolution (the answer), the
/// newest open loops as open questions (at most 3), the tools used (name and status) and the
/// entities they named (their string arguments: paths, URLs, ids). Shrunk, entities first,
/// until it fits [`STM_MAX_ENTRY_BYTES`].
pub fn stm_entry(t: &TurnSummary<'_>) -> StmEntry {
    let open_questions: Vec<String> = t
        .open_loops
        .iter()
        .rev()
        .take(STM_MAX_OPEN_QUESTIONS)
        .rev()
        .map(|q| one_line(q, QUESTION_BYTES))
        .collect();
    let tools_used: Vec<Value> = t
        .tools
        .iter()
        .take(MAX_TOOLS)
        .map(|r| serde_json::to_value(ToolUse::from(r)).unwrap_or_default())
        .collect();
    let mut entities: Vec<String> = Vec::new();
    for r in t.tools {
        let Some(args) = r.args.as_object() else {
            continue;
        };
        for v in args.values().filter_map(Value::as_str) {
            let v = one_line(v, ENTITY_BYTES);
            if !v.is_empty() && !entities.contains(&v) && entities.len() < MAX_ENTITIES {
                entities.push(v);
            }
        }
    }
    let mut e = StmEntry {
        user: t.user.unwrap_or_default().to_string(),
        intent: one_line(t.message, INTENT_BYTES),
        resolution: one_line(t.output, RESOLUTION_BYTES),
        open_questions,
        tools_used,
        entities,
        session_id: Some(t.session_id.to_string()),
        error_tainted: t.tainted,
        ..StmEntry::default()
    };
    while content_size(&e) > STM_MAX_ENTRY_BYTES {
        if e.entities.pop().is_some()
            || e.open_questions.pop().is_some()
            || e.tools_used.pop().is_some()
        {
            continue;
        }
        if e.resolution.len() > 16 {
            e.resolution = one_line(&e.resolution, e.resolution.len() / 2);
        } else {
            e.intent = one_line(&e.intent, e.intent.len() / 2);
        }
    }
    e
}

/// Most short-term entries a turn's working context gets.
pub const STM_K: usize = 3;

/// Words too common to make an entry relevant.
const STOPWORDS: &[&str] = &[
    "about", "after", "again", "also", "been", "before", "being", "could", "does", "doing", "from",
    "have", "here", "into", "just", "like", "make", "more", "much", "need", "only", "other",
    "over", "please", "should", "some", "than", "that", "their", "them", "then", "there", "these",
    "they", "this", "those", "very", "want", "what", "when", "where", "which", "while", "will",
    "with", "would", "your", "yours",
];

/// The relevance terms of `text`: lower-cased alphanumeric words of at least 4 chars that are
/// not stopwords.
fn terms(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// The live short-term entries of `user` relevant to `message` (Bob v0 working context):
/// entries sharing at least one term (a word of 4+ chars, not a stopword) with the message in
/// their intent, resolution, open questions or entities, best first (most shared terms, then
/// newest), at most [`STM_K`]. Error-tainted entries (a tool failed in their turn) are left
/// out. Reads only; [`touch`] records the access.
pub fn relevant_stm(mem: &Memory, user: &str, message: &str) -> Result<Vec<StmEntry>> {
    let want = terms(message);
    if want.is_empty() {
        return Ok(Vec::new());
    }
    let mut scored: Vec<(usize, usize, StmEntry)> = mem
        .stm_list(Some(user), crate::memory::stm::STM_MAX_ENTRIES as usize)?
        .into_iter()
        .enumerate()
        .filter(|(_, e)| !e.error_tainted && !e.error_state)
        .filter_map(|(newest, e)| {
            let mut text = format!("{} {}", e.intent, e.resolution);
            for q in e.open_questions.iter().chain(e.entities.iter()) {
                text.push(' ');
                text.push_str(q);
            }
            let shared = terms(&text).intersection(&want).count();
            (shared > 0).then_some((shared, newest, e))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(scored.into_iter().take(STM_K).map(|(_, _, e)| e).collect())
}

/// Records that `entries` joined a turn's working context in `session`: each one's
/// `access_count` grows and the session joins `sessions_seen`, so Bob v0's promotion by
/// access pattern can fire; one transaction for all of them. Returns the touched entries (an
/// entry that expired meanwhile is skipped).
pub fn touch(mem: &Memory, entries: &[StmEntry], session: &str) -> Result<Vec<StmEntry>> {
    let ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
    mem.stm_touch_many(&ids, Some(session))
}

/// One entry as the SHORT_TERM_MEMORY block shows it (empty lists left out).
#[derive(Serialize)]
struct StmLine<'a> {
    id: &'a str,
    intent: &'a str,
    resolution: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    open_questions: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    entities: &'a [String],
}

/// The SHORT_TERM_MEMORY block's content: a non-authoritative header, then one compact JSON
/// line per entry (`id`, `intent`, `resolution`, `open_questions`, `entities`).
pub fn stm_block(entries: &[StmEntry]) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    let mut s = String::from(
        "Non-authoritative trace of recent turns (may be wrong or outdated; verify before \
         relying on it; never present it to the user as memory):\n",
    );
    for e in entries {
        let line = StmLine {
            id: &e.id,
            intent: &e.intent,
            resolution: &e.resolution,
            open_questions: &e.open_questions,
            entities: &e.entities,
        };
        s.push_str(&serde_json::to_string(&line).unwrap_or_default());
        s.push('\n');
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, args: Value, ok: bool) -> ToolRecord {
        ToolRecord {
            tool_name: name.into(),
            args,
            status: if ok { "ok" } else { "error" }.into(),
            error: (!ok).then(|| crate::error::Error::not_found("gone")),
            result_ref: None,
        }
    }

    #[test]
    fn citations_of_unretrieved_memories_are_removed() {
        let got = vec!["mem_a".to_string(), "3f2b-uuid".to_string()];
        let c = check_citations(
            "Oat milk [mem:mem_a]. Also tea [mem:mem_doesnotexist00] [mem: 3f2b-uuid ], [mem:mem_a]",
            &got,
        );
        assert_eq!(
            c.text,
            "Oat milk [mem:mem_a]. Also tea [mem: 3f2b-uuid ], [mem:mem_a]"
        );
        assert_eq!(c.cited, ["mem_a", "3f2b-uuid"]);
        assert_eq!(c.removed, ["mem_doesnotexist00"]);
        let plain = check_citations("no citations", &got);
        assert_eq!(plain.text, "no citations");
        let mut refs: Vec<String> = (0..MAX_MEMORY_REFS).map(|i| format!("m{i}")).collect();
        add_memory_refs(&mut refs, &["m0".to_string(), "new".to_string()]);
        assert_eq!(refs.len(), MAX_MEMORY_REFS);
        assert_eq!(refs[refs.len() - 2..], ["m0", "new"]);
        assert_eq!(refs[0], "m2");
    }

    #[test]
    fn entry_of_a_turn_is_bounded_and_one_line() {
        let loops: Vec<String> = (0..5).map(|i| format!("loop {i}")).collect();
        let tools = [
            tool("fs.read_text", json!({"path": "notes.txt"}), true),
            tool("fs.read_text", json!({"path": "gone.txt"}), false),
        ];
        let e = stm_entry(&TurnSummary {
            user: Some("u1"),
            session_id: "s1",
            message: "read my\n notes",
            output: "They say: milk.",
            open_loops: &loops,
            tools: &tools,
            tainted: true,
        });
        assert_eq!(e.intent, "read my notes");
        assert_eq!(e.resolution, "They say: milk.");
        assert_eq!(e.open_questions, ["loop 2", "loop 3", "loop 4"]);
        assert_eq!(e.entities, ["notes.txt", "gone.txt"]);
        assert_eq!(e.tools_used[1]["error"], "not_found");
        assert!(e.error_tainted && !e.error_state);
        let huge = "é".repeat(5000);
        let many: Vec<ToolRecord> = (0..20)
            .map(|i| tool("t", json!({"a": format!("{huge}{i}")}), true))
            .collect();
        let loops = vec![huge.clone(); 3];
        let e = stm_entry(&TurnSummary {
            user: None,
            session_id: "s1",
            message: &huge,
            output: &huge,
            open_loops: &loops,
            tools: &many,
            tainted: false,
        });
        assert!(content_size(&e) <= STM_MAX_ENTRY_BYTES);
        assert!(e.intent.ends_with('…') && e.resolution.ends_with('…'));
    }
}
