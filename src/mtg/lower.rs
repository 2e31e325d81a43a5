//! Lowering: from the compiler's typed abilities to the engine's card form. A card is
//! playable when every ability it has lowers; the first one that does not is named by its
//! template, so coverage reports say which rule the engine still lacks.
//!
//! Choices written down here: a spell
//! lowers only with at most one target (every targeted effect acts on it); "target opponent"
//! is not lowered (the engine's spells target objects and players only through one slot).
//!
//! The engine's vocabulary of keywords ([`kw`]), targets and effects is defined in `form`
//! (re-exported here, where it is produced); `cards` re-exports it.

use super::compile::{
    Ability, Condition, Control, Cost, Effect as E, Filter, Keyword, SearchFor, SearchTo, Static,
    Subject as S, Trigger,
};
pub use super::compile::{AdditionalCost, Amount, CostReduction, Restriction};
use super::facts::{CardData, ManaCost};

pub use form::*;

fn cond(c: &Condition) -> Option<Cond> {
    Some(match c {
        Condition::YouAttacked => Cond::YouAttacked,
        Condition::CreatureDied => Cond::CreatureDied,
        Condition::OpponentLostLife => Cond::OpponentLostLife,
        Condition::YouGainedLife => Cond::YouGainedLife,
        Condition::GraveyardAtLeast(n) => Cond::GraveyardAtLeast(*n),
        Condition::ControlPower { another, power } => Cond::ControlPower {
            another: *another,
            power: *power,
        },
        Condition::ControlAnother(t) => {
            Cond::ControlAnother(super::compile::types::creature_type(t)?)
        }
        Condition::Kicked => Cond::Kicked,
    })
}

