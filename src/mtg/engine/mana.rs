//! Mana: what a player can pay with, and the payment of a cost (CR 106, 601.2g-h, 605).
//!
//! Mana abilities of permanents (CR 605.1a) are activated while a cost is paid (CR 605.3a),
//! so the engine has no mana pool and no separate "add mana" action: a payment is a list of
//! permanents to tap, each for one mana of a colour its ability makes. A mana source is an
//! untapped permanent its controller controls with a `{T}: Add …` ability ([`Card::mana`]); a
//! creature source cannot be tapped while summoning sick unless it has haste (CR 302.6).
//!
//! Basic lands (one colour each) are counted in [`Player::untapped`]; every other source (a
//! land or creature making one of several colours) is matched to the coloured symbols it
//! can pay by a bipartite matching, so a cost is affordable exactly when some assignment of
//! sources to symbols exists. Automatic payment pays coloured symbols with basics of that
//! colour first, then with the other sources, and generic mana with basics (the colour with
//! the most left), then other lands, and creatures last (they could attack or block).

use super::*;

/// The mana a player could make now: untapped basic lands by colour, and every other
/// untapped source as (id, colour mask).
#[derive(Debug, Clone, Default)]
pub(crate) struct Avail {
    pub basics: [u8; 5],
    pub other: Vec<(Id, u8)>,
}

impl Avail {
    pub fn total(&self) -> u32 {
        self.basics.iter().map(|&n| n as u32).sum::<u32>() + self.other.len() as u32
    }
}

/// Whether a colour mask is a single colour (a basic land's kind of source).
pub(crate) fn single_color(mask: u8) -> Option<usize> {
    (mask.count_ones() == 1 && mask < 1 << 5).then(|| mask.trailing_zeros() as usize)
}

pub(super) fn mana_available(s: &State, seat: Seat) -> Avail {
    let mut a = Avail {
        basics: s.players[seat.i()].untapped,
        other: Vec::new(),
    };
    for &id in &s.battlefield {
        if let Some(m) = s.flexible_source(seat, id) {
            a.other.push((id, m));
        }
    }
    a
}

/// The coloured symbols basics cannot pay, one entry (a colour index) per symbol.
fn shortfall(cost: &ManaCost, basics: &[u8; 5]) -> Vec<u8> {
    let mut v = Vec::new();
    for (c, (&need, &have)) in cost.colored.iter().zip(basics).enumerate() {
        v.extend(std::iter::repeat_n(
            c as u8,
            need.saturating_sub(have) as usize,
        ));
    }
    v
}

/// A maximum matching of symbols (colour indexes) to sources (colour masks): for each symbol
/// the index of its source, or None when some symbol cannot be paid (Kuhn's algorithm).
fn match_symbols(symbols: &[u8], sources: &[u8]) -> Option<Vec<usize>> {
    fn augment(
        i: usize,
        symbols: &[u8],
        sources: &[u8],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for (j, &m) in sources.iter().enumerate() {
            if m & (1 << symbols[i]) != 0 && !seen[j] {
                seen[j] = true;
                if owner[j].is_none_or(|k| augment(k, symbols, sources, seen, owner)) {
                    owner[j] = Some(i);
                    return true;
                }
            }
        }
        false
    }
    if symbols.len() > sources.len() {
        return None;
    }
    let mut owner: Vec<Option<usize>> = vec![None; sources.len()];
    for i in 0..symbols.len() {
        let mut seen = vec![false; sources.len()];
        if !augment(i, symbols, sources, &mut seen, &mut owner) {
            return None;
        }
    }
    let mut of = vec![0; symbols.len()];
    for (j, o) in owner.iter().enumerate() {
        if let Some(i) = o {
            of[*i] = j;
        }
    }
    Some(of)
}

pub(crate) fn affordable_cost(cost: &ManaCost, avail: &Avail) -> bool {
    if avail.total() < cost.total() {
        return false;
    }
    let short = shortfall(cost, &avail.basics);
    if short.is_empty() {
        return true;
    }
    let masks: Vec<u8> = avail.other.iter().map(|&(_, m)| m).collect();
    match_symbols(&short, &masks).is_some()
}

impl State {
    pub(super) fn recount(&mut self, seat: Seat) {
        self.players[seat.i()].untapped = count_untapped(self, seat);
    }

    /// The colour mask of `id` if it is a mana source `seat` can tap now (CR 605, 302.6).
    pub(crate) fn mana_source(&self, seat: Seat, id: Id) -> Option<u8> {
        let o = self.obj(id);
        let m = self.card(id).mana;
        let creature_sick = self.is_creature(id) && o.sick && !self.has(id, kw::HASTE);
        (m != 0 && o.owner == seat && o.zone == Zone::Battlefield && !o.tapped && !creature_sick)
            .then_some(m)
    }

    /// A mana source of `seat` that is not a basic land (those are counted apart).
    fn flexible_source(&self, seat: Seat, id: Id) -> Option<u8> {
        let m = self.mana_source(seat, id)?;
        let basic = matches!(self.card(id).kind, Kind::Land(k) if single_color(k).is_some());
        (!basic).then_some(m)
    }

