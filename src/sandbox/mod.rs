//! The OS sandbox for `shell.exec` and the one process supervisor (docs/design.md#security-model).
//!
//! Knows nothing of the CLI or of the argv policy: it runs an argv that was already vetted, with
//! a scrubbed base environment plus the extra variables the caller gives, in a directory under
//! one of the roots, and returns what it printed and how it ended.
//!
//! ## Modes
//!
//! - **full** (the default, and required): every command gets fresh user, mount, PID, IPC, UTS
//!   and network namespaces ([`init`] describes the three processes). Inside, the program runs
//!   as uid/gid 1000, mapped to bob's own uid/gid outside (so files it writes in the roots belong
//!   to bob's user), with `setgroups` denied and no capability in any set. Its filesystem is a
//!   new root: `/usr`, `/bin`, `/sbin`, `/lib*` read-only (merged-/usr symlinks recreated), a
//!   generated minimal `/etc` (passwd/group naming the sandbox user, hosts, hostname,
//!   nsswitch.conf, the loader cache, the time zone, and Debian's `/etc/alternatives` (a directory
//!   of symlinks into /usr) bound read-only — never
//!   shadow, gshadow, ssh keys, git or any other host configuration), a private tmpfs `/tmp`,
//!   its own `/proc` (`subset=pid`: no `/proc/sys`, no sysrq-trigger), a `/dev` of null, zero,
//!   full, random and urandom, and the roots read-write (nosuid, nodev, noexec) at their own
//!   paths as the only writable places. The network namespace is empty (loopback down): nothing
//!   reaches the host or beyond. Protected paths inside the roots are read-only (below). A
//!   seccomp filter ([`seccomp`]) refuses clock setting, mounts, ptrace, keyrings, bpf,
//!   modules, reboot, namespace re-entry, set-ID bits and device nodes; rlimits bound CPU time,
//!   file size, open files, address space and core size (0), and a per-call cgroup bounds
//!   memory and processes where one is delegated (below). Only stdio reaches the program.
//! - **weak** (only when the operator asks: `BOB_SANDBOX=weak` or `bob tool run --sandbox
//!   weak`): the program runs directly in its own process group with Landlock (where the kernel
//!   has it) confining the filesystem to the roots and system directories and denying TCP. A
//!   `setsid` grandchild escapes the group kill there; the full mode has no such gap.
//!
//! Where the kernel cannot provide the full sandbox (user namespaces disabled, a container that
//! forbids mounts …) the call is refused with `sandbox.required` (exit 3) and the reason; bob
//! never silently falls back. Every result reports `{mode, layers}`.
//!
//! ## Descriptors
//!
//! A program starts with stdin, stdout and stderr only. bob's spawn of the helper marks every
//! descriptor above the status pipe close-on-exec (`close_range`), the helper closes them
//! all before it makes any namespace, and the program marks them again before its exec; the
//! weak mode marks everything above stderr. So a descriptor bob inherited by mistake (a
//! shell's `9</`, a CI runner's leaked directory handle) never leads a program back to the
//! host through `/proc/self/fd/N` or `openat(N, …)`. Layer `inherited-fds-closed`.
//!
//! ## Protected paths
//!
//! The roots are writable, but not everything in them: the caller lists paths the program may
//! not change ([`Request::read_only`], [`Request::placeholders`], [`Request::hidden`]) and the
//! full mode mounts them after the roots, whatever argv allowed (`shell.exec` passes the
//! protected entries of [`crate::tools::fs`]'s one list: VCS internals, program dotfiles,
//! `.bob*`, plus bob's home and rules files when they lie in a root):
//!
//! - an existing path is bind-mounted read-only over itself: it cannot be written, removed,
//!   renamed or replaced (a mount point is busy), and nothing can be created inside it;
//! - an absent placeholder (`.git` at the top of a root) is made as an empty directory for
//!   the call, mounted read-only, and removed after the call if still empty: a program cannot
//!   create a repository there, and the user's later `git` finds none (an empty `.git` is not a
//!   repository to git, which looks further up). While the call runs, the user sees the empty
//!   directory; a second call starting meanwhile treats it as existing and binds it.
//! - a hidden directory (bob's home inside a root) is covered by an empty read-only tmpfs.
//!
//! Symlinks are never mounted over (a bind follows them); the target is skipped, as is one
//! that vanished before the mount. Layer `protected-paths-ro`.
//!
//! Version-control metadata is looked for in the whole root, not only at its top: every
//! existing `.git` (`.hg`, ...) in a subdirectory is mounted read-only like the top one. The
//! search reads the root's directories breadth first, up to
//! [`crate::tools::fs::VCS_WALK_DIRS`] of them (plus the path to the working directory, always):
//! a root with more directories than that is guarded only that far.
//!
//! A protected name the program *creates* where none was listed (a `.bashrc` at the top of a
//! root that had none, a repository anywhere in it: `git init` in a sibling directory, a `.git`
//! file pointing elsewhere) is moved into the root's `.bob-quarantine/` after the call, which
//! then fails with `policy.denied` naming it (`shell.exec`, via
//! [`crate::tools::fs::quarantine_planted`]); this holds in the weak mode too, which has no
//! mount namespace and so cannot keep existing entries read-only.
//!
//! ## Budget
//!
//! Each call has a memory budget and a largest file ([`Budget`]: settings
//! `tools.sandbox_memory_mb`, default 4096 MiB, and `tools.sandbox_file_size_mb`, default 256
//! MiB). `RLIMIT_AS` (per process) and `RLIMIT_FSIZE` always apply, in both modes; in the full
//! mode, where a delegated cgroup v2 exists ([`cgroup`]), the whole call also gets its own
//! cgroup with `memory.max` = the budget (its private `/tmp` is charged there too), no swap,
//! and `pids.max` = [`init::PID_MAX`] (layers `cgroup-memory`, `cgroup-pids`). Disk use in the
//! roots is bounded per file, not in total: no cgroup controller bounds it.
//!
//! ## Process count
//!
//! `RLIMIT_NPROC` is set, but the kernel never enforces it for a process whose real uid is
//! global root — and the sandbox user *is* bob's uid outside, root in CI and most containers.
//! So the init caps the PID namespace's own `pid_max` ([`init::PID_MAX`]; per namespace since
//! Linux 6.14): at most that many processes exist in the sandbox at once, whoever bob is. On
//! an older kernel the `pids-limit` layer is missing from the report (and `RLIMIT_NPROC` still
//! bounds a non-root bob); the timeout and the namespace kill still end a fork bomb.
//!
//! ## Supervision
//!
//! [`supervisor`] spawns, captures (64 KiB per stream for `shell.exec`; the rest is drained and
//! dropped), times out and kills the whole tree; the scheduler's job runner uses it too. In full
//! mode the supervised child is the helper: killing its process group kills the namespace's
//! init (it is in the group and also dies with the helper), and the kernel then kills every
//! process of the namespace. The helper dies with bob (`PR_SET_PDEATHSIG`).

