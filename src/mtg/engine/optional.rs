//! "You may" as a spell or ability resolves (CR 603.5, 608.2d): the controller's `may`
//! decision, which accepts (paying the cost) or declines the effects after it.
//!
//! Promises:
//! - resolution performs the effects before the [`Effect::May`] marker, then stops on the
//!   controller's `may` decision; the effects after the marker happen only if they accept,
//!   with the same source and target, after the cost is paid (CR 608.2d);
//! - the decision is asked only when accepting is possible, on public information (untapped
//!   mana sources for a mana payment, another creature to sacrifice, a card in hand to
//!   discard); otherwise the optional part is skipped at once;
//! - accepting a sacrifice names one creature its controller controls other than the source;
//!   a discard names one card of the hand (options shown only to that seat); a mana payment
//!   taps the sources named (or chosen automatically), exactly as for a cast;
//! - the answer is a move like any other, so the journal replays it; afterwards the active
//!   player receives priority (CR 117.3b), unless an effect after the marker asks a decision
//!   of its own.

use super::*;
use crate::mtg::cards::MayCost;
use crate::mtg::lower::mode_effects;

impl State {
    /// Stops a resolution on its "you may" (or skips the optional part when it cannot be
    /// accepted).
    pub(super) fn begin_may(&mut self, player: Seat, optional: Optional) {
        let possible = match optional.cost {
            MayCost::Nothing => true,
            MayCost::Pay { .. } => self
                .auto_pay(player, &may_mana(optional.cost), None)
                .is_some(),
            MayCost::SacrificeAnotherCreature | MayCost::DiscardCard => {
                !self.may_cards(player, &optional).is_empty()
            }
        };
        if possible {
            self.pending = Pending::May { player, optional };
        }
    }

    /// The cards accepting may name: the creatures to sacrifice or the hand's cards to
    /// discard (none for the other costs).
    pub fn may_cards(&self, player: Seat, optional: &Optional) -> Vec<Id> {
        match optional.cost {
            MayCost::SacrificeAnotherCreature => self
                .battlefield
                .iter()
                .copied()
                .filter(|&c| {
                    c != optional.source && self.obj(c).owner == player && self.is_creature(c)
                })
                .collect(),
            MayCost::DiscardCard => self.players[player.i()].hand.clone(),
            MayCost::Nothing | MayCost::Pay { .. } => Vec::new(),
        }
    }

    /// Checks a `may` answer; returns the mana sources to tap.
    pub(super) fn check_may(
        &self,
        player: Seat,
        optional: &Optional,
        accept: bool,
        card: Option<Id>,
        tap: Option<&[Id]>,
    ) -> Result<Vec<Id>, Illegal> {
        if !accept {
            if card.is_some() || tap.is_some() {
                return illegal("may: card and tap are only for accepting");
            }
            return Ok(Vec::new());
        }
        let wants_card = matches!(
            optional.cost,
            MayCost::SacrificeAnotherCreature | MayCost::DiscardCard
        );
        match (card, wants_card) {
            (None, true) => {
                return illegal(format!(
                    "may: accepting needs a card: {}",
                    self.may_what(optional.cost)
                ));
            }
            (Some(c), false) => return illegal(format!("may: {c}: this choice names no card")),
            (Some(c), true) if !self.may_cards(player, optional).contains(&c) => {
                return illegal(format!("may: {c} is not {}", self.may_what(optional.cost)));
            }
            _ => {}
        }
        match (optional.cost, tap) {
            (MayCost::Pay { .. }, None) => self
                .auto_pay(player, &may_mana(optional.cost), None)
                .ok_or_else(|| Illegal("may: not enough untapped mana sources to pay".into())),
            (MayCost::Pay { .. }, Some(list)) => {
                self.check_payment(player, &may_mana(optional.cost), "may", list)
            }
            (_, Some(_)) => illegal("may: tap is only for paying mana"),
            (_, None) => Ok(Vec::new()),
        }
    }

    fn may_what(&self, cost: MayCost) -> &'static str {
        match cost {
            MayCost::SacrificeAnotherCreature => "another creature you control",
            MayCost::DiscardCard => "a card in your hand",
            MayCost::Nothing | MayCost::Pay { .. } => "nothing",
        }
    }

    /// Applies a checked `may` answer: pays, performs the rest of the effects, and gives
    /// priority back.
    pub(super) fn answer_may(
        &mut self,
        player: Seat,
        o: Optional,
        accept: bool,
        card: Option<Id>,
        taps: &[Id],
        ev: &mut Vec<Event>,
    ) {
        self.pending = Pending::Priority;
        self.priority = self.active;
        self.passes = 0;
        self.sba_check = true;
        ev.push(Event::May {
            player,
            source: o.source,
            accept,
        });
        if !accept {
            return;
        }
        match (o.cost, card) {
            (MayCost::Pay { .. }, _) => self.tap_for_mana(player, taps, ev),
            (MayCost::SacrificeAnotherCreature, Some(c)) => {
                // CR 701.17a: the creature goes to its owner's graveyard.
                self.put_in_graveyard(c);
                ev.push(Event::Sacrificed { card: c });
            }
            (MayCost::DiscardCard, Some(c)) => self.discard_cards(player, &[c], ev),
            _ => {}
        }
        for e in self.may_rest(&o) {
            self.perform(o.source, player, e, o.target, ev);
        }
    }

    /// The effects after the "you may" marker of the list `o` names.
    fn may_rest(&self, o: &Optional) -> Vec<Effect> {
        let card = self.card(o.source);
        let list: &[Effect] = match o.ability {
            None if o.kicked => &card.kicked_effects,
            None => &card.effects,
            Some(a) if o.activated => &card.activated[a as usize].effects,
            Some(a) => &card.triggers[a as usize].1,
        };
        mode_effects(list, o.mode)
            .skip_while(|e| !matches!(e, Effect::May(_)))
            .skip(1)
            .copied()
            .collect()
    }
}

/// The mana a "you may pay" asks.
fn may_mana(cost: MayCost) -> ManaCost {
    match cost {
        MayCost::Pay { generic, colored } => ManaCost { generic, colored },
        _ => ManaCost::default(),
    }
}
