//! Cards as data: Scryfall-shaped card objects parsed into what the engine can play.
//!
//! A card is kept in Scryfall's field names ([`CardData`]); [`parse`] turns it into a [`Card`]
//! with a mana cost, a kind and, for instants and sorceries, one [`Effect`]. Anything the rules
//! subset cannot play exactly is refused with a reason: an unsupported card is never treated as
//! a vanilla creature.

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

fn parse_cost(s: &str) -> Result<ManaCost, String> {
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
fn strip_reminder(text: &str) -> String {
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

fn number_word(w: &str) -> Option<u8> {
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    if w == "a" || w == "an" {
        return Some(1);
    }
    words
        .iter()
        .position(|x| *x == w)
        .map(|i| i as u8)
        .or_else(|| w.parse().ok())
}

/// Parses the one sentence of an instant or sorcery in this subset.
fn parse_effect(name: &str, text: &str) -> Result<Effect, String> {
    let t = text
        .replace(name, "~")
        .replace("This spell", "~")
        .to_lowercase();
    let t = t.trim().trim_end_matches('.');
    if t.contains('\n') || t.contains(". ") {
        return Err("more than one ability or sentence".into());
    }
    if let Some(rest) = t.strip_prefix("~ deals ") {
        let (n, target) = rest
            .split_once(" damage to ")
            .ok_or("damage without a target")?;
        let n: u8 = n.parse().map_err(|_| format!("damage amount {n:?}"))?;
        let kind = match target {
            "any target" => TargetKind::Any,
            "target creature" => TargetKind::Creature,
            "target player" | "target player or planeswalker" => TargetKind::Player,
            other => return Err(format!("damage to {other:?} is not supported")),
        };
        return Ok(Effect::Damage(n, kind));
    }
    match t {
        "destroy target creature" => return Ok(Effect::Destroy(TargetKind::Creature)),
        "destroy target tapped creature" => {
            return Ok(Effect::Destroy(TargetKind::TappedCreature));
        }
        _ => {}
    }
    if let Some(rest) = t.strip_prefix("draw ") {
        let n = rest.trim_end_matches(" cards").trim_end_matches(" card");
        return number_word(n)
            .map(Effect::Draw)
            .ok_or_else(|| format!("draw amount {n:?}"));
    }
    if let Some(rest) = t
        .strip_prefix("you gain ")
        .and_then(|r| r.strip_suffix(" life"))
    {
        return rest
            .parse()
            .map(Effect::GainLife)
            .map_err(|_| format!("life amount {rest:?}"));
    }
    if let Some(rest) = t
        .strip_prefix("target creature gets ")
        .and_then(|r| r.strip_suffix(" until end of turn"))
    {
        let (p, tt) = rest.split_once('/').ok_or("pump without P/T")?;
        let p: i8 = p
            .trim_start_matches('+')
            .parse()
            .map_err(|_| "pump power")?;
        let tt: i8 = tt
            .trim_start_matches('+')
            .parse()
            .map_err(|_| "pump toughness")?;
        return Ok(Effect::Pump(p, tt));
    }
    Err(format!("rules text {text:?} is not supported"))
}

/// Parses a card object into a playable card, or says why the engine cannot play it.
pub fn parse(d: &CardData) -> Result<Card, String> {
    if d.name.trim().is_empty() {
        return Err("the card has no name".into());
    }
    let cost = parse_cost(&d.mana_cost)?;
    let text = strip_reminder(&d.oracle_text);
    let mut keywords = 0u16;
    for k in &d.keywords {
        keywords |= kw::from_name(k).ok_or_else(|| format!("keyword {k:?} is not supported"))?;
    }
    let tl = d.type_line.trim();
    let (types, subtypes) = match tl.split_once('—') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (tl, ""),
    };
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
            if !text.is_empty() || keywords != 0 {
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
            // Keyword-only rules text (CR 702.1): every line a comma list of known keywords.
            let mut seen = 0u16;
            for part in text
                .split(['\n', ','])
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                seen |= kw::from_name(part)
                    .ok_or_else(|| format!("rules text {part:?} is not supported"))?;
            }
            if seen != keywords {
                return Err("keywords do not match the rules text".into());
            }
            Ok(card(Kind::Creature, p, t, None))
        }
        "Instant" | "Sorcery" => {
            if keywords != 0 {
                return Err("spells with keyword abilities are not supported".into());
            }
            let effect = parse_effect(&d.name, &text)?;
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

/// Reads Scryfall card objects: a list (bulk `oracle_cards`), or a search result `{data:[…]}`.
/// Returns the playable cards and the refused ones with reasons.
pub fn import(value: &serde_json::Value) -> Result<(Vec<Card>, Vec<Refused>), String> {
    let list = match value {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(o) => match o.get("data") {
            Some(serde_json::Value::Array(a)) => a,
            _ if o.contains_key("name") => std::slice::from_ref(value),
            _ => {
                return Err("expected a list of card objects or a search result {data:[…]}".into());
            }
        },
        _ => return Err("expected a list of card objects or a search result {data:[…]}".into()),
    };
    let mut ok = Vec::new();
    let mut refused = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let name = v
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string();
        let reason = if v.get("card_faces").is_some() {
            Some("multi-faced cards are not supported".to_string())
        } else if let Some(l) = v.get("layout").and_then(|l| l.as_str())
            && l != "normal"
        {
            Some(format!("layout {l:?} is not supported"))
        } else {
            match serde_json::from_value::<CardData>(v.clone()) {
                Err(e) => Some(format!("not a card object (item {i}): {e}")),
                Ok(d) => match parse(&d) {
                    Ok(c) => {
                        ok.push(c);
                        None
                    }
                    Err(r) => Some(r),
                },
            }
        };
        if let Some(reason) = reason {
            refused.push(Refused { name, reason });
        }
    }
    Ok((ok, refused))
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