pub mod cgroup;
pub mod init;
pub mod seccomp;
pub mod supervisor;
mod weak;

use crate::error::{Code, Error, Result};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;
pub use supervisor::Captured;

pub use init::enter_if_requested;

/// Cap on captured stdout and on captured stderr of a sandboxed command.
pub const OUTPUT_CAP: usize = 64 * 1024;

/// How strongly commands are confined.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Namespaces, new root, seccomp, rlimits; refused where the kernel cannot provide it.
    #[default]
    Full,
    /// Landlock + process group only; the operator's explicit choice.
    Weak,
}

impl Mode {
    /// Parses `full` or `weak`.
    pub fn parse(s: &str) -> Result<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "full" => Ok(Mode::Full),
            "weak" => Ok(Mode::Weak),
            other => Err(Error::invalid(format!(
                "unknown sandbox mode {other:?}: expected \"full\" or \"weak\""
            ))),
        }
    }
}

/// Resource limits applied to the sandboxed program.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Limits {
    pub cpu_s: u64,
    pub file_size: u64,
    pub open_files: u64,
    pub address_space: u64,
}

impl Limits {
    fn for_request(timeout: Duration, budget: &Budget) -> Limits {
        Limits {
            cpu_s: timeout.as_secs() + 1,
            file_size: budget.file_size,
            open_files: 256,
            address_space: budget.memory,
        }
    }
}

