//! Activated abilities of permanents (CR 602): which can be activated now, checking an
//! activation, and putting it on the stack. Mana abilities are not here: they are activated
//! while a cost is paid ([`super::mana`]).
//!
//! An ability is activated by its controller whenever that player has priority (only in its
//! main phase with an empty stack for "Activate only as a sorcery", CR 602.5d). Its costs
//! are paid in full as it is activated (CR 602.2b, 601.2g-h): mana by tapping sources, {T}
//! by tapping the permanent (not while a creature is summoning sick without haste, CR
//! 602.5a; not a permanent already tapped), life only up to the life the player has (CR
//! 119.4), sacrificing the source by putting it into its owner's graveyard (CR 701.17; a
//! sacrificed creature dies). A source tapped by its own {T} cost does not also pay mana. The ability goes on
//! the stack with its one target, independent of its source (CR 113.7a): it resolves even if
//! the source has left; its target is checked again on resolution (CR 608.2b).

use super::*;

impl State {
    /// The activated abilities of `id` (a permanent `seat` controls) that could be activated
    /// now with some target and payment, by index.
    pub(crate) fn activatable(&self, seat: Seat, id: Id) -> impl Iterator<Item = u8> + '_ {
        let o = self.obj(id);
        let ok = o.owner == seat && matches!(o.zone, Zone::Battlefield | Zone::Graveyard);
        let abilities = if ok {
            &self.card(id).activated[..]
        } else {
            &[]
        };
        abilities
            .iter()
            .enumerate()
            .filter(move |(_, a)| self.activation_ok(seat, id, a).is_ok())
            .map(|(i, _)| i as u8)
    }

    /// Whether `seat` could activate some ability now (on public information only: the
    /// battlefield and its untapped mana sources).
    pub(crate) fn can_activate_any(&self, seat: Seat) -> bool {
        self.battlefield
            .iter()
            .chain(self.players[seat.i()].graveyard.iter())
            .any(|&id| {
                !self.card(id).activated.is_empty() && self.activatable(seat, id).next().is_some()
            })
    }

    /// Checks everything but the target and the payment list of an activation.
    fn activation_ok(&self, seat: Seat, id: Id, a: &Activated) -> Result<(), String> {
        let name = &self.card(id).data.name;
        // CR 113.6: an ability that returns its card from the graveyard works only there, and
        // every other one only on the battlefield.
        if graveyard_ability(a) != (self.obj(id).zone == Zone::Graveyard) {
            return Err(if graveyard_ability(a) {
                format!("{name}'s ability is activated only from your graveyard")
            } else {
                format!("{name} is not a permanent you control")
            });
        }
        self.loyalty_ok(id, a)?;
        if a.sorcery && !self.can_sorcery_speed(seat) {
            return Err(format!(
                "{name}'s ability is activated only as a sorcery: your main phase, empty stack \
                 (CR 602.5d)"
            ));
        }
        if a.tap {
            let o = self.obj(id);
            if o.tapped {
                return Err(format!("{name} is tapped: its {{T}} cost cannot be paid"));
            }
            if self.is_creature(id) && o.sick && !self.has(id, kw::HASTE) {
                return Err(format!(
                    "{name} has not been under your control since your turn began: its {{T}} \
                     ability cannot be activated (CR 602.5a)"
                ));
            }
        }
        if (self.players[seat.i()].life as i64) < a.life as i64 {
            return Err(format!("you cannot pay {} life (CR 119.4)", a.life));
        }
        let mut avail = mana::mana_available(self, seat);
        if a.tap {
            avail.other.retain(|&(s, _)| s != id);
        }
        if !mana::affordable_cost(&a.mana, &avail) {
            return Err(format!(
                "not enough untapped mana sources to pay {name}'s cost"
            ));
        }
        if let Some(k) = a.target()
            && !self.has_target(seat, k)
        {
            return Err(format!("{name}'s ability has no legal target"));
        }
        if a.sacrifice_creature.is_some() && self.sacrifice_choices(seat, id, a).is_empty() {
            return Err(format!("{name}'s ability has no creature to sacrifice"));
        }
        Ok(())
    }

    /// The activation moves of every permanent the deciding player controls.
    pub(super) fn activation_moves(&self, seat: Seat, v: &mut Vec<Move>) {
        for &id in self
            .battlefield
            .iter()
            .chain(self.players[seat.i()].graveyard.iter())
        {
            if self.card(id).activated.is_empty() {
                continue;
            }
            for ability in self.activatable(seat, id).collect::<Vec<_>>() {
                match self.card(id).activated[ability as usize].target() {
                    None => v.push(Move::Activate {
                        card: id,
                        ability,
                        target: None,
                        tap: None,
                    }),
                    Some(k) => {
                        for t in self.targets(seat, k) {
                            v.push(Move::Activate {
                                card: id,
                                ability,
                                target: Some(t),
                                tap: None,
                            });
                        }
                    }
                }
            }
        }
    }

    /// Checks an activation (CR 602.2) and returns the mana sources to tap.
    pub(super) fn validate_activate(
        &self,
        id: Id,
        ability: u8,
        target: Option<Target>,
        tap: Option<&[Id]>,
    ) -> Result<Vec<Id>, Illegal> {
        let taps = self.validate_activate_checked(id, ability, target, tap)?;
        self.check_activation_sacrifice(id, ability, None)?;
        Ok(taps)
    }

    /// [`State::validate_activate`] without the sacrifice-a-creature cost's choice.
    pub(super) fn validate_activate_checked(
        &self,
        id: Id,
        ability: u8,
        target: Option<Target>,
        tap: Option<&[Id]>,
    ) -> Result<Vec<Id>, Illegal> {
        let seat = self.priority;
        if !self.valid_id(id)
            || !matches!(self.obj(id).zone, Zone::Battlefield | Zone::Graveyard)
            || self.obj(id).owner != seat
        {
            return illegal(format!("{id} is not a permanent you control"));
        }
        let c = self.card(id);
        let Some(a) = c.activated.get(ability as usize) else {
            return illegal(format!(
                "{} has no activated ability {ability} (it has {})",
                c.data.name,
                c.activated.len()
            ));
        };
        self.activation_ok(seat, id, a).map_err(Illegal)?;
        match (a.target(), target) {
            (None, None) => {}
            (None, Some(_)) => {
                return illegal(format!("{}'s ability takes no target", c.data.name));
            }
            (Some(_), None) => return illegal(format!("{}'s ability needs a target", c.data.name)),
            (Some(k), Some(t)) => {
                if !self.target_ok(seat, k, t) {
                    return illegal(format!(
                        "{t} is not a legal target for {}'s ability",
                        c.data.name
                    ));
                }
            }
        }
        let what = format!("{}'s ability", c.data.name);
        let taps = match tap {
            None => self
                .auto_pay(seat, &a.mana, a.tap.then_some(id))
                .ok_or_else(|| {
                    Illegal(format!("not enough untapped mana sources to pay {what}"))
                })?,
            Some(list) => self.check_payment(seat, &a.mana, &what, list)?,
        };
        if a.tap && taps.contains(&id) {
            return illegal(format!(
                "tap: {id} is tapped by the ability's own {{T}} cost and cannot also pay mana"
            ));
        }
        Ok(taps)
    }

    /// CR 602.2: pays the costs and puts the ability on the stack.
    pub(super) fn activate(
        &mut self,
        id: Id,
        ability: u8,
        target: Option<Target>,
        taps: &[Id],
        ev: &mut Vec<Event>,
    ) {
        let seat = self.priority;
        self.tap_for_mana(seat, taps, ev);
        let a = &self.card(id).activated[ability as usize];
        let (tap, life, sacrifice, loyalty) = (a.tap, a.life, a.sacrifice, a.loyalty);
        if let Some(change) = loyalty {
            self.pay_loyalty(id, change, ev);
        }
        if tap {
            self.objs[id.i()].tapped = true;
            self.recount(seat);
        }
        if sacrifice {
            self.remember_power(id, ability);
            // CR 701.17a: the source goes to its owner's graveyard as the cost is paid.
            self.put_in_graveyard(id);
            self.sba_check = true;
            ev.push(Event::Sacrificed { card: id });
        }
        if life > 0 {
            self.players[seat.i()].life -= life as i32;
            self.sba_check = true;
            ev.push(Event::LifeLost {
                player: seat,
                amount: life as i16,
            });
        }
        let target_moves = match target {
            Some(Target::Obj(t)) => self.obj(t).moves,
            _ => 0,
        };
        self.stack.push(StackItem {
            card: id,
            controller: seat,
            target,
            target_moves,
            ability: Some(ability),
            activated: true,
            mode: None,
            flashback: false,
            ward: None,
            untargeted: false,
            second: None,
            second_moves: 0,
        });
        self.passes = 0; // CR 117.3c
        ev.push(Event::Activated {
            player: seat,
            card: id,
            ability,
            target,
        });
    }
}

/// An ability that returns its own card from the graveyard (CR 113.6): activated only there.
pub(super) fn graveyard_ability(a: &Activated) -> bool {
    a.effects
        .iter()
        .any(|e| matches!(e, Effect::ReturnThisFromGraveyard(_)))
}
