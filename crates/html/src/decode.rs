//! Bytes to text: a byte-order mark first, then what the document declares (`<meta
//! charset>`, `http-equiv` Content-Type, the XML declaration), then chardetng — also when a
//! declaration contradicts the bytes (they do not decode under it). Decoding is
//! encoding_rs. The prescan follows the WHATWG encoding-sniffing steps over the first
//! kilobyte; it reads bytes, not HTML.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};
use serde::Serialize;

/// WHATWG: the prescan looks at the first 1024 bytes.
const PRESCAN_BYTES: usize = 1024;

/// Bytes examined for the UTF-16/32 NUL pattern.
const NUL_SAMPLE: usize = 4096;
/// A byte position (mod 2 or 4) that is NUL this often holds the high bytes of mostly
/// ASCII/Latin code units...
const NUL_HIGH: f64 = 0.7;
/// ...while the low-byte position almost never is.
const NUL_LOW: f64 = 0.05;

/// Share of bytes ≥ 0x80 above which an 8-bit guess is re-checked against the Cyrillic
/// code pages: Russian feeds stay above it even under heavy markup; ASCII-only text never
/// triggers it (Western text that does is protected by the mixed-script penalty).
const CYRILLIC_HIGH_SHARE: f64 = 0.05;
/// A Cyrillic reading must score at least this (≈ clean Russian letters)...
const CYRILLIC_MIN_SCORE: f64 = 0.6;
/// ...and beat the detector's own guess by this much to replace it.
const CYRILLIC_MARGIN: f64 = 0.2;

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
    /// UTF-16/32 without a BOM, recognised by where its NUL bytes fall.
    NulPattern,
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

/// A tag's attribute: name and value bytes.
type Attribute = (Vec<u8>, Vec<u8>);

/// Attributes of one tag starting after its name; returns (attrs, end offset).
fn attributes(b: &[u8], mut i: usize) -> (Vec<Attribute>, usize) {
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

/// IBM code page 855, which encoding_rs lacks (not a web encoding): bytes 0x80–0xFF.
fn ibm855(bytes: &[u8]) -> String {
    static HIGH: std::sync::OnceLock<Vec<char>> = std::sync::OnceLock::new();
    let high = HIGH.get_or_init(|| include_str!("../data/ibm855.txt").chars().collect());
    bytes
        .iter()
        .map(|&b| if b < 0x80 { b as char } else { high.get(b as usize - 0x80).copied().unwrap_or('\u{FFFD}') })
        .collect()
}

fn is_core_cyrillic(c: char) -> bool {
    matches!(c, '\u{0410}'..='\u{044F}' | 'Ё' | 'ё')
}

/// Punctuation that Cyrillic code pages carry and Russian text uses.
const CYRILLIC_PUNCT: &[char] = &['«', '»', '—', '–', '…', '№', '“', '”', '„', '‘', '’', '•', '·', '©', '\u{A0}'];

/// How much `text` reads like Russian: +1 per core Cyrillic letter, +1 for a capital
/// starting a word, −3 for a capital inside a lower-case word, −5 for Cyrillic glued to
/// Latin letters, −4 for any other non-ASCII symbol; per non-ASCII character.
fn cyrillic_score(text: &str) -> f64 {
    let (mut score, mut n) = (0i64, 0i64);
    let mut prev: char = ' ';
    for c in text.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphabetic() && is_core_cyrillic(prev) {
                score -= 5;
            }
            prev = c;
            continue;
        }
        n += 1;
        if is_core_cyrillic(c) {
            score += 1;
            if prev.is_ascii_alphabetic() {
                score -= 5;
            }
            let upper = c.is_uppercase();
            if upper && !prev.is_alphabetic() {
                score += 1;
            }
            if upper && is_core_cyrillic(prev) && prev.is_lowercase() {
                score -= 3;
            }
        } else if !c.is_whitespace() && !CYRILLIC_PUNCT.contains(&c) {
            score -= 4;
        }
        prev = c;
    }
    if n == 0 { 0.0 } else { score as f64 / n as f64 }
}

/// An 8-bit guess re-checked against the Cyrillic code pages chardetng does not propose
/// (IBM855, Mac Cyrillic) or may confuse: the most Russian-looking reading, if clearly so.
fn cyrillic_recheck(bytes: &[u8], guess: &'static Encoding, guess_text: &str) -> Option<(String, String)> {
    let high = bytes.iter().filter(|&&b| b >= 0x80).count() as f64 / bytes.len().max(1) as f64;
    // Only guesses that can stand for Cyrillic bytes: the Cyrillic family, or a Western
    // page (what the detector says for code pages it does not know). Greek, Hebrew,
    // Arabic and Thai guesses are left alone.
    let rechecked: [&[u8]; 8] = [
        b"windows-1251",
        b"koi8-r",
        b"koi8-u",
        b"ibm866",
        b"iso-8859-5",
        b"x-mac-cyrillic",
        b"windows-1252",
        b"windows-1250",
    ];
    if high < CYRILLIC_HIGH_SHARE || !rechecked.iter().any(|l| Encoding::for_label(l) == Some(guess)) {
        return None;
    }
    let base = cyrillic_score(guess_text);
    let mut best: Option<(f64, String, String)> = None;
    let labels: [&[u8]; 5] = [b"windows-1251", b"koi8-r", b"ibm866", b"iso-8859-5", b"x-mac-cyrillic"];
    let candidates = labels
        .iter()
        .filter_map(|l| Encoding::for_label(l))
        .filter(|e| *e != guess)
        .map(|e| (e.name().to_ascii_lowercase(), e.decode_without_bom_handling(bytes).0.into_owned()))
        .chain(std::iter::once(("ibm855".to_string(), ibm855(bytes))));
    for (label, text) in candidates {
        let score = cyrillic_score(&text);
        if best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, label, text));
        }
    }
    let (score, label, text) = best?;
    (score >= CYRILLIC_MIN_SCORE && score > base + CYRILLIC_MARGIN).then_some((label, text))
}

