//! Spells by type on the stack and mass effects: which spells a "target creature spell" or
//! "target noncreature spell" admits (CR 701.5), damage to each creature [without flying]
//! (CR 120.3), returning all attacking creatures (CR 400.7, 506.4) and cards returned from a
//! graveyard (CR 400.7: the returned card is a new object; an effect putting a permanent card
//! onto the battlefield makes it enter like one played, its "enters" abilities included).

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

    /// Whether `id` is a card in `by`'s graveyard of the kind a graveyard target asks for.
    pub(super) fn graveyard_target_ok(&self, by: Seat, k: TargetKind, id: Id) -> bool {
        if id.i() >= self.objs.len() {
            return false;
        }
        let o = self.obj(id);
        o.zone == Zone::Graveyard
            && (o.owner == by || k == TargetKind::CardInAGraveyard)
            && match k {
                TargetKind::CardInAGraveyard => true,
                TargetKind::CreatureCardInYourGraveyard => self.is_creature(id),
                TargetKind::PermanentCardInYourGraveyard => self.card(id).kind.is_permanent(),
                TargetKind::SmallNonlandPermanentCardInYourGraveyard(mv) => {
                    let c = self.card(id);
                    c.kind.is_permanent()
                        && !matches!(c.kind, Kind::Land(_))
                        && c.cost.total() <= u32::from(mv)
                }
                _ => false,
            }
    }

    /// "Return this card from your graveyard to the battlefield [tapped]" (CR 400.7): only if
    /// the card is still in its owner's graveyard as the ability resolves.
    pub(super) fn return_this_from_graveyard(&mut self, id: Id, tapped: bool, ev: &mut Vec<Event>) {
        if self.obj(id).zone != Zone::Graveyard {
            return;
        }
        self.return_from_graveyard(id, true, ev);
        if tapped && self.obj(id).zone == Zone::Battlefield {
            self.objs[id.i()].tapped = true;
            let owner = self.obj(id).owner;
            self.recount(owner);
        }
    }

    /// CR 400.7: the graveyard card `id` goes to its owner's hand or onto the battlefield
    /// (tapped if its card enters tapped, with the counters it enters with).
    pub(super) fn return_from_graveyard(&mut self, id: Id, battlefield: bool, ev: &mut Vec<Event>) {
        let owner = self.obj(id).owner;
        let yard = &mut self.players[owner.i()].graveyard;
        let Some(i) = yard.iter().position(|&c| c == id) else {
            return;
        };
        yard.remove(i);
        if !battlefield {
            self.objs[id.i()].zone = Zone::Hand;
            self.players[owner.i()].hand.push(id);
            ev.push(Event::ReturnedFromGraveyard {
                card: id,
                to: Zone::Hand,
            });
            return;
        }
        let tapped = self.card(id).enters_tapped;
        let o = &mut self.objs[id.i()];
        o.zone = Zone::Battlefield;
        o.sick = true;
        o.tapped = tapped;
        self.battlefield.push(id);
        self.recount(owner);
        self.sba_check = true;
        ev.push(Event::ReturnedFromGraveyard {
            card: id,
            to: Zone::Battlefield,
        });
        let counters = self.enters_with_counters(id, owner);
        ev.push(Event::EnteredBattlefield { card: id });
        if counters != 0 {
            ev.push(Event::Counters {
                card: id,
                amount: counters,
            });
        }
    }

    /// Whether `id` is where it can be cast from: a hand, or a graveyard for a card with
    /// flashback (CR 702.34a).
    pub(super) fn castable_zone(&self, id: Id) -> bool {
        match self.obj(id).zone {
            Zone::Hand => true,
            Zone::Graveyard => self.card(id).flashback.is_some(),
            _ => false,
        }
    }

    /// The cards with flashback in `seat`'s graveyard.
    pub(super) fn flashback_cards(&self, seat: Seat) -> Vec<Id> {
        self.players[seat.i()]
            .graveyard
            .iter()
            .copied()
            .filter(|&g| self.card(g).flashback.is_some())
            .collect()
    }

    /// Whether `seat` could cast a card with flashback from its graveyard now.
    pub(super) fn flashback_castable(&self, seat: Seat) -> bool {
        let cards = self.flashback_cards(seat);
        if cards.is_empty() {
            return false;
        }
        let avail = mana_available(self, seat);
        cards.iter().any(|&g| self.castable(seat, g, &avail))
    }

    /// CR 406.3: `id` goes from wherever it is (already taken out of its zone's list) to its
    /// owner's exile.
    pub(super) fn put_in_exile(&mut self, id: Id, from: Zone, ev: &mut Vec<Event>) {
        let owner = self.obj(id).owner;
        self.objs[id.i()].zone = Zone::Exile;
        self.players[owner.i()].exile.push(id);
        ev.push(Event::Exiled { card: id, from });
    }

    /// CR 406.3: every card of `player`'s graveyard is exiled.
    pub(super) fn exile_graveyard(&mut self, player: Seat, ev: &mut Vec<Event>) {
        let cards = std::mem::take(&mut self.players[player.i()].graveyard);
        for c in cards {
            self.put_in_exile(c, Zone::Graveyard, ev);
        }
    }
}
