//! MTG lessons as memory: at a game's end each seat's lessons ([`crate::mtg::lessons`]) become
//! pending memory candidates for a human to decide. The MTG engine knows nothing of memory;
//! acting through [`act`] (or playing on through [`play`]) is how the CLI and the `mtg.act`
//! tool take an action and, when it ends the game, propose the lessons.

use crate::error::{Error, Result};
use crate::home::Home;
use crate::mtg::game::load_pool;
use crate::mtg::journal::GameFiles;
use crate::mtg::{ActionRequest, Seat, State, game, lessons};
use crate::store;
use serde_json::{Value, json};

/// [`game::act`], then, when the action ended the game, both seats' lessons proposed as
/// pending candidates: `lessons` lists every proposed candidate id, `lessons_by_player` the
/// same per seat.
pub fn act(home: &Home, game_id: &str, req: &ActionRequest) -> Result<Value> {
    let (mut out, f, after) = game::act(home, game_id, req)?;
    lessons_at_end(home, &f, &after, &mut out);
    Ok(out)
}

/// [`crate::mtg::play::play`], then, when the game ended, both seats' lessons proposed as
/// pending candidates (in the summary, as [`act`] does).
pub fn play(
    home: &Home,
    game_id: &str,
    table: &crate::mtg::play::Table,
    person: &mut dyn crate::mtg::play::Person,
) -> Result<Value> {
    let mut p = crate::mtg::play::play(home, game_id, table, person)?;
    if p.taken > 0 {
        lessons_at_end(home, &p.files, &p.state, &mut p.summary);
    }
    Ok(p.summary)
}

/// Proposes the lessons of one seat as pending candidates; returns the candidate rows.
pub fn propose_lessons(
    home: &Home,
    f: &GameFiles,
    game: &str,
    seat: Seat,
    user: Option<String>,
) -> Result<Vec<Value>> {
    let log = store::read_jsonl(&f.journal())?;
    let lines: Vec<Value> = log.records.into_iter().map(|(_, v)| v).collect();
    let pool = load_pool(home)?;
    let memory = super::Memory::open(home)?;
    lessons::lessons(&lines, seat, &pool)
        .into_iter()
        .map(|c| {
            let row = memory.propose(
                c,
                super::ProposeCtx {
                    user: user.clone(),
                    session_id: Some(format!("mtg:{game}")),
                    run_id: None,
                },
            )?;
            serde_json::to_value(row).map_err(|e| Error::internal(e.to_string()))
        })
        .collect()
}

/// At game end: each seat's lessons, best effort (the game itself is already committed).
/// `lessons` lists every proposed candidate id, `lessons_by_player` the same per seat.
pub fn lessons_at_end(home: &Home, f: &GameFiles, s: &State, out: &mut Value) {
    if s.outcome.is_none() {
        return;
    }
    let (mut all, mut by_player) = (Vec::new(), serde_json::Map::new());
    for seat in [Seat::P1, Seat::P2] {
        match propose_lessons(home, f, &s.game_id, seat, None) {
            Ok(rows) => {
                let ids: Vec<Value> = rows.iter().map(|r| r["id"].clone()).collect();
                all.extend(ids.iter().cloned());
                by_player.insert(seat.name().into(), Value::Array(ids));
            }
            Err(e) => out["lessons_error"] = json!(e),
        }
    }
    out["lessons"] = Value::Array(all);
    out["lessons_by_player"] = Value::Object(by_player);
}
