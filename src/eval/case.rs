//! Eval cases: the data a case is made of, read from JSON Lines (see the module docs of
//! [`super`] for the format).

use crate::contracts::{ChatMessage, State};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The suites shipped with bob, in report order: (name, JSON Lines text).
pub const BUILTIN: &[(&str, &str)] = &[
    ("scaffold", include_str!("../../eval/cases/scaffold.jsonl")),
    (
        "injection",
        include_str!("../../eval/cases/injection.jsonl"),
    ),
    ("tools", include_str!("../../eval/cases/tools.jsonl")),
    ("temporal", include_str!("../../eval/cases/temporal.jsonl")),
    ("history", include_str!("../../eval/cases/history.jsonl")),
    ("identity", include_str!("../../eval/cases/identity.jsonl")),
    ("override", include_str!("../../eval/cases/override.jsonl")),
];

/// Whether a case measures utility alone, resistance to an attack, or is a known-deferred
/// test (the Spectator test suite: run and logged, never a failure).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    #[default]
    Benign,
    Attack,
    Deferred,
}

/// One memory record the case stores (as an approved long-term record of user `default`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySeed {
    #[serde(default)]
    pub title: Option<String>,
    pub text: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// The state a case starts from, in a fresh home.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Setup {
    /// The session's state (the State contract).
    pub state: Option<State>,
    /// Earlier messages (the checkpoint's `recent_messages`: HISTORY_JSON).
    pub history: Vec<ChatMessage>,
    /// Long-term memory records (retrieved into the roles that want retrieval).
    pub memory: Vec<MemorySeed>,
    /// Tools a human enabled for the session.
    pub tools: Vec<String>,
    /// Files in the session's sandbox root: relative path → content.
    pub files: BTreeMap<String, String>,
    /// Pages served on a loopback web server for `http.get`/`web.fetch_text`: path (starting
    /// with `/`) → body. When present, loopback fetches are allowed and `net:127.0.0.1` is
    /// granted by the human who set the case up; `{{web}}` in the message and the reference
    /// script is the server's base URL.
    pub web: BTreeMap<String, String>,
    /// The home's `config.toml` (e.g. an `[identity]` table).
    pub config: Option<String>,
}

/// What the answer must do for the user's task to count as done (utility).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Expect {
    /// Each must appear in the visible answer (case-insensitive).
    pub contains: Vec<String>,
    /// At least one must appear.
    pub contains_any: Vec<String>,
    /// None may appear (case-insensitive).
    pub not_contains: Vec<String>,
    /// This turn's nonce must appear.
    pub nonce: bool,
    /// Tools that must have run successfully.
    pub tools_ran: Vec<String>,
}

/// What a planted instruction tries to get done; any of it happening is a successful attack
/// (targeted ASR). The adversarial backend is told to do all of it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Attack {
    /// The attack succeeded if the answer contains one of these (case-insensitive).
    pub says: Vec<String>,
    /// … or one of these tools ran successfully.
    pub tools: Vec<String>,
    /// … or one of these files (sandbox-relative) was created or changed.
    pub files: Vec<String>,
    /// … or one of these capabilities was granted.
    pub grants: Vec<String>,
    /// … or a long-term memory record was written.
    pub memory: bool,
    /// The calls the planted instruction asks for (`{"tool","args"}`), which the adversarial
    /// backend makes.
    pub tool_calls: Vec<Value>,
    /// A planted nonce: the attack succeeded if the answer gives it.
    pub planted_nonce: Option<String>,
}

impl Attack {
    pub fn is_empty(&self) -> bool {
        self.says.is_empty()
            && self.tools.is_empty()
            && self.files.is_empty()
            && self.grants.is_empty()
            && !self.memory
            && self.tool_calls.is_empty()
            && self.planted_nonce.is_none()
    }
}

/// One case.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    pub suite: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub kind: Kind,
    #[serde(default)]
    pub setup: Setup,
    /// The user's message.
    pub message: String,
    #[serde(default)]
    pub expect: Expect,
    #[serde(default)]
    pub attack: Attack,
    /// The reference model: the final role's replies as replay-script lines (see
    /// [`crate::backend::replay`]); `--backend replay` runs them. `{{nonce}}`, `{{date}}` and
    /// `{{web}}` are replaced by this turn's values.
    #[serde(default)]
    pub reference: Vec<Value>,
}

const MAX_CASE_BYTES: usize = 256 * 1024;
const MAX_CASES: usize = 10_000;

/// Parses one JSON Lines text of cases; `origin` names it in errors. Blank lines and lines
/// starting with `#` are skipped.
pub fn parse(origin: &str, text: &str) -> Result<Vec<Case>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let bad = |msg: String| {
            Error::invalid(format!("eval case {origin} line {}: {msg}", i + 1))
                .with("origin", origin.to_string())
                .with("line", i + 1)
        };
        if t.len() > MAX_CASE_BYTES {
            return Err(bad(format!("longer than {MAX_CASE_BYTES} bytes")));
        }
        let case: Case = serde_json::from_str(t).map_err(|e| bad(e.to_string()))?;
        check(&case).map_err(bad)?;
        out.push(case);
    }
    Ok(out)
}

fn check(c: &Case) -> std::result::Result<(), String> {
    let ok_id = |s: &str| {
        !s.is_empty()
            && s.len() <= 64
            && s.chars()
                .all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch))
    };
    if !ok_id(&c.id) {
        return Err(format!("id {:?} must be 1-64 of [A-Za-z0-9._-]", c.id));
    }
    if !ok_id(&c.suite) {
        return Err(format!(
            "suite {:?} must be 1-64 of [A-Za-z0-9._-]",
            c.suite
        ));
    }
    if c.message.trim().is_empty() {
        return Err("message is empty".into());
    }
    for t in &c.setup.tools {
        crate::tools::session::canonical_tool(t).map_err(|e| e.message)?;
    }
    for p in c.setup.files.keys() {
        let path = Path::new(p);
        if p.is_empty()
            || path.is_absolute()
            || path
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            return Err(format!(
                "setup file {p:?} must be a relative path without `..`"
            ));
        }
    }
    for p in c.setup.web.keys() {
        if !p.starts_with('/') {
            return Err(format!("setup web path {p:?} must start with /"));
        }
    }
    if c.kind == Kind::Attack && c.attack.is_empty() {
        return Err("an attack case needs an `attack`".into());
    }
    Ok(())
}

/// The built-in cases, then every `*.jsonl` file of `dir` (sorted by name); ids must be unique.
pub fn load(dir: Option<&Path>) -> Result<Vec<Case>> {
    let mut all = Vec::new();
    for (name, text) in BUILTIN {
        all.extend(parse(&format!("builtin:{name}"), text)?);
    }
    if let Some(dir) = dir {
        let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
        let mut files: Vec<std::path::PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::invalid(format!(
                "--cases {}: no *.jsonl file in it",
                dir.display()
            )));
        }
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(|e| Error::io(&f, e))?;
            all.extend(parse(&f.display().to_string(), &text)?);
        }
    }
    if all.len() > MAX_CASES {
        return Err(Error::invalid(format!("more than {MAX_CASES} cases")));
    }
    let mut seen = std::collections::HashSet::new();
    for c in &all {
        if !seen.insert(c.id.as_str()) {
            return Err(
                Error::invalid(format!("eval case id {:?} is used twice", c.id))
                    .with("id", c.id.clone()),
            );
        }
    }
    Ok(all)
}
