//! Small helpers over lopdf objects: dereferencing with a bound, typed getters that
//! return `None` instead of erroring (broken files are the norm, not the exception).

use lopdf::{Dictionary, Document, Object, Stream};

/// A reference chain longer than this is a cycle or garbage.
const MAX_REFERENCE_CHAIN: usize = 32;

pub fn resolve<'a>(doc: &'a Document, mut obj: &'a Object) -> &'a Object {
    for _ in 0..MAX_REFERENCE_CHAIN {
        match obj {
            Object::Reference(id) => match doc.get_object(*id) {
                Ok(o) => obj = o,
                Err(_) => return &Object::Null,
            },
            _ => return obj,
        }
    }
    &Object::Null
}

pub fn get<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    dict.get(key).ok().map(|o| resolve(doc, o)).filter(|o| !matches!(o, Object::Null))
}

pub fn get_dict<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Dictionary> {
    match get(doc, dict, key)? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

pub fn get_stream<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Stream> {
    match get(doc, dict, key)? {
        Object::Stream(s) => Some(s),
        _ => None,
    }
}

pub fn get_name<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a [u8]> {
    match get(doc, dict, key)? {
        Object::Name(n) => Some(n),
        _ => None,
    }
}

pub fn get_array<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a [Object]> {
    match get(doc, dict, key)? {
        Object::Array(a) => Some(a),
        _ => None,
    }
}

pub fn number(doc: &Document, obj: &Object) -> Option<f32> {
    match resolve(doc, obj) {
        Object::Integer(i) => Some(*i as f32),
        Object::Real(r) if r.is_finite() => Some(*r),
        _ => None,
    }
}

pub fn get_number(doc: &Document, dict: &Dictionary, key: &[u8]) -> Option<f32> {
    dict.get(key).ok().and_then(|o| number(doc, o))
}

pub fn numbers(doc: &Document, arr: &[Object]) -> Vec<f32> {
    arr.iter().map(|o| number(doc, o).unwrap_or(0.0)).collect()
}

/// Text strings: UTF-16BE with BOM, UTF-8 with BOM, else PDFDocEncoding.
pub fn text_string(bytes: &[u8]) -> String {
    if bytes.starts_with(&[0xFE, 0xFF]) {
        crate::font::cmap::utf16be_to_string(&bytes[2..])
    } else if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        String::from_utf8_lossy(&bytes[3..]).into_owned()
    } else {
        bytes
            .iter()
            .filter_map(|&b| crate::font::encoding::BaseEncoding::PdfDoc.unicode(b).or(Some(b as char)))
            .collect()
    }
}

pub fn stream_bytes(stream: &Stream, limit: usize) -> Option<Vec<u8>> {
    if stream.dict.get(b"Filter").is_err() {
        return Some(stream.content.clone());
    }
    stream.decompressed_content_with_limit(limit).ok()
}
