//! The rules file: allow/deny argv prefix rules with verified examples and optional specs.

use super::builtin::has_builtin;
use super::spec::{Kind, ProgramSpec, compile_opts};
use super::values::Ctx;
use super::vet_with;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const BUILTIN_RULES: &str = include_str!("../../../policy/shell-rules.json");

/// A program spec given by the rules file, for a program without a built-in one.
///
/// ```json
/// {"options": "n|lines=number q|quiet", "deny": {"x": "why"}, "operands": ["read_path"],
///  "abbreviations": true}
/// ```
///
/// `options` is the option language of the built-in specs (see [`compile_opts`]): entries
/// `NAMES`, `NAMES=KIND` (required value) or `NAMES?=KIND` (optional), names `|`-separated, one
/// character = a short option; kinds: read_path, write_path, write_dir, read_path_list,
/// number, duration, pattern, format, text, git_arg. `operands` are the operand kinds by
/// position, the last repeating (empty: none allowed).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    #[serde(default)]
    pub options: String,
    #[serde(default)]
    pub deny: BTreeMap<String, String>,
    #[serde(default)]
    pub operands: Vec<Kind>,
    /// GNU getopt_long abbreviations of long options (default false: exact names only).
    #[serde(default)]
    pub abbreviations: bool,
}

/// One allow or deny prefix rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellRule {
    pub action: RuleAction,
    pub prefix: Vec<String>,
    /// argv examples this rule must match.
    #[serde(default, rename = "match")]
    pub matches: Vec<Vec<String>>,
    /// argv examples this rule must not match.
    #[serde(default)]
    pub not_match: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The argument spec of a program without a built-in one (allow rules only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<FileSpec>,
    #[serde(skip)]
    compiled: Option<ProgramSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    Allow,
    Deny,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RulesFile {
    #[serde(default)]
    about: Option<String>,
    #[serde(default)]
    version: Option<u32>,
    rules: Vec<ShellRule>,
}

/// A loaded, example-checked rule set.
#[derive(Debug, Clone)]
pub struct ShellRules {
    pub rules: Vec<ShellRule>,
    pub source: String,
}

impl ShellRule {
    fn matches(&self, argv: &[String]) -> bool {
        !self.prefix.is_empty()
            && argv.len() >= self.prefix.len()
            && self.prefix.iter().zip(argv).all(|(p, a)| p == a)
    }
}

impl ShellRules {
    /// The rules compiled into bob (`policy/shell-rules.json`).
    /// Parsed and example-checked once per process.
    pub fn builtin() -> Result<ShellRules> {
        static BUILTIN: OnceLock<ShellRules> = OnceLock::new();
        if let Some(r) = BUILTIN.get() {
            return Ok(r.clone());
        }
        let r = Self::parse(BUILTIN_RULES, "builtin:policy/shell-rules.json")?;
        Ok(BUILTIN.get_or_init(|| r).clone())
    }

    /// A rules file (JSON). Any rule whose examples do not hold refuses the whole file.
    pub fn load_file(path: &Path) -> Result<ShellRules> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::parse(&text, &path.display().to_string())
            .map_err(|e| e.with("path", path.display().to_string()))
    }

    /// Parses and verifies a rules document.
    pub fn parse(text: &str, source: &str) -> Result<ShellRules> {
        let mut file: RulesFile = serde_json::from_str(text)
            .map_err(|e| Error::bad_json(&format!("shell rules {source}"), &e))?;
        for (i, r) in file.rules.iter_mut().enumerate() {
            let name = format!("rule {} ({:?} {:?})", i + 1, r.action, r.prefix);
            let bad = |msg: String| {
                Error::invalid(format!("shell rules {source}: {name}{msg}")).with("rule", i + 1)
            };
            if r.prefix.is_empty() {
                return Err(bad(" has an empty prefix".into()));
            }
            if r.matches.is_empty() {
                return Err(bad(" carries no `match` example".into()));
            }
            for ex in &r.matches {
                if !r.matches(ex) {
                    return Err(bad(format!(": its example {ex:?} does not match it")));
                }
            }
            for ex in &r.not_match {
                if r.matches(ex) {
                    return Err(bad(format!(": its not_match example {ex:?} matches it")));
                }
            }
            if let Some(fs) = &r.spec {
                if r.action != RuleAction::Allow {
                    return Err(bad(": only an allow rule may carry a spec".into()));
                }
                if has_builtin(&r.prefix[0]) {
                    return Err(bad(format!(
                        ": {:?} has a built-in spec, which a rules file cannot replace",
                        r.prefix[0]
                    )));
                }
                let deny: Vec<(&str, &str)> = fs
                    .deny
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                let opts =
                    compile_opts(&fs.options, &deny).map_err(|e| bad(format!(": spec: {e}")))?;
                r.compiled = Some(ProgramSpec {
                    name: r.prefix[0].clone(),
                    opts,
                    operands: fs.operands.clone(),
                    abbrev: fs.abbreviations,
                    numeric: false,
                });
            }
        }
        let rules = ShellRules {
            rules: file.rules,
            source: source.to_string(),
        };
        // Every allow example must also pass the program's spec (syntax and lexical paths).
        for (i, r) in rules.rules.iter().enumerate() {
            if r.action != RuleAction::Allow {
                continue;
            }
            for ex in &r.matches {
                let ctx = Ctx {
                    sandbox: None,
                    base: PathBuf::new(),
                };
                if let Err(e) = vet_with(ex, &ctx, &rules) {
                    return Err(Error::invalid(format!(
                        "shell rules {source}: rule {} ({:?}): its example {ex:?} is refused by the program's spec: {}",
                        i + 1,
                        r.prefix,
                        e.message
                    ))
                    .with("rule", i + 1));
                }
            }
        }
        Ok(rules)
    }

    /// Allow/deny by prefix: a deny match wins; no allow match is a denial. Returns the
    /// allow rule that matched (the longest prefix).
    pub fn decide(&self, argv: &[String]) -> Result<&ShellRule> {
        if let Some(r) = self
            .rules
            .iter()
            .find(|r| r.action == RuleAction::Deny && r.matches(argv))
        {
            return Err(
                Error::denied(format!("command denied by the shell rule {:?}", r.prefix))
                    .with("rule", r.prefix.join(" ")),
            );
        }
        self.rules
            .iter()
            .filter(|r| r.action == RuleAction::Allow && r.matches(argv))
            .max_by_key(|r| r.prefix.len())
            .ok_or_else(|| {
                Error::denied(format!(
                    "command {:?} is not on the shell allowlist ({})",
                    argv.iter().take(2).cloned().collect::<Vec<_>>().join(" "),
                    self.source
                ))
            })
    }

    /// The rules file's spec for a program, if an allow rule for it carries one.
    pub(super) fn file_spec(&self, prog: &str) -> Option<&ProgramSpec> {
        self.rules
            .iter()
            .filter(|r| r.action == RuleAction::Allow && r.prefix[0] == prog)
            .find_map(|r| r.compiled.as_ref())
    }
}
