//! Cards as data: Scryfall-shaped card objects parsed into what the engine can play.
//!
//! A card is kept in Scryfall's field names ([`CardData`]); [`parse`] turns it into a [`Card`]
//! with a mana cost, a kind and, for instants and sorceries, one [`Effect`]. Anything the rules
//! subset cannot play exactly is refused with a reason: an unsupported card is never treated as
//! a vanilla creature.

use super::compile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The five colours, in WUBRG order (CR 105.1).
pub const COLORS: [char; 5] = ['W', 'U', 'B', 'R', 'G'];

/// A card object in Scryfall's field names. Unknown fields are ignored on input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardData {
    pub name: String,
    #[serde(default)]
    pub mana_cost: String,
    #[serde(default)]
    pub type_line: String,
    #[serde(default)]
    pub oracle_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toughness: Option<String>,
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Starting loyalty of a planeswalker (CR 306.5b).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loyalty: Option<String>,
}

/// A mana cost (CR 202.1): generic plus coloured symbols, WUBRG.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ManaCost {
    pub generic: u8,
    pub colored: [u8; 5],
}

impl ManaCost {
    /// Mana value (CR 202.3).
    pub fn total(&self) -> u32 {
        self.generic as u32 + self.colored.iter().map(|&c| c as u32).sum::<u32>()
    }
}

/// Keyword abilities of the rules subset (CR 702), as bits.
pub mod kw {
    pub const FLYING: u16 = 1 << 0; // 702.9
    pub const REACH: u16 = 1 << 1; // 702.17
    pub const FIRST_STRIKE: u16 = 1 << 2; // 702.7
    pub const DOUBLE_STRIKE: u16 = 1 << 3; // 702.4
    pub const DEATHTOUCH: u16 = 1 << 4; // 702.2
    pub const TRAMPLE: u16 = 1 << 5; // 702.19
    pub const VIGILANCE: u16 = 1 << 6; // 702.20
    pub const HASTE: u16 = 1 << 7; // 702.10
    pub const LIFELINK: u16 = 1 << 8; // 702.15
    pub const DEFENDER: u16 = 1 << 9; // 702.3
    pub const NAMES: [(u16, &str); 10] = [
        (FLYING, "Flying"),
        (REACH, "Reach"),
        (FIRST_STRIKE, "First strike"),
        (DOUBLE_STRIKE, "Double strike"),
        (DEATHTOUCH, "Deathtouch"),
        (TRAMPLE, "Trample"),
        (VIGILANCE, "Vigilance"),
        (HASTE, "Haste"),
        (LIFELINK, "Lifelink"),
        (DEFENDER, "Defender"),
    ];
    /// The keyword names of a bit set, in a fixed order.
    pub fn names(bits: u16) -> Vec<&'static str> {
        NAMES
            .iter()
            .filter(|(b, _)| bits & b != 0)
            .map(|(_, n)| *n)
            .collect()
    }
    pub fn from_name(name: &str) -> Option<u16> {
        NAMES
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(b, _)| *b)
    }
}

/// What a spell may target (CR 115.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// "any target": a creature or a player (CR 115.4; no planeswalkers in this subset).
    Any,
    Creature,
    TappedCreature,
    Player,
}

/// The one effect of an instant or sorcery in this subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Damage(u8, TargetKind),
    Destroy(TargetKind),
    Draw(u8),
    GainLife(u8),
    Pump(i8, i8),
}

