//! Filesystem tools confined to the sandbox root.
//!
//! Every path is resolved *relative to an open handle on the root directory* by `cap-std`
//! (openat2 with `RESOLVE_BENEATH` on Linux, a checked component walk elsewhere): `..` that
//! leaves the root, absolute symlink targets, symlink chains out of the root and `/proc` magic
//! links all fail in the kernel at open time, so a symlink swapped in between a check and the
//! open cannot redirect the open. There is no canonicalize-then-open step anywhere.
//!
//! An absolute path is accepted only when it lies lexically inside one of the roots; it is then
//! resolved beneath that root's handle like a relative one.
//!
//! ## Protected paths
//!
//! `fs.write_text` refuses (`policy.denied`) to create or replace VCS internals and the dotfiles
//! that configure the programs `shell.exec` may run, because writing one turns a read-only
//! command into code execution (a `core.fsmonitor` in `.git/config` runs on `git status`):
//!
//! - VCS internals, as any component of the path: `.git` (directory *or* gitfile), `.hg`,
//!   `.svn`, `.jj`, `.bzr`, `_darcs`, `.pijul`, `CVS`;
//! - git's configuration: `.gitconfig`, `.config/git/…` (global config, attributes, ignore,
//!   credentials), `.gitattributes`, `.gitmodules`, `.git-credentials`, `.mailmap`;
//! - what other allowlisted programs or their libraries read from `HOME` (= the first root)
//!   or the working directory: `.ripgreprc` (rg), `.magic`, `.magic.mgc` (file/libmagic),
//!   `.hgrc`, `.netrc`, `.curlrc`, `.wgetrc`, `.inputrc`, shell start-up files (`.profile`,
//!   `.bashrc`, `.bash_profile`, `.bash_login`, `.bash_logout`, `.zshrc`, `.zshenv`,
//!   `.zprofile`, `.zlogin`, `.kshrc`, `.mkshrc`), `.ssh/` and `.gnupg/`;
//! - bob's own: any name starting with `.bob`.
//!
//! The same list guards `shell.exec`'s programs, whatever their argv: [`protected_mounts`]
//! names the protected entries that exist in a root, and the OS sandbox mounts them read-only
//! over themselves (see [`crate::sandbox`] for what that covers and what it does not).
//!
//! Names are compared after folding the tricks file systems apply: Unicode lower-casing
//! (case-insensitive volumes), removal of the code points HFS+ ignores (zero-width joiners,
//! direction marks, U+FEFF…), full-width ASCII mapped to ASCII, trailing dots and spaces
//! dropped (Windows), and the NTFS short name `GIT~1`. The check runs on the path as written
//! (with `.` and `..` folded lexically) *and* on the real location of the parent directory
//! (read back from `/proc/self/fd` after the kernel resolved it beneath the root), so a
//! symlinked directory (`d -> .git`, then `d/config`) cannot smuggle a write in either.
//!
//! A human lifts the refusal by granting the capability `fs:dotfiles`
//! (`bob caps grant --session ID fs:dotfiles`, or `bob tool run --grant fs:dotfiles`); a model
//! can only request it. `shell.exec` applies the same check to every path it may write
//! (`sort -o`, `uniq IN OUT`, `sort -T`), see [`super::argv`].

use super::spec::{Kind, ToolSpec};
use crate::error::{Code, Error, Result};
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

mod wire;
use wire::{DirEntry, DirListed, TextRead, TextWritten, answer};
pub use wire::{ListDirInput, ReadTextInput, WriteTextInput};

/// The `fs.read_text` tool.
pub const READ_TEXT: ToolSpec = ToolSpec {
    name: "fs.read_text",
    description: "Read a UTF-8 text file under the sandbox root (at most max_bytes).",
    kind: Kind::Fs,
    mutating: false,
    schema: || schemars::schema_for!(ReadTextInput),
};

/// The `fs.list_dir` tool.
pub const LIST_DIR: ToolSpec = ToolSpec {
    name: "fs.list_dir",
    description: "List a directory under the sandbox root (at most max_entries, sorted).",
    kind: Kind::Fs,
    mutating: false,
    schema: || schemars::schema_for!(ListDirInput),
};

/// The `fs.write_text` tool.
pub const WRITE_TEXT: ToolSpec = ToolSpec {
    name: "fs.write_text",
    description: "Write a UTF-8 text file under the sandbox root; refuses to replace an existing file unless overwrite=true.",
    kind: Kind::Fs,
    mutating: true,
    schema: || schemars::schema_for!(WriteTextInput),
};

