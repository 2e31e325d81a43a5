//! Secret redaction: the one step in front of every durable write bob makes (DESIGN.md §8).
//!
//! # Where it runs
//!
//! The storage layer calls it: [`crate::store::write_json_atomic`],
//! [`crate::store::write_text_atomic`], [`crate::store::append_jsonl`] and
//! [`crate::store::jsonl_line`] redact what they serialize with the process-wide redactor of the
//! home ([`for_storage`]), so traces, turn records, checkpoints, failure-loop state and schedule
//! files are masked whoever writes them. The audit log and the approval ledger redact before
//! hashing (their chain hashes cover the redacted record), and memory redacts every row it
//! writes to SQLite (STM, LTM, candidates). Other subsystems with their own stores (the HTTP
//! cache) call [`Redactor::redact_str`] / [`Redactor::redact_value`].
//!
//! # What is replaced by `[REDACTED]`
//!
//! * **Known values**, by exact match: the values of this process's environment variables whose
//!   name says secret (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `*_PASSWD`, `*_PWD`,
//!   `*_PASS`, `*_CREDENTIALS`; at least 8 characters, or [`MIN_LITERAL_CHARS`] when not a
//!   plain word), plus any value added
//!   with [`Redactor::add_literal`] (the secrets store's values).
//! * **The gitleaks default rule set** (`policy/secrets/gitleaks.toml`, MIT, shipped as data
//!   with its licence and version note in `policy/secrets/`): about two hundred provider token
//!   formats, with their keywords, `secretGroup`, entropy thresholds and allowlists.
//! * **bob's own rules** (`policy/secrets/bob.toml`, same format): `password=…`/`passwd: …`/
//!   `pwd=` and any `name=value` / `"name": "value"` whose name says secret (`DB_PASSWORD`,
//!   `aws_secret_access_key`, `secretKey`, `apiKey`, `accessToken`, `clientSecret`,
//!   `x-api-key`; short values too), `Authorization: Basic …` and `basic <base64 of user:pass>`,
//!   bearer tokens, URL passwords (`scheme://user:<password>@host`), secret URL query parameters
//!   (`?api_key=…&token=…&sig=…`), JWTs, PEM private keys and looser forms of the common
//!   provider keys.
//! * In JSON: the whole string value of a field whose name says secret (`api_key`, `token`,
//!   `secret`, `password`, `authorization`, and camelCase/kebab forms such as `secretKey`,
//!   `accessToken`, `x-api-key`); and a string value that is itself a JSON document is parsed
//!   and redacted recursively (then re-serialized compactly).
//! * Every match of a regex in the home's rule file: `<home>/redact.rules`, or the file named
//!   by the `redact.rules` setting (`BOB_REDACT_RULES`; one regex per line, `#` comments).
//! * Secrets in escaped or encoded text: a string holding `\` or `%` is also matched decoded
//!   ([`unescape`], [`percent_decode`]); when only a decoded form holds a secret, that form is
//!   what is returned, masked. A string holding JSON is redacted inside and then whole; object
//!   keys are redacted like values.
//! * Bare private-key bodies (three or more base64 lines of key length, [`mask_key_bodies`]),
//!   prose passwords (bob.toml's `bob-prose-password`), and everything after a PEM private-key
//!   header whose END line is missing.
//!
//! A caller that cuts text before a durable write redacts first ([`before_cut`]): a cut secret
//! is no longer recognisable.
//!
//! # How the rule set runs
//!
//! Rules are data: `build.rs` turns the two TOML files into static tables compiled into the
//! binary (no process parses them). Each rule's `keywords` go into one case-insensitive
//! keyword index ([`Keywords`], built on the first redaction); a text is scanned once, and only the
//! rules whose keyword occurs run their regex (compiled the first time it is needed, then kept
//! for the process). The common case, a string with no candidate keyword, costs one linear scan
//! and allocates nothing. The shipped regexes run as RE2 reads them (ASCII `\w`/`\s`/`\b`, see
//! [`compile`]); every regex is Rust `regex` (finite automata, linear in the text), so redacting
//! a large value is linear too. Only the secret (the rule's `secretGroup`, else its first non-empty group, else
//! the whole match) is masked; the context stays readable. A rule with an `entropy` threshold
//! masks only secrets whose Shannon entropy is above it; allowlist `regexes` (`regexTarget`
//! `secret`, `match` or `line`) and `stopwords` let a finding through as gitleaks does, and the
//! global gitleaks allowlist applies to the gitleaks rules.
//!
//! What gitleaks features are not used: `path` constraints (bob redacts values, not files: the
//! rules that need a path are skipped) and allowlist `paths`/`commits`. Rules whose regex Rust
//! cannot compile are skipped and listed by [`skipped_rules`] (none in the shipped version; a
//! unit test pins that).
//!
//! [`Redactor::redact_value`] returns the JSON paths it replaced (`payload.input.token`), which
//! become an audit event's `redactions`.

use crate::error::{Error, Result};
use crate::home::Home;
use regex::Regex;
use regex::bytes::{Regex as BytesRegex, RegexBuilder};
use serde_json::Value;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// What a secret is replaced with.
pub const MASK: &str = "[REDACTED]";

/// Environment values shorter than this are not masked by exact match (too many false hits);
/// values shorter than 8 characters only when they are not a plain word (`hunter2` is masked,
/// `default` is not: it would mask every default user name).
pub const MIN_LITERAL_CHARS: usize = 6;

fn literal_worth_masking(v: &str) -> bool {
    let n = v.trim().chars().count();
    n >= 8 || (n >= MIN_LITERAL_CHARS && !v.trim().chars().all(|c| c.is_ascii_alphabetic()))
}

// ---------------------------------------------------------------------------------------------
// Rule files (the gitleaks TOML format), turned into static data by build.rs
// ---------------------------------------------------------------------------------------------

/// One `[[rules]]` entry of a rule file, as build.rs writes it (descriptions dropped).
struct RuleData {
    id: &'static str,
    regex: Option<&'static str>,
    secret_group: usize,
    entropy: f64,
    /// Lower-case.
    keywords: &'static [&'static str],
    /// The rule has a `path` constraint.
    has_path: bool,
    /// bob's extension: a named check the secret must pass too (`""`: none).
    check: &'static str,
    /// What any match contains, worked out from the regex by build.rs ([`Rule::may_match`]).
    needs: Needs,
    allow: &'static [AllowData],
}

/// Literals a rule's matches contain: one of each inner list, as (lower-case bytes, compared
/// ASCII case-insensitively; must start a word).
type Needs = &'static [&'static [(&'static [u8], bool)]];

/// One allowlist (`[allowlist]`, `[[rules.allowlists]]`).
struct AllowData {
    /// `regexTarget` (`""`: secret).
    target: &'static str,
    condition: &'static str,
    /// It has `paths` or `commits`.
    has_paths: bool,
    regexes: &'static [&'static str],
    /// Lower-case.
    stopwords: &'static [&'static str],
}

// GLOBAL_ALLOW, GITLEAKS_RULES (policy/secrets/gitleaks.toml, see its NOTICE.md), BOB_RULES
// (policy/secrets/bob.toml) and KEYWORD_INDEX (every keyword, sorted, with its rules'
// positions in BOB_RULES then GITLEAKS_RULES).
include!(concat!(env!("OUT_DIR"), "/secret_rules.rs"));

#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    Secret,
    Match,
    Line,
}

/// One allowlist, as used on values (paths and commits do not apply).
#[derive(Debug)]
struct Allow {
    target: Target,
    patterns: &'static [&'static str],
    regexes: OnceLock<Vec<BytesRegex>>,
    /// Lower-case; a secret containing one is allowed.
    stopwords: &'static [&'static str],
    /// `condition = "AND"`: every kind of check present must hold.
    all: bool,
}

