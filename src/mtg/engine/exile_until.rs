//! "Exile … until ~ leaves the battlefield" (CR 610.3): the exiled card is linked to the
//! permanent that exiled it ([`Obj::exiled_until`], with that permanent's leave count so a
//! later object of the same card is not the same permanent, CR 400.7).
//!
//! - CR 610.3c: if the source has already left the battlefield as the effect happens, nothing
//!   is exiled.
//! - CR 610.3a: when the source leaves, the card returns to the battlefield under its owner's
//!   control, a new object that enters like any other (its enters triggers, "enters tapped",
//!   counters it enters with). The engine returns it at the next state-based-action check,
//!   which comes before any player gets priority, so no player can act in between.
//! - A token exiled this way ceases to exist (CR 704.5d) and never returns.
//! - An Aura returned this way (CR 303.4f lets its owner choose what it enchants) enters
//!   attached to nothing and is put into its owner's graveyard by the state-based action for
//!   unattached Auras: the engine has no such choice yet.

use super::*;

impl State {
    /// Exiles permanent `c` until `source` leaves the battlefield (if `source` is still there).
    pub(super) fn exile_until_leaves(&mut self, source: Id, c: Id, ev: &mut Vec<Event>) {
        if self.obj(source).zone != Zone::Battlefield || self.obj(c).zone != Zone::Battlefield {
            return;
        }
        self.leave_battlefield(c);
        let owner = self.obj(c).owner;
        self.recount(owner);
        if self.card(c).token {
            self.objs[c.i()].zone = Zone::Gone; // CR 704.5d
            ev.push(Event::Exiled {
                card: c,
                from: Zone::Battlefield,
            });
            return;
        }
        self.put_in_exile(c, Zone::Battlefield, ev);
        self.objs[c.i()].exiled_until = Some((source, self.obj(source).moves));
        self.sba_check = true;
    }

    /// Called as `c` leaves the battlefield: asks for a state-based-action check if a card
    /// waits in exile for it.
    pub(super) fn note_exiler_left(&mut self, c: Id) {
        if self
            .objs
            .iter()
            .any(|o| o.exiled_until.is_some_and(|(e, _)| e == c))
        {
            self.sba_check = true;
        }
    }

    /// Returns every exiled card whose exiler is gone (CR 610.3a); true if one returned.
    pub(super) fn return_exiled(&mut self, ev: &mut Vec<Event>) -> bool {
        let back: Vec<Id> = (0..self.objs.len())
            .map(|i| Id(i as u16))
            .filter(|&id| {
                self.obj(id).exiled_until.is_some_and(|(e, moves)| {
                    self.obj(e).zone != Zone::Battlefield || self.obj(e).moves != moves
                })
            })
            .collect();
        for &id in &back {
            let owner = self.obj(id).owner;
            self.objs[id.i()].exiled_until = None;
            let exile = &mut self.players[owner.i()].exile;
            let Some(i) = exile.iter().position(|&c| c == id) else {
                continue;
            };
            exile.remove(i);
            let tapped = self.card(id).enters_tapped;
            let o = &mut self.objs[id.i()];
            o.zone = Zone::Battlefield;
            o.sick = true;
            o.tapped = tapped;
            self.battlefield.push(id);
            self.recount(owner);
            ev.push(Event::ReturnedFromExile { card: id });
            let counters = self.enters_with_counters(id, owner);
            ev.push(Event::EnteredBattlefield { card: id });
            if counters != 0 {
                ev.push(Event::Counters {
                    card: id,
                    amount: counters,
                });
            }
        }
        if !back.is_empty() {
            self.sba_check = true;
        }
        !back.is_empty()
    }
}