/// The per-call memory and disk budget (settings `tools.sandbox_memory_mb`,
/// `tools.sandbox_file_size_mb`, `tools.sandbox_cgroup`).
#[derive(Debug, Clone)]
pub struct Budget {
    /// Bytes: the call's cgroup `memory.max` where a delegated cgroup exists, and each
    /// process's `RLIMIT_AS` in any case.
    pub memory: u64,
    /// Bytes: the largest file a process may write (`RLIMIT_FSIZE`).
    pub file_size: u64,
    /// A delegated cgroup v2 directory to make per-call cgroups in (see [`cgroup`]); `None`:
    /// bob's own cgroup if it delegates, else rlimits only.
    pub cgroup: Option<PathBuf>,
}

/// Default memory budget of one call: 4 GiB.
pub const DEFAULT_MEMORY: u64 = 4 << 30;
/// Default largest file one call may write: 256 MiB.
pub const DEFAULT_FILE_SIZE: u64 = 256 << 20;

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            memory: DEFAULT_MEMORY,
            file_size: DEFAULT_FILE_SIZE,
            cgroup: None,
        }
    }
}

/// One command to run (the helper's input; crosses the exec boundary as JSON).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Spec {
    /// The program (looked up on `PATH` of `env`) and its arguments.
    pub argv: Vec<String>,
    /// The whole environment of the program.
    pub env: Vec<(String, String)>,
    /// Absolute working directory, under one of the roots.
    pub cwd: PathBuf,
    /// The only writable places; the first is `HOME`.
    pub roots: Vec<PathBuf>,
    /// Existing paths inside the roots mounted read-only over themselves.
    #[serde(default)]
    pub read_only: Vec<PathBuf>,
    /// Directories inside the roots covered by an empty read-only tmpfs (neither readable nor
    /// writable by the program).
    #[serde(default)]
    pub hidden: Vec<PathBuf>,
    pub limits: Limits,
    /// The call's `cgroup.procs`, which the helper joins first (see [`cgroup`]).
    #[serde(default)]
    pub cgroup_procs: Option<PathBuf>,
}

/// Which confinement a command got.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub mode: Mode,
    pub layers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landlock: Option<String>,
}

/// A finished command.
#[derive(Debug)]
pub struct Output {
    /// `None` when the command timed out.
    pub status: Option<ExitStatus>,
    pub stdout: Captured,
    pub stderr: Captured,
    pub elapsed: Duration,
    pub report: Report,
}

/// What a caller asks to run.
#[derive(Debug, Clone)]
pub struct Request {
    pub argv: Vec<String>,
    /// Extra variables beyond the scrubbed base (PATH, HOME, LANG, LC_*, TERM).
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    pub roots: Vec<PathBuf>,
    pub timeout: Duration,
    /// The fixed `PATH` of the program.
    pub path: String,
    /// Paths inside the roots the program may not change (full mode: mounted read-only over
    /// themselves; a missing one is skipped).
    pub read_only: Vec<PathBuf>,
    /// Directories that must not exist after the call unless they existed before: when absent,
    /// an empty one is made for the call, mounted read-only (so the program can neither fill
    /// it nor replace it) and removed afterwards if still empty. Full mode only.
    pub placeholders: Vec<PathBuf>,
    /// Directories inside the roots the program may neither read nor write (full mode: an
    /// empty read-only tmpfs over each).
    pub hidden: Vec<PathBuf>,
    pub budget: Budget,
}