/// UTF-16 or UTF-32 without a BOM: text in those is mostly code units below U+0100, so
/// their high bytes are NUL at fixed positions while 8-bit encodings never contain NUL.
fn nul_pattern(bytes: &[u8]) -> Option<(&'static str, String)> {
    let sample = &bytes[..bytes.len().min(NUL_SAMPLE) / 4 * 4];
    if sample.len() < 16 || !sample.contains(&0) {
        return None;
    }
    let share = |m: usize, r: usize| {
        sample.iter().skip(r).step_by(m).filter(|&&b| b == 0).count() as f64 / (sample.len() / m) as f64
    };
    let q: Vec<f64> = (0..4).map(|r| share(4, r)).collect();
    if q[1] > NUL_HIGH && q[2] > NUL_HIGH && q[3] > NUL_HIGH && q[0] < NUL_LOW {
        return utf32(bytes, false).map(|t| ("utf-32le", t));
    }
    if q[0] > NUL_HIGH && q[1] > NUL_HIGH && q[2] > NUL_HIGH && q[3] < NUL_LOW {
        return utf32(bytes, true).map(|t| ("utf-32be", t));
    }
    let (even, odd) = (share(2, 0), share(2, 1));
    let enc = if odd > NUL_HIGH && even < NUL_LOW {
        UTF_16LE
    } else if even > NUL_HIGH && odd < NUL_LOW {
        UTF_16BE
    } else {
        return None;
    };
    let (text, _) = enc.decode_without_bom_handling(bytes);
    Some((if enc == UTF_16LE { "utf-16le" } else { "utf-16be" }, text.into_owned()))
}

/// Decodes with a named encoding: WHATWG labels, plus `ibm855` and `utf-32[le|be]`,
/// which encoding_rs lacks. None for unknown labels.
pub fn decode_label(label: &str, bytes: &[u8]) -> Option<String> {
    match label.to_ascii_lowercase().as_str() {
        "ibm855" | "cp855" => Some(ibm855(bytes)),
        l @ ("utf-32" | "utf-32le" | "utf-32be") => match bytes {
            [0, 0, 0xFE, 0xFF, rest @ ..] => utf32(rest, true),
            [0xFF, 0xFE, 0, 0, rest @ ..] => utf32(rest, false),
            rest => utf32(rest, l == "utf-32be"),
        },
        l => Encoding::for_label(l.as_bytes()).map(|e| e.decode(bytes).0.into_owned()),
    }
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
    if let Some((label, text)) = nul_pattern(bytes) {
        return Decoded { text, encoding: label.into(), decided: Decided::NulPattern };
    }
    // Valid UTF-8 with non-ASCII bytes is UTF-8 (the detector would say so too, after
    // scanning everything); pure ASCII reads the same in the detector's Latin default,
    // unless escape bytes make it ISO-2022-JP.
    if let Ok(text) = std::str::from_utf8(bytes)
        && !bytes.contains(&0x1B)
    {
        let ascii = text.is_ascii();
        return Decoded {
            text: text.to_string(),
            encoding: if ascii { "windows-1252" } else { "utf-8" }.into(),
            decided: Decided::Detected,
        };
    }
    // We never run the document's scripts, so ISO-2022-JP is safe to detect; UTF-8 too.
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    det.feed(bytes, true);
    let enc = det.guess(None, chardetng::Utf8Detection::Allow);
    let (text, _) = enc.decode_without_bom_handling(bytes);
    if let Some((label, text)) = cyrillic_recheck(bytes, enc, &text) {
        return Decoded { text, encoding: label, decided: Decided::Detected };
    }
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
    fn bomless_utf16_and_utf32_by_nul_pattern() {
        let text = "Plain text without a byte order mark, écrit en français.";
        let le: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
        let be32: Vec<u8> = text.chars().flat_map(|c| (c as u32).to_be_bytes()).collect();
        for (bytes, label) in [(le, "utf-16le"), (be, "utf-16be"), (be32, "utf-32be")] {
            let d = decode(&bytes, false);
            assert_eq!((d.text.as_str(), d.encoding.as_str(), d.decided), (text, label, Decided::NulPattern));
        }
    }

    const RUSSIAN: &str =
        "Москва — столица России. Вчера в Москве прошёл дождь, а сегодня светит солнце. Президент выступил с речью.";

    #[test]
    fn mac_cyrillic_and_ibm855_are_recognised() {
        let mac = encoding_rs::Encoding::for_label(b"x-mac-cyrillic").unwrap().encode(RUSSIAN).0.into_owned();
        let d = decode(&mac, false);
        assert_eq!((d.encoding.as_str(), d.text.as_str()), ("x-mac-cyrillic", RUSSIAN));
        let table: Vec<char> = include_str!("../data/ibm855.txt").chars().collect();
        let ibm: Vec<u8> = RUSSIAN
            .chars()
            .map(|c| if c.is_ascii() { c as u8 } else { 0x80 + table.iter().position(|&t| t == c).unwrap_or(0) as u8 })
            .collect();
        let d = decode(&ibm, false);
        assert_eq!(d.encoding, "ibm855");
        assert_eq!(decode_label("ibm855", &ibm).as_deref(), Some(d.text.as_str()));
    }

    #[test]
    fn western_text_is_not_taken_for_cyrillic() {
        let french = encoding_rs::WINDOWS_1252
            .encode("Élève à l'école: ça coûte très cher, déjà réglé, été passé, señor.")
            .0
            .into_owned();
        assert_eq!(decode(&french, false).encoding, "windows-1252");
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
