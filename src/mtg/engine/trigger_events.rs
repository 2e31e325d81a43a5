//! The trigger events added with tokens and counters (CR 603.2): "whenever you attack [with N
//! or more creatures]", "attacks while you control …", drawing a card and the second draw of
//! a turn, the first life gain of a turn, a creature of yours dying (this one or another),
//! another creature of a type entering, and casting a spell on an opponent's turn or a
//! noncreature or typed spell; and the counts of counted token effects (CR 608.2h).
//!
//! Promises:
//! - "first time each turn" and "second card each turn" are read from the turn's counts
//!   ([`ThisTurn`]), kept as cards are drawn and life is gained, so the n-th draw or gain of a
//!   turn is known even when one effect draws several cards;
//! - creatures that die at the same time see each other die (CR 603.10a): a "whenever this or
//!   another creature you control dies" ability of a creature that died with others triggers
//!   for each of them; simultaneous deaths are the consecutive death events of one action;
//! - "that creature" of a trigger on a creature entering is that creature, carried with the
//!   ability on the stack; if it has left the battlefield (or left and returned, CR 400.7) as
//!   the ability resolves, the effects on it do nothing.

use super::*;
use crate::mtg::compile::{Per, Trigger};

/// A triggered ability: its source, its index, the object its event names.
pub(super) type Fired = (Id, u8, Option<Id>);

impl State {
    /// The abilities of `source` whose trigger `pick` accepts, with the event's object.
    fn fire_where(
        &self,
        source: Id,
        obj: Option<Id>,
        out: &mut Vec<Fired>,
        pick: impl Fn(Trigger) -> bool,
    ) {
        for (i, (t, _)) in self.card(source).triggers.iter().enumerate() {
            if pick(*t) {
                out.push((source, i as u8, obj));
            }
        }
    }

    /// The permanents `seat` controls that have triggered abilities.
    fn with_triggers(&self, seat: Seat) -> Vec<Id> {
        self.battlefield
            .iter()
            .copied()
            .filter(|&b| self.obj(b).owner == seat && !self.card(b).triggers.is_empty())
            .collect()
    }

    /// Which draw (or life gain) of the turn `events[i]` was for its player: the turn's count
    /// less those after it; 0 if a new turn began after it.
    fn ordinal(&self, events: &[Event], i: usize, count: u8, same: impl Fn(&Event) -> bool) -> u8 {
        let later = &events[i + 1..];
        if later.iter().any(|e| matches!(e, Event::TurnStarted { .. })) {
            return 0;
        }
        count.saturating_sub(later.iter().filter(|e| same(e)).count() as u8)
    }

    /// The creature a death event names (CR 700.4: destroyed, dying or sacrificed).
    fn death_of(&self, e: &Event) -> Option<Id> {
        match e {
            Event::Died { card, .. } | Event::Destroyed { card } | Event::Sacrificed { card }
                if self.is_creature(*card) =>
            {
                Some(*card)
            }
            _ => None,
        }
    }