/// Marks every descriptor from `first` up close-on-exec, so nothing bob inherited from its own
/// parent (a shell's `9</`, a CI runner's or a wrapper's leaked descriptor) reaches a program.
/// Only system calls: safe between fork and exec. `close_range(CLOSE_RANGE_CLOEXEC)` (Linux
/// 5.11); on older kernels each descriptor below the open-files limit (at most 65,536) is
/// marked one by one. Marking instead of closing keeps the standard library's own exec-error
/// pipe working until the exec.
pub(crate) fn cloexec_from(first: u32) -> std::io::Result<()> {
    // SAFETY: plain system calls on descriptors; none is dereferenced.
    unsafe {
        if libc::syscall(
            libc::SYS_close_range,
            first,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        ) == 0
        {
            return Ok(());
        }
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
            lim.rlim_cur.min(1 << 16) as i32
        } else {
            1 << 16
        };
        for fd in first as i32..top {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
    Ok(())
}

/// The base environment: PATH, HOME (= the first root), and bob's LANG, LC_* and TERM; then the
/// caller's extra variables (which win). The locale pass-through is the one place this
/// subsystem reads the environment: it hands the program bob's own locale and is not a
/// setting (documented as an exception in [`crate::settings`]).
fn environment(req: &Request) -> Vec<(String, String)> {
    let home = req.roots.first().cloned().unwrap_or_default();
    let mut env = vec![
        ("PATH".to_string(), req.path.clone()),
        ("HOME".to_string(), home.to_string_lossy().into_owned()),
    ];
    for (k, v) in std::env::vars() {
        if k == "LANG" || k.starts_with("LC_") || k == "TERM" {
            env.push((k, v));
        }
    }
    for (k, v) in &req.env {
        env.retain(|(old, _)| old != k);
        env.push((k.clone(), v.clone()));
    }
    env
}

const POLICY_LAYERS: &[&str] = &[
    "no-shell",
    "argv-policy",
    "env-scrubbed",
    "cwd-in-root",
    "process-group-kill",
    "output-cap",
];

fn supervisor_limits(timeout: Duration) -> supervisor::Limits {
    supervisor::Limits {
        timeout,
        stdout_cap: OUTPUT_CAP,
        stderr_cap: OUTPUT_CAP,
        kill_grace: Duration::ZERO,
        drain_wait: Duration::from_secs(2),
    }
}

fn timed_out(req: &Request, f: &supervisor::Finished, report: &Report) -> Error {
    Error::new(
        Code::Timeout,
        format!(
            "{:?} did not finish within {} ms; every process it started was killed",
            req.argv[0],
            req.timeout.as_millis()
        ),
    )
    .with("stdout", f.stdout.text())
    .with("stderr", f.stderr.text())
    .with("timeout_ms", req.timeout.as_millis() as u64)
    .with("sandbox", serde_json::to_value(report).unwrap_or_default())
}

/// Runs one command in the sandbox of `mode`.
pub fn run(req: &Request, mode: Mode) -> Result<Output> {
    if req.argv.is_empty() {
        return Err(Error::invalid("empty command"));
    }
    match mode {
        Mode::Full => run_full(req),
        Mode::Weak => weak::run(req, environment(req)),
    }
}

/// Empty directories made for one call (see [`Request::placeholders`]), removed when dropped
/// if they are still empty (a human who filled one meanwhile keeps it).
struct Placeholders(Vec<PathBuf>);

impl Drop for Placeholders {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_dir(p);
        }
    }
}