/// Lowers every ability, or names the template of the first one the engine cannot play.
pub fn lower(abilities: &[Ability], spell: bool) -> Result<Lowered, String> {
    let mut out = Lowered::default();
    for a in abilities {
        let ok = match a {
            // CR 702.108a: prowess is "Whenever you cast a noncreature spell, this creature
            // gets +1/+1 until end of turn."
            Ability::Keyword(Keyword::Prowess) if !spell => {
                out.triggers.push((
                    Trigger::CastNoncreature,
                    vec![Effect::Pump(1, 1, 0, TargetKind::Source)],
                ));
                out.ability_keywords.push("Prowess");
                true
            }
            // CR 702.6a: "Equip {N}" is "{N}: Attach to target creature you control. Equip
            // only as a sorcery."
            Ability::Keyword(Keyword::Equip(cost)) if !spell => {
                out.activated.push(Activated {
                    mana: *cost,
                    tap: false,
                    life: 0,
                    effects: vec![Effect::Attach(TargetKind::CreatureYouControl)],
                    sorcery: true,
                    sacrifice: false,
                    loyalty: None,
                    sacrifice_creature: None,
                });
                out.ability_keywords.push("Equip");
                true
            }
            // CR 702.21a: one ward ability with a generic mana cost.
            Ability::Keyword(Keyword::Ward(n)) if !spell && out.ward == 0 && *n > 0 => {
                out.ward = *n;
                out.ability_keywords.push("Ward");
                true
            }
            Ability::Keyword(Keyword::EnchantCreature) if !spell => {
                out.enchant = true;
                out.ability_keywords.push("Enchant");
                true
            }
            Ability::Keyword(Keyword::Flashback(cost)) if spell => {
                out.flashback = Some(*cost);
                out.ability_keywords.push("Flashback");
                true
            }
            Ability::Keyword(Keyword::Kicker(cost)) if out.kicker.is_none() => {
                out.kicker = Some(*cost);
                out.ability_keywords.push("Kicker");
                true
            }
            Ability::Spell(es) if spell && kicker::is_kicked(es) => kicker::spell(es, &mut out),
            Ability::Keyword(k) => keyword(k).map(|b| out.keywords |= b).is_some(),
            Ability::Spell(es) if spell && matches!(es.last(), Some(E::Reflexive(_))) => {
                continuous::reflexive_spell(es, &mut out)
            }
            Ability::Spell(es) if spell => match modal(es, |m| spell_effects(m, &mut out.tokens)) {
                Some(v) => {
                    out.effects = v;
                    true
                }
                None => false,
            },
            Ability::Triggered {
                when,
                condition,
                effects,
            } if !spell => {
                let guard = match condition.as_ref().map(cond) {
                    None => Some(None),
                    Some(Some(c)) => Some(Some(Effect::If(c))),
                    Some(None) => None,
                };
                match (guard, trigger_effects(*when, effects, &mut out.tokens)) {
                    (Some(g), Some(v)) => {
                        out.triggers.push((*when, g.into_iter().chain(v).collect()));
                        true
                    }
                    _ => false,
                }
            }
            // CR 605.1a: one "{T}: Add one mana of these colours" ability per card.
            Ability::Mana { tap: true, colors }
                if !spell && out.mana == 0 && !colors.is_empty() =>
            {
                out.mana = colors.iter().fold(0u8, |m, &c| m | 1 << c);
                true
            }
            Ability::Activated {
                cost,
                effects,
                sorcery,
            } if !spell => match activated(cost, effects, *sorcery, &mut out.tokens) {
                Some(a) => {
                    out.activated.push(a);
                    true
                }
                None => false,
            },
            // CR 606.3-4: a loyalty ability, activated as a sorcery once per turn; its
            // effects are lowered as an activated ability's (tokens included).
            Ability::Loyalty { change, effects } if !spell => {
                match source_effects(effects, Some(&mut out.tokens)) {
                    Some(effects) if !effects.contains(&Effect::UpToOne) => {
                        out.activated.push(Activated {
                            mana: ManaCost::default(),
                            tap: false,
                            life: 0,
                            sacrifice: false,
                            effects,
                            sorcery: true,
                            loyalty: Some(*change),
                            sacrifice_creature: None,
                        });
                        true
                    }
                    _ => false,
                }
            }
            Ability::Static(st) if !spell && static_effect(st).is_some() => {
                out.statics.extend(static_effect(st));
                true
            }
            Ability::Static(Static::DeckAnyNumber) => true,
            Ability::SacrificeMana { colors } if !spell && out.mana == 0 && !colors.is_empty() => {
                out.mana = colors.iter().fold(0u8, |m, &c| m | 1 << c);
                out.mana_sacrifice = true;
                true
            }
            // CR 101.2: "this spell can't be countered", on a permanent or an instant or
            // sorcery alike.
            Ability::Static(Static::CantBeCountered) => {
                out.uncounterable = true;
                true
            }
            Ability::Static(Static::EntersTapped) => {
                out.enters_tapped = true;
                true
            }
            Ability::Static(Static::EntersWithCounters { count, condition }) if !spell => {
                match condition.as_ref().map(cond) {
                    Some(None) => false,
                    c => {
                        out.enters_with = Some((*count, c.flatten()));
                        true
                    }
                }
            }
            Ability::Static(Static::CostsLess { amount, when }) if out.costs_less.is_none() => {
                out.costs_less = Some((*amount, when.clone()));
                if matches!(when, CostReduction::PerControlled(_)) {
                    out.ability_keywords.push("Affinity");
                }
                true
            }
            Ability::Static(Static::InstantSorceryCostLess(n)) if !spell => {
                out.instant_sorcery_discount += n;
                true
            }
            Ability::Static(Static::DoesntUntap) if !spell => {
                out.doesnt_untap = true;
                true
            }
            Ability::AdditionalCost(c) if out.additional.is_none() => {
                out.additional = Some(*c);
                true
            }
            _ => false,
        };
        if !ok {
            return Err(a.template());
        }
    }
    Ok(out)
}

