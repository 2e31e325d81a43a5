//! Mana: what a player can pay with, and the automatic payment of a cost (CR 106, 601.2g-h).

use super::*;

/// Untapped lands of `seat`, counted by the colour they tap for.
/// Untapped lands of `seat` by colour, as kept up to date in [`Player::untapped`].
pub(super) fn mana_available(s: &State, seat: Seat) -> [u8; 5] {
    s.players[seat.i()].untapped
}

pub(super) fn affordable(card: &Card, avail: &[u8; 5]) -> bool {
    let enough = avail.iter().zip(card.cost.colored).all(|(&a, c)| a >= c);
    let total: u32 = avail.iter().map(|&a| a as u32).sum();
    enough && total >= card.cost.total()
}
impl State {
    pub(super) fn recount(&mut self, seat: Seat) {
        self.players[seat.i()].untapped = count_untapped(self, seat);
    }

    /// Chooses lands for a cost: coloured symbols first, then generic from the colours with
    /// the most untapped lands left (CR 601.2g-h).
    pub(super) fn auto_pay(&self, seat: Seat, c: &Card) -> Option<Vec<Id>> {
        let mut lands: [Vec<Id>; 5] = Default::default();
        for &id in &self.battlefield {
            let o = self.obj(id);
            if o.owner == seat
                && !o.tapped
                && let Kind::Land(col) = self.card(id).kind
            {
                lands[col as usize].push(id);
            }
        }
        let mut out = Vec::with_capacity(c.cost.total() as usize);
        for (i, l) in lands.iter_mut().enumerate() {
            for _ in 0..c.cost.colored[i] {
                out.push(l.pop()?);
            }
        }
        for _ in 0..c.cost.generic {
            let (i, _) = lands
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.is_empty())
                .max_by_key(|(i, l)| (l.len(), std::cmp::Reverse(*i)))?;
            out.push(lands[i].pop()?);
        }
        Some(out)
    }
}
