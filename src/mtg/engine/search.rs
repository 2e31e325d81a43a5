//! Decisions made as a spell or ability resolves: library searches (CR 701.23) and discards
//! (CR 701.9).
//!
//! Promises:
//! - a search is the last effect of its spell or ability (lowering refuses any other order),
//!   so resolution ends with a `search` decision of the ability's controller; the options name
//!   the library's matching cards and are shown only to that seat (the library is hidden);
//! - a search for cards with a stated quality ("a basic land card") may find fewer than asked,
//!   none included (CR 701.23b); a search for "a card" must find one while the library has
//!   one;
//! - "you may search": finding nothing declines the search, so the library is not shuffled;
//!   every other search shuffles (with the game's random stream, so replay is exact), and
//!   "put that card on top" puts it on top after the shuffle;
//! - cards put onto the battlefield enter under the searcher's control (tapped if the effect
//!   says so) and trigger "enters" and landfall abilities like a land played; cards put into
//!   the hand are not named in the events;
//! - a discard effect is also the last effect: its player (the controller, or the opponent for
//!   "each opponent discards") chooses the cards with the `discard` action, the same as in the
//!   cleanup step, unless the hand holds no more than that many cards, when all of them go.

use super::*;
use crate::mtg::cards::{Found, Search};

impl State {
    /// Starts a discard of `n` cards by `who` as an effect resolves (CR 701.9): a decision
    /// when the player holds more cards than that, else the whole hand goes at once (the hand
    /// size is public, so skipping the decision tells nobody anything).
    pub(super) fn begin_discard(&mut self, who: Seat, n: u8, ev: &mut Vec<Event>) {
        let hand = self.players[who.i()].hand.clone();
        if hand.len() > n as usize {
            self.pending = Pending::Discarding {
                player: who,
                count: n,
            };
        } else {
            self.discard_cards(who, &hand, ev);
        }
    }

    /// Puts cards from `who`'s hand into the graveyard (checked by the caller).
    pub(super) fn discard_cards(&mut self, who: Seat, cards: &[Id], ev: &mut Vec<Event>) {
        for &id in cards {
            let p = &mut self.players[who.i()];
            p.hand.retain(|&h| h != id);
            p.graveyard.push(id);
            self.objs[id.i()].zone = Zone::Graveyard;
            ev.push(Event::Discarded {
                player: who,
                card: id,
            });
        }
    }

    /// Starts the search decision of `by` (called as the effect resolves).
    pub(super) fn begin_search(&mut self, by: Seat, search: Search) {
        self.pending = Pending::Search { player: by, search };
    }

    /// The cards of `player`'s library a search may find.
    pub fn search_candidates(&self, player: Seat, search: Search) -> Vec<Id> {
        self.players[player.i()]
            .library
            .iter()
            .copied()
            .filter(|&id| !search.basic || self.card(id).data.type_line.starts_with("Basic Land"))
            .filter(|&id| {
                search.spell_mana_value.is_none_or(|mv| {
                    let c = self.card(id);
                    matches!(c.kind, Kind::Instant | Kind::Sorcery)
                        && c.cost.total() == u32::from(mv)
                })
            })
            .collect()
    }

    /// How many cards the search must find at least.
    pub fn search_minimum(&self, player: Seat, search: Search) -> usize {
        if search.must {
            (search.count as usize).min(self.players[player.i()].library.len())
        } else {
            0
        }
    }

    pub(super) fn check_search(
        &self,
        player: Seat,
        search: Search,
        cards: &[Id],
    ) -> Result<(), Illegal> {
        let min = self.search_minimum(player, search);
        if cards.len() > search.count as usize || cards.len() < min {
            return illegal(format!(
                "search: choose {} card{} (got {})",
                if min == search.count as usize {
                    format!("{min}")
                } else {
                    format!("{min} to {}", search.count)
                },
                if search.count == 1 { "" } else { "s" },
                cards.len()
            ));
        }
        let candidates = self.search_candidates(player, search);
        for (i, id) in cards.iter().enumerate() {
            if !candidates.contains(id) {
                return illegal(format!(
                    "search: {id} is not a {}card in your library",
                    if search.basic {
                        "basic land ".to_string()
                    } else if let Some(mv) = search.spell_mana_value {
                        format!("instant or sorcery (mana value {mv}) ")
                    } else {
                        String::new()
                    }
                ));
            }
            if cards[..i].contains(id) {
                return illegal(format!("search: {id} chosen twice"));
            }
        }
        Ok(())
    }

    /// Moves the found cards, shuffles, and gives priority back (CR 608.2, 117.3b).
    pub(super) fn finish_search(
        &mut self,
        player: Seat,
        search: Search,
        cards: &[Id],
        ev: &mut Vec<Event>,
    ) {
        self.players[player.i()]
            .library
            .retain(|id| !cards.contains(id));
        let shuffled = !(search.optional && cards.is_empty());
        if shuffled {
            self.shuffle(player);
        }
        ev.push(Event::Searched {
            player,
            found: cards.len() as u8,
            shuffled,
        });
        for &id in cards {
            match search.to {
                Found::Hand => {
                    self.objs[id.i()].zone = Zone::Hand;
                    self.players[player.i()].hand.push(id);
                }
                Found::Top => {
                    self.players[player.i()].library.insert(0, id);
                }
                Found::Battlefield | Found::BattlefieldTapped => {
                    let tapped =
                        search.to == Found::BattlefieldTapped || self.card(id).enters_tapped;
                    let o = &mut self.objs[id.i()];
                    o.zone = Zone::Battlefield;
                    o.sick = true;
                    o.tapped = tapped;
                    self.battlefield.push(id);
                    self.enters_with_loyalty(id);
                    ev.push(Event::EnteredBattlefield { card: id });
                }
            }
        }
        self.recount(player);
        self.sba_check = true;
        self.pending = Pending::Priority;
    }
}