/// A static ability that changes creatures, in the engine's form (None: not one the engine
/// plays).
fn static_effect(st: &Static) -> Option<StaticEffect> {
    let plain = |affects, power: &i8, toughness: &i8, ks: &[Keyword]| {
        Some(StaticEffect {
            affects,
            power: *power,
            toughness: *toughness,
            keywords: keywords(ks)?,
            unblockable: false,
            cant_block: false,
            condition: None,
            must_attack: false,
            unblockable_by: None,
            per: None,
        })
    };
    let flag = |unblockable, cant_block| StaticEffect {
        affects: Affects::Source,
        power: 0,
        toughness: 0,
        keywords: 0,
        unblockable,
        cant_block,
        condition: None,
        must_attack: false,
        unblockable_by: None,
        per: None,
    };
    match st {
        Static::Anthem {
            who,
            power,
            toughness,
            keywords: ks,
        } => {
            let affects = match who {
                S::This => Affects::Source,
                S::EachCreature(Control::You) => Affects::Yours,
                S::Attached => Affects::Attached,
                _ => return None,
            };
            plain(affects, power, toughness, ks)
        }
        Static::Lord {
            group,
            power,
            toughness,
            keywords: ks,
        } => plain(Affects::Group(group.clone()), power, toughness, ks),
        Static::CantBeBlocked => Some(flag(true, false)),
        Static::CantBlock => Some(flag(false, true)),
        Static::While { condition, then } => {
            let mut e = static_effect(then)?;
            (e.condition.is_none()).then_some(())?;
            e.condition = Some(*condition);
            Some(e)
        }
        other => continuous::static_effect(other),
    }
}

/// The keyword bit of a keyword the engine plays.
pub fn keyword(k: &Keyword) -> Option<u16> {
    match k {
        Keyword::Ward(_) | Keyword::Equip(_) | Keyword::Kicker(_) | Keyword::Flashback(_) => None,
        other => kw::from_name(other.name()),
    }
}

fn keywords(ks: &[Keyword]) -> Option<u16> {
    ks.iter().try_fold(0u16, |acc, k| Some(acc | keyword(k)?))
}

fn target(s: &S) -> Option<TargetKind> {
    Some(match s {
        S::AnyTarget => TargetKind::Any,
        S::TargetPlayer => TargetKind::Player,
        S::TargetCreatureOrPlaneswalker => TargetKind::CreatureOrPlaneswalker,
        S::Target(f, c) => match (f, c) {
            (Filter::Creature, Control::Anyone) => TargetKind::Creature,
            (Filter::TappedCreature, Control::Anyone) => TargetKind::TappedCreature,
            (Filter::CombatCreature, Control::Anyone) => TargetKind::CombatCreature,
            (Filter::Creature, Control::You) => TargetKind::CreatureYouControl,
            (Filter::Creature, Control::Opponent) => TargetKind::CreatureOpponentControls,
            (Filter::NonlandPermanent, Control::Anyone) => TargetKind::NonlandPermanent,
            (Filter::NonlandPermanent, Control::Opponent) => TargetKind::NonlandPermanentOpponent,
            (Filter::ArtifactOrEnchantment, Control::Anyone) => TargetKind::ArtifactOrEnchantment,
            (Filter::Artifact, Control::Anyone) => TargetKind::Artifact,
            (Filter::ArtifactEnchantmentOrFlyer, Control::Anyone) => {
                TargetKind::ArtifactEnchantmentOrFlyer
            }
            (Filter::OfType(t), Control::You) => TargetKind::CreatureTypeYouControl(t),
            _ => return None,
        },
        _ => return None,
    })
}

fn permanent(s: &S) -> Option<TargetKind> {
    target(s).filter(|k| !matches!(k, TargetKind::Any | TargetKind::Player))
}

fn creature(s: &S) -> Option<TargetKind> {
    permanent(s).filter(|k| {
        !matches!(
            k,
            TargetKind::NonlandPermanent
                | TargetKind::NonlandPermanentOpponent
                | TargetKind::ArtifactOrEnchantment
                | TargetKind::Artifact
                | TargetKind::ArtifactEnchantmentOrFlyer
                | TargetKind::CreatureCardInYourGraveyard
                | TargetKind::PermanentCardInYourGraveyard
                | TargetKind::SmallNonlandPermanentCardInYourGraveyard(_)
                | TargetKind::CreatureOrPlaneswalker
        )
    })
}

