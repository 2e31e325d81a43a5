//! `bom.build` (the JSON I/O contracts): fetch → normalize → optional pricing → spreadsheet in one call.
//!
//! Statuses: `fetch_failed` (the page could not be fetched, or answered an HTTP error; nothing
//! is written), `content_empty` (no text, or no BOM rows in it; nothing is written),
//! `pricing_missing` (the spreadsheet is written but some or all rows have no price: no
//! SerpAPI key, a failed search, no offer with a numeric price, or more than
//! [`MAX_PRICED_ROWS`] rows), `ok`. The spreadsheet is `bom_<YYYYmmdd_HHMMSS>.<format>` in
//! `repo` (written as `docs.write_spreadsheet` writes, never over an existing file). Parts are
//! never guessed: every row comes from the page.

use super::spreadsheet::{self, Format};
use super::{Ctx, bom, commerce, web};
use crate::clock;
use crate::error::Result;
use crate::tools::fs::Sandbox;
use crate::tools::spec::{Kind, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `bom.build` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "bom.build",
    description: "Fetch a page, normalize its BOM, optionally price it with SerpAPI, write a spreadsheet ({url, repo, format, use_serpapi}) → {status: ok|content_empty|pricing_missing|fetch_failed, rows, spreadsheet_path}.",
    kind: Kind::Fs,
    mutating: true,
    schema: || schemars::schema_for!(BuildInput),
};

/// At most this many rows are priced per call (one SerpAPI search each).
pub const MAX_PRICED_ROWS: usize = 25;

/// `bom.build` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildInput {
    pub url: String,
    /// Directory beneath the sandbox root for the spreadsheet (default: the root).
    #[serde(default = "d_dot")]
    pub repo: String,
    #[serde(default = "d_csv")]
    pub format: Format,
    /// Price each part with commerce.search_offers (needs SERPAPI_API_KEY).
    #[serde(default)]
    pub use_serpapi: bool,
}

fn d_dot() -> String {
    ".".into()
}
fn d_csv() -> Format {
    Format::Csv
}

fn done(
    status: &str,
    rows: &[BomRow],
    path: Option<String>,
    message: Option<String>,
    url: &str,
) -> Value {
    serde_json::to_value(Built {
        status,
        rows,
        count: rows.len(),
        spreadsheet_path: path,
        message,
        source_url: url,
    })
    .unwrap_or_default()
}

/// `bom.build`'s answer.
#[derive(Serialize)]
struct Built<'a> {
    /// `ok`, `pricing_missing`, `fetch_failed`, `no_rows`, …
    status: &'a str,
    rows: &'a [BomRow],
    count: usize,
    spreadsheet_path: Option<String>,
    message: Option<String>,
    source_url: &'a str,
}

/// One row of the bill of materials (and of its spreadsheet).
#[derive(Serialize)]
struct BomRow {
    part: String,
    quantity: u32,
    notes: Option<String>,
    /// The best offer, when the row was priced.
    #[serde(flatten)]
    offer: Option<Offer>,
    source: String,
}

/// The best offer for a row, as `commerce.search_offers` gave it.
#[derive(Serialize)]
struct Offer {
    price: Value,
    currency: Value,
    seller: Value,
    link: Value,
}

pub fn build(ctx: &Ctx<'_>, sb: &Sandbox, i: &BuildInput) -> Result<Value> {
    let page = match web::fetch(ctx, &web::FetchTextInput { url: i.url.clone() }) {
        Ok(p) => p,
        Err(e) if e.code == crate::error::Code::PolicyDenied => return Err(e),
        Err(e) => return Ok(done("fetch_failed", &[], None, Some(e.message), &i.url)),
    };
    let status = page["status"].as_u64().unwrap_or(0);
    if status >= 400 {
        return Ok(done(
            "fetch_failed",
            &[],
            None,
            Some(format!("the page answered HTTP {status}")),
            &i.url,
        ));
    }
    let content = page["content"].as_str().unwrap_or("");
    if content.trim().is_empty() {
        return Ok(done(
            "content_empty",
            &[],
            None,
            Some("the page has no readable text".into()),
            &i.url,
        ));
    }
    let parsed = bom::normalize(content, &i.url)?;
    if parsed.is_empty() {
        return Ok(done(
            "content_empty",
            &[],
            None,
            Some("no bill-of-materials rows found in the page".into()),
            &i.url,
        ));
    }
    let mut rows: Vec<BomRow> = parsed
        .iter()
        .map(|r| BomRow {
            part: r.part.clone(),
            quantity: r.quantity,
            notes: r.notes.clone(),
            offer: None,
            source: i.url.clone(),
        })
        .collect();
    let mut missing: Vec<String> = Vec::new();
    if i.use_serpapi {
        if ctx.settings.serpapi_key.is_none() {
            missing.push("no SerpAPI key (set SERPAPI_API_KEY)".into());
        } else {
            for (n, row) in rows.iter_mut().enumerate() {
                let part = row.part.clone();
                if n >= MAX_PRICED_ROWS {
                    missing.push(format!(
                        "{part}: not priced (more than {MAX_PRICED_ROWS} rows)"
                    ));
                    continue;
                }
                let q = commerce::OffersInput {
                    query: part.clone(),
                    extra_query: row.notes.clone(),
                    max_results: 5,
                    country: "us".into(),
                    language: "en".into(),
                };
                match commerce::search(ctx, &q) {
                    Ok(v) if v["best_offer"].is_object() => {
                        let b = &v["best_offer"];
                        row.offer = Some(Offer {
                            price: b["price"].clone(),
                            currency: b["currency"].clone(),
                            seller: b["source"].clone(),
                            link: b["link"].clone(),
                        });
                    }
                    Ok(_) => missing.push(format!("{part}: no offers found")),
                    Err(e) => missing.push(format!("{part}: {}", e.message)),
                }
            }
        }
    }
    let name = format!("bom_{}", clock::now()?.format("%Y%m%d_%H%M%S"));
    let written = spreadsheet::write(
        sb,
        &spreadsheet::SpreadsheetInput {
            repo: i.repo.clone(),
            rows: rows
                .iter()
                .map(|r| match serde_json::to_value(r) {
                    Ok(Value::Object(m)) => m,
                    _ => Map::new(),
                })
                .collect(),
            filename: name,
            format: i.format,
            overwrite: false,
        },
    )?;
    let path = written["path"].as_str().map(str::to_string);
    Ok(if i.use_serpapi && !missing.is_empty() {
        done(
            "pricing_missing",
            &rows,
            path,
            Some(missing.join("; ")),
            &i.url,
        )
    } else {
        done("ok", &rows, path, None, &i.url)
    })
}
