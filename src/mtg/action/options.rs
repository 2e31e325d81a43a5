//! The options of a decision on the wire (`options` of the ActionSurface): one type per shape,
//! each option either a complete action (`bob mtg act` takes it as it is, the extra fields
//! only name what it acts on) or the per-object choices to combine into one action. Field
//! order is the wire's key order.

use super::super::cards::{Found, MayCost};
use super::super::engine::Move;
use super::super::state::*;
use super::Action;
use super::view::{CardBrief, briefs};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use std::borrow::Cow;

/// One option of a decision: an action to submit, an action with what it costs, or the choices
/// to combine into one action (`type` says which action answers it).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum DecisionOption<'a> {
    Action(ActionOption<'a>),
    Paying(PayingOption<'a>),
    Choose(Choices<'a>),
}

/// A complete action (`{type, …}` as `bob mtg act` takes it, `decision_id` aside), with the
/// card it names: the card played, cast or activated, or the legend kept; for a triggered
/// ability's target or mode, its `source` card.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ActionOption<'a> {
    #[serde(flatten)]
    pub action: Action,
    /// The card whose triggered ability is being put on the stack.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Id>,
    /// The name of the card the action names (of `source` when there is one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
}

/// A complete action that answers a ward trigger or a "you may", with what accepting costs.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PayingOption<'a> {
    /// Pay the ward cost or not (CR 702.21a): `counters` is the card whose spell or ability
    /// is countered if the cost is not paid.
    Ward {
        pay: bool,
        /// The cost to pay, e.g. `{2}` (only when `pay`).
        #[serde(skip_serializing_if = "Option::is_none")]
        cost: Option<String>,
        counters: Id,
        name: &'a str,
    },
    /// Accept the "you may" of `source` or decline it (CR 608.2d); `cost`: the mana to pay
    /// when accepting costs mana.
    May {
        accept: bool,
        source: Id,
        name: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        cost: Option<String>,
    },
    /// Accept the "you may" of `source` by sacrificing or discarding `card`.
    #[serde(rename = "may")]
    MayWithCard {
        accept: bool,
        card: Id,
        card_name: &'a str,
        cost: CardCost,
        source: Id,
        name: &'a str,
    },
}

/// What accepting a "you may" does with the card it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CardCost {
    /// Sacrifice another creature you control (CR 701.17a).
    Sacrifice,
    /// Discard a card from your hand (CR 701.9a).
    Discard,
}

/// The per-object choices of a decision, combined into one action of the same `type`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Choices<'a> {
    /// Discard `count` cards of `choose_from`: from your hand, or (with `from`) the card of
    /// that player's revealed hand they discard (CR 701.20a).
    Discard {
        count: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        from: Option<Seat>,
        choose_from: Vec<CardChoice<'a>>,
    },
    /// Put `count` cards of your hand on the bottom of your library after a mulligan.
    Bottom {
        count: u8,
        choose_from: Vec<CardChoice<'a>>,
    },
    /// Surveil (CR 701.25a): any of the cards looked at into the graveyard, the rest back on
    /// top in any order.
    Surveil {
        count: u8,
        top_in_any_order: bool,
        look_at: Vec<CardChoice<'a>>,
    },
    /// A library search (CR 701.23): at least `at_least`, at most `count` of `choose_from`,
    /// put where `to` says.
    Search {
        count: u8,
        at_least: usize,
        to: Found,
        choose_from: Vec<CardChoice<'a>>,
    },
    /// The attackers (CR 508.1): any of `choose_from`, each attacking `defender` or one of
    /// `planeswalkers` (CR 508.1b).
    DeclareAttackers {
        defender: Seat,
        choose_from: Vec<CardBrief<'a>>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        planeswalkers: Vec<CardBrief<'a>>,
    },
    /// The blocks (CR 509.1): each blocker blocks one attacker it can block.
    DeclareBlockers { choose_from: Vec<BlockChoice<'a>> },
    /// Divide `attacker`'s combat damage (CR 510.1c) among `targets`.
    AssignDamage {
        attacker: Id,
        power: i16,
        trample: bool,
        deathtouch: bool,
        targets: Vec<DamageTarget>,
    },
    /// Look at the top `count` cards (CR 401.5) and choose at most `at_most` of
    /// `choose_from`; it goes `to` hand or top, the rest where `rest` says.
    Look {
        count: u8,
        at_most: u8,
        to: LookTo,
        rest: LookRest,
        look_at: Vec<CardChoice<'a>>,
        choose_from: Vec<CardChoice<'a>>,
    },
}