/// Lowers a creature subject; "it" after a targeted effect is that effect's target.
fn creature_or_that(s: &S, earlier: Option<TargetKind>) -> Option<TargetKind> {
    match s {
        S::That => earlier.filter(|k| !matches!(k, TargetKind::Any | TargetKind::Player)),
        other => creature(other),
    }
}

fn effect(e: &E, earlier: Option<TargetKind>) -> Option<Effect> {
    if let Some(l) = spells::effect(e) {
        return Some(l);
    }
    if let Some(l) = continuous::effect(e, earlier) {
        return Some(l);
    }
    if let Some(l) = variable::effect(e, earlier) {
        return Some(l);
    }
    if let Some(l) = cast_costs::effect(e) {
        return Some(l);
    }
    if let Some(l) = optional::effect(e) {
        return Some(l);
    }
    Some(match e {
        E::Damage {
            amount,
            to: S::EachOpponent,
        } => Effect::DamageOpponents(*amount),
        E::Damage { amount, to } => Effect::Damage(*amount, target(to)?),
        E::Destroy(t) => Effect::Destroy(permanent(t)?),
        E::Bounce(t) => Effect::Bounce(permanent(t)?),
        E::Tap(t) => Effect::Tap(permanent(t)?),
        E::Draw { who: S::You, count } => Effect::Draw(*count),
        E::GainLife {
            who: S::You,
            amount,
        } => Effect::GainLife(*amount),
        E::LoseLife {
            who: S::You,
            amount,
        } => Effect::LoseLife(*amount),
        // With two players "target opponent" is the opponent, and no player here can have
        // hexproof, so the target is always legal (as for discarding below).
        E::LoseLife {
            who: S::EachOpponent | S::TargetOpponent,
            amount,
        } => Effect::OpponentLosesLife(*amount),
        E::Pump {
            who: S::EachCreature(Control::Opponent),
            power,
            toughness,
            keywords: k,
        } if k.is_empty() => Effect::PumpOpponents(*power, *toughness),
        E::Pump {
            who: S::EachCreature(Control::You),
            power,
            toughness,
            keywords: k,
        } => Effect::PumpYours(*power, *toughness, keywords(k)?),
        E::Pump {
            who,
            power,
            toughness,
            keywords: k,
        } => Effect::Pump(
            *power,
            *toughness,
            keywords(k)?,
            creature_or_that(who, earlier)?,
        ),
        E::Counters { on, count, plus } => {
            let n = i8::try_from(*count).ok()?;
            Effect::Counters(if *plus { n } else { -n }, creature_or_that(on, earlier)?)
        }
        E::Mill(n) => Effect::Mill(*n),
        E::CounterSpell => Effect::Counter(TargetKind::Spell),
        E::Discard { who: S::You, count } => Effect::Discard(*count, false),
        // With two players "target opponent" is the opponent, and no player here can have
        // hexproof, so the target is always legal.
        E::Discard {
            who: S::EachOpponent | S::TargetOpponent,
            count,
        } => Effect::Discard(*count, true),
        E::Search {
            what,
            count,
            up_to,
            to,
            optional,
        } => search(*what, *count, *up_to, *to, *optional)?,
        E::Surveil(n) => Effect::Surveil(*n),
        _ => return None,
    })
}

