//! The wire contract: actions (`{decision_id, type, …}`), the ActionSurface and the visible
//! state. Ids on the wire are strings (`c12`, `p1`); [`Action::resolve`] turns them into a
//! [`Move`].

use super::engine::{Move, Paying};
use super::state::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// One attacker: `{attacker, defender}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttackDecl {
    /// Card id of the attacking creature, e.g. `c12`.
    pub attacker: String,
    /// What it attacks: the opponent (`p1` or `p2`) or a planeswalker that player controls
    /// (its card id, CR 508.1b).
    pub defender: String,
}

/// One block: `{blocker, attacker}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BlockDecl {
    pub blocker: String,
    pub attacker: String,
}

/// An action, as a player submits it (`bob mtg act`). Every action carries the current
/// `decision_id` from `bob mtg actions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ActionRequest {
    /// The `decision_id` of the ActionSurface this action answers (a stale id is refused).
    pub decision_id: String,
    #[serde(flatten)]
    pub action: Action,
}

/// The action kinds (`type`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Pass priority.
    Pass,
    /// Play a land from your hand (once per turn, main phase, empty stack).
    PlayLand { card: String },
    /// Cast a spell from your hand. `targets`: one card id or player for targeted spells.
    /// `tap`: the lands to tap (must pay the cost exactly); omitted = automatic payment.
    Cast {
        card: String,
        #[serde(default)]
        targets: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tap: Option<Vec<String>>,
        /// The mode of a modal spell ("Choose one —"), 0 for the first; chosen as it is cast.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<u8>,
        /// Pay the spell's kicker too (CR 702.33a); omitted = not kicked.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        kicked: bool,
        /// The value of X of a spell with {X} in its mana cost (CR 107.3a), paid as that much
        /// more generic mana; omitted = 0.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<u8>,
        /// The card of your hand you discard for the spell's additional cost "discard a card"
        /// (CR 601.2b).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        discard: Option<String>,
        /// The creature you control you sacrifice for the spell's additional cost "sacrifice a
        /// creature" (CR 601.2b); omitted for "sacrifice a creature or pay {cost}" = pay the
        /// mana.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sacrifice: Option<String>,
    },
    /// Activate an activated ability of a permanent you control (`ability`: its index among
    /// the card's activated abilities, 0 for the first). `targets` and `tap` as for `cast`.
    Activate {
        card: String,
        #[serde(default)]
        ability: u8,
        #[serde(default)]
        targets: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tap: Option<Vec<String>>,
        /// The creature you control you sacrifice for an ability whose cost is "Sacrifice a
        /// creature" or "Sacrifice another creature" (CR 602.2b).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sacrifice: Option<String>,
    },
    /// All attackers at once; an empty list attacks with nothing.
    DeclareAttackers { attackers: Vec<AttackDecl> },
    /// All blocks at once; an empty list blocks nothing.
    DeclareBlockers { blocks: Vec<BlockDecl> },
    /// Divide an attacker's combat damage: `{blocker_id_or_player: amount}`.
    AssignDamage {
        attacker: String,
        assignment: BTreeMap<String, i64>,
    },
    /// Keep the opening hand.
    Keep,
    /// Take a (London) mulligan.
    Mulligan,
    /// Put these cards from your hand on the bottom of your library after a mulligan.
    Bottom { cards: Vec<String> },
    /// Discard these cards: down to seven in the cleanup step, or as many as a resolving
    /// effect asks.
    Discard { cards: Vec<String> },
    /// Choose the target of the triggered ability being put on the stack.
    ChooseTarget { target: String },
    /// Surveil: put these of the cards looked at into your graveyard (the rest stay on top,
    /// in their order).
    /// `top`: the rest in the order you put them back, the first on top (CR 701.25a; omitted =
    /// the order they were in).
    Surveil {
        graveyard: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        top: Option<Vec<String>>,
    },
    /// The mode of the modal triggered ability being put on the stack (0 for the first).
    ChooseMode { mode: u8 },
    /// The cards a library search finds (from the decision's `choose_from`, at most `count`).
    Search { cards: Vec<String> },
    /// Concede the game.
    Concede,
    /// Answer a ward trigger (CR 702.21a): `pay` its cost (`tap` as for `cast`; omitted =
    /// automatic payment), or not, and the spell or ability that targeted the ward permanent
    /// is countered.
    Ward {
        pay: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tap: Option<Vec<String>>,
    },
    /// The legend rule: the one of your same-named legendary permanents to keep (the others
    /// go to the graveyard).
    LegendRule { keep: String },
    /// Choose no target for the triggered ability being put on the stack when its one target
    /// is optional ("up to one target"): its targeted effects then do nothing.
    ChooseNoTarget,
    /// Answer a "you may" of a resolving spell or ability (CR 608.2d): `accept` or not.
    /// Accepting pays its cost: `card` names the creature to sacrifice or the card to discard
    /// (from the decision's options); `tap` the mana sources for "you may pay" (as for `cast`;
    /// omitted = automatic payment).
    May {
        accept: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tap: Option<Vec<String>>,
    },
    /// The card (at most one, from the decision's `choose_from`) chosen among the top cards
    /// of your library you look at; an empty list chooses none.
    Look { cards: Vec<String> },
}

