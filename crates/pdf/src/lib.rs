//! docsift's PDF reader. Opens files with lopdf (classic and stream xrefs, object streams,
//! incremental updates, xref repair, RC4/AES decryption), walks the page tree, and runs a
//! content-stream interpreter that turns each page into characters with boxes, ruling
//! segments, rectangles and image placements in displayed-page coordinates. Word and
//! line assembly live in docsift-layout; this crate knows nothing of files or threads.

mod crypt;
mod document;
mod error;
pub mod font;
mod interp;
mod lexer;
mod objects;
mod pictures;

use docsift_model::{BBox, Char, Direction, Image, Origin, Page, Rect, Segment, Warning};

pub use document::{Limits, PageInfo, PdfDocument, has_header, looks_like_headerless_pdf};
pub use error::PdfError;
pub use interp::{Device, Interpreter, ShownGlyph};
pub use pictures::{IndirectPicture, JpxPicture, MAX_CONTENT_BYTES_SCANNED, PagePictures, PicturePlace, page_pictures};

/// Glyphs with a box this far outside the page are off-page (invisible) and dropped;
/// a small margin keeps glyphs that merely overhang the edge.
const OFF_PAGE_MARGIN: f32 = 1.0;

/// Collects what a page shows into a model page (chars and graphics, no layout yet).
struct PageCollector {
    page: Page,
    bounds: BBox,
}

fn is_garbage_char(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF | 0xFFFD) || (c.is_control() && !c.is_whitespace())
}

impl Device for PageCollector {
    fn glyph(&mut self, g: &ShownGlyph) {
        let b = &self.bounds;
        let off_page = g.bbox.x1 < b.x0 - OFF_PAGE_MARGIN
            || g.bbox.x0 > b.x1 + OFF_PAGE_MARGIN
            || g.bbox.bottom < b.top - OFF_PAGE_MARGIN
            || g.bbox.top > b.bottom + OFF_PAGE_MARGIN;
        if off_page {
            return;
        }
        let trust = &mut self.page.trust;
        trust.glyphs += 1;
        if !g.mapped {
            trust.unmapped += 1;
        } else if g.text.chars().any(is_garbage_char) {
            trust.private_use += 1;
        }
        // Upright: the glyph's up vector points up the displayed page.
        let upright = g.up_dir.1 > 0.0 && g.up_dir.1.abs() >= g.up_dir.0.abs();
        let (ax, ay) = g.advance_dir;
        let direction = if ax.abs() >= ay.abs() {
            if ax >= 0.0 { Direction::Ltr } else { Direction::Rtl }
        } else if ay > 0.0 {
            Direction::Ttb
        } else {
            Direction::Btt
        };
        self.page.chars.push(Char {
            text: g.text.into(),
            bbox: g.bbox,
            font: g.font.clone(),
            size: g.size,
            upright,
            direction,
            origin: Origin::Native,
            matrix: g.matrix,
            color: g.fill_color.clone(),
            tag: g.tag.cloned(),
        });
    }

    fn segment(&mut self, from: (f32, f32), to: (f32, f32), width: f32, stroke: bool) {
        self.page.segments.push(Segment { x0: from.0, y0: from.1, x1: to.0, y1: to.1, width, stroke });
    }

    fn rect(&mut self, bbox: BBox, stroke: bool, fill: bool) {
        self.page.rects.push(Rect { bbox, stroke, fill });
    }

    fn image(&mut self, image: Image) {
        self.page.images.push(image);
    }

    fn warning(&mut self, message: String) {
        if !self.page.warnings.iter().any(|w| w.message == message) {
            self.page.warnings.push(Warning::page(self.page.number, message));
        }
    }
}

/// Interprets page `index` (0-based) into chars and graphics. Never fails for a broken
/// page: what could be read comes back, with warnings.
pub fn extract_page(doc: &PdfDocument, index: usize) -> Result<Page, PdfError> {
    let info = doc.pages().get(index).ok_or(PdfError::NoSuchPage(index + 1, doc.pages().len()))?;
    let (width, height) = info.size();
    let mut collector = PageCollector {
        page: Page { number: index + 1, width, height, rotation: info.rotate, ..Page::default() },
        bounds: info.bbox(),
    };
    let mut warnings = Vec::new();
    let content = doc.page_content(info, &mut warnings);
    for w in warnings {
        collector.warning(w);
    }
    let resources = doc.resources(info);
    let mut interp = Interpreter::new(doc, &mut collector, info.display_matrix(), doc.limits.max_ops_per_page);
    interp.run(&content, resources);
    let mut page = collector.page;
    let t = &mut page.trust;
    t.score = if t.glyphs == 0 { 0.0 } else { (t.glyphs - t.unmapped - t.private_use) as f32 / t.glyphs as f32 };
    Ok(page)
}
