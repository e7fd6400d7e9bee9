//! docsift's OCR: page images (PNG, JPEG, TIFF, WebP, GIF, BMP, PNM, JPEG 2000, or PDF pages rasterised)
//! -> text lines with boxes and per-character confidence, through ONNX models from registry
//! packages — DBNet text detection, line orientation, CTC line recognition — and a
//! layout-region detector.
//! Models run behind one `Backend` trait; tract (CPU) is the reference implementation.

mod backend;
mod det;
mod geometry;
mod glyphs;
mod ground;
mod gutters;
mod initials;
mod jpeg2000;
mod layout;
mod lighting;
mod likes;
mod look_alikes;
mod marks;
mod numbers;
mod page;
mod practice;
mod quotes;
mod raster;
mod rec;
mod rewrite;
mod stacks;
mod stairs;
#[cfg(test)]
mod test_support;
mod tiff_file;
mod tract;
#[cfg(any(test, all(target_arch = "wasm32", target_feature = "simd128")))]
mod wasm_kernel;
#[cfg(feature = "wonnx")]
mod webgpu;
mod webp_file;

use std::borrow::Cow;

pub use image::RgbImage;

pub use backend::{Backend, ModelCall, ModelKind, Preferring, Tensor, now, poll_once};
pub use det::{Area, DetParams, bgr_tensor, page_bands};
pub use geometry::Quad;
use ground::ground_as_paper;
pub use jpeg2000::{Jpeg2000Header, MAX_JPEG2000_TILES, jpeg2000_header};
pub use layout::{LayoutRegion, RegionKind};
pub use lighting::evenly_lit;
pub use page::{ClearOfBreak, east_asian_read_surely, lines_clear_of, lines_to_page, regions_to_blocks};
pub use practice::practice_page;
pub use raster::{
    DecodedPage, ImageFile, MAX_PAGE_PIXELS, PdfRenderer, RenderedPage, decode_image, encode_png, resized,
};
pub use rec::Script;
use stairs::stairs_smoothed;
pub use tract::TractBackend;
#[cfg(feature = "wonnx")]
pub use webgpu::{PREPARED_DIR, WonnxBackend, adapter_available};

#[derive(Debug, thiserror::Error)]
pub enum OcrError {
    #[error("{0:?} model is not loaded")]
    MissingModel(ModelKind),
    #[error("{model:?} model: {message}")]
    Model { model: ModelKind, message: String },
    #[error("the recognition model carries no character dictionary")]
    NoDictionary,
    #[error("image: {0}")]
    Image(String),
    /// An image file whose data its decoder could not read through (cut short, corrupt).
    #[error("image: {0}")]
    Corrupt(String),
    /// A page whose pixels would pass `raster::MAX_PAGE_PIXELS`, refused before they are
    /// allocated.
    #[error("image: a {width}×{height} page is too large to decode (over {} pixels)", raster::MAX_PAGE_PIXELS)]
    PageTooLarge { width: u32, height: u32 },
    #[error("cancelled")]
    Cancelled,
    #[error("no GPU adapter (WebGPU/Vulkan) is available")]
    NoGpu,
    #[error("a model call is answered later, and this caller cannot wait for it")]
    NotReady,
}

/// Where the pipeline is, reported between model calls (`Rendering`: a PDF page being
/// rendered for the models, until its `Rendered`, whether it could be or not: pages rendered
/// side by side pair their two by count); the callback returns false to cancel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Rendering,
    Rendered,
    Detection,
    Orientation { done: usize, total: usize },
    Recognition { done: usize, total: usize },
    Layout,
}

/// A recognised character, its quad on the image and the model's probability for it.
#[derive(Clone, Debug, PartialEq)]
pub struct OcrChar {
    pub ch: char,
    pub quad: Quad,
    pub confidence: f32,
}

/// The one character read, spaces aside, where only one was.
pub(crate) fn lone_char(chars: &[OcrChar]) -> Option<&OcrChar> {
    let mut read = chars.iter().filter(|c| c.ch != ' ');
    match (read.next(), read.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// A recognised text line; `quad` is in the text's reading order (see `Quad`).
#[derive(Clone, Debug, PartialEq)]
pub struct OcrLine {
    pub quad: Quad,
    pub text: String,
    pub chars: Vec<OcrChar>,
    /// Mean character probability.
    pub confidence: f32,
    /// The line read in Latin script too, where it may hold East Asian look-alikes of Latin
    /// marks (see `look_alikes`), until the page's other lines decide between the two
    /// (`lines_of_page`).
    pub latin: Option<Box<OcrLine>>,
    /// The dashes read inside the line, measured against its tall letters, for the page's
    /// measure of its hyphens (`glyphs::en_dashes_beside_page_hyphens`).
    pub dashes: Vec<glyphs::DashLength>,
}

/// Quads recognised in one model call, in an input `width` wide: detected lines, or ink
/// beside them (`Engine::beside`). The input holds `slots` lines, the quads first and blank
/// lines after (a static shape's batch).
#[derive(Clone, Debug)]
pub struct Batch {
    quads: Vec<Quad>,
    reading: Reading,
    width: usize,
    slots: usize,
    /// The page's ink level, where `Engine::beside` measured it.
    ink: Option<marks::Ink>,
}

/// What a recognised quad holds: a line detection found, or ink beside the lines that it
/// missed, kept only when read as what it was taken for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reading {
    Line,
    Mark,
    Stroke,
    Initial,
    /// Read by its shape, without a model call (`marks::bullet_line`).
    Bullet,
    /// Read by its length, without a model call (`marks::dash_line`).
    Dash,
    /// Read by its dots, without a model call (`marks::leader_line`).
    Leader,
}

/// Ink beside the detected lines, read on its own: marks, bullets, dashes, dot leaders and strokes on their
/// rows (`marks`; a detected line whose centre lies in a bullet is that bullet) and drop
/// capitals at their starts (`initials`).
#[derive(Clone, Debug, Default)]
pub struct Beside {
    pub marks: Vec<Quad>,
    pub bullets: Vec<Quad>,
    pub dashes: Vec<Quad>,
    pub leaders: Vec<Quad>,
    pub strokes: Vec<Quad>,
    pub initials: Vec<Quad>,
    /// The page's ink level they were found at, for the batches to judge their reads by.
    pub(crate) ink: Option<marks::Ink>,
}

/// Lines per model call on a runtime without static shapes (tract): one, as tract's
/// convolutions take 1.3–2× longer per line when lines are batched (rec 8×48×960: 188 ms
/// per line, 1×48×960: 90 ms), cls 3× longer.
const DYNAMIC_LINES_PER_CALL: usize = 1;

/// The part of a page detection reads, the size the model sees it at, and the static
/// input shape holding that (for a runtime that has them).
#[derive(Clone, Copy, Debug)]
struct DetectionInput {
    area: det::Area,
    size: (u32, u32),
    canvas: Option<(u32, u32)>,
}

impl DetectionInput {
    /// Model-input pixels per image pixel.
    fn scale(&self) -> f32 {
        self.size.0 as f32 / self.area.w
    }
}

/// Lines whose mean character probability is below this are noise read as text (rapidocr's text_score).
pub const MIN_LINE_CONFIDENCE: f32 = 0.5;

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Engine({})", self.backend.name())
    }
}

/// The OCR models on one backend, with the recognition dictionary. The pipeline's steps are
/// async, awaiting each model call (see `Backend::call`); `now` runs them for callers that
/// cannot wait, where every call answers at once.
pub struct Engine {
    backend: Box<dyn Backend>,
    /// How many classes recognition's full output has (blank, the dictionary, space).
    all_classes: usize,
    /// Where each class of the full output goes among `lines`, the classes the script reads.
    lines_into: Vec<Option<usize>>,
    lines: Alphabet,
    /// What marks and drop capitals are read as where it is fewer classes than the script's
    /// (`MARK_SCRIPT`; a drop capital is a Latin letter):
    /// which of them each of `lines` counts towards (`rec::folded_classes`), and their
    /// characters.
    marks: Option<(Vec<Option<usize>>, Alphabet)>,
    pub det: DetParams,
}

/// Marks (`marks`) are read as Latin punctuation: with every class, a dash rule's dashes and
/// dots split their probability with look-alike ideographs and kana (一, ー, 丶), and a rule
/// read surely in Latin script fell under `marks::is_mark`'s bar (scotus-transcript p1 at
/// 175 and 200 dpi read "一- - … -一" at 0.41). A mark is at least two blobs beside a detected
/// line, so what it gives up is East Asian punctuation of two blobs or more; full-width
/// forms count towards their Latin ones (`rec::folded_classes`), as a colon read "：" is ":".
const MARK_SCRIPT: Script = Script::Latin;

/// Characters recognition's output is decoded as, one per class.
struct Alphabet {
    chars: Vec<char>,
    /// Letters read by their size or font alone (`rec::case_look_alikes_in_words`).
    look_alikes: rec::LookAlikes,
}

impl Alphabet {
    fn new(chars: Vec<char>) -> Alphabet {
        let look_alikes = rec::LookAlikes::of_classes(&chars);
        Alphabet { chars, look_alikes }
    }
}