fn target(t: &str) -> Result<Target, String> {
    Target::parse(t).ok_or_else(|| format!("{t:?} is not a target (a card id or p1/p2)"))
}

fn id(s: &str) -> Result<Id, String> {
    Id::parse(s).ok_or_else(|| format!("{s:?} is not a card id (c1, c2, …)"))
}

fn ids(v: &[String]) -> Result<Vec<Id>, String> {
    v.iter().map(|s| id(s)).collect()
}

impl Action {
    /// Resolves wire ids; a malformed id is an error naming it.
    pub fn resolve(&self, state: &State) -> Result<Move, String> {
        Ok(match self {
            Action::Pass => Move::Pass,
            Action::PlayLand { card } => Move::PlayLand(id(card)?),
            Action::Cast {
                card,
                targets,
                tap,
                mode,
                kicked,
                x,
                discard,
                sacrifice,
            } => {
                if targets.len() > 2 {
                    return Err("cast: at most two targets in this rules subset".into());
                }
                // Two targets (CR 601.2c): the first and the second, in the text's order.
                if let [first, second] = targets.as_slice() {
                    if *kicked
                        || x.is_some_and(|x| x > 0)
                        || discard.is_some()
                        || sacrifice.is_some()
                    {
                        return Err(
                            "cast: a spell with two targets takes no kicker, X or additional cost here"
                                .into(),
                        );
                    }
                    return Ok(Move::CastTwo {
                        card: id(card)?,
                        targets: [target(first)?, target(second)?],
                        tap: tap.as_deref().map(ids).transpose()?,
                        mode: *mode,
                    });
                }
                let target = targets.first().map(|t| target(t)).transpose()?;
                let (card, tap) = (id(card)?, tap.as_deref().map(ids).transpose()?);
                let x = x.unwrap_or(0);
                if x > 0 || discard.is_some() || sacrifice.is_some() {
                    Move::CastWith {
                        card,
                        target,
                        tap,
                        mode: *mode,
                        kicked: *kicked,
                        x,
                        discard: discard.as_deref().map(id).transpose()?,
                        sacrifice: sacrifice.as_deref().map(id).transpose()?,
                    }
                } else if *kicked {
                    Move::CastKicked {
                        card,
                        target,
                        tap,
                        mode: *mode,
                    }
                } else {
                    Move::Cast {
                        card,
                        target,
                        tap,
                        mode: *mode,
                    }
                }
            }
            Action::Activate {
                card,
                ability,
                targets,
                tap,
                sacrifice,
            } => {
                if targets.len() > 1 {
                    return Err("activate: at most one target in this rules subset".into());
                }
                let target = targets.first().map(|t| target(t)).transpose()?;
                match sacrifice {
                    Some(s) => Move::ActivateWith {
                        card: id(card)?,
                        ability: *ability,
                        target,
                        tap: tap.as_deref().map(ids).transpose()?,
                        sacrifice: id(s)?,
                    },
                    None => Move::Activate {
                        card: id(card)?,
                        ability: *ability,
                        target,
                        tap: tap.as_deref().map(ids).transpose()?,
                    },
                }
            }
            Action::DeclareAttackers { attackers } => {
                let def = state.active.other();
                let mut v = Vec::new();
                for a in attackers {
                    let at = match Target::parse(&a.defender) {
                        Some(Target::Player(p)) if p == def => None,
                        Some(Target::Obj(pw)) => Some(pw),
                        _ => {
                            return Err(format!(
                                "{} is not the defending player ({}) or a planeswalker",
                                a.defender,
                                def.name()
                            ));
                        }
                    };
                    v.push((id(&a.attacker)?, at));
                }
                // An attack on the player alone keeps its old form (and its journal line).
                if v.iter().all(|p| p.1.is_none()) {
                    Move::Attack(v.into_iter().map(|p| p.0).collect())
                } else {
                    Move::AttackWith(v)
                }
            }
            Action::DeclareBlockers { blocks } => Move::Block(
                blocks
                    .iter()
                    .map(|b| Ok((id(&b.blocker)?, id(&b.attacker)?)))
                    .collect::<Result<_, String>>()?,
            ),
            Action::AssignDamage {
                attacker,
                assignment,
            } => Move::Assign {
                attacker: id(attacker)?,
                split: assignment
                    .iter()
                    .map(|(k, &n)| {
                        let t = Target::parse(k)
                            .ok_or_else(|| format!("{k:?} is not a card id or player"))?;
                        let n = i16::try_from(n).map_err(|_| format!("{n} is out of range"))?;
                        Ok((t, n))
                    })
                    .collect::<Result<_, String>>()?,
            },
            Action::Keep => Move::Keep,
            Action::Mulligan => Move::Mulligan,
            Action::Bottom { cards } => Move::Bottom(ids(cards)?),
            Action::Discard { cards } => Move::Discard(ids(cards)?),
            Action::ChooseTarget { target } => Move::ChooseTarget(
                Target::parse(target)
                    .ok_or_else(|| format!("{target:?} is not a target (a card id or p1/p2)"))?,
            ),
            Action::Surveil {
                graveyard,
                top: None,
            } => Move::Surveil(ids(graveyard)?),
            Action::Surveil {
                graveyard,
                top: Some(top),
            } => Move::SurveilOrder {
                graveyard: ids(graveyard)?,
                top: ids(top)?,
            },
            Action::Search { cards } => Move::Search(ids(cards)?),
            Action::ChooseMode { mode } => Move::ChooseMode(*mode),
            Action::Concede => Move::Concede,
            Action::LegendRule { keep } => Move::KeepLegend(id(keep)?),
            Action::Ward { pay, tap } => Move::Ward {
                pay: *pay,
                tap: tap.as_deref().map(ids).transpose()?,
            },
            Action::ChooseNoTarget => Move::ChooseNoTarget,
            Action::Look { cards } => Move::Look(ids(cards)?),
            Action::May { accept, card, tap } => Move::May {
                accept: *accept,
                card: card.as_deref().map(id).transpose()?,
                tap: tap.as_deref().map(ids).transpose()?,
            },
        })
    }

