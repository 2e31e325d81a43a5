//! `docs.write_spreadsheet` (the JSON I/O contracts): rows of JSON objects into a `csv`, `ods` or `xlsx`
//! file inside the sandbox root (JSON I/O's `REPOS_BASE`).
//!
//! * `repo` is a directory beneath the root (relative, or absolute inside it), opened through
//!   the same `cap-std` sandbox as `fs.write_text`, so `..`, symlinks out and absolute paths
//!   elsewhere fail; `filename` is one plain file name (no `/`, `\`, `..`, leading dot or
//!   control characters) whose extension, if any, matches the format.
//! * The file appears whole: the bytes go to a temporary file beside it (fsynced), which is then
//!   hard-linked to the name (fails if it exists: `conflict`) or, with `overwrite: true`,
//!   renamed over it.
//! * Columns are the union of the rows' keys in order of first appearance. Numbers stay
//!   numbers; text that a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`,
//!   or any control character: tab, CR, LF, NUL…) gets a leading `'` in every format, and xlsx/ods cells are always
//!   typed string or float, never formula.
//! * `csv` is written by the `csv` crate (RFC 4180 quoting), `xlsx` by `rust_xlsxwriter`, `ods`
//!   as an OpenDocument package (`mimetype` stored first, `META-INF/manifest.xml`,
//!   `content.xml`) zipped by the `zip` crate.

use super::super::fs::Sandbox;
use crate::error::{Code, Error, Result};
use crate::tools::spec::{Kind, ToolSpec, answer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::io::Write;

/// The `docs.write_spreadsheet` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "docs.write_spreadsheet",
    description: "Write rows ({repo, rows, filename, format: csv|ods|xlsx}) as a spreadsheet inside the sandbox root, atomically, never over an existing file unless overwrite=true; formulas neutralised.",
    kind: Kind::Fs,
    mutating: true,
    schema: || schemars::schema_for!(SpreadsheetInput),
};

pub const MAX_ROWS: usize = 100_000;
pub const MAX_COLUMNS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Csv,
    Ods,
    Xlsx,
}

impl Format {
    pub fn ext(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Ods => "ods",
            Format::Xlsx => "xlsx",
        }
    }
}

/// `docs.write_spreadsheet` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpreadsheetInput {
    /// Directory beneath the sandbox root (default: the root).
    #[serde(default = "d_dot")]
    pub repo: String,
    /// Objects, one per row.
    pub rows: Vec<Map<String, Value>>,
    /// A plain file name (the extension is added when missing).
    pub filename: String,
    #[serde(default = "d_csv")]
    pub format: Format,
    /// Replace an existing file (otherwise `conflict`).
    #[serde(default)]
    pub overwrite: bool,
}

fn d_dot() -> String {
    ".".into()
}
fn d_csv() -> Format {
    Format::Csv
}

/// One cell: a number or (neutralised) text.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Num(f64),
    Text(String),
    Empty,
}

/// Text a spreadsheet would evaluate gets a leading `'`: text starting with a formula sign
/// (`=`, `+`, `-`, `@`) or with any control character (tab, CR, LF, NUL and the rest of
/// C0, and DEL), which spreadsheet programs skip before they look for one.
pub fn neutralise(s: &str) -> String {
    match s.chars().next() {
        Some('=' | '+' | '-' | '@') => format!("'{s}"),
        Some(c) if c.is_ascii_control() => format!("'{s}"),
        _ => s.to_string(),
    }
}

fn cell(v: Option<&Value>) -> Cell {
    match v {
        None | Some(Value::Null) => Cell::Empty,
        Some(Value::Number(n)) => n.as_f64().map_or(Cell::Empty, Cell::Num),
        Some(Value::String(s)) => Cell::Text(neutralise(s)),
        Some(Value::Bool(b)) => Cell::Text(b.to_string()),
        Some(other) => Cell::Text(neutralise(&other.to_string())),
    }
}

/// The table: columns and cells.
pub fn table(rows: &[Map<String, Value>]) -> Result<(Vec<String>, Vec<Vec<Cell>>)> {
    if rows.len() > MAX_ROWS {
        return Err(Error::new(
            Code::ToolInputInvalid,
            format!("docs.write_spreadsheet: more than {MAX_ROWS} rows"),
        ));
    }
    let mut cols: Vec<String> = Vec::new();
    for r in rows {
        for k in r.keys() {
            if !cols.iter().any(|c| c == k) {
                cols.push(k.clone());
                if cols.len() > MAX_COLUMNS {
                    return Err(Error::new(
                        Code::ToolInputInvalid,
                        format!("docs.write_spreadsheet: more than {MAX_COLUMNS} columns"),
                    ));
                }
            }
        }
    }
    let cells = rows
        .iter()
        .map(|r| cols.iter().map(|c| cell(r.get(c))).collect())
        .collect();
    Ok((cols, cells))
}