/// A card that may be chosen: `{card, name}`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CardChoice<'a> {
    pub card: Id,
    pub name: &'a str,
}

/// A creature that may block, and the attackers it can block.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BlockChoice<'a> {
    pub blocker: Id,
    pub name: &'a str,
    pub can_block: Vec<Id>,
}

/// Where an attacker's combat damage may go.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum DamageTarget {
    /// A blocker, and the damage that is lethal to it.
    Blocker { target: Id, lethal: i16 },
    /// With trample, the player or planeswalker attacked, only once every blocker has lethal
    /// damage.
    Beyond {
        target: Target,
        only_after_lethal_to_all_blockers: bool,
    },
}

/// Where the card chosen among those looked at goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LookTo {
    Hand,
    Top,
}

/// Where the cards looked at and not chosen go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LookRest {
    BottomRandom,
    Graveyard,
}

impl JsonSchema for Id {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "CardId".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^c[1-9][0-9]*$"})
    }
}

impl JsonSchema for Seat {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Seat".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": ["p1", "p2"]})
    }
}

impl JsonSchema for Target {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Target".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^(p1|p2|c[1-9][0-9]*)$"})
    }
}

fn choices<'a>(s: &'a State, ids: &[Id]) -> Vec<CardChoice<'a>> {
    ids.iter()
        .map(|&card| CardChoice {
            card,
            name: &s.card(card).data.name,
        })
        .collect()
}

fn name(s: &State, id: Id) -> &str {
    &s.card(id).data.name
}

