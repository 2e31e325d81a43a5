//! Secret redaction, applied before anything is written to an audit log, the approval ledger,
//! memory, or a logged payload.
//!
//! What is replaced by `[REDACTED]`:
//! * API keys of common providers (OpenAI/Anthropic `sk-…`, GitHub `ghp_…`/`github_pat_…`, Slack
//!   `xox?-…`, AWS `AKIA…`, Google `AIza…`, GitLab `glpat-…`, Stripe `sk_live_…`, Hugging Face
//!   `hf_…`) and PEM private key blocks;
//! * bearer tokens (`Bearer <token>` keeps the word `Bearer`);
//! * passwords in URLs (`scheme://user:<password>@host`);
//! * the values of environment variables named like `*_KEY`, `*_TOKEN`, `*_SECRET`,
//!   `*_PASSWORD` (at least 8 characters), wherever they appear;
//! * the whole string value of a JSON field whose name says it is a secret (`api_key`, `token`,
//!   `secret`, `password`, `authorization`, …);
//! * every match of a regex in the rule file: `<home>/redact.rules`, or the file named by
//!   `BOB_REDACT_RULES` (one regex per line, `#` comments).
//!
//! [`Redactor::redact_value`] returns the JSON paths it replaced (`payload.input.token`), which
//! become an audit event's `redactions`.

use crate::error::{Error, Result};
use crate::home::Home;
use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::OnceLock;

/// What a secret is replaced with.
pub const MASK: &str = "[REDACTED]";

/// A built-in rule: its regex is compiled only the first time a text contains one of its
/// `needles` (ASCII case-insensitive) and passes its `gate`, so a command whose strings hold no
/// candidate secret pays no regex compilation at start-up.
struct Builtin {
    needles: &'static [&'static str],
    /// A cheap necessary condition on the lower-cased text, checked after the needles.
    gate: fn(&str) -> bool,
    pattern: &'static str,
    /// What a match becomes (`$1` keeps the first group).
    replacement: &'static str,
    re: OnceLock<Regex>,
}

fn always(_: &str) -> bool {
    true
}

/// Whether some `://` in `text` is followed by an `@` before the next `/`: a necessary
/// condition for a `scheme://user:password@host` URL, so a plain URL (every trace and audit
/// event naming a backend carries one) does not compile the URL-password regex.
fn url_with_userinfo(text: &str) -> bool {
    text.match_indices("://").any(|(i, _)| {
        let rest = &text.as_bytes()[i + 3..];
        let host_end = memchr::memchr(b'/', rest).unwrap_or(rest.len());
        memchr::memchr(b'@', &rest[..host_end]).is_some()
    })
}

impl Builtin {
    const fn new(
        needles: &'static [&'static str],
        pattern: &'static str,
        replacement: &'static str,
    ) -> Self {
        Builtin::gated(needles, always, pattern, replacement)
    }
    const fn gated(
        needles: &'static [&'static str],
        gate: fn(&str) -> bool,
        pattern: &'static str,
        replacement: &'static str,
    ) -> Self {
        Builtin {
            needles,
            gate,
            pattern,
            replacement,
            re: OnceLock::new(),
        }
    }
    fn regex(&self) -> &Regex {
        self.re
            .get_or_init(|| Regex::new(self.pattern).expect("builtin redaction pattern"))
    }
}

static BUILTINS: [Builtin; 12] = [
    Builtin::new(
        &["sk-"],
        r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        MASK,
    ),
    Builtin::new(
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"\bgh[pousr]_[A-Za-z0-9]{30,}",
        MASK,
    ),
    Builtin::new(&["github_pat_"], r"\bgithub_pat_[A-Za-z0-9_]{22,}", MASK),
    Builtin::new(&["xox"], r"\bxox[abprs]-[A-Za-z0-9\-]{10,}", MASK),
    Builtin::new(&["akia", "asia"], r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", MASK),
    Builtin::new(&["aiza"], r"\bAIza[0-9A-Za-z_\-]{35}", MASK),
    Builtin::new(&["glpat-"], r"\bglpat-[A-Za-z0-9_\-]{20,}", MASK),
    Builtin::new(
        &["k_live_", "k_test_"],
        r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
        MASK,
    ),
    Builtin::new(&["hf_"], r"\bhf_[A-Za-z0-9]{30,}", MASK),
    Builtin::new(
        &["private key-----"],
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        MASK,
    ),
    Builtin::new(
        &["bearer"],
        r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=\-]{8,}",
        "${1}[REDACTED]",
    ),
    Builtin::gated(
        &["://"],
        url_with_userinfo,
        r"(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]+:)[^@\s/]+@",
        "${1}[REDACTED]@",
    ),
];

