//! Library searches (CR 701.23): a decision its searcher makes as a spell or ability
//! resolves.
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
//!   the hand are not named in the events.

use super::*;
use crate::mtg::cards::{Found, Search};

impl State {
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
                    if search.basic { "basic land " } else { "" }
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
                    ev.push(Event::EnteredBattlefield { card: id });
                }
            }
        }
        self.recount(player);
        self.sba_check = true;
        self.pending = Pending::Priority;
    }
}
