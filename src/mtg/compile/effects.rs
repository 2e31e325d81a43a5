//! Effect sentences (CR 609): one template per rules shape, over normalized text (lower case,
//! the card's own name and "this creature" written `~`, no reminder text, no final period).

use super::ast::*;
use super::types::creature_type;
use super::{Fail, keywords_list, number};

pub(super) mod variable;

/// Parses the effects of a spell or ability: sentences in order, each one a template.
pub fn effects(text: &str) -> Result<Vec<Effect>, Fail> {
    let text = text.trim().trim_end_matches('.');
    // CR 701.20a / 701.9b: "target opponent reveals their hand. you choose a nonland card
    // from it. that player discards that card" is one template of three sentences.
    if let Some(rest) = text.strip_suffix(" from it. that player discards that card")
        && let Some((who, card)) = rest.split_once(" reveals their hand. you choose a ")
    {
        let nonland = match card {
            "nonland card" => true,
            "card" => false,
            _ => return Err(Fail::new(text, &effect_shape(text))),
        };
        let who = subject(who).filter(|w| *w == Subject::TargetOpponent);
        let who = who.ok_or_else(|| Fail::new(text, &effect_shape(text)))?;
        return Ok(vec![Effect::ChooseDiscard { who, nonland }]);
    }
    if let Some(e) = super::targets::whole(text) {
        return Ok(vec![e]);
    }
    if let Some(r) = super::look::look(text) {
        return r.map(|e| vec![e]);
    }
    let mut out = Vec::new();
    let sentences: Vec<&str> = text.split(". ").collect();
    let mut i = 0;
    while i < sentences.len() {
        let sentence = sentences[i].trim();
        i += 1;
        // CR 608.2d: "you may …[. if you do, …]" (one or two sentences).
        if let Some(r) = super::optional::may(&sentences[i - 1..], effect, self::sentence) {
            let (es, used) = r?;
            out.extend(es);
            i += used - 1;
            continue;
        }
        // "… instead" replaces the effect before it; "those creatures …" follows a count.
        if let Some(e) = out.last().and_then(|l| variable::instead(sentence, l)) {
            *out.last_mut().expect("an effect before") = e;
            continue;
        }
        if let Some(Effect::DrawPer(per)) = out.last()
            && let Some(e) = variable::those(sentence, *per)
        {
            out.push(e);
            continue;
        }
        out.extend(sentence_effects(sentence)?);
    }
    if out.is_empty() {
        return Err(Fail::new(text, "effect: empty"));
    }
    Ok(out)
}

/// One sentence (see [`sentence_effects`]).
pub(super) fn sentence(s: &str) -> Result<Vec<Effect>, Fail> {
    sentence_effects(s)
}

/// One sentence: a whole template, or two templates joined by ", then" or " and ".
fn sentence_effects(s: &str) -> Result<Vec<Effect>, Fail> {
    if let Some(e) = effect(s) {
        return Ok(vec![e]);
    }
    for sep in [", then ", " and "] {
        if let Some((a, b)) = s.split_once(sep)
            && let (Some(x), Some(y)) = (effect(a), effect(b))
        {
            return Ok(vec![x, y]);
        }
    }
    Err(Fail::new(s, &effect_shape(s)))
}

/// The coverage group of a sentence no template matches: its first words, numbers as N.
fn effect_shape(s: &str) -> String {
    let words: Vec<String> = s
        .split_whitespace()
        .take(3)
        .map(|w| {
            if number(w).is_some() && w != "a" && w != "an" {
                "N".to_string()
            } else {
                w.to_string()
            }
        })
        .collect();
    format!("effect: {}", words.join(" "))
}

