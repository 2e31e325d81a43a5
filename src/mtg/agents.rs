//! Agents that play through the same moves as everyone else: `random` (uniform over the
//! legal choices) and `heuristic` (a simple, sensible player), plus in-process selfplay.

use super::cards::{Effect, Kind, TargetKind, kw};
use super::engine::{Move, below, game_template, rng_for, start_game};
use super::state::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::RngCore;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    Random,
    Heuristic,
}

impl AgentKind {
    pub fn parse(s: &str) -> Option<AgentKind> {
        match s {
            "random" => Some(AgentKind::Random),
            "heuristic" => Some(AgentKind::Heuristic),
            _ => None,
        }
    }
}

/// A player that picks moves; its randomness is its own seeded stream.
pub struct Agent {
    pub kind: AgentKind,
    rng: ChaCha8Rng,
}

impl Agent {
    pub fn new(kind: AgentKind, seed: u64) -> Agent {
        Agent {
            kind,
            rng: rng_for(seed ^ 0x9e37_79b9_7f4a_7c15, 0),
        }
    }

    fn pick<T: Clone>(&mut self, v: &[T]) -> T {
        v[below(&mut self.rng, v.len())].clone()
    }

    fn coin(&mut self) -> bool {
        self.rng.next_u32() & 1 == 1
    }

    fn sample(&mut self, from: &[Id], n: usize) -> Vec<Id> {
        let mut v = from.to_vec();
        for i in 0..n.min(v.len()) {
            let j = i + below(&mut self.rng, v.len() - i);
            v.swap(i, j);
        }
        v.truncate(n);
        v
    }

    /// The agent's move for the pending decision (None when the game is over).
    pub fn decide(&mut self, s: &State) -> Option<Move> {
        // The engine stops on public information only; an agent that sees in its own hand
        // that it has nothing to play passes without deliberating.
        if s.pending == Pending::Priority && !s.has_play(s.priority) {
            return Some(Move::Pass);
        }
        match self.kind {
            AgentKind::Random => self.random(s),
            AgentKind::Heuristic => heuristic(s, self),
        }
    }

