//! Keyword abilities beyond the core combat ones (CR 702): menace's blocking restriction
//! (702.111b) and indestructible's protection from destruction (702.12b). Flash (702.8a) is a
//! timing rule in `casting`, hexproof (702.11b) a targeting rule there.

use super::*;

impl State {
    /// CR 702.111b: a creature with menace can't be blocked except by two or more creatures.
    pub(crate) fn menace_ok(&self, pairs: &[(Id, Id)]) -> Result<(), String> {
        for a in &self.combat.attackers {
            let n = pairs.iter().filter(|(_, at)| *at == a.id).count();
            if n == 1 && self.has(a.id, kw::MENACE) {
                return Err(format!(
                    "{} has menace: it can't be blocked except by two or more creatures (CR 702.111b)",
                    a.id
                ));
            }
        }
        Ok(())
    }

    /// The blocks of `pairs` without lone blockers of menace attackers: what an agent that
    /// chose blockers one by one may declare.
    pub fn without_lone_menace_blocks(&self, pairs: Vec<(Id, Id)>) -> Vec<(Id, Id)> {
        let lone = |at: Id| {
            self.has(at, kw::MENACE) && pairs.iter().filter(|(_, a)| *a == at).count() == 1
        };
        let drop: Vec<Id> = pairs.iter().map(|p| p.1).filter(|&a| lone(a)).collect();
        pairs
            .into_iter()
            .filter(|(_, a)| !drop.contains(a))
            .collect()
    }

    /// CR 701.8 / 702.12b: destroys a permanent unless it is indestructible.
    pub(super) fn destroy(&mut self, id: Id, ev: &mut Vec<Event>) {
        if self.has(id, kw::INDESTRUCTIBLE) {
            return;
        }
        self.put_in_graveyard(id);
        ev.push(Event::Destroyed { card: id });
    }
}
