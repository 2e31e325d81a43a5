//! `web.fetch_text` (the JSON I/O contracts): a page's readable text, `{url, status, title, content}`.
//!
//! The fetch takes the same path and policy as `http.get` (a `net` capability for the host,
//! every resolved address classified, redirects re-checked hop by hop, a 2 MiB body cap, the
//! call's timeout) through [`super::Client::plain`]. The body is decoded by its declared charset
//! (`Content-Type`, else a `<meta charset>` / `http-equiv` in the first 1024 bytes, else UTF-8,
//! with `encoding_rs`; an unknown label falls back to UTF-8 with replacement characters). A
//! body that is not text (`image/*`, `application/octet-stream`, NUL bytes…) is refused with
//! `upstream.error`. HTML is reduced to its main content by `dom_smoothie` (a port of Mozilla's
//! Readability: menus, scripts and boilerplate dropped), falling back to the body's text when
//! no article is found; `content` is capped at [`MAX_CONTENT_CHARS`], `title` at
//! [`MAX_TITLE_CHARS`], the `url` at [`super::MAX_URL_BYTES`]. An HTTP error status is
//! returned as is with empty `content` (the JSON I/O contracts: the caller falls back on it).
//!
//! Bounded work: the document is parsed by [`html::parse`] (nesting flattened below
//! [`html::MAX_DEPTH`]) and Readability runs only on a modestly nested tree
//! ([`html::Nesting::is_modest`]), else the linear body-text path; the extraction runs on a
//! worker the call stops waiting for at its deadline (`timeout`), see
//! [`crate::tools::deadline`].

use super::{Client, Ctx, html};
use crate::error::{Code, Error, Result};
use crate::tools::deadline::Deadline;
use crate::tools::spec::{Kind, ToolSpec, answer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The `web.fetch_text` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "web.fetch_text",
    description: "Fetch a page ({url}) under http.get's network policy and return its readable main text {url, status, title, content}.",
    kind: Kind::Net,
    mutating: false,
    schema: || schemars::schema_for!(FetchTextInput),
};

pub const MAX_CONTENT_CHARS: usize = 200_000;
/// Cap on a page's `title` (characters, after squashing whitespace).
pub const MAX_TITLE_CHARS: usize = 1_000;

/// `web.fetch_text` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchTextInput {
    pub url: String,
}

fn charset_of_content_type(ct: &str) -> Option<String> {
    ct.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        (k.trim().eq_ignore_ascii_case("charset"))
            .then(|| v.trim().trim_matches('"').trim_matches('\'').to_string())
    })
}

fn charset_of_meta(head: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let i = text.find("charset=")?;
    let rest = &text[i + 8..];
    let rest = rest.trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

/// Decodes a body: (text, the encoding used).
pub fn decode(body: &[u8], content_type: Option<&str>) -> (String, &'static str) {
    let label = content_type
        .and_then(charset_of_content_type)
        .or_else(|| charset_of_meta(&body[..body.len().min(1024)]));
    let enc = label
        .and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let (text, used, _) = enc.decode(body);
    (text.into_owned(), used.name())
}

/// Whether a body is text (a textual content type, no NUL in its first 4 KiB).
pub(crate) fn is_text(content_type: Option<&str>, body: &[u8]) -> bool {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    let textual = ct.is_empty()
        || ct.starts_with("text/")
        || ct.contains("html")
        || ct.contains("xml")
        || ct.contains("json");
    textual && !body[..body.len().min(4096)].contains(&0)
}

/// Title and readable text of an HTML document (module docs): Readability when the parsed
/// tree nests modestly ([`html::Nesting::is_modest`]), else, or when it finds no article,
/// the body's text. The title is capped at [`MAX_TITLE_CHARS`], the text is not (see
/// [`MAX_CONTENT_CHARS`]).
pub fn extract(html: &str, url: Option<&str>) -> (String, String) {
    extract_until(html, url, &|| Ok(())).unwrap_or_default()
}

/// [`extract`], asking `stop` as it parses and before the Readability pass (its error ends
/// the extraction).
pub fn extract_until(
    html: &str,
    url: Option<&str>,
    stop: &dyn Fn() -> Result<()>,
) -> Result<(String, String)> {
    let doc = html::parse_until(html, stop)?;
    stop()?;
    Ok(extract_parsed(doc, html, url))
}

fn extract_parsed(doc: dom_query::Document, html: &str, url: Option<&str>) -> (String, String) {
    if html::Nesting::of(&doc).is_modest() {
        let cfg = dom_smoothie::Config {
            text_mode: dom_smoothie::TextMode::Formatted,
            ..Default::default()
        };
        if let Ok(mut r) = dom_smoothie::Readability::with_document(doc, url, Some(cfg))
            && let Ok(a) = r.parse()
        {
            let text = a.text_content.trim().to_string();
            if !text.is_empty() {
                return (clip_title(&a.title), text);
            }
        }
        return plain_text(&html::parse(html));
    }
    plain_text(&doc)
}

/// A title: whitespace squashed, at most [`MAX_TITLE_CHARS`] characters.
fn clip_title(t: &str) -> String {
    let mut out = String::new();
    for (n, w) in t.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(w);
        if out.len() >= MAX_TITLE_CHARS * 4 {
            break;
        }
    }
    super::clip(&out, MAX_TITLE_CHARS)
}

