//! Turn structure: turns, steps and their turn-based actions, and running the game forward
//! until a player must decide (CR 500-514, 117).

use super::*;

impl State {
    /// The player who must decide, with the pending decision's kind name.
    pub fn kind(&self) -> &'static str {
        match self.pending {
            Pending::Mulligan { .. } => "mulligan",
            Pending::Bottom { .. } => "bottom",
            Pending::Priority => "priority",
            Pending::DeclareAttackers => "declare_attackers",
            Pending::DeclareBlockers => "declare_blockers",
            Pending::AssignDamage { .. } => "assign_damage",
            Pending::Discard { .. } | Pending::Discarding { .. } => "discard",
            Pending::ChooseTarget { .. } => "choose_target",
            Pending::Surveil { .. } => "surveil",
            Pending::Search { .. } => "search",
            Pending::ChooseMode { .. } => "choose_mode",
            Pending::WardPayment { .. } => "ward",
            Pending::LegendRule { .. } => "legend_rule",
            Pending::GameOver => "game_over",
            Pending::ChooseDiscard { .. } => "choose_discard",
            Pending::May { .. } => "may",
            Pending::Look { .. } => "look",
        }
    }

    pub(super) fn begin_turn(&mut self, active: Seat, ev: &mut Vec<Event>) {
        self.turn += 1;
        self.active = active;
        self.priority = active;
        self.players[active.i()].lands_played = 0;
        self.this_turn.drawn = [0; 2];
        self.this_turn.gains = [0; 2];
        self.this_turn.life_gained = [0; 2];
        ev.push(Event::TurnStarted {
            turn: self.turn,
            active,
        });
        self.enter(Step::Untap, ev);
    }

    pub(super) fn next_step(&mut self, ev: &mut Vec<Event>) {
        let next = match self.step {
            Step::Untap => Step::Upkeep,
            // CR 103.8a: the starting player skips the draw step of the first turn, so no
            // player gets priority in it.
            Step::Upkeep if self.turn == 1 && self.active == self.starting_player => Step::Main1,
            Step::Upkeep => Step::Draw,
            Step::Draw => Step::Main1,
            Step::Main1 => Step::BeginningOfCombat,
            Step::BeginningOfCombat => Step::DeclareAttackers,
            Step::DeclareAttackers => {
                if self.combat.attackers.is_empty() {
                    Step::EndOfCombat // CR 508.8
                } else {
                    Step::DeclareBlockers
                }
            }
            Step::DeclareBlockers => {
                // CR 510.4: a first-strike damage step only if a combatant has first or
                // double strike.
                let fs = self.combat.attackers.iter().any(|a| {
                    std::iter::once(a.id)
                        .chain(a.blockers.iter().copied())
                        .any(|c| {
                            self.obj(c).zone == Zone::Battlefield
                                && self.has(c, kw::FIRST_STRIKE | kw::DOUBLE_STRIKE)
                        })
                });
                self.combat.first_strike_step = fs;
                if fs {
                    Step::FirstStrikeDamage
                } else {
                    Step::CombatDamage
                }
            }
            Step::FirstStrikeDamage => Step::CombatDamage,
            Step::CombatDamage => Step::EndOfCombat,
            Step::EndOfCombat => {
                self.combat = Combat::default(); // CR 511.3
                Step::Main2
            }
            Step::Main2 => Step::End,
            Step::End => Step::Cleanup,
            Step::Cleanup => {
                let next = self.active.other();
                self.begin_turn(next, ev);
                return;
            }
        };
        self.enter(next, ev);
    }

    /// Starts a step (a `step` event, so the journal shows every step change) and performs its
    /// turn-based actions.
    pub(super) fn enter(&mut self, step: Step, ev: &mut Vec<Event>) {
        self.step = step;
        ev.push(Event::Step { step });
        self.passes = 0;
        self.priority = self.active;
        // CR 500.4: mana empties between steps. Mana is spent as lands are tapped, so no
        // pool carries over.
        self.pending = Pending::Priority;
        let active = self.active;
        match step {
            Step::Untap => {
                // CR 502.2-3: untap; creatures controlled continuously since the turn began
                // are no longer summoning sick. No player gets priority (502.4).
                for i in 0..self.battlefield.len() {
                    let id = self.battlefield[i];
                    if self.objs[id.i()].owner == active {
                        self.objs[id.i()].sick = false;
                        self.untap_step_untap(id, ev);
                    }
                }
                self.recount(active);
                self.next_step(ev);
            }
            // CR 504.1: the active player draws (the skipped first draw step is never entered).
            Step::Draw => self.draw(active, ev),
            Step::DeclareAttackers => self.pending = Pending::DeclareAttackers,
            Step::DeclareBlockers => self.pending = Pending::DeclareBlockers,
            Step::FirstStrikeDamage | Step::CombatDamage => {
                for a in &mut self.combat.attackers {
                    a.assignment.clear();
                }
                self.next_assignment_or_damage(ev);
            }
            Step::Cleanup => {
                // CR 514.1: discard down to maximum hand size.
                let n = self.players[active.i()].hand.len();
                if n > 7 {
                    self.pending = Pending::Discard {
                        player: active,
                        count: (n - 7) as u8,
                    };
                } else {
                    self.cleanup_rest(ev);
                }
            }
            _ => {}
        }
    }

    /// CR 514.2: damage wears off and "until end of turn" effects end; then the next turn.
    pub(super) fn cleanup_rest(&mut self, ev: &mut Vec<Event>) {
        for &id in &self.battlefield {
            let o = &mut self.objs[id.i()];
            o.damage = 0;
            o.deathtouched = false;
            o.pump_p = 0;
            o.pump_t = 0;
            o.gained = 0;
            o.restricted = 0;
            o.shielded = false;
        }
        let next = self.active.other();
        self.begin_turn(next, ev);
    }

    /// Whether `seat` gets a priority decision now, judged on what both players can see:
    /// the player has a card in hand and either may play at sorcery speed (its main phase,
    /// empty stack) or has as many untapped lands as the cheapest instant-speed card (an
    /// instant, or a card with flash) of the game costs.
    /// Never the hand's contents: whether the engine stops for a player tells the opponent
    /// nothing about the cards that player holds. Every legal play is still offered, since a
    /// player who could cast or play something always meets these conditions; a player who
    /// stops with nothing castable simply passes (agents do that without deliberating).
    pub fn stops(&self, seat: Seat) -> bool {
        // The battlefield is public: a permanent whose ability can be activated now stops.
        if self.can_activate_any(seat) {
            return true;
        }
        // A card with flashback in a graveyard is public: it stops its owner when castable.
        if self.flashback_castable(seat) {
            return true;
        }
        if self.players[seat.i()].hand.is_empty() {
            return false;
        }
        if self.can_sorcery_speed(seat) {
            return true;
        }
        let lands: u32 = mana_available(self, seat).total();
        self.cards.iter().any(|c| {
            (c.kind == Kind::Instant || c.keywords & kw::FLASH != 0)
                && self.least_cost(seat, c) <= lands
        })
    }

    /// Runs the game forward until a player must make a real choice.
    pub fn settle(&mut self, ev: &mut Vec<Event>) {
        self.settle_from(ev, 0);
        self.note_turn_events(ev, 0);
    }

    /// [`State::settle`], reading triggers from the events from `seen` on.
    pub(super) fn settle_from(&mut self, ev: &mut Vec<Event>, mut seen: usize) {
        loop {
            match self.pending {
                Pending::Priority => {
                    // CR 117.5: SBAs before every grant of priority; then triggered
                    // abilities go on the stack (CR 603.3).
                    if self.check_sba(ev) || self.stack_triggers(ev, &mut seen) {
                        continue;
                    }
                    if self.stops(self.priority) {
                        return;
                    }
                    self.pass_priority(ev);
                }
                Pending::DeclareAttackers => {
                    if !self.attack_candidates().is_empty() {
                        return;
                    }
                    self.declare_attackers(&[], ev);
                }
                Pending::DeclareBlockers => {
                    if !self.block_candidates().is_empty() {
                        return;
                    }
                    self.declare_blockers(&[], ev);
                }
                _ => return,
            }
        }
    }
}
