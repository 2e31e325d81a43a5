//! `steam.game_lookup`: a game's store details (`/api/appdetails?appids=…`) or a store search
//! (`/api/storesearch/?term=…`) from the Steam storefront API (`BOB_STEAM_BASE_URL`, default
//! `https://store.steampowered.com`). Cached under `cache/steam/` for 24 hours.
//!
//! A game is keyed by `data.steam_appid` (the storefront may answer a request for one app id
//! with another, canonical one). Prices arrive in the currency's minor unit; the output says
//! so (`initial_cents`, `final_cents`) and adds the decimal amount. An app the store does not
//! know (`{"<id>": {"success": false}}`) is `not_found`.

use super::{Cache, Ctx, RateLimit, get_limited, status_error};
use crate::error::{Code, Error, Result};
use crate::tools::spec::answer;
use crate::tools::spec::{Kind, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// The `steam.game_lookup` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "steam.game_lookup",
    description: "TURBOTIME: a game's Steam store details ({appid}) or a store search ({term}); prices in cents; cached 24 h.",
    kind: Kind::Net,
    mutating: false,
    schema: || schemars::schema_for!(SteamInput),
};

pub const CACHE_TTL_S: u64 = 24 * 3600;

/// `steam.game_lookup` input: `{appid}` for one game or `{term}` to search the store.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SteamInput {
    /// A Steam app id (e.g. 570).
    #[serde(default)]
    pub appid: Option<u64>,
    /// Search terms.
    #[serde(default)]
    pub term: Option<String>,
    /// Two-letter store country for prices (default `us`).
    #[serde(default)]
    pub cc: Option<String>,
}

/// A price, in cents and as text; Steam's own fields are passed on as Steam shapes them.
#[derive(Serialize)]
struct Price {
    currency: Option<Value>,
    initial_cents: Option<i64>,
    final_cents: Option<i64>,
    #[serde(rename = "final")]
    final_: Option<String>,
    discount_percent: i64,
    final_formatted: Option<Value>,
}

fn price(p: &Value) -> Price {
    let cents = |k: &str| p.get(k).and_then(Value::as_i64);
    let fin = cents("final");
    Price {
        currency: p.get("currency").cloned(),
        initial_cents: cents("initial"),
        final_cents: fin,
        final_: fin.map(|c| format!("{}.{:02}", c / 100, c % 100)),
        discount_percent: p
            .get("discount_percent")
            .and_then(Value::as_i64)
            .unwrap_or(0),
        final_formatted: p.get("final_formatted").cloned(),
    }
}

/// One app's store page, in short.
#[derive(Serialize)]
struct App {
    appid: u64,
    requested_appid: u64,
    name: Option<Value>,
    #[serde(rename = "type")]
    kind: Option<Value>,
    is_free: bool,
    short_description: Option<Value>,
    developers: Value,
    publishers: Value,
    genres: Vec<String>,
    categories: Vec<String>,
    release_date: Option<Value>,
    platforms: Option<Value>,
    price: Option<Price>,
    header_image: Option<Value>,
    website: Option<Value>,
}

/// A store search's hits.
#[derive(Serialize)]
struct Found {
    term: String,
    total: u64,
    items: Vec<Hit>,
}

/// One store search hit.
#[derive(Serialize)]
struct Hit {
    appid: Option<Value>,
    name: Option<Value>,
    #[serde(rename = "type")]
    kind: Option<Value>,
    price: Option<Price>,
    metascore: Option<Value>,
    platforms: Option<Value>,
    tiny_image: Option<Value>,
}

