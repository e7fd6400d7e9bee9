//! Opening a PDF (lopdf, with its xref repair and decryption), the page tree with
//! inherited attributes, and the per-document font cache shared by page workers.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use docsift_model::{BBox, Matrix};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use crate::error::PdfError;
use crate::font::{Font, NamedFont};
use crate::objects::{get, get_array, get_dict, numbers, resolve, stream_bytes, text_string};

/// Bounds that keep hostile files from exhausting the machine or the browser tab.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest size a single stream may decompress to.
    pub max_stream_bytes: usize,
    /// Deepest page tree accepted.
    pub max_page_tree_depth: usize,
    /// Content operators interpreted per page (forms included) before the rest is skipped.
    pub max_ops_per_page: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_stream_bytes: 256 << 20, max_page_tree_depth: 64, max_ops_per_page: 20_000_000 }
    }
}

#[derive(Clone, Debug)]
pub struct PageInfo {
    pub id: ObjectId,
    /// The visible area (CropBox clipped to MediaBox) in user space.
    pub view: [f32; 4],
    pub rotate: i32,
    resources: Option<ObjectId>,
    inline_resources: Option<Dictionary>,
}

impl PageInfo {
    /// Displayed size (rotation applied).
    pub fn size(&self) -> (f32, f32) {
        let [x0, y0, x1, y1] = self.view;
        let (w, h) = (x1 - x0, y1 - y0);
        if self.rotate % 180 == 0 { (w, h) } else { (h, w) }
    }

    /// User space -> displayed page space (origin top-left, y down, rotation applied).
    pub fn display_matrix(&self) -> Matrix {
        let [x0, y0, x1, y1] = self.view;
        match self.rotate {
            90 => Matrix([0.0, 1.0, 1.0, 0.0, -y0, -x0]),
            180 => Matrix([-1.0, 0.0, 0.0, 1.0, x1, -y0]),
            270 => Matrix([0.0, -1.0, -1.0, 0.0, y1, x1]),
            _ => Matrix([1.0, 0.0, 0.0, -1.0, -x0, y1]),
        }
    }

    pub fn bbox(&self) -> BBox {
        let (w, h) = self.size();
        BBox::new(0.0, 0.0, w, h)
    }
}

pub struct PdfDocument {
    doc: Document,
    pages: Vec<PageInfo>,
    fonts: Mutex<HashMap<ObjectId, Option<Arc<NamedFont>>>>,
    pub limits: Limits,
    pub warnings: Vec<String>,
    pub encrypted: bool,
    pub repaired: bool,
}

impl PdfDocument {
    pub fn open(bytes: &[u8], password: Option<&str>, limits: Limits) -> Result<PdfDocument, PdfError> {
        if bytes.is_empty() {
            return Err(PdfError::Empty);
        }
        let patched;
        let bytes = if has_header(bytes) {
            bytes
        } else if looks_like_headerless_pdf(bytes) {
            // Viewers open files that lost their header; lopdf needs one. Offsets shift, so
            // its xref repair takes over.
            patched = [b"%PDF-1.7\n".as_slice(), bytes].concat();
            &patched[..]
        } else {
            return Err(PdfError::NotPdf);
        };
        let options = lopdf::LoadOptions {
            password: Some(password.unwrap_or("").to_string()),
            max_decompressed_size: Some(limits.max_stream_bytes),
            ..Default::default()
        };
        let has_encrypt = bytes.windows(8).any(|w| w == b"/Encrypt");
        let (doc, encrypted) = match Document::load_mem_with_options(bytes, options) {
            Ok(d) if !d.is_encrypted() => {
                let encrypted = d.was_encrypted();
                (d, encrypted)
            }
            // lopdf refused the password or the file: the fallback handler decides.
            Ok(_) | Err(lopdf::Error::InvalidPassword) | Err(lopdf::Error::Decryption(_)) => {
                let d = crate::crypt::open(bytes, password, limits.max_stream_bytes)?;
                (d, true)
            }
            Err(e) if has_encrypt => {
                let d = crate::crypt::open(bytes, password, limits.max_stream_bytes)
                    .map_err(|_| PdfError::Load(e.to_string()))?;
                (d, true)
            }
            Err(e) => return Err(PdfError::Load(e.to_string())),
        };
        let repaired = doc.xref_recovery.is_some();
        let mut warnings = Vec::new();
        if repaired {
            warnings
                .push("the cross-reference table was damaged and has been rebuilt by scanning the file".to_string());
        }
        let pages = collect_pages(&doc, limits.max_page_tree_depth, &mut warnings)?;
        Ok(PdfDocument { doc, pages, fonts: Mutex::new(HashMap::new()), limits, warnings, encrypted, repaired })
    }

