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

use super::Fail;
use super::ast::{Effect, MayAction};
use crate::mtg::facts::parse_cost;

/// "you may <…>" at `sentences[0]`: the effects and how many sentences they used, or None if
/// the sentence is not one of these templates. `effect` reads one whole effect template and
/// `sentence` the effects of an "If you do, …" sentence (the effect compiler's own readers).
pub(super) fn may(
    sentences: &[&str],
    effect: fn(&str) -> Option<Effect>,
    sentence: fn(&str) -> Result<Vec<Effect>, Fail>,
) -> Option<Result<(Vec<Effect>, usize), Fail>> {
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
    Some(sentence(then).map(|es| {
        let mut out = vec![Effect::May(action)];
        out.extend(es);
        (out, 2)
    }))
}