impl Engine {
    /// The CPU engine from model files (`ModelKind::file_name` in models/manifest.json, the
    /// recognition model `Script::model_file`); the layout model is optional.
    pub fn from_onnx(files: &[(ModelKind, &[u8])], script: Script) -> Result<Engine, OcrError> {
        let (tract, dictionary) = cpu_backend(files, script)?;
        Ok(Engine::new(Box::new(tract), &dictionary, script))
    }

    /// An engine that runs each model on `gpu` where it has it, and on the CPU engine of
    /// `files` (`from_onnx`) where it does not or once a call on it has failed (`Preferring`):
    /// a lost device or a shape it cannot run costs speed, not the page. `gpu` runs the
    /// files prepared from `script`'s models (`ModelKind::parse_prepared`).
    pub fn preferring(gpu: Box<dyn Backend>, files: &[(ModelKind, &[u8])], script: Script) -> Result<Engine, OcrError> {
        let (cpu, dictionary) = cpu_backend(files, script)?;
        Ok(Engine::new(Box::new(Preferring::new(gpu, Box::new(cpu))), &dictionary, script))
    }

    /// An engine on any backend, with the recognition model's dictionary (one entry per
    /// line), reading `script`. The backend's recognition output may hold every class or
    /// only the script's (`cpu_backend`).
    pub fn new(backend: Box<dyn Backend>, dictionary: &str, script: Script) -> Engine {
        let all = rec::classes(dictionary);
        let kept = rec::kept_classes(&all, script);
        let classes: Vec<char> = kept.iter().map(|&i| all[i]).collect();
        let (of_lines, into) = rec::folded_classes(&classes, MARK_SCRIPT);
        let marks = (of_lines.len() < classes.len()).then(|| {
            let chars = of_lines.iter().map(|&i| classes[i]).collect();
            (into, Alphabet::new(chars))
        });
        Engine {
            backend,
            all_classes: all.len(),
            lines_into: rec::kept_into(&kept, all.len()),
            lines: Alphabet::new(classes),
            marks,
            det: DetParams::default(),
        }
    }

    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    /// The inputs every page's lines share, for the backend to get ready for beside the first
    /// page's detection: orientation's shape, and recognition at the narrowest line width,
    /// which also types recognition's graph for all widths (tract plans them once per
    /// engine). A runtime with static shapes compiles each of its files on first use, and a
    /// page's lines come in every width, so there it is every file of the two models.
    pub fn line_model_inputs(&self) -> Vec<(ModelKind, Vec<usize>)> {
        let mut inputs = Vec::new();
        for (model, w) in [(ModelKind::Orientation, rec::CLS_WIDTH), (ModelKind::Recognition, rec::REC_MIN_WIDTH)] {
            if !self.backend.has(model) {
                continue;
            }
            match self.backend.fixed_shapes(model) {
                Some(shapes) => inputs.extend(shapes.into_iter().map(|shape| (model, shape))),
                None => inputs.push((model, vec![DYNAMIC_LINES_PER_CALL, 3, rec::LINE_HEIGHT, w])),
            }
        }
        inputs
    }

    /// Readies the backend to run `model` on inputs of `shape` (`line_model_inputs`; a
    /// front-end with a thread pool readies them side by side, beside the first page).
    pub fn prepare(&self, model: ModelKind, shape: &[usize]) {
        self.backend.prepare(model, shape);
    }

    pub fn has_layout(&self) -> bool {
        self.backend.has(ModelKind::Layout)
    }

    /// Text lines of an image, in image pixels, one stage and one batch after another
    /// (front-ends with a thread pool run `recognize_batch` in parallel instead), prepared
    /// first (`page_to_read`).
    pub async fn read_lines(
        &self,
        img: &RgbImage,
        progress: &mut dyn FnMut(Step) -> bool,
    ) -> Result<Vec<OcrLine>, OcrError> {
        if !progress(Step::Detection) {
            return Err(OcrError::Cancelled);
        }
        let img = &*page_to_read(img);
        let quads = self.detect(img).await?;
        let quads = self.orient(img, quads, progress).await?;
        let batches = self.recognition_batches(&quads, &self.beside(img, &quads));
        let mut lines = Vec::with_capacity(quads.len());
        for (b, batch) in batches.iter().enumerate() {
            if !progress(Step::Recognition { done: b, total: batches.len() }) {
                return Err(OcrError::Cancelled);
            }
            lines.extend(self.recognize_batch(img, batch).await?);
        }
        Ok(lines_of_page(img, lines))
    }

    /// Text regions as quads in reading order of their text (vertical crops turned), found
    /// around the page's content (a blank page has none). A page of small print is detected
    /// again at a finer scale (see `det::finer_for_small_text`); a page much longer than wide,
    /// band by band (see `det::long_page_bands`), unless a first read of it whole sized its
    /// print (see `det::reads_long_page_whole_first`).
    ///
    /// A page whose lines read `det::MIN_DESKEW` or more off upright (skewed, turned a quarter
    /// or upside down) is detected again turned upright (see `det::turn_to_upright`). Boxes
    /// DB drew down a table's column across its rows come out as one per row (see `stacks`),
    /// boxes drawn across a column gutter as one line per column, and boxes of one line it
    /// split at a word space as one (see `gutters`). Boxes it scored faintly that lie apart
    /// from those are read, as they stand, and kept where read surely (`read_surely`).
    pub async fn detect(&self, img: &RgbImage) -> Result<Vec<Quad>, OcrError> {
        let ink = marks::Ink::of_page(img);
        let mut found = self.detect_boxes(img).await?;
        if let Some(turn) = det::turn_to_upright(&found.lines) {
            let (canvas, frame) = det::turned_upright(img, turn, ink.paper());
            let (w, h) = (canvas.width() as f32, canvas.height() as f32);
            let onto_page =
                |quads: Vec<Quad>| quads.into_iter().map(|q| q.map(|[x, y]| frame.at(x / w, y / h))).collect();
            let upright = self.detect_boxes(&canvas).await?;
            found = det::Found { lines: onto_page(upright.lines), faint: onto_page(upright.faint) };
        }
        let mut quads = gutters::quads_at_gutters(img, stacks::quads_cut_at_rows(img, found.lines), ink);
        let faint = det::faint_beside_lines(&quads, found.faint);
        quads.extend(self.read_surely(img, &faint).await?);
        Ok(quads)
    }

    /// Of faint boxes (`det::FAINT_BOX_THRESH`), those recognition reads surely as text
    /// (`rec::reads_surely`).
    async fn read_surely(&self, img: &RgbImage, faint: &[Quad]) -> Result<Vec<Quad>, OcrError> {
        let mut kept = Vec::new();
        for batch in self.recognition_batches(faint, &Beside::default()) {
            let lines = self.recognize_batch(img, &batch).await?;
            kept.extend(lines.iter().filter(|l| rec::reads_surely(l)).map(|l| l.quad));
        }
        Ok(kept)
    }

    async fn detect_boxes(&self, img: &RgbImage) -> Result<det::Found<Quad>, OcrError> {
        let (w, h) = img.dimensions();
        let bands = det::long_page_bands(w, h, &self.det);
        if bands.len() == 1 {
            return self.detect_page(img).await;
        }
        if det::reads_long_page_whole_first(w, h, &self.det) {
            let found = self.detect_page(img).await?;
            if det::sizes_print(found.lines.len()) {
                return Ok(found);
            }
        }
        let along_x = w > h;
        let (mut lines, mut faint) = (Vec::with_capacity(bands.len()), Vec::new());
        for band in bands {
            let (part, shift) = if along_x {
                (image::imageops::crop_imm(img, band.start, 0, band.len, h), [band.start as f32, 0.0])
            } else {
                (image::imageops::crop_imm(img, 0, band.start, w, band.len), [0.0, band.start as f32])
            };
            let found = self.detect_page(&part.to_image()).await?;
            let onto_page = |quads: Vec<Quad>| quads.into_iter().map(|q| q.map(|[x, y]| [x + shift[0], y + shift[1]]));
            lines.push((band, onto_page(found.lines).collect()));
            // A faint box in two bands' overlap is found twice; `faint_beside_lines` keeps one.
            faint.extend(onto_page(found.faint));
        }
        Ok(det::Found { lines: det::band_quads_to_page(lines, along_x), faint })
    }

    /// `detect` on a page read whole: a small page at its own size first, kept where its
    /// print reads well so (`det::own_size_first`).
    async fn detect_page(&self, img: &RgbImage) -> Result<det::Found<Quad>, OcrError> {
        let Some(content) = det::content_bounds(img) else { return Ok(det::Found::default()) };
        let (w, h) = img.dimensions();
        if let Some(own) = det::own_size_first(w, h, &self.det) {
            let input = self.detection_input(img, content, &own);
            let found = self.detect_in(img, &input, &own).await?;
            let heights: Vec<f32> = found.lines.iter().map(Quad::height).collect();
            if det::print_reads_at(&heights, input.scale()) {
                return Ok(found);
            }
        }
        let first = self.detection_input(img, content, &self.det);
        let found = self.detect_in(img, &first, &self.det).await?;
        let heights: Vec<f32> = found.lines.iter().map(Quad::height).collect();
        let Some(finer) = det::finer_for_small_text(&heights, first.scale(), w, h, &self.det) else { return Ok(found) };
        let input = self.detection_input(img, content, &finer);
        if input.scale() > first.scale() { self.detect_in(img, &input, &finer).await } else { Ok(found) }
    }

