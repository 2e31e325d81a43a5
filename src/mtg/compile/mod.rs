//! The card compiler: a card's Oracle text becomes typed abilities ([`ast`]), one template per
//! rules shape, or the card is refused with the first fragment no template matches.
//!
//! Promises:
//! - exact or nothing: every line of rules text must be matched whole by a template; there is
//!   no partial match, no skipping of an unknown sentence and no default reading;
//! - reminder text (parenthesized, CR 207.2) is not rules text and is ignored; the card's own
//!   name and "this creature" / "this enchantment" / … are the same reference (CR 201.5);
//! - ability words (CR 207.2c, "Landfall —") carry no rules meaning and are dropped, the
//!   ability after them is compiled like any other;
//! - the refusal names the fragment and its shape (the group of the missing template), which
//!   `bob mtg cards coverage` counts.
//!
//! What the engine plays of a compiled card is decided elsewhere (`cards::parse`): compiling
//! says only what the text means.

mod additional;
pub mod ast;
mod costs;
mod effects;
mod kicker;
mod look;
mod optional;
mod restrictions;
mod statics;
mod targets;
mod triggers;
pub(crate) mod types;

pub use ast::*;
use effects::{effects, pt_change, subject};

use crate::mtg::facts::{CardData, ManaCost, parse_cost, strip_reminder};

/// A fragment no template matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    pub fragment: String,
    pub shape: String,
}

impl Fail {
    fn new(fragment: &str, shape: &str) -> Fail {
        Fail {
            fragment: fragment.to_string(),
            shape: shape.to_string(),
        }
    }
}

impl From<Fail> for Unparsed {
    fn from(f: Fail) -> Unparsed {
        Unparsed {
            fragment: f.fragment,
            shape: f.shape,
        }
    }
}

/// The index of colorless mana ({C}, CR 106.1b) after the five colours WUBRG.
pub const COLORLESS: u8 = 5;

/// "a"/"an"/"one" … "ten" or digits.
pub(crate) fn number(w: &str) -> Option<u8> {
    const WORDS: [&str; 11] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    if w == "a" || w == "an" {
        return Some(1);
    }
    WORDS
        .iter()
        .position(|x| *x == w)
        .map(|i| i as u8)
        .or_else(|| w.parse().ok())
}

