//! The argv policy of `shell.exec`: which programs may run, and what each may do.
//!
//! The command line is split into argv with `shlex` (POSIX word rules); shell operators outside
//! quotes are refused. Then [`vet`] decides, in this order:
//!
//! 1. **Program name** (a short denylist kept as a second line with clear messages): no program
//!    paths, no wrappers that run other programs (`env`, `xargs`, `timeout`, `sudo`…), no
//!    always-dangerous programs (`awk`, `dd`, `tee`…), no interpreter inline code (`sh -c`).
//! 2. **The rules file** (`policy/shell-rules.json`, or `BOB_TOOL_SHELL_RULES` /
//!    `--shell-rules`) chooses *which* programs and git subcommands are allowed: allow/deny argv
//!    prefix rules, deny wins, each rule carrying `match`/`not_match` examples verified when the
//!    file loads (an allow rule's `match` examples must also parse under the program's spec).
//! 3. **The program's spec** says *what* it may do: its short options (flag or with a value),
//!    long options (flag, required or optional value), and the kind of every option value and
//!    operand. The built-in specs ([`builtin_spec`]) cover ls, cat, head, tail, wc, grep, rg,
//!    find, echo, printf, pwd, stat, file, du, sort, uniq, cut, tr, diff, sed, date, true,
//!    false, sleep, sha256sum and the git subcommands status, log, diff, show, ls-files,
//!    rev-parse, branch and blame. A program the file allows but that has no built-in spec is
//!    refused unless its allow rule carries a `spec` (same option language, see
//!    [`FileSpec`]); a file may not replace a built-in spec. Anything not in the spec is
//!    refused: it is an allowlist.
//!
//! ## Option semantics
//!
//! argv is parsed the way the program itself parses it ([`parse`]): GNU `getopt_long` for
//! coreutils, grep, sed, diff and file — a unique prefix of a long option stands for it
//! (`--expr` is `--expression`, `--in-pl` is `--in-place`), an ambiguous or unknown one is
//! refused, `--opt=value` and `--opt value` for required values, `--opt=value` only for
//! optional ones; short options cluster (`-ne`, `-qD`) and take attached values (`-n5`,
//! `-f/etc/x`); `--` ends options and options may follow operands (GNU permutation). Every
//! long option the program has — the refused ones included — is in its spec, so an
//! abbreviation resolves exactly as the program resolves it. ripgrep and git do not accept
//! abbreviations the same way (git's revision parser, its diff options and `rg` differ), so
//! for them only exact long option names are accepted.
//!
//! ## Kinds
//!
//! - `read_path` / `write_path` / `write_dir`: must be inside a sandbox root, lexically *and*
//!   after the kernel resolved every symlink beneath the root (`cat link` with
//!   `link -> /etc/shadow` is refused here, whatever the OS sandbox does). Relative paths are
//!   relative to the command's `cwd` under the root. A write path may not be a symlink, nor a
//!   protected path (VCS internals and program dotfiles, see [`super::fs`]) unless a human
//!   granted `fs:dotfiles`.
//! - `name_list0` (`--files0-from`): the file is a read path, and so is every NUL-separated
//!   name listed in it (bob reads at most 1 MiB of it before the program runs).
//! - `number`, `text`, `word` (an enumerated value: no `/`, no whitespace), `pattern`,
//!   `format`, `sed_script` (checked command by command), `date_format` (`+FORMAT` only),
//!   `duration`, `git_arg` (a revision or a path: a path-like one must be inside the roots),
//!   `read_path_list` (colon-separated read paths).
//!
//! `POSIXLY_CORRECT` never reaches a child (its environment is cleared), so every getopt
//! program permutes, as the parser assumes; `find` has its own parser here (leading `-H`/`-P`,
//! starting points, then an expression of listed primaries), and `echo`, `printf`, `true` and
//! `false` take only text.
//!
//! ## Per-program rules beyond the spec
//!
//! - sed: no `-i`/`--in-place`, no `-f`/`--file`; the script (all `-e`/`--expression` pieces
//!   joined by newlines, as sed joins them, or the first operand) is parsed command by command,
//!   through `{}` blocks, `;`/newline separators, custom address delimiters (`\%re%`) and
//!   `a`/`i`/`c` text; `e`, `w`, `W`, `r`, `R`, `s///e` and `s///w` are refused, unknown
//!   commands too. `--sandbox` is inserted, so GNU sed itself rejects e/w/r as well.
//! - sort: no `--compress-program`; `-T` and `-o` inside the roots. `--files0-from` (here and
//!   in wc and du) inside the roots, and every name listed in it too: bob reads the list (at
//!   most 1 MiB) and vets each name as a read path before the program runs.
//! - date: prints only: `-d`, `-u`, `-R`, `-I[FMT]`, `--rfc-3339`, `-r FILE`, `-f FILE`, and one
//!   `+FORMAT` operand; `-s`/`--set` and the positional `MMDDhhmm[[CC]YY][.ss]` form are
//!   refused.
//! - grep/rg: `-f`/`--file` inside the roots; `grep -R`, `rg -L` (they follow symlinks out of
//!   the root), `rg --pre`, `--pre-glob`, `-z`/`--search-zip`, `--hostname-bin` refused.
//! - find: expression primaries from a list; `-exec*`, `-ok*`, `-delete`, `-fprint*`, `-fls`,
//!   `-L`/`-follow` refused; starting points and reference files are read paths.
//! - diff: `-l`/`--paginate` (runs `pr`) refused; `--no-dereference` is inserted with `-r`.
//! - ls, du: `-L` refused; file: `-z`/`-Z` (run decompressors), `-C`, `-S`, `-f` refused;
//!   sha256sum: `-c` refused (names inside the check file could not be vetted).
//! - git: the listed subcommands only, with their read-only options; global options limited to
//!   `-C DIR`/`--work-tree` inside the roots, `--git-dir` inside the roots naming a `.git`,
//!   `--no-pager`/`-P` and the pathspec switches (no `-c`, `--config-env`, `--exec-path`,
//!   `--namespace`…). `git branch` only lists: `-d`, `-D`, `--delete`, `-m`, `-M`, `-c`, `-C`,
//!   `-f`, `-u`, `--unset-upstream`, `--edit-description`, `-t` are refused (clustered or
//!   after `-q` too), and a branch-name operand is accepted only in list mode (`--list`,
//!   `--contains`, `--merged`, `--points-at`, `-v`). `--no-pager` is inserted; diff, log and
//!   show get `--no-ext-diff --no-textconv`, blame `--no-textconv`.
//!
//! ## Git's environment ([`GIT_ENV`])
//!
//! git runs with `GIT_CONFIG_NOSYSTEM=1`, `GIT_CONFIG_GLOBAL=/dev/null` (so `$HOME/.gitconfig`
//! and `$XDG_CONFIG_HOME/git/config` are not read), `GIT_ATTR_NOSYSTEM=1`, `GIT_PAGER=cat`,
//! `GIT_TERMINAL_PROMPT=0`, `GIT_OPTIONAL_LOCKS=0` (no opportunistic index write, hence no
//! post-index-change hook), `GIT_CEILING_DIRECTORIES` = the roots' parents (no repository
//! discovered above a root), and configuration passed through `GIT_CONFIG_COUNT`/
//! `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`. git reads configuration system → global → repo
//! (`.git/config`) → worktree → *command* scope (`-c` and `GIT_CONFIG_COUNT`), the last value
//! winning for single-valued keys, so these override anything the repository says:
//! `core.fsmonitor=false`, `core.hooksPath=/dev/null`, `core.pager=cat`, `core.editor=false`,
//! `core.sshCommand=false`, `core.askPass=false`, `core.attributesFile=/dev/null`,
//! `diff.external=` (none), `log.showSignature=false`, `gpg.program=false` (and its ssh/x509
//! variants: `%G?` formats cannot start gpg), `protocol.allow=never`,
//! `safe.bareRepository=explicit` (a bare repository planted in the root is not discovered),
//! and `safe.directory=*` (honoured only in protected scopes — system, global, command — which
//! this is; needed because inside the OS sandbox the repository's owner is not the sandbox
//! uid). Filter drivers and textconv/external diff drivers named by attributes need a config
//! entry *and* an attribute; `fs.write_text` cannot write either (`.git/`, `.gitattributes`,
//! `.gitconfig` are protected), `--no-ext-diff --no-textconv` are forced, and the repository's
//! own configuration is the operator's.
//!
//! ## Limits
//!
//! The path checks run before the program does; a concurrent writer could swap a symlink in
//! between (bob's own tools run one call at a time). The OS sandbox ([`super::shell`]) is the
//! layer that holds regardless.

