//! Drawing, dying and losing: zone moves to the graveyard and the state-based actions
//! (CR 704) that end a game.

use super::*;

impl State {
    /// Draws a card (CR 121.1); from an empty library, marks the player for SBA 704.5b.
    pub(super) fn draw(&mut self, seat: Seat, ev: &mut Vec<Event>) {
        let p = &mut self.players[seat.i()];
        if p.library.is_empty() {
            p.drew_from_empty = true;
            self.sba_check = true;
            return;
        }
        let id = p.library.remove(0);
        p.hand.push(id);
        self.objs[id.i()].zone = Zone::Hand;
        let n = &mut self.this_turn.drawn[seat.i()];
        *n = n.saturating_add(1);
        ev.push(Event::Drew { player: seat });
    }

    pub(super) fn put_in_graveyard(&mut self, id: Id) {
        self.leave_battlefield(id);
        if self.card(id).token {
            // CR 704.5d: a token that left the battlefield ceases to exist.
            self.objs[id.i()].zone = Zone::Gone;
            return;
        }
        let o = &mut self.objs[id.i()];
        o.zone = Zone::Graveyard;
        let owner = o.owner;
        self.players[owner.i()].graveyard.push(id);
        self.recount(owner);
    }

    pub(super) fn lose(&mut self, seat: Seat, reason: &'static str, ev: &mut Vec<Event>) {
        if !self.players[seat.i()].lost {
            self.players[seat.i()].lost = true;
            ev.push(Event::Lost {
                player: seat,
                reason,
            });
        }
    }

    pub(super) fn finish_if_lost(&mut self, reason: String, ev: &mut Vec<Event>) -> bool {
        let lost = [self.players[0].lost, self.players[1].lost];
        if !lost[0] && !lost[1] {
            return false;
        }
        // CR 104.4a: all players losing at once is a draw.
        let winner = match lost {
            [true, true] => None,
            [true, false] => Some(Seat::P2),
            _ => Some(Seat::P1),
        };
        ev.push(Event::GameOver {
            winner,
            reason: reason.clone(),
        });
        self.outcome = Some(Outcome { winner, reason });
        self.pending = Pending::GameOver;
        true
    }

    /// State-based actions (CR 704.3, 704.5a/b/f/g/h/i, and j/m/n in `attach`), repeated until none apply.
    /// Returns whether any was performed.
    pub(super) fn check_sba(&mut self, ev: &mut Vec<Event>) -> bool {
        if !self.sba_check {
            return false;
        }
        self.sba_check = false;
        let mut any = self.return_exiled(ev);
        loop {
            let mut did = false;
            for i in 0..2 {
                let seat = Seat(i as u8);
                if self.players[i].life <= 0 && !self.players[i].lost {
                    self.lose(seat, "life", ev); // 704.5a
                    did = true;
                }
                if self.players[i].drew_from_empty {
                    self.players[i].drew_from_empty = false;
                    self.lose(seat, "empty_library", ev); // 704.5b
                    did = true;
                }
            }
            let mut dying = Vec::new();
            for &id in &self.battlefield {
                if !self.is_creature(id) {
                    continue;
                }
                let t = self.toughness(id);
                let o = self.obj(id);
                if t <= 0 {
                    dying.push((id, "toughness")); // 704.5f
                } else if self.has(id, kw::INDESTRUCTIBLE) {
                    // 702.12b: lethal damage and deathtouch don't destroy it.
                } else if o.damage >= t {
                    dying.push((id, "lethal_damage")); // 704.5g
                } else if o.deathtouched && o.damage > 0 {
                    dying.push((id, "deathtouch")); // 704.5h
                }
            }
            for (id, reason) in dying {
                self.put_in_graveyard(id);
                ev.push(Event::Died { card: id, reason });
                did = true;
            }
            did |= self.loyalty_sba(ev); // 704.5i
            did |= self.attachment_and_legend_sba(ev);
            if !did {
                break;
            }
            any = true;
        }
        if any {
            let reason = self
                .players
                .iter()
                .find(|p| p.lost)
                .map(|p| {
                    if p.life <= 0 {
                        "life".to_string()
                    } else {
                        "empty_library".to_string()
                    }
                })
                .unwrap_or_default();
            self.finish_if_lost(reason, ev);
        }
        // 704.5j last: its choice is a decision of the player, asked only while the game
        // goes on.
        if self.pending == Pending::Priority && self.ask_legend_rule() {
            any = true;
        }
        any
    }
}