    /// The wire form of a move.
    pub fn from_move(m: &Move, state: &State) -> Action {
        let s = |i: &Id| i.to_string();
        // Every cast move is one `cast` action: its targets in order and what it pays.
        let cast =
            |card: &Id, targets: &[Target], tap: &Option<Vec<Id>>, mode: &Option<u8>, p: Paying| {
                Action::Cast {
                    card: s(card),
                    targets: targets.iter().map(|t| t.to_string()).collect(),
                    tap: tap.as_ref().map(|v| v.iter().map(s).collect()),
                    mode: *mode,
                    kicked: p.kicked,
                    x: (p.x > 0).then_some(p.x),
                    discard: p.discard.as_ref().map(s),
                    sacrifice: p.sacrifice.as_ref().map(s),
                }
            };
        // Every activate move likewise: its target and the creature it sacrifices, if any.
        let activate = |card: &Id,
                        ability: u8,
                        target: &Option<Target>,
                        tap: &Option<Vec<Id>>,
                        sacrifice: Option<&Id>| Action::Activate {
            card: s(card),
            ability,
            targets: target.iter().map(|t| t.to_string()).collect(),
            tap: tap.as_ref().map(|v| v.iter().map(s).collect()),
            sacrifice: sacrifice.map(s),
        };
        match m {
            Move::Pass => Action::Pass,
            Move::PlayLand(c) => Action::PlayLand { card: s(c) },
            Move::Cast {
                card,
                target,
                tap,
                mode,
            } => cast(card, target.as_slice(), tap, mode, Paying::default()),
            Move::CastKicked {
                card,
                target,
                tap,
                mode,
            } => {
                let kicked = Paying {
                    kicked: true,
                    ..Paying::default()
                };
                cast(card, target.as_slice(), tap, mode, kicked)
            }
            Move::CastWith {
                card,
                target,
                tap,
                mode,
                kicked,
                x,
                discard,
                sacrifice,
            } => {
                let p = Paying {
                    kicked: *kicked,
                    x: *x,
                    discard: *discard,
                    sacrifice: *sacrifice,
                };
                cast(card, target.as_slice(), tap, mode, p)
            }
            Move::Activate {
                card,
                ability,
                target,
                tap,
            } => activate(card, *ability, target, tap, None),
            Move::ActivateWith {
                card,
                ability,
                target,
                tap,
                sacrifice,
            } => activate(card, *ability, target, tap, Some(sacrifice)),
            Move::Attack(v) => Action::DeclareAttackers {
                attackers: v
                    .iter()
                    .map(|a| AttackDecl {
                        attacker: s(a),
                        defender: state.active.other().name().into(),
                    })
                    .collect(),
            },
            Move::AttackWith(v) => Action::DeclareAttackers {
                attackers: v
                    .iter()
                    .map(|(a, pw)| AttackDecl {
                        attacker: s(a),
                        defender: match pw {
                            Some(pw) => s(pw),
                            None => state.active.other().name().into(),
                        },
                    })
                    .collect(),
            },
            Move::KeepLegend(k) => Action::LegendRule { keep: s(k) },
            Move::Ward { pay, tap } => Action::Ward {
                pay: *pay,
                tap: tap.as_ref().map(|v| v.iter().map(s).collect()),
            },
            Move::Block(v) => Action::DeclareBlockers {
                blocks: v
                    .iter()
                    .map(|(b, a)| BlockDecl {
                        blocker: s(b),
                        attacker: s(a),
                    })
                    .collect(),
            },
            Move::Assign { attacker, split } => Action::AssignDamage {
                attacker: s(attacker),
                assignment: split
                    .iter()
                    .map(|(t, n)| (t.to_string(), *n as i64))
                    .collect(),
            },
            Move::Keep => Action::Keep,
            Move::Mulligan => Action::Mulligan,
            Move::Bottom(v) => Action::Bottom {
                cards: v.iter().map(s).collect(),
            },
            Move::Discard(v) => Action::Discard {
                cards: v.iter().map(s).collect(),
            },
            Move::ChooseTarget(t) => Action::ChooseTarget {
                target: t.to_string(),
            },
            Move::Surveil(v) => Action::Surveil {
                graveyard: v.iter().map(s).collect(),
                top: None,
            },
            Move::SurveilOrder { graveyard, top } => Action::Surveil {
                graveyard: graveyard.iter().map(s).collect(),
                top: Some(top.iter().map(s).collect()),
            },
            Move::ChooseMode(m) => Action::ChooseMode { mode: *m },
            Move::Search(v) => Action::Search {
                cards: v.iter().map(s).collect(),
            },
            Move::Concede => Action::Concede,
            Move::ChooseNoTarget => Action::ChooseNoTarget,
            Move::CastTwo {
                card,
                targets,
                tap,
                mode,
            } => cast(card, targets, tap, mode, Paying::default()),
            Move::Look(v) => Action::Look {
                cards: v.iter().map(s).collect(),
            },
            Move::May { accept, card, tap } => Action::May {
                accept: *accept,
                card: card.as_ref().map(s),
                tap: tap.as_ref().map(|v| v.iter().map(s).collect()),
            },
        }
    }
}