mod builtin;
mod find;
mod getopt;
mod git;
mod rules;
mod sed;
mod spec;
#[cfg(test)]
mod tests;
mod values;

pub use builtin::builtin_spec;
pub use getopt::{Found, Parsed, parse};
pub use git::{GIT_CONFIG, GIT_ENV};
pub use rules::{FileSpec, RuleAction, ShellRule, ShellRules};
pub use sed::sed_script_check;
pub use spec::{Kind, ProgramSpec};

use crate::error::{Code, Error, Result};
use crate::tools::fs::Sandbox;
use Kind::*;
use find::vet_find;
use git::vet_git;
use spec::{TEXT_ONLY, Takes};
use std::path::PathBuf;
use values::{Access, Ctx};

/// The `PATH` children get.
pub const SAFE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// What vetting returns: the argv to run (with bob's insertions, e.g. `sed --sandbox`) and the
/// extra environment the program gets (git's hardening).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vetted {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
}

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

fn refuse(prog: &str, msg: impl std::fmt::Display) -> Error {
    Error::denied(format!("{prog}: {msg}")).with("program", prog.to_string())
}

// ---------------------------------------------------------------------------------------------
// Splitting and vetting

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

/// The second line: refusals by program name, whatever the rules file says.
fn check_program(argv: &[String]) -> Result<()> {
    let prog = argv[0].as_str();
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
        for a in &argv[1..] {
            let short = a.starts_with('-')
                && !a.starts_with("--")
                && a[1..].chars().any(|c| "ceEpr".contains(c));
            let long = [
                "--eval",
                "--command",
                "--print",
                "--exec",
                "--require",
                "--import",
            ]
            .iter()
            .any(|n| a == n || a.starts_with(&format!("{n}=")));
            if short || long {
                return Err(deny(format!(
                    "{prog} {a}: inline code for an interpreter is not allowed"
                )));
            }
        }
    }
    Ok(())
}

