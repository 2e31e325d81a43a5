//! The reducer: `apply(&State, &Move) -> Result<(State, Events), Illegal>` and everything it
//! needs (turn structure, priority, stack, state-based actions, mana, combat, mulligans).
//!
//! [`State::step`] validates the whole move before it changes anything, so an illegal move
//! leaves the state untouched; [`apply`] is the pure form on top of it. After every move the
//! engine runs forward ([`State::settle`]) until a player must decide. A priority decision whose
//! only legal action is to pass is taken by the engine (the player has no choice to make), as
//! are an attack declaration with no possible attacker and a block declaration with no possible
//! blocker.

use super::cards::{Card, Effect, Kind, Pool, TargetKind, kw};
use super::state::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde::Serialize;
use std::sync::Arc;

/// The rules subset this engine implements (journaled with every game).
pub const RULES_VERSION: &str = "core-v2";

/// Why a move was refused. The state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Illegal(pub String);

impl std::fmt::Display for Illegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn illegal<T>(msg: impl Into<String>) -> Result<T, Illegal> {
    Err(Illegal(msg.into()))
}

/// A decision, with ids resolved (the wire form is [`super::action::Action`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    Pass,
    PlayLand(Id),
    Cast {
        card: Id,
        target: Option<Target>,
        tap: Option<Vec<Id>>,
    },
    /// All attackers at once (CR 508.1a); each attacks the opponent.
    Attack(Vec<Id>),
    /// (blocker, attacker) pairs, all at once (CR 509.1a).
    Block(Vec<(Id, Id)>),
    Assign {
        attacker: Id,
        split: Vec<(Target, i16)>,
    },
    Keep,
    Mulligan,
    Bottom(Vec<Id>),
    Discard(Vec<Id>),
    Concede,
}

/// What a move caused, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    GameStarted {
        starting_player: Seat,
    },
    /// Every player's mulligan declaration of one round, revealed together (CR 103.5).
    MulliganDeclarations {
        keep: Vec<Seat>,
        mulligan: Vec<Seat>,
    },
    Mulligan {
        player: Seat,
    },
    Kept {
        player: Seat,
        bottomed: u8,
    },
    TurnStarted {
        turn: u32,
        active: Seat,
    },
    Step {
        step: Step,
    },
    Drew {
        player: Seat,
    },
    PlayedLand {
        player: Seat,
        card: Id,
    },
    Cast {
        player: Seat,
        card: Id,
        #[serde(skip_serializing_if = "Option::is_none")]
        target: Option<Target>,
    },
    Resolved {
        card: Id,
    },
    Fizzled {
        card: Id,
    },
    Attacked {
        attackers: Vec<Id>,
    },
    Blocked {
        blocks: Vec<(Id, Id)>,
    },
    Damage {
        source: Id,
        target: Target,
        amount: i16,
    },
    LifeGained {
        player: Seat,
        amount: i16,
    },
    Destroyed {
        card: Id,
    },
    Died {
        card: Id,
        reason: &'static str,
    },
    Discarded {
        player: Seat,
        card: Id,
    },
    Conceded {
        player: Seat,
    },
    Lost {
        player: Seat,
        reason: &'static str,
    },
    GameOver {
        winner: Option<Seat>,
        reason: String,
    },
}

/// The pure reducer: the state after `mv` and the events it caused, or why it is illegal.
pub fn apply(state: &State, mv: &Move) -> Result<(State, Vec<Event>), Illegal> {
    let mut next = state.clone();
    let mut events = Vec::new();
    next.step(mv, &mut events)?;
    Ok((next, events))
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"bob-mtg-rng-v1:");
    h.update(seed.to_le_bytes());
    h.finalize().into()
}

/// The game's random stream: ChaCha8 keyed by the seed (stable across crate versions).
pub fn rng_for(seed: u64, pos: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::from_seed(seed_bytes(seed));
    r.set_word_pos(pos as u128);
    r
}

/// A uniform integer in `0..n` by rejection sampling (our own, so the stream use is fixed).
pub fn below(r: &mut impl RngCore, n: usize) -> usize {
    debug_assert!(n > 0);
    let n32 = n as u32;
    let zone = u32::MAX - (u32::MAX - n32 + 1) % n32;
    loop {
        let x = r.next_u32();
        if x <= zone {
            return (x % n32) as usize;
        }
    }
}

fn new_player(life: i32) -> Player {
    Player {
        life,
        library: Vec::new(),
        hand: Vec::new(),
        graveyard: Vec::new(),
        lands_played: 0,
        drew_from_empty: false,
        mulligans: 0,
        opening: Opening::Undecided,
        lost: false,
        untapped: [0; 5],
    }
}