/// The options of the decision pending in `s`.
pub(super) fn options<'a>(s: &'a State) -> Vec<DecisionOption<'a>> {
    let act = |m: &Move, source: Option<Id>, name: Option<&'a str>| {
        DecisionOption::Action(ActionOption {
            action: Action::from_move(m, s),
            source,
            name,
        })
    };
    let choose = |c| vec![DecisionOption::Choose(c)];
    match s.pending {
        Pending::GameOver => Vec::new(),
        // CR 701.20a: the revealed hand's cards the chooser may pick, each named.
        Pending::ChooseDiscard { from, nonland, .. } => choose(Choices::Discard {
            count: 1,
            from: Some(from),
            choose_from: choices(s, &s.choose_discard_options(from, nonland)),
        }),
        Pending::Mulligan { player } => {
            let mut v = vec![act(&Move::Keep, None, None)];
            if s.players[player.i()].mulligans < 7 {
                v.push(act(&Move::Mulligan, None, None));
            }
            v
        }
        // CR 704.5j: one option per same-named legend, each naming its card.
        Pending::LegendRule { .. } => s
            .legend_group()
            .map(|(_, g)| g)
            .unwrap_or_default()
            .iter()
            .map(|&i| act(&Move::KeepLegend(i), None, Some(name(s, i))))
            .collect(),
        // CR 702.21a: pay the ward cost (mana sources tapped as for a cast) or not.
        Pending::WardPayment { warded, .. } => [true, false]
            .into_iter()
            .map(|pay| {
                DecisionOption::Paying(PayingOption::Ward {
                    pay,
                    cost: pay.then(|| format!("{{{}}}", warded.cost)),
                    counters: warded.card,
                    name: name(s, warded.card),
                })
            })
            .collect(),
        Pending::Surveil { player, count } => choose(Choices::Surveil {
            count,
            top_in_any_order: true,
            look_at: choices(s, &s.players[player.i()].library[..count as usize]),
        }),
        Pending::Bottom { player, count } => choose(Choices::Bottom {
            count,
            choose_from: choices(s, &s.players[player.i()].hand),
        }),
        Pending::Discard { player, count } | Pending::Discarding { player, count } => {
            choose(Choices::Discard {
                count,
                from: None,
                choose_from: choices(s, &s.players[player.i()].hand),
            })
        }
        // Each option names its card: `{"type":"cast","card":"c12","name":"Shock",…}`.
        Pending::Priority => s
            .priority_moves()
            .iter()
            .map(|m| match m {
                Move::PlayLand(c)
                | Move::Cast { card: c, .. }
                | Move::CastKicked { card: c, .. }
                | Move::CastTwo { card: c, .. }
                | Move::CastWith { card: c, .. }
                | Move::ActivateWith { card: c, .. }
                | Move::Activate { card: c, .. } => act(m, None, Some(name(s, *c))),
                _ => act(m, None, None),
            })
            .collect(),
        Pending::ChooseTarget { item, .. } => {
            let source = s.stack[item as usize].card;
            // An optional target ("up to one"): choosing none is an option too.
            s.trigger_target_moves()
                .iter()
                .map(|m| act(m, Some(source), Some(name(s, source))))
                .collect()
        }
        Pending::ChooseMode { item, .. } => {
            let source = s.stack[item as usize].card;
            s.trigger_mode_options()
                .into_iter()
                .map(|m| act(&Move::ChooseMode(m), Some(source), Some(name(s, source))))
                .collect()
        }
        Pending::Search { player, search } => choose(Choices::Search {
            count: search.count,
            at_least: s.search_minimum(player, search),
            to: search.to,
            choose_from: choices(s, &s.search_candidates(player, search)),
        }),
        // CR 508.1b: a creature may attack a planeswalker the defending player controls
        // instead (its id as the `defender`).
        Pending::DeclareAttackers => choose(Choices::DeclareAttackers {
            defender: s.active.other(),
            choose_from: briefs(s, &s.attack_candidates()),
            planeswalkers: briefs(s, &s.attackable_planeswalkers()),
        }),
        Pending::DeclareBlockers => choose(Choices::DeclareBlockers {
            choose_from: s
                .block_candidates()
                .into_iter()
                .map(|(blocker, can_block)| BlockChoice {
                    blocker,
                    name: name(s, blocker),
                    can_block,
                })
                .collect(),
        }),
        Pending::AssignDamage { attacker } => {
            let (blockers, power, trample, deathtouch) = s.assign_info(attacker);
            let mut targets: Vec<DamageTarget> = blockers
                .iter()
                .map(|&b| DamageTarget::Blocker {
                    target: b,
                    lethal: s.lethal(b, deathtouch),
                })
                .collect();
            if trample && let Some(target) = s.attack_target(attacker) {
                targets.push(DamageTarget::Beyond {
                    target,
                    only_after_lethal_to_all_blockers: true,
                });
            }
            choose(Choices::AssignDamage {
                attacker,
                power,
                trample,
                deathtouch,
                targets,
            })
        }
        // CR 608.2d: decline, or accept paying the cost; a sacrifice or a discard has one
        // accepting option per card it may name.
        Pending::May { player, optional } => {
            let source = optional.source;
            let name = name(s, source);
            let may = |accept, cost| {
                DecisionOption::Paying(PayingOption::May {
                    accept,
                    source,
                    name,
                    cost,
                })
            };
            let mut v = vec![may(false, None)];
            match optional.cost {
                MayCost::Nothing => v.push(may(true, None)),
                MayCost::Pay { generic, colored } => {
                    v.push(may(true, Some(mana_text(generic, colored))))
                }
                MayCost::SacrificeAnotherCreature | MayCost::DiscardCard => {
                    let cost = if optional.cost == MayCost::DiscardCard {
                        CardCost::Discard
                    } else {
                        CardCost::Sacrifice
                    };
                    v.extend(s.may_cards(player, &optional).into_iter().map(|card| {
                        DecisionOption::Paying(PayingOption::MayWithCard {
                            accept: true,
                            card,
                            card_name: &s.card(card).data.name,
                            cost,
                            source,
                            name,
                        })
                    }));
                }
            }
            v
        }
        // CR 401.5: the cards looked at (top first) and those that may be chosen (at most
        // one); where the chosen card and the rest go.
        Pending::Look { player, look } => choose(Choices::Look {
            count: look.count,
            at_most: 1,
            to: if look.to_hand {
                LookTo::Hand
            } else {
                LookTo::Top
            },
            rest: if look.rest_to_bottom {
                LookRest::BottomRandom
            } else {
                LookRest::Graveyard
            },
            look_at: choices(s, &s.look_cards(player, look)),
            choose_from: choices(s, &s.look_choices(player, look)),
        }),
    }
}

