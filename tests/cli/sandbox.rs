//! The OS sandbox of `shell.exec`, tried as an attacker would, through the real binary, as
//! root. Arbitrary code gets in the way a model would get it in: `fs.write_text` writes a
//! script into the root and `shell.exec` runs `sh`/`bash` on it (a rules file allows those two
//! interpreters with a script argument; `-c` stays refused by the argv policy).

use crate::TestEnv;
use crate::support::code;
use serde_json::{Value, json};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

const CANARY: &str = "CANARY-HOST-SECRET-51d0c";

struct Jail {
    env: TestEnv,
    root: PathBuf,
    rules: PathBuf,
    /// Outside the root: holds the canary and is where escaped writes would land.
    outside: PathBuf,
}

fn sandbox() -> Jail {
    let env = TestEnv::new();
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(root).unwrap();
    let outside = std::fs::canonicalize(env.dir.path())
        .unwrap()
        .join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), CANARY).unwrap();
    let rules = env.write(
        "rules.json",
        &json!({"rules": [
            {"action": "allow", "prefix": ["sh"], "match": [["sh", "x.sh"]], "spec": {"operands": ["read_path"]}},
            {"action": "allow", "prefix": ["bash"], "match": [["bash", "x.sh"]], "spec": {"operands": ["read_path"]}}
        ]})
        .to_string(),
    );
    Jail {
        env,
        root,
        rules,
        outside,
    }
}

impl Jail {
    fn args<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut a = vec![
            "tool",
            "run",
            "--enable-all",
            "--root",
            self.root.to_str().unwrap(),
            "--shell-rules",
            self.rules.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        a
    }

    /// Writes `script` with fs.write_text and runs it with `shell` (sh or bash) in one batch;
    /// returns the shell.exec envelope.
    fn run_with(&self, shell: &str, script: &str, timeout_s: u64, extra: &[&str]) -> Value {
        self.run_named(
            &format!("s{}.sh", uuid_like()),
            shell,
            script,
            timeout_s,
            extra,
        )
    }

    /// As [`Jail::run_with`], with the script file named `name` (host-side process scans look
    /// for it in command lines).
    fn run_named(
        &self,
        name: &str,
        shell: &str,
        script: &str,
        timeout_s: u64,
        extra: &[&str],
    ) -> Value {
        let calls = json!([
            {"id": "w", "tool": "fs.write_text", "args": {"path": name, "text": script, "overwrite": true}},
            {"id": "x", "tool": "shell.exec", "args": {"cmd": format!("{shell} {name}"), "timeout_s": timeout_s}}
        ]);
        let mut rows = self.env.jsonl(&self.args(extra), &calls.to_string());
        assert_eq!(rows[0]["ok"], true, "fs.write_text: {}", rows[0]);
        rows.remove(1)
    }

    fn sh(&self, script: &str) -> Value {
        self.run_with("sh", script, 20, &[])
    }
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

fn stdout(v: &Value) -> &str {
    v["output"]["stdout"].as_str().unwrap_or("")
}

fn stderr(v: &Value) -> &str {
    v["output"]["stderr"].as_str().unwrap_or("")
}

/// Host processes whose command line mentions `marker`.
fn host_processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(marker) {
                found.push(format!("{name}: {cmd}"));
            }
        }
    }
    found
}

#[test]
fn the_program_runs_as_an_unprivileged_uid_with_no_capabilities() {
    let b = sandbox();
    let v = b.sh("id -u\nid -g\ngrep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status\ntouch made-inside\n");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["output"]["sandbox"]["mode"], "full", "{v}");
    let out = stdout(&v);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("1000"), "{out}");
    assert_eq!(lines.next(), Some("1000"), "{out}");
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert!(
            out.contains(&format!("{set}:\t0000000000000000")),
            "{set} not empty: {out}"
        );
    }
    assert!(out.contains("NoNewPrivs:\t1"), "{out}");
    assert!(out.contains("Seccomp:\t2"), "{out}");
    // Outside, what it wrote belongs to bob's own user (here root, the owner of the root dir).
    let owner = std::fs::metadata(&b.root).unwrap().uid();
    assert_eq!(
        std::fs::metadata(b.root.join("made-inside")).unwrap().uid(),
        owner
    );
}

#[test]
fn host_secrets_are_not_in_the_sandbox_even_through_a_symlink() {
    let b = sandbox();
    std::os::unix::fs::symlink("/etc/shadow", b.root.join("shadow_link")).unwrap();
    let v = b.sh(
        "cat /etc/shadow; echo rc=$?\ncat shadow_link; echo rc=$?\nls /etc\nls -d /root /home /etc/ssh /etc/gitconfig 2>&1\n",
    );
    assert_eq!(v["ok"], true, "{v}");
    let out = stdout(&v);
    assert!(!out.contains("rc=0"), "{out}");
    assert!(stderr(&v).contains("No such file"), "{v}");
    let etc: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("rc="))
        .skip(2)
        .collect();
    for f in [
        "shadow",
        "gshadow",
        "ssh",
        "gitconfig",
        "sudoers",
        "passwd-",
    ] {
        assert!(!etc.contains(&f), "/etc/{f} is visible: {out}");
    }
    assert!(
        etc.contains(&"passwd") && etc.contains(&"ld.so.cache"),
        "{out}"
    );
    // Nothing of the host's shadow file came through.
    if let Ok(host) = std::fs::read_to_string("/etc/shadow") {
        let first = host.lines().next().unwrap_or_default();
        assert!(first.is_empty() || !v.to_string().contains(first), "{v}");
    }
}

