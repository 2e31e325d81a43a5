//! The redactor: known values, the home's rules and the shipped rule set applied to a text
//! (as written and decoded) and to a JSON value (its strings, keys and strings holding JSON).

use super::decode::{embedded_json, escaped_forms, escapes_differently, percent_decode, unescape};
use super::installed::{installed, rules_file};
use super::key_bodies::mask_key_bodies;
use super::names::is_secret_field;
use super::rules::{MASK, RuleSet};
use crate::error::{Error, Result};
use crate::home::Home;
use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;
use std::path::Path;

/// A configured redactor: the shipped rules, known secret values, and the home's own rules.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Known secret values, longest first.
    literals: Vec<String>,
    /// The escaped forms of the known values that escape differently ([`escaped_forms`]), in
    /// the order of `literals`: worked out once, not for every escaped text.
    escaped: Vec<String>,
    /// The home's rule file.
    rules: Vec<Regex>,
}

impl Redactor {
    /// The shipped rules plus the known secret values the settings installed ([`super::install`]:
    /// secret-named variables of the environment captured at start-up, secret settings).
    /// Nothing is read from the environment here.
    pub fn from_env() -> Redactor {
        let mut r = Redactor {
            literals: installed().1.clone(),
            escaped: Vec::new(),
            rules: Vec::new(),
        };
        r.escape_literals();
        r
    }

    fn escape_literals(&mut self) {
        self.escaped = self
            .literals
            .iter()
            .filter(|l| escapes_differently(l))
            .flat_map(|l| escaped_forms(l))
            .collect();
    }

    /// [`Redactor::from_env`] plus the rule file (`redact.rules`, else `<home>/redact.rules`
    /// if it exists), plus every value of the home's secrets store ([`crate::secrets`]). A
    /// rule that is not a valid regex is an `invalid.request`.
    pub fn load(home: &Home) -> Result<Redactor> {
        Redactor::load_at(home.root())
    }