/// The capability a human grants to let `fs.write_text` (and `shell.exec` output paths) touch
/// VCS internals and program dotfiles.
pub const DOTFILES_CAP: &str = "fs:dotfiles";

/// Open handles on the sandbox roots.
#[derive(Debug)]
pub struct Sandbox {
    roots: Vec<(PathBuf, Dir)>,
    allow_protected: bool,
}

/// VCS metadata directories (or files, for `.git`): refused as any path component.
const VCS_INTERNALS: &[&str] = &[
    ".git", ".hg", ".svn", ".jj", ".bzr", "_darcs", ".pijul", "cvs",
];

/// Dotfiles (or dot-directories) that configure an allowlisted program or its libraries.
const PROGRAM_DOTFILES: &[&str] = &[
    ".gitconfig",
    ".gitattributes",
    ".gitmodules",
    ".git-credentials",
    ".mailmap",
    ".ripgreprc",
    ".magic",
    ".magic.mgc",
    ".hgrc",
    ".netrc",
    ".curlrc",
    ".wgetrc",
    ".inputrc",
    ".profile",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".kshrc",
    ".mkshrc",
    ".ssh",
    ".gnupg",
];

/// A path component as a case-insensitive, Unicode-normalising file system would see it.
pub(crate) fn fold_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let c = match c as u32 {
            // Ignored by HFS+ (and by git's own `.git` checks).
            0x200B..=0x200F | 0x202A..=0x202E | 0x206A..=0x206F | 0xFEFF | 0x00AD => continue,
            // Full-width ASCII.
            v @ 0xFF01..=0xFF5E => char::from_u32(v - 0xFEE0).unwrap_or(c),
            _ => c,
        };
        out.extend(c.to_lowercase());
    }
    let trimmed = out.trim_end_matches(['.', ' ']);
    let trimmed = if trimmed.is_empty() {
        out.as_str()
    } else {
        trimmed
    };
    // NTFS 8.3 short name of `.git`.
    if trimmed.starts_with("git~") && trimmed[4..].chars().all(|c| c.is_ascii_digit()) {
        return ".git".into();
    }
    trimmed.to_string()
}

/// Why writing `rel` (relative to a root, already folded of `.`/`..`) is refused, if it is.
pub fn protected_reason(rel: &Path) -> Option<String> {
    let names: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(fold_name(&n.to_string_lossy())),
            _ => None,
        })
        .collect();
    for (i, n) in names.iter().enumerate() {
        if VCS_INTERNALS.contains(&n.as_str()) {
            return Some(format!(
                "{n:?} is version-control metadata (its config can make git and friends run programs)"
            ));
        }
        if PROGRAM_DOTFILES.contains(&n.as_str()) {
            return Some(format!(
                "{n:?} configures a program shell.exec may run (or the login environment)"
            ));
        }
        if n == ".config" && names.get(i + 1).is_some_and(|g| g == "git") {
            return Some("\".config/git\" holds git's global configuration".into());
        }
        if n.starts_with(".bob") {
            return Some(format!("{n:?} is bob's own configuration"));
        }
    }
    None
}

/// A protected entry found in a root ([`protected_present`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Present {
    pub path: PathBuf,
    pub is_link: bool,
}

/// How many directories of a root [`protected_present`] reads, breadth first, looking for
/// version-control metadata. A root with more is searched only that far (plus the path to the
/// working directory). Each directory read costs about 15 µs of system time, twice a call
/// (before and after); `docs/security.md` says so.
pub const VCS_WALK_DIRS: usize = 10_000;

