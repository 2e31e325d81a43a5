//! The weak mode: the program runs directly (no namespaces), in its own process group, with
//! Landlock confining it where the kernel has it. Only on the operator's explicit choice.

use super::{Output, POLICY_LAYERS, Report, Request, supervisor};
use crate::error::{Error, Result};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::time::Duration;

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

/// Runs on a dedicated thread: Landlock restricts the calling thread (the child inherits it),
/// so the caller's thread is never confined.
pub(super) fn run(req: &Request, env: Vec<(String, String)>) -> Result<Output> {
    std::thread::scope(|s| {
        s.spawn(move || -> Result<Output> {
            let mut layers: Vec<String> = POLICY_LAYERS.iter().map(|s| s.to_string()).collect();
            layers.push("rlimits".into());
            layers.push("inherited-fds-closed".into());
            let landlock = match landlock_restrict(&req.roots) {
                Ok(st) => {
                    if st.ruleset != landlock::RulesetStatus::NotEnforced {
                        layers.push("landlock".into());
                    }
                    if st.no_new_privs {
                        layers.push("no-new-privs".into());
                    }
                    format!("{:?}", st.ruleset)
                }
                Err(e) => format!("unavailable: {e}"),
            };
            let mut cmd = std::process::Command::new(&req.argv[0]);
            cmd.args(&req.argv[1..])
                .env_clear()
                .envs(env)
                .current_dir(&req.cwd);
            let (fsize, address_space) = (req.budget.file_size, req.budget.memory);
            // SAFETY: only async-signal-safe calls (setrlimit, prctl, close_range) between fork
            // and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let core = libc::rlimit {
                        rlim_cur: 0,
                        rlim_max: 0,
                    };
                    libc::setrlimit(libc::RLIMIT_CORE, &core);
                    let fsize = libc::rlimit {
                        rlim_cur: fsize,
                        rlim_max: fsize,
                    };
                    libc::setrlimit(libc::RLIMIT_FSIZE, &fsize);
                    let address_space = libc::rlimit {
                        rlim_cur: address_space,
                        rlim_max: address_space,
                    };
                    libc::setrlimit(libc::RLIMIT_AS, &address_space);
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    // Stdio only: no descriptor bob inherited or opened reaches the program.
                    super::cloexec_from(3)
                });
            }
            let limits = super::supervisor_limits(req.timeout);
            let limits = supervisor::Limits {
                drain_wait: Duration::from_millis(500),
                ..limits
            };
            let finished = supervisor::run(cmd, None, &limits, None).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    Error::not_found(format!(
                        "program {:?} not found on {}",
                        req.argv[0], req.path
                    ))
                } else {
                    Error::internal(format!("spawning {:?}: {e}", req.argv[0]))
                }
            })?;
            let report = Report {
                mode: super::Mode::Weak,
                layers,
                landlock: Some(landlock),
            };
            match finished.ended {
                supervisor::Ended::Exited(st) => Ok(Output {
                    status: Some(st),
                    stdout: finished.stdout,
                    stderr: finished.stderr,
                    elapsed: finished.elapsed,
                    report,
                }),
                _ => Err(super::timed_out(req, &finished, &report)),
            }
        })
        .join()
        .unwrap_or_else(|_| Err(Error::internal("shell.exec worker panicked")))
    })
}
