//! The game state: objects, zones, players, turn, stack, combat, and the pending decision.
//!
//! A card keeps one id (`c1`, `c2`, …) for the whole game. CR 400.7 makes a card that changes
//! zones a new object: a card returned to hand can come back, so each object counts how often
//! it left the battlefield and a spell remembers that count with its target; a target whose
//! count changed is gone (the spell does not follow the card to its new object).

use super::cards::{Affects, Card, CardData, Kind, StaticEffect};
use super::compile::StaticCondition;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

mod battlefield;
pub use battlefield::Battlefield;

/// A player: `p1` (index 0) or `p2` (index 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(pub u8);

impl Seat {
    pub const P1: Seat = Seat(0);
    pub const P2: Seat = Seat(1);
    pub fn other(self) -> Seat {
        Seat(1 - self.0)
    }
    pub fn name(self) -> &'static str {
        if self.0 == 0 { "p1" } else { "p2" }
    }
    pub fn parse(s: &str) -> Option<Seat> {
        match s {
            "p1" => Some(Seat::P1),
            "p2" => Some(Seat::P2),
            _ => None,
        }
    }
    pub fn i(self) -> usize {
        self.0 as usize
    }
}

impl Serialize for Seat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
impl<'de> Deserialize<'de> for Seat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Seat, D::Error> {
        let s = String::deserialize(d)?;
        Seat::parse(&s).ok_or_else(|| D::Error::custom(format!("{s:?} is not p1 or p2")))
    }
}

/// A card object's id in a game: `c<n>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id(pub u16);

impl Id {
    pub fn parse(s: &str) -> Option<Id> {
        let n: u16 = s.strip_prefix('c')?.parse().ok()?;
        (n >= 1 && !s[1..].starts_with('0')).then(|| Id(n - 1))
    }
    pub fn i(self) -> usize {
        self.0 as usize
    }
}
impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "c{}", self.0 + 1)
    }
}
impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        let s = String::deserialize(d)?;
        Id::parse(&s).ok_or_else(|| D::Error::custom(format!("{s:?} is not a card id")))
    }
}

/// A target (CR 115.1): a card object or a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Player(Seat),
    Obj(Id),
}
impl Target {
    pub fn parse(s: &str) -> Option<Target> {
        Seat::parse(s)
            .map(Target::Player)
            .or_else(|| Id::parse(s).map(Target::Obj))
    }
}
impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Player(p) => f.write_str(p.name()),
            Target::Obj(id) => write!(f, "{id}"),
        }
    }
}
impl Serialize for Target {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Target, D::Error> {
        let s = String::deserialize(d)?;
        Target::parse(&s).ok_or_else(|| D::Error::custom(format!("{s:?} is not a target")))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Zone {
    Library,
    Hand,
    Stack,
    Battlefield,
    Graveyard,
    /// A token that left the battlefield and ceased to exist (CR 704.5d).
    Gone,
    /// CR 406: exiled (a public zone here: every card in it is face up).
    Exile,
}

/// The steps of a turn (CR 500.1), by their contract names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Untap,
    Upkeep,
    Draw,
    Main1,
    BeginningOfCombat,
    DeclareAttackers,
    DeclareBlockers,
    FirstStrikeDamage,
    CombatDamage,
    EndOfCombat,
    Main2,
    End,
    Cleanup,
}

impl Step {
    /// Every step in turn order (CR 500.1).
    pub const ALL: [Step; 13] = [
        Step::Untap,
        Step::Upkeep,
        Step::Draw,
        Step::Main1,
        Step::BeginningOfCombat,
        Step::DeclareAttackers,
        Step::DeclareBlockers,
        Step::FirstStrikeDamage,
        Step::CombatDamage,
        Step::EndOfCombat,
        Step::Main2,
        Step::End,
        Step::Cleanup,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Step::Untap => "untap",
            Step::Upkeep => "upkeep",
            Step::Draw => "draw",
            Step::Main1 => "main1",
            Step::BeginningOfCombat => "beginning_of_combat",
            Step::DeclareAttackers => "declare_attackers",
            Step::DeclareBlockers => "declare_blockers",
            Step::FirstStrikeDamage => "first_strike_damage",
            Step::CombatDamage => "combat_damage",
            Step::EndOfCombat => "end_of_combat",
            Step::Main2 => "main2",
            Step::End => "end",
            Step::Cleanup => "cleanup",
        }
    }
    pub fn is_main(self) -> bool {
        matches!(self, Step::Main1 | Step::Main2)
    }
}

