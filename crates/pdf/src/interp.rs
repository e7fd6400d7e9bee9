//! The content-stream interpreter: graphics state, text state, paths, images, form
//! XObjects and marked content, emitting into a [`Device`]. Coordinates handed to the
//! device are already in displayed-page space (page rotation applied, y down).

use std::sync::Arc;

use docsift_model::{BBox, Image, Matrix};
use lopdf::{Dictionary, Document, Object, ObjectId};

use crate::document::PdfDocument;
use crate::font::{Font, Glyph, NamedFont, encoding::expand_ligature};
use crate::lexer::{Lexer, Operand};
use crate::objects::{get, get_dict, get_name, get_number, numbers, resolve};

/// Nesting bound for form XObjects; real files stay in single digits.
const MAX_FORM_DEPTH: usize = 24;
/// q without Q beyond this is garbage; deeper pushes are ignored so memory stays bounded.
const MAX_GSTATE_DEPTH: usize = 256;

/// A glyph as shown, before any layout.
pub struct ShownGlyph<'a> {
    pub text: &'a str,
    pub bbox: BBox,
    /// Text-space to displayed-page matrix at the glyph origin (Tm × CTM).
    pub matrix: Matrix,
    pub font: &'a Arc<str>,
    pub size: f32,
    /// Displayed-page direction of the advance (unit vector).
    pub advance_dir: (f32, f32),
    /// Displayed-page direction of the glyph's up vector (unit vector).
    pub up_dir: (f32, f32),
    pub mapped: bool,
    pub fill_color: &'a Arc<[f32]>,
    pub tag: Option<&'a Arc<str>>,
    pub render_mode: u8,
}

/// Receives what the interpreter finds. Hooks default to doing nothing, so a consumer
/// implements only what it needs (text, ruling lines, images, or all of them).
pub trait Device {
    fn glyph(&mut self, _g: &ShownGlyph) {}
    fn segment(&mut self, _from: (f32, f32), _to: (f32, f32), _width: f32, _stroke: bool) {}
    fn rect(&mut self, _bbox: BBox, _stroke: bool, _fill: bool) {}
    fn image(&mut self, _image: Image) {}
    fn warning(&mut self, _message: String) {}
}

#[derive(Clone)]
struct GState {
    ctm: Matrix,
    /// Index into the interpreter's page-local font table.
    font: Option<usize>,
    font_size: f32,
    char_spacing: f32,
    word_spacing: f32,
    h_scale: f32,
    leading: f32,
    rise: f32,
    render_mode: u8,
    fill_color: Arc<[f32]>,
    line_width: f32,
}

#[derive(Clone, Copy, PartialEq)]
enum PathOp {
    Move(f32, f32),
    Line(f32, f32),
    Curve(f32, f32),
    Close,
    Rect(f32, f32, f32, f32),
}

pub struct Interpreter<'d, D: Device> {
    doc: &'d PdfDocument,
    device: &'d mut D,
    gs: GState,
    stack: Vec<GState>,
    tm: Matrix,
    tlm: Matrix,
    path: Vec<PathOp>,
    /// Path points are kept in user space under the CTM at construction time.
    path_ctm: Matrix,
    tags: Vec<Option<Arc<str>>>,
    form_stack: Vec<ObjectId>,
    /// Fonts used on this page: the graphics state (cloned on every `q`) holds an index,
    /// so shared reference counts are touched once per font and page, not per operator.
    fonts: Vec<NamedFont>,
    ops_left: u64,
    budget_warned: bool,
}

