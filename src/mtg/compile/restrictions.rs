//! Combat restrictions an effect sets for the rest of the turn (CR 509.1a-b, 611.2a):
//! "target creature can't block this turn" and "target creature can't be blocked this turn".
//! The subject is any the effect templates know; "this turn" is required (a restriction
//! without a duration is a static ability, compiled elsewhere).

use super::ast::{Effect, Restriction, Subject};

/// "<S> can't block this turn" / "<S> can't be blocked this turn", or None; `subject` reads S
/// (the effect templates' reader, passed in so this file does not depend on theirs).
pub(super) fn effect(s: &str, subject: impl Fn(&str) -> Option<Subject>) -> Option<Effect> {
    let (who, restriction) = if let Some(w) = s.strip_suffix(" can't be blocked this turn") {
        (w, Restriction::CantBeBlocked)
    } else {
        (
            s.strip_suffix(" can't block this turn")?,
            Restriction::CantBlock,
        )
    };
    Some(Effect::Restrict {
        who: subject(who)?,
        restriction,
    })
}

#[cfg(test)]
mod colorless_tests {
    use super::super::{Ability, COLORLESS, compile};
    use crate::mtg::facts::CardData;

    #[test]
    fn cr_106_1b_add_c_is_one_colorless_mana() {
        let d = CardData {
            name: "Rogue's Passage".into(),
            mana_cost: String::new(),
            type_line: "Land".into(),
            oracle_text: "{T}: Add {C}.\n{4}, {T}: Target creature can't be blocked this turn."
                .into(),
            power: None,
            toughness: None,
            keywords: vec![],
            loyalty: None,
        };
        let c = compile(&d).unwrap();
        assert_eq!(
            c.abilities[0],
            Ability::Mana {
                tap: true,
                colors: vec![COLORLESS]
            }
        );
        // "{C}" is not a mana cost symbol the engine pays with: "{C}: …" is refused.
        let mut d = d;
        d.oracle_text = "{C}, {T}: Draw a card.".into();
        assert!(compile(&d).is_err());
    }
}
