//! `bom.normalize` (the JSON I/O contracts): bill-of-materials text into `{rows: [{part, quantity, notes?,
//! source}], count}`, deterministically and without inventing parts: every row comes from one
//! line or one table row of the input.
//!
//! What is recognised:
//! * HTML tables (`<table>`, parsed with `dom_query` after [`super::html::flatten`]; each
//!   table is read on its own rows and cells, a nested table's text not repeated in the cell
//!   around it, so nested tables cost their size, not its cube), markdown tables (`| … |` with a
//!   separator row) and CSV with a header row: the part column is the first header named like
//!   part/item/component/name/description (else the first column), the quantity column
//!   qty/quantity/count/amount/pcs/#, the notes column notes/note/spec/specs/comment.
//! * Lines, after stripping a bullet (`-`, `*`, `+`, `•`) or a number (`1.`, `1)`): notes after
//!   the first ` - `, ` – ` or `: ` (`ESC - 30A`), then one quantity form: `4x Part`,
//!   `4 x Part`, `Part x4`, `2 pcs Part`, `Part 2 pcs`, `(4) Part`, `Part (4)`; none means 1.
//!   Blank lines, markdown headings, lines ending in `:` and section titles (`Printable BOM`,
//!   `Parts list`) are skipped, and so is prose (a part of 16 words or more, or of 4 or more
//!   ending a sentence), so the text around a list on a fetched page adds no parts.
//!
//! [`render`] writes rows back as lines in the first form (`4x Part - notes`); normalizing that
//! text gives the same rows (the property test below). Input is capped at [`MAX_BYTES`] (HTML
//! at [`MAX_HTML_BYTES`]); rows are not capped: the text is read as a stream, and a BOM of
//! more than [`INLINE_ROWS`] rows is written row by row to a JSONL file ([`run`]), so memory is
//! the input plus [`INLINE_ROWS`] rows (about 2 MB) whatever the number of lines.

use crate::error::{Code, Error, Result};
use crate::tools::deadline::Deadline;
use crate::tools::spec::{Kind, ToolSpec, answer};
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

/// The `bom.normalize` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "bom.normalize",
    description: "Parse bill-of-materials text ({content, source}: lines like '4x Motor Mounts', 'ESC - 30A', markdown/CSV/HTML tables) into {rows: [{part, quantity, notes?, source}], count}; never invents parts.",
    kind: Kind::Data,
    mutating: false,
    schema: || schemars::schema_for!(NormalizeInput),
};

/// Largest BOM text (the tool input's own cap is 64 MiB of JSON).
pub const MAX_BYTES: usize = 64 * 1024 * 1024;
/// Largest HTML document read for tables (an HTML table needs its whole document).
pub const MAX_HTML_BYTES: usize = 8 * 1024 * 1024;
/// Rows returned inline; a longer BOM streams every row to a JSONL file (see [`run`]).
pub const INLINE_ROWS: usize = 10_000;

/// `bom.normalize` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NormalizeInput {
    /// BOM text: lines, a markdown/CSV/HTML table.
    pub content: String,
    /// Where the text came from (copied into every row).
    #[serde(default)]
    pub source: String,
}

/// One normalized BOM row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub part: String,
    pub quantity: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    pub source: String,
}

static LEAD_X: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d{1,6})\s*[xX×]\s+(\S.*)$").unwrap());
static TRAIL_X: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S.*?)\s+[xX×]\s*(\d{1,6})$").unwrap());
static LEAD_PCS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(\d{1,6})\s*(?:pcs|pc|pieces|piece|units|unit|ea)\.?\s+(?:of\s+)?(\S.*)$")
        .unwrap()
});
static TRAIL_PCS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(\S.*?)[\s,]+(\d{1,6})\s*(?:pcs|pc|pieces|piece|units|unit|ea)\.?$").unwrap()
});
static LEAD_PAREN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\((\d{1,6})\)\s*(\S.*)$").unwrap());
static TRAIL_PAREN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S.*?)\s*\((\d{1,6})\)$").unwrap());
static BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[-*+•·]\s+|\d{1,4}[.)]\s+)").unwrap());

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Splits `text` at its first notes separator: (head, notes).
fn split_notes(text: &str) -> (String, String) {
    match [" - ", " – ", ": "]
        .iter()
        .filter_map(|sep| text.find(sep).map(|i| (i, sep.len())))
        .min()
    {
        Some((i, n)) => (text[..i].trim().to_string(), squash(&text[i + n..])),
        None => (text.to_string(), String::new()),
    }
}