/// One card object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Obj {
    /// Index into the game's card table.
    pub card: u16,
    pub owner: Seat,
    pub zone: Zone,
    pub tapped: bool,
    /// Summoning sick (CR 302.6): not continuously controlled since the start of the
    /// controller's most recent turn.
    pub sick: bool,
    pub damage: i16,
    /// Dealt damage by a source with deathtouch since damage last wore off (CR 704.5h).
    pub deathtouched: bool,
    /// "Until end of turn" power/toughness changes (CR 514.2).
    pub pump_p: i16,
    pub pump_t: i16,
    /// Net +1/+1 counters (negative: -1/-1 counters); CR 704.5q keeps only one kind.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub counters: i16,
    /// Keyword abilities gained until end of turn (CR 611.2, layer 6).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gained: u16,
    /// How many times it has left the battlefield: a target remembered with another count is
    /// an older object (CR 400.7).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub moves: u16,
    /// The permanent this Aura or Equipment is attached to (CR 301.5, 303.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attached: Option<Id>,
    /// Loyalty counters on a planeswalker (CR 306.5b, 122.1e): its loyalty.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub loyalty: i16,
    /// The turn in which a loyalty ability of this permanent was last activated (0: never):
    /// one per turn (CR 606.3).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub loyalty_turn: u32,
    /// Stun counters (CR 122.1d): while it has one, it loses one instead of untapping.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stun: u8,
    /// All combat damage that would be dealt to it this turn is prevented (CR 615.1).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shielded: bool,
    /// Combat restrictions effects set on it for the rest of the turn (CR 509.1a-b, 611.2a):
    /// [`Obj::CANT_BLOCK`] and [`Obj::CANT_BE_BLOCKED`] bits, cleared in the cleanup step.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub restricted: u8,
    /// In exile until this permanent (with this [`Obj::moves`] count) leaves the battlefield
    /// (CR 610.3a): then it returns to the battlefield under its owner's control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exiled_until: Option<(Id, u16)>,
}

impl Obj {
    /// "can't block this turn".
    pub const CANT_BLOCK: u8 = 1;
    /// "can't be blocked this turn".
    pub const CANT_BE_BLOCKED: u8 = 2;
    /// The contract names of the restriction bits.
    pub const RESTRICTIONS: [(u8, &'static str); 2] = [
        (Obj::CANT_BLOCK, "cant_block"),
        (Obj::CANT_BE_BLOCKED, "cant_be_blocked"),
    ];

    /// The names of the combat restrictions on it until the end of the turn.
    pub fn restrictions(&self) -> Vec<&'static str> {
        Obj::RESTRICTIONS
            .iter()
            .filter(|(b, _)| self.restricted & b != 0)
            .map(|(_, n)| *n)
            .collect()
    }
}

fn is_zero<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub life: i32,
    /// Front = top (drawn first).
    pub library: Vec<Id>,
    pub hand: Vec<Id>,
    pub graveyard: Vec<Id>,
    pub lands_played: u8,
    /// Attempted to draw from an empty library since the last SBA check (CR 704.5b).
    pub drew_from_empty: bool,
    pub mulligans: u8,
    /// Where this player is in the mulligan procedure (CR 103.5).
    #[serde(default)]
    pub opening: Opening,
    pub lost: bool,
    /// Untapped basic (one-colour) lands on the battlefield by colour (WUBRG), kept up to
    /// date by the engine.
    pub untapped: [u8; 5],
    /// The cards this player owns in exile (CR 406), in the order they were exiled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exile: Vec<Id>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackItem {
    pub card: Id,
    pub controller: Seat,
    pub target: Option<Target>,
    /// The target object's [`Obj::moves`] when it was chosen (CR 400.7).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub target_moves: u16,
    /// A triggered ability of `card` (index into its card's triggers), not the card itself;
    /// with `activated`, an index into its activated abilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ability: Option<u8>,
    /// `ability` is an activated ability (CR 602), not a triggered one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub activated: bool,
    /// The chosen mode of a modal spell or ability (CR 700.2a); None until a modal triggered
    /// ability's controller chooses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u8>,
    /// Cast from a graveyard with flashback (CR 702.34a): exiled instead of going anywhere
    /// else as it leaves the stack.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flashback: bool,
    /// A ward trigger of `card` (CR 702.21a), not one of its printed abilities: the spell or
    /// ability it counters unless that one's controller pays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ward: Option<Warded>,
    /// Its controller chose no target for its optional one ("up to one target", CR 601.2c):
    /// its targeted effects do nothing.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub untargeted: bool,
    /// The second target of a spell with two (CR 601.2c), and its [`Obj::moves`] when chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<Target>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub second_moves: u16,
}

