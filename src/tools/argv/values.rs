//! Checking option values and operands by kind, paths against the sandbox roots.

use super::refuse;
use super::sed::sed_script_check;
use super::spec::Kind::{self, *};
use crate::error::Result;
use crate::tools::fs::{Sandbox, climbs_out, is_escape, lexical_normalize, protected_reason};
use std::path::{Component, Path, PathBuf};

/// Where relative paths start, and the sandbox to resolve them in (`None`: syntax only).
pub(super) struct Ctx<'a> {
    pub(super) sandbox: Option<&'a Sandbox>,
    /// The command's cwd: relative to the first root, or absolute.
    pub(super) base: PathBuf,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Read,
    Write,
    WriteDir,
}

pub(super) fn is_number(v: &str) -> bool {
    let v = v.strip_prefix(['+', '-']).unwrap_or(v);
    let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
    let suffix = &v[digits.len()..];
    suffix.len() <= 3
        && !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.chars().filter(|&c| c == '.').count() <= 1
        && digits.chars().next().is_some_and(|c| c.is_ascii_digit())
}

impl Ctx<'_> {
    pub(super) fn check(&self, prog: &str, what: &str, kind: Kind, v: &str) -> Result<()> {
        match kind {
            ReadPath => self.path(prog, what, v, Access::Read),
            WritePath => self.path(prog, what, v, Access::Write),
            WriteDir => self.path(prog, what, v, Access::WriteDir),
            ReadPathList => v
                .split(':')
                .filter(|p| !p.is_empty())
                .try_for_each(|p| self.path(prog, what, p, Access::Read)),
            GitArg => self.path(prog, what, v, Access::Read),
            NameList0 => self.names0(prog, what, v),
            Number if !is_number(v) => Err(refuse(prog, format!("{what} {v:?} is not a number"))),
            Duration
                if !(is_number(v) && !v.starts_with(['-', '+'])
                    || v == "inf"
                    || v == "infinity") =>
            {
                Err(refuse(prog, format!("{what} {v:?} is not a duration")))
            }
            SedScript => sed_script_check(v).map_err(|why| {
                refuse(prog, format!("sed script {v:?} is refused: {why}"))
                    .with("script", v.to_string())
            }),
            Word if v.contains('/') || v.chars().any(char::is_whitespace) => {
                Err(refuse(prog, format!("{what} {v:?} is not a keyword")))
            }
            DateFormat if !v.starts_with('+') => Err(refuse(
                prog,
                format!(
                    "operand {v:?} is refused: date takes only a +FORMAT operand (a date operand sets the clock)"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// `--files0-from=F`: F and every NUL-separated name in it must be inside the roots.
    fn names0(&self, prog: &str, what: &str, v: &str) -> Result<()> {
        self.path(prog, what, v, Access::Read)?;
        let Some(sandbox) = self.sandbox else {
            return Ok(());
        };
        if v == "-" {
            return Ok(()); // stdin is /dev/null
        }
        let joined = if Path::new(v).is_absolute() {
            PathBuf::from(v)
        } else {
            self.base.join(v)
        };
        let (_, dir, rel) = sandbox.locate_in(&joined.to_string_lossy())?;
        const CAP: u64 = 1 << 20;
        let mut bytes = Vec::new();
        if let Ok(f) = dir.open(&rel) {
            use std::io::Read;
            f.take(CAP + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| refuse(prog, format!("{what} {v:?} cannot be read: {e}")))?;
        }
        if bytes.len() as u64 > CAP {
            return Err(refuse(
                prog,
                format!("{what} {v:?} is larger than 1 MiB; its names cannot all be vetted"),
            ));
        }
        for name in bytes.split(|&b| b == 0).filter(|n| !n.is_empty()) {
            let name = std::str::from_utf8(name).map_err(|_| {
                refuse(prog, format!("{what} {v:?} lists a name that is not UTF-8"))
            })?;
            self.path(
                prog,
                &format!("a name listed in {what}"),
                name,
                Access::Read,
            )?;
        }
        Ok(())
    }

    /// A path must be inside the roots, lexically and after resolving symlinks beneath the
    /// root (by the kernel, through the root's handle).
    pub(super) fn path(&self, prog: &str, what: &str, v: &str, access: Access) -> Result<()> {
        if v.is_empty() || v == "-" {
            return Ok(());
        }
        let outside = |why: &str| {
            refuse(
                prog,
                format!("{what} {v:?} {why}: shell.exec is confined to the sandbox root"),
            )
            .with("argument", v.to_string())
        };
        let joined = if Path::new(v).is_absolute() {
            PathBuf::from(v)
        } else {
            self.base.join(v)
        };
        let Some(sandbox) = self.sandbox else {
            // Syntax check only (rules file examples): lexical.
            if joined.is_absolute() || climbs_out(&joined) {
                return Err(outside("is outside the root"));
            }
            return Ok(());
        };
        if !joined.is_absolute() && climbs_out(&joined) {
            return Err(outside("climbs out of the root with .."));
        }
        let shown = joined.to_string_lossy().into_owned();
        let (root, dir, rel) = sandbox
            .locate_in(&shown)
            .map_err(|_| outside("is outside every sandbox root"))?;
        let escaped = || outside("resolves (through a symlink) outside the root");
        // An open that fails: a symlink escape is refused as such, any other error with `msg`.
        let open_failed = |e: &std::io::Error, msg: String| {
            if is_escape(e) {
                escaped()
            } else {
                refuse(prog, msg)
            }
        };
        match access {
            Access::Read => match dir.metadata(&rel) {
                Err(e) if is_escape(&e) => Err(escaped()),
                _ => Ok(()),
            },
            Access::WriteDir => {
                let d = dir.open_dir(&rel).map_err(|e| {
                    open_failed(
                        &e,
                        format!("{what} {v:?} is not a directory inside the root: {e}"),
                    )
                })?;
                if !sandbox.dotfiles_allowed() {
                    let real = sandbox.real_rel(root, &d);
                    for p in [Some(lexical_normalize(&rel)), real].into_iter().flatten() {
                        if let Some(why) = protected_reason(&p) {
                            return Err(refuse(prog, format!("{what} {v:?} is refused: {why}")));
                        }
                    }
                }
                Ok(())
            }
            Access::Write => {
                let name = match rel.components().next_back() {
                    Some(Component::Normal(n)) => n.to_owned(),
                    _ => return Err(refuse(prog, format!("{what} {v:?} does not name a file"))),
                };
                let parent_rel = match rel.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                let parent = dir.open_dir(&parent_rel).map_err(|e| {
                    open_failed(
                        &e,
                        format!("{what} {v:?}: its directory cannot be opened: {e}"),
                    )
                })?;
                if parent
                    .symlink_metadata(&name)
                    .is_ok_and(|m| m.file_type().is_symlink())
                {
                    return Err(refuse(
                        prog,
                        format!(
                            "{what} {v:?} is a symlink; shell.exec does not write through symlinks"
                        ),
                    ));
                }
                sandbox
                    .guard_protected(v, root, &rel, &parent, &name)
                    .map_err(|e| e.with("program", prog.to_string()))
            }
        }
    }
}