/// A mana cost as printed (`{1}{R}`), WUBRG order.
fn mana_text(generic: u8, colored: [u8; 5]) -> String {
    let mut out = if generic > 0 || colored == [0; 5] {
        format!("{{{generic}}}")
    } else {
        String::new()
    };
    for (i, n) in colored.iter().enumerate() {
        for _ in 0..*n {
            out.push_str(&format!("{{{}}}", ["W", "U", "B", "R", "G"][i]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! Every option of the surfaces of random games has a shape the published schema
    //! (`bob schema mtg-action-surface`) declares: its `type`, every key it carries and every
    //! key the schema requires.

    use super::super::super::agents::{Agent, AgentKind};
    use super::super::super::cards::Pool;
    use super::super::super::engine::{apply, new_game};
    use super::super::{surface, surface_schema};
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// One shape a schema admits: its `type` constant and its keys.
    #[derive(Debug, Default, Clone)]
    struct Shape {
        ty: Option<String>,
        keys: BTreeSet<String>,
        required: BTreeSet<String>,
    }

    fn shapes(node: &Value, defs: &Value) -> Vec<Shape> {
        let node = match node["$ref"].as_str() {
            Some(r) => &defs[r.trim_start_matches("#/$defs/")],
            None => node,
        };
        let own = Shape {
            ty: node["properties"]["type"]["const"]
                .as_str()
                .map(str::to_string),
            keys: node["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default(),
            required: node["required"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .filter_map(|k| k.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        };
        let branches: Vec<&Value> = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| node[*k].as_array())
            .flatten()
            .collect();
        if branches.is_empty() {
            return vec![own];
        }
        branches
            .into_iter()
            .flat_map(|b| shapes(b, defs))
            .map(|mut s| {
                s.keys.extend(own.keys.iter().cloned());
                s.required.extend(own.required.iter().cloned());
                s.ty = s.ty.or_else(|| own.ty.clone());
                s
            })
            .collect()
    }

    fn admits(shapes: &[Shape], v: &Value) -> bool {
        let keys: BTreeSet<String> = v.as_object().unwrap().keys().cloned().collect();
        shapes.iter().any(|s| {
            s.ty.as_deref() == v["type"].as_str()
                && s.required.is_subset(&keys)
                && keys.is_subset(&s.keys)
        })
    }

    #[test]
    fn every_option_of_random_games_has_a_published_shape() {
        let schema = serde_json::to_value(surface_schema()).unwrap();
        let defs = &schema["$defs"];
        let option_shapes = shapes(&schema["properties"]["options"]["items"], defs);
        let surface_shapes = shapes(&schema, defs);
        let pool = Pool::builtin();
        let basics = ["Plains", "Island", "Swamp", "Mountain", "Forest"];
        let spells: Vec<String> = pool
            .cards()
            .filter(|c| !c.data.type_line.contains("Land"))
            .map(|c| c.data.name.clone())
            .collect();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut pick = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let mut kinds = BTreeSet::new();
        for seed in 0..120 {
            let mut deck = || {
                let (a, b) = (pick(5), pick(5));
                let mut d: Vec<String> = (0..17)
                    .map(|i| basics[if i % 2 == 0 { a } else { b }].to_string())
                    .collect();
                d.extend((0..23).map(|_| spells[pick(spells.len())].clone()));
                d
            };
            let (d1, d2) = (deck(), deck());
            let (mut s, _) = new_game("shapes", seed, [&d1, &d2], &pool).unwrap();
            let mut agents = [
                Agent::new(AgentKind::Random, seed),
                Agent::new(AgentKind::Heuristic, seed + 1),
            ];
            while let Some(p) = s.decider() {
                let v = serde_json::to_value(surface(&s)).unwrap();
                assert!(admits(&surface_shapes, &v), "no published shape for {v}");
                for o in v["options"].as_array().unwrap() {
                    assert!(admits(&option_shapes, o), "no published shape for {o}");
                    kinds.insert(s.kind());
                }
                let m = agents[p.i()].decide(&s).unwrap();
                s = apply(&s, &m).unwrap().0;
                if s.turn > 300 {
                    break;
                }
            }
        }
        // The games reach the decisions whose options have shapes of their own.
        for k in [
            "assign_damage",
            "look",
            "may",
            "search",
            "surveil",
            "choose_target",
        ] {
            assert!(kinds.contains(k), "no {k} decision in the games: {kinds:?}");
        }
    }
}
