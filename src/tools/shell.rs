//! `shell.exec`: one allowlisted program, never a shell.
//!
//! argv is vetted by [`super::argv`] and then run by the OS sandbox ([`crate::sandbox`]): in
//! the full mode (the default) inside fresh namespaces with a new root, seccomp, rlimits and no
//! capabilities; in the weak mode, only when the operator chose it, directly under Landlock.
//! The working directory is the requested one beneath the root (opened beneath the root, so a
//! symlink cannot lead it out). The environment is cleared except `PATH` (a fixed system path),
//! `LANG`, `LC_*`, `TERM` and `HOME` (= the root). stdout/stderr are capped at 64 KiB each; the
//! whole process tree is killed on timeout. Every result reports `sandbox: {mode, layers}`.
//!
//! Whatever argv allows, the program cannot change a protected path (the one list of
//! [`super::fs`]: VCS internals, program dotfiles, `.bob*`) that exists at the top of a root or
//! as a `.git` between the root and the working directory, nor create `.git` at the top of a
//! root, nor touch bob's home or the operator's rules files inside a root: the full sandbox
//! mounts them read-only (the home hidden). See [`crate::sandbox`] for the limits.

use super::argv::{self, SAFE_PATH, ShellRules, split};
use super::fs::Sandbox;
use super::spec::{Kind, ToolSpec};
use crate::error::{Error, Result};
use crate::sandbox::{self, Mode};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The `shell.exec` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "shell.exec",
    description: "Run one allowlisted program (no shell: no pipes, redirection or expansion) in the sandbox root with a scrubbed environment, a timeout and capped output.",
    kind: Kind::Shell,
    mutating: true,
    schema: || schemars::schema_for!(ShellExecInput),
};

/// `shell.exec` input (the tool registry contract, plus `cwd` for JSON I/O `run_command`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellExecInput {
    /// A command line, split like a POSIX shell would split words but never run by a shell.
    pub cmd: String,
    #[serde(default = "d_timeout_s")]
    pub timeout_s: u64,
    /// Working directory relative to the sandbox root.
    #[serde(default)]
    pub cwd: Option<String>,
}

fn d_timeout_s() -> u64 {
    20
}

/// Cap on captured stdout and on captured stderr.
pub const OUTPUT_CAP: usize = sandbox::OUTPUT_CAP;

/// What confines a program besides its argv: bob's own files, which may lie inside a root
/// (the program never changes them), and the call's memory and disk budget.
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    /// bob's home (audit logs, keys, secrets, sessions): hidden from the program when it lies
    /// inside a root (read-only instead when a root lies inside it).
    pub home: Option<PathBuf>,
    /// The operator's policy and rules files (shell rules, redaction rules): read-only.
    pub files: Vec<PathBuf>,
    pub budget: sandbox::Budget,
}

/// The call's budget from the settings `tools.sandbox_memory_mb` (at least 16),
/// `tools.sandbox_file_size_mb` (at least 1) and `tools.sandbox_cgroup`.
pub fn budget(settings: &crate::settings::Settings) -> Result<sandbox::Budget> {
    let mb = |key: &str, min: u64, default: u64| -> Result<u64> {
        match settings.u64(key)? {
            None => Ok(default),
            Some(v) if v >= min => Ok(v.saturating_mul(1 << 20)),
            Some(v) => Err(Error::invalid(format!("{key} = {v}: at least {min} (MiB)"))
                .with("setting", key.to_string())),
        }
    };
    Ok(sandbox::Budget {
        memory: mb("tools.sandbox_memory_mb", 16, sandbox::DEFAULT_MEMORY)?,
        file_size: mb("tools.sandbox_file_size_mb", 1, sandbox::DEFAULT_FILE_SIZE)?,
        cgroup: settings.path("tools.sandbox_cgroup"),
    })
}

