//! Triggered abilities (CR 603): the engine reads what happened from the move's events, and
//! the next time a player would receive priority puts the abilities that triggered on the
//! stack, the active player's first and then the other's (APNAP, CR 603.3b), so the
//! non-active player's resolve first. Each goes on the stack in the order its event happened.
//!
//! A trigger has one target at most. Its controller chooses it as the ability is put on the
//! stack (a `choose_target` decision, one ability at a time from the bottom of the stack
//! up); a targeted ability with no legal target is removed instead (CR 603.3d). Its other
//! effects act on their controller, the opponent or the source itself. A leaves-the-battlefield ability ("dies") looks back at
//! the source as it last existed (CR 603.10a): its card's abilities, its owner as controller.

use super::trigger_events::Fired;
use super::*;
use crate::mtg::compile::Trigger;
use crate::mtg::lower::{mode_count, mode_effects, mode_target};

impl State {
    /// The triggered abilities of `events[i]`, as (source, ability index, the object the
    /// event names for "that creature").
    fn triggered(&self, all: &[Event], i: usize) -> Vec<Fired> {
        let events = &all[i..=i];
        let mut out = Vec::new();
        let fire = |s: &State, id: Id, when: Trigger, out: &mut Vec<(Id, u8)>| {
            for (i, (t, _)) in s.card(id).triggers.iter().enumerate() {
                if *t == when {
                    out.push((id, i as u8));
                }
            }
        };
        let yours = |s: &State, seat: Seat| -> Vec<Id> {
            s.battlefield
                .iter()
                .copied()
                .filter(|&b| s.obj(b).owner == seat && !s.card(b).triggers.is_empty())
                .collect()
        };
        for e in events {
            match e {
                // A permanent spell that resolved entered the battlefield, even if a
                // state-based action has since put it in the graveyard (CR 603.6a).
                Event::Resolved { card } | Event::TokenCreated { card }
                    if !matches!(self.card(*card).kind, Kind::Instant | Kind::Sorcery) =>
                {
                    fire(self, *card, Trigger::Enters, &mut out);
                    if self.is_creature(*card) {
                        for b in yours(self, self.obj(*card).owner) {
                            if b != *card {
                                fire(self, b, Trigger::AnotherCreatureEnters, &mut out);
                            }
                            // "Whenever a creature you control with power N or greater
                            // enters": its power as it is on the battlefield (CR 603.6a).
                            let power = self.power(*card);
                            for (i, (t, _)) in self.card(b).triggers.iter().enumerate() {
                                if let Trigger::CreatureWithPowerEnters(n) = *t
                                    && power >= n as i16
                                {
                                    out.push((b, i as u8));
                                }
                            }
                        }
                    }
                }
                Event::PlayedLand { player, card } => {
                    fire(self, *card, Trigger::Enters, &mut out);
                    for b in yours(self, *player) {
                        fire(self, b, Trigger::Landfall, &mut out);
                    }
                }
                Event::Died { card, .. } | Event::Destroyed { card } => {
                    fire(self, *card, Trigger::Dies, &mut out)
                }
                // CR 700.4: a sacrificed creature dies too.
                Event::Sacrificed { card } if self.is_creature(*card) => {
                    fire(self, *card, Trigger::Dies, &mut out)
                }
                // A card an effect put onto the battlefield enters like one played (CR 603.6a).
                Event::EnteredBattlefield { card } => {
                    let owner = self.obj(*card).owner;
                    fire(self, *card, Trigger::Enters, &mut out);
                    if matches!(self.card(*card).kind, Kind::Land(_)) {
                        for b in yours(self, owner) {
                            fire(self, b, Trigger::Landfall, &mut out);
                        }
                    }
                    if self.is_creature(*card) {
                        for b in yours(self, owner) {
                            if b != *card {
                                fire(self, b, Trigger::AnotherCreatureEnters, &mut out);
                            }
                        }
                    }
                }
                Event::Attacked { attackers } => {
                    for a in attackers {
                        fire(self, *a, Trigger::Attacks, &mut out);
                    }
                }
                Event::Blocked { blocks } => {
                    for (b, _) in blocks {
                        fire(self, *b, Trigger::Blocks, &mut out);
                    }
                }
                Event::Cast { player, card, .. } if !self.is_creature(*card) => {
                    for b in yours(self, *player) {
                        fire(self, b, Trigger::CastNoncreature, &mut out);
                    }
                }
                Event::Step { step } => {
                    let at = match step {
                        Step::Upkeep => Some(Trigger::YourUpkeep),
                        Step::BeginningOfCombat => Some(Trigger::YourCombat),
                        Step::End => Some(Trigger::YourEndStep),
                        _ => None,
                    };
                    if let Some(when) = at {
                        for b in yours(self, self.active) {
                            fire(self, b, when, &mut out);
                        }
                    }
                    if *step == Step::End {
                        let all: Vec<Id> = self.battlefield.to_vec();
                        for b in all {
                            fire(self, b, Trigger::EachEndStep, &mut out);
                        }
                    }
                }
                Event::LifeGained { player, .. } => {
                    for b in yours(self, *player) {
                        fire(self, b, Trigger::GainLife, &mut out);
                    }
                }
                Event::Damage {
                    source,
                    target: Target::Player(_),
                    ..
                } if matches!(self.step, Step::FirstStrikeDamage | Step::CombatDamage)
                    && self.combat.attackers.iter().any(|a| a.id == *source) =>
                {
                    fire(self, *source, Trigger::CombatDamageToPlayer, &mut out)
                }
                // CR 603.12: a reflexive trigger of the spell or ability just performed.
                Event::ReflexiveTriggered { card, ability } => out.push((*card, *ability)),
                _ => {}
            }
        }
        // "That creature" of a trigger on a creature entering is the entering creature.
        let entered = match events[0] {
            Event::Resolved { card }
            | Event::TokenCreated { card }
            | Event::EnteredBattlefield { card } => Some(card),
            _ => None,
        };
        let mut out: Vec<Fired> = out
            .into_iter()
            .map(|(id, a)| {
                let names = matches!(
                    self.card(id).triggers[a as usize].0,
                    Trigger::AnotherCreatureEnters | Trigger::CreatureWithPowerEnters(_)
                );
                (id, a, entered.filter(|_| names))
            })
            .collect();
        self.event_triggers(all, i, &mut out);
        out
    }