/// A part name without separator or bullet characters at its ends (so that a rendered row
/// `4x Part - notes` splits where it was joined).
fn clean_part(p: &str) -> String {
    squash(p.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, '-' | '–' | ':' | '*' | '+' | '•' | '·')
    }))
}

/// A sentence, not a part: 16 words or more, or 4 or more ending a sentence.
fn is_prose(part: &str, notes: &str) -> bool {
    let words = part.split_whitespace().count();
    let last = if notes.is_empty() { part } else { notes };
    words >= 16 || (words >= 4 && last.ends_with(['.', '!', '?']))
}

/// Whether a parsed (part, quantity, notes) is a row: not prose, not a section title, not
/// ending in `:`. Lines and table rows share it, so rendered rows read back the same.
fn keep(part: &str, quantity: u32, notes: &str) -> bool {
    !part.is_empty()
        && !notes.ends_with(':')
        && !is_prose(part, notes)
        && !is_section_title(part, quantity, notes)
}

const SECTION_WORDS: &[&str] = &[
    "printable",
    "printed",
    "bom",
    "bill",
    "of",
    "materials",
    "material",
    "parts",
    "part",
    "list",
    "components",
    "electronics",
    "hardware",
    "required",
    "tools",
    "the",
    "and",
];

/// A section title such as `Printable BOM` or `Parts list` (no quantity, no notes).
fn is_section_title(part: &str, quantity: u32, notes: &str) -> bool {
    quantity == 1
        && notes.is_empty()
        && part
            .split_whitespace()
            .all(|w| SECTION_WORDS.contains(&w.to_lowercase().as_str()))
}

/// Parses one line into a row (`None` for a line that names no part).
pub fn parse_line(line: &str, source: &str) -> Option<Row> {
    let line = squash(line);
    if line.is_empty() || line.starts_with('#') || line.ends_with(':') {
        return None;
    }
    let line = BULLET.replace(&line, "").trim().to_string();
    let (head, notes) = split_notes(&line);
    let forms: [(&Regex, usize, usize); 6] = [
        (&LEAD_X, 1, 2),
        (&TRAIL_X, 2, 1),
        (&LEAD_PCS, 1, 2),
        (&TRAIL_PCS, 2, 1),
        (&LEAD_PAREN, 1, 2),
        (&TRAIL_PAREN, 2, 1),
    ];
    let (mut quantity, mut part) = (1u32, head.clone());
    for (re, q, p) in forms {
        if let Some(c) = re.captures(&head) {
            quantity = c[q].parse().unwrap_or(1);
            part = c[p].trim().to_string();
            break;
        }
    }
    let part = clean_part(&part);
    if !keep(&part, quantity, &notes) {
        return None;
    }
    Some(Row {
        part,
        quantity,
        notes: (!notes.is_empty()).then_some(notes),
        source: source.to_string(),
    })
}

/// Rows as lines `4x Part - notes` (what [`normalize`] reads back into the same rows).
pub fn render(rows: &[Row]) -> String {
    rows.iter()
        .map(|r| match &r.notes {
            Some(n) => format!("{}x {} - {}\n", r.quantity, r.part, n),
            None => format!("{}x {}\n", r.quantity, r.part),
        })
        .collect()
}

#[derive(Default)]
struct Columns {
    part: usize,
    qty: Option<usize>,
    notes: Option<usize>,
}

