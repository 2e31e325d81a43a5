//! Bounded HTML parsing for the domain tools (`web.fetch_text`, `web.search`, `bom.normalize`).
//!
//! Why this exists: html5ever's tree builder looks through the stack of open elements for
//! most start tags (is a `<p>` open in button scope?), so a document nested `d` deep costs
//! `tags × d`; and Readability (dom_smoothie) measures each candidate's descendants, so its
//! cost grows with the sum of every element's depth. `<div>`×20,000 (100 KB) took about a
//! minute. Two bounds make both linear in the document's size:
//!
//! * [`parse`] first runs a linear pre-scan that **flattens** the document below
//!   [`MAX_DEPTH`]: a start tag that would open an element deeper than that (as the pre-scan
//!   counts open elements) is dropped, with its end tag, and its text kept, which is what
//!   browsers do with absurd nesting (Blink stops nesting at 512). A document within the
//!   depth is parsed byte for byte as it came.
//! * [`Nesting::of`] measures the parsed tree (its deepest element and the sum of every
//!   element's depth); a caller runs the expensive passes only when [`Nesting::is_modest`],
//!   and a plain linear text pass otherwise.
//!
//! The pre-scan counts depth the way the HTML tree builder mostly does: void elements
//! (`<br>`, `<img>`…) and raw-text elements (`<script>`, `<style>`…) add nothing, `/>` closes
//! only inside `<svg>`/`<math>`, an end tag closes up to its nearest open namesake, and a new
//! `<li>`/`<p>`/`<td>`/`<tr>`/`<option>`/`<dt>`/`<dd>` closes an open one on top of the stack.
//! It may count deeper than the parser would (then a page as deep as [`MAX_DEPTH`] by its
//! count loses only markup, never text); where it counts shallower, the measured [`Nesting`]
//! still keeps Readability away.

use std::borrow::Cow;

/// Deepest element the pre-scan lets through (deeper start tags are dropped, text kept).
pub const MAX_DEPTH: usize = 256;

/// Largest sum of element depths Readability is run on (about half a second of it); a
/// larger or deeper tree gets the plain text pass.
pub const MAX_NESTING_WORK: u64 = 8_000_000;

const VOID: &[&[u8]] = &[
    b"area",
    b"base",
    b"basefont",
    b"bgsound",
    b"br",
    b"col",
    b"embed",
    b"frame",
    b"hr",
    b"img",
    b"input",
    b"keygen",
    b"link",
    b"meta",
    b"param",
    b"source",
    b"track",
    b"wbr",
];
/// Elements whose content is text to their end tag (dom_query parses with scripting off, so
/// `<noscript>` holds markup and is not one of them).
const RAW_TEXT: &[&[u8]] = &[
    b"script",
    b"style",
    b"textarea",
    b"title",
    b"xmp",
    b"iframe",
    b"noembed",
    b"noframes",
];
/// Formatting elements: a misnested end tag of one (`<b><div></b>`) does not close what was
/// opened inside it (the parser's adoption agency keeps those open).
const FORMATTING: &[&[u8]] = &[
    b"a", b"b", b"big", b"code", b"em", b"font", b"i", b"nobr", b"s", b"small", b"strike",
    b"strong", b"tt", b"u",
];
/// Start tags that close an open `<p>` on top of the stack.
const CLOSES_P: &[&[u8]] = &[
    b"address",
    b"article",
    b"aside",
    b"blockquote",
    b"center",
    b"details",
    b"dialog",
    b"dir",
    b"div",
    b"dl",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"header",
    b"hgroup",
    b"hr",
    b"li",
    b"main",
    b"menu",
    b"nav",
    b"ol",
    b"p",
    b"pre",
    b"section",
    b"summary",
    b"table",
    b"ul",
    b"dd",
    b"dt",
];

/// Longest tag name the pre-scan keeps for matching (longer names are cut; still matched).
const NAME_KEEP: usize = 24;

/// A lower-cased tag name, cut at [`NAME_KEEP`] bytes (no allocation per tag).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Name {
    bytes: [u8; NAME_KEEP],
    len: u8,
}