/// Builds the game's card table and objects from per-player name lists.
struct Builder {
    names: Vec<String>,
    cards: Vec<Card>,
    objs: Vec<Obj>,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            names: Vec::new(),
            cards: Vec::new(),
            objs: Vec::new(),
        }
    }
    fn add(&mut self, pool: &Pool, name: &str, owner: Seat, zone: Zone) -> Result<Id, String> {
        let card = match self.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                let c = pool
                    .get(name)
                    .ok_or_else(|| format!("card {name:?} is not in the card pool"))?;
                self.names.push(name.to_string());
                self.cards.push(c.clone());
                self.cards.len() - 1
            }
        };
        if self.objs.len() >= u16::MAX as usize {
            return Err("too many cards in one game".into());
        }
        self.objs.push(Obj {
            card: card as u16,
            owner,
            zone,
            tapped: false,
            sick: false,
            damage: 0,
            deathtouched: false,
            pump_p: 0,
            pump_t: 0,
        });
        Ok(Id((self.objs.len() - 1) as u16))
    }
}

fn blank_state(game_id: &str, seed: u64, b: Builder, players: [Player; 2]) -> State {
    State {
        game_id: game_id.to_string(),
        rules_version: RULES_VERSION.to_string(),
        seed,
        rng_pos: 0,
        cards: Arc::new(b.cards),
        objs: b.objs,
        players,
        battlefield: Vec::new(),
        stack: Vec::new(),
        turn: 0,
        step: Step::Untap,
        active: Seat::P1,
        priority: Seat::P1,
        starting_player: Seat::P1,
        passes: 0,
        combat: Combat::default(),
        pending: Pending::GameOver,
        decisions: 0,
        outcome: None,
        sba_check: true,
    }
}

/// A new game: libraries shuffled (CR 103.2a), a starting player chosen at random (103.1),
/// seven cards each (103.5), then the London mulligan decisions.
pub fn new_game(
    game_id: &str,
    seed: u64,
    decks: [&[String]; 2],
    pool: &Pool,
) -> Result<(State, Vec<Event>), String> {
    Ok(start_game(&game_template(game_id, decks, pool)?, seed))
}

/// The cards of a game before any shuffle: build once, start many games from it.
pub fn game_template(game_id: &str, decks: [&[String]; 2], pool: &Pool) -> Result<State, String> {
    let mut b = Builder::new();
    let mut players = [new_player(20), new_player(20)];
    for (i, deck) in decks.iter().enumerate() {
        if deck.is_empty() {
            return Err(format!("the deck of {} has no cards", Seat(i as u8).name()));
        }
        for name in deck.iter() {
            let id = b.add(pool, name, Seat(i as u8), Zone::Library)?;
            players[i].library.push(id);
        }
    }
    Ok(blank_state(game_id, 0, b, players))
}

/// Starts a game from a template with `seed`.
pub fn start_game(template: &State, seed: u64) -> (State, Vec<Event>) {
    let mut s = template.clone();
    s.seed = seed;
    s.rng_pos = 0;
    let mut ev = Vec::new();
    s.shuffle(Seat::P1);
    s.shuffle(Seat::P2);
    let mut r = rng_for(s.seed, s.rng_pos);
    let first = Seat(below(&mut r, 2) as u8);
    s.rng_pos = r.get_word_pos() as u64;
    s.starting_player = first;
    s.active = first;
    s.priority = first;
    ev.push(Event::GameStarted {
        starting_player: first,
    });
    for p in [first, first.other()] {
        for _ in 0..7 {
            s.draw(p, &mut ev);
        }
    }
    // A deck shorter than seven cards just starts with fewer cards: opening-hand draws are
    // not draws in the SBA sense.
    s.players[0].drew_from_empty = false;
    s.players[1].drew_from_empty = false;
    s.sba_check = false;
    s.pending = Pending::Mulligan { player: first };
    (s, ev)
}

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
            let o = &mut b.objs[id.i()];
            o.tapped = perm.tapped;
            o.damage = perm.damage;
            o.sick = perm.sick;
            battlefield.push(id);
        }
    }
    let mut s = blank_state(game_id, pos.seed.unwrap_or(0), b, players);
    s.battlefield = battlefield;
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
    let mut ev = Vec::new();
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

/// Untapped lands of `seat`, counted by the colour they tap for.
/// Untapped lands of `seat` by colour, as kept up to date in [`Player::untapped`].
fn mana_available(s: &State, seat: Seat) -> [u8; 5] {
    s.players[seat.i()].untapped
}

fn affordable(card: &Card, avail: &[u8; 5]) -> bool {
    let enough = avail.iter().zip(card.cost.colored).all(|(&a, c)| a >= c);
    let total: u32 = avail.iter().map(|&a| a as u32).sum();
    enough && total >= card.cost.total()
}

impl State {
    fn shuffle(&mut self, seat: Seat) {
        let mut r = rng_for(self.seed, self.rng_pos);
        let lib = &mut self.players[seat.i()].library;
        for i in (1..lib.len()).rev() {
            let j = below(&mut r, i + 1);
            lib.swap(i, j);
        }
        self.rng_pos = r.get_word_pos() as u64;
    }

    fn recount(&mut self, seat: Seat) {
        self.players[seat.i()].untapped = count_untapped(self, seat);
    }