impl<'d, D: Device> Interpreter<'d, D> {
    pub fn new(doc: &'d PdfDocument, device: &'d mut D, page_ctm: Matrix, ops_budget: u64) -> Self {
        Interpreter {
            doc,
            device,
            gs: GState {
                ctm: page_ctm,
                font: None,
                font_size: 0.0,
                char_spacing: 0.0,
                word_spacing: 0.0,
                h_scale: 1.0,
                leading: 0.0,
                rise: 0.0,
                render_mode: 0,
                fill_color: Arc::from([0.0f32].as_slice()),
                line_width: 1.0,
            },
            stack: Vec::new(),
            tm: Matrix::IDENTITY,
            tlm: Matrix::IDENTITY,
            path: Vec::new(),
            path_ctm: page_ctm,
            tags: Vec::new(),
            form_stack: Vec::new(),
            fonts: Vec::new(),
            ops_left: ops_budget,
            budget_warned: false,
        }
    }

    pub fn run(&mut self, content: &[u8], resources: Option<&Dictionary>) {
        let mut lx = Lexer::new(content);
        let mut operands: Vec<Operand> = Vec::with_capacity(16);
        while let Some(op) = lx.next_operation(&mut operands) {
            if self.ops_left == 0 {
                if !self.budget_warned {
                    self.budget_warned = true;
                    self.device.warning("operation budget exhausted; the rest of the page content was skipped".into());
                }
                return;
            }
            self.ops_left -= 1;
            if op == b"BI" {
                self.inline_image(&mut lx);
            } else {
                self.operator(op, &operands, resources);
            }
            operands.clear();
        }
    }

    fn operator(&mut self, op: &[u8], o: &[Operand], res: Option<&Dictionary>) {
        let n = |i: usize| o.get(i).and_then(Operand::as_f32).unwrap_or(0.0);
        let last_n =
            |k: usize| -> Vec<f32> { o.iter().rev().take(k).rev().map(|x| x.as_f32().unwrap_or(0.0)).collect() };
        match op {
            b"q" if self.stack.len() < MAX_GSTATE_DEPTH => self.stack.push(self.gs.clone()),
            b"Q" => {
                if let Some(g) = self.stack.pop() {
                    self.gs = g;
                }
            }
            b"cm" if o.len() >= 6 => {
                let v = last_n(6);
                let m = Matrix([v[0], v[1], v[2], v[3], v[4], v[5]]);
                if m.is_finite() {
                    self.gs.ctm = m.then(&self.gs.ctm);
                }
            }
            b"w" => self.gs.line_width = n(0),
            b"gs" => self.ext_gstate(o, res),
            // Text objects and state.
            b"BT" => {
                self.tm = Matrix::IDENTITY;
                self.tlm = Matrix::IDENTITY;
            }
            b"ET" => {}
            b"Tf" if o.len() >= 2 => {
                self.gs.font_size = n(1);
                self.gs.font = o[0].as_name().and_then(|name| self.font(name, res));
            }
            b"Tc" => self.gs.char_spacing = n(0),
            b"Tw" => self.gs.word_spacing = n(0),
            b"Tz" => self.gs.h_scale = n(0) / 100.0,
            b"TL" => self.gs.leading = n(0),
            b"Ts" => self.gs.rise = n(0),
            b"Tr" => self.gs.render_mode = n(0).clamp(0.0, 7.0) as u8,
            b"Td" => self.next_line(n(0), n(1)),
            b"TD" => {
                self.gs.leading = -n(1);
                self.next_line(n(0), n(1));
            }
            b"Tm" if o.len() >= 6 => {
                let v = last_n(6);
                let m = Matrix([v[0], v[1], v[2], v[3], v[4], v[5]]);
                if m.is_finite() {
                    self.tm = m;
                    self.tlm = m;
                }
            }
            b"T*" => self.next_line(0.0, -self.gs.leading),
            b"Tj" => {
                if let Some(s) = o.first().and_then(Operand::as_str) {
                    self.show(s);
                }
            }
            b"'" => {
                self.next_line(0.0, -self.gs.leading);
                if let Some(s) = o.last().and_then(Operand::as_str) {
                    self.show(s);
                }
            }
            b"\"" if o.len() >= 3 => {
                self.gs.word_spacing = n(0);
                self.gs.char_spacing = n(1);
                self.next_line(0.0, -self.gs.leading);
                if let Some(s) = o[2].as_str() {
                    self.show(s);
                }
            }
            b"TJ" => {
                if let Some(Operand::Array(items)) = o.first() {
                    for item in items {
                        match item {
                            Operand::Str(s) => self.show(s),
                            Operand::Number(adj) => self.adjust(*adj),
                            _ => {}
                        }
                    }
                }
            }
            // Paths.
            b"m" if o.len() >= 2 => self.push_path(PathOp::Move(n(0), n(1))),
            b"l" if o.len() >= 2 => self.push_path(PathOp::Line(n(0), n(1))),
            b"c" if o.len() >= 6 => self.push_path(PathOp::Curve(n(4), n(5))),
            b"v" | b"y" if o.len() >= 4 => self.push_path(PathOp::Curve(n(2), n(3))),
            b"h" => self.push_path(PathOp::Close),
            b"re" if o.len() >= 4 => self.push_path(PathOp::Rect(n(0), n(1), n(2), n(3))),
            b"S" => self.paint(true, false, false),
            b"s" => self.paint(true, false, true),
            b"f" | b"F" | b"f*" => self.paint(false, true, false),
            b"B" | b"B*" => self.paint(true, true, false),
            b"b" | b"b*" => self.paint(true, true, true),
            b"n" => self.path.clear(),
            // Colour (fill only: text colour).
            b"g" => self.gs.fill_color = Arc::from([n(0)].as_slice()),
            b"rg" => self.gs.fill_color = last_n(3).into(),
            b"k" => self.gs.fill_color = last_n(4).into(),
            b"cs" => {
                self.gs.fill_color = match o.first().and_then(Operand::as_name) {
                    Some(b"DeviceRGB") | Some(b"CalRGB") => vec![0.0; 3],
                    Some(b"DeviceCMYK") => vec![0.0, 0.0, 0.0, 1.0],
                    _ => vec![0.0],
                }
                .into()
            }
            b"sc" | b"scn" => {
                let comps: Vec<f32> = o.iter().filter_map(Operand::as_f32).collect();
                if !comps.is_empty() {
                    self.gs.fill_color = comps.into();
                }
            }
            // XObjects and inline images.
            b"Do" => {
                if let Some(name) = o.first().and_then(Operand::as_name) {
                    self.xobject(name, res);
                }
            }
            // Marked content.
            b"BMC" | b"BDC" => {
                let tag = o.first().and_then(Operand::as_name).map(|n| Arc::from(String::from_utf8_lossy(n).as_ref()));
                if self.tags.len() < MAX_GSTATE_DEPTH {
                    self.tags.push(tag);
                }
            }
            b"EMC" => {
                self.tags.pop();
            }
            _ => {}
        }
    }