impl Allow {
    /// `None` when nothing of it can apply to a value (a path- or commit-only allowlist, or an
    /// AND allowlist that needs a path).
    fn from_data(d: &'static AllowData) -> Option<Allow> {
        let all = d.condition.eq_ignore_ascii_case("and");
        if (all && d.has_paths) || (d.regexes.is_empty() && d.stopwords.is_empty()) {
            return None;
        }
        let target = match d.target {
            "match" => Target::Match,
            "line" => Target::Line,
            _ => Target::Secret,
        };
        Some(Allow {
            target,
            patterns: d.regexes,
            regexes: OnceLock::new(),
            stopwords: d.stopwords,
            all,
        })
    }

    fn regexes(&self) -> &[BytesRegex] {
        self.regexes.get_or_init(|| {
            self.patterns
                .iter()
                .filter_map(|p| compile(p).ok())
                .collect()
        })
    }

    fn allows<'t>(&self, secret: &'t str, whole: &'t str, line: impl FnOnce() -> &'t str) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => whole,
            Target::Line => line(),
        };
        let by_regex = (!self.patterns.is_empty())
            .then(|| self.regexes().iter().any(|r| r.is_match(target.as_bytes())));
        let by_word = (!self.stopwords.is_empty()).then(|| {
            let s = secret.to_lowercase();
            self.stopwords.iter().any(|w| s.contains(w))
        });
        if self.all {
            by_regex.unwrap_or(true) && by_word.unwrap_or(true)
        } else {
            by_regex.unwrap_or(false) || by_word.unwrap_or(false)
        }
    }
}

/// A named test a secret must pass (bob.toml's `check`).
#[derive(Debug, Clone, Copy)]
enum Check {
    /// Decodes as base64 to printable `user:password`.
    Base64Userinfo,
}

fn base64_userinfo(s: &str) -> bool {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const B64: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    match B64.decode(s) {
        Ok(bytes) => {
            bytes.contains(&b':')
                && bytes.len() >= 3
                && bytes.iter().all(|b| (0x20..0x7f).contains(b))
        }
        Err(_) => false,
    }
}

#[derive(Debug)]
struct Rule {
    id: &'static str,
    pattern: &'static str,
    secret_group: usize,
    entropy: f64,
    allow: Vec<Allow>,
    /// Subject to the global gitleaks allowlist.
    gitleaks: bool,
    check: Option<Check>,
    needs: Needs,
    re: OnceLock<Option<BytesRegex>>,
}

/// Go RE2 syntax that Rust's parser reads differently, rewritten: a `{` that does not start a
/// repetition (`{{ … }}` in a template) is a literal in RE2 and must be escaped for `regex`;
/// so is a `]` right after a class's opening `[` or `[^`. (Two allowlist patterns of
/// `curl-auth-user` need this; every rule regex compiles as shipped.)
fn adapt_go(pattern: &str) -> Cow<'_, str> {
    let b = pattern.as_bytes();
    let is_rep = |i: usize| {
        let rest = &pattern[i + 1..];
        let Some(close) = rest.find('}') else {
            return false;
        };
        let inner = &rest[..close];
        let mut parts = inner.splitn(2, ',');
        let lo = parts.next().unwrap_or("");
        !lo.is_empty()
            && lo.bytes().all(|c| c.is_ascii_digit())
            && parts
                .next()
                .is_none_or(|hi| hi.bytes().all(|c| c.is_ascii_digit()))
    };
    let mut out = String::with_capacity(pattern.len() + 4);
    let (mut i, mut in_class, mut changed) = (0, false, false);
    while i < b.len() {
        let c = b[i];
        if c == b'\\' && i + 1 < b.len() {
            let n = pattern[i + 1..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&pattern[i..i + 1 + n]);
            i += 1 + n;
            continue;
        }
        if !in_class && c == b'[' {
            in_class = true;
            out.push('[');
            i += 1;
            if b.get(i) == Some(&b'^') {
                out.push('^');
                i += 1;
            }
            if b.get(i) == Some(&b']') {
                out.push_str("\\]");
                changed = true;
                i += 1;
            }
            continue;
        }
        if in_class && c == b']' {
            in_class = false;
        } else if !in_class && c == b'{' && !is_rep(i) {
            out.push_str("\\{");
            changed = true;
            i += 1;
            continue;
        }
        let n = pattern[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&pattern[i..i + n]);
        i += n;
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(pattern)
    }
}

/// Compiles a shipped pattern as RE2 reads it: `\w`, `\d`, `\s`, `\b` and case folding are
/// ASCII (Go's semantics), which also keeps compilation cheap (the Unicode forms of
/// `[\w.-]{10,150}` cost ~100x more to build). It runs on the text's bytes; the spans it
/// finds are widened to character boundaries before they are cut out.
fn compile(pattern: &str) -> std::result::Result<BytesRegex, regex::Error> {
    RegexBuilder::new(&adapt_go(pattern))
        .unicode(false)
        .size_limit(64 << 20)
        .dfa_size_limit(8 << 20)
        .build()
}

