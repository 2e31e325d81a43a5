//! Trace events (the trace-event contract): `{ts, kind, data}` lines in `traces/<session_id>.jsonl`.
//!
//! [`emit`] appends one event through [`store::append_jsonl`] (one locked write + fdatasync).
//! [`scan`] is the fast reader behind `bob trace query`: it reads the log in large blocks,
//! finds candidate lines for a kind filter with a `memchr::memmem` search for the quoted kind
//! (`"llm_req"`) so non-matching lines are never JSON-parsed, confirms each candidate with a
//! cheap parse of `ts` and `kind` (a kind that only appears inside `data` is rejected there),
//! applies the time filters, and writes the matching lines' original bytes. Kinds are
//! `[a-z0-9_.]+`, which JSON never escapes, so the literal search cannot miss a match.
//!
//! Damaged lines are reported, never silently dropped and never parsed as events: a last line
//! with no newline is `torn`; a line that is not a JSON object with a numeric `ts` and a string
//! `kind` is `malformed`. With a kind filter, a line is fully checked only when it could match;
//! every other line still gets a cheap shape check (`{` … `}`), so a sealed torn line or other
//! garbage is reported by every scan. `bob trace stats` parses every line.

use crate::clock;
use crate::contracts::TraceEvent;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::store::{self, BadLine};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Longest accepted kind.
pub const MAX_KIND_LEN: usize = 64;

/// Checks that `kind` is 1–64 chars of `[a-z0-9_.]`.
pub fn check_kind(kind: &str) -> Result<()> {
    let ok = !kind.is_empty()
        && kind.len() <= MAX_KIND_LEN
        && kind
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "trace kind must be 1-{MAX_KIND_LEN} characters of [a-z0-9_.] (got {kind:?})"
        ))
        .with("field", "kind"))
    }
}

/// Builds an event stamped with `clock::now()`, checking kind and data (`data` must be a JSON
/// object; `null` becomes `{}`).
pub fn event(kind: &str, data: Value) -> Result<TraceEvent> {
    check_kind(kind)?;
    let data = match data {
        Value::Null => Value::Object(Default::default()),
        v @ Value::Object(_) => v,
        other => {
            return Err(Error::invalid(format!(
                "trace data must be a JSON object (got {})",
                crate::error::json_kind(&other)
            ))
            .with("field", "data"));
        }
    };
    Ok(TraceEvent {
        ts: clock::unix_f64(clock::now()?),
        kind: kind.to_string(),
        data,
    })
}

/// Builds an event from a typed payload (its kind is the payload's), stamped as [`event`] does.
pub fn typed<T: crate::contracts::TraceData>(data: &T) -> Result<TraceEvent> {
    let v = serde_json::to_value(data).map_err(|e| Error::internal(e.to_string()))?;
    event(T::KIND, v)
}

/// Appends one event `{ts, kind, data}` to the session's trace; returns it as written.
pub fn emit(home: &Home, session_id: &str, kind: &str, data: Value) -> Result<TraceEvent> {
    let ev = event(kind, data)?;
    append(home, session_id, &ev)?;
    Ok(ev)
}

/// Appends an already-built event (one locked write + fdatasync).
pub fn append(home: &Home, session_id: &str, ev: &TraceEvent) -> Result<()> {
    check_kind(&ev.kind)?;
    crate::ids::check_in_home(home, crate::ids::Kind::Id, "session_id", session_id)?;
    store::append_jsonl(&home.trace_path(session_id)?, ev)
}

/// The trace files under the home, sorted by name.
pub fn all_trace_files(home: &Home) -> Result<Vec<PathBuf>> {
    let dir = home.root().join("traces");
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

/// Which events a scan keeps. Empty `kinds` means every kind; `since` is inclusive, `until`
/// exclusive (unix seconds).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub kinds: Vec<String>,
    pub since: Option<f64>,
    pub until: Option<f64>,
    pub limit: Option<u64>,
}

impl Filter {
    fn keeps(&self, head: &Head) -> bool {
        (self.kinds.is_empty() || self.kinds.iter().any(|k| *k == head.kind))
            && self.since.is_none_or(|s| head.ts >= s)
            && self.until.is_none_or(|u| head.ts < u)
    }
}

/// Why a scan stopped early.
#[derive(Debug)]
pub enum ScanError {
    /// Reading the log failed.
    Read(Error),
    /// Writing the matches failed (a broken pipe is the caller's to treat as success).
    Write(std::io::Error),
}