/// Who an effect names (CR 115.1 targets and 608.2c references).
pub fn subject(s: &str) -> Option<Subject> {
    let s = s.trim();
    Some(match s {
        "any target" => Subject::AnyTarget,
        "target player" | "target player or planeswalker" => Subject::TargetPlayer,
        "target opponent" => Subject::TargetOpponent,
        "target creature or planeswalker" => Subject::TargetCreatureOrPlaneswalker,
        "each opponent" => Subject::EachOpponent,
        "~" => Subject::This,
        "it" | "that creature" => Subject::That,
        "that player" => Subject::ThatPlayer,
        "you" => Subject::You,
        "creatures you control" => Subject::EachCreature(Control::You),
        "creatures your opponents control" => Subject::EachCreature(Control::Opponent),
        "each creature" | "all creatures" => Subject::EachCreature(Control::Anyone),
        "enchanted creature" | "equipped creature" => Subject::Attached,
        "each creature without flying" => Subject::EachCreatureWithoutFlying,
        "all attacking creatures" => Subject::AllAttacking,
        _ => {
            let rest = s.strip_prefix("target ")?;
            let (f, control) = if let Some(f) = rest.strip_suffix(" you control") {
                (f, Control::You)
            } else if let Some(f) = rest.strip_suffix(" an opponent controls") {
                (f, Control::Opponent)
            } else if let Some(f) = rest.strip_suffix(" you don't control") {
                (f, Control::Opponent)
            } else {
                (rest, Control::Anyone)
            };
            Subject::Target(filter(f)?, control)
        }
    })
}

fn filter(s: &str) -> Option<Filter> {
    Some(match s {
        "creature" => Filter::Creature,
        "tapped creature" => Filter::TappedCreature,
        "attacking or blocking creature" => Filter::CombatCreature,
        "creature with flying" => Filter::FlyingCreature,
        "nonland permanent" => Filter::NonlandPermanent,
        "artifact or enchantment" => Filter::ArtifactOrEnchantment,
        "enchantment" => Filter::Enchantment,
        "artifact" => Filter::Artifact,
        "permanent" => Filter::Permanent,
        "artifact, enchantment, or creature with flying" => Filter::ArtifactEnchantmentOrFlyer,
        "creature or planeswalker" => Filter::CreatureOrPlaneswalker,
        t => Filter::OfType(creature_type(t)?),
    })
}

/// "+2/-1" as (2, -1).
pub fn pt_change(s: &str) -> Option<(i8, i8)> {
    let (p, t) = s.split_once('/')?;
    let n = |x: &str| -> Option<i8> {
        let (neg, digits) = match x.as_bytes().first()? {
            b'+' => (false, &x[1..]),
            b'-' => (true, &x[1..]),
            _ => return None,
        };
        let v: i8 = digits.parse().ok()?;
        Some(if neg { -v } else { v })
    };
    Some((n(p)?, n(t)?))
}

fn count_of(s: &str, singular: &str, plural: &str) -> Option<u8> {
    let (n, noun) = s.split_once(' ')?;
    (noun == singular || noun == plural).then_some(())?;
    number(n)
}

