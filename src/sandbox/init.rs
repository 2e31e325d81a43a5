//! The sandbox helper: what runs between bob and the sandboxed program.
//!
//! bob starts its own executable as `bob __sandbox-exec SPEC` (a fresh, single-threaded process,
//! so none of the setup below runs in a forked copy of a multi-threaded one). Three processes:
//!
//! 1. **helper** (in bob's PID namespace): `unshare` of the user, mount, PID, IPC, UTS and
//!    network namespaces; writes `setgroups` = `deny`, `uid_map` = `1000 <bob's uid> 1`,
//!    `gid_map` = `1000 <bob's gid> 1`; forks the init; waits for it. It dies with bob
//!    (`PR_SET_PDEATHSIG`, set by bob before exec).
//! 2. **init** (PID 1 of the new PID namespace; dies with the helper): builds the new root (see
//!    [`build_root`]), caps the namespace's `pid_max`, forks the program, reaps every orphan,
//!    and when the program exits reports its wait status and exits — the kernel then kills
//!    everything left in the namespace, `setsid` grandchildren included.
//! 3. **program**: new session; rlimits; every capability dropped from the bounding and ambient
//!    sets; `no_new_privs`; the seccomp filters ([`super::seccomp`]); effective, permitted and
//!    inheritable sets cleared; `exec` with the given environment, looked up on its `PATH`.
//!
//! Reports go to bob as JSON lines on fd 3 (close-on-exec, so the program never holds it):
//! `{"setup_error": …}` when the kernel refuses a step, `{"ready": [layers]}` before the program
//! starts, `{"exec_errno": N}` when it cannot be started, `{"status": RAW}` when it has ended.

use super::Spec;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{Mode, OFlags};
use rustix::mount::{MountFlags, MountPropagationFlags, UnmountFlags};
use rustix::process::{Pid, Resource, Rlimit, Signal, WaitOptions};
use serde::{Deserialize, Serialize};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// The argument that turns bob into the sandbox helper.
pub const HELPER_ARG: &str = "__sandbox-exec";
/// The uid and gid the program runs as inside the sandbox.
pub const INNER_ID: u32 = 1000;
/// Where the helper reports to bob.
pub const STATUS_FD: i32 = 3;
/// The namespace's `pid_max`: with it, no more than this many processes exist at once.
pub const PID_MAX: u32 = 512;
const HOSTNAME: &str = "bob-sandbox";
/// Staging mount point of the new root (every Linux has it; the host's stays untouched).
const STAGE: &str = "/tmp";

/// System directories bind-mounted read-only (or recreated as symlinks under merged /usr).
const SYSTEM_DIRS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

fn status_fd() -> BorrowedFd<'static> {
    // SAFETY: fd 3 is the status pipe bob hands the helper; it stays open for the process's life.
    unsafe { BorrowedFd::borrow_raw(STATUS_FD) }
}

/// One report of the helper to bob: a JSON line on the status pipe, written here and read by
/// the sandbox module when the call has ended. Each shape is told apart by its key.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum HelperReport {
    /// `{"setup_error":{"stage","detail"}}`: the kernel refused a step.
    SetupError { setup_error: SetupError },
    /// `{"exec_errno":N,"detail"}`: the program could not be started.
    ExecFailed { exec_errno: i32, detail: String },
    /// `{"cgroup":true}`: the call's cgroup limits apply.
    Cgroup { cgroup: bool },
    /// `{"ready":[layers]}`: the program starts under these layers.
    Ready { ready: Vec<String> },
    /// `{"status":RAW}`: the program ended with this raw wait status.
    Ended { status: i64 },
}

/// The step the kernel refused, and what it said.
#[derive(Debug, Serialize, Deserialize)]
pub struct SetupError {
    pub stage: String,
    pub detail: String,
}

fn report(r: &HelperReport) {
    let mut line = serde_json::to_string(r).unwrap_or_default();
    line.push('\n');
    let mut bytes = line.as_bytes();
    while !bytes.is_empty() {
        match rustix::io::write(status_fd(), bytes) {
            Ok(0) | Err(_) => return,
            Ok(n) => bytes = &bytes[n..],
        }
    }
}

