//! The reducer: `apply(&State, &Move) -> Result<(State, Events), Illegal>` and everything it
//! needs, one file per rules area: `setup` (card table, start, mulligans), `position` (a game
//! from a described position), `step` (applying one move), `turn` (turn structure and running
//! forward), `casting` (lands, spells, targets, the legal priority moves), `mana` (paying
//! with lands and other mana sources), `costs` (cost reductions), `activated` (activated abilities of permanents), `stack`
//! (priority passing and resolution), `effects` (what spells and abilities do), `search`
//! (library searches, a decision as a spell or ability resolves), `triggers`
//! (triggered abilities onto the stack), `keywords` (menace, indestructible), `combat` and
//! `sba` (draws, deaths, state-based actions), `zones` (spells by type, mass effects, graveyard
//! and exile).
//! This module holds the move and event vocabulary and the game's random stream.
//!
//! [`State::step`] validates the whole move before it changes anything, so an illegal move
//! leaves the state untouched; [`apply`] is the pure form on top of it. After every move the
//! engine runs forward ([`State::settle`]) until a player must decide. The engine passes
//! priority for a player only by a rule on public information ([`State::stops`]: no ability
//! of its permanents can be activated and either an empty hand, or no sorcery-speed window
//! and too few untapped mana sources for any instant in the game),
//! never by looking at the hand, so whether it stops leaks nothing; it also takes an attack
//! declaration with no possible attacker and a block declaration with no possible blocker.
//! Every step change is a `step` event (the first-strike damage step included); the starting
//! player's first draw step is skipped, never entered (CR 103.8a).

use super::cards::{Activated, Card, Effect, Kind, ManaCost, Pool, TargetKind, kw};
use super::state::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde::Serialize;
use std::sync::Arc;

mod activated;
mod attach;
mod cast_costs;
mod casting;
mod choose_discard;
mod combat;
mod conditions;
mod costs;
mod effects;
mod exile_until;
mod keywords;
mod kicker;
mod look;
mod mana;
mod optional;
mod optional_targets;
mod planeswalker;
mod position;
mod power_damage;
mod restrictions;
mod sacrifice_cost;
mod sba;
mod search;
mod setup;
mod stack;
mod step;
mod trigger_events;
mod triggers;
mod turn;
mod two_targets;
mod variable;
mod ward;
mod zones;

pub use cast_costs::Paying;
use mana::mana_available;
pub use position::{Position, PositionPermanent, PositionPlayer, PositionPlayers, from_position};
use setup::{Builder, blank_state, new_player};
pub use setup::{game_template, new_game, start_game};

