//! Bytes to text: a byte-order mark first, then what the document declares (`<meta
//! charset>`, `http-equiv` Content-Type, the XML declaration), then chardetng — also when a
//! declaration contradicts the bytes (they do not decode under it). Decoding is
//! encoding_rs. The prescan follows the WHATWG encoding-sniffing steps over the first
//! kilobyte; it reads bytes, not HTML.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};
use serde::Serialize;

/// WHATWG: the prescan looks at the first 1024 bytes.
const PRESCAN_BYTES: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decided {
    /// A byte-order mark.
    Bom,
    /// A `<meta>` or XML declaration that the bytes agree with.
    Declared,
    /// Statistical detection (nothing declared, or the declaration was wrong).
    Detected,
    /// UTF-32 recognised by its byte-order mark (not a WHATWG encoding).
    Utf32Bom,
}

#[derive(Clone, Debug)]
pub struct Decoded {
    pub text: String,
    /// The WHATWG label of the encoding used (`utf-32le`/`utf-32be` for UTF-32).
    pub encoding: String,
    pub decided: Decided,
}

fn lower(b: &[u8]) -> Vec<u8> {
    b.iter().map(u8::to_ascii_lowercase).collect()
}

/// The value of `charset=` inside a Content-Type string.
fn charset_in_content(content: &[u8]) -> Option<Vec<u8>> {
    let c = lower(content);
    let at = c.windows(7).position(|w| w == b"charset")?;
    let rest = c[at + 7..].iter().skip_while(|b| b.is_ascii_whitespace()).copied().collect::<Vec<u8>>();
    let rest = rest.strip_prefix(b"=")?;
    let rest: Vec<u8> = rest.iter().skip_while(|b| b.is_ascii_whitespace()).copied().collect();
    let value: Vec<u8> = match rest.first() {
        Some(&q @ (b'"' | b'\'')) => rest[1..].iter().take_while(|&&b| b != q).copied().collect(),
        _ => rest.iter().take_while(|&&b| !b.is_ascii_whitespace() && b != b';').copied().collect(),
    };
    (!value.is_empty()).then_some(value)
}

/// Attributes of one tag starting after its name; returns (attrs, end offset).
fn attributes(b: &[u8], mut i: usize) -> (Vec<(Vec<u8>, Vec<u8>)>, usize) {
    let mut out = Vec::new();
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        if i >= b.len() || b[i] == b'>' {
            return (out, i);
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let name = lower(&b[start..i]);
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = Vec::new();
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let q = b[i];
                i += 1;
                let s = i;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
                value = b[s..i.min(b.len())].to_vec();
                i += 1;
            } else {
                let s = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                    i += 1;
                }
                value = b[s..i].to_vec();
            }
        }
        out.push((name, value));
    }
}

/// The encoding a document declares in its first kilobyte, if any.
pub fn declared(bytes: &[u8]) -> Option<&'static Encoding> {
    let b = &bytes[..bytes.len().min(PRESCAN_BYTES)];
    if b.starts_with(b"<?xml") {
        let end = b.iter().position(|&c| c == b'>').unwrap_or(b.len());
        let decl = lower(&b[..end]);
        if let Some(at) = decl.windows(8).position(|w| w == b"encoding") {
            let (attrs, _) = attributes(&decl, at);
            if let Some((_, v)) = attrs.iter().find(|(n, _)| n == b"encoding") {
                return Encoding::for_label(v);
            }
        }
    }
    let mut i = 0;
    while i + 5 < b.len() {
        if b[i..].starts_with(b"<!--") {
            i = b[i..].windows(3).position(|w| w == b"-->").map_or(b.len(), |p| i + p + 3);
            continue;
        }
        if b[i] == b'<'
            && b[i + 1..i + 5].eq_ignore_ascii_case(b"meta")
            && b.get(i + 5).is_some_and(|c| c.is_ascii_whitespace() || *c == b'/')
        {
            let (attrs, end) = attributes(b, i + 5);
            let get = |n: &[u8]| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
            let label = get(b"charset").or_else(|| {
                let equiv = get(b"http-equiv").map(|v| lower(&v));
                (equiv.as_deref() == Some(b"content-type"))
                    .then(|| get(b"content").and_then(|c| charset_in_content(&c)))
                    .flatten()
            });
            if let Some(enc) = label.and_then(|l| Encoding::for_label(&l)) {
                // WHATWG: a UTF-16 declaration in a byte stream means UTF-8.
                return Some(if enc == UTF_16BE || enc == UTF_16LE { UTF_8 } else { enc });
            }
            i = end;
            continue;
        }
        i += 1;
    }
    None
}

