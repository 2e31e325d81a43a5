//! The GameJournal: `mtg/<game_id>/journal.jsonl` (append-only, one `game_start` line, one
//! line per decision, one `game_end` line), `state.json` (the current state, replaced
//! atomically) and `summary.json`, written with the durability of bob's other logs
//! (`crate::store`). Game truth stays here; it never goes into long-term memory.

use super::action::{Action, ActionRequest, ActionSurface, Viewer, VisibleState, surface, visible};
use super::cards::Pool;
use super::decks::Deck;
use super::engine::{Event, Position, from_position, new_game};
use super::state::{Seat, State};
use crate::error::{Error, Result};
use crate::store;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// How a game began: enough to rebuild its first state.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum Start {
    Decks { seed: u64, decks: [Deck; 2] },
    Setup { position: Value },
}

impl Start {
    /// Builds the initial state (and its events) from the pool.
    pub fn build(&self, game_id: &str, pool: &Pool) -> Result<(State, Vec<Event>)> {
        match self {
            Start::Decks { seed, decks } => {
                for d in decks {
                    d.validate(pool).map_err(Error::invalid)?;
                }
                let names = [decks[0].names(), decks[1].names()];
                new_game(game_id, *seed, [&names[0], &names[1]], pool).map_err(Error::invalid)
            }
            Start::Setup { position } => {
                let pos: Position = serde_json::from_value(position.clone())
                    .map_err(|e| Error::invalid(format!("position: {e}")))?;
                from_position(game_id, &pos, pool)
                    .map_err(|e| Error::invalid(format!("position: {e}")))
            }
        }
    }
}

/// The files of one game.
pub struct GameFiles {
    pub dir: PathBuf,
}

impl GameFiles {
    pub fn new(mtg_dir: &Path, game_id: &str) -> Result<GameFiles> {
        let id = crate::ids::check("game_id", game_id)?;
        if id.ends_with(".json") || id.starts_with('.') {
            return Err(
                Error::invalid("game_id must not start with '.' or end in .json")
                    .with("field", "game_id"),
            );
        }
        Ok(GameFiles {
            dir: mtg_dir.join(id),
        })
    }
    pub fn journal(&self) -> PathBuf {
        self.dir.join("journal.jsonl")
    }
    pub fn state(&self) -> PathBuf {
        self.dir.join("state.json")
    }
    pub fn summary(&self) -> PathBuf {
        self.dir.join("summary.json")
    }
    pub fn lock(&self) -> PathBuf {
        self.dir.join("game.lock")
    }

