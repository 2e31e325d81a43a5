//! The stored games under `<home>/mtg/<game_id>/`: the one path through which `bob mtg` and
//! the `mtg.state` / `mtg.actions` / `mtg.act` tools read a game and act on it (load, validate
//! against the current ActionSurface, apply, journal, store), so the CLI and the tools can
//! never disagree.

use super::action::{ActionRequest, ActionSurface, Viewer, surface, visible, wire};
use super::cards::{self, CardData, Pool};
use super::decks::{self, Deck};
use super::engine::{Event, apply};
use super::journal::{self, GameFiles};
use super::state::{Pending, Seat, State};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::store;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `<home>/mtg`.
pub fn mtg_dir(home: &Home) -> PathBuf {
    home.root().join("mtg")
}

/// `<home>/mtg/cards.json`: the cards imported into this home.
pub fn imported_path(home: &Home) -> PathBuf {
    mtg_dir(home).join("cards.json")
}

/// What [`import_cards`] did.
#[derive(Debug, serde::Serialize)]
pub struct CardsImported {
    /// Cards the engine can play that are now in the home's pool.
    pub added: Vec<String>,
    /// Playable cards the pool held already (built in or imported before).
    pub already_in_pool: Vec<String>,
    /// Cards refused, each with why (the text that does not compile, or the missing template).
    pub refused: Vec<cards::Refused>,
    pub pool_size: usize,
}

/// Adds the playable cards of a card file (Scryfall `oracle-cards` or MTGJSON `AtomicCards`,
/// read by [`super::catalog::import`]) to the home's imported pool, under its lock; a card
/// already in the pool is left as it is. `invalid.request` for a file of another shape.
pub fn import_cards(home: &Home, value: &Value) -> Result<CardsImported> {
    let (ok, refused) =
        super::catalog::import(value).map_err(|e| Error::invalid(format!("card file: {e}")))?;
    let path = imported_path(home);
    let _lock = store::Lock::exclusive(&store::lock_path(&path))?;
    let mut list: Vec<CardData> = store::read_json(&path)?.unwrap_or_default();
    let builtin = Pool::builtin();
    let mut added = Vec::new();
    let mut already_in_pool = Vec::new();
    for c in ok {
        if builtin.get(&c.data.name).is_some() || list.iter().any(|d| d.name == c.data.name) {
            already_in_pool.push(c.data.name.clone());
        } else {
            added.push(c.data.name.clone());
            list.push(c.data);
        }
    }
    if !added.is_empty() {
        store::write_json_atomic(&path, &list)?;
    }
    Ok(CardsImported {
        added,
        already_in_pool,
        refused,
        pool_size: builtin.len() + list.len(),
    })
}

/// The built-in pool plus the cards imported into this home.
pub fn load_pool(home: &Home) -> Result<Pool> {
    let mut pool = Pool::builtin();
    if let Some(list) = store::read_json::<Vec<CardData>>(&imported_path(home))? {
        for d in list {
            if pool.get(&d.name).is_none()
                && let Ok(c) = cards::parse(&d)
            {
                pool.insert(c);
            }
        }
    }
    Ok(pool)
}

/// The files of a game id (which need not exist yet).
pub fn files(home: &Home, game: &str) -> Result<GameFiles> {
    GameFiles::new(&mtg_dir(home), game)
}

/// The files of an existing game; `not_found` otherwise.
pub fn existing(home: &Home, game: &str) -> Result<GameFiles> {
    let f = files(home, game)?;
    if !f.journal().is_file() {
        return Err(Error::not_found(format!("no game {game:?}")).with("game_id", game));
    }
    Ok(f)
}

/// Takes the game's lock without waiting: somebody else changing the game is a conflict.
pub fn lock_game(f: &GameFiles) -> Result<store::Lock> {
    let lock = store::Lock::try_exclusive(&f.lock())?.ok_or_else(|| {
        Error::conflict("another process is changing this game; retry")
            .with("path", f.dir.display().to_string())
    })?;
    f.cut_torn_tail()?;
    Ok(lock)
}

