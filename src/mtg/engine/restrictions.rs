//! Combat restrictions set by effects for the rest of the turn (CR 509.1a-b, 611.2a): "can't
//! block this turn" and "can't be blocked this turn". They are kept on the permanent
//! ([`Obj::restricted`]), read by blocking through [`State::cant_block`] and
//! [`State::unblockable`], and end in the cleanup step (CR 514.2) or as the permanent leaves
//! the battlefield (CR 400.7).

use super::*;
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
}
