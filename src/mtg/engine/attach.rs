//! Auras, Equipment and legendary permanents: attaching (CR 301.5, 303.4, 702.6) and the
//! state-based actions about them (CR 704.5j legend rule, 704.5m, 704.5n).
//!
//! Promises:
//! - an Aura spell targets the creature it will enchant (CR 303.4a); if that target is
//!   illegal as it resolves, the spell does not resolve and goes to the graveyard (CR 608.3b);
//!   otherwise it enters attached to it (CR 303.4f);
//! - an Equipment attaches with its equip ability, only as a sorcery, to a creature its
//!   controller controls (CR 702.6a); equipping moves it off any creature it was on;
//! - when the permanent an Aura or Equipment is attached to leaves the battlefield, the
//!   attachment is gone at once (the object is new elsewhere, CR 400.7); a state-based action
//!   then puts an unattached Aura into its owner's graveyard (704.5m), and an Equipment stays
//!   on the battlefield unattached (704.5n);
//! - the legend rule (704.5j): a player who controls two or more legendary permanents with
//!   the same name chooses one of them (a `legend_rule` decision of that player, asked once
//!   the other state-based actions are done) and puts the rest into their owners'
//!   graveyards;
//! - control never changes in this engine, so "controls" is "owns".

use super::*;

impl State {
    /// The permanent `source` is attached to, if it is on the battlefield and attached.
    pub(super) fn attached_to(&self, source: Id) -> Option<Id> {
        (self.obj(source).zone == Zone::Battlefield)
            .then(|| self.obj(source).attached)
            .flatten()
    }

    /// Attaches `source` (an Aura or Equipment on the battlefield) to `to` (CR 701.3a).
    pub(super) fn attach(&mut self, source: Id, to: Id, ev: &mut Vec<Event>) {
        if self.obj(source).zone != Zone::Battlefield
            || self.obj(to).zone != Zone::Battlefield
            || source == to
        {
            return;
        }
        self.objs[source.i()].attached = Some(to);
        self.sba_check = true;
        ev.push(Event::Attached { card: source, to });
    }

    /// Clears every attachment to or from `c`, which is leaving the battlefield.
    pub(super) fn detach_from(&mut self, c: Id) {
        self.objs[c.i()].attached = None;
        for i in 0..self.battlefield.len() {
            let b = self.battlefield[i];
            if self.objs[b.i()].attached == Some(c) {
                self.objs[b.i()].attached = None;
                self.sba_check = true;
            }
        }
    }

    /// CR 608.3b: whether an Aura spell's target is illegal now, so it does not resolve.
    pub(super) fn aura_target_lost(&self, item: &StackItem) -> bool {
        if !self.card(item.card).aura {
            return false;
        }
        match item.target {
            Some(Target::Obj(t)) => {
                !self.target_ok(item.controller, TargetKind::Creature, Target::Obj(t))
                    || self.obj(t).moves != item.target_moves
            }
            _ => true,
        }
    }

    /// CR 704.5j: the first player with two or more legendary permanents of one name, and
    /// those permanents in the order they entered.
    pub fn legend_group(&self) -> Option<(Seat, Vec<Id>)> {
        for (i, &id) in self.battlefield.iter().enumerate() {
            let c = self.card(id);
            if !c.legendary {
                continue;
            }
            let owner = self.obj(id).owner;
            let same: Vec<Id> = self.battlefield[i..]
                .iter()
                .copied()
                .filter(|&o| {
                    self.obj(o).owner == owner
                        && self.card(o).legendary
                        && self.card(o).data.name == c.data.name
                })
                .collect();
            if same.len() > 1 {
                return Some((owner, same));
            }
        }
        None
    }

    /// CR 704.5j: asks the player with same-named legends which to keep; returns whether it
    /// asked.
    pub(super) fn ask_legend_rule(&mut self) -> bool {
        match self.legend_group() {
            Some((player, group)) => {
                self.pending = Pending::LegendRule {
                    player,
                    card: group[0],
                };
                true
            }
            None => false,
        }
    }

    /// Checks a `legend_rule` answer: `keep` is one of the same-named legends.
    pub(super) fn validate_keep_legend(&self, keep: Id) -> Result<(), Illegal> {
        match self.legend_group() {
            Some((_, group)) if group.contains(&keep) => Ok(()),
            Some((_, group)) => illegal(format!(
                "{keep} is not one of the same-named legendary permanents ({})",
                group
                    .iter()
                    .map(Id::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => illegal("no legend rule choice is pending"),
        }
    }

    /// CR 704.5j: keeps `keep` and puts the other same-named legends into their owners'
    /// graveyards.
    pub(super) fn keep_legend(&mut self, keep: Id, ev: &mut Vec<Event>) {
        let Some((_, group)) = self.legend_group() else {
            return;
        };
        for id in group.into_iter().filter(|&g| g != keep) {
            let creature = self.is_creature(id);
            self.put_in_graveyard(id);
            let reason = "legend_rule";
            if creature {
                ev.push(Event::Died { card: id, reason });
            } else {
                ev.push(Event::PutIntoGraveyard { card: id, reason });
            }
        }
        self.pending = Pending::Priority;
        self.sba_check = true;
    }

    /// CR 704.5m, 704.5n: returns whether any was performed.
    pub(super) fn attachment_and_legend_sba(&mut self, ev: &mut Vec<Event>) -> bool {
        let mut gone = Vec::new();
        let mut unattach = Vec::new();
        for &id in &self.battlefield {
            let c = self.card(id);
            let on = self.obj(id).attached;
            let legal = on.is_some_and(|t| {
                self.obj(t).zone == Zone::Battlefield
                    && self.is_creature(t)
                    && (c.aura || self.obj(t).owner == self.obj(id).owner)
            });
            if c.aura && !legal {
                gone.push((id, "aura_unattached")); // 704.5m
            } else if c.equipment && on.is_some() && !legal {
                unattach.push(id); // 704.5n
            }
        }
        for &id in &unattach {
            self.objs[id.i()].attached = None;
        }
        gone.dedup_by_key(|g| g.0);
        for &(id, reason) in &gone {
            let creature = self.is_creature(id);
            self.put_in_graveyard(id);
            if creature {
                ev.push(Event::Died { card: id, reason });
            } else {
                ev.push(Event::PutIntoGraveyard { card: id, reason });
            }
        }
        !gone.is_empty() || !unattach.is_empty()
    }
}
