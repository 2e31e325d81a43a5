//! Reading the resolved settings: each value typed (with an error naming where a bad value
//! came from), what the process installs from them once, and `bob config show`'s view.

use super::load::{Entry, Settings, Source};
use super::specs::{Kind, SPECS, Spec, spec_of};
use crate::clock::{self, Clock};
use crate::contracts::{ConfigShow, SettingShown};
use crate::error::{Error, Result};
use crate::home::Home;
use serde_json::Value;
use std::path::PathBuf;

impl Settings {
    /// Installs the process-wide parts once: the clock read by [`clock::now`], and the
    /// redactor's rule file and the known secret values it masks by exact match (secret-named
    /// environment variables and the secret settings).
    pub fn install(&self) {
        clock::install(self.clock);
        crate::redact::install(self.path("redact.rules"), self.secret_values());
        let chain_key = self.chain_key_file();
        crate::secrets::install_key_file(chain_key.as_ref().map(|p| {
            p.parent()
                .unwrap_or(std::path::Path::new("/"))
                .join(crate::secrets::OUTSIDE_KEY_FILE)
        }));
        crate::chain::install_key_file(chain_key);
        crate::db::install(self.text(crate::db::SETTING), &self.home);
    }

    /// The chain key's file when it is not `<home>/keys/chain.key`: `BOB_KEY_FILE`, then
    /// systemd's credential `$CREDENTIALS_DIRECTORY/bob-chain.key` when that file exists, then
    /// `keys.file` in `config.toml` (the home's own file comes last: a process that can write
    /// the home must not be able to choose the key over the service's credential).
    pub fn chain_key_file(&self) -> Option<PathBuf> {
        if self.source("keys.file") == Source::Env {
            return self.path("keys.file");
        }
        if let Some(dir) = self.env_var("CREDENTIALS_DIRECTORY") {
            let p = PathBuf::from(dir).join("bob-chain.key");
            if p.is_file() {
                return Some(p);
            }
        }
        // A relative path in config.toml is taken from the home, as the file it sits in.
        self.path("keys.file").map(|p| self.home.root().join(p))
    }

    /// The home directory.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The user's config file, read before the home's `config.toml` (whose values win):
    /// `$XDG_CONFIG_HOME/bob/config.toml`, else `~/.config/bob/config.toml`; `None` when
    /// neither variable is set.
    pub fn user_config_path(&self) -> Option<&std::path::Path> {
        self.user_config.as_deref()
    }

    /// Where these settings were read from, for a "not configured" error: the home and the
    /// config files (`home`, `config_file`, `user_config_file`).
    pub fn read_from(&self) -> String {
        let mut t = format!(
            "home {}, config {}",
            self.home.root().display(),
            self.home.config_path().display()
        );
        if let Some(u) = &self.user_config {
            t.push_str(&format!(" and {}", u.display()));
        }
        t
    }

