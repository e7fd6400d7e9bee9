//! Fonts: from a font dictionary to, per character code, the text it stands for and
//! its advance. Simple fonts (Type1, MMType1, TrueType, Type3) and composite Type0 fonts
//! (CIDFontType0/2, Identity and predefined CMaps, vertical metrics).

pub mod cmap;
mod embedded;
pub mod encoding;
mod predefined;
mod std14;

use std::borrow::Cow;
use std::collections::HashMap;

use compact_str::CompactString;

use docsift_model::Matrix;
use lopdf::{Dictionary, Document, Object};

use crate::objects::{get, get_array, get_dict, get_name, get_number, get_stream, number, numbers, stream_bytes};
use cmap::CMap;
use embedded::EmbeddedFont;
use encoding::{BaseEncoding, glyph_name_to_unicode};
use predefined::Predefined;

pub use std14::strip_subset;

/// Advance of a glyph whose width no source gives: an average Latin glyph is about half
/// an em wide, which keeps boxes and word gaps plausible.
const FALLBACK_WIDTH: f32 = 0.5;
/// Descent used when neither the descriptor nor the font program states one (typical
/// Latin fonts descend about a fifth of an em).
const FALLBACK_DESCENT: f32 = -0.2;
/// Default vertical metrics of CIDFonts (ISO 32000 9.7.4.3, DW2).
const DEFAULT_DW2: (f32, f32) = (0.88, -1.0);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FontKind {
    Type1,
    TrueType,
    Type3,
    Type0,
}

/// How bytes of a shown string split into codes and codes into CIDs.
enum CodeMap {
    /// One byte per code (simple fonts).
    Single,
    Identity,
    CMap(Box<CMap>),
    Predefined(Predefined),
}

/// A loaded font with the name its text is reported under.
pub type NamedFont = (std::sync::Arc<Font>, std::sync::Arc<str>);

pub struct Font {
    pub name: String,
    pub kind: FontKind,
    pub vertical: bool,
    /// Glyph space to text space (1/1000 except for Type3).
    pub font_matrix: Matrix,
    /// Per unit of font size, in text space.
    pub ascent: f32,
    pub descent: f32,
    codes: CodeMap,
    to_unicode: Option<CMap>,
    /// Simple fonts: code -> text (ToUnicode folded in at load) and advance (text space
    /// per unit font size).
    simple_unicode: Vec<Option<CompactString>>,
    simple_widths: Vec<f32>,
    /// Composite fonts: CID ranges with widths (text space), sorted by first CID.
    cid_widths: Vec<(u32, u32, f32)>,
    default_width: f32,
    /// Vertical metrics per CID: (w1y, vx, vy) in text space.
    cid_vmetrics: Vec<(u32, u32, (f32, f32, f32))>,
    dw2: (f32, f32),
    /// CID -> text from the embedded program.
    cid_unicode: HashMap<u32, String>,
    /// The character collection (Adobe-Japan1...) named by CIDSystemInfo, if known.
    collection: Option<&'static predefined::CidTable>,
}

/// What one code of a shown string stands for.
pub struct Glyph {
    pub code: u32,
    /// Inline up to 24 bytes: cloning it per glyph does not allocate.
    pub text: Option<CompactString>,
    /// Horizontal advance in text space per unit font size (w0).
    pub width: f32,
    /// Vertical writing: (w1y, vx, vy) per unit font size.
    pub vmetrics: Option<(f32, f32, f32)>,
    /// A single-byte code 32: word spacing (Tw) applies.
    pub is_space_code: bool,
}

#[derive(Debug)]
pub enum FontError {
    NotAFont,
}

