//! Text detection (DBNet): page image -> model input, probability map -> text boxes
//! (threshold, connected regions, minimum-area rectangles, box score, unclip).

use image::RgbImage;

use crate::OcrError;
use crate::backend::Tensor;
use crate::geometry::{Point, Quad, RotatedRect, min_area_rect, reading_angle, turn_between};

/// PaddleOCR's DB post-processing defaults, which the PP-OCR detection models were tuned
/// with, except `max_candidates`.
#[derive(Clone, Debug)]
pub struct DetParams {
    /// Probability above which a pixel is text.
    pub thresh: f32,
    /// Mean probability inside a box below which it is dropped.
    pub box_thresh: f32,
    /// How far a shrunk text kernel is grown back: area × ratio / perimeter.
    pub unclip_ratio: f32,
    /// Upper bound on regions per page, a guard against speckled scans. Above PaddleOCR's
    /// 1000, which cut a dense table page short (nics p1 has ~1,300 cells).
    pub max_candidates: usize,
    /// The shorter side of the model input is scaled up to at least this (PaddleOCR: 736).
    pub min_side: u32,
    /// ... and the longer side down to at most this, which bounds time and memory: a
    /// letter page at 1600 px puts 7pt text at ~14 px, where DB still separates table rows.
    pub max_side: u32,
}

impl Default for DetParams {
    fn default() -> Self {
        DetParams {
            thresh: 0.3,
            box_thresh: 0.5,
            unclip_ratio: 1.6,
            max_candidates: 4000,
            min_side: 736,
            max_side: 1600,
        }
    }
}

/// Detection networks downsample by 32: input sides must be multiples of it.
const DET_STRIDE: u32 = 32;
/// Regions whose rectangle is thinner than this (in model pixels) are specks.
const MIN_BOX_SIDE: f32 = 3.0;
/// Regions whose grown rectangle is thinner than this are dropped too (PaddleOCR's min_size + 2).
const MIN_GROWN_SIDE: f32 = 5.0;

/// The model-input size for a w×h image: scaled so the short side reaches `min_side` and
/// the long side stays within `max_side`, in multiples of the network stride.
pub fn input_size(w: u32, h: u32, p: &DetParams) -> (u32, u32) {
    let mut scale = 1.0f32;
    if w.min(h) < p.min_side {
        scale = p.min_side as f32 / w.min(h) as f32;
    }
    if w.max(h) as f32 * scale > p.max_side as f32 {
        scale = p.max_side as f32 / w.max(h) as f32;
    }
    let round = |v: u32| (((v as f32 * scale) / DET_STRIDE as f32).round() as u32).max(1) * DET_STRIDE;
    (round(w), round(h))
}

/// `size` shrunk into the canvas when there is one and it is smaller.
pub fn fitted_size((tw, th): (u32, u32), canvas: Option<(u32, u32)>) -> (u32, u32) {
    let (cw, ch) = canvas.unwrap_or((tw, th));
    if tw <= cw && th <= ch {
        return (tw, th);
    }
    let fit = (cw as f32 / tw as f32).min(ch as f32 / th as f32);
    (((tw as f32 * fit) as u32).clamp(1, cw), ((th as f32 * fit) as u32).clamp(1, ch))
}

/// A rectangle of image pixels (fractional where it follows the model's pixel grid).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Area {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Area {
    /// All of a w×h image.
    pub const fn whole(w: u32, h: u32) -> Area {
        Area { x: 0.0, y: 0.0, w: w as f32, h: h as f32 }
    }
}

/// A pixel is content where a channel differs from the page's background by more than this:
/// JPEG ringing and paper grain stay below it, the faintest print worth reading above.
const BACKGROUND_TOLERANCE: u8 = 24;

/// The page's background: the per-channel median of its border pixels.
fn border_colour(img: &RgbImage) -> [u8; 3] {
    let (w, h) = img.dimensions();
    let border = (0..w).flat_map(|x| [(x, 0), (x, h - 1)]).chain((0..h).flat_map(|y| [(0, y), (w - 1, y)]));
    let mut channels: [Vec<u8>; 3] = Default::default();
    for (x, y) in border {
        for (c, v) in channels.iter_mut().zip(img.get_pixel(x, y).0) {
            c.push(v);
        }
    }
    channels.map(|mut c| {
        let mid = c.len() / 2;
        *c.select_nth_unstable(mid).1
    })
}

/// Side of the cells ink is gathered in to tell specks from print, as a share of the page's
/// shorter side: 6 px on a letter page at 300 dpi, 3 px at 150 dpi. A speck fits in two
/// cells (3 pt on a letter page), where dust and scanner noise are a few pixels and the
/// smallest readable glyph, a lone page number's digit at 6 pt, is 4 pt tall.
const SPECK_CELL_OF_SHORT_SIDE: f32 = 0.0025;
/// ... and never under this, so that a small image's specks are told too.
const MIN_SPECK_CELL: u32 = 2;
/// Ink that lies within this many cells each way, apart from all other ink, is a speck (ink
/// smaller than a cell lies in at most two cells each way).
const SPECK_CELLS: usize = 2;

/// The smallest rectangle holding the page's content: its pixels that differ from the
/// background, but for specks (`SPECK_CELLS`) away from the rest; None for a blank page.
/// Detection need not look at the margins, and a speck of dust in a corner would make it
/// read the whole page (scotus-transcript p1: a dot near its top left corner widened the
/// window by a tenth). Specks within `CONTENT_MARGIN` of print are read anyway; a page of
/// specks alone keeps them.
pub fn content_bounds(img: &RgbImage) -> Option<Area> {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return None;
    }
    let bg = border_colour(img);
    let ink = |px: &[u8]| px.iter().zip(bg).any(|(&v, b)| v.abs_diff(b) > BACKGROUND_TOLERANCE);
    let cell = ((w.min(h) as f32 * SPECK_CELL_OF_SHORT_SIDE) as u32).max(MIN_SPECK_CELL) as usize;
    let (gw, gh) = ((w as usize).div_ceil(cell), (h as usize).div_ceil(cell));
    // Per cell, the pixel bounds of its ink.
    let mut cells = vec![NO_BOUNDS; gw * gh];
    for (y, row) in img.as_raw().chunks_exact(3 * w as usize).enumerate() {
        for (x, _) in row.chunks_exact(3).enumerate().filter(|(_, px)| ink(px)) {
            let c = &mut cells[(y / cell) * gw + x / cell];
            *c = bounds_union(*c, [x, y, x + 1, y + 1]);
        }
    }
    let inked: Vec<bool> = cells.iter().map(|c| c[2] > c[0]).collect();
    let groups = mask_to_components(&inked, gw, gh);
    let speck = |group: &&Vec<usize>| {
        let [x0, y0, x1, y1] =
            group.iter().fold(NO_BOUNDS, |b, &i| bounds_union(b, [i % gw, i / gw, i % gw + 1, i / gw + 1]));
        x1 - x0 <= SPECK_CELLS && y1 - y0 <= SPECK_CELLS
    };
    let print: Vec<&Vec<usize>> = groups.iter().filter(|g| !speck(g)).collect();
    let kept = if print.is_empty() { groups.iter().collect() } else { print };
    let [x0, y0, x1, y1] = kept.iter().flat_map(|g| g.iter()).fold(NO_BOUNDS, |b, &i| bounds_union(b, cells[i]));
    (x1 > x0).then(|| Area { x: x0 as f32, y: y0 as f32, w: (x1 - x0) as f32, h: (y1 - y0) as f32 })
}

