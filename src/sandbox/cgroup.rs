//! Per-call cgroup v2 limits, where the host delegates a cgroup to bob.
//!
//! A call gets its own child cgroup with `memory.max` (the memory budget), `memory.swap.max`
//! = 0 and `pids.max` ([`super::init::PID_MAX`]); the helper moves itself into it before it
//! makes any namespace, so the program and everything it starts are charged there (its private
//! `/tmp` tmpfs included). The cgroup is removed after the call.
//!
//! **Where a parent comes from.** The operator names a delegated cgroup v2 directory
//! (`tools.sandbox_cgroup`, e.g. one systemd made with `Delegate=yes`), or bob uses its own
//! cgroup when that one already enables both the `memory` and `pids` controllers for its
//! children (the root cgroup of a host or of a VM does). Either must accept a new child
//! directory. A cgroup bob merely sits in cannot be used: cgroup v2 lets a non-root cgroup
//! with processes hand no controller to its children ("no internal processes").
//!
//! **Fallback.** Without one (a cgroup v1 or hybrid host, where the controllers belong to the
//! v1 hierarchies; no delegation), calls run without a cgroup: `RLIMIT_AS` bounds each
//! process's address space by the same budget and the namespace's `pid_max` bounds processes.
//! Every result says which applied (`cgroup-memory`, `cgroup-pids` in its layers or not).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The cgroup v2 mount point and bob's own cgroup in it, read from `/proc/self`.
fn own_cgroup() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|l| {
        let (left, right) = l.split_once(" - ")?;
        if right.split_whitespace().next()? != "cgroup2" {
            return None;
        }
        let mut f = left.split_whitespace();
        let root = f.nth(3)?;
        let point = f.next()?;
        (root == "/").then(|| PathBuf::from(point))
    })?;
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    Some(mount.join(path.trim_start_matches('/')))
}

/// Whether `dir` hands both the `memory` and the `pids` controller to its children.
fn delegates(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("cgroup.subtree_control")).is_ok_and(|s| {
        let c: Vec<&str> = s.split_whitespace().collect();
        c.contains(&"memory") && c.contains(&"pids")
    })
}

/// The parent of per-call cgroups, once per process: `configured` when it delegates, else
/// bob's own cgroup when it does; `None` otherwise.
pub fn parent(configured: Option<&Path>) -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    if let Some(c) = configured {
        return delegates(c).then(|| c.to_path_buf());
    }
    FOUND
        .get_or_init(|| own_cgroup().filter(|d| delegates(d)))
        .clone()
}

/// One call's cgroup; removed when dropped (after the helper and everything it started ended).
pub struct CallCgroup(PathBuf);

impl CallCgroup {
    /// Makes a child of `parent` with the memory budget and the process cap; `None` when the
    /// kernel refuses any step (the call then runs on rlimits alone, and says so).
    pub fn new(parent: &Path, memory: u64, pids: u32) -> Option<CallCgroup> {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = parent.join(format!(
            "bob-sandbox-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir).ok()?;
        let cg = CallCgroup(dir);
        std::fs::write(cg.0.join("memory.max"), memory.to_string()).ok()?;
        // No swap to spill into, where the kernel has swap accounting.
        let _ = std::fs::write(cg.0.join("memory.swap.max"), "0");
        std::fs::write(cg.0.join("pids.max"), pids.to_string()).ok()?;
        Some(cg)
    }

    /// Its `cgroup.procs`, which the helper writes itself into.
    pub fn procs(&self) -> PathBuf {
        self.0.join("cgroup.procs")
    }
}

impl Drop for CallCgroup {
    fn drop(&mut self) {
        // The namespace's processes are gone when the helper has been reaped; a last zombie may
        // still be charged for a moment.
        for _ in 0..20 {
            match std::fs::remove_dir(&self.0) {
                Ok(()) => return,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(5)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_directory_without_both_controllers_is_not_a_parent() {
        let d = tempfile::tempdir().unwrap();
        assert!(super::parent(Some(d.path())).is_none());
        std::fs::write(d.path().join("cgroup.subtree_control"), "cpu memory\n").unwrap();
        assert!(super::parent(Some(d.path())).is_none());
        std::fs::write(d.path().join("cgroup.subtree_control"), "cpu memory pids\n").unwrap();
        assert_eq!(super::parent(Some(d.path())).as_deref(), Some(d.path()));
    }
}