/// The current state of an existing game.
pub fn load(home: &Home, game: &str) -> Result<State> {
    existing(home, game)?.load(|| load_pool(home))
}

/// The visible state of a game for `viewer` (default: the player who must decide, else the
/// engine's full view — callers that must never show hidden cards pass a seat).
pub fn view(home: &Home, game: &str, viewer: Option<Viewer>) -> Result<Value> {
    let s = load(home, game)?;
    let viewer = viewer.unwrap_or_else(|| s.decider().map_or(Viewer::All, Viewer::Seat));
    wire(&visible(&s, viewer))
}

/// The visible state for one seat (default: the player who must decide, else p1): never the
/// other seat's hidden cards.
pub fn seat_view(home: &Home, game: &str, seat: Option<Seat>) -> Result<Value> {
    let s = load(home, game)?;
    let seat = seat.or_else(|| s.decider()).unwrap_or(Seat::P1);
    wire(&visible(&s, Viewer::Seat(seat)))
}

/// The ActionSurface of a game as `viewer` may see it. A seat sees the options only of its
/// own decision (another seat's options name its hidden cards); without a viewer the options
/// are shown except those of a hidden-information decision (the cards to put on the bottom or
/// to discard are the decider's hand, a search's are its library), which only that seat sees.
pub fn actions(home: &Home, game: &str, viewer: Option<Seat>) -> Result<Value> {
    let s = load(home, game)?;
    let out = match viewer {
        Some(seat) => surface_for(&s, &[seat]),
        None => {
            let mut out = surface(&s);
            if let (
                Some(d),
                Pending::Bottom { .. }
                | Pending::Discard { .. }
                | Pending::Discarding { .. }
                | Pending::ChooseDiscard { .. }
                | Pending::Search { .. }
                | Pending::Surveil { .. }
                | Pending::Look { .. }
                | Pending::May {
                    optional:
                        crate::mtg::state::Optional {
                            cost: crate::mtg::cards::MayCost::DiscardCard,
                            ..
                        },
                    ..
                },
            ) = (s.decider(), s.pending)
            {
                out.options = Some(Vec::new());
                out.options_hidden = Some(format!(
                    "the options name {}'s hand: ask as that seat (--as {})",
                    d.name(),
                    d.name()
                ));
            }
            out
        }
    };
    wire(&out)
}

/// The ActionSurface as one of `seats` may see it: whole when one of them decides now; else
/// only who decides and what kind of decision it is (the options of another seat can name its
/// hidden cards, e.g. a discard from its hand).
pub fn actions_for(home: &Home, game: &str, seats: &[Seat]) -> Result<Value> {
    wire(&surface_for(&load(home, game)?, seats))
}

fn surface_for<'a>(s: &'a State, seats: &[Seat]) -> ActionSurface<'a> {
    let mut out = surface(s);
    if !s.decider().is_some_and(|d| seats.contains(&d)) {
        out.options = Some(Vec::new());
        out.waiting_for = Some(s.decider());
    }
    out
}

/// The seat that decides now, if any.
pub fn decider(home: &Home, game: &str) -> Result<Option<Seat>> {
    Ok(load(home, game)?.decider())
}

/// Records one accepted decision (and the end of the game) and stores the new state.
pub fn commit(f: &GameFiles, lines: Vec<Value>, after: &State) -> Result<()> {
    let mut lines = lines;
    if after.outcome.is_some() {
        let log = store::read_jsonl(&f.journal())?;
        let mut all: Vec<Value> = log.records.into_iter().map(|(_, v)| v).collect();
        all.extend(lines.iter().cloned());
        let tp = journal::turning_point(&all, after);
        let summary = journal::summary(after, tp);
        lines.push(wire(&summary.end_line())?);
        store::write_json_atomic(&f.summary(), &summary)?;
    }
    let encoded = lines
        .iter()
        .map(store::jsonl_line)
        .collect::<Result<Vec<_>>>()?;
    store::append_jsonl_batch(&f.journal(), &encoded)?;
    f.save(after)
}

