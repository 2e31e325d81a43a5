//! "~ deals damage equal to its power" (CR 120, 208.3) and last known information (CR 608.2h).
//!
//! Promises:
//! - a source on the battlefield deals damage equal to its power as the effect happens;
//! - a source sacrificed to pay for the ability deals damage equal to its power as it last
//!   existed on the battlefield (counters and "until end of turn" changes included), kept in
//!   [`State::last_power`] from the moment the cost is paid until the ability resolves;
//! - a power of 0 or less deals no damage (CR 120.8).

use super::*;

impl State {
    /// Remembers the power of `id` as it is sacrificed for `ability`, when that ability deals
    /// damage equal to it.
    pub(super) fn remember_power(&mut self, id: Id, ability: u8) {
        let uses = self.card(id).activated[ability as usize]
            .effects
            .iter()
            .any(|e| matches!(e, Effect::DamageEqualToPower(_)));
        if uses {
            let p = self.power(id);
            self.last_power.retain(|(c, _)| *c != id);
            self.last_power.push((id, p));
        }
    }

    /// The power of `source` now, or as it last existed on the battlefield (and forgets it).
    pub(super) fn source_power(&mut self, source: Id) -> i16 {
        if let Some(i) = self.last_power.iter().position(|(c, _)| *c == source) {
            return self.last_power.remove(i).1;
        }
        if self.obj(source).zone == Zone::Battlefield {
            self.power(source)
        } else {
            0
        }
    }
}
