//! The one process supervisor: spawn, feed stdin, capture stdout/stderr with caps, enforce a
//! timeout or a cancel flag, and kill the child's whole process group.
//!
//! Both `shell.exec` (through [`super::run`]) and the scheduler's job runner use it. The child
//! leads its own process group; when it times out or is cancelled the group gets SIGTERM, up to
//! [`Limits::kill_grace`] to exit (zero: straight to SIGKILL), then SIGKILL. After the child
//! exits by itself the group gets SIGKILL as well, so nothing it left behind in its group keeps
//! running. (A process that left the group with `setsid` is out of reach of a group kill; the
//! full sandbox catches it with its PID namespace, see [`super`].)
//!
//! The child gets stdin, stdout and stderr only: every other descriptor (one bob inherited by
//! mistake included) is closed at its exec ([`run_passing`] lets a caller keep the ones it set).
//!
//! Output beyond a cap is read and dropped, never buffered, so a child printing a gigabyte
//! neither blocks on a full pipe nor fills memory.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What the supervisor enforces on one child.
#[derive(Debug, Clone)]
pub struct Limits {
    pub timeout: Duration,
    /// Most of stdout kept; the rest is drained and dropped.
    pub stdout_cap: usize,
    /// Most of stderr kept.
    pub stderr_cap: usize,
    /// Between SIGTERM and SIGKILL on timeout or cancel (zero: SIGKILL at once).
    pub kill_grace: Duration,
    /// How long to wait for the output pipes to close once the child is gone.
    pub drain_wait: Duration,
}

/// Bytes kept from one stream.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    pub bytes: Vec<u8>,
    /// More was written than was kept (or the stream did not close in time).
    pub truncated: bool,
}

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// How the child ended.
#[derive(Debug)]
pub enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

/// A supervised child, finished.
#[derive(Debug)]
pub struct Finished {
    pub ended: Ended,
    pub stdout: Captured,
    pub stderr: Captured,
    pub elapsed: Duration,
}

fn capture(r: impl Read + Send + 'static, cap: usize) -> mpsc::Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = r;
        let mut c = Captured::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(c.bytes.len());
                    if n > room {
                        c.truncated = true;
                    }
                    c.bytes.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(c);
    });
    rx
}

fn signal_group(pgid: i32, sig: rustix::process::Signal) {
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pid, sig);
    }
}

/// SIGTERM to the group, up to `grace` for the child to exit, then SIGKILL, then reap.
fn kill_tree(child: &mut Child, pgid: i32, grace: Duration) -> Option<ExitStatus> {
    use rustix::process::Signal;
    if !grace.is_zero() {
        signal_group(pgid, Signal::TERM);
        let until = Instant::now() + grace;
        while Instant::now() < until {
            match child.try_wait() {
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                _ => break,
            }
        }
    }
    signal_group(pgid, Signal::KILL);
    let _ = child.kill();
    child.wait().ok()
}

/// Spawns `cmd` (stdio and process group are set here; the caller sets program, args, env,
/// cwd and any `pre_exec`), writes `stdin` to it, and supervises it to the end. The child gets
/// stdin, stdout and stderr only: every other descriptor (one bob inherited included) is
/// closed at its exec.
pub fn run(
    cmd: Command,
    stdin: Option<Vec<u8>>,
    limits: &Limits,
    cancel: Option<&AtomicBool>,
) -> std::io::Result<Finished> {
    run_passing(cmd, stdin, limits, cancel, 3)
}

/// As [`run`], but descriptors below `first_closed` (above stdio: what the caller's own
/// `pre_exec` put there on purpose) reach the child too.
pub fn run_passing(
    mut cmd: Command,
    stdin: Option<Vec<u8>>,
    limits: &Limits,
    cancel: Option<&AtomicBool>,
    first_closed: u32,
) -> std::io::Result<Finished> {
    // SAFETY: close_range/fcntl only, between fork and exec (after the caller's hooks).
    unsafe {
        cmd.pre_exec(move || super::cloexec_from(first_closed.max(3)));
    }
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .process_group(0);
    let started = Instant::now();
    let mut child = cmd.spawn()?;
    let pgid = child.id() as i32;
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let out_rx = child.stdout.take().map(|o| capture(o, limits.stdout_cap));
    let err_rx = child.stderr.take().map(|e| capture(e, limits.stderr_cap));
    let deadline = started + limits.timeout;
    // Sleep until the child exits (a pidfd becomes readable), the deadline, or the next look at
    // the cancel flag; without pidfds (Linux < 5.3), short naps.
    let pidfd = rustix::process::Pid::from_child(&child);
    let pidfd = rustix::process::pidfd_open(pidfd, rustix::process::PidfdFlags::empty()).ok();
    let mut nap = Duration::from_millis(1);
    let ended = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Ended::Exited(st),
            Ok(None) => {}
            Err(e) => {
                kill_tree(&mut child, pgid, Duration::ZERO);
                return Err(e);
            }
        }
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            kill_tree(&mut child, pgid, limits.kill_grace);
            break Ended::Cancelled;
        }
        let now = Instant::now();
        if now >= deadline {
            kill_tree(&mut child, pgid, limits.kill_grace);
            break Ended::TimedOut;
        }
        let mut wait = deadline - now;
        if cancel.is_some() {
            wait = wait.min(Duration::from_millis(25));
        }
        match &pidfd {
            Some(fd) => {
                let ts = rustix::time::Timespec::try_from(wait).unwrap_or(rustix::time::Timespec {
                    tv_sec: 1,
                    tv_nsec: 0,
                });
                let mut fds = [rustix::event::PollFd::new(fd, rustix::event::PollFlags::IN)];
                let _ = rustix::event::poll(&mut fds, Some(&ts));
            }
            None => {
                std::thread::sleep(nap.min(wait));
                nap = (nap * 2).min(Duration::from_millis(20));
            }
        }
    };
    // Whatever the child left behind in its group goes too.
    signal_group(pgid, rustix::process::Signal::KILL);
    let collect = |rx: Option<mpsc::Receiver<Captured>>| {
        rx.and_then(|rx| rx.recv_timeout(limits.drain_wait).ok())
            .unwrap_or(Captured {
                bytes: Vec::new(),
                truncated: true,
            })
    };
    let stdout = collect(out_rx);
    let stderr = collect(err_rx);
    Ok(Finished {
        ended,
        stdout,
        stderr,
        elapsed: started.elapsed(),
    })
}
