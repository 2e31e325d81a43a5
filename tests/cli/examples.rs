//! Help that teaches: every subcommand has examples, every example parses, every offline
//! example runs as written in a prepared home (replay backend, no network), every argument and
//! subcommand says what it is, help and man pages carry the examples and the ENVIRONMENT, FILES
//! and EXIT STATUS sections, and `bob completion` completes subcommands and the values the home
//! holds.

use super::TestEnv;
use bob::cli::examples::{EXAMPLES, Example};
use std::path::{Path, PathBuf};

/// Every visible subcommand path of the full tree (`""` is `bob`), e.g. `"tool run"`.
fn paths(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
    out.push(prefix.to_string());
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        let p = if prefix.is_empty() {
            sub.get_name().to_string()
        } else {
            format!("{prefix} {}", sub.get_name())
        };
        paths(sub, &p, out);
    }
}

fn all_paths() -> Vec<String> {
    let mut out = Vec::new();
    paths(&bob::cli::command(), "", &mut out);
    out
}

/// The shell line cut at `|`, `;` and `&&` outside quotes.
fn pipeline_parts(line: &str) -> Vec<String> {
    let (mut parts, mut cur) = (Vec::new(), String::new());
    let (mut single, mut double) = (false, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if double => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                continue;
            }
            '|' | ';' if !single && !double => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            '&' if !single && !double && chars.peek() == Some(&'&') => {
                chars.next();
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    parts
}

/// The argv of every `bob` invocation of a shell line (environment assignments and
/// redirections left out).
pub fn invocations(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for part in pipeline_parts(line) {
        let words = shlex::split(&part).unwrap_or_else(|| panic!("unbalanced quotes: {line}"));
        let words: Vec<String> = words
            .into_iter()
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .collect();
        if words.first().map(String::as_str) != Some("bob") {
            continue;
        }
        out.push(
            words
                .into_iter()
                .take_while(|w| !matches!(w.as_str(), ">" | ">>" | "<" | "2>"))
                .collect(),
        );
    }
    out
}

/// The subcommand path an argv reaches (`["bob","--home","x","tool","run"]` → `"tool run"`).
fn reached(argv: &[String]) -> String {
    let m = bob::cli::command()
        .try_get_matches_from(argv)
        .expect("parses");
    let mut path = Vec::new();
    let mut m = &m;
    while let Some((name, sub)) = m.subcommand() {
        path.push(name.to_string());
        m = sub;
    }
    path.join(" ")
}

#[test]
fn every_subcommand_has_examples_and_every_example_names_a_subcommand() {
    let paths = all_paths();
    assert!(paths.len() > 100, "only {} paths", paths.len());
    let missing: Vec<&String> = paths
        .iter()
        .filter(|p| !EXAMPLES.iter().any(|(q, e)| q == p && !e.is_empty()))
        .collect();
    assert!(
        missing.is_empty(),
        "subcommands without examples: {missing:?}"
    );
    let unknown: Vec<&str> = EXAMPLES
        .iter()
        .map(|(p, _)| *p)
        .filter(|p| !paths.iter().any(|q| q == p))
        .collect();
    assert!(unknown.is_empty(), "examples of no subcommand: {unknown:?}");
}

#[test]
fn every_example_parses_and_runs_its_own_subcommand() {
    let mut bad = Vec::new();
    for (path, examples) in EXAMPLES {
        for e in examples.iter() {
            let argvs = invocations(e.line);
            if argvs.is_empty() {
                bad.push(format!("{path}: no bob command in {:?}", e.line));
            }
            for argv in &argvs {
                if let Err(err) = bob::cli::command().try_get_matches_from(argv) {
                    bad.push(format!("{path}: {:?} does not parse:\n{err}", e.line));
                }
            }
            if !path.is_empty()
                && !argvs.iter().any(|a| {
                    bob::cli::command().try_get_matches_from(a).is_ok()
                        && (reached(a) == *path || reached(a).starts_with(&format!("{path} ")))
                })
            {
                bad.push(format!("{path}: {:?} never runs `bob {path}`", e.line));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_example_parser_sees_every_bob_of_a_pipeline() {
    let argvs = invocations(
        "echo 'a | b' | BOB_X=1 bob tool run --enable x && bob ledger anchor > h.json; bob runs list",
    );
    assert_eq!(
        argvs,
        [
            vec!["bob", "tool", "run", "--enable", "x"],
            vec!["bob", "ledger", "anchor"],
            vec!["bob", "runs", "list"],
        ]
    );
}

/// The directory holding the `bob` under test, for a shell's PATH.
fn bob_dir() -> PathBuf {
    assert_cmd::cargo::cargo_bin("bob")
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `bash -c script` in `dir` with bob first on PATH, `dir/home` as the home and the test clock.
fn bash(dir: &Path, script: &str) -> std::process::Output {
    let path = format!(
        "{}:{}",
        bob_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("set -euo pipefail\n{script}"))
        .env_clear()
        .env("PATH", path)
        .env("BOB_HOME", dir.join("home"))
        .env("BOB_NOW", super::env::NOW)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("bash runs")
}

/// The home and files the offline examples expect (see `bob::cli::examples`).
const FIXTURE: &str = r#"
bob init > /dev/null
printf '%s\n' \
  '{"role":"think","content":"A short question; answer it."}' \
  '{"role":"respond","content":"6 x 7 = 42."}' \
  '{"content":"Hello! 6 x 7 = 42."}' > replies.jsonl
mkdir sandbox
printf 'oat milk\ncoffee beans\n' > sandbox/shopping.txt
printf '# Preferences\n\nThe user prefers oat milk.\n' > notes.md
bob tool enable --session s1 fs.read_text > /dev/null
echo 'What is 6x7?' | bob turn --backend replay:replies.jsonl --session s1 > /dev/null
echo '{"text":"The user prefers oat milk.","type":"preference"}' | bob memory propose > /dev/null
id=$(bob memory candidates --status pending | sed -n 's/^{"id":"\(cand_[0-9a-f]*\)".*/\1/p')
bob memory approve "$id" > /dev/null
echo '{"text":"The user drinks coffee at 7.","type":"preference"}' | bob memory propose > /dev/null
bob schedule add --id daily --schedule '@every 24h' --message 'Plan my day' --session s1 > /dev/null
bob mtg new --deck gruul-40 --deck orzhov-40 --game g1 > /dev/null
BOB_BACKEND=replay:replies.jsonl bob schedule run daily > /dev/null
printf 'sk-example' | bob secrets set example > /dev/null
bob serve token create --name example > /dev/null
# A short-term entry used in three more sessions: `bob memory promote` nominates it.
entry=$(bob memory stm list | sed -n 's/^{"id":"\([^"]*\)".*/\1/p' | head -1)
for s in s2 s3 s4; do bob memory stm touch "$entry" --session "$s" > /dev/null; done
"#;

fn fixture(env: &TestEnv) -> PathBuf {
    let dir = env.path("fixture");
    std::fs::create_dir_all(&dir).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in ["reply.txt", "history.json"] {
        std::fs::copy(repo.join("examples").join(f), dir.join(f)).unwrap();
    }
    let out = bash(&dir, FIXTURE);
    assert!(
        out.status.success(),
        "fixture: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn every_offline_example_runs_as_written_in_a_prepared_home() {
    let env = TestEnv::new();
    let fixture = fixture(&env);
    let offline: Vec<(&str, &Example)> = EXAMPLES
        .iter()
        .flat_map(|(p, es)| es.iter().filter(|e| e.offline).map(move |e| (*p, e)))
        .collect();
    assert!(
        offline.len() > 100,
        "only {} offline examples",
        offline.len()
    );
    let mut failed = Vec::new();
    for (i, (path, e)) in offline.iter().enumerate() {
        let dir = env.path(&format!("ex{i}"));
        let cp = std::process::Command::new("cp")
            .arg("-a")
            .arg(&fixture)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(cp.success());
        let out = bash(&dir, e.line);
        if !out.status.success() {
            failed.push(format!(
                "`bob {path}`: {}\n  exit {:?}\n  stdout: {}\n  stderr: {}",
                e.line,
                out.status.code(),
                String::from_utf8_lossy(&out.stdout)
                    .chars()
                    .take(300)
                    .collect::<String>(),
                String::from_utf8_lossy(&out.stderr)
                    .chars()
                    .take(600)
                    .collect::<String>(),
            ));
        } else if out.stdout.is_empty() && !e.line.contains('>') {
            failed.push(format!("`bob {path}`: {} printed nothing", e.line));
        }
        std::fs::remove_dir_all(&dir).ok();
    }
    assert!(
        failed.is_empty(),
        "{} of {} examples failed:\n{}",
        failed.len(),
        offline.len(),
        failed.join("\n")
    );
}

/// Every argument (but clap's own --help and --version) and every subcommand has help text.
#[test]
fn every_argument_and_subcommand_is_described() {
    fn walk(cmd: &clap::Command, path: &str, bad: &mut Vec<String>) {
        if cmd.get_about().is_none() && cmd.get_long_about().is_none() {
            bad.push(format!("`bob {path}` has no description"));
        }
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            if a.is_hide_set() || id == "help" || id == "version" {
                continue;
            }
            let described = [a.get_help(), a.get_long_help()]
                .into_iter()
                .flatten()
                .any(|h| !h.to_string().trim().is_empty());
            if !described {
                bad.push(format!("`bob {path}`: argument {id} has no help text"));
            }
        }
        for sub in cmd.get_subcommands() {
            if sub.is_hide_set() || sub.get_name() == "help" {
                continue;
            }
            let p = format!("{path} {}", sub.get_name());
            walk(sub, p.trim(), bad);
        }
    }
    let mut bad = Vec::new();
    walk(&bob::cli::command(), "", &mut bad);
    assert!(
        bad.is_empty(),
        "{} undescribed:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn help_ends_with_the_examples_and_man_pages_have_every_section() {
    let env = TestEnv::new();
    let out = env.bob(&["tool", "run", "--help"]).assert().success();
    let help = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let examples = help
        .split("Examples:\n")
        .nth(1)
        .expect("an Examples section");
    assert!(
        examples.contains("bob tool run --enable bom.normalize"),
        "{help}"
    );
    let short = env.bob(&["memory", "query", "-h"]).assert().success();
    assert!(
        String::from_utf8_lossy(&short.get_output().stdout)
            .contains("  bob memory query 'oat milk'")
    );

    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for page in ["bob.1", "bob-tool-run.1", "bob-memory-stm-list.1"] {
        let man = std::fs::read_to_string(repo.join("man").join(page)).unwrap();
        for section in [
            ".SH EXAMPLES",
            ".SH ENVIRONMENT",
            ".SH FILES",
            ".SH \"EXIT STATUS\"",
        ] {
            assert!(man.contains(section), "{page} lacks {section}");
        }
        assert!(
            !man.contains(".SH EXTRA"),
            "{page} repeats the examples as EXTRA"
        );
    }
    let root = std::fs::read_to_string(repo.join("man/bob.1")).unwrap();
    for sp in bob::settings::SPECS {
        for var in sp.env.iter().filter(|v| v.starts_with("BOB_")) {
            assert!(root.contains(var), "bob.1 does not name {var}");
        }
    }
    for (path, _) in bob::cli::manpage::HOME_FILES {
        // roff writes a hyphen as `\-`.
        let path = path.replace('-', "\\-");
        assert!(root.contains(&path), "bob.1 FILES lacks {path}");
    }
    for code in bob::error::Code::ALL {
        assert!(
            root.contains(code.as_str()),
            "bob.1 EXIT STATUS lacks {code}"
        );
        assert!(
            root.contains(&format!("\\fB{}\\fR", code.exit_code())),
            "exit {}",
            code.exit_code()
        );
    }
    // The subcommand's page names the variables of its own flags.
    let turn = std::fs::read_to_string(repo.join("man/bob-turn.1")).unwrap();
    assert!(
        turn.contains("BOB_CHAT_MODEL"),
        "bob-turn.1 lacks BOB_CHAT_MODEL"
    );
}

/// What `bob` offers at a Tab after `words` (the last word is the one being completed).
fn complete(env: &TestEnv, words: &[&str]) -> Vec<String> {
    let mut args = vec!["--", "bob"];
    args.extend_from_slice(words);
    let out = env
        .bob(&args)
        .env("BOB_COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", words.len().to_string())
        .env("_CLAP_IFS", "\n")
        .assert()
        .success();
    String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn completion_scripts_ask_bob_and_complete_what_the_home_holds() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = env.bob(&["completion", shell]).assert().success();
        let script = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(script.contains("BOB_COMPLETE"), "{shell}: {script}");
        assert!(script.contains("bob"), "{shell}: {script}");
    }
    env.bob(&["completion", "tcsh"]).assert().code(2);
    let bash_script = env.bob(&["completion", "bash"]).assert().success();
    assert!(String::from_utf8_lossy(&bash_script.get_output().stdout).contains("complete -o"));

    // Subcommands.
    let subs = complete(&env, &["mem"]);
    assert_eq!(subs, ["memory"], "{subs:?}");
    // Sessions come from the home, which does not exist yet: nothing offered, nothing created.
    assert!(complete(&env, &["state", "show", "--session", ""]).is_empty());
    assert!(!env.home().exists(), "completing created the home");
    env.bob(&["tool", "enable", "--session", "alpha", "fs.read_text"])
        .assert()
        .success();
    env.bob(&["tool", "enable", "--session", "beta", "fs.read_text"])
        .assert()
        .success();
    let sessions = complete(&env, &["state", "show", "--session", ""]);
    assert_eq!(sessions, ["alpha", "beta"], "{sessions:?}");
    let tools = complete(&env, &["tool", "enable", "--session", "alpha", "fs.r"]);
    assert_eq!(tools, ["fs.read_text"], "{tools:?}");
    let decks = complete(&env, &["mtg", "selfplay", "--deck", "gruul"]);
    assert!(decks.iter().any(|d| d == "gruul-40"), "{decks:?}");
}