/// Bounds [x0, y0, x1, y1] (ends exclusive) holding nothing.
const NO_BOUNDS: [usize; 4] = [usize::MAX, usize::MAX, 0, 0];

/// The smallest bounds holding both.
fn bounds_union(a: [usize; 4], b: [usize; 4]) -> [usize; 4] {
    [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
}

/// Model pixels of page kept around the content: DB's kernels at the content's edge see
/// the page as it is (blank) for a stride, and unclipped boxes stay inside.
const CONTENT_MARGIN: f32 = 32.0;

/// Where detection with `p` looks at a w×h image whose content lies in `content`, and the
/// model-input size for it: the content and a margin, as a window of the input the whole
/// image would get (`input_size`) cut on the network's stride grid, so the model sees the
/// same samples in the same cells as on the whole page, only without the blank around.
pub fn detection_area(content: Area, w: u32, h: u32, p: &DetParams) -> (Area, (u32, u32)) {
    let (tw, th) = input_size(w, h, p);
    let stride = DET_STRIDE as f32;
    // An image span at `scale` -> model pixels, grown by the margin out to the grid.
    let window = |lo: f32, len: f32, scale: f32, whole: u32| {
        let a = ((lo * scale - CONTENT_MARGIN) / stride).floor() * stride;
        let b = (((lo + len) * scale + CONTENT_MARGIN) / stride).ceil() * stride;
        (a.max(0.0), b.min(whole as f32))
    };
    let (sx, sy) = (tw as f32 / w as f32, th as f32 / h as f32);
    let ((x0, x1), (y0, y1)) = (window(content.x, content.w, sx, tw), window(content.y, content.h, sy, th));
    // Model pixels -> image pixels; the input's far edge is the image's, without rounding.
    let back = |m: f32, scale: f32, whole: u32, side: u32| if m >= whole as f32 { side as f32 } else { m / scale };
    let (ix0, iy0) = (back(x0, sx, tw, w), back(y0, sy, th, h));
    let area = Area { x: ix0, y: iy0, w: back(x1, sx, tw, w) - ix0, h: back(y1, sy, th, h) - iy0 };
    (area, ((x1 - x0) as u32, (y1 - y0) as u32))
}

/// Pages whose lines read this far (radians, 5°) or further off upright are detected again
/// turned upright. DB's boxes around skewed lines come out taller, and the sizes read from
/// them run high (UNLV 8071_093 turned 5°: 6%, within the tenth the reading order allows;
/// 10°: 9%; 20°: 21%, which closed its narrowest gutter: CER 0.33 at 200°). Lines turned a
/// quarter or a half score lower in DB, trained on upright print: UNLV turned a quarter
/// scored 0.66–0.67 on average against 0.81 upright, and a line of it fell below
/// `box_thresh` and was lost. The second detection costs about what the first did
/// (0.45–0.55 s on UNLV, 2 cores).
pub const MIN_DESKEW: f32 = 0.087;

/// The turn that would set a page's detected lines upright, where it is `MIN_DESKEW` or
/// more and the lines are enough to tell (`MIN_BOXES_FOR_SIZE`).
pub fn turn_to_upright(quads: &[Quad]) -> Option<f32> {
    if quads.len() < MIN_BOXES_FOR_SIZE {
        return None;
    }
    let angle = turn_between(reading_angle(quads.iter()), 0.0);
    (angle.abs() >= MIN_DESKEW).then_some(angle)
}

/// `img` turned by `-turn` onto a canvas that holds it whole, the rest `paper`, sampled at
/// the nearest pixel and no finer than detection ever reads (`SMALL_TEXT_MAX_SIDE`): it is
/// only detected, and shrunk again for that. Also where the canvas lies on the page (its
/// corners, clockwise from top left), for the boxes found on it.
pub fn turned_upright(img: &RgbImage, turn: f32, paper: image::Rgb<u8>) -> (RgbImage, Quad) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    // A quarter turn's cosine comes out 4e-8, which would grow the canvas by a pixel.
    let exact = |v: f32| if (v - v.round()).abs() < 1e-6 { v.round() } else { v };
    let (sin, cos) = turn.sin_cos();
    let (sin, cos) = (exact(sin), exact(cos));
    let (tw, th) = (w * cos.abs() + h * sin.abs(), w * sin.abs() + h * cos.abs());
    let scale = (SMALL_TEXT_MAX_SIDE as f32 / tw.max(th)).min(1.0);
    let (cw, ch) = ((tw * scale).ceil().max(1.0) as u32, (th * scale).ceil().max(1.0) as u32);
    // The canvas's extent on the page: whole canvas pixels, each 1/scale page pixels wide.
    let (fw, fh) = (cw as f32 / scale, ch as f32 / scale);
    let corner = |a: f32, b: f32| {
        let (x, y) = (a * fw / 2.0, b * fh / 2.0);
        [w / 2.0 + x * cos - y * sin, h / 2.0 + x * sin + y * cos]
    };
    let frame = Quad([corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)]);
    let canvas = RgbImage::from_fn(cw, ch, |x, y| {
        let (u, v) = ((x as f32 + 0.5) / scale - fw / 2.0, (y as f32 + 0.5) / scale - fh / 2.0);
        let (sx, sy) = (w / 2.0 + u * cos - v * sin, h / 2.0 + u * sin + v * cos);
        if sx >= 0.0 && sy >= 0.0 && sx < w && sy < h { *img.get_pixel(sx as u32, sy as u32) } else { paper }
    });
    (canvas, frame)
}

/// A stretch of a page read on its own: `start..start + len` along the page's longer side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    pub start: u32,
    pub len: u32,
}

/// Overlap of neighbouring bands, as a share of the page's shorter side. A text line lower
/// than the overlap lies whole in both bands across a tall page's cut: an eighth of the
/// width is six lines of body text or more (12 pt lines on letter paper measure a 51st of
/// its width). A line across a wide page's cut shows in both as parts this much overlapping.
const BAND_OVERLAP_OF_SHORT_SIDE: f32 = 0.125;

/// The bands detection reads a w×h page in, along its longer side. Detection's input holds a
/// page within `max_side`, so a page much longer than wide was shrunk whole until its print
/// was too small to find: a 1280×8000 screenshot of 16 px text lost every line, and so did
/// two 4K screens side by side (7680×2160). Such a page is read in bands, each as long as a
/// page whose short side reaches `min_side` as its long side reaches `max_side` (and never
/// shorter than `max_side`), spaced evenly so that they share one input shape. Other pages
/// are one band.
pub fn long_page_bands(w: u32, h: u32, p: &DetParams) -> Vec<Band> {
    let (long, short) = (w.max(h), w.min(h));
    let band = (short as f32 * p.max_side as f32 / p.min_side.max(1) as f32).max(p.max_side as f32);
    if long as f32 <= band {
        return vec![Band { start: 0, len: long }];
    }
    let band = band.round() as u32;
    let overlap = ((short as f32 * BAND_OVERLAP_OF_SHORT_SIDE).ceil() as u32).min(band / 2);
    // At least 2, as long > band; the even spacing keeps each overlap at least `overlap`.
    let count = (long - overlap).div_ceil(band - overlap);
    let start = |i: u32| (u64::from(long - band) * u64::from(i) / u64::from(count - 1)) as u32;
    (0..count).map(|i| Band { start: start(i), len: band }).collect()
}