    fn random(&mut self, s: &State) -> Option<Move> {
        Some(match s.pending {
            Pending::GameOver => return None,
            Pending::ChooseDiscard { from, nonland, .. } => {
                Move::Discard(self.sample(&s.choose_discard_options(from, nonland), 1))
            }
            Pending::Mulligan { player } => {
                if s.players[player.i()].mulligans < 7 && self.coin() {
                    Move::Mulligan
                } else {
                    Move::Keep
                }
            }
            Pending::Bottom { player, count } => {
                Move::Bottom(self.sample(&s.players[player.i()].hand, count as usize))
            }
            Pending::Discard { player, count } | Pending::Discarding { player, count } => {
                Move::Discard(self.sample(&s.players[player.i()].hand, count as usize))
            }
            Pending::WardPayment { .. } => Move::Ward {
                pay: self.coin(),
                tap: None,
            },
            // CR 401.5: one of the cards that may be chosen, or none, at random.
            Pending::Look { player, look } => {
                let choices = s.look_choices(player, look);
                let n = below(&mut self.rng, choices.len() + 1).min(1);
                Move::Look(self.sample(&choices, n))
            }
            // CR 608.2d: accept or decline at random; a card to pay with at random.
            Pending::May { player, optional } => {
                let accept = self.coin();
                let cards = s.may_cards(player, &optional);
                let card = if accept && !cards.is_empty() {
                    self.sample(&cards, 1).first().copied()
                } else {
                    None
                };
                Move::May {
                    accept,
                    card,
                    tap: None,
                }
            }
            Pending::LegendRule { .. } => {
                let group = s.legend_group().map(|(_, g)| g).unwrap_or_default();
                Move::KeepLegend(*self.sample(&group, 1).first()?)
            }
            Pending::Surveil { player, count } => {
                let top = &s.players[player.i()].library[..count as usize];
                let n = below(&mut self.rng, count as usize + 1);
                let graveyard = self.sample(top, n);
                // CR 701.25a: two or more cards left go back in a random order.
                let rest: Vec<Id> = top
                    .iter()
                    .copied()
                    .filter(|c| !graveyard.contains(c))
                    .collect();
                if rest.len() > 1 {
                    let top = self.sample(&rest, rest.len());
                    Move::SurveilOrder { graveyard, top }
                } else {
                    Move::Surveil(graveyard)
                }
            }
            Pending::Priority => {
                let moves = s.priority_moves();
                self.pick(&moves)
            }
            Pending::Search { player, search } => {
                // Any legal number of the candidates, each equally likely.
                let c = s.search_candidates(player, search);
                let min = s.search_minimum(player, search);
                let max = (search.count as usize).min(c.len());
                let n = min + below(&mut self.rng, max - min + 1);
                Move::Search(self.sample(&c, n))
            }
            Pending::ChooseMode { .. } => {
                let moves: Vec<Move> = s
                    .trigger_mode_options()
                    .into_iter()
                    .map(Move::ChooseMode)
                    .collect();
                self.pick(&moves)
            }
            Pending::ChooseTarget { .. } => self.pick(&s.trigger_target_moves()),
            Pending::DeclareAttackers => {
                let c = s.attack_candidates();
                let attackers: Vec<Id> = c
                    .into_iter()
                    .filter(|&a| s.must_attack(a) || self.coin())
                    .collect();
                // CR 508.1b: with planeswalkers to attack, each attacker picks the player or
                // one of them.
                let pws = s.attackable_planeswalkers();
                if pws.is_empty() || attackers.is_empty() {
                    Move::Attack(attackers)
                } else {
                    let at = attackers
                        .into_iter()
                        .map(|a| {
                            let k = below(&mut self.rng, pws.len() + 1);
                            (a, pws.get(k).copied())
                        })
                        .collect();
                    Move::AttackWith(at)
                }
            }
            Pending::DeclareBlockers => {
                let mut blocks = Vec::new();
                for (b, can) in s.block_candidates() {
                    let k = below(&mut self.rng, can.len() + 1);
                    if k < can.len() {
                        blocks.push((b, can[k]));
                    }
                }
                Move::Block(s.without_lone_menace_blocks(blocks))
            }
            Pending::AssignDamage { attacker } => {
                let (blockers, power, trample, dt) = s.assign_info(attacker);
                let mut split: Vec<(Target, i16)> =
                    blockers.iter().map(|&b| (Target::Obj(b), 0)).collect();
                let mut left = power;
                if trample {
                    for (i, &b) in blockers.iter().enumerate() {
                        let l = s.lethal(b, dt).min(left);
                        split[i].1 += l;
                        left -= l;
                    }
                    if left > 0 {
                        split.push((Target::Player(s.active.other()), left));
                    }
                } else {
                    while left > 0 {
                        let i = below(&mut self.rng, split.len());
                        split[i].1 += 1;
                        left -= 1;
                    }
                }
                Move::Assign { attacker, split }
            }
        })
    }
}

fn value(s: &State, id: Id) -> i32 {
    let c = s.card(id);
    (s.power(id) as i32) * 2 + s.toughness(id) as i32 + (c.keywords.count_ones() as i32) * 2
}