impl From<Error> for ScanError {
    fn from(e: Error) -> Self {
        ScanError::Read(e)
    }
}

/// What a scan saw.
#[derive(Debug, Clone, Default)]
pub struct ScanSummary {
    pub matched: u64,
    /// True when the limit was reached.
    pub limited: bool,
}

/// The two fields a filter needs; `data` is skipped without building values.
#[derive(Deserialize)]
struct Head<'a> {
    ts: f64,
    #[serde(borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default)]
    #[allow(dead_code)]
    data: Option<IgnoredAny>,
}

fn parse_head(line: &[u8]) -> std::result::Result<Head<'_>, String> {
    serde_json::from_slice::<Head>(line).map_err(|e| {
        // Distinguish "not JSON" from "JSON but not an event".
        match serde_json::from_slice::<IgnoredAny>(line) {
            Ok(_) => format!("not a trace event: {e}"),
            Err(e2) => e2.to_string(),
        }
    })
}

/// Reads a log in large blocks; `buf[start..end]` holds unconsumed bytes.
struct Blocks<R> {
    reader: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
}

const BLOCK: usize = 8 << 20;

impl<R: Read> Blocks<R> {
    fn new(reader: R) -> Self {
        Blocks {
            reader,
            buf: vec![0; BLOCK],
            start: 0,
            end: 0,
            eof: false,
        }
    }

    /// Moves the unconsumed bytes to the front and reads until they hold a newline or the file
    /// ends. Returns false when nothing is left.
    fn fill(&mut self, path: &Path) -> Result<bool> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let mut searched = 0;
        loop {
            if memchr::memchr(b'\n', &self.buf[searched..self.end]).is_some() {
                return Ok(true);
            }
            searched = self.end;
            if self.eof {
                return Ok(self.end > 0);
            }
            if self.end == self.buf.len() {
                let grow = self.buf.len();
                self.buf.resize(self.buf.len() + grow, 0);
            }
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(path, e)),
            }
        }
    }
}

fn bad(line: usize, kind: &'static str, reason: impl Into<String>) -> BadLine {
    BadLine {
        line,
        kind,
        reason: reason.into(),
    }
}

/// Scans one trace log, writing each kept line's original bytes (plus `\n`) to `out` and
/// calling `on_bad` for every damaged line it finds. A missing file scans as empty.
pub fn scan<W: Write>(
    path: &Path,
    filter: &Filter,
    out: &mut W,
    on_bad: &mut dyn FnMut(&Path, &BadLine),
) -> std::result::Result<ScanSummary, ScanError> {
    let mut summary = ScanSummary::default();
    if filter.limit == Some(0) {
        return Ok(summary);
    }
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(summary),
        Err(e) => return Err(ScanError::Read(Error::io(path, e))),
    };
    let needles: Vec<Vec<u8>> = filter
        .kinds
        .iter()
        .map(|k| format!("\"{k}\"").into_bytes())
        .collect();
    let finders: Vec<memchr::memmem::Finder> =
        needles.iter().map(memchr::memmem::Finder::new).collect();
    let mut blocks = Blocks::new(file);
    let mut lineno = 0usize;
    while blocks.fill(path)? {
        let window = &blocks.buf[..blocks.end];
        let Some(last_nl) = memchr::memrchr(b'\n', window) else {
            // The file ended inside a line: a torn last record.
            on_bad(path, &bad(lineno + 1, "torn", TORN_REASON));
            break;
        };
        let whole_end = last_nl + 1;
        let mut pos = 0;
        let mut next_hit = next_candidate(&finders, window, 0, whole_end);
        while pos < whole_end {
            let nl = memchr::memchr(b'\n', &window[pos..whole_end]).map_or(whole_end, |i| pos + i);
            let line = &window[pos..nl];
            pos = nl + 1;
            lineno += 1;
            if !finders.is_empty() && next_hit > nl {
                // Not a candidate: only check that it looks like one JSON object.
                let t = line.trim_ascii();
                if !t.is_empty() && (t[0] != b'{' || t[t.len() - 1] != b'}') {
                    on_bad(path, &bad(lineno, "malformed", "not a JSON object"));
                }
                continue;
            }
            if next_hit <= nl {
                next_hit = next_candidate(&finders, window, pos, whole_end);
            }
            if line.trim_ascii().is_empty() {
                continue;
            }
            match parse_head(line) {
                Ok(head) if filter.keeps(&head) => {
                    out.write_all(line).map_err(ScanError::Write)?;
                    out.write_all(b"\n").map_err(ScanError::Write)?;
                    summary.matched += 1;
                    if filter.limit.is_some_and(|l| summary.matched >= l) {
                        summary.limited = true;
                        return Ok(summary);
                    }
                }
                Ok(_) => {}
                Err(reason) => on_bad(path, &bad(lineno, "malformed", reason)),
            }
        }
        blocks.start = whole_end;
    }
    Ok(summary)
}

