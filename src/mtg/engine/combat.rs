//! Combat: attackers, blockers, damage assignment and combat damage (CR 506-511).

use super::*;

impl State {
    /// Creatures that could attack now (CR 508.1a, 302.6, 702.3b, 702.10).
    pub fn attack_candidates(&self) -> Vec<Id> {
        self.battlefield
            .iter()
            .copied()
            .filter(|&id| {
                let o = self.obj(id);
                o.owner == self.active
                    && self.is_creature(id)
                    && !o.tapped
                    && (!o.sick || self.has(id, kw::HASTE))
                    && !self.has(id, kw::DEFENDER)
            })
            .collect()
    }

    /// Whether `blocker` may block `attacker` (CR 509.1a, 702.9b, 702.17b; 509.1a-b: "can't
    /// block" and "can't be blocked" statics).
    pub fn can_block(&self, blocker: Id, attacker: Id) -> bool {
        (!self.has(attacker, kw::FLYING) || self.has(blocker, kw::FLYING | kw::REACH))
            && !self.unblockable(attacker)
            && !self.cant_block(blocker)
            && !self.unblockable_by(attacker, blocker)
    }

    /// Each untapped creature of the defending player with the attackers it may block.
    pub fn block_candidates(&self) -> Vec<(Id, Vec<Id>)> {
        let def = self.active.other();
        let attackers: Vec<Id> = self
            .combat
            .attackers
            .iter()
            .map(|a| a.id)
            .filter(|&a| self.obj(a).zone == Zone::Battlefield)
            .collect();
        self.battlefield
            .iter()
            .copied()
            .filter(|&id| self.obj(id).owner == def && self.is_creature(id) && !self.obj(id).tapped)
            .filter_map(|b| {
                let can: Vec<Id> = attackers
                    .iter()
                    .copied()
                    .filter(|&a| self.can_block(b, a))
                    .collect();
                (!can.is_empty()).then_some((b, can))
            })
            .collect()
    }

    /// Damage that is lethal to `id` now (CR 702.2c deathtouch makes 1 lethal).
    pub fn lethal(&self, id: Id, deathtouch_source: bool) -> i16 {
        let left = (self.toughness(id) - self.obj(id).damage).max(0);
        if deathtouch_source { left.min(1) } else { left }
    }

    pub(super) fn live_blockers(&self, a: &Attacker) -> Vec<Id> {
        a.blockers
            .iter()
            .copied()
            .filter(|&b| self.obj(b).zone == Zone::Battlefield)
            .collect()
    }

    pub(super) fn deals_now(&self, id: Id) -> bool {
        let fs = self.has(id, kw::FIRST_STRIKE);
        let ds = self.has(id, kw::DOUBLE_STRIKE);
        if self.step == Step::FirstStrikeDamage {
            fs || ds
        } else if self.combat.first_strike_step {
            ds || !fs
        } else {
            true
        }
    }

    pub(super) fn declare_attackers(&mut self, at: &[(Id, Option<Id>)], ev: &mut Vec<Event>) {
        let def = self.active.other();
        let ids: Vec<Id> = at.iter().map(|p| p.0).collect();
        for &(id, planeswalker) in at {
            if !self.has(id, kw::VIGILANCE) {
                self.objs[id.i()].tapped = true; // CR 508.1f, 702.20b
            }
            self.combat.attackers.push(Attacker {
                id,
                defender: def,
                blockers: Vec::new(),
                blocked: false,
                assignment: Vec::new(),
                planeswalker,
            });
        }
        if !ids.is_empty() {
            ev.push(Event::Attacked { attackers: ids });
        }
        self.pending = Pending::Priority;
        self.priority = self.active;
        self.passes = 0;
    }

    pub(super) fn declare_blockers(&mut self, pairs: &[(Id, Id)], ev: &mut Vec<Event>) {
        for &(b, a) in pairs {
            if let Some(at) = self.combat.attackers.iter_mut().find(|x| x.id == a) {
                at.blockers.push(b);
                at.blocked = true;
            }
        }
        if !pairs.is_empty() {
            ev.push(Event::Blocked {
                blocks: pairs.to_vec(),
            });
        }
        self.pending = Pending::Priority;
        self.priority = self.active;
        self.passes = 0;
    }

    /// Whether the attacker's damage needs a division by its controller this step.
    pub(super) fn needs_assignment(&self, a: &Attacker) -> bool {
        if self.obj(a.id).zone != Zone::Battlefield || !self.deals_now(a.id) || !a.blocked {
            return false;
        }
        let power = self.power(a.id);
        let live = self.live_blockers(a);
        if power <= 0 || live.is_empty() {
            return false;
        }
        if live.len() >= 2 {
            return true;
        }
        // One blocker: a choice only with trample and more than lethal damage.
        self.has(a.id, kw::TRAMPLE) && power > self.lethal(live[0], self.has(a.id, kw::DEATHTOUCH))
    }

