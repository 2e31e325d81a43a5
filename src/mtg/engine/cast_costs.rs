//! Costs chosen as a spell is cast (CR 601.2b, 601.2f-h): the value of X (CR 107.3) and an
//! additional cost ("As an additional cost to cast this spell, discard a card / sacrifice a
//! creature [or pay {cost}]").
//!
//! Promises:
//! - a cast that names X, a card to discard or a creature to sacrifice is [`Move::CastWith`]
//!   (the `cast` action with `x`, `discard` or `sacrifice`); a plain cast is X = 0 and, for
//!   "sacrifice a creature or pay {cost}", pays that mana instead of sacrificing;
//! - X adds that much generic mana to the total cost before reductions apply (CR 601.2f); a
//!   spell without {X} takes no X; the mana of "… or pay {cost}" is added the same way;
//! - a spell whose additional cost is a discard or a sacrifice cannot be cast without naming
//!   one: a card in the caster's hand other than the spell, or a creature the caster controls;
//! - the additional cost is paid after the mana, as the spell is already on the stack (CR
//!   601.2h): the discarded card goes to the graveyard, the sacrificed creature dies (its
//!   "dies" triggers trigger); the spell's targets were chosen before (CR 601.2c), so a spell
//!   may target the creature it sacrifices (and then has no legal target as it resolves);
//! - the X a spell was cast with is kept until it leaves the stack ([`State::x_paid`]);
//!   "each opponent loses X life, you gain life equal to the life lost this way" reads it
//!   (with two players: the opponent loses X, the caster gains what was lost);
//! - `actions` and the random agent offer every card to discard, every creature to
//!   sacrifice, and every X from 1 up to what the caster's untapped mana sources could pay.

use super::*;
use crate::mtg::lower::AdditionalCost;

/// The largest X the legal moves offer; any X the caster can pay may be submitted.
const MOST_X_OFFERED: u8 = 20;

/// What a cast pays beyond the spell's mana cost (CR 601.2b, 601.2f).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Paying {
    /// The kicker too (CR 702.33a).
    pub kicked: bool,
    /// The value of X (CR 107.3a).
    pub x: u8,
    /// The card discarded for the additional cost.
    pub discard: Option<Id>,
    /// The creature sacrificed for the additional cost.
    pub sacrifice: Option<Id>,
}

impl State {
    /// The X `id` was cast with (0 if none, or once it left the stack).
    pub(super) fn x_of(&self, id: Id) -> u8 {
        self.x_paid
            .iter()
            .find(|&&(k, _)| k == id)
            .map_or(0, |&(_, x)| x)
    }

    /// The mana a cast with `p` adds to the spell's cost: X, and the "or pay" mana of an
    /// additional cost paid without a sacrifice (CR 601.2f).
    pub(super) fn cast_extra_mana(&self, id: Id, p: Paying) -> ManaCost {
        let mut m = ManaCost {
            generic: p.x,
            ..ManaCost::default()
        };
        if let (Some(AdditionalCost::SacrificeCreatureOrPay(pay)), None) =
            (self.card(id).additional, p.sacrifice)
        {
            m = costs::plus(m, pay);
        }
        m
    }

    /// Whether `seat` could pay `id`'s additional cost some way now (its mana cost aside).
    pub(super) fn additional_payable(&self, seat: Seat, id: Id, avail: &mana::Avail) -> bool {
        match self.card(id).additional {
            None => true,
            Some(AdditionalCost::Discard) => self.players[seat.i()].hand.iter().any(|&h| h != id),
            Some(AdditionalCost::SacrificeCreature) => !self.sacrificeable(seat).is_empty(),
            Some(AdditionalCost::SacrificeCreatureOrPay(_)) => {
                !self.sacrificeable(seat).is_empty()
                    || mana::affordable_cost(
                        &self.cast_cost_with(seat, id, None, Paying::default()),
                        avail,
                    )
            }
        }
    }

    /// The creatures `seat` could sacrifice (CR 701.17a: permanents it controls).
    fn sacrificeable(&self, seat: Seat) -> Vec<Id> {
        self.battlefield
            .iter()
            .copied()
            .filter(|&b| self.obj(b).owner == seat && self.is_creature(b))
            .collect()
    }

    /// Checks what a cast pays beyond its mana (X, the additional cost) for `seat` casting `id`.
    pub(super) fn check_cast_costs(&self, seat: Seat, id: Id, p: Paying) -> Result<(), Illegal> {
        let c = self.card(id);
        let name = &c.data.name;
        if p.kicked && c.kicker.is_none() {
            return illegal(format!("{name} has no kicker"));
        }
        if p.x > 0 && !c.x_cost {
            return illegal(format!("{name} has no {{X}} in its mana cost: no x"));
        }
        if (c.cost.generic as u32) + (p.x as u32) > u8::MAX as u32 {
            return illegal(format!("x = {} is more than any cost can be", p.x));
        }
        let needs = match c.additional {
            Some(AdditionalCost::Discard) => "discard",
            Some(AdditionalCost::SacrificeCreature | AdditionalCost::SacrificeCreatureOrPay(_)) => {
                "sacrifice"
            }
            None => "",
        };
        if p.discard.is_some() && needs != "discard" {
            return illegal(format!("{name} has no additional cost to discard a card"));
        }
        if p.sacrifice.is_some() && needs != "sacrifice" {
            return illegal(format!(
                "{name} has no additional cost to sacrifice a creature"
            ));
        }
        match (c.additional, p.discard, p.sacrifice) {
            (Some(AdditionalCost::Discard), None, _) => illegal(format!(
                "{name} needs `discard`: a card in your hand to discard as its additional cost \
                 (CR 601.2b)"
            )),
            (Some(AdditionalCost::SacrificeCreature), _, None) => illegal(format!(
                "{name} needs `sacrifice`: a creature you control to sacrifice as its \
                 additional cost (CR 601.2b)"
            )),
            (_, Some(d), _)
                if d == id
                    || !self.valid_id(d)
                    || self.obj(d).zone != Zone::Hand
                    || self.obj(d).owner != seat =>
            {
                illegal(format!(
                    "{d} is not another card in your hand: it cannot be discarded for {name}"
                ))
            }
            (_, _, Some(s))
                if !self.valid_id(s)
                    || self.obj(s).zone != Zone::Battlefield
                    || self.obj(s).owner != seat
                    || !self.is_creature(s) =>
            {
                illegal(format!(
                    "{s} is not a creature you control: it cannot be sacrificed for {name}"
                ))
            }
            _ => Ok(()),
        }
    }

