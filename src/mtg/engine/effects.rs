//! Performing a spell's effects in order (CR 608.2c): damage, destruction, returning to hand,
//! tapping, cards, life, "until end of turn" changes (CR 611.2, layer 7c for P/T, layer 6 for
//! keywords), counters (CR 122) and milling.

use super::*;

impl State {
    /// Performs one effect of a spell `source` controlled by `by`; `target` is the spell's
    /// target, checked legal by the caller (CR 608.2b).
    pub(super) fn perform(
        &mut self,
        source: Id,
        by: Seat,
        effect: Effect,
        target: Option<Target>,
        ev: &mut Vec<Event>,
    ) {
        let on_source = matches!(
            effect,
            Effect::Pump(_, _, _, TargetKind::Source)
                | Effect::Counters(_, TargetKind::Source)
                | Effect::Restrict(_, TargetKind::Source)
        );
        let obj = match target {
            _ if on_source => Some(source).filter(|&s| self.obj(s).zone == Zone::Battlefield),
            _ if matches!(effect, Effect::Pump(_, _, _, TargetKind::Attached)) => {
                self.attached_to(source)
            }
            Some(Target::Obj(c)) => Some(c),
            _ => None,
        };
        match (effect, target) {
            (Effect::Damage(n, _), Some(t)) => self.deal(source, t, n as i16, ev),
            (Effect::DamageOpponents(n), _) => {
                self.deal(source, Target::Player(by.other()), n as i16, ev)
            }
            (Effect::Destroy(_), _) => obj.into_iter().for_each(|c| self.destroy(c, ev)),
            (Effect::Bounce(_), _) => obj.into_iter().for_each(|c| self.return_to_hand(c, ev)),
            (Effect::Tap(_), _) => {
                if let Some(c) = obj {
                    self.objs[c.i()].tapped = true;
                    let owner = self.obj(c).owner;
                    self.recount(owner);
                    ev.push(Event::Tapped { card: c });
                }
            }
            (Effect::Draw(n), _) => (0..n).for_each(|_| self.draw(by, ev)),
            (Effect::GainLife(n), _) => self.gain_life(by, n as i16, ev),
            (Effect::LoseLife(n), _) => self.lose_life(by, n as i16, ev),
            (Effect::OpponentLosesLife(n), _) => self.lose_life(by.other(), n as i16, ev),
            (Effect::Pump(p, t, k, _), _) => {
                if let Some(c) = obj {
                    self.pump(c, p, t, k);
                }
            }
            (Effect::PumpYours(p, t, _) | Effect::PumpOpponents(p, t), _) => {
                let (side, k) = match effect {
                    Effect::PumpYours(_, _, k) => (by, k),
                    _ => (by.other(), 0),
                };
                let mine: Vec<Id> = self
                    .battlefield
                    .iter()
                    .copied()
                    .filter(|&c| self.obj(c).owner == side && self.is_creature(c))
                    .collect();
                for c in mine {
                    self.pump(c, p, t, k);
                }
            }
            (Effect::Counters(n, _), _) => {
                if let Some(c) = obj {
                    self.objs[c.i()].counters += n as i16;
                    self.sba_check = true;
                    ev.push(Event::Counters {
                        card: c,
                        amount: n as i16,
                    });
                }
            }
            (Effect::Mill(n), _) => {
                for _ in 0..n {
                    let p = &mut self.players[by.i()];
                    if p.library.is_empty() {
                        break;
                    }
                    let c = p.library.remove(0);
                    p.graveyard.push(c);
                    self.objs[c.i()].zone = Zone::Graveyard;
                    ev.push(Event::Milled {
                        player: by,
                        card: c,
                    });
                }
            }
            (Effect::Tokens(n, def, tapped), _) => {
                self.create_tokens(source, by, n, def, tapped, ev)
            }
            // CR 608.2h: the number is counted as the effect happens.
            (Effect::TokensPer(per, def, tapped), _) => {
                let n = self.count_per(per, source, by);
                self.create_tokens(source, by, n, def, tapped, ev)
            }
            // CR 111.2: the target's controller (its owner: control never changes here),
            // wherever the target went as the spell resolved.
            (Effect::TokensForTargetController(n, def, tapped), Some(Target::Obj(c))) => {
                let them = self.obj(c).owner;
                self.create_tokens(source, them, n, def, tapped, ev)
            }
            (Effect::TokensForTargetController(..), _) => {}
            (Effect::DoubleCounters(_), _) => {
                let on = Some(source).filter(|&s| self.obj(s).zone == Zone::Battlefield);
                if let Some(c) = on
                    && self.objs[c.i()].counters > 0
                {
                    let n = self.objs[c.i()].counters;
                    self.objs[c.i()].counters += n;
                    self.sba_check = true;
                    ev.push(Event::Counters { card: c, amount: n });
                }
            }
            (Effect::Search(search), _) => self.begin_search(by, search),
            // CR 701.5a: the countered spell leaves the stack for its owner's graveyard.
            (Effect::Counter(_), _) => {
                // CR 101.2: a spell that can't be countered stays on the stack.
                if let Some(c) = obj
                    && !self.card(c).uncounterable
                    && let Some(i) = self
                        .stack
                        .iter()
                        .position(|it| it.card == c && it.ability.is_none())
                {
                    let item = self.stack.remove(i);
                    ev.push(Event::Countered { card: c });
                    self.spell_to_graveyard(c, &item, ev);
                }
            }
            (Effect::Discard(n, opponent), _) => {
                self.begin_discard(if opponent { by.other() } else { by }, n, ev)
            }
            (Effect::Damage(..), None) => {}
            // Checked by the caller as the ability triggers and resolves (CR 603.4); mode
            // markers are read by the caller (CR 700.2).
            (Effect::If(_) | Effect::Mode(_), _) => {}
            (Effect::Surveil(n), _) => {
                let count = n.min(self.players[by.i()].library.len() as u8);
                if count > 0 {
                    self.pending = Pending::Surveil { player: by, count };
                }
            }
            (Effect::Attach(_), _) => {
                if let Some(c) = obj {
                    self.attach(source, c, ev);
                }
            }
            (Effect::DamageCreatures(n, without), _) => {
                self.damage_each_creature(source, n, without, ev)
            }
            (Effect::BounceAttackers, _) => self.bounce_attackers(ev),
            (Effect::ExileGraveyard(_), Some(Target::Player(p))) => self.exile_graveyard(p, ev),
            (Effect::ExileGraveyard(_), _) => {}
            (Effect::DamageEqualToPower(_), Some(t)) => {
                let n = self.source_power(source);
                self.deal(source, t, n, ev)
            }
            (Effect::DamageEqualToPower(_), None) => {}
            (Effect::ReturnThisFromGraveyard(tapped), _) => {
                self.return_this_from_graveyard(source, tapped, ev)
            }
            (Effect::ChooseDiscard { nonland }, _) => self.begin_choose_discard(by, nonland),
            (Effect::Reflexive(ability), _) => ev.push(Event::ReflexiveTriggered {
                card: source,
                ability,
            }),
            (Effect::ExileUntilLeaves(_), _) => {
                if let Some(c) = obj {
                    self.exile_until_leaves(source, c, ev);
                }
            }
            (Effect::Restrict(r, _), _) => {
                if let Some(c) = obj {
                    self.restrict(c, r, ev);
                }
            }
            (Effect::ReturnFromGraveyard(_, battlefield), _) => {
                if let Some(c) = obj {
                    self.return_from_graveyard(c, battlefield, ev);
                }
            }
            (
                e @ (Effect::DoublePower(_)
                | Effect::DamageIfLife(..)
                | Effect::Untap(_)
                | Effect::Stun(..)
                | Effect::PreventCombatDamage(_)
                | Effect::GainLifePer(..)
                | Effect::DrawPer(_)
                | Effect::PumpPer(..)
                | Effect::PumpInsteadIf(..)
                | Effect::OpponentLosesLifeEqual(_)),
                t,
            ) => self.perform_variable(source, by, e, obj, t, ev),
            (Effect::UpToOne, _) => {}
            // Performed with both targets by the spell's resolution (`perform_two`).
            (Effect::Fight(..) | Effect::BounceBoth(..), _) => {}
            (Effect::ExileCard(_), _) => {
                if let Some(c) = obj {
                    self.exile_from_graveyard(c, ev);
                }
            }
            (Effect::DrainX, _) => self.drain_x(source, by, ev),
            (Effect::Exile(_), _) => obj.into_iter().for_each(|c| self.exile_permanent(c, ev)),
            // The marker itself does nothing: resolution stops on it (`optional`).
            (Effect::May(_), _) => {}
            (Effect::Look(l), _) => self.begin_look(by, l),
        }
    }