/// Vets a command: program name, the rules file, then the program's spec with every option
/// value and operand checked by kind. `cwd` is the command's working directory relative to
/// the first root (`.` for the root). Returns the argv to run and the extra environment.
pub fn vet(argv: &[String], sandbox: &Sandbox, cwd: &str, rules: &ShellRules) -> Result<Vetted> {
    let ctx = Ctx {
        sandbox: Some(sandbox),
        base: PathBuf::from(cwd),
    };
    vet_with(argv, &ctx, rules)
}

fn vet_with(argv: &[String], ctx: &Ctx, rules: &ShellRules) -> Result<Vetted> {
    if argv.is_empty() {
        return Err(Error::new(Code::ToolInputInvalid, "cmd is empty"));
    }
    check_program(argv)?;
    rules.decide(argv)?;
    let prog = argv[0].as_str();
    let args = &argv[1..];
    let plain = || Vetted {
        argv: argv.to_vec(),
        env: Vec::new(),
    };
    if TEXT_ONLY.contains(&prog) {
        return Ok(plain());
    }
    match prog {
        "find" => return vet_find(args, ctx).map(|()| plain()),
        "git" => return vet_git(args, ctx),
        _ => {}
    }
    let spec = match builtin_spec(prog).or_else(|| rules.file_spec(prog)) {
        Some(s) => s,
        None => {
            return Err(deny(format!(
                "{prog} has no argument spec: bob knows what {prog} may do only when a built-in spec or the rules file's allow rule (`spec`) says so"
            ))
            .with("program", prog.to_string()));
        }
    };
    let parsed = parse(spec, args)?;
    check_found(spec, &parsed, ctx)?;
    let mut out = plain();
    match prog {
        "sed" => {
            let pieces: Vec<&str> = parsed.values(spec, "expression").collect();
            let (script, files) = if pieces.is_empty() {
                let Some((s, rest)) = parsed.operands.split_first() else {
                    return Err(refuse("sed", "no script given"));
                };
                (s.clone(), rest)
            } else {
                (pieces.join("\n"), &parsed.operands[..])
            };
            ctx.check("sed", "script", SedScript, &script)?;
            for f in files {
                ctx.check("sed", "input file", ReadPath, f)?;
            }
            out.argv.insert(1, "--sandbox".into());
        }
        "grep" | "rg" => {
            let explicit = ["regexp", "file", "files", "type-list"]
                .iter()
                .any(|k| parsed.has(spec, k));
            let files = if explicit {
                &parsed.operands[..]
            } else {
                parsed.operands.get(1..).unwrap_or(&[])
            };
            for f in files {
                ctx.check(prog, "file operand", ReadPath, f)?;
            }
        }
        "date" => {
            if parsed.operands.len() > 1 {
                return Err(refuse("date", "takes at most one +FORMAT operand"));
            }
            check_operands(spec, &parsed.operands, ctx)?;
        }
        "diff" => {
            check_operands(spec, &parsed.operands, ctx)?;
            if parsed.has(spec, "recursive") && !parsed.has(spec, "no-dereference") {
                out.argv.insert(1, "--no-dereference".into());
            }
        }
        _ => {
            check_operands(spec, &parsed.operands, ctx)?;
            if builtin_spec(prog).is_none() {
                // A file-given spec: the old generic scan stays as a second line.
                generic_path_scan(prog, args, ctx)?;
            }
        }
    }
    Ok(out)
}

