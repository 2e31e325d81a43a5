//! `shell.exec`: one allowlisted program, never a shell.
//!
//! The command line is split into argv with `shlex` (POSIX word rules) and run directly.
//! Shell operators outside quotes (`| ; & < > $ \` ( )` and newlines) are refused: there is no
//! pipe, redirection, substitution or chaining. argv is checked by built-in rules (below)
//! and then against an allow/deny prefix rule file (`policy/shell-rules.json`, or
//! `BOB_TOOL_SHELL_RULES` / `--shell-rules`), whose examples are verified when it loads.
//!
//! The child runs in the sandbox root (or a directory beneath it, entered with `fchdir` on a
//! handle opened beneath the root), with the environment cleared except `PATH` (a fixed system
//! path), `LANG`, `LC_*`, `TERM` and `HOME` (= the root), in its own process group which is
//! killed as a whole on timeout and after the child exits, with stdout/stderr capped at
//! 64 KiB each. Where the kernel supports it, Landlock confines the child's filesystem access
//! to the root (read-write) and system directories (read-only/execute) and denies TCP.

use super::fs::{Sandbox, climbs_out};
use super::registry::ShellExecInput;
use crate::error::{Code, Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Cap on captured stdout and on captured stderr.
pub const OUTPUT_CAP: usize = 64 * 1024;
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

/// Which OS confinement a child got.
#[derive(Debug, Clone, Serialize)]
pub struct SandboxReport {
    pub layers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landlock: Option<String>,
}

const BASE_LAYERS: &[&str] = &[
    "no-shell",
    "argv-policy",
    "env-scrubbed",
    "cwd-in-root",
    "process-group-kill",
    "rlimits",
    "output-cap",
];

fn landlock_restrict(
    roots: &[PathBuf],
) -> std::result::Result<landlock::RestrictionStatus, String> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr,
        path_beneath_rules,
    };
    let abi = ABI::V5;
    let ro_exec: &[&str] = &[
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/etc",
        "/opt",
        "/nix/store",
    ];
    let ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| e.to_string())?
        .handle_access(AccessNet::from_all(abi))
        .map_err(|e| e.to_string())?
        .create()
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(ro_exec, AccessFs::from_read(abi)))
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(
            ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"],
            AccessFs::from_read(abi) | AccessFs::WriteFile,
        ))
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(roots, AccessFs::from_all(abi)))
        .map_err(|e| e.to_string())?;
    ruleset.restrict_self().map_err(|e| e.to_string())
}

struct Captured {
    bytes: Vec<u8>,
    truncated: bool,
}

fn capture(mut r: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<Captured> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut truncated = false;
        let mut buf = [0u8; 8192];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = OUTPUT_CAP.saturating_sub(bytes.len());
                    if n > room {
                        truncated = true;
                    }
                    bytes.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        let _ = tx.send(Captured { bytes, truncated });
    });
    rx
}

fn text(c: &Captured) -> String {
    String::from_utf8_lossy(&c.bytes).into_owned()
}

