//! Kicker (CR 702.33): casting a spell with its kicker paid.
//!
//! Promises:
//! - a kicked cast is the `cast` action with `"kicked": true` ([`Move::CastKicked`]); it is
//!   legal exactly when the same cast without kicker is and the kicker cost can be paid too
//!   (the kicker is added to the total cost before reductions, CR 601.2f);
//! - the spell, and the permanent it becomes, are "kicked" ([`State::kicked`]), and so is that
//!   permanent as it last existed after it left the battlefield (an "if it was kicked" trigger
//!   still resolves, CR 608.2h); a later object of the card is not (CR 400.7): one cast again,
//!   or one put onto the battlefield another way;
//! - a kicked instant or sorcery does its kicked text instead of its normal one; a kicked
//!   permanent's "if it was kicked" abilities (enters with counters, enters triggers) apply.

use super::*;

impl State {
    /// Whether `id` was cast kicked: the spell, the permanent it became, or that permanent as
    /// it last existed after leaving the battlefield (its `moves` one higher, CR 608.2h); not a
    /// card that came back to the battlefield another way (a new object, CR 400.7).
    pub(super) fn is_kicked(&self, id: Id) -> bool {
        let o = self.obj(id);
        self.kicked.iter().any(|&(k, m)| {
            k == id
                && (m == o.moves || (m.wrapping_add(1) == o.moves && o.zone != Zone::Battlefield))
        })
    }

    /// Checks a kicked cast and returns the lands to tap.
    pub(super) fn validate_kicked(
        &self,
        id: Id,
        target: Option<Target>,
        tap: Option<&[Id]>,
        mode: Option<u8>,
    ) -> Result<Vec<Id>, Illegal> {
        if self.valid_id(id) && self.card(id).kicker.is_none() {
            return illegal(format!("{} has no kicker", self.card(id).data.name));
        }
        self.validate_cast_paying(id, target, tap, mode, true)
    }

    /// Adds the kicked form of every cast move in `v` whose card has a kicker and whose kicked
    /// cost `seat` could pay.
    pub(super) fn kicked_moves(&self, seat: Seat, avail: &mana::Avail, v: &mut Vec<Move>) {
        let kicked: Vec<Move> = v
            .iter()
            .filter_map(|m| match m {
                Move::Cast {
                    card,
                    target,
                    tap: None,
                    mode,
                } if self.card(*card).kicker.is_some()
                    && mana::affordable_cost(
                        &self.cast_cost_paying(seat, *card, *target, true),
                        avail,
                    ) =>
                {
                    Some(Move::CastKicked {
                        card: *card,
                        target: *target,
                        tap: None,
                        mode: *mode,
                    })
                }
                _ => None,
            })
            .collect();
        v.extend(kicked);
    }
}
