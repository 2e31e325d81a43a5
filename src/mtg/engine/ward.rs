//! Ward (CR 702.21): "Whenever this permanent becomes the target of a spell or ability an
//! opponent controls, counter that spell or ability unless that player pays {N}."
//!
//! Promises:
//! - the ward ability triggers as a spell is cast or an ability is activated with the ward
//!   permanent as its target, and as a triggered ability's target is chosen (CR 603.3d), only
//!   when the targeting player is not the ward permanent's controller; the trigger goes on the
//!   stack above what targeted it, before any player receives priority (CR 603.3);
//! - as it resolves, a player who can pay the cost (enough untapped mana sources, public
//!   information) answers a `ward` decision: pay (mana sources tapped as for a cast) or let it
//!   be countered; one who cannot pay has it countered at once;
//! - a countered spell goes to its owner's graveyard, a countered ability leaves the stack
//!   (CR 701.5a); if what targeted the permanent already left the stack, the trigger does
//!   nothing.

use super::*;

impl State {
    /// CR 702.21a: `by` made `target` the target of the stack item at `index`; a ward
    /// permanent an opponent of `by` controls triggers.
    pub(super) fn ward_check(
        &mut self,
        by: Seat,
        target: Option<Target>,
        index: usize,
        ev: &mut Vec<Event>,
    ) {
        let Some(Target::Obj(t)) = target else {
            return;
        };
        let cost = self.card(t).ward;
        if cost == 0 || self.obj(t).zone != Zone::Battlefield || self.obj(t).owner == by {
            return;
        }
        let Some(it) = self.stack.get(index) else {
            return;
        };
        let warded = Warded {
            card: it.card,
            ability: it.ability,
            activated: it.activated,
            cost,
            player: by,
        };
        let source = it.card;
        self.stack.push(StackItem {
            card: t,
            controller: self.obj(t).owner,
            target: None,
            target_moves: 0,
            // An ability, not a card: never counted as a card on the stack.
            ability: Some(0),
            activated: false,
            mode: None,
            flashback: false,
            ward: Some(warded),
            untargeted: false,
            second: None,
            second_moves: 0,
        });
        self.passes = 0;
        ev.push(Event::WardTriggered { card: t, source });
    }

    /// Where the warded spell or ability is on the stack now, if it still is.
    fn warded_index(&self, w: &Warded) -> Option<usize> {
        self.stack.iter().rposition(|it| {
            it.card == w.card
                && it.ability == w.ability
                && it.activated == w.activated
                && it.ward.is_none()
        })
    }

    /// The ward cost as a mana cost.
    fn ward_cost(w: &Warded) -> ManaCost {
        ManaCost {
            generic: w.cost,
            colored: [0; 5],
        }
    }

    /// CR 702.21a: the ward trigger resolves: ask for the payment, or counter at once.
    pub(super) fn resolve_ward(&mut self, w: Warded, ev: &mut Vec<Event>) {
        if self.warded_index(&w).is_none() {
            return;
        }
        if self
            .auto_pay(w.player, &Self::ward_cost(&w), None)
            .is_some()
        {
            self.pending = Pending::WardPayment {
                player: w.player,
                warded: w,
            };
        } else {
            self.counter_warded(&w, ev);
        }
    }

    /// Checks a `ward` answer; returns the mana sources to tap (empty when declining).
    pub(super) fn validate_ward(
        &self,
        w: &Warded,
        pay: bool,
        tap: Option<&[Id]>,
    ) -> Result<Vec<Id>, Illegal> {
        if !pay {
            if tap.is_some() {
                return illegal("ward: tap is only for paying");
            }
            return Ok(Vec::new());
        }
        let cost = Self::ward_cost(w);
        match tap {
            None => self.auto_pay(w.player, &cost, None).ok_or_else(|| {
                Illegal(format!(
                    "not enough untapped mana sources to pay ward {{{}}}",
                    w.cost
                ))
            }),
            Some(list) => self.check_payment(w.player, &cost, "ward", list),
        }
    }

    /// Applies a checked `ward` answer.
    pub(super) fn answer_ward(&mut self, w: Warded, pay: bool, taps: &[Id], ev: &mut Vec<Event>) {
        if pay {
            self.tap_for_mana(w.player, taps, ev);
            ev.push(Event::WardPaid {
                player: w.player,
                source: w.card,
            });
        } else {
            self.counter_warded(&w, ev);
        }
        // The resolution is over: the active player receives priority (CR 117.3b).
        self.pending = Pending::Priority;
        self.priority = self.active;
        self.passes = 0;
    }

    /// CR 701.5a: counters the warded spell (to its owner's graveyard, or exile when cast with
    /// flashback) or ability.
    fn counter_warded(&mut self, w: &Warded, ev: &mut Vec<Event>) {
        let Some(i) = self.warded_index(w) else {
            return;
        };
        // CR 101.2: a spell that can't be countered is not.
        if w.ability.is_none() && self.card(w.card).uncounterable {
            return;
        }
        let it = self.stack.remove(i);
        if it.ability.is_none() {
            self.spell_to_graveyard(it.card, &it, ev);
        }
        ev.push(Event::Countered { card: it.card });
    }
}
