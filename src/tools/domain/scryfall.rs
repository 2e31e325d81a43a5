//! `scryfall.lookup`: a card by name (`/cards/named`, exact or fuzzy, optionally in one set)
//! or a full-text search (`/cards/search`, paged), from Scryfall's API
//! (`BOB_SCRYFALL_BASE_URL`, default `https://api.scryfall.com`).
//!
//! Scryfall's rules are kept: every request carries an application `User-Agent` and an
//! `Accept` header; requests are spaced at least 100 ms apart (10/s) and searches 500 ms
//! apart (2/s) across every bob process of the home ([`super::RateLimit`]); a 429 is honoured
//! ([`super::get_limited`]). Answers are cached under `cache/scryfall/` for 24 hours.
//!
//! A card is returned as `{name, mana_cost, type_line, oracle_text, power, toughness, colors,
//! legalities, prices, image_uris, set, set_name, scryfall_uri, faces}`: for a multi-face card
//! (transform, modal DFC, split, adventure) the top-level text fields join the faces' with
//! `" // "` where Scryfall leaves them only on the faces, and `faces` lists each face.

use super::{Cache, Ctx, RateLimit, clip, get_limited, status_error};
use crate::error::{Code, Error, Result};
use crate::tools::spec::answer;
use crate::tools::spec::{Kind, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::Duration;

/// The `scryfall.lookup` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "scryfall.lookup",
    description: "TURBOTIME: a Magic card from Scryfall by name ({name, fuzzy?, set?}) or a card search ({query, page?}); cached 24 h, Scryfall's rate limits kept.",
    kind: Kind::Net,
    mutating: false,
    schema: || schemars::schema_for!(ScryfallInput),
};

/// Cache lifetime: 24 hours (Scryfall's own data changes about daily).
pub const CACHE_TTL_S: u64 = 24 * 3600;
const UA: &str = concat!(
    "bob/",
    env!("CARGO_PKG_VERSION"),
    " (personal agent runtime)"
);
const ACCEPT: &str = "application/json;q=0.9,*/*;q=0.8";

/// `scryfall.lookup` input: `{name, fuzzy?, set?}` for one card or `{query, page?}` to search.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScryfallInput {
    /// A card name (exact unless `fuzzy`).
    #[serde(default)]
    pub name: Option<String>,
    /// Fuzzy name match (Scryfall's `fuzzy=`: partial words, small misspellings).
    #[serde(default)]
    pub fuzzy: bool,
    /// A set code (e.g. `neo`) to take the printing from.
    #[serde(default)]
    pub set: Option<String>,
    /// A Scryfall search query (full syntax, e.g. `t:dragon c:r cmc<=4`).
    #[serde(default)]
    pub query: Option<String>,
    /// Page of search results (1-based, 175 cards a page).
    #[serde(default)]
    pub page: Option<u32>,
}

fn check(i: &ScryfallInput) -> Result<()> {
    let bad = |m: &str| {
        Err(Error::new(
            Code::ToolInputInvalid,
            format!("scryfall.lookup: {m}"),
        ))
    };
    match (&i.name, &i.query) {
        (Some(_), Some(_)) => bad("give either name or query, not both"),
        (None, None) => bad("give name (one card) or query (a search)"),
        (Some(n), None) if n.trim().is_empty() || n.len() > 200 => {
            bad("name must be 1 to 200 characters")
        }
        (None, Some(q)) if q.trim().is_empty() || q.len() > 1000 => {
            bad("query must be 1 to 1000 characters")
        }
        (Some(_), None) if i.page.is_some() => bad("page goes with query"),
        (None, Some(_)) if i.fuzzy || i.set.is_some() => bad("fuzzy and set go with name"),
        _ => match &i.set {
            Some(s)
                if s.is_empty() || s.len() > 8 || !s.chars().all(|c| c.is_ascii_alphanumeric()) =>
            {
                bad("set must be a set code (1 to 8 letters or digits)")
            }
            _ if i.page == Some(0) => bad("page starts at 1"),
            _ => Ok(()),
        },
    }
}