    fn ext_gstate(&mut self, o: &[Operand], res: Option<&Dictionary>) {
        let doc = self.doc.lopdf();
        let Some(name) = o.first().and_then(Operand::as_name) else {
            return;
        };
        let Some(gs) = res.and_then(|r| get_dict(doc, r, b"ExtGState")).and_then(|d| get_dict(doc, d, name)) else {
            return;
        };
        if let Some(lw) = get_number(doc, gs, b"LW") {
            self.gs.line_width = lw;
        }
        if let Some(Object::Array(f)) = get(doc, gs, b"Font")
            && f.len() == 2
            && let (Object::Reference(id), Some(size)) = (&f[0], crate::objects::number(doc, &f[1]))
            && let Some(font) = self.doc.font_by_id(*id)
        {
            self.gs.font = Some(self.intern_font(font));
            self.gs.font_size = size;
        }
    }

    fn intern_font(&mut self, font: NamedFont) -> usize {
        match self.fonts.iter().position(|(f, _)| Arc::ptr_eq(f, &font.0)) {
            Some(i) => i,
            None => {
                // A page-local copy of the name: chars clone it, not the shared one.
                self.fonts.push((font.0, Arc::from(&*font.1)));
                self.fonts.len() - 1
            }
        }
    }

    fn font(&mut self, name: &[u8], res: Option<&Dictionary>) -> Option<usize> {
        let doc = self.doc.lopdf();
        let fonts = res.and_then(|r| get_dict(doc, r, b"Font"));
        let entry = fonts.and_then(|f| f.get(name).ok());
        let found = match entry {
            Some(Object::Reference(id)) => self.doc.font_by_id(*id),
            Some(obj) => match resolve(doc, obj) {
                Object::Dictionary(d) => self.doc.font_inline(d),
                _ => None,
            },
            None => None,
        };
        if found.is_none() {
            self.device.warning(format!(
                "font /{} not found in resources; its text is skipped",
                String::from_utf8_lossy(name)
            ));
        }
        found.map(|f| self.intern_font(f))
    }