/// Whether a page that `long_page_bands` cuts is read whole first, as other pages are (a
/// first pass, then a finer one where the print is small): where that finer pass may read it
/// at least as finely as the bands' first passes do, it costs less than the bands' passes (a
/// 3840×1080 screenshot of 16 px text: two passes against four, 1.8 against 2.9 s natively).
/// The whole read stands only where its first pass sizes the print (`sizes_print`): a page
/// whose print it cannot see (two 4K screens of 16 px text) is read in bands after all.
pub fn reads_long_page_whole_first(w: u32, h: u32, p: &DetParams) -> bool {
    let Some(band) = long_page_bands(w, h, p).first().copied() else { return false };
    let (bw, bh) = if w > h { (band.len, h) } else { (w, band.len) };
    let (tw, th) = input_size(bw, bh, p);
    let band_scale = tw.max(th) as f32 / band.len.max(1) as f32;
    SMALL_TEXT_MAX_SIDE as f32 / w.max(h).max(1) as f32 >= band_scale
}

/// Whether a pass that found `boxes` text boxes says how large the page's print is.
pub fn sizes_print(boxes: usize) -> bool {
    boxes >= MIN_BOXES_FOR_SIZE
}

/// Two boxes from neighbouring bands hold one text only if they share at least this much of
/// the smaller one's extent across the bands' axis (one row of a wide page, one column of a
/// tall page's vertical text).
const SAME_TEXT_ACROSS: f32 = 0.5;
/// One box holds the other (both bands saw the text whole) when it spans this much of the
/// other's extent along the axis; a box is cut by its band's edge when it ends within its own
/// thickness of it.
const SAME_TEXT_ALONG: f32 = 0.9;

/// The page's quads from those found band by band (`long_page_bands`, in page pixels; `along_x`
/// for the columns of a wide page). A text two neighbouring bands share becomes one: the
/// larger box where one holds the other (a line in their overlap, seen whole by both), the
/// two parts joined where each band's edge cut it (a line across a wide page's cut, or a
/// column of vertical text across a tall page's).
pub fn band_quads_to_page(bands: Vec<(Band, Vec<Quad>)>, along_x: bool) -> Vec<Quad> {
    let mut page = Vec::new();
    let mut previous: Option<(Band, Vec<Quad>)> = None;
    for (band, found) in bands {
        let mut kept = Vec::with_capacity(found.len());
        for mut q in found {
            if let Some((before, quads)) = previous.as_mut() {
                while let Some((i, one)) =
                    quads.iter().enumerate().find_map(|(i, p)| one_text(p, *before, &q, band, along_x).map(|m| (i, m)))
                {
                    quads.swap_remove(i);
                    q = one;
                }
            }
            kept.push(q);
        }
        page.extend(previous.take().into_iter().flat_map(|(_, quads)| quads));
        previous = Some((band, kept));
    }
    page.extend(previous.into_iter().flat_map(|(_, quads)| quads));
    page
}

/// `a` (found in band `before`) and `b` (in the next band) as one text, if they are one.
fn one_text(a: &Quad, before: Band, b: &Quad, band: Band, along_x: bool) -> Option<Quad> {
    let (along, across) = if along_x { (0, 1) } else { (1, 0) };
    let (ba, bb) = (a.bounds(), b.bounds());
    let span = |b: [f32; 4], k: usize| (b[k], b[k + 2]);
    let shared = |(a0, a1): (f32, f32), (b0, b1): (f32, f32)| a1.min(b1) - a0.max(b0);
    let ext = |(s0, s1): (f32, f32)| s1 - s0;
    let (a_al, b_al, a_ac, b_ac) = (span(ba, along), span(bb, along), span(ba, across), span(bb, across));
    if shared(a_ac, b_ac) < SAME_TEXT_ACROSS * ext(a_ac).min(ext(b_ac)) || shared(a_al, b_al) <= 0.0 {
        return None;
    }
    if shared(a_al, b_al) >= SAME_TEXT_ALONG * ext(a_al).min(ext(b_al)) {
        return Some(if ext(a_al) >= ext(b_al) { *a } else { *b });
    }
    // A box's thickness: the height of its text, whichever way it reads.
    let (a_thick, b_thick) = (ext(a_al).min(ext(a_ac)), ext(b_al).min(ext(b_ac)));
    let cut_end = a_al.1 >= (before.start + before.len) as f32 - a_thick;
    let cut_start = b_al.0 <= band.start as f32 + b_thick;
    if !(cut_end && cut_start) {
        return None;
    }
    let reads_along = |q: &Quad| {
        let (sin, cos) = q.angle().sin_cos();
        (if along_x { cos } else { sin }).abs() >= std::f32::consts::FRAC_1_SQRT_2
    };
    if reads_along(a) && reads_along(b) {
        // The text runs on from a into b: a's start edge, b's end edge (keeping their skew).
        let ([tl, _, _, bl], [_, tr, br, _]) = (a.0, b.0);
        return Some(Quad([tl, tr, br, bl]));
    }
    // Parts read across the cut (a line taller than the overlap): the box of both.
    let [x0, y0, x1, y1] = [ba[0].min(bb[0]), ba[1].min(bb[1]), ba[2].max(bb[2]), ba[3].max(bb[3])];
    let q = Quad([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]);
    Some(if q.height() >= crate::rec::VERTICAL_RATIO * q.width() { q.quarter_turn() } else { q })
}

/// Text lines whose detected boxes are shorter than this (model pixels, median over the
/// page) are small print that DB merges across tight rows (7pt table figures land at ~14).
pub(crate) const SMALL_TEXT_HEIGHT: f32 = 18.0;
/// ... and are detected again scaled so that the median box reaches this height (body text
/// of the scans DB reads well measures 20–25).
const TARGET_TEXT_HEIGHT: f32 = 24.0;
/// Fewer boxes than this say nothing about a page's print size.
pub(crate) const MIN_BOXES_FOR_SIZE: usize = 8;
/// The finer pass never asks for a longer input side than this: it bounds time and memory.
const SMALL_TEXT_MAX_SIDE: u32 = 3200;

/// A picture shrunk this much or more for detection (long side over `max_side` by this
/// factor) has its small print read again at its own size even where most of its print
/// stood: under this, the small print would gain too few pixels for the pass's cost.
const SHRUNK_FOR_DETECTION: f32 = 1.25;
/// ... where more than this share of its boxes is small print: a chart's labels or a table's
/// cells, not a footnote or two (3 of the 284 corpus first pages at 200 dpi are read again:
/// 30 edits from their text layers before, 31 after).
const SMALL_PRINT_SHARE: f32 = 0.25;