fn setup_error(stage: &str, detail: impl std::fmt::Display) -> ! {
    report(&HelperReport::SetupError {
        setup_error: SetupError {
            stage: stage.to_string(),
            detail: detail.to_string(),
        },
    });
    std::process::exit(125)
}

/// Called first thing in `main`: when bob was started as the sandbox helper, runs it and never
/// returns; otherwise returns at once.
pub fn enter_if_requested() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(std::ffi::OsStr::new(HELPER_ARG)) {
        return;
    }
    let spec = args.next().and_then(|s| s.into_string().ok());
    let spec: Spec = match spec.as_deref().map(serde_json::from_str) {
        Some(Ok(s)) => s,
        _ => setup_error("spec", "missing or invalid sandbox spec"),
    };
    helper(&spec)
}

fn write_file(path: &str, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

fn helper(spec: &Spec) -> ! {
    if rustix::io::fcntl_setfd(status_fd(), rustix::io::FdFlags::CLOEXEC).is_err() {
        std::process::exit(125);
    }
    // Whatever bob may have passed on by mistake is closed here, before any namespace exists:
    // the helper keeps stdio and the status pipe only.
    // SAFETY: single-threaded process; no descriptor above the status pipe is in use.
    unsafe { libc::syscall(libc::SYS_close_range, STATUS_FD as u32 + 1, u32::MAX, 0) };
    // The call's cgroup, joined while the helper still has bob's privileges; if the kernel
    // refuses, the call runs on rlimits alone and the report lacks the cgroup layers.
    if let Some(procs) = &spec.cgroup_procs
        && std::fs::write(procs, "0").is_ok()
    {
        report(&HelperReport::Cgroup { cgroup: true });
    }
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    use rustix::thread::UnshareFlags as U;
    let flags = U::NEWUSER | U::NEWNS | U::NEWPID | U::NEWIPC | U::NEWUTS | U::NEWNET;
    // SAFETY: single-threaded process; none of these flags unshares file descriptors or memory.
    if let Err(e) = unsafe { rustix::thread::unshare_unsafe(flags) } {
        setup_error("namespaces", format!("unshare: {e}"));
    }
    if let Err(e) = write_file("/proc/self/setgroups", "deny")
        .and_then(|_| write_file("/proc/self/uid_map", &format!("{INNER_ID} {uid} 1")))
        .and_then(|_| write_file("/proc/self/gid_map", &format!("{INNER_ID} {gid} 1")))
    {
        setup_error("id-maps", e);
    }
    // SAFETY: the helper is single-threaded here (no thread was spawned), so no other thread
    // can hold a lock or be mid-allocation at the fork: the child may run ordinary Rust code.
    match unsafe { libc::fork() } {
        -1 => setup_error("fork", std::io::Error::last_os_error()),
        0 => init(spec),
        pid => {
            let pid = Pid::from_raw(pid).expect("fork returned a positive pid");
            loop {
                match rustix::process::waitpid(Some(pid), WaitOptions::empty()) {
                    Ok(Some((_, st))) => {
                        let code = st.exit_status().unwrap_or(125);
                        std::process::exit(code)
                    }
                    Ok(None) => {}
                    Err(rustix::io::Errno::INTR) => {}
                    Err(_) => std::process::exit(125),
                }
            }
        }
    }
}

fn init(spec: &Spec) -> ! {
    // Dies with the helper. The helper lives in bob's PID namespace, so from in here the
    // parent reads as pid 0 (`None`) — which also proves this is PID 1 of a fresh namespace.
    let _ = rustix::process::set_parent_process_death_signal(Some(Signal::KILL));
    if rustix::process::getppid().is_some() {
        // Not PID 1 of a fresh namespace: something is wrong, do not run unconfined.
        setup_error("pid-namespace", "init is not PID 1");
    }
    let _ = rustix::system::sethostname(HOSTNAME.as_bytes());
    let mut layers: Vec<&str> = vec![
        "user-ns",
        "mount-ns",
        "pid-ns",
        "ipc-ns",
        "uts-ns",
        "net-ns",
        "unprivileged-uid",
    ];
    if let Err((stage, e)) = build_root(spec) {
        setup_error(stage, e);
    }
    layers.extend([
        "new-root",
        "protected-paths-ro",
        "ro-system",
        "generated-etc",
        "private-tmp",
        "own-proc",
        "minimal-dev",
    ]);
    let filters = match super::seccomp::filters() {
        Ok(f) => f,
        Err(e) => setup_error("seccomp", e),
    };
    if PIDS_CAPPED.load(std::sync::atomic::Ordering::Relaxed) {
        layers.push("pids-limit");
    }
    layers.extend([
        "inherited-fds-closed",
        "rlimits",
        "seccomp",
        "no-new-privs",
        "caps-dropped",
        "tree-kill",
    ]);
    report(&HelperReport::Ready {
        ready: layers.iter().map(|l| l.to_string()).collect(),
    });
    // SAFETY: init is still single-threaded (it spawns no thread), so no lock or allocator
    // state can be left held by another thread in the child.
    let child = unsafe { libc::fork() };
    if child == -1 {
        setup_error("fork", std::io::Error::last_os_error());
    }
    if child == 0 {
        program(spec, &filters);
    }
    let child = Pid::from_raw(child).expect("positive pid");
    loop {
        match rustix::process::wait(WaitOptions::empty()) {
            Ok(Some((pid, st))) if pid == child => {
                report(&HelperReport::Ended {
                    status: i64::from(st.as_raw()),
                });
                std::process::exit(0)
            }
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => std::process::exit(125),
        }
    }
}

static PIDS_CAPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

type Step = Result<(), (&'static str, String)>;

fn at(stage: &'static str) -> impl Fn(rustix::io::Errno) -> (&'static str, String) {
    move |e| (stage, e.to_string())
}

fn at_io(stage: &'static str) -> impl Fn(std::io::Error) -> (&'static str, String) {
    move |e| (stage, e.to_string())
}

fn open_path(p: &Path) -> rustix::io::Result<OwnedFd> {
    rustix::fs::open(p, OFlags::PATH | OFlags::CLOEXEC, Mode::empty())
}

fn fd_path(fd: &OwnedFd) -> String {
    format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd())
}

/// Bind-mounts `src` (an O_PATH fd) on `target`, then remounts it with `flags` plus whatever
/// the source mount had locked (nosuid, nodev, noexec), which a user namespace cannot clear.
fn bind(src: &OwnedFd, target: &Path, flags: MountFlags, stage: &'static str) -> Step {
    let from = fd_path(src);
    rustix::mount::mount_bind(from.as_str(), target).map_err(at(stage))?;
    let mut flags = flags | MountFlags::BIND | MountFlags::NOSUID;
    if let Ok(st) = rustix::fs::statvfs(target) {
        use rustix::fs::StatVfsMountFlags as S;
        if st.f_flag.contains(S::NODEV) {
            flags |= MountFlags::NODEV;
        }
        if st.f_flag.contains(S::NOEXEC) {
            flags |= MountFlags::NOEXEC;
        }
    }
    rustix::mount::mount_remount(target, flags, "").map_err(at(stage))
}

fn mkdirs(p: &Path, stage: &'static str) -> Step {
    std::fs::create_dir_all(p).map_err(at_io(stage))
}

fn under(base: &Path, abs: &Path) -> PathBuf {
    base.join(abs.strip_prefix("/").unwrap_or(abs))
}

/// One entry of the generated /etc: a file with its bytes, or a symlink with its target.
enum EtcEntry {
    File(String, Vec<u8>),
    Link(String, PathBuf),
}

fn generated_etc(spec: &Spec) -> Vec<EtcEntry> {
    let home = spec.roots.first().cloned().unwrap_or_else(|| "/".into());
    let mut e = vec![
        EtcEntry::File(
            "passwd".into(),
            format!(
                "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n\
                 sandbox:x:{INNER_ID}:{INNER_ID}:bob sandbox:{}:/bin/sh\n\
                 nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
                home.display()
            )
            .into_bytes(),
        ),
        EtcEntry::File(
            "group".into(),
            format!("root:x:0:\nsandbox:x:{INNER_ID}:\nnogroup:x:65534:\n").into_bytes(),
        ),
        EtcEntry::File(
            "hosts".into(),
            format!("127.0.0.1\tlocalhost {HOSTNAME}\n::1\tlocalhost\n").into_bytes(),
        ),
        EtcEntry::File("hostname".into(), format!("{HOSTNAME}\n").into_bytes()),
        EtcEntry::File(
            "nsswitch.conf".into(),
            b"passwd: files\ngroup: files\nshadow: files\nhosts: files\nnetworks: files\n\
              protocols: files\nservices: files\n"
                .to_vec(),
        ),
        EtcEntry::Link("mtab".into(), "/proc/self/mounts".into()),
    ];
    // Harmless host files programs read: the loader cache, the time zone.
    for name in ["ld.so.cache", "timezone"] {
        if let Ok(bytes) = std::fs::read(Path::new("/etc").join(name)) {
            e.push(EtcEntry::File(name.into(), bytes));
        }
    }
    match std::fs::read_link("/etc/localtime") {
        Ok(t) => e.push(EtcEntry::Link("localtime".into(), t)),
        Err(_) => {
            if let Ok(bytes) = std::fs::read("/etc/localtime") {
                e.push(EtcEntry::File("localtime".into(), bytes));
            }
        }
    }
    e
}

/// The new root, staged on a tmpfs mounted over /tmp in the private mount namespace:
/// system directories read-only, generated /etc, private /tmp, /proc of the new PID namespace
/// (`subset=pid`: no /proc/sys, no sysrq-trigger), a minimal /dev, the roots read-write
/// (nosuid, nodev, noexec), then `pivot_root` and the old root detached; the root itself is
/// remounted read-only.
fn build_root(spec: &Spec) -> Step {
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    )
    .map_err(at("make-private"))?;
    // Open every source before the staging tmpfs hides anything under /tmp.
    enum Sys {
        Dir(&'static str, OwnedFd),
        Link(&'static str, PathBuf),
    }
    let mut sys = Vec::new();
    for d in SYSTEM_DIRS {
        match std::fs::symlink_metadata(d) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(d).map_err(at_io("system-dirs"))?;
                sys.push(Sys::Link(d, t));
            }
            Ok(m) if m.is_dir() => sys.push(Sys::Dir(
                d,
                open_path(Path::new(d)).map_err(at("system-dirs"))?,
            )),
            _ => {}
        }
    }
    let mut roots = Vec::new();
    for r in &spec.roots {
        roots.push((r, open_path(r).map_err(at("roots"))?));
    }
    // Protected entries inside the roots (opened now, bound read-only over themselves once the
    // roots are in place); one that vanished meanwhile needs no protection.
    let protected: Vec<(&PathBuf, OwnedFd)> = spec
        .read_only
        .iter()
        .filter_map(|p| Some((p, open_path(p).ok()?)))
        .collect();
    let mut devs = Vec::new();
    for d in DEVICES {
        let p = Path::new("/dev").join(d);
        devs.push((*d, open_path(&p).map_err(at("dev"))?));
    }
    let etc = generated_etc(spec);
    // Debian's alternatives (awk → mawk …): a directory of symlinks into /usr, bound read-only
    // (one mount instead of hundreds of readlink/symlink calls).
    let alternatives = open_path(Path::new("/etc/alternatives")).ok();

    let base = Path::new(STAGE);
    rustix::mount::mount(
        "tmpfs",
        base,
        "tmpfs",
        MountFlags::NOSUID | MountFlags::NODEV,
        c"mode=0755,size=16m",
    )
    .map_err(at("new-root"))?;
    for s in &sys {
        match s {
            Sys::Dir(d, fd) => {
                let t = under(base, Path::new(d));
                mkdirs(&t, "system-dirs")?;
                bind(
                    fd,
                    &t,
                    MountFlags::RDONLY | MountFlags::NODEV,
                    "system-dirs",
                )?;
            }
            Sys::Link(d, target) => {
                std::os::unix::fs::symlink(target, under(base, Path::new(d)))
                    .map_err(at_io("system-dirs"))?;
            }
        }
    }
    // /etc
    let etc_dir = base.join("etc");
    mkdirs(&etc_dir.join("alternatives"), "etc")?;
    if let Some(fd) = &alternatives {
        bind(
            fd,
            &etc_dir.join("alternatives"),
            MountFlags::RDONLY | MountFlags::NODEV,
            "etc",
        )?;
    }
    for e in &etc {
        match e {
            EtcEntry::File(name, bytes) => {
                std::fs::write(etc_dir.join(name), bytes).map_err(at_io("etc"))?
            }
            EtcEntry::Link(name, t) => {
                std::os::unix::fs::symlink(t, etc_dir.join(name)).map_err(at_io("etc"))?
            }
        }
    }
    // /dev
    let dev = base.join("dev");
    mkdirs(&dev, "dev")?;
    for (name, fd) in &devs {
        let t = dev.join(name);
        std::fs::write(&t, b"").map_err(at_io("dev"))?;
        bind(fd, &t, MountFlags::RDONLY | MountFlags::NOEXEC, "dev")?;
    }
    for (name, t) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        std::os::unix::fs::symlink(t, dev.join(name)).map_err(at_io("dev"))?;
    }
    // /tmp (private, size-limited; its contents vanish with the call)
    let tmp = base.join("tmp");
    mkdirs(&tmp, "tmp")?;
    rustix::mount::mount(
        "tmpfs",
        &tmp,
        "tmpfs",
        MountFlags::NOSUID | MountFlags::NODEV,
        c"mode=1777,size=64m",
    )
    .map_err(at("tmp"))?;
    // The roots, read-write, at their own paths (after /tmp: a root may live under /tmp).
    for (r, fd) in &roots {
        let t = under(base, r);
        mkdirs(&t, "roots")?;
        bind(fd, &t, MountFlags::NODEV | MountFlags::NOEXEC, "roots")?;
    }
    // Inside the roots: protected entries read-only, bob's own directories hidden. A target
    // that is a symlink now (swapped in since the caller looked) is skipped: the mount would
    // follow it.
    let plain = |t: &Path| std::fs::symlink_metadata(t).is_ok_and(|m| !m.file_type().is_symlink());
    for (p, fd) in &protected {
        let t = under(base, p);
        if plain(&t) {
            bind(
                fd,
                &t,
                MountFlags::RDONLY | MountFlags::NODEV | MountFlags::NOEXEC,
                "protected-paths",
            )?;
        }
    }
    for p in &spec.hidden {
        let t = under(base, p);
        if std::fs::symlink_metadata(&t).is_ok_and(|m| m.is_dir()) {
            rustix::mount::mount(
                "tmpfs",
                &t,
                "tmpfs",
                MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
                c"mode=0555,size=4k",
            )
            .map_err(at("protected-paths"))?;
        }
    }
    // /proc of the new PID namespace. First a full one, only to cap the namespace's pid_max
    // (per PID namespace since Linux 6.14), then the one the program sees: `subset=pid`.
    let proc_dir = base.join("proc");
    mkdirs(&proc_dir, "proc")?;
    let pflags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    rustix::mount::mount("proc", &proc_dir, "proc", pflags, None).map_err(at("proc"))?;
    if std::fs::write(proc_dir.join("sys/kernel/pid_max"), PID_MAX.to_string()).is_ok() {
        PIDS_CAPPED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    rustix::mount::unmount(&proc_dir, UnmountFlags::DETACH).map_err(at("proc"))?;
    if rustix::mount::mount("proc", &proc_dir, "proc", pflags, c"subset=pid").is_err() {
        // Older kernels: a full /proc with its writable host knobs covered read-only.
        rustix::mount::mount("proc", &proc_dir, "proc", pflags, None).map_err(at("proc"))?;
        for p in ["sys", "sysrq-trigger", "irq", "bus", "fs", "kcore"] {
            let t = proc_dir.join(p);
            if let Ok(fd) = open_path(&t) {
                bind(&fd, &t, MountFlags::RDONLY, "proc")?;
            }
        }
    }
    // Switch roots.
    let old = base.join(".old");
    mkdirs(&old, "pivot")?;
    rustix::process::chdir(base).map_err(at("pivot"))?;
    rustix::process::pivot_root(".", ".old").map_err(at("pivot"))?;
    rustix::process::chdir("/").map_err(at("pivot"))?;
    rustix::mount::unmount("/.old", UnmountFlags::DETACH).map_err(at("pivot"))?;
    std::fs::remove_dir("/.old").map_err(at_io("pivot"))?;
    rustix::mount::mount_remount(
        "/",
        MountFlags::BIND | MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV,
        "",
    )
    .map_err(at("ro-root"))?;
    drop(sys);
    drop(roots);
    drop(protected);
    drop(devs);
    Ok(())
}