const TORN_REASON: &str = "last line has no newline (interrupted write)";

fn next_candidate(
    finders: &[memchr::memmem::Finder],
    window: &[u8],
    from: usize,
    to: usize,
) -> usize {
    finders
        .iter()
        .filter_map(|f| f.find(&window[from..to]).map(|i| from + i))
        .min()
        .unwrap_or(usize::MAX)
}

/// Per-log statistics for `bob trace stats`.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Stats {
    pub path: String,
    pub events: u64,
    pub by_kind: BTreeMap<String, u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ts: Option<f64>,
    pub bad_lines: u64,
    pub torn: bool,
    /// The LLM calls (`llm_done` events with `ok: true`), when there were any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmStats>,
}

/// Usage and cost of the LLM calls of one log (from the `llm_done` events).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LlmStats {
    pub calls: u64,
    /// Tokens summed over the calls that reported usage.
    pub usage: crate::contracts::Usage,
    /// Calls whose reply had no usage (their tokens are unknown, not counted as 0).
    pub calls_without_usage: u64,
    /// Cost summed over the priced calls; `null` when no call was priced.
    pub cost: Option<f64>,
    /// Calls with no cost (usage unknown, or model not in the `[prices]` table).
    pub calls_without_cost: u64,
}

impl LlmStats {
    /// Counts one `llm_done` event's data.
    fn add(&mut self, data: &serde_json::Value) {
        if data.get("ok").and_then(serde_json::Value::as_bool) != Some(true) {
            return;
        }
        self.calls += 1;
        match data
            .get("usage")
            .filter(|u| u.is_object())
            .and_then(|u| serde_json::from_value::<crate::contracts::Usage>(u.clone()).ok())
        {
            Some(u) => self.usage.add(&u),
            None => self.calls_without_usage += 1,
        }
        match data.get("cost").and_then(serde_json::Value::as_f64) {
            Some(c) => self.cost = Some(self.cost.unwrap_or(0.0) + c),
            None => self.calls_without_cost += 1,
        }
    }
}

/// Counts events by kind, first and last `ts` (file order) and damaged lines of one log,
/// parsing every line. `on_bad` gets each damaged line.
pub fn stats(path: &Path, on_bad: &mut dyn FnMut(&Path, &BadLine)) -> Result<Stats> {
    let mut st = Stats {
        path: path.display().to_string(),
        ..Default::default()
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(st),
        Err(e) => return Err(Error::io(path, e)),
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    let mut n = 0usize;
    loop {
        line.clear();
        let got = std::io::BufRead::read_until(&mut reader, b'\n', &mut line)
            .map_err(|e| Error::io(path, e))?;
        if got == 0 {
            break;
        }
        n += 1;
        if line.last() != Some(&b'\n') {
            st.bad_lines += 1;
            st.torn = true;
            on_bad(
                path,
                &BadLine {
                    line: n,
                    kind: "torn",
                    reason: "last line has no newline (interrupted write)".into(),
                },
            );
            break;
        }
        let body = &line[..line.len() - 1];
        if body.trim_ascii().is_empty() {
            continue;
        }
        match parse_head(body) {
            Ok(h) => {
                st.events += 1;
                if h.kind == "llm_done"
                    && let Ok(ev) = serde_json::from_slice::<serde_json::Value>(body)
                {
                    st.llm
                        .get_or_insert_with(LlmStats::default)
                        .add(&ev["data"]);
                }
                *st.by_kind.entry(h.kind.into_owned()).or_default() += 1;
                st.first_ts.get_or_insert(h.ts);
                st.last_ts = Some(h.ts);
            }
            Err(reason) => {
                st.bad_lines += 1;
                on_bad(
                    path,
                    &BadLine {
                        line: n,
                        kind: "malformed",
                        reason,
                    },
                );
            }
        }
    }
    Ok(st)
}

/// The last `n` whole lines of a log (without newlines) and the byte offset just past the last
/// whole line, where following starts. A torn tail is not returned (it is reported by `scan`).
pub fn last_lines(path: &Path, n: usize) -> Result<(Vec<Vec<u8>>, u64)> {
    use std::io::{Seek, SeekFrom};
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(Error::io(path, e)),
    };
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut window: u64 = 64 * 1024;
    loop {
        let from = len.saturating_sub(window);
        file.seek(SeekFrom::Start(from))
            .map_err(|e| Error::io(path, e))?;
        let mut buf = Vec::with_capacity((len - from) as usize);
        (&mut file)
            .take(len - from)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(path, e))?;
        // Cut a torn tail.
        let whole = memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1);
        let end_abs = from + whole as u64;
        let body = &buf[..whole];
        let mut lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
        lines.pop(); // after the final newline
        // When not at the start of the file the first piece may be partial.
        let complete = if from == 0 {
            &lines[..]
        } else {
            lines.get(1..).unwrap_or(&[])
        };
        if complete.len() >= n || from == 0 {
            let skip = complete.len().saturating_sub(n);
            return Ok((
                complete[skip..].iter().map(|l| l.to_vec()).collect(),
                end_abs,
            ));
        }
        window = window.saturating_mul(4);
    }
}