/// Detection parameters for a second, finer pass over a page of small print, or None.
/// `heights` are the first pass's box heights in image pixels, `scale` the model-input
/// pixels per image pixel it used. The finer pass enlarges the image only where its print is
/// small at the image's own size too (`SMALL_TEXT_HEIGHT`): 12s0324 photographed from further
/// off (its page at 0.62 of 200 dpi, 16.6 px boxes) lost 623 of its 1,593 leader dots and a
/// column of short cells at its own size, where senate-expenditures' 6 pt capitals (20.7 px
/// at 200 dpi) were boxed otherwise enlarged and read in another order. A picture shrunk for
/// detection whose print is mostly large but over a quarter small is read at its own size at
/// most (`SMALL_PRINT_SHARE`): eu-017 photographed at 2149×2806 lost 16 of its chart's 17
/// country labels, 9 model pixels high on a page whose median box stood (CER 0.151 → 0.112).
pub fn finer_for_small_text(heights: &[f32], scale: f32, w: u32, h: u32, p: &DetParams) -> Option<DetParams> {
    if heights.len() < MIN_BOXES_FOR_SIZE {
        return None;
    }
    let mut sorted = heights.to_vec();
    sorted.sort_by(f32::total_cmp);
    let median = sorted[sorted.len() / 2];
    let long = w.max(h) as f32;
    let own_size = long.min(SMALL_TEXT_MAX_SIDE as f32);
    let (own, bound) = if median * scale < SMALL_TEXT_HEIGHT {
        (median, if median < SMALL_TEXT_HEIGHT { SMALL_TEXT_MAX_SIDE as f32 } else { own_size })
    } else if scale * SHRUNK_FOR_DETECTION <= 1.0 {
        (sorted[(sorted.len() as f32 * SMALL_PRINT_SHARE) as usize], own_size)
    } else {
        return None;
    };
    if own * scale >= SMALL_TEXT_HEIGHT || own <= 0.0 {
        return None;
    }
    let max_side = (long * TARGET_TEXT_HEIGHT / own).min(bound);
    // `input_size` enlarges an image only as far as its short side must reach `min_side`.
    let min_side = ((w.min(h) as f32 * max_side / long) as u32).max(p.min_side);
    (max_side as u32 > p.max_side).then(|| DetParams { max_side: max_side as u32, min_side, ..p.clone() })
}

/// A page detection would enlarge at least this much (short side under `min_side` by this
/// factor) is read at its own size first: the enlarged read costs the square of it, and the
/// first read, where it fails, costs at most two thirds of that.
const OWN_SIZE_FIRST_MIN_ENLARGEMENT: f32 = 1.25;

/// Detection parameters that read a small w×h page at its own size, where `p` would enlarge
/// it by `OWN_SIZE_FIRST_MIN_ENLARGEMENT` or more, or None. PaddleOCR's `min_side` serves
/// small print in small images, but large print does not need it: phototest's 640×480 was
/// read at 1.55 times its size, its lines 59 model pixels high where 18 read as well.
pub fn own_size_first(w: u32, h: u32, p: &DetParams) -> Option<DetParams> {
    let short = w.min(h);
    (short > 0 && p.min_side as f32 >= short as f32 * OWN_SIZE_FIRST_MIN_ENLARGEMENT)
        .then(|| DetParams { min_side: short, ..p.clone() })
}

/// Whether a read at `scale` (model pixels per image pixel) whose boxes are `heights` image
/// pixels high saw enough boxes to size the print (`MIN_BOXES_FOR_SIZE`), and saw it no
/// smaller than a first pass needs to stand (`SMALL_TEXT_HEIGHT`).
pub fn print_reads_at(heights: &[f32], scale: f32) -> bool {
    heights.len() >= MIN_BOXES_FOR_SIZE && docsift_layout::median(heights.to_vec()) * scale >= SMALL_TEXT_HEIGHT
}

/// Normalised input tensor of `area` resized to `size`. With a `canvas` (a runtime with
/// static shapes) it goes in the canvas's top-left corner and the rest stays blank.
pub fn image_to_input(
    img: &RgbImage,
    area: Area,
    size: (u32, u32),
    canvas: Option<(u32, u32)>,
) -> Result<Tensor, OcrError> {
    let (cw, ch) = canvas.unwrap_or(size);
    let resized = crate::raster::resized_area(img, area, size.0, size.1)?;
    Ok(bgr_tensor(&resized, 1, cw as usize, ch as usize))
}

/// The PP-OCR models read BGR, scaled to [-1, 1], in NCHW; `data` may hold several images.
pub fn bgr_tensor(img: &RgbImage, n: usize, w: usize, h: usize) -> Tensor {
    let mut t = Tensor::zeros(vec![n, 3, h, w]);
    write_bgr(&mut t.data[..3 * h * w], img, w, h);
    t
}

/// A model input of `shape` (N×C×H×W) made from a page, for checks that compare runtimes:
/// the page resized to W × N·H, each image of the batch one band of it, so every image
/// differs and a runtime that mixes a batch's images up is caught.
pub fn page_bands(page: &RgbImage, shape: [usize; 4]) -> Result<Tensor, OcrError> {
    let [n, _, h, w] = shape;
    let bands = crate::raster::resized(page, w as u32, (n * h) as u32)?;
    let mut t = Tensor::zeros(vec![n, 3, h, w]);
    for (i, slot) in t.data.chunks_exact_mut(3 * h * w).enumerate() {
        let band = image::imageops::crop_imm(&bands, 0, (i * h) as u32, w as u32, h as u32).to_image();
        write_bgr(slot, &band, w, h);
    }
    Ok(t)
}

/// Writes `img` (at most w×h) into one NCHW slot, zero (grey after scaling) beyond it.
pub fn write_bgr(slot: &mut [f32], img: &RgbImage, w: usize, h: usize) {
    let plane = w * h;
    for (x, y, px) in img.enumerate_pixels() {
        let (x, y) = (x as usize, y as usize);
        if x >= w || y >= h {
            continue;
        }
        for c in 0..3 {
            slot[(2 - c) * plane + y * w + x] = px[c] as f32 / 127.5 - 1.0;
        }
    }
}

/// Boxes DB scores this much or more, though under `box_thresh`, are faint: detection keeps
/// them aside, and the page keeps those read surely (`Engine::detect`). 12s0324 turned 3°
/// scored its bold row label "Total" 0.49 (0.70 upright) beside a rule; background_lines_2
/// a merged cell's "1" 0.48. 35 corpus pages held about 270 regions of 0.40–0.50, most of
/// them pieces of lines kept or specks.
pub const FAINT_BOX_THRESH: f32 = 0.4;

/// What detection found: boxes scored `box_thresh` or more, and faint ones
/// (`FAINT_BOX_THRESH`).
#[derive(Clone, Debug, PartialEq)]
pub struct Found<T> {
    pub lines: Vec<T>,
    pub faint: Vec<T>,
}

impl<T> Default for Found<T> {
    fn default() -> Self {
        Found { lines: Vec::new(), faint: Vec::new() }
    }
}

/// Probability map (h×w) -> text boxes, in model-input pixels.
pub fn probabilities_to_boxes(prob: &[f32], w: usize, h: usize, p: &DetParams) -> Found<RotatedRect> {
    let mask = dilate(&threshold(prob, p.thresh), w, h);
    let mut out = Found::default();
    for region in mask_to_regions(&mask, w, h).into_iter().take(p.max_candidates) {
        let Some(rect) = min_area_rect(region) else { continue };
        if rect.width.min(rect.height) < MIN_BOX_SIDE {
            continue;
        }
        let score = mean_inside(prob, w, h, &rect);
        if score < FAINT_BOX_THRESH.min(p.box_thresh) {
            continue;
        }
        let grown = unclip(&rect, p.unclip_ratio);
        if grown.width.min(grown.height) < MIN_GROWN_SIDE {
            continue;
        }
        if score < p.box_thresh { out.faint.push(grown) } else { out.lines.push(grown) }
    }
    out
}