impl Effect {
    pub fn target(&self) -> Option<TargetKind> {
        match *self {
            Effect::Damage(_, t) | Effect::Destroy(t) => Some(t),
            Effect::Pump(..) => Some(TargetKind::Creature),
            Effect::Draw(_) | Effect::GainLife(_) => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A basic land that taps for one mana of the colour (index into [`COLORS`]) (CR 305.6).
    Land(u8),
    Creature,
    Instant,
    Sorcery,
}

/// A card the engine can play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub data: CardData,
    pub cost: ManaCost,
    pub kind: Kind,
    pub power: i16,
    pub toughness: i16,
    pub keywords: u16,
    pub effect: Option<Effect>,
}

pub(crate) fn parse_cost(s: &str) -> Result<ManaCost, String> {
    let mut cost = ManaCost::default();
    let mut rest = s.trim();
    while !rest.is_empty() {
        let Some(end) = rest.strip_prefix('{').and_then(|r| r.find('}')) else {
            return Err(format!("mana cost {s:?} is not a list of {{…}} symbols"));
        };
        let sym = &rest[1..=end];
        rest = &rest[end + 2..];
        if let Ok(n) = sym.parse::<u8>() {
            cost.generic = cost.generic.saturating_add(n);
        } else if let Some(i) = COLORS
            .iter()
            .position(|c| sym.len() == 1 && sym.starts_with(*c))
        {
            cost.colored[i] += 1;
        } else {
            return Err(format!(
                "mana symbol {{{sym}}} is not supported (only generic and W U B R G)"
            ));
        }
    }
    Ok(cost)
}

/// Removes reminder text (CR 207.2) and returns the trimmed rules text.
pub(crate) fn strip_reminder(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The engine's form of one compiled spell effect, or why the engine cannot play it yet.
fn engine_effect(e: &compile::Effect) -> Result<Effect, String> {
    use compile::{Control, Effect as E, Filter, Subject as S};
    let target = |s: &S| -> Option<TargetKind> {
        Some(match s {
            S::AnyTarget => TargetKind::Any,
            S::TargetPlayer => TargetKind::Player,
            S::Target(Filter::Creature, Control::Anyone) => TargetKind::Creature,
            S::Target(Filter::TappedCreature, Control::Anyone) => TargetKind::TappedCreature,
            _ => return None,
        })
    };
    let r = match e {
        E::Damage { amount, to } => target(to).map(|t| Effect::Damage(*amount, t)),
        E::Destroy(to) => target(to)
            .filter(|t| !matches!(t, TargetKind::Any | TargetKind::Player))
            .map(Effect::Destroy),
        E::Draw { who: S::You, count } => Some(Effect::Draw(*count)),
        E::GainLife {
            who: S::You,
            amount,
        } => Some(Effect::GainLife(*amount)),
        E::Pump {
            who: S::Target(Filter::Creature, Control::Anyone),
            power,
            toughness,
            keywords,
        } if keywords.is_empty() => Some(Effect::Pump(*power, *toughness)),
        _ => None,
    };
    r.ok_or_else(|| format!("the engine does not play {:?} yet", e))
}

/// Keyword bits of the compiled keyword abilities the engine plays.
fn engine_keyword(k: &compile::Keyword) -> Option<u16> {
    kw::from_name(k.name()).filter(|_| !matches!(k, compile::Keyword::Ward(_)))
}

/// The first compiled ability the engine cannot play, by template name.
fn unplayable(abilities: &[compile::Ability], spell: bool) -> Option<String> {
    abilities.iter().find_map(|a| match a {
        compile::Ability::Keyword(k) if engine_keyword(k).is_some() => None,
        compile::Ability::Spell(e) if spell && e.len() == 1 && engine_effect(&e[0]).is_ok() => None,
        other => Some(other.template()),
    })
}

/// Parses a card object into a playable card, or says why the engine cannot play it: the rules
/// text does not compile (the fragment is named), or it compiles to a template the engine does
/// not play yet (the template is named).
pub fn parse(d: &CardData) -> Result<Card, String> {
    if d.name.trim().is_empty() {
        return Err("the card has no name".into());
    }
    let cost = parse_cost(&d.mana_cost)?;
    let compiled = compile::compile(d).map_err(|u| {
        format!(
            "rules text {:?} is not supported (no template: {})",
            u.fragment, u.shape
        )
    })?;
    let mut keywords = 0u16;
    for k in &d.keywords {
        keywords |= kw::from_name(k).ok_or_else(|| format!("keyword {k:?} is not supported"))?;
    }
    let tl = d.type_line.trim();
    let (types, subtypes) = match tl.split_once('—') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (tl, ""),
    };
    let spell = matches!(types, "Instant" | "Sorcery");
    if let Some(t) = unplayable(&compiled.abilities, spell) {
        return Err(format!("template {t} is not supported by the engine yet"));
    }
    let mut seen = 0u16;
    let mut effect = None;
    for a in &compiled.abilities {
        match a {
            compile::Ability::Keyword(k) => seen |= engine_keyword(k).unwrap_or(0),
            compile::Ability::Spell(e) => effect = Some(engine_effect(&e[0])?),
            _ => {}
        }
    }
    if seen != keywords {
        return Err("keywords do not match the rules text".into());
    }
    let card = |kind, power, toughness, effect| Card {
        data: d.clone(),
        cost,
        kind,
        power,
        toughness,
        keywords,
        effect,
    };
    match types {
        "Basic Land" => {
            let color = match subtypes {
                "Plains" => 0,
                "Island" => 1,
                "Swamp" => 2,
                "Mountain" => 3,
                "Forest" => 4,
                other => return Err(format!("basic land type {other:?} is not supported")),
            };
            if !compiled.abilities.is_empty() {
                return Err("a basic land with rules text beyond its mana ability".into());
            }
            Ok(card(Kind::Land(color), 0, 0, None))
        }
        "Creature" => {
            let pt = |v: &Option<String>, what: &str| -> Result<i16, String> {
                let s = v.as_deref().ok_or(format!("creature without {what}"))?;
                s.parse()
                    .map_err(|_| format!("{what} {s:?} is not a number"))
            };
            let (p, t) = (pt(&d.power, "power")?, pt(&d.toughness, "toughness")?);
            Ok(card(Kind::Creature, p, t, None))
        }
        "Instant" | "Sorcery" => {
            if keywords != 0 {
                return Err("spells with keyword abilities are not supported".into());
            }
            let Some(effect) = effect else {
                return Err("an instant or sorcery without rules text".into());
            };
            let kind = if types == "Instant" {
                Kind::Instant
            } else {
                Kind::Sorcery
            };
            Ok(card(kind, 0, 0, Some(effect)))
        }
        other => Err(format!("card type {other:?} is not supported")),
    }
}

/// The card pool: every card the engine can play, by name.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    cards: BTreeMap<String, Card>,
}