/// One effect template, or None.
pub fn effect(s: &str) -> Option<Effect> {
    let s = s.trim().trim_end_matches('.');
    if let Some(e) = super::restrictions::effect(s, subject) {
        return Some(e);
    }
    if let Some(t) = s
        .strip_prefix("exile ")
        .and_then(|r| r.strip_suffix(" until ~ leaves the battlefield"))
    {
        // CR 610.3: a one-shot exile with a return linked to the source leaving.
        return Some(Effect::ExileUntilLeaves(targeted(subject(t)?)?));
    }
    if let Some(e) = variable::effect(s) {
        return Some(e);
    }
    if let Some(e) = super::targets::up_to_one(s).or_else(|| super::targets::fight(s, subject)) {
        return Some(e);
    }
    match s {
        "counter target spell" => return Some(Effect::CounterSpell),
        "counter target creature spell" => return Some(Effect::CounterSpellOf { creature: true }),
        "counter target noncreature spell" => {
            return Some(Effect::CounterSpellOf { creature: false });
        }
        "return target creature card from your graveyard to your hand" => {
            return Some(Effect::ReturnFromGraveyard {
                creature: true,
                battlefield: false,
            });
        }
        "return target creature card from your graveyard to the battlefield" => {
            return Some(Effect::ReturnFromGraveyard {
                creature: true,
                battlefield: true,
            });
        }
        "return target permanent card from your graveyard to your hand" => {
            return Some(Effect::ReturnFromGraveyard {
                creature: false,
                battlefield: false,
            });
        }
        "exile target player's graveyard" => {
            return Some(Effect::ExileGraveyard(Subject::TargetPlayer));
        }
        // CR 400.7 / 506.4: a mass return, not targeted.
        "return all attacking creatures to their owner's hand" => {
            return Some(Effect::Bounce(Subject::AllAttacking));
        }
        _ => {}
    }
    if let Some(r) = s.strip_prefix("return target nonland permanent card with mana value ") {
        let (n, to) = r.split_once(" or less from your graveyard to ")?;
        let battlefield = match to {
            "the battlefield" => true,
            "your hand" => false,
            _ => return None,
        };
        return Some(Effect::ReturnSmallPermanentFromGraveyard {
            max_mana_value: n.parse().ok()?,
            battlefield,
        });
    }
    match s {
        "return ~ from your graveyard to the battlefield tapped" => {
            return Some(Effect::ReturnThisFromGraveyard { tapped: true });
        }
        "return ~ from your graveyard to the battlefield" => {
            return Some(Effect::ReturnThisFromGraveyard { tapped: false });
        }
        _ => {}
    }
    if let Some(to) = s.strip_prefix("~ deals damage equal to its power to ") {
        return Some(Effect::DamageEqualToPower(subject(to)?));
    }
    // CR 120: "~ deals N damage to S".
    if let Some(rest) = s.strip_prefix("~ deals ") {
        let (n, to) = rest.split_once(" damage to ")?;
        return Some(Effect::Damage {
            amount: n.parse().ok()?,
            to: subject(to)?,
        });
    }
    if let Some(t) = s.strip_prefix("destroy ") {
        return Some(Effect::Destroy(targeted(subject(t)?)?));
    }
    if let Some(r) = s
        .strip_prefix("exile up to ")
        .and_then(|r| r.strip_suffix(" from a graveyard"))
    {
        let (n, what) = r.split_once(' ')?;
        matches!(what, "target card" | "target cards").then_some(())?;
        return Some(Effect::ExileFromGraveyard(number(n)?));
    }
    if let Some(t) = s.strip_prefix("exile ") {
        return Some(Effect::Exile(targeted(subject(t)?)?));
    }
    if let Some(t) = s
        .strip_prefix("return ")
        .and_then(|r| r.strip_suffix(" to its owner's hand"))
    {
        return Some(Effect::Bounce(targeted(subject(t)?)?));
    }
    if let Some(t) = s.strip_prefix("tap ") {
        return Some(Effect::Tap(targeted(subject(t)?)?));
    }
    if let Some(n) = s.strip_prefix("scry ") {
        return Some(Effect::Scry(number(n)?));
    }
    if let Some(n) = s.strip_prefix("surveil ") {
        return Some(Effect::Surveil(number(n)?));
    }
    if let Some(n) = s.strip_prefix("mill ") {
        return Some(Effect::Mill(count_of(n, "card", "cards")?));
    }
    // CR 611.2a: "until end of turn, <subject> get(s) …" is the pump written the other way.
    if let Some(r) = s.strip_prefix("until end of turn, ") {
        return match effect(&format!("{r} until end of turn"))? {
            e @ Effect::Pump { .. } => Some(e),
            _ => None,
        };
    }
    if let Some(r) = s.strip_prefix("its controller creates ") {
        let made = effect(&format!("create {r}"))?;
        matches!(made, Effect::Tokens { .. } | Effect::Treasure(_)).then_some(())?;
        return Some(Effect::TargetControllerCreates(Box::new(made)));
    }
    if let Some(r) = s.strip_prefix("double the number of +1/+1 counters on ") {
        return Some(Effect::DoubleCounters(subject(r)?));
    }
    if let Some(r) = s.strip_prefix("create ") {
        if let Some(n) = r
            .strip_suffix(" treasure token")
            .or_else(|| r.strip_suffix(" treasure tokens"))
        {
            return Some(Effect::Treasure(number(n)?));
        }
        if let Some(e) = counted_tokens(r) {
            return Some(e);
        }
        if let Some(n) = r
            .strip_suffix(" food token")
            .or_else(|| r.strip_suffix(" food tokens"))
        {
            return Some(Effect::Food(number(n)?));
        }
        return tokens(r);
    }
    if let Some(r) = s.strip_prefix("you may search your library for ") {
        return search(r, true);
    }
    if let Some(r) = s.strip_prefix("search your library for ") {
        return search(r, false);
    }
    if let Some(r) = s.strip_prefix("put ") {
        return counters(r);
    }
    // "[S] draw(s) N cards", "[S] discard(s) N cards", "[S] gain(s)/lose(s) N life".
    let (who, verb_rest) = split_subject_verb(s)?;
    let (verb, rest) = verb_rest.split_once(' ')?;
    match verb {
        "draw" | "draws" => Some(Effect::Draw {
            who,
            count: count_of(rest, "card", "cards")?,
        }),
        "discard" | "discards" => Some(Effect::Discard {
            who,
            count: count_of(rest, "card", "cards")?,
        }),
        "gain" | "gains" if rest.ends_with(" life") => Some(Effect::GainLife {
            who,
            amount: rest.strip_suffix(" life")?.parse().ok()?,
        }),
        "lose" | "loses" if rest.ends_with(" life") => Some(Effect::LoseLife {
            who,
            amount: rest.strip_suffix(" life")?.parse().ok()?,
        }),
        "get" | "gets" | "gain" | "gains" => pump(who, verb, rest),
        _ => None,
    }
}