fn heuristic(s: &State, a: &mut Agent) -> Option<Move> {
    let me = s.decider()?;
    let opp = me.other();
    Some(match s.pending {
        Pending::GameOver => return None,
        // Take the most expensive card of the revealed hand.
        Pending::ChooseDiscard { from, nonland, .. } => {
            let options = s.choose_discard_options(from, nonland);
            Move::Discard(vec![
                *options.iter().max_by_key(|&&c| s.card(c).cost.total())?,
            ])
        }
        Pending::Mulligan { player } => {
            let hand = &s.players[player.i()].hand;
            let lands = hand
                .iter()
                .filter(|&&i| matches!(s.card(i).kind, Kind::Land(_)))
                .count();
            if (2..=5).contains(&lands) || s.players[player.i()].mulligans >= 2 {
                Move::Keep
            } else {
                Move::Mulligan
            }
        }
        Pending::Bottom { player, count }
        | Pending::Discard { player, count }
        | Pending::Discarding { player, count } => {
            // Keep a curve: shed the most expensive spells, or lands when flooded.
            let hand = &s.players[player.i()].hand;
            let lands = hand
                .iter()
                .filter(|&&i| matches!(s.card(i).kind, Kind::Land(_)))
                .count();
            let mut v = hand.clone();
            v.sort_by_key(|&i| {
                let c = s.card(i);
                match c.kind {
                    Kind::Land(_) if lands > 3 => -1,
                    Kind::Land(_) => -100,
                    _ => -(c.cost.total() as i32),
                }
            });
            let chosen = v.into_iter().take(count as usize).collect();
            if matches!(s.pending, Pending::Bottom { .. }) {
                Move::Bottom(chosen)
            } else {
                Move::Discard(chosen)
            }
        }
        // The legend rule: keep the newest (it may carry what entered with it).
        Pending::LegendRule { .. } => Move::KeepLegend(*s.legend_group()?.1.last()?),
        // Ward: always pay when it can (the decision is offered only then).
        Pending::WardPayment { .. } => Move::Ward {
            pay: true,
            tap: None,
        },
        // Look at the top: take the most expensive card that may be chosen.
        Pending::Look { player, look } => Move::Look(
            s.look_choices(player, look)
                .into_iter()
                .max_by_key(|&c| s.card(c).cost.total())
                .into_iter()
                .collect(),
        ),
        // "You may": accept what costs nothing or mana; sacrifice the least valuable other
        // creature; discard the most expensive card, or a land when flooded.
        Pending::May { player, optional } => {
            let cards = s.may_cards(player, &optional);
            let card = match optional.cost {
                crate::mtg::cards::MayCost::SacrificeAnotherCreature => {
                    cards.iter().copied().min_by_key(|&c| value(s, c))
                }
                crate::mtg::cards::MayCost::DiscardCard => cards
                    .iter()
                    .copied()
                    .max_by_key(|&c| s.card(c).cost.total()),
                _ => None,
            };
            let accept = card.is_some() || cards.is_empty();
            Move::May {
                accept,
                card,
                tap: None,
            }
        }
        // Surveil: lands go to the graveyard once five are on the battlefield.
        Pending::Surveil { player, count } => {
            let lands = s
                .battlefield
                .iter()
                .filter(|&&b| s.obj(b).owner == player && matches!(s.card(b).kind, Kind::Land(_)))
                .count();
            Move::Surveil(
                s.players[player.i()].library[..count as usize]
                    .iter()
                    .copied()
                    .filter(|&c| lands >= 5 && matches!(s.card(c).kind, Kind::Land(_)))
                    .collect(),
            )
        }
        Pending::Priority => heuristic_priority(s, me, opp),
        // The first mode it may choose.
        Pending::ChooseMode { .. } => Move::ChooseMode(*s.trigger_mode_options().first()?),
        Pending::Search { player, search } => {
            // Find as many as allowed: the costliest cards first (a land search finds lands).
            let mut c = s.search_candidates(player, search);
            c.sort_by_key(|&i| std::cmp::Reverse(s.card(i).cost.total()));
            c.truncate(search.count as usize);
            Move::Search(c)
        }
        Pending::ChooseTarget { item, .. } => {
            // A harmful ability aims at the opponent's most valuable object (or the opponent),
            // a helpful one at its own.
            let it = &s.stack[item as usize];
            let harmful = s.card(it.card).triggers[it.ability? as usize]
                .1
                .iter()
                .any(|e| {
                    matches!(
                        e,
                        Effect::Damage(..)
                            | Effect::Destroy(_)
                            | Effect::Bounce(_)
                            | Effect::Tap(_)
                            | Effect::ExileCard(_)
                    ) || matches!(e, Effect::Counters(n, _) if *n < 0)
                });
            let aim = if harmful { opp } else { me };
            let score = |t: &Target| match *t {
                Target::Player(p) if p == aim => 1000,
                Target::Player(_) => -1000,
                Target::Obj(o) if s.obj(o).owner == aim => value(s, o),
                Target::Obj(o) => -value(s, o) - 500,
            };
            let options = s.trigger_target_options();
            let best = options.iter().max_by_key(|t| score(t));
            // An optional target is left unchosen rather than aimed the wrong way.
            match best {
                Some(t) if score(t) >= 0 || !s.target_optional(it) => Move::ChooseTarget(*t),
                _ if s.target_optional(it) => Move::ChooseNoTarget,
                _ => return None,
            }
        }
        Pending::DeclareAttackers => {
            let cands = s.attack_candidates();
            let blockers: Vec<Id> = s
                .battlefield
                .iter()
                .copied()
                .filter(|&b| s.obj(b).owner == opp && s.is_creature(b) && !s.obj(b).tapped)
                .collect();
            let total: i32 = cands.iter().map(|&c| s.power(c) as i32).sum();
            if total >= s.players[opp.i()].life && blockers.is_empty() {
                return Some(Move::Attack(cands));
            }
            Move::Attack(
                cands
                    .into_iter()
                    .filter(|&c| {
                        s.must_attack(c)
                            || s.power(c) > 0
                                && blockers.iter().filter(|&&b| s.can_block(b, c)).all(|&b| {
                                    let dies =
                                        s.power(b) >= s.toughness(c) || s.has(b, kw::DEATHTOUCH);
                                    let kills =
                                        s.power(c) >= s.toughness(b) || s.has(c, kw::DEATHTOUCH);
                                    !dies || (kills && value(s, b) >= value(s, c))
                                })
                    })
                    .collect(),
            )
        }
        Pending::DeclareBlockers => {
            let incoming: i32 = s
                .combat
                .attackers
                .iter()
                .map(|x| s.power(x.id) as i32)
                .sum();
            let desperate = incoming >= s.players[me.i()].life;
            let mut used = Vec::new();
            let mut blocks = Vec::new();
            let mut attackers: Vec<Id> = s.combat.attackers.iter().map(|x| x.id).collect();
            attackers.sort_by_key(|&x| -(s.power(x) as i32));
            let cands = s.block_candidates();
            for at in attackers {
                let mut best: Option<(i32, Id)> = None;
                for (b, can) in &cands {
                    if used.contains(b) || !can.contains(&at) {
                        continue;
                    }
                    let survives = s.power(at) < s.toughness(*b) && !s.has(at, kw::DEATHTOUCH);
                    let kills = s.power(*b) >= s.toughness(at) || s.has(*b, kw::DEATHTOUCH);
                    let score = match (survives, kills) {
                        (true, true) => 100,
                        (true, false) => 50,
                        (false, true) if value(s, *b) <= value(s, at) => 40,
                        _ if desperate => 1,
                        _ => continue,
                    } - value(s, *b);
                    if best.is_none_or(|(sc, _)| score > sc) {
                        best = Some((score, *b));
                    }
                }
                if let Some((_, b)) = best {
                    used.push(b);
                    blocks.push((b, at));
                }
            }
            Move::Block(s.without_lone_menace_blocks(blocks))
        }
        Pending::AssignDamage { attacker } => {
            let (blockers, power, trample, dt) = s.assign_info(attacker);
            let mut left = power;
            let mut split = Vec::new();
            for &b in &blockers {
                let l = s.lethal(b, dt).min(left);
                split.push((Target::Obj(b), l));
                left -= l;
            }
            if left > 0 {
                if trample {
                    split.push((Target::Player(opp), left));
                } else if let Some(last) = split.last_mut() {
                    last.1 += left;
                }
            }
            let _ = a.coin();
            Move::Assign { attacker, split }
        }
    })
}