    /// Draws a card (CR 121.1); from an empty library, marks the player for SBA 704.5b.
    fn draw(&mut self, seat: Seat, ev: &mut Vec<Event>) {
        let p = &mut self.players[seat.i()];
        if p.library.is_empty() {
            p.drew_from_empty = true;
            self.sba_check = true;
            return;
        }
        let id = p.library.remove(0);
        p.hand.push(id);
        self.objs[id.i()].zone = Zone::Hand;
        ev.push(Event::Drew { player: seat });
    }

    fn put_in_graveyard(&mut self, id: Id) {
        if let Some(i) = self.battlefield.iter().position(|&b| b == id) {
            self.battlefield.remove(i);
        }
        let o = &mut self.objs[id.i()];
        o.zone = Zone::Graveyard;
        o.tapped = false;
        o.damage = 0;
        o.deathtouched = false;
        o.pump_p = 0;
        o.pump_t = 0;
        o.sick = false;
        let owner = o.owner;
        self.players[owner.i()].graveyard.push(id);
        self.recount(owner);
    }

    fn lose(&mut self, seat: Seat, reason: &'static str, ev: &mut Vec<Event>) {
        if !self.players[seat.i()].lost {
            self.players[seat.i()].lost = true;
            ev.push(Event::Lost {
                player: seat,
                reason,
            });
        }
    }