    fn next_line(&mut self, tx: f32, ty: f32) {
        self.tlm = Matrix::translate(tx, ty).then(&self.tlm);
        self.tm = self.tlm;
    }

    fn adjust(&mut self, amount: f32) {
        let gs = &self.gs;
        let vertical = gs.font.and_then(|i| self.fonts.get(i)).is_some_and(|(f, _)| f.vertical);
        let d = -amount / 1000.0 * gs.font_size;
        let shift = if vertical { Matrix::translate(0.0, d) } else { Matrix::translate(d * gs.h_scale, 0.0) };
        self.tm = shift.then(&self.tm);
    }

    fn show(&mut self, bytes: &[u8]) {
        // Borrowed, not cloned: the font is shared by pages on other threads, and bumping
        // its reference count per text operator makes the cores fight over one cache line.
        let Some((font, font_name)) = self.gs.font.and_then(|i| self.fonts.get(i)) else {
            return;
        };
        let fs = self.gs.font_size;
        let th = self.gs.h_scale;
        let rise = self.gs.rise;
        let tag = self.tags.iter().rev().find_map(|t| t.clone());
        for glyph in font.glyphs(bytes) {
            let trm = self.tm.then(&self.gs.ctm);
            let spacing = self.gs.char_spacing + if glyph.is_space_code { self.gs.word_spacing } else { 0.0 };
            let (corners, advance) = glyph_box(font, &glyph, fs, th, rise, spacing);
            let pts = corners.map(|(x, y)| trm.apply(x, y));
            let bbox = BBox::from_points(&pts);
            let (ax, ay) = if font.vertical { trm.apply_vector(0.0, -1.0) } else { trm.apply_vector(1.0, 0.0) };
            let (ux, uy) = trm.apply_vector(0.0, 1.0);
            if bbox.x0.is_finite() && bbox.top.is_finite() && bbox.x1.is_finite() && bbox.bottom.is_finite() {
                let raw = glyph.text.as_deref();
                let mapped = raw.is_some_and(|t| !t.is_empty() || glyph.code != 0);
                let text: &str = match raw {
                    Some(t) => expand_ligature(t).unwrap_or(t),
                    None => "\u{FFFD}",
                };
                if !text.is_empty() {
                    self.device.glyph(&ShownGlyph {
                        text,
                        bbox,
                        matrix: trm,
                        font: font_name,
                        size: fs * vector_len(trm.apply_vector(0.0, 1.0)),
                        advance_dir: unit((ax, ay)),
                        up_dir: unit((ux, -uy)),
                        mapped: mapped && raw.is_some(),
                        fill_color: &self.gs.fill_color,
                        tag: tag.as_ref(),
                        render_mode: self.gs.render_mode,
                    });
                }
            }
            self.tm = advance.then(&self.tm);
        }
    }

    fn push_path(&mut self, op: PathOp) {
        if self.path.is_empty() {
            self.path_ctm = self.gs.ctm;
        }
        self.path.push(op);
    }