/// Follows a log as it grows (`tail -f`): each [`Follower::poll`] returns the whole lines
/// appended since the last one; a torn last line waits for its newline.
pub struct Follower {
    path: std::path::PathBuf,
    offset: u64,
    pending: Vec<u8>,
}

/// What one poll of a followed log found.
#[derive(Default)]
pub struct Followed {
    /// The new whole lines, without their newlines.
    pub lines: Vec<Vec<u8>>,
    /// The log got shorter than what was read (replaced or truncated, never done by bob):
    /// following started over from its beginning.
    pub shrank: bool,
}

impl Follower {
    /// Follows `path` from byte `offset` (where [`last_lines`] stopped).
    pub fn new(path: &Path, offset: u64) -> Self {
        Self {
            path: path.to_path_buf(),
            offset,
            pending: Vec::new(),
        }
    }

    /// The whole lines appended since the last poll (none while the log does not exist).
    pub fn poll(&mut self) -> Result<Followed> {
        use std::io::{Seek, SeekFrom};
        let mut found = Followed::default();
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return Ok(found);
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len < self.offset {
            found.shrank = true;
            self.offset = 0;
            self.pending.clear();
        }
        if len > self.offset {
            let path = &self.path;
            f.seek(SeekFrom::Start(self.offset))
                .map_err(|e| Error::io(path, e))?;
            let mut buf = Vec::new();
            (&mut f)
                .take(len - self.offset)
                .read_to_end(&mut buf)
                .map_err(|e| Error::io(path, e))?;
            self.offset += buf.len() as u64;
            self.pending.extend_from_slice(&buf);
            if let Some(last) = memchr::memrchr(b'\n', &self.pending) {
                let whole: Vec<u8> = self.pending.drain(..=last).collect();
                found.lines = whole[..whole.len() - 1]
                    .split(|&b| b == b'\n')
                    .map(<[u8]>::to_vec)
                    .collect();
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follower_returns_whole_lines_as_they_land_and_starts_over_when_the_log_shrinks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut f = Follower::new(&path, 0);
        assert!(f.poll().unwrap().lines.is_empty(), "no log yet: nothing");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\"").unwrap();
        let got = f.poll().unwrap();
        assert_eq!(
            got.lines,
            vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]
        );
        assert!(!got.shrank);
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        log.write_all(b":3}\n").unwrap();
        assert_eq!(
            f.poll().unwrap().lines,
            vec![b"{\"c\":3}".to_vec()],
            "the torn line waited"
        );
        std::fs::write(&path, "{\"d\":4}\n").unwrap();
        let got = f.poll().unwrap();
        assert!(got.shrank);
        assert_eq!(got.lines, vec![b"{\"d\":4}".to_vec()]);
    }

    #[test]
    fn a_typed_payload_writes_the_bytes_of_its_free_form_twin() {
        let err = crate::error::Error::invalid("bad block");
        let typed = typed(&crate::contracts::NotesPatchRejected {
            error: err.clone(),
            run_id: None,
        })
        .unwrap();
        let free = event("notes_patch", serde_json::json!({ "error": err })).unwrap();
        assert_eq!(typed.kind, "notes_patch");
        assert_eq!(
            serde_json::to_string(&typed.data).unwrap(),
            serde_json::to_string(&free.data).unwrap()
        );
    }