/// The card's rules text as the templates read it: lower case, reminder text removed, the
/// card's name and "this <type>" written `~`, Unicode minus and apostrophe made ASCII.
pub fn normalize(d: &CardData) -> Vec<String> {
    let mut text = strip_reminder(&d.oracle_text)
        .replace('\u{2212}', "-")
        .replace('\u{2019}', "'");
    if !d.name.is_empty() {
        text = replace_word(&text, &d.name);
        // A legendary card may call itself by the part of its name before the comma.
        if let Some((short, _)) = d.name.split_once(',') {
            text = replace_word(&text, short);
        }
    }
    let mut text = text.to_lowercase();
    for this in [
        "this creature",
        "this enchantment",
        "this artifact",
        "this equipment",
        "this aura",
        "this land",
        "this spell",
        "this card",
        "this token",
    ] {
        text = text.replace(this, "~");
    }
    text.lines()
        .map(|l| drop_ability_word(l.trim()).to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Replaces whole-word occurrences of `name` with `~`.
fn replace_word(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
    while let Some(i) = rest.find(name) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + name.len()..].chars().next();
        out.push_str(&rest[..i]);
        if word(before) || word(after) {
            out.push_str(name);
        } else {
            out.push('~');
        }
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

/// Drops an ability word ("landfall — …", CR 207.2c): one or two words before an em dash.
fn drop_ability_word(line: &str) -> &str {
    match line.split_once(" \u{2014} ") {
        Some((word, rest))
            if word.split(' ').count() <= 2
                && !word.starts_with("choose")
                && !word.contains('{')
                && !word.starts_with("enchant") =>
        {
            rest
        }
        _ => line,
    }
}

/// Compiles a card's rules text. The type line decides whether bare effect sentences are a
/// spell's effects (instants and sorceries, CR 608.2c) or not allowed (permanents).
pub fn compile(d: &CardData) -> Result<Compiled, Unparsed> {
    let is_spell = {
        let t = d.type_line.to_lowercase();
        let main = t.split('\u{2014}').next().unwrap_or("");
        main.contains("instant") || main.contains("sorcery")
    };
    let mut abilities = Vec::new();
    let mut spell_effects: Vec<Effect> = Vec::new();
    let lines = normalize(d);
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        i += 1;
        if line.starts_with('\u{2022}') {
            return Err(Fail::new(line, "modal (choose one)").into());
        }
        // CR 700.2: a "choose one —" header takes the bulleted lines after it as its modes.
        if let Some((head, choose)) = modal_header(line) {
            let mut modes = Vec::new();
            while let Some(m) = lines.get(i).and_then(|l| l.strip_prefix('\u{2022}')) {
                modes.push(effects(m.trim()).map_err(Unparsed::from)?);
                i += 1;
            }
            if modes.len() < 2 || choose as usize > modes.len() {
                return Err(Fail::new(line, "modal (choose one)").into());
            }
            let modal = Effect::Modal { choose, modes };
            if head.is_empty() && is_spell {
                spell_effects.push(modal);
            } else if !head.is_empty() && !is_spell && head.starts_with(['w', 'a']) {
                abilities.push(triggered_with(head, Some(modal)).map_err(Unparsed::from)?);
            } else {
                return Err(Fail::new(line, "modal (choose one)").into());
            }
            continue;
        }
        if let Some(k) = keyword_line(line) {
            abilities.extend(k.into_iter().map(Ability::Keyword));
            continue;
        }
        if let Some(st) = costs::cost_static(line) {
            abilities.push(Ability::Static(st));
            continue;
        }
        // CR 101.2: "this spell can't be countered" is a static on any card.
        if line.trim_end_matches('.') == "~ can't be countered" {
            abilities.push(Ability::Static(Static::CantBeCountered));
            continue;
        }
        if let Some(a) = additional::additional_cost(line) {
            abilities.push(a.map_err(Unparsed::from)?);
            continue;
        }
        if is_spell && let Some(e) = additional::drain_x(line) {
            spell_effects.push(e);
            continue;
        }
        if is_spell && let Some(k) = kicker::kicked_instead(line) {
            spell_effects.push(k.map_err(Unparsed::from)?);
            continue;
        }
        // CR 603.12: "<effect>. When you do, <effects>" on a spell: the reflexive trigger is
        // the spell's last effect.
        if is_spell && let Some((before, after)) = line.split_once(". when you do, ") {
            spell_effects.extend(effects(before).map_err(Unparsed::from)?);
            let reflexive = effects(after).map_err(Unparsed::from)?;
            spell_effects.push(Effect::Reflexive(reflexive));
            continue;
        }
        if is_spell {
            match effects(line) {
                Ok(e) => spell_effects.extend(e),
                Err(f) => return Err(f.into()),
            }
            continue;
        }
        if let Some(both) = triggers::either_event(line) {
            for l in both {
                abilities.push(permanent_line(&l).map_err(Unparsed::from)?);
            }
            continue;
        }
        abilities.push(permanent_line(line).map_err(Unparsed::from)?);
    }
    if !spell_effects.is_empty() {
        abilities.push(Ability::Spell(spell_effects));
    }
    Ok(Compiled { abilities })
}

/// "choose one —" / "choose two —" at the end of a line: the text before it (a trigger's
/// condition with its comma, or nothing) and how many modes are chosen.
fn modal_header(line: &str) -> Option<(&str, u8)> {
    let (head, n) = line.strip_suffix(" \u{2014}")?.rsplit_once("choose ")?;
    let head = match head {
        "" => "",
        h => h.strip_suffix(", ")?,
    };
    Some((head, number(n).filter(|&n| n >= 1)?))
}

/// One line of a permanent: a trigger, an activated/mana/loyalty ability or a static.
fn permanent_line(line: &str) -> Result<Ability, Fail> {
    let line = line.trim_end_matches('.');
    if line.starts_with("when ") || line.starts_with("whenever ") || line.starts_with("at ") {
        return triggered(line);
    }
    if let Some((cost, body)) = line.split_once(": ") {
        if let Some(l) = loyalty(cost) {
            return Ok(Ability::Loyalty {
                change: l,
                effects: effects(body)?,
            });
        }
        let cost = activation_cost(cost)
            .ok_or_else(|| Fail::new(cost, &format!("cost: {}", cost_shape(cost))))?;
        // A Treasure's "{T}, Sacrifice ~: Add one mana of any color" (CR 111.10a).
        if body.trim_end_matches('.') == "add one mana of any color"
            && cost.tap
            && cost.sacrifice_self
            && cost.mana.total() == 0
            && cost.life == 0
            && cost.sacrifice_creature.is_none()
        {
            return Ok(Ability::SacrificeMana {
                colors: (0..5).collect(),
            });
        }
        if let Some(colors) = mana_produced(body) {
            // The mana ability's form holds {T} only: a cost with mana, life or a sacrifice
            // beside it ("{1}, {T}: Add {G}") is a template of its own, refused until then.
            if cost.mana.total() > 0
                || cost.life > 0
                || cost.sacrifice_self
                || cost.sacrifice_creature.is_some()
            {
                return Err(Fail::new(line, "mana ability with a cost beyond {T}"));
            }
            return Ok(Ability::Mana {
                tap: cost.tap,
                colors,
            });
        }
        let (body, sorcery) = match body.strip_suffix(". activate only as a sorcery") {
            Some(b) => (b, true),
            None => (body.trim_end_matches('.'), false),
        };
        // CR 608.2h / 113.7a: in "Sacrifice this: It deals N damage …" the pronoun is the
        // sacrificed source, which deals the damage as it last existed.
        let pronoun;
        let body = match body.strip_prefix("it deals ") {
            Some(rest)
                if cost.sacrifice_self
                    && (rest.split(' ').next().is_some_and(|n| number(n).is_some())
                        || rest.starts_with("damage equal to its power to ")) =>
            {
                pronoun = format!("~ deals {rest}");
                pronoun.as_str()
            }
            _ => body,
        };
        return Ok(Ability::Activated {
            cost,
            effects: effects(body)?,
            sorcery,
        });
    }
    static_line(line).map(Ability::Static)
}

fn cost_shape(cost: &str) -> String {
    cost.split(", ")
        .find(|p| activation_cost(p).is_none())
        .unwrap_or(cost)
        .to_string()
}

/// CR 606.4: "+N", "-N" or "0" before the colon of a loyalty ability.
fn loyalty(s: &str) -> Option<i8> {
    let v: i8 = s.strip_prefix('+').unwrap_or(s).parse().ok()?;
    (s.starts_with(['+', '-']) || s == "0").then_some(v)
}

/// CR 602.1a: a comma-separated cost: mana symbols, {T}, "sacrifice ~", "pay N life".
fn activation_cost(s: &str) -> Option<Cost> {
    let mut cost = Cost::default();
    for part in s.split(", ") {
        if part == "{t}" {
            cost.tap = true;
        } else if part == "sacrifice ~" {
            cost.sacrifice_self = true;
        } else if part == "sacrifice a creature" || part == "sacrifice another creature" {
            cost.sacrifice_creature = Some(part.contains("another"));
        } else if let Some(n) = part
            .strip_prefix("pay ")
            .and_then(|r| r.strip_suffix(" life"))
        {
            cost.life = n.parse().ok()?;
        } else if part.starts_with('{') {
            let (mana, tap) = match part.strip_suffix("{t}") {
                Some(m) => (m, true),
                None => (part, false),
            };
            cost.mana = parse_cost(&mana.to_uppercase()).ok()?;
            cost.tap |= tap;
        } else {
            return None;
        }
    }
    Some(cost)
}

/// CR 106.1 / 605.1a: "add {G}" or "add {W} or {B}"; the colours as WUBRG indices. "add {C}"
/// is one colorless mana (CR 106.1b), index 5 ([`COLORLESS`]): it pays only generic costs.
fn mana_produced(body: &str) -> Option<Vec<u8>> {
    let rest = body.trim_end_matches('.').strip_prefix("add ")?;
    if rest == "{c}" {
        return Some(vec![COLORLESS]);
    }
    rest.split(" or ")
        .map(|sym| {
            let c = parse_cost(&sym.to_uppercase()).ok()?;
            (c.generic == 0 && c.total() == 1)
                .then(|| c.colored.iter().position(|&n| n == 1).map(|i| i as u8))?
        })
        .collect()
}

/// A comma list of keyword abilities ("flying, vigilance"; "flying and lifelink").
pub(crate) fn keywords_list(s: &str) -> Option<Vec<Keyword>> {
    let s = s.trim().trim_end_matches('.');
    let s = s.replace(", and ", ", ").replace(" and ", ", ");
    s.split(", ").map(keyword).collect()
}

fn keyword_line(line: &str) -> Option<Vec<Keyword>> {
    keywords_list(line)
}

/// One keyword ability (CR 702) with its parameter.
fn keyword(s: &str) -> Option<Keyword> {
    let cost = |r: &str| parse_cost(&r.to_uppercase()).ok();
    Some(match s.trim() {
        "flying" => Keyword::Flying,
        "reach" => Keyword::Reach,
        "first strike" => Keyword::FirstStrike,
        "double strike" => Keyword::DoubleStrike,
        "deathtouch" => Keyword::Deathtouch,
        "trample" => Keyword::Trample,
        "vigilance" => Keyword::Vigilance,
        "haste" => Keyword::Haste,
        "lifelink" => Keyword::Lifelink,
        "defender" => Keyword::Defender,
        "menace" => Keyword::Menace,
        "hexproof" => Keyword::Hexproof,
        "indestructible" => Keyword::Indestructible,
        "flash" => Keyword::Flash,
        "prowess" => Keyword::Prowess,
        "enchant creature" => Keyword::EnchantCreature,
        other => {
            if let Some(r) = other.strip_prefix("ward ") {
                let c: ManaCost = cost(r)?;
                (c.total() == c.generic as u32).then_some(())?;
                Keyword::Ward(c.generic)
            } else if let Some(r) = other.strip_prefix("equip ") {
                Keyword::Equip(cost(r)?)
            } else if let Some(r) = other.strip_prefix("kicker ") {
                Keyword::Kicker(cost(r)?)
            } else if let Some(r) = other.strip_prefix("flashback ") {
                Keyword::Flashback(cost(r)?)
            } else {
                return None;
            }
        }
    })
}

/// CR 603.1: "When/Whenever/At <event>, <effect>".
fn triggered(line: &str) -> Result<Ability, Fail> {
    triggered_with(line, None)
}

/// A trigger; with `modal`, `line` is the part before "choose one —" (the condition and an
/// optional intervening-if clause, without the effect) and the modes are its effect.
fn triggered_with(line: &str, modal: Option<Effect>) -> Result<Ability, Fail> {
    const CONDITIONS: [(&str, Trigger); 17] = [
        ("when ~ enters", Trigger::Enters),
        ("whenever ~ enters", Trigger::Enters),
        ("when ~ dies", Trigger::Dies),
        ("whenever ~ dies", Trigger::Dies),
        ("whenever ~ attacks", Trigger::Attacks),
        ("whenever ~ blocks", Trigger::Blocks),
        (
            "whenever ~ deals combat damage to a player",
            Trigger::CombatDamageToPlayer,
        ),
        (
            "whenever another creature you control enters",
            Trigger::AnotherCreatureEnters,
        ),
        ("whenever a land you control enters", Trigger::Landfall),
        ("at the beginning of your upkeep", Trigger::YourUpkeep),
        ("at the beginning of your end step", Trigger::YourEndStep),
        (
            "whenever you cast a noncreature spell",
            Trigger::CastNoncreature,
        ),
        ("whenever you gain life", Trigger::GainLife),
        (
            "at the beginning of combat on your turn",
            Trigger::YourCombat,
        ),
        ("at the beginning of each end step", Trigger::EachEndStep),
        (
            "whenever you draw your second card each turn",
            Trigger::SecondDrawEachTurn,
        ),
        (
            "whenever a creature you control dies",
            Trigger::CreatureYouControlDies,
        ),
    ];
    let modal_line;
    let line = if modal.is_some() {
        modal_line = format!("{line}, \u{2022}");
        modal_line.as_str()
    } else {
        line
    };
    let Some((cond, body)) = line.split_once(", ") else {
        return Err(Fail::new(line, "trigger without an effect"));
    };
    let powerful = cond
        .strip_prefix("whenever a creature you control with power ")
        .and_then(|r| r.strip_suffix(" or greater enters"))
        .and_then(number)
        .map(Trigger::CreatureWithPowerEnters);
    let found = CONDITIONS
        .iter()
        .find(|(c, _)| *c == cond)
        .map(|(_, t)| *t)
        .or(powerful)
        .or_else(|| triggers::trigger(cond));
    let Some(when) = found.as_ref() else {
        return Err(Fail::new(
            cond,
            &format!("trigger: {}", trigger_shape(cond)),
        ));
    };
    let (condition, body) = match body.strip_prefix("if ") {
        Some(rest) => {
            let (c, b) = rest
                .split_once(", ")
                .ok_or_else(|| Fail::new(body, "intervening if (CR 603.4)"))?;
            let c = intervening_if(c)
                .ok_or_else(|| Fail::new(c, &format!("intervening if: {}", trigger_shape(c))))?;
            (Some(c), b)
        }
        None => (None, body),
    };
    let effects = match modal {
        Some(m) if body == "\u{2022}" => vec![m],
        Some(_) => return Err(Fail::new(body, "modal (choose one)")),
        None => effects(body)?,
    };
    Ok(Ability::Triggered {
        when: *when,
        condition,
        effects,
    })
}

/// CR 603.4: the condition of an intervening-if clause, after "if ".
fn intervening_if(c: &str) -> Option<Condition> {
    Some(match c {
        "you attacked this turn" => Condition::YouAttacked,
        "a creature died this turn" => Condition::CreatureDied,
        "an opponent lost life this turn" => Condition::OpponentLostLife,
        "you gained life this turn" => Condition::YouGainedLife,
        "it was kicked" | "~ was kicked" => Condition::Kicked,
        _ => {
            if let Some(n) = c
                .strip_prefix("there are ")
                .and_then(|r| r.strip_suffix(" or more cards in your graveyard"))
            {
                return Some(Condition::GraveyardAtLeast(number(n)?));
            }
            let rest = c.strip_prefix("you control ")?;
            let (another, rest) = match rest.strip_prefix("another ") {
                Some(r) => (true, r),
                None => (false, rest.strip_prefix("a ").or(rest.strip_prefix("an "))?),
            };
            if let Some(n) = rest
                .strip_prefix("creature with power ")
                .and_then(|r| r.strip_suffix(" or greater"))
            {
                return Some(Condition::ControlPower {
                    another,
                    power: number(n)?,
                });
            }
            // One creature type word ("another elf").
            if !another || rest.contains(' ') || !rest.chars().all(|ch| ch.is_ascii_lowercase()) {
                return None;
            }
            Condition::ControlAnother(effects::capitalize(rest))
        }
    })
}

fn trigger_shape(cond: &str) -> String {
    cond.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// CR 604: the static templates.
fn static_line(line: &str) -> Result<Static, Fail> {
    if let Some(s) = conditional_static(line) {
        return Ok(s);
    }
    plain_static(line).ok_or_else(|| Fail::new(line, &static_shape(line)))
}

/// CR 604.2: "During your turn, <static>" and "<static> as long as <condition>".
fn conditional_static(line: &str) -> Option<Static> {
    let (condition, rest) = if let Some(r) = line.strip_prefix("during your turn, ") {
        (StaticCondition::YourTurn, r)
    } else {
        let (rest, c) = line.split_once(" as long as ")?;
        let n = c
            .strip_prefix("there are ")?
            .strip_suffix(" or more cards in your graveyard")?;
        (StaticCondition::GraveyardAtLeast(number(n)?), rest)
    };
    Some(Static::While {
        condition,
        then: Box::new(plain_static(rest)?),
    })
}

/// A static without a condition.
fn plain_static(line: &str) -> Option<Static> {
    match line {
        "~ enters tapped" => return Some(Static::EntersTapped),
        "~ can't block" => return Some(Static::CantBlock),
        "~ can't be blocked" => return Some(Static::CantBeBlocked),
        "a deck can have any number of cards named ~" => return Some(Static::DeckAnyNumber),
        "~ can't be countered" => return Some(Static::CantBeCountered),
        _ => {}
    }
    if let Some(s) = enters_with_counters(line) {
        return Some(s);
    }
    if let Some(s) = statics::static_ability(line) {
        return Some(s);
    }
    if let Some(s) = effects::variable::plain_static(line) {
        return Some(s);
    }
    if let Some(s) = lord(line) {
        return Some(s);
    }
    for (prefix, verb_get, verb_has) in [
        ("enchanted creature ", "gets ", "has "),
        ("equipped creature ", "gets ", "has "),
        ("creatures you control ", "get ", "have "),
        ("~ ", "gets ", "has "),
    ] {
        let Some(rest) = line.strip_prefix(prefix) else {
            continue;
        };
        let who = subject(prefix.trim()).expect("known subject");
        let (power, toughness, keywords) = get_or_have(rest, verb_get, verb_has)?;
        return Some(Static::Anthem {
            who,
            power,
            toughness,
            keywords,
        });
    }
    None
}

/// "gets +P/+T [and has K]" or "has K" (with the verbs of the subject's number).
fn get_or_have(rest: &str, verb_get: &str, verb_has: &str) -> Option<(i8, i8, Vec<Keyword>)> {
    if let Some(r) = rest.strip_prefix(verb_get) {
        let (pt, kws) = match r.split_once(&format!(" and {verb_has}")) {
            Some((pt, k)) => (pt, keywords_list(k)?),
            None => (r, Vec::new()),
        };
        let (p, t) = pt_change(pt)?;
        Some((p, t, kws))
    } else {
        Some((0, 0, keywords_list(rest.strip_prefix(verb_has)?)?))
    }
}

/// CR 613.4c lords: "Other Elf creatures you control get +1/+1", "Other Cats you control get
/// +1/+1", "Each creature you control with a +1/+1 counter on it has trample", "Creatures you
/// control with +1/+1 counters on them have first strike".
fn lord(line: &str) -> Option<Static> {
    let (head, verbs, rest) = [
        (" you control get ", ("get ", "have ")),
        (" you control have ", ("get ", "have ")),
        (
            " you control with a +1/+1 counter on it gets ",
            ("gets ", "has "),
        ),
        (
            " you control with a +1/+1 counter on it has ",
            ("gets ", "has "),
        ),
        (
            " you control with +1/+1 counters on them get ",
            ("get ", "have "),
        ),
        (
            " you control with +1/+1 counters on them have ",
            ("get ", "have "),
        ),
    ]
    .iter()
    .find_map(|(sep, verbs)| {
        let (head, tail) = line.split_once(sep)?;
        // Put the verb back: the separator ended with it.
        let verb = sep.rsplit(' ').nth(1)?;
        Some((
            head,
            (verbs, sep.contains("+1/+1")),
            format!("{verb} {tail}"),
        ))
    })?;
    let ((verb_get, verb_has), with_counter) = verbs;
    let (other, noun) = match head.strip_prefix("other ") {
        Some(n) => (true, n),
        None => (false, head.strip_prefix("each ").unwrap_or(head)),
    };
    let subtype = match noun {
        "creature" | "creatures" => None,
        n => {
            let t = n
                .strip_suffix(" creatures")
                .or_else(|| n.strip_suffix('s'))
                .unwrap_or(n);
            if t.contains(' ') || !t.chars().all(|c| c.is_ascii_lowercase()) {
                return None;
            }
            Some(effects::capitalize(t))
        }
    };
    if !other && subtype.is_none() && !with_counter {
        return None; // "creatures you control get …" is the plain anthem.
    }
    let (power, toughness, keywords) = get_or_have(&rest, verb_get, verb_has)?;
    Some(Static::Lord {
        group: Group {
            other,
            subtype,
            with_counter,
        },
        power,
        toughness,
        keywords,
    })
}

/// CR 614.1c: "~ enters with N +1/+1 counters on it [if you attacked this turn]".
fn enters_with_counters(line: &str) -> Option<Static> {
    // CR 702.33d: "If ~ was kicked, it enters with N +1/+1 counters on it."
    if let Some(r) = line
        .strip_prefix("if ~ was kicked, it enters with ")
        .and_then(|r| r.strip_suffix(" on it"))
    {
        let (n, body) = r.split_once(' ')?;
        matches!(body, "+1/+1 counter" | "+1/+1 counters").then_some(())?;
        return Some(Static::EntersWithCounters {
            count: number(n)?,
            condition: Some(Condition::Kicked),
        });
    }
    let rest = line.strip_prefix("~ enters with ")?;
    let (n, rest) = rest.split_once(' ')?;
    let (body, condition) = match rest.split_once(" on it if ") {
        Some((b, c)) => (b, Some(intervening_if(c)?)),
        None => (rest.strip_suffix(" on it")?, None),
    };
    matches!(body, "+1/+1 counter" | "+1/+1 counters").then_some(())?;
    Some(Static::EntersWithCounters {
        count: number(n)?,
        condition,
    })
}

fn static_shape(line: &str) -> String {
    for (needle, shape) in [
        ("as an additional cost", "additional cost"),
        ("costs {", "cost change"),
        ("less to cast", "cost change"),
        ("can't be blocked", "evasion"),
        ("as long as", "conditional static"),
        ("during your turn", "conditional static"),
        ("enchant ", "enchant (non-creature)"),
        ("other ", "lord (other …)"),
        ("each ", "static: each …"),
    ] {
        if line.contains(needle) {
            return shape.into();
        }
    }
    format!(
        "static: {}",
        line.split(' ').take(3).collect::<Vec<_>>().join(" ")
    )
}

#[cfg(test)]
mod round31_tests;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod zone_tests;
