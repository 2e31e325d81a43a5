//! Cards as data: Scryfall-shaped card objects parsed into what the engine can play.
//!
//! A card is kept in Scryfall's field names ([`CardData`]); [`parse`] compiles its rules text
//! ([`super::compile`]), lowers the abilities to the engine's form ([`super::lower`]) and
//! returns a [`Card`]: a mana cost, a kind, keywords, the effects of an instant or sorcery, its
//! triggered abilities and the tokens they make. Anything the engine cannot play exactly is
//! refused with a reason naming the unparsed fragment or the missing template: an unsupported
//! card is never treated as a vanilla creature. The built-in pool is the core cards plus the
//! shipped Foundations cards the engine plays.

use super::facts::parse_cost;
pub use super::facts::{COLORS, CardData, ManaCost};
pub use super::lower::{
    Activated, Affects, Effect, Found, Look, MayCost, Search, StaticEffect, TargetKind, kw,
};
use super::{compile, lower};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A land; its mana ability makes one mana of these colours (a WUBRG bit mask; one bit
    /// for a basic land, CR 305.6).
    Land(u8),
    Creature,
    Instant,
    Sorcery,
    /// A noncreature enchantment (CR 303), an Aura included.
    Enchantment,
    /// A noncreature artifact (CR 301), an Equipment included.
    Artifact,
    /// A planeswalker (CR 306): it enters with its printed loyalty and plays through its
    /// loyalty abilities (CR 606).
    Planeswalker,
}

impl Kind {
    /// A permanent card type: it enters the battlefield as it resolves (CR 110.4, 608.3).
    pub fn is_permanent(self) -> bool {
        !matches!(self, Kind::Instant | Kind::Sorcery)
    }
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
    /// "This creature enters with N +1/+1 counters on it [if <condition>]" (CR 614.1c).
    pub enters_with_counters: Option<(u8, Option<super::lower::Cond>)>,
    /// Triggered abilities (CR 603) with their effects, in printed order.
    pub triggers: Vec<(compile::Trigger, Vec<Effect>)>,
    /// The tokens this card's effects create, as card objects (CR 111.4).
    pub tokens: Vec<CardData>,
    /// The colours (WUBRG bit mask) its "{T}: Add …" mana ability makes, 0 if it has none
    /// (CR 605.1a); a basic land's is its colour.
    pub mana: u8,
    /// Activated abilities other than mana abilities (CR 602), in printed order.
    pub activated: Vec<Activated>,
    /// A token (type line "Token Creature — …"): it ceases to exist off the battlefield
    /// (CR 704.5d).
    pub token: bool,
    /// Legendary (CR 205.4d): the legend rule applies to it (CR 704.5j).
    pub legendary: bool,
    /// Its subtypes (creature types, "Aura", "Equipment"), as printed (CR 205.3).
    pub subtypes: Vec<String>,
    /// Static abilities that change creatures (CR 604, 613).
    pub statics: Vec<StaticEffect>,
    /// An Aura with "Enchant creature" (CR 303.4, 702.5): cast targeting a creature, it
    /// enters attached to it.
    pub aura: bool,
    /// An Equipment (CR 301.5): it attaches with its equip ability.
    pub equipment: bool,
    /// Its own cost reduction (CR 601.2f, 702.41a): generic mana less, and when.
    pub costs_less: Option<(u8, super::lower::CostReduction)>,
    /// How much less generic mana the instants and sorceries its controller casts cost while
    /// it is on the battlefield (CR 601.2f).
    pub instant_sorcery_discount: u8,
    /// Its flashback cost (CR 702.34a): an instant or sorcery castable from its owner's
    /// graveyard for it, exiled as it leaves the stack.
    pub flashback: Option<ManaCost>,
    /// Its mana ability sacrifices it as it is paid with (a Treasure, CR 111.10a).
    pub mana_sacrifice: bool,
    /// A planeswalker's printed loyalty (CR 306.5b); 0 for every other card.
    pub loyalty: i16,
    /// "Ward {N}" (CR 702.21a): N generic mana; 0 without ward.
    pub ward: u8,
    /// "This spell can't be countered" (CR 101.2): countering it does nothing.
    pub uncounterable: bool,
    /// "Kicker {cost}" (CR 702.33a): an optional additional cost paid as it is cast.
    pub kicker: Option<ManaCost>,
    /// What the instant or sorcery does instead of [`Card::effects`] when kicked (CR
    /// 702.33d); empty: the same.
    pub kicked_effects: Vec<Effect>,
    /// "This creature doesn't untap during your untap step" (CR 502.3).
    pub doesnt_untap: bool,
    /// "As an additional cost to cast this spell, …" (CR 601.2b): paid with what the cast
    /// names (a card to discard, a creature to sacrifice) or, for "… or pay {cost}", in mana.
    pub additional: Option<super::lower::AdditionalCost>,
    /// {X} in its mana cost (CR 107.3): the cast names X, paid as that much generic mana.
    pub x_cost: bool,
}

