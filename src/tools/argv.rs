//! The argv policy of `shell.exec`: which programs may run, with which arguments.
//!
//! The command line is split into argv with `shlex` (POSIX word rules); shell operators outside
//! quotes are refused. argv is checked by built-in rules (below) and then against an allow/deny
//! prefix rule file (`policy/shell-rules.json`, or `BOB_TOOL_SHELL_RULES` / `--shell-rules`),
//! whose examples are verified when it loads. What passes runs in the OS sandbox
//! ([`super::shell`]).

use super::fs::climbs_out;
use crate::error::{Code, Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};

/// The `PATH` children get.
pub const SAFE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

const BUILTIN_RULES: &str = include_str!("../../policy/shell-rules.json");

/// Programs that run other programs or change who/where a program runs.
const WRAPPERS: &[&str] = &[
    "env",
    "xargs",
    "nohup",
    "timeout",
    "sudo",
    "su",
    "doas",
    "nice",
    "ionice",
    "stdbuf",
    "chroot",
    "setsid",
    "unshare",
    "nsenter",
    "strace",
    "ltrace",
    "gdb",
    "script",
    "watch",
    "flock",
    "time",
    "busybox",
    "exec",
    "command",
    "builtin",
    "eval",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "parallel",
    "systemd-run",
    "runuser",
    "pkexec",
    "chrt",
    "taskset",
    "setpriv",
    "fakeroot",
    "proot",
    "bwrap",
    "firejail",
    "socat",
    "nc",
    "ncat",
    "netcat",
    "telnet",
    "curl",
    "wget",
    "make",
    "ninja",
];

/// Interpreters: refused with an inline-code flag (`-c`, `-e`, `--eval`, …).
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "ash",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "Rscript",
    "julia",
    "pwsh",
    "powershell",
    "osascript",
    "expect",
    "irb",
    "jshell",
    "groovy",
    "scala",
    "erl",
    "escript",
    "guile",
    "racket",
    "sbcl",
    "clisp",
];

/// Always refused: programs whose every use runs code or edits arbitrary files.
const ALWAYS_DENIED: &[&str] = &[
    "awk", "gawk", "mawk", "nawk", "vi", "vim", "nvim", "emacs", "ed", "ex", "dd", "tee",
    "install", "ln", "mkfifo", "mknod",
];

/// One allow or deny prefix rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellRule {
    pub action: RuleAction,
    pub prefix: Vec<String>,
    /// argv examples this rule must match.
    #[serde(default, rename = "match")]
    pub matches: Vec<Vec<String>>,
    /// argv examples this rule must not match.
    #[serde(default)]
    pub not_match: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    Allow,
    Deny,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RulesFile {
    #[serde(default)]
    about: Option<String>,
    #[serde(default)]
    version: Option<u32>,
    rules: Vec<ShellRule>,
}

/// A loaded, example-checked rule set.
#[derive(Debug, Clone)]
pub struct ShellRules {
    pub rules: Vec<ShellRule>,
    pub source: String,
}

impl ShellRule {
    fn matches(&self, argv: &[String]) -> bool {
        !self.prefix.is_empty()
            && argv.len() >= self.prefix.len()
            && self.prefix.iter().zip(argv).all(|(p, a)| p == a)
    }
}

impl ShellRules {
    /// The rules compiled into bob (`policy/shell-rules.json`).
    pub fn builtin() -> Result<ShellRules> {
        Self::parse(BUILTIN_RULES, "builtin:policy/shell-rules.json")
    }

