//! The module graph stays a graph of layers: no source file imports, through any chain of
//! imports, a file that imports it (docs/design.md#layers).
//!
//! The graph is read from the code: every `use` tree and every inline `crate::`/`super::`/
//! `self::` path outside comments, resolved to the deepest source file it names. A module's own
//! file declaring and re-exporting its children (`mod.rs`'s `mod x; pub use x::Y;`) is how Rust
//! builds a module, so edges from a module file into its own subtree are left out. A child using
//! what its parent's file holds (`super::Ctx`) counts like any import: a parent that also
//! imports, through others, what imports that child closes a circle.

use super::support::files_under;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module path of a source file: `src/tools/mod.rs` → `["tools"]`, `src/lib.rs` → `[]`.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Code without comments, string and character literals, so a path in prose or in a message
/// is not an import.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        let after_ident = prev.is_alphanumeric() || prev == '_';
        prev = c;
        match c {
            // A raw string: r"…", r#"…"#.
            'r' if !after_ident && matches!(chars.peek(), Some('"' | '#')) => {
                let mut hashes = 0;
                while chars.peek() == Some(&'#') {
                    chars.next();
                    hashes += 1;
                }
                if chars.next() != Some('"') {
                    continue;
                }
                let closing: String = std::iter::once('"')
                    .chain((0..hashes).map(|_| '#'))
                    .collect();
                let mut body = String::new();
                for c in chars.by_ref() {
                    body.push(c);
                    if body.ends_with(&closing) {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            // A character literal ('"', '\'', 'x'); a lifetime has no closing quote.
            '\'' => {
                let mut ahead = chars.clone();
                let literal = match ahead.next() {
                    Some('\\') => ahead.nth(1) == Some('\'') || ahead.any(|c| c == '\''),
                    Some(_) => ahead.next() == Some('\''),
                    None => false,
                };
                if literal {
                    while let Some(c) = chars.next() {
                        if c == '\'' {
                            break;
                        }
                        if c == '\\' {
                            chars.next();
                        }
                    }
                    out.push_str("' '");
                } else {
                    out.push(c);
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let renamed = regex::Regex::new(r"\s+as\s+\w+").unwrap();
    let tree: String = renamed
        .replace_all(tree, "")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let Some(inner) = tree.rfind('}').and_then(|close| tree.get(open + 1..close)) else {
        return Vec::new();
    };
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand(p).into_iter().map(|s| format!("{prefix}{s}")))
        .collect()
}

/// Every path a file names that starts at `crate`, `super` or `self`, made absolute.
fn imports(file: &Path) -> Vec<Vec<String>> {
    let code = code_only(&std::fs::read_to_string(file).unwrap());
    let module = module_of(file);
    let mut paths: Vec<String> = Vec::new();
    let use_re = regex::Regex::new(r"(?s)\buse\s+([^;]+);").unwrap();
    for c in use_re.captures_iter(&code) {
        paths.extend(expand(&c[1]).into_iter().map(|p| {
            p.trim_start_matches("pub(crate)")
                .trim_start_matches("::")
                .to_string()
        }));
    }
    let inline =
        regex::Regex::new(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)").unwrap();
    paths.extend(inline.captures_iter(&code).map(|c| c[1].to_string()));
    paths
        .into_iter()
        .filter_map(|p| {
            let mut segs = p.split("::").map(str::to_string);
            let first = segs.next()?;
            let mut base = match first.as_str() {
                "crate" => Vec::new(),
                "self" => module.clone(),
                "super" => {
                    // `super` of `a/b.rs` (module a::b) is `a`; of `a/mod.rs` (module a) it is
                    // the crate root or a's parent.
                    let mut m = module.clone();
                    m.pop();
                    m
                }
                _ => return None,
            };
            for s in segs {
                if s == "super" {
                    base.pop();
                } else if s != "self" && s != "*" {
                    base.push(s);
                }
            }
            Some(base)
        })
        .collect()
}

/// The deepest source file a module path names.
fn resolve(path: &[String], files: &BTreeSet<PathBuf>) -> Option<PathBuf> {
    for n in (1..=path.len()).rev() {
        let rel: PathBuf = path[..n].iter().collect();
        for candidate in [
            src().join(&rel).with_extension("rs"),
            src().join(&rel).join("mod.rs"),
        ] {
            if files.contains(&candidate) {
                return Some(candidate);
            }
        }
    }
    None
}

/// The file-level import graph of `src/`.
fn graph() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let files: BTreeSet<PathBuf> = files_under(&src())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    let mut g = BTreeMap::new();
    for file in &files {
        let own = module_of(file);
        let is_module_file = file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs")
            || file.with_extension("").is_dir();
        let mut edges = BTreeSet::new();
        for path in imports(file) {
            let Some(target) = resolve(&path, &files) else {
                continue;
            };
            let into_own_subtree = is_module_file && module_of(&target).starts_with(&own);
            if &target != file && !into_own_subtree {
                edges.insert(target);
            }
        }
        g.insert(file.clone(), edges);
    }
    g
}

/// The strongly connected components with more than one file (Tarjan's algorithm).
fn cycles(g: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        g: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in &s.g[v] {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn the_module_graph_has_no_cycle() {
    let g = graph();
    let found = cycles(&g);
    let named: Vec<Vec<String>> = found
        .iter()
        .map(|c| {
            c.iter()
                .map(|p| p.strip_prefix(src()).unwrap().display().to_string())
                .collect()
        })
        .collect();
    assert!(
        named.is_empty(),
        "import cycles between source files: {named:#?}"
    );
}

#[test]
fn the_graph_reader_finds_a_planted_cycle() {
    // The guard guards: two files of a scratch tree that import each other are found.
    let g: BTreeMap<PathBuf, BTreeSet<PathBuf>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (PathBuf::from(k), v.into_iter().map(PathBuf::from).collect()))
    .collect();
    assert_eq!(
        cycles(&g),
        vec![vec![
            PathBuf::from("a"),
            PathBuf::from("b"),
            PathBuf::from("c")
        ]]
    );
    // And the reader sees real imports: the turn imports the tools, through `use` trees.
    let real = graph();
    let turn = src().join("turn/mod.rs");
    let tools_edges: Vec<_> = real
        .iter()
        .filter(|(f, _)| f.starts_with(src().join("turn")))
        .flat_map(|(_, e)| e.iter())
        .filter(|t| t.starts_with(src().join("tools")))
        .collect();
    assert!(real.contains_key(&turn));
    assert!(
        !tools_edges.is_empty(),
        "the reader saw no import from turn/ into tools/"
    );
}