fn columns(header: &[String]) -> Option<Columns> {
    let find = |names: &[&str]| {
        header.iter().position(|h| {
            let h = h.trim().to_lowercase();
            names
                .iter()
                .any(|n| h == *n || h.starts_with(&format!("{n} ")))
        })
    };
    let part = find(&[
        "part",
        "parts",
        "item",
        "component",
        "name",
        "description",
        "product",
    ]);
    let qty = find(&[
        "qty", "qty.", "quantity", "count", "amount", "pcs", "#", "no.",
    ]);
    let notes = find(&[
        "notes", "note", "spec", "specs", "comment", "comments", "details",
    ]);
    if part.is_none() && qty.is_none() {
        return None;
    }
    Some(Columns {
        part: part.unwrap_or(0),
        qty,
        notes,
    })
}

fn table_rows(header: &[String], body: &[Vec<String>], source: &str) -> Vec<Row> {
    let c = columns(header).unwrap_or_default();
    body.iter()
        .filter_map(|cells| table_row(&c, cells, source))
        .collect()
}

/// One table row as a BOM row (`None` when it names no part).
fn table_row(c: &Columns, cells: &[String], source: &str) -> Option<Row> {
    // A part cell is read like a line's head: `ESC - 30A` is part ESC, notes 30A.
    let (head, cell_notes) = split_notes(&squash(cells.get(c.part)?));
    let part = clean_part(&head);
    if part.is_empty() {
        return None;
    }
    let quantity = c
        .qty
        .and_then(|i| cells.get(i))
        .and_then(|q| {
            q.trim()
                .trim_end_matches(|ch: char| !ch.is_ascii_digit())
                .trim_start_matches(|ch: char| !ch.is_ascii_digit())
                .parse()
                .ok()
        })
        .unwrap_or(1);
    let notes = c
        .notes
        .and_then(|i| cells.get(i))
        .map(|n| squash(n))
        .filter(|n| !n.is_empty());
    let notes = match (cell_notes.is_empty(), notes) {
        (true, n) => n,
        (false, None) => Some(cell_notes),
        (false, Some(n)) => Some(format!("{cell_notes}; {n}")),
    };
    if !keep(&part, quantity, notes.as_deref().unwrap_or("")) {
        return None;
    }
    Some(Row {
        part,
        quantity,
        notes,
        source: source.to_string(),
    })
}

/// The rows of a table: its `<tr>` children and those of its own `<thead>`, `<tbody>` and
/// `<tfoot>` (a nested table's rows are its own).
fn own_rows<'a>(table: &dom_query::NodeRef<'a>) -> Vec<dom_query::NodeRef<'a>> {
    let mut rows = Vec::new();
    for c in table.element_children() {
        if c.has_name("tr") {
            rows.push(c);
        } else if c.has_name("thead") || c.has_name("tbody") || c.has_name("tfoot") {
            rows.extend(
                c.element_children()
                    .into_iter()
                    .filter(|r| r.has_name("tr")),
            );
        }
    }
    rows
}

/// A cell's text without the text of tables nested in it (those are read as tables of
/// their own), so every piece of text is read once: linear however deep tables nest.
fn cell_text(cell: &dom_query::NodeRef<'_>) -> String {
    let mut text = String::new();
    let mut todo: Vec<dom_query::NodeRef<'_>> = cell.children_it(true).collect();
    while let Some(n) = todo.pop() {
        if n.is_text() {
            text.push_str(&n.text());
        } else if n.is_element() && !n.has_name("table") {
            todo.extend(n.children_it(true));
        }
    }
    text
}

/// Rows of the HTML tables of `content` (parsed by [`super::html::parse`], so nesting is
/// capped), each table on its own rows and cells; `stop` is asked between rows.
fn html_rows(content: &str, source: &str, stop: &dyn Fn() -> Result<()>) -> Result<Vec<Row>> {
    let doc = super::html::parse_until(content, stop)?;
    let mut rows = Vec::new();
    for table in doc.select("table").nodes() {
        let mut trs: Vec<Vec<String>> = Vec::new();
        for tr in own_rows(table) {
            stop()?;
            let cells: Vec<String> = tr
                .element_children()
                .iter()
                .filter(|c| c.has_name("td") || c.has_name("th"))
                .map(cell_text)
                .collect();
            if !cells.is_empty() {
                trs.push(cells);
            }
        }
        if let Some((header, body)) = trs.split_first() {
            if columns(header).is_some() {
                rows.extend(table_rows(header, body, source));
            } else {
                rows.extend(table_rows(&[], &trs, source));
            }
        }
    }
    Ok(rows)
}