    /// What detection with `p` reads of a page whose content lies in `content`.
    fn detection_input(&self, img: &RgbImage, content: det::Area, p: &DetParams) -> DetectionInput {
        let (area, size) = det::detection_area(content, img.width(), img.height(), p);
        // An input larger than every canvas runs whole where a runtime behind them runs any
        // shape: shrunk into one, a finer pass's small print was lost (a GPU read 936 of the
        // 1231 words tract read on nics-background-checks' rotated page); tiles of it read
        // 1190, each tile's squeeze-excitation means taken over the tile, not the page.
        let canvas = self
            .static_input(ModelKind::Detection, size.1 as usize, size.0 as usize)
            .map(|[_, _, ch, cw]| (cw as u32, ch as u32))
            .filter(|&(cw, ch)| (cw >= size.0 && ch >= size.1) || !self.backend.any_shape(ModelKind::Detection));
        DetectionInput { area, size: det::fitted_size(size, canvas), canvas }
    }

    /// Detection with `p` on `input`: the quads, in image pixels.
    async fn detect_in(
        &self,
        img: &RgbImage,
        input: &DetectionInput,
        p: &DetParams,
    ) -> Result<det::Found<Quad>, OcrError> {
        let (w, h) = img.dimensions();
        let DetectionInput { area, size: (tw, th), canvas } = *input;
        let tensor = det::image_to_input(img, area, (tw, th), canvas)?;
        let (cw, ch) = (tensor.shape[3], tensor.shape[2]);
        let out = self.backend.call(ModelKind::Detection, &tensor).await?;
        let prob =
            out.first().ok_or_else(|| OcrError::Model { model: ModelKind::Detection, message: "no output".into() })?;
        let (sx, sy) = (area.w / tw as f32, area.h / th as f32);
        let found = det::probabilities_to_boxes(&prob.data, cw, ch, p);
        let to_quads = |boxes: Vec<geometry::RotatedRect>| -> Vec<Quad> {
            boxes
                .iter()
                .map(|b| {
                    let q = b
                        .quad()
                        .map(|[x, y]| [(area.x + x * sx).clamp(0.0, w as f32), (area.y + y * sy).clamp(0.0, h as f32)]);
                    if q.height() >= rec::VERTICAL_RATIO * q.width() { q.quarter_turn() } else { q }
                })
                .filter(|q| q.width() >= 1.0 && q.height() >= 1.0)
                .collect()
        };
        Ok(det::Found { lines: to_quads(found.lines), faint: to_quads(found.faint) })
    }

    /// Turns upside-down lines the right way up: the widest lines of each direction are
    /// asked and vote for all of it (see `rec::upside_down_directions`); a direction whose
    /// vote is unsure is settled by reading its widest lines both ways round (see
    /// `rec::unsure_votes`).
    pub async fn orient(
        &self,
        img: &RgbImage,
        mut quads: Vec<Quad>,
        progress: &mut dyn FnMut(Step) -> bool,
    ) -> Result<Vec<Quad>, OcrError> {
        if !self.backend.has(ModelKind::Orientation) {
            return Ok(quads);
        }
        let voters: Vec<Quad> = rec::orientation_voters(&quads).into_iter().map(|i| quads[i]).collect();
        let total = voters.len();
        let (h, w) = (rec::LINE_HEIGHT, rec::CLS_WIDTH);
        let slots = self.static_input(ModelKind::Orientation, h, w).map_or(DYNAMIC_LINES_PER_CALL, |[n, ..]| n.max(1));
        let mut upside_down: Vec<f32> = Vec::with_capacity(total);
        for (b, batch) in voters.chunks(slots).enumerate() {
            if !progress(Step::Orientation { done: b * slots, total }) {
                return Err(OcrError::Cancelled);
            }
            let mut input = Tensor::zeros(vec![slots, 3, h, w]);
            for (i, q) in batch.iter().enumerate() {
                let mut crop = rec::crop_quad(img, &rec::orientation_part(q), rec::scaled_width(q).min(w), h);
                rec::erase_neighbour_ink(&mut crop);
                det::write_bgr(&mut input.data[i * 3 * h * w..(i + 1) * 3 * h * w], &crop, w, h);
            }
            let out = self.backend.call(ModelKind::Orientation, &input).await?;
            let probs = out.first().map(rec::upside_down_probabilities).unwrap_or_default();
            upside_down.extend(probs.into_iter().chain(std::iter::repeat(0.0)).take(batch.len()));
        }
        let angles: Vec<f32> = voters.iter().map(Quad::angle).collect();
        let votes = rec::upside_down_votes(&angles, &upside_down);
        let mut directions = rec::upside_down_directions(&votes);
        for (direction, unsure) in rec::unsure_votes(&votes).into_iter().enumerate() {
            if unsure {
                // The asking is done; this reading is its last call.
                if !progress(Step::Orientation { done: total, total }) {
                    return Err(OcrError::Cancelled);
                }
                let readers = rec::orientation_readers(&voters, direction);
                if let Some(turned) = self.reads_better_turned(img, &readers).await? {
                    directions[direction] = turned;
                }
            }
        }
        for q in quads.iter_mut() {
            if rec::flips(&directions, q.angle()) {
                *q = q.half_turn();
            }
        }
        Ok(quads)
    }

    /// Whether lines `quads` read better turned round than as they stand; None where the
    /// readings tie (`rec::reads_better_turned`).
    async fn reads_better_turned(&self, img: &RgbImage, quads: &[Quad]) -> Result<Option<bool>, OcrError> {
        let turned: Vec<Quad> = quads.iter().map(Quad::half_turn).collect();
        let mut read = [Vec::new(), Vec::new()];
        for (lines, quads) in read.iter_mut().zip([quads, &turned]) {
            for batch in self.recognition_batches(quads, &Beside::default()) {
                lines.extend(self.recognize_quads(img, &batch).await?);
            }
        }
        Ok(rec::reads_better_turned(&read[0], &read[1]))
    }

    /// Ink detection misses beside `quads`: marks, bullets, dashes and strokes on their rows
    /// (see `marks`) and drop capitals at their starts (see `initials`), recognised in batches
    /// of their own and kept only when read as such (bullets and dashes by their shape). A
    /// drop capital read joins its line in `initials_to_lines`.
    pub fn beside(&self, img: &RgbImage, quads: &[Quad]) -> Beside {
        let ink = marks::Ink::of_page(img);
        let found = marks::marks_beside_lines(img, quads, ink);
        let of = |kind: marks::Found| found.iter().filter(|&&(_, f)| f == kind).map(|&(q, _)| q).collect();
        Beside {
            marks: of(marks::Found::Mark),
            bullets: of(marks::Found::Bullet),
            dashes: of(marks::Found::Dash),
            leaders: of(marks::Found::Leader),
            strokes: of(marks::Found::Stroke),
            initials: initials::initials_beside_lines(img, quads, ink),
            ink: Some(ink),
        }
    }

    /// The backend's static input shape (N, C, H, W) for `model` that holds an h×w input;
    /// None for a runtime that runs any shape.
    fn static_input(&self, model: ModelKind, h: usize, w: usize) -> Option<[usize; 4]> {
        self.backend.fixed_shapes(model).and_then(|shapes| fit_shape(&shapes, h, w))
    }

