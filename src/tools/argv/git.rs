//! git: the listed subcommands with read-only options, and git's hardened environment.

use super::builtin::builtin_spec;
use super::getopt::parse;
use super::spec::Kind::ReadPath;
use super::values::Ctx;
use super::{Vetted, check_found, check_operands, refuse};
use crate::error::Result;
use std::path::{Component, Path, PathBuf};

/// Configuration git gets through `GIT_CONFIG_COUNT` (command scope: beats the repository's).
pub const GIT_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("core.attributesFile", "/dev/null"),
    ("diff.external", ""),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("protocol.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("safe.directory", "*"),
];

/// Fixed environment for git (see the module docs).
pub const GIT_ENV: &[(&str, &str)] = &[
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_SYSTEM", "/dev/null"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_NO_LAZY_FETCH", "1"),
];

fn git_env(ctx: &Ctx) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = GIT_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.push(("GIT_CONFIG_COUNT".into(), GIT_CONFIG.len().to_string()));
    for (i, (k, v)) in GIT_CONFIG.iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), k.to_string()));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), v.to_string()));
    }
    if let Some(sb) = ctx.sandbox {
        let ceilings: Vec<String> = sb
            .root_paths()
            .filter_map(|r| std::fs::canonicalize(r).ok())
            .filter_map(|r| r.parent().map(|p| p.display().to_string()))
            .collect();
        if !ceilings.is_empty() {
            env.push(("GIT_CEILING_DIRECTORIES".into(), ceilings.join(":")));
        }
    }
    env
}

const GIT_GLOBAL_FLAGS: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-advice",
];

pub(super) fn vet_git(args: &[String], ctx: &Ctx) -> Result<Vetted> {
    let mut i = 0;
    let mut base = ctx.base.clone();
    let mut globals: Vec<String> = Vec::new();
    let value_of = |i: usize, a: &str, name: &str| -> Result<(String, usize)> {
        match a.strip_prefix(&format!("{name}=")) {
            Some(v) => Ok((v.to_string(), i + 1)),
            None if a == name => args
                .get(i + 1)
                .map(|v| (v.clone(), i + 2))
                .ok_or_else(|| refuse("git", format!("{name} needs a value"))),
            None => Err(refuse("git", format!("unknown global option {a:?}"))),
        }
    };
    while let Some(a) = args.get(i) {
        let a = a.as_str();
        if !a.starts_with('-') {
            break;
        }
        if GIT_GLOBAL_FLAGS.contains(&a) {
            globals.push(a.to_string());
            i += 1;
        } else if a == "-C" {
            let dir = args
                .get(i + 1)
                .ok_or_else(|| refuse("git", "-C needs a directory"))?;
            ctx.check("git", "-C directory", ReadPath, dir)?;
            base = if Path::new(dir).is_absolute() {
                PathBuf::from(dir)
            } else {
                base.join(dir)
            };
            globals.extend([a.to_string(), dir.clone()]);
            i += 2;
        } else if a == "--work-tree" || a.starts_with("--work-tree=") {
            let (v, next) = value_of(i, a, "--work-tree")?;
            ctx.check("git", "--work-tree", ReadPath, &v)?;
            globals.push(format!("--work-tree={v}"));
            i = next;
        } else if a == "--git-dir" || a.starts_with("--git-dir=") {
            let (v, next) = value_of(i, a, "--git-dir")?;
            ctx.check("git", "--git-dir", ReadPath, &v)?;
            let last = Path::new(&v)
                .components()
                .rfind(|c| matches!(c, Component::Normal(_)))
                .map(|c| c.as_os_str().to_string_lossy().into_owned());
            if last.as_deref() != Some(".git") {
                return Err(refuse(
                    "git",
                    format!(
                        "--git-dir {v:?} must name a .git directory inside the root (a look-alike directory could carry its own config)"
                    ),
                ));
            }
            globals.push(format!("--git-dir={v}"));
            i = next;
        } else {
            let why = match a.split('=').next().unwrap_or(a) {
                "-c" | "--config-env" => "sets configuration (which can run programs)",
                "--exec-path" => "chooses where git finds its programs",
                "-p" | "--paginate" => "starts a pager",
                "--namespace" | "--bare" | "--super-prefix" | "--list-cmds" => "is not allowed",
                _ => "is not an allowed global option",
            };
            return Err(
                refuse("git", format!("global option {a} {why}")).with("option", a.to_string())
            );
        }
    }
    let Some(sub) = args.get(i) else {
        return Err(refuse("git", "no subcommand given"));
    };
    let name = format!("git {sub}");
    let spec = builtin_spec(&name).ok_or_else(|| {
        refuse(
            "git",
            format!("subcommand {sub:?} is not allowed (allowed: status, log, diff, show, ls-files, rev-parse, branch, blame)"),
        )
    })?;
    let rest = &args[i + 1..];
    let parsed = parse(spec, rest)?;
    let sub_ctx = Ctx {
        sandbox: ctx.sandbox,
        base,
    };
    check_found(spec, &parsed, &sub_ctx)?;
    if sub == "branch" && !parsed.operands.is_empty() {
        let list = [
            "list",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "points-at",
            "verbose",
        ]
        .iter()
        .any(|k| parsed.has(spec, k));
        if !list {
            return Err(refuse(
                "git branch",
                format!(
                    "a branch name operand ({:?}) creates a branch; git branch may only list (use --list PATTERN)",
                    parsed.operands[0]
                ),
            ));
        }
    }
    check_operands(spec, &parsed.operands, &sub_ctx)?;
    let mut argv = vec!["git".to_string(), "--no-pager".to_string()];
    argv.extend(globals.into_iter().filter(|g| g != "--no-pager"));
    argv.push(sub.clone());
    match sub.as_str() {
        "diff" | "log" | "show" => argv.extend(["--no-ext-diff".into(), "--no-textconv".into()]),
        "blame" => argv.push("--no-textconv".into()),
        _ => {}
    }
    argv.extend(rest.iter().cloned());
    Ok(Vetted {
        argv,
        env: git_env(ctx),
    })
}
