//! Optional actions of a resolving spell or ability (CR 603.5, 608.2d): "you may <effect>", and
//! "you may <cost>" followed by "If you do, <effects>".
//!
//! Promises:
//! - the sentence compiles to an [`Effect::May`] marker followed by the optional effects, in
//!   the spell's or ability's own effect list: everything after the marker happens only if the
//!   controller chooses to as it resolves (and, for a cost, pays it then);
//! - the optional part is one whole effect template ("you may destroy target artifact or
//!   enchantment") or a cost the engine pays at resolution: a mana payment ("you may pay
//!   {R}"), sacrificing another creature, or discarding a card; a cost must be followed by an
//!   "If you do, …" sentence, which compiles whole or the card is refused;
//! - a whole template that reads its own "you may" (a library search) is left to it, and so is
//!   anything else that starts with "you may" (or it is refused).

use super::ast::{Effect, MayAction};
use super::{Fail, effects::effect};
use crate::mtg::facts::parse_cost;

/// "you may <…>" at `sentences[0]`: the effects and how many sentences they used, or None if
/// the sentence is not one of these templates.
pub(super) fn may(sentences: &[&str]) -> Option<Result<(Vec<Effect>, usize), Fail>> {
    let first = sentences.first()?.trim();
    let rest = first.strip_prefix("you may ")?;
    // A template that reads its own "you may" ("you may search your library …") keeps it.
    if effect(first).is_some() {
        return None;
    }
    let action = match rest {
        "sacrifice another creature" => Some(MayAction::SacrificeAnotherCreature),
        "discard a card" => Some(MayAction::DiscardCard),
        _ => rest
            .strip_prefix("pay ")
            .filter(|c| c.starts_with('{'))
            .and_then(|c| parse_cost(&c.to_uppercase()).ok())
            .map(MayAction::Pay),
    };
    let Some(action) = action else {
        // "you may <effect>": the whole effect is optional (no "if you do").
        let e = effect(rest)?;
        return Some(Ok((vec![Effect::May(MayAction::Nothing), e], 1)));
    };
    let then = sentences
        .get(1)
        .and_then(|s| s.trim().strip_prefix("if you do, "));
    let Some(then) = then else {
        return Some(Err(Fail::new(
            first,
            "effect: you may <cost> without if you do",
        )));
    };
    Some(super::effects::sentence(then).map(|es| {
        let mut out = vec![Effect::May(action)];
        out.extend(es);
        (out, 2)
    }))
}

#[cfg(test)]
mod tests {
    use super::super::ast::{Control, Effect, Filter, MayAction, Restriction, Subject};
    use super::super::effects::effects;
    use crate::mtg::facts::ManaCost;

    #[test]
    fn cr_603_5_you_may_an_effect_is_a_marker_before_that_effect() {
        assert_eq!(
            effects("you may destroy target artifact or enchantment").unwrap(),
            vec![
                Effect::May(MayAction::Nothing),
                Effect::Destroy(Subject::Target(
                    Filter::ArtifactOrEnchantment,
                    Control::Anyone
                ))
            ]
        );
    }

    #[test]
    fn cr_608_2d_you_may_pay_sacrifice_or_discard_then_if_you_do() {
        assert_eq!(
            effects("you may pay {r}. if you do, target creature can't block this turn").unwrap(),
            vec![
                Effect::May(MayAction::Pay(ManaCost {
                    generic: 0,
                    colored: [0, 0, 0, 1, 0]
                })),
                Effect::Restrict {
                    who: Subject::Target(Filter::Creature, Control::Anyone),
                    restriction: Restriction::CantBlock
                }
            ]
        );
        assert_eq!(
            effects(
                "you may sacrifice another creature. if you do, draw a card and ~ can't be \
                 blocked this turn"
            )
            .unwrap(),
            vec![
                Effect::May(MayAction::SacrificeAnotherCreature),
                Effect::Draw {
                    who: Subject::You,
                    count: 1
                },
                Effect::Restrict {
                    who: Subject::This,
                    restriction: Restriction::CantBeBlocked
                }
            ]
        );
        assert_eq!(
            effects("~ deals 6 damage to target creature. you may discard a card. if you do, draw a card")
                .unwrap(),
            vec![
                Effect::Damage {
                    amount: 6,
                    to: Subject::Target(Filter::Creature, Control::Anyone)
                },
                Effect::May(MayAction::DiscardCard),
                Effect::Draw {
                    who: Subject::You,
                    count: 1
                },
            ]
        );
    }

    #[test]
    fn a_cost_without_if_you_do_or_an_unknown_rest_is_refused_with_the_fragment() {
        let e = effects("you may discard a card").unwrap_err();
        assert_eq!(e.fragment, "you may discard a card");
        let e = effects("you may pay {r}. if you do, frobnicate").unwrap_err();
        assert_eq!(e.fragment, "frobnicate");
        assert!(effects("you may frobnicate").is_err());
        // The search template keeps its own "you may" (it declines by finding nothing).
        assert!(!effects("you may search your library for a basic land card, reveal it, put it into your hand, then shuffle")
            .unwrap()
            .iter()
            .any(|e| matches!(e, Effect::May(_))));
    }
}