    /// The clock: fixed by `clock.now`, else the system clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// The resolved entry of `key`; `None` when unset with no default.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        debug_assert!(spec_of(key).is_some(), "unknown setting {key}");
        self.entries.get(key)
    }

    /// Where `key`'s value came from (`Default` when unset).
    pub fn source(&self, key: &str) -> Source {
        self.get(key).map_or(Source::Default, |e| e.source)
    }

    /// Whether something other than the default set `key`.
    pub fn is_set(&self, key: &str) -> bool {
        self.source(key) != Source::Default
    }

    /// The value as text.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key).map(|e| e.value.as_str())
    }

    /// The value as a path.
    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.text(key).map(PathBuf::from)
    }

    /// The value as a boolean; anything but 1/0, true/false, yes/no, on/off is refused.
    pub fn bool(&self, key: &str) -> Result<bool> {
        let Some(e) = self.get(key) else {
            return Ok(false);
        };
        match e.value.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(bad(e, key, "true or false (1/0, yes/no, on/off)")),
        }
    }

    /// The value as a non-negative integer.
    pub fn u64(&self, key: &str) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(e) => e
                .value
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| bad(e, key, "a non-negative integer")),
        }
    }

    /// The value as a positive, finite number of seconds.
    pub fn seconds(&self, key: &str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(e) => e
                .value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0)
                .map(Some)
                .ok_or_else(|| bad(e, key, "a positive number of seconds")),
        }
    }

    /// The value as a list (comma-separated; empty items dropped); empty when unset.
    pub fn list(&self, key: &str) -> Vec<String> {
        self.text(key)
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A variable of the environment captured at start-up (empty counts as unset): only for
    /// indirections a setting names, such as `api_key_env`.
    pub fn env_var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// An [`OPEN_TABLES`] table of `config.toml`, whole, for the subsystem that owns it.
    pub fn config_table(&self, table: &str) -> Option<&toml::Value> {
        self.open.get(table)
    }

    /// Whether `config.toml` has a `[table]`.
    pub fn has_config_table(&self, table: &str) -> bool {
        self.tables.contains(table)
    }

    /// Values bob masks by exact match in durable writes: secret-named environment variables
    /// and the secret settings (a `secret:NAME` reference is not a value).
    pub fn secret_values(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .env
            .iter()
            .filter(|(k, _)| crate::redact::is_secret_env_name(k))
            .map(|(_, v)| v.clone())
            .collect();
        for sp in SPECS.iter().filter(|s| s.secret) {
            if let Some(e) = self.get(sp.key)
                && !e.value.starts_with(crate::secrets::REF_PREFIX)
            {
                v.push(e.value.clone());
            }
        }
        // The database URL's password, when written out (not a secret:NAME reference).
        if let Some(password) = self
            .text(crate::db::SETTING)
            .and_then(|u| crate::db::DbUrl::parse(u).ok())
            .and_then(|u| u.literal_password())
        {
            v.push(password);
        }
        v
    }

    /// The effective settings as JSON (`bob config show`): for each key its value (typed),
    /// source, origin, and the variables and flag that set it; secrets are `"***"` with
    /// `"set": true`, never their value.
    pub fn show(&self) -> ConfigShow {
        let mut settings = Vec::new();
        for sp in SPECS {
            let e = self.get(sp.key);
            let value = match e {
                None => Value::Null,
                Some(_) if sp.secret => Value::from("***"),
                Some(e) if sp.key == crate::db::SETTING => {
                    Value::from(crate::db::shown_url(&e.value))
                }
                Some(e) => typed(sp, e, self),
            };
            let row = SettingShown {
                value,
                set: sp.secret.then_some(e.is_some()),
                source: self.source(sp.key).as_str().to_string(),
                origin: e.map_or("default", |e| e.origin.as_str()).to_string(),
                env: sp.env.iter().map(|v| v.to_string()).collect(),
                flag: sp.flag.to_string(),
                kind: sp.kind.name().to_string(),
            };
            settings.push((sp.key.to_string(), row));
        }
        ConfigShow {
            home: self.home.root().display().to_string(),
            config_file: self.home.config_path().display().to_string(),
            config_file_exists: self.home.config_path().is_file(),
            user_config_file: self.user_config.as_ref().map(|p| p.display().to_string()),
            settings,
            // The open tables ([`OPEN_TABLES`]) as config.toml has them (prices, not secrets).
            tables: self
                .open
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
                .collect(),
        }
    }
}

/// The value of a row for `config show`, typed when it parses (else the raw text).
fn typed(sp: &Spec, e: &Entry, s: &Settings) -> Value {
    match sp.kind {
        Kind::Bool => s
            .bool(sp.key)
            .map(Value::Bool)
            .unwrap_or_else(|_| Value::from(e.value.clone())),
        Kind::Count => match s.u64(sp.key) {
            Ok(Some(n)) => Value::from(n),
            _ => Value::from(e.value.clone()),
        },
        Kind::Seconds => match s.seconds(sp.key) {
            Ok(Some(x)) => Value::from(x),
            _ => Value::from(e.value.clone()),
        },
        Kind::List => Value::from(s.list(sp.key)),
        _ => Value::from(e.value.clone()),
    }
}

fn bad(e: &Entry, key: &str, what: &str) -> Error {
    Error::invalid(format!("{} must be {what}, got {:?}", e.origin, e.value))
        .with("setting", key.to_string())
}