/// Of `faint` boxes, those apart from the page's `lines` and from one another: neither
/// box's centre inside the other. A faint box over a line's is a piece of it DB scored
/// twice, and two bands' overlap finds one twice.
pub fn faint_beside_lines(lines: &[Quad], faint: Vec<Quad>) -> Vec<Quad> {
    let apart = |a: &Quad, b: &Quad| !a.contains(b.centre()) && !b.contains(a.centre());
    let mut kept: Vec<Quad> = Vec::new();
    for f in faint {
        if lines.iter().chain(&kept).all(|l| apart(l, &f)) {
            kept.push(f);
        }
    }
    kept
}

fn threshold(prob: &[f32], t: f32) -> Vec<bool> {
    prob.iter().map(|&v| v > t).collect()
}

/// 2×2 dilation: closes one-pixel gaps that would split a word's kernel.
fn dilate(mask: &[bool], w: usize, h: usize) -> Vec<bool> {
    let mut out = mask.to_vec();
    for y in 0..h {
        for x in 0..w {
            if mask[y * w + x] {
                if x + 1 < w {
                    out[y * w + x + 1] = true;
                }
                if y + 1 < h {
                    out[(y + 1) * w + x] = true;
                    if x + 1 < w {
                        out[(y + 1) * w + x + 1] = true;
                    }
                }
            }
        }
    }
    out
}

/// 8-connected regions of the mask, each given by the pixel centres that can lie on its
/// convex hull (the first and last pixel of each row run).
pub(crate) fn mask_to_regions(mask: &[bool], w: usize, h: usize) -> Vec<Vec<Point>> {
    mask_to_components(mask, w, h)
        .into_iter()
        .map(|pixels| {
            // Per row: (min x, max x).
            let mut rows: std::collections::BTreeMap<usize, (usize, usize)> = Default::default();
            for i in pixels {
                let (x, y) = (i % w, i / w);
                let e = rows.entry(y).or_insert((x, x));
                e.0 = e.0.min(x);
                e.1 = e.1.max(x);
            }
            rows.iter().flat_map(|(&y, &(x0, x1))| [[x0 as f32, y as f32], [x1 as f32, y as f32]]).collect()
        })
        .collect()
}