fn targeted(s: Subject) -> Option<Subject> {
    s.is_targeted().then_some(s)
}

/// Splits "target opponent discards …" into the subject and the rest; a sentence that starts
/// with its verb ("draw a card") is the controller's.
fn split_subject_verb(s: &str) -> Option<(Subject, &str)> {
    const VERBS: [&str; 12] = [
        "draw", "draws", "discard", "discards", "gain", "gains", "lose", "loses", "get", "gets",
        "has", "have",
    ];
    let words: Vec<&str> = s.split(' ').collect();
    let i = words.iter().position(|w| VERBS.contains(w))?;
    if i == 0 {
        return Some((Subject::You, s));
    }
    let head = words[..i].join(" ");
    let at = head.len() + 1;
    Some((subject(&head)?, &s[at..]))
}

/// "gets +P/+T [and gains K] until end of turn" / "gains K until end of turn" (CR 611.2).
fn pump(who: Subject, verb: &str, rest: &str) -> Option<Effect> {
    if matches!(who, Subject::You | Subject::EachOpponent) {
        return None;
    }
    let rest = rest.strip_suffix(" until end of turn")?;
    let (power, toughness, kws) = if verb.starts_with("get") {
        let joined = rest
            .split_once(" and gains ")
            .or_else(|| rest.split_once(" and gain "));
        let (pt, more) = match joined {
            Some((pt, k)) => (pt, Some(k)),
            None => (rest, None),
        };
        let (p, t) = pt_change(pt)?;
        (p, t, more.map(keywords_list).unwrap_or(Some(Vec::new()))?)
    } else {
        (0, 0, keywords_list(rest)?)
    };
    Some(Effect::Pump {
        who,
        power,
        toughness,
        keywords: kws,
    })
}

