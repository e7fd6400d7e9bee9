//! docsift's HTML and plain-text input: charset detection and decoding (BOM, declaration,
//! chardetng; encoding_rs), parsing with html5ever into an arena DOM, the text a reader
//! sees, main content (the Readability algorithm) with its metadata, and Markdown.

mod decode;
pub mod dom;
mod markdown;
mod meta;
mod patterns;
pub mod readability;
mod text;
mod urls;

pub use markdown::markdown_of;
pub use meta::Metadata;
pub use readability::{Article, Options, is_probably_readerable};

pub use decode::{Decided, Decoded, declared, decode, decode_label};
pub use dom::{DOCUMENT, Dom, NodeId};
pub use text::{text_of, text_of_node};

use serde::Serialize;

/// A web page or text file read for its main content: the article's HTML, text and
/// Markdown with the page's metadata and the encoding it was decoded from.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HtmlDocument {
    pub schema: &'static str,
    #[serde(flatten)]
    pub meta: Metadata,
    /// The WHATWG label of the encoding used.
    pub encoding: String,
    /// How the encoding was decided.
    pub encoding_source: Decided,
    /// Whether a main article was found (false: the whole page's content is given).
    pub article: bool,
    /// Length of `text` in characters.
    pub length: usize,
    /// The cleaned article HTML.
    pub content: String,
    pub text: String,
    pub markdown: String,
}

/// Schema tag of [`HtmlDocument`]'s JSON.
pub const HTML_SCHEMA: &str = "docsift-html/1";

/// Reads an HTML page: decodes, parses, and extracts the main content. A page with no
/// article to speak of gives its whole body instead, with `article` false.
pub fn read_html(bytes: &[u8], opts: &Options) -> HtmlDocument {
    let page = parse(bytes);
    let (meta, article, dom, root) = match readability::extract(page.dom, opts) {
        Some(a) => (a.meta, true, a.dom, a.root),
        None => {
            let dom = parse(bytes).dom;
            let mut meta = meta::metadata(&dom, meta::json_ld(&dom));
            meta.readerable = false;
            let root = dom.body().unwrap_or(DOCUMENT);
            (meta, false, dom, root)
        }
    };
    let text = text_of_node(&dom, root);
    HtmlDocument {
        schema: HTML_SCHEMA,
        meta,
        encoding: page.encoding,
        encoding_source: page.decided,
        article,
        length: text.chars().count(),
        content: dom.html(root, false),
        markdown: markdown_of(&dom, root),
        text,
    }
}

/// Reads a plain-text file: decoded with the same detector; paragraphs are the runs of
/// lines between blank lines.
pub fn read_text(bytes: &[u8]) -> HtmlDocument {
    let d = decode(bytes, false);
    let text = d.text.trim_start_matches('\u{feff}').replace("\r\n", "\n").trim().to_string();
    let paragraphs: Vec<&str> = text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).collect();
    let mut html = String::new();
    for p in &paragraphs {
        html.push_str("<p>");
        for c in p.chars() {
            match c {
                '<' => html.push_str("&lt;"),
                '>' => html.push_str("&gt;"),
                '&' => html.push_str("&amp;"),
                '\n' => html.push_str("<br>"),
                c => html.push(c),
            }
        }
        html.push_str("</p>");
    }
    let meta = Metadata {
        excerpt: paragraphs.first().map(|p| p.to_string()),
        readerable: !text.is_empty(),
        ..Metadata::default()
    };
    HtmlDocument {
        schema: HTML_SCHEMA,
        meta,
        encoding: d.encoding,
        encoding_source: d.decided,
        article: false,
        length: text.chars().count(),
        content: html,
        markdown: format!("{text}\n"),
        text,
    }
}

/// A decoded and parsed HTML document.
pub struct Page {
    pub dom: Dom,
    pub encoding: String,
    pub decided: Decided,
}

/// Decodes and parses HTML bytes.
pub fn parse(bytes: &[u8]) -> Page {
    let d = decode(bytes, true);
    Page { dom: Dom::parse(&d.text), encoding: d.encoding, decided: d.decided }
}

/// Elements a fragment of HTML commonly starts with.
const START_TAGS: &[&str] = &[
    "html",
    "head",
    "body",
    "meta",
    "title",
    "div",
    "p",
    "a",
    "b",
    "i",
    "u",
    "em",
    "strong",
    "span",
    "table",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "nav",
    "main",
    "form",
    "img",
    "br",
    "pre",
    "blockquote",
    "link",
    "script",
    "style",
    "font",
    "center",
];

/// Whether bytes look like HTML: after any BOM and whitespace, a doctype, a comment, or
/// the start tag of a common element; or an `<html` tag near the start.
pub fn looks_like_html(bytes: &[u8]) -> bool {
    let head: Vec<u8> = bytes.iter().take(2048).map(u8::to_ascii_lowercase).collect();
    let start =
        head.iter().position(|b| !b.is_ascii_whitespace() && !matches!(b, 0xEF | 0xBB | 0xBF)).unwrap_or(head.len());
    let body = &head[start..];
    if body.starts_with(b"<!doctype html") || body.starts_with(b"<!--") || head.windows(5).any(|w| w == b"<html") {
        return true;
    }
    let Some(rest) = body.strip_prefix(b"<") else { return false };
    let name_len = rest.iter().position(|b| !b.is_ascii_alphanumeric()).unwrap_or(rest.len());
    let after = rest.get(name_len).copied();
    START_TAGS.iter().any(|t| t.as_bytes() == &rest[..name_len])
        && matches!(after, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_decodes_and_renders() {
        let bytes = b"<!doctype html><meta charset=iso-8859-1><p>caf\xE9</p>";
        let page = parse(bytes);
        assert_eq!(page.encoding, "windows-1252");
        assert_eq!(page.decided, Decided::Declared);
        assert_eq!(text_of(&page.dom), "caf\u{e9}");
        assert!(looks_like_html(bytes));
        assert!(!looks_like_html(b"just some text"));
        assert!(looks_like_html(b"<b><i>x") && looks_like_html(b"<table border=1>"));
        assert!(!looks_like_html(b"<insert name here>") && !looks_like_html(b"<bogus>"));
    }

    #[test]
    fn malformed_and_deep_markup() {
        // html5ever's tree builder is quadratic in nesting depth; deeper inputs are the
        // HTML issue's limit work. 5,000 levels still pass the recursion bound.
        let deep = "<div>".repeat(5_000) + "x";
        assert_eq!(text_of(&Dom::parse(&deep)), "x");
        let garbage: Vec<u8> = (0..20000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let _ = text_of(&parse(&garbage).dom);
        assert_eq!(text_of(&Dom::parse("<p>unclosed <b>bold <i>both")), "unclosed bold both");
    }
}
