//! Playing lands and casting spells: timing, targets, the legal priority moves and the cast
//! itself (CR 305, 601, 115).

use super::*;

impl State {
    pub(super) fn can_sorcery_speed(&self, seat: Seat) -> bool {
        // CR 307.1 / 305.1: main phase of your turn with an empty stack.
        self.active == seat && self.step.is_main() && self.stack.is_empty()
    }

    pub(crate) fn can_play_land(&self, seat: Seat, id: Id) -> bool {
        // CR 305.2: one land per turn.
        self.obj(id).zone == Zone::Hand
            && self.obj(id).owner == seat
            && matches!(self.card(id).kind, Kind::Land(_))
            && self.can_sorcery_speed(seat)
            && self.players[seat.i()].lands_played == 0
    }

    pub(super) fn why_not_land(&self, seat: Seat, id: Id) -> String {
        if !self.valid_id(id) || self.obj(id).zone != Zone::Hand || self.obj(id).owner != seat {
            return format!("{id} is not a card in your hand");
        }
        if !matches!(self.card(id).kind, Kind::Land(_)) {
            return format!("{id} is not a land");
        }
        if self.players[seat.i()].lands_played > 0 {
            return "you have already played a land this turn (CR 305.2)".into();
        }
        "lands are played only in your main phase with an empty stack (CR 305.1)".into()
    }

    pub(super) fn timing_ok(&self, seat: Seat, id: Id) -> bool {
        match self.card(id).kind {
            Kind::Instant => true,
            // CR 702.8a: flash lets a spell be cast any time its controller could cast an
            // instant.
            _ if self.has(id, kw::FLASH) => true,
            Kind::Land(_) => false,
            _ => self.can_sorcery_speed(seat),
        }
    }

    /// Whether `t` is a legal target of kind `k` now for a spell or ability `by` controls
    /// (CR 115, 608.2b; 702.11b hexproof).
    pub(crate) fn target_ok(&self, by: Seat, k: TargetKind, t: Target) -> bool {
        // A spell on the stack (hexproof works only on the battlefield, CR 702.11a).
        if k.is_spell() {
            return matches!(t, Target::Obj(id) if self
                .stack
                .iter()
                .any(|it| it.card == id && it.ability.is_none())
                && self.spell_kind_ok(k, id));
        }
        if k.in_graveyard() {
            return matches!(t, Target::Obj(id) if self.graveyard_target_ok(by, k, id));
        }
        if let Target::Obj(id) = t
            && id.i() < self.objs.len()
            && self.obj(id).owner != by
            && self.has(id, kw::HEXPROOF)
        {
            return false;
        }
        match (k, t) {
            (TargetKind::Any | TargetKind::Player, Target::Player(_)) => true,
            (TargetKind::Opponent, Target::Player(p)) => p != by,
            (_, Target::Player(_))
            | (TargetKind::Player | TargetKind::Opponent, Target::Obj(_)) => false,
            (_, Target::Obj(id)) => {
                if id.i() >= self.objs.len() || self.obj(id).zone != Zone::Battlefield {
                    return false;
                }
                let mine = self.obj(id).owner == by;
                let in_combat = || {
                    self.combat
                        .attackers
                        .iter()
                        .any(|a| a.id == id || a.blockers.contains(&id))
                };
                match k {
                    TargetKind::NonlandPermanent => !matches!(self.card(id).kind, Kind::Land(_)),
                    TargetKind::NonlandPermanentOpponent => {
                        !mine && !matches!(self.card(id).kind, Kind::Land(_))
                    }
                    TargetKind::ArtifactOrEnchantment => self.card(id).is_artifact_or_enchantment(),
                    TargetKind::Artifact => self.card(id).is_artifact(),
                    TargetKind::ArtifactEnchantmentOrFlyer => {
                        self.card(id).is_artifact_or_enchantment()
                            || (self.is_creature(id) && self.has(id, kw::FLYING))
                    }
                    // CR 115.4: "any target" is a creature, a player or a planeswalker.
                    TargetKind::Any | TargetKind::CreatureOrPlaneswalker
                        if self.is_planeswalker(id) =>
                    {
                        true
                    }
                    TargetKind::OtherPermanentYouControl => mine,
                    TargetKind::CreatureOrPlaneswalkerOpponent if self.is_planeswalker(id) => !mine,
                    _ if !self.is_creature(id) => false,
                    TargetKind::TappedCreature => self.obj(id).tapped,
                    TargetKind::CreatureYouControl => mine,
                    TargetKind::CreatureOpponentControls
                    | TargetKind::CreatureOrPlaneswalkerOpponent => !mine,
                    TargetKind::CombatCreature => in_combat(),
                    TargetKind::CreatureTypeYouControl(t) => {
                        mine && self.card(id).subtypes.iter().any(|s| s == t)
                    }
                    _ => true,
                }
            }
        }
    }

