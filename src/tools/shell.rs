//! `shell.exec`: one allowlisted program, never a shell.
//!
//! argv is vetted by [`super::argv`] and then run by the OS sandbox ([`crate::sandbox`]): in
//! the full mode (the default) inside fresh namespaces with a new root, seccomp, rlimits and no
//! capabilities; in the weak mode, only when the operator chose it, directly under Landlock.
//! The working directory is the requested one beneath the root (opened beneath the root, so a
//! symlink cannot lead it out). The environment is cleared except `PATH` (a fixed system path),
//! `LANG`, `LC_*`, `TERM` and `HOME` (= the root). stdout/stderr are capped at 64 KiB each; the
//! whole process tree is killed on timeout. Every result reports `sandbox: {mode, layers}`.

use super::argv::{self, SAFE_PATH, ShellRules, split};
use super::fs::Sandbox;
use super::registry::ShellExecInput;
use crate::error::{Error, Result};
use crate::sandbox::{self, Mode};
use serde_json::{Value, json};
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::time::Duration;

/// Cap on captured stdout and on captured stderr.
pub const OUTPUT_CAP: usize = sandbox::OUTPUT_CAP;

/// Runs a checked command in the sandbox of `mode`.
pub fn exec(
    input: &ShellExecInput,
    sandbox: &Sandbox,
    roots: &[PathBuf],
    rules: &ShellRules,
    timeout: Duration,
    mode: Mode,
) -> Result<Value> {
    let argv = split(&input.cmd)?;
    let cwd_rel = input.cwd.clone().unwrap_or_else(|| ".".into());
    let dir = sandbox.open_dir(&cwd_rel)?;
    let vetted = argv::vet(&argv, sandbox, &cwd_rel, rules)?;
    // The directory as opened beneath the root, by its real path (no symlink left in it).
    let cwd = std::fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd()))
        .map_err(|e| Error::internal(format!("resolving the working directory: {e}")))?;
    let req = sandbox::Request {
        argv: vetted.argv.clone(),
        env: vetted.env,
        cwd,
        roots: roots.to_vec(),
        timeout,
        path: SAFE_PATH.to_string(),
    };
    let out = sandbox::run(&req, mode)?;
    let status = out
        .status
        .ok_or_else(|| Error::internal("child status lost"))?;
    Ok(json!({
        "argv": vetted.argv,
        "exit_code": status.code(),
        "signal": status.signal(),
        "stdout": out.stdout.text(),
        "stderr": out.stderr.text(),
        "stdout_truncated": out.stdout.truncated,
        "stderr_truncated": out.stderr.truncated,
        "duration_ms": out.elapsed.as_millis() as u64,
        "duration_us": out.elapsed.as_micros() as u64,
        "cwd": cwd_rel,
        "sandbox": out.report,
    }))
}