/// CR 701.23: the rest of "search your library for …, [reveal it,] put it …, then shuffle".
fn search(r: &str, optional: bool) -> Option<Effect> {
    let (what, rest) = r.split_once(", ")?;
    let (up_to, what) = match what.strip_prefix("up to ") {
        Some(w) => (true, w),
        None => (false, what),
    };
    let (n, noun) = what.split_once(' ')?;
    let count = number(n)?;
    let what = match noun {
        "basic land card" | "basic land cards" => SearchFor::BasicLand,
        "card" | "cards" => SearchFor::AnyCard,
        n => {
            let mv = n.strip_prefix("instant or sorcery card with mana value ")?;
            (count == 1).then_some(())?;
            SearchFor::InstantOrSorceryWithManaValue(mv.parse().ok()?)
        }
    };
    let rest = rest.strip_prefix("reveal it, ").unwrap_or(rest);
    if rest == "then shuffle and put that card on top" {
        return Some(Effect::Search {
            what,
            count,
            up_to,
            to: SearchTo::TopOfLibrary,
            optional,
        });
    }
    let rest = rest.strip_suffix(", then shuffle")?;
    let place = ["put it ", "put them ", "put that card "]
        .iter()
        .find_map(|p| rest.strip_prefix(p))?;
    let to = match place {
        "into your hand" => SearchTo::Hand,
        "onto the battlefield" => SearchTo::Battlefield { tapped: false },
        "onto the battlefield tapped" => SearchTo::Battlefield { tapped: true },
        _ => return None,
    };
    Some(Effect::Search {
        what,
        count,
        up_to,
        to,
        optional,
    })
}

/// "put N +1/+1 counter(s) on S" (CR 122.1).
fn counters(r: &str) -> Option<Effect> {
    let (n, rest) = r.split_once(' ')?;
    let count = number(n)?;
    let (kind, on) = rest.split_once(" on ")?;
    let plus = match kind {
        "+1/+1 counter" | "+1/+1 counters" => true,
        "-1/-1 counter" | "-1/-1 counters" => false,
        _ => return None,
    };
    Some(Effect::Counters {
        on: subject(on)?,
        count,
        plus,
    })
}

const COLOR_WORDS: [(&str, char); 5] = [
    ("white", 'W'),
    ("blue", 'U'),
    ("black", 'B'),
    ("red", 'R'),
    ("green", 'G'),
];

/// "create N [tapped] P/T colour [and colour] Type… creature token(s) [with K]" (CR 111.1).
fn tokens(r: &str) -> Option<Effect> {
    let (n, mut rest) = r.split_once(' ')?;
    let count = number(n)?;
    let tapped = if let Some(x) = rest.strip_prefix("tapped ") {
        rest = x;
        true
    } else {
        false
    };
    let (pt, rest) = rest.split_once(' ')?;
    let (p, t) = pt.split_once('/')?;
    let (power, toughness) = (p.parse().ok()?, t.parse().ok()?);
    let (body, kws) = match rest.split_once(" with ") {
        Some((b, k)) => (b, keywords_list(k)?),
        None => (rest, Vec::new()),
    };
    // CR 111.4: a token with power and toughness is a creature token, whether or not the
    // text says "creature" ("a 1/1 blue Faerie token with flying").
    let body = [" creature token", " creature tokens", " token", " tokens"]
        .iter()
        .find_map(|t| body.strip_suffix(t))?;
    let mut colors = Vec::new();
    let mut words = body.split(' ').peekable();
    let mut subtypes = Vec::new();
    while let Some(w) = words.next() {
        if let Some((_, c)) = COLOR_WORDS.iter().find(|(name, _)| *name == w) {
            colors.push(*c);
            if words.peek() == Some(&"and") {
                words.next();
            }
        } else if w == "colorless" {
        } else {
            // CR 205.3m: only creature types (an unknown word refuses the card).
            subtypes.push(creature_type(w)?.to_string());
        }
    }
    if subtypes.is_empty() {
        return None;
    }
    Some(Effect::Tokens {
        count,
        power,
        toughness,
        colors,
        subtypes,
        keywords: kws,
        tapped,
    })
}

