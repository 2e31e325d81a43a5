//! A game started from a described position (`--setup`) instead of from shuffled decks.

use super::*;

/// A position for `--setup` (contract in the issue): each player's zones by card name.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Position {
    pub active: Seat,
    #[serde(default = "one")]
    pub turn: u32,
    pub step: Step,
    #[serde(default)]
    pub seed: Option<u64>,
    pub players: PositionPlayers,
}
fn one() -> u32 {
    1
}
fn twenty() -> i32 {
    20
}

#[derive(Debug, Clone, serde::Deserialize)]
pub struct PositionPlayers {
    pub p1: PositionPlayer,
    pub p2: PositionPlayer,
}

#[derive(Debug, Clone, serde::Deserialize)]
pub struct PositionPlayer {
    #[serde(default = "twenty")]
    pub life: i32,
    #[serde(default)]
    pub library: Vec<String>,
    #[serde(default)]
    pub hand: Vec<String>,
    #[serde(default)]
    pub graveyard: Vec<String>,
    #[serde(default)]
    pub battlefield: Vec<PositionPermanent>,
    #[serde(default)]
    pub lands_played: u8,
}

#[derive(Debug, Clone, serde::Deserialize)]
pub struct PositionPermanent {
    pub card: String,
    #[serde(default)]
    pub tapped: bool,
    #[serde(default)]
    pub sick: bool,
    #[serde(default)]
    pub damage: i16,
    /// A planeswalker's loyalty (CR 306.5b); its printed loyalty if absent.
    #[serde(default)]
    pub loyalty: Option<i16>,
    /// +1/+1 counters on a creature (negative: -1/-1 counters, CR 122.1, 704.5q).
    #[serde(default)]
    pub counters: i16,
    /// Stun counters (CR 122.1d).
    #[serde(default)]
    pub stun: u8,
}

/// A game that starts at a position: the active player has priority in `step` (its
/// turn-based actions already done), or must declare attackers / discard in those steps.
pub fn from_position(
    game_id: &str,
    pos: &Position,
    pool: &Pool,
) -> Result<(State, Vec<Event>), String> {
    match pos.step {
        Step::Untap | Step::DeclareBlockers | Step::FirstStrikeDamage | Step::CombatDamage => {
            return Err(format!(
                "a position cannot start in the {} step (use upkeep, draw, main1, \
                 beginning_of_combat, declare_attackers, end_of_combat, main2, end or cleanup)",
                pos.step.name()
            ));
        }
        _ => {}
    }
    if pos.turn == 0 {
        return Err("turn must be at least 1".into());
    }
    let mut b = Builder::new();
    let mut players = [new_player(20), new_player(20)];
    // A position starts after the opening hands (CR 103.5 is over).
    players[0].opening = Opening::Kept;
    players[1].opening = Opening::Kept;
    let mut battlefield = Vec::new();
    for (i, pp) in [&pos.players.p1, &pos.players.p2].into_iter().enumerate() {
        let seat = Seat(i as u8);
        let who = seat.name();
        players[i].life = pp.life;
        if pp.lands_played > 1 {
            return Err(format!("players.{who}.lands_played must be 0 or 1"));
        }
        players[i].lands_played = pp.lands_played;
        for (zone, names, list) in [
            (Zone::Library, &pp.library, 0),
            (Zone::Hand, &pp.hand, 1),
            (Zone::Graveyard, &pp.graveyard, 2),
        ] {
            for n in names {
                let id = b
                    .add(pool, n, seat, zone)
                    .map_err(|e| format!("players.{who}: {e}"))?;
                match list {
                    0 => players[i].library.push(id),
                    1 => players[i].hand.push(id),
                    _ => players[i].graveyard.push(id),
                }
            }
        }
        for perm in &pp.battlefield {
            let id = b
                .add(pool, &perm.card, seat, Zone::Battlefield)
                .map_err(|e| format!("players.{who}.battlefield: {e}"))?;
            if perm.damage < 0 {
                return Err(format!(
                    "players.{who}.battlefield: damage must not be negative"
                ));
            }
            let creature = b.cards[b.objs[id.i()].card as usize].kind == Kind::Creature;
            if perm.counters != 0 && (!creature || perm.counters.abs() > 100) {
                return Err(format!(
                    "players.{who}.battlefield: counters (-100 to 100) only on a creature"
                ));
            }
            let o = &mut b.objs[id.i()];
            o.tapped = perm.tapped;
            o.damage = perm.damage;
            o.sick = perm.sick;
            o.counters = perm.counters;
            o.stun = perm.stun;
            if b.cards[o.card as usize].kind == Kind::Planeswalker {
                // CR 306.5b: printed loyalty, unless the position says otherwise.
                o.loyalty = match perm.loyalty {
                    Some(l) if l >= 1 => l,
                    Some(_) => {
                        return Err(format!(
                            "players.{who}.battlefield: loyalty must be at least 1"
                        ));
                    }
                    None => b.cards[o.card as usize].loyalty,
                };
            } else if perm.loyalty.is_some() {
                return Err(format!(
                    "players.{who}.battlefield: only a planeswalker has loyalty"
                ));
            }
            battlefield.push(id);
        }
    }
    let mut s = blank_state(game_id, pos.seed.unwrap_or(0), b, players);
    s.battlefield = battlefield.into();
    s.recount(Seat::P1);
    s.recount(Seat::P2);
    s.turn = pos.turn;
    s.step = pos.step;
    s.active = pos.active;
    s.priority = pos.active;
    s.starting_player = if pos.turn % 2 == 1 {
        pos.active
    } else {
        pos.active.other()
    };
    // The position says what it skips: every earlier turn and the earlier steps of this one.
    let steps_skipped = Step::ALL
        .iter()
        .copied()
        .take_while(|&st| st != pos.step)
        .collect();
    let mut ev = vec![Event::StartedFromPosition {
        turn: pos.turn,
        step: pos.step,
        active: pos.active,
        turns_skipped: pos.turn - 1,
        steps_skipped,
    }];
    s.pending = match pos.step {
        Step::DeclareAttackers => Pending::DeclareAttackers,
        Step::Cleanup => {
            s.enter(Step::Cleanup, &mut ev);
            s.pending
        }
        _ => Pending::Priority,
    };
    s.settle(&mut ev);
    Ok((s, ev))
}
