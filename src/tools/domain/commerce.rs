//! `commerce.search_offers` (the JSON I/O contracts): product offers from SerpAPI's Google Shopping engine
//! (`/search.json?engine=google_shopping`, `SERPAPI_API_KEY`, `BOB_SERPAPI_BASE_URL`).
//!
//! Each `shopping_results` item becomes `{title, link, source, price, currency, price_text,
//! availability, position}`: `price` is SerpAPI's `extracted_price` (a number; an offer without
//! one keeps `price: null` and is never the best offer), `link` its `link` or else
//! `product_link`, `currency` read from the price text's symbol or code (else the country's).
//! `best_offer` is the lowest numeric price (ties: the better position). Zero offers is
//! `offers: []`, `best_offer: null`, `summary: "No offers found…"`, never an invented list. The
//! host needs a `net` grant (this is not a TURBOTIME tool); the key never reaches the cache,
//! the audit log or an error.

use super::knowledge::scrub;
use super::{Cache, Ctx, RateLimit, clip, get_limited, status_error};
use crate::error::{Code, Error, Result};
use crate::tools::spec::{Kind, ToolSpec, answer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// The `commerce.search_offers` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "commerce.search_offers",
    description: "Product offers from SerpAPI Google Shopping ({query, extra_query?, max_results, country, language}) → {offers, best_offer (lowest price), summary}.",
    kind: Kind::Net,
    mutating: false,
    schema: || schemars::schema_for!(OffersInput),
};

pub const CACHE_TTL_S: u64 = 3600;

/// `commerce.search_offers` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OffersInput {
    pub query: String,
    /// Words appended to the query (e.g. a category).
    #[serde(default)]
    pub extra_query: Option<String>,
    /// 1–40, default 5.
    #[serde(default = "d_max")]
    pub max_results: usize,
    /// Two-letter country (Google's `gl`), default `us`.
    #[serde(default = "d_us")]
    pub country: String,
    /// Two-letter language (Google's `hl`), default `en`.
    #[serde(default = "d_en")]
    pub language: String,
}

fn d_max() -> usize {
    5
}
fn d_us() -> String {
    "us".into()
}
fn d_en() -> String {
    "en".into()
}

fn currency_of(text: &str, country: &str) -> &'static str {
    let t = text.to_ascii_uppercase();
    for (needle, code) in [
        ("US$", "USD"),
        ("CA$", "CAD"),
        ("A$", "AUD"),
        ("€", "EUR"),
        ("£", "GBP"),
        ("¥", "JPY"),
        ("₹", "INR"),
        ("EUR", "EUR"),
        ("GBP", "GBP"),
        ("USD", "USD"),
    ] {
        if t.contains(needle) {
            return code;
        }
    }
    match country {
        "gb" | "uk" => "GBP",
        "de" | "fr" | "es" | "it" | "nl" | "at" | "ie" | "be" | "fi" | "pt" => "EUR",
        "ca" => "CAD",
        "au" => "AUD",
        "jp" => "JPY",
        "in" => "INR",
        _ if t.contains('$') => "USD",
        _ => "USD",
    }
}

/// One offer of `commerce.price_search`'s answer.
#[derive(serde::Serialize)]
struct Offer<'a> {
    title: &'a str,
    link: Option<&'a str>,
    source: Option<&'a str>,
    /// `null` when the offer has no numeric price.
    price: Option<f64>,
    currency: &'static str,
    price_text: &'a str,
    availability: Option<&'a str>,
    position: Option<u64>,
}

/// `commerce.price_search`'s answer: the offers, the best one and a sentence about them.
#[derive(serde::Serialize)]
struct Offers<'a> {
    query: &'a str,
    offers: &'a [Value],
    best_offer: Option<&'a Value>,
    summary: &'a str,
}

/// Offers from a Google Shopping response, in SerpAPI's order.
pub fn offers_of(v: &Value, country: &str, max: usize) -> Vec<Value> {
    v.get("shopping_results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|o| {
            let title = o.get("title")?.as_str()?;
            let link = o
                .get("link")
                .and_then(Value::as_str)
                .or_else(|| o.get("product_link").and_then(Value::as_str));
            let price_text = o.get("price").and_then(Value::as_str).unwrap_or("");
            let price = o
                .get("extracted_price")
                .and_then(Value::as_f64)
                .filter(|p| p.is_finite() && *p >= 0.0);
            answer(&Offer {
                title,
                link,
                source: o.get("source").and_then(Value::as_str),
                price,
                currency: currency_of(price_text, country),
                price_text,
                availability: o
                    .get("delivery")
                    .or_else(|| o.get("availability"))
                    .and_then(Value::as_str),
                position: o.get("position").and_then(Value::as_u64),
            })
            .ok()
        })
        .take(max)
        .collect()
}