/// What a ward trigger counters unless its controller pays `cost` generic mana (CR 702.21a):
/// the stack item of `card` with that `ability` (None: the spell itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warded {
    pub card: Id,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ability: Option<u8>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub activated: bool,
    pub cost: u8,
    /// Who must pay (the controller of the targeting spell or ability).
    pub player: Seat,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attacker {
    pub id: Id,
    pub defender: Seat,
    pub blockers: Vec<Id>,
    /// Blocked stays true even when its blockers leave combat (CR 509.1h).
    pub blocked: bool,
    /// The attacking player's damage division for the current damage step (CR 510.1c-d).
    pub assignment: Vec<(Target, i16)>,
    /// The planeswalker it attacks (CR 508.1b), controlled by `defender`; None: the player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planeswalker: Option<Id>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Combat {
    pub attackers: Vec<Attacker>,
    pub first_strike_step: bool,
}

/// A player's place in the mulligan procedure (CR 103.5): declarations are made in turn
/// order and revealed together; a player who keeps after N mulligans then puts N cards on
/// the bottom.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Opening {
    /// Has not declared in the current round.
    #[default]
    Undecided,
    /// Declared (hidden from the other player until every player has declared).
    Declared { mulligan: bool },
    /// Kept after mulligans; must still put cards on the bottom.
    MustBottom,
    /// Opening hand final.
    Kept,
}

/// Who must decide what now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Pending {
    Mulligan {
        player: Seat,
    },
    Bottom {
        player: Seat,
        count: u8,
    },
    Priority,
    DeclareAttackers,
    DeclareBlockers,
    AssignDamage {
        attacker: Id,
    },
    Discard {
        player: Seat,
        count: u8,
    },
    /// The controller of the triggered ability on the stack at `item` (index from the
    /// bottom) chooses its target as it is put on the stack (CR 603.3d).
    ChooseTarget {
        player: Seat,
        item: u8,
    },
    /// Surveil (CR 701.25a): `player` looks at the top `count` cards of their library and
    /// puts any number of them into their graveyard, as a spell or ability resolves.
    Surveil {
        player: Seat,
        count: u8,
    },
    /// The controller of the modal triggered ability on the stack at `item` chooses its mode as
    /// it is put on the stack (CR 700.2a), before its target.
    ChooseMode {
        player: Seat,
        item: u8,
    },
    /// The controller of a resolving spell or ability searches its library (CR 701.23): a
    /// hidden decision, its options shown only to that seat.
    Search {
        player: Seat,
        search: super::cards::Search,
    },
    /// A ward trigger resolves (CR 702.21a): `warded.player` pays its cost or the spell or
    /// ability that targeted the ward permanent is countered.
    WardPayment {
        player: Seat,
        warded: Warded,
    },
    /// The legend rule (CR 704.5j): `player` controls two or more legendary permanents named
    /// like `card` and chooses the one to keep.
    LegendRule {
        player: Seat,
        card: Id,
    },
    /// A player discards as a spell or ability resolves (CR 701.9): the `discard` action, as
    /// in the cleanup step.
    Discarding {
        player: Seat,
        count: u8,
    },
    GameOver,
    /// `player` looks at `from`'s revealed hand and chooses the card `from` discards
    /// (CR 701.20a, 701.9b), a nonland one if `nonland`: the `discard` action with one card.
    ChooseDiscard {
        player: Seat,
        from: Seat,
        nonland: bool,
    },
    /// A resolving spell or ability says "you may …" (CR 603.5, 608.2d): `player`, its
    /// controller, accepts (paying the cost) or declines; the rest of its effects wait.
    May {
        player: Seat,
        optional: Optional,
    },
    /// `player` looks at the top `look.count` cards of their library and chooses at most one
    /// of them (CR 401.5, 608.2d), a hidden decision shown only to that seat.
    Look {
        player: Seat,
        look: super::cards::Look,
    },
}

