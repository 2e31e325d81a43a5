//! Combat restrictions set by effects for the rest of the turn (CR 509.1a-b, 611.2a): "can't
//! block this turn" and "can't be blocked this turn". They are kept on the permanent
//! ([`Obj::restricted`]), read by blocking through [`State::cant_block`] and
//! [`State::unblockable`], and end in the cleanup step (CR 514.2) or as the permanent leaves
//! the battlefield (CR 400.7).
//!
//! Also the static requirements and restrictions of this kind: "attacks each combat if able"
//! (CR 508.1d: an attack declaration must include every creature with it that is able to
//! attack; no cost to attack exists here, so "able" is the same as "could be declared") and
//! "can't be blocked by <creature type>s" (CR 509.1b), and the counts static P/T changes are
//! multiplied by (CR 611.3a: counted whenever they apply).

use super::*;
use crate::mtg::compile::StaticCount;
use crate::mtg::lower::Restriction;

impl State {
    /// Puts restriction `r` on permanent `c` until the end of the turn.
    pub(super) fn restrict(&mut self, c: Id, r: Restriction, ev: &mut Vec<Event>) {
        let (bit, name) = Obj::RESTRICTIONS[match r {
            Restriction::CantBlock => 0,
            Restriction::CantBeBlocked => 1,
        }];
        self.objs[c.i()].restricted |= bit;
        ev.push(Event::Restricted {
            card: c,
            restriction: name,
        });
    }

    /// The creatures that must be among the attackers now (CR 508.1d).
    pub fn required_attackers(&self) -> Vec<Id> {
        self.attack_candidates()
            .into_iter()
            .filter(|&c| self.must_attack(c))
            .collect()
    }

    /// Refuses an attack declaration that leaves out a creature that attacks each combat if
    /// able (CR 508.1d).
    pub(super) fn check_requirements(&self, ids: &[Id]) -> Result<(), Illegal> {
        match self
            .required_attackers()
            .into_iter()
            .find(|c| !ids.contains(c))
        {
            Some(c) => illegal(format!(
                "{c} attacks each combat if able: it must be declared as an attacker (CR 508.1d)"
            )),
            None => Ok(()),
        }
    }

    /// Whether a static of the battlefield says `attacker` can't be blocked by creatures of
    /// a type `blocker` has (CR 509.1b).
    pub(crate) fn unblockable_by(&self, attacker: Id, blocker: Id) -> bool {
        self.static_sources().iter().any(|&src| {
            let you = self.obj(src).owner;
            self.card(src).statics.iter().any(|st| {
                st.unblockable_by
                    .is_some_and(|t| self.card(blocker).subtypes.iter().any(|s| s == t))
                    && self.static_applies(st, src, you, attacker)
            })
        })
    }
}

impl State {
    /// The number a counted static multiplies its change by, for controller `you`.
    pub(crate) fn static_count(&self, c: StaticCount, you: Seat) -> i16 {
        match c {
            StaticCount::LandsYouControl(t) => self
                .battlefield
                .iter()
                .filter(|&&id| {
                    self.obj(id).owner == you
                        && matches!(self.card(id).kind, Kind::Land(_))
                        && self.card(id).subtypes.iter().any(|s| s == t)
                })
                .count() as i16,
        }
    }
}