fn program(spec: &Spec, filters: &[seccompiler::BpfProgram]) -> ! {
    let fail = |stage: &str, e: String| -> ! {
        report(&HelperReport::SetupError {
            setup_error: SetupError {
                stage: stage.to_string(),
                detail: e,
            },
        });
        // SAFETY: _exit ends the process at once and touches no Rust state; skipping the
        // destructors is intended (they belong to the parent's copies of the resources).
        unsafe { libc::_exit(125) }
    };
    let _ = rustix::process::setsid();
    // Belt and braces after the helper's close: the program starts with stdio only (the status
    // pipe is close-on-exec), so no inherited descriptor can lead it back to the host.
    if let Err(e) = super::cloexec_from(STATUS_FD as u32 + 1) {
        fail("descriptors", e.to_string());
    }
    let lim = |r: Resource, v: u64| {
        let _ = rustix::process::setrlimit(
            r,
            Rlimit {
                current: Some(v),
                maximum: Some(v),
            },
        );
    };
    lim(Resource::Core, 0);
    lim(Resource::Fsize, spec.limits.file_size);
    lim(Resource::Nofile, spec.limits.open_files);
    lim(Resource::Cpu, spec.limits.cpu_s);
    lim(Resource::As, spec.limits.address_space);
    lim(Resource::Nproc, u64::from(PID_MAX));
    use rustix::thread::CapabilitySet;
    for cap in CapabilitySet::all().iter() {
        // Capabilities newer than the running kernel are EINVAL: nothing to drop.
        let _ = rustix::thread::remove_capability_from_bounding_set(cap);
    }
    if let Err(e) = rustix::thread::clear_ambient_capability_set() {
        fail("capabilities", e.to_string());
    }
    if let Err(e) = rustix::thread::set_no_new_privs(true) {
        fail("no-new-privs", e.to_string());
    }
    for f in filters {
        if let Err(e) = seccompiler::apply_filter(f) {
            fail("seccomp", e.to_string());
        }
    }
    let none = rustix::thread::CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    if let Err(e) = rustix::thread::set_capabilities(None, none) {
        fail("capabilities", e.to_string());
    }
    let mut cmd = std::process::Command::new(&spec.argv[0]);
    cmd.args(&spec.argv[1..])
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.cwd);
    let e = cmd.exec();
    report(&HelperReport::ExecFailed {
        exec_errno: e.raw_os_error().unwrap_or(0),
        detail: e.to_string(),
    });
    // SAFETY: as above: _exit ends the process without touching Rust state, and skipping the
    // destructors of the parent's copied resources is intended.
    unsafe { libc::_exit(127) }
}