    fn paint(&mut self, stroke: bool, fill: bool, close: bool) {
        let path = std::mem::take(&mut self.path);
        let ctm = self.path_ctm;
        let width = self.gs.line_width * vector_len(ctm.apply_vector(1.0, 0.0)).max(f32::MIN_POSITIVE);
        let mut start: Option<(f32, f32)> = None;
        let mut cur: Option<(f32, f32)> = None;
        // Points of the current subpath that are all line segments, for rectangle detection.
        let mut poly: Vec<(f32, f32)> = Vec::new();
        let mut poly_ok = true;
        let flush_poly = |dev: &mut D, poly: &mut Vec<(f32, f32)>, ok: bool, closed: bool| {
            if ok
                && closed
                && let Some(b) = axis_aligned_rect(poly)
            {
                dev.rect(b, stroke, fill);
            }
            poly.clear();
        };
        for op in path.iter().chain(close.then_some(&PathOp::Close)) {
            match *op {
                PathOp::Move(x, y) => {
                    flush_poly(self.device, &mut poly, poly_ok, false);
                    let p = ctm.apply(x, y);
                    start = Some(p);
                    cur = Some(p);
                    poly.push(p);
                    poly_ok = true;
                }
                PathOp::Line(x, y) => {
                    let p = ctm.apply(x, y);
                    if let Some(c) = cur {
                        self.device.segment(c, p, width, stroke);
                    } else {
                        start = Some(p);
                    }
                    cur = Some(p);
                    poly.push(p);
                }
                PathOp::Curve(x, y) => {
                    cur = Some(ctm.apply(x, y));
                    poly_ok = false;
                }
                PathOp::Close => {
                    if let (Some(c), Some(s)) = (cur, start)
                        && c != s
                    {
                        self.device.segment(c, s, width, stroke);
                    }
                    flush_poly(self.device, &mut poly, poly_ok, true);
                    cur = start;
                }
                PathOp::Rect(x, y, w, h) => {
                    let pts = [ctm.apply(x, y), ctm.apply(x + w, y), ctm.apply(x + w, y + h), ctm.apply(x, y + h)];
                    if let Some(b) = axis_aligned_rect(&pts) {
                        self.device.rect(b, stroke, fill);
                    } else {
                        for i in 0..4 {
                            self.device.segment(pts[i], pts[(i + 1) % 4], width, stroke);
                        }
                    }
                    start = Some(pts[0]);
                    cur = Some(pts[0]);
                }
            }
        }
        flush_poly(self.device, &mut poly, poly_ok, false);
    }

    fn xobject(&mut self, name: &[u8], res: Option<&Dictionary>) {
        let doc = self.doc.lopdf();
        let Some(xobjects) = res.and_then(|r| get_dict(doc, r, b"XObject")) else {
            return;
        };
        let Ok(entry) = xobjects.get(name) else {
            return;
        };
        let id = entry.as_reference().ok();
        let Object::Stream(stream) = resolve(doc, entry) else {
            return;
        };
        let dict = &stream.dict;
        match get_name(doc, dict, b"Subtype") {
            Some(b"Image") => {
                let [width, height] = picture_size(doc, dict);
                let filter = match get(doc, dict, b"Filter") {
                    Some(Object::Name(n)) => Some(String::from_utf8_lossy(n).into_owned()),
                    Some(Object::Array(a)) => {
                        a.last().and_then(|f| f.as_name().ok()).map(|n| String::from_utf8_lossy(n).into_owned())
                    }
                    _ => None,
                };
                let bbox = self.unit_square_bbox();
                let mask = image_mask_size(doc, dict);
                self.device.image(Image { bbox, width, height, filter, object: id.map(|i| i.0), mask });
            }
            Some(b"Form") => {
                let Some(id) = id else { return };
                if self.form_stack.contains(&id) {
                    self.device.warning("form XObject draws itself; the recursion was cut".into());
                    return;
                }
                if self.form_stack.len() >= MAX_FORM_DEPTH {
                    self.device
                        .warning(format!("form XObjects nested deeper than {MAX_FORM_DEPTH}; the rest was skipped"));
                    return;
                }
                let Some(content) = self.doc.stream_content(stream) else {
                    self.device.warning("form XObject content could not be decoded".into());
                    return;
                };
                let saved = (self.gs.clone(), self.stack.len(), self.tm, self.tlm);
                if let Some(m) =
                    crate::objects::get_array(doc, dict, b"Matrix").map(|a| numbers(doc, a)).filter(|m| m.len() == 6)
                {
                    let fm = Matrix([m[0], m[1], m[2], m[3], m[4], m[5]]);
                    if fm.is_finite() {
                        self.gs.ctm = fm.then(&self.gs.ctm);
                    }
                }
                let form_res = get_dict(doc, dict, b"Resources").or(res);
                self.form_stack.push(id);
                self.run(&content, form_res);
                self.form_stack.pop();
                self.stack.truncate(saved.1);
                self.gs = saved.0;
                self.tm = saved.2;
                self.tlm = saved.3;
            }
            _ => {}
        }
    }