/// Runs a checked command. Called on a dedicated thread (Landlock restricts the calling thread,
/// which the child inherits), so the caller's thread is never confined.
pub fn exec(
    input: &ShellExecInput,
    sandbox: &Sandbox,
    roots: &[PathBuf],
    rules: &ShellRules,
    timeout: Duration,
    require_sandbox: bool,
) -> Result<Value> {
    let argv = split(&input.cmd)?;
    check_dangerous(&argv, roots)?;
    rules.decide(&argv)?;
    let cwd_rel = input.cwd.clone().unwrap_or_else(|| ".".into());
    let cwd = sandbox.open_dir(&cwd_rel)?;
    let roots = roots.to_vec();
    let home = roots.first().cloned().unwrap_or_default();
    std::thread::scope(|s| {
        s.spawn(move || -> Result<Value> {
            let mut layers: Vec<String> = BASE_LAYERS.iter().map(|s| s.to_string()).collect();
            let landlock = match landlock_restrict(&roots) {
                Ok(st) => {
                    let status = format!("{:?}", st.ruleset);
                    if st.ruleset != landlock::RulesetStatus::NotEnforced {
                        layers.push("landlock".into());
                    }
                    if st.no_new_privs {
                        layers.push("no-new-privs".into());
                    }
                    status
                }
                Err(e) => format!("unavailable: {e}"),
            };
            if require_sandbox && !layers.iter().any(|l| l == "landlock") {
                return Err(Error::new(
                    Code::SandboxRequired,
                    format!("OS confinement (Landlock) is required but not available here ({landlock}); unset --require-sandbox / BOB_TOOL_REQUIRE_SANDBOX to run with the policy layers only"),
                )
                .with("layers", layers.clone()));
            }
            let mut cmd = Command::new(&argv[0]);
            cmd.args(&argv[1..]).env_clear().env("PATH", SAFE_PATH).env("HOME", &home);
            for (k, v) in std::env::vars_os() {
                let k_s = k.to_string_lossy();
                if k_s == "LANG" || k_s.starts_with("LC_") || k_s == "TERM" {
                    cmd.env(&k, v);
                }
            }
            cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
            let cwd_fd = cwd.as_raw_fd();
            // SAFETY: only async-signal-safe calls (fchdir, setrlimit, prctl) between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::fchdir(cwd_fd) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    let core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                    libc::setrlimit(libc::RLIMIT_CORE, &core);
                    let fsize = libc::rlimit { rlim_cur: 256 << 20, rlim_max: 256 << 20 };
                    libc::setrlimit(libc::RLIMIT_FSIZE, &fsize);
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
            let started = Instant::now();
            let mut child = cmd.spawn().map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    Error::not_found(format!("program {:?} not found on {SAFE_PATH}", argv[0]))
                } else {
                    Error::internal(format!("spawning {:?}: {e}", argv[0]))
                }
            })?;
            let pgid = child.id() as libc::pid_t;
            let out_rx = capture(child.stdout.take().ok_or_else(|| Error::internal("no stdout pipe"))?);
            let err_rx = capture(child.stderr.take().ok_or_else(|| Error::internal("no stderr pipe"))?);
            let deadline = started + timeout;
            let mut nap = Duration::from_millis(1);
            let (status, timed_out) = loop {
                match child.try_wait() {
                    Ok(Some(st)) => break (Some(st), false),
                    Ok(None) => {}
                    Err(e) => return Err(Error::internal(format!("waiting for the child: {e}"))),
                }
                let now = Instant::now();
                if now >= deadline {
                    // SAFETY: signalling our own child's process group.
                    unsafe { libc::killpg(pgid, libc::SIGKILL) };
                    let st = child.wait().ok();
                    break (st, true);
                }
                std::thread::sleep(nap.min(deadline - now));
                nap = (nap * 2).min(Duration::from_millis(20));
            };
            // Whatever the child left behind in its group goes too.
            // SAFETY: as above.
            unsafe { libc::killpg(pgid, libc::SIGKILL) };
            let grace = Duration::from_millis(500);
            let out = out_rx.recv_timeout(grace).unwrap_or(Captured { bytes: Vec::new(), truncated: true });
            let err = err_rx.recv_timeout(grace).unwrap_or(Captured { bytes: Vec::new(), truncated: true });
            let duration_ms = started.elapsed().as_millis() as u64;
            let sandbox = SandboxReport { layers, landlock: Some(landlock) };
            if timed_out {
                return Err(Error::new(Code::Timeout, format!("{:?} did not finish within {} ms; its process group was killed", argv[0], timeout.as_millis()))
                    .with("stdout", text(&out))
                    .with("stderr", text(&err))
                    .with("timeout_ms", timeout.as_millis() as u64));
            }
            let status = status.ok_or_else(|| Error::internal("child status lost"))?;
            Ok(json!({
                "argv": argv,
                "exit_code": status.code(),
                "signal": status.signal(),
                "stdout": text(&out),
                "stderr": text(&err),
                "stdout_truncated": out.truncated,
                "stderr_truncated": err.truncated,
                "duration_ms": duration_ms,
                "cwd": cwd_rel,
                "sandbox": sandbox,
            }))
        })
        .join()
        .unwrap_or_else(|_| Err(Error::internal("shell.exec worker panicked")))
    })
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
