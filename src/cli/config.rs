//! `bob config`: the effective settings ([`crate::settings`]) and where each came from.

use super::Ctx;
use super::output::{table, write_stdout};
use crate::error::{Error, Result};
use serde_json::{Value, json};

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Print the effective settings: each value with its source (flag, env, config, default)
    ///
    /// JSON {home, config_file, config_file_exists, settings: {KEY: {value, source, origin,
    /// env, flag, kind}}, tables: {prices?}}; credentials (API keys, tokens) are shown as "***" with "set": true,
    /// never their value. `--format table` (or a terminal) prints one row per setting. Per-
    /// command flags (such as `bob chat --model`) beat these values for that command only.
    Show {
        /// Only these settings (config.toml keys such as chat.model)
        #[arg(value_name = "KEY")]
        keys: Vec<String>,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Show { keys } => show(ctx, &keys),
    }
}

fn show(ctx: &Ctx, keys: &[String]) -> Result<()> {
    let mut doc = ctx.settings.show();
    if !keys.is_empty() {
        let all = doc["settings"].as_object().cloned().unwrap_or_default();
        let mut picked = serde_json::Map::new();
        for k in keys {
            let row = all.get(k).ok_or_else(|| {
                Error::not_found(format!(
                    "no setting named {k:?} (`bob config show` lists them all)"
                ))
                .with("key", k.clone())
            })?;
            picked.insert(k.clone(), row.clone());
        }
        doc["settings"] = Value::Object(picked);
    }
    if ctx.out.is_human() {
        let rows: Vec<Value> = doc["settings"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, r)| {
                json!({
                    "key": k,
                    "value": match &r["value"] { Value::String(s) => json!(s), Value::Null => Value::Null, v => json!(v.to_string()) },
                    "source": r["source"],
                    "origin": r["origin"],
                })
            })
            .collect();
        let head = format!(
            "home: {}\nconfig: {}{}\n\n",
            doc["home"].as_str().unwrap_or_default(),
            doc["config_file"].as_str().unwrap_or_default(),
            if doc["config_file_exists"] == json!(true) {
                ""
            } else {
                " (absent)"
            }
        );
        return write_stdout(format!("{head}{}", table(&rows)).as_bytes());
    }
    ctx.out.doc(&doc)
}
