//! Playing a stored game to its end (`bob mtg play`): each seat is a built-in agent, a person
//! answering through [`Person`], or a chat model; every accepted decision is journaled and the
//! state stored before the next one is asked for (so a game stopped at any point goes on from
//! its last acknowledged decision). Holds the game's lock for the whole loop.
//!
//! A model seat sees its visible state and the ActionSurface; an illegal reply is fed back
//! up to `model_retries` times, then the safe default is taken and an `illegal_action` line is
//! journaled before it. A person's illegal answer is refused and asked again.

use super::action::{
    Action, ActionRequest, ActionSurface, Viewer, VisibleState, surface, visible, wire,
};
use super::agents::{Agent, AgentKind};
use super::engine::{Move, apply};
use super::game;
use super::journal::{self, GameFiles};
use super::model;
use super::state::State;
use crate::backend::{Backend, CallOpts, Cancel, ChatRequest};
use crate::contracts::{ChatMessage, Role};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::store;
use serde::Serialize;
use serde_json::Value;

/// Who plays a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Player {
    Agent(AgentKind),
    Person,
    Model,
}

impl Player {
    /// `random`, `heuristic`, `human` or `model`.
    pub fn parse(name: &str) -> Option<Player> {
        match name {
            "human" => Some(Player::Person),
            "model" => Some(Player::Model),
            n => AgentKind::parse(n).map(Player::Agent),
        }
    }
}

/// A person at a seat: shown the decision, answers with one action line.
pub trait Person {
    /// Shows `{state, decision}` (the seat's own view) and returns the answer line; `None`
    /// when there is no more input (the loop stops; the game goes on later).
    fn answer(&mut self, prompt: &Value) -> Result<Option<String>>;
    /// Tells the person why an answer was refused (then the same decision is asked again).
    fn refused(&mut self, why: &Error);
}

/// How a game is played on.
pub struct Table<'a> {
    pub players: [Player; 2],
    /// Stop after this many decisions (the game can be continued later).
    pub max_decisions: Option<u64>,
    pub model_retries: u32,
    /// The model's backend, needed when a seat is [`Player::Model`].
    pub model: Option<&'a Backend>,
}

/// What [`play`] leaves: the game's files and last state, and the summary it reports.
pub struct Played {
    pub files: GameFiles,
    pub state: State,
    /// The game's summary (the stored one once the game is over) with `decisions_taken`.
    pub summary: Value,
    pub taken: u64,
}

enum Seat {
    Agent(Box<Agent>),
    Person,
    Model,
}

/// Plays game `game_id` on until it ends, input runs out or `max_decisions` are taken.
pub fn play(home: &Home, game_id: &str, table: &Table, person: &mut dyn Person) -> Result<Played> {
    let f = game::existing(home, game_id)?;
    let _lock = game::lock_game(&f)?;
    let mut s = f.load(|| game::load_pool(home))?;
    let seat = |p: Player, salt: u64| match p {
        Player::Agent(k) => Seat::Agent(Box::new(Agent::new(k, s.seed ^ salt ^ s.decisions))),
        Player::Person => Seat::Person,
        Player::Model => Seat::Model,
    };
    let mut seats = [seat(table.players[0], 1), seat(table.players[1], 2)];
    let model_rt = match table.players.contains(&Player::Model) {
        true => {
            if table.model.is_none() {
                return Err(Error::internal("a model seat needs a backend"));
            }
            Some(crate::backend::runtime()?)
        }
        false => None,
    };
    let mut taken = 0u64;
    while let Some(p) = s.decider() {
        if table.max_decisions.is_some_and(|m| taken >= m) {
            break;
        }
        let mut before = Vec::new();
        let req = match &mut seats[p.i()] {
            Seat::Agent(agent) => {
                let mv = agent.decide(&s).expect("a decision is pending");
                let action = Action::from_move(&mv, &s);
                ActionRequest {
                    decision_id: s.decision_id(),
                    action,
                }
            }
            Seat::Model => {
                let backend = table.model.expect("checked above");
                let rt = model_rt.as_ref().expect("built for model seats");
                let (r, _, lines) = model_decide(backend, rt, &s, table.model_retries)?;
                before = lines;
                r
            }
            Seat::Person => {
                let prompt = wire(&Prompt {
                    state: visible(&s, Viewer::Seat(p)),
                    decision: surface(&s),
                })?;
                let Some(line) = person.answer(&prompt)? else {
                    break;
                };
                match person_action(&s, &line) {
                    Ok((r, _)) => r,
                    Err(e) => {
                        person.refused(&Error::invalid(e));
                        continue;
                    }
                }
            }
        };
        // What is applied is what the journal records (its wire form, read back as replay
        // reads it): a move whose wire form orders it differently (a damage split) would
        // otherwise make a game the journal does not replay.
        let mv = match req.action.resolve(&s) {
            Ok(m) => m,
            Err(e) if matches!(seats[p.i()], Seat::Person) => {
                person.refused(&Error::invalid(e));
                continue;
            }
            Err(e) => return Err(Error::internal(format!("a move's wire form: {e}"))),
        };
        match apply(&s, &mv) {
            Ok((after, events)) => {
                before.push(wire(&journal::decision_line(&s, &req, &after, &events))?);
                game::commit(&f, before, &after)?;
                s = after;
                taken += 1;
            }
            Err(e) => {
                if matches!(seats[p.i()], Seat::Agent(_)) {
                    return Err(Error::internal(format!("agent move refused: {e}")));
                }
                person.refused(&Error::invalid(format!("illegal action: {e}")));
            }
        }
    }
    let mut summary = wire(&journal::summary(&s, None))?;
    if s.outcome.is_some()
        && let Some(stored) = store::read_json::<Value>(&f.summary())?
    {
        summary = stored;
    }
    summary["decisions_taken"] = Value::from(taken);
    Ok(Played {
        files: f,
        state: s,
        summary,
        taken,
    })
}

