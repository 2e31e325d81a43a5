//! Resolving the settings once: flags, then the captured environment, then the config files,
//! then the defaults, each value remembering where it came from ([`Settings::load`]).

use super::config::{Config, parse_config, read_config};
use super::specs::{OPEN_TABLES, SPECS, spec_of};
use crate::clock::{self, Clock};
use crate::error::{Error, Result};
use crate::home::Home;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Flag,
    Env,
    Config,
    Default,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Flag => "flag",
            Source::Env => "env",
            Source::Config => "config",
            Source::Default => "default",
        }
    }
}

/// One resolved value.
#[derive(Clone)]
pub struct Entry {
    pub value: String,
    pub source: Source,
    /// Where exactly: the flag, the variable, `config.toml chat.model`, or `default`.
    pub origin: String,
}

/// The command-line flags that feed the settings: the global ones, and the per-command flags
/// of the command being run ([`Flags::set`]; `bob turn --seed 5` is `turn.seed`).
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub home: Option<PathBuf>,
    pub now: Option<String>,
    /// Per-command flags given on this command line: setting key → value.
    pub command: BTreeMap<&'static str, String>,
}

impl Flags {
    /// Records a per-command flag given on the command line (`None`: not given).
    pub fn set(&mut self, key: &'static str, value: Option<impl ToString>) {
        debug_assert!(spec_of(key).is_some(), "unknown setting {key}");
        if let Some(v) = value {
            self.command.insert(key, v.to_string());
        }
    }

    fn get(&self, key: &str) -> Option<String> {
        match key {
            "home" => self.home.as_ref().map(|p| p.display().to_string()),
            "clock.now" => self.now.clone(),
            _ => self.command.get(key).cloned(),
        }
        .filter(|v| !v.trim().is_empty())
    }
}

