//! The page wire format between wasm and JS. Building one JS object per character through
//! serde-wasm-bindgen costs ~3 µs each (seconds for a book); instead each page's chars,
//! words and lines travel as typed arrays (transferred, not copied, to the main thread)
//! plus joined strings with UTF-16 end offsets, and pkg/decode.js rebuilds the docsift/1
//! objects lazily. Small collections (segments, rects, images, trust, warnings) go through
//! serde-wasm-bindgen as they are.

use std::collections::HashMap;
use std::sync::Arc;

use docsift::Page;
use docsift::model::{Direction, Origin};
use js_sys::{Array, Float32Array, Object, Reflect, Uint8Array, Uint16Array, Uint32Array};
use wasm_bindgen::JsValue;

use crate::to_js;

/// Floats per char: x0, top, x1, bottom, size, the 6 matrix entries, OCR confidence (NaN
/// for native glyphs).
pub const CHAR_FLOATS: usize = 12;
/// Floats per word: x0, top, x1, bottom, size, OCR confidence (NaN for native words).
pub const WORD_FLOATS: usize = 6;
/// Marks "none" in the u16 index columns (colour, tag).
const NONE: u16 = u16::MAX;

fn direction_code(d: Direction) -> u8 {
    match d {
        Direction::Ltr => 0,
        Direction::Rtl => 1,
        Direction::Ttb => 2,
        Direction::Btt => 3,
    }
}

/// Interns shared values (fonts, colours, tags) into a table; returns their index.
/// Neighbouring chars mostly share them, so the last value is checked before the map: per
/// char, hashing font names was a tenth of a page's time in the browser.
struct Interner<K> {
    index: HashMap<K, u16>,
    order: Vec<K>,
    last: Option<u16>,
}

impl<K: std::hash::Hash + Eq> Interner<K> {
    fn new() -> Self {
        Interner { index: HashMap::new(), order: Vec::new(), last: None }
    }

    fn get<Q>(&mut self, k: &Q) -> u16
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(i) = self.last.filter(|&i| self.order[i as usize].borrow() == k) {
            return i;
        }
        let i = match self.index.get(k) {
            Some(&i) => i,
            None => {
                let i = self.order.len().min(NONE as usize - 1) as u16;
                self.index.insert(k.to_owned(), i);
                self.order.push(k.to_owned());
                i
            }
        };
        self.last = Some(i);
        i
    }
}

/// Joins strings, recording each one's end as a UTF-16 offset (what JS slices by).
struct Joined {
    text: String,
    ends: Vec<u32>,
    utf16: u32,
}

impl Joined {
    fn with_capacity(n: usize) -> Self {
        Joined { text: String::with_capacity(n * 2), ends: Vec::with_capacity(n), utf16: 0 }
    }

    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.utf16 += s.chars().map(|c| c.len_utf16() as u32).sum::<u32>();
        self.ends.push(self.utf16);
    }
}

fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

fn strings(items: impl Iterator<Item = String>) -> Array {
    items.map(|s| JsValue::from_str(&s)).collect()
}

/// Column arrays of one collection (chars, words or lines).
#[derive(Default)]
struct Columns {
    n: u32,
    f: Vec<f32>,
    flags: Vec<u8>,
    font: Vec<u16>,
    color: Vec<u16>,
    tag: Vec<u16>,
    words: Vec<u32>,
    text: Joined,
}

impl Default for Joined {
    fn default() -> Self {
        Joined::with_capacity(0)
    }
}

impl Columns {
    /// The columns as a JS object; index columns a collection does not use are left out.
    fn to_js(&self) -> Object {
        let obj = Object::new();
        set(&obj, "n", self.n);
        set(&obj, "f", Float32Array::from(&self.f[..]));
        set(&obj, "flags", Uint8Array::from(&self.flags[..]));
        set(&obj, "text", self.text.text.as_str());
        set(&obj, "ends", Uint32Array::from(&self.text.ends[..]));
        for (key, col) in [("font", &self.font), ("color", &self.color), ("tag", &self.tag)] {
            if !col.is_empty() {
                set(&obj, key, Uint16Array::from(&col[..]));
            }
        }
        if !self.words.is_empty() {
            set(&obj, "words", Uint32Array::from(&self.words[..]));
        }
        obj
    }
}

/// A page in wire form, built from plain Rust data (so on the pool thread that extracted
/// it); only `to_js` touches JS and runs on the worker's own thread.
pub struct WirePage {
    /// The page with its chars, words and lines moved into the columns.
    page: Page,
    chars: Columns,
    words: Columns,
    lines: Columns,
    fonts: Vec<Arc<str>>,
    colors: Vec<Vec<u32>>,
    tags: Vec<Arc<str>>,
    /// Auto mode would OCR this page and it was not: the worker sends it to the OCR build.
    needs_ocr: bool,
}