/// A triggered ability's effects: the engine plays triggers of the events it watches with one
/// target at most, chosen as the ability is put on the stack (CR 603.3d); "this creature" is
/// the source, and "that creature" of a trigger on a creature entering is that creature.
fn trigger_effects(when: Trigger, es: &[E], tokens: &mut Vec<CardData>) -> Option<Vec<Effect>> {
    let names_one = matches!(
        when,
        Trigger::AnotherCreatureEnters
            | Trigger::AnotherOfTypeEnters(_)
            | Trigger::CreatureWithPowerEnters(_)
    );
    let v = modal(es, |m| {
        let out = source_effects(m, Some(&mut *tokens))?;
        if names_one
            && m.iter()
                .any(|e| matches!(e, E::Counters { on: S::That, .. }))
        {
            // The event's object rides in the target slot: no real target beside it.
            out.iter().all(|e| e.target().is_none()).then_some(())?;
        }
        Some(out)
    });
    v.filter(|v| {
        names_one
            || !v
                .iter()
                .any(|e| matches!(e, Effect::Counters(_, TargetKind::Triggering)))
    })
}

/// A "choose one —" list (CR 700.2) as mode markers, each mode lowered by `f`; any other list
/// by `f` alone.
fn modal(es: &[E], mut f: impl FnMut(&[E]) -> Option<Vec<Effect>>) -> Option<Vec<Effect>> {
    match es {
        [E::Modal { choose: 1, modes }] => {
            let mut v = Vec::new();
            for (k, m) in modes.iter().enumerate() {
                v.push(Effect::Mode(u8::try_from(k).ok()?));
                v.extend(f(m)?);
            }
            Some(v)
        }
        _ => f(es),
    }
}

/// An activated ability: a cost the engine pays (mana, {T}, life, sacrificing the source)
/// and effects with one target at most, where "this creature" is the source.
fn activated(
    cost: &Cost,
    es: &[E],
    sorcery: bool,
    tokens: &mut Vec<CardData>,
) -> Option<Activated> {
    let effects = source_effects(es, Some(tokens))?;
    // An optional target is chosen only as a trigger goes on the stack.
    if effects.contains(&Effect::UpToOne) {
        return None;
    }
    // A sacrificed source is gone as the ability resolves: nothing may act on it.
    if cost.sacrifice_self && effects.iter().any(on_source) {
        return None;
    }
    Some(Activated {
        mana: cost.mana,
        tap: cost.tap,
        life: cost.life,
        sacrifice: cost.sacrifice_self,
        effects,
        sorcery,
        loyalty: None,
        sacrifice_creature: cost.sacrifice_creature,
    })
}

fn on_source(e: &Effect) -> bool {
    matches!(
        e,
        Effect::Pump(_, _, _, TargetKind::Source | TargetKind::Attached)
            | Effect::Counters(_, TargetKind::Source)
    )
}

/// A search in the engine's form.
fn search(what: SearchFor, count: u8, up_to: bool, to: SearchTo, optional: bool) -> Option<Effect> {
    Some(Effect::Search(Search {
        must: what == SearchFor::AnyCard && !up_to,
        basic: what == SearchFor::BasicLand,
        count,
        to: match to {
            SearchTo::Hand => Found::Hand,
            SearchTo::Battlefield { tapped: false } => Found::Battlefield,
            SearchTo::Battlefield { tapped: true } => Found::BattlefieldTapped,
            SearchTo::TopOfLibrary => Found::Top,
        },
        optional,
        spell_mana_value: match what {
            SearchFor::InstantOrSorceryWithManaValue(n) => Some(n),
            _ => None,
        },
    }))
}

/// A decision made as its ability resolves ends the resolution: it must be the last effect.
fn decision_last(v: Vec<Effect>) -> Option<Vec<Effect>> {
    let n = v.len();
    let early = v.iter().take(n.saturating_sub(1)).any(|e| {
        matches!(
            e,
            Effect::Search(_)
                | Effect::Discard(..)
                | Effect::Surveil(_)
                | Effect::ChooseDiscard { .. }
                | Effect::Look(_)
        )
    });
    // CR 608.2d: one "you may" per list (its answer resumes the rest of the list).
    let mays = v.iter().filter(|e| matches!(e, Effect::May(_))).count();
    (!early && mays <= 1).then_some(v)
}