    /// A rules file (JSON). Any rule whose examples do not hold refuses the whole file.
    pub fn load_file(path: &Path) -> Result<ShellRules> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::parse(&text, &path.display().to_string())
            .map_err(|e| e.with("path", path.display().to_string()))
    }

    /// Parses and verifies a rules document.
    pub fn parse(text: &str, source: &str) -> Result<ShellRules> {
        let file: RulesFile = serde_json::from_str(text)
            .map_err(|e| Error::bad_json(&format!("shell rules {source}"), &e))?;
        for (i, r) in file.rules.iter().enumerate() {
            let name = format!("rule {} ({:?} {:?})", i + 1, r.action, r.prefix);
            if r.prefix.is_empty() {
                return Err(Error::invalid(format!(
                    "shell rules {source}: {name} has an empty prefix"
                ))
                .with("rule", i + 1));
            }
            if r.matches.is_empty() {
                return Err(Error::invalid(format!(
                    "shell rules {source}: {name} carries no `match` example"
                ))
                .with("rule", i + 1));
            }
            for ex in &r.matches {
                if !r.matches(ex) {
                    return Err(Error::invalid(format!(
                        "shell rules {source}: {name}: its example {ex:?} does not match it"
                    ))
                    .with("rule", i + 1));
                }
            }
            for ex in &r.not_match {
                if r.matches(ex) {
                    return Err(Error::invalid(format!(
                        "shell rules {source}: {name}: its not_match example {ex:?} matches it"
                    ))
                    .with("rule", i + 1));
                }
            }
        }
        Ok(ShellRules {
            rules: file.rules,
            source: source.to_string(),
        })
    }

    /// Allow/deny by prefix: a deny match wins; no allow match is a denial.
    pub fn decide(&self, argv: &[String]) -> Result<()> {
        if let Some(r) = self
            .rules
            .iter()
            .find(|r| r.action == RuleAction::Deny && r.matches(argv))
        {
            return Err(
                Error::denied(format!("command denied by the shell rule {:?}", r.prefix))
                    .with("rule", r.prefix.join(" ")),
            );
        }
        if self
            .rules
            .iter()
            .any(|r| r.action == RuleAction::Allow && r.matches(argv))
        {
            return Ok(());
        }
        Err(Error::denied(format!(
            "command {:?} is not on the shell allowlist ({})",
            argv.iter().take(2).cloned().collect::<Vec<_>>().join(" "),
            self.source
        )))
    }
}

fn deny(msg: impl Into<String>) -> Error {
    Error::denied(msg)
}