    pub fn lopdf(&self) -> &Document {
        &self.doc
    }

    pub fn pages(&self) -> &[PageInfo] {
        &self.pages
    }

    pub fn version(&self) -> &str {
        &self.doc.version
    }

    /// A document information entry (`Title`, `Author`, ...) as text.
    pub fn info(&self, key: &[u8]) -> Option<String> {
        let info = self.doc.trailer.get(b"Info").ok().map(|o| resolve(&self.doc, o))?;
        let Object::Dictionary(d) = info else {
            return None;
        };
        match get(&self.doc, d, key)? {
            Object::String(s, _) => Some(text_string(s)).filter(|s| !s.trim().is_empty()),
            _ => None,
        }
    }

    pub fn resources<'a>(&'a self, page: &'a PageInfo) -> Option<&'a Dictionary> {
        if let Some(d) = &page.inline_resources {
            return Some(d);
        }
        match self.doc.get_object(page.resources?).ok()? {
            Object::Dictionary(d) => Some(d),
            Object::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }

    pub fn stream_content(&self, stream: &Stream) -> Option<Vec<u8>> {
        stream_bytes(stream, self.limits.max_stream_bytes)
    }

    /// The page's content streams, concatenated (a broken stream is skipped with a warning).
    pub fn page_content(&self, page: &PageInfo, warnings: &mut Vec<String>) -> Vec<u8> {
        let Ok(Object::Dictionary(dict)) = self.doc.get_object(page.id) else {
            return Vec::new();
        };
        let streams: Vec<&Object> = match dict.get(b"Contents").ok().map(|o| resolve(&self.doc, o)) {
            Some(Object::Array(a)) => a.iter().collect(),
            Some(o) => vec![o],
            None => Vec::new(),
        };
        if let [only] = streams[..]
            && let Object::Stream(st) = resolve(&self.doc, only)
            && let Some(bytes) = self.stream_content(st)
        {
            return bytes;
        }
        let mut out = Vec::new();
        for s in streams {
            match resolve(&self.doc, s) {
                Object::Stream(st) => {
                    match self.stream_content(st) {
                        Some(bytes) => {
                            if out.len() + bytes.len() > self.limits.max_stream_bytes {
                                warnings
                                    .push("page content exceeds the stream size limit; the rest was skipped".into());
                                break;
                            }
                            out.extend_from_slice(&bytes);
                            // Streams split anywhere between tokens: keep them apart.
                            out.push(b'\n');
                        }
                        None => warnings.push("a content stream could not be decoded and was skipped".into()),
                    }
                }
                Object::Null => {}
                _ => warnings.push("page /Contents is not a stream".into()),
            }
        }
        out
    }

    pub fn font_by_id(&self, id: ObjectId) -> Option<NamedFont> {
        if let Ok(cache) = self.fonts.lock()
            && let Some(entry) = cache.get(&id)
        {
            return entry.as_deref().cloned();
        }
        let loaded = match self.doc.get_object(id).ok().map(|o| resolve(&self.doc, o)) {
            Some(Object::Dictionary(d)) => self.font_inline(d).map(Arc::new),
            _ => None,
        };
        if let Ok(mut cache) = self.fonts.lock() {
            cache.insert(id, loaded.clone());
        }
        loaded.as_deref().cloned()
    }

    pub fn font_inline(&self, dict: &Dictionary) -> Option<NamedFont> {
        let font = Font::load(&self.doc, dict, self.limits.max_stream_bytes).ok()?;
        let name: Arc<str> = Arc::from(font.name.as_str());
        Some((Arc::new(font), name))
    }
}

/// PDF headers may follow junk; viewers search the first kilobyte.
const HEADER_SEARCH_BYTES: usize = 1024;

pub fn has_header(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(HEADER_SEARCH_BYTES)].windows(5).any(|w| w == b"%PDF-")
}

/// No header, but the first kilobyte holds an indirect object: a PDF that lost its header.
pub fn looks_like_headerless_pdf(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(HEADER_SEARCH_BYTES)];
    head.windows(4).any(|w| w == b" obj") && bytes.windows(6).any(|w| w == b"endobj")
}

fn rect_of(doc: &Document, obj: Option<&Object>) -> Option<[f32; 4]> {
    let Object::Array(a) = resolve(doc, obj?) else {
        return None;
    };
    let n = numbers(doc, a);
    if n.len() != 4 {
        return None;
    }
    let r = [n[0].min(n[2]), n[1].min(n[3]), n[0].max(n[2]), n[1].max(n[3])];
    (r[2] > r[0] && r[3] > r[1]).then_some(r)
}

