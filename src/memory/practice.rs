//! `bob memory practice` (Bob v0's "practice/learn consolidation"): proposes pending memory
//! candidates from what happened since a cutoff — tool failures that recur across the turns in
//! `turns.jsonl`, and the MTGLessons of the games journaled under `mtg/` — through the same
//! approval path as every other candidate. It never writes long-term memory: a human approves
//! or rejects what it proposes. Deterministic: the same logs, cutoff and clock propose the
//! same candidates (and proposing again returns the rows still pending).

use super::{Memory, ProposeCtx};
use crate::contracts::MemoryCandidate;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::mtg::{Seat, game, lessons};
use crate::store;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::BTreeMap;

/// At most this many candidates come from the turns (the worst tools first).
pub const MAX_TURN_CANDIDATES: usize = 2;

/// Parses `--since`: a Go duration (`90m`, `24h`, `1h30m`) or whole days (`7d`); positive.
pub fn parse_since(s: &str) -> Result<chrono::Duration> {
    let bad = || {
        Error::invalid(format!(
            "--since {s:?}: give a positive duration like 30m, 24h or 7d"
        ))
        .with("field", "since")
    };
    let nanos = match s.strip_suffix('d') {
        Some(days) if !days.is_empty() && days.bytes().all(|b| b.is_ascii_digit()) => days
            .parse::<i64>()
            .ok()
            .and_then(|d| d.checked_mul(86_400_000_000_000))
            .ok_or_else(bad)?,
        _ => crate::schedule::duration::parse_go_duration(s).map_err(|_| bad())?,
    };
    if nanos <= 0 {
        return Err(bad());
    }
    Ok(chrono::Duration::nanoseconds(nanos))
}

#[derive(Default)]
struct ToolTally {
    calls: u64,
    failures: u64,
    turns: u64,
    codes: BTreeMap<String, u64>,
}

/// Candidates from the turn records at or after `cutoff`: one per tool that failed in at
/// least two calls, the most failures first (ties by name). Returns them and the turns read.
pub fn from_turns(home: &Home, cutoff: DateTime<Utc>) -> Result<(Vec<MemoryCandidate>, usize)> {
    let log = crate::turn_records::log(home)?.all()?;
    let mut tally: BTreeMap<String, ToolTally> = BTreeMap::new();
    let mut read = 0;
    for t in &log {
        let Some(ts) = t["ts"]
            .as_str()
            .and_then(|s| crate::clock::parse_rfc3339(s).ok())
        else {
            continue;
        };
        if ts < cutoff {
            continue;
        }
        read += 1;
        let mut seen: Vec<&str> = Vec::new();
        for r in t["tools"].as_array().map(Vec::as_slice).unwrap_or_default() {
            let Some(name) = r["tool_name"].as_str() else {
                continue;
            };
            let e = tally.entry(name.to_string()).or_default();
            e.calls += 1;
            if !seen.contains(&name) {
                seen.push(name);
                e.turns += 1;
            }
            if r["status"] != "ok" {
                e.failures += 1;
                let code = r["error"]["code"].as_str().unwrap_or("unknown");
                *e.codes.entry(code.to_string()).or_default() += 1;
            }
        }
    }
    let mut failing: Vec<(&String, &ToolTally)> =
        tally.iter().filter(|(_, t)| t.failures >= 2).collect();
    failing.sort_by(|a, b| b.1.failures.cmp(&a.1.failures).then(a.0.cmp(b.0)));
    let out = failing
        .into_iter()
        .take(MAX_TURN_CANDIDATES)
        .map(|(name, t)| {
            let (code, n) = t
                .codes
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(c, n)| (c.as_str(), *n))
                .unwrap_or(("unknown", 0));
            let mut c = MemoryCandidate::new(format!(
                "{name} failed in {} of {} calls over {} turn(s) since {}; the most common error was {code} ({n} times): check its input and the session's policy before calling it again.",
                t.failures,
                t.calls,
                t.turns,
                crate::clock::rfc3339(cutoff)
            ));
            c.kind = "lesson".into();
            c.title = Some(format!("Practice: {name} keeps failing"));
            c.tags = vec![
                "practice".into(),
                format!("tool:{name}"),
                format!("error:{code}"),
            ];
            c.source = "practice".into();
            c.why_store = Some(
                "a recurring tool failure across recent turns; approve if it should guide future calls"
                    .into(),
            );
            c.importance = Some(4);
            c
        })
        .collect();
    Ok((out, read))
}

