//! Tokens in the engine's form (CR 111): the card object of each token a card's effects
//! create (CR 111.4) joins the card's [`CardData`] list, and the effect names it by index.
//! Predefined tokens (CR 111.10) have their rules text written here as Oracle prints it:
//! a Food is a colorless Food artifact with "{2}, {T}, Sacrifice this token: You gain 3
//! life." (CR 111.10b).

use super::{E, Effect, keywords};
use crate::mtg::compile::Keyword;
use crate::mtg::facts::CardData;

/// The card object of a token (CR 111.4): named for its subtypes, with its keywords as text.
fn token_card(
    power: i8,
    toughness: i8,
    colors: &[char],
    subtypes: &[String],
    ks: &[Keyword],
) -> Option<CardData> {
    keywords(ks)?;
    let names: Vec<&str> = ks.iter().map(Keyword::name).collect();
    let text = names.join(", ");
    let mut text_cased = text.to_lowercase();
    if let Some(f) = text_cased.get_mut(0..1) {
        f.make_ascii_uppercase();
    }
    let color_words: Vec<&str> = colors
        .iter()
        .filter_map(|c| match c {
            'W' => Some("white"),
            'U' => Some("blue"),
            'B' => Some("black"),
            'R' => Some("red"),
            'G' => Some("green"),
            _ => None,
        })
        .collect();
    Some(CardData {
        name: format!("{} Token", subtypes.join(" ")),
        mana_cost: String::new(),
        type_line: format!("Token Creature — {}", subtypes.join(" ")),
        oracle_text: if color_words.is_empty() {
            text_cased
        } else {
            format!("{text_cased}\n({} token.)", color_words.join(" and "))
        }
        .trim()
        .to_string(),
        power: Some(power.to_string()),
        toughness: Some(toughness.to_string()),
        keywords: names.iter().map(|n| n.to_string()).collect(),
        loyalty: None,
    })
}

/// Lowers a token effect, adding the token's card object to `tokens`.
pub(super) fn tokens_effect(e: &E, tokens: &mut Vec<CardData>) -> Option<Effect> {
    let E::Tokens {
        count,
        power,
        toughness,
        colors,
        subtypes,
        keywords: ks,
        tapped,
    } = e
    else {
        return None;
    };
    let card = token_card(*power, *toughness, colors, subtypes, ks)?;
    Some(Effect::Tokens(*count, index_of(card, tokens)?, *tapped))
}

/// CR 111.10b: the Food token's card object.
fn food_card() -> CardData {
    CardData {
        name: "Food Token".into(),
        mana_cost: String::new(),
        type_line: "Token Artifact — Food".into(),
        oracle_text: "{2}, {T}, Sacrifice this token: You gain 3 life.".into(),
        power: None,
        toughness: None,
        keywords: Vec::new(),
        loyalty: None,
    }
}

/// CR 111.10a: the Treasure token's card object.
fn treasure_card() -> CardData {
    CardData {
        name: "Treasure Token".into(),
        mana_cost: String::new(),
        type_line: "Token Artifact — Treasure".into(),
        oracle_text: "{T}, Sacrifice this token: Add one mana of any color.".into(),
        power: None,
        toughness: None,
        keywords: Vec::new(),
        loyalty: None,
    }
}

/// The index of `card` in `tokens`, adding it if it is new.
fn index_of(card: CardData, tokens: &mut Vec<CardData>) -> Option<u8> {
    let i = match tokens.iter().position(|t| *t == card) {
        Some(i) => i,
        None => {
            tokens.push(card);
            tokens.len() - 1
        }
    };
    u8::try_from(i).ok()
}

/// "create N Food tokens" (CR 111.10b).
pub(super) fn food_effect(n: u8, tokens: &mut Vec<CardData>) -> Option<Effect> {
    Some(Effect::Tokens(n, index_of(food_card(), tokens)?, false))
}

/// A counted token effect (CR 608.2h): one token per object counted as it resolves.
pub(super) fn counted_tokens_effect(e: &E, tokens: &mut Vec<CardData>) -> Option<Effect> {
    let E::CountedTokens { per, tokens: one } = e else {
        return None;
    };
    match tokens_effect(one, tokens)? {
        Effect::Tokens(1, def, tapped) => Some(Effect::TokensPer(*per, def, tapped)),
        _ => None,
    }
}

/// Any token effect (creature tokens, Food, counted tokens), or None for another effect.
pub(super) fn any_tokens_effect(e: &E, tokens: &mut Vec<CardData>) -> Option<Option<Effect>> {
    Some(match e {
        E::Tokens { .. } => tokens_effect(e, tokens),
        E::Food(n) => food_effect(*n, tokens),
        E::Treasure(n) => Some(Effect::Tokens(
            *n,
            index_of(treasure_card(), tokens)?,
            false,
        )),
        E::CountedTokens { .. } => counted_tokens_effect(e, tokens),
        _ => return None,
    })
}