#[derive(Clone, Default)]
struct Inherited {
    resources: Option<ObjectId>,
    inline_resources: Option<Dictionary>,
    media: Option<[f32; 4]>,
    crop: Option<[f32; 4]>,
    rotate: Option<i32>,
}

impl Inherited {
    fn update(&mut self, doc: &Document, node: &Dictionary) {
        match node.get(b"Resources") {
            Ok(Object::Reference(id)) => {
                self.resources = Some(*id);
                self.inline_resources = None;
            }
            Ok(Object::Dictionary(d)) => {
                self.inline_resources = Some(d.clone());
                self.resources = None;
            }
            _ => {}
        }
        if let Some(r) = rect_of(doc, node.get(b"MediaBox").ok()) {
            self.media = Some(r);
        }
        if let Some(r) = rect_of(doc, node.get(b"CropBox").ok()) {
            self.crop = Some(r);
        }
        if let Some(r) = node.get(b"Rotate").ok().and_then(|o| crate::objects::number(doc, o)) {
            self.rotate = Some(r as i32);
        }
    }

    fn page(&self, id: ObjectId) -> PageInfo {
        /// US Letter: what viewers assume for a page without a usable MediaBox.
        const DEFAULT_MEDIA_BOX: [f32; 4] = [0.0, 0.0, 612.0, 792.0];
        let media = self.media.unwrap_or(DEFAULT_MEDIA_BOX);
        let view = match self.crop {
            Some(c) => {
                let v = [c[0].max(media[0]), c[1].max(media[1]), c[2].min(media[2]), c[3].min(media[3])];
                if v[2] > v[0] && v[3] > v[1] { v } else { media }
            }
            None => media,
        };
        PageInfo {
            id,
            view,
            rotate: self.rotate.unwrap_or(0).rem_euclid(360) / 90 * 90,
            resources: self.resources,
            inline_resources: self.inline_resources.clone(),
        }
    }
}

/// Walks the page tree iteratively (no recursion: depth is bounded by a limit, not the
/// stack). A kid seen twice is a cycle: skipped with a warning.
fn collect_pages(doc: &Document, max_depth: usize, warnings: &mut Vec<String>) -> Result<Vec<PageInfo>, PdfError> {
    let root = doc.catalog().ok().and_then(|c| c.get(b"Pages").ok()).and_then(|o| o.as_reference().ok());
    let mut pages = Vec::new();
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let mut cycle = false;
    if let Some(root) = root {
        // (node, depth, inherited) in document order: kids pushed reversed.
        let mut todo: Vec<(ObjectId, usize, Inherited)> = vec![(root, 0, Inherited::default())];
        while let Some((id, depth, inherited)) = todo.pop() {
            if !seen.insert(id) {
                cycle = true;
                continue;
            }
            if depth > max_depth {
                return Err(PdfError::PageTreeTooDeep(max_depth));
            }
            let Ok(Object::Dictionary(node)) = doc.get_object(id) else {
                continue;
            };
            let mut inh = inherited;
            inh.update(doc, node);
            let kids = get_array(doc, node, b"Kids");
            let is_page = node.get(b"Type").ok().and_then(|t| t.as_name().ok()) == Some(b"Page") || kids.is_none();
            if is_page {
                pages.push(inh.page(id));
                continue;
            }
            for kid in kids.unwrap_or_default().iter().rev() {
                if let Object::Reference(kid_id) = kid {
                    todo.push((*kid_id, depth + 1, inh.clone()));
                }
            }
        }
    }
    if cycle {
        warnings.push("the page tree refers to a node twice (a cycle or shared kid); the repeat was skipped".into());
    }
    if pages.is_empty() {
        // A broken tree: fall back to every page object in the file, in object order.
        let mut ids: Vec<ObjectId> = doc
            .objects
            .iter()
            .filter(|(_, o)| matches!(o, Object::Dictionary(d) if d.get(b"Type").ok().and_then(|t| t.as_name().ok()) == Some(b"Page")))
            .map(|(id, _)| *id)
            .collect();
        ids.sort();
        if !ids.is_empty() {
            warnings.push("the page tree is unusable; pages were recovered by scanning objects".into());
        }
        for id in ids {
            let mut inh = Inherited::default();
            if let Ok(Object::Dictionary(d)) = doc.get_object(id) {
                if let Some(parent) = get_dict(doc, d, b"Parent") {
                    inh.update(doc, parent);
                }
                inh.update(doc, d);
            }
            pages.push(inh.page(id));
        }
    }
    if pages.is_empty() {
        return Err(if cycle { PdfError::PageTreeCycle } else { PdfError::NoPages });
    }
    Ok(pages)
}