/// The effects of an ability of a permanent, with one target at most: "this creature" is
/// the source; tokens only where `tokens` takes their cards (triggers, not activations yet).
fn source_effects(es: &[E], mut tokens: Option<&mut Vec<CardData>>) -> Option<Vec<Effect>> {
    let mut v = Vec::new();
    let mut first: Option<TargetKind> = None;
    for e in es {
        // "up to one target …": the marker first, then the effect on that one target.
        let optional = targets::up_to_one(e);
        if optional.is_some() {
            v.push(Effect::UpToOne);
        }
        let l = match e {
            _ if optional.is_some() => optional?,
            E::Pump {
                who: S::This,
                power,
                toughness,
                keywords: k,
            } => Effect::Pump(*power, *toughness, keywords(k)?, TargetKind::Source),
            E::Pump {
                who: S::Attached,
                power,
                toughness,
                keywords: k,
            } => Effect::Pump(*power, *toughness, keywords(k)?, TargetKind::Attached),
            E::Counters {
                on: S::This,
                count,
                plus,
            } => {
                let n = i8::try_from(*count).ok()?;
                Effect::Counters(if *plus { n } else { -n }, TargetKind::Source)
            }
            E::Tokens { .. } | E::Food(_) | E::Treasure(_) | E::CountedTokens { .. } => {
                tokens::any_tokens_effect(e, tokens.as_deref_mut()?)??
            }
            E::DoubleCounters(S::This) => Effect::DoubleCounters(TargetKind::Source),
            // "this creature can't be blocked this turn" (CR 509.1b) of its own ability.
            E::Restrict {
                who: S::This,
                restriction,
            } => Effect::Restrict(*restriction, TargetKind::Source),
            // "that creature" before any target: the trigger's event object (checked by the
            // caller: only triggers whose event names a creature keep it).
            E::Counters {
                on: S::That,
                count,
                plus: true,
            } if first.is_none() && tokens.is_some() => {
                Effect::Counters(i8::try_from(*count).ok()?, TargetKind::Triggering)
            }
            other => effect(other, first)?,
        };
        match (l.target(), first) {
            (Some(k), None) => first = Some(k),
            // "it" / "that creature" after a target is that same target (CR 608.2c).
            (Some(_), Some(_)) if variable::refers_to_that(e) => {}
            (Some(_), Some(_)) => return None,
            (None, _) => {}
        }
        v.push(l);
    }
    decision_last(v)
}

/// A spell's effects, with one target among them at most ("it" names that same target).
fn spell_effects(es: &[E], tokens: &mut Vec<CardData>) -> Option<Vec<Effect>> {
    let mut v = Vec::new();
    let mut first: Option<TargetKind> = None;
    for e in es {
        let refers = variable::refers_to_that(e) || targets::refers_to_first(e);
        let l = match e {
            // Two targets (CR 601.2c): only a spell's, its first shared with an earlier effect.
            E::Fight { .. } | E::BounceBoth(..) => targets::two(e, first)?,
            E::Tokens { .. } | E::Food(_) | E::Treasure(_) | E::CountedTokens { .. } => {
                tokens::any_tokens_effect(e, tokens)??
            }
            // "Its controller" is the controller of the spell's one target, named earlier.
            E::TargetControllerCreates(t) if first.is_some_and(|k| k != TargetKind::Any) => {
                match tokens::any_tokens_effect(t, tokens)?? {
                    Effect::Tokens(n, d, tapped) => Effect::TokensForTargetController(n, d, tapped),
                    _ => return None,
                }
            }
            _ => effect(e, first)?,
        };
        match (l.target(), first) {
            (Some(k), None) => first = Some(k),
            (Some(_), Some(_)) if refers => {}
            (Some(_), Some(_)) => return None,
            (None, _) => {}
        }
        v.push(l);
    }
    decision_last(v)
}

mod cast_costs;
mod continuous;
mod form;
mod kicker;
mod optional;
mod spells;
mod targets;
mod tokens;
mod variable;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tokens_tests;
#[cfg(test)]
mod variable_tests;
