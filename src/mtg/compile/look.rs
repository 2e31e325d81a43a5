//! "Look at the top N cards of your library" with a choice among them (CR 401.5 looking at
//! library cards, 608.2d the choice made as it resolves): one template of three sentences.
//!
//! Promises:
//! - "look at the top N cards of your library. you may put one of those cards back on top of
//!   your library. put the rest into your graveyard" and "… you may reveal a creature card with
//!   power N or less from among them and put it into your hand. put the rest on the bottom of
//!   your library in a random order" compile to one [`Effect::LookAt`];
//! - any other middle or last sentence is refused with the whole text named.

use super::Fail;
use super::ast::{Effect, Look};

/// The look-at template over a whole effect text, or None if it does not start like one.
pub(super) fn look(text: &str) -> Option<Result<Effect, Fail>> {
    let rest = text.strip_prefix("look at the top ")?;
    let (n, rest) = rest.split_once(" cards of your library. ")?;
    let parsed = (|| {
        let count = super::number(n).filter(|&c| c > 1)?;
        let (pick, rest_of) = rest.split_once(". ")?;
        let (power_at_most, to_hand) =
            if pick == "you may put one of those cards back on top of your library" {
                (None, false)
            } else {
                let p = pick
                    .strip_prefix("you may reveal a creature card with power ")?
                    .strip_suffix(" or less from among them and put it into your hand")?;
                (Some(super::number(p)?), true)
            };
        let rest_to_bottom = match rest_of {
            "put the rest into your graveyard" => false,
            "put the rest on the bottom of your library in a random order" => true,
            _ => return None,
        };
        Some(Effect::LookAt(Look {
            count,
            creature_power_at_most: power_at_most,
            to_hand,
            rest_to_bottom,
        }))
    })();
    Some(parsed.ok_or_else(|| Fail::new(text, "effect: look at the top N cards")))
}

#[cfg(test)]
mod tests {
    use super::super::ast::{Effect, Look};
    use super::super::effects::effects;

    #[test]
    fn cr_401_5_look_at_the_top_n_and_keep_one_on_top_or_reveal_one_into_the_hand() {
        assert_eq!(
            effects(
                "look at the top three cards of your library. you may put one of those cards \
                 back on top of your library. put the rest into your graveyard"
            )
            .unwrap(),
            vec![Effect::LookAt(Look {
                count: 3,
                creature_power_at_most: None,
                to_hand: false,
                rest_to_bottom: false
            })]
        );
        assert_eq!(
            effects(
                "look at the top four cards of your library. you may reveal a creature card \
                 with power 2 or less from among them and put it into your hand. put the rest \
                 on the bottom of your library in a random order"
            )
            .unwrap(),
            vec![Effect::LookAt(Look {
                count: 4,
                creature_power_at_most: Some(2),
                to_hand: true,
                rest_to_bottom: true
            })]
        );
        let e = effects(
            "look at the top four cards of your library. you may reveal a land card from among \
             them and put it into your hand. put the rest on the bottom of your library in a \
             random order",
        )
        .unwrap_err();
        assert_eq!(e.shape, "effect: look at the top N cards");
    }
}