    /// Every legal target of kind `k` for a spell `by` controls.
    pub(crate) fn targets(&self, by: Seat, k: TargetKind) -> Vec<Target> {
        let mut v = Vec::new();
        for p in [Seat::P1, Seat::P2] {
            if self.target_ok(by, k, Target::Player(p)) {
                v.push(Target::Player(p));
            }
        }
        if k.in_graveyard() {
            for &id in self.graveyards_of(by, k) {
                if self.graveyard_target_ok(by, k, id) {
                    v.push(Target::Obj(id));
                }
            }
        } else if k.is_spell() {
            for it in self.stack.iter().filter(|it| it.ability.is_none()) {
                if self.spell_kind_ok(k, it.card) {
                    v.push(Target::Obj(it.card));
                }
            }
        } else if !matches!(k, TargetKind::Player | TargetKind::Opponent) {
            for &id in &self.battlefield {
                if self.target_ok(by, k, Target::Obj(id)) {
                    v.push(Target::Obj(id));
                }
            }
        }
        v
    }

    pub(super) fn has_target(&self, by: Seat, k: TargetKind) -> bool {
        matches!(
            k,
            TargetKind::Any | TargetKind::Player | TargetKind::Opponent
        ) || (k.is_spell()
            && self
                .stack
                .iter()
                .any(|it| it.ability.is_none() && self.spell_kind_ok(k, it.card)))
            || (k.in_graveyard()
                && self
                    .graveyards_of(by, k)
                    .any(|&id| self.graveyard_target_ok(by, k, id)))
            || self
                .battlefield
                .iter()
                .any(|&id| self.target_ok(by, k, Target::Obj(id)))
    }

    /// Whether `seat` could cast `id` now with some target and automatic payment.
    pub(crate) fn castable(&self, seat: Seat, id: Id, avail: &mana::Avail) -> bool {
        let c = self.card(id);
        self.castable_zone(id)
            && self.obj(id).owner == seat
            && !matches!(c.kind, Kind::Land(_))
            && self.timing_ok(seat, id)
            && self.affordable_now(seat, id, avail)
            && self.additional_payable(seat, id, avail)
            && !self.choosable_modes(seat, &c.effects).is_empty()
    }

    /// Whether `seat` has any legal action besides passing priority.
    pub fn has_play(&self, seat: Seat) -> bool {
        let hand = &self.players[seat.i()].hand;
        if self.can_activate_any(seat) {
            return true;
        }
        if self.flashback_castable(seat) {
            return true;
        }
        if hand.is_empty() {
            return false;
        }
        // Cheap checks first: most priority grants happen where only instants could be cast.
        let sorcery_ok = self.can_sorcery_speed(seat);
        let land_ok = sorcery_ok && self.players[seat.i()].lands_played == 0;
        let mut spell = false;
        for &id in hand {
            match self.card(id).kind {
                Kind::Land(_) if land_ok => return true,
                Kind::Land(_) => {}
                Kind::Instant => spell = true,
                _ if self.has(id, kw::FLASH) => spell = true,
                _ => spell |= sorcery_ok,
            }
        }
        if !spell {
            return false;
        }
        let avail = mana_available(self, seat);
        hand.iter().any(|&id| self.castable(seat, id, &avail))
    }

    /// Every complete legal move at a priority decision (pass first).
    pub fn priority_moves(&self) -> Vec<Move> {
        let seat = self.priority;
        let mut v = vec![Move::Pass];
        let avail = mana_available(self, seat);
        for &id in self.players[seat.i()]
            .hand
            .iter()
            .chain(self.flashback_cards(seat).iter())
        {
            if self.can_play_land(seat, id) {
                v.push(Move::PlayLand(id));
            } else if self.castable(seat, id, &avail) {
                let c = self.card(id);
                for mode in self.choosable_modes(seat, &c.effects) {
                    match c.target_of(mode) {
                        None => v.push(Move::Cast {
                            card: id,
                            target: None,
                            tap: None,
                            mode,
                        }),
                        Some(_) if c.second_target_of(mode).is_some() => {
                            self.two_target_casts(seat, id, mode, &mut v);
                        }
                        Some(k) => {
                            for t in self.targets(seat, k) {
                                // A reduction for this target may be what makes it payable.
                                if c.costs_less.is_some()
                                    && !mana::affordable_cost(
                                        &self.cast_cost(seat, id, Some(t)),
                                        &avail,
                                    )
                                {
                                    continue;
                                }
                                v.push(Move::Cast {
                                    card: id,
                                    target: Some(t),
                                    tap: None,
                                    mode,
                                });
                            }
                        }
                    }
                }
            }
        }
        self.kicked_moves(seat, &avail, &mut v);
        self.cast_cost_moves(seat, &avail, &mut v);
        self.activation_moves(seat, &mut v);
        self.sacrifice_moves(seat, &mut v);
        v
    }