/// What an accepted move answers: `{game_id, events, state_hash, decision}` (and
/// `accepted` after `act`).
#[derive(Debug, Clone, Serialize)]
pub struct DecisionOut<'a> {
    pub game_id: &'a str,
    pub events: &'a [Event],
    pub state_hash: String,
    pub decision: ActionSurface<'a>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub accepted: bool,
}

/// `{game_id, events, state_hash, decision}`; `hash` is the state's hash when known.
pub fn decision_out<'a>(s: &'a State, events: &'a [Event], hash: Option<&str>) -> DecisionOut<'a> {
    DecisionOut {
        game_id: &s.game_id,
        events,
        state_hash: hash.map_or_else(|| s.hash(), str::to_string),
        decision: surface(s),
        accepted: false,
    }
}

/// Acts on an existing game: the action is validated against the current ActionSurface (a
/// stale `decision_id`, an unresolvable or an illegal action is `invalid.request` with the
/// reason, and nothing changes), applied, journaled and stored under the game's lock
/// (`conflict` when another process holds it). Returns the events and the next decision (its
/// options only when the same player decides again), with the game's files and its state
/// after the action. The lessons of a game that ended are memory's business
/// ([`crate::memory::mtg_lessons::act`] is the act that proposes them).
pub fn act(home: &Home, game: &str, req: &ActionRequest) -> Result<(Value, GameFiles, State)> {
    let f = existing(home, game)?;
    let _lock = lock_game(&f)?;
    let s = f.load(|| load_pool(home))?;
    if req.decision_id != s.decision_id() {
        return Err(Error::invalid(format!(
            "stale decision_id {:?}: the current decision is {:?} (see `bob mtg actions`)",
            req.decision_id,
            s.decision_id()
        ))
        .with("expected", s.decision_id()));
    }
    let mv = req
        .action
        .resolve(&s)
        .map_err(|e| Error::invalid(format!("action: {e}")))?;
    let (after, events) = apply(&s, &mv).map_err(|e| {
        Error::invalid(format!("illegal action: {e}")).with("decision_id", s.decision_id())
    })?;
    let line = journal::decision_line(&s, req, &after, &events);
    let hash = line.state_hash.clone();
    commit(&f, vec![wire(&line)?], &after)?;
    let mut out = decision_out(&after, &events, Some(&hash));
    out.accepted = true;
    // The next decision's options name the decider's cards: only the actor's own are shown.
    if after.decider().is_some_and(|p| Some(p) != s.decider()) {
        out.decision.options = None;
    }
    let out = wire(&out)?;
    Ok((out, f, after))
}

/// Creates game `game_id` in `f`: builds the start (everything is checked before anything is
/// written), then, under the game's lock, writes its first journal line, state cache and
/// summary. A game that already exists is a `conflict`.
pub fn create(
    f: &GameFiles,
    game_id: &str,
    start: &journal::Start,
    pool: &Pool,
) -> Result<(State, Vec<Event>)> {
    // Everything is checked before anything is written.
    let (s, events) = start.build(game_id, pool)?;
    let taken = || {
        Err(Error::conflict(format!("game {game_id:?} already exists")).with("game_id", game_id))
    };
    if f.dir.exists() {
        return taken();
    }
    let _lock = lock_game(f)?;
    // Re-checked under the lock: another `bob mtg new` may have won the race.
    if f.journal().exists() {
        return taken();
    }
    let mut line = journal::start_line(&s, start, &events);
    // When the game started: `bob memory practice --since` reads it.
    line.ts = Some(crate::clock::rfc3339(crate::clock::now()?));
    store::append_jsonl(&f.journal(), &line)?;
    f.save(&s)?;
    store::write_json_atomic(&f.summary(), &journal::summary(&s, None))?;
    Ok((s, events))
}

