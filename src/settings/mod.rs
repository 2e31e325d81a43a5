//! The one settings layer (docs/design.md#settings): every knob of bob, resolved once per process from
//! command-line flags, the environment, `<home>/config.toml` and the built-in defaults, in that
//! order of precedence, each value remembering where it came from.
//!
//! The command line builds one [`Settings`] at start-up ([`Settings::load`], given the flags it
//! parsed and a snapshot of the process environment), installs the process-wide parts once
//! ([`Settings::install`]: the clock, the redactor's rule file and known secret values) and
//! passes the value (or a typed part of it, such as [`crate::tools::policy::Policy`] or
//! [`crate::backend::config::ChatConfig`]) down. Subsystems read no environment variables;
//! this module reads none either: the caller hands it the environment it captured.
//!
//! Every setting is one row of [`SPECS`]: its `config.toml` key (`table.key`), the environment
//! variables that set it (first non-empty wins), the flag that sets it, its default and what
//! it means. `bob config show` prints them all with their sources, secrets blanked, and the
//! docs/settings.md's table documents the same rows.
//!
//! Flags: the global flags (`--home`, `--now`) are layered in here. A per-command knob that is
//! a setting (`turn.seed`, `search.keep_days`, `serve.*`) is layered by its
//! command with [`Settings::with_flags`] (source `flag`, origin the flag), so a clap flag never
//! reads the environment itself (no `env = "BOB_…"` in src/cli/). Other per-command flags
//! (`bob chat --model`, `bob tool run --root`, …) are applied by their command on top of the
//! value found here. Either way they beat everything for that command; `bob config show` shows
//! the settings as a command without such flags sees them.
//!
//! `config.toml` is strict: a key bob does not know, a value of the wrong type or a malformed
//! file is refused with `invalid.request` naming the file and the key (as git refuses a bad
//! config line), so a typo such as `modle = …` never silently falls back to a default. Every
//! command refuses to start on such a file, `bob config show` included.
//!
//! The home: `--home`, `BOB_HOME`, else `./runtime` when that directory exists, else
//! `$XDG_DATA_HOME/bob`, else `$HOME/.local/share/bob` (the captured `XDG_DATA_HOME` and
//! `HOME`). Two config files are read: the user's own (`$XDG_CONFIG_HOME/bob/config.toml`,
//! else `~/.config/bob/config.toml`), then the home's `config.toml`, whose keys win; both are
//! checked alike, and a value's origin names the file it came from.
//!
//! Environment values that are empty (or only whitespace) count as unset. Values are checked
//! for their type when a command uses them, with an error naming where the bad value came
//! from (`BOB_CHAT_TIMEOUT`, `--now`, `config.toml chat.timeout_s`).
//!
//! Documented exceptions (protocol, not settings): the variables bob sets for its own child
//! processes (`BOB_SCHEDULE_JOB_ID` for a scheduled turn, `BOB_NOW` exported for children when
//! `--now` pins the clock), the sandbox helper's internal handshake (its arguments), and the
//! locale variables (`LANG`, `LC_*`, `TERM`) passed through to a sandboxed program. An API key
//! named indirectly (`api_key_env = "MY_KEY"`) is looked up in the same captured environment
//! ([`Settings::env_var`]).

mod config;
mod load;
mod read;
mod specs;

pub use load::{Entry, Flags, Settings, Source};
pub use specs::{
    DEFAULT_BIND, Kind, OPEN_TABLES, PRICES_TABLE, SPECS, Spec, markdown_table, spec_of,
};