/// `[start, end)` widened to the nearest character boundaries of `text`.
fn char_span(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// Shannon entropy (bits per character) of `s`, over its characters as gitleaks computes it.
pub fn shannon_entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::<char, u32>::new();
    let mut n = 0u32;
    for c in s.chars() {
        *counts.entry(c).or_default() += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    let n = f64::from(n);
    counts
        .values()
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// How far a "line" reaches on each side of a match, at most: an allowlist with
/// `regexTarget = "line"` sees the match's line, cut to this window, so a text that is one huge
/// line is still redacted in linear time.
const LINE_WINDOW: usize = 512;

fn line_around(text: &str, start: usize, end: usize) -> &str {
    let lo = start.saturating_sub(LINE_WINDOW);
    let hi = (end + LINE_WINDOW).min(text.len());
    let from = memchr::memrchr(b'\n', &text.as_bytes()[lo..start]).map_or(lo, |i| lo + i + 1);
    let to = memchr::memchr(b'\n', &text.as_bytes()[end..hi]).map_or(hi, |i| end + i);
    let (from, to) = char_span(text, from, to);
    &text[from..to]
}

/// Whether `lit` (lower-case) occurs in `text`, ASCII case-insensitively; with `word_start`, only
/// where the byte before it is not `[A-Za-z0-9_]` (what `\b` in front of a word byte means with
/// the ASCII word class the rules are compiled with).
fn contains_lit(text: &[u8], lit: &[u8], word_start: bool) -> bool {
    let Some((&first, rest)) = lit.split_first() else {
        return true;
    };
    let upper = first.to_ascii_uppercase();
    let mut from = 0;
    while let Some(i) = memchr::memchr2(first, upper, &text[from..]).map(|i| from + i) {
        from = i + 1;
        let after = &text[i + 1..];
        if after.len() < rest.len() || !after[..rest.len()].eq_ignore_ascii_case(rest) {
            continue;
        }
        if word_start && i > 0 && {
            let b = text[i - 1];
            b.is_ascii_alphanumeric() || b == b'_'
        } {
            continue;
        }
        return true;
    }
    false
}

impl Rule {
    /// Whether the regex can match `text` at all, by its [`Needs`]: one linear scan per needed
    /// literal and no regex. A keyword is only a hint (`s.` for Vault tokens is in "thanks.",
    /// `ey` for JWTs in "they"); this check is what keeps ordinary text from compiling the rule.
    fn may_match(&self, text: &str) -> bool {
        self.needs.iter().all(|any| {
            any.iter()
                .any(|(lit, word_start)| contains_lit(text.as_bytes(), lit, *word_start))
        })
    }

    fn regex(&self) -> Option<&BytesRegex> {
        self.re.get_or_init(|| compile(self.pattern).ok()).as_ref()
    }

    /// `text` with this rule's secrets masked, or `None` when nothing was masked.
    fn redact(&self, text: &str, global: &[Allow]) -> Option<String> {
        let re = self.regex()?;
        let mut out = String::new();
        let mut last = 0;
        for caps in re.captures_iter(text.as_bytes()) {
            let m = caps.get(0).expect("group 0");
            let g = if self.secret_group > 0 {
                caps.get(self.secret_group)
            } else {
                (1..caps.len()).find_map(|i| caps.get(i).filter(|g| !g.is_empty()))
            }
            .unwrap_or(m);
            let (start, end) = char_span(text, g.start(), g.end());
            let (mstart, mend) = char_span(text, m.start(), m.end());
            let s = &text[start..end];
            if s.is_empty() || s.contains("REDACTED") || start < last {
                continue;
            }
            if self.entropy > 0.0 && shannon_entropy(s) <= self.entropy {
                continue;
            }
            if let Some(Check::Base64Userinfo) = self.check
                && !base64_userinfo(s)
            {
                continue;
            }
            let whole = &text[mstart..mend];
            let allowed = |lists: &[Allow]| {
                lists
                    .iter()
                    .any(|a| a.allows(s, whole, || line_around(text, mstart, mend)))
            };
            if allowed(&self.allow) || (self.gitleaks && allowed(global)) {
                continue;
            }
            out.push_str(&text[last..start]);
            out.push_str(MASK);
            last = end;
        }
        if last == 0 {
            return None;
        }
        out.push_str(&text[last..]);
        Some(out)
    }
}

/// The keyword prefilter: every keyword of every rule (ASCII, at least two bytes), found
/// ASCII case-insensitively in one pass over a text.
///
/// A bit per lower-cased leading byte pair rejects almost every position with one lookup; at a
/// position whose pair starts some keyword, the keywords with that pair are compared. Building
/// it costs microseconds; an Aho-Corasick automaton over the same 268 keywords cost ~1 ms per
/// process to build (measured), more than all the redaction a turn does, and every `bob`
/// invocation is a new process. The keywords come sorted from build.rs ([`KEYWORD_INDEX`]):
/// sorting them took ~0.15M instructions per process.
struct Keywords {
    /// Bit `b0 << 8 | b1` is set when some keyword starts with the lower-case bytes `b0 b1`.
    pairs: Box<[u64; 1024]>,
    /// (leading pair, keyword, its rules: a range of `rules`), sorted by keyword.
    words: Vec<([u8; 2], &'static [u8], std::ops::Range<usize>)>,
    /// The rules of every keyword, one run per keyword.
    rules: Vec<usize>,
}

impl Keywords {
    /// From build.rs's sorted [`KEYWORD_INDEX`]; `rule_at` maps a position in the rule files
    /// (BOB_RULES, then GITLEAKS_RULES) to the rule's index, `None` for a rule not in use.
    fn new(rule_at: &[Option<usize>]) -> Keywords {
        let mut pairs = Box::new([0u64; 1024]);
        let mut words = Vec::with_capacity(KEYWORD_INDEX.len());
        let mut rules = Vec::with_capacity(KEYWORD_INDEX.len() + 64);
        for (k, positions) in KEYWORD_INDEX {
            let b = k.as_bytes();
            assert!(b.len() >= 2, "keyword {k:?} is shorter than two bytes");
            let from = rules.len();
            rules.extend(positions.iter().filter_map(|&p| rule_at[usize::from(p)]));
            if rules.len() == from {
                continue;
            }
            // Keywords are lower-case, so sorted keywords are sorted by leading pair too.
            let pair = [b[0], b[1]];
            let bit = usize::from(pair[0]) << 8 | usize::from(pair[1]);
            pairs[bit >> 6] |= 1 << (bit & 63);
            words.push((pair, b, from..rules.len()));
        }
        Keywords {
            pairs,
            words,
            rules,
        }
    }

    /// Calls `hit` with the rules of every keyword occurrence in `text`.
    fn scan(&self, text: &[u8], mut hit: impl FnMut(&[usize])) {
        for i in 0..text.len().saturating_sub(1) {
            let pair = [
                text[i].to_ascii_lowercase(),
                text[i + 1].to_ascii_lowercase(),
            ];
            let bit = usize::from(pair[0]) << 8 | usize::from(pair[1]);
            if self.pairs[bit >> 6] >> (bit & 63) & 1 == 0 {
                continue;
            }
            let from = self.words.partition_point(|w| w.0 < pair);
            for (_, w, rules) in self.words[from..].iter().take_while(|w| w.0 == pair) {
                if text[i..].len() >= w.len() && text[i..i + w.len()].eq_ignore_ascii_case(w) {
                    hit(&self.rules[rules.clone()]);
                }
            }
        }
    }
}

/// The rules of the shipped rule files, with their keyword prefilter.
struct RuleSet {
    rules: Vec<Rule>,
    keywords: Keywords,
    /// Rules with no keyword: they always run.
    always: Vec<usize>,
    global: Vec<Allow>,
    skipped: Vec<(String, String)>,
}

impl RuleSet {
    fn build() -> RuleSet {
        let global: Vec<Allow> = GLOBAL_ALLOW.iter().filter_map(Allow::from_data).collect();
        let mut rules = Vec::with_capacity(BOB_RULES.len() + GITLEAKS_RULES.len());
        let mut rule_at = Vec::with_capacity(BOB_RULES.len() + GITLEAKS_RULES.len());
        let mut always = Vec::new();
        let mut skipped = Vec::new();
        for (data, gitleaks) in [(BOB_RULES, false), (GITLEAKS_RULES, true)] {
            for d in data {
                rule_at.push(None);
                let Some(pattern) = d.regex else {
                    skipped.push((d.id.to_string(), "matches file paths only".into()));
                    continue;
                };
                if d.has_path {
                    skipped.push((d.id.to_string(), "needs a file path".into()));
                    continue;
                }
                let check = match d.check {
                    "" => None,
                    "base64-userinfo" => Some(Check::Base64Userinfo),
                    other => {
                        skipped.push((d.id.to_string(), format!("unknown check {other:?}")));
                        continue;
                    }
                };
                let i = rules.len();
                if d.keywords.is_empty() {
                    always.push(i);
                }
                *rule_at.last_mut().expect("pushed above") = Some(i);
                rules.push(Rule {
                    id: d.id,
                    pattern,
                    secret_group: d.secret_group,
                    entropy: d.entropy,
                    allow: d.allow.iter().filter_map(Allow::from_data).collect(),
                    gitleaks,
                    check,
                    needs: d.needs,
                    re: OnceLock::new(),
                });
            }
        }
        let keywords = Keywords::new(&rule_at);
        RuleSet {
            rules,
            keywords,
            always,
            global,
            skipped,
        }
    }

    fn get() -> &'static RuleSet {
        static SET: OnceLock<RuleSet> = OnceLock::new();
        SET.get_or_init(RuleSet::build)
    }

    /// Rules whose keyword occurs in `text` (plus the keyword-less ones), in file order. The
    /// common case, no keyword, allocates nothing.
    fn triggered(&self, text: &str) -> Vec<usize> {
        let mut hit: Option<Vec<bool>> = None;
        let n = self.rules.len();
        for &i in &self.always {
            hit.get_or_insert_with(|| vec![false; n])[i] = true;
        }
        self.keywords.scan(text.as_bytes(), |rules| {
            let h = hit.get_or_insert_with(|| vec![false; n]);
            for &i in rules {
                h[i] = true;
            }
        });
        match hit {
            None => Vec::new(),
            Some(h) => h
                .iter()
                .enumerate()
                .filter_map(|(i, h)| h.then_some(i))
                .collect(),
        }
    }
}

/// The shipped rules that are not used, with the reason (path-only rules, regexes Rust cannot
/// compile).
pub fn skipped_rules() -> Vec<(String, String)> {
    let set = RuleSet::get();
    let mut out = set.skipped.clone();
    for r in &set.rules {
        if let Err(e) = compile(r.pattern) {
            out.push((r.id.to_string(), format!("regex does not compile: {e}")));
        }
    }
    out
}

/// How many shipped rules are in use.
pub fn rule_count() -> usize {
    RuleSet::get().rules.len()
}

// ---------------------------------------------------------------------------------------------
// Names that say secret
// ---------------------------------------------------------------------------------------------

/// Field-name endings (after [`normalize_name`]) that mark a string value as a secret anywhere
/// at the end of the name (`dbPassword`, `csrftoken`).
const SECRET_SUFFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "secret_key",
    "access_key",
    "private_key",
    "signing_key",
    "encryption_key",
    "credential",
    "credentials",
    "authorization",
    "cookie",
];

/// Short names that are a secret only as a whole name or a whole `_`-separated last part.
const SECRET_WORDS: &[&str] = &["pwd", "pass", "auth"];

/// `secretKey` → `secret_key`, `x-api-key` → `x_api_key`, `DB_PASSWORD` → `db_password`.
fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c == '-' || c == ' ' || c == '.' {
            out.push('_');
            prev_lower = false;
        } else {
            out.push(c);
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

/// Whether a JSON field's name says its value is a secret.
pub fn is_secret_field(name: &str) -> bool {
    let k = normalize_name(name);
    SECRET_SUFFIXES.iter().any(|w| k.ends_with(w))
        || SECRET_WORDS.iter().any(|w| {
            k.strip_suffix(w)
                .is_some_and(|rest| rest.is_empty() || rest.ends_with('_'))
        })
}

/// Whether an environment variable's name marks its value as a secret.
pub fn is_secret_env_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "PWD",
        "PASS",
        "CREDENTIALS",
        "APIKEY",
    ]
    .iter()
    .any(|s| {
        n.strip_suffix(s)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('_'))
    }) && n != "PWD"
        && n != "OLDPWD"
}

