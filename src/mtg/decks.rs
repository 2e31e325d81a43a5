//! Decks as data: the built-in decks, JSON decklists and text decklists (`4 Grizzly Bears`).

use super::cards::Pool;
use serde::{Deserialize, Serialize};

/// One decklist entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub count: u32,
    pub name: String,
}

/// A named decklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deck {
    pub name: String,
    pub cards: Vec<Entry>,
}

pub const BUILTIN_DECKS: &str = include_str!("data/decks.json");

/// The largest deck accepted (a sanity cap on input, not a format rule).
pub const MAX_DECK: u32 = 250;

impl Deck {
    /// The card names in list order, each repeated `count` times.
    pub fn names(&self) -> Vec<String> {
        self.cards
            .iter()
            .flat_map(|e| std::iter::repeat_n(e.name.clone(), e.count as usize))
            .collect()
    }

    pub fn size(&self) -> u32 {
        self.cards.iter().map(|e| e.count).sum()
    }

    /// Checks that every card is in the pool and the deck has 1..=MAX_DECK cards.
    pub fn validate(&self, pool: &Pool) -> Result<(), String> {
        for e in &self.cards {
            if e.count == 0 {
                return Err(format!("deck {:?}: {:?} has count 0", self.name, e.name));
            }
            if pool.get(&e.name).is_none() {
                return Err(format!(
                    "deck {:?}: card {:?} is not in the card pool (see `bob mtg cards`)",
                    self.name, e.name
                ));
            }
        }
        match self.size() {
            0 => Err(format!("deck {:?} has no cards", self.name)),
            n if n > MAX_DECK => Err(format!(
                "deck {:?} has {n} cards (at most {MAX_DECK})",
                self.name
            )),
            _ => Ok(()),
        }
    }
}

pub fn builtin() -> Vec<Deck> {
    serde_json::from_str(BUILTIN_DECKS).expect("built-in decks.json is valid")
}

/// Parses a decklist: JSON (`{name?, cards:[{count,name}]}` or `[{count,name}]`) or text lines
/// `4 Grizzly Bears` (also `4x Grizzly Bears`; blank lines, `//` and `#` comments and a
/// `Deck`/`Sideboard` header are skipped; a sideboard is ignored).
pub fn parse(name: &str, text: &str) -> Result<Deck, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Deck {
                #[serde(default)]
                name: Option<String>,
                cards: Vec<Entry>,
            },
            List(Vec<Entry>),
        }
        let shape: Shape = serde_json::from_str(text).map_err(|e| {
            format!("deck {name:?}: not a JSON decklist ({{name?, cards:[{{count, name}}]}}): {e}")
        })?;
        return Ok(match shape {
            Shape::Deck { name: n, cards } => Deck {
                name: n.unwrap_or_else(|| name.to_string()),
                cards,
            },
            Shape::List(cards) => Deck {
                name: name.to_string(),
                cards,
            },
        });
    }
    let mut cards = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty()
            || l.starts_with("//")
            || l.starts_with('#')
            || l.eq_ignore_ascii_case("deck")
        {
            continue;
        }
        if l.eq_ignore_ascii_case("sideboard") {
            break;
        }
        let (n, card) = l.split_once(char::is_whitespace).ok_or_else(|| {
            format!(
                "deck {name:?} line {}: expected `COUNT NAME`, got {l:?}",
                i + 1
            )
        })?;
        let count: u32 = n
            .trim_end_matches(['x', 'X'])
            .parse()
            .map_err(|_| format!("deck {name:?} line {}: {n:?} is not a count", i + 1))?;
        cards.push(Entry {
            count,
            name: card.trim().to_string(),
        });
    }
    Ok(Deck {
        name: name.to_string(),
        cards,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_decks_are_legal_and_sized() {
        let pool = Pool::builtin();
        let decks = builtin();
        assert!(decks.iter().filter(|d| d.size() == 40).count() >= 2);
        assert!(decks.iter().filter(|d| d.size() == 60).count() >= 2);
        for d in &decks {
            d.validate(&pool).unwrap();
        }
    }

    #[test]
    fn text_and_json_decklists() {
        let d = parse(
            "t",
            "// c\n4 Grizzly Bears\n2x Forest\n\nSideboard\n1 Shock",
        )
        .unwrap();
        assert_eq!(d.size(), 6);
        let j = parse("j", r#"{"cards":[{"count":3,"name":"Forest"}]}"#).unwrap();
        assert_eq!(j.size(), 3);
        assert!(parse("bad", "four Bears").is_err());
        let pool = Pool::builtin();
        assert!(
            parse("x", "1 Black Lotus")
                .unwrap()
                .validate(&pool)
                .is_err()
        );
    }
}
