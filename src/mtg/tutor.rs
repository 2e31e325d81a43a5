//! `bob mtg ask`: a tutoring question about a stored game, answered by a chat model from the
//! asker's seat only. The model is sent that seat's visible state, the oracle text of every
//! card the seat can see (its hand, both graveyards, the battlefield and the stack), the
//! game's recent events (public: what both players saw happen) and, when the asker decides
//! now, its legal actions. Never the other seat's hand or any library. The question and the
//! answer are journaled as a `question` line, which does not change the game.

use super::action::{Viewer, surface, visible, wire};
use super::game;
use super::journal::GameFiles;
use super::model;
use super::state::{Seat, State};
use crate::backend::{Backend, CallOpts, Cancel, ChatRequest};
use crate::contracts::{ChatMessage, Role};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::store;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

/// How many of the game's latest events the model is shown.
pub const RECENT_EVENTS: usize = 40;

/// Asks `question` about game `game_id` as `seat` (default: the player who decides now, else
/// p1); returns the journaled `question` line.
pub fn ask(
    home: &Home,
    game_id: &str,
    seat: Option<Seat>,
    question: &str,
    backend: &Backend,
) -> Result<Value> {
    if question.trim().is_empty() {
        return Err(Error::invalid("the question is empty"));
    }
    let f = game::existing(home, game_id)?;
    let s = f.load(|| game::load_pool(home))?;
    let seat = seat.or_else(|| s.decider()).unwrap_or(Seat::P1);
    let msgs = vec![
        ChatMessage::new(Role::System, model::TUTOR),
        ChatMessage::new(
            Role::User,
            format!("{}\n\nQUESTION:\n{question}", context(&f, &s, seat)?),
        ),
    ];
    let rt = crate::backend::runtime()?;
    let opts = CallOpts {
        role: Some("mtg_tutor".into()),
        stream: false,
        cancel: Cancel::on_ctrl_c(),
        watch: None,
    };
    let reply = rt.block_on(backend.chat(&ChatRequest::new(msgs), &opts, None))?;
    let line = wire(&Question {
        line_type: "question",
        decision_id: s.decision_id(),
        player: seat,
        question,
        answer: reply.message.content.trim(),
        model: &reply.model,
    })?;
    game::record_question(&f, &line, || game::load_pool(home))?;
    Ok(line)
}

/// The `question` journal line (and what `bob mtg ask` prints).
#[derive(Debug, Serialize)]
struct Question<'a> {
    #[serde(rename = "type")]
    line_type: &'static str,
    decision_id: String,
    player: Seat,
    question: &'a str,
    answer: &'a str,
    model: &'a str,
}

/// What the model is told about the game, as `seat` sees it.
pub fn context(f: &GameFiles, s: &State, seat: Seat) -> Result<String> {
    let view = visible(s, Viewer::Seat(seat));
    let mut out = format!("STATE (as {}):\n{view}", seat.name());
    out.push_str("\n\nCARDS YOU CAN SEE (oracle text):");
    for name in visible_names(&wire(&view)?) {
        if let Some(c) = s.cards.iter().find(|c| c.data.name == name) {
            let d = &c.data;
            let pt = match (&d.power, &d.toughness) {
                (Some(p), Some(t)) => format!(" {p}/{t}"),
                _ => String::new(),
            };
            out.push_str(&format!(
                "\n- {} {} — {}{pt}: {}",
                d.name,
                d.mana_cost,
                d.type_line,
                d.oracle_text.replace('\n', " / ")
            ));
        }
    }
    out.push_str(&format!(
        "\n\nRECENT EVENTS (oldest first):\n{}",
        Value::Array(recent_events(f, RECENT_EVENTS)?)
    ));
    if s.decider() == Some(seat) {
        out.push_str(&format!("\n\nACTIONS:\n{}", surface(s)));
    }
    Ok(out)
}

/// Every card name in a visible state, once, in order of appearance.
fn visible_names(view: &Value) -> Vec<String> {
    fn walk(v: &Value, seen: &mut BTreeSet<String>, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(n)) = m.get("name")
                    && seen.insert(n.clone())
                {
                    out.push(n.clone());
                }
                m.values().for_each(|x| walk(x, seen, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, seen, out)),
            _ => {}
        }
    }
    let (mut seen, mut out) = (BTreeSet::new(), Vec::new());
    walk(view, &mut seen, &mut out);
    out
}

/// The game's last `n` events, oldest first (all public: `turn_started` and `step` events
/// among them say when the others happened).
pub fn recent_events(f: &GameFiles, n: usize) -> Result<Vec<Value>> {
    let log = store::read_jsonl(&f.journal())?;
    let mut events: Vec<Value> = Vec::new();
    for (_, line) in &log.records {
        for e in line["events"].as_array().into_iter().flatten() {
            events.push(e.clone());
        }
    }
    let from = events.len().saturating_sub(n);
    Ok(events.split_off(from))
}