mod options;
mod view;
pub use options::{
    ActionOption, BlockChoice, CardChoice, CardCost, Choices, DamageTarget, DecisionOption,
    LookRest, LookTo, PayingOption,
};
pub use view::{
    CardBrief, PermanentView, PlayerView, PlayersView, StackItemView, VisibleState, WardView,
    visible,
};

/// A wire shape as a JSON value (for the callers that hand out `Value`s).
pub fn wire(x: &impl Serialize) -> crate::error::Result<Value> {
    serde_json::to_value(x).map_err(|e| crate::error::Error::internal(e.to_string()))
}

/// Who looks at the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    Seat(Seat),
    All,
}

/// The ActionSurface: `{decision_id, player, kind, options}`. Every option of `priority`,
/// `mulligan`, `choose_target`, `choose_mode`, `legend_rule`, `ward` and `may` is a complete
/// action; `declare_attackers`, `declare_blockers`, `assign_damage`, `bottom`, `discard`,
/// `choose_discard`, `surveil`, `search` and `look` list per-object choices to combine
/// ([`DecisionOption`]).
pub fn surface(s: &State) -> ActionSurface<'_> {
    ActionSurface {
        decision_id: s.decision_id(),
        player: s.decider(),
        kind: s.kind(),
        options: Some(options::options(s)),
        options_hidden: None,
        waiting_for: None,
    }
}

/// The published JSON Schemas of the game's wire (`bob schema NAME`): the action a player
/// submits and the ActionSurface it answers.
pub const SCHEMAS: &[(&str, crate::contracts::SchemaFn)] = &[
    ("mtg-action-request", || {
        schemars::schema_for!(ActionRequest)
    }),
    ("mtg-action-surface", surface_schema),
];

/// The ActionSurface's schema as bob writes it (an output: a key it may leave out is not
/// required).
pub fn surface_schema() -> schemars::Schema {
    schemars::generate::SchemaSettings::default()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<ActionSurface<'static>>()
}

/// Compact JSON, as the model and the tutor are shown it.
impl std::fmt::Display for ActionSurface<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| std::fmt::Error)?)
    }
}

/// The ActionSurface on the wire: who decides what, and the options (absent where the reader
/// may not see them).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ActionSurface<'a> {
    pub decision_id: String,
    /// The seat that decides (null once the game is over).
    pub player: Option<Seat>,
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<DecisionOption<'a>>>,
    /// Why the options are empty: they name the decider's hidden cards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options_hidden: Option<String>,
    /// Another seat decides now (null once the game is over): this reader sees no options.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<Option<Seat>>,
}