impl Font {
    pub fn load(doc: &Document, dict: &Dictionary, stream_limit: usize) -> Result<Font, FontError> {
        let subtype = get_name(doc, dict, b"Subtype").unwrap_or(b"Type1");
        let base =
            get_name(doc, dict, b"BaseFont").map(|n| String::from_utf8_lossy(n).into_owned()).unwrap_or_default();
        let kind = match subtype {
            b"Type0" => FontKind::Type0,
            b"Type3" => FontKind::Type3,
            b"TrueType" => FontKind::TrueType,
            b"Type1" | b"MMType1" | b"Type1C" | b"OpenType" => FontKind::Type1,
            _ if dict.has(b"FontMatrix") => FontKind::Type3,
            _ if dict.has(b"Widths") || dict.has(b"BaseFont") => FontKind::Type1,
            _ => return Err(FontError::NotAFont),
        };
        let to_unicode = get_stream(doc, dict, b"ToUnicode")
            .and_then(|s| stream_bytes(s, stream_limit))
            .map(|b| CMap::parse(&b))
            .filter(CMap::has_unicode);
        let mut font = Font {
            name: strip_subset(&base).to_string(),
            kind,
            vertical: false,
            font_matrix: Matrix([0.001, 0.0, 0.0, 0.001, 0.0, 0.0]),
            ascent: 0.8,
            descent: FALLBACK_DESCENT,
            codes: CodeMap::Single,
            to_unicode,
            simple_unicode: Vec::new(),
            simple_widths: Vec::new(),
            cid_widths: Vec::new(),
            default_width: 1.0,
            cid_vmetrics: Vec::new(),
            dw2: DEFAULT_DW2,
            cid_unicode: HashMap::new(),
            collection: None,
        };
        if kind == FontKind::Type0 {
            font.load_composite(doc, dict, stream_limit);
        } else {
            font.load_simple(doc, dict, stream_limit);
        }
        Ok(font)
    }

    fn load_descriptor_metrics(
        &mut self,
        doc: &Document,
        descriptor: Option<&Dictionary>,
        program: Option<&EmbeddedFont>,
        std: Option<&std14::Std14>,
    ) {
        let scale = self.font_matrix.0[3];
        let desc = descriptor.and_then(|d| get_number(doc, d, b"Descent")).filter(|v| *v != 0.0);
        let asc = descriptor.and_then(|d| get_number(doc, d, b"Ascent")).filter(|v| *v != 0.0);
        if let Some(d) = desc {
            self.descent = d * scale;
        } else if let Some(s) = std {
            self.descent = s.descent / 1000.0;
        } else if let Some((_, d)) = program.and_then(EmbeddedFont::vertical_extent) {
            self.descent = d;
        }
        if let Some(a) = asc {
            self.ascent = a * scale;
        } else if let Some(s) = std {
            self.ascent = s.ascent / 1000.0;
        } else if let Some((a, _)) = program.and_then(EmbeddedFont::vertical_extent) {
            self.ascent = a;
        }
    }