    /// CR 111.1: creates `n` tokens of the source card's token `def` under `by`'s control.
    fn create_tokens(
        &mut self,
        source: Id,
        by: Seat,
        n: u8,
        def: u8,
        tapped: bool,
        ev: &mut Vec<Event>,
    ) {
        let Some(data) = self.card(source).tokens.get(def as usize) else {
            return;
        };
        let Some(table) = self.cards.iter().position(|c| c.data == *data) else {
            return;
        };
        for _ in 0..n {
            if self.objs.len() >= u16::MAX as usize {
                return;
            }
            let id = Id(self.objs.len() as u16);
            self.objs.push(Obj {
                card: table as u16,
                owner: by,
                zone: Zone::Battlefield,
                tapped,
                sick: true,
                damage: 0,
                deathtouched: false,
                pump_p: 0,
                pump_t: 0,
                counters: 0,
                gained: 0,
                moves: 0,
                attached: None,
                loyalty: 0,
                loyalty_turn: 0,
                restricted: 0,
                exiled_until: None,
                stun: 0,
                shielded: false,
            });
            self.battlefield.push(id);
            ev.push(Event::TokenCreated { card: id });
        }
        self.sba_check = true;
    }

    pub(super) fn pump(&mut self, c: Id, p: i8, t: i8, k: u16) {
        let o = &mut self.objs[c.i()];
        o.pump_p += p as i16;
        o.pump_t += t as i16;
        o.gained |= k;
        self.sba_check = true;
    }

