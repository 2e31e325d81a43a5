//! A discard the caster chooses from the opponent's revealed hand (CR 701.20a, 701.9b).
//! The template: "Target opponent reveals their hand. You choose a nonland card from it. That
//! player discards that card."
//!
//! Promises:
//! - it is the last effect of its spell (lowering refuses any other order), so resolution
//!   ends with the controller's `choose_discard` decision, answered with the `discard` action
//!   naming one card of the opponent's hand;
//! - the options are the revealed hand's cards the effect admits (nonland ones), named, and
//!   shown only to the deciding seat (`--as`), like every decision over a hand;
//! - with no such card in that hand the effect does nothing and no decision is asked.

use super::*;

impl State {
    /// The cards of `from`'s hand the chooser may pick.
    pub fn choose_discard_options(&self, from: Seat, nonland: bool) -> Vec<Id> {
        self.players[from.i()]
            .hand
            .iter()
            .copied()
            .filter(|&c| !nonland || !matches!(self.card(c).kind, Kind::Land(_)))
            .collect()
    }

    /// Starts the choice of `by` over the opponent's revealed hand, if it has a card to pick.
    pub(super) fn begin_choose_discard(&mut self, by: Seat, nonland: bool) {
        let from = by.other();
        if !self.choose_discard_options(from, nonland).is_empty() {
            self.pending = Pending::ChooseDiscard {
                player: by,
                from,
                nonland,
            };
        }
    }

    /// Checks the chosen card: exactly one of the options.
    pub(super) fn check_choose_discard(
        &self,
        _player: Seat,
        from: Seat,
        nonland: bool,
        cards: &[Id],
    ) -> Result<(), Illegal> {
        let options = self.choose_discard_options(from, nonland);
        match cards {
            [c] if options.contains(c) => Ok(()),
            [c] => illegal(format!(
                "{c} is not a {}card in {}'s hand",
                if nonland { "nonland " } else { "" },
                from.name()
            )),
            _ => illegal("choose exactly one card of the revealed hand"),
        }
    }
}