fn run_full(req: &Request) -> Result<Output> {
    let mut read_only = req.read_only.clone();
    let mut made = Placeholders(Vec::new());
    for p in &req.placeholders {
        match std::fs::symlink_metadata(p) {
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound && std::fs::create_dir(p).is_ok() =>
            {
                made.0.push(p.clone());
                read_only.push(p.clone());
            }
            Ok(m) if !m.file_type().is_symlink() => read_only.push(p.clone()),
            _ => {}
        }
    }
    let call_cgroup = cgroup::parent(req.budget.cgroup.as_deref())
        .and_then(|p| cgroup::CallCgroup::new(&p, req.budget.memory, init::PID_MAX));
    let spec = Spec {
        argv: req.argv.clone(),
        env: environment(req),
        cwd: req.cwd.clone(),
        roots: req.roots.clone(),
        read_only,
        hidden: req.hidden.clone(),
        limits: Limits::for_request(req.timeout, &req.budget),
        cgroup_procs: call_cgroup.as_ref().map(cgroup::CallCgroup::procs),
    };
    let spec_json = serde_json::to_string(&spec).map_err(|e| Error::internal(e.to_string()))?;
    let exe = std::env::current_exe()
        .map_err(|e| Error::internal(format!("cannot locate the bob executable: {e}")))?;
    let (status_r, status_w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| Error::internal(format!("status pipe: {e}")))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg(init::HELPER_ARG)
        .arg(spec_json)
        .env_clear()
        .current_dir("/");
    let w = std::os::fd::AsRawFd::as_raw_fd(&status_w);
    // SAFETY: only async-signal-safe calls (prctl, dup2, fcntl, close_range) between fork and
    // exec.
    unsafe {
        cmd.pre_exec(move || {
            let moved = if w == init::STATUS_FD {
                libc::fcntl(w, libc::F_SETFD, 0)
            } else {
                libc::dup2(w, init::STATUS_FD)
            };
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 || moved == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The helper gets stdio and the status pipe, nothing else bob holds.
            cloexec_from(init::STATUS_FD as u32 + 1)
        });
    }
    // Read reports as they come, so the pipe never fills whatever the helper writes.
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::fs::File::from(status_r).read_to_string(&mut text);
        text
    });
    let limits = supervisor_limits(req.timeout);
    let finished = supervisor::run_passing(cmd, None, &limits, None, init::STATUS_FD as u32 + 1);
    drop(status_w);
    let finished = finished.map_err(|e| Error::internal(format!("starting the sandbox: {e}")))?;
    let reports = reader.join().unwrap_or_default();
    let mut layers: Vec<String> = POLICY_LAYERS.iter().map(|s| s.to_string()).collect();
    let mut status = None;
    for line in reports.lines() {
        let Ok(r) = serde_json::from_str::<init::HelperReport>(line) else {
            continue;
        };
        match r {
            init::HelperReport::SetupError { setup_error: e } => {
                return Err(Error::new(
                    Code::SandboxRequired,
                    format!(
                        "the OS sandbox is not available here ({}: {}); shell.exec refuses to \
                         run unconfined. An operator may choose the weaker Landlock-only mode \
                         explicitly with BOB_SANDBOX=weak or `bob tool run --sandbox weak`",
                        e.stage, e.detail
                    ),
                )
                .with("stage", e.stage));
            }
            init::HelperReport::ExecFailed { exec_errno, detail } => {
                return Err(if exec_errno == libc::ENOENT {
                    Error::not_found(format!(
                        "program {:?} not found on {}",
                        req.argv[0], req.path
                    ))
                } else {
                    Error::internal(format!("starting {:?}: {detail}", req.argv[0]))
                });
            }
            init::HelperReport::Cgroup { cgroup: true } => {
                layers.extend(["cgroup-memory".to_string(), "cgroup-pids".to_string()]);
            }
            init::HelperReport::Cgroup { cgroup: false } => {}
            init::HelperReport::Ready { ready } => layers.extend(ready),
            init::HelperReport::Ended { status: raw } => {
                status = Some(ExitStatus::from_raw(raw as i32));
            }
        }
    }
    drop(call_cgroup);
    let report = Report {
        mode: Mode::Full,
        layers,
        landlock: None,
    };
    if matches!(finished.ended, supervisor::Ended::TimedOut) {
        return Err(timed_out(req, &finished, &report));
    }
    let Some(status) = status else {
        let how = match finished.ended {
            supervisor::Ended::Exited(st) => format!("{st}"),
            _ => "killed".into(),
        };
        return Err(Error::new(
            Code::SandboxRequired,
            format!("the sandbox helper ended ({how}) without running the command"),
        ));
    };
    Ok(Output {
        status: Some(status),
        stdout: finished.stdout,
        stderr: finished.stderr,
        elapsed: finished.elapsed,
        report,
    })
}
