//! `TestEnv`: a temp home, a cleared environment, a fixed clock.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The clock every test starts with.
pub const NOW: &str = "2026-02-15T00:00:00Z";

pub struct TestEnv {
    pub dir: tempfile::TempDir,
    pub now: String,
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    pub fn new() -> TestEnv {
        TestEnv {
            dir: tempfile::tempdir().expect("tempdir"),
            now: NOW.to_string(),
        }
    }

    /// The bob home inside the temp dir.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A scratch path inside the temp dir (outside the home).
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `bob ARGS` with only PATH, BOB_HOME and BOB_NOW set.
    pub fn bob(&self, args: &[&str]) -> Command {
        let mut cmd = Command::cargo_bin("bob").expect("bob binary");
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("BOB_HOME", self.home())
            .env("BOB_NOW", &self.now)
            .current_dir(self.dir.path())
            .args(args);
        cmd
    }

    /// `bob ARGS` as a plain std Command with the same environment, for tests that spawn,
    /// signal or stream (set stdio as needed).
    pub fn std_command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("bob"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("BOB_HOME", self.home())
            .env("BOB_NOW", &self.now)
            .current_dir(self.dir.path())
            .args(args);
        cmd
    }

    /// Starts `bob ARGS` in the background with `stdin` written and closed, and returns once
    /// `ready()` holds (checked every 20 ms, for up to 20 s): e.g. once a test server has seen
    /// the request the process now waits on. stdout and stderr are piped.
    pub fn spawn_until(
        &self,
        args: &[&str],
        stdin: &str,
        ready: impl Fn() -> bool,
    ) -> std::process::Child {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = self
            .std_command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn bob");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let t = std::time::Instant::now();
        while !ready() && t.elapsed() < std::time::Duration::from_secs(20) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child
    }

    /// Runs `bob ARGS` with `stdin`, expects success, parses stdout as one JSON document.
    pub fn json(&self, args: &[&str], stdin: &str) -> Value {
        let out = self.bob(args).write_stdin(stdin).output().expect("run bob");
        assert!(
            out.status.success(),
            "bob {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout of bob {args:?} is not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        })
    }

    /// Runs `bob ARGS` with `stdin`, expects success, parses stdout as JSON Lines.
    pub fn jsonl(&self, args: &[&str], stdin: &str) -> Vec<Value> {
        let out = self.bob(args).write_stdin(stdin).output().expect("run bob");
        jsonl_of(&out, args)
    }

    /// Runs `bob ARGS` expecting failure with `exit` and canonical `code`; returns the error object.
    pub fn fails(&self, args: &[&str], stdin: &str, exit: i32, code: &str) -> Value {
        let out = self.bob(args).write_stdin(stdin).output().expect("run bob");
        error_of(&out, exit, code)
    }

    /// The audit events of `agent` in the home (every day file, in order); none when the
    /// agent has no log yet.
    pub fn audit_events(&self, agent: &str) -> Vec<Value> {
        self.audit_lines(agent)
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect()
    }

    /// The raw lines of every audit day file of `agent`, in file (day) order.
    pub fn audit_lines(&self, agent: &str) -> Vec<String> {
        let dir = self.home().join("audit").join(agent);
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(d) => d
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect(),
            Err(_) => return Vec::new(),
        };
        files.sort();
        files
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(f)
                    .unwrap()
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }
}

/// Waits for `child` (a `bob` spawned with piped output) and asserts it succeeded; its output.
pub fn succeeded(child: std::process::Child) -> std::process::Output {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Asserts `bob ARGS` succeeded; its stdout as JSON lines.
pub fn jsonl_of(out: &std::process::Output, args: &[&str]) -> Vec<Value> {
    assert!(
        out.status.success(),
        "bob {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::str::from_utf8(&out.stdout)
        .expect("utf8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// Checks that a finished bob exited with `exit` and reported the canonical error `code` as
/// its last stderr line; returns that error object.
pub fn error_of(out: &std::process::Output, exit: i32, code: &str) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(exit),
        "exit of bob; stderr: {stderr}"
    );
    let line = stderr.lines().last().unwrap_or_default();
    let v: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("stderr is not one JSON line ({e}): {stderr}"));
    assert_eq!(v["error"]["code"], code, "error code: {v}");
    v["error"].clone()
}

/// The repository root (for example files and generated docs).
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}