#[test]
fn writes_outside_the_roots_fail_and_tmp_is_private() {
    let b = sandbox();
    let tag = uuid_like();
    let script = format!(
        "touch /usr/bob-{tag}; touch /etc/bob-{tag}; touch /bob-{tag}\n\
         echo escaped > {out}/w-{tag}\n\
         echo private > /tmp/bob-{tag} && cat /tmp/bob-{tag}\n\
         echo inside > inside-{tag}\n",
        out = b.outside.display()
    );
    let v = b.sh(&script);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(stdout(&v), "private\n", "{v}");
    for p in [
        format!("/usr/bob-{tag}"),
        format!("/etc/bob-{tag}"),
        format!("/bob-{tag}"),
        format!("/tmp/bob-{tag}"),
    ] {
        assert!(!Path::new(&p).exists(), "{p} reached the host");
    }
    assert!(!b.outside.join(format!("w-{tag}")).exists());
    assert!(stderr(&v).contains("Read-only file system"), "{v}");
    assert_eq!(
        std::fs::read_to_string(b.root.join(format!("inside-{tag}"))).unwrap(),
        "inside\n"
    );
}

#[test]
fn the_clock_cannot_be_set() {
    let b = sandbox();
    let v = b.sh("date -s 2001-01-01; echo rc=$?\ndate -u +%Y\n");
    assert_eq!(v["ok"], true, "{v}");
    assert!(!stdout(&v).contains("rc=0"), "{v}");
    assert!(stderr(&v).contains("not permitted"), "{v}");
    let year = stdout(&v).lines().last().unwrap_or_default().to_string();
    assert_ne!(year, "2001", "{v}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    assert!(now.as_secs() > 1_700_000_000, "the host clock moved");
}

#[test]
fn there_is_no_network_not_even_to_the_hosts_loopback() {
    let b = sandbox();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let (tp, up) = (
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
    );
    let script = format!(
        "echo ping > /dev/udp/127.0.0.1/{up}; echo udp=$?\n\
         echo ping > /dev/tcp/127.0.0.1/{tp}; echo tcp=$?\n\
         ip -o link 2>&1 | cut -d: -f2\n"
    );
    let v = b.run_with("bash", &script, 20, &[]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(!stdout(&v).contains("tcp=0"), "{v}");
    // Nothing arrived on the host, whatever the sandbox's sockets said.
    std::thread::sleep(Duration::from_millis(200));
    assert!(tcp.accept().is_err(), "a TCP connection reached the host");
    let mut buf = [0u8; 64];
    assert!(
        udp.recv_from(&mut buf).is_err(),
        "a UDP datagram reached the host"
    );
}

#[test]
fn mount_unshare_ptrace_and_namespace_entry_are_refused() {
    let b = sandbox();
    let script = "mkdir -p m\n\
         mount -t tmpfs none m; echo mount=$?\n\
         mount --bind / m; echo bind=$?\n\
         unshare -U true; echo unshare=$?\n\
         unshare -rm true; echo unshare_r=$?\n\
         nsenter -t 1 -m true; echo nsenter=$?\n\
         chroot / true; echo chroot=$?\n\
         python3 -c 'import ctypes,os; l=ctypes.CDLL(None, use_errno=True); r=l.ptrace(16, 1, 0, 0); print(\"ptrace=%d errno=%d\" % (r, ctypes.get_errno()))' 2>&1 || echo ptrace=unavailable\n";
    let v = b.sh(script);
    assert_eq!(v["ok"], true, "{v}");
    let out = stdout(&v);
    for k in ["mount", "bind", "unshare", "unshare_r", "nsenter", "chroot"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{k} missing: {out}"));
        assert_ne!(line, format!("{k}=0"), "{out}");
    }
    assert!(
        out.contains("ptrace=-1 errno=1") || out.contains("ptrace=unavailable"),
        "{out}"
    );
}

#[test]
fn a_fork_bomb_is_bounded_and_the_call_returns() {
    let b = sandbox();
    let tag = format!("bomb{}", uuid_like().replace('-', "x"));
    // Count how many processes can exist at once: fork until the kernel says no.
    let count = "import os, time\n\
         n = 0\n\
         err = ''\n\
         while n < 5000:\n\
         \ttry:\n\
         \t\tpid = os.fork()\n\
         \texcept OSError as e:\n\
         \t\terr = e.strerror\n\
         \t\tbreak\n\
         \tif pid == 0:\n\
         \t\ttime.sleep(30)\n\
         \t\tos._exit(0)\n\
         \tn += 1\n\
         print(n, err)\n";
    std::fs::write(b.root.join("count.py"), count).unwrap();
    let v = b.sh("python3 count.py\n");
    assert_eq!(v["ok"], true, "{v}");
    let out = stdout(&v);
    let n: u32 = out
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{v}"));
    assert!(n < 600, "{n} processes at once: {out}");
    assert!(
        !out.trim_end().ends_with(&n.to_string()),
        "no fork failed: {out}"
    );
    // The classic bomb: the call ends at its timeout and nothing of it is left on the host.
    // The script then waits by exec (no fork: once the bomb fills the process limit a forked
    // `sleep` could fail and end the call early instead of at its timeout).
    let v = b.run_named(
        &format!("{tag}.sh"),
        "sh",
        "bomb() { bomb | bomb & }\nbomb\nexec sleep 60\n",
        3,
        &[],
    );
    assert_eq!(code(&v), "timeout", "{v}");
    std::thread::sleep(Duration::from_millis(500));
    let left = host_processes_with(&tag);
    assert!(left.is_empty(), "left running: {left:?}");
}

#[test]
fn a_gigabyte_of_output_is_capped_and_the_call_returns() {
    let b = sandbox();
    let v = b.sh("head -c 1073741824 /dev/zero | tr '\\0' x\necho done >&2\n");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(stdout(&v).len(), 64 * 1024);
    assert_eq!(v["output"]["stdout_truncated"], true);
    assert_eq!(stderr(&v), "done\n");
}

#[test]
fn a_process_ignoring_sigterm_is_killed_at_the_timeout() {
    let b = sandbox();
    let tag = format!("stubborn{}", uuid_like().replace('-', "x"));
    let v = b.run_named(
        &format!("{tag}.sh"),
        "sh",
        "trap '' TERM INT HUP\necho started\nwhile :; do sleep 1; done\n",
        1,
        &[],
    );
    assert_eq!(code(&v), "timeout", "{v}");
    assert_eq!(v["error"]["details"]["stdout"], "started\n", "{v}");
    std::thread::sleep(Duration::from_millis(500));
    let left = host_processes_with(&tag);
    assert!(left.is_empty(), "left running: {left:?}");
}

#[test]
fn setsid_and_double_fork_grandchildren_do_not_outlive_the_call() {
    let b = sandbox();
    let v = b.sh("setsid sh -c 'sleep 2; echo survived > marker1' &\n\
         ( ( sleep 2; echo survived > marker2 ) & ) &\n\
         nohup sh -c 'sleep 2; echo survived > marker3' >/dev/null 2>&1 &\n\
         echo spawned\n");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(stdout(&v), "spawned\n");
    std::thread::sleep(Duration::from_secs(3));
    for m in ["marker1", "marker2", "marker3"] {
        assert!(
            !b.root.join(m).exists(),
            "{m}: a grandchild outlived the call"
        );
    }
}

#[test]
fn set_id_bits_cannot_be_planted_in_a_root() {
    let b = sandbox();
    let v = b.sh(
        "echo x > plant; chmod u+s plant; echo chmod=$?\nchmod g+s plant; echo chmodg=$?\n\
         python3 -c 'import os; os.close(os.open(\"plant2\", os.O_CREAT|os.O_WRONLY, 0o4755))' 2>&1; echo open=$?\n",
    );
    assert_eq!(v["ok"], true, "{v}");
    assert!(!stdout(&v).contains("chmod=0"), "{v}");
    for f in ["plant", "plant2"] {
        if let Ok(m) = std::fs::metadata(b.root.join(f)) {
            assert_eq!(m.permissions().mode() & 0o6000, 0, "{f} is set-ID: {v}");
        }
    }
}

#[test]
fn weak_mode_must_be_explicit_and_is_reported() {
    let b = sandbox();
    let v = b.sh("id -u\n");
    assert_eq!(v["output"]["sandbox"]["mode"], "full", "{v}");
    let v = b.run_with("sh", "id -u\n", 20, &["--sandbox", "weak"]);
    assert_eq!(v["output"]["sandbox"]["mode"], "weak", "{v}");
    let layers = v["output"]["sandbox"]["layers"].as_array().unwrap();
    assert!(!layers.iter().any(|l| l == "user-ns"), "{v}");
    // The environment variable chooses it too; anything else is refused.
    let calls = json!([{"id": "x", "tool": "shell.exec", "args": {"cmd": "sh x.sh"}}]).to_string();
    std::fs::write(b.root.join("x.sh"), "echo hi\n").unwrap();
    let out = b
        .env
        .bob(&b.args(&[]))
        .env("BOB_SANDBOX", "weak")
        .write_stdin(calls.clone())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["output"]["sandbox"]["mode"], "weak", "{v}");
    let out = b
        .env
        .bob(&b.args(&[]))
        .env("BOB_SANDBOX", "none")
        .write_stdin(calls)
        .output()
        .unwrap();
    crate::env::error_of(&out, 2, "invalid.request");
}

/// Without user namespaces the full sandbox cannot be built: shell.exec refuses.
///
/// Honest simulation, no test hook: bob runs inside a user namespace (made by util-linux
/// `unshare`) whose `user.max_user_namespaces` is 0, so the kernel refuses bob's own
/// `unshare(CLONE_NEWUSER)` exactly as on a host where user namespaces are disabled.
#[test]
fn shell_exec_refuses_where_namespaces_are_unavailable() {
    let b = sandbox();
    std::fs::write(b.root.join("x.sh"), "echo ran > ran-marker\n").unwrap();
    let calls = json!([{"id": "x", "tool": "shell.exec", "args": {"cmd": "sh x.sh"}}]).to_string();
    let run = |extra: &[&str]| -> Value {
        let bob = assert_cmd::cargo::cargo_bin("bob");
        let mut args: Vec<String> = vec![
            "--user".into(),
            "--map-root-user".into(),
            "sh".into(),
            "-c".into(),
            "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"".into(),
            bob.display().to_string(),
        ];
        args.extend(b.args(extra).iter().map(|s| s.to_string()));
        let out = assert_cmd::Command::new("unshare")
            .args(&args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("BOB_HOME", b.env.home())
            .env("BOB_NOW", &b.env.now)
            .write_stdin(calls.clone())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = run(&[]);
    assert_eq!(code(&v), "sandbox.required", "{v}");
    assert_eq!(v["error"]["details"]["stage"], "namespaces", "{v}");
    assert!(!b.root.join("ran-marker").exists());
    // The operator's explicit weak mode still runs there, and says so.
    let v = run(&["--sandbox", "weak"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["output"]["sandbox"]["mode"], "weak", "{v}");
    assert!(b.root.join("ran-marker").exists());
}

/// The attack corpus: each script tries to read the host canary (a file next to the root), to
/// write next to the root or into the host's /tmp, or to reach host state by another route. All
/// run in one `bob tool run` batch; an escape is the canary in any output or any file appearing
/// outside the root. docs/security.md.s figure ("N attack scripts, 0 escapes") is this list's length.
#[test]
fn attack_corpus_has_no_escape() {
    let b = sandbox();
    let secret = b.outside.join("secret.txt");
    let (s, o) = (
        secret.display().to_string(),
        b.outside.display().to_string(),
    );
    let tag = uuid_like();
    let attacks: Vec<(&str, &str, String)> = vec![
        ("read-absolute", "sh", format!("cat {s}")),
        ("read-relative", "sh", "cat ../outside/secret.txt".into()),
        ("read-symlink", "sh", format!("ln -s {s} l1; cat l1")),
        ("read-dir-symlink", "sh", format!("ln -s {o} l2; cat l2/secret.txt")),
        ("read-hardlink", "sh", format!("ln {s} h1; cat h1")),
        ("read-proc-root-1", "sh", format!("cat /proc/1/root{s}")),
        ("read-proc-self-root", "sh", format!("cat /proc/self/root{s}")),
        ("read-proc-cwd-dotdot", "sh", "cat /proc/self/cwd/../outside/secret.txt".into()),
        ("read-bind-mount", "sh", format!("mkdir -p mb; mount --bind {o} mb; cat mb/secret.txt")),
        ("read-userns-mount", "sh", format!("unshare -rm sh -c 'mount --bind {o} . ; cat secret.txt'")),
        ("read-nsenter-host", "sh", format!("nsenter -t 1 -a cat {s}")),
        ("read-chroot", "sh", format!("chroot / cat {s}")),
        ("read-etc-shadow", "sh", "cat /etc/shadow /etc/gshadow".into()),
        ("read-ssh-keys", "sh", "cat /etc/ssh/*key* /root/.ssh/* 2>&1".into()),
        ("read-open-by-handle", "sh", "python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); print(l.syscall(304, -100, 0, 0))'".into()),
        ("read-host-environ", "sh", "cat /proc/*/environ | tr \"\\0\" \"\\n\" | grep -i key".into()),
        ("write-absolute", "sh", format!("echo x > {o}/pwned-abs")),
        ("write-symlink", "sh", format!("ln -s {o} l3; echo x > l3/pwned-link")),
        ("write-host-tmp", "sh", format!("echo x > /tmp/pwned-{tag}")),
        ("write-system-dirs", "sh", format!("touch /usr/pwned-{tag} /usr/bin/pwned-{tag} /etc/pwned-{tag} /pwned-{tag}")),
        ("write-remount-rw", "sh", format!("mount -o remount,rw /usr; touch /usr/pwned-{tag}")),
        ("write-dev-node-chmod", "sh", "chmod 600 /dev/null; chown 1000 /dev/null".into()),
        ("write-setuid-plant", "sh", "echo x > suid; chmod 4755 suid".into()),
        ("host-clock", "sh", "date -s 2001-01-01".into()),
        ("host-hostname", "sh", "hostname pwned".into()),
        ("host-sysctl", "sh", "echo 1 > /proc/sys/kernel/sysrq; cat /proc/sys/kernel/hostname".into()),
        ("net-tcp-host", "bash", "echo x > /dev/tcp/127.0.0.1/22".into()),
        ("net-udp-host", "bash", "echo x > /dev/udp/127.0.0.1/53".into()),
        ("ptrace-init", "sh", "python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); print(l.ptrace(16,1,0,0), ctypes.get_errno())'".into()),
        ("keyring", "sh", "python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); print(l.syscall(250, 0, -3, 0), ctypes.get_errno())'".into()),
        ("bpf", "sh", "python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); print(l.syscall(321, 0, 0, 0), ctypes.get_errno())'".into()),
        ("module-load", "sh", "python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); print(l.syscall(313, 0, b\"\", 0), ctypes.get_errno())'".into()),
    ];
    let mut calls = Vec::new();
    for (i, (name, shell, script)) in attacks.iter().enumerate() {
        let file = format!("attack{i}.sh");
        calls.push(json!({"id": format!("w{i}"), "tool": "fs.write_text", "args": {"path": file, "text": format!("# {name}\n{script}\n"), "overwrite": true}}));
        calls.push(json!({"id": format!("x{i}"), "tool": "shell.exec", "args": {"cmd": format!("{shell} {file}"), "timeout_s": 20}}));
    }
    let rows = b.env.jsonl(&b.args(&[]), &Value::Array(calls).to_string());
    assert_eq!(rows.len(), 2 * attacks.len());
    let mut escapes = Vec::new();
    for (i, (name, _, _)) in attacks.iter().enumerate() {
        let v = &rows[2 * i + 1];
        assert_eq!(v["ok"], true, "{name}: {v}");
        assert_eq!(v["output"]["sandbox"]["mode"], "full", "{name}: {v}");
        if v.to_string().contains(CANARY) {
            escapes.push(format!("{name}: read the canary"));
        }
    }
    let outside: Vec<_> = std::fs::read_dir(&b.outside)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if outside != ["secret.txt"] {
        escapes.push(format!("wrote next to the root: {outside:?}"));
    }
    for p in [
        format!("/tmp/pwned-{tag}"),
        format!("/usr/pwned-{tag}"),
        format!("/usr/bin/pwned-{tag}"),
        format!("/etc/pwned-{tag}"),
        format!("/pwned-{tag}"),
    ] {
        if Path::new(&p).exists() {
            escapes.push(format!("wrote {p}"));
        }
    }
    if std::fs::metadata(b.root.join("suid")).is_ok_and(|m| m.permissions().mode() & 0o6000 != 0) {
        escapes.push("planted a set-ID file".into());
    }
    let null = std::fs::metadata("/dev/null").unwrap();
    if null.permissions().mode() & 0o777 != 0o666 {
        escapes.push("changed the host's /dev/null".into());
    }
    let year: i64 = chrono_year();
    if year < 2025 {
        escapes.push("moved the host clock".into());
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    if host.trim() == "pwned" {
        escapes.push("renamed the host".into());
    }
    eprintln!(
        "attack corpus: {} scripts, {} escapes",
        attacks.len(),
        escapes.len()
    );
    assert!(escapes.is_empty(), "escapes: {escapes:?}");
}

fn chrono_year() -> i64 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    1970 + secs / 31_556_952
}

/// `bob ARGS` started the way a careless wrapper starts it: with descriptor 9 open on the host's
/// `/` (a shell's `9</`, a CI runner's leaked directory handle).
fn run_leaking_root_fd(b: &Jail, extra: &[&str], calls: &str) -> Vec<Value> {
    let bob = assert_cmd::cargo::cargo_bin("bob");
    let mut args: Vec<String> = vec![
        "-c".into(),
        "exec 9</ && exec \"$0\" \"$@\"".into(),
        bob.display().to_string(),
    ];
    args.extend(b.args(extra).iter().map(|s| s.to_string()));
    let out = assert_cmd::Command::new("sh")
        .args(&args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("BOB_HOME", b.env.home())
        .env("BOB_NOW", &b.env.now)
        .write_stdin(calls.to_string())
        .output()
        .unwrap();
    crate::env::jsonl_of(&out, &["tool", "run"])
}

/// Issue 23 S1: a directory descriptor bob inherited must not reach the program. Through
/// `/proc/self/fd/9` (or `openat(9, …)`) the script would read the host's `/etc/shadow` and
/// write as root outside every root; in both modes it finds descriptor 9 closed.
#[test]
fn a_descriptor_bob_inherited_does_not_reach_the_program() {
    let b = sandbox();
    // The wrapper really does hand descriptor 9 on to what it executes.
    let probe = std::process::Command::new("sh")
        .args(["-c", "exec 9</ && exec readlink /proc/self/fd/9"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&probe.stdout), "/\n", "{probe:?}");
    let tag = uuid_like();
    let o = b.outside.display().to_string();
    let script = format!(
        "[ -e /proc/self/fd/9 ] && echo fd9-open\n\
         cat /proc/self/fd/9/etc/shadow >/dev/null && echo read-shadow\n\
         cat /proc/self/fd/9{o}/secret.txt\n\
         echo x > /proc/self/fd/9{o}/pwned-fd && echo wrote-outside\n\
         echo x > /proc/self/fd/9/tmp/pwned-fd-{tag} && echo wrote-tmp\n\
         python3 -c 'import os; print(os.read(os.open(\"{o}/secret.txt\".lstrip(\"/\"), os.O_RDONLY, dir_fd=9), 99))' 2>/dev/null\n\
         echo done\n"
    );
    std::fs::write(b.root.join("leak.sh"), &script).unwrap();
    let calls =
        json!([{"id": "x", "tool": "shell.exec", "args": {"cmd": "sh leak.sh"}}]).to_string();
    for (mode, extra) in [("full", &[][..]), ("weak", &["--sandbox", "weak"][..])] {
        let rows = run_leaking_root_fd(&b, extra, &calls);
        let v = &rows[0];
        assert_eq!(v["ok"], true, "{mode}: {v}");
        assert_eq!(v["output"]["sandbox"]["mode"], mode, "{v}");
        assert_eq!(stdout(v), "done\n", "{mode}: {v}");
        assert!(!v.to_string().contains(CANARY), "{mode}: {v}");
        let layers = v["output"]["sandbox"]["layers"].to_string();
        assert!(layers.contains("inherited-fds-closed"), "{v}");
    }
    assert!(!b.outside.join("pwned-fd").exists());
    assert!(!Path::new(&format!("/tmp/pwned-fd-{tag}")).exists());
}

/// Issue 23 S3: `mknod` made a set-user-ID regular file (`0o104755`) in the root. Every route
/// to a set-ID bit or a device node is refused now: the `mknod` and `mknodat` system calls,
/// `fchmod`, `fchmodat` and `fchmodat2`; a FIFO (an ordinary `mknod` use) still works.
#[test]
fn mknod_and_every_chmod_call_refuse_set_id_bits_and_device_nodes() {
    let b = sandbox();
    let py = r#"import ctypes, os, stat
l = ctypes.CDLL(None, use_errno=True)
AT = -100
def sc(name, *a):
    r = l.syscall(*a)
    print(name, r, ctypes.get_errno() if r != 0 else 0)
sc("mknod", 133, b"suid1", 0o104755, 0)
sc("mknodat", 259, AT, b"suid2", 0o102755, 0)
sc("mknod-chr", 133, b"chr1", stat.S_IFCHR | 0o666, os.makedev(1, 3))
sc("mknodat-blk", 259, AT, b"blk1", stat.S_IFBLK | 0o666, os.makedev(7, 0))
open("plain", "w").close()
fd = os.open("plain", os.O_RDONLY)
sc("fchmod", 91, fd, 0o4755)
sc("fchmodat", 268, AT, b"plain", 0o2755)
sc("fchmodat2", 452, AT, b"plain", 0o6755, 0)
sc("mknod-fifo", 133, b"fifo1", stat.S_IFIFO | 0o644, 0)
"#;
    std::fs::write(b.root.join("mk.py"), py).unwrap();
    let v = b.sh("python3 mk.py\n");
    assert_eq!(v["ok"], true, "{v}");
    let out = stdout(&v);
    for name in [
        "mknod",
        "mknodat",
        "mknod-chr",
        "mknodat-blk",
        "fchmod",
        "fchmodat",
        "fchmodat2",
    ] {
        assert!(
            out.lines().any(|l| l == format!("{name} -1 1")),
            "{name} was not refused with EPERM: {out}"
        );
    }
    assert!(out.contains("mknod-fifo 0 0"), "{out}");
    for f in ["suid1", "suid2", "chr1", "blk1"] {
        assert!(
            std::fs::symlink_metadata(b.root.join(f)).is_err(),
            "{f} was made: {out}"
        );
    }
    let plain = std::fs::metadata(b.root.join("plain")).unwrap();
    assert_eq!(plain.permissions().mode() & 0o7000, 0, "{out}");
}

/// Host-side `git ARGS` in `dir`, with no user or system configuration.
fn host_git(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap()
}

/// Issue 23 S2: an allowed script wrote `core.fsmonitor` into `ROOT/.git/config`, and the
/// user's next `git status` on the host ran it as root. Whatever the script does, the
/// repository's config, hooks and info, the protected dotfiles and `.bob*` entries of the root,
/// a `.git` between the root and the working directory, and an absent top-level `.git` stay as
/// they were; the user's `git status` afterwards runs nothing.
#[test]
fn a_script_cannot_plant_repository_config_hooks_or_dotfiles() {
    let b = sandbox();
    let marker = b.outside.join("fsmonitor-ran");
    assert!(host_git(&b.root, &["init", "-q"]).status.success());
    let sub = b.root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    assert!(host_git(&sub, &["init", "-q"]).status.success());
    for f in [".gitconfig", ".bashrc", ".bobrc"] {
        std::fs::write(b.root.join(f), "# kept\n").unwrap();
    }
    let config = std::fs::read(b.root.join(".git/config")).unwrap();
    let sub_config = std::fs::read(sub.join(".git/config")).unwrap();
    let plant = format!("[core]\n\tfsmonitor = \"touch {}\"\n", marker.display());
    let script = format!(
        "cd \"$(dirname \"$0\")\"; R=$(git rev-parse --show-toplevel 2>/dev/null || pwd)\n\
         for g in {root}/.git {root}/sub/.git; do\n\
           printf '{plant}' >> $g/config && echo wrote-config\n\
           git config --file $g/config core.fsmonitor 'touch {m}' && echo git-config\n\
           printf '#!/bin/sh\\ntouch {m}\\n' > $g/hooks/post-checkout && echo wrote-hook\n\
           echo '*' >> $g/info/exclude && echo wrote-info\n\
           mv $g $g.old && echo moved-git\n\
           rm -rf $g/hooks && echo removed-hooks\n\
         done\n\
         for f in .gitconfig .bashrc .bobrc; do echo x >> {root}/$f && echo wrote-$f; rm -f {root}/$f && echo removed-$f; done\n\
         echo done\n",
        root = b.root.display(),
        plant = plant.replace('\n', "\\n").replace('\t', "\\t"),
        m = marker.display(),
    );
    std::fs::write(sub.join("plant.sh"), &script).unwrap();
    let calls = json!([
        {"id": "x", "tool": "shell.exec", "args": {"cmd": "sh plant.sh", "cwd": "sub"}}
    ]);
    let rows = b.env.jsonl(&b.args(&[]), &calls.to_string());
    let v = &rows[0];
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(stdout(v), "done\n", "{v}");
    assert!(stderr(v).contains("Read-only file system"), "{v}");
    assert_eq!(std::fs::read(b.root.join(".git/config")).unwrap(), config);
    assert_eq!(std::fs::read(sub.join(".git/config")).unwrap(), sub_config);
    for f in [".gitconfig", ".bashrc", ".bobrc"] {
        assert_eq!(std::fs::read_to_string(b.root.join(f)).unwrap(), "# kept\n");
    }
    for dir in [&b.root, &sub] {
        assert!(!dir.join(".git/hooks/post-checkout").exists());
        assert!(!dir.join(".git.old").exists());
        assert!(host_git(dir, &["status", "--short"]).status.success());
    }
    assert!(
        !marker.exists(),
        "the user's git status ran the planted command"
    );

    // A root with no repository: the script cannot make one at its top (the empty read-only
    // placeholder is gone again after the call).
    let bare = sandbox();
    let script = format!(
        "git init -q . && echo git-init\nmkdir -p .git/hooks && echo made-git\n\
         printf '{plant}' > .git/config && echo wrote-config\necho done\n",
        plant = plant.replace('\n', "\\n").replace('\t', "\\t"),
    );
    let v = bare.sh(&script);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(stdout(&v), "done\n", "{v}");
    assert!(
        std::fs::symlink_metadata(bare.root.join(".git")).is_err(),
        "a .git was left in the root"
    );
}

/// Issue 23: protected names a program creates where none was listed (a `.bashrc` or
/// `.gitconfig` at the top of a root that had none, a `.git` on the path to its working
/// directory) are moved into the root's `.bob-quarantine` after the call, which fails with
/// `policy.denied` naming them; in the weak mode (no mounts) too. The user's later `git` there
/// finds no planted repository.
#[test]
fn protected_names_a_program_creates_are_quarantined_in_every_mode() {
    for extra in [&[][..], &["--sandbox", "weak"][..]] {
        let b = sandbox();
        let marker = b.outside.join("fsmonitor-ran");
        let sub = b.root.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let script = format!(
            "echo 'alias ls=\"touch {m}\"' > ../.bashrc && echo wrote-bashrc\n\
             printf '[core]\\n\\tpager = touch {m}\\n' > ../.gitconfig && echo wrote-gitconfig\n\
             git init -q . && git config core.fsmonitor 'touch {m}' && echo planted-git\n\
             echo done\n",
            m = marker.display()
        );
        std::fs::write(sub.join("x.sh"), script).unwrap();
        let calls = json!([
            {"id": "x", "tool": "shell.exec", "args": {"cmd": "sh x.sh", "cwd": "sub"}}
        ]);
        let rows = b.env.jsonl(&b.args(extra), &calls.to_string());
        let v = &rows[0];
        assert_eq!(v["ok"], false, "{extra:?}: {v}");
        assert_eq!(v["error"]["code"], "policy.denied", "{v}");
        let planted = v["error"]["details"]["planted"].to_string();
        for name in [".bashrc", ".gitconfig", "sub/.git"] {
            assert!(planted.contains(name), "{extra:?}: {name} not in {planted}");
        }
        assert!(!b.root.join(".bashrc").exists());
        assert!(!b.root.join(".gitconfig").exists());
        assert!(!sub.join(".git").exists());
        let kept = std::fs::read_dir(b.root.join(".bob-quarantine"))
            .unwrap()
            .count();
        assert_eq!(kept, 3, "moved, not deleted");
        let _ = host_git(&sub, &["status", "--short"]);
        assert!(!marker.exists(), "{extra:?}: git ran the planted command");
    }
}

/// Repositories anywhere in the root, not only on the path to the working directory: a new
/// one planted off that path (a `git init` in a sibling, a `.git` file pointing elsewhere) is
/// quarantined, and an existing nested one's config cannot be changed (full mode: mounted
/// read-only).
#[test]
fn repositories_planted_or_present_deep_in_the_root_are_guarded() {
    for extra in [&[][..], &["--sandbox", "weak"][..]] {
        let b = sandbox();
        let marker = b.outside.join("fsmonitor-ran");
        let vendor = b.root.join("vendor/lib");
        std::fs::create_dir_all(&vendor).unwrap();
        host_git(&vendor, &["init", "-q", "."]);
        let config_before = std::fs::read(vendor.join(".git/config")).unwrap();
        std::fs::create_dir_all(b.root.join("work")).unwrap();
        std::fs::create_dir_all(b.root.join("docs/api")).unwrap();
        let script = format!(
            "cd ../docs/api && git init -q . && git config core.fsmonitor 'touch {m}' && echo planted
             cd ../.. && mkdir -p other && printf 'gitdir: /tmp/evil\n' > other/.git
             printf '[core]\n\tfsmonitor = touch {m}\n' >> vendor/lib/.git/config 2>/dev/null
             echo done
",
            m = marker.display()
        );
        std::fs::write(b.root.join("work/x.sh"), script).unwrap();
        let calls = json!([
            {"id": "x", "tool": "shell.exec", "args": {"cmd": "sh x.sh", "cwd": "work"}}
        ]);
        let rows = b.env.jsonl(&b.args(extra), &calls.to_string());
        let v = &rows[0];
        assert_eq!(v["error"]["code"], "policy.denied", "{extra:?}: {v}");
        let planted = v["error"]["details"]["planted"].to_string();
        for name in ["docs/api/.git", "other/.git"] {
            assert!(planted.contains(name), "{extra:?}: {name} not in {planted}");
        }
        assert!(!planted.contains("vendor"), "{extra:?}: {planted}");
        assert!(!b.root.join("docs/api/.git").exists());
        assert!(!b.root.join("other/.git").exists());
        assert!(
            vendor.join(".git/config").exists(),
            "the user's repository stays"
        );
        if extra.is_empty() {
            assert_eq!(
                std::fs::read(vendor.join(".git/config")).unwrap(),
                config_before,
                "an existing nested repository's config is read-only"
            );
            let _ = host_git(&vendor, &["status", "--short"]);
        }
        let _ = host_git(&b.root.join("docs/api"), &["status", "--short"]);
        assert!(!marker.exists(), "{extra:?}: git ran the planted command");
    }
}

/// The quarantine cannot be turned against the host: a `.bob-quarantine` symlink the program
/// planted does not redirect the moves out of the root, and a working directory swapped for a
/// symlink to a repository outside does not bring that repository's `.git` in.
#[test]
fn the_quarantine_moves_nothing_across_a_planted_symlink() {
    for extra in [&[][..], &["--sandbox", "weak"][..]] {
        let b = sandbox();
        let elsewhere = b.outside.join("repo");
        std::fs::create_dir_all(elsewhere.join(".git")).unwrap();
        std::fs::write(elsewhere.join(".git/config"), "[core]\n").unwrap();
        let sub = b.root.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let script = format!(
            "ln -s {out} ../.bob-quarantine\necho x > ../.bashrc\n\
             cd .. && mv sub sub.old && ln -s {repo} sub && echo swapped\n",
            out = b.outside.display(),
            repo = elsewhere.display()
        );
        std::fs::write(sub.join("x.sh"), script).unwrap();
        let calls = json!([
            {"id": "x", "tool": "shell.exec", "args": {"cmd": "sh x.sh", "cwd": "sub"}}
        ]);
        let rows = b.env.jsonl(&b.args(extra), &calls.to_string());
        let v = &rows[0];
        assert_eq!(v["error"]["code"], "policy.denied", "{extra:?}: {v}");
        let q = b.root.join(".bob-quarantine");
        assert!(
            std::fs::symlink_metadata(&q).unwrap().is_dir(),
            "{extra:?}: the quarantine is a real directory"
        );
        assert!(!b.root.join(".bashrc").exists());
        let outside: Vec<_> = std::fs::read_dir(&b.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            outside
                .iter()
                .all(|n| !n.to_string_lossy().contains(".bashrc")),
            "{extra:?}: a move followed the planted symlink: {outside:?}"
        );
        assert!(elsewhere.join(".git/config").exists(), "{extra:?}");
    }
}

/// bob's home and the operator's rules file inside a root: the program can neither read the
/// home (keys, audit logs, secrets) nor change the rules.
#[test]
fn bobs_home_and_rules_inside_a_root_are_out_of_the_programs_reach() {
    let b = sandbox();
    let home = b.root.join("runtime");
    std::fs::create_dir_all(&home).unwrap();
    let rules = b.root.join("rules.json");
    std::fs::copy(&b.rules, &rules).unwrap();
    let kept = std::fs::read(&rules).unwrap();
    std::fs::write(b.root.join("x.sh"), "ls -A runtime | wc -l\ncat runtime/keys/chain.key && echo read-key\n\
         echo x > runtime/planted && echo wrote-home\necho '{}' > rules.json && echo wrote-rules\necho done\n").unwrap();
    let calls = json!([{"id": "x", "tool": "shell.exec", "args": {"cmd": "sh x.sh"}}]).to_string();
    let out = b
        .env
        .bob(&[
            "tool",
            "run",
            "--enable-all",
            "--root",
            b.root.to_str().unwrap(),
            "--shell-rules",
            rules.to_str().unwrap(),
        ])
        .env("BOB_HOME", &home)
        .write_stdin(calls)
        .output()
        .unwrap();
    let rows = crate::env::jsonl_of(&out, &["tool", "run"]);
    let v = &rows[0];
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(stdout(v), "0\ndone\n", "{v}");
    assert_eq!(std::fs::read(&rules).unwrap(), kept);
    assert!(!home.join("planted").exists());
    // The home really was in use: the call was audited there.
    assert!(home.join("audit").exists());
}

/// The per-call budget: `tools.sandbox_memory_mb` bounds memory (the call's cgroup where one is
/// delegated, each process's address space in any case), `tools.sandbox_file_size_mb` the
/// largest file; a budget below the minimum is refused.
#[test]
fn a_call_is_held_to_its_memory_and_file_size_budget() {
    let b = sandbox();
    std::fs::write(
        b.root.join("x.sh"),
        "python3 -c 'b = bytearray(300 << 20); print(\"allocated\")' 2>/dev/null || echo no-memory\n\
         head -c 3000000 /dev/zero > big; echo head=$?\necho done\n",
    )
    .unwrap();
    let calls = json!([{"id": "x", "tool": "shell.exec", "args": {"cmd": "sh x.sh"}}]).to_string();
    let run = |mem: &str, file: &str, extra: &[&str]| -> Value {
        let out = b
            .env
            .bob(&b.args(extra))
            .env("BOB_SANDBOX_MEMORY_MB", mem)
            .env("BOB_SANDBOX_FILE_SIZE_MB", file)
            .write_stdin(calls.clone())
            .output()
            .unwrap();
        crate::env::jsonl_of(&out, &["tool", "run"]).remove(0)
    };
    for extra in [&[][..], &["--sandbox", "weak"][..]] {
        let v = run("64", "1", extra);
        assert_eq!(v["ok"], true, "{v}");
        let out = stdout(&v);
        assert!(out.starts_with("no-memory\n"), "{v}");
        assert!(!out.contains("head=0"), "{v}");
        assert!(out.ends_with("done\n"), "{v}");
        let big = std::fs::metadata(b.root.join("big")).unwrap().len();
        assert!(big <= 1 << 20, "{big} bytes written: {v}");
        eprintln!("layers: {}", v["output"]["sandbox"]["layers"]);
        // The defaults let the same script through.
        let v = run("4096", "256", extra);
        assert_eq!(stdout(&v), "allocated\nhead=0\ndone\n", "{v}");
    }
    let v = run("0", "256", &[]);
    assert_eq!(code(&v), "invalid.request", "{v}");
}
