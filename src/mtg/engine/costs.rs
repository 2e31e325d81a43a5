//! What casting a spell costs now (CR 601.2f): its mana cost less the reductions that apply,
//! its own ("This spell costs {1} less to cast if …", affinity, CR 702.41a) and those of the
//! permanents its caster controls ("Instant and sorcery spells you cast cost {1} less").
//! Reductions take generic mana only, never below zero; a reduction that depends on the
//! target is computed with the target chosen.

use super::*;
use crate::mtg::lower::CostReduction;

impl State {
    /// The cost `seat` pays to cast `id` now with `target`.
    pub(super) fn cast_cost(&self, seat: Seat, id: Id, target: Option<Target>) -> ManaCost {
        self.cast_cost_paying(seat, id, target, false)
    }

    /// The cost to cast `id` with its kicker paid too when `kicked` (CR 702.33a, 601.2f: the
    /// additional cost is added before reductions apply).
    pub(super) fn cast_cost_paying(
        &self,
        seat: Seat,
        id: Id,
        target: Option<Target>,
        kicked: bool,
    ) -> ManaCost {
        self.cast_cost_with(
            seat,
            id,
            target,
            super::cast_costs::Paying {
                kicked,
                ..Default::default()
            },
        )
    }

    /// The cost to cast `id` paying `p`: the kicker, X and the mana of an additional cost
    /// are added before reductions apply (CR 601.2f).
    pub(super) fn cast_cost_with(
        &self,
        seat: Seat,
        id: Id,
        target: Option<Target>,
        p: super::cast_costs::Paying,
    ) -> ManaCost {
        let kicked = p.kicked;
        let c = self.card(id);
        let mut cut: u32 = 0;
        if let Some((n, when)) = &c.costs_less {
            let times = match when {
                CostReduction::IfControl(t) => u32::from(self.controls_subtype(seat, t) > 0),
                CostReduction::PerControlled(t) => self.controls_subtype(seat, t),
                CostReduction::IfTargetsTapped => u32::from(matches!(target,
                    Some(Target::Obj(t)) if self.obj(t).zone == Zone::Battlefield
                        && self.is_creature(t) && self.obj(t).tapped)),
                CostReduction::PerInstantSorceryInYourGraveyard => self.players[seat.i()]
                    .graveyard
                    .iter()
                    .filter(|&&g| matches!(self.card(g).kind, Kind::Instant | Kind::Sorcery))
                    .count()
                    as u32,
            };
            cut += *n as u32 * times;
        }
        if matches!(c.kind, Kind::Instant | Kind::Sorcery) {
            cut += self.spell_discount(seat);
        }
        // CR 702.34a / 601.2f: cast with flashback, the flashback cost is paid instead, and
        // reductions apply to it.
        let mut cost = match c.flashback {
            Some(f) if self.obj(id).zone == Zone::Graveyard => f,
            _ => c.cost,
        };
        if let (true, Some(k)) = (kicked, c.kicker) {
            cost = plus(cost, k);
        }
        cost = plus(cost, self.cast_extra_mana(id, p));
        cost.generic = (cost.generic as u32).saturating_sub(cut) as u8;
        cost
    }

    /// How many permanents of subtype `t` `seat` controls (CR 205.3).
    fn controls_subtype(&self, seat: Seat, t: &str) -> u32 {
        self.battlefield
            .iter()
            .filter(|&&b| self.obj(b).owner == seat && self.card(b).subtypes.iter().any(|s| s == t))
            .count() as u32
    }

    /// The generic mana less the instants and sorceries `seat` casts cost.
    fn spell_discount(&self, seat: Seat) -> u32 {
        self.battlefield
            .iter()
            .filter(|&&b| self.obj(b).owner == seat)
            .map(|&b| self.card(b).instant_sorcery_discount as u32)
            .sum()
    }

    /// Whether `seat` could pay for `id` with some legal target (or none, if it takes none).
    pub(super) fn affordable_now(&self, seat: Seat, id: Id, avail: &mana::Avail) -> bool {
        let c = self.card(id);
        if matches!(c.costs_less, Some((_, CostReduction::IfTargetsTapped))) {
            let k = c.target();
            return k.is_some_and(|k| {
                self.targets(seat, k)
                    .into_iter()
                    .any(|t| mana::affordable_cost(&self.cast_cost(seat, id, Some(t)), avail))
            });
        }
        mana::affordable_cost(&self.cast_cost(seat, id, None), avail)
    }

    /// The least mana value `seat` could cast `c` for from what everyone can see (CR 601.2f),
    /// for the public stop rule: a reduction that depends on the game counts as its largest.
    pub(super) fn least_cost(&self, seat: Seat, c: &Card) -> u32 {
        let mut total = c.cost.total();
        if let Some(f) = c.flashback {
            total = total.min(f.total());
        }
        if c.costs_less.is_some() {
            total -= c.cost.generic as u32;
        }
        if matches!(c.kind, Kind::Instant | Kind::Sorcery) {
            total = total.saturating_sub(self.spell_discount(seat));
        }
        total
    }
}

/// The sum of two mana costs (CR 118.8: an additional cost adds to the total cost).
pub(super) fn plus(a: ManaCost, b: ManaCost) -> ManaCost {
    let mut c = a;
    c.generic = c.generic.saturating_add(b.generic);
    for (x, y) in c.colored.iter_mut().zip(b.colored.iter()) {
        *x = x.saturating_add(*y);
    }
    c
}