/// The linear path: the title and the body's text, without scripts, styles and navigation.
fn plain_text(doc: &dom_query::Document) -> (String, String) {
    doc.select("script, style, noscript, nav, header, footer, template")
        .remove();
    let title = clip_title(&doc.select("title").text());
    let body = doc.select("body").text();
    let text = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    (title, text)
}

fn cap(s: String) -> (String, bool) {
    match s.char_indices().nth(MAX_CONTENT_CHARS) {
        Some((i, _)) => (s[..i].to_string(), true),
        None => (s, false),
    }
}

/// A fetched page: the decoded body as well as its readable text.
#[derive(Debug, Clone)]
pub struct Page {
    pub url: String,
    pub status: u16,
    pub title: String,
    pub content: String,
    /// The decoded body (HTML or text); empty for an HTTP error status.
    pub raw: String,
    pub is_html: bool,
    pub charset: &'static str,
    pub truncated: bool,
}

impl Page {
    /// A page answered with an HTTP error status: no text (the caller falls back on it).
    pub fn error_status(url: String, status: u16) -> Page {
        Page {
            url,
            status,
            title: String::new(),
            content: String::new(),
            raw: String::new(),
            is_html: false,
            charset: "UTF-8",
            truncated: false,
        }
    }
}

/// Time this process spent extracting readable text from HTML (for `BOB_TOOL_STATS`).
static EXTRACT_NANOS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Wall time spent in HTML extraction so far in this process (benchmarks).
pub fn extract_time() -> std::time::Duration {
    std::time::Duration::from_nanos(EXTRACT_NANOS.load(std::sync::atomic::Ordering::Relaxed))
}

/// Readable text of a body that is already decoded. HTML is extracted on a worker thread
/// the call stops waiting for at `deadline` (`timeout`; the bounded work ends on its own).
pub fn page_of(
    url: &str,
    status: u16,
    raw: String,
    content_type: Option<&str>,
    charset: &'static str,
    truncated: bool,
    deadline: Deadline,
) -> Result<Page> {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    let is_html =
        !ct.starts_with("text/plain") && (ct.contains("html") || raw.trim_start().starts_with('<'));
    let (title, content) = if is_html {
        let (doc, at) = (raw.clone(), url.to_string());
        deadline.run(move |d| {
            let t = std::time::Instant::now();
            let out = extract_until(&doc, Some(&at), &|| d.check())?;
            EXTRACT_NANOS.fetch_add(
                t.elapsed().as_nanos() as u64,
                std::sync::atomic::Ordering::Relaxed,
            );
            Ok(out)
        })?
    } else {
        (String::new(), raw.clone())
    };
    let (content, cut) = cap(content);
    Ok(Page {
        url: url.to_string(),
        status,
        title,
        content,
        raw,
        is_html,
        charset,
        truncated: truncated || cut,
    })
}