/// What a person is shown before each of their decisions: `{state, decision}`.
#[derive(Debug, Serialize)]
struct Prompt<'a> {
    state: VisibleState<'a>,
    decision: ActionSurface<'a>,
}

/// The journal line of a model's illegal replies and the safe default taken instead.
#[derive(Debug, Serialize)]
struct IllegalAction<'a> {
    #[serde(rename = "type")]
    line_type: &'static str,
    decision_id: String,
    player: Option<super::state::Seat>,
    reasons: &'a [String],
    default_action: &'a Action,
}

/// A person's answer line as an action for the current decision.
fn person_action(s: &State, line: &str) -> std::result::Result<(ActionRequest, Move), String> {
    let r: ActionRequest = serde_json::from_str(line).map_err(|e| e.to_string())?;
    if r.decision_id != s.decision_id() {
        return Err(format!("stale decision_id {:?}", r.decision_id));
    }
    let mv = r.action.resolve(s)?;
    Ok((r, mv))
}

/// Asks the model for an action until one is legal, at most `retries` times after the first;
/// then the safe default. Returns the action and the journal lines that go before it.
fn model_decide(
    backend: &Backend,
    rt: &tokio::runtime::Runtime,
    s: &State,
    retries: u32,
) -> Result<(ActionRequest, Move, Vec<Value>)> {
    let mut msgs = model::messages(s);
    let mut reasons = Vec::new();
    let opts = CallOpts {
        role: Some("mtg".into()),
        stream: false,
        cancel: Cancel::on_ctrl_c(),
        watch: None,
    };
    for _ in 0..=retries {
        let reply = rt.block_on(backend.chat(&ChatRequest::new(msgs.clone()), &opts, None))?;
        let m = reply.message;
        let parsed = model::parse_reply(s, &m.content, m.tool_call_list()).and_then(|r| {
            if r.decision_id != s.decision_id() {
                return Err(format!(
                    "stale decision_id {:?}: the current decision is {:?}",
                    r.decision_id,
                    s.decision_id()
                ));
            }
            let mv = r.action.resolve(s)?;
            apply(s, &mv).map_err(|e| e.to_string())?;
            Ok((r, mv))
        });
        match parsed {
            Ok((r, mv)) => return Ok((r, mv, Vec::new())),
            Err(reason) => {
                msgs.push(m);
                msgs.push(ChatMessage::new(
                    Role::User,
                    format!("ILLEGAL: {reason}. Reply with one legal action from ACTIONS."),
                ));
                reasons.push(reason);
            }
        }
    }
    let mv = model::safe_default(s).ok_or_else(|| Error::internal("no decision pending"))?;
    let action = Action::from_move(&mv, s);
    let line = wire(&IllegalAction {
        line_type: "illegal_action",
        decision_id: s.decision_id(),
        player: s.decider(),
        reasons: &reasons,
        default_action: &action,
    })?;
    Ok((
        ActionRequest {
            decision_id: s.decision_id(),
            action,
        },
        mv,
        vec![line],
    ))
}
