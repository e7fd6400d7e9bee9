//! docsift's data model: geometry in pdfplumber's convention (points, origin at the
//! top-left of the displayed page, y down), the extracted objects (chars, words, lines,
//! graphics), pages, documents and the error kinds shared by every crate. No I/O here.

mod error;
mod geometry;

pub use compact_str::CompactString;
pub use error::{Error, ErrorKind, Warning};
pub use geometry::{BBox, Matrix};

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Version tag of the JSON document; bump when a field changes meaning.
pub const SCHEMA: &str = "docsift/1";

fn is_empty_slice(s: &Arc<[f32]>) -> bool {
    s.is_empty()
}

/// Where a character came from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Origin {
    Native,
    Ocr { confidence: f32 },
}

/// Reading direction of a run of characters on the displayed page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Ltr,
    Rtl,
    Ttb,
    Btt,
}

/// One glyph as placed on the page. `text` may hold several code points (ligatures
/// expanded, combining marks).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Char {
    /// Inline up to 24 bytes: no allocation per glyph.
    pub text: CompactString,
    pub bbox: BBox,
    /// Shared by every glyph of the font.
    pub font: Arc<str>,
    pub size: f32,
    pub upright: bool,
    /// Direction the text advances in on the displayed page.
    pub direction: Direction,
    pub origin: Origin,
    /// The text rendering matrix (font space to displayed page space, y down).
    pub matrix: Matrix,
    /// Fill colour components in the colour space in force (1 gray, 3 RGB, 4 CMYK),
    /// shared by the glyphs drawn in it.
    #[serde(default, skip_serializing_if = "is_empty_slice")]
    pub color: Arc<[f32]>,
    /// Marked-content tag (e.g. `Span`, `P`) in force when the glyph was shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<Arc<str>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Word {
    pub text: String,
    pub bbox: BBox,
    pub upright: bool,
    pub direction: Direction,
    pub font: Arc<str>,
    pub size: f32,
    /// For a word OCR read, the least confidence among its characters (one misread letter
    /// makes the word wrong, as in tesseract's word confidence); none for native glyphs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub text: String,
    pub bbox: BBox,
    pub direction: Direction,
    /// Indices into the page's `words`.
    pub words: std::ops::Range<usize>,
}

/// A straight segment from a path, after the CTM (ruling lines for tables).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
    pub width: f32,
    pub stroke: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    pub bbox: BBox,
    pub stroke: bool,
    pub fill: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Image {
    pub bbox: BBox,
    pub width: u32,
    pub height: u32,
    pub filter: Option<String>,
    /// Object number of the image XObject (absent for inline images).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<u32>,
    /// Width and height of the image's own mask (a soft mask, or a stencil mask stream),
    /// which is a picture of its own size, decoded beside the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<[u32; 2]>,
}

/// What a block of a page is (from a layout model or, later, from rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    Title,
    Heading(u8),
    Text,
    List,
    Table,
    Figure,
    Caption,
    Formula,
    Header,
    Footer,
    Reference,
}

/// A region of a page with a kind, and the page's lines inside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub kind: BlockKind,
    pub bbox: BBox,
    /// Indices into the page's `lines` whose centre lies in the block.
    pub lines: Vec<usize>,
    /// The detector's confidence, for blocks from a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
}

/// How a page's text came from OCR.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OcrInfo {
    /// The model runtime that ran (`tract`, `wonnx`).
    pub engine: String,
    /// Resolution the page was read at (pixels per inch; for images, the file's own pixels
    /// count as 72 dpi).
    pub dpi: f32,
    /// Mean character confidence.
    pub confidence: f32,
    /// Native characters kept in layout regions (hybrid mode) rather than recognised.
    pub hybrid: bool,
}

/// How far the native text of a page can be trusted; below ~0.5 a later stage should OCR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TextTrust {
    /// 0 (garbage or nothing) ..= 1 (every glyph mapped to ordinary text).
    pub score: f32,
    pub glyphs: u32,
    /// Glyphs whose code had no Unicode mapping at all.
    pub unmapped: u32,
    /// Glyphs mapped into private-use areas or to control characters.
    pub private_use: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// 1-based page number.
    pub number: usize,
    pub width: f32,
    pub height: f32,
    pub rotation: i32,
    pub text: String,
    pub chars: Vec<Char>,
    pub words: Vec<Word>,
    pub lines: Vec<Line>,
    pub segments: Vec<Segment>,
    pub rects: Vec<Rect>,
    pub images: Vec<Image>,
    pub trust: TextTrust,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr: Option<OcrInfo>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub page_count: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    pub encrypted: bool,
    /// The cross-reference table had to be rebuilt by scanning the file.
    pub repaired: bool,
    pub pdf_version: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub schema: String,
    pub meta: Meta,
    pub pages: Vec<Page>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

impl Document {
    pub fn new(meta: Meta, pages: Vec<Page>, warnings: Vec<Warning>) -> Self {
        Document { schema: SCHEMA.to_string(), meta, pages, warnings }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_serialises_with_schema_tag() {
        let doc = Document::new(Meta::default(), vec![Page::default()], vec![]);
        let json = serde_json::to_value(&doc).unwrap();
        assert_eq!(json["schema"], SCHEMA);
        assert_eq!(json["pages"].as_array().unwrap().len(), 1);
        let back: Document = serde_json::from_value(json).unwrap();
        assert_eq!(back, doc);
    }

    #[test]
    fn ocr_origin_carries_confidence() {
        let json = serde_json::to_string(&Origin::Ocr { confidence: 0.5 }).unwrap();
        assert_eq!(json, r#"{"kind":"ocr","confidence":0.5}"#);
    }
}