/// What the OS sandbox must keep the program from changing in `roots` when it runs in `cwd`:
/// the protected entries of [`super::fs`]'s one list that exist (read-only), an absent `.git`
/// at the top of each root (an empty read-only placeholder for the call), and bob's own files.
fn guards(
    roots: &[PathBuf],
    present: &[Vec<super::fs::Present>],
    bob: &Confinement,
) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>) {
    let (mut read_only, mut placeholders, mut hidden) = (Vec::new(), Vec::new(), Vec::new());
    for (r, present) in roots.iter().zip(present) {
        let found = super::fs::protected_mounts(present);
        let git = r.join(".git");
        if !found.contains(&git) && std::fs::symlink_metadata(&git).is_err() {
            placeholders.push(git);
        }
        read_only.extend(found);
    }
    let inside = |p: &Path| roots.iter().any(|r| p.starts_with(r) && p != r);
    let home = bob
        .home
        .as_ref()
        .and_then(|h| std::fs::canonicalize(h).ok());
    if let Some(home) = home.filter(|h| inside(h)) {
        if roots.iter().any(|r| r.starts_with(&home)) {
            read_only.push(home);
        } else {
            hidden.push(home);
        }
    }
    let files = bob
        .files
        .iter()
        .filter_map(|f| std::fs::canonicalize(f).ok());
    read_only.extend(files.filter(|f| inside(f)));
    (read_only, placeholders, hidden)
}

/// Runs a checked command in the sandbox of `mode`.
pub fn exec(
    input: &ShellExecInput,
    sandbox: &Sandbox,
    roots: &[PathBuf],
    rules: &ShellRules,
    timeout: Duration,
    mode: Mode,
    bob: &Confinement,
) -> Result<Value> {
    let argv = split(&input.cmd)?;
    let cwd_rel = input.cwd.clone().unwrap_or_else(|| ".".into());
    let dir = sandbox.open_dir(&cwd_rel)?;
    let vetted = argv::vet(&argv, sandbox, &cwd_rel, rules)?;
    // The directory as opened beneath the root, by its real path (no symlink left in it).
    let cwd = std::fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd()))
        .map_err(|e| Error::internal(format!("resolving the working directory: {e}")))?;
    let present: Vec<_> = roots
        .iter()
        .map(|r| super::fs::protected_present(r, &cwd))
        .collect();
    let (read_only, placeholders, hidden) = guards(roots, &present, bob);
    let req = sandbox::Request {
        argv: vetted.argv.clone(),
        env: vetted.env,
        cwd: cwd.clone(),
        roots: roots.to_vec(),
        timeout,
        path: SAFE_PATH.to_string(),
        read_only,
        placeholders,
        hidden,
        budget: bob.budget.clone(),
    };
    let out = sandbox::run(&req, mode);
    let planted: Vec<PathBuf> = roots
        .iter()
        .zip(&present)
        .flat_map(|(r, before)| super::fs::quarantine_planted(r, &cwd, before))
        .collect();
    if !planted.is_empty() {
        let names: Vec<String> = planted.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::denied(format!(
            "the program created protected paths ({}); they were moved into {} of the root",
            names.join(", "),
            super::fs::QUARANTINE_DIR
        ))
        .with("planted", names));
    }
    let out = out?;
    let status = out
        .status
        .ok_or_else(|| Error::internal("child status lost"))?;
    super::spec::answer(&Ran {
        argv: vetted.argv,
        exit_code: status.code(),
        signal: status.signal(),
        stdout: out.stdout.text(),
        stderr: out.stderr.text(),
        stdout_truncated: out.stdout.truncated,
        stderr_truncated: out.stderr.truncated,
        duration_ms: out.elapsed.as_millis() as u64,
        duration_us: out.elapsed.as_micros() as u64,
        cwd: cwd_rel,
        sandbox: out.report,
    })
}

/// `shell.exec`'s answer: how the program ended, its output (capped) and the sandbox it ran in.
#[derive(serde::Serialize)]
struct Ran {
    argv: Vec<String>,
    /// `null` when a signal ended it.
    exit_code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
    stdout_truncated: bool,
    stderr_truncated: bool,
    duration_ms: u64,
    duration_us: u64,
    cwd: String,
    sandbox: crate::sandbox::Report,
}
