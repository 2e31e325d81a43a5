//! `docs/design.md` stays the design as it is: its module map names every source file (and
//! nothing that is gone), every `docs/design.md#anchor` a comment cites is a heading of it, and
//! no comment cites a document the reader cannot open (the old `DESIGN.md §n` or a seed file).
//! Regenerate the map with `python3 scripts/module-map.py --write`.

use super::support::files_under;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn design() -> String {
    std::fs::read_to_string(repo().join("docs/design.md")).expect("docs/design.md")
}

fn sources() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = files_under(&repo().join("src"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

fn relative(p: &Path) -> String {
    p.strip_prefix(repo())
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn the_module_map_names_every_source_file() {
    let doc = design();
    let (_, rest) = doc
        .split_once("<!-- module-map:start -->")
        .expect("start marker");
    let (map, _) = rest
        .split_once("<!-- module-map:end -->")
        .expect("end marker");
    let listed: BTreeSet<String> = map
        .lines()
        .filter_map(|l| {
            l.strip_prefix("- `")?
                .split_once('`')
                .map(|(p, _)| p.to_string())
        })
        .collect();
    let present: BTreeSet<String> = sources().iter().map(|p| relative(p)).collect();
    let missing: Vec<_> = present.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&present).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "docs/design.md's module map is stale (run python3 scripts/module-map.py --write): \
         missing {missing:?}, gone {gone:?}"
    );
}

#[test]
fn every_cited_section_of_the_design_exists() {
    let doc = design();
    let anchors: BTreeSet<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("## ").or_else(|| l.strip_prefix("### ")))
        .map(anchor)
        .collect();
    let mut broken = Vec::new();
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            for (at, _) in line.match_indices("docs/design.md#") {
                let cited: String = line[at + "docs/design.md#".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                    .collect();
                if !anchors.contains(&cited) {
                    broken.push(format!("{}:{}: #{cited}", relative(&file), i + 1));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "citations of missing sections: {broken:#?}"
    );
}

#[test]
fn no_comment_cites_a_document_outside_the_repository() {
    let seed = regex::Regex::new(r"(?i:\bseeds? \d{3}\b)|DESIGN\.md").unwrap();
    let mut found = Vec::new();
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            if seed.is_match(line) {
                found.push(format!("{}:{}: {}", relative(&file), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "name the concept or link docs/design.md instead: {found:#?}"
    );
}
