//! Planeswalkers (CR 306, 606): loyalty as they enter, loyalty abilities, being attacked,
//! damage that removes loyalty, and the state-based action that puts one with no loyalty into
//! its owner's graveyard (704.5i).
//!
//! Promises:
//! - a planeswalker enters with loyalty counters equal to its printed loyalty (CR 306.5b),
//!   whether cast, put onto the battlefield by an effect or described by a `--setup` position;
//! - a loyalty ability is activated only as a sorcery and only if no loyalty ability of that
//!   permanent was activated this turn (CR 606.3); its cost is the loyalty change, paid as it
//!   is activated, and a "-N" cost needs at least N loyalty (CR 606.6);
//! - damage dealt to a planeswalker removes that many loyalty counters (CR 120.3c), from
//!   combat or not; "any target" includes planeswalkers (CR 115.4);
//! - each attacking creature attacks the defending player or a planeswalker that player
//!   controls (CR 508.1b); an unblocked creature deals its combat damage to what it attacks
//!   (CR 510.1a), nothing if that planeswalker has left the battlefield (CR 506.4c), and a
//!   trampler assigns its excess to that planeswalker (CR 702.19c);
//! - whether a loyalty ability can be activated depends only on public information (the
//!   battlefield, the turn, the stack), so the engine's stop rule still leaks nothing.

use super::*;

impl State {
    /// CR 306.5b: a planeswalker entering the battlefield gets its printed loyalty.
    pub(super) fn enters_with_loyalty(&mut self, id: Id) {
        if self.is_planeswalker(id) {
            self.objs[id.i()].loyalty = self.card(id).loyalty;
        }
    }

    /// CR 606.3, 606.6: why loyalty ability `a` of `id` cannot be activated now, if it can't.
    pub(super) fn loyalty_ok(&self, id: Id, a: &Activated) -> Result<(), String> {
        let Some(change) = a.loyalty else {
            return Ok(());
        };
        let name = &self.card(id).data.name;
        let o = self.obj(id);
        if o.loyalty_turn == self.turn && self.turn != 0 {
            return Err(format!(
                "a loyalty ability of {name} was already activated this turn (CR 606.3)"
            ));
        }
        if (o.loyalty as i32) + (change as i32) < 0 {
            return Err(format!(
                "{name} has {} loyalty: its {change} ability cannot be paid (CR 606.6)",
                o.loyalty
            ));
        }
        Ok(())
    }

    /// CR 606.4: pays a loyalty cost (adding or removing loyalty counters).
    pub(super) fn pay_loyalty(&mut self, id: Id, change: i8, ev: &mut Vec<Event>) {
        let turn = self.turn;
        let o = &mut self.objs[id.i()];
        o.loyalty += change as i16;
        o.loyalty_turn = turn;
        self.sba_check = true;
        if change != 0 {
            ev.push(Event::Loyalty {
                card: id,
                amount: change as i16,
            });
        }
    }

    /// CR 120.3c: damage to a planeswalker removes that many loyalty counters.
    pub(super) fn damage_planeswalker(&mut self, id: Id, n: i16) {
        let o = &mut self.objs[id.i()];
        o.loyalty = (o.loyalty - n).max(0);
    }

    /// CR 704.5i: a planeswalker with 0 loyalty is put into its owner's graveyard.
    pub(super) fn loyalty_sba(&mut self, ev: &mut Vec<Event>) -> bool {
        let gone: Vec<Id> = self
            .battlefield
            .iter()
            .copied()
            .filter(|&id| self.is_planeswalker(id) && self.obj(id).loyalty <= 0)
            .collect();
        for &id in &gone {
            self.put_in_graveyard(id);
            ev.push(Event::PutIntoGraveyard {
                card: id,
                reason: "zero_loyalty",
            });
        }
        !gone.is_empty()
    }

    /// The planeswalkers the defending player controls: what a creature may attack besides
    /// that player (CR 508.1b).
    pub fn attackable_planeswalkers(&self) -> Vec<Id> {
        let def = self.active.other();
        self.battlefield
            .iter()
            .copied()
            .filter(|&id| self.is_planeswalker(id) && self.obj(id).owner == def)
            .collect()
    }

    /// Checks the planeswalkers of an attack declaration (CR 508.1b).
    pub(super) fn check_attacked(&self, at: &[(Id, Option<Id>)]) -> Result<(), Illegal> {
        let ok = self.attackable_planeswalkers();
        for (a, pw) in at {
            if let Some(pw) = pw
                && !ok.contains(pw)
            {
                return illegal(format!(
                    "{a} cannot attack {pw}: not a planeswalker the defending player controls \
                     (CR 508.1b)"
                ));
            }
        }
        Ok(())
    }

    /// What attacker `id` deals its unblocked (or trampling) combat damage to now.
    pub fn attack_target(&self, id: Id) -> Option<Target> {
        let a = self.combat.attackers.iter().find(|a| a.id == id)?;
        self.attacked(a)
    }

    /// What an unblocked attacker deals its combat damage to (CR 510.1a): the player, or the
    /// planeswalker it attacks while that is still on the battlefield (CR 506.4c).
    pub(super) fn attacked(&self, a: &Attacker) -> Option<Target> {
        match a.planeswalker {
            None => Some(Target::Player(a.defender)),
            Some(pw) => (self.obj(pw).zone == Zone::Battlefield && self.is_planeswalker(pw))
                .then_some(Target::Obj(pw)),
        }
    }
}
