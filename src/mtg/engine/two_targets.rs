//! Spells with two targets (CR 601.2c): both are chosen as the spell is cast (the `cast`
//! action's `targets`, first and second in the order the text names them), each checked
//! legal, each a ward trigger's target. On resolution the spell does nothing only if both are
//! illegal (CR 608.2b); an effect on an illegal one does nothing to it, and a fight or a
//! "deals damage equal to its power" deals no damage unless both are legal (CR 701.12b).

use super::*;

impl State {
    /// Checks a cast's second target against what the spell asks for (CR 601.2c).
    pub(super) fn validate_second(
        &self,
        id: Id,
        mode: Option<u8>,
        second: Option<Target>,
    ) -> Result<(), Illegal> {
        if !self.valid_id(id) {
            return Ok(()); // validate_cast names the bad id
        }
        let c = self.card(id);
        match (c.second_target_of(mode), second) {
            (None, None) => Ok(()),
            (None, Some(_)) => illegal(format!("{} takes at most one target", c.data.name)),
            (Some(_), None) => illegal(format!(
                "{} needs two targets (\"targets\": [first, second])",
                c.data.name
            )),
            (Some(k), Some(t)) if self.target_ok(self.priority, k, t) => Ok(()),
            (Some(_), Some(t)) => illegal(format!(
                "{t} is not a legal second target for {}",
                c.data.name
            )),
        }
    }

    /// Every cast of `id` in `mode` with two legal targets.
    pub(super) fn two_target_casts(&self, seat: Seat, id: Id, mode: Option<u8>, v: &mut Vec<Move>) {
        let c = self.card(id);
        let (Some(k1), Some(k2)) = (c.target_of(mode), c.second_target_of(mode)) else {
            return;
        };
        let seconds = self.targets(seat, k2);
        for t in self.targets(seat, k1) {
            for &u in &seconds {
                v.push(Move::CastTwo {
                    card: id,
                    targets: [t, u],
                    tap: None,
                    mode,
                });
            }
        }
    }

    fn still_legal(&self, by: Seat, k: Option<TargetKind>, t: Option<Target>, moves: u16) -> bool {
        match (k, t) {
            (Some(k), Some(t)) => {
                self.target_ok(by, k, t)
                    && !matches!(t, Target::Obj(o) if self.obj(o).moves != moves)
            }
            _ => false,
        }
    }

    /// Whether the spell `item` has no second target or an illegal one (CR 608.2b).
    pub(super) fn second_illegal(&self, item: &StackItem) -> bool {
        let k = self.card(item.card).second_target_of(item.mode);
        k.is_none() || !self.still_legal(item.controller, k, item.second, item.second_moves)
    }

    /// The spell's targets that are still legal as it resolves (a one-target spell's target
    /// as it is: its legality was checked by the caller).
    pub(super) fn legal_targets(&self, item: &StackItem) -> (Option<Target>, Option<Target>) {
        let c = self.card(item.card);
        let Some(k2) = c.second_target_of(item.mode) else {
            return (item.target, None);
        };
        let k1 = c.target_of(item.mode);
        let first = item
            .target
            .filter(|_| self.still_legal(item.controller, k1, item.target, item.target_moves));
        let second = item.second.filter(|_| {
            self.still_legal(item.controller, Some(k2), item.second, item.second_moves)
        });
        (first, second)
    }

    /// Performs an effect with two targets, each None if it is illegal now.
    pub(super) fn perform_two(
        &mut self,
        effect: Effect,
        first: Option<Target>,
        second: Option<Target>,
        ev: &mut Vec<Event>,
    ) {
        match effect {
            Effect::Fight(_, _, mutual) => {
                let (Some(Target::Obj(a)), Some(b)) = (first, second) else {
                    return;
                };
                // Both amounts are each one's power before either deals damage (CR 701.12a).
                let pa = self.power(a);
                let pb = match b {
                    Target::Obj(o) if mutual => self.power(o),
                    _ => 0,
                };
                self.deal(a, b, pa, ev);
                if let (true, Target::Obj(o)) = (mutual, b) {
                    self.deal(o, Target::Obj(a), pb, ev);
                }
            }
            Effect::BounceBoth(..) => {
                for t in [first, second] {
                    if let Some(Target::Obj(c)) = t {
                        self.return_to_hand(c, ev);
                    }
                }
            }
            _ => {}
        }
    }
}