/// Fetches and extracts one page (module docs).
pub fn fetch_page(ctx: &Ctx<'_>, url: &str) -> Result<Page> {
    let client = Client::plain(ctx);
    let r = client.get(
        url,
        &[(
            "Accept",
            "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
        )],
    )?;
    if r.status >= 400 {
        return Ok(Page::error_status(r.url, r.status));
    }
    if !is_text(r.content_type.as_deref(), &r.body) {
        return Err(Error::new(
            Code::UpstreamError,
            format!(
                "{} is not a text page (content type {})",
                r.url,
                r.content_type.as_deref().unwrap_or("unknown")
            ),
        )
        .retryable(false));
    }
    let (text, charset) = decode(&r.body, r.content_type.as_deref());
    page_of(
        &r.url,
        r.status,
        text,
        r.content_type.as_deref(),
        charset,
        r.truncated,
        ctx.deadline,
    )
}

pub fn fetch(ctx: &Ctx<'_>, i: &FetchTextInput) -> Result<Value> {
    if i.url.len() > super::MAX_URL_BYTES {
        return Err(Error::new(
            Code::ToolInputInvalid,
            format!(
                "web.fetch_text: url is longer than {} bytes",
                super::MAX_URL_BYTES
            ),
        ));
    }
    let p = fetch_page(ctx, &i.url)?;
    if p.status >= 400 {
        return answer(&FetchedText {
            url: &p.url,
            status: p.status,
            title: "",
            content: "",
            charset: None,
            truncated: None,
        });
    }
    answer(&FetchedText {
        url: &p.url,
        status: p.status,
        title: &p.title,
        content: &p.content,
        charset: Some(p.charset),
        truncated: Some(p.truncated),
    })
}

/// `web.fetch_text`'s answer: the page's readable text (only url and status, with empty title
/// and content, for an HTTP error status).
#[derive(serde::Serialize)]
struct FetchedText<'a> {
    url: &'a str,
    status: u16,
    title: &'a str,
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    charset: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
}

/// Absolute http(s) links of an HTML page, in document order, without duplicates.
pub fn links(page: &Page) -> Vec<String> {
    let base = url::Url::parse(&page.url).ok();
    joined_links(page, base.as_ref(), &["http", "https"])
}

/// The `<a href>` targets of an HTML page joined to `base`, kept when their scheme is one of
/// `schemes`, without fragments, deduplicated, in document order.
pub fn joined_links(page: &Page, base: Option<&url::Url>, schemes: &[&str]) -> Vec<String> {
    if !page.is_html {
        return Vec::new();
    }
    let doc = html::parse(page.raw.as_str());
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for a in doc.select("a[href]").iter() {
        let Some(href) = a.attr("href") else { continue };
        let joined = match base {
            Some(b) => b.join(&href).ok(),
            None => url::Url::parse(&href).ok(),
        };
        if let Some(mut u) = joined
            && schemes.contains(&u.scheme())
        {
            u.set_fragment(None);
            let s = u.to_string();
            if seen.insert(s.clone()) {
                out.push(s);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets_and_extraction() {
        let (t, used) = decode(b"caf\xe9", Some("text/html; charset=ISO-8859-1"));
        assert_eq!((t.as_str(), used), ("café", "windows-1252"));
        let (t, _) = decode(
            b"<meta charset=\"windows-1251\"><p>\xcf\xf0\xe8</p>",
            Some("text/html"),
        );
        assert!(t.contains("При"));
        let (t, used) = decode("naïve".as_bytes(), Some("text/html; charset=bogus"));
        assert_eq!((t.as_str(), used), ("naïve", "UTF-8"));
        let html = "<html><head><title>Drone BOM</title><script>var x=1</script></head><body><nav>Home | Shop | Login</nav><article><h1>Remix Cinewhoop</h1><p>Printable BOM for a 3 inch cinewhoop build with all the parts listed below in detail for builders.</p><ul><li>4x Motor Mounts</li><li>ESC - 30A</li></ul><p>Print the frame in PETG at 0.2 mm layer height, with four walls and 40 percent infill for strength.</p></article><footer>© 2026</footer></body></html>";
        let (title, text) = extract(html, Some("https://example.com/thing"));
        assert!(
            title.contains("Drone BOM") || title.contains("Remix"),
            "{title}"
        );
        assert!(text.contains("4x Motor Mounts"), "{text}");
        assert!(!text.contains("var x=1"));
        assert!(!text.contains("Login"), "{text}");
        assert!(!is_text(Some("image/png"), b"\x89PNG"));
        assert!(!is_text(Some("text/html"), b"ab\0cd"));
    }
}