/// Runs one lookup.
pub fn lookup(ctx: &Ctx<'_>, i: &ScryfallInput) -> Result<Value> {
    check(i)?;
    let base = &ctx.settings.scryfall;
    let mut url = url::Url::parse(&format!(
        "{}/cards/{}",
        base.url,
        if i.name.is_some() { "named" } else { "search" }
    ))
    .map_err(|e| Error::internal(format!("scryfall URL: {e}")))?;
    {
        let mut q = url.query_pairs_mut();
        if let Some(n) = &i.name {
            q.append_pair(if i.fuzzy { "fuzzy" } else { "exact" }, n.trim());
            if let Some(s) = &i.set {
                q.append_pair("set", &s.to_ascii_lowercase());
            }
        }
        if let Some(query) = &i.query {
            q.append_pair("q", query.trim());
            q.append_pair("page", &i.page.unwrap_or(1).to_string());
        }
    }
    let cache = Cache::new(ctx.home, "scryfall", CACHE_TTL_S);
    if let Some(v) = cache.get(url.as_str())? {
        return Ok(v);
    }
    let client = ctx.client(base)?;
    let api = RateLimit::new(ctx.home, "scryfall", "api", Duration::from_millis(100));
    let search = RateLimit::new(ctx.home, "scryfall", "search", Duration::from_millis(500));
    let limits: Vec<&RateLimit> = if i.query.is_some() {
        vec![&api, &search]
    } else {
        vec![&api]
    };
    let r = get_limited(
        &client,
        &limits,
        url.as_str(),
        &[("User-Agent", UA), ("Accept", ACCEPT)],
        "Scryfall",
    )?;
    let out = match r.status {
        200 => {
            let v = r.json("Scryfall")?;
            if i.name.is_some() {
                card_of(&v)?
            } else {
                list_of(&v, i)?
            }
        }
        404 if i.query.is_some() => {
            // Scryfall answers a search with no match with a 404 error object.
            let v = r.json("Scryfall")?;
            if v.get("object").and_then(Value::as_str) != Some("error") {
                return Err(status_error("Scryfall", &r));
            }
            answer(&CardList {
                query: i.query.clone(),
                page: i.page.unwrap_or(1),
                total_cards: 0,
                has_more: false,
                cards: Vec::new(),
            })?
        }
        400 | 404 | 422 => {
            let v = r.json("Scryfall")?;
            let details = v.get("details").and_then(Value::as_str).unwrap_or("");
            let code = if r.status == 404 {
                Code::NotFound
            } else {
                Code::ToolInputInvalid
            };
            let mut e = Error::new(code, format!("Scryfall: {}", clip(details, 500)))
                .with("status", r.status);
            if let Some(t) = v.get("type").and_then(Value::as_str) {
                e = e.with("type", t);
            }
            return Err(e);
        }
        _ => return Err(status_error("Scryfall", &r)),
    };
    cache.put(url.as_str(), &out)?;
    Ok(out)
}

fn list_of(v: &Value, i: &ScryfallInput) -> Result<Value> {
    if v.get("object").and_then(Value::as_str) != Some("list") {
        return Err(Error::new(
            Code::UpstreamError,
            "Scryfall search answered something other than a list object",
        ));
    }
    let cards = v
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::new(Code::UpstreamError, "Scryfall list has no data array"))?
        .iter()
        .map(card)
        .collect::<Result<Vec<_>>>()?;
    answer(&CardList {
        query: i.query.clone(),
        page: i.page.unwrap_or(1),
        total_cards: v
            .get("total_cards")
            .and_then(Value::as_u64)
            .unwrap_or(cards.len() as u64),
        has_more: v.get("has_more").and_then(Value::as_bool).unwrap_or(false),
        cards,
    })
}

/// A page of a card search.
#[derive(Serialize)]
struct CardList {
    query: Option<String>,
    page: u32,
    total_cards: u64,
    has_more: bool,
    cards: Vec<Card>,
}

/// One card, in short (see the module docs). Scryfall's own objects (colours, legalities,
/// prices, image links) are passed on as Scryfall shapes them.
#[derive(Serialize)]
struct Card {
    name: Option<String>,
    #[serde(flatten)]
    text: CardText,
    colors: Value,
    legalities: Value,
    prices: Value,
    image_uris: Value,
    set: Option<String>,
    set_name: Option<String>,
    rarity: Option<String>,
    scryfall_uri: Option<String>,
    faces: Vec<Face>,
}

/// The text fields of a card or a face.
#[derive(Serialize)]
struct CardText {
    mana_cost: Option<String>,
    type_line: Option<String>,
    oracle_text: Option<String>,
    power: Option<String>,
    toughness: Option<String>,
}

impl CardText {
    /// The text fields, each read by `field` from its name.
    fn of(field: impl Fn(&str) -> Option<String>) -> CardText {
        CardText {
            mana_cost: field("mana_cost"),
            type_line: field("type_line"),
            oracle_text: field("oracle_text"),
            power: field("power"),
            toughness: field("toughness"),
        }
    }
}