/// Field names whose string value is a secret, compared after lower-casing and `-` → `_`:
/// the whole name, or its last `_`/`.`-separated part(s).
const SECRET_FIELDS: &[&str] = &[
    "api_key",
    "apikey",
    "token",
    "access_token",
    "refresh_token",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "authorization",
    "private_key",
];

fn is_secret_field(name: &str) -> bool {
    let k = name.to_ascii_lowercase().replace('-', "_");
    SECRET_FIELDS.iter().any(|w| {
        k.strip_suffix(w)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('_') || rest.ends_with('.'))
    })
}

/// Whether an environment variable's name marks its value as a secret.
pub fn is_secret_env_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    ["_KEY", "_TOKEN", "_SECRET", "_PASSWORD"]
        .iter()
        .any(|s| n.ends_with(s))
}

/// A configured set of redaction rules.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    literals: Vec<String>,
    rules: Vec<Regex>,
}

impl Redactor {
    /// The built-in rules plus the secret-named variables of this process's environment (read
    /// once per process: a turn loads several redactors).
    pub fn from_env() -> Redactor {
        static ENV_SECRETS: OnceLock<Vec<String>> = OnceLock::new();
        let literals = ENV_SECRETS.get_or_init(|| {
            let mut literals: Vec<String> = std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .filter(|(k, v)| is_secret_env_name(k) && v.chars().count() >= 8)
                .map(|(_, v)| v)
                .collect();
            // Longest first (a secret containing another is masked whole); equal ones adjacent.
            literals.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
            literals.dedup();
            literals
        });
        Redactor {
            literals: literals.clone(),
            rules: Vec::new(),
        }
    }

    /// [`Redactor::from_env`] plus the rule file (`BOB_REDACT_RULES`, else `<home>/redact.rules`
    /// if it exists), plus every value of the home's secrets store ([`crate::secrets`]). A
    /// rule that is not a valid regex is an `invalid.request`.
    pub fn load(home: &Home) -> Result<Redactor> {
        let mut r = Redactor::from_env();
        let path = match std::env::var_os("BOB_REDACT_RULES") {
            Some(p) if !p.is_empty() => std::path::PathBuf::from(p),
            _ => home.root().join("redact.rules"),
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => r
                .add_rules(&text)
                .map_err(|e| e.with("path", path.display().to_string()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path, e)),
        }
        // Every value of the home's secrets store is masked by exact match.
        if let Some(store) = crate::secrets::Secrets::open_existing(home)? {
            for v in store.values()? {
                r.add_literal(v);
            }
        }
        Ok(r)
    }