impl Card {
    /// An artifact or an enchantment (CR 301, 303), whatever its other types.
    pub fn is_artifact_or_enchantment(&self) -> bool {
        matches!(self.kind, Kind::Artifact | Kind::Enchantment)
            || self
                .data
                .type_line
                .split('\u{2014}')
                .next()
                .is_some_and(|t| t.contains("Artifact") || t.contains("Enchantment"))
    }

    /// An artifact (CR 301), an artifact creature included.
    pub fn is_artifact(&self) -> bool {
        self.kind == Kind::Artifact
            || self
                .data
                .type_line
                .split('\u{2014}')
                .next()
                .is_some_and(|t| t.contains("Artifact"))
    }

    /// The one target kind of a spell, if it targets (CR 601.2c); of a modal spell, the target
    /// of no mode (see [`Card::target_of`]).
    pub fn target(&self) -> Option<TargetKind> {
        self.target_of(None)
    }

    /// The one target kind of a spell cast with `mode` (CR 700.2a: the mode decides it).
    pub fn target_of(&self, mode: Option<u8>) -> Option<TargetKind> {
        super::lower::mode_target(&self.effects, mode)
    }

    /// The second target kind of a spell with two (CR 601.2c), of its chosen mode.
    pub fn second_target_of(&self, mode: Option<u8>) -> Option<TargetKind> {
        super::lower::mode_second_target(&self.effects, mode)
    }

    /// How many modes a modal spell has (0 if it is not modal, CR 700.2).
    pub fn modes(&self) -> u8 {
        super::lower::mode_count(&self.effects)
    }
}

