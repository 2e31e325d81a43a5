//! Intervening-if conditions (CR 603.4) and the turn's record they read.
//!
//! Promises:
//! - the record ([`ThisTurn`]) is kept from the move's events, in order, and cleared as a turn
//!   begins: whether the active player attacked (raid), whether a creature died (morbid),
//!   which players lost or gained life (damage to a player is life lost);
//! - a triggered ability whose first effect is an [`Effect::If`] triggers only if its
//!   condition holds as the event happens, and on resolution does nothing if the condition
//!   no longer holds (the ability still resolves and leaves the stack);
//! - a creature that "enters with N +1/+1 counters on it if <condition>" has them as it
//!   enters (a replacement, CR 614.1c: no counters are "put" on it later), the condition
//!   checked then;
//! - "you" is the ability's controller (its source's owner: control never changes here) and
//!   "another" excludes the source.

use super::*;
use crate::mtg::lower::Cond;

impl State {
    /// Updates the turn's record with one event.
    pub(super) fn note_turn(&mut self, e: &Event) {
        let t = &mut self.this_turn;
        match e {
            // The counts are kept as cards are drawn and life is gained, and cleared as the
            // turn begins (`begin_turn`), so noting an event again does not change them.
            Event::TurnStarted { .. } => {
                *t = ThisTurn {
                    drawn: t.drawn,
                    gains: t.gains,
                    life_gained: t.life_gained,
                    ..ThisTurn::default()
                }
            }
            Event::Attacked { attackers } if !attackers.is_empty() => t.attacked = true,
            Event::Died { card, .. } | Event::Destroyed { card } | Event::Sacrificed { card }
                if self.cards[self.objs[card.i()].card as usize].kind == Kind::Creature =>
            {
                self.this_turn.creature_died = true
            }
            Event::LifeLost { player, amount } if *amount > 0 => t.lost_life[player.i()] = true,
            Event::Damage {
                target: Target::Player(p),
                amount,
                ..
            } if *amount > 0 => t.lost_life[p.i()] = true,
            Event::LifeGained { player, amount } if *amount > 0 => t.gained_life[player.i()] = true,
            _ => {}
        }
    }

    /// Updates the record with every event from `from` on (replaying events already noted is
    /// harmless: the record after a sequence depends only on the sequence).
    pub(super) fn note_turn_events(&mut self, ev: &[Event], from: usize) {
        for e in ev.iter().skip(from) {
            self.note_turn(e);
        }
    }

    /// The intervening-if condition of `source`'s triggered ability `ability`, if it has one.
    pub(super) fn condition_of(&self, source: Id, ability: u8) -> Option<Cond> {
        match self.card(source).triggers.get(ability as usize)?.1.first() {
            Some(Effect::If(c)) => Some(*c),
            _ => None,
        }
    }

    /// Whether the ability's intervening-if condition holds now (true without one).
    pub(super) fn condition_holds(&self, source: Id, ability: u8) -> bool {
        self.condition_of(source, ability)
            .is_none_or(|c| self.holds(c, source, self.obj(source).owner))
    }

    /// CR 603.4: whether `c` holds for an ability of `source` controlled by `you`.
    pub(super) fn holds(&self, c: Cond, source: Id, you: Seat) -> bool {
        let t = &self.this_turn;
        match c {
            Cond::YouAttacked => t.attacked && self.active == you,
            Cond::CreatureDied => t.creature_died,
            Cond::OpponentLostLife => t.lost_life[you.other().i()],
            Cond::YouGainedLife => t.gained_life[you.i()],
            Cond::GraveyardAtLeast(n) => self.players[you.i()].graveyard.len() >= n as usize,
            Cond::ControlPower { another, power } => self.battlefield.iter().any(|&b| {
                self.obj(b).owner == you
                    && self.is_creature(b)
                    && self.power(b) >= power as i16
                    && !(another && b == source)
            }),
            Cond::ControlAnother(t) => self.battlefield.iter().any(|&b| {
                b != source
                    && self.obj(b).owner == you
                    && self.is_creature(b)
                    && self.card(b).subtypes.iter().any(|s| s == t)
            }),
            Cond::Kicked => self.is_kicked(source),
        }
    }

    /// CR 614.1c: gives a creature entering the battlefield the +1/+1 counters its card says
    /// it enters with (when the condition holds); returns how many.
    pub(super) fn enters_with_counters(&mut self, id: Id, you: Seat) -> i16 {
        let Some((n, c)) = self.card(id).enters_with_counters else {
            return 0;
        };
        if c.is_some_and(|c| !self.holds(c, id, you)) {
            return 0;
        }
        self.objs[id.i()].counters += n as i16;
        n as i16
    }
}
