//! The `config.toml` files as the settings read them: the user's, then the home's over it,
//! each checked strictly (an unknown key or a value of the wrong type is refused), with the
//! open tables kept whole for their owners.

use super::specs::{Kind, OPEN_TABLES, SPECS, Spec, spec_of};
use crate::error::{Error, Result};
use crate::home::Home;
use std::collections::{BTreeMap, BTreeSet};

/// `config.toml` as the settings read it: `table.key → value text`, and the open tables whole.
#[derive(Debug, Clone, Default)]
pub(super) struct Config {
    pub(super) values: BTreeMap<String, String>,
    pub(super) open: BTreeMap<String, toml::Value>,
    /// The keys that came from the user's config file (not the home's), and that file.
    pub(super) from_user: BTreeSet<String>,
    pub(super) user_file: String,
}

/// Reads one config file; a missing file is empty.
fn read_config_file(path: &std::path::Path) -> Result<Config> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_config(&text, &path.display().to_string(), OPEN_TABLES)
            .map_err(|e| e.with("path", path.display().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(Config::default()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Reads the user's config file, then `<home>/config.toml` over it (the home's values and
/// tables win) into `key → value text`; missing files are empty.
pub(super) fn read_config(home: &Home, user: Option<&std::path::Path>) -> Result<Config> {
    let mut config = read_config_file(&home.config_path())?;
    let Some(user) = user.filter(|u| *u != home.config_path()) else {
        return Ok(config);
    };
    let theirs = read_config_file(user)?;
    for (k, v) in theirs.values {
        if !config.values.contains_key(&k) {
            config.from_user.insert(k.clone());
            config.values.insert(k, v);
        }
    }
    for (k, v) in theirs.open {
        config.open.entry(k).or_insert(v);
    }
    config.user_file = user.display().to_string();
    Ok(config)
}

/// Parses config text, refusing unknown keys and values of the wrong type.
pub(super) fn parse_config(text: &str, name: &str, open_tables: &[&str]) -> Result<Config> {
    let doc: toml::Table =
        toml::from_str(text).map_err(|e| Error::invalid(format!("{name}: {}", e.message())))?;
    let mut out = BTreeMap::new();
    let mut open = BTreeMap::new();
    for (table, v) in &doc {
        if open_tables.contains(&table.as_str()) {
            open.insert(table.clone(), v.clone());
            continue;
        }
        let toml::Value::Table(t) = v else {
            return Err(unknown(name, table));
        };
        for (k, v) in t {
            let key = format!("{table}.{k}");
            let Some(sp) = spec_of(&key).filter(|s| s.file) else {
                return Err(unknown(name, &key));
            };
            let text = value_text(sp, v).ok_or_else(|| {
                Error::invalid(format!(
                    "{name}: {key} must be {}, got {}",
                    match sp.kind {
                        Kind::Bool => "true or false",
                        Kind::Count => "a non-negative integer",
                        Kind::Seconds => "a number of seconds",
                        Kind::List => "an array of strings (without commas)",
                        _ => "a string",
                    },
                    v.type_str()
                ))
                .with("key", key.clone())
            })?;
            out.insert(key, text);
        }
    }
    Ok(Config {
        values: out,
        open,
        ..Config::default()
    })
}

fn unknown(name: &str, key: &str) -> Error {
    let table = key.split('.').next().unwrap_or(key);
    let known: Vec<&str> = SPECS
        .iter()
        .filter(|s| s.file && s.key.split('.').next() == Some(table))
        .map(|s| s.key)
        .collect();
    let mut e = Error::invalid(format!(
        "{name}: unknown key {key:?} (see `bob config show` for the known settings)"
    ))
    .with("key", key.to_string());
    if !known.is_empty() {
        e = e.with("known", known);
    }
    e
}

/// A config value as the text the settings hold, if it has the setting's type.
fn value_text(sp: &Spec, v: &toml::Value) -> Option<String> {
    use toml::Value as T;
    match (sp.kind, v) {
        (Kind::Bool, T::Boolean(b)) => Some(b.to_string()),
        (Kind::Count, T::Integer(n)) if *n >= 0 => Some(n.to_string()),
        (Kind::Seconds, T::Integer(n)) if *n > 0 => Some(n.to_string()),
        (Kind::Seconds, T::Float(x)) if x.is_finite() && *x > 0.0 => Some(x.to_string()),
        (Kind::List, T::Array(items)) => items
            .iter()
            .map(|i| i.as_str().filter(|s| !s.contains(',')).map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(|v| v.join(",")),
        (Kind::List | Kind::Text | Kind::Path | Kind::Url | Kind::Time, T::String(s)) => {
            Some(s.clone())
        }
        (Kind::Text, T::Integer(n)) if sp.key == "memory.rank_budget" => Some(n.to_string()),
        _ => None,
    }
}