    /// Loads the current state; `not_found` when the game does not exist.
    ///
    /// The journal is the record of the game (appended with an fdatasync per decision);
    /// `state.json` is a cache of its last state, tagged with the journal length it
    /// reflects, and is deliberately not fsynced. The cache is used only when it matches the
    /// journal: its tag is the journal's length, and its state hashes to the `state_hash` the
    /// journal's last complete line recorded (so an edited cache, whatever it claims, is
    /// never trusted: its state is not the one the journal reached). A cache that is missing,
    /// unreadable or does not match (a crash or power loss between the two writes, or an
    /// edit) is rebuilt by replaying the journal, which also checks every recorded state
    /// hash. A torn last line (a writer killed mid-append, or one still appending) is a
    /// decision that was never acknowledged: it is not part of the game.
    pub fn load(&self, pool: impl FnOnce() -> Result<Pool>) -> Result<State> {
        let missing = || {
            Error::not_found(format!("no game at {}", self.dir.display())).with(
                "game_id",
                self.dir.file_name().and_then(|n| n.to_str()).unwrap_or(""),
            )
        };
        let journal_len = match std::fs::metadata(self.journal()) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(missing()),
            Err(e) => return Err(Error::io(&self.journal(), e)),
        };
        if let Ok(Some(cache)) = store::read_json::<Cache>(&self.state())
            && cache.journal_bytes == journal_len
            && self
                .last_state_hash(journal_len)
                .is_some_and(|h| h == cache.state.hash())
        {
            return Ok(cache.state);
        }
        let bytes = std::fs::read(self.journal()).map_err(|e| Error::io(&self.journal(), e))?;
        let log = store::parse_jsonl(&bytes);
        if let Some(bad) = log.bad.iter().find(|b| b.kind != "torn") {
            return Err(Error::conflict(format!(
                "journal line {} is {}: {}",
                bad.line, bad.kind, bad.reason
            )));
        }
        let lines: Vec<Value> = log.records.into_iter().map(|(_, v)| v).collect();
        let (state, _) = replay(&lines, &pool()?, None)?;
        // Tagged with the length actually read: a writer that appended meanwhile makes the
        // tag stale, so the next load rebuilds instead of trusting an old state.
        self.save_for(&state, bytes.len() as u64)?;
        Ok(state)
    }

    /// The `state_hash` recorded by the last complete line of the journal's first `len`
    /// bytes (every line records the state after it), read from the end.
    fn last_state_hash(&self, len: u64) -> Option<String> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = std::fs::File::open(self.journal()).ok()?;
        let mut window: u64 = 64 * 1024;
        loop {
            let from = len.saturating_sub(window);
            let mut buf = Vec::new();
            file.seek(SeekFrom::Start(from)).ok()?;
            (&mut file).take(len - from).read_to_end(&mut buf).ok()?;
            // Up to the last newline: a torn tail is not part of the game.
            let end = memchr::memrchr(b'\n', &buf)?;
            let start = memchr::memrchr(b'\n', &buf[..end]).map(|i| i + 1);
            if start.is_none() && from > 0 {
                window = window.saturating_mul(4);
                continue;
            }
            let line: Value = serde_json::from_slice(&buf[start.unwrap_or(0)..end]).ok()?;
            return line["state_hash"].as_str().map(str::to_string);
        }
    }

    /// Under the game's lock, before a change: a torn last journal line left by a killed
    /// writer (never acknowledged, not part of the game) is moved aside to
    /// `journal.torn.<uuid>` and cut off, so the next decision starts on a clean line.
    pub fn cut_torn_tail(&self) -> Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let path = self.journal();
        let mut file = match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
        {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(&path, e)),
        };
        if !store::has_torn_tail(&mut file, &path)? {
            return Ok(());
        }
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(|e| Error::io(&path, e))?;
        let keep = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
        let aside = self
            .dir
            .join(format!("journal.torn.{}", uuid::Uuid::new_v4().simple()));
        store::write_bytes_atomic(&aside, &bytes[keep..])?;
        file.set_len(keep as u64)
            .and_then(|_| file.sync_data())
            .map_err(|e| Error::io(&path, e))
    }

    /// Replaces the state cache after a committed change (under the game's lock).
    pub fn save(&self, s: &State) -> Result<()> {
        let journal_bytes = std::fs::metadata(self.journal())
            .map_err(|e| Error::io(&self.journal(), e))?
            .len();
        self.save_for(s, journal_bytes)
    }

    /// Replaces the state cache, tagged with the journal length it reflects (temp file +
    /// rename: never half-written; no fsync, since the journal, not this file, is what a
    /// crash must not lose).
    fn save_for(&self, s: &State, journal_bytes: u64) -> Result<()> {
        let bytes = serde_json::to_vec(&CacheRef {
            journal_bytes,
            state: s,
        })
        .map_err(|e| Error::internal(e.to_string()))?;
        let path = self.state();
        let tmp = self.dir.join(format!(
            ".state.json.tmp.{}.{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::write(&tmp, &bytes).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::io(&path, e)
        })
    }
}

#[derive(Deserialize)]
struct Cache {
    journal_bytes: u64,
    state: State,
}

#[derive(Serialize)]
struct CacheRef<'a> {
    journal_bytes: u64,
    state: &'a State,
}

/// The `game_start` journal line.
#[derive(Debug, Clone, Serialize)]
pub struct StartLine<'a> {
    #[serde(rename = "type")]
    pub line_type: &'static str,
    pub game_id: &'a str,
    pub rules_version: &'a str,
    pub start: &'a Start,
    pub events: &'a [Event],
    pub state_hash: String,
    /// When the game started (RFC 3339): `bob memory practice --since` reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
}

/// The `game_start` journal line (without its time).
pub fn start_line<'a>(s: &'a State, start: &'a Start, events: &'a [Event]) -> StartLine<'a> {
    StartLine {
        line_type: "game_start",
        game_id: &s.game_id,
        rules_version: &s.rules_version,
        start,
        events,
        state_hash: s.hash(),
        ts: None,
    }
}

/// One decision line: the decider's visible state and surface before, the action, the events
/// and the state hash after.
#[derive(Debug, Clone, Serialize)]
pub struct DecisionLine<'a> {
    #[serde(rename = "type")]
    pub line_type: &'static str,
    pub seq: u64,
    pub decision_id: &'a str,
    pub player: Option<Seat>,
    pub visible_state: VisibleState<'a>,
    pub surface: ActionSurface<'a>,
    pub action: &'a Action,
    pub events: &'a [Event],
    pub state_hash: String,
}

/// One decision line: the decider's visible state and surface before, the action, the events
/// and the state hash after.
pub fn decision_line<'a>(
    before: &'a State,
    req: &'a ActionRequest,
    after: &State,
    events: &'a [Event],
) -> DecisionLine<'a> {
    let viewer = before.decider().map_or(Viewer::All, Viewer::Seat);
    DecisionLine {
        line_type: "decision",
        seq: before.decisions + 1,
        decision_id: &req.decision_id,
        player: before.decider(),
        visible_state: visible(before, viewer),
        surface: surface(before),
        action: &req.action,
        events,
        state_hash: after.hash(),
    }
}

/// The summary of a game (`summary.json`; also the body of the `game_end` line).
#[derive(Debug, Clone, Serialize)]
pub struct Summary<'a> {
    pub game_id: &'a str,
    pub rules_version: &'a str,
    pub game_over: bool,
    pub winner: Option<Seat>,
    pub reason: Option<&'a str>,
    pub turns: u32,
    pub decisions: u64,
    pub life: Life,
    pub turning_point: Option<TurningPoint>,
    pub state_hash: String,
    /// `game_end` in the journal's last line; absent in `summary.json`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub line_type: Option<&'static str>,
}