pub fn lookup(ctx: &Ctx<'_>, i: &SteamInput) -> Result<Value> {
    let bad = |m: &str| {
        Err(Error::new(
            Code::ToolInputInvalid,
            format!("steam.game_lookup: {m}"),
        ))
    };
    let cc =
        i.cc.clone()
            .unwrap_or_else(|| "us".into())
            .to_ascii_lowercase();
    if cc.len() != 2 || !cc.chars().all(|c| c.is_ascii_alphabetic()) {
        return bad("cc must be a two-letter country code");
    }
    let base = &ctx.settings.steam;
    let url = match (&i.appid, &i.term) {
        (Some(_), Some(_)) => return bad("give either appid or term, not both"),
        (None, None) => return bad("give appid (one game) or term (a search)"),
        (None, Some(t)) if t.trim().is_empty() || t.len() > 200 => {
            return bad("term must be 1 to 200 characters");
        }
        (Some(id), None) => format!("{}/api/appdetails?appids={id}&cc={cc}&l=english", base.url),
        (None, Some(t)) => {
            let mut u = url::Url::parse(&format!("{}/api/storesearch/", base.url))
                .map_err(|e| Error::internal(e.to_string()))?;
            u.query_pairs_mut()
                .append_pair("term", t.trim())
                .append_pair("l", "english")
                .append_pair("cc", &cc);
            u.to_string()
        }
    };
    let cache = Cache::new(ctx.home, "steam", CACHE_TTL_S);
    if let Some(v) = cache.get(&url)? {
        return Ok(v);
    }
    let client = ctx.client(base)?;
    let limit = RateLimit::new(ctx.home, "steam", "api", Duration::from_millis(200));
    let r = get_limited(
        &client,
        &[&limit],
        &url,
        &[("Accept", "application/json")],
        "Steam",
    )?;
    if r.status != 200 {
        return Err(status_error("Steam", &r));
    }
    let v = r.json("Steam")?;
    let out = match i.appid {
        Some(id) => details(&v, id)?,
        None => search(&v, i.term.as_deref().unwrap_or_default())?,
    };
    cache.put(&url, &out)?;
    Ok(out)
}

fn details(v: &Value, id: u64) -> Result<Value> {
    let entry = v.get(id.to_string()).ok_or_else(|| {
        Error::new(
            Code::UpstreamError,
            format!("Steam appdetails has no entry for app {id}"),
        )
    })?;
    if entry.get("success").and_then(Value::as_bool) != Some(true) {
        return Err(Error::not_found(format!("Steam has no app {id}")).with("appid", id));
    }
    let d = entry
        .get("data")
        .filter(|d| d.is_object())
        .ok_or_else(|| Error::new(Code::UpstreamError, "Steam appdetails entry has no data"))?;
    let appid = d.get("steam_appid").and_then(Value::as_u64).unwrap_or(id);
    let names = |k: &str| -> Vec<String> {
        d.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|g| g.get("description").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let field = |k: &str| d.get(k).cloned();
    let list = |k: &str| {
        d.get(k)
            .cloned()
            .unwrap_or_else(|| Value::Array(Vec::new()))
    };
    answer(&App {
        appid,
        requested_appid: id,
        name: field("name"),
        kind: field("type"),
        is_free: d.get("is_free").and_then(Value::as_bool).unwrap_or(false),
        short_description: field("short_description"),
        developers: list("developers"),
        publishers: list("publishers"),
        genres: names("genres"),
        categories: names("categories"),
        release_date: field("release_date"),
        platforms: field("platforms"),
        price: d.get("price_overview").map(price),
        header_image: field("header_image"),
        website: field("website"),
    })
}

fn search(v: &Value, term: &str) -> Result<Value> {
    let items = v
        .get("items")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::new(Code::UpstreamError, "Steam storesearch has no items array"))?;
    let items: Vec<Hit> = items
        .iter()
        .map(|it| Hit {
            appid: it.get("id").cloned(),
            name: it.get("name").cloned(),
            kind: it.get("type").cloned(),
            price: it.get("price").map(price),
            metascore: it.get("metascore").cloned(),
            platforms: it.get("platforms").cloned(),
            tiny_image: it.get("tiny_image").cloned(),
        })
        .collect();
    answer(&Found {
        term: term.to_string(),
        total: v
            .get("total")
            .and_then(Value::as_u64)
            .unwrap_or(items.len() as u64),
        items,
    })
}