    fn run(bytes: &[u8], filter: &Filter) -> (String, Vec<(usize, &'static str)>) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, bytes).unwrap();
        let mut out = Vec::new();
        let mut bad = Vec::new();
        scan(&p, filter, &mut out, &mut |_, b| bad.push((b.line, b.kind)))
            .unwrap_or_else(|_| panic!());
        (String::from_utf8(out).unwrap(), bad)
    }

    fn kinds(k: &[&str]) -> Filter {
        Filter {
            kinds: k.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    const LOG: &str = r#"{"ts":1.0,"kind":"llm_req","data":{}}
{"ts":2.0,"kind":"tool_start","data":{"note":"llm_req"}}
garbage
{"ts":3.0,"kind":"llm_req","data":{"n":3}}
{"ts":4.0,"kind":"x","data":{"llm_req":"llm_req"}}
{"kind":"llm_req"}
{"ts":5.0,"kind":"llm_req","data":{}}
{"ts":6.0,"kind":"llm_r"#;

    #[test]
    fn kind_filter_confirms_candidates_and_reports_damage() {
        let (out, bad) = run(LOG.as_bytes(), &kinds(&["llm_req"]));
        let ts: Vec<&str> = out.lines().map(|l| &l[6..9]).collect();
        assert_eq!(ts, vec!["1.0", "3.0", "5.0"]);
        assert_eq!(bad, vec![(3, "malformed"), (6, "malformed"), (8, "torn")]);
    }

    #[test]
    fn time_filters_and_limit() {
        let f = Filter {
            since: Some(2.0),
            until: Some(5.0),
            ..Default::default()
        };
        let (out, _) = run(LOG.as_bytes(), &f);
        assert_eq!(out.lines().count(), 3); // ts 2, 3, 4
        let f = Filter {
            limit: Some(2),
            ..kinds(&["llm_req"])
        };
        let (out, _) = run(LOG.as_bytes(), &f);
        assert_eq!(out.lines().count(), 2);
    }

    #[test]
    fn several_kinds_and_line_numbers_across_blocks() {
        let mut big = String::new();
        for i in 0..200_000 {
            big.push_str(&format!(
                "{{\"ts\":{i}.0,\"kind\":\"{}\",\"data\":{{\"pad\":\"{}\"}}}}\n",
                if i % 1000 == 0 {
                    "tool_done"
                } else {
                    "llm_stream"
                },
                "p".repeat(40)
            ));
        }
        big.push_str("oops\n");
        let (out, bad) = run(big.as_bytes(), &kinds(&["tool_done", "nope"]));
        assert_eq!(out.lines().count(), 200);
        assert_eq!(bad, vec![(200_001, "malformed")]);
    }

    #[test]
    fn lines_longer_than_a_block_are_read_whole() {
        let pad = "z".repeat(BLOCK + 1234);
        let mut log = String::new();
        for i in 0..3 {
            let kind = if i == 1 { "big" } else { "other" };
            log.push_str(&format!(
                "{{\"ts\":{i}.0,\"kind\":\"{kind}\",\"data\":{{\"pad\":\"{pad}\"}}}}\n"
            ));
        }
        log.push_str("{\"ts\":9.0,\"kind\":\"big\",\"data\":{\"pad\":\"");
        log.push_str(&pad);
        let (out, bad) = run(log.as_bytes(), &kinds(&["big"]));
        assert_eq!(out.lines().count(), 1);
        assert!(out.starts_with("{\"ts\":1.0,\"kind\":\"big\""));
        assert_eq!(bad, vec![(4, "torn")]);
    }

    #[test]
    fn kinds_are_checked() {
        assert!(check_kind("llm_req").is_ok());
        assert!(check_kind("run.completed").is_ok());
        for bad in ["", "LLM", "a b", "a\"b", &"k".repeat(65)] {
            assert!(check_kind(bad).is_err(), "{bad}");
        }
        assert!(event("x", serde_json::json!([1])).is_err());
        assert_eq!(event("x", Value::Null).unwrap().data, serde_json::json!({}));
    }

    #[test]
    fn last_lines_skips_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, LOG).unwrap();
        let (lines, end) = last_lines(&p, 2).unwrap();
        assert_eq!(lines.len(), 2);
        assert!(lines[1].starts_with(b"{\"ts\":5.0"));
        assert_eq!(end as usize, LOG.rfind('\n').unwrap() + 1);
        let (all, _) = last_lines(&p, 100).unwrap();
        assert_eq!(all.len(), 7);
    }
}
