//! Self-play with decks of the spell and effect templates (library searches, sacrifice costs,
//! discards, modes, a counterspell): random games end without an engine error, every decision kind they add is
//! met, and each game replays from the wire form of its moves (as a journal holds them) to the
//! same state hash.

use super::action::Action;
use super::agents::{Agent, AgentKind};
use super::cards::Pool;
use super::engine::{Event, Move, game_template, start_game};
use super::state::Pending;

fn deck(cards: &[&str], lands: [&str; 2]) -> Vec<String> {
    let mut v: Vec<String> = cards
        .iter()
        .flat_map(|c| std::iter::repeat_n(c.to_string(), 4))
        .collect();
    for l in lands {
        v.extend(std::iter::repeat_n(l.to_string(), 14));
    }
    v
}

#[test]
fn spell_template_decks_play_and_replay_from_the_wire_form() {
    let pool = Pool::builtin();
    let a = deck(
        &[
            "Evolving Wilds",
            "Strix Lookout",
            "Icewind Elemental",
            "Goblin Surprise",
            "Campus Guide",
            "Burnished Hart",
            "Lightning Bolt",
            "Refute",
        ],
        ["Island", "Mountain"],
    );
    let b = deck(
        &[
            "Evolving Wilds",
            "Burglar Rat",
            "Seeker's Folly",
            "Apothecary Stomper",
            "Wardens of the Cycle",
            "Rune-Scarred Demon",
            "Grizzly Bears",
            "Murder",
        ],
        ["Swamp", "Forest"],
    );
    let template = game_template("spells", [&a, &b], &pool).unwrap();
    let (mut searches, mut modes, mut discards, mut sacrifices, mut modal_casts) = (0, 0, 0, 0, 0);
    let mut counters = 0;
    for seed in 0..150u64 {
        let (mut s, _) = start_game(&template, seed);
        let start = s.clone();
        let mut ag = [
            Agent::new(AgentKind::Random, seed),
            Agent::new(AgentKind::Heuristic, !seed),
        ];
        let mut wire = Vec::new();
        let mut ev = Vec::new();
        while let Some(p) = s.decider() {
            match s.pending {
                Pending::Search { .. } => searches += 1,
                Pending::ChooseMode { .. } => modes += 1,
                Pending::Discarding { .. } => discards += 1,
                _ => {}
            }
            let m = ag[p.i()].decide(&s).unwrap();
            if matches!(m, Move::Cast { mode: Some(_), .. }) {
                modal_casts += 1;
            }
            let text = serde_json::to_string(&Action::from_move(&m, &s)).unwrap();
            wire.push(text);
            ev.clear();
            s.step(&m, &mut ev)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            sacrifices += ev
                .iter()
                .filter(|e| matches!(e, Event::Sacrificed { .. }))
                .count();
            counters += ev
                .iter()
                .filter(|e| matches!(e, Event::Countered { .. }))
                .count();
            s.check_invariants()
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
        let mut r = start;
        for text in &wire {
            let action: Action = serde_json::from_str(text).unwrap();
            let m = action.resolve(&r).unwrap();
            r.step(&m, &mut ev).unwrap();
        }
        assert_eq!(r.hash(), s.hash(), "seed {seed}");
    }
    for (what, n) in [
        ("search", searches),
        ("choose_mode", modes),
        ("discard as an effect resolves", discards),
        ("sacrifice", sacrifices),
        ("modal cast", modal_casts),
        ("countered spell", counters),
    ] {
        assert!(n > 0, "no {what} in 150 games");
    }
}
