//! Activated abilities whose cost sacrifices a creature the activator chooses (CR 602.2b,
//! 701.17): "Sacrifice a creature" and "Sacrifice another creature".
//!
//! Promises:
//! - such an activation is [`Move::ActivateWith`] (the `activate` action with `"sacrifice"`);
//!   without it the activation is refused, and so is a creature the activator does not
//!   control, a noncreature, or the source itself for "another";
//! - the ability can be activated only while such a creature exists; `actions` and the random
//!   agent offer one activation per creature that could be sacrificed;
//! - the creature is sacrificed as the other costs are paid: it goes to its owner's graveyard
//!   (it dies, and its "dies" triggers trigger) before the ability resolves.

use super::*;

impl State {
    /// The creatures `seat` could sacrifice for ability `a` of `source`.
    pub(super) fn sacrifice_choices(&self, seat: Seat, source: Id, a: &Activated) -> Vec<Id> {
        let Some(another) = a.sacrifice_creature else {
            return Vec::new();
        };
        self.battlefield
            .iter()
            .copied()
            .filter(|&b| {
                self.obj(b).owner == seat && self.is_creature(b) && !(another && b == source)
            })
            .collect()
    }

    /// Checks the creature named to pay ability `ability` of `id`'s sacrifice cost.
    pub(super) fn check_activation_sacrifice(
        &self,
        id: Id,
        ability: u8,
        sacrifice: Option<Id>,
    ) -> Result<(), Illegal> {
        let c = self.card(id);
        let Some(a) = c.activated.get(ability as usize) else {
            return Ok(()); // validate_activate names this.
        };
        let name = &c.data.name;
        match (a.sacrifice_creature, sacrifice) {
            (None, None) => Ok(()),
            (None, Some(_)) => illegal(format!(
                "{name}'s ability has no cost to sacrifice a creature"
            )),
            (Some(_), None) => illegal(format!(
                "{name}'s ability needs `sacrifice`: a creature you control to sacrifice as \
                 its cost (CR 602.2b)"
            )),
            (Some(_), Some(s)) => {
                if self.valid_id(s) && self.sacrifice_choices(self.priority, id, a).contains(&s) {
                    Ok(())
                } else {
                    illegal(format!(
                        "{s} cannot be sacrificed for {name}'s ability (a creature you control{})",
                        if a.sacrifice_creature == Some(true) {
                            " other than it"
                        } else {
                            ""
                        }
                    ))
                }
            }
        }
    }

    /// Activates ability `ability` of `id`, sacrificing `sacrifice` with its other costs.
    pub(super) fn activate_with(
        &mut self,
        id: Id,
        ability: u8,
        target: Option<Target>,
        tap: Option<&[Id]>,
        sacrifice: Id,
        ev: &mut Vec<Event>,
    ) -> Result<(), Illegal> {
        self.check_activation_sacrifice(id, ability, Some(sacrifice))?;
        let taps = self.validate_activate_checked(id, ability, target, tap)?;
        self.decisions += 1;
        self.activate(id, ability, target, &taps, ev);
        // CR 701.17a: the creature goes to its owner's graveyard as the cost is paid.
        self.put_in_graveyard(sacrifice);
        self.sba_check = true;
        ev.push(Event::Sacrificed { card: sacrifice });
        self.ward_check(self.priority, target, self.stack.len() - 1, ev);
        Ok(())
    }

    /// Replaces the activations in `v` of abilities with a sacrifice-a-creature cost by one
    /// per creature that could be sacrificed.
    pub(super) fn sacrifice_moves(&self, seat: Seat, v: &mut Vec<Move>) {
        let mut more = Vec::new();
        v.retain(|m| {
            let Move::Activate {
                card,
                ability,
                target,
                tap: None,
            } = *m
            else {
                return true;
            };
            let a = &self.card(card).activated[ability as usize];
            if a.sacrifice_creature.is_none() {
                return true;
            }
            for s in self.sacrifice_choices(seat, card, a) {
                more.push(Move::ActivateWith {
                    card,
                    ability,
                    target,
                    tap: None,
                    sacrifice: s,
                });
            }
            false
        });
        v.extend(more);
    }
}
