//! Markdown and JSONL import, JSONL export, the tag index (`index.json`: tags → ids, and each
//! record's metadata), and JSON I/O memory_schema md→json conversion.
//!
//! A markdown file becomes one record: `title` from front matter `title:`, else the first `#`
//! heading, else the file name; `summary` the first paragraph (≤200 chars); `facts` the bullet
//! items; `tags` from front matter `tags:` (`[a, b]` or `a, b`) plus inline `#tags`;
//! `token_est` ≈ chars/4; `source` `imported`. The id is the stable content id of
//! [`super::ltm::record_id`].
//!
//! A JSON Lines file holds one memory record per line (JSON I/O's memory JSON record, or a
//! `bob memory export` line). A record's id is kept when it is a UUID in its hyphenated form
//! (JSON I/O writes uuid4 ids, and `[mem:<id>]` citations elsewhere name them); any other id
//! is replaced by the content id, so a record edited outside bob gets a new id.
//!
//! Which files are JSON Lines ([`detect_format`]): `.jsonl` / `.ndjson` by name; any other
//! file when its first non-blank line is a whole JSON object (markdown never starts with
//! one); everything else is markdown. A directory is walked for `*.md`, `*.markdown`,
//! `*.jsonl` and `*.ndjson` files, each detected on its own.
//!
//! [`Memory::import_path`] reads the source once, record by record (a JSON Lines file line by
//! line), masks secrets in each record as candidates are masked, and stores the batch as one
//! admin import (see [`Memory::import_stream`]). What one import reads, every file together,
//! is capped ([`DEFAULT_IMPORT_MAX_BYTES`] unless the caller says otherwise): a bigger source
//! is `invalid.request` naming the cap, and nothing is written. Progress is reported in
//! records. [`Memory::export_to`] and [`Memory::export_file`] write the stored records as
//! JSON Lines; a file is replaced atomically and readable by its owner only.

use super::Memory;
use super::candidates::ImportReport;
use super::ltm::{self, record_id};
use crate::contracts::{MemoryIndex, MemoryIndexEntry, MemoryRecord};
use crate::error::{Error, Result};
use crate::redact::Redactor;
use serde_json::{Value, json};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

/// What one import reads at most, every file together, unless the caller sets another cap
/// (the `memory.import_max_bytes` setting): 256 MiB.
pub const DEFAULT_IMPORT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// One import: where from, how to read it, for whom, and the cap on what is read.
#[derive(Debug, Clone)]
pub struct ImportRequest<'a> {
    /// A file, or a directory walked for markdown and JSON Lines files.
    pub path: &'a Path,
    /// Read every file as this format instead of detecting it.
    pub format: Option<SourceFormat>,
    /// The memory user (or profile name) of records that name none.
    pub user: &'a str,
    /// Who is recorded on the ledger.
    pub actor: &'a str,
    /// At most this many bytes are read, every file together.
    pub max_bytes: u64,
}

fn front_matter(md: &str) -> (Vec<(String, String)>, &str) {
    let Some(rest) = md
        .strip_prefix("---\n")
        .or_else(|| md.strip_prefix("---\r\n"))
    else {
        return (Vec::new(), md);
    };
    let Some(end) = rest.find("\n---") else {
        return (Vec::new(), md);
    };
    let fm = &rest[..end];
    let after = &rest[end + 4..];
    let body = after.split_once('\n').map_or("", |(_, b)| b);
    let pairs = fm
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    (pairs, body)
}

