//! Watches a redactor's source files: each existing file itself (its inode, so a write
//! through a symlink or another hard link is seen too) and the directory that holds it
//! (for files created, replaced or removed there; for a missing directory, its parent).
//! The kernel queues an inotify event during the very call that changes a file, so a watch
//! made before the sources were last compared, whose queue holds no event that may concern
//! a source, proves that none of them has changed since.
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::io::Errno;
use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

pub(super) struct Watch {
    fd: OwnedFd,
    /// (directory's watch descriptor, a name in it that matters).
    names: Vec<(i32, OsString)>,
    /// Watch descriptors of the source files themselves: any event on them matters.
    files: Vec<i32>,
}

impl Watch {
    /// `None` when inotify is not available or a path has neither its directory nor that
    /// directory's parent (the caller then compares the sources every time).
    pub(super) fn new(paths: &[PathBuf]) -> Option<Watch> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
        let changed = WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF;
        let entries = changed
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::ONLYDIR;
        let mut w = Watch {
            fd,
            names: Vec::new(),
            files: Vec::new(),
        };
        for path in paths {
            let (dir, name) = (path.parent()?, path.file_name()?);
            match inotify::add_watch(&w.fd, dir, entries) {
                Ok(wd) => w.names.push((wd, name.to_owned())),
                Err(Errno::NOENT) => {
                    let wd = inotify::add_watch(&w.fd, dir.parent()?, entries).ok()?;
                    w.names.push((wd, dir.file_name()?.to_owned()));
                }
                Err(_) => return None,
            }
            match inotify::add_watch(&w.fd, path, changed) {
                Ok(wd) => w.files.push(wd),
                Err(Errno::NOENT) => {}
                Err(_) => return None,
            }
        }
        Some(w)
    }

    /// Reads every queued event: true when none may concern a source. An event lost or
    /// a watch gone counts as a change.
    pub(super) fn quiet(&mut self) -> bool {
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
        let mut events = inotify::Reader::new(&self.fd, &mut buf);
        let mut quiet = true;
        loop {
            match events.next() {
                Ok(e) => {
                    let named = e.file_name().map(|n| n.to_bytes());
                    let lost = e
                        .events()
                        .intersects(ReadFlags::QUEUE_OVERFLOW | ReadFlags::IGNORED);
                    if lost
                        || self.files.contains(&e.wd())
                        || self.names.iter().any(|(wd, name)| {
                            *wd == e.wd() && named.is_some_and(|n| n == name.as_bytes())
                        })
                    {
                        quiet = false;
                    }
                }
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return quiet,
                Err(_) => return false,
            }
        }
    }
}