/// One face of a multi-face card.
#[derive(Serialize)]
struct Face {
    name: Option<String>,
    #[serde(flatten)]
    text: CardText,
    colors: Value,
    image_uris: Value,
}

/// The summary of one Scryfall card object (see the module docs).
pub fn card_of(v: &Value) -> Result<Value> {
    answer(&card(v)?)
}

fn card(v: &Value) -> Result<Card> {
    if v.get("object").and_then(Value::as_str) != Some("card") {
        return Err(Error::new(
            Code::UpstreamError,
            "Scryfall answered something other than a card object",
        ));
    }
    let s = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    let raw: &[Value] = v
        .get("card_faces")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let text = CardText::of(|k| {
        s(v, k).or_else(|| {
            let parts: Vec<String> = raw
                .iter()
                .filter_map(|f| f.get(k).and_then(Value::as_str).map(str::to_string))
                .filter(|p| !p.is_empty())
                .collect();
            (!parts.is_empty()).then(|| parts.join(" // "))
        })
    });
    let colors = v.get("colors").cloned().or_else(|| {
        // Transform cards carry colours per face: the card's are their union.
        let mut all: Vec<String> = raw
            .iter()
            .filter_map(|f| f.get("colors").and_then(Value::as_array))
            .flatten()
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect();
        all.sort();
        all.dedup();
        (!raw.is_empty()).then(|| Value::from(all))
    });
    let images = v.get("image_uris").cloned().or_else(|| {
        raw.iter()
            .find_map(|f| f.get("image_uris").filter(|i| !i.is_null()).cloned())
    });
    let empty = || Value::Object(Map::new());
    Ok(Card {
        name: s(v, "name"),
        text,
        colors: colors.unwrap_or_else(|| Value::Array(Vec::new())),
        legalities: v.get("legalities").cloned().unwrap_or_else(empty),
        prices: v.get("prices").cloned().unwrap_or_else(empty),
        image_uris: images.unwrap_or_else(empty),
        set: s(v, "set"),
        set_name: s(v, "set_name"),
        rarity: s(v, "rarity"),
        scryfall_uri: s(v, "scryfall_uri"),
        faces: raw
            .iter()
            .map(|f| Face {
                name: s(f, "name"),
                text: CardText::of(|k| s(f, k)),
                colors: f.get("colors").cloned().unwrap_or(Value::Null),
                image_uris: f.get("image_uris").cloned().unwrap_or(Value::Null),
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_transform_card_takes_its_text_from_the_faces() {
        let v = json!({"object": "card", "name": "Delver of Secrets // Insectile Aberration",
            "card_faces": [
              {"object": "card_face", "name": "Delver of Secrets", "mana_cost": "{U}", "type_line": "Creature — Human Wizard", "oracle_text": "At the beginning…", "power": "1", "toughness": "1", "colors": ["U"], "image_uris": {"normal": "https://cards.scryfall.io/normal/front/a.jpg"}},
              {"object": "card_face", "name": "Insectile Aberration", "mana_cost": "", "type_line": "Creature — Human Insect", "oracle_text": "Flying", "power": "3", "toughness": "2", "colors": ["U"], "image_uris": {"normal": "https://cards.scryfall.io/normal/back/a.jpg"}}
            ], "legalities": {"legacy": "legal"}, "prices": {"usd": "0.25"}});
        let c = card_of(&v).unwrap();
        assert_eq!(c["mana_cost"], "{U}");
        assert_eq!(
            c["type_line"],
            "Creature — Human Wizard // Creature — Human Insect"
        );
        assert_eq!(c["power"], "1 // 3");
        assert_eq!(c["colors"], json!(["U"]));
        assert_eq!(
            c["image_uris"]["normal"],
            "https://cards.scryfall.io/normal/front/a.jpg"
        );
        assert_eq!(c["faces"].as_array().unwrap().len(), 2);
        assert!(card_of(&json!({"object": "error"})).is_err());
    }

    #[test]
    fn inputs_are_checked() {
        let i = |v: Value| serde_json::from_value::<ScryfallInput>(v).unwrap();
        assert!(check(&i(json!({"name": "Opt"}))).is_ok());
        assert!(check(&i(json!({"query": "t:elf", "page": 2}))).is_ok());
        for bad in [
            json!({}),
            json!({"name": "Opt", "query": "x"}),
            json!({"name": " "}),
            json!({"query": "x", "fuzzy": true}),
            json!({"name": "Opt", "set": "../x"}),
            json!({"query": "x", "page": 0}),
        ] {
            assert!(check(&i(bad.clone())).is_err(), "{bad}");
        }
    }
}