/// CR 111.1 / 608.2h: "a number of <tokens> equal to the number of other creatures you
/// control named ~" and "<a token> for each creature card in your graveyard".
fn counted_tokens(r: &str) -> Option<Effect> {
    let (one, per) = if let Some(rest) = r.strip_prefix("x ") {
        // "X 1/1 red Goblin creature tokens, where X is the number of Goblins you control".
        let (t, count) = rest.split_once(", where x is the number of ")?;
        let kind = count.strip_suffix(" you control")?;
        let kind = creature_type(kind.strip_suffix('s')?)?;
        (
            format!("a {}", t.strip_suffix('s')?),
            Per::OfTypeYouControl(kind),
        )
    } else if let Some(rest) = r.strip_prefix("a number of ") {
        let (t, count) = rest.split_once(" equal to ")?;
        let per = match count {
            "the number of other creatures you control named ~" => Per::OtherCreaturesNamedThis,
            _ => return None,
        };
        // "1/1 white rabbit creature tokens" as one token.
        (format!("a {}", t.strip_suffix('s')?), per)
    } else {
        let (t, count) = r.split_once(" for each ")?;
        let per = match count {
            "creature card in your graveyard" => Per::CreatureCardsInYourGraveyard,
            _ => return None,
        };
        (t.to_string(), per)
    };
    let tokens = self::tokens(&one)?;
    matches!(tokens, Effect::Tokens { count: 1, .. }).then_some(())?;
    Some(Effect::CountedTokens {
        per,
        tokens: Box::new(tokens),
    })
}