fn num_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

pub fn csv_bytes(cols: &[String], cells: &[Vec<Cell>]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let e = |e: csv::Error| Error::internal(format!("csv: {e}"));
    w.write_record(cols.iter().map(|c| neutralise(c)))
        .map_err(e)?;
    for row in cells {
        w.write_record(row.iter().map(|c| match c {
            Cell::Num(n) => num_text(*n),
            Cell::Text(t) => t.clone(),
            Cell::Empty => String::new(),
        }))
        .map_err(e)?;
    }
    w.into_inner()
        .map_err(|e| Error::internal(format!("csv: {e}")))
}

pub fn xlsx_bytes(cols: &[String], cells: &[Vec<Cell>]) -> Result<Vec<u8>> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    let e = |e: rust_xlsxwriter::XlsxError| Error::internal(format!("xlsx: {e}"));
    let bold = rust_xlsxwriter::Format::new().set_bold();
    for (j, c) in cols.iter().enumerate() {
        sheet
            .write_string_with_format(0, j as u16, neutralise(c), &bold)
            .map_err(e)?;
    }
    for (i, row) in cells.iter().enumerate() {
        for (j, c) in row.iter().enumerate() {
            let (r, col) = (i as u32 + 1, j as u16);
            match c {
                Cell::Num(n) => {
                    sheet.write_number(r, col, *n).map_err(e)?;
                }
                Cell::Text(t) => {
                    sheet.write_string(r, col, t).map_err(e)?;
                }
                Cell::Empty => {}
            }
        }
    }
    book.save_to_buffer().map_err(e)
}

fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // XML 1.0 forbids most control characters.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

fn ods_cell(c: &Cell) -> String {
    match c {
        Cell::Num(n) => format!(
            "<table:table-cell office:value-type=\"float\" office:value=\"{n}\"><text:p>{}</text:p></table:table-cell>",
            num_text(*n)
        ),
        Cell::Text(t) => format!(
            "<table:table-cell office:value-type=\"string\"><text:p>{}</text:p></table:table-cell>",
            xml_escape(t)
        ),
        Cell::Empty => "<table:table-cell/>".into(),
    }
}

pub fn ods_bytes(cols: &[String], cells: &[Vec<Cell>]) -> Result<Vec<u8>> {
    let mut content = String::from(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" ",
        "xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" ",
        "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">",
        "<office:body><office:spreadsheet><table:table table:name=\"Sheet1\">"
    ));
    content.push_str(&format!(
        "<table:table-column table:number-columns-repeated=\"{}\"/>",
        cols.len().max(1)
    ));
    content.push_str("<table:table-row>");
    for c in cols {
        content.push_str(&ods_cell(&Cell::Text(neutralise(c))));
    }
    content.push_str("</table:table-row>");
    for row in cells {
        content.push_str("<table:table-row>");
        for c in row {
            content.push_str(&ods_cell(c));
        }
        content.push_str("</table:table-row>");
    }
    content.push_str("</table:table></office:spreadsheet></office:body></office:document-content>");
    let manifest = concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.2\">",
        "<manifest:file-entry manifest:full-path=\"/\" manifest:version=\"1.2\" manifest:media-type=\"application/vnd.oasis.opendocument.spreadsheet\"/>",
        "<manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/>",
        "</manifest:manifest>"
    );
    let e = |e: zip::result::ZipError| Error::internal(format!("ods: {e}"));
    let io = |e: std::io::Error| Error::internal(format!("ods: {e}"));
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    z.start_file("mimetype", stored).map_err(e)?;
    z.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .map_err(io)?;
    z.start_file("META-INF/manifest.xml", deflated).map_err(e)?;
    z.write_all(manifest.as_bytes()).map_err(io)?;
    z.start_file("content.xml", deflated).map_err(e)?;
    z.write_all(content.as_bytes()).map_err(io)?;
    Ok(z.finish().map_err(e)?.into_inner())
}

/// A plain file name with the format's extension.
pub fn file_name(name: &str, format: Format) -> Result<String> {
    let bad = |why: &str| {
        Err(Error::new(
            Code::ToolInputInvalid,
            format!("docs.write_spreadsheet: filename {name:?} {why}"),
        )
        .with("filename", name.to_string()))
    };
    if name.is_empty() || name.len() > 200 {
        return bad("must be 1 to 200 bytes");
    }
    if name.contains(['/', '\\', '\0']) || name.contains("..") {
        return bad("must be a plain file name (no /, \\ or ..)");
    }
    if name.starts_with('.') || name.chars().any(char::is_control) {
        return bad("must not start with a dot or contain control characters");
    }
    let lower = name.to_ascii_lowercase();
    match lower.rsplit_once('.') {
        Some((_, ext)) if ext == format.ext() => Ok(name.to_string()),
        Some((_, ext)) if ["csv", "ods", "xlsx", "xls", "tsv"].contains(&ext) => bad(&format!(
            "has the extension .{ext} but the format is {}",
            format.ext()
        )),
        _ => Ok(format!("{name}.{}", format.ext())),
    }
}

