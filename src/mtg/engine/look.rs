//! Looking at the top cards of a library and choosing one of them (CR 401.5, 608.2d): "look
//! at the top N cards of your library", then "you may put one of those cards back on top" or
//! "you may reveal a creature card with power N or less from among them and put it into your
//! hand", and the rest into the graveyard or on the bottom in a random order.
//!
//! Promises:
//! - it is the last effect of its ability (lowering refuses any other order), so resolution
//!   ends with the controller's `look` decision, answered with at most one card; the options
//!   name the cards looked at and those that may be chosen, shown only to that seat;
//! - with an empty library nothing is looked at and no decision is asked; a smaller library
//!   shows all of its cards;
//! - the random order of the cards put on the bottom comes from the game's random stream, so
//!   replay is exact; a card put back on top is not named in the events.

use super::*;
use crate::mtg::cards::Look;

impl State {
    /// Starts the look of `by` (called as the effect resolves).
    pub(super) fn begin_look(&mut self, by: Seat, look: Look) {
        let n = (look.count as usize).min(self.players[by.i()].library.len());
        if n > 0 {
            self.pending = Pending::Look {
                player: by,
                look: Look {
                    count: n as u8,
                    ..look
                },
            };
        }
    }

    /// The cards looked at, top first.
    pub fn look_cards(&self, player: Seat, look: Look) -> Vec<Id> {
        self.players[player.i()].library[..look.count as usize].to_vec()
    }

    /// The cards looked at that may be chosen.
    pub fn look_choices(&self, player: Seat, look: Look) -> Vec<Id> {
        self.look_cards(player, look)
            .into_iter()
            .filter(|&c| {
                look.creature_power_at_most.is_none_or(|p| {
                    let card = self.card(c);
                    card.kind == Kind::Creature && card.power <= i16::from(p)
                })
            })
            .collect()
    }

    pub(super) fn check_look(&self, player: Seat, look: Look, cards: &[Id]) -> Result<(), Illegal> {
        match cards {
            [] => Ok(()),
            [c] if self.look_choices(player, look).contains(c) => Ok(()),
            [c] => illegal(format!(
                "look: {c} is not {} among the top {} cards of your library",
                if look.creature_power_at_most.is_some() {
                    "a creature card with that power"
                } else {
                    "a card"
                },
                look.count
            )),
            _ => illegal("look: choose at most one card"),
        }
    }

    /// Moves the chosen card and the rest, and gives priority back (CR 117.3b).
    pub(super) fn finish_look(
        &mut self,
        player: Seat,
        look: Look,
        cards: &[Id],
        ev: &mut Vec<Event>,
    ) {
        let n = look.count as usize;
        let top: Vec<Id> = self.players[player.i()].library.drain(..n).collect();
        let chosen = cards.first().copied();
        let rest: Vec<Id> = top.into_iter().filter(|&c| Some(c) != chosen).collect();
        let mut revealed = None;
        if let Some(c) = chosen {
            if look.to_hand {
                self.objs[c.i()].zone = Zone::Hand;
                self.players[player.i()].hand.push(c);
                revealed = Some(c);
            } else {
                self.players[player.i()].library.insert(0, c);
            }
        }
        let mut graveyard = Vec::new();
        if look.rest_to_bottom {
            let mut rest = rest;
            let mut r = rng_for(self.seed, self.rng_pos);
            for i in (1..rest.len()).rev() {
                let j = below(&mut r, i + 1);
                rest.swap(i, j);
            }
            self.rng_pos = r.get_word_pos() as u64;
            let bottom = rest.len() as u8;
            self.players[player.i()].library.extend(rest);
            ev.push(Event::LookedAt {
                player,
                looked_at: n as u8,
                revealed,
                graveyard,
                bottom,
            });
        } else {
            for &c in &rest {
                self.objs[c.i()].zone = Zone::Graveyard;
                self.players[player.i()].graveyard.push(c);
            }
            graveyard = rest;
            ev.push(Event::LookedAt {
                player,
                looked_at: n as u8,
                revealed,
                graveyard,
                bottom: 0,
            });
        }
        self.sba_check = true;
        self.pending = Pending::Priority;
        self.priority = self.active;
    }
}