    /// The triggers of `events[i]` of the kinds this module adds.
    pub(super) fn event_triggers(&self, events: &[Event], i: usize, out: &mut Vec<Fired>) {
        match &events[i] {
            Event::Attacked { attackers } if !attackers.is_empty() => {
                let seat = self.obj(attackers[0]).owner;
                let n = attackers.len();
                for b in self.with_triggers(seat) {
                    self.fire_where(
                        b,
                        None,
                        out,
                        |t| matches!(t, Trigger::YouAttackWith(k) if n >= k as usize),
                    );
                }
                for &a in attackers {
                    self.fire_where(a, None, out, |t| match t {
                        Trigger::AttacksWhileControlPower(p) => self.battlefield.iter().any(|&c| {
                            self.obj(c).owner == seat
                                && self.is_creature(c)
                                && self.power(c) >= p as i16
                        }),
                        _ => false,
                    });
                }
            }
            Event::Drew { player } => {
                let nth = self.ordinal(
                    events,
                    i,
                    self.this_turn.drawn[player.i()],
                    |e| matches!(e, Event::Drew { player: p } if p == player),
                );
                for b in self.with_triggers(*player) {
                    self.fire_where(b, None, out, |t| {
                        t == Trigger::YouDraw || (t == Trigger::SecondDrawEachTurn && nth == 2)
                    });
                }
            }
            Event::LifeGained { player, amount } if *amount > 0 => {
                let nth = self.ordinal(events, i, self.this_turn.gains[player.i()], |e| {
                    matches!(e, Event::LifeGained { player: p, amount } if p == player && *amount > 0)
                });
                let yours = self.active == *player;
                for b in self.with_triggers(*player) {
                    self.fire_where(b, None, out, |t| match t {
                        Trigger::GainLifeFirstTime { your_turn } => {
                            nth == 1 && (yours || !your_turn)
                        }
                        _ => false,
                    });
                }
            }
            // CR 510.3a: combat damage to a player by a creature an Equipment is attached to.
            Event::Damage {
                source,
                target: Target::Player(_),
                amount,
            } if *amount > 0
                && matches!(self.step, Step::FirstStrikeDamage | Step::CombatDamage)
                && self.combat.attackers.iter().any(|a| a.id == *source) =>
            {
                for &b in &self.battlefield {
                    if self.obj(b).attached == Some(*source) {
                        self.fire_where(b, None, out, |t| {
                            t == Trigger::EquippedCombatDamageToPlayer
                        });
                    }
                }
            }
            Event::Cast { player, card, .. } => {
                let theirs = self.active != *player;
                let noncreature = !self.is_creature(*card);
                let instant_or_sorcery =
                    matches!(self.card(*card).kind, Kind::Instant | Kind::Sorcery);
                let types = &self.card(*card).subtypes;
                for b in self.with_triggers(*player) {
                    self.fire_where(b, None, out, |t| match t {
                        Trigger::CastSpellOpponentsTurn => theirs,
                        Trigger::CastNoncreatureOrType(k) => {
                            noncreature || types.iter().any(|s| s == k)
                        }
                        Trigger::CastInstantOrSorcery => instant_or_sorcery,
                        _ => false,
                    });
                }
            }
            e => {
                if let Some(dead) = self.death_of(e) {
                    self.death_triggers(events, i, dead, out);
                }
                if let Event::Resolved { card }
                | Event::TokenCreated { card }
                | Event::EnteredBattlefield { card } = e
                    && self.is_creature(*card)
                {
                    let types = &self.card(*card).subtypes;
                    for b in self.with_triggers(self.obj(*card).owner) {
                        if b != *card {
                            self.fire_where(b, Some(*card), out, |t| {
                                matches!(t, Trigger::AnotherOfTypeEnters(k)
                                    if types.iter().any(|s| s == k))
                            });
                        }
                    }
                }
            }
        }
    }

    /// CR 700.4 / 603.10a: "whenever this or another creature you control dies" and "whenever
    /// a creature you control dies", looking back: the permanents of the dead creature's
    /// controller still on the battlefield, and those that died at the same time.
    fn death_triggers(&self, events: &[Event], i: usize, dead: Id, out: &mut Vec<Fired>) {
        let seat = self.obj(dead).owner;
        let mut lo = i;
        while lo > 0 && self.death_of(&events[lo - 1]).is_some() {
            lo -= 1;
        }
        let mut hi = i;
        while hi + 1 < events.len() && self.death_of(&events[hi + 1]).is_some() {
            hi += 1;
        }
        let mut sources = self.with_triggers(seat);
        for e in &events[lo..=hi] {
            if let Some(d) = self.death_of(e)
                && self.obj(d).owner == seat
                && !sources.contains(&d)
            {
                sources.push(d);
            }
        }
        for b in sources {
            self.fire_where(b, None, out, |t| {
                matches!(
                    t,
                    Trigger::ThisOrAnotherCreatureYouControlDies | Trigger::CreatureYouControlDies
                )
            });
        }
    }

    /// CR 608.2h: what a counted effect of `source` controlled by `by` counts now.
    pub(super) fn count_per(&self, per: Per, source: Id, by: Seat) -> u8 {
        let n = match per {
            Per::OtherCreaturesNamedThis => {
                let name = &self.card(source).data.name;
                self.battlefield
                    .iter()
                    .filter(|&&b| {
                        b != source
                            && self.obj(b).owner == by
                            && self.is_creature(b)
                            && self.card(b).data.name == *name
                    })
                    .count()
            }
            Per::CreatureCardsInYourGraveyard => self.players[by.i()]
                .graveyard
                .iter()
                .filter(|&&c| self.is_creature(c))
                .count(),
            Per::OfTypeYouControl(t) => self
                .battlefield
                .iter()
                .filter(|&&b| {
                    self.obj(b).owner == by
                        && self.is_creature(b)
                        && self.card(b).subtypes.iter().any(|s| s == t)
                })
                .count(),
            // CR 506.4: the creatures declared as attackers still on the battlefield.
            Per::AttackingOfTypeYouControl(t) => self
                .combat
                .attackers
                .iter()
                .filter(|a| {
                    self.obj(a.id).zone == Zone::Battlefield
                        && self.obj(a.id).owner == by
                        && self.is_creature(a.id)
                        && self.card(a.id).subtypes.iter().any(|s| s == t)
                })
                .count(),
            Per::CreaturesYouControlWithCounter => self.counted_creatures(per, by).len(),
        };
        u8::try_from(n).unwrap_or(u8::MAX)
    }
}