/// Writes `bytes` as `name` in `repo` beneath the sandbox, atomically (module docs). Returns
/// the path relative to the root.
pub fn write_atomic(
    sb: &Sandbox,
    repo: &str,
    name: &str,
    bytes: &[u8],
    overwrite: bool,
) -> Result<String> {
    let rel = std::path::Path::new(repo).join(name);
    if let Some(why) = super::super::fs::protected_reason(&rel) {
        return Err(Error::denied(format!(
            "{} is protected: {why}",
            rel.display()
        )));
    }
    let dir = sb.open_dir(repo)?;
    let ioe = |e: std::io::Error| Error::new(Code::InternalError, format!("{repo}/{name}: {e}"));
    match dir.symlink_metadata(name) {
        Ok(m) if m.is_dir() => {
            return Err(Error::invalid(format!("{name:?} is a directory")));
        }
        Ok(_) if !overwrite => {
            return Err(Error::conflict(format!(
                "{name:?} exists in {repo:?}; pass overwrite=true to replace it"
            ))
            .retryable(false));
        }
        _ => {}
    }
    let tmp = format!(".{name}.bob-tmp.{}", uuid::Uuid::new_v4().simple());
    let mut opts = cap_std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    let result = (|| {
        let mut f = dir.open_with(&tmp, &opts).map_err(ioe)?;
        f.write_all(bytes).map_err(ioe)?;
        f.sync_all().map_err(ioe)?;
        if overwrite {
            dir.rename(&tmp, &dir, name).map_err(ioe)
        } else {
            dir.hard_link(&tmp, &dir, name).map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    Error::conflict(format!("{name:?} exists in {repo:?}")).retryable(false)
                } else {
                    ioe(e)
                }
            })
        }
    })();
    let _ = dir.remove_file(&tmp);
    result?;
    Ok(rel.to_string_lossy().trim_start_matches("./").to_string())
}

/// The tool.
pub fn write(sb: &Sandbox, i: &SpreadsheetInput) -> Result<Value> {
    let name = file_name(&i.filename, i.format)?;
    let (cols, cells) = table(&i.rows)?;
    let bytes = match i.format {
        Format::Csv => csv_bytes(&cols, &cells)?,
        Format::Ods => ods_bytes(&cols, &cells)?,
        Format::Xlsx => xlsx_bytes(&cols, &cells)?,
    };
    let path = write_atomic(sb, &i.repo, &name, &bytes, i.overwrite)?;
    answer(&Written {
        path,
        format: i.format.ext(),
        rows: cells.len(),
        columns: cols,
        bytes: bytes.len(),
    })
}

/// `spreadsheet.write`'s answer: the file written (relative to the root) and its size.
#[derive(serde::Serialize)]
struct Written {
    path: String,
    format: &'static str,
    rows: usize,
    columns: Vec<String>,
    bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_neutralising() {
        assert_eq!(file_name("parts", Format::Ods).unwrap(), "parts.ods");
        assert_eq!(file_name("Parts.CSV", Format::Csv).unwrap(), "Parts.CSV");
        for bad in ["../x.csv", "a/b.csv", ".hidden", "x.ods", "", "a\nb"] {
            assert!(file_name(bad, Format::Csv).is_err(), "{bad}");
        }
        for f in [
            "=1+1", "+1", "-2+3", "@SUM(A1)", "\t=x", "\r=x", "\n=x", "\0=x", "\u{1b}=x",
            "\u{7f}=x",
        ] {
            assert!(neutralise(f).starts_with('\''), "{f}");
        }
        assert_eq!(neutralise("Frame"), "Frame");
    }

    #[test]
    fn csv_quotes_and_keeps_numbers() {
        let rows: Vec<Map<String, Value>> = serde_json::from_value(serde_json::json!([
            {"part": "Frame, 3\"", "quantity": 1, "price": 89.99},
            {"part": "=HYPERLINK(\"http://x\")", "quantity": 4, "link": "https://a"}
        ]))
        .unwrap();
        let (cols, cells) = table(&rows).unwrap();
        assert_eq!(cols, ["part", "quantity", "price", "link"]);
        let text = String::from_utf8(csv_bytes(&cols, &cells).unwrap()).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let recs: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(&recs[0][0], "Frame, 3\"");
        assert_eq!(&recs[0][2], "89.99");
        assert!(recs[1][0].starts_with("'="));
        assert_eq!(&recs[1][2], "");
    }
}
