//! Effects decided as they resolve (doubling a power, "for each" amounts, an exact life total,
//! "… instead") and the untap rules (untap, stun counters, "doesn't untap", combat damage
//! prevention).
//!
//! Promises:
//! - a count is taken as the effect happens (CR 608.2h); "those creatures" are counted again
//!   right then (nothing between the two effects of one spell changes the count);
//! - doubling a power gives +X/+0 until end of turn, X its power then, negative included
//!   (CR 701.10);
//! - a permanent with a stun counter that would become untapped (in its controller's untap
//!   step or by an effect) stays tapped and loses one stun counter instead (CR 122.1d); an
//!   untapped permanent keeps its stun counters;
//! - "doesn't untap during your untap step" keeps it tapped in that step only (CR 502.3);
//! - combat damage to a creature whose combat damage is prevented this turn is not dealt: no
//!   damage event, no lifelink, no deathtouch (CR 615.1); the shield ends at cleanup or when
//!   the creature leaves the battlefield.

use super::*;
use crate::mtg::compile::Per;
use crate::mtg::lower::Amount;

impl State {
    /// Performs one of these effects; `obj` is the object the effect acts on (its target), if
    /// any; `target` is the spell's or ability's target.
    pub(super) fn perform_variable(
        &mut self,
        source: Id,
        by: Seat,
        effect: Effect,
        obj: Option<Id>,
        target: Option<Target>,
        ev: &mut Vec<Event>,
    ) {
        let on_battlefield = |s: &State, c: Id| s.obj(c).zone == Zone::Battlefield;
        match effect {
            Effect::DoublePower(_) => {
                if let Some(c) = obj.filter(|&c| on_battlefield(self, c)) {
                    let x = self.power(c);
                    self.objs[c.i()].pump_p += x;
                    self.sba_check = true;
                }
            }
            Effect::DamageIfLife(life, n, _) => {
                if let Some(Target::Player(p)) = target
                    && self.players[p.i()].life == i32::from(life)
                {
                    self.deal(source, Target::Player(p), i16::from(n), ev);
                }
            }
            Effect::Untap(TargetKind::Source) if on_battlefield(self, source) => {
                self.untap(source, ev);
            }
            Effect::Untap(TargetKind::Source) => {}
            Effect::Untap(_) => {
                if let Some(c) = obj.filter(|&c| on_battlefield(self, c)) {
                    self.untap(c, ev);
                }
            }
            Effect::Stun(n, _) => {
                if let Some(c) = obj.filter(|&c| on_battlefield(self, c)) {
                    let o = &mut self.objs[c.i()];
                    o.stun = o.stun.saturating_add(n);
                    ev.push(Event::Stun {
                        card: c,
                        amount: i16::from(n),
                    });
                }
            }
            Effect::PreventCombatDamage(_) => {
                if let Some(c) = obj.filter(|&c| on_battlefield(self, c)) {
                    self.objs[c.i()].shielded = true;
                }
            }
            Effect::GainLifePer(n, per) => {
                let k = self.count_per(per, source, by);
                let amount = i16::from(n) * i16::from(k);
                if amount > 0 {
                    self.gain_life(by, amount, ev);
                }
            }
            Effect::DrawPer(per) => {
                let k = self.count_per(per, source, by);
                (0..k).for_each(|_| self.draw(by, ev));
            }
            Effect::PumpPer(per, p, t, k) => {
                for c in self.counted_creatures(per, by) {
                    self.pump(c, p, t, k);
                }
            }
            Effect::PumpInsteadIf(cond, normal, instead, _) => {
                if let Some(c) = obj.filter(|&c| on_battlefield(self, c)) {
                    let [p, t] = if self.holds(cond, source, by) {
                        instead
                    } else {
                        normal
                    };
                    self.pump(c, p, t, 0);
                }
            }
            Effect::OpponentLosesLifeEqual(Amount::LifeYouGainedThisTurn) => {
                let n = self.this_turn.life_gained[by.i()];
                let n = i16::try_from(n).unwrap_or(i16::MAX);
                if n > 0 {
                    self.lose_life(by.other(), n, ev);
                }
            }
            _ => {}
        }
    }

    /// The creatures `by` controls that a "those creatures" count names.
    pub(super) fn counted_creatures(&self, per: Per, by: Seat) -> Vec<Id> {
        self.battlefield
            .iter()
            .copied()
            .filter(|&c| {
                self.obj(c).owner == by
                    && self.is_creature(c)
                    && match per {
                        Per::CreaturesYouControlWithCounter => self.obj(c).counters > 0,
                        _ => false,
                    }
            })
            .collect()
    }

    /// CR 701.26b / 122.1d: untaps a tapped permanent, or removes a stun counter instead.
    fn untap(&mut self, c: Id, ev: &mut Vec<Event>) {
        if !self.obj(c).tapped {
            return;
        }
        if self.obj(c).stun > 0 {
            self.objs[c.i()].stun -= 1;
            ev.push(Event::Stun {
                card: c,
                amount: -1,
            });
            return;
        }
        self.objs[c.i()].tapped = false;
        let owner = self.obj(c).owner;
        self.recount(owner);
        ev.push(Event::Untapped { card: c });
    }

    /// CR 502.3: the untap step's untapping of one permanent: not one that "doesn't untap
    /// during your untap step", and a stun counter removed instead (CR 122.1d). The caller
    /// recounts the player's lands.
    pub(super) fn untap_step_untap(&mut self, c: Id, ev: &mut Vec<Event>) {
        if !self.obj(c).tapped || self.card(c).doesnt_untap {
            return;
        }
        if self.obj(c).stun > 0 {
            self.objs[c.i()].stun -= 1;
            ev.push(Event::Stun {
                card: c,
                amount: -1,
            });
            return;
        }
        self.objs[c.i()].tapped = false;
    }
}