fn split_list(v: &str) -> Vec<String> {
    v.trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|s| s.trim().trim_matches(['"', '\'', '#']).to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Inline `#tag` words (not headings, not inside words).
fn hashtags(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in md.lines() {
        let t = line.trim_start();
        if t.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || t.starts_with('#') && t.trim_start_matches('#').starts_with(' ') {
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '#' && (i == 0 || chars[i - 1].is_whitespace()) {
                let tag: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/'))
                    .collect();
                if !tag.is_empty() && tag.chars().any(char::is_alphabetic) {
                    i += tag.chars().count();
                    out.push(tag.to_lowercase());
                }
            }
            i += 1;
        }
    }
    out
}

/// Converts one markdown document into a record for `user`.
pub fn record_from_markdown(
    md: &str,
    file_stem: &str,
    user: &str,
    created_at: &str,
) -> MemoryRecord {
    let (fm, body) = front_matter(md);
    let get = |k: &str| fm.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    let title = get("title")
        .filter(|t| !t.is_empty())
        .or_else(|| {
            body.lines()
                .map(str::trim)
                .find(|l| {
                    l.starts_with("# ")
                        || (l.starts_with('#') && l.trim_start_matches('#').starts_with(' '))
                })
                .map(|l| l.trim_start_matches('#').trim().to_string())
        })
        .unwrap_or_else(|| file_stem.to_string());
    let mut tags = get("tags").map(|v| split_list(&v)).unwrap_or_default();
    for t in hashtags(body) {
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    tags.truncate(32);
    let kind = get("type").unwrap_or_else(|| "fact".into());
    let importance = get("importance")
        .and_then(|v| v.parse::<u8>().ok())
        .filter(|i| (1..=10).contains(i));
    let ttl_days = get("ttl_days").and_then(|v| v.parse::<u32>().ok());
    let body_md = body.trim().to_string();
    let title = ltm::truncate_chars(title.trim(), 120);
    MemoryRecord {
        id: record_id(user, &title, &body_md, &tags, &kind),
        title,
        created_at: created_at.to_string(),
        tags,
        summary: ltm::summarize(&body_md),
        facts: ltm::facts(&body_md),
        token_est: ltm::token_est(&body_md),
        body_md,
        source: "imported".into(),
        ttl_days,
        kind,
        importance,
        user: Some(user.to_string()),
        metadata: json!({"imported_from": file_stem}),
    }
}

/// What an import source file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceFormat {
    /// One markdown document, one record.
    Markdown,
    /// One memory record per line.
    JsonLines,
}

/// Whether `path` holds JSON Lines or markdown: by extension (`.jsonl`, `.ndjson`), else by
/// content (the first non-blank line is a whole JSON object).
pub fn detect_format(path: &Path) -> Result<SourceFormat> {
    let ext = path
        .extension()
        .map(|x| x.to_string_lossy().to_ascii_lowercase());
    if matches!(ext.as_deref(), Some("jsonl" | "ndjson")) {
        return Ok(SourceFormat::JsonLines);
    }
    use std::io::BufRead;
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // The first non-blank line, read up to 1 MiB (a longer first line is not a record).
    let mut reader = std::io::BufReader::new(std::io::Read::take(f, 1 << 20));
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(SourceFormat::Markdown);
        }
        if !line.trim_ascii().is_empty() {
            break;
        }
    }
    let first = line.trim_ascii();
    let object = first.first() == Some(&b'{')
        && serde_json::from_slice::<serde_json::Map<String, Value>>(first).is_ok();
    Ok(if object {
        SourceFormat::JsonLines
    } else {
        SourceFormat::Markdown
    })
}

/// The files an import of `path` reads, with their format: `path` itself, or every
/// markdown and JSON Lines file under a directory (sorted). `force` overrides detection (which
/// reads the start of a file not named `*.jsonl` / `*.ndjson`: give a stream such a name, or
/// `force`).
pub fn import_files(
    path: &Path,
    force: Option<SourceFormat>,
) -> Result<Vec<(PathBuf, SourceFormat)>> {
    // Anything but a directory is read as one file: a named pipe or /dev/stdin too (read
    // once, so a stream works).
    let files = if std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .is_dir()
    {
        walk(path, &["md", "markdown", "jsonl", "ndjson"])?
    } else {
        vec![path.to_path_buf()]
    };
    files
        .into_iter()
        .map(|f| {
            let format = match force {
                Some(f) => f,
                None => detect_format(&f)?,
            };
            Ok((f, format))
        })
        .collect()
}

