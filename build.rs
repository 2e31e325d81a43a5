//! Turns the secret rule files (`policy/secrets/*.toml`, the gitleaks format) into static Rust
//! data, so no process parses ~150 KB of TOML before its first write: the rules are data in the
//! repository, compiled into the binary as-is. Only the format changes here (descriptions are
//! dropped); what each field means is decided in `src/redact/rules.rs`. It also works out, from each
//! rule's regex, the literals any match must contain (`needs`), so a rule whose keyword occurs
//! in ordinary text (`s.` in "thanks.", `ey` in "they") is not compiled for it.

use std::fmt::Write as _;
use toml::{Table, Value};

fn strs(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn allow(out: &mut String, t: &Table) {
    let regexes = strs(t.get("regexes"));
    let stopwords: Vec<String> = strs(t.get("stopwords"))
        .iter()
        .map(|w| w.to_lowercase())
        .collect();
    let target = t.get("regexTarget").and_then(Value::as_str).unwrap_or("");
    let condition = t.get("condition").and_then(Value::as_str).unwrap_or("");
    let has_paths = !strs(t.get("paths")).is_empty() || !strs(t.get("commits")).is_empty();
    write!(
        out,
        "AllowData {{ target: {target:?}, condition: {condition:?}, has_paths: {has_paths}, regexes: &{regexes:?}, stopwords: &{stopwords:?} }},"
    )
    .unwrap();
}

fn allows(out: &mut String, t: &Table) {
    out.push_str("&[");
    if let Some(Value::Table(a)) = t.get("allowlist") {
        allow(out, a);
    }
    if let Some(Value::Array(list)) = t.get("allowlists") {
        for a in list.iter().filter_map(Value::as_table) {
            allow(out, a);
        }
    }
    out.push(']');
}

/// Writes the rules of one file; returns each rule's keywords (lower-case), in file order.
fn file(out: &mut String, name: &str, text: &str, gitleaks: bool) -> Vec<Vec<String>> {
    let mut keywords_of = Vec::new();
    let t: Table = text
        .parse()
        .unwrap_or_else(|e| panic!("policy/secrets/{name} is not valid TOML: {e}"));
    if gitleaks {
        out.push_str("static GLOBAL_ALLOW: &[AllowData] = ");
        allows(out, &t);
        out.push_str(";\n");
    }
    let ident = if gitleaks {
        "GITLEAKS_RULES"
    } else {
        "BOB_RULES"
    };
    writeln!(out, "static {ident}: &[RuleData] = &[").unwrap();
    let rules = t.get("rules").and_then(Value::as_array).cloned();
    for r in rules.unwrap_or_default().iter().filter_map(Value::as_table) {
        let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let id = s("id");
        let regex = r.get("regex").and_then(Value::as_str);
        let group = r
            .get("secretGroup")
            .and_then(Value::as_integer)
            .unwrap_or(0);
        let entropy = match r.get("entropy") {
            Some(Value::Float(f)) => *f,
            Some(Value::Integer(i)) => *i as f64,
            _ => 0.0,
        };
        let keywords: Vec<String> = strs(r.get("keywords"))
            .iter()
            .map(|k| k.to_ascii_lowercase())
            .collect();
        keywords_of.push(keywords.clone());
        let has_path = r.get("path").is_some();
        let check = s("check");
        let needs = regex.map_or_else(|| "&[]".to_string(), needs_data);
        write!(
            out,
            "RuleData {{ id: {id:?}, regex: {regex:?}, secret_group: {group}, entropy: {entropy:?}, keywords: &{keywords:?}, has_path: {has_path}, check: {check:?}, needs: {needs}, allow: "
        )
        .unwrap();
        allows(out, r);
        out.push_str(" },\n");
    }
    out.push_str("];\n");
    keywords_of
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // bob is a position-independent executable (ASLR) with ~46k relative relocations (vtables,
    // static string tables: HTML entity tables alone are ~25k) that the dynamic loader applies
    // at every start. Packed as DT_RELR their table shrinks from ~1.1 MB to a few KB, so every
    // invocation reads less and runs fewer loader instructions; still PIE, still relocated at
    // load. Needs binutils >= 2.38 or lld (older linkers warn and ignore it) and glibc >= 2.36 to
    // run (the linker records that requirement only when the C library supports it).
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu")
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    let mut out = String::new();
    let mut keywords = Vec::new();
    for (name, gitleaks) in [("gitleaks.toml", true), ("bob.toml", false)] {
        let path = format!("policy/secrets/{name}");
        println!("cargo:rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        keywords.push(file(&mut out, name, &text, gitleaks));
    }
    // The keyword index, sorted once here rather than in every process: each keyword with the
    // positions of its rules in BOB_RULES followed by GITLEAKS_RULES.
    let (gitleaks, bob) = (&keywords[0], &keywords[1]);
    let mut index: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
    for (pos, ks) in bob.iter().chain(gitleaks).enumerate() {
        for k in ks {
            let rules = index.entry(k.as_str()).or_default();
            if !rules.contains(&pos) {
                rules.push(pos);
            }
        }
    }
    out.push_str("static KEYWORD_INDEX: &[(&str, &[u16])] = &[\n");
    for (k, rules) in &index {
        writeln!(out, "({k:?}, &{rules:?}),").unwrap();
    }
    out.push_str("];\n");
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("secret_rules.rs");
    std::fs::write(dest, out).unwrap();
}

// ---------------------------------------------------------------------------------------------
// What a rule's regex needs in a text before it can match (its "needs"), for src/redact/rules.rs
// ---------------------------------------------------------------------------------------------

/// A literal (ASCII lower-case bytes, compared ASCII case-insensitively: looser than the regex,
/// never stricter) and whether it must start a word (its first byte is a word byte and the regex
/// puts `\b` in front of it, so the byte before it is not `[A-Za-z0-9_]`).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Lit {
    bytes: Vec<u8>,
    word_start: bool,
}

/// What every match of a sub-expression holds: `first`, literals one of which every match
/// starts with; `needs`, sets of literals of which every match contains one each.
#[derive(Default, Debug)]
struct Needs {
    first: Option<Vec<Lit>>,
    needs: Vec<Vec<Lit>>,
}

/// The byte a class stands for when, ASCII case aside, it is one byte (`[Ee]` → `e`).
fn one_byte(class: &regex_syntax::hir::Class) -> Option<u8> {
    use regex_syntax::hir::Class;
    let mut bytes: Vec<u8> = match class {
        Class::Bytes(c) => {
            let n: usize = c
                .ranges()
                .iter()
                .map(|r| usize::from(r.end() - r.start()) + 1)
                .sum();
            if n > 2 {
                return None;
            }
            c.ranges()
                .iter()
                .flat_map(|r| r.start()..=r.end())
                .collect()
        }
        Class::Unicode(c) => {
            let mut out = Vec::new();
            for r in c.ranges() {
                if u32::from(r.end()) - u32::from(r.start()) > 1 || !r.end().is_ascii() {
                    return None;
                }
                out.extend((r.start()..=r.end()).map(|ch| ch as u8));
            }
            out
        }
    };
    bytes.iter_mut().for_each(|b| *b = b.to_ascii_lowercase());
    bytes.dedup();
    (bytes.len() == 1).then(|| bytes[0])
}

/// The bytes a small class stands for (ASCII case aside, at most four: `[:=]`, `[-_]`), so a
/// text with none of them cannot match it.
fn few_bytes(class: &regex_syntax::hir::Class) -> Option<Vec<u8>> {
    use regex_syntax::hir::Class;
    let ranges: Vec<(u32, u32)> = match class {
        Class::Bytes(c) => c
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        Class::Unicode(c) => c
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
    };
    if ranges.iter().map(|(s, e)| e - s + 1).sum::<u32>() > 8 || ranges.iter().any(|r| r.1 > 0x7f) {
        return None;
    }
    let mut bytes: Vec<u8> = ranges
        .iter()
        .flat_map(|&(s, e)| s..=e)
        .map(|b| (b as u8).to_ascii_lowercase())
        .collect();
    bytes.sort();
    bytes.dedup();
    (bytes.len() <= 4).then_some(bytes)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The requirement among `needs` that filters best (its shortest literal is the longest).
fn best(needs: &[Vec<Lit>]) -> Option<&Vec<Lit>> {
    needs.iter().max_by_key(|d| {
        d.iter()
            .map(|l| l.bytes.len() + usize::from(l.word_start))
            .min()
    })
}

fn needs_of(hir: &regex_syntax::hir::Hir) -> Needs {
    use regex_syntax::hir::{HirKind, Look};
    match hir.kind() {
        HirKind::Literal(l) => {
            let lit = Lit {
                bytes: l.0.to_ascii_lowercase(),
                word_start: false,
            };
            Needs {
                first: Some(vec![lit.clone()]),
                needs: vec![vec![lit]],
            }
        }
        HirKind::Class(c) => match (one_byte(c), few_bytes(c)) {
            (Some(b), _) => needs_of(&regex_syntax::hir::Hir::literal([b])),
            // `[:=]`: every match holds one of these bytes.
            (None, Some(bytes)) => {
                let lits: Vec<Lit> = bytes
                    .into_iter()
                    .map(|b| Lit {
                        bytes: vec![b],
                        word_start: false,
                    })
                    .collect();
                Needs {
                    first: Some(lits.clone()),
                    needs: vec![lits],
                }
            }
            (None, None) => Needs::default(),
        },
        HirKind::Empty | HirKind::Look(_) => Needs::default(),
        HirKind::Repetition(r) if r.min >= 1 => needs_of(&r.sub),
        HirKind::Repetition(_) => Needs::default(),
        HirKind::Capture(c) => needs_of(&c.sub),
        HirKind::Alternation(alts) => {
            let all: Vec<Needs> = alts.iter().map(needs_of).collect();
            let first = all
                .iter()
                .map(|n| n.first.clone())
                .collect::<Option<Vec<_>>>()
                .map(|v| v.concat());
            let mut one: Vec<Lit> = Vec::new();
            for n in &all {
                match best(&n.needs) {
                    Some(d) => one.extend(d.iter().cloned()),
                    None => {
                        one.clear();
                        break;
                    }
                }
            }
            one.sort();
            one.dedup();
            Needs {
                first,
                needs: if one.is_empty() { vec![] } else { vec![one] },
            }
        }
        HirKind::Concat(items) => {
            let mut out = Needs::default();
            // A run of literal-like items is joined into one literal.
            let mut run: Option<Lit> = None;
            let mut at_start = true;
            let mut boundary = false;
            let flush = |run: &mut Option<Lit>, out: &mut Needs, at_start: &mut bool| {
                if let Some(l) = run.take() {
                    if *at_start {
                        out.first = Some(vec![l.clone()]);
                    }
                    out.needs.push(vec![l]);
                    *at_start = false;
                }
            };
            for item in items {
                let byte = match item.kind() {
                    HirKind::Literal(l) => Some(l.0.to_ascii_lowercase()),
                    HirKind::Class(c) => one_byte(c).map(|b| vec![b]),
                    _ => None,
                };
                if let Some(bytes) = byte {
                    match &mut run {
                        Some(l) => l.bytes.extend(bytes),
                        None => {
                            let word_start = boundary && is_word(bytes[0]);
                            run = Some(Lit { bytes, word_start });
                        }
                    }
                    boundary = false;
                    continue;
                }
                flush(&mut run, &mut out, &mut at_start);
                if let HirKind::Look(look) = item.kind() {
                    boundary = matches!(
                        look,
                        Look::WordAscii | Look::WordStartAscii | Look::WordStartHalfAscii
                    );
                    continue;
                }
                let mut n = needs_of(item);
                if boundary && let Some(first) = &mut n.first {
                    // `\b` right before a sub-expression: its first literals start a word.
                    if first.iter().all(|l| is_word(l.bytes[0])) {
                        first.iter_mut().for_each(|l| l.word_start = true);
                        n.needs.push(first.clone());
                    }
                }
                boundary = false;
                if at_start {
                    out.first = n.first.clone();
                    at_start = false;
                }
                out.needs.extend(n.needs);
            }
            flush(&mut run, &mut out, &mut at_start);
            out
        }
    }
}

/// A rule's needs as Rust data: `&[&[(b"lit", word_start)]]`. Nothing when the regex does not
/// parse here (the rule then always runs once its keyword occurs).
fn needs_data(regex: &str) -> String {
    let Ok(hir) = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(regex)
    else {
        return "&[]".into();
    };
    let mut needs = needs_of(&hir).needs;
    for d in &mut needs {
        d.sort();
        d.dedup();
    }
    needs.sort();
    needs.dedup();
    let mut out = String::from("&[");
    for d in needs
        .iter()
        .filter(|d| !d.is_empty() && d.iter().all(|l| !l.bytes.is_empty()))
    {
        out.push_str("&[");
        for l in d {
            write!(out, "(&{:?}, {}),", l.bytes, l.word_start).unwrap();
        }
        out.push_str("],");
    }
    out.push(']');
    out
}