    /// Chooses the sources to tap for a cost, leaving `except` alone (a permanent its own
    /// ability's {T} cost taps), or None if it cannot be paid (CR 601.2g-h).
    pub(super) fn auto_pay(
        &self,
        seat: Seat,
        cost: &ManaCost,
        except: Option<Id>,
    ) -> Option<Vec<Id>> {
        let mut lands: [Vec<Id>; 5] = Default::default();
        for &id in &self.battlefield {
            let o = self.obj(id);
            if o.owner == seat
                && !o.tapped
                && Some(id) != except
                && let Kind::Land(mask) = self.card(id).kind
                && let Some(col) = single_color(mask)
            {
                lands[col].push(id);
            }
        }
        let mut avail = mana_available(self, seat);
        avail.other.retain(|&(id, _)| Some(id) != except);
        let mut out = Vec::with_capacity(cost.total() as usize);
        let mut need = cost.colored;
        for (i, l) in lands.iter_mut().enumerate() {
            while need[i] > 0
                && let Some(id) = l.pop()
            {
                out.push(id);
                need[i] -= 1;
            }
        }
        let short: Vec<u8> = (0..5u8)
            .flat_map(|c| std::iter::repeat_n(c, need[c as usize] as usize))
            .collect();
        let masks: Vec<u8> = avail.other.iter().map(|&(_, m)| m).collect();
        let matched = match_symbols(&short, &masks)?;
        let mut used = vec![false; masks.len()];
        for j in matched {
            used[j] = true;
            out.push(avail.other[j].0);
        }
        let mut rest: Vec<Id> = avail
            .other
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|((id, _), _)| *id)
            .collect();
        // Creatures are tapped for generic mana last, and sources that sacrifice themselves
        // (Treasures) after them.
        rest.sort_by_key(|&id| {
            (
                std::cmp::Reverse(self.card(id).mana_sacrifice),
                std::cmp::Reverse(self.is_creature(id)),
            )
        });
        for _ in 0..cost.generic {
            let basic = lands
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.is_empty())
                .max_by_key(|(i, l)| (l.len(), std::cmp::Reverse(*i)))
                .map(|(i, _)| i);
            match basic {
                Some(i) => out.push(lands[i].pop()?),
                None => out.push(rest.pop()?),
            }
        }
        Some(out)
    }

    /// Taps the chosen sources: their mana abilities are activated while paying
    /// (CR 106.12, 605.3a); a source whose ability also sacrifices it (a Treasure) is
    /// sacrificed (CR 701.17a).
    pub(super) fn tap_for_mana(&mut self, seat: Seat, taps: &[Id], ev: &mut Vec<Event>) {
        for &l in taps {
            self.objs[l.i()].tapped = true;
            if self.card(l).mana_sacrifice {
                self.put_in_graveyard(l);
                self.sba_check = true;
                ev.push(Event::Sacrificed { card: l });
            }
        }
        if !taps.is_empty() {
            self.recount(seat);
        }
    }

    /// Checks a chosen payment: every listed permanent is a mana source `seat` can tap now,
    /// none twice, and together they pay `cost` exactly.
    pub(super) fn check_payment(
        &self,
        seat: Seat,
        cost: &ManaCost,
        what: &str,
        list: &[Id],
    ) -> Result<Vec<Id>, Illegal> {
        let mut masks = Vec::with_capacity(list.len());
        for (i, l) in list.iter().enumerate() {
            if !self.valid_id(*l) {
                return illegal(format!("tap: {l} is not a card in this game"));
            }
            let Some(m) = self.mana_source(seat, *l) else {
                return illegal(format!(
                    "tap: {l} is not an untapped mana source you control that can be tapped now \
                     (a creature that came under your control this turn cannot, CR 302.6)"
                ));
            };
            if list[..i].contains(l) {
                return illegal(format!("tap: {l} listed twice"));
            }
            masks.push(m);
        }
        let symbols: Vec<u8> = (0..5u8)
            .flat_map(|c| std::iter::repeat_n(c, cost.colored[c as usize] as usize))
            .collect();
        if list.len() as u32 != cost.total() || match_symbols(&symbols, &masks).is_none() {
            return illegal(format!("tap: those permanents do not pay {what} exactly"));
        }
        Ok(list.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_matched_to_sources_that_make_their_colour() {
        // {B}{R} from a B/R dual and a B/G dual: B from the second, R from the first.
        let (b, r, g) = (1 << 2, 1 << 3, 1 << 4);
        assert_eq!(match_symbols(&[2, 3], &[b | r, b | g]), Some(vec![1, 0]));
        assert_eq!(match_symbols(&[3, 3], &[b | r, b | g]), None);
        assert_eq!(match_symbols(&[], &[]), Some(vec![]));
        let cost = ManaCost {
            generic: 1,
            colored: [0, 0, 1, 1, 0],
        };
        let avail = |basics, other: Vec<u8>| Avail {
            basics,
            other: other.into_iter().map(|m| (Id(0), m)).collect(),
        };
        assert!(affordable_cost(
            &cost,
            &avail([0, 0, 1, 0, 0], vec![b | r, g])
        ));
        assert!(!affordable_cost(
            &cost,
            &avail([0, 0, 1, 0, 0], vec![b | g, g])
        ));
        assert!(!affordable_cost(&cost, &avail([0, 0, 1, 1, 0], vec![])));
    }
}
