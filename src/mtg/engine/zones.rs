//! Spells by type on the stack and mass effects: which spells a "target creature spell" or
//! "target noncreature spell" admits (CR 701.5), damage to each creature [without flying]
//! (CR 120.3) and returning all attacking creatures (CR 400.7, 506.4).

use super::*;

impl State {
    /// Whether the spell `id` on the stack is of the type a spell target kind asks for.
    pub(super) fn spell_kind_ok(&self, k: TargetKind, id: Id) -> bool {
        let creature = self.card(id).kind == Kind::Creature;
        match k {
            TargetKind::CreatureSpell => creature,
            TargetKind::NoncreatureSpell => !creature,
            _ => true,
        }
    }

    /// CR 120.3: `source` deals `n` damage to each creature on the battlefield that has none
    /// of the keywords in `without`, all at once (the creatures are read first).
    pub(super) fn damage_each_creature(
        &mut self,
        source: Id,
        n: u8,
        without: u16,
        ev: &mut Vec<Event>,
    ) {
        let hit: Vec<Id> = self
            .battlefield
            .iter()
            .copied()
            .filter(|&c| self.is_creature(c) && self.keywords(c) & without == 0)
            .collect();
        for c in hit {
            self.deal(source, Target::Obj(c), n as i16, ev);
        }
    }

    /// CR 506.4 / 400.7: every attacking creature returns to its owner's hand.
    pub(super) fn bounce_attackers(&mut self, ev: &mut Vec<Event>) {
        let attacking: Vec<Id> = self
            .combat
            .attackers
            .iter()
            .map(|a| a.id)
            .filter(|&c| self.obj(c).zone == Zone::Battlefield)
            .collect();
        for c in attacking {
            self.return_to_hand(c, ev);
        }
    }
}