    /// Casts `card` paying `p` (validated first); the additional cost is paid after the mana.
    pub(super) fn cast_with(
        &mut self,
        card: Id,
        target: Option<Target>,
        tap: Option<&[Id]>,
        mode: Option<u8>,
        p: Paying,
        ev: &mut Vec<Event>,
    ) -> Result<(), Illegal> {
        let taps = self.validate_cast_full(card, target, tap, mode, p)?;
        let seat = self.priority;
        self.decisions += 1;
        self.cast(card, target, &taps, mode, None, ev);
        if p.kicked {
            self.kicked.push((card, self.obj(card).moves));
        }
        if p.x > 0 {
            self.x_paid.push((card, p.x));
        }
        if let Some(d) = p.discard {
            self.discard_cards(seat, &[d], ev);
        }
        if let Some(s) = p.sacrifice {
            // CR 701.17a: the sacrificed creature goes to its owner's graveyard (it dies).
            self.put_in_graveyard(s);
            self.sba_check = true;
            ev.push(Event::Sacrificed { card: s });
        }
        let item = self
            .stack
            .iter()
            .rposition(|it| it.card == card && it.ability.is_none());
        if let Some(i) = item {
            self.ward_check(seat, target, i, ev);
        }
        Ok(())
    }

    /// Replaces the plain cast moves in `v` of cards with {X} or an additional cost by their
    /// legal forms: every X from 1 the caster could pay (X = 0 stays the plain cast), every
    /// card to discard, every creature to sacrifice (the plain cast stays only where it pays
    /// the "or pay" mana).
    pub(super) fn cast_cost_moves(&self, seat: Seat, avail: &mana::Avail, v: &mut Vec<Move>) {
        let mut more = Vec::new();
        v.retain(|m| {
            let Move::Cast {
                card,
                target,
                tap: None,
                mode,
            } = *m
            else {
                return true;
            };
            let c = self.card(card);
            if c.additional.is_none() && !c.x_cost {
                return true;
            }
            let with = |p: Paying| Move::CastWith {
                card,
                target,
                tap: None,
                mode,
                kicked: false,
                x: p.x,
                discard: p.discard,
                sacrifice: p.sacrifice,
            };
            let payable = |p: Paying| {
                mana::affordable_cost(&self.cast_cost_with(seat, card, target, p), avail)
            };
            if c.x_cost {
                for x in 1..=MOST_X_OFFERED {
                    let p = Paying {
                        x,
                        ..Paying::default()
                    };
                    if !payable(p) {
                        break;
                    }
                    more.push(with(p));
                }
            }
            match c.additional {
                None => true,
                Some(AdditionalCost::Discard) => {
                    for &d in self.players[seat.i()].hand.iter().filter(|&&h| h != card) {
                        more.push(with(Paying {
                            discard: Some(d),
                            ..Paying::default()
                        }));
                    }
                    false
                }
                Some(a) => {
                    for s in self.sacrificeable(seat) {
                        more.push(with(Paying {
                            sacrifice: Some(s),
                            ..Paying::default()
                        }));
                    }
                    matches!(a, AdditionalCost::SacrificeCreatureOrPay(_))
                        && payable(Paying::default())
                }
            }
        });
        v.extend(more);
    }

    /// "Each opponent loses X life. You gain life equal to the life lost this way." (CR
    /// 119.3): with two players, the opponent loses X and `by` gains what was lost.
    pub(super) fn drain_x(&mut self, source: Id, by: Seat, ev: &mut Vec<Event>) {
        let x = self.x_of(source) as i16;
        if x > 0 {
            self.lose_life(by.other(), x, ev);
            self.gain_life(by, x, ev);
        }
    }

    /// CR 406.3 / 701.13: permanent `c` is exiled (a token ceases to exist, CR 704.5d).
    pub(super) fn exile_permanent(&mut self, c: Id, ev: &mut Vec<Event>) {
        if self.obj(c).zone != Zone::Battlefield {
            return;
        }
        self.leave_battlefield(c);
        let owner = self.obj(c).owner;
        self.recount(owner);
        self.sba_check = true;
        if self.card(c).token {
            self.objs[c.i()].zone = Zone::Gone;
            ev.push(Event::Exiled {
                card: c,
                from: Zone::Battlefield,
            });
            return;
        }
        self.put_in_exile(c, Zone::Battlefield, ev);
    }
}