    fn unit_square_bbox(&self) -> BBox {
        let c = self.gs.ctm;
        BBox::from_points(&[c.apply(0.0, 0.0), c.apply(1.0, 0.0), c.apply(0.0, 1.0), c.apply(1.0, 1.0)])
    }

    fn inline_image(&mut self, lx: &mut Lexer) {
        let Some(InlineImage { width, height, filter }) = read_inline_image(lx) else { return };
        let bbox = self.unit_square_bbox();
        self.device.image(Image { bbox, width, height, filter, object: None, mask: None });
    }
}

/// An inline image's declared size and last filter.
pub(crate) struct InlineImage {
    pub width: u32,
    pub height: u32,
    pub filter: Option<String>,
}

/// After `BI`: reads an inline image's dictionary and skips its data and `EI`; None where
/// the content ends before `ID`.
pub(crate) fn read_inline_image(lx: &mut Lexer) -> Option<InlineImage> {
    let mut dict: Vec<(Vec<u8>, Operand)> = Vec::new();
    let mut key: Option<Vec<u8>> = None;
    loop {
        match lx.next_token(0)? {
            crate::lexer::Token::Operator(b"ID") => break,
            crate::lexer::Token::Operand(op) => match key.take() {
                None => key = op.as_name().map(<[u8]>::to_vec),
                Some(k) => dict.push((k, op)),
            },
            _ => {}
        }
    }
    let find = |names: &[&[u8]]| dict.iter().find(|(k, _)| names.contains(&k.as_slice())).map(|(_, v)| v);
    let w = find(&[b"W", b"Width"]).and_then(Operand::as_f32).unwrap_or(0.0).max(0.0) as u32;
    let h = find(&[b"H", b"Height"]).and_then(Operand::as_f32).unwrap_or(0.0).max(0.0) as u32;
    let bpc = find(&[b"BPC", b"BitsPerComponent"]).and_then(Operand::as_f32).unwrap_or(8.0).max(1.0) as usize;
    let mask = find(&[b"IM", b"ImageMask"]) == Some(&Operand::Bool(true));
    let filter = find(&[b"F", b"Filter"]).and_then(|f| match f {
        Operand::Name(n) => Some(String::from_utf8_lossy(n).into_owned()),
        Operand::Array(a) => a.last().and_then(Operand::as_name).map(|n| String::from_utf8_lossy(n).into_owned()),
        _ => None,
    });
    let comps = if mask {
        1
    } else {
        match find(&[b"CS", b"ColorSpace"]).and_then(Operand::as_name) {
            Some(b"RGB") | Some(b"DeviceRGB") => 3,
            Some(b"CMYK") | Some(b"DeviceCMYK") => 4,
            Some(b"G") | Some(b"DeviceGray") | Some(b"I") | Some(b"Indexed") | None => 1,
            // A named colour space from resources: size unknown, scan for EI.
            _ => 0,
        }
    };
    let row_bits = (w as usize).checked_mul(comps * if mask { 1 } else { bpc });
    let expected =
        row_bits.filter(|_| filter.is_none() && comps > 0).and_then(|b| b.div_ceil(8).checked_mul(h as usize));
    lx.skip_inline_image(expected);
    Some(InlineImage { width: w, height: h, filter })
}