fn md_cells(line: &str) -> Vec<String> {
    let t = line.trim().trim_start_matches('|').trim_end_matches('|');
    t.split('|').map(|c| c.trim().to_string()).collect()
}

fn is_md_sep(line: &str) -> bool {
    let t = line.trim();
    t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Streams the rows of a CSV BOM (a header row naming a quantity column) to `emit`;
/// `Ok(false)` when `content` is not such a CSV (nothing was emitted).
fn csv_each(
    content: &str,
    source: &str,
    emit: &mut dyn FnMut(Row) -> Result<()>,
    stop: &dyn Fn() -> Result<()>,
) -> Result<bool> {
    let Some(first) = content.lines().find(|l| !l.trim().is_empty()) else {
        return Ok(false);
    };
    if !first.contains(',') {
        return Ok(false);
    }
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(content.as_bytes());
    let mut rec = csv::StringRecord::new();
    let header: Vec<String> = match rdr.read_record(&mut rec) {
        Ok(true) => rec.iter().map(str::to_string).collect(),
        _ => return Ok(false),
    };
    let Some(c) = columns(&header).filter(|c| c.qty.is_some()) else {
        return Ok(false);
    };
    let mut cells = Vec::new();
    for n in 0u64.. {
        if n.is_multiple_of(STOP_EVERY) {
            stop()?;
        }
        match rdr.read_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(_) => continue,
        }
        cells.clear();
        cells.extend(rec.iter().map(str::to_string));
        if let Some(r) = table_row(&c, &cells, source) {
            emit(r)?;
        }
    }
    Ok(true)
}

/// Lines (or records) read between two calls of a caller's `stop`.
const STOP_EVERY: u64 = 4096;

/// Streams the rows of BOM text to `emit`, in input order (module docs): lines, markdown
/// tables and CSV are read one line/record at a time, so memory beyond the input is one row;
/// an HTML table needs its document, so HTML is capped at [`MAX_HTML_BYTES`]. `stop` is asked
/// every few thousand lines and between table rows; its error ends the reading.
pub fn normalize_each(
    content: &str,
    source: &str,
    emit: &mut dyn FnMut(Row) -> Result<()>,
    stop: &dyn Fn() -> Result<()>,
) -> Result<()> {
    if content.len() > MAX_BYTES {
        return Err(Error::new(
            Code::ToolInputInvalid,
            format!("bom.normalize: content is larger than {MAX_BYTES} bytes"),
        ));
    }
    let lower_has_table = content
        .as_bytes()
        .windows(6)
        .any(|w| w.eq_ignore_ascii_case(b"<table"));
    if lower_has_table {
        if content.len() > MAX_HTML_BYTES {
            return Err(Error::new(
                Code::ToolInputInvalid,
                format!("bom.normalize: an HTML BOM is limited to {MAX_HTML_BYTES} bytes"),
            ));
        }
        return html_rows(content, source, stop)?
            .into_iter()
            .try_for_each(emit);
    }
    if csv_each(content, source, emit, stop)? {
        return Ok(());
    }
    let mut lines = content.lines().peekable();
    let mut n = 0u64;
    while let Some(raw) = lines.next() {
        n += 1;
        if n.is_multiple_of(STOP_EVERY) {
            stop()?;
        }
        let l = raw.trim();
        if l.starts_with('|') && lines.peek().is_some_and(|n| is_md_sep(n)) {
            let c = columns(&md_cells(l)).unwrap_or_default();
            lines.next();
            while let Some(cell_line) = lines.next_if(|n| n.trim().starts_with('|')) {
                if let Some(r) = table_row(&c, &md_cells(cell_line), source) {
                    emit(r)?;
                }
            }
            continue;
        }
        if let Some(r) = parse_line(l, source) {
            emit(r)?;
        }
    }
    Ok(())
}

