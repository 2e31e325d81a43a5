//! Cards as data: Scryfall-shaped card objects parsed into what the engine can play.
//!
//! A card is kept in Scryfall's field names ([`CardData`]); [`parse`] turns it into a [`Card`]
//! with a mana cost, a kind and, for instants and sorceries, one [`Effect`]. Anything the rules
//! subset cannot play exactly is refused with a reason: an unsupported card is never treated as
//! a vanilla creature.

use super::{compile, lower};
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
    pub const MENACE: u16 = 1 << 10; // 702.111
    pub const HEXPROOF: u16 = 1 << 11; // 702.11
    pub const INDESTRUCTIBLE: u16 = 1 << 12; // 702.12
    pub const FLASH: u16 = 1 << 13; // 702.8
    pub const NAMES: [(u16, &str); 14] = [
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
        (MENACE, "Menace"),
        (HEXPROOF, "Hexproof"),
        (INDESTRUCTIBLE, "Indestructible"),
        (FLASH, "Flash"),
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
    /// "any target": a creature or a player (CR 115.4; planeswalkers are not played, so none
    /// is ever on the battlefield to be targeted).
    Any,
    Creature,
    TappedCreature,
    Player,
    /// "target opponent" (CR 102.2).
    Opponent,
    /// "target attacking or blocking creature" (CR 506.4).
    CombatCreature,
    /// "target creature you control".
    CreatureYouControl,
    /// "target creature an opponent controls" / "you don't control".
    CreatureOpponentControls,
    /// "target nonland permanent".
    NonlandPermanent,
    /// Not a target: the ability's own source ("this creature").
    Source,
}

/// One effect of a spell in the engine's form, in the order the spell lists them (CR 608.2c).
/// A spell has at most one target; every targeted effect of it acts on that target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Damage(u8, TargetKind),
    /// "deals N damage to each opponent" (CR 120.3).
    DamageOpponents(u8),
    Destroy(TargetKind),
    /// "return target … to its owner's hand" (CR 400.7).
    Bounce(TargetKind),
    /// "tap target …" (CR 701.26).
    Tap(TargetKind),
    Draw(u8),
    GainLife(u8),
    /// The controller loses life (CR 119.3).
    LoseLife(u8),
    /// Each (or the target) opponent loses life; with two players these are one player.
    OpponentLosesLife(u8),
    /// "target creature gets +P/+T [and gains K] until end of turn" (CR 611.2, layer 7c).
    Pump(i8, i8, u16, TargetKind),
    /// "creatures you control get +P/+T [and gain K] until end of turn": the creatures there
    /// as it resolves (CR 611.2c).
    PumpYours(i8, i8, u16),
    /// "put N +1/+1 (or -1/-1) counters on target creature" (CR 122.1).
    Counters(i8, TargetKind),
    /// "mill N cards" (CR 701.13).
    Mill(u8),
    /// "create N [tapped] … creature tokens" (CR 111.1): count, index into the card's
    /// [`Card::tokens`], tapped.
    Tokens(u8, u8, bool),
}

impl Effect {
    pub fn target(&self) -> Option<TargetKind> {
        match *self {
            Effect::Damage(_, t)
            | Effect::Destroy(t)
            | Effect::Bounce(t)
            | Effect::Tap(t)
            | Effect::Pump(_, _, _, t)
            | Effect::Counters(_, t) => Some(t).filter(|t| *t != TargetKind::Source),
            Effect::DamageOpponents(_)
            | Effect::Draw(_)
            | Effect::GainLife(_)
            | Effect::LoseLife(_)
            | Effect::OpponentLosesLife(_)
            | Effect::PumpYours(..)
            | Effect::Mill(_)
            | Effect::Tokens(..) => None,
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
    /// The first effect of an instant or sorcery (what agents weigh).
    pub effect: Option<Effect>,
    /// Every effect of an instant or sorcery, in order.
    pub effects: Vec<Effect>,
    /// "This enters tapped" (CR 614.1c).
    pub enters_tapped: bool,
    /// Triggered abilities (CR 603) with their effects, in printed order.
    pub triggers: Vec<(compile::Trigger, Vec<Effect>)>,
    /// The tokens this card's effects create, as card objects (CR 111.4).
    pub tokens: Vec<CardData>,
    /// A token (type line "Token Creature — …"): it ceases to exist off the battlefield
    /// (CR 704.5d).
    pub token: bool,
}

impl Card {
    /// The one target kind of a spell, if it targets (CR 601.2c).
    pub fn target(&self) -> Option<TargetKind> {
        self.effects.iter().find_map(Effect::target)
    }
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
    let lowered = lower::lower(&compiled.abilities, spell)
        .map_err(|t| format!("template {t} is not supported by the engine yet"))?;
    let effects = lowered.effects;
    let effect = effects.first().copied();
    if lowered.keywords != keywords {
        return Err("keywords do not match the rules text".into());
    }
    let card = |kind, power, toughness, effect: Option<Effect>| Card {
        data: d.clone(),
        cost,
        kind,
        power,
        toughness,
        keywords,
        effect,
        effects: if effect.is_some() {
            effects.clone()
        } else {
            Vec::new()
        },
        enters_tapped: lowered.enters_tapped,
        triggers: lowered.triggers.clone(),
        tokens: lowered.tokens.clone(),
        token: types == "Token Creature",
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
        "Creature" | "Token Creature" => {
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
    /// The built-in pool: the core cards (every one parses; a unit test holds this) and the
    /// shipped Foundations cards the engine plays (the others are left out, as coverage
    /// reports them).
    pub fn builtin() -> Pool {
        let mut pool = Pool::default();
        let data: Vec<CardData> =
            serde_json::from_str(BUILTIN_CARDS).expect("built-in cards.json is valid");
        for d in data {
            let card = parse(&d).expect("built-in card parses");
            pool.cards.insert(d.name.clone(), card);
        }
        let fdn: Vec<CardData> =
            serde_json::from_str(super::catalog::FDN).expect("built-in fdn.json is valid");
        for d in fdn {
            if !pool.cards.contains_key(&d.name)
                && let Ok(card) = parse(&d)
            {
                pool.cards.insert(d.name.clone(), card);
            }
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