    /// Checks a cast (CR 601.2) and returns the lands to tap.
    pub(super) fn validate_cast(
        &self,
        id: Id,
        target: Option<Target>,
        tap: Option<&[Id]>,
        mode: Option<u8>,
    ) -> Result<Vec<Id>, Illegal> {
        self.validate_cast_paying(id, target, tap, mode, false)
    }

    /// [`State::validate_cast`], with the kicker cost paid too when `kicked` (CR 702.33a).
    pub(super) fn validate_cast_paying(
        &self,
        id: Id,
        target: Option<Target>,
        tap: Option<&[Id]>,
        mode: Option<u8>,
        kicked: bool,
    ) -> Result<Vec<Id>, Illegal> {
        self.validate_cast_full(
            id,
            target,
            tap,
            mode,
            cast_costs::Paying {
                kicked,
                ..Default::default()
            },
        )
    }

    /// [`State::validate_cast`], paying `p` too: the kicker, X and the additional cost
    /// (CR 601.2b, 601.2f).
    pub(super) fn validate_cast_full(
        &self,
        id: Id,
        target: Option<Target>,
        tap: Option<&[Id]>,
        mode: Option<u8>,
        p: cast_costs::Paying,
    ) -> Result<Vec<Id>, Illegal> {
        let seat = self.priority;
        if !self.valid_id(id) || !self.castable_zone(id) || self.obj(id).owner != seat {
            return illegal(format!(
                "{id} is not a card in your hand (or one with flashback in your graveyard)"
            ));
        }
        let c = self.card(id);
        if matches!(c.kind, Kind::Land(_)) {
            return illegal(format!("{id} is a land: play it with play_land"));
        }
        if !self.timing_ok(seat, id) {
            return illegal(format!(
                "{} can be cast only in your main phase with an empty stack (CR 307.1)",
                c.data.name
            ));
        }
        // CR 700.2a: a modal spell's mode is chosen as it is cast.
        match (c.modes(), mode) {
            (0, None) => {}
            (0, Some(_)) => return illegal(format!("{} is not modal: no mode", c.data.name)),
            (n, None) => {
                return illegal(format!(
                    "{} is modal: choose a mode (0 to {})",
                    c.data.name,
                    n - 1
                ));
            }
            (n, Some(m)) if m >= n => {
                return illegal(format!("{} has modes 0 to {}, not {m}", c.data.name, n - 1));
            }
            _ => {}
        }
        match (c.target_of(mode), target) {
            (None, None) => {}
            (None, Some(_)) => return illegal(format!("{} takes no target", c.data.name)),
            (Some(_), None) => return illegal(format!("{} needs a target", c.data.name)),
            (Some(k), Some(t)) => {
                if !self.target_ok(seat, k, t) {
                    return illegal(format!("{t} is not a legal target for {}", c.data.name));
                }
            }
        }
        self.check_cast_costs(seat, id, p)?;
        let cost = self.cast_cost_with(seat, id, target, p);
        match tap {
            None => self.auto_pay(seat, &cost, None).ok_or_else(|| {
                Illegal(format!(
                    "not enough untapped mana sources to pay {}",
                    c.data.mana_cost
                ))
            }),
            Some(list) => self.check_payment(seat, &cost, &c.data.mana_cost, list),
        }
    }

    pub(super) fn cast(
        &mut self,
        id: Id,
        target: Option<Target>,
        taps: &[Id],
        mode: Option<u8>,
        second: Option<Target>,
        ev: &mut Vec<Event>,
    ) {
        let seat = self.priority;
        self.tap_for_mana(seat, taps, ev);
        // A new spell (CR 400.7): whatever an earlier object of this card was, this one is not
        // kicked unless it is cast kicked.
        self.kicked.retain(|&(k, _)| k != id);
        self.x_paid.retain(|&(k, _)| k != id);
        let flashback = self.obj(id).zone == Zone::Graveyard;
        self.players[seat.i()].hand.retain(|&h| h != id);
        self.players[seat.i()].graveyard.retain(|&h| h != id);
        self.objs[id.i()].zone = Zone::Stack;
        let target_moves = match target {
            Some(Target::Obj(t)) => self.obj(t).moves,
            _ => 0,
        };
        self.stack.push(StackItem {
            card: id,
            controller: seat,
            target,
            target_moves,
            ability: None,
            activated: false,
            mode,
            flashback,
            ward: None,
            untargeted: false,
            second,
            second_moves: match second {
                Some(Target::Obj(t)) => self.obj(t).moves,
                _ => 0,
            },
        });
        // CR 117.3c: the caster receives priority again.
        self.passes = 0;
        ev.push(Event::Cast {
            player: seat,
            card: id,
            target,
            mode,
            second,
        });
    }
}