/// The protected entries of `root` where a program running in `cwd` (a real directory beneath
/// `root`) could plant one that a later program reads, as absolute paths under `root`:
///
/// - every entry at the top of the root whose name is protected (one `readdir`), and
///   `.config/git`;
/// - version-control metadata (`.git`, `.hg`, ...) anywhere in the tree, where git looks for a
///   repository when the user later runs it in that directory: the root's directories are read
///   breadth first, without following symlinks or entering the metadata itself, up to
///   [`VCS_WALK_DIRS`];
/// - a `.git` in each directory from the root down to `cwd`, whatever the walk reached.
///
/// Symlinks are listed too, marked.
pub fn protected_present(root: &Path, cwd: &Path) -> Vec<Present> {
    let mut out = Vec::new();
    let entry = |p: PathBuf| {
        let m = std::fs::symlink_metadata(&p).ok()?;
        Some(Present {
            is_link: m.file_type().is_symlink(),
            path: p,
        })
    };
    let mut queue = std::collections::VecDeque::from([root.to_path_buf()]);
    let mut read = 0;
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        read += 1;
        let top = read == 1;
        for e in entries.flatten() {
            let name = e.file_name();
            let Ok(kind) = e.file_type() else { continue };
            // Where git and friends look for a repository, the name is matched as the file
            // system does (ASCII case folded: exact on Linux, folded on case-insensitive
            // mounts); the look-alikes `protected_reason` also refuses matter only to writes.
            let bytes = name.as_encoded_bytes();
            let vcs = VCS_INTERNALS
                .iter()
                .any(|v| bytes.eq_ignore_ascii_case(v.as_bytes()));
            if vcs || (top && protected_reason(Path::new(&name)).is_some()) {
                out.push(Present {
                    path: dir.join(&name),
                    is_link: kind.is_symlink(),
                });
            } else if kind.is_dir() && name != QUARANTINE_DIR && read + queue.len() < VCS_WALK_DIRS
            {
                queue.push_back(dir.join(&name));
            }
        }
    }
    let config = root.join(".config");
    if std::fs::symlink_metadata(&config).is_ok_and(|m| m.is_dir()) {
        out.extend(entry(config.join("git")));
    }
    let canon_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if let Ok(rel) = cwd.strip_prefix(&canon_root) {
        let mut dir = root.to_path_buf();
        for c in rel.components() {
            let Component::Normal(n) = c else { break };
            if protected_reason(Path::new(n)).is_some() {
                break;
            }
            dir.push(n);
            // Only real directories: after a call, a component the program swapped for a
            // symlink would lead outside the root.
            if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                break;
            }
            let git = dir.join(".git");
            if !out.iter().any(|p| p.path == git) {
                out.extend(entry(git));
            }
        }
    }
    out
}

/// The protected entries the OS sandbox mounts read-only: those of [`protected_present`]
/// that are not symlinks (a mount would follow one to its target; the tools still refuse to
/// write through them).
pub fn protected_mounts(present: &[Present]) -> Vec<PathBuf> {
    present
        .iter()
        .filter(|p| !p.is_link)
        .map(|p| p.path.clone())
        .collect()
}

/// Where [`quarantine_planted`] moves what a program planted, at the top of its root.
pub const QUARANTINE_DIR: &str = ".bob-quarantine";

/// Moves the protected entries a program created where none was before (`before`, from
/// [`protected_present`] ahead of the call) into [`QUARANTINE_DIR`] of the root, and returns
/// them (as they were named). The mounts keep existing entries unchanged; this takes away new
/// ones, such as a `.npmrc` or `.envrc` at the top of a root that had none, or a `.git`
/// planted on the path to the working directory, in every sandbox mode. They are moved, not
/// deleted: one a person created at the same moment is not lost. One that cannot be moved is
/// returned all the same. Empty directories are left alone.
pub fn quarantine_planted(root: &Path, cwd: &Path, before: &[Present]) -> Vec<PathBuf> {
    let planted: Vec<PathBuf> = protected_present(root, cwd)
        .into_iter()
        .filter(|p| !before.iter().any(|b| b.path == p.path))
        .map(|p| p.path)
        // An empty directory configures nothing (an empty `.git` is no repository) and later
        // calls mount it read-only; it may be another call's placeholder.
        .filter(|p| !std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_none()))
        .collect();
    if planted.is_empty() {
        return planted;
    }
    let dir = root.join(QUARANTINE_DIR);
    let real_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if !real_dir(&dir) {
        // A symlink (or file) the program put there would redirect the moves out of the root:
        // it goes, and a real directory takes its place.
        let _ = std::fs::remove_file(&dir);
        let _ = std::fs::create_dir(&dir);
        if !real_dir(&dir) {
            return planted;
        }
    }
    let stamp = crate::clock::now().map_or(0, |t| t.timestamp_millis());
    for (i, p) in planted.iter().enumerate() {
        let rel = p.strip_prefix(root).unwrap_or(p);
        let name = rel.to_string_lossy().replace('/', "%");
        let _ = std::fs::rename(p, dir.join(format!("{stamp}-{i}-{name}")));
    }
    planted
}

