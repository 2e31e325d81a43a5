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

use super::registry::{ListDirInput, ReadTextInput, WriteTextInput};
use crate::error::{Code, Error, Result};
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// Open handles on the sandbox roots.
#[derive(Debug)]
pub struct Sandbox {
    roots: Vec<(PathBuf, Dir)>,
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
        Ok(Sandbox { roots: out })
    }

    /// The root directory handle and the path relative to it for a tool-supplied path.
    pub fn locate<'a>(&'a self, path: &str) -> Result<(&'a Dir, PathBuf)> {
        if path.contains('\0') {
            return Err(escape(path, "contains a NUL byte"));
        }
        let Some((_, first)) = self.roots.first() else {
            return Err(Error::new(Code::SandboxRequired, "no sandbox root"));
        };
        let p = Path::new(path);
        if p.is_absolute() {
            for (root, dir) in &self.roots {
                if let Ok(rest) = p.strip_prefix(root) {
                    return Ok((dir, dot_if_empty(rest)));
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
        Ok((first, dot_if_empty(p)))
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
        let mut out = json!({
            "path": i.path,
            "text": text,
            "bytes": text.len(),
            "size": meta.len(),
            "truncated": truncated,
        });
        if lossy {
            out["lossy"] = Value::Bool(true);
        }
        Ok(out)
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
        let shown: Vec<Value> = entries
            .into_iter()
            .take(i.max_entries)
            .map(|(name, kind, size)| {
                let mut v = json!({"name": name, "type": kind});
                if let Some(s) = size {
                    v["size"] = Value::from(s);
                }
                v
            })
            .collect();
        Ok(json!({"path": i.path, "entries": shown, "total": total, "truncated": truncated}))
    }

    pub fn write_text(&self, i: &WriteTextInput) -> Result<Value> {
        let (dir, rel) = self.locate(&i.path)?;
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
        let parent_rel = dot_if_empty(rel.parent().unwrap_or(Path::new("")));
        let parent = dir.open_dir(&parent_rel).map_err(|e| io_err(&i.path, e))?;
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
        Ok(json!({"path": i.path, "bytes": i.text.len(), "created": !existed}))
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