/// Parses a card object into a playable card, or says why the engine cannot play it: the rules
/// text does not compile (the fragment is named), or it compiles to a template the engine does
/// not play yet (the template is named).
pub fn parse(d: &CardData) -> Result<Card, String> {
    if d.name.trim().is_empty() {
        return Err("the card has no name".into());
    }
    // CR 107.3: one {X} in a mana cost is a number chosen as the spell is cast; only a card
    // whose text reads that X (checked below) plays.
    let x_cost = d.mana_cost.contains("{X}");
    let cost = parse_cost(&d.mana_cost.replacen("{X}", "", 1))?;
    let compiled = compile::compile(d).map_err(|u| {
        format!(
            "rules text {:?} is not supported (no template: {})",
            u.fragment, u.shape
        )
    })?;
    let tl = d.type_line.trim();
    let (types, subtypes) = match tl.split_once('—') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (tl, ""),
    };
    // CR 205.4d: "Legendary" is a supertype; the legend rule is what it changes here.
    let (legendary, types) = match types.strip_prefix("Legendary ") {
        Some(t) => (true, t),
        None => (false, types),
    };
    let spell = matches!(types, "Instant" | "Sorcery");
    let lowered = lower::lower(&compiled.abilities, spell)
        .map_err(|t| format!("template {t} is not supported by the engine yet"))?;
    let mut keywords = 0u16;
    for k in &d.keywords {
        // Keywords the engine plays as other abilities are checked against the rules text.
        if lowered
            .ability_keywords
            .iter()
            .any(|n| n.eq_ignore_ascii_case(k))
        {
            continue;
        }
        keywords |= kw::from_name(k).ok_or_else(|| format!("keyword {k:?} is not supported"))?;
    }
    let effects = lowered.effects;
    if x_cost != effects.iter().any(|e| matches!(e, Effect::DrainX)) {
        return Err(if x_cost {
            "{X} in a mana cost whose rules text does not read X".into()
        } else {
            "X in rules text without {X} in the mana cost".into()
        });
    }
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
        enters_with_counters: lowered.enters_with,
        triggers: lowered.triggers.clone(),
        tokens: lowered.tokens.clone(),
        mana: lowered.mana,
        activated: lowered.activated.clone(),
        token: types.starts_with("Token "),
        legendary,
        subtypes: subtypes.split_whitespace().map(str::to_string).collect(),
        statics: lowered.statics.clone(),
        aura: false,
        equipment: false,
        costs_less: lowered.costs_less.clone(),
        instant_sorcery_discount: lowered.instant_sorcery_discount,
        flashback: lowered.flashback,
        mana_sacrifice: lowered.mana_sacrifice,
        loyalty: 0,
        ward: lowered.ward,
        uncounterable: lowered.uncounterable,
        kicker: lowered.kicker,
        kicked_effects: lowered.kicked_effects.clone(),
        doesnt_untap: lowered.doesnt_untap,
        additional: lowered.additional,
        x_cost,
    };
    let aura = subtypes.split_whitespace().any(|t| t == "Aura");
    let equipment = subtypes.split_whitespace().any(|t| t == "Equipment");
    if aura != lowered.enchant {
        return Err(if aura {
            "an Aura without \"Enchant creature\" is not supported".into()
        } else {
            "\"Enchant\" on a card that is not an Aura".into()
        });
    }
    if equipment != lowered.ability_keywords.contains(&"Equip") {
        return Err("Equip on a card that is not an Equipment (or one without equip)".into());
    }
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
            let mut c = card(Kind::Land(1 << color), 0, 0, None);
            c.mana = 1 << color;
            Ok(c)
        }
        "Land" => {
            // A land without a mana ability plays through its other abilities (a fetch land
            // such as Evolving Wilds); one with none at all is refused.
            if lowered.mana == 0 && lowered.activated.is_empty() {
                return Err("a land without a mana ability is not supported".into());
            }
            Ok(card(Kind::Land(lowered.mana), 0, 0, None))
        }
        // An artifact creature plays as a creature: no effect the engine plays cares about
        // the artifact type yet (CR 301).
        "Creature" | "Token Creature" | "Artifact Creature" => {
            let pt = |v: &Option<String>, what: &str| -> Result<i16, String> {
                let s = v.as_deref().ok_or(format!("creature without {what}"))?;
                s.parse()
                    .map_err(|_| format!("{what} {s:?} is not a number"))
            };
            let (p, t) = (pt(&d.power, "power")?, pt(&d.toughness, "toughness")?);
            Ok(card(Kind::Creature, p, t, None))
        }
        // CR 303 / 301: a noncreature enchantment or artifact; an Aura targets the creature
        // it will enchant as it is cast (CR 303.4a).
        "Enchantment" | "Artifact" | "Token Artifact" => {
            // Flash is a casting rule (CR 702.8a); other keywords of a noncreature
            // permanent would have nothing to act on.
            if keywords & !kw::FLASH != 0 {
                return Err(
                    "keyword abilities on a noncreature permanent are not supported".into(),
                );
            }
            let kind = if types == "Enchantment" {
                Kind::Enchantment
            } else {
                Kind::Artifact
            };
            let mut c = card(kind, 0, 0, None);
            if aura {
                c.effects = vec![Effect::Attach(TargetKind::Creature)];
            }
            c.aura = aura;
            c.equipment = equipment;
            Ok(c)
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
        // CR 306: a planeswalker enters with its printed loyalty; its loyalty abilities are
        // activated abilities whose cost is a loyalty change (CR 606.4).
        "Planeswalker" => {
            if keywords != 0 {
                return Err("keyword abilities on a planeswalker are not supported".into());
            }
            let loyalty = d
                .loyalty
                .as_deref()
                .ok_or("a planeswalker without loyalty")?;
            let loyalty: i16 = loyalty
                .parse()
                .ok()
                .filter(|&l| (1..=99).contains(&l))
                .ok_or_else(|| format!("loyalty {loyalty:?} is not a number from 1 to 99"))?;
            let mut c = card(Kind::Planeswalker, 0, 0, None);
            if !c.activated.iter().any(|a| a.loyalty.is_some()) {
                return Err("a planeswalker without loyalty abilities".into());
            }
            c.loyalty = loyalty;
            Ok(c)
        }
        other => Err(format!("card type {other:?} is not supported")),
    }
}

/// The card pool: every card the engine can play, by name.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    cards: BTreeMap<String, Card>,
}

