//! Card files from outside: Scryfall (bulk `oracle-cards` lists, search results `{data:[…]}`,
//! one card object) and MTGJSON `AtomicCards` (`{data:{name:[face…]}}`), read into card objects,
//! and the coverage report of a set: how many of its cards compile and how many the engine
//! plays, the rest grouped by the template they miss.
//!
//! Promises: every entry of a file is accounted for (playable or refused with a reason);
//! multi-faced cards are refused as such, never read as their first face; a card's facts are
//! taken as they are (name, cost, types, P/T, loyalty, text, keywords), nothing is inferred.

use super::cards::{Card, CardData, FDN, Refused, parse};
use super::compile;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One card of a file: its facts, or why they could not be read.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub rarity: Option<String>,
    pub data: Result<CardData, String>,
}

const SHAPE: &str = "expected Scryfall card objects (a list, {data:[…]} or one card) or MTGJSON \
AtomicCards ({data:{name:[…]}})";

/// Reads a card file in any of the supported formats.
pub fn read(value: &Value) -> Result<Vec<Entry>, String> {
    match value {
        Value::Array(list) => Ok(list.iter().enumerate().map(scryfall).collect()),
        Value::Object(o) => match o.get("data") {
            Some(Value::Array(list)) => Ok(list.iter().enumerate().map(scryfall).collect()),
            Some(Value::Object(atomic)) => Ok(atomic.iter().map(mtgjson).collect()),
            _ if o.contains_key("name") => Ok(vec![scryfall((0, value))]),
            _ => Err(SHAPE.into()),
        },
        _ => Err(SHAPE.into()),
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn scryfall((i, v): (usize, &Value)) -> Entry {
    let name = text(v, "name").unwrap_or_default();
    let rarity = text(v, "rarity");
    let data = if v.get("card_faces").is_some() {
        Err("multi-faced cards are not supported".to_string())
    } else if let Some(l) = v.get("layout").and_then(Value::as_str)
        && l != "normal"
    {
        Err(format!("layout {l:?} is not supported"))
    } else {
        serde_json::from_value::<CardData>(v.clone())
            .map_err(|e| format!("not a card object (item {i}): {e}"))
    };
    Entry { name, rarity, data }
}

/// One MTGJSON atomic card: a list of faces in MTGJSON's field names.
fn mtgjson((name, faces): (&String, &Value)) -> Entry {
    let entry = |data| Entry {
        name: name.clone(),
        rarity: None,
        data,
    };
    let Some(faces) = faces.as_array() else {
        return entry(Err("an AtomicCards entry must be a list of faces".into()));
    };
    let [f] = faces.as_slice() else {
        return entry(Err("multi-faced cards are not supported".into()));
    };
    if let Some(l) = f.get("layout").and_then(Value::as_str)
        && l != "normal"
    {
        return entry(Err(format!("layout {l:?} is not supported")));
    }
    let keywords = f
        .get("keywords")
        .and_then(Value::as_array)
        .map(|k| {
            k.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let Some(type_line) = text(f, "type") else {
        return entry(Err("an AtomicCards face without a type".into()));
    };
    entry(Ok(CardData {
        name: text(f, "name").unwrap_or_else(|| name.clone()),
        mana_cost: text(f, "manaCost").unwrap_or_default(),
        type_line,
        oracle_text: text(f, "text").unwrap_or_default(),
        power: text(f, "power"),
        toughness: text(f, "toughness"),
        keywords,
        loyalty: text(f, "loyalty"),
    }))
}

/// Reads a card file and parses every card: the playable ones and the refused ones.
pub fn import(value: &Value) -> Result<(Vec<Card>, Vec<Refused>), String> {
    let mut ok = Vec::new();
    let mut refused = Vec::new();
    for e in read(value)? {
        match e.data.and_then(|d| parse(&d)) {
            Ok(c) => ok.push(c),
            Err(reason) => refused.push(Refused {
                name: e.name,
                reason,
            }),
        }
    }
    Ok((ok, refused))
}

/// Counts of one group of cards.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    pub cards: usize,
    /// Rules text compiled whole.
    pub compiled: usize,
    /// Playable by the engine (compiled, and every template is one the engine plays).
    pub playable: usize,
}

/// One missing template and the cards that wait for it.
#[derive(Debug, Clone, Serialize)]
pub struct Missing {
    pub template: String,
    pub cards: usize,
    pub examples: Vec<String>,
}

/// The coverage of a card file.
#[derive(Debug, Clone, Serialize)]
pub struct Coverage {
    #[serde(flatten)]
    pub total: Tally,
    pub by_rarity: BTreeMap<String, Tally>,
    /// Text no template matches, grouped by the shape of the first unmatched fragment.
    pub missing_templates: Vec<Missing>,
    /// Text that compiles to a template the engine does not play yet.
    pub not_in_engine: Vec<Missing>,
    /// Entries that are not card objects the compiler reads (multi-faced, malformed).
    pub unreadable: Vec<Refused>,
}

fn groups(map: BTreeMap<String, Vec<String>>) -> Vec<Missing> {
    let mut v: Vec<Missing> = map
        .into_iter()
        .map(|(template, names)| Missing {
            template,
            cards: names.len(),
            examples: names.into_iter().take(5).collect(),
        })
        .collect();
    v.sort_by(|a, b| b.cards.cmp(&a.cards).then(a.template.cmp(&b.template)));
    v
}

/// The coverage report of a card file.
pub fn coverage(value: &Value) -> Result<Coverage, String> {
    let mut total = Tally::default();
    let mut by_rarity: BTreeMap<String, Tally> = BTreeMap::new();
    let mut missing: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut engine: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut unreadable = Vec::new();
    for e in read(value)? {
        let (compiled, playable) = match &e.data {
            Err(reason) => {
                unreadable.push(Refused {
                    name: e.name.clone(),
                    reason: reason.clone(),
                });
                (false, false)
            }
            Ok(d) => match compile::compile(d) {
                Err(u) => {
                    missing.entry(u.shape).or_default().push(e.name.clone());
                    (false, false)
                }
                Ok(_) => match parse(d) {
                    Ok(_) => (true, true),
                    Err(reason) => {
                        let key = reason
                            .strip_prefix("template ")
                            .and_then(|r| r.strip_suffix(" is not supported by the engine yet"))
                            .unwrap_or(&reason)
                            .to_string();
                        engine.entry(key).or_default().push(e.name.clone());
                        (true, false)
                    }
                },
            },
        };
        let rarity = e.rarity.clone().unwrap_or_else(|| "unknown".into());
        for t in [&mut total, by_rarity.entry(rarity).or_default()] {
            t.cards += 1;
            t.compiled += compiled as usize;
            t.playable += playable as usize;
        }
    }
    Ok(Coverage {
        total,
        by_rarity,
        missing_templates: groups(missing),
        not_in_engine: groups(engine),
        unreadable,
    })
}

/// The card file of a set shipped with bob, by its code.
pub fn set_file(code: &str) -> Option<&'static str> {
    match code.to_ascii_lowercase().as_str() {
        "fdn" => Some(FDN),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mtgjson_atomic_cards_read_like_scryfall_objects() {
        let v = json!({"meta": {"version": "5"}, "data": {
            "Shock": [{"name": "Shock", "manaCost": "{R}", "type": "Instant",
                       "text": "Shock deals 2 damage to any target.", "layout": "normal"}],
            "Delver of Secrets": [{"name": "Delver of Secrets", "type": "Creature — Human Wizard",
                                   "layout": "transform", "side": "a"}, {"side": "b"}]
        }});
        let (ok, refused) = import(&v).unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].data.name, "Shock");
        assert_eq!(refused[0].reason, "multi-faced cards are not supported");
    }

    #[test]
    fn fdn_coverage_accounts_for_every_card() {
        let v: Value = serde_json::from_str(FDN).unwrap();
        let c = coverage(&v).unwrap();
        assert_eq!(c.total.cards, 271);
        let grouped: usize = c.missing_templates.iter().map(|m| m.cards).sum::<usize>()
            + c.not_in_engine.iter().map(|m| m.cards).sum::<usize>()
            + c.unreadable.len();
        assert_eq!(grouped + c.total.playable, c.total.cards);
        assert!(c.total.playable >= 5, "{c:?}");
    }
}
