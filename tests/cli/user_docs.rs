//! The README and the user guide in `docs/` stay something a newcomer can follow: the README is
//! short and opens with the demo and the test command, every relative link of README.md and
//! docs/*.md reaches a file (and, with `#anchor`, a heading of it), and the README's "first 60
//! seconds" script runs as written.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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

/// The lines of a Markdown file outside fenced code blocks, with their line numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((n + 1, line));
        }
    }
    out
}

/// Every heading's anchor in a Markdown file, a repeated heading getting `-1`, `-2`… as GitHub
/// numbers them.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (_, line) in prose(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let a = anchor(&line[hashes + 1..]);
        let n = seen.iter().filter(|s| **s == a).count();
        seen.push(a.clone());
        out.push(if n == 0 { a } else { format!("{a}-{n}") });
    }
    out
}

/// The targets of the inline links `[label](target)` of one line, code spans left out.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'`' => in_code = !in_code,
            b']' if !in_code && bytes.get(i + 1) == Some(&b'(') => {
                if let Some(end) = line[i + 2..].find(')') {
                    let target = &line[i + 2..i + 2 + end];
                    if !target.is_empty() && !target.contains(' ') {
                        out.push(target.to_string());
                    }
                    i += 2 + end;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn user_docs() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md")];
    let mut guide: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    files.extend(guide);
    files
}

/// Every broken relative link of `file`, as `file:line: target (why)`.
fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut broken = Vec::new();
    for (n, line) in prose(&text) {
        for target in link_targets(line) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, frag) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let dest = if path.is_empty() {
                file.to_path_buf()
            } else {
                file.parent().unwrap().join(path)
            };
            let at = format!("{}:{n}: {target}", file.display());
            if !dest.exists() {
                broken.push(format!("{at} (no such file)"));
                continue;
            }
            if let Some(frag) = frag {
                let is_md = dest.extension().is_some_and(|e| e == "md");
                let known = is_md
                    && anchors(&std::fs::read_to_string(&dest).unwrap()).contains(&frag.into());
                if !known {
                    broken.push(format!("{at} (no heading with that anchor)"));
                }
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_of_the_readme_and_the_guide_resolves() {
    let files = user_docs();
    assert!(files.len() >= 10, "the user guide is gone: {files:?}");
    let broken: Vec<String> = files.iter().flat_map(|f| broken_links(f)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_finds_a_missing_file_and_a_missing_anchor() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("b.md"),
        "# Title\n\n## Part two\n\n## Part two\n",
    )
    .unwrap();
    let a = dir.path().join("a.md");
    std::fs::write(
        &a,
        "[ok](b.md#part-two-1) [ok](#x) [gone](c.md) [bad](b.md#nope) `[code](c.md)`\n\
         ```\n[fenced](c.md)\n```\n# X\n",
    )
    .unwrap();
    let broken = broken_links(&a);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].ends_with("c.md (no such file)"), "{broken:?}");
    assert!(broken[1].contains("b.md#nope"), "{broken:?}");
}

#[test]
fn the_readme_is_short_and_opens_with_the_demo_and_the_test_suite() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; move detail into docs/"
    );
    let commands: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("```sh"))
        .skip(1)
        .take(2)
        .map(|l| l.split('#').next().unwrap().trim())
        .collect();
    assert_eq!(
        commands,
        ["bash scripts/demo-turn.sh", "cargo test --locked"],
        "the README's first commands"
    );
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    assert_eq!(
        ci.lines().last(),
        Some("cargo test --locked"),
        ".ci/run runs exactly the README's test command"
    );
    for section in ["## Install", "## The first 60 seconds", "## One-liners"] {
        assert!(readme.contains(section), "README.md lacks {section}");
    }
}

/// The README's "first 60 seconds" run as CI runs them: a one-line prompt on the replay backend,
/// a memory approved and found, a tool, all in a temporary home the script removes.
#[test]
fn the_first_60_seconds_script_runs() {
    let out = std::process::Command::new("bash")
        .arg(repo().join("scripts/first-60-seconds.sh"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("BOB", assert_cmd::cargo::cargo_bin("bob"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("\"output\":\"6 x 7 = 42.\""), "{stdout}");
    assert!(stdout.contains("\"tool\":\"bom.normalize\""), "{stdout}");
    let home = stderr
        .lines()
        .find_map(|l| l.strip_prefix("== done: everything lived in "))
        .and_then(|l| l.strip_suffix(", removed now"))
        .expect("the script names its home");
    assert!(
        !Path::new(home).exists(),
        "the temporary home is left behind"
    );
}

/// A shell line with its comment (` # …` outside quotes) cut off.
fn without_comment(line: &str) -> &str {
    let (mut single, mut double, mut prev) = (false, false, ' ');
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev.is_whitespace() => return &line[..i],
            _ => {}
        }
        prev = c;
    }
    line
}

/// Every `bob …` command of the README's shell blocks parses as written (the one-liners, the
/// quick start, the install steps).
#[test]
fn every_bob_command_of_the_readme_parses() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let (mut in_sh, mut pending, mut commands) = (false, String::new(), Vec::new());
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh" && !in_sh;
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = without_comment(line).trim_end();
        if let Some(head) = code.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(code);
        commands.extend(super::examples::invocations(&std::mem::take(&mut pending)));
    }
    assert!(commands.len() >= 20, "only {} bob commands", commands.len());
    let bad: Vec<String> = commands
        .iter()
        .filter_map(|argv| {
            let err = bob::cli::command().try_get_matches_from(argv).err()?;
            Some(format!("{argv:?}: {err}"))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