    /// Puts the abilities triggered by `events[*seen..]` on the stack (APNAP) and moves
    /// `seen` past them. Returns whether any was put on the stack.
    pub(super) fn stack_triggers(&mut self, events: &mut Vec<Event>, seen: &mut usize) -> bool {
        // Each event updates the turn's record before its triggers are checked, so an
        // intervening-if condition is checked as the event happens (CR 603.4).
        let mut fired = Vec::new();
        for i in (*seen).min(events.len())..events.len() {
            self.note_turn(&events[i]);
            let now = self.triggered(events, i);
            fired.extend(
                now.into_iter()
                    .filter(|&(id, a, _)| self.condition_holds(id, a)),
            );
        }
        *seen = events.len();
        if fired.is_empty() {
            return false;
        }
        let active = self.active;
        for seat in [active, active.other()] {
            let theirs: Vec<Fired> = fired
                .iter()
                .copied()
                .filter(|(id, _, _)| self.obj(*id).owner == seat)
                .collect();
            for (id, ability, named) in theirs {
                let effects = &self.card(id).triggers[ability as usize].1;
                // CR 603.3d / 700.2a: removed from the stack when no mode can be chosen
                // (a mode whose target has no legal choice cannot be).
                // An optional target ("up to one") is never missing (CR 601.2c).
                if self.choosable_modes(seat, effects).is_empty()
                    && !effects.contains(&Effect::UpToOne)
                {
                    continue;
                }
                // The object the event names rides in the target slot (the ability has no
                // target then, see `lower`), with its zone-change count (CR 400.7).
                self.stack.push(StackItem {
                    card: id,
                    controller: seat,
                    target: named.map(Target::Obj),
                    target_moves: named.map_or(0, |o| self.obj(o).moves),
                    ability: Some(ability),
                    activated: false,
                    mode: None,
                    flashback: false,
                    ward: None,
                    untargeted: false,
                    second: None,
                    second_moves: 0,
                });
                events.push(Event::Triggered { card: id, ability });
            }
        }
        *seen = events.len();
        // CR 117.3b: after abilities go on the stack the active player receives priority.
        self.passes = 0;
        self.priority = active;
        self.next_target_choice();
        true
    }

    /// The target kind of a triggered ability on the stack, if it targets (of its chosen
    /// mode, if modal).
    pub(super) fn trigger_target_kind(&self, it: &StackItem) -> Option<TargetKind> {
        match it.ability {
            Some(a) if !it.activated && it.ward.is_none() => {
                mode_target(&self.card(it.card).triggers[a as usize].1, it.mode)
            }
            _ => None,
        }
    }

    /// The modes of a modal triggered ability on the stack (0 if not modal).
    fn trigger_modes(&self, it: &StackItem) -> u8 {
        match it.ability {
            Some(a) if !it.activated && it.ward.is_none() => {
                mode_count(&self.card(it.card).triggers[a as usize].1)
            }
            _ => 0,
        }
    }

    /// The modes `seat` may choose for an effect list: those whose target has a legal choice
    /// (CR 700.2a); `[None]` for a list without modes whose target (if any) has one.
    pub(crate) fn choosable_modes(&self, seat: Seat, effects: &[Effect]) -> Vec<Option<u8>> {
        let n = mode_count(effects);
        let all: Vec<Option<u8>> = if n == 0 {
            vec![None]
        } else {
            (0..n).map(Some).collect()
        };
        all.into_iter()
            .filter(|&m| mode_target(effects, m).is_none_or(|k| self.has_target(seat, k)))
            .filter(|&m| {
                crate::mtg::lower::mode_second_target(effects, m)
                    .is_none_or(|k| self.has_target(seat, k))
            })
            .collect()
    }

