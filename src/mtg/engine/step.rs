//! Applying one move: [`State::step`] validates the whole move, then changes the state.

use super::*;

impl State {
    /// Applies a move in place. Validation is complete before the first change: on `Err`
    /// nothing changed.
    pub fn step(&mut self, mv: &Move, ev: &mut Vec<Event>) -> Result<(), Illegal> {
        let Some(who) = self.decider() else {
            return illegal("the game is over");
        };
        let seen = ev.len();
        if *mv == Move::Concede {
            // CR 104.3a: a player may concede at any time.
            ev.push(Event::Conceded { player: who });
            self.lose(who, "conceded", ev);
            self.decisions += 1;
            self.finish_if_lost("concede".into(), ev);
            return Ok(());
        }
        match (self.pending, mv) {
            (Pending::Mulligan { player }, Move::Keep | Move::Mulligan) => {
                let mulligan = *mv == Move::Mulligan;
                if mulligan && self.players[player.i()].mulligans >= 7 {
                    return illegal("no more mulligans: keep");
                }
                // CR 103.5: each player declares in turn order; nothing is revealed or
                // done until every undecided player has declared.
                self.decisions += 1;
                self.players[player.i()].opening = Opening::Declared { mulligan };
                self.next_opening_decision(ev);
            }
            (Pending::Bottom { player, count }, Move::Bottom(cards)) => {
                self.check_hand_subset(player, cards, count as usize, "bottom")?;
                self.decisions += 1;
                for &id in cards {
                    let p = &mut self.players[player.i()];
                    p.hand.retain(|&h| h != id);
                    p.library.push(id);
                    self.objs[id.i()].zone = Zone::Library;
                }
                self.players[player.i()].opening = Opening::Kept;
                ev.push(Event::Kept {
                    player,
                    bottomed: count,
                });
                self.next_opening_decision(ev);
            }
            (Pending::Discard { player, count }, Move::Discard(cards)) => {
                self.check_hand_subset(player, cards, count as usize, "discard")?;
                self.decisions += 1;
                self.discard_cards(player, cards, ev);
                self.cleanup_rest(ev);
            }
            (Pending::Surveil { player, count }, Move::Surveil(_) | Move::SurveilOrder { .. }) => {
                let (cards, order) = match mv {
                    Move::SurveilOrder { graveyard, top } => (graveyard, Some(top)),
                    Move::Surveil(cards) => (cards, None),
                    _ => unreachable!("matched above"),
                };
                let top = &self.players[player.i()].library[..count as usize];
                for (i, c) in cards.iter().enumerate() {
                    if !top.contains(c) || cards[..i].contains(c) {
                        return illegal(format!(
                            "{c} is not one of the top {count} cards of your library (once each)"
                        ));
                    }
                }
                // CR 701.25a: the rest go back on top in any order the player chooses.
                let rest: Vec<Id> = top.iter().copied().filter(|c| !cards.contains(c)).collect();
                if let Some(order) = order {
                    let same = order.len() == rest.len()
                        && rest.iter().all(|c| order.contains(c))
                        && order
                            .iter()
                            .enumerate()
                            .all(|(i, c)| !order[..i].contains(c));
                    if !same {
                        return illegal(format!(
                            "top must list each card looked at and not put into the graveyard \
                             once ({}), the first on top",
                            rest.iter()
                                .map(Id::to_string)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    }
                }
                self.decisions += 1;
                if let Some(order) = order {
                    let lib = &mut self.players[player.i()].library;
                    let mut next = order.iter();
                    for slot in lib[..count as usize].iter_mut() {
                        if !cards.contains(slot) {
                            *slot = *next.next().expect("order holds every card left");
                        }
                    }
                }
                for &id in cards {
                    let p = &mut self.players[player.i()];
                    p.library.retain(|&l| l != id);
                    p.graveyard.push(id);
                    self.objs[id.i()].zone = Zone::Graveyard;
                }
                ev.push(Event::Surveilled {
                    player,
                    looked_at: count,
                    graveyard: cards.clone(),
                });
                // The resolution is over: the active player receives priority (CR 117.3b).
                self.pending = Pending::Priority;
                self.priority = self.active;
            }
            (Pending::Priority, Move::Pass) => {
                self.decisions += 1;
                self.pass_priority(ev);
            }
            (Pending::Priority, Move::PlayLand(id)) => {
                let seat = self.priority;
                if !self.valid_id(*id) || !self.can_play_land(seat, *id) {
                    return illegal(self.why_not_land(seat, *id));
                }
                self.decisions += 1;
                // CR 305.1: a special action; it does not use the stack.
                self.players[seat.i()].hand.retain(|&h| h != *id);
                self.players[seat.i()].lands_played += 1;
                self.objs[id.i()].zone = Zone::Battlefield;
                // CR 614.1c: "This land enters tapped."
                self.objs[id.i()].tapped = self.card(*id).enters_tapped;
                self.battlefield.push(*id);
                self.recount(seat);
                self.passes = 0;
                ev.push(Event::PlayedLand {
                    player: seat,
                    card: *id,
                });
            }
            (
                Pending::Priority,
                Move::Cast {
                    card,
                    target,
                    tap,
                    mode,
                },
            ) => {
                self.validate_second(*card, *mode, None)?;
                let taps = self.validate_cast(*card, *target, tap.as_deref(), *mode)?;
                self.decisions += 1;
                self.cast(*card, *target, &taps, *mode, None, ev);
                self.ward_check(self.priority, *target, self.stack.len() - 1, ev);
            }
            (
                Pending::Priority,
                Move::CastKicked {
                    card,
                    target,
                    tap,
                    mode,
                },
            ) => {
                self.validate_second(*card, *mode, None)?;
                let taps = self.validate_kicked(*card, *target, tap.as_deref(), *mode)?;
                self.decisions += 1;
                self.cast(*card, *target, &taps, *mode, None, ev);
                self.kicked.push((*card, self.obj(*card).moves));
                self.ward_check(self.priority, *target, self.stack.len() - 1, ev);
            }
            (
                Pending::Priority,
                Move::ActivateWith {
                    card,
                    ability,
                    target,
                    tap,
                    sacrifice,
                },
            ) => {
                self.activate_with(*card, *ability, *target, tap.as_deref(), *sacrifice, ev)?;
            }
            (
                Pending::Priority,
                Move::CastWith {
                    card,
                    target,
                    tap,
                    mode,
                    kicked,
                    x,
                    discard,
                    sacrifice,
                },
            ) => {
                let p = super::cast_costs::Paying {
                    kicked: *kicked,
                    x: *x,
                    discard: *discard,
                    sacrifice: *sacrifice,
                };
                self.cast_with(*card, *target, tap.as_deref(), *mode, p, ev)?;
            }
            (
                Pending::Priority,
                Move::Activate {
                    card,
                    ability,
                    target,
                    tap,
                },
            ) => {
                let taps = self.validate_activate(*card, *ability, *target, tap.as_deref())?;
                self.decisions += 1;
                self.activate(*card, *ability, *target, &taps, ev);
                self.ward_check(self.priority, *target, self.stack.len() - 1, ev);
            }
            (Pending::ChooseTarget { player, item }, Move::ChooseTarget(t)) => {
                let it = &self.stack[item as usize];
                if !self.trigger_target_ok(player, it, *t) {
                    return illegal(format!("{t} is not a legal target for that ability"));
                }
                self.decisions += 1;
                self.set_trigger_target(item as usize, *t);
                self.ward_check(player, Some(*t), item as usize, ev);
            }
            (
                Pending::Priority,
                Move::CastTwo {
                    card,
                    targets: [first, second],
                    tap,
                    mode,
                },
            ) => {
                self.validate_second(*card, *mode, Some(*second))?;
                let taps = self.validate_cast(*card, Some(*first), tap.as_deref(), *mode)?;
                self.decisions += 1;
                self.cast(*card, Some(*first), &taps, *mode, Some(*second), ev);
                let item = self.stack.len() - 1;
                self.ward_check(self.priority, Some(*first), item, ev);
                self.ward_check(self.priority, Some(*second), item, ev);
            }
            (Pending::ChooseTarget { item, .. }, Move::ChooseNoTarget) => {
                if let Err(why) = self.validate_no_target(item) {
                    return illegal(why);
                }
                self.decisions += 1;
                self.decline_target(item as usize);
                self.next_target_choice();
            }
            (Pending::LegendRule { .. }, Move::KeepLegend(keep)) => {
                self.validate_keep_legend(*keep)?;
                self.decisions += 1;
                self.keep_legend(*keep, ev);
            }
            (Pending::WardPayment { warded, .. }, Move::Ward { pay, tap }) => {
                let taps = self.validate_ward(&warded, *pay, tap.as_deref())?;
                self.decisions += 1;
                self.answer_ward(warded, *pay, &taps, ev);
            }
            (
                Pending::ChooseDiscard {
                    player,
                    from,
                    nonland,
                },
                Move::Discard(cards),
            ) => {
                self.check_choose_discard(player, from, nonland, cards)?;
                self.decisions += 1;
                self.discard_cards(from, cards, ev);
                self.pending = Pending::Priority;
            }
            (Pending::Look { player, look }, Move::Look(cards)) => {
                self.check_look(player, look, cards)?;
                self.decisions += 1;
                self.finish_look(player, look, cards, ev);
            }
            (Pending::May { player, optional }, Move::May { accept, card, tap }) => {
                let taps = self.check_may(player, &optional, *accept, *card, tap.as_deref())?;
                self.decisions += 1;
                self.answer_may(player, optional, *accept, *card, &taps, ev);
            }
            (Pending::Discarding { player, count }, Move::Discard(cards)) => {
                self.check_hand_subset(player, cards, count as usize, "discard")?;
                self.decisions += 1;
                self.discard_cards(player, cards, ev);
                self.pending = Pending::Priority;
            }
            (Pending::ChooseMode { item, .. }, Move::ChooseMode(m)) => {
                if !self.trigger_mode_options().contains(m) {
                    return illegal(format!(
                        "mode {m} cannot be chosen for that ability (it has {} modes; a mode \
                         whose target has no legal choice cannot be chosen, CR 700.2a)",
                        self.card(self.stack[item as usize].card)
                            .triggers
                            .get(self.stack[item as usize].ability.unwrap_or(0) as usize)
                            .map_or(0, |t| crate::mtg::lower::mode_count(&t.1))
                    ));
                }
                self.decisions += 1;
                self.set_trigger_mode(item as usize, *m);
            }
            (Pending::Search { player, search }, Move::Search(cards)) => {
                self.check_search(player, search, cards)?;
                self.decisions += 1;
                self.finish_search(player, search, cards, ev);
            }
            (Pending::DeclareAttackers, Move::Attack(_) | Move::AttackWith(_)) => {
                let at: Vec<(Id, Option<Id>)> = match mv {
                    Move::AttackWith(v) => v.clone(),
                    Move::Attack(ids) => ids.iter().map(|&a| (a, None)).collect(),
                    _ => unreachable!("matched above"),
                };
                let ids: Vec<Id> = at.iter().map(|p| p.0).collect();
                let ids = &ids;
                let cands = self.attack_candidates();
                for (i, id) in ids.iter().enumerate() {
                    if !cands.contains(id) {
                        return illegal(format!(
                            "{id} cannot attack (not an untapped creature of yours that has been under your control since your turn began, or it has defender)"
                        ));
                    }
                    if ids[..i].contains(id) {
                        return illegal(format!("{id} is declared twice"));
                    }
                }
                self.check_attacked(&at)?;
                self.check_requirements(ids)?;
                self.decisions += 1;
                self.declare_attackers(&at, ev);
            }
            (Pending::DeclareBlockers, Move::Block(pairs)) => {
                let def = self.active.other();
                for (i, (b, a)) in pairs.iter().enumerate() {
                    let ok_blocker = self.valid_id(*b)
                        && self.obj(*b).zone == Zone::Battlefield
                        && self.obj(*b).owner == def
                        && self.is_creature(*b)
                        && !self.obj(*b).tapped;
                    if !ok_blocker {
                        return illegal(format!(
                            "{b} cannot block (not an untapped creature of the defending player)"
                        ));
                    }
                    if !self.valid_id(*a) || !self.combat.attackers.iter().any(|x| x.id == *a) {
                        return illegal(format!("{a} is not attacking"));
                    }
                    if !self.can_block(*b, *a) {
                        return illegal(format!(
                            "{b} cannot block {a} (flying: only creatures with flying or reach)"
                        ));
                    }
                    if pairs[..i].iter().any(|(x, _)| x == b) {
                        return illegal(format!("{b} blocks twice"));
                    }
                }
                self.menace_ok(pairs).map_err(Illegal)?;
                self.decisions += 1;
                self.declare_blockers(pairs, ev);
            }
            (Pending::AssignDamage { attacker }, Move::Assign { attacker: a, split }) => {
                if *a != attacker {
                    return illegal(format!(
                        "damage of {attacker} must be assigned now, not {a}"
                    ));
                }
                self.validate_assignment(attacker, split)?;
                self.decisions += 1;
                let Some(at) = self.combat.attackers.iter_mut().find(|x| x.id == attacker) else {
                    return illegal("that attacker is not in combat");
                };
                at.assignment = split.clone();
                self.next_assignment_or_damage(ev);
            }
            (_, m) => {
                return illegal(format!(
                    "{} is not a legal action now: the decision is {} for {}",
                    move_name(m),
                    self.kind(),
                    who.name()
                ));
            }
        }
        self.settle_from(ev, seen);
        self.note_turn_events(ev, seen);
        Ok(())
    }

    pub(super) fn valid_id(&self, id: Id) -> bool {
        id.i() < self.objs.len()
    }

    pub(super) fn check_hand_subset(
        &self,
        p: Seat,
        cards: &[Id],
        n: usize,
        what: &str,
    ) -> Result<(), Illegal> {
        if cards.len() != n {
            return illegal(format!(
                "{what}: choose exactly {n} cards, got {}",
                cards.len()
            ));
        }
        for (i, id) in cards.iter().enumerate() {
            if !self.valid_id(*id) || !self.players[p.i()].hand.contains(id) {
                return illegal(format!("{what}: {id} is not in your hand"));
            }
            if cards[..i].contains(id) {
                return illegal(format!("{what}: {id} chosen twice"));
            }
        }
        Ok(())
    }
}