/// The pool shipped with bob (Scryfall field names).
pub const BUILTIN_CARDS: &str = include_str!("data/cards.json");

/// A card object that could not be added, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Refused {
    pub name: String,
    pub reason: String,
}

impl Pool {
    /// The built-in pool. Every built-in card parses (a unit test holds this).
    pub fn builtin() -> Pool {
        let mut pool = Pool::default();
        let data: Vec<CardData> =
            serde_json::from_str(BUILTIN_CARDS).expect("built-in cards.json is valid");
        for d in data {
            let card = parse(&d).expect("built-in card parses");
            pool.cards.insert(d.name.clone(), card);
        }
        pool
    }

    pub fn get(&self, name: &str) -> Option<&Card> {
        self.cards.get(name)
    }

    pub fn insert(&mut self, card: Card) {
        self.cards.insert(card.data.name.clone(), card);
    }

    pub fn cards(&self) -> impl Iterator<Item = &Card> {
        self.cards.values()
    }

    pub fn len(&self) -> usize {
        self.cards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_pool_has_the_required_cards() {
        let pool = Pool::builtin();
        for n in [
            "Plains",
            "Island",
            "Swamp",
            "Mountain",
            "Forest",
            "Grizzly Bears",
            "Hill Giant",
            "Craw Wurm",
            "Serra Angel",
            "Giant Spider",
            "Youthful Knight",
            "Typhoid Rats",
            "Colossal Dreadmaw",
            "Raging Goblin",
            "Wall of Stone",
            "Vampire Nighthawk",
            "Fencing Ace",
            "Lightning Bolt",
            "Shock",
            "Giant Growth",
            "Murder",
            "Divination",
            "Sacred Nectar",
            "Assassinate",
            "Lava Axe",
        ] {
            assert!(pool.get(n).is_some(), "{n} missing");
        }
        let bolt = pool.get("Lightning Bolt").unwrap();
        assert_eq!(bolt.effect, Some(Effect::Damage(3, TargetKind::Any)));
        let hawk = pool.get("Vampire Nighthawk").unwrap();
        assert_eq!(hawk.keywords, kw::FLYING | kw::DEATHTOUCH | kw::LIFELINK);
        assert_eq!(pool.get("Murder").unwrap().cost.colored[2], 2);
    }

    #[test]
    fn unsupported_cards_are_refused_with_a_reason() {
        let d = |name: &str, tl: &str, text: &str| CardData {
            name: name.into(),
            mana_cost: "{1}{B}".into(),
            type_line: tl.into(),
            oracle_text: text.into(),
            power: Some("2".into()),
            toughness: Some("2".into()),
            keywords: vec![],
            loyalty: None,
        };
        assert!(
            parse(&d(
                "Doom Blade",
                "Instant",
                "Destroy target nonblack creature."
            ))
            .is_err()
        );
        assert!(parse(&d("Pacifism", "Enchantment — Aura", "Enchant creature")).is_err());
        let r = parse(&d(
            "Goblin Piker",
            "Creature — Goblin",
            "Goblin Piker can't block.",
        ));
        assert!(r.unwrap_err().contains("not supported"));
        assert!(parse(&d("Bears", "Creature — Bear", "")).is_ok());
    }
}