fn heuristic_priority(s: &State, me: Seat, opp: Seat) -> Move {
    let moves = s.priority_moves();
    if let Some(m) = moves.iter().find(|m| matches!(m, Move::PlayLand(_))) {
        return m.clone();
    }
    let mut best: Option<(i32, &Move)> = None;
    for m in &moves {
        // Equip an Equipment that is not on a creature yet.
        if let Move::Activate {
            card,
            target: Some(Target::Obj(_)),
            ..
        } = m
            && s.card(*card).equipment
            && s.obj(*card).attached.is_none()
            && s.stack.is_empty()
            && best.is_none_or(|(b, _)| b < 7)
        {
            best = Some((7, m));
        }
        let Move::Cast { card, target, .. } = m else {
            continue;
        };
        let c = s.card(*card);
        let score = match (c.kind, c.effect, target) {
            (Kind::Creature, _, _) => 10 + c.cost.total() as i32 * 3,
            // Noncreature permanents; an Aura goes on one of its own creatures.
            (Kind::Enchantment | Kind::Artifact, _, Some(Target::Obj(t))) => {
                if s.obj(*t).owner != me {
                    continue;
                }
                6 + c.cost.total() as i32 * 2
            }
            (Kind::Enchantment | Kind::Artifact, _, _) => 8 + c.cost.total() as i32 * 2,
            (_, Some(Effect::Damage(n, _)), Some(Target::Player(p))) => {
                if *p != opp {
                    continue;
                }
                if s.players[opp.i()].life <= n as i32 {
                    1000
                } else if s.step == Step::Main2 && s.stack.is_empty() && c.kind == Kind::Sorcery {
                    5
                } else {
                    continue;
                }
            }
            (_, Some(Effect::Damage(n, _)), Some(Target::Obj(t))) => {
                if s.obj(*t).owner == me || (s.lethal(*t, false) > n as i16) {
                    continue;
                }
                20 + value(s, *t)
            }
            (_, Some(Effect::Destroy(_)), Some(Target::Obj(t))) => {
                if s.obj(*t).owner == me {
                    continue;
                }
                15 + value(s, *t)
            }
            (_, Some(Effect::Pump(..)), Some(Target::Obj(t))) => {
                // Pump an own creature in combat after blocks.
                if s.obj(*t).owner != me || s.step != Step::DeclareBlockers {
                    continue;
                }
                let in_combat = s
                    .combat
                    .attackers
                    .iter()
                    .any(|x| x.id == *t || x.blockers.contains(t));
                if !in_combat {
                    continue;
                }
                30
            }
            (_, Some(Effect::Draw(_) | Effect::GainLife(_)), _) => {
                if s.step != Step::Main2 {
                    continue;
                }
                8
            }
            _ => continue,
        };
        if c.effect.and_then(|e| e.target()) == Some(TargetKind::Player)
            && score < 1000
            && s.step != Step::Main2
        {
            continue;
        }
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, m));
        }
    }
    best.map_or(Move::Pass, |(_, m)| m.clone())
}