    /// Detected lines and the ink beside them grouped for recognition calls: quads of one
    /// kind and input width, as many per call as the input holds (the backend's static
    /// shapes; else `rec::input_widths` and `DYNAMIC_LINES_PER_CALL`). The bullets and the
    /// dashes are a batch more each, read without a call; a detected line that is a bullet is
    /// left to it.
    pub fn recognition_batches(&self, quads: &[Quad], beside: &Beside) -> Vec<Batch> {
        let is_bullet = |q: &Quad| beside.bullets.iter().any(|b| b.contains(q.centre()));
        let items: Vec<(Reading, &Quad)> = quads
            .iter()
            .filter(|q| !is_bullet(q))
            .map(|q| (Reading::Line, q))
            .chain(beside.marks.iter().map(|q| (Reading::Mark, q)))
            .chain(beside.strokes.iter().map(|q| (Reading::Stroke, q)))
            .chain(beside.initials.iter().map(|q| (Reading::Initial, q)))
            .collect();
        // What is not a detected line reads better on a wide blank canvas, as marks do.
        let least: Vec<usize> =
            items.iter().map(|&(reading, q)| rec::least_width(q, reading != Reading::Line)).collect();
        // Per item, (lines per call, input width).
        let inputs: Vec<(usize, usize)> = match self.backend.fixed_shapes(ModelKind::Recognition) {
            Some(shapes) => least
                .iter()
                .map(|&w| {
                    fit_shape(&shapes, rec::LINE_HEIGHT, w)
                        .map_or((DYNAMIC_LINES_PER_CALL, w), |[n, .., f]| (n.max(1), f))
                })
                .collect(),
            None => rec::input_widths(&least).into_iter().map(|w| (DYNAMIC_LINES_PER_CALL, w)).collect(),
        };
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| (items[i].0, inputs[i].1, rec::scaled_width(items[i].1)));
        let by_shape =
            [(&beside.bullets, Reading::Bullet), (&beside.dashes, Reading::Dash), (&beside.leaders, Reading::Leader)]
                .map(|(quads, reading)| {
                    (!quads.is_empty()).then(|| Batch {
                        quads: quads.clone(),
                        reading,
                        width: 0,
                        slots: quads.len(),
                        ink: beside.ink,
                    })
                });
        order
            .chunk_by(|&a, &b| (items[a].0, inputs[a].1) == (items[b].0, inputs[b].1))
            .flat_map(|group| group.chunks(inputs[group[0]].0))
            .map(|c| Batch {
                quads: c.iter().map(|&i| *items[i].1).collect(),
                reading: items[c[0]].0,
                width: inputs[c[0]].1,
                slots: inputs[c[0]].0,
                ink: beside.ink,
            })
            .chain(by_shape.into_iter().flatten())
            .collect()
    }

    /// Recognises a batch; lines read as nothing or as noise (but a lone letter or figure,
    /// kept for `lines_of_page` to read by its likes), rings read as a zero
    /// (`marks::is_ring_read_as_zero`), marks not read as marks (`marks::is_mark`), strokes
    /// not read as one (`marks::is_stroke`) and drop capitals not read as a capital
    /// (`initials::is_initial`) are left out. Bullets, dashes and dot leaders are read by their
    /// shape, and so are lines read as dots alone that are leaders (`marks::leader_line`) and
    /// runs of dots inside lines (`marks::dot_runs_to_leaders`).
    pub async fn recognize_batch(&self, img: &RgbImage, batch: &Batch) -> Result<Vec<OcrLine>, OcrError> {
        let ink = || batch.ink.unwrap_or_else(|| marks::Ink::of_page(img));
        match batch.reading {
            Reading::Bullet => return Ok(batch.quads.iter().map(marks::bullet_line).collect()),
            Reading::Dash => return Ok(batch.quads.iter().map(marks::dash_line).collect()),
            Reading::Leader => {
                let ink = ink();
                return Ok(batch.quads.iter().filter_map(|q| marks::leader_line(img, q, ink)).collect());
            }
            _ => {}
        }
        let mut lines = self.recognize_quads(img, batch).await?;
        let has_dots = |l: &OcrLine| l.text.contains("..") || l.text.contains('…') || marks::is_read_as_dots(&l.chars);
        match batch.reading {
            Reading::Line if lines.iter().any(|l| l.text == "0" || has_dots(l)) => {
                let ink = ink();
                lines.retain(|l| !marks::is_ring_read_as_zero(img, l, ink));
                for l in lines.iter_mut().filter(|l| has_dots(l)) {
                    match marks::is_read_as_dots(&l.chars).then(|| marks::leader_line(img, &l.quad, ink)).flatten() {
                        Some(leader) => *l = leader,
                        None => marks::dot_runs_to_leaders(img, l, ink),
                    }
                }
            }
            Reading::Line | Reading::Bullet | Reading::Dash | Reading::Leader => {}
            Reading::Mark => lines.retain(|l| marks::is_mark(&l.chars)),
            Reading::Stroke => lines.retain(|l| marks::is_stroke(&l.chars)),
            Reading::Initial => lines.retain(initials::is_initial),
        }
        Ok(lines)
    }

    async fn recognize_quads(&self, img: &RgbImage, batch: &Batch) -> Result<Vec<OcrLine>, OcrError> {
        let (h, w) = (rec::LINE_HEIGHT, batch.width);
        let pieces: Vec<LinePiece> =
            batch.quads.iter().enumerate().flat_map(|(i, q)| line_pieces(img, i, q, w)).collect();
        let mut read: Vec<Option<OcrLine>> = Vec::with_capacity(pieces.len());
        for call in pieces.chunks(batch.slots.max(1)) {
            let mut input = Tensor::zeros(vec![batch.slots, 3, h, w]);
            for (slot, piece) in call.iter().enumerate() {
                det::write_bgr(&mut input.data[slot * 3 * h * w..(slot + 1) * 3 * h * w], &piece.crop, w, h);
            }
            let out = self.backend.call(ModelKind::Recognition, &input).await?;
            let probs = out
                .first()
                .ok_or_else(|| OcrError::Model { model: ModelKind::Recognition, message: "no output".into() })?;
            let &[n, steps, classes] = probs.shape.as_slice() else {
                return Err(OcrError::Model {
                    model: ModelKind::Recognition,
                    message: format!("unexpected output shape {:?}", probs.shape),
                });
            };
            if classes != self.lines.chars.len() && classes != self.all_classes {
                return Err(OcrError::Model {
                    model: ModelKind::Recognition,
                    message: format!("{classes} classes out, the dictionary has {}", self.all_classes),
                });
            }
            read.extend(call.iter().enumerate().map(|(slot, piece)| {
                let row = probs.data.get(slot * steps * classes..(slot + 1) * steps * classes).filter(|_| slot < n)?;
                let kept;
                let row = if classes == self.lines.chars.len() {
                    row
                } else {
                    kept = rec::fold_class_probabilities(row, steps, &self.lines_into, self.lines.chars.len());
                    &kept
                };
                let marked;
                let (row, alphabet) = match &self.marks {
                    Some((into, alphabet)) if batch.reading != Reading::Line => {
                        marked = rec::fold_class_probabilities(row, steps, into, alphabet.chars.len());
                        (marked.as_slice(), alphabet)
                    }
                    _ => (row, &self.lines),
                };
                let step_px = w as f32 / steps as f32;
                let gaps = rec::InkGaps::new(&piece.crop, step_px);
                let decoded = rec::ctc_greedy(row, steps, &alphabet.chars, &gaps);
                let mut decoded = rec::space_spaced_marks(decoded, step_px);
                let passed = rec::separators_passed_by(&decoded, row, steps, &alphabet.chars);
                let ink = glyphs::LineInk::new(&piece.crop);
                glyphs::separators_between_figures(&mut decoded, &passed, &ink, step_px);
                glyphs::spaces_between_figures(&mut decoded, &ink, step_px);
                let mut heights = glyphs::LetterHeights::new(&ink, step_px);
                rec::case_look_alikes_in_words(&mut decoded, row, steps, &alphabet.look_alikes, |d, i| {
                    heights.standing(d, i)
                });
                glyphs::strokes_by_ink(&mut decoded, &ink, step_px);
                glyphs::letters_doubled_by_ink(&mut decoded, &ink, step_px);
                glyphs::daggers_read_as_t(&mut decoded, &ink, step_px);
                glyphs::asterisks_by_ink(&mut decoded, &ink, step_px);
                glyphs::trade_marks_read_whole(&mut decoded, &ink, step_px);
                glyphs::accents_by_ink(&mut decoded, &ink, step_px);
                rec::registered_signs_read_as_at(&mut decoded, row, steps, &alphabet.look_alikes);
                let dashes = glyphs::judge_marks(&mut decoded, &ink, step_px);
                let to_line = |decoded: &[rec::Decoded]| {
                    decoded_to_line(&piece.quad, decoded, &gaps, piece.crop.width() as usize)
                };
                let Some(line) = to_line(&decoded) else {
                    // Read over the Latin classes, the line may be asterisks alone.
                    let latin = match &self.marks {
                        Some((into, latin)) if batch.reading == Reading::Line => {
                            let folded = rec::fold_class_probabilities(row, steps, into, latin.chars.len());
                            rec::ctc_greedy(&folded, steps, &latin.chars, &gaps)
                        }
                        _ => decoded,
                    };
                    return glyphs::asterisks_alone(&latin, &ink, step_px).and_then(|stars| to_line(&stars));
                };
                let mut line = OcrLine { dashes, ..line };
                if batch.reading == Reading::Line
                    && line.text.chars().any(rec::east_asian)
                    && let Some((into, latin)) = &self.marks
                {
                    let folded = rec::fold_class_probabilities(row, steps, into, latin.chars.len());
                    let read = look_alikes::read_as(&decoded, &folded, steps, &latin.chars);
                    // Read as nothing in Latin script, it is an empty line.
                    let nothing = || OcrLine::nothing(piece.quad);
                    line.latin = read.map(|read| Box::new(to_line(&read).unwrap_or_else(nothing)));
                }
                Some(line)
            }));
        }
        let mut lines = Vec::with_capacity(batch.quads.len());
        for (i, quad) in batch.quads.iter().enumerate() {
            let parts = pieces.iter().zip(&read).filter(|(p, _)| p.line == i);
            lines.extend(pieces_to_line(quad, parts.map(|(p, r)| (p.space_before, r.as_ref()))));
        }
        Ok(lines)
    }

    /// Layout regions of an image, in image pixels.
    pub async fn layout(&self, img: &RgbImage) -> Result<Vec<LayoutRegion>, OcrError> {
        let input = layout::image_to_input(img)?;
        let out = self.backend.call(ModelKind::Layout, &input).await?;
        Ok(layout::outputs_to_regions(&out, img.width(), img.height()))
    }
}

