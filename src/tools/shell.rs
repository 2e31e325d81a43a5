//! `shell.exec`: one allowlisted program, never a shell.
//!
//! argv is vetted by [`super::argv`] and then run directly. The child runs in the sandbox root
//! (or a directory beneath it, entered with `fchdir` on a handle opened beneath the root), with
//! the environment cleared except `PATH` (a fixed system path), `LANG`, `LC_*`, `TERM` and
//! `HOME` (= the root), in its own process group which is killed as a whole on timeout and
//! after the child exits, with stdout/stderr capped at 64 KiB each. Where the kernel supports
//! it, Landlock confines the child's filesystem access to the root (read-write) and system
//! directories (read-only/execute) and denies TCP.

use super::argv::{self, SAFE_PATH, ShellRules, split};
use super::fs::Sandbox;
use super::registry::ShellExecInput;
use crate::error::{Code, Error, Result};
use serde::Serialize;
use serde_json::{Value, json};
use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Cap on captured stdout and on captured stderr.
pub const OUTPUT_CAP: usize = 64 * 1024;

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
    let cwd_rel = input.cwd.clone().unwrap_or_else(|| ".".into());
    let cwd = sandbox.open_dir(&cwd_rel)?;
    let vetted = argv::vet(&argv, sandbox, &cwd_rel, rules)?;
    let argv = vetted.argv;
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
            cmd.envs(vetted.env.iter().map(|(k, v)| (k, v)));
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