/// 8-connected regions of the mask (row-major, `w` wide), each as its pixels' indices, in
/// the order of their first pixel.
pub(crate) fn mask_to_components(mask: &[bool], w: usize, h: usize) -> Vec<Vec<usize>> {
    let mut seen = vec![false; w * h];
    let mut components = Vec::new();
    for start in 0..(w * h).min(mask.len()) {
        if !mask[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        let (mut pixels, mut next) = (Vec::new(), vec![start]);
        while let Some(i) = next.pop() {
            pixels.push(i);
            let (x, y) = (i % w, i / w);
            for ny in y.saturating_sub(1)..(y + 2).min(h) {
                for nx in x.saturating_sub(1)..(x + 2).min(w) {
                    let j = ny * w + nx;
                    if mask[j] && !seen[j] {
                        seen[j] = true;
                        next.push(j);
                    }
                }
            }
        }
        components.push(pixels);
    }
    components
}

/// Mean probability over the pixels inside the rectangle (DB's "fast" box score).
fn mean_inside(prob: &[f32], w: usize, h: usize, rect: &RotatedRect) -> f32 {
    let q = rect.quad();
    let [x0, y0, x1, y1] = q.bounds();
    let clamp = |v: f32, hi: usize| (v.max(0.0) as usize).min(hi - 1);
    let (x0, x1, y0, y1) = (clamp(x0.floor(), w), clamp(x1.ceil(), w), clamp(y0.floor(), h), clamp(y1.ceil(), h));
    let (mut sum, mut n) = (0.0f64, 0usize);
    for y in y0..=y1 {
        for x in x0..=x1 {
            if q.contains([x as f32, y as f32]) {
                sum += prob[y * w + x] as f64;
                n += 1;
            }
        }
    }
    if n == 0 { 0.0 } else { (sum / n as f64) as f32 }
}

/// DB trains on text kernels shrunk by area×(1−r²)/perimeter; growing a rectangle back by
/// area×ratio/perimeter on every side recovers the text's extent.
fn unclip(rect: &RotatedRect, ratio: f32) -> RotatedRect {
    let area = rect.width * rect.height;
    let perimeter = 2.0 * (rect.width + rect.height);
    if perimeter <= 0.0 {
        return *rect;
    }
    rect.grow(area * ratio / perimeter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::rect;
    use image::Rgb;

    /// `n` lines 400 px long at `degrees`, 30 px apart down the page.
    fn lines_at(degrees: f32, n: usize) -> Vec<Quad> {
        let (sin, cos) = degrees.to_radians().sin_cos();
        (0..n)
            .map(|i| {
                let [x, y] = [100.0, 100.0 + 30.0 * i as f32];
                let along = |d: f32, across: f32| [x + d * cos - across * sin, y + d * sin + across * cos];
                Quad([along(0.0, 0.0), along(400.0, 0.0), along(400.0, 20.0), along(0.0, 20.0)])
            })
            .collect()
    }

    #[test]
    fn a_page_is_turned_upright_when_its_lines_read_five_degrees_or_more_off_it() {
        let turn = |deg: f32, n: usize| turn_to_upright(&lines_at(deg, n)).map(f32::to_degrees);
        assert!(turn(10.0, 12).is_some_and(|t| (t - 10.0).abs() < 0.01), "{:?}", turn(10.0, 12));
        // Turned a quarter, skewed or not, and upside down: the whole turn.
        assert!(turn(-97.0, 12).is_some_and(|t| (t + 97.0).abs() < 0.01), "{:?}", turn(-97.0, 12));
        assert!(turn(90.0, 12).is_some_and(|t| (t - 90.0).abs() < 0.01), "{:?}", turn(90.0, 12));
        assert!(turn(180.0, 12).is_some_and(|t| (t.abs() - 180.0).abs() < 0.01), "{:?}", turn(180.0, 12));
        assert_eq!(turn(3.0, 12), None);
        // Too few lines to tell a page's skew.
        assert_eq!(turn(10.0, MIN_BOXES_FOR_SIZE - 1), None);
    }

    /// A white w×h page with a 10 px black square centred at `at`, turned upright by `turn`
    /// (radians): where the square's pixels on the canvas map back to, and the canvas.
    fn dot_turned_upright(w: u32, h: u32, at: [u32; 2], turn: f32) -> (Point, usize, RgbImage) {
        let mut img = RgbImage::from_pixel(w, h, Rgb([255, 255, 255]));
        for (x, y) in (at[0] - 5..at[0] + 5).flat_map(|x| (at[1] - 5..at[1] + 5).map(move |y| (x, y))) {
            img.put_pixel(x, y, Rgb([0, 0, 0]));
        }
        let (canvas, frame) = turned_upright(&img, turn, Rgb([255, 255, 255]));
        let dark: Vec<(u32, u32)> =
            canvas.enumerate_pixels().filter(|(_, _, p)| p.0[0] < 128).map(|(x, y, _)| (x, y)).collect();
        let n = dark.len() as f32;
        let (cx, cy) = dark.iter().fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x as f32 + 0.5, sy + y as f32 + 0.5));
        (frame.at(cx / n / canvas.width() as f32, cy / n / canvas.height() as f32), dark.len(), canvas)
    }

    #[test]
    fn boxes_found_on_a_page_turned_upright_map_back_to_where_they_are_on_the_page() {
        let ([x, y], n, canvas) = dot_turned_upright(400, 300, [300, 60], 0.3);
        assert!((x - 300.0).abs() < 1.0 && (y - 60.0).abs() < 1.0, "({x}, {y}) from {n} pixels");
        // The canvas holds the page whole, at its own scale; what lies off it is paper.
        assert_eq!(canvas.dimensions(), (471, 405));
        assert!((80..=120).contains(&n), "{n}");
        assert_eq!(canvas.get_pixel(0, 0), &Rgb([255, 255, 255]));
        // A page wider than detection ever reads is turned at a smaller scale.
        let ([x, y], n, canvas) = dot_turned_upright(4000, 200, [3000, 100], 0.3);
        assert!((x - 3000.0).abs() < 1.5 && (y - 100.0).abs() < 1.5, "({x}, {y}) from {n} pixels");
        assert_eq!(canvas.width(), SMALL_TEXT_MAX_SIDE);
        // A page turned a quarter either way is turned back pixel for pixel.
        for turn in [std::f32::consts::FRAC_PI_2, -std::f32::consts::FRAC_PI_2] {
            let ([x, y], n, canvas) = dot_turned_upright(400, 300, [300, 60], turn);
            assert!((x - 300.0).abs() < 0.01 && (y - 60.0).abs() < 0.01, "({x}, {y})");
            assert_eq!((canvas.dimensions(), n), ((300, 400), 100));
        }
    }

    #[test]
    fn long_pages_are_read_in_overlapping_bands_of_one_length_along_their_longer_side() {
        let p = DetParams::default();
        // Letter, A4 and legal pages at 150 and 300 dpi, a landscape spread, a 4K screen: one band.
        for (w, h) in [(1275, 1650), (2550, 3300), (2480, 3508), (2550, 4200), (3300, 2550), (3840, 2160), (640, 1600)]
        {
            assert_eq!(long_page_bands(w, h, &p), [Band { start: 0, len: w.max(h) }]);
        }
        for (w, h) in [(1280, 8000), (1280, 3000), (640, 5760), (3, 3000), (1, 100_000), (7680, 2160), (20000, 40)] {
            let (long, short) = (w.max(h), w.min(h));
            let bands = long_page_bands(w, h, &p);
            assert!(bands.len() >= 2, "{w}×{h}");
            let len = bands[0].len;
            assert!(len >= p.max_side && len < long, "{w}×{h}: bands {len} long");
            assert_eq!(bands[0].start, 0);
            assert_eq!(bands[bands.len() - 1].start + len, long);
            for pair in bands.windows(2) {
                assert_eq!(pair[1].len, len, "{w}×{h}: one input shape");
                let overlap = pair[0].start + len - pair[1].start;
                assert!(overlap as f32 >= (short as f32 * BAND_OVERLAP_OF_SHORT_SIDE).ceil().min((len / 2) as f32));
            }
        }
        // The screenshot that lost every line: bands that shrink its width to `min_side`.
        assert_eq!(long_page_bands(1280, 8000, &p), [0, 2608, 5217].map(|start| Band { start, len: 2783 }));
    }

    #[test]
    fn long_pages_whose_finer_pass_reads_as_finely_as_their_bands_are_read_whole_first() {
        let p = DetParams::default();
        // Two HD screens side by side, an ultrawide screen, two 4K screens, a 300 dpi scan of a
        // page 22 inches long.
        for (w, h) in [(3840, 1080), (5120, 1440), (7680, 2160), (2550, 6600)] {
            assert!(long_page_bands(w, h, &p).len() >= 2, "{w}×{h}");
            assert!(reads_long_page_whole_first(w, h, &p), "{w}×{h}");
        }
        // Longer still: held to `SMALL_TEXT_MAX_SIDE`, the finer pass would read them more
        // coarsely than their bands (a 1280×8000 screenshot, a 203 dpi till receipt).
        for (w, h) in [(6000, 900), (8000, 1000), (1280, 8000), (4000, 600), (576, 4000)] {
            assert!(!reads_long_page_whole_first(w, h, &p), "{w}×{h}");
        }
    }

    #[test]
    fn a_text_two_bands_share_is_one_box_and_its_parts_cut_by_their_edges_are_joined() {
        let (a, b) = (Band { start: 0, len: 1000 }, Band { start: 800, len: 1000 });
        // Columns of a wide page: a line in the overlap, seen whole by both bands; a line
        // across the cut, a part in each; a line in each band alone; and two lines of
        // neighbouring rows in the overlap, one seen by each band, whose boxes touch.
        let first = vec![
            rect(820.0, 100.0, 980.0, 120.0),
            rect(500.0, 200.0, 1000.0, 220.0),
            rect(100.0, 300.0, 300.0, 320.0),
            rect(820.0, 400.0, 990.0, 420.0),
        ];
        let second = vec![
            rect(822.0, 101.0, 979.0, 121.0),
            rect(800.0, 201.0, 1300.0, 221.0),
            rect(1400.0, 300.0, 1700.0, 320.0),
            rect(810.0, 417.0, 995.0, 437.0),
        ];
        let mut got: Vec<[f32; 4]> =
            band_quads_to_page(vec![(a, first), (b, second)], true).iter().map(Quad::bounds).collect();
        got.sort_by(|p, q| p[1].total_cmp(&q[1]).then(p[0].total_cmp(&q[0])));
        assert_eq!(
            got,
            [
                [820.0, 100.0, 980.0, 120.0],
                [500.0, 200.0, 1300.0, 221.0],
                [100.0, 300.0, 300.0, 320.0],
                [1400.0, 300.0, 1700.0, 320.0],
                [820.0, 400.0, 990.0, 420.0],
                [810.0, 417.0, 995.0, 437.0]
            ]
        );
        // Rows of a tall page: a column of vertical text across the cut (read downwards) is
        // joined; a line in the overlap seen whole by both is one; two lines in the overlap
        // whose boxes touch, one seen by each band, stay two (neither is cut by an edge).
        let first = vec![
            rect(100.0, 600.0, 130.0, 1000.0).quarter_turn(),
            rect(300.0, 900.0, 700.0, 920.0),
            rect(300.0, 940.0, 700.0, 962.0),
        ];
        let second = vec![
            rect(101.0, 800.0, 131.0, 1400.0).quarter_turn(),
            rect(300.0, 901.0, 700.0, 921.0),
            rect(300.0, 960.0, 700.0, 982.0),
        ];
        let got = band_quads_to_page(vec![(a, first), (b, second)], false);
        assert_eq!(got.len(), 4);
        let columns: Vec<&Quad> = got.iter().filter(|q| q.bounds()[0] < 200.0).collect();
        assert_eq!(columns.iter().map(|q| q.bounds()).collect::<Vec<_>>(), [[100.0, 600.0, 131.0, 1400.0]]);
        assert!(columns.iter().all(|q| (q.angle() - std::f32::consts::FRAC_PI_2).abs() < 0.01), "read downwards");
    }

    #[test]
    fn small_print_is_detected_again_finer_and_enlarged_only_where_small_at_its_own_size() {
        let p = DetParams::default();
        // A 2800×1700 page seen at 1600/2800: 25 px boxes are 14.3 model pixels.
        let small = vec![25.0; 40];
        let finer = finer_for_small_text(&small, 1600.0 / 2800.0, 2800, 1700, &p).map(|f| f.max_side);
        assert!(finer.is_some_and(|s| s > 2600 && s <= 2800), "{finer:?}");
        // 16 model pixels on a page only 2000 px long, 20 px at its own size: the image's own
        // size bounds the pass.
        let own = finer_for_small_text(&[20.0; 40], 0.8, 2000, 1200, &p).expect("finer");
        assert_eq!((own.max_side, input_size(2000, 1200, &own)), (2000, (2016, 1216)));
        // A photo of a page from further off: 16 px boxes at its own size, enlarged 1.5 times.
        let far = finer_for_small_text(&[16.0; 40], 0.7, 1500, 2200, &p).expect("finer");
        assert_eq!((far.max_side, input_size(1500, 2200, &far)), (3200, (2176, 3200)));
        // Body text, or too few boxes to tell, keep the first pass.
        assert!(finer_for_small_text(&[40.0; 40], 1600.0 / 2800.0, 2800, 1700, &p).is_none());
        assert!(finer_for_small_text(&small[..3], 1600.0 / 2800.0, 2800, 1700, &p).is_none());
    }

    #[test]
    fn a_shrunk_pictures_small_print_among_large_is_detected_again_at_its_own_size() {
        let p = DetParams::default();
        // Over a quarter of the boxes small print (a chart's labels among body text), the picture
        // shrunk for detection: read at its own size, never enlarged past it.
        let labels: Vec<f32> = [vec![16.0; 11], vec![40.0; 29]].concat();
        let own = finer_for_small_text(&labels, 1600.0 / 2800.0, 2800, 1700, &p).map(|f| f.max_side);
        assert_eq!(own, Some(2800));
        // A footnote's worth of small lines, or a picture shrunk little: the first pass stands.
        assert!(finer_for_small_text(&labels[5..], 1600.0 / 2800.0, 2800, 1700, &p).is_none());
        assert!(finer_for_small_text(&labels, 1600.0 / 1900.0, 1900, 1200, &p).is_none());
    }

    #[test]
    fn a_page_detection_would_enlarge_a_quarter_or_more_is_read_at_its_own_size_first() {
        let p = DetParams::default();
        // phototest (640×480) and a 320×240 thumbnail: their own size, in both dimensions.
        for (w, h) in [(640, 480), (240, 320)] {
            let own = own_size_first(w, h, &p).map(|o| input_size(w, h, &o));
            assert_eq!(own, Some(((w as f32 / 32.0).round() as u32 * 32, (h as f32 / 32.0).round() as u32 * 32)));
        }
        // Enlarged less than a quarter (a 1280×720 screenshot), or not at all: as before.
        for (w, h) in [(1280, 720), (600, 800), (2550, 3300)] {
            assert!(own_size_first(w, h, &p).is_none(), "{w}×{h}");
        }
        // Its read stands where eight boxes or more show print DB reads well.
        assert!(print_reads_at(&[30.0; 8], 1.0));
        assert!(!print_reads_at(&[30.0; 7], 1.0));
        assert!(!print_reads_at(&[30.0; 8], 0.5));
    }

    #[test]
    fn pixels_touching_at_a_corner_are_one_component_apart_they_are_two() {
        let rows = ["##..#", ".#..#", "..#..", "....#"];
        let mask: Vec<bool> = rows.iter().flat_map(|r| r.chars().map(|c| c == '#')).collect();
        let mut components = mask_to_components(&mask, 5, 4);
        components.iter_mut().for_each(|c| c.sort_unstable());
        assert_eq!(components, vec![vec![0, 1, 6, 12], vec![4, 9], vec![19]]);
    }

    fn map_with(w: usize, h: usize, boxes: &[(usize, usize, usize, usize)]) -> Vec<f32> {
        let mut m = vec![0.0; w * h];
        for &(x0, y0, x1, y1) in boxes {
            for y in y0..y1 {
                for x in x0..x1 {
                    m[y * w + x] = 0.9;
                }
            }
        }
        m
    }

    #[test]
    fn separate_kernels_become_separate_grown_boxes() {
        let prob = map_with(100, 40, &[(10, 10, 40, 16), (60, 10, 90, 16), (5, 30, 7, 31)]);
        let boxes = probabilities_to_boxes(&prob, 100, 40, &DetParams::default()).lines;
        assert_eq!(boxes.len(), 2, "{boxes:?}");
        let b = boxes[0];
        // Kernel 30×6 px, dilated to 31×7 (pixel centres 30×6 apart): grown by
        // 30·6·1.6/72 = 4 on each side.
        assert!((b.width - 38.0).abs() < 0.01 && (b.height - 14.0).abs() < 0.01, "{b:?}");
    }

    #[test]
    fn faint_boxes_over_lines_or_found_twice_are_left_out() {
        let lines = [rect(0.0, 0.0, 200.0, 20.0)];
        let faint = vec![
            rect(150.0, 2.0, 230.0, 18.0), // a line's end DB scored again: centre inside it
            rect(0.0, 18.0, 60.0, 40.0),   // the next row's label, overlapping the line's margin
            rect(5.0, 20.0, 55.0, 38.0),   // the same label from a neighbouring band
            rect(0.0, -30.0, 400.0, 35.0), // a box holding the line's centre
        ];
        assert_eq!(faint_beside_lines(&lines, faint), vec![rect(0.0, 18.0, 60.0, 40.0)]);
    }

    #[test]
    fn weak_regions_are_faint_and_weaker_ones_dropped() {
        let found = |score: f32| {
            let mut prob = map_with(50, 20, &[(5, 5, 40, 12)]);
            prob.iter_mut().filter(|v| **v > 0.0).for_each(|v| *v = score);
            let Found { lines, faint } = probabilities_to_boxes(&prob, 50, 20, &DetParams::default());
            (lines.len(), faint.len())
        };
        // The box's mean takes in the dilated rim, a tenth or so below the kernel's.
        assert_eq!(found(0.5), (0, 1));
        assert_eq!(found(0.4), (0, 0));
        assert_eq!(found(0.9), (1, 0));
    }

    const WHOLE_500_300: Area = Area::whole(500, 300);

    #[test]
    fn input_is_scaled_to_multiples_of_32() -> Result<(), OcrError> {
        let (area, (w, h)) = detection_area(WHOLE_500_300, 500, 300, &DetParams::default());
        assert_eq!(area, WHOLE_500_300);
        assert_eq!((w % 32, h % 32, h), (0, 0, 736));
        let t = image_to_input(&RgbImage::new(500, 300), area, (w, h), None)?;
        assert_eq!(t.shape, vec![1, 3, h as usize, w as usize]);
        assert!(t.data.iter().all(|&v| v == -1.0));
        Ok(())
    }

    #[test]
    fn each_image_of_a_page_bands_batch_is_its_own_band_of_the_page() -> Result<(), OcrError> {
        // Rows grow darker down the page: each band is a different grey.
        let page = RgbImage::from_fn(40, 120, |_, y| image::Rgb([255 - 2 * y as u8; 3]));
        let t = page_bands(&page, [3, 3, 8, 20])?;
        assert_eq!(t.shape, vec![3, 3, 8, 20]);
        let firsts: Vec<f32> = t.data.chunks_exact(3 * 8 * 20).map(|slot| slot[0]).collect();
        assert!(firsts[0] > firsts[1] && firsts[1] > firsts[2], "{firsts:?}");
        // One image: the page resized to the input.
        let one = page_bands(&page, [1, 3, 8, 20])?;
        assert_eq!(one.data, bgr_tensor(&crate::raster::resized(&page, 20, 8)?, 1, 20, 8).data);
        Ok(())
    }

    #[test]
    fn a_fixed_canvas_holds_the_image_top_left_and_shrinks_it_to_fit() -> Result<(), OcrError> {
        let p = DetParams::default();
        let size = fitted_size(input_size(500, 300, &p), Some((1600, 1248)));
        assert_eq!(size, input_size(500, 300, &p));
        let t = image_to_input(&RgbImage::new(500, 300), WHOLE_500_300, size, Some((1600, 1248)))?;
        assert_eq!(t.shape, vec![1, 3, 1248, 1600]);
        // Black pixels inside the image, blank (0) beyond it.
        assert_eq!(t.data[0], -1.0);
        assert_eq!(t.data[1248 * 1600 - 1], 0.0);
        let (w, h) = fitted_size(input_size(3000, 1000, &p), Some((960, 736)));
        let t = image_to_input(&RgbImage::new(3000, 1000), Area::whole(3000, 1000), (w, h), Some((960, 736)))?;
        assert_eq!(t.shape, vec![1, 3, 736, 960]);
        assert!(w <= 960 && h <= 736 && w == 960, "{w}x{h}");
        Ok(())
    }

    #[test]
    fn detection_reads_a_window_of_the_whole_pages_input_around_the_content() -> Result<(), OcrError> {
        let p = DetParams::default();
        // A 300 dpi letter page, whose whole input would be 1248×1600 (0.489, 0.485 per pixel).
        let (w, h) = (2550, 3300);
        let (pw, ph) = input_size(w, h, &p);
        let content = Area { x: 400.0, y: 300.0, w: 1000.0, h: 2000.0 };
        let (area, size) = detection_area(content, w, h, &p);
        let (sx, sy) = (pw as f32 / w as f32, ph as f32 / h as f32);
        // Content at model x 195.8..685.2, y 145.5..1115.2; with the margin, out to the
        // grid: x 160..736, y 96..1152.
        assert_eq!(size, (576, 1056));
        assert!((area.x * sx - 160.0).abs() < 1e-3 && (area.w * sx - 576.0).abs() < 1e-3, "{area:?}");
        assert!((area.y * sy - 96.0).abs() < 1e-3 && (area.h * sy - 1056.0).abs() < 1e-3, "{area:?}");
        // The window's samples are those of the whole page's input, cell for cell.
        let img = RgbImage::from_fn(w, h, |x, y| Rgb([(x % 251) as u8, (y % 241) as u8, ((x + y) % 239) as u8]));
        let whole = image_to_input(&img, Area::whole(w, h), (pw, ph), None)?;
        let part = image_to_input(&img, area, size, None)?;
        let (row, col) = (500, 300);
        for c in 0..3 {
            let ours = part.data[(c * 1056 + row) * 576 + col];
            let theirs = whole.data[(c * ph as usize + row + 96) * pw as usize + col + 160];
            assert!((ours - theirs).abs() <= 2.0 / 127.5, "channel {c}: {ours} vs {theirs}");
        }
        // The margin stops at the page's edges: content reaching them is read whole.
        let (area, size) = detection_area(Area { x: 10.0, y: 0.0, w: 2530.0, h: 3300.0 }, w, h, &p);
        assert_eq!(size, (pw, ph));
        assert_eq!(area, Area::whole(w, h));
        Ok(())
    }

    #[test]
    fn content_bounds_hold_the_print_and_not_the_paper_grain() {
        let words = |x: u32, y: u32| {
            (40..120).contains(&x) && (50..60).contains(&y) || (150..260).contains(&x) && (140..152).contains(&y)
        };
        // Cream paper, its grain varying by up to 20 levels, and dark ink.
        let img = RgbImage::from_fn(300, 200, |x, y| {
            let grain = ((x * 7 + y * 13) % 21) as u8;
            if words(x, y) { Rgb([20, 20, 30]) } else { Rgb([225 + grain, 215 + grain, 190 + grain]) }
        });
        assert_eq!(content_bounds(&img), Some(Area { x: 40.0, y: 50.0, w: 220.0, h: 102.0 }));
    }

    #[test]
    fn specks_away_from_the_print_are_not_content_but_a_page_of_specks_alone_is() {
        // 400×300: cells of 2 px. Print in the middle, a 3 px dot in a corner, a 3×8 px mark
        // (a colon's height, five cells) far to the right.
        let dark = |x: u32, y: u32, dot: &dyn Fn(u32, u32) -> bool| {
            if dot(x, y) { Rgb([0, 0, 0]) } else { Rgb([255, 255, 255]) }
        };
        let print = |x: u32, y: u32| (100..300).contains(&x) && (100..120).contains(&y);
        let speck = |x: u32, y: u32| (10..13).contains(&x) && (10..13).contains(&y);
        let img = RgbImage::from_fn(400, 300, |x, y| dark(x, y, &|x, y| print(x, y) || speck(x, y)));
        assert_eq!(content_bounds(&img), Some(Area { x: 100.0, y: 100.0, w: 200.0, h: 20.0 }));
        let colon = |x: u32, y: u32| (380..383).contains(&x) && (200..208).contains(&y);
        let img = RgbImage::from_fn(400, 300, |x, y| dark(x, y, &|x, y| print(x, y) || speck(x, y) || colon(x, y)));
        assert_eq!(content_bounds(&img), Some(Area { x: 100.0, y: 100.0, w: 283.0, h: 108.0 }));
        let specks = RgbImage::from_fn(400, 300, |x, y| {
            dark(x, y, &|x, y| speck(x, y) || speck(x.wrapping_sub(300), y.wrapping_sub(200)))
        });
        assert_eq!(content_bounds(&specks), Some(Area { x: 10.0, y: 10.0, w: 303.0, h: 203.0 }));
    }

    #[test]
    fn a_lone_page_number_is_content_where_dust_of_its_size_in_pixels_at_300_dpi_is_not() {
        // A letter page at 150 dpi (cells of 3 px): print in its middle, and at its foot a
        // 6 pt digit (8 px tall, 5 wide) or a 4 px speck.
        let page = |foot: &dyn Fn(u32, u32) -> bool| {
            RgbImage::from_fn(1275, 1650, |x, y| {
                let print = (150..1125).contains(&x) && (150..1400).contains(&y);
                if print || foot(x, y) { Rgb([0, 0, 0]) } else { Rgb([255, 255, 255]) }
            })
        };
        let digit = page(&|x, y| (635..640).contains(&x) && (1550..1558).contains(&y));
        assert_eq!(content_bounds(&digit), Some(Area { x: 150.0, y: 150.0, w: 975.0, h: 1408.0 }));
        let dust = page(&|x, y| (635..639).contains(&x) && (1550..1554).contains(&y));
        assert_eq!(content_bounds(&dust), Some(Area { x: 150.0, y: 150.0, w: 975.0, h: 1250.0 }));
    }

    #[test]
    fn a_blank_page_has_no_content_and_light_print_on_dark_is_content() {
        assert_eq!(content_bounds(&RgbImage::from_pixel(50, 40, Rgb([250, 250, 250]))), None);
        assert_eq!(content_bounds(&RgbImage::new(0, 0)), None);
        let img = RgbImage::from_fn(50, 40, |x, y| Rgb([if (10..20).contains(&x) && y == 30 { 255 } else { 0 }; 3]));
        assert_eq!(content_bounds(&img), Some(Area { x: 10.0, y: 30.0, w: 10.0, h: 1.0 }));
    }
}
