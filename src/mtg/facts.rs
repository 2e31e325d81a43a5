//! Card facts: a card object in Scryfall's field names, its mana cost, and the two readings
//! every later stage shares (the cost's symbols, the rules text without reminder text). No
//! rules knowledge lives here.

use serde::{Deserialize, Serialize};

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

pub fn parse_cost(s: &str) -> Result<ManaCost, String> {
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
pub fn strip_reminder(text: &str) -> String {
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