fn protected_refusal(shown: &str, why: &str) -> Error {
    Error::denied(format!(
        "writing {shown:?} is refused: {why}; a human can allow it with `bob caps grant --session ID {DOTFILES_CAP}`"
    ))
    .with("path", shown.to_string())
}

/// `a/./b/../c` → `a/c` (no file system access; `rel` must not climb out).
pub(crate) fn lexical_normalize(rel: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// Whether an I/O error of a beneath-the-root operation means the path led out of the root.
pub(crate) fn is_escape(e: &std::io::Error) -> bool {
    e.to_string().contains("outside of the filesystem")
        || matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::EXDEV))
}

fn escape(path: &str, why: &str) -> Error {
    Error::denied(format!(
        "path {path:?} {why}: tools are confined to the sandbox root"
    ))
    .with("path", path.to_string())
}

/// Maps an I/O error of a sandboxed operation onto the canonical codes.
fn io_err(path: &str, e: std::io::Error) -> Error {
    let msg = e.to_string();
    if msg.contains("outside of the filesystem") {
        return escape(path, "leads outside the sandbox root");
    }
    match e.raw_os_error() {
        Some(libc::ELOOP) => return escape(path, "is a symlink loop or a refused link"),
        Some(libc::EXDEV) => return escape(path, "leads outside the sandbox root"),
        Some(libc::ENOTDIR) => {
            return Error::invalid(format!("{path:?}: a component is not a directory"))
                .with("path", path.to_string());
        }
        Some(libc::EISDIR) => {
            return Error::invalid(format!("{path:?} is a directory"))
                .with("path", path.to_string());
        }
        _ => {}
    }
    let code = match e.kind() {
        std::io::ErrorKind::NotFound => Code::NotFound,
        std::io::ErrorKind::PermissionDenied => Code::PolicyDenied,
        std::io::ErrorKind::AlreadyExists => Code::Conflict,
        std::io::ErrorKind::InvalidInput => Code::InvalidRequest,
        _ => Code::InternalError,
    };
    Error::new(code, format!("{path:?}: {msg}")).with("path", path.to_string())
}

impl Sandbox {
    /// Opens the roots (the human-chosen directories; opened once, by ambient path).
    pub fn open(roots: &[PathBuf]) -> Result<Sandbox> {
        let mut out = Vec::new();
        for r in roots {
            let d = Dir::open_ambient_dir(r, cap_std::ambient_authority())
                .map_err(|e| Error::io(r, e))?;
            out.push((r.clone(), d));
        }
        Ok(Sandbox {
            roots: out,
            allow_protected: false,
        })
    }

    /// Lets writes reach protected paths (a human granted [`DOTFILES_CAP`]).
    pub fn allow_dotfiles(mut self, yes: bool) -> Sandbox {
        self.allow_protected = yes;
        self
    }

    pub fn dotfiles_allowed(&self) -> bool {
        self.allow_protected
    }

    /// The root paths, the working root first.
    pub fn root_paths(&self) -> impl Iterator<Item = &Path> {
        self.roots.iter().map(|(p, _)| p.as_path())
    }