/// The rules subset this engine implements (journaled with every game).
pub const RULES_VERSION: &str = "core-v8";

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
        /// The mode of a modal spell (CR 700.2a), chosen as it is cast.
        mode: Option<u8>,
    },
    /// Activate activated ability `ability` (index into the card's) of a permanent (CR 602).
    Activate {
        card: Id,
        ability: u8,
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
    /// The target of the triggered ability being put on the stack (CR 603.3d).
    ChooseTarget(Target),
    /// The surveilled cards to put into the graveyard (CR 701.25a); the others stay on top
    /// in the order they were.
    Surveil(Vec<Id>),
    /// The cards a library search finds (CR 701.23).
    Search(Vec<Id>),
    /// The mode of the modal triggered ability being put on the stack (CR 700.2a).
    ChooseMode(u8),
    Concede,
    /// All attackers at once, each with what it attacks (CR 508.1b): a planeswalker the
    /// defending player controls, or None for that player. An attack on the player alone
    /// is [`Move::Attack`].
    AttackWith(Vec<(Id, Option<Id>)>),
    /// Pay a ward cost (CR 702.21a) with these mana sources (None: tapped automatically), or
    /// decline and let the spell or ability be countered.
    Ward {
        pay: bool,
        tap: Option<Vec<Id>>,
    },
    /// The legendary permanent to keep under the legend rule (CR 704.5j).
    KeepLegend(Id),
    /// Surveil with the order of the cards put back (CR 701.25a): `top` holds every card
    /// looked at and not put into the graveyard, the first on top.
    SurveilOrder {
        graveyard: Vec<Id>,
        top: Vec<Id>,
    },
    /// Cast a spell with its kicker paid (CR 702.33a): as [`Move::Cast`], the kicker cost
    /// added to what is paid.
    CastKicked {
        card: Id,
        target: Option<Target>,
        tap: Option<Vec<Id>>,
        mode: Option<u8>,
    },
    /// No target for the triggered ability being put on the stack, whose one target is
    /// optional ("up to one target", CR 601.2c).
    ChooseNoTarget,
    /// Cast a spell with two targets (CR 601.2c): as [`Move::Cast`], the first target and
    /// the second in the order its text names them.
    CastTwo {
        card: Id,
        targets: [Target; 2],
        tap: Option<Vec<Id>>,
        mode: Option<u8>,
    },
    /// Cast a spell naming what it pays beyond its mana cost (CR 601.2b, 601.2f): X (CR
    /// 107.3a), the card discarded or the creature sacrificed for its additional cost, and
    /// its kicker. A cast with none of them is [`Move::Cast`].
    CastWith {
        card: Id,
        target: Option<Target>,
        tap: Option<Vec<Id>>,
        mode: Option<u8>,
        kicked: bool,
        x: u8,
        discard: Option<Id>,
        sacrifice: Option<Id>,
    },
    /// Activate an ability whose cost sacrifices a creature, naming it (CR 602.2b, 701.17):
    /// as [`Move::Activate`], the creature sacrificed with the other costs.
    ActivateWith {
        card: Id,
        ability: u8,
        target: Option<Target>,
        tap: Option<Vec<Id>>,
        sacrifice: Id,
    },
    /// Answer a "you may" of a resolving spell or ability (CR 608.2d): decline, or accept
    /// paying its cost: `card` the creature sacrificed or the card discarded, `tap` the mana
    /// sources for a mana payment (None: tapped automatically).
    May {
        accept: bool,
        card: Option<Id>,
        tap: Option<Vec<Id>>,
    },
    /// The card (at most one) chosen among those looked at (CR 401.5).
    Look(Vec<Id>),
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
    /// A game set up at a position (`--setup`): the turns before `turn` and the steps of
    /// `turn` before `step` were never played (their draws, untaps and combats did not happen).
    StartedFromPosition {
        turn: u32,
        step: Step,
        active: Seat,
        turns_skipped: u32,
        steps_skipped: Vec<Step>,
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
        #[serde(skip_serializing_if = "Option::is_none")]
        mode: Option<u8>,
        /// The second target of a spell with two (CR 601.2c).
        #[serde(skip_serializing_if = "Option::is_none")]
        second: Option<Target>,
    },
    /// An activated ability of `card` was put on the stack, its costs paid (CR 602.2).
    Activated {
        player: Seat,
        card: Id,
        ability: u8,
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
    /// Surveil (CR 701.25a): of `looked_at` cards, these went to the graveyard.
    Surveilled {
        player: Seat,
        looked_at: u8,
        graveyard: Vec<Id>,
    },
    LifeLost {
        player: Seat,
        amount: i16,
    },
    ReturnedToHand {
        card: Id,
    },
    Tapped {
        card: Id,
    },
    Counters {
        card: Id,
        amount: i16,
    },
    Milled {
        player: Seat,
        card: Id,
    },
    /// A triggered ability of `card` was put on the stack (CR 603.3).
    Triggered {
        card: Id,
        ability: u8,
    },
    AbilityResolved {
        card: Id,
        ability: u8,
    },
    TokenCreated {
        card: Id,
    },
    /// An Aura or Equipment became attached to a permanent (CR 701.3a).
    Attached {
        card: Id,
        to: Id,
    },
    /// A noncreature permanent was put into its owner's graveyard by a state-based action
    /// (an unattached Aura, CR 704.5m; the legend rule, 704.5j).
    PutIntoGraveyard {
        card: Id,
        reason: &'static str,
    },
    /// A spell was countered (CR 701.5).
    Countered {
        card: Id,
    },
    /// A permanent was sacrificed to pay a cost (CR 701.17).
    Sacrificed {
        card: Id,
    },
    /// A player searched their library (CR 701.23) and found `found` cards; cards put into a
    /// hand are not named (they are hidden there).
    Searched {
        player: Seat,
        found: u8,
        shuffled: bool,
    },
    /// A card was put onto the battlefield by an effect (not cast or played).
    EnteredBattlefield {
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
    /// A card left its owner's graveyard for `to` (a hand or the battlefield) by an effect
    /// (CR 400.7).
    ReturnedFromGraveyard {
        card: Id,
        to: Zone,
    },
    /// A card was exiled from `from` (CR 406.3).
    Exiled {
        card: Id,
        from: Zone,
    },
    /// A ward ability triggered (CR 702.21a): `card` became the target of `by`'s spell or
    /// ability of `source`.
    WardTriggered {
        card: Id,
        source: Id,
    },
    /// A ward cost was paid (CR 702.21a); the spell or ability of `source` goes on.
    WardPaid {
        player: Seat,
        source: Id,
    },
    /// Loyalty counters were put on or removed from a planeswalker to pay a loyalty cost
    /// (CR 606.4).
    Loyalty {
        card: Id,
        amount: i16,
    },
    /// A creature got a combat restriction until the end of the turn (CR 509.1a-b):
    /// `cant_block` or `cant_be_blocked`.
    Restricted {
        card: Id,
        restriction: &'static str,
    },
    /// A card exiled until a permanent left the battlefield returned to the battlefield
    /// under its owner's control (CR 610.3a).
    ReturnedFromExile {
        card: Id,
    },
    /// The effect before a reflexive trigger ("When you do, …", CR 603.12) was performed: the
    /// triggered ability `ability` of `card` triggers.
    ReflexiveTriggered {
        card: Id,
        ability: u8,
    },
    /// A permanent untapped by an effect (CR 701.26b); the untap step's untapping is not an
    /// event.
    Untapped {
        card: Id,
    },
    /// Stun counters put on a permanent (positive) or removed from it instead of untapping
    /// (negative) (CR 122.1d).
    Stun {
        card: Id,
        amount: i16,
    },
    /// The controller of `source`'s resolving spell or ability answered its "you may"
    /// (CR 608.2d).
    May {
        player: Seat,
        source: Id,
        accept: bool,
    },
    /// `player` looked at the top `looked_at` cards of their library (CR 401.5): `revealed`
    /// went to their hand, `graveyard` into the graveyard, `bottom` cards to the bottom in a
    /// random order; a card put back on top is not named.
    LookedAt {
        player: Seat,
        looked_at: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        revealed: Option<Id>,
        graveyard: Vec<Id>,
        bottom: u8,
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

pub fn move_name(m: &Move) -> &'static str {
    match m {
        Move::Pass => "pass",
        Move::PlayLand(_) => "play_land",
        Move::Cast { .. } => "cast",
        Move::Activate { .. } => "activate",
        Move::Attack(_) => "declare_attackers",
        Move::Block(_) => "declare_blockers",
        Move::Assign { .. } => "assign_damage",
        Move::Keep => "keep",
        Move::Mulligan => "mulligan",
        Move::Bottom(_) => "bottom",
        Move::Discard(_) => "discard",
        Move::ChooseTarget(_) => "choose_target",
        Move::Surveil(_) => "surveil",
        Move::Search(_) => "search",
        Move::ChooseMode(_) => "choose_mode",
        Move::Concede => "concede",
        Move::AttackWith(_) => "declare_attackers",
        Move::Ward { .. } => "ward",
        Move::KeepLegend(_) => "legend_rule",
        Move::SurveilOrder { .. } => "surveil",
        Move::CastKicked { .. } => "cast",
        Move::ChooseNoTarget => "choose_no_target",
        Move::CastTwo { .. } => "cast",
        Move::CastWith { .. } => "cast",
        Move::ActivateWith { .. } => "activate",
        Move::May { .. } => "may",
        Move::Look(_) => "look",
    }
}