// ---------------------------------------------------------------------------------------------
// The redactor
// ---------------------------------------------------------------------------------------------

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
    /// The shipped rules plus the known secret values the settings installed ([`install`]:
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

    fn load_at(root: &Path) -> Result<Redactor> {
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
        if let Some(store) = crate::secrets::Secrets::open_existing(&Home::at(root))? {
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

    /// Adds a known secret value to mask wherever it appears.
    pub fn add_literal(&mut self, secret: impl Into<String>) {
        let s = secret.into();
        if !s.is_empty() && !self.literals.contains(&s) {
            self.literals.push(s);
            self.literals.sort_by_key(|v| std::cmp::Reverse(v.len()));
            self.escape_literals();
        }
    }

    /// The text with every secret masked; borrowed when nothing matched.
    ///
    /// The text is matched as it is and, when it holds escapes (a `\\` or a `%`, found with
    /// one `memchr` each), also decoded ([`unescape`]: JSON and shell `$'…'` escapes;
    /// [`percent_decode`]: URL encoding), down to [`MAX_DECODE_DEPTH`] levels. When a decoded
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
            && let Some(decoded) = percent_decode(&out)
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

/// `text` with its backslash escapes decoded, or `None` when it holds none: JSON's (`\"`,
/// `\\`, `\/`, `\n`, `\r`, `\t`, `\b`, `\f`, `\uXXXX` with surrogate pairs) and a shell's
/// `$'…'` quoting's (`\'`, `\a`, `\v`, `\e`, `\xHH`, `\0`). An unknown escape is kept as
/// written.
pub fn unescape(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut i = memchr::memchr(b'\\', b)?;
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..i]);
    let hex = |s: &str| u32::from_str_radix(s, 16).ok();
    let mut changed = false;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            let next = memchr::memchr(b'\\', &b[i + 1..]).map_or(b.len(), |n| i + 1 + n);
            out.push_str(&text[i..next]);
            i = next;
            continue;
        }
        let simple = match b[i + 1] {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'\'' => Some('\''),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'a' => Some('\u{7}'),
            b'v' => Some('\u{b}'),
            b'e' => Some('\u{1b}'),
            b'0' => Some('\0'),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            i += 2;
            changed = true;
            continue;
        }
        let code = |len: usize| text.get(i + 2..i + 2 + len).and_then(hex);
        match b[i + 1] {
            b'x' if code(2).is_some() => {
                out.push(char::from_u32(code(2).unwrap_or(0)).unwrap_or('\u{fffd}'));
                i += 4;
                changed = true;
            }
            b'u' if code(4).is_some() => {
                let hi = code(4).unwrap_or(0);
                let lo = (text.get(i + 6..i + 8) == Some("\\u"))
                    .then(|| text.get(i + 8..i + 12).and_then(hex))
                    .flatten()
                    .filter(|lo| (0xDC00..0xE000).contains(lo));
                match lo {
                    Some(lo) if (0xD800..0xDC00).contains(&hi) => {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                        i += 12;
                    }
                    _ => {
                        out.push(char::from_u32(hi).unwrap_or('\u{fffd}'));
                        i += 6;
                    }
                }
                changed = true;
            }
            _ => {
                out.push('\\');
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

/// `text` with its `%XX` sequences decoded (URL encoding; the bytes read as UTF-8, invalid
/// ones replaced), or `None` when it holds none.
pub fn percent_decode(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let hexval = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut changed = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hexval(b[i + 1]), hexval(b[i + 2]))
        {
            out.push(h << 4 | l);
            i += 3;
            changed = true;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    changed.then(|| String::from_utf8_lossy(&out).into_owned())
}

/// Shortest and longest line of a private key's base64 body that [`mask_key_bodies`] counts
/// (PEM writes 64 characters a line, OpenSSH 70, MIME 76).
const KEY_LINE_CHARS: std::ops::RangeInclusive<usize> = 60..=80;

/// `text` with every bare base64 key body masked, or `None` when it holds none: three or more
/// consecutive lines of [`KEY_LINE_CHARS`] base64 characters (plus a shorter closing line),
/// with upper- and lower-case letters and digits among them — a private key printed without
/// its BEGIN/END lines (`sed -n 2,6p id_ed25519`). A body right under a `-----BEGIN` line that
/// does not name a private key (a certificate, a public key) is left alone.
fn mask_key_bodies(text: &str) -> Option<String> {
    let b = text.as_bytes();
    if b.len() < 3 * KEY_LINE_CHARS.start()
        || memchr::memchr_iter(b'\n', b).nth(1).is_none()
        || !three_key_lines(text)
    {
        return None;
    }
    let is_b64 = |l: &str| {
        !l.is_empty()
            && l.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
    };
    // (start, end) of each line's trimmed content.
    let mut lines = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let lead = content.len() - content.trim_start().len();
        let t = content.trim();
        lines.push((at + lead, at + lead + t.len()));
        at += line.len();
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let full = |j: usize| {
            let (s, e) = lines[j];
            KEY_LINE_CHARS.contains(&(e - s)) && is_b64(&text[s..e])
        };
        if !full(i) {
            i += 1;
            continue;
        }
        let first = i;
        while i < lines.len() && full(i) {
            i += 1;
        }
        let full_lines = i - first;
        // The body may open after other text on its first line (`{"text":"b3Bl…`) and close
        // before other text on its last (`…VM=","ok":true}`): those parts are masked too.
        let b64_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
        let mut end = lines[i - 1].1;
        if i < lines.len() {
            let (s, e) = lines[i];
            let lead = text[s..e].bytes().take_while(|&c| b64_byte(c)).count();
            if lead > 0 {
                end = s + lead;
                i += 1;
            }
        }
        if full_lines < 3 {
            continue;
        }
        let mut start = lines[first].0;
        if first > 0 {
            let (s, e) = lines[first - 1];
            let tail = text[s..e]
                .bytes()
                .rev()
                .take_while(|&c| b64_byte(c))
                .count();
            if tail >= 8 && e - tail >= spans.last().map_or(0, |l: &(usize, usize)| l.1) {
                start = e - tail;
            }
        }
        let (first_line_start, last) = (lines[first].0, end);
        let body = &text[first_line_start..last];
        let varied = body.bytes().any(|c| c.is_ascii_uppercase())
            && body.bytes().any(|c| c.is_ascii_lowercase())
            && body.bytes().any(|c| c.is_ascii_digit());
        let header = first
            .checked_sub(1)
            .map(|h| text[lines[h].0..lines[h].1].trim());
        let public = header.is_some_and(|h| h.starts_with("-----BEGIN") && !h.contains("PRIVATE"));
        if varied && !public {
            spans.push((start, end));
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (s, e) in spans {
        out.push_str(&text[from..s]);
        out.push_str(MASK);
        from = e;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// Whether `text` has three consecutive lines of [`KEY_LINE_CHARS`] base64 characters (each
/// trimmed), without which [`mask_key_bodies`] finds nothing: one pass, no allocation.
fn three_key_lines(text: &str) -> bool {
    let mut run = 0;
    for line in text.split('\n') {
        let t = line.trim();
        let full = KEY_LINE_CHARS.contains(&t.len())
            && t.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='));
        run = if full { run + 1 } else { 0 };
        if run == 3 {
            return true;
        }
    }
    false
}

/// Whether a value is written differently in JSON or shell-escaped text.
fn escapes_differently(v: &str) -> bool {
    v.bytes()
        .any(|b| matches!(b, b'"' | b'\\' | b'\'' | 0..=0x1f | 0x7f))
}

/// How a known value appears in escaped text, where that differs from the value: JSON-escaped
/// (a JSON document held in a JSON string, as tool messages are in `checkpoint.json`), JSON-escaped
/// twice, and in a shell's `$'…'` quoting (GNU `ls`/`cat -v` style: `\\`, `\'`, `\n`, `\t`, `\r`,
/// other control bytes as `\ooo`).
fn escaped_forms(value: &str) -> Vec<String> {
    let json = |s: &str| {
        let q = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        q[1..q.len() - 1].to_string()
    };
    let once = json(value);
    let twice = json(&once);
    let mut shell = String::with_capacity(value.len() + 4);
    for c in value.chars() {
        match c {
            '\\' => shell.push_str("\\\\"),
            '\'' => shell.push_str("\\'"),
            '\n' => shell.push_str("\\n"),
            '\t' => shell.push_str("\\t"),
            '\r' => shell.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                shell.push_str(&format!("\\{:03o}", c as u32));
            }
            c => shell.push(c),
        }
    }
    let mut out: Vec<String> = Vec::new();
    // Longest first: the twice-escaped form contains pieces of the once-escaped one.
    for f in [twice, once, shell] {
        if f != value && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// A string value that is itself a JSON object or array.
fn embedded_json(s: &str) -> Option<Value> {
    let t = s.trim();
    let (first, last) = (t.as_bytes().first()?, t.as_bytes().last()?);
    if !matches!((first, last), (b'{', b'}') | (b'[', b']')) {
        return None;
    }
    serde_json::from_str::<Value>(t)
        .ok()
        .filter(|v| v.is_object() || v.is_array())
}

// ---------------------------------------------------------------------------------------------
// The process-wide redactor of a home
// ---------------------------------------------------------------------------------------------

static PROCESS_HOME: OnceLock<PathBuf> = OnceLock::new();

/// The rule file named by the settings, and the known secret values (longest first).
type Installed = (Option<PathBuf>, Vec<String>);
static INSTALLED: OnceLock<Installed> = OnceLock::new();

/// Installs, once per process, what the settings say about redaction: the rule file
/// (`redact.rules`; `None` = `<home>/redact.rules`) and values to mask by exact match
/// ([`crate::settings::Settings::secret_values`]). Called by
/// [`crate::settings::Settings::install`]; later calls are ignored.
pub fn install(rules: Option<PathBuf>, secrets: Vec<String>) {
    let mut literals: Vec<String> = secrets
        .into_iter()
        .filter(|v| literal_worth_masking(v))
        .collect();
    // Longest first (a secret containing another is masked whole); equal ones adjacent.
    literals.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    literals.dedup();
    let _ = INSTALLED.set((rules.filter(|p| !p.as_os_str().is_empty()), literals));
}

fn installed() -> &'static Installed {
    INSTALLED.get_or_init(|| (None, Vec::new()))
}

fn rules_file(root: &Path) -> PathBuf {
    installed()
        .0
        .clone()
        .unwrap_or_else(|| root.join("redact.rules"))
}

/// Names the home this process writes to, so the storage layer ([`for_storage`]) uses its rule
/// file. Called once by the CLI; later calls are ignored.
pub fn set_process_home(home: &Home) {
    let _ = PROCESS_HOME.set(home.root().to_path_buf());
}

/// The redactor of `home`, loaded once per process and home and loaded again when one of its
/// sources changes (a secret stored or removed, the rule file edited), so a long-lived process
/// such as `bob serve` masks a secret from the moment it is stored.
pub fn for_home(home: &Home) -> Result<Arc<Redactor>> {
    for_root(home.root())
}

/// (modification time, length) of each file a home's redactor is built from.
type Sources = Vec<Option<(std::time::SystemTime, u64)>>;

/// The files a home's redactor is built from: the secrets store (its database and WAL) and the
/// rule file.
fn source_paths(root: &Path) -> [PathBuf; 3] {
    let secrets = crate::secrets::dir(&Home::at(root));
    [
        secrets.join("secrets.db"),
        secrets.join("secrets.db-wal"),
        rules_file(root),
    ]
}

fn sources(root: &Path) -> Sources {
    source_paths(root)
        .iter()
        .map(|p| {
            let m = std::fs::metadata(p).ok()?;
            Some((m.modified().ok()?, m.len()))
        })
        .collect()
}

/// A home's redactor as loaded, with what it was loaded from.
struct Loaded {
    root: PathBuf,
    seen: Sources,
    redactor: Arc<Redactor>,
    watch: Option<watch::Watch>,
}

static WATCHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// For a long-lived process (`bob serve`): from now on a loaded redactor's sources are watched
/// with inotify, so a durable write that finds nothing changed since the last one skips the
/// stat of each source file (one read of the watch instead of three path walks). Any event
/// that may concern a source falls back to comparing them, as without a watch. Short-lived
/// processes do not watch (inotify instances are a per-user resource).
pub fn watch_sources() {
    WATCHING.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn for_root(root: &Path) -> Result<Arc<Redactor>> {
    static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = loaded.iter_mut().find(|l| l.root == root) {
        if l.watch.as_mut().is_some_and(|w| w.quiet()) {
            return Ok(l.redactor.clone());
        }
        // Something may have changed (or nothing is watched): the watch is made again before
        // the sources are compared, so a change after the comparison is seen next time.
        l.watch = watch_for(root);
        let now = sources(root);
        if now != l.seen {
            l.redactor = Arc::new(Redactor::load_at(root)?);
            l.seen = now;
        }
        return Ok(l.redactor.clone());
    }
    let watch = watch_for(root);
    let seen = sources(root);
    let redactor = Arc::new(Redactor::load_at(root)?);
    loaded.push(Loaded {
        root: root.to_path_buf(),
        seen,
        redactor: redactor.clone(),
        watch,
    });
    Ok(redactor)
}

/// A watch of `root`'s redactor sources, when this process watches them.
fn watch_for(root: &Path) -> Option<watch::Watch> {
    if !WATCHING.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    watch::Watch::new(&source_paths(root))
}

mod watch {
    //! Watches a redactor's source files: each existing file itself (its inode, so a write
    //! through a symlink or another hard link is seen too) and the directory that holds it
    //! (for files created, replaced or removed there; for a missing directory, its parent).
    //! The kernel queues an inotify event during the very call that changes a file, so a watch
    //! made before the sources were last compared, whose queue holds no event that may concern
    //! a source, proves that none of them has changed since.
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use rustix::io::Errno;
    use std::ffi::OsString;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;

    pub(super) struct Watch {
        fd: OwnedFd,
        /// (directory's watch descriptor, a name in it that matters).
        names: Vec<(i32, OsString)>,
        /// Watch descriptors of the source files themselves: any event on them matters.
        files: Vec<i32>,
    }

    impl Watch {
        /// `None` when inotify is not available or a path has neither its directory nor that
        /// directory's parent (the caller then compares the sources every time).
        pub(super) fn new(paths: &[PathBuf]) -> Option<Watch> {
            let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
            let changed = WatchFlags::MODIFY
                | WatchFlags::ATTRIB
                | WatchFlags::DELETE_SELF
                | WatchFlags::MOVE_SELF;
            let entries = changed
                | WatchFlags::CREATE
                | WatchFlags::DELETE
                | WatchFlags::MOVED_FROM
                | WatchFlags::MOVED_TO
                | WatchFlags::ONLYDIR;
            let mut w = Watch {
                fd,
                names: Vec::new(),
                files: Vec::new(),
            };
            for path in paths {
                let (dir, name) = (path.parent()?, path.file_name()?);
                match inotify::add_watch(&w.fd, dir, entries) {
                    Ok(wd) => w.names.push((wd, name.to_owned())),
                    Err(Errno::NOENT) => {
                        let wd = inotify::add_watch(&w.fd, dir.parent()?, entries).ok()?;
                        w.names.push((wd, dir.file_name()?.to_owned()));
                    }
                    Err(_) => return None,
                }
                match inotify::add_watch(&w.fd, path, changed) {
                    Ok(wd) => w.files.push(wd),
                    Err(Errno::NOENT) => {}
                    Err(_) => return None,
                }
            }
            Some(w)
        }

        /// Reads every queued event: true when none may concern a source. An event lost or
        /// a watch gone counts as a change.
        pub(super) fn quiet(&mut self) -> bool {
            let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
            let mut events = inotify::Reader::new(&self.fd, &mut buf);
            let mut quiet = true;
            loop {
                match events.next() {
                    Ok(e) => {
                        let named = e.file_name().map(|n| n.to_bytes());
                        let lost = e
                            .events()
                            .intersects(ReadFlags::QUEUE_OVERFLOW | ReadFlags::IGNORED);
                        if lost
                            || self.files.contains(&e.wd())
                            || self.names.iter().any(|(wd, name)| {
                                *wd == e.wd() && named.is_some_and(|n| n == name.as_bytes())
                            })
                        {
                            quiet = false;
                        }
                    }
                    Err(Errno::INTR) => {}
                    Err(Errno::AGAIN) => return quiet,
                    Err(_) => return false,
                }
            }
        }
    }
}

/// The redactor every durable write goes through: the process home's ([`set_process_home`]),
/// else the shipped rules and the environment's secret values. An invalid rule file in the home
/// fails the write (`invalid.request`) rather than writing unredacted.
pub fn for_storage() -> Result<Arc<Redactor>> {
    match PROCESS_HOME.get() {
        Some(root) => for_root(root),
        None => Ok(builtin()),
    }
}

/// `text` redacted by the storage redactor ([`for_storage`], else [`builtin`]), for a caller
/// about to cut it before a durable write: a cut made first could split a secret so that no
/// rule or known value recognises the part that is kept.
pub fn before_cut(text: &str) -> Cow<'_, str> {
    let r = for_storage().unwrap_or_else(|_| builtin());
    match r.redact_str(text) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(s) => Cow::Owned(s),
    }
}

/// The shipped rules and the environment's secret values, with no home rule file.
pub fn builtin() -> Arc<Redactor> {
    static BUILTIN: OnceLock<Arc<Redactor>> = OnceLock::new();
    BUILTIN
        .get_or_init(|| Arc::new(Redactor::from_env()))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use std::collections::BTreeSet;

    /// A watched home's rule file edited where no directory watch sees it (through a symlink,
    /// or through another hard link) still reloads the redactor on the next write.
    #[test]
    fn a_watched_rule_file_edited_through_a_symlink_or_a_hard_link_is_reloaded() {
        watch_sources();
        let dir = tempfile::tempdir().unwrap();
        let (home, elsewhere) = (dir.path().join("home"), dir.path().join("elsewhere"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        let target = elsewhere.join("rules");
        std::fs::write(&target, "alpha-[0-9]{3}\n").unwrap();
        std::os::unix::fs::symlink(&target, home.join("redact.rules")).unwrap();
        let masked = |s: &str| for_root(&home).unwrap().redact_str(s).into_owned();
        assert_eq!(masked("alpha-123 beta-456"), "[REDACTED] beta-456");
        assert_eq!(
            masked("beta-456"),
            "beta-456",
            "a quiet watch keeps the redactor"
        );
        std::fs::write(&target, "alpha-[0-9]{3}\nbeta-[0-9]{3}\n").unwrap();
        assert_eq!(
            masked("beta-456"),
            "[REDACTED]",
            "edited through the symlink"
        );
        let link = elsewhere.join("hard");
        std::fs::remove_file(home.join("redact.rules")).unwrap();
        std::fs::hard_link(&target, home.join("redact.rules")).unwrap();
        std::fs::hard_link(&target, &link).unwrap();
        assert_eq!(masked("gamma-789"), "gamma-789");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&link)
            .unwrap();
        std::io::Write::write_all(&mut f, b"gamma-[0-9]{3}\n").unwrap();
        drop(f);
        assert_eq!(
            masked("gamma-789"),
            "[REDACTED]",
            "edited through another link"
        );
    }

    fn red(s: &str) -> String {
        Redactor::default().redact_str(s).into_owned()
    }

    #[test]
    fn every_shipped_rule_compiles_and_only_path_rules_are_skipped() {
        let skipped = skipped_rules();
        let ids: Vec<&str> = skipped.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "freemius-secret-key",
                "hashicorp-tf-password",
                "kubernetes-secret-yaml",
                "nuget-config-password",
                "pkcs12-file"
            ],
            "{skipped:#?}"
        );
        assert!(rule_count() > 200, "{}", rule_count());
        for r in &RuleSet::get().rules {
            assert!(r.regex().is_some(), "{}", r.id);
            for a in &r.allow {
                for p in a.patterns {
                    assert!(compile(p).is_ok(), "{}: {:?}", r.id, compile(p).err());
                }
            }
        }
        for a in &RuleSet::get().global {
            assert_eq!(a.regexes().len(), a.patterns.len());
        }
    }

    #[test]
    fn provider_keys_bearer_and_url_passwords_are_masked() {
        let s = "key sk-proj-abcdefghijklmnopqrstuvwx and Authorization: Bearer abc.def.ghi123 at https://bob:hunter22@example.com/x";
        let out = red(s);
        assert!(!out.contains("abcdefghijklmnop"), "{out}");
        assert!(!out.contains("abc.def.ghi123"), "{out}");
        assert!(!out.contains("hunter22"), "{out}");
        assert!(
            out.contains("Bearer [REDACTED]") && out.contains("https://bob:[REDACTED]@example.com"),
            "{out}"
        );
    }

    #[test]
    fn plain_urls_are_untouched() {
        assert_eq!(red("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1");
        assert_eq!(
            red("see https://example.com/a@b"),
            "see https://example.com/a@b"
        );
        assert_eq!(
            red("ftp://u:secret@h and http://x/"),
            "ftp://u:[REDACTED]@h and http://x/"
        );
    }

    #[test]
    fn the_misses_of_issue_11_are_masked_with_their_context() {
        let cases = [
            (
                "login password=s3cr3t-pw now",
                "login password=[REDACTED] now",
            ),
            ("passwd: letmein99", "passwd: [REDACTED]"),
            ("mysql -u root pwd=abc123", "mysql -u root pwd=[REDACTED]"),
            (
                "export DB_PASSWORD=hunter2",
                "export DB_PASSWORD=[REDACTED]",
            ),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws_secret_access_key = [REDACTED]",
            ),
            (
                "Authorization: Basic dXNlcjpodW50ZXIy",
                "Authorization: Basic [REDACTED]",
            ),
            (
                "curl -H 'basic YWxpY2U6cGFzc3dvcmQ='",
                "curl -H 'basic [REDACTED]'",
            ),
            (
                r#"{"secretKey": "k-9f8e7d"}"#,
                r#"{"secretKey": "[REDACTED]"}"#,
            ),
            ("apiKey=abc123xyz", "apiKey=[REDACTED]"),
            ("accessToken: tok-123", "accessToken: [REDACTED]"),
            ("clientSecret='cs 42'", "clientSecret='[REDACTED]'"),
            ("x-api-key: xk-777", "x-api-key: [REDACTED]"),
            (
                "GET https://api.example.com/v1?api_key=k123&q=cats&token=t456",
                "GET https://api.example.com/v1?api_key=[REDACTED]&q=cats&token=[REDACTED]",
            ),
            (
                r#"{\"password\":\"in-a-string\"}"#,
                r#"{\"password\":\"[REDACTED]\"}"#,
            ),
        ];
        for (input, want) in cases {
            assert_eq!(red(input), want, "input: {input}");
        }
    }

    #[test]
    fn non_ascii_text_is_cut_on_character_boundaries() {
        assert_eq!(
            red("mot de passe: password=pässwörd1 ok — ünïcödé"),
            "mot de passe: password=[REDACTED] ok — ünïcödé"
        );
        assert_eq!(red("é token=é1 é"), "é token=[REDACTED] é");
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for s in [
            "basic authentication is disabled",
            "the token_count is 5; max_tokens=100",
            "a keyboard and a monkey",
            "bypass=1 compass: north",
            "see https://example.com/path?q=1&page=2",
            "sha 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "password=[REDACTED]",
        ] {
            assert_eq!(red(s), s);
        }
    }

    #[test]
    fn gitleaks_rules_mask_only_the_secret_group() {
        // The gitleaks `slack-bot-token` and `anthropic-api-key` rules.
        let bot = "xoxb-1234567890-1234567890123-abcdefghijABCDEFGHIJklmn";
        assert_eq!(red(&format!("tok {bot} end")), "tok [REDACTED] end");
        let ant = format!("sk-ant-api03-{}AA", "a1B2c3D4e5".repeat(9) + "a1B");
        assert!(!red(&ant).contains("a1B2c3D4e5"));
    }

    #[test]
    fn secret_named_fields_camel_case_and_json_in_strings() {
        let mut r = Redactor::default();
        r.add_literal("canary-value-123");
        let mut v = json!({
            "input": {"token": "t0", "note": "x canary-value-123 y", "list": ["ghp_0123456789abcdefghijklmnopqrstuvwxyz"]},
            "secretKey": "sk1", "accessToken": "at1", "x-api-key": "xk1", "clientSecret": "cs1",
            "max_tokens": 5, "token_count": "7",
            "args": "{\"db\": {\"password\": \"pw1\"}, \"n\": 1}",
            "ok": 1
        });
        let paths = r.redact_value(&mut v, "payload");
        assert_eq!(
            paths,
            vec![
                "payload.input.token",
                "payload.input.note",
                "payload.input.list[0]",
                "payload.secretKey",
                "payload.accessToken",
                "payload.x-api-key",
                "payload.clientSecret",
                "payload.args.db.password",
            ]
        );
        assert_eq!(v["input"]["token"], MASK);
        assert_eq!(v["token_count"], "7");
        assert_eq!(v["args"], r#"{"db":{"password":"[REDACTED]"},"n":1}"#);
        assert!(!v.to_string().contains("canary-value-123"));
    }

    /// A real OpenSSH ed25519 private key body (generated for this test, used nowhere).
    const ED25519_BODY: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n\
QyNTUxOQAAACBl9ZB4JgZ0mCmKZc8k1q2uR4bWv5kqz3m3jz8zq1hFQAAAAJgq3k9zKt5P\n\
cwAAAAtzc2gtZWQyNTUxOQAAACBl9ZB4JgZ0mCmKZc8k1q2uR4bWv5kqz3m3jz8zq1hFQA\n\
AAAEBv1u6n0m7Qk3kYdG3cXq0Fb2b4x9kYqJ9K9nZ2w8j0xGX1kHgmBnSYKYplzySNHBfx\n\
Zvq5HhtbVM=";

    #[test]
    fn escaped_and_encoded_secrets_are_found_decoded() {
        let mut r = Redactor::default();
        let secret = r#"pa"ss\wörd%41"#;
        r.add_literal(secret);
        let json_escaped = serde_json::to_string(secret).unwrap();
        let twice = serde_json::to_string(&json_escaped).unwrap();
        let ascii = r#"pa\"ss\\w\u00f6rd%41"#;
        let percent: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
        for text in [
            format!("out: {json_escaped} end"),
            format!("{{\"stdout\":{twice}"),
            format!("x {ascii} y"),
            format!("https://h/?q={}", percent.replace('+', "%20")),
            format!("$'{}'", json_escaped.trim_matches('"')),
        ] {
            let got = r.redact_str(&text);
            assert!(got.contains(MASK), "{text:?} -> {got:?}");
            assert!(
                !got.contains("ss\\w") && !got.contains("ss\\\\w"),
                "{got:?}"
            );
        }
        assert_eq!(
            red("x=1 DB_PASSWORD%3Dhunter22%26y%3D2"),
            "x=1 DB_PASSWORD=[REDACTED]&y=2"
        );
        // Nothing decoded is kept when the decoded form holds no secret.
        assert_eq!(
            red(r#"C:\temp\new 50% "a\"b""#),
            r#"C:\temp\new 50% "a\"b""#
        );
    }

    #[test]
    fn a_cut_pem_block_and_a_bare_key_body_are_masked() {
        let key = format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{ED25519_BODY}\n-----END OPENSSH PRIVATE KEY-----\n"
        );
        let cut: String = serde_json::to_string(&key)
            .unwrap()
            .chars()
            .take(120)
            .collect();
        let got = red(&format!("snippet {cut}"));
        assert!(
            !got.contains("b3BlbnNzaC1rZXkt") && !got.contains("AAAAtzc2gtZW"),
            "{got}"
        );
        let quoted = format!("$'{}'", key.replace('\n', "\\n"));
        assert!(
            !red(&quoted).contains("QyNTUxOQAAACBl9ZB4"),
            "{}",
            red(&quoted)
        );
        let bare = red(&format!("{ED25519_BODY}\n"));
        assert_eq!(bare, "[REDACTED]\n");
        // Two lines are not a key body; a certificate body is public.
        let two: Vec<&str> = ED25519_BODY.lines().take(2).collect();
        assert_eq!(red(&two.join("\n")), two.join("\n"));
        let cert =
            format!("-----BEGIN CERTIFICATE-----\n{ED25519_BODY}\n-----END CERTIFICATE-----");
        assert_eq!(red(&cert), cert);
    }

    #[test]
    fn prose_passwords_are_masked() {
        for (text, want) in [
            ("my password is hunter2.", "my password is [REDACTED]."),
            ("password: s3cr3t!x", "password: [REDACTED]"),
            ("login pw=Tr0ub4dor then", "login pw=[REDACTED] then"),
            (
                "the passphrase was 'open sesame'",
                "the passphrase was '[REDACTED] sesame'",
            ),
        ] {
            assert_eq!(red(text), want, "{text}");
        }
        for text in [
            "the password is incorrect",
            "your password is required",
            "a new password was set",
        ] {
            assert_eq!(red(text), text);
        }
    }

    #[test]
    fn keys_are_masked_and_json_strings_whole() {
        let mut r = Redactor::default();
        r.add_literal("canary-key-0042");
        let mut v = json!({
            "canary-key-0042": 1,
            "a": {"x canary-key-0042": "v", "[REDACTED]": 2},
            "s": "{\"k\": 1} canary-key-0042",
            "t": "[{\"canary-key-0042\": true}]",
        });
        let paths = r.redact_value(&mut v, "");
        let text = v.to_string();
        assert!(!text.contains("canary-key-0042"), "{text}");
        assert_eq!(v["[REDACTED]"], 1);
        assert_eq!(v["a"]["x [REDACTED]"], "v");
        assert_eq!(v["a"]["[REDACTED]"], 2);
        assert_eq!(v["t"], r#"[{"[REDACTED]":true}]"#);
        assert!(paths.contains(&"[REDACTED]".to_string()), "{paths:?}");
    }

    #[test]
    fn names_that_say_secret() {
        for n in [
            "password",
            "DB_PASSWORD",
            "secretKey",
            "apiKey",
            "APIKey",
            "accessToken",
            "clientSecret",
            "x-api-key",
            "pwd",
            "db_pass",
            "auth",
            "Authorization",
        ] {
            assert!(is_secret_field(n), "{n}");
        }
        for n in [
            "max_tokens",
            "token_count",
            "key",
            "bypass",
            "oauth_provider",
            "cache_key",
        ] {
            assert!(!is_secret_field(n), "{n}");
        }
        assert!(is_secret_env_name("DB_PASSWORD"));
        assert!(is_secret_env_name("BOB_CHAT_API_KEY"));
        assert!(!is_secret_env_name("PWD"));
        assert!(!is_secret_env_name("KEYBOARD"));
        assert!(literal_worth_masking("hunter2"));
        assert!(literal_worth_masking("longpassword"));
        assert!(!literal_worth_masking("default"));
        assert!(!literal_worth_masking("abc1"));
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

    /// Ordinary prose carries the keywords of some rules (`s.` of vault-service-token in
    /// "thanks.", `ey` of jwt in "they"), but no rule whose keyword it holds can match it, so
    /// redacting it compiles no regex.
    #[test]
    fn ordinary_text_compiles_no_rule() {
        let set = RuleSet::get();
        let by_id = |id: &str| set.rules.iter().find(|r| r.id == id).unwrap();
        for text in [
            "Fine, thanks. They said hey.",
            "Last turn: hello bob \u{2192} Fine, thanks.",
            "the keys are on the table, as Mrs. Smith's eyes saw",
            "http://127.0.0.1:8080/v1",
        ] {
            let triggered = set.triggered(text);
            assert!(!triggered.is_empty(), "{text:?} should hit some keyword");
            for i in triggered {
                let r = &set.rules[i];
                if ["vault-service-token", "jwt", "bob-jwt", "bob-url-password"].contains(&r.id) {
                    assert!(!r.may_match(text), "{} on {text:?}", r.id);
                }
            }
        }
        assert!(!by_id("jwt").needs.is_empty());
        assert!(!by_id("vault-service-token").needs.is_empty());
        // The prefilter is a hint, never a verdict: the secrets themselves still pass it and are
        // masked in prose.
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        let vault = "s.Ab3dEf6hIj9kLm2nOp5qRs8t";
        let hvs = format!("hvs.{}", "CAESIJ3k9xQ_Lm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9oPq2rSt5uVw8xYz1aBc4dEf7gHi0jKl3mNo6pQr9sTu2vWx5yZa8bCd1eFg4".get(..96).unwrap());
        for secret in [jwt, vault, hvs.as_str()] {
            let text = format!("They said thanks. Here it is: {secret} and that's all.");
            let out = red(&text);
            assert!(!out.contains(secret), "{out}");
            assert!(
                out.contains(MASK) && out.starts_with("They said thanks."),
                "{out}"
            );
        }
    }

    /// `hir` with every look-around (`\b`, `^`, `$`) removed: what proptest can generate from.
    fn without_looks(hir: &regex_syntax::hir::Hir) -> regex_syntax::hir::Hir {
        use regex_syntax::hir::{Capture, Hir, HirKind, Repetition};
        match hir.kind() {
            HirKind::Look(_) => Hir::empty(),
            HirKind::Repetition(r) => Hir::repetition(Repetition {
                sub: Box::new(without_looks(&r.sub)),
                ..r.clone()
            }),
            HirKind::Capture(c) => Hir::capture(Capture {
                sub: Box::new(without_looks(&c.sub)),
                ..c.clone()
            }),
            HirKind::Concat(v) => Hir::concat(v.iter().map(without_looks).collect()),
            HirKind::Alternation(v) => Hir::alternation(v.iter().map(without_looks).collect()),
            _ => hir.clone(),
        }
    }

    /// The needs build.rs derives never reject a text the rule's regex matches: for every rule,
    /// texts generated from its own regex (with prose or word bytes around them), whenever the
    /// regex matches them, pass [`Rule::may_match`].
    #[test]
    fn needs_never_reject_a_match() {
        use proptest::strategy::{Strategy, ValueTree};
        use proptest::test_runner::TestRunner;
        let set = RuleSet::get();
        let mut runner = TestRunner::deterministic();
        let mut checked = 0;
        for r in &set.rules {
            let Ok(hir) = regex_syntax::ParserBuilder::new()
                .unicode(false)
                .utf8(false)
                .build()
                .parse(r.pattern)
            else {
                continue;
            };
            let Ok(strategy) = proptest::string::bytes_regex_parsed(&without_looks(&hir)) else {
                continue;
            };
            let re = r.regex().unwrap();
            for k in 0..24 {
                let body = strategy.new_tree(&mut runner).unwrap().current();
                let body = String::from_utf8_lossy(&body);
                let (pre, post) = [("", ""), ("x ", " y"), ("a", "b"), ("key: ", "\n")][k % 4];
                let text = format!("{pre}{body}{post}");
                if re.is_match(text.as_bytes()) {
                    checked += 1;
                    assert!(
                        r.may_match(&text),
                        "{}: {text:?} matches but its needs reject it",
                        r.id
                    );
                }
            }
        }
        assert!(checked > 1000, "only {checked} matching texts checked");
    }

    #[test]
    fn go_only_syntax_is_adapted() {
        assert_eq!(adapt_go(r"a{2,3}b{4}"), r"a{2,3}b{4}");
        assert_eq!(adapt_go(r"\$?{{[^}]+}}"), r"\$?\{\{[^}]+}}");
        assert_eq!(adapt_go(r"[^:]+:\[[^]]+]"), r"[^:]+:\[[^\]]+]");
        assert_eq!(adapt_go(r"[{]x\{"), r"[{]x\{");
    }

    #[test]
    fn entropy_is_shannon_bits_per_char() {
        assert_eq!(shannon_entropy(""), 0.0);
        assert_eq!(shannon_entropy("aaaa"), 0.0);
        assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-9);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The keyword index finds exactly the rules a naive case-insensitive search finds.
        #[test]
        fn keyword_index_matches_a_naive_search(text in "[a-zA-Z_.:/ -]{0,80}(KEY|Token|sk-|s\\.|://)?[a-z ]{0,10}") {
            let set = RuleSet::get();
            let lower = text.to_ascii_lowercase();
            let mut want = BTreeSet::new();
            for (i, d) in BOB_RULES.iter().chain(GITLEAKS_RULES).filter(|d| d.regex.is_some() && !d.has_path && (d.check.is_empty() || d.check == "base64-userinfo")).enumerate() {
                if d.keywords.iter().any(|k| lower.contains(k)) {
                    want.insert(i);
                }
            }
            let got: BTreeSet<usize> = set.triggered(&text).into_iter().collect();
            prop_assert_eq!(got, want);
        }

        /// A secret assigned to a secret-named key never survives, whatever surrounds it.
        #[test]
        fn assigned_secrets_never_survive(
            pre in "[a-z ]{0,20}",
            name in prop::sample::select(vec!["password", "DB_PASSWORD", "secretKey", "api_key", "accessToken", "passwd", "pwd"]),
            sep in prop::sample::select(vec!["=", ": ", " = ", "\": \""]),
            secret in "[A-Za-z0-9]{4,24}Q7",
            post in "[a-z ]{0,20}",
        ) {
            let text = format!("{pre} {name}{sep}{secret} {post}");
            let out = red(&text);
            prop_assert!(!out.contains(&secret), "{}", out);
        }

        /// Redaction is idempotent and never panics on arbitrary text.
        #[test]
        fn redaction_is_idempotent(text in "\\PC{0,200}") {
            let once = red(&text);
            let twice = red(&once);
            prop_assert_eq!(once, twice);
        }

        /// Provider keys inside arbitrary JSON values are masked wherever they sit.
        #[test]
        fn provider_keys_in_json_are_masked(field in "[a-z]{1,8}", pad in "[a-z ]{0,10}") {
            let key = "ghp_R8x2Kq9ZtV4mWp7Ln3Bc6Hd1Jf5Gs0Ya2XeQ";
            let mut v = json!({ field: [format!("{pad}{key}{pad}")] });
            Redactor::default().redact_value(&mut v, "");
            prop_assert!(!v.to_string().contains(key));
        }
    }
}