/// An image stream's declared width and height (0 where missing or negative).
pub(crate) fn picture_size(doc: &Document, dict: &Dictionary) -> [u32; 2] {
    [b"Width".as_slice(), b"Height"].map(|key| get_number(doc, dict, key).unwrap_or(0.0).max(0.0) as u32)
}

/// The size of an image XObject's soft mask (`/SMask`) or stencil mask (a `/Mask` stream; a
/// `/Mask` array is a colour key, not a picture).
pub(crate) fn image_mask_size(doc: &Document, dict: &Dictionary) -> Option<[u32; 2]> {
    [b"SMask".as_slice(), b"Mask"].into_iter().find_map(|key| match get(doc, dict, key) {
        Some(Object::Stream(mask)) => Some(picture_size(doc, &mask.dict)),
        _ => None,
    })
}

/// Corners of a glyph's box in text space (before Tm × CTM) and the advance matrix.
fn glyph_box(font: &Font, g: &Glyph, fs: f32, th: f32, rise: f32, spacing: f32) -> ([(f32, f32); 4], Matrix) {
    if let Some((w1y, vx, _vy)) = g.vmetrics {
        // The current point is the vertical origin, the top middle of the glyph's em box.
        let x0 = -vx * fs;
        let x1 = x0 + g.width * fs;
        let top = rise;
        let bottom = rise + w1y * fs;
        let ty = w1y * fs + spacing;
        ([(x0, bottom), (x1, bottom), (x1, top), (x0, top)], Matrix::translate(0.0, ty))
    } else {
        let adv = g.width * fs * th;
        let y0 = font.descent * fs + rise;
        let y1 = y0 + fs;
        let tx = (g.width * fs + spacing) * th;
        ([(0.0, y0), (adv, y0), (adv, y1), (0.0, y1)], Matrix::translate(tx, 0.0))
    }
}

fn vector_len((x, y): (f32, f32)) -> f32 {
    (x * x + y * y).sqrt()
}

fn unit(v: (f32, f32)) -> (f32, f32) {
    let l = vector_len(v);
    if l > 0.0 { (v.0 / l, v.1 / l) } else { (1.0, 0.0) }
}

/// Four (or five, closed) points forming an axis-aligned rectangle -> its box.
fn axis_aligned_rect(pts: &[(f32, f32)]) -> Option<BBox> {
    /// Corners closer than this (points) count as aligned: absorbs rounding in producers.
    const ALIGN_TOLERANCE: f32 = 0.01;
    let pts: &[(f32, f32)] = if pts.len() == 5 && pts[0] == pts[4] { &pts[..4] } else { pts };
    if pts.len() != 4 {
        return None;
    }
    let aligned = (0..4).all(|i| {
        let (a, b) = (pts[i], pts[(i + 1) % 4]);
        (a.0 - b.0).abs() < ALIGN_TOLERANCE || (a.1 - b.1).abs() < ALIGN_TOLERANCE
    });
    let alternates = {
        let h = |i: usize| (pts[i].1 - pts[(i + 1) % 4].1).abs() < ALIGN_TOLERANCE;
        h(0) != h(1) && h(1) != h(2) && h(2) != h(3)
    };
    (aligned && alternates).then(|| BBox::from_points(pts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_detection() {
        assert!(axis_aligned_rect(&[(0.0, 0.0), (10.0, 0.0), (10.0, 5.0), (0.0, 5.0)]).is_some());
        assert!(axis_aligned_rect(&[(0.0, 0.0), (10.0, 1.0), (10.0, 5.0), (0.0, 5.0)]).is_none());
        assert!(axis_aligned_rect(&[(0.0, 0.0), (10.0, 0.0), (20.0, 0.0), (0.0, 0.0)]).is_none());
    }
}