/// The lowest numeric price, ties to the better position.
pub fn best_of(offers: &[Value]) -> Option<Value> {
    offers
        .iter()
        .filter(|o| o["price"].is_number())
        .min_by(|a, b| {
            let pa = a["price"].as_f64().unwrap_or(f64::MAX);
            let pb = b["price"].as_f64().unwrap_or(f64::MAX);
            pa.total_cmp(&pb).then(
                a["position"]
                    .as_u64()
                    .unwrap_or(u64::MAX)
                    .cmp(&b["position"].as_u64().unwrap_or(u64::MAX)),
            )
        })
        .cloned()
}

pub fn search(ctx: &Ctx<'_>, i: &OffersInput) -> Result<Value> {
    let bad = |m: &str| {
        Err(Error::new(
            Code::ToolInputInvalid,
            format!("commerce.search_offers: {m}"),
        ))
    };
    let q = match &i.extra_query {
        Some(x) if !x.trim().is_empty() => format!("{} {}", i.query.trim(), x.trim()),
        _ => i.query.trim().to_string(),
    };
    if i.query.trim().is_empty() || q.len() > 500 {
        return bad("query must be 1 to 500 characters");
    }
    if i.max_results == 0 || i.max_results > 40 {
        return bad("max_results must be 1 to 40");
    }
    let two = |s: &str| s.len() == 2 && s.chars().all(|c| c.is_ascii_alphabetic());
    if !two(&i.country) || !two(&i.language) {
        return bad("country and language are two-letter codes");
    }
    let s = ctx.settings;
    let Some(key) = s.serpapi_key.as_deref() else {
        return Err(Error::invalid(
            "commerce.search_offers needs a SerpAPI key: set SERPAPI_API_KEY (or serpapi_api_key under [domain] in config.toml)",
        ));
    };
    let (country, language) = (
        i.country.to_ascii_lowercase(),
        i.language.to_ascii_lowercase(),
    );
    let mut u = url::Url::parse(&format!("{}/search.json", s.serpapi.url))
        .map_err(|e| Error::internal(e.to_string()))?;
    u.query_pairs_mut()
        .append_pair("engine", "google_shopping")
        .append_pair("q", &q)
        .append_pair("gl", &country)
        .append_pair("hl", &language);
    let cache = Cache::new(ctx.home, "commerce", CACHE_TTL_S);
    let cache_key = format!("{u} max={}", i.max_results);
    if let Some(v) = cache.get(&cache_key)? {
        return Ok(v);
    }
    let mut full = u.clone();
    full.query_pairs_mut().append_pair("api_key", key);
    let client = ctx.client(&s.serpapi)?;
    let limit = RateLimit::new(ctx.home, "commerce", "serpapi", Duration::from_millis(200));
    let r = get_limited(
        &client,
        &[&limit],
        full.as_str(),
        &[("Accept", "application/json")],
        "SerpAPI",
    )
    .map_err(|e| scrub(e, Some(key)))?;
    let v = match r.json("SerpAPI") {
        Ok(v) => v,
        Err(e) if r.status != 200 => {
            return Err(scrub(
                status_error("SerpAPI", &r).with("parse", e.message),
                Some(key),
            ));
        }
        Err(e) => return Err(e),
    };
    if let Some(err) = v.get("error").and_then(Value::as_str)
        && !(r.status == 200 && err.contains("hasn't returned any results"))
    {
        return Err(scrub(
            Error::new(
                Code::UpstreamError,
                format!("SerpAPI (HTTP {}): {}", r.status, clip(err, 300)),
            )
            .retryable(r.status >= 500)
            .with("status", r.status),
            Some(key),
        ));
    }
    if r.status != 200 {
        return Err(scrub(status_error("SerpAPI", &r), Some(key)));
    }
    let offers = offers_of(&v, &country, i.max_results);
    let best = best_of(&offers);
    let summary = match &best {
        _ if offers.is_empty() => format!("No offers found for query '{q}'."),
        Some(b) => format!(
            "{} offer(s) found for query '{q}'. Best offer {} {} at {}.",
            offers.len(),
            b["price"],
            b["currency"].as_str().unwrap_or(""),
            b["source"].as_str().unwrap_or("an unnamed store")
        ),
        None => format!(
            "{} offer(s) found for query '{q}', none with a numeric price.",
            offers.len()
        ),
    };
    let out = answer(&Offers {
        query: &q,
        offers: &offers,
        best_offer: best.as_ref(),
        summary: &summary,
    })?;
    cache.put(&cache_key, &out)?;
    Ok(out)
}
