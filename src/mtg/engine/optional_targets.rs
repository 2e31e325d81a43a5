//! Optional targets (CR 115.1, 601.2c, 603.3d): a triggered ability with "up to one target"
//! goes on the stack even when nothing can be targeted; its controller then chooses a target
//! or none (`choose_no_target`), and with none its targeted effects do nothing as it resolves
//! (it is not countered: CR 608.2b applies only to an ability whose every target became
//! illegal). "Other target" never names the ability's own source (CR 109.1).

use super::*;

impl State {
    /// The moves that answer the target choice awaiting: each legal target, and choosing none
    /// when the target is optional.
    pub fn trigger_target_moves(&self) -> Vec<Move> {
        let mut moves: Vec<Move> = self
            .trigger_target_options()
            .into_iter()
            .map(Move::ChooseTarget)
            .collect();
        if let Pending::ChooseTarget { item, .. } = self.pending
            && self
                .stack
                .get(item as usize)
                .is_some_and(|it| self.target_optional(it))
        {
            moves.push(Move::ChooseNoTarget);
        }
        moves
    }

    /// Whether the triggered ability on the stack at `it` has an optional target.
    pub(crate) fn target_optional(&self, it: &StackItem) -> bool {
        match it.ability {
            Some(a) if !it.activated && it.ward.is_none() => self.card(it.card).triggers
                [a as usize]
                .1
                .contains(&Effect::UpToOne),
            _ => false,
        }
    }

    /// Whether `t` is a legal target for the triggered ability `it` put on the stack by `by`.
    pub(super) fn trigger_target_ok(&self, by: Seat, it: &StackItem, t: Target) -> bool {
        let Some(k) = self.trigger_target_kind(it) else {
            return false;
        };
        let other = k == TargetKind::OtherPermanentYouControl;
        self.target_ok(by, k, t) && !(other && t == Target::Obj(it.card))
    }

    /// Every legal target of the triggered ability `it` controlled by `by`.
    pub(super) fn trigger_targets(&self, by: Seat, it: &StackItem) -> Vec<Target> {
        match self.trigger_target_kind(it) {
            Some(k) => self
                .targets(by, k)
                .into_iter()
                .filter(|&t| self.trigger_target_ok(by, it, t))
                .collect(),
            None => Vec::new(),
        }
    }

    /// Records that the ability at `item` has no target (CR 601.2c: zero of "up to one").
    pub(super) fn decline_target(&mut self, item: usize) {
        self.stack[item].untargeted = true;
        self.pending = Pending::Priority;
    }

    /// `choose_no_target`: legal only for an optional target.
    pub(super) fn validate_no_target(&self, item: u8) -> Result<(), String> {
        match self.stack.get(item as usize) {
            Some(it) if self.target_optional(it) => Ok(()),
            _ => Err("that ability's target is not optional: choose one of its targets".into()),
        }
    }

    /// The cards of the graveyards a graveyard target of kind `k` looks in: every player's
    /// for "a graveyard", else `by`'s own.
    pub(super) fn graveyards_of(&self, by: Seat, k: TargetKind) -> impl Iterator<Item = &Id> {
        let all = k == TargetKind::CardInAGraveyard;
        [by, by.other()]
            .into_iter()
            .filter(move |&p| p == by || all)
            .flat_map(move |p| self.players[p.i()].graveyard.iter())
    }

    /// CR 406.3: a card in a graveyard goes to its owner's exile.
    pub(super) fn exile_from_graveyard(&mut self, c: Id, ev: &mut Vec<Event>) {
        if self.obj(c).zone != Zone::Graveyard {
            return;
        }
        let owner = self.obj(c).owner;
        self.players[owner.i()].graveyard.retain(|&g| g != c);
        self.put_in_exile(c, Zone::Graveyard, ev);
    }
}
