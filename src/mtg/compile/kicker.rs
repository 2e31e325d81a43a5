//! Kicker's "instead" sentences (CR 702.33d, 608.2c): a spell line "<effects>. If this spell
//! was kicked, <other effects> instead." compiles to [`Effect::Kicked`]. The kicked text is
//! read with the same templates; "it deals N damage" names the damage of the unkicked text
//! (its one target, N in place of the unkicked amount). Anything else is refused.

use super::Fail;
use super::ast::*;
use super::effects::effects;

/// The kicked alternative of a spell line, if the line has one (None: not this shape).
pub(super) fn kicked_instead(line: &str) -> Option<Result<Effect, Fail>> {
    let line = line.trim().trim_end_matches('.');
    let (normal, rest) = line.split_once(". if ~ was kicked, ")?;
    Some(parse(line, normal, rest))
}

fn parse(line: &str, normal: &str, rest: &str) -> Result<Effect, Fail> {
    let refuse = || Fail::new(line, "kicker: instead");
    let normal = effects(normal)?;
    let kicked = if let Some(r) = rest.strip_prefix("instead ") {
        effects(r)?
    } else {
        let r = rest.strip_suffix(" instead").ok_or_else(refuse)?;
        match (r.strip_prefix("it deals "), normal.as_slice()) {
            (Some(n), [Effect::Damage { to, .. }]) => {
                let n = n.strip_suffix(" damage").ok_or_else(refuse)?;
                vec![Effect::Damage {
                    amount: n.parse().map_err(|_| refuse())?,
                    to: *to,
                }]
            }
            (Some(_), _) => return Err(refuse()),
            (None, _) => effects(r)?,
        }
    };
    Ok(Effect::Kicked { normal, kicked })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_702_33d_a_kicked_spell_does_its_instead_text() {
        assert_eq!(
            kicked_instead(
                "~ deals 2 damage to any target. if ~ was kicked, it deals 4 damage instead"
            ),
            Some(Ok(Effect::Kicked {
                normal: vec![Effect::Damage {
                    amount: 2,
                    to: Subject::AnyTarget
                }],
                kicked: vec![Effect::Damage {
                    amount: 4,
                    to: Subject::AnyTarget
                }],
            }))
        );
        let grow = kicked_instead(
            "search your library for a basic land card, put it onto the battlefield, then shuffle. \
             if ~ was kicked, instead search your library for two basic land cards, put them onto \
             the battlefield, then shuffle",
        );
        let Some(Ok(Effect::Kicked { normal, kicked })) = grow else {
            panic!("{grow:?}")
        };
        assert!(matches!(normal[..], [Effect::Search { count: 1, .. }]));
        assert!(matches!(kicked[..], [Effect::Search { count: 2, .. }]));
        // Not this shape: no kicker sentence.
        assert_eq!(kicked_instead("draw two cards"), None);
        // A pronoun the template does not know is refused, not guessed.
        assert!(matches!(
            kicked_instead("draw a card. if ~ was kicked, it deals 4 damage instead"),
            Some(Err(_))
        ));
        // More targets when kicked is a template of its own: refused.
        assert!(matches!(
            kicked_instead(
                "target creature you control gains indestructible until end of turn. if ~ was \
                 kicked, any number of target creatures you control gain indestructible until end \
                 of turn instead"
            ),
            Some(Err(_))
        ));
    }
}