    pub(super) fn load_at(root: &Path) -> Result<Redactor> {
        let mut r = Redactor::from_env();
        let path = rules_file(root);
        match std::fs::read_to_string(&path) {
            Ok(text) => r
                .add_rules(&text)
                .map_err(|e| e.with("path", path.display().to_string()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path, e)),
        }
        // Every value of the home's secrets store is masked by exact match.
        for v in crate::secrets::values_to_mask(&Home::at(root))? {
            r.add_literal(v);
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

    /// Adds a known secret value to mask wherever it appears.
    pub fn add_literal(&mut self, secret: impl Into<String>) {
        let s = secret.into();
        if !s.is_empty() && !self.literals.contains(&s) {
            self.literals.push(s);
            self.literals.sort_by_key(|v| std::cmp::Reverse(v.len()));
            self.escape_literals();
        }
    }

    /// The length in characters of the longest known secret value, in any of the forms it is
    /// matched in (0 when none): text streamed out piece by piece must hold back at least
    /// this much, so a value split across pieces is whole before any of it is sent.
    pub fn longest_literal_chars(&self) -> usize {
        self.literals
            .iter()
            .chain(&self.escaped)
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
    }

    /// The text with every secret masked; borrowed when nothing matched.
    ///
    /// The text is matched as it is and, when it holds escapes (a `\\`, a `%` or a form's `+`,
    /// found with one `memchr` each), also decoded ([`unescape`]: JSON and shell `$'…'` escapes;
    /// [`percent_decode`]: URL encoding, and `+` as a space in a form-encoded query), down to [`MAX_DECODE_DEPTH`] levels. When a decoded
    /// form holds a secret the encoded one hid, the answer is that decoded form with the secret
    /// masked: what is stored is then readable and holds no secret in any encoding.
    pub fn redact_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redact_decoded(text, 0)
    }

    fn redact_decoded<'a>(&self, text: &'a str, depth: u8) -> Cow<'a, str> {
        let out = self.redact_plain(text);
        if depth >= MAX_DECODE_DEPTH {
            return out;
        }
        let b = out.as_bytes();
        let (slash, percent) = (memchr::memchr(b'\\', b), memchr::memchr(b'%', b));
        if slash.is_some()
            && let Some(decoded) = unescape(&out)
            && let Cow::Owned(r) = self.redact_decoded(&decoded, depth + 1)
        {
            return Cow::Owned(r);
        }
        if percent.is_some()
            && let Some(decoded) = percent_decode(&out, false)
            && let Cow::Owned(r) = self.redact_decoded(&decoded, depth + 1)
        {
            return Cow::Owned(r);
        }
        // A form-encoded query (`a=b+c`) writes a space as `+`: tried only where a `+` sits
        // in text that looks encoded (a `%` or an `=`), so plain sums and prose cost nothing.
        if memchr::memchr(b'+', b).is_some()
            && (percent.is_some() || memchr::memchr(b'=', b).is_some())
            && let Some(decoded) = percent_decode(&out, true)
            && let Cow::Owned(r) = self.redact_decoded(&decoded, depth + 1)
        {
            return Cow::Owned(r);
        }
        out
    }

    /// The text with every secret masked as written (no decoding).
    fn redact_plain<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        // Escaped text (a JSON document held in a string, shell-quoted output) may hold a known
        // value in an escaped form that decoding cannot reach once a rule has masked part of
        // it: those forms are masked first, and only for values that escape differently.
        if !self.escaped.is_empty() && memchr::memchr(b'\\', text.as_bytes()).is_some() {
            for e in &self.escaped {
                if memchr::memmem::find(out.as_bytes(), e.as_bytes()).is_some() {
                    out = Cow::Owned(out.replace(e.as_str(), MASK));
                }
            }
        }
        for lit in &self.literals {
            if memchr::memmem::find(out.as_bytes(), lit.as_bytes()).is_some() {
                out = Cow::Owned(out.replace(lit.as_str(), MASK));
            }
        }
        for re in &self.rules {
            if re.is_match(&out) {
                out = Cow::Owned(re.replace_all(&out, MASK).into_owned());
            }
        }
        let set = RuleSet::get();
        for i in set.triggered(&out) {
            if !set.rules[i].may_match(&out) {
                continue;
            }
            if let Some(new) = set.rules[i].redact(&out, &set.global) {
                out = Cow::Owned(new);
            }
        }
        if let Some(new) = mask_key_bodies(&out) {
            out = Cow::Owned(new);
        }
        out
    }

    /// Masks secrets inside `value` in place; returns the JSON paths replaced, each starting
    /// with `prefix` (e.g. `payload`).
    pub fn redact_value(&self, value: &mut Value, prefix: &str) -> Vec<String> {
        let mut paths = Vec::new();
        self.walk(value, &mut prefix.to_string(), false, &mut paths);
        paths
    }

    /// Whether `value` holds anything [`Redactor::redact_value`] would mask (it is not changed).
    pub fn has_secret(&self, value: &Value) -> bool {
        let mut v = value.clone();
        !self.redact_value(&mut v, "").is_empty()
    }

    /// `path` is the JSON path of `value`, built in one buffer (a segment pushed before each
    /// child, cut after it) and copied only for a value that is redacted.
    fn walk(
        &self,
        value: &mut Value,
        path: &mut String,
        secret_field: bool,
        paths: &mut Vec<String>,
    ) {
        match value {
            Value::String(s) => {
                if secret_field {
                    if !s.is_empty() && s != MASK {
                        *s = MASK.to_string();
                        paths.push(path.clone());
                    }
                    return;
                }
                // A string holding JSON is redacted inside (field names say secret there too),
                // then whole like any other string.
                if let Some(mut inner) = embedded_json(s) {
                    let before = paths.len();
                    self.walk(&mut inner, path, false, paths);
                    if paths.len() > before {
                        *s = inner.to_string();
                    }
                }
                if let Cow::Owned(new) = self.redact_str(s) {
                    *s = new;
                    if paths.last() != Some(path) {
                        paths.push(path.clone());
                    }
                }
            }
            Value::Array(items) => {
                let len = path.len();
                for (i, v) in items.iter_mut().enumerate() {
                    use std::fmt::Write as _;
                    let _ = write!(path, "[{i}]");
                    self.walk(v, path, secret_field, paths);
                    path.truncate(len);
                }
            }
            Value::Object(map) => {
                let len = path.len();
                let mut renamed = false;
                for (k, v) in map.iter_mut() {
                    if len > 0 {
                        path.push('.');
                    }
                    path.push_str(k);
                    self.walk(v, path, is_secret_field(k), paths);
                    path.truncate(len);
                    renamed |= matches!(self.redact_str(k), Cow::Owned(_));
                }
                if renamed {
                    self.mask_keys(map, path, paths);
                }
            }
            _ => {}
        }
    }
}

/// How many levels of escaping [`Redactor::redact_str`] decodes (JSON in a JSON string in a
/// JSON string is three).
pub const MAX_DECODE_DEPTH: u8 = 3;

impl Redactor {
    /// Renames every key of `map` that holds a secret to its masked form (a key that then
    /// equals another gets `#2`, `#3`, … appended), keeping the order of the others.
    fn mask_keys(
        &self,
        map: &mut serde_json::Map<String, Value>,
        path: &str,
        paths: &mut Vec<String>,
    ) {
        let old = std::mem::take(map);
        for (k, v) in old {
            let key = match self.redact_str(&k) {
                Cow::Borrowed(_) => k,
                Cow::Owned(masked) => {
                    let mut key = masked.clone();
                    let mut n = 1;
                    while map.contains_key(&key) {
                        n += 1;
                        key = format!("{masked}#{n}");
                    }
                    paths.push(if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    });
                    key
                }
            };
            map.insert(key, v);
        }
    }
}