/// Regular files under `root` (symlinks are not followed) whose extension is one of `exts`
/// (case-insensitive), sorted.
fn walk(root: &Path, exts: &[&str]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))? {
            let p = e.map_err(|e| Error::io(&dir, e))?.path();
            let ft = std::fs::symlink_metadata(&p).map_err(|e| Error::io(&p, e))?;
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file()
                && p.extension()
                    .is_some_and(|x| exts.iter().any(|e| x.eq_ignore_ascii_case(e)))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Whether `id` is a UUID in its hyphenated form (JSON I/O's `uuid4` ids): such ids are kept.
pub fn is_seed_id(id: &str) -> bool {
    id.len() == 36 && uuid::Uuid::try_parse(id).is_ok()
}

/// Normalizes a record read from an export for `user`-less lines: fills `user`; keeps a seed
/// 004 UUID id ([`is_seed_id`]) or a legacy `mem_` content id that matches the content
/// ([`ltm::legacy_record_id`], so an old export re-imports under the ids it was cited by), and
/// otherwise recomputes the id from the content (a stored id that does not match its content
/// is replaced).
pub fn normalize_record(mut r: MemoryRecord, default_user: &str) -> Result<MemoryRecord> {
    let user = r.user.clone().unwrap_or_else(|| default_user.to_string());
    crate::ids::check_user("user", &user)?;
    if r.title.trim().is_empty() {
        return Err(Error::invalid(format!("record {}: empty title", r.id)));
    }
    if !is_seed_id(&r.id)
        && r.id != ltm::legacy_record_id(&user, &r.title, &r.body_md, &r.tags, &r.kind)
    {
        r.id = record_id(&user, &r.title, &r.body_md, &r.tags, &r.kind);
    }
    r.user = Some(user);
    crate::clock::parse_rfc3339(&r.created_at)?;
    if r.metadata.is_null() {
        r.metadata = Value::Null;
    }
    Ok(r)
}

/// `r` with secrets masked (as candidates are masked), normalized for `user` (see
/// [`normalize_record`]): a content id follows the masked content.
pub fn masked_record(redactor: &Redactor, r: MemoryRecord, user: &str) -> Result<MemoryRecord> {
    // Fast path: one scan over all the text; the per-field walk only when it finds something.
    let mut meta = r.metadata.clone();
    if redactor.redact_value(&mut meta, "").is_empty() {
        let mut all = String::with_capacity(r.body_md.len() + 512);
        for s in [
            &r.title,
            &r.summary,
            &r.body_md,
            &r.source,
            &r.kind,
            &r.created_at,
        ]
        .into_iter()
        .chain(&r.tags)
        .chain(&r.facts)
        {
            all.push_str(s);
            all.push('\n');
        }
        if matches!(redactor.redact_str(&all), std::borrow::Cow::Borrowed(_)) {
            return normalize_record(r, user);
        }
    }
    let mut v = serde_json::to_value(&r).map_err(|e| Error::internal(e.to_string()))?;
    redactor.redact_value(&mut v, "");
    let red: MemoryRecord =
        serde_json::from_value(v).map_err(|e| Error::internal(e.to_string()))?;
    normalize_record(red, user)
}

fn over_cap(path: &Path, max_bytes: u64) -> Error {
    Error::invalid(format!(
        "{} holds more than the import cap of {max_bytes} bytes (memory.import_max_bytes, \
         BOB_MEMORY_IMPORT_MAX_BYTES); nothing was imported",
        path.display()
    ))
    .with("limit_bytes", max_bytes)
    .with("path", path.display().to_string())
}

/// Reads `files` once, in order, and calls `each` with every record (masked and normalized
/// for `user`), reading at most `max_bytes` in all (`req_path` is named when more is there).
#[allow(clippy::too_many_arguments)] // the one reader of an import: each argument is a part of it
fn read_records(
    files: &[(PathBuf, SourceFormat)],
    req_path: &Path,
    max_bytes: u64,
    user: &str,
    now: &str,
    redactor: &Redactor,
    each: &mut dyn FnMut(MemoryRecord) -> Result<()>,
) -> Result<()> {
    let mut left = max_bytes;
    for (f, format) in files {
        let file = std::fs::File::open(f).map_err(|e| Error::io(f, e))?;
        // One byte past what is left tells an over-size source from one that just fits.
        let limited = file.take(left.saturating_add(1));
        if *format == SourceFormat::JsonLines {
            let mut reader = std::io::BufReader::with_capacity(1 << 20, limited);
            let mut line = String::new();
            let mut i = 0usize;
            loop {
                line.clear();
                let n = reader
                    .read_line(&mut line)
                    .map_err(|e| Error::invalid(format!("{} line {}: {e}", f.display(), i + 1)))?;
                if n == 0 {
                    break;
                }
                left = left
                    .checked_sub(n as u64)
                    .ok_or_else(|| over_cap(req_path, max_bytes))?;
                i += 1;
                if line.trim().is_empty() {
                    continue;
                }
                let r: MemoryRecord = serde_json::from_str(&line).map_err(|e| {
                    Error::bad_json(&format!("{} line {i}", f.display()), &e).with("line", i)
                })?;
                each(masked_record(redactor, r, user)?)?;
            }
        } else {
            let mut bytes = Vec::new();
            let mut limited = limited;
            limited
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io(f, e))?;
            left = left
                .checked_sub(bytes.len() as u64)
                .ok_or_else(|| over_cap(req_path, max_bytes))?;
            let text = String::from_utf8(bytes)
                .map_err(|e| Error::invalid(format!("{}: input is not UTF-8: {e}", f.display())))?;
            let stem = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            each(masked_record(
                redactor,
                record_from_markdown(&text, &stem, user, now),
                user,
            )?)?;
        }
    }
    Ok(())
}

impl Memory {
    /// Imports the markdown and JSON Lines records at `req.path` as one admin batch (one
    /// ledger record, then one transaction; see [`Memory::import_stream`]), reading the source
    /// once. A source over `req.max_bytes` is `invalid.request` and nothing is written.
    /// `progress` is called with the records read so far and, when it is known, their total
    /// (known up front only when every file is markdown, one record each; the last call always
    /// has it).
    pub fn import_path(
        &self,
        req: &ImportRequest,
        progress: &mut dyn FnMut(usize, Option<usize>),
    ) -> Result<ImportReport> {
        let user = self.resolve_user(req.user)?;
        let files = import_files(req.path, req.format)?;
        let mut size = 0u64;
        for (f, _) in &files {
            size = size.saturating_add(std::fs::metadata(f).map_err(|e| Error::io(f, e))?.len());
        }
        if size > req.max_bytes {
            return Err(over_cap(req.path, req.max_bytes));
        }
        let now = crate::clock::rfc3339(self.now()?);
        let redactor = self.redactor()?;
        let total = files
            .iter()
            .all(|(_, f)| *f == SourceFormat::Markdown)
            .then_some(files.len());
        let source_path = req.path.display().to_string();
        let report = self.import_stream(req.actor, &user, &source_path, &mut |each| {
            let mut done = 0;
            read_records(
                &files,
                req.path,
                req.max_bytes,
                &user,
                &now,
                redactor,
                &mut |r| {
                    each(r)?;
                    done += 1;
                    progress(done, total);
                    Ok(())
                },
            )
        })?;
        progress(report.count, Some(report.count));
        Ok(report)
    }

    /// Writes every stored long-term record (see [`Memory::export_each`]) to `out` as JSON
    /// Lines; returns how many. A failed write is `failed(error)`.
    pub fn export_to(
        &self,
        user: Option<&str>,
        out: &mut dyn Write,
        failed: &dyn Fn(std::io::Error) -> Error,
    ) -> Result<usize> {
        self.export_each(user, |s| {
            out.write_all(s.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
                .map_err(failed)
        })
    }

    /// [`Memory::export_to`] into `path`, replaced atomically (nothing is left half-written)
    /// and readable by its owner only: the records are the user's memory.
    pub fn export_file(&self, user: Option<&str>, path: &Path) -> Result<usize> {
        let mut n = 0;
        crate::store::write_private_atomic(path, |out| {
            n = self.export_each(user, |s| {
                out.write_all(s.as_bytes())
                    .and_then(|()| out.write_all(b"\n"))
                    .map_err(|e| Error::io(path, e))
            })?;
            Ok(())
        })?;
        Ok(n)
    }

    /// Calls `each` with every stored long-term record (including expired ones not yet
    /// collected), in insertion order; `user` limits it to one store.
    pub fn export_each(
        &self,
        user: Option<&str>,
        mut each: impl FnMut(&str) -> Result<()>,
    ) -> Result<usize> {
        let user = user.map(|u| self.resolve_user(u)).transpose()?;
        if let Some(shared) = self.shared_ltm() {
            return shared.each(user.as_deref(), &mut each);
        }
        let mut stmt = self
            .conn
            .prepare("SELECT record FROM ltm WHERE (?1 IS NULL OR user = ?1) ORDER BY rid")?;
        let mut rows = stmt.query([user])?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            let s: String = r.get(0)?;
            each(&s)?;
            n += 1;
        }
        Ok(n)
    }

    /// The tag index of the stored long-term records (`user`: one store's), built from what
    /// [`Memory::export_each`] writes, so the index and the export always agree.
    pub fn export_index(&self, user: Option<&str>) -> Result<MemoryIndex> {
        let mut ix = MemoryIndex::default();
        self.export_each(user, |line| {
            let r: MemoryRecord =
                serde_json::from_str(line).map_err(|e| Error::internal(format!("ltm row: {e}")))?;
            for t in &r.tags {
                let ids = ix.tags.entry(t.clone()).or_default();
                if !ids.contains(&r.id) {
                    ids.push(r.id.clone());
                }
            }
            ix.records += 1;
            ix.memories.insert(
                r.id,
                MemoryIndexEntry {
                    title: r.title,
                    created_at: r.created_at,
                    tags: r.tags,
                    summary: r.summary,
                    source: r.source,
                    kind: r.kind,
                    token_est: r.token_est,
                    ttl_days: r.ttl_days,
                    importance: r.importance,
                    user: r.user,
                },
            );
            Ok(())
        })?;
        Ok(ix)
    }

    /// Long-term records, newest first, hiding expired ones.
    pub fn ltm_list(&self, user: Option<&str>, limit: usize) -> Result<Vec<MemoryRecord>> {
        let user = user.map(|u| self.resolve_user(u)).transpose()?;
        if let Some(shared) = self.shared_ltm() {
            return shared.list(user.as_deref(), limit);
        }
        // Two statements rather than `(?1 IS NULL OR user = ?1)`, which would keep SQLite from
        // walking an index in date order: (user, created_unix) for one user, created_unix for all.
        let mut stmt = self.conn.prepare(if user.is_some() {
            "SELECT record FROM ltm WHERE user = ?1 \
             AND (expires_unix IS NULL OR expires_unix > ?2) ORDER BY created_unix DESC, rid DESC LIMIT ?3"
        } else {
            "SELECT record FROM ltm WHERE ?1 IS NULL \
             AND (expires_unix IS NULL OR expires_unix > ?2) ORDER BY created_unix DESC, rid DESC LIMIT ?3"
        })?;
        let rows = stmt.query_map(
            rusqlite::params![user, self.now_unix(), limit.min(i64::MAX as usize) as i64],
            |r| r.get::<_, String>(0),
        )?;
        rows.map(|r| {
            serde_json::from_str(&r?).map_err(|e| Error::internal(format!("ltm row: {e}")))
        })
        .collect()
    }
}