impl Name {
    fn new(raw: &[u8]) -> Name {
        let mut bytes = [0u8; NAME_KEEP];
        let len = raw.len().min(NAME_KEEP);
        for (d, s) in bytes.iter_mut().zip(&raw[..len]) {
            *d = s.to_ascii_lowercase();
        }
        Name {
            bytes,
            len: len as u8,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// The open elements as the pre-scan counts them: those kept (at most [`MAX_DEPTH`]) and,
/// above them, those dropped from the output.
#[derive(Default)]
struct Stack {
    kept: Vec<Name>,
    dropped: Vec<Name>,
    /// How many `svg`/`math` elements are open (foreign content: `/>` closes).
    foreign: usize,
}

fn is_foreign_root(n: &[u8]) -> bool {
    n == b"svg" || n == b"math"
}

impl Stack {
    fn top(&self) -> Option<&[u8]> {
        self.dropped
            .last()
            .or_else(|| self.kept.last())
            .map(Name::as_bytes)
    }

    fn pop(&mut self) {
        let n = match self.dropped.pop() {
            Some(n) => n,
            None => match self.kept.pop() {
                Some(n) => n,
                None => return,
            },
        };
        if is_foreign_root(n.as_bytes()) {
            self.foreign = self.foreign.saturating_sub(1);
        }
    }

    fn pop_if(&mut self, names: &[&[u8]]) -> bool {
        if self.top().is_some_and(|t| names.contains(&t)) {
            self.pop();
            return true;
        }
        false
    }

    /// Closes what a start tag `name` implies (see the module docs).
    fn implied_closes(&mut self, name: &[u8]) {
        if CLOSES_P.contains(&name) {
            self.pop_if(&[b"p"]);
        }
        match name {
            b"li" => {
                self.pop_if(&[b"li"]);
            }
            b"dd" | b"dt" => {
                self.pop_if(&[b"dd", b"dt"]);
            }
            b"option" => {
                self.pop_if(&[b"option"]);
            }
            b"optgroup" => {
                self.pop_if(&[b"option"]);
                self.pop_if(&[b"optgroup"]);
            }
            b"td" | b"th" => {
                self.pop_if(&[b"td", b"th"]);
            }
            b"tr" => {
                self.pop_if(&[b"td", b"th"]);
                self.pop_if(&[b"tr"]);
            }
            b"thead" | b"tbody" | b"tfoot" => {
                self.pop_if(&[b"td", b"th"]);
                self.pop_if(&[b"tr"]);
                self.pop_if(&[b"thead", b"tbody", b"tfoot"]);
            }
            _ => {}
        }
    }

    /// Opens `name`; `false` when it is too deep and is dropped from the output.
    fn open(&mut self, name: Name) -> bool {
        if is_foreign_root(name.as_bytes()) {
            self.foreign += 1;
        }
        if self.dropped.is_empty() && self.kept.len() < MAX_DEPTH {
            self.kept.push(name);
            true
        } else {
            self.dropped.push(name);
            false
        }
    }

    /// Closes up to the nearest open `name`; `false` when the end tag closes a dropped
    /// element (it is dropped too). The dropped part is searched only near its top, so an
    /// end tag costs at most `2 × MAX_DEPTH` steps.
    fn close(&mut self, name: Name) -> bool {
        let near = self.dropped.len().saturating_sub(MAX_DEPTH);
        if FORMATTING.contains(&name.as_bytes()) {
            // Only the formatting element itself goes (counting deeper, never shallower).
            if let Some(i) = self.dropped[near..].iter().rposition(|n| *n == name) {
                self.dropped.remove(near + i);
                return false;
            }
            if let Some(i) = self.kept.iter().rposition(|n| *n == name) {
                self.kept.remove(i);
            }
            return true;
        }
        if let Some(i) = self.dropped[near..].iter().rposition(|n| *n == name) {
            for n in self.dropped.drain(near + i..) {
                if is_foreign_root(n.as_bytes()) {
                    self.foreign = self.foreign.saturating_sub(1);
                }
            }
            return false;
        }
        if let Some(i) = self.kept.iter().rposition(|n| *n == name) {
            let gone = self.dropped.drain(..).chain(self.kept.drain(i..));
            let foreign = gone.filter(|n| is_foreign_root(n.as_bytes())).count();
            self.foreign = self.foreign.saturating_sub(foreign);
        }
        true
    }
}

fn find_ci(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    // Needles are `</` + a lower-case name: look for `</` and compare the name.
    let mut at = from;
    while let Some(i) = find(hay, at, b"</") {
        let rest = &hay[i..];
        // An appropriate end tag: the name, then a space, `/`, `>` or the end.
        if rest.len() >= needle.len()
            && rest[..needle.len()].eq_ignore_ascii_case(needle)
            && rest
                .get(needle.len())
                .is_none_or(|&c| c.is_ascii_whitespace() || c == b'/' || c == b'>')
        {
            return Some(i);
        }
        at = i + 2;
    }
    None
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= hay.len() {
        return None;
    }
    memchr::memmem::find(&hay[from..], needle).map(|i| from + i)
}

/// End of a tag starting at `i` (just past its name): the index of its `>` (or the end),
/// and whether it is written self-closing (`/>`).
fn tag_end(b: &[u8], mut i: usize) -> (usize, bool) {
    let mut last = 0u8;
    while i < b.len() {
        match b[i] {
            b'>' => return (i, last == b'/'),
            q @ (b'"' | b'\'') if last == b'=' => {
                i = match b[i + 1..].iter().position(|&c| c == q) {
                    Some(j) => i + 1 + j,
                    None => return (b.len(), false),
                };
                last = q;
            }
            c if c.is_ascii_whitespace() => {}
            c => last = c,
        }
        i += 1;
    }
    (b.len(), false)
}

/// `html` with every element deeper than [`MAX_DEPTH`] flattened (module docs); borrowed
/// unchanged when nothing was that deep. Linear in the length of `html`.
pub fn flatten(html: &str) -> Cow<'_, str> {
    let b = html.as_bytes();
    let mut out: Option<String> = None;
    // Bytes before `copied` are already in `out` (or skipped).
    let mut copied = 0usize;
    let mut stack = Stack::default();
    let mut i = 0usize;
    let drop_range = |out: &mut Option<String>, copied: &mut usize, from: usize, to: usize| {
        let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
        o.push_str(&html[*copied..from]);
        *copied = to;
    };
    while let Some(lt) = memchr::memchr(b'<', &b[i..]).map(|j| i + j) {
        let rest = &b[lt + 1..];
        if rest.starts_with(b"!--") {
            i = find(b, lt + 4, b"-->").map_or(b.len(), |j| j + 3);
            continue;
        }
        if rest.starts_with(b"![CDATA[") && stack.foreign > 0 {
            i = find(b, lt + 9, b"]]>").map_or(b.len(), |j| j + 3);
            continue;
        }
        if rest.first().is_some_and(|&c| c == b'!' || c == b'?') {
            i = find(b, lt + 1, b">").map_or(b.len(), |j| j + 1);
            continue;
        }
        let end_tag = rest.first() == Some(&b'/');
        let name_at = lt + 1 + usize::from(end_tag);
        if !b.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
            if end_tag {
                // `</ …>` is a bogus comment.
                i = find(b, name_at, b">").map_or(b.len(), |j| j + 1);
            } else {
                i = lt + 1;
            }
            continue;
        }
        let name_len = b[name_at..]
            .iter()
            .position(|&c| c.is_ascii_whitespace() || c == b'/' || c == b'>')
            .unwrap_or(b.len() - name_at);
        let tag = Name::new(&b[name_at..name_at + name_len]);
        let name = tag.as_bytes();
        let (gt, self_closing) = tag_end(b, name_at + name_len);
        let after = (gt + 1).min(b.len());
        if end_tag {
            if !stack.close(tag) {
                drop_range(&mut out, &mut copied, lt, after);
            }
            i = after;
            continue;
        }
        i = after;
        let foreign = stack.foreign > 0 || is_foreign_root(name);
        if !foreign && name == b"plaintext" {
            break;
        }
        if !foreign && RAW_TEXT.contains(&name) {
            // Its text runs to its end tag; it opens nothing that stays open.
            let mut close = Vec::with_capacity(name.len() + 2);
            close.extend_from_slice(b"</");
            close.extend_from_slice(name);
            i = find_ci(b, after, &close).unwrap_or(b.len());
            continue;
        }
        if VOID.contains(&name) || (self_closing && foreign) {
            continue;
        }
        if !foreign {
            stack.implied_closes(name);
        }
        if !stack.open(tag) {
            drop_range(&mut out, &mut copied, lt, after);
        }
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut o) => {
            o.push_str(&html[copied..]);
            Cow::Owned(o)
        }
    }
}