impl WirePage {
    pub fn build(mut page: Page) -> WirePage {
        let needs_ocr = page.ocr.is_none() && docsift::needs_ocr(&page);
        let mut fonts: Interner<Arc<str>> = Interner::new();
        let mut colors: Interner<Vec<u32>> = Interner::new();
        let mut tags: Interner<Arc<str>> = Interner::new();

        let n = page.chars.len();
        let mut chars = Columns { n: n as u32, text: Joined::with_capacity(n), ..Columns::default() };
        chars.f.reserve(n * CHAR_FLOATS);
        let mut color_bits = Vec::new();
        for c in &page.chars {
            let b = c.bbox;
            chars.f.extend_from_slice(&[b.x0, b.top, b.x1, b.bottom, c.size]);
            chars.f.extend_from_slice(&c.matrix.0);
            chars.f.push(match c.origin {
                Origin::Native => f32::NAN,
                Origin::Ocr { confidence } => confidence,
            });
            chars.flags.extend_from_slice(&[c.upright as u8, direction_code(c.direction)]);
            chars.font.push(fonts.get(&c.font));
            // Colours are interned by their bits so equal floats share an entry.
            chars.color.push(if c.color.is_empty() {
                NONE
            } else {
                color_bits.clear();
                color_bits.extend(c.color.iter().map(|v| v.to_bits()));
                colors.get(&color_bits[..])
            });
            chars.tag.push(c.tag.as_ref().map_or(NONE, |t| tags.get(t)));
            chars.text.push(&c.text);
        }

        let n = page.words.len();
        let mut words = Columns { n: n as u32, text: Joined::with_capacity(n), ..Columns::default() };
        words.f.reserve(n * WORD_FLOATS);
        for w in &page.words {
            let b = w.bbox;
            words.f.extend_from_slice(&[b.x0, b.top, b.x1, b.bottom, w.size, w.confidence.unwrap_or(f32::NAN)]);
            words.flags.extend_from_slice(&[w.upright as u8, direction_code(w.direction)]);
            words.font.push(fonts.get(&w.font));
            words.text.push(&w.text);
        }

        let n = page.lines.len();
        let mut lines = Columns { n: n as u32, text: Joined::with_capacity(n), ..Columns::default() };
        for l in &page.lines {
            let b = l.bbox;
            lines.f.extend_from_slice(&[b.x0, b.top, b.x1, b.bottom]);
            lines.flags.push(direction_code(l.direction));
            lines.words.extend_from_slice(&[l.words.start as u32, l.words.end as u32]);
            lines.text.push(&l.text);
        }
        page.chars = Vec::new();
        page.words = Vec::new();
        page.lines = Vec::new();
        WirePage { page, chars, words, lines, fonts: fonts.order, colors: colors.order, tags: tags.order, needs_ocr }
    }

    /// The wire object pkg/decode.js reads.
    pub fn to_js(&self) -> JsValue {
        let page = &self.page;
        let obj = Object::new();
        set(&obj, "number", page.number as u32);
        set(&obj, "width", page.width);
        set(&obj, "height", page.height);
        set(&obj, "rotation", page.rotation);
        set(&obj, "text", page.text.as_str());
        set(&obj, "segments", to_js(&page.segments));
        set(&obj, "rects", to_js(&page.rects));
        set(&obj, "images", to_js(&page.images));
        set(&obj, "trust", to_js(&page.trust));
        if !page.warnings.is_empty() {
            set(&obj, "warnings", to_js(&page.warnings));
        }
        if !page.blocks.is_empty() {
            set(&obj, "blocks", to_js(&page.blocks));
        }
        if let Some(ocr) = &page.ocr {
            set(&obj, "ocr", to_js(ocr));
        }
        if self.needs_ocr {
            set(&obj, "needsOcr", true);
        }
        set(&obj, "chars", self.chars.to_js());
        set(&obj, "words", self.words.to_js());
        set(&obj, "lines", self.lines.to_js());
        set(&obj, "fonts", strings(self.fonts.iter().map(|s| s.to_string())));
        let color_table: Array = self
            .colors
            .iter()
            .map(|bits| -> JsValue { bits.iter().map(|b| JsValue::from(f32::from_bits(*b))).collect::<Array>().into() })
            .collect();
        set(&obj, "colors", color_table);
        set(&obj, "tags", strings(self.tags.iter().map(|s| s.to_string())));
        obj.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interner_numbers_values_in_first_seen_order_across_repeats() {
        let mut fonts: Interner<Arc<str>> = Interner::new();
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("Times"), Arc::from("Helvetica"));
        let seen: Vec<u16> = [&a, &a, &b, &b, &a, &Arc::from("Times"), &b].iter().map(|k| fonts.get(*k)).collect();
        assert_eq!(seen, [0, 0, 1, 1, 0, 0, 1]);
        let mut colors: Interner<Vec<u32>> = Interner::new();
        assert_eq!([colors.get(&[1u32, 2][..]), colors.get(&[3u32][..]), colors.get(&[1u32, 2][..])], [0, 1, 0]);
        assert_eq!(colors.order, [vec![1, 2], vec![3]]);
    }
}