    fn load_simple(&mut self, doc: &Document, dict: &Dictionary, stream_limit: usize) {
        if self.kind == FontKind::Type3 {
            if let Some(m) = get_array(doc, dict, b"FontMatrix").map(|a| numbers(doc, a)).filter(|m| m.len() == 6) {
                let fm = Matrix([m[0], m[1], m[2], m[3], m[4], m[5]]);
                if fm.is_finite() && fm.0[0] != 0.0 {
                    self.font_matrix = fm;
                }
            }
            if let Some(b) =
                get_array(doc, dict, b"FontBBox").map(|a| numbers(doc, a)).filter(|b| b.len() == 4 && b[1] != b[3])
            {
                self.descent = b[1].min(b[3]) * self.font_matrix.0[3];
                self.ascent = b[1].max(b[3]) * self.font_matrix.0[3];
            }
        }
        let descriptor = get_dict(doc, dict, b"FontDescriptor");
        let program = descriptor.and_then(|d| EmbeddedFont::load(doc, d, stream_limit));
        let std = if program.is_none() { std14::lookup(&self.name) } else { None };
        if self.kind != FontKind::Type3 {
            self.load_descriptor_metrics(doc, descriptor, program.as_ref(), std);
        }
        let flags = descriptor.and_then(|d| get_number(doc, d, b"Flags")).unwrap_or(0.0) as u32;
        let symbolic_flag = flags & 4 != 0 && flags & 32 == 0;

        // Encoding: base + Differences (glyph names per code).
        let mut names: Vec<Option<String>> = vec![None; 256];
        let mut base: Option<BaseEncoding> = None;
        match get(doc, dict, b"Encoding") {
            Some(Object::Name(n)) => base = BaseEncoding::from_name(n),
            Some(Object::Dictionary(enc)) => {
                base = get_name(doc, enc, b"BaseEncoding").and_then(BaseEncoding::from_name);
                if let Some(diffs) = get_array(doc, enc, b"Differences") {
                    let mut code = 0usize;
                    for item in diffs {
                        match crate::objects::resolve(doc, item) {
                            Object::Integer(i) => code = (*i).clamp(0, 256) as usize,
                            Object::Real(r) => code = r.clamp(0.0, 256.0) as usize,
                            Object::Name(n) => {
                                if code < 256 {
                                    names[code] = Some(String::from_utf8_lossy(n).into_owned());
                                }
                                code += 1;
                            }
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
        let builtin_std = std.filter(|s| s.symbolic);
        let use_builtin = base.is_none() && (builtin_std.is_some() || (symbolic_flag && program.is_some()));
        let default_base = match self.kind {
            FontKind::TrueType if !symbolic_flag => BaseEncoding::WinAnsi,
            _ => BaseEncoding::Standard,
        };
        let mut unicode: Vec<Option<CompactString>> = vec![None; 256];
        let mut widths = vec![f32::NAN; 256];
        for code in 0..256usize {
            let mut name: Option<Cow<str>> = names[code].as_deref().map(Cow::Borrowed);
            if name.is_none()
                && use_builtin
                && let Some(s) = builtin_std
            {
                name = s.builtin[code].map(Cow::Borrowed);
            }
            if name.is_none()
                && use_builtin
                && let Some(p) = &program
            {
                name = p.builtin_glyph_name(code as u8).map(Cow::Owned);
            }
            if name.is_none() && !(use_builtin && program.is_some()) {
                name = base.unwrap_or(default_base).glyph_name(code as u8).map(Cow::Borrowed);
            }
            let mut text = name.as_deref().and_then(glyph_name_to_unicode);
            if text.is_none()
                && let (Some(n), Some(p)) = (&name, &program)
            {
                text = p.unicode_for_name(n);
            }
            if text.is_none()
                && use_builtin
                && let Some(p) = &program
            {
                text = p.unicode_for_code(code as u8);
            }
            unicode[code] =
                self.to_unicode.as_ref().and_then(|t| t.lookup_unicode(code as u32)).or(text.map(CompactString::from));
            // Width from the standard metrics by glyph name, or the font program.
            if let Some(s) = std {
                let w = name
                    .as_deref()
                    .and_then(|n| s.widths.get(n))
                    .or_else(|| unicode[code].as_deref().and_then(|u| s.width_for_text(u)));
                if let Some(w) = w {
                    widths[code] = *w as f32 / 1000.0;
                }
            } else if let Some(p) = &program
                && let Some(w) = p.advance(code as u8, name.as_deref(), symbolic_flag || use_builtin)
            {
                widths[code] = w;
            }
        }
        // /Widths win over everything else.
        if let Some(w) = get_array(doc, dict, b"Widths") {
            let first = get_number(doc, dict, b"FirstChar").unwrap_or(0.0).max(0.0) as usize;
            let missing =
                descriptor.and_then(|d| get_number(doc, d, b"MissingWidth")).map(|m| m * self.font_matrix.0[0]);
            for (i, obj) in w.iter().enumerate() {
                if let (Some(slot), Some(v)) = (widths.get_mut(first + i), number(doc, obj)) {
                    *slot = v * self.font_matrix.0[0];
                }
            }
            if let Some(m) = missing {
                for (code, slot) in widths.iter_mut().enumerate() {
                    if code < first || code >= first + w.len() {
                        *slot = m;
                    }
                }
            }
        }
        for w in widths.iter_mut() {
            if !w.is_finite() {
                *w = if self.kind == FontKind::Type3 { 0.0 } else { FALLBACK_WIDTH };
            }
        }
        self.simple_unicode = unicode;
        self.simple_widths = widths;
    }

    fn load_composite(&mut self, doc: &Document, dict: &Dictionary, stream_limit: usize) {
        match get(doc, dict, b"Encoding") {
            Some(Object::Name(n)) => {
                let name = String::from_utf8_lossy(n);
                self.vertical = name.ends_with("-V") || name == "V";
                self.codes = match name.as_ref() {
                    "Identity-H" | "Identity-V" => CodeMap::Identity,
                    other => Predefined::from_name(other).map(CodeMap::Predefined).unwrap_or(CodeMap::Identity),
                };
            }
            Some(Object::Stream(s)) => {
                let mut cm = stream_bytes(s, stream_limit).map(|b| CMap::parse(&b)).unwrap_or_default();
                if let Some(Object::Stream(ps)) = get(doc, &s.dict, b"UseCMap")
                    && let Some(pb) = stream_bytes(ps, stream_limit)
                {
                    cm.inherit(&CMap::parse(&pb));
                }
                self.vertical = cm.wmode == 1 || get_number(doc, &s.dict, b"WMode") == Some(1.0);
                self.codes = if cm.codespace.is_empty() { CodeMap::Identity } else { CodeMap::CMap(Box::new(cm)) };
            }
            _ => self.codes = CodeMap::Identity,
        }
        let Some(cid_font) = get_array(doc, dict, b"DescendantFonts")
            .and_then(|a| a.first())
            .map(|o| crate::objects::resolve(doc, o))
            .and_then(|o| o.as_dict().ok())
        else {
            return;
        };
        let descriptor = get_dict(doc, cid_font, b"FontDescriptor");
        let program = descriptor.and_then(|d| EmbeddedFont::load(doc, d, stream_limit));
        self.load_descriptor_metrics(doc, descriptor, program.as_ref(), None);
        self.default_width = get_number(doc, cid_font, b"DW").map(|w| w / 1000.0).unwrap_or(1.0);
        if let Some(w) = get_array(doc, cid_font, b"W") {
            self.cid_widths = parse_w_array(doc, w, 1).into_iter().map(|(lo, hi, v)| (lo, hi, v[0] / 1000.0)).collect();
            self.cid_widths.sort_by_key(|r| r.0);
        }
        if let Some(dw2) = get_array(doc, cid_font, b"DW2").map(|a| numbers(doc, a)).filter(|a| a.len() == 2) {
            self.dw2 = (dw2[0] / 1000.0, dw2[1] / 1000.0);
        }
        if let Some(w2) = get_array(doc, cid_font, b"W2") {
            self.cid_vmetrics = parse_w_array(doc, w2, 3)
                .into_iter()
                .map(|(lo, hi, v)| (lo, hi, (v[0] / 1000.0, v[1] / 1000.0, v[2] / 1000.0)))
                .collect();
            self.cid_vmetrics.sort_by_key(|r| r.0);
        }
        // Fallback text for CIDs: the embedded program's own cmap, then the collection table.
        if self.to_unicode.is_none() && !matches!(self.codes, CodeMap::Predefined(ref p) if p.decodes_to_unicode()) {
            let cid_to_gid: Option<Vec<u16>> = get_stream(doc, cid_font, b"CIDToGIDMap")
                .and_then(|s| stream_bytes(s, stream_limit))
                .map(|b| b.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect());
            if let Some(p) = &program {
                self.cid_unicode = p.cid_unicode_map(cid_to_gid.as_deref());
            }
        }
        if let Some(info) = get_dict(doc, cid_font, b"CIDSystemInfo")
            && let Some(Object::String(ordering, _)) = get(doc, info, b"Ordering")
        {
            self.collection = predefined::collection(&String::from_utf8_lossy(ordering));
        }
    }

    /// Splits a shown string into glyphs.
    pub fn glyphs<'s>(&'s self, bytes: &'s [u8]) -> impl Iterator<Item = Glyph> + 's {
        let mut pos = 0;
        std::iter::from_fn(move || {
            if pos >= bytes.len() {
                return None;
            }
            let rest = &bytes[pos..];
            let (code, len) = match &self.codes {
                CodeMap::Single => (rest[0] as u32, 1),
                CodeMap::Identity => {
                    if rest.len() >= 2 {
                        (u16::from_be_bytes([rest[0], rest[1]]) as u32, 2)
                    } else {
                        (rest[0] as u32, 1)
                    }
                }
                CodeMap::CMap(cm) => cm.next_code(rest),
                CodeMap::Predefined(p) => p.next_code(rest),
            };
            let len = len.max(1);
            pos += len;
            Some(self.glyph(code, &rest[..len.min(rest.len())]))
        })
    }

    fn glyph(&self, code: u32, code_bytes: &[u8]) -> Glyph {
        if let CodeMap::Single = self.codes {
            let c = code as usize & 0xFF;
            let text = self.simple_unicode[c].clone();
            return Glyph { code, text, width: self.simple_widths[c], vmetrics: None, is_space_code: code == 32 };
        }
        let cid = match &self.codes {
            CodeMap::CMap(cm) => cm.lookup_cid(code).unwrap_or(code),
            CodeMap::Predefined(p) => p.cid(code_bytes).unwrap_or(code),
            _ => code,
        };
        let text = self
            .to_unicode
            .as_ref()
            .and_then(|t| t.lookup_unicode(code))
            .or_else(|| match &self.codes {
                CodeMap::Predefined(p) => p.decode(code_bytes).map(CompactString::from),
                _ => None,
            })
            .or_else(|| self.cid_unicode.get(&cid).map(|s| CompactString::from(s.as_str())))
            .or_else(|| {
                self.collection.and_then(|c| c.unicode(cid)).map(|c| CompactString::from(&*c.encode_utf8(&mut [0; 4])))
            });
        let width = lookup_range(&self.cid_widths, cid).unwrap_or(self.default_width);
        let vmetrics = self
            .vertical
            .then(|| lookup_range(&self.cid_vmetrics, cid).unwrap_or((self.dw2.1, width / 2.0, self.dw2.0)));
        Glyph { code, text, width, vmetrics, is_space_code: code == 32 && code_bytes.len() == 1 }
    }
}

fn lookup_range<T: Copy>(ranges: &[(u32, u32, T)], cid: u32) -> Option<T> {
    let idx = ranges.partition_point(|r| r.0 <= cid);
    ranges[..idx].iter().rev().take(4).find(|r| cid <= r.1).map(|r| r.2)
}

/// Parses `W`/`W2` arrays: `c [v...]` and `cfirst clast v` forms, `n` values per CID.
fn parse_w_array(doc: &Document, arr: &[Object], n: usize) -> Vec<(u32, u32, Vec<f32>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < arr.len() {
        let Some(first) = number(doc, &arr[i]) else {
            i += 1;
            continue;
        };
        let first = first.max(0.0) as u32;
        match arr.get(i + 1).map(|o| crate::objects::resolve(doc, o)) {
            Some(Object::Array(vals)) => {
                let vals = numbers(doc, vals);
                for (k, chunk) in vals.chunks_exact(n).enumerate() {
                    let c = first.saturating_add(k as u32);
                    out.push((c, c, chunk.to_vec()));
                }
                i += 2;
            }
            Some(_) => {
                let last = arr.get(i + 1).and_then(|o| number(doc, o)).unwrap_or(0.0).max(0.0) as u32;
                let vals: Vec<f32> =
                    (0..n).map(|k| arr.get(i + 2 + k).and_then(|o| number(doc, o)).unwrap_or(0.0)).collect();
                if last >= first {
                    out.push((first, last, vals));
                }
                i += 2 + n;
            }
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::dictionary;

    fn font(dict: Dictionary) -> Font {
        Font::load(&Document::new(), &dict, 1 << 20).unwrap()
    }

    #[test]
    fn winansi_with_differences() {
        let f = font(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            "Encoding" => dictionary! { "BaseEncoding" => "WinAnsiEncoding", "Differences" => vec![65.into(), "Euro".into(), "fi".into()] },
        });
        let g: Vec<_> = f.glyphs(b"AB\x80C").map(|g| g.text.unwrap().to_string()).collect();
        assert_eq!(g, ["€", "ﬁ", "€", "C"]);
        let w: Vec<f32> = f.glyphs(b"C").map(|g| g.width).collect();
        assert_eq!(w, [0.722]);
    }

    #[test]
    fn widths_array_and_missing_width() {
        let f = font(dictionary! {
            "Subtype" => "Type1", "BaseFont" => "Custom", "FirstChar" => 65, "Widths" => vec![600.into(), 700.into()],
            "FontDescriptor" => dictionary! { "MissingWidth" => 250, "Descent" => -300 },
        });
        let w: Vec<f32> = f.glyphs(b"ABZ").map(|g| g.width).collect();
        assert!(w.iter().zip([0.6, 0.7, 0.25]).all(|(a, b)| (a - b).abs() < 1e-6), "{w:?}");
        assert_eq!(f.descent, -0.3);
    }

    #[test]
    fn w_array_both_forms() {
        let doc = Document::new();
        let w = vec![1.into(), vec![500.into(), 600.into()].into(), 10.into(), 20.into(), 300.into()];
        let r = parse_w_array(&doc, &w, 1);
        assert_eq!(r, vec![(1, 1, vec![500.0]), (2, 2, vec![600.0]), (10, 20, vec![300.0])]);
    }

    #[test]
    fn symbol_font_uses_builtin_encoding() {
        let f = font(dictionary! { "Subtype" => "Type1", "BaseFont" => "Symbol" });
        let t: String = f.glyphs(b"abg").map(|g| g.text.unwrap().to_string()).collect();
        assert_eq!(t, "αβγ");
    }
}