/// The Foundations (FDN) card facts shipped with bob (Scryfall field names plus `rarity`).
pub const FDN: &str = include_str!("data/fdn.json");

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
        let fdn: Vec<CardData> = serde_json::from_str(FDN).expect("built-in fdn.json is valid");
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

    /// A planeswalker's facts in Scryfall's field names.
    pub(crate) fn walker(text: &str, loyalty: Option<&str>) -> CardData {
        CardData {
            name: "Fixture Walker".into(),
            mana_cost: "{2}{R}".into(),
            type_line: "Legendary Planeswalker — Test".into(),
            oracle_text: text.into(),
            power: None,
            toughness: None,
            keywords: vec![],
            loyalty: loyalty.map(str::to_string),
        }
    }

    #[test]
    fn cr_306_planeswalkers_parse_with_loyalty_and_loyalty_abilities() {
        let c = parse(&walker(
            "+1: You gain 2 life.\n\u{2212}2: Fixture Walker deals 3 damage to any target.\n0: Draw a card.",
            Some("3"),
        ))
        .unwrap();
        assert_eq!(c.kind, Kind::Planeswalker);
        assert_eq!(c.loyalty, 3);
        assert!(c.legendary);
        let costs: Vec<Option<i8>> = c.activated.iter().map(|a| a.loyalty).collect();
        assert_eq!(costs, [Some(1), Some(-2), Some(0)]);
        // CR 606.3: loyalty abilities are activated only as a sorcery.
        assert!(c.activated.iter().all(|a| a.sorcery && a.mana.total() == 0));
        assert_eq!(c.activated[1].effects, [Effect::Damage(3, TargetKind::Any)]);
        // No loyalty, or a loyalty that is not a number: refused, never guessed.
        assert!(parse(&walker("+1: You gain 2 life.", None)).is_err());
        assert!(parse(&walker("+1: You gain 2 life.", Some("X"))).is_err());
        // A loyalty ability whose effect the engine lacks refuses the card, named.
        let e = parse(&walker(
            "+1: Each player sacrifices two creatures.",
            Some("3"),
        ))
        .unwrap_err();
        assert!(e.contains("each player sacrifices"), "{e}");
    }

    #[test]
    fn fdn_planeswalkers_are_refused_naming_the_fragment() {
        let fdn: Vec<CardData> = serde_json::from_str(FDN).unwrap();
        let walkers: Vec<&CardData> = fdn
            .iter()
            .filter(|d| d.type_line.contains("Planeswalker"))
            .collect();
        assert_eq!(walkers.len(), 5);
        for d in walkers {
            // Each waits for an effect the engine does not play yet (a "+1/+1 counter on up
            // to one", look at the top N, "each player sacrifices", emblems, copies).
            let e = parse(d).unwrap_err();
            assert!(e.contains("not supported"), "{}: {e}", d.name);
        }
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
        assert!(
            parse(&d(
                "Pacifism",
                "Enchantment — Aura",
                "Enchant creature\nEnchanted creature can't attack or block."
            ))
            .is_err()
        );
        // CR 303.4: an Aura needs "Enchant creature"; a non-Aura can't have it.
        assert!(parse(&d("Charm", "Enchantment — Aura", "Enchant creature")).is_ok());
        assert!(parse(&d("Charm", "Enchantment — Aura", "")).is_err());
        assert!(parse(&d("Charm", "Enchantment", "Enchant creature")).is_err());
        // CR 205.4d: a legendary creature plays; the legend rule is the engine's.
        assert!(
            parse(&d("Hero", "Legendary Creature — Human", ""))
                .unwrap()
                .legendary
        );
        // CR 509.1a: "can't block" is a static the engine plays now.
        let piker = parse(&d(
            "Goblin Piker",
            "Creature — Goblin",
            "Goblin Piker can't block.",
        ));
        assert!(piker.unwrap().statics[0].cant_block);
        // CR 508.1d: "attacks each combat if able" is a static the engine plays now.
        let r = parse(&d(
            "Juggernaut",
            "Artifact Creature — Juggernaut",
            "Juggernaut attacks each combat if able.",
        ));
        assert!(r.unwrap().statics[0].must_attack);
        let r = parse(&d(
            "Juggernaut",
            "Artifact Creature — Juggernaut",
            "Juggernaut attacks each turn if able.",
        ));
        assert!(r.unwrap_err().contains("not supported"));
        assert!(parse(&d("Bears", "Creature — Bear", "")).is_ok());
    }
}