    /// Asks for the mode, then the target, of the lowest triggered ability on the stack still
    /// without them.
    pub(super) fn next_target_choice(&mut self) {
        let moding = self
            .stack
            .iter()
            .position(|it| it.mode.is_none() && self.trigger_modes(it) > 0);
        if let Some(i) = moding {
            self.pending = Pending::ChooseMode {
                player: self.stack[i].controller,
                item: i as u8,
            };
            return;
        }
        let waiting = self.stack.iter().position(|it| {
            it.target.is_none() && !it.untargeted && self.trigger_target_kind(it).is_some()
        });
        if let Some(i) = waiting {
            // Zero targets is the only choice of an optional target with no legal one.
            let it = &self.stack[i];
            if self.target_optional(it) && self.trigger_targets(it.controller, it).is_empty() {
                self.decline_target(i);
                return self.next_target_choice();
            }
            self.pending = Pending::ChooseTarget {
                player: self.stack[i].controller,
                item: i as u8,
            };
        }
    }

    /// The modes the ability awaiting its mode may take.
    pub fn trigger_mode_options(&self) -> Vec<u8> {
        match self.pending {
            Pending::ChooseMode { player, item } => self
                .stack
                .get(item as usize)
                .and_then(|it| {
                    it.ability
                        .map(|a| &self.card(it.card).triggers[a as usize].1)
                })
                .map(|es| {
                    self.choosable_modes(player, es)
                        .into_iter()
                        .flatten()
                        .collect()
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Records a chosen mode (checked by the caller) and asks for what comes next.
    pub(super) fn set_trigger_mode(&mut self, item: usize, mode: u8) {
        self.stack[item].mode = Some(mode);
        self.pending = Pending::Priority;
        self.next_target_choice();
    }

    /// Records a chosen target (checked legal by the caller) and asks for the next one.
    pub(super) fn set_trigger_target(&mut self, item: usize, t: Target) {
        let moves = match t {
            Target::Obj(o) => self.obj(o).moves,
            Target::Player(_) => 0,
        };
        let it = &mut self.stack[item];
        it.target = Some(t);
        it.target_moves = moves;
        self.pending = Pending::Priority;
        self.next_target_choice();
    }

    /// Every legal target of the ability awaiting its target.
    pub fn trigger_target_options(&self) -> Vec<Target> {
        match self.pending {
            Pending::ChooseTarget { player, item } => self
                .stack
                .get(item as usize)
                .map(|it| self.trigger_targets(player, it))
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// CR 608.2: resolves a triggered ability; its source stays where it is.
    pub(super) fn resolve_ability(&mut self, item: &StackItem, ability: u8, ev: &mut Vec<Event>) {
        self.sba_check = true;
        let card = self.card(item.card);
        let effects: Vec<Effect> = if item.activated {
            card.activated[ability as usize].effects.clone()
        } else {
            mode_effects(&card.triggers[ability as usize].1, item.mode)
                .copied()
                .collect()
        };
        // CR 608.2b: an ability whose target is illegal now (or a new object, CR 400.7) does
        // nothing.
        if let (Some(k), Some(t)) = (effects.iter().find_map(Effect::target), item.target)
            && (!self.target_ok(item.controller, k, t)
                || matches!(t, Target::Obj(o) if self.obj(o).moves != item.target_moves))
        {
            ev.push(Event::Fizzled { card: item.card });
            return;
        }
        // CR 603.4: an intervening-if condition that no longer holds makes it do nothing.
        let live = match effects.first() {
            Some(Effect::If(c)) => self.holds(*c, item.card, item.controller),
            _ => true,
        };
        // "That creature" gone (or a new object, CR 400.7): the effects on it do nothing.
        let named_gone = matches!(item.target, Some(Target::Obj(o))
            if self.obj(o).zone != Zone::Battlefield || self.obj(o).moves != item.target_moves);
        for e in effects.into_iter().filter(|_| live) {
            // No target chosen for an optional one: its targeted effects do nothing.
            if item.untargeted && e.target().is_some() {
                continue;
            }
            if named_gone && matches!(e, Effect::Counters(_, TargetKind::Triggering)) {
                continue;
            }
            // CR 608.2d: "you may" stops here for its controller's answer.
            if let Effect::May(cost) = e {
                let optional = Optional {
                    source: item.card,
                    cost,
                    target: item.target,
                    ability: Some(ability),
                    activated: item.activated,
                    kicked: false,
                    mode: item.mode,
                };
                self.begin_may(item.controller, optional);
                break;
            }
            self.perform(item.card, item.controller, e, item.target, ev);
        }
        ev.push(Event::AbilityResolved {
            card: item.card,
            ability,
        });
    }
}