    /// Adds regex rules, one per line (`#` starts a comment line).
    pub fn add_rules(&mut self, text: &str) -> Result<()> {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let re = Regex::new(line).map_err(|e| {
                Error::invalid(format!("redaction rule on line {}: {e}", i + 1)).with("line", i + 1)
            })?;
            self.rules.push(re);
        }
        Ok(())
    }

    /// Adds a literal secret value to mask wherever it appears.
    pub fn add_literal(&mut self, secret: impl Into<String>) {
        let s = secret.into();
        if !s.is_empty() && !self.literals.contains(&s) {
            self.literals.push(s);
            self.literals.sort_by_key(|v| std::cmp::Reverse(v.len()));
        }
    }

    /// The text with every secret masked; borrowed when nothing matched.
    pub fn redact_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for lit in &self.literals {
            if out.contains(lit.as_str()) {
                out = Cow::Owned(out.replace(lit.as_str(), MASK));
            }
        }
        for re in &self.rules {
            if re.is_match(&out) {
                out = Cow::Owned(re.replace_all(&out, MASK).into_owned());
            }
        }
        let lower = out.to_ascii_lowercase();
        for b in &BUILTINS {
            if b.needles.iter().any(|n| lower.contains(n))
                && (b.gate)(&lower)
                && b.regex().is_match(&out)
            {
                out = Cow::Owned(b.regex().replace_all(&out, b.replacement).into_owned());
            }
        }
        out
    }

    /// Masks secrets inside `value` in place; returns the JSON paths replaced, each starting
    /// with `prefix` (e.g. `payload`).
    pub fn redact_value(&self, value: &mut Value, prefix: &str) -> Vec<String> {
        let mut paths = Vec::new();
        self.walk(value, prefix.to_string(), false, &mut paths);
        paths
    }

    fn walk(&self, value: &mut Value, path: String, secret_field: bool, paths: &mut Vec<String>) {
        match value {
            Value::String(s) => {
                if secret_field && !s.is_empty() && s != MASK {
                    *s = MASK.to_string();
                    paths.push(path);
                } else if let Cow::Owned(new) = self.redact_str(s) {
                    *s = new;
                    paths.push(path);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter_mut().enumerate() {
                    self.walk(v, format!("{path}[{i}]"), secret_field, paths);
                }
            }
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    let child = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    self.walk(v, child, is_secret_field(k), paths);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn provider_keys_bearer_and_url_passwords_are_masked() {
        let r = Redactor::default();
        let s = "key sk-proj-abcdefghijklmnopqrstuvwx and Authorization: Bearer abc.def.ghi123 at https://bob:hunter22@example.com/x";
        let out = r.redact_str(s);
        assert!(!out.contains("abcdefghijklmnop"), "{out}");
        assert!(!out.contains("abc.def.ghi123"), "{out}");
        assert!(!out.contains("hunter22"), "{out}");
        assert!(
            out.contains("Bearer [REDACTED]") && out.contains("https://bob:[REDACTED]@example.com"),
            "{out}"
        );
    }

    #[test]
    fn plain_urls_pass_the_url_password_gate_untouched() {
        assert!(!url_with_userinfo("http://127.0.0.1:8080/v1"));
        assert!(!url_with_userinfo("see https://example.com/a@b"));
        assert!(url_with_userinfo("https://bob:pw@example.com/x"));
        assert!(url_with_userinfo("a http://x/ and ftp://u:p@h"));
        let r = Redactor::default();
        assert_eq!(
            r.redact_str("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(
            r.redact_str("ftp://u:secret@h and http://x/"),
            "ftp://u:[REDACTED]@h and http://x/"
        );
    }

    #[test]
    fn secret_named_fields_and_literals_are_masked_with_paths() {
        let mut r = Redactor::default();
        r.add_literal("canary-value-123");
        let mut v = json!({"input": {"token": "t0", "note": "x canary-value-123 y", "list": ["ghp_0123456789abcdefghijklmnopqrstuvwxyz"]}, "ok": 1});
        let paths = r.redact_value(&mut v, "payload");
        assert_eq!(
            paths,
            vec![
                "payload.input.token",
                "payload.input.note",
                "payload.input.list[0]"
            ]
        );
        assert_eq!(v["input"]["token"], MASK);
        assert!(!v.to_string().contains("canary-value-123"));
    }

    #[test]
    fn rule_file_lines_are_regexes_and_bad_ones_are_invalid() {
        let mut r = Redactor::default();
        r.add_rules("# comment\nproject-[0-9]{4}\n").unwrap();
        assert_eq!(r.redact_str("see project-1234 now"), "see [REDACTED] now");
        assert_eq!(
            r.add_rules("(").unwrap_err().code,
            crate::error::Code::InvalidRequest
        );
    }
}