impl Summary<'_> {
    /// The `game_end` journal line: the summary with its `type` last.
    pub fn end_line(&self) -> Summary<'_> {
        Summary {
            line_type: Some("game_end"),
            ..self.clone()
        }
    }
}

/// Both players' life totals.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Life {
    pub p1: i32,
    pub p2: i32,
}

/// The key turning point: the decision that dealt the loser the most damage at once, its
/// fields copied from its journal line.
#[derive(Debug, Clone, Serialize)]
pub struct TurningPoint {
    pub decision_id: Value,
    pub turn: Value,
    pub player: Value,
    pub action: Value,
    pub damage_to_loser: i64,
}

/// The summary of a game (also the body of the `game_end` line).
pub fn summary(s: &State, turning_point: Option<TurningPoint>) -> Summary<'_> {
    let o = s.outcome.as_ref();
    Summary {
        game_id: &s.game_id,
        rules_version: &s.rules_version,
        game_over: o.is_some(),
        winner: o.and_then(|o| o.winner),
        reason: o.map(|o| o.reason.as_str()),
        turns: s.turn,
        decisions: s.decisions,
        life: Life {
            p1: s.players[0].life,
            p2: s.players[1].life,
        },
        turning_point,
        state_hash: s.hash(),
        line_type: None,
    }
}

/// The key turning point: the decision that dealt the loser the most damage at once.
pub fn turning_point(lines: &[Value], s: &State) -> Option<TurningPoint> {
    let loser = s.outcome.as_ref()?.winner?.other().name();
    let mut best: Option<(i64, &Value)> = None;
    for l in lines.iter().filter(|l| l["type"] == "decision") {
        let dmg: i64 = l["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["type"] == "damage" && e["target"] == loser)
            .filter_map(|e| e["amount"].as_i64())
            .sum();
        if dmg > 0 && best.is_none_or(|(b, _)| dmg > b) {
            best = Some((dmg, l));
        }
    }
    best.map(|(d, l)| TurningPoint {
        decision_id: l["decision_id"].clone(),
        turn: l["visible_state"]["turn"].clone(),
        player: l["player"].clone(),
        action: l["action"].clone(),
        damage_to_loser: d,
    })
}

/// What `replay` reports.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayReport {
    pub game_id: String,
    pub decisions: u64,
    pub final_state_hash: String,
    pub stored_state_hash: Option<String>,
    pub matches: bool,
}

/// Re-runs a journal from its start; every recorded state hash must be reproduced.
pub fn replay(
    lines: &[Value],
    pool: &Pool,
    stored: Option<&State>,
) -> Result<(State, ReplayReport)> {
    let first = lines
        .first()
        .filter(|l| l["type"] == "game_start")
        .ok_or_else(|| Error::invalid("journal does not begin with a game_start line"))?;
    let game_id = first["game_id"].as_str().unwrap_or_default().to_string();
    if first["rules_version"] != super::RULES_VERSION {
        return Err(Error::conflict(format!(
            "the journal was written under rules {}; this bob plays {} and cannot replay it",
            first["rules_version"],
            super::RULES_VERSION
        )));
    }
    let start: Start = serde_json::from_value(first["start"].clone())
        .map_err(|e| Error::invalid(format!("game_start.start: {e}")))?;
    let (mut s, _) = start.build(&game_id, pool)?;
    let diverged = |what: String| Error::conflict(format!("replay diverged: {what}"));
    if first["state_hash"] != s.hash() {
        return Err(diverged(
            "the initial state differs (card pool changed?)".into(),
        ));
    }
    let mut n = 0u64;
    let mut ev = Vec::new();
    for l in lines.iter().skip(1).filter(|l| l["type"] == "decision") {
        let mut m = Map::new();
        m.insert("decision_id".into(), l["decision_id"].clone());
        if let Some(a) = l["action"].as_object() {
            m.extend(a.clone());
        }
        let req: ActionRequest = serde_json::from_value(Value::Object(m))
            .map_err(|e| Error::invalid(format!("journal decision {n}: {e}")))?;
        let mv = req
            .action
            .resolve(&s)
            .map_err(|e| diverged(format!("decision {}: {e}", req.decision_id)))?;
        ev.clear();
        s.step(&mv, &mut ev)
            .map_err(|e| diverged(format!("decision {}: {e}", req.decision_id)))?;
        n += 1;
        if l["state_hash"] != s.hash() {
            return Err(diverged(format!("state hash after {}", req.decision_id)));
        }
    }
    let h = s.hash();
    let stored_hash = stored.map(|x| x.hash());
    let report = ReplayReport {
        game_id,
        decisions: n,
        matches: stored_hash.as_deref().is_none_or(|x| x == h),
        final_state_hash: h,
        stored_state_hash: stored_hash,
    };
    Ok((s, report))
}