/// The effective settings of this process (see the module docs).
#[derive(Clone)]
pub struct Settings {
    pub(super) home: Home,
    /// The user's own config file (`$XDG_CONFIG_HOME/bob/config.toml`), read before the
    /// home's, whose values win.
    pub(super) user_config: Option<PathBuf>,
    pub(super) entries: BTreeMap<&'static str, Entry>,
    pub(super) flags: Flags,
    /// The environment captured at start-up (for indirections such as `api_key_env`).
    pub(super) env: Arc<BTreeMap<String, String>>,
    /// Tables present in `config.toml`.
    pub(super) tables: BTreeSet<String>,
    /// The [`OPEN_TABLES`] present in `config.toml`.
    pub(super) open: Arc<BTreeMap<String, toml::Value>>,
    pub(super) clock: Clock,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("home", &self.home.root())
            .field("keys", &self.entries.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Default for Settings {
    /// Defaults only, home `./runtime`, the system clock (library use and unit tests).
    fn default() -> Settings {
        Settings::resolve(Flags::default(), BTreeMap::new(), None)
            .expect("defaults alone always resolve")
    }
}

impl Settings {
    /// Resolves every setting from `flags`, the captured environment `env` and the home's
    /// `config.toml`. A malformed config file, an unknown key or a value of the wrong type in
    /// it, or an unparsable clock is `invalid.request`.
    pub fn load(flags: Flags, env: impl IntoIterator<Item = (String, String)>) -> Result<Settings> {
        let env: BTreeMap<String, String> = env.into_iter().collect();
        let mut s = Settings::resolve(flags, env, None)?;
        let table = read_config(&s.home, s.user_config.as_deref())?;
        s = Settings::resolve(s.flags.clone(), Arc::unwrap_or_clone(s.env), Some(table))?;
        Ok(s)
    }

    /// The same flags and environment with `config.toml` read again (a long-lived process
    /// such as `bob serve` applies config edits to the next run).
    pub fn reload(&self) -> Result<Settings> {
        let table = read_config(&self.home, self.user_config.as_deref())?;
        Settings::resolve(self.flags.clone(), (*self.env).clone(), Some(table))
    }

    /// These settings with the per-command flags a command was given layered on top (flag
    /// beats everything); the values are checked when used, naming the flag.
    pub fn with_flags(&self, set: impl FnOnce(&mut Flags)) -> Settings {
        let mut flags = self.flags.clone();
        set(&mut flags);
        let mut s = self.clone();
        for (key, value) in &flags.command {
            let Some(sp) = spec_of(key) else { continue };
            s.entries.insert(
                sp.key,
                Entry {
                    value: value.clone(),
                    source: Source::Flag,
                    origin: sp.flag.to_string(),
                },
            );
        }
        s.flags = flags;
        s
    }

    /// The environment captured at start-up, whole (for a process that resolves settings for
    /// other homes, such as `bob eval run`'s per-case homes).
    pub fn captured_env(&self) -> impl Iterator<Item = (&str, &str)> {
        self.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Checks a `config.toml` text the way [`Settings::load`] reads it (unknown keys, types).
    pub fn check_config_text(text: &str) -> Result<()> {
        let table = parse_config(text, "config.toml", OPEN_TABLES)?;
        Settings::resolve(Flags::default(), BTreeMap::new(), Some(table)).map(|_| ())
    }

    fn resolve(
        flags: Flags,
        env: BTreeMap<String, String>,
        config: Option<Config>,
    ) -> Result<Settings> {
        let Config {
            values: config,
            open,
            from_user,
            user_file,
        } = config.unwrap_or_default();
        let tables: BTreeSet<String> = config
            .keys()
            .filter_map(|k| k.split_once('.').map(|(t, _)| t.to_string()))
            .collect();
        let mut entries = BTreeMap::new();
        for sp in SPECS {
            let from_flag = flags.get(sp.key).map(|v| {
                let origin = sp.flag.to_string();
                (v, Source::Flag, origin)
            });
            let from_env = || {
                sp.env.iter().find_map(|name| {
                    env.get(*name)
                        .filter(|v| !v.trim().is_empty())
                        .map(|v| (v.clone(), Source::Env, (*name).to_string()))
                })
            };
            let from_config = || {
                if !sp.file {
                    return None;
                }
                std::iter::once(sp.key).chain(sp.fallback).find_map(|k| {
                    config.get(k).map(|v| {
                        let file = if from_user.contains(k) {
                            user_file.as_str()
                        } else {
                            "config.toml"
                        };
                        (v.clone(), Source::Config, format!("{file} {k}"))
                    })
                })
            };
            let from_default = || {
                sp.default
                    .map(|d| (d.to_string(), Source::Default, "default".to_string()))
            };
            if let Some((value, source, origin)) = from_flag
                .or_else(from_env)
                .or_else(from_config)
                .or_else(from_default)
            {
                entries.insert(
                    sp.key,
                    Entry {
                        value,
                        source,
                        origin,
                    },
                );
            }
        }
        if !entries.contains_key("home") {
            let (value, origin) = default_home(&env);
            entries.insert(
                "home",
                Entry {
                    value,
                    source: Source::Default,
                    origin,
                },
            );
        }
        let home = Home::at(
            entries
                .get("home")
                .map(|e| e.value.clone())
                .unwrap_or_else(|| "runtime".into()),
        );
        let user_config = user_config_path(&env);
        let mut s = Settings {
            home,
            user_config,
            entries,
            flags,
            env: Arc::new(env),
            tables,
            open: Arc::new(open),
            clock: Clock::System,
        };
        s.clock = match s.get("clock.now") {
            Some(e) => Clock::Fixed(clock::parse_rfc3339(&e.value).map_err(|err| {
                Error::invalid(format!("{}: {}", e.origin, err.message))
                    .with("setting", "clock.now")
            })?),
            None => Clock::System,
        };
        Ok(s)
    }
}

/// The home when neither `--home` nor `BOB_HOME` names one: `./runtime` when that directory
/// exists (a project's own home), else `$XDG_DATA_HOME/bob`, else `$HOME/.local/share/bob`,
/// else `./runtime`. Returns the directory and how it was chosen.
fn default_home(env: &BTreeMap<String, String>) -> (String, String) {
    let var = |k: &str| env.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
    if std::path::Path::new("runtime").is_dir() {
        return ("runtime".into(), "default (./runtime exists)".into());
    }
    if let Some(d) = var("XDG_DATA_HOME").filter(|d| d.starts_with('/')) {
        return (format!("{d}/bob"), "default ($XDG_DATA_HOME/bob)".into());
    }
    if let Some(h) = var("HOME").filter(|h| h.starts_with('/')) {
        return (
            format!("{h}/.local/share/bob"),
            "default (~/.local/share/bob)".into(),
        );
    }
    ("runtime".into(), "default".into())
}

/// The user's config file: `$XDG_CONFIG_HOME/bob/config.toml`, else
/// `$HOME/.config/bob/config.toml`.
fn user_config_path(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let var = |k: &str| env.get(k).map(|v| v.trim()).filter(|v| v.starts_with('/'));
    var("XDG_CONFIG_HOME")
        .map(|d| PathBuf::from(d).join("bob/config.toml"))
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".config/bob/config.toml")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// docs/design.md#settings: the process environment is read in one place, `src/cli/mod.rs`, which
    /// hands it to [`Settings::load`]; everything else takes its settings from the value.
    /// The exceptions are the documented protocol ones (module docs), each named here.
    #[test]
    fn only_the_command_line_reads_the_environment() {
        const READS: [&str; 6] = [
            "env::var(",
            "env::var_os(",
            "env::vars(",
            "env::vars_os(",
            "getenv(",
            "env::var;",
        ];
        const EXCEPTIONS: [(&str, &str); 3] = [
            ("cli/mod.rs", "captures the environment for Settings::load"),
            (
                "sandbox/mod.rs",
                "LANG/LC_*/TERM pass-through to a sandboxed program",
            ),
            (
                "tools/argv/tests.rs",
                "a unit test honours POSIXLY_CORRECT as glibc does",
            ),
        ];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut stack = vec![root.clone()];
        let mut offenders = Vec::new();
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().and_then(|x| x.to_str()) != Some("rs") {
                    continue;
                }
                seen += 1;
                let rel = p.strip_prefix(&root).unwrap().display().to_string();
                let text = std::fs::read_to_string(&p).unwrap();
                if EXCEPTIONS.iter().any(|(f, _)| *f == rel) {
                    continue;
                }
                // This test names the patterns it looks for.
                let text = match rel.as_str() {
                    "settings/load.rs" => text.split("#[cfg(test)]").next().unwrap_or(""),
                    _ => text.as_str(),
                };
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    // A clap `env = "…"` reads a variable behind the settings' back too.
                    let clap_env = rel.starts_with("cli/") && code.contains("env = \"");
                    if clap_env || READS.iter().any(|r| code.contains(r)) {
                        offenders.push(format!("src/{rel}:{}: {}", n + 1, line.trim()));
                    }
                }
            }
        }
        assert!(
            seen > 50,
            "walked only {seen} files under {}",
            root.display()
        );
        assert!(
            offenders.is_empty(),
            "read the environment outside src/cli/mod.rs (make it a setting, take it from \
             Settings):\n{}",
            offenders.join("\n")
        );
    }

    #[test]
    fn flag_beats_env_beats_config_beats_default() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            "[clock]\nnow = \"2020-01-01T00:00:00Z\"\n[chat]\nmodel = \"file\"\ntimeout_s = 5\n",
        )
        .unwrap();
        let home = Some(dir.path().to_path_buf());
        let s = Settings::load(
            Flags {
                home: home.clone(),
                now: Some("2022-01-01T00:00:00Z".into()),
                ..Flags::default()
            },
            env(&[
                ("BOB_NOW", "2021-01-01T00:00:00Z"),
                ("BOB_CHAT_MODEL", "envm"),
            ]),
        )
        .unwrap();
        assert_eq!(s.source("clock.now"), Source::Flag);
        assert_eq!(s.text("chat.model"), Some("envm"));
        assert_eq!(s.source("chat.model"), Source::Env);
        assert_eq!(s.seconds("chat.timeout_s").unwrap(), Some(5.0));
        assert_eq!(s.source("chat.timeout_s"), Source::Config);
        assert_eq!(s.source("chat.max_retries"), Source::Default);
        assert_eq!(s.source("home"), Source::Flag);
        let s = Settings::load(
            Flags {
                home,
                ..Flags::default()
            },
            env(&[]),
        )
        .unwrap();
        assert_eq!(s.source("clock.now"), Source::Config);
        assert_eq!(s.text("chat.model"), Some("file"));
        // mtg.* falls back to chat.* in the file.
        assert_eq!(s.text("mtg.model"), Some("file"));
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_refused() {
        for bad in [
            "[chat]\nmodle = \"x\"\n",
            "[nope]\nx = 1\n",
            "top = 1\n",
            "[chat]\nbase_url = 5\n",
            "[chat]\ntimeout_s = \"slow\"\n",
            "[home]\nx = 1\n",
        ] {
            let e = Settings::check_config_text(bad).unwrap_err();
            assert_eq!(e.code, crate::error::Code::InvalidRequest, "{bad}");
        }
        Settings::check_config_text("[tools]\nroots = [\"/a\", \"/b\"]\n").unwrap();
    }

    #[test]
    fn an_open_table_is_kept_whole_for_its_owner() {
        let text = "[prices.\"gpt-4o\"]\ninput = 2.5\n[chat]\nmodel = \"m\"\n";
        assert!(parse_config(text, "config.toml", &[]).is_err());
        let c = parse_config(text, "config.toml", &["prices"]).unwrap();
        assert_eq!(c.open["prices"]["gpt-4o"]["input"].as_float(), Some(2.5));
        assert_eq!(c.values["chat.model"], "m");
    }
}