/// What a selfplay run reports.
#[derive(Debug, Clone, Serialize)]
pub struct SelfplayReport {
    pub games: u64,
    pub seconds: f64,
    pub games_per_sec: f64,
    pub wins: Wins,
    pub avg_turns: f64,
    pub decisions: u64,
    /// Of `decisions`, those with one legal choice (a priority decision where the decider's
    /// hand holds nothing it can play: only pass), counted apart for comparisons with
    /// engines that ask for every pass.
    pub forced_decisions: u64,
    pub invariant_violations: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_violation: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Wins {
    pub p1: u64,
    pub p2: u64,
    pub draw: u64,
}

/// A game longer than this many turns is an invariant violation (every game ends by decking).
pub const MAX_TURNS: u32 = 2000;

/// Plays `games` games in this process; game `i` uses seed `seed + i`.
pub fn selfplay(
    games: u64,
    seed: u64,
    decks: [&[String]; 2],
    pool: &super::cards::Pool,
    agents: [AgentKind; 2],
) -> SelfplayReport {
    selfplay_with(games, seed, decks, pool, agents, &mut |_| {})
}

/// [`selfplay`], calling `progress(games done)` before each game and once at the end (for a
/// progress display; it never changes the games).
pub fn selfplay_with(
    games: u64,
    seed: u64,
    decks: [&[String]; 2],
    pool: &super::cards::Pool,
    agents: [AgentKind; 2],
    progress: &mut dyn FnMut(u64),
) -> SelfplayReport {
    let start = std::time::Instant::now();
    let mut wins = Wins::default();
    let mut turns = 0u64;
    let mut decisions = 0u64;
    let mut forced = 0u64;
    let mut violations = 0u64;
    let mut first = None;
    let mut ev = Vec::with_capacity(64);
    let template = match game_template("selfplay", decks, pool) {
        Ok(t) => t,
        Err(e) => {
            return SelfplayReport {
                games,
                seconds: 0.0,
                games_per_sec: 0.0,
                wins: Wins::default(),
                avg_turns: 0.0,
                decisions: 0,
                forced_decisions: 0,
                invariant_violations: games,
                first_violation: Some(e),
            };
        }
    };
    for g in 0..games {
        progress(g);
        let gseed = seed.wrapping_add(g);
        let (mut s, _) = start_game(&template, gseed);
        let mut ag = [Agent::new(agents[0], gseed), Agent::new(agents[1], !gseed)];
        let mut bad: Option<String> = None;
        while let Some(p) = s.decider() {
            if s.pending == Pending::Priority && !s.has_play(p) {
                forced += 1;
            }
            let Some(m) = ag[p.i()].decide(&s) else { break };
            ev.clear();
            if let Err(e) = s.step(&m, &mut ev) {
                bad = Some(format!("game {gseed}: agent move refused: {e}"));
                break;
            }
            decisions += 1;
            if s.zone_counts() != s.objs.len() {
                bad = Some(format!("game {gseed}: cards not conserved"));
                break;
            }
            if s.turn > MAX_TURNS {
                bad = Some(format!("game {gseed}: no end after {MAX_TURNS} turns"));
                break;
            }
        }
        if bad.is_none()
            && let Err(e) = s.check_invariants()
        {
            bad = Some(format!("game {gseed}: {e}"));
        }
        if let Some(b) = bad {
            violations += 1;
            first.get_or_insert(b);
            continue;
        }
        turns += s.turn as u64;
        match s.outcome.as_ref().and_then(|o| o.winner) {
            Some(Seat::P1) => wins.p1 += 1,
            Some(_) => wins.p2 += 1,
            None => wins.draw += 1,
        }
    }
    progress(games);
    let secs = start.elapsed().as_secs_f64();
    SelfplayReport {
        games,
        seconds: secs,
        games_per_sec: if secs > 0.0 { games as f64 / secs } else { 0.0 },
        wins,
        avg_turns: if games > 0 {
            turns as f64 / games as f64
        } else {
            0.0
        },
        decisions,
        forced_decisions: forced,
        invariant_violations: violations,
        first_violation: first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mtg::cards::Pool;
    use crate::mtg::decks;

    #[test]
    fn selfplay_has_no_violations() {
        let pool = Pool::builtin();
        let ds = decks::builtin();
        for (a, b) in [(0, 1), (2, 3), (0, 3)] {
            let (x, y) = (ds[a].names(), ds[b].names());
            for kinds in [
                [AgentKind::Random, AgentKind::Random],
                [AgentKind::Heuristic, AgentKind::Heuristic],
                [AgentKind::Heuristic, AgentKind::Random],
            ] {
                let r = selfplay(50, 7, [&x, &y], &pool, kinds);
                assert_eq!(r.invariant_violations, 0, "{:?}", r.first_violation);
                assert_eq!(r.wins.p1 + r.wins.p2 + r.wins.draw, 50);
                eprintln!("{kinds:?} {a}v{b}: {:?} turns {}", r.wins, r.avg_turns);
            }
        }
    }
}