/// Normalizes BOM text into rows (module docs).
pub fn normalize(content: &str, source: &str) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    normalize_each(
        content,
        source,
        &mut |r| {
            rows.push(r);
            Ok(())
        },
        &|| Ok(()),
    )?;
    Ok(rows)
}

/// The tool: `{rows, count}`. Up to [`INLINE_ROWS`] rows come inline; a larger BOM is
/// streamed: every row goes, as it is parsed, to `cache/bom/<sha256>.jsonl` (one row a line,
/// written atomically), and the answer carries the first [`INLINE_ROWS`] rows, `rows_path`
/// and `rows_inline` (row files are pruned by [`SPILL_KEEP_DAYS`] and [`SPILL_KEEP_COUNT`]). Memory stays the input plus [`INLINE_ROWS`] rows, however long the BOM.
///
/// The call stops at `deadline` (checked between lines and table rows, and before the row
/// file is committed): `timeout`, with no row file left behind.
pub fn run(home: &crate::home::Home, i: &NormalizeInput, deadline: Deadline) -> Result<Value> {
    let mut inline: Vec<Row> = Vec::new();
    let mut spill: Option<crate::store::AtomicJsonl> = None;
    let mut count: u64 = 0;
    let key = {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(i.source.as_bytes());
        h.update([0u8]);
        h.update(i.content.as_bytes());
        hex::encode(h.finalize())
    };
    let path = home.cache_dir().join("bom").join(format!("{key}.jsonl"));
    let stop = || deadline.check();
    normalize_each(
        &i.content,
        &i.source,
        &mut |r| {
            count += 1;
            if let Some(w) = spill.as_mut() {
                return w.push(&crate::store::jsonl_line(&r)?);
            }
            if inline.len() < INLINE_ROWS {
                inline.push(r);
                return Ok(());
            }
            deadline.check()?;
            prune_spills(path.parent().unwrap_or(&path), std::time::SystemTime::now())?;
            let mut w = crate::store::AtomicJsonl::create(&path)?;
            for x in &inline {
                w.push(&crate::store::jsonl_line(x)?)?;
            }
            w.push(&crate::store::jsonl_line(&r)?)?;
            spill = Some(w);
            Ok(())
        },
        &stop,
    )?;
    deadline.check()?;
    match spill {
        None => answer(&Rows {
            count,
            rows: inline,
            rows_inline: None,
            rows_path: None,
        }),
        Some(w) => {
            w.commit()?;
            answer(&Rows {
                count,
                rows: inline,
                rows_inline: Some(INLINE_ROWS),
                rows_path: Some(path.display().to_string()),
            })
        }
    }
}

/// `bom.query`'s answer: the matching rows, inline up to [`INLINE_ROWS`]; beyond that the
/// rest are in a JSON Lines file under `cache/bom/` (`rows_path`).
#[derive(Serialize)]
struct Rows {
    count: u64,
    rows: Vec<Row>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows_inline: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows_path: Option<String>,
}

/// Row files under `cache/bom/` are kept [`SPILL_KEEP_DAYS`] days (by modification time), and
/// at most [`SPILL_KEEP_COUNT`] of them (the newest): a `rows_path` is a cache to read soon
/// after the answer, not an archive. Only `<sha256>.jsonl` files are touched.
pub const SPILL_KEEP_DAYS: u64 = 7;
/// See [`SPILL_KEEP_DAYS`].
pub const SPILL_KEEP_COUNT: usize = 100;