pub(super) fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_120_damage_to_each_subject() {
        assert_eq!(
            effect("~ deals 3 damage to any target"),
            Some(Effect::Damage {
                amount: 3,
                to: Subject::AnyTarget
            })
        );
        assert_eq!(
            effect("~ deals 3 damage to each opponent"),
            Some(Effect::Damage {
                amount: 3,
                to: Subject::EachOpponent
            })
        );
        assert_eq!(
            effect("~ deals 2 damage to target creature an opponent controls"),
            Some(Effect::Damage {
                amount: 2,
                to: Subject::Target(Filter::Creature, Control::Opponent)
            })
        );
        assert_eq!(effect("~ deals 3 damage to target nonblack creature"), None);
    }

    #[test]
    fn cr_701_8_destroy_13_exile_and_400_7_bounce_take_targets() {
        assert_eq!(
            effect("destroy target nonland permanent"),
            Some(Effect::Destroy(Subject::Target(
                Filter::NonlandPermanent,
                Control::Anyone
            )))
        );
        assert_eq!(
            effect("exile target creature you control"),
            Some(Effect::Exile(Subject::Target(
                Filter::Creature,
                Control::You
            )))
        );
        assert_eq!(
            effect("return target creature an opponent controls to its owner's hand"),
            Some(Effect::Bounce(Subject::Target(
                Filter::Creature,
                Control::Opponent
            )))
        );
        // Non-targeted destruction is a different template: refused here.
        assert_eq!(effect("destroy all creatures"), None);
    }

    #[test]
    fn cr_121_draw_701_9_discard_119_life() {
        assert_eq!(
            effect("draw two cards"),
            Some(Effect::Draw {
                who: Subject::You,
                count: 2
            })
        );
        assert_eq!(
            effect("target opponent discards two cards"),
            Some(Effect::Discard {
                who: Subject::TargetOpponent,
                count: 2
            })
        );
        assert_eq!(
            effect("each opponent loses 2 life"),
            Some(Effect::LoseLife {
                who: Subject::EachOpponent,
                amount: 2
            })
        );
        assert_eq!(
            effect("you gain 4 life"),
            Some(Effect::GainLife {
                who: Subject::You,
                amount: 4
            })
        );
    }

    #[test]
    fn cr_611_2_until_end_of_turn_pumps() {
        assert_eq!(
            effect("target creature gets -2/-2 until end of turn"),
            Some(Effect::Pump {
                who: Subject::Target(Filter::Creature, Control::Anyone),
                power: -2,
                toughness: -2,
                keywords: vec![]
            })
        );
        assert_eq!(
            effect("target creature you control gets +1/+0 and gains menace until end of turn"),
            Some(Effect::Pump {
                who: Subject::Target(Filter::Creature, Control::You),
                power: 1,
                toughness: 0,
                keywords: vec![Keyword::Menace]
            })
        );
        assert_eq!(
            effect("creatures you control get +2/+2 until end of turn"),
            Some(Effect::Pump {
                who: Subject::EachCreature(Control::You),
                power: 2,
                toughness: 2,
                keywords: vec![]
            })
        );
        assert_eq!(effect("target creature gets +2/+2"), None);
    }

    #[test]
    fn cr_122_counters_and_111_tokens() {
        assert_eq!(
            effect("put two +1/+1 counters on target creature you control"),
            Some(Effect::Counters {
                on: Subject::Target(Filter::Creature, Control::You),
                count: 2,
                plus: true
            })
        );
        assert_eq!(
            effect("create two 3/3 white knight creature tokens"),
            Some(Effect::Tokens {
                count: 2,
                power: 3,
                toughness: 3,
                colors: vec!['W'],
                subtypes: vec!["Knight".into()],
                keywords: vec![],
                tapped: false
            })
        );
        assert_eq!(
            effect("create a 1/1 black and green insect creature token with flying"),
            Some(Effect::Tokens {
                count: 1,
                power: 1,
                toughness: 1,
                colors: vec!['B', 'G'],
                subtypes: vec!["Insect".into()],
                keywords: vec![Keyword::Flying],
                tapped: false
            })
        );
        // A Food is an artifact token (CR 111.10b), its own template.
        assert_eq!(effect("create a food token"), Some(Effect::Food(1)));
        assert_eq!(effect("create a 1/1 food token"), None);
    }

    #[test]
    fn cr_701_5_counter_by_spell_type_and_120_3_mass_damage_and_506_4_mass_return() {
        assert_eq!(
            effect("counter target creature spell"),
            Some(Effect::CounterSpellOf { creature: true })
        );
        assert_eq!(
            effect("counter target noncreature spell"),
            Some(Effect::CounterSpellOf { creature: false })
        );
        assert_eq!(
            effect("~ deals 2 damage to each creature without flying"),
            Some(Effect::Damage {
                amount: 2,
                to: Subject::EachCreatureWithoutFlying
            })
        );
        assert_eq!(
            effect("return all attacking creatures to their owner's hand"),
            Some(Effect::Bounce(Subject::AllAttacking))
        );
        assert_eq!(
            effect("destroy target artifact, enchantment, or creature with flying"),
            Some(Effect::Destroy(Subject::Target(
                Filter::ArtifactEnchantmentOrFlyer,
                Control::Anyone
            )))
        );
        // A counterspell of another spell type is not guessed.
        assert_eq!(effect("counter target artifact spell"), None);
        assert_eq!(effect("return all creatures to their owner's hand"), None);
    }

    #[test]
    fn sequences_split_on_sentences_then_and_and() {
        assert_eq!(
            effects("draw a card, then discard a card").unwrap().len(),
            2
        );
        assert_eq!(
            effects("each opponent loses 1 life and you gain 1 life")
                .unwrap()
                .len(),
            2
        );
        let e = effects("~ deals 3 damage to target creature. you gain 1 life").unwrap();
        assert_eq!(e.len(), 2);
        let f = effects("look at the top four cards of your library").unwrap_err();
        assert_eq!(f.shape, "effect: look at the");
    }
}