/// A "you may" of a resolving spell or ability waiting for its answer (CR 608.2d): what
/// accepting costs, and where the effects after it are and what they act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Optional {
    /// The spell's card, or the source of the ability.
    pub source: Id,
    pub cost: super::cards::MayCost,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// None: the spell's effects; Some(i): the source's ability `i` (activated or triggered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ability: Option<u8>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub activated: bool,
    /// The spell's kicked effects (CR 702.33d).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub kicked: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// None for a draw (CR 104.4a).
    pub winner: Option<Seat>,
    pub reason: String,
}

/// The whole game. Field order is the canonical order of the state hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub game_id: String,
    pub rules_version: String,
    pub seed: u64,
    /// Words consumed from the game's ChaCha8 stream.
    pub rng_pos: u64,
    #[serde(with = "card_table")]
    pub cards: Arc<Vec<Card>>,
    pub objs: Vec<Obj>,
    pub players: [Player; 2],
    pub battlefield: Battlefield,
    pub stack: Vec<StackItem>,
    pub turn: u32,
    pub step: Step,
    pub active: Seat,
    pub priority: Seat,
    pub starting_player: Seat,
    /// Consecutive passes since the last action (CR 117.4).
    pub passes: u8,
    pub combat: Combat,
    pub pending: Pending,
    /// Number of accepted decisions; the current decision id is `d<decisions + 1>`.
    pub decisions: u64,
    pub outcome: Option<Outcome>,
    /// Something happened that a state-based action may have to answer (damage, life,
    /// a resolution, a draw from an empty library); cleared by the SBA check.
    pub sba_check: bool,
    /// What happened this turn that intervening-if conditions ask about (CR 603.4).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub this_turn: ThisTurn,
    /// Spells cast with their kicker paid (CR 702.33), each with its [`Obj::moves`] as it was
    /// cast: the spell, the permanent it became, and that permanent as it last existed once
    /// it left the battlefield (CR 608.2h) are kicked; a later object of the card is not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kicked: Vec<(Id, u16)>,
    /// The power of sources sacrificed to pay for an ability that deals damage equal to it,
    /// as they last existed on the battlefield (CR 608.2h); kept until the ability resolves.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_power: Vec<(Id, i16)>,
    /// The X of each spell on the stack cast with X above 0 (CR 107.3a), kept until it
    /// leaves the stack.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub x_paid: Vec<(Id, u8)>,
}

/// What happened so far this turn, for conditions such as raid and morbid; cleared as a turn
/// begins.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThisTurn {
    /// The active player declared at least one attacker (CR 508.1).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attacked: bool,
    /// A creature died (CR 700.4).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub creature_died: bool,
    /// Each player lost life (CR 119.3, damage included), by seat index.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost_life: [bool; 2],
    /// Each player gained life (CR 119.9), by seat index.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gained_life: [bool; 2],
    /// Cards each player drew this turn (CR 121.2), by seat index; counted as drawn.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub drawn: [u8; 2],
    /// Times each player gained life this turn (CR 119.9), by seat index; counted as gained.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gains: [u8; 2],
    /// How much life each player gained this turn (CR 119.9), by seat index; counted as
    /// gained.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub life_gained: [u16; 2],
}