    pub(super) fn next_assignment_or_damage(&mut self, ev: &mut Vec<Event>) {
        let next = self
            .combat
            .attackers
            .iter()
            .find(|a| a.assignment.is_empty() && self.needs_assignment(a))
            .map(|a| a.id);
        match next {
            Some(attacker) => self.pending = Pending::AssignDamage { attacker },
            None => {
                self.combat_damage(ev);
                self.pending = Pending::Priority;
                self.priority = self.active;
                self.passes = 0;
            }
        }
    }

    /// CR 510.1-2: every combatant that deals damage this step deals it at once.
    pub(super) fn combat_damage(&mut self, ev: &mut Vec<Event>) {
        let mut hits: Vec<(Id, Target, i16)> = Vec::new();
        for a in &self.combat.attackers {
            if self.obj(a.id).zone != Zone::Battlefield {
                continue;
            }
            let live = self.live_blockers(a);
            if self.deals_now(a.id) {
                let power = self.power(a.id);
                if !a.blocked {
                    hits.extend(self.attacked(a).map(|t| (a.id, t, power)));
                } else if !a.assignment.is_empty() {
                    hits.extend(a.assignment.iter().map(|&(t, n)| (a.id, t, n)));
                } else if let Some(&b) = live.first() {
                    hits.push((a.id, Target::Obj(b), power));
                } else if self.has(a.id, kw::TRAMPLE) {
                    // CR 702.19e: a blocked trampler with no blockers left hits the player
                    // (or the planeswalker) it attacks.
                    hits.extend(self.attacked(a).map(|t| (a.id, t, power)));
                }
            }
            for b in live {
                if self.deals_now(b) {
                    hits.push((b, Target::Obj(a.id), self.power(b)));
                }
            }
        }
        for (src, t, n) in hits {
            // CR 615.1: combat damage to a shielded creature is prevented (not dealt).
            if matches!(t, Target::Obj(c) if self.obj(c).shielded) {
                continue;
            }
            self.deal(src, t, n, ev);
        }
    }

    /// CR 510.1c-d (current rules): the attacking player divides damage freely among the
    /// blockers; with trample, the player may get damage only once every blocker has been
    /// assigned lethal damage (deathtouch: 1 is lethal, 702.2c).
    pub(super) fn validate_assignment(
        &self,
        attacker: Id,
        split: &[(Target, i16)],
    ) -> Result<(), Illegal> {
        let Some(a) = self.combat.attackers.iter().find(|x| x.id == attacker) else {
            return illegal("that attacker is not in combat");
        };
        let live = self.live_blockers(a);
        let power = self.power(attacker);
        let trample = self.has(attacker, kw::TRAMPLE);
        let dt = self.has(attacker, kw::DEATHTOUCH);
        let mut total = 0i16;
        let mut to_player = 0i16;
        for (i, (t, n)) in split.iter().enumerate() {
            if *n < 0 {
                return illegal("damage amounts must not be negative");
            }
            if split[..i].iter().any(|(x, _)| x == t) {
                return illegal(format!("{t} appears twice in the assignment"));
            }
            match t {
                Target::Obj(b) if live.contains(b) => {}
                t if trample && self.attacked(a) == Some(*t) => to_player += n,
                _ => {
                    return illegal(format!(
                        "{t} is not a blocker of {attacker}{}",
                        if trample {
                            " or the player or planeswalker it attacks"
                        } else {
                            ""
                        }
                    ));
                }
            }
            total += n;
        }
        if total != power {
            return illegal(format!("assign exactly {power} damage, got {total}"));
        }
        if to_player > 0 {
            for b in &live {
                let got = split
                    .iter()
                    .find(|(t, _)| *t == Target::Obj(*b))
                    .map_or(0, |x| x.1);
                if got < self.lethal(*b, dt) {
                    return illegal(format!(
                        "trample: {b} must be assigned lethal damage ({}) before any goes to the player",
                        self.lethal(*b, dt)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The blockers (alive) of an attacker, and whether it has trample and deathtouch, for
    /// the damage assignment decision.
    pub fn assign_info(&self, attacker: Id) -> (Vec<Id>, i16, bool, bool) {
        // A state the engine reached always has its pending attacker in combat; one that
        // does not (never trusted from a cache: see `journal::GameFiles::load`) has nothing
        // to assign rather than a panic.
        let Some(a) = self.combat.attackers.iter().find(|x| x.id == attacker) else {
            return (Vec::new(), 0, false, false);
        };
        (
            self.live_blockers(a),
            self.power(attacker),
            self.has(attacker, kw::TRAMPLE),
            self.has(attacker, kw::DEATHTOUCH),
        )
    }
}
