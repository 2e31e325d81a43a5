//! Priority passing and the stack: resolving spells and dealing damage (CR 117, 608, 120).

use super::*;

impl State {
    /// CR 117.3d / 117.4: pass; all players passing in succession resolves the top of the
    /// stack or ends the step.
    pub(super) fn pass_priority(&mut self, ev: &mut Vec<Event>) {
        self.passes += 1;
        if self.passes < 2 {
            self.priority = self.priority.other();
            return;
        }
        self.passes = 0;
        if let Some(item) = self.stack.pop() {
            self.resolve(item, ev);
            self.priority = self.active; // CR 117.3b
        } else {
            self.next_step(ev);
        }
    }

    /// CR 608.2: resolve an instant, sorcery or creature spell.
    pub(super) fn resolve(&mut self, item: StackItem, ev: &mut Vec<Event>) {
        if let Some(warded) = item.ward {
            return self.resolve_ward(warded, ev);
        }
        if let Some(ability) = item.ability {
            return self.resolve_ability(&item, ability, ev);
        }
        self.sba_check = true;
        let id = item.card;
        let kind = self.card(id).kind;
        if kind.is_permanent() && self.aura_target_lost(&item) {
            // CR 608.3b: an Aura spell whose target is illegal does not resolve.
            ev.push(Event::Fizzled { card: id });
            self.spell_to_graveyard(id, &item, ev);
            return;
        }
        if kind.is_permanent() {
            // CR 608.3a: a permanent spell enters the battlefield (tapped, CR 614.1c, if its
            // card says so); an Aura enters attached to its target (CR 303.4f).
            let tapped = self.card(id).enters_tapped;
            let o = &mut self.objs[id.i()];
            o.zone = Zone::Battlefield;
            o.sick = true;
            o.tapped = tapped;
            self.battlefield.push(id);
            self.enters_with_loyalty(id);
            let counters = self.enters_with_counters(id, item.controller);
            ev.push(Event::Resolved { card: id });
            if let (true, Some(Target::Obj(t))) = (self.card(id).aura, item.target) {
                self.attach(id, t, ev);
            }
            if counters != 0 {
                ev.push(Event::Counters {
                    card: id,
                    amount: counters,
                });
            }
            return;
        }
        // CR 608.2b: a spell whose targets are all illegal does nothing; a target object that
        // left the battlefield since is a new object (CR 400.7).
        let fizzled = match (self.card(id).target_of(item.mode), item.target) {
            (Some(k), Some(t)) => {
                (!self.target_ok(item.controller, k, t)
                    || matches!(t, Target::Obj(o) if self.obj(o).moves != item.target_moves))
                    && self.second_illegal(&item)
            }
            _ => false,
        };
        // With two targets, an effect on an illegal one does nothing to it (CR 608.2b).
        let (first, second) = self.legal_targets(&item);
        if fizzled {
            ev.push(Event::Fizzled { card: id });
        } else {
            let card = &self.cards[self.objs[id.i()].card as usize];
            // CR 702.33d: a kicked spell does what its text says it does instead.
            let kicked = self.is_kicked(id) && !card.kicked_effects.is_empty();
            let list = if kicked {
                &card.kicked_effects
            } else {
                &card.effects
            };
            let effects: Vec<Effect> = crate::mtg::lower::mode_effects(list, item.mode)
                .copied()
                .collect();
            for e in effects {
                // CR 608.2d: "you may" stops here for its controller's answer.
                if let Effect::May(cost) = e {
                    let optional = Optional {
                        source: id,
                        cost,
                        target: first,
                        ability: None,
                        activated: false,
                        kicked,
                        mode: item.mode,
                    };
                    self.begin_may(item.controller, optional);
                    break;
                }
                if e.second_target().is_some() {
                    self.perform_two(e, first, second, ev);
                } else {
                    self.perform(id, item.controller, e, first, ev);
                }
            }
            ev.push(Event::Resolved { card: id });
        }
        self.spell_to_graveyard(id, &item, ev);
    }

    /// CR 608.2n: a resolved instant or sorcery goes to its owner's graveyard; one cast with
    /// flashback is exiled instead (CR 702.34a).
    pub(super) fn spell_to_graveyard(&mut self, id: Id, item: &StackItem, ev: &mut Vec<Event>) {
        self.kicked.retain(|&(k, _)| k != id);
        self.x_paid.retain(|&(k, _)| k != id);
        if item.flashback {
            return self.put_in_exile(id, Zone::Stack, ev);
        }
        let owner = self.obj(id).owner;
        self.objs[id.i()].zone = Zone::Graveyard;
        self.players[owner.i()].graveyard.push(id);
    }

    /// Deals damage from `source` (CR 120.3): to a player, life loss; to a creature, marked
    /// damage (and the deathtouch mark); to a planeswalker, loss of loyalty; lifelink gains its controller that much (702.15b).
    pub(super) fn deal(&mut self, source: Id, target: Target, n: i16, ev: &mut Vec<Event>) {
        if n <= 0 {
            return;
        }
        self.sba_check = true;
        match target {
            Target::Player(p) => self.players[p.i()].life -= n as i32,
            Target::Obj(c) if self.is_planeswalker(c) => self.damage_planeswalker(c, n),
            Target::Obj(c) => {
                let dt = self.has(source, kw::DEATHTOUCH);
                let o = &mut self.objs[c.i()];
                o.damage += n;
                o.deathtouched |= dt;
            }
        }
        ev.push(Event::Damage {
            source,
            target,
            amount: n,
        });
        if self.has(source, kw::LIFELINK) {
            let owner = self.obj(source).owner;
            self.gain_life(owner, n, ev);
        }
    }
}
