//! Pseudo-terminals for tests of what a person at a terminal sees: bob runs with a pty as its
//! stdout and/or stderr (and stdin), the way a shell would start it, and the test reads what
//! was drawn from the master side.

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

/// A pseudo-terminal: (master, slave); `None` where the machine has none.
pub fn pty() -> Option<(OwnedFd, OwnedFd)> {
    // SAFETY: plain libc calls on descriptors this function owns; each result is checked.
    unsafe {
        let m = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        if m < 0 {
            return None;
        }
        let master = OwnedFd::from_raw_fd(m);
        if libc::grantpt(m) != 0 || libc::unlockpt(m) != 0 {
            return None;
        }
        let mut name = [0 as libc::c_char; 256];
        if libc::ptsname_r(m, name.as_mut_ptr(), name.len()) != 0 {
            return None;
        }
        let s = libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        if s < 0 {
            return None;
        }
        Some((master, OwnedFd::from_raw_fd(s)))
    }
}

/// Which of the child's streams are the terminal.
#[derive(Debug, Clone, Copy)]
pub struct On {
    pub stdout: bool,
    pub stderr: bool,
}

/// What a run on a terminal left: its exit code, what it wrote to the streams that were not
/// the terminal (pipes), and everything drawn on the terminal.
pub struct Drawn {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub terminal: Vec<u8>,
}

impl Drawn {
    pub fn terminal_text(&self) -> String {
        String::from_utf8_lossy(&self.terminal).into_owned()
    }
}

/// Runs `cmd` with the pty as the streams `on` names (stdin is the pty when `typed` is
/// given: those bytes are typed on it once the command has drawn something, else /dev/null).
/// `None` where there is no pty.
pub fn run(cmd: Command, on: On, typed: Option<&[u8]>) -> Option<Drawn> {
    run_acting(cmd, on, typed, None)
}

/// What a test does to a running command: once `when` holds of what the terminal shows so
/// far (checked every 5 ms, for up to 20 s), `act` gets the child's pid (to signal it, say).
pub type Act<'a> = (&'a dyn Fn(&[u8]) -> bool, &'a dyn Fn(u32));

/// [`run`], and `act` while it runs.
pub fn run_acting(
    mut cmd: Command,
    on: On,
    typed: Option<&[u8]>,
    act: Option<Act>,
) -> Option<Drawn> {
    let Some((master, slave)) = pty() else {
        eprintln!("no pseudo-terminal on this machine: terminal side not tested");
        return None;
    };
    let tty = || Stdio::from(slave.try_clone().unwrap());
    cmd.stdout(if on.stdout { tty() } else { Stdio::piped() });
    cmd.stderr(if on.stderr { tty() } else { Stdio::piped() });
    cmd.stdin(if typed.is_some() {
        tty()
    } else {
        Stdio::null()
    });
    let child = cmd.spawn().unwrap();
    // The Command keeps its copies of the slave until dropped; the reader sees the end (EIO)
    // only once the child's are the last ones.
    drop(cmd);
    drop(slave);
    let mut master = std::fs::File::from(master);
    let mut reader = master.try_clone().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let all = seen.clone();
    let drawn = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        // EIO once the last slave descriptor (the child's) is closed.
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.lock().unwrap().extend_from_slice(&buf[..n]);
        }
        std::mem::take(&mut *all.lock().unwrap())
    });
    if let Some(t) = typed {
        // As a person would: once the command has drawn something (its prompt), or after 30 s;
        // typed earlier, the terminal's echo lands in the middle of the prompt.
        let start = std::time::Instant::now();
        while seen.lock().unwrap().is_empty()
            && start.elapsed() < std::time::Duration::from_secs(30)
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        master.write_all(t).unwrap();
    }
    if let Some((when, act)) = act {
        let start = std::time::Instant::now();
        while !when(&seen.lock().unwrap()) && start.elapsed() < std::time::Duration::from_secs(20) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        act(child.id());
    }
    let out = child.wait_with_output().unwrap();
    drop(master);
    Some(Drawn {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
        terminal: drawn.join().unwrap(),
    })
}