/// Applies the row files' retention in `dir` before another is written. File ages are
/// modification times, which the kernel stamps from the system clock, so `now` is the system
/// clock too (not a pinned `BOB_NOW`).
fn prune_spills(dir: &std::path::Path, now: std::time::SystemTime) -> Result<()> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(crate::error::Error::io(dir, e)),
    };
    let mut spills: Vec<(std::time::SystemTime, std::path::PathBuf)> = rd
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name().to_str().is_some_and(|n| {
                n.strip_suffix(".jsonl")
                    .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            })
        })
        .filter_map(|e| {
            let meta = std::fs::symlink_metadata(e.path()).ok()?;
            let t = meta.modified().ok()?;
            meta.is_file().then(|| (t, e.path()))
        })
        .collect();
    spills.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let cutoff = now - std::time::Duration::from_secs(SPILL_KEEP_DAYS * 86_400);
    // One slot is left for the file about to be written.
    for (i, (when, path)) in spills.iter().enumerate() {
        if i + 1 < SPILL_KEEP_COUNT && *when >= cutoff {
            continue;
        }
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(crate::error::Error::io(path, e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn one(l: &str) -> (String, u32, Option<String>) {
        let r = parse_line(l, "s").unwrap();
        (r.part, r.quantity, r.notes)
    }

    #[test]
    fn the_seed_forms() {
        assert_eq!(one("Frame"), ("Frame".into(), 1, None));
        assert_eq!(one("4x Motor Mounts"), ("Motor Mounts".into(), 4, None));
        assert_eq!(one("Motor Mounts x4"), ("Motor Mounts".into(), 4, None));
        assert_eq!(one("2 pcs Propellers"), ("Propellers".into(), 2, None));
        assert_eq!(one("Propellers 2 pcs"), ("Propellers".into(), 2, None));
        assert_eq!(one("(4) Motors"), ("Motors".into(), 4, None));
        assert_eq!(one("Motors (4)"), ("Motors".into(), 4, None));
        assert_eq!(one("ESC - 30A"), ("ESC".into(), 1, Some("30A".into())));
        assert_eq!(
            one("- 4 x ESC - 30A BLHeli"),
            ("ESC".into(), 4, Some("30A BLHeli".into()))
        );
        assert_eq!(one("3. M3 screws x12"), ("M3 screws".into(), 12, None));
        assert_eq!(one("18650 Battery"), ("18650 Battery".into(), 1, None));
        assert!(parse_line("Electronics:", "s").is_none());
        assert!(parse_line("## Parts", "s").is_none());
        assert!(parse_line("Printable BOM", "s").is_none());
        assert!(parse_line("Print the frame in PETG with four walls.", "s").is_none());
        assert_eq!(one("2x Parts"), ("Parts".into(), 2, None));
    }

    #[test]
    fn tables() {
        let md =
            "| Part | Qty | Notes |\n|---|---:|---|\n| Frame | 1 | 3\" |\n| Motor | 4 | 1404 |\n";
        let r = normalize(md, "u").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[1].part.as_str(), r[1].quantity), ("Motor", 4));
        assert_eq!(r[1].notes.as_deref(), Some("1404"));
        let csv = "Item,Quantity,Comment\n\"Frame, carbon\",1,\nMotor,4,\"1404, 4500KV\"\n";
        let r = normalize(csv, "u").unwrap();
        assert_eq!(r[0].part, "Frame, carbon");
        assert_eq!(r[1].notes.as_deref(), Some("1404, 4500KV"));
        let html = "<nav>Home</nav><table><tr><th>Qty</th><th>Component</th></tr><tr><td>4</td><td>Motor <b>1404</b></td></tr><tr><td>2 pcs</td><td>Props</td></tr></table>";
        let r = normalize(html, "u").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].part.as_str(), r[0].quantity), ("Motor 1404", 4));
        assert_eq!(r[1].quantity, 2);
    }

    proptest! {
        #[test]
        fn normalizing_is_idempotent_on_its_own_output(
            lines in proptest::collection::vec(
                proptest::string::string_regex(r"[-*•(|]?[ 0-9a-zA-Z().:×x–,|-]{0,24}").unwrap(), 0..12),
            csv in any::<bool>()
        ) {
            let mut text = lines.join("\n");
            if csv {
                text = format!("part,qty,notes\n{text}");
            }
            let once = normalize(&text, "src").unwrap();
            let twice = normalize(&render(&once), "src").unwrap();
            prop_assert_eq!(once, twice);
        }
    }
}
