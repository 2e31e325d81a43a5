//! Effect templates whose size or whether they happen is decided as they resolve (CR 608.2h):
//! doubling a power, "for each" amounts, an exact life total, "… instead" alternatives; and the
//! untap rules they come with (untap, stun counters, "doesn't untap", combat damage
//! prevention).
//!
//! Promises: each template matches a whole sentence or nothing, as every other template; an
//! "instead" sentence only replaces the effect right before it, and only when both name the
//! same object.

use super::{pt_change, subject};
use crate::mtg::compile::ast::*;
use crate::mtg::compile::types::creature_type;
use crate::mtg::compile::{intervening_if, keywords_list, number};

/// One effect sentence of these templates, or None.
pub(super) fn effect(s: &str) -> Option<Effect> {
    // CR 701.10: "double target creature's power until end of turn".
    if let Some(r) = s
        .strip_prefix("double ")
        .and_then(|r| r.strip_suffix("'s power until end of turn"))
    {
        return Some(Effect::DoublePower(subject(r)?));
    }
    // CR 608.2c: "if target player has exactly N life, ~ deals M damage to that player".
    if let Some(r) = s.strip_prefix("if target player has exactly ") {
        let (n, then) = r.split_once(" life, ")?;
        let then = super::effect(then)?;
        matches!(
            then,
            Effect::Damage {
                to: Subject::ThatPlayer,
                ..
            }
        )
        .then_some(())?;
        return Some(Effect::IfLifeExactly {
            who: Subject::TargetPlayer,
            life: n.parse().ok()?,
            then: Box::new(then),
        });
    }
    // CR 701.26: "untap ~".
    if let Some(r) = s.strip_prefix("untap ") {
        return Some(Effect::Untap(subject(r)?));
    }
    // CR 122.1d: "put a stun counter on it".
    if let Some(r) = s.strip_prefix("put ") {
        let (n, rest) = r.split_once(' ')?;
        let on = rest
            .strip_prefix("stun counter on ")
            .or_else(|| rest.strip_prefix("stun counters on "))?;
        return Some(Effect::Stun {
            on: subject(on)?,
            count: number(n)?,
        });
    }
    // CR 615.1: "prevent all combat damage that would be dealt to it this turn".
    if let Some(r) = s
        .strip_prefix("prevent all combat damage that would be dealt to ")
        .and_then(|r| r.strip_suffix(" this turn"))
    {
        return Some(Effect::PreventCombatDamageTo(subject(r)?));
    }
    // CR 119.3 / 608.2h: "you gain N life for each attacking <type> you control".
    if let Some(r) = s.strip_prefix("you gain ") {
        let (n, per) = r.split_once(" life for each ")?;
        return Some(Effect::GainLifePer {
            amount: n.parse().ok()?,
            per: counted(per)?,
        });
    }
    // CR 119.3 / 608.2h: "target opponent loses x life, where x is the amount of life you
    // gained this turn".
    if let Some((who, amount)) = s.split_once(" loses x life, where x is ") {
        let amount = match amount {
            "the amount of life you gained this turn" => Amount::LifeYouGainedThisTurn,
            _ => return None,
        };
        return Some(Effect::LoseLifeEqual {
            who: subject(who)?,
            amount,
        });
    }
    // CR 121.1 / 608.2h: "draw a card for each …".
    if let Some(per) = s.strip_prefix("draw a card for each ") {
        return Some(Effect::DrawPer(counted(per)?));
    }
    None
}

/// What "for each <counted>" counts.
fn counted(s: &str) -> Option<Per> {
    if s == "creature you control with a +1/+1 counter on it" {
        return Some(Per::CreaturesYouControlWithCounter);
    }
    let t = s.strip_prefix("attacking ")?.strip_suffix(" you control")?;
    Some(Per::AttackingOfTypeYouControl(creature_type(t)?))
}

/// CR 608.2c: "if <condition>, that creature gets +P/+T instead" after the effect it replaces.
/// Returns the combined effect, or None (the caller then refuses the sentence).
pub(super) fn instead(sentence: &str, before: &Effect) -> Option<Effect> {
    let (cond, then) = sentence
        .strip_prefix("if ")?
        .strip_suffix(" instead")?
        .split_once(", ")?;
    let condition = intervening_if(cond)?;
    let pt = then.strip_prefix("that creature gets ")?;
    let (power, toughness) = pt_change(pt)?;
    let Effect::Pump { who, keywords, .. } = before else {
        return None;
    };
    (who.is_targeted() && keywords.is_empty()).then_some(())?;
    Some(Effect::InsteadIf {
        condition,
        normal: Box::new(before.clone()),
        instead: Box::new(Effect::Pump {
            who: Subject::That,
            power,
            toughness,
            keywords: Vec::new(),
        }),
    })
}

/// CR 502.3: "~ doesn't untap during your untap step".
pub(in crate::mtg::compile) fn plain_static(line: &str) -> Option<Static> {
    (line == "~ doesn't untap during your untap step").then_some(Static::DoesntUntap)
}

/// "those creatures gain K until end of turn" after a counted effect (CR 608.2c).
pub(super) fn those(s: &str, per: Per) -> Option<Effect> {
    let r = s.strip_prefix("those creatures gain ")?;
    let ks = keywords_list(r.strip_suffix(" until end of turn")?)?;
    Some(Effect::Pump {
        who: Subject::Counted(per),
        power: 0,
        toughness: 0,
        keywords: ks,
    })
}