    /// Where an open directory beneath root `root` really is, relative to that root (read
    /// back from `/proc/self/fd`); `None` when that cannot be known.
    pub(crate) fn real_rel(&self, root: &Path, dir: &Dir) -> Option<PathBuf> {
        use std::os::fd::AsRawFd;
        let real = std::fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd())).ok()?;
        let canon_root = std::fs::canonicalize(root).ok()?;
        real.strip_prefix(&canon_root).ok().map(Path::to_path_buf)
    }

    /// Refuses a write to a protected path as written (`.` and `..` folded), unless allowed.
    pub(crate) fn guard_lexical(&self, shown: &str, rel: &Path) -> Result<()> {
        match protected_reason(&lexical_normalize(rel)) {
            Some(why) if !self.allow_protected => Err(protected_refusal(shown, &why)),
            _ => Ok(()),
        }
    }

    /// Refuses a write to a protected path (lexically as written, and where `parent` really
    /// is), unless a human allowed it. `rel` is relative to `root`; `parent` is its open parent.
    pub(crate) fn guard_protected(
        &self,
        shown: &str,
        root: &Path,
        rel: &Path,
        parent: &Dir,
        name: &std::ffi::OsStr,
    ) -> Result<()> {
        if self.allow_protected {
            return Ok(());
        }
        let refuse = |why: String| protected_refusal(shown, &why);
        if let Some(why) = protected_reason(&lexical_normalize(rel)) {
            return Err(refuse(why));
        }
        match self.real_rel(root, parent) {
            Some(real) => {
                if let Some(why) = protected_reason(&real.join(name)) {
                    return Err(refuse(format!(
                        "it really is {}: {why}",
                        real.join(name).display()
                    )));
                }
            }
            None => {
                // No /proc: accept only a parent reached without `..` or symlinks.
                let lex = rel.parent().unwrap_or(Path::new(""));
                if lex.components().any(|c| c == Component::ParentDir) {
                    return Err(refuse("its real location cannot be checked here".into()));
                }
                let (_, dir) = self
                    .roots
                    .iter()
                    .find(|(p, _)| p == root)
                    .ok_or_else(|| Error::internal("unknown root"))?;
                let mut walked = PathBuf::new();
                for c in lex.components() {
                    walked.push(c);
                    if dir
                        .symlink_metadata(&walked)
                        .is_ok_and(|m| m.file_type().is_symlink())
                    {
                        return Err(refuse(format!(
                            "{} is a symlink and its target cannot be checked here",
                            walked.display()
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// The root directory handle and the path relative to it for a tool-supplied path.
    pub fn locate<'a>(&'a self, path: &str) -> Result<(&'a Dir, PathBuf)> {
        self.locate_in(path).map(|(_, d, p)| (d, p))
    }

    /// As [`Sandbox::locate`], with the root's path.
    pub fn locate_in<'a>(&'a self, path: &str) -> Result<(&'a Path, &'a Dir, PathBuf)> {
        if path.contains('\0') {
            return Err(escape(path, "contains a NUL byte"));
        }
        let Some((first_path, first)) = self.roots.first() else {
            return Err(Error::new(Code::SandboxRequired, "no sandbox root"));
        };
        let p = Path::new(path);
        if p.is_absolute() {
            for (root, dir) in &self.roots {
                if let Ok(rest) = p.strip_prefix(root) {
                    if climbs_out(rest) {
                        return Err(escape(path, "climbs out of the root with .."));
                    }
                    return Ok((root.as_path(), dir, dot_if_empty(rest)));
                }
            }
            return Err(escape(
                path,
                "is an absolute path outside every sandbox root",
            ));
        }
        // Lexical check for a clear message; the kernel enforces it regardless.
        if climbs_out(p) {
            return Err(escape(path, "climbs out of the root with .."));
        }
        Ok((first_path.as_path(), first, dot_if_empty(p)))
    }

    pub fn read_text(&self, i: &ReadTextInput) -> Result<Value> {
        if i.path.is_empty() {
            return Err(Error::new(Code::ToolInputInvalid, "path is empty"));
        }
        let (dir, rel) = self.locate(&i.path)?;
        let mut opts = OpenOptions::new();
        opts.read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
        let file = dir.open_with(&rel, &opts).map_err(|e| io_err(&i.path, e))?;
        let meta = file.metadata().map_err(|e| io_err(&i.path, e))?;
        if meta.is_dir() {
            return Err(Error::invalid(format!(
                "{:?} is a directory (use fs.list_dir)",
                i.path
            )));
        }
        if !meta.is_file() {
            return Err(Error::denied(format!("{:?} is not a regular file", i.path)));
        }
        let mut buf = Vec::with_capacity((meta.len().min(i.max_bytes) as usize) + 1);
        file.take(i.max_bytes.saturating_add(1))
            .read_to_end(&mut buf)
            .map_err(|e| io_err(&i.path, e))?;
        let truncated = buf.len() as u64 > i.max_bytes;
        buf.truncate(i.max_bytes as usize);
        let (text, lossy) = match String::from_utf8(buf) {
            Ok(s) => (s, false),
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                if truncated
                    && bytes.len() - valid < 4
                    && std::str::from_utf8(&bytes[valid..]).is_err()
                {
                    // A character cut by the cap: drop the partial bytes.
                    (String::from_utf8_lossy(&bytes[..valid]).into_owned(), false)
                } else {
                    (String::from_utf8_lossy(&bytes).into_owned(), true)
                }
            }
        };
        answer(&TextRead {
            path: &i.path,
            bytes: text.len(),
            text,
            size: meta.len(),
            truncated,
            lossy,
        })
    }

    pub fn list_dir(&self, i: &ListDirInput) -> Result<Value> {
        let (dir, rel) = self.locate(&i.path)?;
        let sub = dir.open_dir(&rel).map_err(|e| io_err(&i.path, e))?;
        let mut entries = Vec::new();
        for e in sub.entries().map_err(|e| io_err(&i.path, e))? {
            let e = e.map_err(|e| io_err(&i.path, e))?;
            let name = e.file_name().to_string_lossy().into_owned();
            let ft = e.file_type().map_err(|e| io_err(&i.path, e))?;
            let kind = if ft.is_symlink() {
                "symlink"
            } else if ft.is_dir() {
                "dir"
            } else if ft.is_file() {
                "file"
            } else {
                "other"
            };
            let size = if ft.is_file() {
                e.metadata().map(|m| m.len()).ok()
            } else {
                None
            };
            entries.push((name, kind, size));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let total = entries.len();
        let truncated = total > i.max_entries;
        let entries: Vec<DirEntry> = entries
            .into_iter()
            .take(i.max_entries)
            .map(|(name, kind, size)| DirEntry { name, kind, size })
            .collect();
        answer(&DirListed {
            path: &i.path,
            entries,
            total,
            truncated,
        })
    }

    pub fn write_text(&self, i: &WriteTextInput) -> Result<Value> {
        let (root, dir, rel) = self.locate_in(&i.path)?;
        let name = match rel.file_name() {
            Some(n)
                if rel
                    .components()
                    .next_back()
                    .is_some_and(|c| matches!(c, Component::Normal(_))) =>
            {
                n.to_owned()
            }
            _ => {
                return Err(Error::new(
                    Code::ToolInputInvalid,
                    format!("{:?} does not name a file", i.path),
                ));
            }
        };
        self.guard_lexical(&i.path, &rel)?;
        let parent_rel = dot_if_empty(rel.parent().unwrap_or(Path::new("")));
        let parent = dir.open_dir(&parent_rel).map_err(|e| io_err(&i.path, e))?;
        self.guard_protected(&i.path, root, &rel, &parent, &name)?;
        let existed = match parent.symlink_metadata(&name) {
            Ok(m) if m.is_dir() => {
                return Err(Error::invalid(format!("{:?} is a directory", i.path)));
            }
            Ok(_) => true,
            Err(_) => false,
        };
        if existed && !i.overwrite {
            return Err(Error::conflict(format!(
                "{:?} exists; pass overwrite=true to replace it",
                i.path
            ))
            .with("path", i.path.clone())
            .retryable(false));
        }
        if i.overwrite {
            // Replace atomically: a temp file beside it, then rename (a symlink at the name is
            // replaced, never followed).
            let tmp = format!(
                ".{}.bob-tmp.{}",
                name.to_string_lossy(),
                uuid::Uuid::new_v4().simple()
            );
            let mut opts = OpenOptions::new();
            opts.write(true).create_new(true);
            let result = (|| {
                let mut f = parent
                    .open_with(&tmp, &opts)
                    .map_err(|e| io_err(&i.path, e))?;
                f.write_all(i.text.as_bytes())
                    .map_err(|e| io_err(&i.path, e))?;
                f.sync_all().map_err(|e| io_err(&i.path, e))?;
                parent
                    .rename(&tmp, &parent, &name)
                    .map_err(|e| io_err(&i.path, e))
            })();
            if result.is_err() {
                let _ = parent.remove_file(&tmp);
            }
            result?;
        } else {
            let mut opts = OpenOptions::new();
            opts.write(true).create_new(true);
            let mut f = parent
                .open_with(&name, &opts)
                .map_err(|e| io_err(&i.path, e))?;
            f.write_all(i.text.as_bytes())
                .map_err(|e| io_err(&i.path, e))?;
            f.sync_all().map_err(|e| io_err(&i.path, e))?;
        }
        answer(&TextWritten {
            path: &i.path,
            bytes: i.text.len(),
            created: !existed,
        })
    }

    /// Opens a directory beneath the root (for a shell working directory).
    pub fn open_dir(&self, path: &str) -> Result<Dir> {
        let (dir, rel) = self.locate(path)?;
        dir.open_dir(&rel).map_err(|e| io_err(path, e))
    }
}

fn dot_if_empty(p: &Path) -> PathBuf {
    if p.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        p.to_path_buf()
    }
}

/// Whether a relative path's `..` components, read left to right, ever climb above its start.
pub(crate) fn climbs_out(p: &Path) -> bool {
    let mut depth: i64 = 0;
    p.components().any(|c| {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
        depth < 0
    })
}
