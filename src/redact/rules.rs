//! The shipped rule set (gitleaks' default rules and bob's own, turned into static data by
//! build.rs): rules, allowlists, the keyword prefilter and each rule's needs, and how one rule
//! masks its secrets in a text.

use regex::bytes::{Regex as BytesRegex, RegexBuilder};
use std::borrow::Cow;
use std::sync::OnceLock;

/// What a secret is replaced with.
pub const MASK: &str = "[REDACTED]";

/// One `[[rules]]` entry of a rule file, as build.rs writes it (descriptions dropped).
pub(super) struct RuleData {
    pub(super) id: &'static str,
    pub(super) regex: Option<&'static str>,
    secret_group: usize,
    entropy: f64,
    /// Lower-case.
    pub(super) keywords: &'static [&'static str],
    /// The rule has a `path` constraint.
    pub(super) has_path: bool,
    /// bob's extension: a named check the secret must pass too (`""`: none).
    pub(super) check: &'static str,
    /// What any match contains, worked out from the regex by build.rs ([`Rule::may_match`]).
    needs: Needs,
    allow: &'static [AllowData],
}

/// Literals a rule's matches contain: one of each inner list, as (lower-case bytes, compared
/// ASCII case-insensitively; must start a word).
type Needs = &'static [&'static [(&'static [u8], bool)]];

/// One allowlist (`[allowlist]`, `[[rules.allowlists]]`).
pub(super) struct AllowData {
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

/// Every rule of the shipped rule files, in file order (BOB_RULES, then GITLEAKS_RULES).
#[cfg(test)]
pub(super) fn shipped_rule_data() -> impl Iterator<Item = &'static RuleData> {
    BOB_RULES.iter().chain(GITLEAKS_RULES)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    Secret,
    Match,
    Line,
}

/// One allowlist, as used on values (paths and commits do not apply).
#[derive(Debug)]
pub(super) struct Allow {
    target: Target,
    pub(super) patterns: &'static [&'static str],
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

    pub(super) fn regexes(&self) -> &[BytesRegex] {
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
pub(super) struct Rule {
    pub(super) id: &'static str,
    pub(super) pattern: &'static str,
    secret_group: usize,
    entropy: f64,
    pub(super) allow: Vec<Allow>,
    /// Subject to the global gitleaks allowlist.
    gitleaks: bool,
    check: Option<Check>,
    pub(super) needs: Needs,
    re: OnceLock<Option<BytesRegex>>,
}

/// Go RE2 syntax that Rust's parser reads differently, rewritten: a `{` that does not start a
/// repetition (`{{ … }}` in a template) is a literal in RE2 and must be escaped for `regex`;
/// so is a `]` right after a class's opening `[` or `[^`. (Two allowlist patterns of
/// `curl-auth-user` need this; every rule regex compiles as shipped.)
pub(super) fn adapt_go(pattern: &str) -> Cow<'_, str> {
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
pub(super) fn compile(pattern: &str) -> std::result::Result<BytesRegex, regex::Error> {
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
    pub(super) fn may_match(&self, text: &str) -> bool {
        self.needs.iter().all(|any| {
            any.iter()
                .any(|(lit, word_start)| contains_lit(text.as_bytes(), lit, *word_start))
        })
    }

    pub(super) fn regex(&self) -> Option<&BytesRegex> {
        self.re.get_or_init(|| compile(self.pattern).ok()).as_ref()
    }

    /// `text` with this rule's secrets masked, or `None` when nothing was masked.
    pub(super) fn redact(&self, text: &str, global: &[Allow]) -> Option<String> {
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
pub(super) struct RuleSet {
    pub(super) rules: Vec<Rule>,
    keywords: Keywords,
    /// Rules with no keyword: they always run.
    always: Vec<usize>,
    pub(super) global: Vec<Allow>,
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

    pub(super) fn get() -> &'static RuleSet {
        static SET: OnceLock<RuleSet> = OnceLock::new();
        SET.get_or_init(RuleSet::build)
    }

    /// Rules whose keyword occurs in `text` (plus the keyword-less ones), in file order. The
    /// common case, no keyword, allocates nothing.
    pub(super) fn triggered(&self, text: &str) -> Vec<usize> {
        // A few hits (a short value, a JSON key) are collected, sorted and deduplicated; past
        // that, one flag per rule keeps a long text with many keywords linear.
        let n = self.rules.len();
        let mut hits: Vec<usize> = self.always.clone();
        let mut flags: Option<Vec<bool>> = None;
        self.keywords.scan(text.as_bytes(), |rules| {
            if let Some(f) = &mut flags {
                rules.iter().for_each(|&i| f[i] = true);
                return;
            }
            hits.extend_from_slice(rules);
            if hits.len() > 64 {
                let mut f = vec![false; n];
                hits.iter().for_each(|&i| f[i] = true);
                flags = Some(f);
            }
        });
        match flags {
            Some(f) => f
                .iter()
                .enumerate()
                .filter_map(|(i, h)| h.then_some(i))
                .collect(),
            None => {
                hits.sort_unstable();
                hits.dedup();
                hits
            }
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