    fn finish_if_lost(&mut self, reason: String, ev: &mut Vec<Event>) -> bool {
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

    /// State-based actions (CR 704.3, 704.5a/b/f/g/h), repeated until none apply.
    /// Returns whether any was performed.
    fn check_sba(&mut self, ev: &mut Vec<Event>) -> bool {
        if !self.sba_check {
            return false;
        }
        self.sba_check = false;
        let mut any = false;
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
        any
    }

    fn can_sorcery_speed(&self, seat: Seat) -> bool {
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

    fn timing_ok(&self, seat: Seat, id: Id) -> bool {
        match self.card(id).kind {
            Kind::Instant => true,
            Kind::Land(_) => false,
            _ => self.can_sorcery_speed(seat),
        }
    }

    /// Whether `t` is a legal target of kind `k` now (CR 115, 608.2b).
    pub(crate) fn target_ok(&self, k: TargetKind, t: Target) -> bool {
        match (k, t) {
            (TargetKind::Any | TargetKind::Player, Target::Player(_)) => true,
            (_, Target::Player(_)) | (TargetKind::Player, Target::Obj(_)) => false,
            (_, Target::Obj(id)) => {
                id.i() < self.objs.len()
                    && self.obj(id).zone == Zone::Battlefield
                    && self.is_creature(id)
                    && (k != TargetKind::TappedCreature || self.obj(id).tapped)
            }
        }
    }

    /// Every legal target of kind `k`.
    pub(crate) fn targets(&self, k: TargetKind) -> Vec<Target> {
        let mut v = Vec::new();
        if matches!(k, TargetKind::Any | TargetKind::Player) {
            v.push(Target::Player(Seat::P1));
            v.push(Target::Player(Seat::P2));
        }
        if k != TargetKind::Player {
            for &id in &self.battlefield {
                if self.target_ok(k, Target::Obj(id)) {
                    v.push(Target::Obj(id));
                }
            }
        }
        v
    }

    fn has_target(&self, k: TargetKind) -> bool {
        matches!(k, TargetKind::Any | TargetKind::Player)
            || self
                .battlefield
                .iter()
                .any(|&id| self.target_ok(k, Target::Obj(id)))
    }

    /// Whether `seat` could cast `id` now with some target and automatic payment.
    pub(crate) fn castable(&self, seat: Seat, id: Id, avail: &[u8; 5]) -> bool {
        let c = self.card(id);
        self.obj(id).zone == Zone::Hand
            && self.obj(id).owner == seat
            && !matches!(c.kind, Kind::Land(_))
            && self.timing_ok(seat, id)
            && affordable(c, avail)
            && c.effect
                .and_then(|e| e.target())
                .is_none_or(|k| self.has_target(k))
    }

    /// Whether `seat` has any legal action besides passing priority.
    pub fn has_play(&self, seat: Seat) -> bool {
        let hand = &self.players[seat.i()].hand;
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
        for &id in &self.players[seat.i()].hand {
            if self.can_play_land(seat, id) {
                v.push(Move::PlayLand(id));
            } else if self.castable(seat, id, &avail) {
                match self.card(id).effect.and_then(|e| e.target()) {
                    None => v.push(Move::Cast {
                        card: id,
                        target: None,
                        tap: None,
                    }),
                    Some(k) => {
                        for t in self.targets(k) {
                            v.push(Move::Cast {
                                card: id,
                                target: Some(t),
                                tap: None,
                            });
                        }
                    }
                }
            }
        }
        v
    }

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

    /// Whether `blocker` may block `attacker` (CR 509.1a, 702.9b, 702.17b).
    pub fn can_block(&self, blocker: Id, attacker: Id) -> bool {
        !self.has(attacker, kw::FLYING) || self.has(blocker, kw::FLYING | kw::REACH)
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

    fn live_blockers(&self, a: &Attacker) -> Vec<Id> {
        a.blockers
            .iter()
            .copied()
            .filter(|&b| self.obj(b).zone == Zone::Battlefield)
            .collect()
    }

    fn deals_now(&self, id: Id) -> bool {
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

    /// The player who must decide, with the pending decision's kind name.
    pub fn kind(&self) -> &'static str {
        match self.pending {
            Pending::Mulligan { .. } => "mulligan",
            Pending::Bottom { .. } => "bottom",
            Pending::Priority => "priority",
            Pending::DeclareAttackers => "declare_attackers",
            Pending::DeclareBlockers => "declare_blockers",
            Pending::AssignDamage { .. } => "assign_damage",
            Pending::Discard { .. } => "discard",
            Pending::GameOver => "game_over",
        }
    }

    /// Applies a move in place. Validation is complete before the first change: on `Err`
    /// nothing changed.
    pub fn step(&mut self, mv: &Move, ev: &mut Vec<Event>) -> Result<(), Illegal> {
        let Some(who) = self.decider() else {
            return illegal("the game is over");
        };
        if *mv == Move::Concede {
            // CR 104.3a: a player may concede at any time.
            ev.push(Event::Conceded { player: who });
            self.lose(who, "conceded", ev);
            self.decisions += 1;
            self.finish_if_lost("concede".into(), ev);
            return Ok(());
        }
        match (self.pending, mv) {
            (Pending::Mulligan { player }, Move::Keep | Move::Mulligan) => {
                let mulligan = *mv == Move::Mulligan;
                if mulligan && self.players[player.i()].mulligans >= 7 {
                    return illegal("no more mulligans: keep");
                }
                // CR 103.5: each player declares in turn order; nothing is revealed or
                // done until every undecided player has declared.
                self.decisions += 1;
                self.players[player.i()].opening = Opening::Declared { mulligan };
                self.next_opening_decision(ev);
            }
            (Pending::Bottom { player, count }, Move::Bottom(cards)) => {
                self.check_hand_subset(player, cards, count as usize, "bottom")?;
                self.decisions += 1;
                for &id in cards {
                    let p = &mut self.players[player.i()];
                    p.hand.retain(|&h| h != id);
                    p.library.push(id);
                    self.objs[id.i()].zone = Zone::Library;
                }
                self.players[player.i()].opening = Opening::Kept;
                ev.push(Event::Kept {
                    player,
                    bottomed: count,
                });
                self.next_opening_decision(ev);
            }
            (Pending::Discard { player, count }, Move::Discard(cards)) => {
                self.check_hand_subset(player, cards, count as usize, "discard")?;
                self.decisions += 1;
                for &id in cards {
                    let p = &mut self.players[player.i()];
                    p.hand.retain(|&h| h != id);
                    p.graveyard.push(id);
                    self.objs[id.i()].zone = Zone::Graveyard;
                    ev.push(Event::Discarded { player, card: id });
                }
                self.cleanup_rest(ev);
            }
            (Pending::Priority, Move::Pass) => {
                self.decisions += 1;
                self.pass_priority(ev);
            }
            (Pending::Priority, Move::PlayLand(id)) => {
                let seat = self.priority;
                if !self.valid_id(*id) || !self.can_play_land(seat, *id) {
                    return illegal(self.why_not_land(seat, *id));
                }
                self.decisions += 1;
                // CR 305.1: a special action; it does not use the stack.
                self.players[seat.i()].hand.retain(|&h| h != *id);
                self.players[seat.i()].lands_played += 1;
                self.objs[id.i()].zone = Zone::Battlefield;
                self.battlefield.push(*id);
                self.recount(seat);
                self.passes = 0;
                ev.push(Event::PlayedLand {
                    player: seat,
                    card: *id,
                });
            }
            (Pending::Priority, Move::Cast { card, target, tap }) => {
                let taps = self.validate_cast(*card, *target, tap.as_deref())?;
                self.decisions += 1;
                self.cast(*card, *target, &taps, ev);
            }
            (Pending::DeclareAttackers, Move::Attack(ids)) => {
                let cands = self.attack_candidates();
                for (i, id) in ids.iter().enumerate() {
                    if !cands.contains(id) {
                        return illegal(format!(
                            "{id} cannot attack (not an untapped creature of yours that has been under your control since your turn began, or it has defender)"
                        ));
                    }
                    if ids[..i].contains(id) {
                        return illegal(format!("{id} is declared twice"));
                    }
                }
                self.decisions += 1;
                self.declare_attackers(ids, ev);
            }
            (Pending::DeclareBlockers, Move::Block(pairs)) => {
                let def = self.active.other();
                for (i, (b, a)) in pairs.iter().enumerate() {
                    let ok_blocker = self.valid_id(*b)
                        && self.obj(*b).zone == Zone::Battlefield
                        && self.obj(*b).owner == def
                        && self.is_creature(*b)
                        && !self.obj(*b).tapped;
                    if !ok_blocker {
                        return illegal(format!(
                            "{b} cannot block (not an untapped creature of the defending player)"
                        ));
                    }
                    if !self.valid_id(*a) || !self.combat.attackers.iter().any(|x| x.id == *a) {
                        return illegal(format!("{a} is not attacking"));
                    }
                    if !self.can_block(*b, *a) {
                        return illegal(format!(
                            "{b} cannot block {a} (flying: only creatures with flying or reach)"
                        ));
                    }
                    if pairs[..i].iter().any(|(x, _)| x == b) {
                        return illegal(format!("{b} blocks twice"));
                    }
                }
                self.decisions += 1;
                self.declare_blockers(pairs, ev);
            }
            (Pending::AssignDamage { attacker }, Move::Assign { attacker: a, split }) => {
                if *a != attacker {
                    return illegal(format!(
                        "damage of {attacker} must be assigned now, not {a}"
                    ));
                }
                self.validate_assignment(attacker, split)?;
                self.decisions += 1;
                let Some(at) = self.combat.attackers.iter_mut().find(|x| x.id == attacker) else {
                    return illegal("that attacker is not in combat");
                };
                at.assignment = split.clone();
                self.next_assignment_or_damage(ev);
            }
            (_, m) => {
                return illegal(format!(
                    "{} is not a legal action now: the decision is {} for {}",
                    move_name(m),
                    self.kind(),
                    who.name()
                ));
            }
        }
        self.settle(ev);
        Ok(())
    }

    fn valid_id(&self, id: Id) -> bool {
        id.i() < self.objs.len()
    }

    fn why_not_land(&self, seat: Seat, id: Id) -> String {
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

    fn check_hand_subset(
        &self,
        p: Seat,
        cards: &[Id],
        n: usize,
        what: &str,
    ) -> Result<(), Illegal> {
        if cards.len() != n {
            return illegal(format!(
                "{what}: choose exactly {n} cards, got {}",
                cards.len()
            ));
        }
        for (i, id) in cards.iter().enumerate() {
            if !self.valid_id(*id) || !self.players[p.i()].hand.contains(id) {
                return illegal(format!("{what}: {id} is not in your hand"));
            }
            if cards[..i].contains(id) {
                return illegal(format!("{what}: {id} chosen twice"));
            }
        }
        Ok(())
    }

    /// The next step of the mulligan procedure (CR 103.5), in turn order from the starting
    /// player: a kept player's bottom choice first, then the next undecided player's
    /// declaration; once every player still deciding has declared, the declarations are
    /// revealed together and carried out at once (mulligans shuffle and draw seven; a keep
    /// after N mulligans then puts N cards on the bottom). The first turn begins when
    /// every opening hand is final.
    fn next_opening_decision(&mut self, ev: &mut Vec<Event>) {
        let order = [self.starting_player, self.starting_player.other()];
        loop {
            if let Some(&p) = order
                .iter()
                .find(|p| self.players[p.i()].opening == Opening::MustBottom)
            {
                let count = self.players[p.i()]
                    .mulligans
                    .min(self.players[p.i()].hand.len() as u8);
                if count > 0 {
                    self.pending = Pending::Bottom { player: p, count };
                    return;
                }
                self.players[p.i()].opening = Opening::Kept;
                ev.push(Event::Kept {
                    player: p,
                    bottomed: 0,
                });
                continue;
            }
            if let Some(&p) = order
                .iter()
                .find(|p| self.players[p.i()].opening == Opening::Undecided)
            {
                self.pending = Pending::Mulligan { player: p };
                return;
            }
            if order
                .iter()
                .all(|p| self.players[p.i()].opening == Opening::Kept)
            {
                self.turn = 0;
                self.begin_turn(self.starting_player, ev);
                return;
            }
            // Every player still deciding has declared: reveal and carry out together.
            let (mut keep, mut mulligan) = (Vec::new(), Vec::new());
            for &p in &order {
                match self.players[p.i()].opening {
                    Opening::Declared { mulligan: true } => mulligan.push(p),
                    Opening::Declared { mulligan: false } => keep.push(p),
                    _ => {}
                }
            }
            ev.push(Event::MulliganDeclarations {
                keep: keep.clone(),
                mulligan: mulligan.clone(),
            });
            for p in keep {
                let n = self.players[p.i()].mulligans;
                self.players[p.i()].opening = if n > 0 {
                    Opening::MustBottom
                } else {
                    Opening::Kept
                };
                if n == 0 {
                    ev.push(Event::Kept {
                        player: p,
                        bottomed: 0,
                    });
                }
            }
            for p in mulligan {
                self.take_mulligan(p, ev);
                self.players[p.i()].opening = Opening::Undecided;
            }
        }
    }

    /// CR 103.5 (London): shuffle the hand away and draw seven; the bottom comes on keeping.
    fn take_mulligan(&mut self, player: Seat, ev: &mut Vec<Event>) {
        let p = &mut self.players[player.i()];
        p.mulligans += 1;
        let hand = std::mem::take(&mut p.hand);
        for id in hand {
            self.objs[id.i()].zone = Zone::Library;
            self.players[player.i()].library.push(id);
        }
        self.shuffle(player);
        for _ in 0..7 {
            self.draw(player, ev);
        }
        self.players[player.i()].drew_from_empty = false;
        ev.push(Event::Mulligan { player });
    }

    /// Checks a cast (CR 601.2) and returns the lands to tap.
    fn validate_cast(
        &self,
        id: Id,
        target: Option<Target>,
        tap: Option<&[Id]>,
    ) -> Result<Vec<Id>, Illegal> {
        let seat = self.priority;
        if !self.valid_id(id) || self.obj(id).zone != Zone::Hand || self.obj(id).owner != seat {
            return illegal(format!("{id} is not a card in your hand"));
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
        match (c.effect.and_then(|e| e.target()), target) {
            (None, None) => {}
            (None, Some(_)) => return illegal(format!("{} takes no target", c.data.name)),
            (Some(_), None) => return illegal(format!("{} needs a target", c.data.name)),
            (Some(k), Some(t)) => {
                if !self.target_ok(k, t) {
                    return illegal(format!("{t} is not a legal target for {}", c.data.name));
                }
            }
        }
        match tap {
            None => self.auto_pay(seat, c).ok_or_else(|| {
                Illegal(format!(
                    "not enough untapped lands to pay {}",
                    c.data.mana_cost
                ))
            }),
            Some(list) => {
                let mut paid = [0u8; 5];
                for (i, l) in list.iter().enumerate() {
                    if !self.valid_id(*l)
                        || self.obj(*l).zone != Zone::Battlefield
                        || self.obj(*l).owner != seat
                        || self.obj(*l).tapped
                    {
                        return illegal(format!("tap: {l} is not an untapped land you control"));
                    }
                    let Kind::Land(col) = self.card(*l).kind else {
                        return illegal(format!("tap: {l} is not a land"));
                    };
                    if list[..i].contains(l) {
                        return illegal(format!("tap: {l} listed twice"));
                    }
                    paid[col as usize] += 1;
                }
                let need = c.cost;
                let colored_ok = (0..5).all(|i| paid[i] >= need.colored[i]);
                if !colored_ok || list.len() as u32 != need.total() {
                    return illegal(format!(
                        "tap: those lands do not pay {} exactly",
                        c.data.mana_cost
                    ));
                }
                Ok(list.to_vec())
            }
        }
    }

    /// Chooses lands for a cost: coloured symbols first, then generic from the colours with
    /// the most untapped lands left (CR 601.2g-h).
    fn auto_pay(&self, seat: Seat, c: &Card) -> Option<Vec<Id>> {
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

    fn cast(&mut self, id: Id, target: Option<Target>, taps: &[Id], ev: &mut Vec<Event>) {
        let seat = self.priority;
        for &l in taps {
            self.objs[l.i()].tapped = true; // CR 106.12, 605.3: mana abilities while casting
        }
        self.recount(seat);
        self.players[seat.i()].hand.retain(|&h| h != id);
        self.objs[id.i()].zone = Zone::Stack;
        self.stack.push(StackItem {
            card: id,
            controller: seat,
            target,
        });
        // CR 117.3c: the caster receives priority again.
        self.passes = 0;
        ev.push(Event::Cast {
            player: seat,
            card: id,
            target,
        });
    }

    /// CR 117.3d / 117.4: pass; all players passing in succession resolves the top of the
    /// stack or ends the step.
    fn pass_priority(&mut self, ev: &mut Vec<Event>) {
        self.passes += 1;
        if self.passes < 2 {
            self.priority = self.priority.other();
            return;
        }
        self.passes = 0;
        if let Some(item) = self.stack.pop() {
            self.resolve(item, ev);
            self.priority = self.active; // CR 117.3b
        } else {
            self.next_step(ev);
        }
    }

    /// CR 608.2: resolve an instant, sorcery or creature spell.
    fn resolve(&mut self, item: StackItem, ev: &mut Vec<Event>) {
        self.sba_check = true;
        let id = item.card;
        let (kind, effect) = (self.card(id).kind, self.card(id).effect);
        if kind == Kind::Creature {
            // CR 608.3a: a permanent spell enters the battlefield.
            let o = &mut self.objs[id.i()];
            o.zone = Zone::Battlefield;
            o.sick = true;
            self.battlefield.push(id);
            ev.push(Event::Resolved { card: id });
            return;
        }
        let effect = effect.expect("spell has an effect");
        // CR 608.2b: a spell whose targets are all illegal does nothing.
        let fizzled = match (effect.target(), item.target) {
            (Some(k), Some(t)) => !self.target_ok(k, t),
            _ => false,
        };
        if fizzled {
            ev.push(Event::Fizzled { card: id });
        } else {
            match (effect, item.target) {
                (Effect::Damage(n, _), Some(t)) => self.deal(id, t, n as i16, ev),
                (Effect::Destroy(_), Some(Target::Obj(t))) => {
                    self.put_in_graveyard(t);
                    ev.push(Event::Destroyed { card: t });
                }
                (Effect::Pump(p, t), Some(Target::Obj(c))) => {
                    self.objs[c.i()].pump_p += p as i16;
                    self.objs[c.i()].pump_t += t as i16;
                }
                (Effect::Draw(n), _) => {
                    for _ in 0..n {
                        self.draw(item.controller, ev);
                    }
                }
                (Effect::GainLife(n), _) => {
                    self.players[item.controller.i()].life += n as i32;
                    ev.push(Event::LifeGained {
                        player: item.controller,
                        amount: n as i16,
                    });
                }
                _ => {}
            }
            ev.push(Event::Resolved { card: id });
        }
        // CR 608.2n: an instant or sorcery goes to its owner's graveyard.
        let owner = self.obj(id).owner;
        self.objs[id.i()].zone = Zone::Graveyard;
        self.players[owner.i()].graveyard.push(id);
    }

    /// Deals damage from `source` (CR 120.3): to a player, life loss; to a creature, marked
    /// damage (and the deathtouch mark); lifelink gains its controller that much (702.15b).
    fn deal(&mut self, source: Id, target: Target, n: i16, ev: &mut Vec<Event>) {
        if n <= 0 {
            return;
        }
        self.sba_check = true;
        match target {
            Target::Player(p) => self.players[p.i()].life -= n as i32,
            Target::Obj(c) => {
                let dt = self.has(source, kw::DEATHTOUCH);
                let o = &mut self.objs[c.i()];
                o.damage += n;
                o.deathtouched |= dt;
            }
        }
        ev.push(Event::Damage {
            source,
            target,
            amount: n,
        });
        if self.has(source, kw::LIFELINK) {
            let owner = self.obj(source).owner;
            self.players[owner.i()].life += n as i32;
            ev.push(Event::LifeGained {
                player: owner,
                amount: n,
            });
        }
    }

    fn begin_turn(&mut self, active: Seat, ev: &mut Vec<Event>) {
        self.turn += 1;
        self.active = active;
        self.priority = active;
        self.players[active.i()].lands_played = 0;
        ev.push(Event::TurnStarted {
            turn: self.turn,
            active,
        });
        self.enter(Step::Untap, ev);
    }

    fn next_step(&mut self, ev: &mut Vec<Event>) {
        let next = match self.step {
            Step::Untap => Step::Upkeep,
            Step::Upkeep => Step::Draw,
            Step::Draw => Step::Main1,
            Step::Main1 => Step::BeginningOfCombat,
            Step::BeginningOfCombat => Step::DeclareAttackers,
            Step::DeclareAttackers => {
                if self.combat.attackers.is_empty() {
                    Step::EndOfCombat // CR 508.8
                } else {
                    Step::DeclareBlockers
                }
            }
            Step::DeclareBlockers => {
                // CR 510.4: a first-strike damage step only if a combatant has first or
                // double strike.
                let fs = self.combat.attackers.iter().any(|a| {
                    std::iter::once(a.id)
                        .chain(a.blockers.iter().copied())
                        .any(|c| {
                            self.obj(c).zone == Zone::Battlefield
                                && self.has(c, kw::FIRST_STRIKE | kw::DOUBLE_STRIKE)
                        })
                });
                self.combat.first_strike_step = fs;
                if fs {
                    Step::FirstStrikeDamage
                } else {
                    Step::CombatDamage
                }
            }
            Step::FirstStrikeDamage => Step::CombatDamage,
            Step::CombatDamage => Step::EndOfCombat,
            Step::EndOfCombat => {
                self.combat = Combat::default(); // CR 511.3
                Step::Main2
            }
            Step::Main2 => Step::End,
            Step::End => Step::Cleanup,
            Step::Cleanup => {
                let next = self.active.other();
                self.begin_turn(next, ev);
                return;
            }
        };
        self.enter(next, ev);
    }

    /// Starts a step and performs its turn-based actions.
    fn enter(&mut self, step: Step, ev: &mut Vec<Event>) {
        self.step = step;
        self.passes = 0;
        self.priority = self.active;
        // CR 500.4: mana empties between steps. Mana is spent as lands are tapped, so no
        // pool carries over.
        self.pending = Pending::Priority;
        let active = self.active;
        match step {
            Step::Untap => {
                // CR 502.2-3: untap; creatures controlled continuously since the turn began
                // are no longer summoning sick. No player gets priority (502.4).
                for &id in &self.battlefield {
                    let o = &mut self.objs[id.i()];
                    if o.owner == active {
                        o.tapped = false;
                        o.sick = false;
                    }
                }
                self.recount(active);
                self.next_step(ev);
            }
            // CR 504.1, 103.8a: the starting player skips the draw of the first turn.
            Step::Draw if !(self.turn == 1 && active == self.starting_player) => {
                self.draw(active, ev);
            }
            Step::DeclareAttackers => self.pending = Pending::DeclareAttackers,
            Step::DeclareBlockers => self.pending = Pending::DeclareBlockers,
            Step::FirstStrikeDamage | Step::CombatDamage => {
                for a in &mut self.combat.attackers {
                    a.assignment.clear();
                }
                self.next_assignment_or_damage(ev);
            }
            Step::Cleanup => {
                // CR 514.1: discard down to maximum hand size.
                let n = self.players[active.i()].hand.len();
                if n > 7 {
                    self.pending = Pending::Discard {
                        player: active,
                        count: (n - 7) as u8,
                    };
                } else {
                    self.cleanup_rest(ev);
                }
            }
            _ => {}
        }
    }

    /// CR 514.2: damage wears off and "until end of turn" effects end; then the next turn.
    fn cleanup_rest(&mut self, ev: &mut Vec<Event>) {
        for &id in &self.battlefield {
            let o = &mut self.objs[id.i()];
            o.damage = 0;
            o.deathtouched = false;
            o.pump_p = 0;
            o.pump_t = 0;
        }
        let next = self.active.other();
        self.begin_turn(next, ev);
    }

    fn declare_attackers(&mut self, ids: &[Id], ev: &mut Vec<Event>) {
        let def = self.active.other();
        for &id in ids {
            if !self.has(id, kw::VIGILANCE) {
                self.objs[id.i()].tapped = true; // CR 508.1f, 702.20b
            }
            self.combat.attackers.push(Attacker {
                id,
                defender: def,
                blockers: Vec::new(),
                blocked: false,
                assignment: Vec::new(),
            });
        }
        if !ids.is_empty() {
            ev.push(Event::Attacked {
                attackers: ids.to_vec(),
            });
        }
        self.pending = Pending::Priority;
        self.priority = self.active;
        self.passes = 0;
    }

    fn declare_blockers(&mut self, pairs: &[(Id, Id)], ev: &mut Vec<Event>) {
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
    fn needs_assignment(&self, a: &Attacker) -> bool {
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

    fn next_assignment_or_damage(&mut self, ev: &mut Vec<Event>) {
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
    fn combat_damage(&mut self, ev: &mut Vec<Event>) {
        let mut hits: Vec<(Id, Target, i16)> = Vec::new();
        for a in &self.combat.attackers {
            if self.obj(a.id).zone != Zone::Battlefield {
                continue;
            }
            let live = self.live_blockers(a);
            if self.deals_now(a.id) {
                let power = self.power(a.id);
                if !a.blocked {
                    hits.push((a.id, Target::Player(a.defender), power));
                } else if !a.assignment.is_empty() {
                    hits.extend(a.assignment.iter().map(|&(t, n)| (a.id, t, n)));
                } else if let Some(&b) = live.first() {
                    hits.push((a.id, Target::Obj(b), power));
                } else if self.has(a.id, kw::TRAMPLE) {
                    // CR 702.19e: a blocked trampler with no blockers left hits the player.
                    hits.push((a.id, Target::Player(a.defender), power));
                }
            }
            for b in live {
                if self.deals_now(b) {
                    hits.push((b, Target::Obj(a.id), self.power(b)));
                }
            }
        }
        for (src, t, n) in hits {
            self.deal(src, t, n, ev);
        }
    }

    /// CR 510.1c-d (current rules): the attacking player divides damage freely among the
    /// blockers; with trample, the player may get damage only once every blocker has been
    /// assigned lethal damage (deathtouch: 1 is lethal, 702.2c).
    fn validate_assignment(&self, attacker: Id, split: &[(Target, i16)]) -> Result<(), Illegal> {
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
                Target::Player(p) if trample && *p == a.defender => to_player += n,
                _ => {
                    return illegal(format!(
                        "{t} is not a blocker of {attacker}{}",
                        if trample {
                            " or the defending player"
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

    /// Runs the game forward until a player must make a real choice.
    pub fn settle(&mut self, ev: &mut Vec<Event>) {
        loop {
            match self.pending {
                Pending::Priority => {
                    // CR 117.5: SBAs before every grant of priority.
                    if self.check_sba(ev) {
                        continue;
                    }
                    if self.has_play(self.priority) {
                        return;
                    }
                    self.pass_priority(ev);
                }
                Pending::DeclareAttackers => {
                    if !self.attack_candidates().is_empty() {
                        return;
                    }
                    self.declare_attackers(&[], ev);
                }
                Pending::DeclareBlockers => {
                    if !self.block_candidates().is_empty() {
                        return;
                    }
                    self.declare_blockers(&[], ev);
                }
                _ => return,
            }
        }
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

pub fn move_name(m: &Move) -> &'static str {
    match m {
        Move::Pass => "pass",
        Move::PlayLand(_) => "play_land",
        Move::Cast { .. } => "cast",
        Move::Attack(_) => "declare_attackers",
        Move::Block(_) => "declare_blockers",
        Move::Assign { .. } => "assign_damage",
        Move::Keep => "keep",
        Move::Mulligan => "mulligan",
        Move::Bottom(_) => "bottom",
        Move::Discard(_) => "discard",
        Move::Concede => "concede",
    }
}
