//! Costs chosen as a spell is cast (CR 601.2b, 601.2f): "As an additional cost to cast this
//! spell, <cost>." compiles to [`Ability::AdditionalCost`], and the one {X} template whose X
//! is the value chosen as the spell is cast (CR 107.3a): "Each opponent loses X life. You gain
//! life equal to the life lost this way." ([`Effect::DrainX`]). Any other additional cost, or
//! any other sentence naming X, is refused.

use super::Fail;
use super::ast::*;
use crate::mtg::facts::parse_cost;

/// The additional cost of a line "as an additional cost to cast ~, <cost>", if the line is
/// one (None: not this shape).
pub(super) fn additional_cost(line: &str) -> Option<Result<Ability, Fail>> {
    let cost = line
        .trim_end_matches('.')
        .strip_prefix("as an additional cost to cast ~, ")?;
    let refuse = || Fail::new(line, "additional cost");
    Some(
        match cost {
            "discard a card" => Some(AdditionalCost::Discard),
            "sacrifice a creature" => Some(AdditionalCost::SacrificeCreature),
            c => c
                .strip_prefix("sacrifice a creature or pay ")
                .and_then(|m| parse_cost(&m.to_uppercase()).ok())
                .filter(|m| m.total() > 0)
                .map(AdditionalCost::SacrificeCreatureOrPay),
        }
        .map(Ability::AdditionalCost)
        .ok_or_else(refuse),
    )
}

/// "Each opponent loses X life. You gain life equal to the life lost this way." (CR 107.3a,
/// 119.3): X is the value chosen as the spell was cast.
pub(super) fn drain_x(line: &str) -> Option<Effect> {
    (line.trim_end_matches('.')
        == "each opponent loses x life. you gain life equal to the life lost this way")
        .then_some(Effect::DrainX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mtg::facts::ManaCost;

    #[test]
    fn cr_601_2b_additional_costs_are_read_exactly() {
        let cost = |l: &str| additional_cost(l).map(|r| r.map_err(|f| f.shape));
        assert_eq!(
            cost("as an additional cost to cast ~, discard a card."),
            Some(Ok(Ability::AdditionalCost(AdditionalCost::Discard)))
        );
        assert_eq!(
            cost("as an additional cost to cast ~, sacrifice a creature."),
            Some(Ok(Ability::AdditionalCost(
                AdditionalCost::SacrificeCreature
            )))
        );
        assert_eq!(
            cost("as an additional cost to cast ~, sacrifice a creature or pay {3}{b}."),
            Some(Ok(Ability::AdditionalCost(
                AdditionalCost::SacrificeCreatureOrPay(ManaCost {
                    generic: 3,
                    colored: [0, 0, 1, 0, 0]
                })
            )))
        );
        // Another cost is a template of its own: refused with its shape, never guessed.
        for other in [
            "as an additional cost to cast ~, discard two cards.",
            "as an additional cost to cast ~, sacrifice an artifact.",
            "as an additional cost to cast ~, pay 3 life.",
            "as an additional cost to cast ~, sacrifice a creature or pay {x}.",
        ] {
            assert_eq!(cost(other), Some(Err("additional cost".into())), "{other}");
        }
        assert_eq!(cost("draw two cards."), None);
    }

    #[test]
    fn cr_107_3a_x_is_read_only_in_the_drain_template() {
        assert_eq!(
            drain_x("each opponent loses x life. you gain life equal to the life lost this way."),
            Some(Effect::DrainX)
        );
        assert_eq!(drain_x("each opponent loses x life."), None);
        assert_eq!(
            drain_x("target opponent loses x life. you gain life equal to the life lost this way."),
            None
        );
    }
}
