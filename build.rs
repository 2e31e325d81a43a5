//! Turns the secret rule files (`policy/secrets/*.toml`, the gitleaks format) into static Rust
//! data, so no process parses ~150 KB of TOML before its first write: the rules are data in the
//! repository, compiled into the binary as-is. Only the format changes here (descriptions are
//! dropped); what each field means is decided in `src/redact.rs`.

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

fn file(out: &mut String, name: &str, text: &str, gitleaks: bool) {
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
        let has_path = r.get("path").is_some();
        let check = s("check");
        write!(
            out,
            "RuleData {{ id: {id:?}, regex: {regex:?}, secret_group: {group}, entropy: {entropy:?}, keywords: &{keywords:?}, has_path: {has_path}, check: {check:?}, allow: "
        )
        .unwrap();
        allows(out, r);
        out.push_str(" },\n");
    }
    out.push_str("];\n");
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
    for (name, gitleaks) in [("gitleaks.toml", true), ("bob.toml", false)] {
        let path = format!("policy/secrets/{name}");
        println!("cargo:rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        file(&mut out, name, &text, gitleaks);
    }
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("secret_rules.rs");
    std::fs::write(dest, out).unwrap();
}