/// Refuses shell operators outside quotes (there is no shell to interpret them).
pub fn check_operators(cmd: &str) -> Result<()> {
    let (mut single, mut double, mut escaped) = (false, false, false);
    for c in cmd.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '|' | ';' | '&' | '<' | '>' | '$' | '`' | '(' | ')' | '\n' | '\r'
                if !single && !double =>
            {
                return Err(deny(format!(
                    "shell operator {c:?} is not allowed: shell.exec runs one program without a shell (no pipes, redirection, chaining or expansion)"
                ))
                .with("operator", c.to_string()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Splits a command line into argv (no shell).
pub fn split(cmd: &str) -> Result<Vec<String>> {
    check_operators(cmd)?;
    let argv = shlex::split(cmd).ok_or_else(|| {
        Error::new(
            Code::ToolInputInvalid,
            "cmd has unbalanced quotes or a trailing backslash",
        )
    })?;
    if argv.is_empty() {
        return Err(Error::new(Code::ToolInputInvalid, "cmd is empty"));
    }
    if argv.iter().any(|a| a.contains('\0')) {
        return Err(Error::new(
            Code::ToolInputInvalid,
            "cmd contains a NUL byte",
        ));
    }
    Ok(argv)
}

fn short_cluster_has(arg: &str, letters: &[char]) -> bool {
    arg.starts_with('-')
        && !arg.starts_with("--")
        && arg.len() > 1
        && arg[1..].chars().any(|c| letters.contains(&c))
}

fn opt_is(arg: &str, names: &[&str]) -> bool {
    names
        .iter()
        .any(|n| arg == *n || arg.starts_with(&format!("{n}=")))
}

/// Whether a path-like argument stays inside the roots (lexically; Landlock enforces it).
fn path_arg_ok(arg: &str, roots: &[PathBuf]) -> bool {
    let p = Path::new(arg);
    if p.is_absolute() {
        return roots.iter().any(|r| p.starts_with(r))
            && !p.components().any(|c| c == Component::ParentDir);
    }
    !climbs_out(p)
}

/// Checks a sed script for commands that execute (`e`, `s///e`) or write files (`w`, `W`,
/// `s///w`); unparsable scripts are refused.
fn sed_script_ok(script: &str) -> bool {
    for part in script.split([';', '\n']) {
        let mut chars = part.trim_start().chars().peekable();
        // Skip an address: digits, $, commas, ~, /regex/, \cREGEXc, !, spaces.
        loop {
            match chars.peek().copied() {
                Some(c) if c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '!' | ' ' | '+') => {
                    chars.next();
                }
                Some('/') => {
                    chars.next();
                    let mut esc = false;
                    loop {
                        match chars.next() {
                            None => return false,
                            Some('\\') if !esc => esc = true,
                            Some('/') if !esc => break,
                            Some(_) => esc = false,
                        }
                    }
                }
                _ => break,
            }
        }
        match chars.next() {
            None | Some('}') | Some('{') => {}
            Some('e' | 'w' | 'W' | 'r' | 'R' | 'F' | 'z') => return false,
            Some('s' | 'y') => {
                let Some(delim) = chars.next() else {
                    return false;
                };
                if delim == '\\' || delim == '\n' {
                    return false;
                }
                let mut seen = 0;
                let mut esc = false;
                for c in chars.by_ref() {
                    if esc {
                        esc = false;
                    } else if c == '\\' {
                        esc = true;
                    } else if c == delim {
                        seen += 1;
                        if seen == 2 {
                            break;
                        }
                    }
                }
                if seen < 2 {
                    return false;
                }
                let flags: String = chars.collect();
                if flags.contains('e') || flags.contains('w') || flags.contains('W') {
                    return false;
                }
            }
            Some(_) => {}
        }
    }
    true
}

/// Built-in refusals that hold whatever the rules file allows.
pub fn check_dangerous(argv: &[String], roots: &[PathBuf]) -> Result<()> {
    let prog = argv[0].as_str();
    let args = &argv[1..];
    if prog.contains('/') {
        return Err(deny(format!(
            "program {prog:?} is a path: name an allowlisted program (looked up on {SAFE_PATH})"
        )));
    }
    if WRAPPERS.contains(&prog) {
        return Err(deny(format!(
            "{prog} runs other programs or reaches the network and is not allowed"
        )));
    }
    if ALWAYS_DENIED.contains(&prog) {
        return Err(deny(format!(
            "{prog} can run code or write arbitrary files and is not allowed"
        )));
    }
    let base = prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if INTERPRETERS.contains(&prog) || INTERPRETERS.contains(&base) {
        for a in args {
            if short_cluster_has(a, &['c', 'e', 'E', 'p', 'r'])
                || opt_is(
                    a,
                    &[
                        "--eval",
                        "--command",
                        "--print",
                        "--exec",
                        "--require",
                        "--import",
                    ],
                )
            {
                return Err(deny(format!(
                    "{prog} {a}: inline code for an interpreter is not allowed"
                )));
            }
        }
    }
    match prog {
        "find" => {
            for a in args {
                if matches!(
                    a.as_str(),
                    "-exec"
                        | "-execdir"
                        | "-ok"
                        | "-okdir"
                        | "-delete"
                        | "-fprint"
                        | "-fprint0"
                        | "-fprintf"
                        | "-fls"
                ) {
                    return Err(deny(format!(
                        "find {a} is not allowed (it runs commands or changes files)"
                    )));
                }
            }
        }
        "git" => {
            let mut global = true;
            for a in args {
                if global && !a.starts_with('-') {
                    global = false;
                }
                if (global && (a == "-c" || a.starts_with("-c")))
                    || opt_is(
                        a,
                        &[
                            "--config-env",
                            "--exec-path",
                            "--upload-pack",
                            "--receive-pack",
                            "--ext-diff",
                            "--output",
                            "--textconv",
                            "--config",
                        ],
                    )
                    || a.starts_with("-u")
                        && !global
                        && args.first().is_some_and(|s| s == "clone" || s == "fetch")
                {
                    return Err(deny(format!(
                        "git {a} is not allowed (it can run commands or write outside the root)"
                    )));
                }
            }
        }
        "rg" => {
            for a in args {
                if opt_is(a, &["--pre", "--pre-glob", "--search-zip"])
                    || (short_cluster_has(a, &['z']) && !a.starts_with("--"))
                {
                    return Err(deny(format!(
                        "rg {a} is not allowed (it runs preprocessor commands)"
                    )));
                }
            }
        }
        "sed" => {
            let mut scripts = Vec::new();
            let mut explicit = false;
            let mut it = args.iter();
            let mut first_operand = None;
            while let Some(a) = it.next() {
                if opt_is(a, &["--in-place"]) || short_cluster_has(a, &['i']) {
                    return Err(deny(format!("sed {a} (in-place editing) is not allowed")));
                }
                if opt_is(a, &["--file"]) || short_cluster_has(a, &['f']) {
                    return Err(deny("sed -f (script from a file) is not allowed"));
                }
                if a == "-e" || a == "--expression" {
                    explicit = true;
                    scripts.extend(it.next().cloned());
                } else if let Some(s) = a.strip_prefix("--expression=") {
                    explicit = true;
                    scripts.push(s.to_string());
                } else if let Some(s) = a.strip_prefix("-e").filter(|_| !a.starts_with("--")) {
                    explicit = true;
                    scripts.push(s.to_string());
                } else if !a.starts_with('-') && first_operand.is_none() {
                    first_operand = Some(a.clone());
                }
            }
            if !explicit {
                scripts.extend(first_operand);
            }
            for s in &scripts {
                if !sed_script_ok(s) {
                    return Err(deny(format!(
                        "sed script {s:?} uses a command that runs programs or writes files (e, w, r, s///e, s///w) or could not be checked"
                    )));
                }
            }
        }
        _ => {}
    }
    for a in args {
        let value = if a.starts_with('-') {
            a.split_once('=').map(|(_, v)| v)
        } else {
            Some(a.as_str())
        };
        if let Some(v) = value
            && (v.starts_with('/') || v.contains(".."))
            && !path_arg_ok(v, roots)
        {
            return Err(
                deny(format!("argument {a:?} points outside the sandbox root"))
                    .with("argument", a.clone()),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn builtin_rules_load_and_decide() {
        let r = ShellRules::builtin().unwrap();
        assert!(r.decide(&v(&["ls", "-la"])).is_ok());
        assert!(r.decide(&v(&["git", "push"])).is_err());
        assert!(r.decide(&v(&["git", "branch", "-D", "x"])).is_err());
    }

    #[test]
    fn rule_examples_are_checked() {
        let bad = r#"{"rules":[{"action":"allow","prefix":["ls"],"match":[["cat"]]}]}"#;
        assert_eq!(
            ShellRules::parse(bad, "t").unwrap_err().code,
            Code::InvalidRequest
        );
        let bad = r#"{"rules":[{"action":"allow","prefix":["ls"],"match":[["ls"]],"not_match":[["ls","-l"]]}]}"#;
        assert!(ShellRules::parse(bad, "t").is_err());
        let bad = r#"{"rules":[{"action":"allow","prefix":["ls"]}]}"#;
        assert!(ShellRules::parse(bad, "t").is_err());
    }

    #[test]
    fn sed_scripts() {
        assert!(sed_script_ok("1,5p"));
        assert!(sed_script_ok("s/a/b/g"));
        assert!(!sed_script_ok("s/a/b/e"));
        assert!(!sed_script_ok("s|a|b|w out"));
        assert!(!sed_script_ok("1e id"));
        assert!(!sed_script_ok("/x/w out"));
    }
}