/// The finished (game over) games under `mtg/` that started at or after `cutoff`, in id
/// order, with both seats' MTGLessons (as game end proposes them). When a game started is
/// its `game_start` line's `ts`; a journal written before that field existed falls back to
/// the first line that carries a `ts`, else to the journal file's modification time (its
/// last write: a game still being played inside the window counts).
pub fn from_games(
    home: &Home,
    cutoff: Option<DateTime<Utc>>,
) -> Result<Vec<(String, Vec<MemoryCandidate>)>> {
    let dir = game::mtg_dir(home);
    let mut ids: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("journal.jsonl").is_file())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    ids.sort();
    let mut pool = None;
    let mut out = Vec::new();
    for id in ids {
        let f = game::files(home, &id)?;
        let log = store::read_jsonl(&f.journal())?;
        let lines: Vec<Value> = log.records.into_iter().map(|(_, v)| v).collect();
        let recent = match cutoff {
            None => true,
            Some(c) => started(&lines, &f.journal())?.is_some_and(|t| t >= c),
        };
        if !recent {
            continue;
        }
        if pool.is_none() {
            pool = Some(game::load_pool(home)?);
        }
        let Some(pool) = &pool else {
            return Err(Error::internal("card pool"));
        };
        // A finished game is one whose journal has its `game_end` line. The journal alone
        // decides, so a game journaled under older rules (whose state no longer replays)
        // still teaches its lessons.
        if !lines.iter().any(|l| l["type"] == "game_end") {
            continue;
        }
        let mut cs = lessons::lessons(&lines, Seat::P1, pool);
        cs.extend(lessons::lessons(&lines, Seat::P2, pool));
        out.push((id, cs));
    }
    Ok(out)
}

/// When a journaled game started (see [`from_games`]); None when the journal is gone.
fn started(lines: &[Value], journal: &std::path::Path) -> Result<Option<DateTime<Utc>>> {
    if let Some(t) = lines
        .iter()
        .filter_map(|l| l["ts"].as_str())
        .find_map(|s| crate::clock::parse_rfc3339(s).ok())
    {
        return Ok(Some(t));
    }
    match std::fs::metadata(journal).and_then(|m| m.modified()) {
        Ok(t) => Ok(Some(DateTime::<Utc>::from(t))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(journal, e)),
    }
}

/// Proposes the practice candidates since `now - since` as pending candidates for `user`;
/// returns `{since, cutoff, turns_read, games_read, candidates}`.
pub fn practice(
    home: &Home,
    memory: &Memory,
    now: DateTime<Utc>,
    since: chrono::Duration,
    since_text: &str,
    user: Option<String>,
) -> Result<Value> {
    let cutoff = now - since;
    let (turn_candidates, turns_read) = from_turns(home, cutoff)?;
    let games = from_games(home, Some(cutoff))?;
    let mut rows = Vec::new();
    for c in turn_candidates {
        rows.push(memory.propose(
            c,
            ProposeCtx {
                user: user.clone(),
                session_id: Some("practice".into()),
                run_id: None,
            },
        )?);
    }
    for (id, cs) in &games {
        for c in cs.iter().cloned() {
            rows.push(memory.propose(
                c,
                ProposeCtx {
                    user: user.clone(),
                    session_id: Some(format!("mtg:{id}")),
                    run_id: None,
                },
            )?);
        }
    }
    let proposed = Proposed {
        since: since_text,
        cutoff: crate::clock::rfc3339(cutoff),
        turns_read,
        games_read: games.iter().map(|(id, _)| id.as_str()).collect(),
        candidates: rows,
    };
    serde_json::to_value(proposed).map_err(|e| Error::internal(e.to_string()))
}

/// What [`practice`] returns: the window read and the candidates proposed from it.
#[derive(serde::Serialize)]
struct Proposed<'a, R> {
    since: &'a str,
    cutoff: String,
    turns_read: usize,
    games_read: Vec<&'a str>,
    candidates: Vec<R>,
}