    pub(super) fn gain_life(&mut self, who: Seat, n: i16, ev: &mut Vec<Event>) {
        self.players[who.i()].life += n as i32;
        if n > 0 {
            let k = &mut self.this_turn.gains[who.i()];
            *k = k.saturating_add(1);
            let a = &mut self.this_turn.life_gained[who.i()];
            *a = a.saturating_add(n as u16);
        }
        ev.push(Event::LifeGained {
            player: who,
            amount: n,
        });
    }

    pub(super) fn lose_life(&mut self, who: Seat, n: i16, ev: &mut Vec<Event>) {
        self.players[who.i()].life -= n as i32;
        self.sba_check = true;
        ev.push(Event::LifeLost {
            player: who,
            amount: n,
        });
    }

    /// CR 400.7: a permanent returned to its owner's hand is a new object there.
    pub(super) fn return_to_hand(&mut self, c: Id, ev: &mut Vec<Event>) {
        self.leave_battlefield(c);
        if self.card(c).token {
            self.objs[c.i()].zone = Zone::Gone; // CR 704.5d
            ev.push(Event::ReturnedToHand { card: c });
            return;
        }
        let o = &mut self.objs[c.i()];
        o.zone = Zone::Hand;
        let owner = o.owner;
        self.players[owner.i()].hand.push(c);
        self.recount(owner);
        ev.push(Event::ReturnedToHand { card: c });
    }

    /// Takes a permanent off the battlefield and clears what it had there (CR 400.7); the
    /// caller puts it in its new zone.
    pub(super) fn leave_battlefield(&mut self, c: Id) {
        if let Some(i) = self.battlefield.iter().position(|&b| b == c) {
            self.battlefield.remove(i);
            self.objs[c.i()].moves = self.objs[c.i()].moves.wrapping_add(1);
        }
        let o = &mut self.objs[c.i()];
        o.tapped = false;
        o.damage = 0;
        o.deathtouched = false;
        o.pump_p = 0;
        o.pump_t = 0;
        o.counters = 0;
        o.gained = 0;
        o.sick = false;
        o.loyalty = 0;
        o.loyalty_turn = 0;
        o.restricted = 0;
        o.stun = 0;
        o.shielded = false;
        self.detach_from(c);
        self.note_exiler_left(c);
    }
}