/// Parses `html` after [`flatten`]ing it.
pub fn parse(html: &str) -> dom_query::Document {
    dom_query::Document::from(flatten(html).as_ref())
}

/// Bytes fed to the parser between two calls of `stop` in [`parse_until`].
const PARSE_CHUNK: usize = 64 * 1024;

/// [`parse`], feeding the parser [`PARSE_CHUNK`] bytes at a time and asking `stop` between
/// them, so a parse ends soon after a deadline (`stop`'s error) instead of running on. The
/// document is the one [`parse`] builds (dom_query's own parser and options).
pub fn parse_until(
    html: &str,
    stop: &dyn Fn() -> crate::error::Result<()>,
) -> crate::error::Result<dom_query::Document> {
    use tendril::TendrilSink;
    let flat = flatten(html);
    stop()?;
    let opts = html5ever::ParseOpts {
        tree_builder: html5ever::tree_builder::TreeBuilderOpts {
            scripting_enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut parser = html5ever::parse_document(dom_query::Document::default(), opts);
    let mut rest: &str = &flat;
    while !rest.is_empty() {
        let mut cut = rest.len().min(PARSE_CHUNK);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        parser.process(tendril::StrTendril::from_slice(&rest[..cut]));
        rest = &rest[cut..];
        stop()?;
    }
    Ok(parser.finish())
}

/// How deeply a parsed tree nests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nesting {
    /// Depth of the deepest element (the document's root element is 1).
    pub max_depth: usize,
    /// Sum of every element's depth (what Readability's passes cost).
    pub work: u64,
    pub elements: u64,
}

impl Nesting {
    /// Measures `doc` in one walk (no recursion).
    pub fn of(doc: &dom_query::Document) -> Nesting {
        let mut n = Nesting {
            max_depth: 0,
            work: 0,
            elements: 0,
        };
        let mut todo: Vec<(dom_query::NodeRef<'_>, usize)> = vec![(doc.root(), 0)];
        while let Some((node, depth)) = todo.pop() {
            let mut child = node.first_child();
            while let Some(c) = child {
                if c.is_element() {
                    let d = depth + 1;
                    n.max_depth = n.max_depth.max(d);
                    n.work += d as u64;
                    n.elements += 1;
                    todo.push((c, d));
                }
                child = c.next_sibling();
            }
        }
        n
    }

    /// Within [`MAX_DEPTH`] (plus the parser's own `html`/`body`/`tbody`) and
    /// [`MAX_NESTING_WORK`].
    pub fn is_modest(&self) -> bool {
        self.max_depth <= MAX_DEPTH + 8 && self.work <= MAX_NESTING_WORK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_within_the_depth_is_parsed_as_it_came() {
        let page = "<!doctype html><html><head><title>T</title><script>if (a<b) x='<div>'</script></head><body><ul><li>a<li>b</ul><p>one<p>two<div><svg><path d='M0'/><path/></svg></div><table><tr><td>1<td>2<tr><td>3</table><!-- <div><div> --></body></html>";
        assert!(matches!(flatten(page), Cow::Borrowed(_)));
        let deep_but_fine = "<div>".repeat(MAX_DEPTH - 1) + "x" + &"</div>".repeat(MAX_DEPTH - 1);
        assert!(matches!(flatten(&deep_but_fine), Cow::Borrowed(_)));
        // Unclosed list items and paragraphs do not add up.
        let loose = "<ul>".to_string() + &"<li>item<p>para".repeat(5000) + "</ul>";
        assert!(matches!(flatten(&loose), Cow::Borrowed(_)));
    }

    #[test]
    fn deeper_elements_are_dropped_with_their_end_tags_and_text_kept() {
        // Misnested formatting elements and `<noscript>` (markup, with scripting off) count.
        for deep in ["<b><div></b>", "<noscript><div>", "<a href=x><p></a>"] {
            let n = Nesting::of(&parse(&deep.repeat(5_000)));
            assert!(n.max_depth <= 3 * MAX_DEPTH, "{deep}: {n:?}");
        }
        let deep = "<div>".repeat(20_000) + "hello" + &"</div>".repeat(20_000) + "<p>after</p>";
        let flat = flatten(&deep);
        assert_eq!(flat.matches("<div>").count(), MAX_DEPTH);
        assert_eq!(flat.matches("</div>").count(), MAX_DEPTH);
        assert!(flat.contains("hello") && flat.ends_with("<p>after</p>"));
        let doc = parse(&deep);
        let n = Nesting::of(&doc);
        assert!(n.max_depth <= MAX_DEPTH + 3, "{n:?}");
        assert!(doc.select("p").text().contains("after"));
        // Unclosed, as in the report: still bounded.
        let open = "<div>".repeat(20_000);
        let n = Nesting::of(&parse(&open));
        assert!(n.max_depth <= MAX_DEPTH + 3 && n.is_modest(), "{n:?}");
        let tables = "<table><tr><td>".repeat(400);
        let n = Nesting::of(&parse(&tables));
        assert!(n.max_depth <= 2 * MAX_DEPTH, "{n:?}");
    }

    #[test]
    fn a_parse_in_chunks_builds_the_same_document_and_stops_when_asked() {
        let page = "<html><head><title>T</title></head><body>".to_string()
            + &"<article><p>Motor mount text, é and 🦀.</p><table><tr><td>4</td></tr></table></article>"
                .repeat(3_000)
            + "</body></html>";
        assert!(page.len() > 3 * PARSE_CHUNK);
        let whole = parse(&page);
        let chunked = parse_until(&page, &|| Ok(())).unwrap();
        assert_eq!(whole.html(), chunked.html());
        let asked = std::cell::Cell::new(0);
        let stopped = parse_until(&page, &|| {
            asked.set(asked.get() + 1);
            if asked.get() > 2 {
                return Err(crate::error::Error::new(
                    crate::error::Code::Timeout,
                    "late",
                ));
            }
            Ok(())
        });
        assert!(stopped.is_err());
        assert_eq!(asked.get(), 3, "stopped after the second chunk");
    }

    #[test]
    fn raw_text_ends_only_at_its_own_end_tag() {
        // `</scripts>` does not end a script: the `<div>`s inside it are script text.
        let page =
            "<script>a</scripts>".to_string() + &"<div>".repeat(MAX_DEPTH + 10) + "</script>";
        assert!(matches!(flatten(&page), Cow::Borrowed(_)));
        let page = "<SCRIPT>x</Script >".to_string() + &"<div>".repeat(MAX_DEPTH + 10);
        assert!(matches!(flatten(&page), Cow::Owned(_)));
    }

    proptest::proptest! {
        /// Whatever the input, flattening only removes whole tags: the output is the input
        /// with some ranges cut, and nothing panics.
        #[test]
        fn flattening_only_cuts(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "<div>", "</div>", "<p>", "<li>", "</ul>", "<svg>", "<path/>", "</svg>", "<br>",
                "<script>", "</script>", "<!--", "-->", "<a href='>'>", "</", "<", "x", "é",
                "<table>", "<td>", "<tr>", "<DIV class=\"a\">", "<plaintext>",
            ]),
            0..2000,
        )) {
            let html: String = parts.concat();
            let flat = flatten(&html);
            let mut rest = html.as_str();
            for c in flat.chars() {
                let at = rest.find(c);
                proptest::prop_assert!(at.is_some());
                rest = &rest[at.unwrap() + c.len_utf8()..];
            }
        }
    }

    #[test]
    fn nesting_measures_depth_and_work() {
        let doc = dom_query::Document::from("<div><p>a</p><p>b</p></div>");
        let n = Nesting::of(&doc);
        // html 1, head 2, body 2, div 3, p 4, p 4.
        assert_eq!((n.max_depth, n.work, n.elements), (4, 16, 6));
        let wide = "<div>".repeat(200) + &"<p>x</p>".repeat(50_000);
        assert!(!Nesting::of(&parse(&wide)).is_modest());
    }
}