mod card_table {
    use super::*;
    pub fn serialize<S: Serializer>(cards: &Arc<Vec<Card>>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(cards.iter().map(|c| &c.data))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Vec<Card>>, D::Error> {
        let data = Vec::<CardData>::deserialize(d)?;
        data.iter()
            .map(|c| super::super::cards::parse(c).map_err(D::Error::custom))
            .collect::<Result<Vec<_>, _>>()
            .map(Arc::new)
    }
}

impl State {
    pub fn card(&self, id: Id) -> &Card {
        &self.cards[self.objs[id.i()].card as usize]
    }
    pub fn obj(&self, id: Id) -> &Obj {
        &self.objs[id.i()]
    }
    pub fn is_creature(&self, id: Id) -> bool {
        self.card(id).kind == Kind::Creature
    }
    /// A planeswalker (CR 306).
    pub fn is_planeswalker(&self, id: Id) -> bool {
        self.card(id).kind == Kind::Planeswalker
    }
    /// Power after the layers (CR 613.4): the printed value (7a/7b: nothing here sets it),
    /// then in 7c counters, "until end of turn" changes and static abilities; all of 7c adds,
    /// so its order does not change the sum. Nothing changes the base value.
    pub fn power(&self, id: Id) -> i16 {
        self.card(id).power + self.obj(id).counters + self.obj(id).pump_p + self.layered(id).power
    }
    pub fn toughness(&self, id: Id) -> i16 {
        self.card(id).toughness
            + self.obj(id).counters
            + self.obj(id).pump_t
            + self.layered(id).toughness
    }
    pub fn has(&self, id: Id, kw: u16) -> bool {
        self.keywords(id) & kw != 0
    }
    /// Keyword abilities after layer 6 (CR 613.1f): printed, gained until end of turn, and
    /// granted by static abilities.
    pub fn keywords(&self, id: Id) -> u16 {
        self.card(id).keywords | self.obj(id).gained | self.layered(id).keywords
    }
    /// "Can't be blocked" applies to it now (CR 509.1b).
    pub fn unblockable(&self, id: Id) -> bool {
        self.obj(id).restricted & Obj::CANT_BE_BLOCKED != 0 || self.layered(id).unblockable
    }
    /// "Attacks each combat if able" applies to it now (CR 508.1d).
    pub fn must_attack(&self, id: Id) -> bool {
        self.layered(id).must_attack
    }
    /// "Can't block" applies to it now (CR 509.1a).
    pub fn cant_block(&self, id: Id) -> bool {
        self.obj(id).restricted & Obj::CANT_BLOCK != 0 || self.layered(id).cant_block
    }

    /// What the static abilities of the permanents on the battlefield add to creature `id`
    /// now (CR 604.2, 611.3a): each applies while its source is on the battlefield and its
    /// condition holds, to the creatures that qualify at this moment, so nothing is stored
    /// and nothing is undone when a source leaves.
    fn layered(&self, id: Id) -> Layered {
        let mut l = Layered::default();
        if self.obj(id).zone != Zone::Battlefield || !self.is_creature(id) {
            return l;
        }
        for &src in self.static_sources() {
            let you = self.obj(src).owner;
            for st in &self.card(src).statics {
                if !self.static_applies(st, src, you, id) {
                    continue;
                }
                let k = st.per.map_or(1, |c| self.static_count(c, you));
                l.power += st.power as i16 * k;
                l.toughness += st.toughness as i16 * k;
                l.must_attack |= st.must_attack;
                l.keywords |= st.keywords;
                l.unblockable |= st.unblockable;
                l.cant_block |= st.cant_block;
            }
        }
        l
    }

    /// The permanents on the battlefield with static abilities (CR 604.2), in battlefield order.
    pub(crate) fn static_sources(&self) -> &[Id] {
        self.battlefield
            .sources(|id| !self.card(id).statics.is_empty())
    }

    pub(crate) fn static_applies(&self, st: &StaticEffect, src: Id, you: Seat, id: Id) -> bool {
        let mine = self.obj(id).owner == you;
        let applies = match &st.affects {
            Affects::Source => src == id,
            Affects::Yours => mine,
            Affects::Attached => self.obj(src).attached == Some(id),
            Affects::Group(g) => {
                mine && !(g.other && src == id)
                    && g.subtype
                        .as_ref()
                        .is_none_or(|t| self.card(id).subtypes.contains(t))
                    && (!g.with_counter || self.obj(id).counters > 0)
            }
        };
        applies
            && match st.condition {
                None => true,
                Some(StaticCondition::YourTurn) => self.active == you,
                Some(StaticCondition::GraveyardAtLeast(n)) => {
                    self.players[you.i()].graveyard.len() >= n as usize
                }
            }
    }
    pub fn decision_id(&self) -> String {
        format!("d{}", self.decisions + 1)
    }
    /// The player who must decide now (None once the game is over).
    pub fn decider(&self) -> Option<Seat> {
        match self.pending {
            Pending::Mulligan { player } | Pending::Bottom { player, .. } => Some(player),
            Pending::Discard { player, .. } => Some(player),
            Pending::ChooseTarget { player, .. } | Pending::ChooseMode { player, .. } => {
                Some(player)
            }
            Pending::Search { player, .. } | Pending::Discarding { player, .. } => Some(player),
            Pending::Surveil { player, .. } => Some(player),
            Pending::WardPayment { player, .. } | Pending::LegendRule { player, .. } => {
                Some(player)
            }
            Pending::Priority => Some(self.priority),
            Pending::DeclareAttackers | Pending::AssignDamage { .. } => Some(self.active),
            Pending::DeclareBlockers => Some(self.active.other()),
            Pending::GameOver => None,
            Pending::ChooseDiscard { player, .. } => Some(player),
            Pending::May { player, .. } => Some(player),
            Pending::Look { player, .. } => Some(player),
        }
    }