/// A page as it is read: a bilevel page stretched by repeating its pixels smoothed
/// (`stairs_smoothed`), the dark ground around a photographed page painted as its paper
/// (`ground_as_paper`), then its lighting evened (`evenly_lit`).
pub fn page_to_read(img: &RgbImage) -> Cow<'_, RgbImage> {
    let steps: [for<'a> fn(&'a RgbImage) -> Cow<'a, RgbImage>; 3] = [stairs_smoothed, ground_as_paper, evenly_lit];
    steps.iter().fold(Cow::Borrowed(img), |page, step| {
        let changed = match step(&page) {
            Cow::Owned(changed) => Some(changed),
            Cow::Borrowed(_) => None,
        };
        changed.map_or(page, Cow::Owned)
    })
}

/// A page's lines from what its batches read (`Engine::recognize_batch`): lone glyphs read
/// unsurely read as the page's sure ones of their ink, or left out (see `likes`); East Asian
/// look-alikes on a page of Latin print read as Latin (see `look_alikes`), drop capitals
/// joined to their lines (see `initials`), leaders read beside lines given back the dots the
/// lines' boxes cut (see `marks::leaders_joined`), and numbers read with an unsure space after
/// a separator or with their commas read as full stops mended (see `numbers`).
pub fn lines_of_page(img: &RgbImage, lines: Vec<OcrLine>) -> Vec<OcrLine> {
    let mut lines = likes::lone_glyphs_read_by_their_likes(img, lines);
    glyphs::en_dashes_beside_page_hyphens(&mut lines);
    let lines = marks::leaders_joined(initials::initials_to_lines(look_alikes::look_alikes_to_latin(lines)));
    numbers::separators_to_page_convention(lines)
}

/// The character dictionary stored in a recognition model file (its `character` metadata).
pub fn rec_dictionary(rec_onnx: &[u8]) -> Result<String, OcrError> {
    tract::onnx_metadata(rec_onnx, "character")
        .map_err(|message| OcrError::Model { model: ModelKind::Recognition, message })?
        .ok_or(OcrError::NoDictionary)
}

/// The CPU backend for an engine reading `script`, and the recognition dictionary: the
/// detection, recognition and orientation models are required, layout is optional.
/// Recognition's output layer keeps only the script's classes (where its graph has the
/// usual MatMul + bias head), so a script of fewer characters reads faster.
pub fn cpu_backend(files: &[(ModelKind, &[u8])], script: Script) -> Result<(TractBackend, String), OcrError> {
    let find = |kind| files.iter().find(|(k, _)| *k == kind).map(|&(_, b)| b).ok_or(OcrError::MissingModel(kind));
    find(ModelKind::Detection)?;
    find(ModelKind::Orientation)?;
    let dictionary = rec_dictionary(find(ModelKind::Recognition)?)?;
    let all = rec::classes(&dictionary);
    let kept = rec::kept_classes(&all, script);
    let cut = (kept.len() < all.len()).then_some(kept.as_slice());
    Ok((TractBackend::keeping_classes(files, cut)?, dictionary))
}

/// Of a runtime's static input shapes (N×C×H×W), the smallest that holds h×w, else the
/// largest (the input is then shrunk into it); None when there are none.
fn fit_shape(shapes: &[Vec<usize>], h: usize, w: usize) -> Option<[usize; 4]> {
    let sizes = shapes.iter().filter_map(|s| <[usize; 4]>::try_from(s.as_slice()).ok());
    let area = |&[_, _, sh, sw]: &[usize; 4]| sh * sw;
    sizes.clone().filter(|&[_, _, sh, sw]| sh >= h && sw >= w).min_by_key(area).or_else(|| sizes.max_by_key(area))
}

/// A line's crop, or a piece of it (`rec::line_pieces`), read in one input slot.
struct LinePiece {
    /// The batch's line it belongs to.
    line: usize,
    /// Where it lies on the page.
    quad: Quad,
    crop: RgbImage,
    space_before: bool,
}

/// Line `line` of a batch (`quad`), cropped straight at the model's height, as the pieces
/// an input `width` wide reads it in: the whole line where it fits.
fn line_pieces(img: &RgbImage, line: usize, quad: &Quad, width: usize) -> Vec<LinePiece> {
    let full = rec::scaled_width(quad);
    let mut crop = rec::crop_quad(img, quad, full, rec::LINE_HEIGHT);
    rec::erase_neighbour_ink(&mut crop);
    rec::erase_next_columns_ink(&mut crop, &rec::side_pads(img, quad, full));
    if full <= width {
        return vec![LinePiece { line, quad: *quad, crop, space_before: false }];
    }
    let cut = |p: &rec::Piece| {
        let part =
            image::imageops::crop_imm(&crop, p.start as u32, 0, (p.end - p.start) as u32, rec::LINE_HEIGHT as u32);
        let quad = quad.slice(p.start as f32 / full as f32, p.end as f32 / full as f32);
        LinePiece { line, quad, crop: part.to_image(), space_before: p.space_before }
    };
    rec::line_pieces(&rec::ink_columns(&crop), width).iter().map(cut).collect()
}

impl OcrLine {
    /// A line read as nothing, at `quad`.
    fn nothing(quad: Quad) -> OcrLine {
        OcrLine { quad, text: String::new(), chars: Vec::new(), confidence: 0.0, latin: None, dashes: Vec::new() }
    }
}

/// A line from what its pieces read (each with whether a word space comes before it), in
/// order (`joined_pieces`), with its pieces' Latin readings joined the same way where one has
/// one (`OcrLine::latin`) and the whole line may hold look-alikes
/// (`look_alikes::may_hold_look_alikes`). None when all read nothing.
fn pieces_to_line<'a>(quad: &Quad, pieces: impl Iterator<Item = (bool, Option<&'a OcrLine>)>) -> Option<OcrLine> {
    let pieces: Vec<_> = pieces.collect();
    let line = joined_pieces(quad, pieces.iter().copied())?;
    let read_again = pieces.iter().any(|(_, read)| read.is_some_and(|r| r.latin.is_some()));
    let latin = (read_again && look_alikes::may_hold_look_alikes(&line)).then(|| {
        let latin = pieces.iter().map(|&(space, read)| (space, read.map(|r| r.latin.as_deref().unwrap_or(r))));
        joined_pieces(quad, latin).unwrap_or_else(|| OcrLine::nothing(*quad))
    });
    Some(OcrLine { latin: latin.map(Box::new), ..line })
}

/// Pieces' characters in order, with a space where the cut between two fell in a word gap
/// (none between East Asian characters, which have no spaces). None when all read nothing.
fn joined_pieces<'a>(quad: &Quad, pieces: impl Iterator<Item = (bool, Option<&'a OcrLine>)>) -> Option<OcrLine> {
    let (mut chars, mut dashes): (Vec<OcrChar>, Vec<glyphs::DashLength>) = (Vec::new(), Vec::new());
    let mut space = false;
    for (space_before, read) in pieces {
        space |= space_before;
        let Some(read) = read else { continue };
        if let (true, Some(left), Some(right)) = (space, chars.last(), read.chars.first())
            && !(rec::east_asian(left.ch) && rec::east_asian(right.ch))
        {
            let ([_, tr, br, _], [tl, _, _, bl]) = (left.quad.0, right.quad.0);
            let confidence = left.confidence.min(right.confidence);
            chars.push(OcrChar { ch: ' ', quad: Quad([tr, tl, bl, br]), confidence });
        }
        dashes.extend(read.dashes.iter().map(|d| glyphs::DashLength { index: d.index + chars.len(), ..*d }));
        chars.extend(read.chars.iter().cloned());
        space = false;
    }
    if chars.is_empty() {
        return None;
    }
    let confidence = chars.iter().map(|c| c.confidence).sum::<f32>() / chars.len() as f32;
    Some(OcrLine { quad: *quad, text: chars.iter().map(|c| c.ch).collect(), chars, confidence, latin: None, dashes })
}