fn utf32(bytes: &[u8], big_endian: bool) -> Option<String> {
    let units = bytes.chunks(4).map(|c| {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        if big_endian { u32::from_be_bytes(w) } else { u32::from_le_bytes(w) }
    });
    units.map(char::from_u32).collect()
}

/// Decodes `bytes`; `html` enables the `<meta>` prescan.
pub fn decode(bytes: &[u8], html: bool) -> Decoded {
    // UTF-32 has no WHATWG decoder; its BOMs are unambiguous with 4 bytes.
    if bytes.starts_with(&[0xFF, 0xFE, 0, 0]) || bytes.starts_with(&[0, 0, 0xFE, 0xFF]) {
        let be = bytes[0] == 0;
        if let Some(text) = utf32(&bytes[4..], be) {
            return Decoded {
                text,
                encoding: if be { "utf-32be" } else { "utf-32le" }.into(),
                decided: Decided::Utf32Bom,
            };
        }
    }
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, _) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return Decoded { text: text.into_owned(), encoding: enc.name().to_ascii_lowercase(), decided: Decided::Bom };
    }
    if html
        && let Some(enc) = declared(bytes)
        && let Some(text) = enc.decode_without_bom_handling_and_without_replacement(bytes)
    {
        return Decoded {
            text: text.into_owned(),
            encoding: enc.name().to_ascii_lowercase(),
            decided: Decided::Declared,
        };
    }
    // We never run the document's scripts, so ISO-2022-JP is safe to detect; UTF-8 too.
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    det.feed(bytes, true);
    let enc = det.guess(None, chardetng::Utf8Detection::Allow);
    let (text, _) = enc.decode_without_bom_handling(bytes);
    Decoded { text: text.into_owned(), encoding: enc.name().to_ascii_lowercase(), decided: Decided::Detected }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_beats_declaration() {
        let d = decode(b"\xEF\xBB\xBF<meta charset=\"windows-1252\">caf\xC3\xA9", true);
        assert_eq!((d.encoding.as_str(), d.decided), ("utf-8", Decided::Bom));
        assert!(d.text.ends_with("café"));
    }

    #[test]
    fn meta_charset_and_http_equiv() {
        assert_eq!(declared(b"<html><head><meta charset='Shift_JIS'>"), Some(encoding_rs::SHIFT_JIS));
        assert_eq!(declared(b"<!-- <meta charset=koi8-r> --><META http-equiv=\"Content-Type\" content=\"text/html; charset=EUC-KR\">"), Some(encoding_rs::EUC_KR));
        assert_eq!(declared(b"<?xml version=\"1.0\" encoding=\"ISO-8859-7\"?><rss>"), Some(encoding_rs::ISO_8859_7));
        assert_eq!(declared(b"<meta charset=utf-16le>"), Some(UTF_8));
    }

    #[test]
    fn wrong_declaration_falls_back_to_detection() {
        // Declares UTF-8 but is windows-1251 Cyrillic.
        let mut bytes = b"<meta charset=utf-8><p>".to_vec();
        bytes.extend(encoding_rs::WINDOWS_1251.encode("Привет, как дела? Это проверка кодировки текста.").0.iter());
        let d = decode(&bytes, true);
        assert_eq!(d.decided, Decided::Detected);
        assert!(d.text.contains("Привет"), "{}", d.text);
    }

    #[test]
    fn utf32_by_bom() {
        let mut b = vec![0xFF, 0xFE, 0, 0];
        for c in "hé".chars() {
            b.extend((c as u32).to_le_bytes());
        }
        let d = decode(&b, false);
        assert_eq!((d.text.as_str(), d.encoding.as_str()), ("hé", "utf-32le"));
    }
}