/// Journals an `ask` question line under the game's lock. The line does not change the game:
/// the state cache is kept in step with the journal.
pub fn record_question(
    f: &GameFiles,
    line: &Value,
    pool: impl FnOnce() -> Result<Pool>,
) -> Result<()> {
    let _lock = lock_game(f)?;
    let now = f.load(pool)?;
    store::append_jsonl(&f.journal(), line)?;
    f.save(&now)
}

/// A game's journal lines, in order; a corrupt line is a `conflict` naming it.
pub fn journal_lines(home: &Home, game: &str) -> Result<Vec<Value>> {
    let f = existing(home, game)?;
    let log = store::read_jsonl(&f.journal())?;
    if let Some(bad) = log.bad.first() {
        return Err(Error::conflict(format!(
            "journal line {} is {}: {}",
            bad.line, bad.kind, bad.reason
        )));
    }
    Ok(log.records.into_iter().map(|(_, v)| v).collect())
}

/// Re-runs a game's journal from its start, checking every recorded state hash; ending in
/// another state than the stored one is a `conflict`.
pub fn replay(home: &Home, game: &str) -> Result<journal::ReplayReport> {
    let f = existing(home, game)?;
    let pool = load_pool(home)?;
    let log = store::read_jsonl(&f.journal())?;
    let stored = f.load(|| Ok(pool.clone()))?;
    let lines: Vec<Value> = log.records.into_iter().map(|(_, v)| v).collect();
    let (_, report) = journal::replay(&lines, &pool, Some(&stored))?;
    if !report.matches {
        return Err(
            Error::conflict("replay ends in a different state than state.json")
                .with("final_state_hash", report.final_state_hash.clone()),
        );
    }
    Ok(report)
}

/// A deck by its spec: a built-in deck name or a decklist file (JSON or text lines), checked
/// against the pool; anything else is `invalid.request` naming the spec.
pub fn resolve_deck(spec: &str, pool: &Pool) -> Result<Deck> {
    let deck = match decks::builtin().into_iter().find(|d| d.name == spec) {
        Some(d) => d,
        None => {
            let p = Path::new(spec);
            if !p.is_file() {
                return Err(Error::invalid(format!(
                    "deck {spec:?} is neither a built-in deck (see `bob mtg decks`) nor a file"
                ))
                .with("deck", spec));
            }
            let text = read_decklist(p).map_err(|e| e.with("deck", spec))?;
            let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or(spec);
            decks::parse(name, &text).map_err(|e| Error::invalid(e).with("deck", spec))?
        }
    };
    deck.validate(pool)
        .map_err(|e| Error::invalid(e).with("deck", spec))?;
    Ok(deck)
}

/// p1's deck, then p2's: exactly two specs.
pub fn two_decks(specs: &[String], pool: &Pool) -> Result<[Deck; 2]> {
    if specs.len() != 2 {
        return Err(Error::invalid(format!(
            "give exactly two --deck options (p1's, then p2's), got {}",
            specs.len()
        )));
    }
    Ok([
        resolve_deck(&specs[0], pool)?,
        resolve_deck(&specs[1], pool)?,
    ])
}

/// A decklist is small: a larger file is refused before it is read.
const MAX_DECKLIST_BYTES: u64 = 1 << 20;

fn read_decklist(p: &Path) -> Result<String> {
    use std::io::Read;
    let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
    let mut bytes = Vec::new();
    f.take(MAX_DECKLIST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(p, e))?;
    if bytes.len() as u64 > MAX_DECKLIST_BYTES {
        return Err(Error::invalid(format!(
            "a decklist is at most {MAX_DECKLIST_BYTES} bytes"
        )));
    }
    String::from_utf8(bytes).map_err(|e| Error::invalid(format!("decklist is not UTF-8: {e}")))
}