/// Places each decoded character on the line: CTC step t covers input columns
/// [t, t+1)·`gaps.step_px()`, of which the line's own pixels are the first `line_w`. The
/// line's first and last characters reach to where its ink starts and ends.
fn decoded_to_line(quad: &Quad, decoded: &[rec::Decoded], gaps: &rec::InkGaps, line_w: usize) -> Option<OcrLine> {
    if decoded.is_empty() {
        return None;
    }
    let confidence = decoded.iter().map(|d| d.confidence).sum::<f32>() / decoded.len() as f32;
    if confidence < MIN_LINE_CONFIDENCE && !likes::may_be_read_by_likes(decoded) {
        return None;
    }
    // Each character in input columns: to where the next one starts, but not past its own
    // last step + 1, and at least half a step.
    let step_px = gaps.step_px();
    let mut spans: Vec<(f32, f32)> = decoded
        .iter()
        .enumerate()
        .map(|(k, d)| {
            let end = decoded.get(k + 1).map_or(d.last_step + 1, |n| n.first_step.min(d.last_step + 1));
            let x0 = d.first_step as f32 * step_px;
            (x0, (end as f32 * step_px).max(x0 + step_px * 0.5))
        })
        .collect();
    let n = spans.len();
    let columns = |(x0, x1): (f32, f32)| x0 as usize..(x1.ceil() as usize).min(line_w);
    let (start, end) = gaps.ink_ends(columns(spans[0]), columns(spans[n - 1]));
    (spans[0].0, spans[n - 1].1) = (start as f32, end as f32);
    let u = |x: f32| (x / line_w as f32).clamp(0.0, 1.0);
    let chars = decoded
        .iter()
        .zip(spans)
        .map(|(d, (x0, x1))| OcrChar {
            ch: d.ch,
            quad: quad.slice(u(x0), u(x1.max(x0 + 1.0))),
            confidence: d.confidence,
        })
        .collect();
    let text = decoded.iter().map(|d| d.ch).collect();
    Some(OcrLine { quad: *quad, text, chars, confidence, latin: None, dashes: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::{Arc, Mutex};

    /// What a piece of a line read: its characters one unit wide from `x`.
    fn piece_read(text: &str, x: f32) -> OcrLine {
        let chars: Vec<OcrChar> = text
            .chars()
            .enumerate()
            .map(|(i, ch)| {
                let (x0, x1) = (x + i as f32, x + i as f32 + 1.0);
                OcrChar { ch, quad: Quad([[x0, 0.0], [x1, 0.0], [x1, 1.0], [x0, 1.0]]), confidence: 0.9 }
            })
            .collect();
        let x1 = x + chars.len() as f32;
        let quad = Quad([[x, 0.0], [x1, 0.0], [x1, 1.0], [x, 1.0]]);
        OcrLine { quad, text: text.into(), chars, confidence: 0.9, latin: None, dashes: Vec::new() }
    }

    #[test]
    fn pieces_join_into_their_line_with_a_space_at_word_gaps_but_none_between_east_asian_characters() {
        let line = Quad([[0.0, 0.0], [20.0, 0.0], [20.0, 1.0], [0.0, 1.0]]);
        let (a, b, c) = (piece_read("ab", 0.0), piece_read("cd", 3.0), piece_read("ef", 6.0));
        let joined = pieces_to_line(&line, [(false, Some(&a)), (true, Some(&b)), (false, Some(&c))].into_iter());
        assert_eq!(joined.as_ref().map(|l| (l.text.as_str(), l.quad)), Some(("ab cdef", line)));
        // The space spans the gap between the letters beside it.
        let space = joined.as_ref().and_then(|l| l.chars.get(2)).map(|c| c.quad.bounds());
        assert_eq!(space, Some([2.0, 0.0, 3.0, 1.0]));
        // A piece that read nothing passes its space on; East Asian text takes none.
        let joined = pieces_to_line(&line, [(false, Some(&a)), (true, None), (false, Some(&b))].into_iter());
        assert_eq!(joined.map(|l| l.text), Some("ab cd".into()));
        let (cjk, more) = (piece_read("中文", 0.0), piece_read("字", 3.0));
        let joined = pieces_to_line(&line, [(false, Some(&cjk)), (true, Some(&more))].into_iter());
        assert_eq!(joined.map(|l| l.text), Some("中文字".into()));
        assert!(pieces_to_line(&line, [(false, None), (true, None)].into_iter()).is_none());
    }

    #[test]
    fn pieces_latin_readings_join_where_the_whole_line_may_hold_look_alikes() {
        let line = Quad([[0.0, 0.0], [20.0, 0.0], [20.0, 1.0], [0.0, 1.0]]);
        let read_at = |text, x, confidence| {
            let read = piece_read(text, x);
            OcrLine { chars: read.chars.iter().map(|c| OcrChar { confidence, ..c.clone() }).collect(), ..read }
        };
        let unsure = |text, x| read_at(text, x, 0.6);
        let figures = piece_read("9.8", 0.0);
        let stars = OcrLine { latin: Some(Box::new(piece_read("**", 4.0))), ..unsure("冰冰", 4.0) };
        let joined = pieces_to_line(&line, [(false, Some(&figures)), (true, Some(&stars))].into_iter());
        let latin = joined.as_ref().and_then(|l| l.latin.as_deref()).map(|l| l.text.as_str());
        assert_eq!((joined.as_ref().map(|l| l.text.as_str()), latin), (Some("9.8 冰冰"), Some("9.8 **")));
        // A piece read as nothing in Latin script leaves nothing of itself in that reading.
        let icon = OcrLine { latin: Some(Box::new(OcrLine::nothing(line))), ..unsure("日", 4.0) };
        let joined = pieces_to_line(&line, [(false, Some(&icon))].into_iter());
        assert_eq!(joined.and_then(|l| l.latin).map(|l| l.text), Some(String::new()));
        // A Chinese piece read surely beside them: the line keeps one reading.
        let chinese = read_at("中文", 8.0, 0.99);
        let joined = pieces_to_line(&line, [(false, Some(&stars)), (true, Some(&chinese))].into_iter());
        assert!(joined.is_some_and(|l| l.latin.is_none()));
    }

    #[test]
    fn a_pieces_dashes_keep_their_characters_in_the_joined_line() {
        let line = Quad([[0.0, 0.0], [20.0, 0.0], [20.0, 1.0], [0.0, 1.0]]);
        let dash = |index, length| glyphs::DashLength { index, length };
        let a = OcrLine { dashes: vec![dash(1, 0.4)], ..piece_read("a-b", 0.0) };
        let b = OcrLine { dashes: vec![dash(2, 0.65)], ..piece_read("12-4", 4.0) };
        let joined = pieces_to_line(&line, [(false, Some(&a)), (true, Some(&b))].into_iter());
        let at = joined.map(|l| l.dashes.iter().map(|d| (l.chars[d.index].ch, d.index, d.length)).collect::<Vec<_>>());
        assert_eq!(at, Some(vec![('-', 1, 0.4), ('-', 6, 0.65)]), "a-b 12-4");
    }

    #[test]
    fn fixed_shapes_pick_the_smallest_that_holds_the_input_else_the_largest() {
        let shapes = vec![vec![4, 3, 48, 320], vec![4, 3, 48, 640], vec![1, 3, 48, 1600]];
        assert_eq!(fit_shape(&shapes, 48, 300), Some([4, 3, 48, 320]));
        assert_eq!(fit_shape(&shapes, 48, 480), Some([4, 3, 48, 640]));
        assert_eq!(fit_shape(&shapes, 48, 2400), Some([1, 3, 48, 1600]));
        assert_eq!(fit_shape(&[], 48, 320), None);
    }

    /// Static recognition shapes (and orientation's one, when given); answers blank lines,
    /// every line upright but an empty slot upside down, and keeps the input shapes it was
    /// given.
    struct StaticShapes {
        shapes: Vec<Vec<usize>>,
        orientation: Option<Vec<usize>>,
        classes: usize,
        inputs: Arc<Mutex<Vec<Vec<usize>>>>,
    }

    impl Backend for StaticShapes {
        fn name(&self) -> &'static str {
            "static"
        }
        fn has(&self, model: ModelKind) -> bool {
            model == ModelKind::Recognition || (model == ModelKind::Orientation && self.orientation.is_some())
        }
        fn fixed_shapes(&self, model: ModelKind) -> Option<Vec<Vec<usize>>> {
            match model {
                ModelKind::Orientation => self.orientation.clone().map(|s| vec![s]),
                _ => Some(self.shapes.clone()),
            }
        }
        fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
            self.inputs.lock().unwrap().push(input.shape.clone());
            if !self.fixed_shapes(model).unwrap_or_default().contains(&input.shape) {
                return Err(OcrError::Model { model, message: format!("no shape {:?}", input.shape) });
            }
            if model == ModelKind::Orientation {
                let slots = input.data.chunks(input.data.len() / input.shape[0]);
                let answers = slots.flat_map(|s| if s.iter().all(|&v| v == 0.0) { [0.0, 1.0] } else { [1.0, 0.0] });
                return Ok(vec![Tensor::new(vec![input.shape[0], 2], answers.collect())]);
            }
            let (n, steps) = (input.shape[0], input.shape[3] / 8);
            let mut out = Tensor::zeros(vec![n, steps, self.classes]);
            // Every step blank.
            out.data.chunks_mut(self.classes).for_each(|p| p[0] = 1.0);
            Ok(vec![out])
        }
    }

    /// Model calls by model and input shape.
    type Calls = Arc<Mutex<Vec<(ModelKind, Vec<usize>)>>>;

    /// Any shape (as tract): keeps the shapes prepared and run; every line upright and blank.
    struct AnyShape {
        classes: usize,
        prepared: Calls,
        runs: Calls,
    }

    impl Backend for AnyShape {
        fn name(&self) -> &'static str {
            "any"
        }
        fn has(&self, model: ModelKind) -> bool {
            matches!(model, ModelKind::Orientation | ModelKind::Recognition)
        }
        fn prepare(&self, model: ModelKind, shape: &[usize]) {
            record(&self.prepared, model, shape);
        }
        fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
            record(&self.runs, model, &input.shape);
            let n = input.shape[0];
            let mut out = match model {
                ModelKind::Orientation => Tensor::zeros(vec![n, 2]),
                _ => Tensor::zeros(vec![n, input.shape[3] / 8, self.classes]),
            };
            let width = out.shape[out.shape.len() - 1];
            out.data.chunks_mut(width).for_each(|p| p[0] = 1.0);
            Ok(vec![out])
        }
    }

    fn record(calls: &Calls, model: ModelKind, shape: &[usize]) {
        calls.lock().unwrap_or_else(|p| p.into_inner()).push((model, shape.to_vec()));
    }

    /// Detection that sees ink: every input pixel darker than mid-grey is text. With
    /// `canvases`, only those input shapes run (as on a GPU).
    struct InkDetector {
        runs: Calls,
        canvases: Option<Vec<Vec<usize>>>,
    }

    impl Backend for InkDetector {
        fn name(&self) -> &'static str {
            "ink"
        }
        fn has(&self, model: ModelKind) -> bool {
            model == ModelKind::Detection
        }
        fn fixed_shapes(&self, _model: ModelKind) -> Option<Vec<Vec<usize>>> {
            self.canvases.clone()
        }
        fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
            record(&self.runs, model, &input.shape);
            if self.canvases.as_ref().is_some_and(|c| !c.contains(&input.shape)) {
                return Err(OcrError::Model { model, message: format!("no shape {:?}", input.shape) });
            }
            let &[_, _, h, w] = input.shape.as_slice() else {
                return Err(OcrError::Model { model, message: format!("shape {:?}", input.shape) });
            };
            let ink = input.data[..h * w].iter().map(|&v| if v < 0.0 { 1.0 } else { 0.0 }).collect();
            Ok(vec![Tensor::new(vec![1, 1, h, w], ink)])
        }
    }

    /// A w×h page of `rows` rows of six words `word_h` px high.
    fn page_of_words(w: u32, h: u32, rows: u32, word_h: u32) -> RgbImage {
        let (row, column) = (h / rows.max(1), w / 6);
        RgbImage::from_fn(w, h, |x, y| {
            let word =
                (8..8 + word_h).contains(&(y % row)) && y / row < rows && x % column >= 10 && x % column < column - 10;
            image::Rgb(if word { [0; 3] } else { [255; 3] })
        })
    }

    /// An ink detector recording its calls in `runs`, with static `canvases` if given.
    fn ink_detector(runs: &Calls, canvases: Option<Vec<Vec<usize>>>) -> Box<dyn Backend> {
        Box::new(InkDetector { runs: runs.clone(), canvases })
    }

    /// What `Engine::detect` finds on `img` with `backend`.
    fn detected(img: &RgbImage, backend: Box<dyn Backend>) -> Result<Vec<Quad>, OcrError> {
        now(Engine::new(backend, "a\n", Script::All).detect(img))
    }

    /// The (width, height) of each input in `runs`.
    fn input_sizes(runs: &Calls) -> Vec<(usize, usize)> {
        runs.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|(_, s)| (s[3], s[2])).collect()
    }

    /// The (width, height) of the detection inputs `Engine::detect` read a page of words in.
    fn detection_inputs(w: u32, h: u32, rows: u32, word_h: u32) -> Result<Vec<(usize, usize)>, OcrError> {
        let runs = Calls::default();
        detected(&page_of_words(w, h, rows, word_h), ink_detector(&runs, None))?;
        Ok(input_sizes(&runs))
    }

    #[test]
    fn small_print_no_static_canvas_holds_at_the_finer_scale_is_read_whole_on_the_fallback() -> Result<(), OcrError> {
        // 60 rows of six words 12 px high: a finer pass reads the page at 1952×2624, larger
        // than either canvas.
        let img = page_of_words(2400, 3200, 60, 12);
        let any = Calls::default();
        let whole = detected(&img, ink_detector(&any, None))?;
        assert_eq!((whole.len(), input_sizes(&any)), (360, vec![(1216, 1600), (1952, 2624)]));
        let canvases = vec![vec![1, 3, 1248, 1600], vec![1, 3, 1600, 1248]];
        let (gpu, cpu) = (Calls::default(), Calls::default());
        let both = Preferring::new(ink_detector(&gpu, Some(canvases.clone())), ink_detector(&cpu, None));
        assert_eq!(detected(&img, Box::new(both))?, whole);
        assert_eq!((input_sizes(&gpu), input_sizes(&cpu)), (vec![(1248, 1600)], vec![(1952, 2624)]));
        // With no runtime behind the canvases, the finer pass cannot read finer than the first.
        let alone = Calls::default();
        let shrunk = detected(&img, ink_detector(&alone, Some(canvases)))?;
        assert_eq!(input_sizes(&alone), [(1248, 1600)]);
        assert_ne!(shrunk, whole);
        Ok(())
    }

    fn detection_input_aspects(w: u32, h: u32, rows: u32) -> Result<Vec<f32>, OcrError> {
        Ok(detection_inputs(w, h, rows, 16)?.iter().map(|&(w, h)| w as f32 / h as f32).collect())
    }

    #[test]
    fn a_wide_page_whose_print_its_whole_read_sizes_is_not_read_again_in_bands() -> Result<(), OcrError> {
        // Two HD screens side by side (3840×1080): read whole, a first pass and a finer one.
        let whole = detection_input_aspects(3840, 1080, 30)?;
        assert!(whole.len() == 2 && whole.iter().all(|&a| a > 3.0), "{whole:?}");
        // With one row of words (six) the first pass cannot size the print: then each of the
        // page's two bands too.
        let sparse = detection_input_aspects(3840, 1080, 1)?;
        assert_eq!(sparse.len(), 3, "{sparse:?}");
        // A page so wide that the finer pass would read it coarsely: bands at once.
        let wider = detection_input_aspects(6000, 900, 30)?;
        assert!(wider.first().is_some_and(|&a| a < 2.5), "{wider:?}");
        Ok(())
    }

    #[test]
    fn a_small_page_whose_print_reads_at_its_own_size_is_not_enlarged() -> Result<(), OcrError> {
        // 640×480 (detection would enlarge it 1.5 times) of 12 rows of 16 px words: once, as it is.
        let large = detection_inputs(640, 480, 12, 16)?;
        assert!(large.len() == 1 && large[0].0 <= 640 && large[0].1 <= 480, "{large:?}");
        // Of 3 px words: too small at its own size, read again enlarged, and finer still as
        // their boxes are small print at its own size (`det::finer_for_small_text`).
        let small = detection_inputs(640, 480, 12, 3)?;
        assert!(small.len() == 3 && small[1].0 > 640 && small[1].1 > 480, "{small:?}");
        assert!(small[2].0 > small[1].0 && small[2].1 > small[1].1, "{small:?}");
        // One row of six words, too few boxes to size the print: enlarged too.
        assert_eq!(detection_inputs(640, 480, 1, 16)?.len(), 2);
        // A 1280×720 screenshot is enlarged too little to read twice.
        assert_eq!(detection_inputs(1280, 720, 12, 16)?.len(), 1);
        Ok(())
    }

    #[test]
    fn the_line_models_are_prepared_at_the_shapes_a_page_runs_them_at() -> Result<(), OcrError> {
        let dictionary = "a\nb\n";
        let (prepared, runs) = (Calls::default(), Calls::default());
        let backend =
            AnyShape { classes: rec::classes(dictionary).len(), prepared: prepared.clone(), runs: runs.clone() };
        let engine = Engine::new(Box::new(backend), dictionary, Script::All);
        for (model, shape) in engine.line_model_inputs() {
            engine.prepare(model, &shape);
        }
        // A short word (the narrowest input width) and a long line.
        let line = |w: f32| Quad([[0.0, 0.0], [w, 0.0], [w, 24.0], [0.0, 24.0]]);
        let quads = vec![line(20.0), line(700.0)];
        let img = RgbImage::new(800, 24);
        let quads = now(engine.orient(&img, quads, &mut |_| true))?;
        for b in engine.recognition_batches(&quads, &Beside::default()) {
            now(engine.recognize_batch(&img, &b))?;
        }
        let taken = |calls: &Calls| calls.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let (prepared, runs) = (taken(&prepared), taken(&runs));
        assert_eq!(prepared.len(), 2);
        for p in &prepared {
            assert!(runs.contains(p), "{p:?} prepared, runs {runs:?}");
        }
        assert!(prepared.iter().any(|(m, _)| *m == ModelKind::Orientation));
        assert!(prepared.iter().any(|(m, _)| *m == ModelKind::Recognition));
        Ok(())
    }

    #[test]
    fn a_runtime_with_static_shapes_is_readied_for_every_file_its_line_models_have() {
        let dictionary = "a\nb\n";
        let shapes = vec![vec![4, 3, 48, 320], vec![2, 3, 48, 640]];
        let classes = rec::classes(dictionary).len();
        let cls = vec![4, 3, 48, 192];
        let backend = StaticShapes { shapes: shapes.clone(), orientation: None, classes, inputs: Default::default() };
        let engine = Engine::new(Box::new(backend), dictionary, Script::All);
        // No orientation model here, so none of its shapes.
        let mut want: Vec<_> = shapes.iter().map(|s| (ModelKind::Recognition, s.clone())).collect();
        assert_eq!(engine.line_model_inputs(), want);
        let backend = StaticShapes { shapes, orientation: Some(cls.clone()), classes, inputs: Default::default() };
        let engine = Engine::new(Box::new(backend), dictionary, Script::All);
        want.insert(0, (ModelKind::Orientation, cls));
        assert_eq!(engine.line_model_inputs(), want);
    }

    #[test]
    fn a_static_orientation_shape_asks_its_batch_of_lines_a_call_and_empty_slots_turn_no_line() -> Result<(), OcrError>
    {
        let dictionary = "a\nb\n";
        let inputs = Arc::new(Mutex::new(Vec::new()));
        let cls = vec![4, 3, 48, 192];
        let backend = StaticShapes {
            shapes: vec![vec![4, 3, 48, 320]],
            orientation: Some(cls.clone()),
            classes: rec::classes(dictionary).len(),
            inputs: inputs.clone(),
        };
        let engine = Engine::new(Box::new(backend), dictionary, Script::All);
        let line = |y: f32| Quad([[0.0, y], [100.0, y], [100.0, y + 20.0], [0.0, y + 20.0]]);
        let img = RgbImage::new(100, 200);
        // One line and three empty slots, then five lines in two calls (the second with three
        // empty slots): the empty slots answer upside down, the lines upright, so no line turns.
        for n in [1usize, 5] {
            inputs.lock().unwrap_or_else(|p| p.into_inner()).clear();
            let quads: Vec<Quad> = (0..n).map(|i| line(i as f32 * 30.0)).collect();
            let read = now(engine.orient(&img, quads.clone(), &mut |_| true))?;
            assert_eq!(read, quads, "{n} lines");
            assert_eq!(*inputs.lock().unwrap_or_else(|p| p.into_inner()), vec![cls.clone(); n.div_ceil(4)]);
        }
        Ok(())
    }

    /// Recognition that reads every other step as `read` (probabilities over blank, the
    /// dictionary, space) and the steps between as blank.
    struct Reads {
        read: Vec<f32>,
    }

    impl Backend for Reads {
        fn name(&self) -> &'static str {
            "reads"
        }
        fn has(&self, model: ModelKind) -> bool {
            model == ModelKind::Recognition
        }
        fn run(&self, _: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
            let (n, steps, classes) = (input.shape[0], input.shape[3] / 8, self.read.len());
            let mut out = Tensor::zeros(vec![n, steps, classes]);
            for (t, p) in out.data.chunks_mut(classes).enumerate() {
                if t % 2 == 0 {
                    p.copy_from_slice(&self.read);
                } else {
                    p[0] = 1.0;
                }
            }
            Ok(vec![out])
        }
    }

    #[test]
    fn a_bullet_detection_boxed_alone_is_read_by_its_shape_not_as_the_line_it_was_read() -> Result<(), OcrError> {
        // Recognition reads every line as zeros, as the model reads a lone bullet.
        let engine = Engine::new(Box::new(Reads { read: vec![0.0, 1.0, 0.0] }), "0\n", Script::All);
        let mut img = RgbImage::from_pixel(400, 60, image::Rgb([250; 3]));
        for x in (30..190).step_by(12) {
            crate::test_support::paint(&mut img, x, 20, 7, 18);
        }
        crate::test_support::disc(&mut img, 250.0, 31.0, 9.0, None);
        let lines = [
            Quad([[20.0, 15.0], [200.0, 15.0], [200.0, 45.0], [20.0, 45.0]]),
            Quad([[242.0, 24.0], [258.0, 24.0], [258.0, 38.0], [242.0, 38.0]]),
        ];
        let batches = engine.recognition_batches(&lines, &engine.beside(&img, &lines));
        let mut read = Vec::new();
        for batch in &batches {
            read.extend(now(engine.recognize_batch(&img, batch))?);
        }
        let texts: Vec<&str> = read.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[0].chars().all(|c| c == '0'), "{texts:?}");
        assert_eq!(texts[1], "•");
        assert!(read[1].quad.contains(lines[1].centre()));
        Ok(())
    }

    #[test]
    fn a_dash_an_ideograph_looks_like_is_read_as_a_dash_in_a_mark_and_as_is_in_a_line() -> Result<(), OcrError> {
        let dictionary = "-\n一\n";
        // Blank, "-", "一", space: the ideograph most likely, neither sure.
        let backend = Reads { read: vec![0.15, 0.40, 0.45, 0.0] };
        let engine = Engine::new(Box::new(backend), dictionary, Script::All);
        let img = RgbImage::from_pixel(200, 24, image::Rgb([255; 3]));
        let quad = Quad([[0.0, 0.0], [200.0, 0.0], [200.0, 24.0], [0.0, 24.0]]);
        let read = |lines: &[Quad], marks: &[Quad]| -> Result<Vec<OcrLine>, OcrError> {
            let batches = engine.recognition_batches(lines, &Beside { marks: marks.to_vec(), ..Beside::default() });
            assert_eq!(batches.len(), 1);
            now(engine.recognize_batch(&img, &batches[0]))
        };
        let mark = read(&[], &[quad])?;
        assert_eq!(mark.len(), 1);
        assert!(mark[0].text.len() > 2 && mark[0].text.chars().all(|c| c == '-'), "{:?}", mark[0].text);
        assert!((mark[0].confidence - 0.40 / 0.55).abs() < 1e-3, "{}", mark[0].confidence);
        // A line is read with every class, and an unsure one is left out.
        assert!(read(&[quad], &[])?.is_empty());
        Ok(())
    }

    #[test]
    fn a_line_wider_than_every_static_shape_is_read_in_pieces_of_the_widest_not_squeezed() -> Result<(), OcrError> {
        let dictionary = "a\nb\n";
        let inputs = Arc::new(Mutex::new(Vec::new()));
        let shape = vec![4, 3, 48, 320];
        let classes = rec::classes(dictionary).len();
        let backend = StaticShapes { shapes: vec![shape.clone()], orientation: None, classes, inputs: inputs.clone() };
        let engine = Engine::new(Box::new(backend), dictionary, Script::All);
        // Words of ink 40 px wide, 8 px apart, on a line 24 px high: 4,000 columns at height 48.
        let img = RgbImage::from_fn(2000, 24, |x, y| {
            if (4..20).contains(&y) && x % 48 < 40 { image::Rgb([0; 3]) } else { image::Rgb([255; 3]) }
        });
        let line = Quad([[0.0, 0.0], [2000.0, 0.0], [2000.0, 24.0], [0.0, 24.0]]);
        let batches = engine.recognition_batches(&[line], &Beside::default());
        assert_eq!(batches.len(), 1);
        now(engine.recognize_batch(&img, &batches[0]))?;
        // At least 4,000 / 320 pieces, four a call.
        let calls = inputs.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert!(calls.len() >= 4000usize.div_ceil(320).div_ceil(4), "{} calls", calls.len());
        assert!(calls.iter().all(|c| *c == shape));
        Ok(())
    }

    #[test]
    fn static_shapes_batch_lines_by_width_and_fill_each_batch_with_blank_lines() {
        let dictionary = "a\nb\n";
        let classes = rec::classes(dictionary).len();
        let shapes = vec![vec![4, 3, 48, 320], vec![2, 3, 48, 640]];
        let inputs = Arc::new(Mutex::new(Vec::new()));
        let backend = StaticShapes { shapes: shapes.clone(), orientation: None, classes, inputs: inputs.clone() };
        let engine = Engine::new(Box::new(backend), dictionary, Script::All);
        let line = |w: f32| Quad([[0.0, 0.0], [w, 0.0], [w, 48.0], [0.0, 48.0]]);
        // Five lines that fit 320 columns, three that need 640.
        let quads: Vec<Quad> = [100.0, 600.0, 200.0, 300.0, 500.0, 250.0, 120.0, 630.0].map(line).to_vec();
        let batches = engine.recognition_batches(&quads, &Beside::default());
        let calls: Vec<(usize, usize, usize)> = batches.iter().map(|b| (b.width, b.quads.len(), b.slots)).collect();
        assert_eq!(calls, [(320, 4, 4), (320, 1, 4), (640, 2, 2), (640, 1, 2)]);
        for b in &batches {
            assert!(now(engine.recognize_batch(&RgbImage::new(700, 48), b)).expect("runs").is_empty());
        }
        assert_eq!(*inputs.lock().unwrap(), [0, 0, 1, 1].map(|i| shapes[i].clone()));
    }
}
