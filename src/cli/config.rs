//! `bob config`: the effective settings ([`crate::settings`]) and where each came from, the
//! config files read, and edits of the home's `config.toml` ([`crate::config_file`]).

use super::Ctx;
use super::output::{table, write_stdout};
use crate::error::{Error, Result};
use serde_json::Value;

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
    /// Print the config files bob reads: the home's config.toml and your own
    ///
    /// JSON {home, config_file, config_file_exists, user_config_file, user_config_file_exists}.
    /// The home's file wins over yours ($XDG_CONFIG_HOME/bob/config.toml, else
    /// ~/.config/bob/config.toml); environment variables and flags win over both.
    Path,
    /// Set one setting in the home's config.toml, checked as the file is read
    ///
    /// The value is read as the setting's type (a number, true or false, a comma-separated
    /// list, else text); an unknown key or a value of the wrong type is refused
    /// (invalid.request) and the file is left as it was. Comments are kept.
    Set {
        /// The setting, as `bob config show` names it (e.g. chat.model)
        key: String,
        /// Its new value
        value: String,
    },
    /// Remove one setting from the home's config.toml (its default, or your own file's
    /// value, applies again)
    Unset {
        /// The setting, as `bob config show` names it (e.g. chat.model)
        key: String,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Show { keys } => show(ctx, &keys),
        Args::Path => path(ctx),
        Args::Set { key, value } => {
            let file = ctx.home.config_path();
            let written = crate::config_file::set(&file, &key, &value)?;
            ctx.out.doc(&crate::contracts::ConfigSet {
                key,
                value,
                toml: written,
                config_file: file.display().to_string(),
            })
        }
        Args::Unset { key } => {
            let file = ctx.home.config_path();
            let removed = crate::config_file::unset(&file, &key)?;
            ctx.out.doc(&crate::contracts::ConfigUnset {
                key,
                removed,
                config_file: file.display().to_string(),
            })
        }
    }
}

fn path(ctx: &Ctx) -> Result<()> {
    let file = ctx.home.config_path();
    let user = ctx.settings.user_config_path();
    if ctx.out.is_human() {
        let mut t = format!("{}\n", file.display());
        if let Some(u) = user {
            t.push_str(&format!("{}\n", u.display()));
        }
        return write_stdout(t.as_bytes());
    }
    ctx.out.doc(&crate::contracts::ConfigPaths {
        home: ctx.home.root().display().to_string(),
        config_file: file.display().to_string(),
        config_file_exists: file.is_file(),
        user_config_file: user.map(|u| u.display().to_string()),
        user_config_file_exists: user.is_some_and(|u| u.is_file()),
    })
}

fn show(ctx: &Ctx, keys: &[String]) -> Result<()> {
    let mut doc = ctx.settings.show();
    if !keys.is_empty() {
        let mut picked = Vec::new();
        for k in keys {
            let row = doc
                .settings
                .iter()
                .find(|(key, _)| key == k)
                .ok_or_else(|| {
                    Error::not_found(format!(
                        "no setting named {k:?} (`bob config show` lists them all)"
                    ))
                    .with("key", k.clone())
                })?;
            // A key named twice is shown once, where it was first named.
            if !picked.iter().any(|(key, _)| key == k) {
                picked.push(row.clone());
            }
        }
        doc.settings = picked;
    }
    if ctx.out.is_human() {
        let rows: Vec<Value> = doc
            .settings
            .iter()
            .map(|(k, r)| {
                let value = match &r.value {
                    Value::String(s) => Value::from(s.clone()),
                    Value::Null => Value::Null,
                    v => Value::from(v.to_string()),
                };
                serde_json::to_value(SettingRow {
                    key: k,
                    value,
                    source: &r.source,
                    origin: &r.origin,
                })
                .unwrap_or_default()
            })
            .collect();
        let head = format!(
            "home: {}\nconfig: {}{}\n\n",
            doc.home,
            doc.config_file,
            if doc.config_file_exists {
                ""
            } else {
                " (absent)"
            }
        );
        return write_stdout(format!("{head}{}", table(&rows)).as_bytes());
    }
    ctx.out.doc(&doc)
}

/// A row of `bob config show`'s table.
#[derive(serde::Serialize)]
struct SettingRow<'a> {
    key: &'a str,
    value: Value,
    source: &'a str,
    origin: &'a str,
}
