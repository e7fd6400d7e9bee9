//! docsift's HTML and plain-text input: charset detection and decoding (BOM, declaration,
//! chardetng; encoding_rs), parsing with html5ever (through scraper's DOM), and the text a
//! reader sees. Main-content extraction (Readability) and metadata build on this.

mod decode;
mod text;

pub use decode::{Decided, Decoded, declared, decode, decode_label};
pub use scraper::Html;
pub use text::{text_of, text_of_node};

/// A decoded and parsed HTML document.
pub struct Page {
    pub dom: Html,
    pub encoding: String,
    pub decided: Decided,
}

/// Decodes and parses HTML bytes.
pub fn parse(bytes: &[u8]) -> Page {
    let d = decode(bytes, true);
    Page { dom: Html::parse_document(&d.text), encoding: d.encoding, decided: d.decided }
}

/// Whether bytes look like HTML (after any BOM and whitespace: a doctype, `<html`, or an
/// opening tag of a common element near the start).
pub fn looks_like_html(bytes: &[u8]) -> bool {
    let head: Vec<u8> = bytes.iter().take(2048).map(u8::to_ascii_lowercase).collect();
    let start =
        head.iter().position(|b| !b.is_ascii_whitespace() && !matches!(b, 0xEF | 0xBB | 0xBF)).unwrap_or(head.len());
    let body = &head[start..];
    body.starts_with(b"<!doctype html")
        || [&b"<html"[..], b"<head", b"<body", b"<meta", b"<title", b"<div", b"<p>", b"<!--"]
            .iter()
            .any(|t| body.starts_with(t))
        || head.windows(5).any(|w| w == b"<html")
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
    }

    #[test]
    fn malformed_and_deep_markup() {
        // html5ever's tree builder is quadratic in nesting depth; deeper inputs are the
        // HTML issue's limit work. 5,000 levels still pass the recursion bound.
        let deep = "<div>".repeat(5_000) + "x";
        assert_eq!(text_of(&Html::parse_document(&deep)), "x");
        let garbage: Vec<u8> = (0..20000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let _ = text_of(&parse(&garbage).dom);
        assert_eq!(text_of(&Html::parse_document("<p>unclosed <b>bold <i>both")), "unclosed bold both");
    }
}