    /// SHA-256 of the canonical serialization (fixed field order, no maps), hex.
    pub fn hash(&self) -> String {
        let bytes = serde_json::to_vec(self).expect("state serializes");
        crate::store::sha256_hex(&bytes)
    }

    /// Total number of card objects in each zone, for the conservation invariant.
    pub fn zone_counts(&self) -> usize {
        self.players
            .iter()
            .map(|p| p.library.len() + p.hand.len() + p.graveyard.len() + p.exile.len())
            .sum::<usize>()
            + self.battlefield.len()
            + self.stack.iter().filter(|it| it.ability.is_none()).count()
            + self.objs.iter().filter(|o| o.zone == Zone::Gone).count()
    }

    /// Checks the invariants every reachable state keeps; returns the first broken one.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.zone_counts() != self.objs.len() {
            return Err(format!(
                "cards not conserved: {} in zones, {} objects",
                self.zone_counts(),
                self.objs.len()
            ));
        }
        let mut seen = vec![false; self.objs.len()];
        let mut mark = |id: Id, zone: Zone, owner: Option<Seat>| -> Result<(), String> {
            let o = self.objs.get(id.i()).ok_or(format!("{id} out of range"))?;
            if std::mem::replace(&mut seen[id.i()], true) {
                return Err(format!("{id} is in two places"));
            }
            if o.zone != zone || owner.is_some_and(|s| s != o.owner) {
                return Err(format!("{id} zone/owner mismatch"));
            }
            Ok(())
        };
        for (i, p) in self.players.iter().enumerate() {
            let s = Some(Seat(i as u8));
            for &id in &p.library {
                mark(id, Zone::Library, s)?;
            }
            for &id in &p.hand {
                mark(id, Zone::Hand, s)?;
            }
            for &id in &p.graveyard {
                mark(id, Zone::Graveyard, s)?;
            }
            for &id in &p.exile {
                mark(id, Zone::Exile, s)?;
            }
        }
        for &id in &self.battlefield {
            mark(id, Zone::Battlefield, None)?;
        }
        for it in self.stack.iter().filter(|it| it.ability.is_none()) {
            mark(it.card, Zone::Stack, None)?;
        }
        for seat in [Seat::P1, Seat::P2] {
            if self.players[seat.i()].untapped != count_untapped(self, seat) {
                return Err(format!("untapped land count of {} is stale", seat.name()));
            }
        }
        if self.outcome.is_none() && self.pending == Pending::GameOver {
            return Err("game over without an outcome".into());
        }
        Ok(())
    }
}

/// What static abilities add to one creature (see [`State::power`]).
#[derive(Debug, Clone, Copy, Default)]
struct Layered {
    power: i16,
    toughness: i16,
    keywords: u16,
    unblockable: bool,
    cant_block: bool,
    must_attack: bool,
}

/// Counts the untapped basic lands (one-colour lands) of `seat` by colour (the source of
/// [`Player::untapped`]); every other mana source is found on the battlefield when needed.
pub fn count_untapped(s: &State, seat: Seat) -> [u8; 5] {
    let mut m = [0u8; 5];
    for &id in &s.battlefield {
        let o = s.obj(id);
        if o.owner == seat
            && !o.tapped
            && let Kind::Land(mask) = s.cards[o.card as usize].kind
            && mask.count_ones() == 1
            && mask < 1 << 5
        {
            m[mask.trailing_zeros() as usize] += 1;
        }
    }
    m
}
