//! The visible state on the wire: what one viewer may see of a game (`bob mtg state`,
//! `mtg.state`, the journal's decision lines, the model's and the person's prompts). Field
//! order is the wire's key order.

use super::super::cards::kw;
use super::super::state::*;
use super::Viewer;
use serde::Serialize;

/// A card named on the wire: `{id, name}`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CardBrief<'a> {
    pub id: Id,
    pub name: &'a str,
}

fn card_brief(s: &State, id: Id) -> CardBrief<'_> {
    CardBrief {
        id,
        name: &s.card(id).data.name,
    }
}

pub(super) fn briefs<'a>(s: &'a State, ids: &[Id]) -> Vec<CardBrief<'a>> {
    ids.iter().map(|&i| card_brief(s, i)).collect()
}

/// The visible state: `{game_id, turn, step, …, players, battlefield, stack, viewer}`.
#[derive(Debug, Clone, Serialize)]
pub struct VisibleState<'a> {
    pub game_id: &'a str,
    pub turn: u32,
    pub step: Step,
    pub active: Seat,
    /// The seat that decides now (null once the game is over).
    pub priority: Option<Seat>,
    pub game_over: bool,
    pub winner: Option<Seat>,
    pub reason: Option<&'a str>,
    pub players: PlayersView<'a>,
    pub battlefield: Vec<PermanentView<'a>>,
    pub stack: Vec<StackItemView<'a>>,
    /// `p1`, `p2` or `all`.
    pub viewer: &'static str,
}

/// Compact JSON, as the model and the tutor are shown it.
impl std::fmt::Display for VisibleState<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| std::fmt::Error)?)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PlayersView<'a> {
    pub p1: PlayerView<'a>,
    pub p2: PlayerView<'a>,
}

/// One player as the viewer sees them: their own hand, the other's hand size only; a library
/// in order only for the `all` view.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerView<'a> {
    pub life: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<CardBrief<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand_count: Option<usize>,
    pub library_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<Vec<CardBrief<'a>>>,
    pub graveyard: Vec<CardBrief<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exile: Vec<CardBrief<'a>>,
    pub lands_played: u8,
    pub mulligans: u8,
}

/// A permanent: power and toughness are null for a noncreature; the optional fields appear
/// only when they apply.
#[derive(Debug, Clone, Serialize)]
pub struct PermanentView<'a> {
    pub id: Id,
    pub name: &'a str,
    pub controller: Seat,
    pub tapped: bool,
    pub damage: i16,
    pub power: Option<i16>,
    pub toughness: Option<i16>,
    pub keywords: Vec<&'static str>,
    pub sick: bool,
    #[serde(skip_serializing_if = "is_zero")]
    pub counters: i16,
    #[serde(skip_serializing_if = "is_zero")]
    pub stun: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attached_to: Option<Id>,
    /// Combat restrictions until the end of the turn (CR 509.1a-b).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub this_turn: Option<Vec<&'static str>>,
    /// What it attacks: a player or a planeswalker (CR 508.1b).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attacking: Option<Target>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loyalty: Option<i16>,
    /// The attacker it blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocking: Option<Id>,
}

/// A spell, or a triggered or activated ability of card `id`, on the stack.
#[derive(Debug, Clone, Serialize)]
pub struct StackItemView<'a> {
    pub id: Id,
    pub name: &'a str,
    pub controller: Seat,
    /// Its target, or its two targets in the order its text names them (CR 601.2c).
    pub targets: Vec<Target>,
    /// A triggered (or activated) ability of the card (index), not the card itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ability: Option<u8>,
    /// A ward trigger (CR 702.21a) instead of a printed ability.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ward: Option<WardView>,
    #[serde(skip_serializing_if = "is_zero")]
    pub activated: bool,
}

/// A ward trigger: the card whose spell or ability it counters unless `payer` pays `cost`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct WardView {
    pub counters: Id,
    pub cost: u8,
    pub payer: Seat,
}

fn is_zero<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// The visible state for one viewer: the other seat's hand and both libraries are counts
/// only (no library order is ever shown to a seat); `all` is the engine's full view, libraries
/// in order included, for admins.
pub fn visible(s: &State, viewer: Viewer) -> VisibleState<'_> {
    let player = |seat: Seat| {
        let p = &s.players[seat.i()];
        let sees_hand = match viewer {
            Viewer::All => true,
            Viewer::Seat(v) => v == seat,
        };
        PlayerView {
            life: p.life,
            hand: sees_hand.then(|| briefs(s, &p.hand)),
            hand_count: (!sees_hand).then_some(p.hand.len()),
            library_count: p.library.len(),
            library: (viewer == Viewer::All).then(|| briefs(s, &p.library)),
            graveyard: briefs(s, &p.graveyard),
            exile: briefs(s, &p.exile),
            lands_played: p.lands_played,
            mulligans: p.mulligans,
        }
    };
    let outcome = s.outcome.as_ref();
    VisibleState {
        game_id: &s.game_id,
        turn: s.turn,
        step: s.step,
        active: s.active,
        priority: s.decider(),
        game_over: outcome.is_some(),
        winner: outcome.and_then(|o| o.winner),
        reason: outcome.map(|o| o.reason.as_str()),
        players: PlayersView {
            p1: player(Seat::P1),
            p2: player(Seat::P2),
        },
        battlefield: s.battlefield.iter().map(|&id| permanent(s, id)).collect(),
        stack: s.stack.iter().map(|it| stack_item(s, it)).collect(),
        viewer: match viewer {
            Viewer::All => "all",
            Viewer::Seat(p) => p.name(),
        },
    }
}

fn permanent(s: &State, id: Id) -> PermanentView<'_> {
    let o = s.obj(id);
    let creature = s.is_creature(id);
    let attack = s.combat.attackers.iter().find(|a| a.id == id);
    PermanentView {
        id,
        name: &s.card(id).data.name,
        controller: o.owner,
        tapped: o.tapped,
        damage: o.damage,
        power: creature.then(|| s.power(id)),
        toughness: creature.then(|| s.toughness(id)),
        keywords: kw::names(s.keywords(id)),
        sick: o.sick,
        counters: o.counters,
        stun: o.stun,
        attached_to: o.attached,
        this_turn: (o.restricted != 0).then(|| o.restrictions()),
        attacking: attack.map(|a| match a.planeswalker {
            Some(pw) => Target::Obj(pw),
            None => Target::Player(a.defender),
        }),
        loyalty: s.is_planeswalker(id).then_some(o.loyalty),
        blocking: s
            .combat
            .attackers
            .iter()
            .find(|a| a.blockers.contains(&id))
            .map(|a| a.id),
    }
}

fn stack_item<'a>(s: &'a State, it: &StackItem) -> StackItemView<'a> {
    // A ward trigger shows what it counters in place of an ability index.
    let ward = it.ability.and(it.ward).map(|w| WardView {
        counters: w.card,
        cost: w.cost,
        payer: w.player,
    });
    StackItemView {
        id: it.card,
        name: &s.card(it.card).data.name,
        controller: it.controller,
        targets: it.target.iter().chain(it.second.iter()).copied().collect(),
        ability: if ward.is_some() { None } else { it.ability },
        ward,
        activated: it.ability.is_some() && it.activated,
    }
}