fn check_found(spec: &ProgramSpec, parsed: &Parsed, ctx: &Ctx) -> Result<()> {
    for f in &parsed.found {
        if f.idx == usize::MAX {
            continue;
        }
        if let (Takes::Required(k) | Takes::Optional(k), Some(v)) =
            (spec.opts[f.idx].takes, &f.value)
        {
            ctx.check(&spec.name, &format!("{} value", f.name), k, v)?;
        }
    }
    Ok(())
}

fn check_operands(spec: &ProgramSpec, operands: &[String], ctx: &Ctx) -> Result<()> {
    for (i, o) in operands.iter().enumerate() {
        let Some(kind) = spec.operands.get(i).or(spec.operands.last()) else {
            return Err(refuse(&spec.name, format!("takes no operands (got {o:?})")));
        };
        ctx.check(&spec.name, "operand", *kind, o)?;
    }
    Ok(())
}

/// For programs specified by the rules file: any absolute or `..` argument must stay inside.
fn generic_path_scan(prog: &str, args: &[String], ctx: &Ctx) -> Result<()> {
    for a in args {
        let value = if a.starts_with('-') {
            a.split_once('=').map(|(_, v)| v)
        } else {
            Some(a.as_str())
        };
        if let Some(v) = value
            && (v.starts_with('/') || v.contains(".."))
        {
            ctx.path(prog, "argument", v, Access::Read)?;
        }
    }
    Ok(())
}
