//! Text lines: crops straightened from their quads, orientation (0°/180°), recognition in
//! a few input widths per page, CTC greedy decoding with per-character confidence.

use std::cell::OnceCell;
use std::ops::{Range, RangeInclusive};

use image::{Rgb, RgbImage};

use crate::backend::{ModelKind, Tensor};
use crate::geometry::{Point, Quad, quarter_turns};
use crate::page::BOX_HEIGHT_EM;
use crate::{OcrLine, det, marks};

/// Model input height of the PP-OCR recognition and orientation models.
pub const LINE_HEIGHT: usize = 48;
/// The orientation model's input width.
pub const CLS_WIDTH: usize = 192;
/// Orientation reads a line squeezed into its input at most this much: a longer line gives
/// its middle part of that length. The lines of a wide screenshot of 16 px text, squeezed 15
/// to 43 times, were read upside down, all of them; at 4 times they read the right way up,
/// and the corpus's turned pages read as before.
const MAX_ORIENTATION_SQUEEZE: f32 = 4.0;
/// Line inputs are at least this wide: 8 CTC steps, room for a line number of a few digits.
pub const REC_MIN_WIDTH: usize = 64;
/// Line input widths are multiples of this (4 CTC steps): padding stays under 32 columns.
pub const REC_WIDTH_STEP: usize = 32;
/// Marks beside lines are read on PaddleOCR's 320-column canvas, rounded up to 160: on
/// tighter canvases (measured on scotus-transcript) lone colons and a dash rule read as nothing.
pub const MARK_MIN_WIDTH: usize = 320;
/// Marks' widths are multiples of this, for the same reason (their right margin).
pub const MARK_WIDTH_STEP: usize = 160;
/// Each input width costs about as much as reading this many columns of lines: tract builds
/// a recognition plan per width, in 15–22 ms natively (27 ms in wasm, Node 20), and a column
/// takes 0.031 ms to crop, recognise and decode (0.055 ms).
pub const NEW_WIDTH_COST: usize = 600;
/// A page's lines use at most this many input widths: fewer than the plans tract keeps
/// (`tract::MAX_PLANS_PER_MODEL`), so no plan is rebuilt within a page.
pub const MAX_WIDTHS_PER_PAGE: usize = 8;
/// Lines wider than this (at height 48), 100 characters or more, are read in pieces
/// (`line_pieces`).
pub const REC_MAX_WIDTH: usize = 3200;
/// A line is read in at most this many pieces, about 2,000 characters; a longer one is
/// squeezed into their width. It bounds a line's crop at 48 × 51,200 pixels (7 MB).
pub const MAX_PIECES_PER_LINE: usize = 16;
/// A column of a line's crop with at most this many ink pixels is blank: a scan's specks.
const BLANK_COLUMN_INK: u32 = 2;
/// A column of a line's crop with at least this many ink pixels is a rule beside the line,
/// not a glyph: the crop is about 1.5 em high, glyphs with their descenders about 1.2 em.
const RULE_MIN_INK: u32 = LINE_HEIGHT as u32 * 9 / 10;
/// Ink touching such a rule at most this many rows high, and twice as wide, is a tick on a
/// chart's axis or a crossing rule's stub: hyphens are as flat but stand apart from rules.
const TICK_MAX_HEIGHT: usize = LINE_HEIGHT / 10;
/// A blank gap in a line's crop at least this share of its height wide is a word space: the
/// crop is about 1.5 em high, a space a quarter em or more beside its glyphs' side bearings
/// (0.17 of the height and up), and letters stand under a tenth apart.
const WORD_SPACE_MIN_GAP: f32 = 0.15;
/// A space the greedy path skips (blank wins every step of the gap) is kept when some step of
/// the gap gives it this probability: the model loses word gaps in all-caps and fixed-pitch
/// text this way (measured on scotus-transcript: word F1 0.67 -> 0.79, other pages unchanged),
/// and where the crop is blank there as wide as a word space (`WORD_SPACE_MIN_GAP`): between
/// letters it half-sees spaces as likely ("FOR WARD", "bal ance", "contr act": blank runs of
/// 0.08–0.13 of the height), where the true ones it half-saw on 60 corpus pages (about 190)
/// had 0.17 and more, but one beside a descender that overhangs the next letter ("Only
/// loans", 0.08).
pub const SPACE_MIN_PROBABILITY: f32 = 0.15;
/// A space the model half-saw is not kept before these: fixed-pitch fonts leave a space's
/// width of blank before a full stop or comma (scotus-transcript: "MIRZAYANCE ." at 150 dpi),
/// and no orthography puts a space there. (Spaced dot leaders get theirs back from
/// `space_spaced_marks`.)
const NO_SPACE_BEFORE: [char; 2] = ['.', ','];
/// Repeats of one mark at least this far apart (line heights) had spaces between them, which
/// the model drops: a spaced dash rule's pitch is two fixed-pitch characters (0.8 of the
/// line box), a run of dashes or dots one character at most (0.4).
pub const SPACED_MARK_PITCH: f32 = 0.65;
/// Crops taller than wide by this ratio hold vertical text: read them turned a quarter.
pub const VERTICAL_RATIO: f32 = 1.5;

/// Where an `out_w`×`out_h` crop of `q` samples the page, row by row: across a row the quad's
/// bilinear map is linear, so a row's left edge and the step per column; column x's centre is
/// at `left + step * (x + 0.5)`, where page pixel (i, j) spans [i, i + 1) × [j, j + 1).
pub(crate) fn quad_rows(q: &Quad, out_w: usize, out_h: usize) -> impl Iterator<Item = (Point, Point)> + '_ {
    (0..out_h).map(move |oy| {
        let v = (oy as f32 + 0.5) / out_h as f32;
        let (left, right) = (q.at(0.0, v), q.at(1.0, v));
        (left, [(right[0] - left[0]) / out_w as f32, (right[1] - left[1]) / out_w as f32])
    })
}

/// Samples the quad's content, straightened, into an `out_w`×`out_h` image (bilinear;
/// outside the page the edge pixels repeat).
pub fn crop_quad(img: &RgbImage, q: &Quad, out_w: usize, out_h: usize) -> RgbImage {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let raw = img.as_raw();
    let mut out = RgbImage::new(out_w as u32, out_h as u32);
    if w == 0 || h == 0 {
        return out;
    }
    let at = |x: i64, y: i64| (y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize * 3;
    let (row_px, stride) = (3 * out_w.max(1), 3 * w as usize);
    for (row, (left, step)) in out.chunks_exact_mut(row_px).zip(quad_rows(q, out_w, out_h)) {
        for (ox, rgb) in row.chunks_exact_mut(3).enumerate() {
            let t = ox as f32 + 0.5;
            let (sx, sy) = (left[0] + step[0] * t - 0.5, left[1] + step[1] * t - 0.5);
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = (sx - x0, sy - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            // Inside the page the four neighbours are plain offsets; at its edges they repeat.
            let corners = if x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h {
                let p = (y0 * w + x0) as usize * 3;
                [p, p + 3, p + stride, p + stride + 3]
            } else {
                [at(x0, y0), at(x0 + 1, y0), at(x0, y0 + 1), at(x0 + 1, y0 + 1)]
            };
            for (c, v) in rgb.iter_mut().enumerate() {
                let [p00, p10, p01, p11] = corners.map(|p| raw[p + c] as f32);
                let top = p00 * (1.0 - fx) + p10 * fx;
                let bottom = p01 * (1.0 - fx) + p11 * fx;
                // A blend of bytes is within 0–255: adding a half and truncating rounds it,
                // without the libm call `round` is in wasm.
                *v = (top * (1.0 - fy) + bottom * fy + 0.5) as u8;
            }
        }
    }
    out
}

/// Rows a neighbour's ink may share with the line's own glyphs and still be told apart: the
/// crop's bilinear sampling smears each edge over one.
const SHARED_ROWS: usize = 1;
/// A line's crop is looked at this many columns (a quarter em) on past each side...
const SIDE_PAD: usize = 8;
/// ...and ink in this many of them furthest from the side is the next column's print: a
/// list's bullet the box cuts ends sooner (ICDAR eu-013's, 3 columns past), and a figure cut
/// at the side may have its full stop's gap at the last column (labor.pdf photographed turned
/// −4°: "1.0-percent", its "1" taken in by the line across the gutter and read, which joined
/// the columns' lines from there on: CER 0.39, now 0.029).
const SIDE_PRINT: usize = SIDE_PAD / 2;
/// Ink at a crop's side, with the next column's print past it, is that column's where this
/// much blank (em of the box) parts it from the line's own: what the reading order takes for
/// a gutter. A word space is a third of an em.
const SIDE_GAP_EM: f32 = 0.7;
/// ...and where it is at most this wide (em): a letter or two the margin took in, not a word.
const SIDE_INK_MAX_EM: f32 = 1.0;

/// Paints the ink of neighbouring lines and of a table's rules out of a line's crop, in the
/// crop's paper colour with the one-pixel fringe that blends it in. The detection box's margin
/// takes in descenders of the line above and ascenders of the line below, which the model reads
/// as accents ("Ú.S.", "Seqüence") or underscores. Such ink is cut by the crop's edge and lies
/// wholly beyond the line's own glyphs (the blobs that reach the crop's middle row or stay off
/// its edges), so a comma or an i's dot in a tight crop stays. A rule beside a cell's text inks
/// its columns top to bottom (`RULE_MIN_INK`); touching the cell's last glyph, the model reads
/// it as another (puertos1's "0.9%" read "0.9%%", schools' "10/4/2012|"). It goes with the
/// stubs of rules crossing it that it leaves. Ink is the smaller side of the crop's Otsu split:
/// light text on a dark ground works alike.
pub fn erase_neighbour_ink(crop: &mut RgbImage) {
    let (w, h) = (crop.width() as usize, crop.height() as usize);
    if w == 0 || h == 0 {
        return;
    }
    let mut ink = ink_mask(crop);
    let mut foreign = vec![false; w * h];
    // With the column each side, which a rule's anti-aliased edge inks part way (left, it
    // reads "1"); a glyph touching the rule loses that column.
    let rules: Vec<Range<usize>> =
        rule_runs(&ink, w, h).into_iter().map(|r| r.start.saturating_sub(1)..(r.end + 1).min(w)).collect();
    for i in rules.iter().flat_map(|r| r.clone()).flat_map(|x| (0..h).map(move |y| y * w + x)) {
        (foreign[i], ink[i]) = (ink[i], false);
    }
    let blobs: Vec<Blob> = det::mask_to_components(&ink, w, h)
        .into_iter()
        .map(|pixels| {
            let [left, top, right, bottom] = pixels
                .iter()
                .fold([w, h, 0, 0], |[l, t, r, b], &i| [l.min(i % w), t.min(i / w), r.max(i % w), b.max(i / w)]);
            Blob { pixels, left, top, right, bottom }
        })
        .collect();
    let across_middle = |b: &Blob| (b.top..=b.bottom).contains(&(h / 2));
    // What a rule leaves touching it goes with it: a stub of a rule crossing it (along the
    // cell's foot, which the model reads as a full stop there), ink off the crop's middle row
    // (a glyph's) whose rows go on across the rule, and a tick on a chart's axis, ink as flat
    // as a rule's (a full stop touching the rule stays).
    for b in &blobs {
        let height = b.bottom + 1 - b.top;
        let flat = height <= TICK_MAX_HEIGHT && b.right - b.left >= 2 * height;
        let stub = rules.iter().any(|r| {
            let across = if b.right < r.start { Some(r.end + 1) } else { r.start.checked_sub(2) };
            let goes_on = across
                .filter(|&x| x < w)
                .is_some_and(|x| (b.top..=b.bottom).any(|y| ink[y * w + x] || foreign[y * w + x]));
            b.left <= r.end && b.right + 1 >= r.start && (flat || goes_on && !across_middle(b))
        });
        if stub {
            b.pixels.iter().for_each(|&i| foreign[i] = true);
        }
    }
    let own: Vec<&Blob> = blobs
        .iter()
        .filter(|b| {
            b.pixels.first().is_some_and(|&i| !foreign[i]) && ((b.top > 0 && b.bottom < h - 1) || across_middle(b))
        })
        .collect();
    if let (Some(own_top), Some(own_bottom)) = (own.iter().map(|b| b.top).min(), own.iter().map(|b| b.bottom).max()) {
        for b in &blobs {
            let above = b.top == 0 && b.bottom < own_top + SHARED_ROWS;
            let below = b.bottom == h - 1 && b.top + SHARED_ROWS > own_bottom;
            if above || below {
                b.pixels.iter().for_each(|&i| foreign[i] = true);
            }
        }
    }
    paint_over(crop, &ink, &foreign);
}

/// Ink a line's box took in from the next column: its margin reaches over a narrow gutter
/// and cuts a letter there, which the model reads as one more ("and 1 is projected": a d's
/// stem; labor.pdf shrunk by a camera; at 200 dpi, a box reached over the next column's
/// "i" of "is"). Such ink has the next column's print `SIDE_PAD` columns past the crop's
/// side (`pads`: the line cropped so far past its left and right sides, `side_pads`), is a
/// letter wide at most inside it, and lies a gutter's width from the line's own ink
/// (`SIDE_GAP_EM`); it is painted over in the paper's colour.
pub fn erase_next_columns_ink(crop: &mut RgbImage, pads: &[RgbImage; 2]) {
    let (w, h) = (crop.width() as usize, crop.height() as usize);
    if w == 0 || h == 0 || pads.iter().any(|p| p.width() as usize != SIDE_PAD || p.height() as usize != h) {
        return;
    }
    let split = InkSplit::of(crop);
    let inked = |img: &RgbImage, x: usize| (0..h).any(|y| split.inks(img.get_pixel(x as u32, y as u32)));
    // Most lines have no print past either side.
    if !(0..SIDE_PRINT).any(|x| inked(&pads[0], x)) && !(SIDE_PAD - SIDE_PRINT..SIDE_PAD).any(|x| inked(&pads[1], x)) {
        return;
    }
    let em = h as f32 / BOX_HEIGHT_EM;
    let in_crop: Vec<bool> = (0..w).map(|x| inked(crop, x)).collect();
    let from_left: Vec<bool> = (0..SIDE_PAD).map(|x| inked(&pads[0], x)).chain(in_crop.iter().copied()).collect();
    let from_right: Vec<bool> =
        (0..SIDE_PAD).rev().map(|x| inked(&pads[1], x)).chain(in_crop.iter().rev().copied()).collect();
    let mut columns: Vec<usize> = cut_off_ink(&from_left, em).map_or(Vec::new(), |n| (0..n.min(w)).collect());
    columns.extend(cut_off_ink(&from_right, em).map_or(0..0, |n| w - n.min(w)..w));
    if columns.is_empty() {
        return;
    }
    let ink = split.mask();
    let mut foreign = vec![false; w * h];
    for i in columns.into_iter().flat_map(|x| (0..h).map(move |y| y * w + x)) {
        foreign[i] = ink[i];
    }
    paint_over(crop, &ink, &foreign);
}

/// A line cropped as `crop_quad` crops it `full` columns wide, on: `SIDE_PAD` columns past
/// its left side and its right (for `erase_next_columns_ink`).
pub fn side_pads(img: &RgbImage, q: &Quad, full: usize) -> [RgbImage; 2] {
    let pad = SIDE_PAD as f32 / full.max(1) as f32;
    [q.slice(-pad, 0.0), q.slice(1.0, 1.0 + pad)].map(|side| crop_quad(img, &side, SIDE_PAD, LINE_HEIGHT))
}

/// How many of a crop's columns from one side hold another column's ink (see
/// `erase_next_columns_ink`), from `inked`: the columns past that side (`SIDE_PAD`), then the
/// crop's own, from it; `em` in columns.
fn cut_off_ink(inked: &[bool], em: f32) -> Option<usize> {
    // The next column's print goes on past the box's side, into the pad's far columns...
    if !inked.get(..SIDE_PRINT)?.contains(&true) {
        return None;
    }
    // ...and the box holds some of it: ink up to the first gutter-wide blank.
    let min_gap = (SIDE_GAP_EM * em).ceil() as usize;
    let inside = inked.get(SIDE_PAD..)?;
    let mut end = 0;
    for (x, _) in inside.iter().enumerate().filter(|(_, i)| **i) {
        if x - end >= min_gap {
            return (end > 0 && end as f32 <= SIDE_INK_MAX_EM * em).then_some(end);
        }
        end = x + 1;
    }
    None
}

/// Paints `foreign` pixels of a crop in its paper's colour, with the one-pixel fringe (not
/// `ink`) that blends them in.
fn paint_over(crop: &mut RgbImage, ink: &[bool], foreign: &[bool]) {
    if !foreign.contains(&true) {
        return;
    }
    let (w, h) = (crop.width() as usize, crop.height() as usize);
    let paper = mean_colour(crop.pixels().enumerate().filter(|&(i, _)| !ink[i] && !foreign[i]).map(|(_, p)| p));
    for y in 0..h {
        for x in 0..w {
            let fringe = (y.saturating_sub(1)..(y + 2).min(h))
                .any(|ny| (x.saturating_sub(1)..(x + 2).min(w)).any(|nx| foreign[ny * w + nx]));
            if foreign[y * w + x] || (fringe && !ink[y * w + x]) {
                crop.put_pixel(x as u32, y as u32, paper);
            }
        }
    }
}

/// The runs of columns of a line's crop that a rule beside the line inks (`RULE_MIN_INK`),
/// each end going on past the crop's edge or meeting a rule across the line (a table's top
/// or foot, its ink reaching a side of the crop): a large letter's stem may fill a tight
/// crop's height (issue20930's "B" and "D"), but ends inside it, at most at its own bars.
fn rule_runs(ink: &[bool], w: usize, h: usize) -> Vec<Range<usize>> {
    let across = |x: usize, y: usize| {
        let row = &ink[y * w..(y + 1) * w];
        row[..=x].iter().all(|&i| i) || row[x..].iter().all(|&i| i)
    };
    let is_rule = |x: usize| {
        let inked = |y: &usize| ink[y * w + x];
        if ((0..h).filter(inked).count() as u32) < RULE_MIN_INK {
            return false;
        }
        let (Some(top), Some(bottom)) = ((0..h).find(inked), (0..h).rev().find(inked)) else { return false };
        (top == 0 || across(x, top)) && (bottom == h - 1 || across(x, bottom))
    };
    let mut runs: Vec<Range<usize>> = Vec::new();
    for x in (0..w).filter(|&x| is_rule(x)) {
        match runs.last_mut() {
            Some(run) if run.end == x => run.end = x + 1,
            _ => runs.push(x..x + 1),
        }
    }
    runs
}

/// A crop's grey levels and their Otsu split, whose smaller side is the ink.
pub(crate) struct InkSplit {
    pub greys: Vec<u8>,
    pub level: u8,
    /// Whether the ink is the dark side (dark text on light paper).
    pub dark: bool,
}

impl InkSplit {
    pub fn of(crop: &RgbImage) -> InkSplit {
        let level = marks::otsu(&marks::grey_histogram(crop));
        let greys: Vec<u8> = crop.pixels().map(marks::grey).collect();
        let dark = 2 * greys.iter().filter(|&&g| g <= level).count() <= greys.len();
        InkSplit { greys, level, dark }
    }

    /// The ink, pixel by pixel.
    pub fn mask(&self) -> Vec<bool> {
        self.greys.iter().map(|&g| self.inks_grey(g)).collect()
    }

    /// Whether a pixel (of this crop or beside it) is ink.
    pub fn inks(&self, p: &Rgb<u8>) -> bool {
        self.inks_grey(marks::grey(p))
    }

    fn inks_grey(&self, g: u8) -> bool {
        (g <= self.level) == self.dark
    }
}

fn ink_mask(crop: &RgbImage) -> Vec<bool> {
    InkSplit::of(crop).mask()
}

/// Ink pixels in each column of a line's crop.
pub fn ink_columns(crop: &RgbImage) -> Vec<u32> {
    let w = crop.width() as usize;
    let mut columns = vec![0u32; w];
    for (i, _) in ink_mask(crop).into_iter().enumerate().filter(|(_, ink)| *ink) {
        columns[i % w] += 1;
    }
    columns
}

/// Columns `start..end` of a line's crop, read on their own; `space_before`: the cut before
/// them fell in a gap as wide as a word space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub start: usize,
    pub end: usize,
    pub space_before: bool,
}

/// Cuts a line's crop, given the ink in each of its columns, into pieces at most `max`
/// columns wide, as few as may be. Each cut falls in the middle of the widest blank gap in
/// the second half of the piece it ends (between words, where the text has spaces), else at
/// its column of least ink, so the model reads whole glyphs at their own width instead of a
/// line squeezed into its input.
pub fn line_pieces(ink: &[u32], max: usize) -> Vec<Piece> {
    let (w, max) = (ink.len(), max.max(2));
    let blank = |x: usize| ink[x] <= BLANK_COLUMN_INK;
    let mut pieces = Vec::new();
    let (mut start, mut space_before) = (0, false);
    while w - start > max {
        let (lo, hi) = (start + max / 2, start + max);
        // In the widest blank run within lo..hi (the rightmost of equals: fewer pieces).
        let cut = widest_run(lo..hi, blank)
            .map_or_else(|| (lo..hi).min_by_key(|&c| ink[c]).unwrap_or(hi), |run| paper_middle(ink, run));
        let gap = (0..cut).rev().take_while(|&c| blank(c)).count() + (cut..w).take_while(|&c| blank(c)).count();
        pieces.push(Piece { start, end: cut, space_before });
        space_before = is_word_space(gap);
        start = cut;
    }
    pieces.push(Piece { start, end: w, space_before });
    pieces
}

/// The widest run of columns in `within` that `keep` takes, the rightmost of equals.
fn widest_run(within: std::ops::Range<usize>, keep: impl Fn(usize) -> bool) -> Option<std::ops::Range<usize>> {
    let (mut best, mut x) = (None::<std::ops::Range<usize>>, within.start);
    while x < within.end {
        let run = (x..within.end).take_while(|&c| keep(c)).count();
        if run > 0 && best.as_ref().is_none_or(|b| run >= b.len()) {
            best = Some(x..x + run);
        }
        x += run.max(1);
    }
    best
}

/// The middle of the widest stretch of columns without ink in a blank run, else of the run:
/// a blank column may hold a thin mark's ink (a hyphen-minus is two pixels thick at 200 dpi),
/// which a cut in the run's middle would split between two pieces, read by neither.
fn paper_middle(ink: &[u32], run: std::ops::Range<usize>) -> usize {
    let middle = |r: &std::ops::Range<usize>| r.start + r.len() / 2;
    widest_run(run.clone(), |c| ink[c] == 0).map_or_else(|| middle(&run), |paper| middle(&paper))
}

/// Whether a blank run of `columns` in a line's crop is as wide as a word space.
fn is_word_space(columns: usize) -> bool {
    columns as f32 >= WORD_SPACE_MIN_GAP * LINE_HEIGHT as f32
}

/// A line's crop as the recognition model reads it, column by column: where its glyphs leave
/// a word space's blank between two CTC steps.
pub struct InkGaps<'a> {
    crop: Option<&'a RgbImage>,
    /// Glyph ink per input column (`glyph_ink`), counted when first asked: for a half-seen
    /// space or the line's ends. Columns past the crop are blank.
    ink: OnceCell<Vec<u32>>,
    /// Input columns per CTC step.
    step_px: f32,
}

impl<'a> InkGaps<'a> {
    pub fn new(crop: &'a RgbImage, step_px: f32) -> InkGaps<'a> {
        InkGaps { crop: Some(crop), ink: OnceCell::new(), step_px }
    }

    /// Input columns per CTC step.
    pub fn step_px(&self) -> f32 {
        self.step_px
    }

    /// Whether column `x` of the crop holds glyph ink.
    fn inked(&self, x: usize) -> bool {
        let ink = self.ink.get_or_init(|| self.crop.map(|c| glyph_ink(ink_columns(c))).unwrap_or_default());
        ink.get(x).is_some_and(|&i| i > BLANK_COLUMN_INK)
    }

    /// Where a line's ink starts and ends, in crop columns, from the column spans of its first
    /// and last characters: CTC places a character by the steps it fired on, up to a step
    /// or two off its glyph's edges (a step is 8 columns, a third of an em), and a line's
    /// ends are what tell columns apart. An end inside ink moves out to where that ink stops;
    /// one in blank moves in to the span's first or last ink; a span without ink is kept.
    pub fn ink_ends(&self, first: Range<usize>, last: Range<usize>) -> (usize, usize) {
        let start = if self.inked(first.start) {
            (0..first.start).rev().take_while(|&x| self.inked(x)).last().unwrap_or(first.start)
        } else {
            first.clone().find(|&x| self.inked(x)).unwrap_or(first.start)
        };
        let end = if last.end > 0 && self.inked(last.end - 1) {
            (last.end..).find(|&x| !self.inked(x)).unwrap_or(last.end)
        } else {
            last.clone().rev().find(|&x| self.inked(x)).map_or(last.end, |x| x + 1)
        };
        (start, end.max(start + 1))
    }

    /// Whether the columns of steps `from..=to` hold a blank run as wide as a word space.
    fn word_space_within(&self, from: usize, to: usize) -> bool {
        let column = |step: usize| (step as f32 * self.step_px) as usize;
        let (x0, x1) = (column(from), column(to + 1));
        let mut run = 0;
        for x in x0..x1 {
            run = if self.inked(x) { 0 } else { run + 1 };
            if is_word_space(run) {
                return true;
            }
        }
        false
    }
}

/// A line crop's ink per column (`ink_columns`) as its glyphs leave it: over the crop's least
/// (a table's rule across the line inks every column alike), and none in a rule beside the
/// line (`RULE_MIN_INK`).
fn glyph_ink(mut columns: Vec<u32>) -> Vec<u32> {
    let floor = columns.iter().copied().min().unwrap_or(0);
    for c in &mut columns {
        *c = if *c >= RULE_MIN_INK { 0 } else { *c - floor };
    }
    columns
}

/// A connected piece of ink in a crop: its pixels' indices, its first and last columns and
/// rows.
struct Blob {
    pixels: Vec<usize>,
    left: usize,
    top: usize,
    right: usize,
    bottom: usize,
}

fn mean_colour<'a>(pixels: impl Iterator<Item = &'a Rgb<u8>>) -> Rgb<u8> {
    let (mut sum, mut n) = ([0u64; 3], 0u64);
    for p in pixels {
        (0..3).for_each(|c| sum[c] += p[c] as u64);
        n += 1;
    }
    Rgb(sum.map(|s| (s / n.max(1)) as u8))
}

/// The part of a line orientation reads (see `MAX_ORIENTATION_SQUEEZE`).
pub fn orientation_part(q: &Quad) -> Quad {
    let share = MAX_ORIENTATION_SQUEEZE * CLS_WIDTH as f32 / scaled_width(q) as f32;
    if share >= 1.0 { *q } else { q.slice(0.5 - share / 2.0, 0.5 + share / 2.0) }
}

/// Width of a line at the model's height, keeping its aspect ratio (within
/// `MAX_PIECES_PER_LINE` inputs).
pub fn scaled_width(q: &Quad) -> usize {
    let ratio = q.width() / q.height().max(1.0);
    ((LINE_HEIGHT as f32 * ratio).ceil() as usize).clamp(1, REC_MAX_WIDTH * MAX_PIECES_PER_LINE)
}

/// The narrowest input a line (or a mark) may be read in (a line wider than any input, in
/// pieces).
pub fn least_width(q: &Quad, mark: bool) -> usize {
    let (min, step) = if mark { (MARK_MIN_WIDTH, MARK_WIDTH_STEP) } else { (REC_MIN_WIDTH, REC_WIDTH_STEP) };
    scaled_width(q).min(REC_MAX_WIDTH).max(min).div_ceil(step) * step
}

/// The input width of each line, given the narrowest it may have (`least`): a few widths
/// chosen among those, so that the columns read (padding included) plus `NEW_WIDTH_COST` per
/// width are fewest, at most `MAX_WIDTHS_PER_PAGE`. A page's widths depend on the page alone,
/// not on the plans earlier pages left: padding changes what the model reads, a little, and a
/// page must read the same wherever it comes in a run.
pub fn input_widths(least: &[usize]) -> Vec<usize> {
    let mut cands = least.to_vec();
    cands.sort_unstable();
    cands.dedup();
    let m = cands.len();
    // below[j]: lines whose least width is at most cands[j].
    let below: Vec<usize> = cands.iter().map(|&c| least.iter().filter(|&&w| w <= c).count()).collect();
    // cost[b][j]: fewest columns reading the lines up to cands[j] in b + 1 widths, the widest
    // cands[j]; from[b][j]: the next narrower width chosen.
    let mut cost = vec![vec![usize::MAX; m]; MAX_WIDTHS_PER_PAGE];
    let mut from = vec![vec![None; m]; MAX_WIDTHS_PER_PAGE];
    for j in 0..m {
        cost[0][j] = cands[j] * below[j] + NEW_WIDTH_COST;
        for b in 1..MAX_WIDTHS_PER_PAGE {
            for i in 0..j {
                if cost[b - 1][i] == usize::MAX {
                    continue;
                }
                let c = cost[b - 1][i] + cands[j] * (below[j] - below[i]) + NEW_WIDTH_COST;
                if c < cost[b][j] {
                    (cost[b][j], from[b][j]) = (c, Some(i));
                }
            }
        }
    }
    // The widest width is the widest least width; the fewest widths among equal costs.
    let Some(last) = m.checked_sub(1) else { return Vec::new() };
    let mut b = (0..MAX_WIDTHS_PER_PAGE).min_by_key(|&b| cost[b][last]).unwrap_or(0);
    let mut j = last;
    let mut chosen = vec![cands[j]];
    while let Some(i) = from[b][j] {
        (b, j) = (b - 1, i);
        chosen.push(cands[j]);
    }
    chosen.sort_unstable();
    least.iter().map(|&w| chosen.iter().copied().find(|&c| c >= w).unwrap_or(w)).collect()
}

/// Orientation model output (N×2: 0°, 180°) -> probability that each line is upside down.
pub fn upside_down_probabilities(out: &Tensor) -> Vec<f32> {
    out.data.chunks(2).map(|p| p[1] / (p[0] + p[1]).max(f32::MIN_POSITIVE)).collect()
}

/// A dozen lines of one direction decide its orientation: they are the widest, so carry
/// the most text the model can judge by (the rest of a direction's lines only repeat the
/// vote; on a page of 80–120 lines they cost 0.2–0.3 s).
pub const ORIENTATION_VOTERS: usize = 12;

/// The lines (indices) whose orientation is asked: the `ORIENTATION_VOTERS` widest of each
/// direction, in their page order.
pub fn orientation_voters(quads: &[Quad]) -> Vec<usize> {
    let mut by_width: Vec<usize> = (0..quads.len()).collect();
    by_width.sort_by(|&a, &b| quads[b].width().total_cmp(&quads[a].width()));
    let mut taken = [0usize; 4];
    let mut voters: Vec<usize> = by_width
        .into_iter()
        .filter(|&i| {
            let d = quarter_turns(quads[i].angle());
            taken[d] += 1;
            taken[d] <= ORIENTATION_VOTERS
        })
        .collect();
    voters.sort_unstable();
    voters
}

/// Each direction's voters' mean 180° probability; None for a direction no line runs in.
pub fn upside_down_votes(angles: &[f32], upside_down: &[f32]) -> [Option<f32>; 4] {
    let mut sum = [0.0f32; 4];
    let mut count = [0usize; 4];
    for (&a, &p) in angles.iter().zip(upside_down) {
        sum[quarter_turns(a)] += p;
        count[quarter_turns(a)] += 1;
    }
    std::array::from_fn(|d| (count[d] > 0).then(|| sum[d] / count[d] as f32))
}

/// Which directions to turn upside down. A page's lines share an orientation, and the model is
/// sure of only some of them, so lines vote: all lines running in one direction flip together
/// when their voters' mean 180° probability is above one half.
pub fn upside_down_directions(votes: &[Option<f32>; 4]) -> [bool; 4] {
    votes.map(|vote| vote.is_some_and(|mean| mean > 0.5))
}

/// A vote this near one half is checked by reading (`unsure_votes`): the orientation model
/// splits on lines of figures, which read alike turned ("%", "0", "6" and "9"), and on small
/// print: pr-138's table rows, rendered at 100 dpi, voted 0.53 and its page read upside down,
/// as issue18117's line (0.65) did at 200 dpi. 22 of the 284 corpus PDFs' first pages hold a
/// direction voted this unsurely at 200 dpi (each reads 8 lines more).
pub const UNSURE_VOTE: f32 = 0.25;

/// The directions whose vote is unsure (within `UNSURE_VOTE` of one half).
pub fn unsure_votes(votes: &[Option<f32>; 4]) -> [bool; 4] {
    votes.map(|vote| vote.is_some_and(|mean| (mean - 0.5).abs() < UNSURE_VOTE))
}

/// Lines of an unsure direction read both ways round to settle it (`reads_better_turned`):
/// its widest voters, which hold the most letters for the reading's confidence to weigh.
pub const ORIENTATION_READERS: usize = 4;

/// Of `voters`, the `ORIENTATION_READERS` widest running in direction `direction`.
pub fn orientation_readers(voters: &[Quad], direction: usize) -> Vec<Quad> {
    let mut readers: Vec<Quad> = voters.iter().copied().filter(|q| quarter_turns(q.angle()) == direction).collect();
    readers.sort_by(|a, b| b.width().total_cmp(&a.width()));
    readers.truncate(ORIENTATION_READERS);
    readers
}

/// Whether lines read turned round read better than as they stand: the mean confidence of
/// their letters and figures each way (`letters_confidence`), marks aside, as an upside-down
/// line reads as marks too ("'", ",", "."). None where the two tie, as where neither way
/// reads a letter (150109DSP's page 2: a vertical rule read as nothing either way).
pub fn reads_better_turned(as_they_stand: &[OcrLine], turned: &[OcrLine]) -> Option<bool> {
    let (upright, turned) = (letters_confidence(as_they_stand), letters_confidence(turned));
    (turned != upright).then_some(turned > upright)
}

/// The mean confidence of the letters and figures of `lines`; 0 where they read none.
fn letters_confidence(lines: &[OcrLine]) -> f32 {
    let confidences: Vec<f32> =
        lines.iter().flat_map(|l| &l.chars).filter(|c| c.ch.is_alphanumeric()).map(|c| c.confidence).collect();
    if confidences.is_empty() { 0.0 } else { confidences.iter().sum::<f32>() / confidences.len() as f32 }
}

/// A faint box (`det::FAINT_BOX_THRESH`) is text where it reads at least this many letters
/// and figures ...
const FAINT_MIN_LETTERS: usize = 2;
/// ... each this surely: marks aside (a faint piece of a rule reads "-" surely), and a lone
/// stroke or ring reads "1", "I" or "0" as surely as a figure.
const FAINT_MIN_CONFIDENCE: f32 = 0.9;

/// Whether a line read from a faint box is text (`FAINT_MIN_LETTERS`,
/// `FAINT_MIN_CONFIDENCE`).
pub fn reads_surely(line: &OcrLine) -> bool {
    let letters: Vec<f32> = line.chars.iter().filter(|c| c.ch.is_alphanumeric()).map(|c| c.confidence).collect();
    letters.len() >= FAINT_MIN_LETTERS && letters.iter().all(|&c| c >= FAINT_MIN_CONFIDENCE)
}

/// Whether a line at `angle` is turned, given `upside_down_directions`.
pub fn flips(directions: &[bool; 4], angle: f32) -> bool {
    directions[quarter_turns(angle)]
}

/// One decoded character: its text, the CTC steps it spans, its probability.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub ch: char,
    pub first_step: usize,
    pub last_step: usize,
    pub confidence: f32,
}

/// Whether a character is a mark: punctuation or a symbol, neither a letter, a digit nor a
/// space.
pub fn is_mark_char(c: char) -> bool {
    !c.is_alphanumeric() && !c.is_whitespace()
}

/// Spaces put back between repeats of one mark set `SPACED_MARK_PITCH` apart ("- - - -"
/// rules read as "----"); one output step spans `step_px` input pixels of a line
/// `LINE_HEIGHT` high.
pub fn space_spaced_marks(decoded: Vec<Decoded>, step_px: f32) -> Vec<Decoded> {
    let pitch = SPACED_MARK_PITCH * LINE_HEIGHT as f32 / step_px.max(f32::EPSILON);
    let mut out: Vec<Decoded> = Vec::with_capacity(decoded.len());
    for d in decoded {
        if let Some(prev) = out.last()
            && prev.ch == d.ch
            && is_mark_char(d.ch)
            && d.first_step.saturating_sub(prev.first_step) as f32 >= pitch
        {
            let step = (prev.last_step + d.first_step) / 2;
            let confidence = prev.confidence.min(d.confidence);
            out.push(Decoded { ch: ' ', first_step: step, last_step: step, confidence });
        }
        out.push(d);
    }
    out
}

/// Small letters whose capitals are the same shape drawn larger: the model tells the two
/// apart by size alone, and in an all-capital word now and then reads one small
/// ("sUMMARY", "ADDREssES").
pub(crate) const SAME_SHAPE_SMALL: [char; 7] = ['c', 'o', 's', 'v', 'w', 'x', 'z'];
/// The small l and the capital I, one upright stroke each in sans-serif print: the model
/// reads one for the other ("FBl" for "FBI", "mI" for "ml").
pub(crate) const STROKE_SMALL_L: char = 'l';
pub(crate) const STROKE_CAPITAL_I: char = 'I';
/// A look-alike letter read in a word of the other case becomes its look-alike when the model
/// gave that at least this probability at one of the letter's steps: on page 1 of 60 corpus
/// PDFs read by OCR, the misread capitals had 0.07–0.48, a capitalised word's small letters
/// mostly under 0.012 ("Los": 0.0001–0.12).
pub const CAPITAL_MIN_PROBABILITY: f32 = 0.05;

/// Whether `c` is read by its size or its font alone: a same-shape letter, small or capital,
/// or one of the stroke pair l and I. Such letters do not tell a word's case.
fn is_look_alike(c: char) -> bool {
    SAME_SHAPE_SMALL.contains(&c.to_ascii_lowercase()) || c == STROKE_SMALL_L || c == STROKE_CAPITAL_I
}

/// Look-alike letters among a model's classes.
#[derive(Clone, Debug, Default)]
pub struct LookAlikes {
    /// Each small letter with a capital look-alike (a same-shape letter's own capital, the
    /// small l's the capital I) that is a class: the small letter, the capital, its class.
    capitals: Vec<(char, char, usize)>,
    /// Each same-shape capital whose small letter is a class: the capital, the small
    /// letter, its class.
    smalls: Vec<(char, char, usize)>,
    /// The small l's class, the capital I's look-alike.
    small_l: Option<usize>,
    /// The registered sign's class, the at sign's look-alike.
    registered: Option<usize>,
}

impl LookAlikes {
    pub fn of_classes(classes: &[char]) -> LookAlikes {
        let index = |c: char| classes.iter().position(|&k| k == c);
        let capitals = SAME_SHAPE_SMALL
            .iter()
            .map(|&small| (small, small.to_ascii_uppercase()))
            .chain([(STROKE_SMALL_L, STROKE_CAPITAL_I)])
            .filter_map(|(small, capital)| Some((small, capital, index(capital)?)))
            .collect();
        let smalls = SAME_SHAPE_SMALL
            .iter()
            .filter_map(|&small| Some((small.to_ascii_uppercase(), small, index(small)?)))
            .collect();
        LookAlikes { capitals, smalls, small_l: index(STROKE_SMALL_L), registered: index(REGISTERED) }
    }
}

/// The registered sign, which the model reads as an at sign after a brand ("Dynasty®").
const REGISTERED: char = '\u{AE}';
/// An at sign ending a word is a registered sign where the model gave that this much or more:
/// birdisland's three "®" read "@" had 0.18-0.47, the at signs ending email addresses broken
/// over lines on page 1 of the 284 corpus PDFs 0.005 at most.
const REGISTERED_MIN_PROBABILITY: f32 = 0.05;

/// Registered signs read as at signs: an "@" ending a word after a letter or figure (an
/// email address's runs on after it), where the model gave the registered sign
/// `REGISTERED_MIN_PROBABILITY` or more.
pub fn registered_signs_read_as_at(decoded: &mut [Decoded], probs: &[f32], steps: usize, alike: &LookAlikes) {
    let Some(class) = alike.registered else { return };
    let n = probs.len() / steps.max(1);
    for i in 1..decoded.len() {
        let ends_word = decoded.get(i + 1).is_none_or(|d| !d.ch.is_alphanumeric());
        if decoded[i].ch == '@'
            && decoded[i - 1].ch.is_alphanumeric()
            && ends_word
            && probability_at(&decoded[i], probs, n, class) >= REGISTERED_MIN_PROBABILITY
        {
            decoded[i].ch = REGISTERED;
        }
    }
}

/// The most probability the model gave `class` at one of `d`'s steps.
fn probability_at(d: &Decoded, probs: &[f32], n: usize, class: usize) -> f32 {
    (d.first_step..=d.last_step).filter_map(|t| probs.get(t * n + class)).fold(0.0f32, |a, &b| a.max(b))
}

/// A same-shape capital whose ink stands under this, between the line's x-height (0) and its
/// tall letters' height (1), is nearer the small letters (`case_look_alikes_in_words`).
pub const STANDS_SMALL: f32 = 0.5;
/// A same-shape capital read at a word's first letter, or beside other capitals, is made small
/// only where its ink stands under this: over page 1 of the 284 corpus PDFs the capitals read
/// right stood 0.5 and more, but for one letter the model was sure of whose nearest blob was
/// another's (0.0); the misread ones ("LOCATE Controls", "Bow-Wow", mixedfonts' "uVWxyZ")
/// stood -0.17 to 0.0.
pub const STANDS_CLEARLY_SMALL: f32 = 0.3;
/// A same-shape small letter in a word without other small letters is made a capital where its
/// ink stands within these: the misread ones ("ADDREsSES", "(co2)", "(sOx/s02)", "Cv") stood
/// 0.83–1.0; past 1.15 the blob is a letter joined to its neighbour ("w/", "p/c" read
/// right stood 1.2–1.38).
pub const STANDS_TALL: RangeInclusive<f32> = 0.75..=1.15;
/// The least probability the model gave a capital its ink says is one: ADDREsSES's "S" had
/// 0.019; joined letters read right, 0.001–0.002.
pub const INKED_CAPITAL_MIN_PROBABILITY: f32 = 0.01;

/// Look-alike letters read in the other case from their word -> their look-alikes, where the
/// model gave that some probability (`CAPITAL_MIN_PROBABILITY`):
/// - in an all-capital word, same-shape small letters become capitals and a small l the
///   capital I. A word (a run of letters) is all-capital when its cased letters other than
///   look-alikes are all capitals, one of them past its first letter: "Los" and "Low" are
///   capitalised words, not capital ones;
/// - in a small word, a capital I past the first letter becomes a small l. A word is small
///   when its cased letters other than its I's are small past the first letter, and it has a
///   small letter there or one that is no look-alike first ("mI", not "AII", "AgSCI" or "lI");
/// - a same-shape capital past the first letter of a word with a small letter there and no
///   capital but look-alikes ("MeoW", "FoX", "bzzZZZzZ") becomes small where its ink stands
///   nearer the line's small letters (`STANDS_SMALL`). Camel case reads the same way
///   ("JavaScript", "macOS", "AgSCI"), so only the ink can tell. Elsewhere in a word with a
///   small letter (a first letter: "LOCATE Controls"; beside capitals) it must stand as low as
///   the small letters (`STANDS_CLEARLY_SMALL`). A word without one may be set in small
///   capitals, whose letters stand alike, so its capitals stay;
/// - a same-shape small letter in a word without small letters but same-shape ones becomes a
///   capital where its ink stands as the tall letters (`STANDS_TALL`), given less probability
///   (`INKED_CAPITAL_MIN_PROBABILITY`): "ADDREsSES", "(co2)", "Cv". Ink does not tell l from I.
///
/// `probs`: the line's class probabilities, `steps` rows; `standing(decoded, i)` says where
/// `decoded[i]`'s ink stands between the line's x-height (0) and its tall letters (1), asked
/// only of those candidates (`glyphs::LetterHeights`).
pub fn case_look_alikes_in_words(
    decoded: &mut [Decoded],
    probs: &[f32],
    steps: usize,
    alike: &LookAlikes,
    mut standing: impl FnMut(&[Decoded], usize) -> Option<f32>,
) {
    let n = probs.len() / steps.max(1);
    let cased = |c: char| c.is_lowercase() || c.is_uppercase();
    let mut changes = Vec::new();
    for range in word_ranges(decoded) {
        let word = &decoded[range.clone()];
        let mut others = word.iter().enumerate().filter(|(_, d)| !is_look_alike(d.ch) && cased(d.ch));
        let capital_word = others.clone().all(|(_, d)| d.ch.is_uppercase()) && others.any(|(i, _)| i > 0);
        let mut past_first = word.iter().skip(1).filter(|d| d.ch != STROKE_CAPITAL_I && cased(d.ch));
        let small_word = past_first.clone().all(|d| d.ch.is_lowercase())
            && (past_first.next().is_some()
                || word.first().is_some_and(|d| d.ch.is_lowercase() && !is_look_alike(d.ch)));
        let small_past_first = word.iter().skip(1).any(|d| d.ch.is_lowercase() && d.ch != STROKE_SMALL_L)
            && !word.iter().skip(1).any(|d| d.ch.is_uppercase() && !is_look_alike(d.ch));
        let has_small = word.iter().any(|d| d.ch.is_lowercase());
        let smalls_same_shape = word.iter().all(|d| !d.ch.is_lowercase() || SAME_SHAPE_SMALL.contains(&d.ch));
        for (i, d) in word.iter().enumerate() {
            let at = range.start + i;
            let p = |class: usize| probability_at(d, probs, n, class);
            let to_capital = alike.capitals.iter().find(|&&(small, ..)| small == d.ch);
            let to_small = alike.smalls.iter().find(|&&(capital, ..)| capital == d.ch);
            let to = if let Some(&(_, capital, class)) = to_capital.filter(|_| capital_word || smalls_same_shape) {
                let by_odds = capital_word && p(class) >= CAPITAL_MIN_PROBABILITY;
                let by_ink = d.ch != STROKE_SMALL_L && p(class) >= INKED_CAPITAL_MIN_PROBABILITY;
                (by_odds || by_ink && standing(decoded, at).is_some_and(|s| STANDS_TALL.contains(&s)))
                    .then_some(capital)
            } else if small_word && i > 0 && d.ch == STROKE_CAPITAL_I {
                alike.small_l.filter(|&l| p(l) >= CAPITAL_MIN_PROBABILITY).map(|_| STROKE_SMALL_L)
            } else if let Some(&(_, small, class)) = to_small.filter(|_| has_small) {
                let below = if small_past_first && i > 0 { STANDS_SMALL } else { STANDS_CLEARLY_SMALL };
                (p(class) >= CAPITAL_MIN_PROBABILITY && standing(decoded, at).is_some_and(|s| s < below))
                    .then_some(small)
            } else {
                None
            };
            changes.extend(to.map(|to| (at, to)));
        }
    }
    for (at, to) in changes {
        decoded[at].ch = to;
    }
}

/// The runs of letters among `decoded`, as index ranges.
fn word_ranges(decoded: &[Decoded]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for (i, d) in decoded.iter().enumerate() {
        if !d.ch.is_alphabetic() {
            if i > start {
                ranges.push(start..i);
            }
            start = i + 1;
        }
    }
    if decoded.len() > start {
        ranges.push(start..decoded.len());
    }
    ranges
}

/// A full stop or a comma the greedy path passed by between two figures is looked for where
/// the model gave "." at least this at a step between them: 12s0324's "1.0" read "10" had
/// 0.37, puertos1's "495,580" read "495580" 0.18; a true "12" had 0.16, so the ink decides
/// (`glyphs::separators_between_figures`).
pub const PASSED_STOP_MIN_PROBABILITY: f32 = 0.1;

/// Where the greedy path may have passed by a full stop or a comma (which it half-reads as
/// one) between two figures read side by side: the second figure's index and the step between them where the model gave "." the
/// most, with that probability, where it is at least `PASSED_STOP_MIN_PROBABILITY`.
pub fn separators_passed_by(
    decoded: &[Decoded],
    probs: &[f32],
    steps: usize,
    classes: &[char],
) -> Vec<(usize, usize, f32)> {
    let n = probs.len() / steps.max(1);
    let Some(stop) = classes.iter().position(|&c| c == '.') else { return Vec::new() };
    let pairs = decoded.windows(2).enumerate().filter(|(_, p)| p[0].ch.is_ascii_digit() && p[1].ch.is_ascii_digit());
    pairs
        .filter_map(|(k, p)| {
            let (t, prob) = (p[0].last_step..=p[1].first_step)
                .filter_map(|t| Some((t, *probs.get(t * n + stop)?)))
                .max_by(|a, b| a.1.total_cmp(&b.1))?;
            (prob >= PASSED_STOP_MIN_PROBABILITY).then_some((k + 1, t, prob))
        })
        .collect()
}

/// The model's class list: blank, the dictionary, then the space PP-OCR appends.
pub fn classes(dictionary: &str) -> Vec<char> {
    let mut v = vec!['\0'];
    v.extend(dictionary.lines().filter_map(|l| l.chars().next()));
    v.push(' ');
    v
}

/// The characters a page may be read as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Script {
    /// Every character of the recognition model's dictionary: Latin, Greek, digits,
    /// punctuation, symbols, common Chinese characters.
    #[default]
    All,
    /// Latin-script text: the dictionary without its East Asian characters (`east_asian`),
    /// as a Latin-only language model (tesseract's eng) reads. A line can no longer come out
    /// as Chinese look-alikes, and on the CPU the model's output layer shrinks with it: 618
    /// of PP-OCRv6's 6,906 classes, a quarter less recognition time.
    Latin,
    /// Chinese and Japanese as well as Latin: every character of the larger recognition
    /// model (`CJK_RECOGNITION_FILE`, 18,708 characters), whose kana and traditional and rare
    /// Chinese characters the default model lacks (it reads kana as Chinese look-alikes).
    /// About three times as slow on the CPU.
    Cjk,
}

/// The recognition model file (in the models folder) of `Script::Cjk`.
pub const CJK_RECOGNITION_FILE: &str = "rec_cjk.onnx";

impl Script {
    pub fn keeps(self, c: char) -> bool {
        match self {
            Script::All | Script::Cjk => true,
            Script::Latin => !east_asian(c),
        }
    }

    /// The models folder's file of `model` for this script: the script's own recognition
    /// model, the others shared.
    pub fn model_file(self, model: ModelKind) -> &'static str {
        match (self, model) {
            (Script::Cjk, ModelKind::Recognition) => CJK_RECOGNITION_FILE,
            _ => model.file_name(),
        }
    }
}

/// Whether a character belongs to the Chinese, Japanese or Korean scripts, their punctuation
/// or their full-width and vertical forms (by Unicode block).
pub fn east_asian(c: char) -> bool {
    matches!(
        c as u32,
        0x1100..=0x11FF // Hangul Jamo
            | 0x2E80..=0x9FFF // radicals, CJK punctuation, kana, Bopomofo, enclosed CJK, ideographs
            | 0xA960..=0xA97F // Hangul Jamo extended A
            | 0xAC00..=0xD7FF // Hangul syllables, Jamo extended B
            | 0xF900..=0xFAFF // compatibility ideographs
            | 0xFE10..=0xFE1F // vertical forms
            | 0xFE30..=0xFE6F // compatibility and small forms
            | 0xFF00..=0xFFEF // half-width and full-width forms
            | 0x20000..=0x3FFFF // supplementary ideographic planes
    )
}

/// The classes (indices into `classes`) `script` reads: blank and space always.
pub fn kept_classes(classes: &[char], script: Script) -> Vec<usize> {
    let last = classes.len().saturating_sub(1);
    (0..classes.len()).filter(|&i| i == 0 || i == last || script.keeps(classes[i])).collect()
}

/// Where each of `n` classes goes when only `kept` (ascending) are read: its place among
/// them, else nowhere.
pub fn kept_into(kept: &[usize], n: usize) -> Vec<Option<usize>> {
    (0..n).map(|i| kept.binary_search(&i).ok()).collect()
}

/// The classes of `classes` that `script` keeps (`kept_classes`), and which of them each of
/// `classes` counts towards: itself where kept, a full-width form (`latin_form`) its Latin
/// form where that is kept, else none. Full-width forms are the same characters drawn wider,
/// so dropping them would drop what the model saw of their Latin forms.
pub fn folded_classes(classes: &[char], script: Script) -> (Vec<usize>, Vec<Option<usize>>) {
    let kept = kept_classes(classes, script);
    let mut into = kept_into(&kept, classes.len());
    for (to, &c) in into.iter_mut().zip(classes) {
        if to.is_none() {
            *to = latin_form(c).and_then(|l| kept.iter().position(|&k| classes[k] == l));
        }
    }
    (kept, into)
}

/// Class probabilities of `steps` steps over `into.len()` classes -> over `kept` classes,
/// each class's probability added to the one `into` names (`kept_into`, `folded_classes`),
/// each step renormalised: with nothing folded, what a softmax over the kept classes'
/// logits alone gives.
pub fn fold_class_probabilities(probs: &[f32], steps: usize, into: &[Option<usize>], kept: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; steps * kept];
    for (row, folded) in probs.chunks_exact(into.len().max(1)).zip(out.chunks_exact_mut(kept.max(1))) {
        for (&p, to) in row.iter().zip(into) {
            if let Some(k) = *to {
                folded[k] += p;
            }
        }
        let sum: f32 = folded.iter().sum();
        if sum > 0.0 {
            folded.iter_mut().for_each(|p| *p /= sum);
        }
    }
    out
}

/// The Latin character a full-width form (U+FF01..U+FF5E) is drawn from.
fn latin_form(c: char) -> Option<char> {
    matches!(c as u32, 0xFF01..=0xFF5E).then(|| char::from_u32(c as u32 - 0xFEE0)).flatten()
}

/// CTC greedy decoding of one line: best class per step, repeats merged, blanks dropped, and
/// spaces put back where the gap between two characters was likely one and its crop (`gaps`)
/// is blank as wide as a space (`SPACE_MIN_PROBABILITY`).
pub fn ctc_greedy(probs: &[f32], steps: usize, classes: &[char], gaps: &InkGaps) -> Vec<Decoded> {
    let n = probs.len() / steps.max(1);
    let mut out: Vec<Decoded> = Vec::new();
    let mut prev = 0usize;
    // The space PP-OCR appends is the last class.
    let space = classes.len().saturating_sub(1);
    // Most probable space among the blank steps since the last character: (probability, step).
    let mut gap = (0.0f32, 0usize);
    for t in 0..steps {
        let row = &probs[t * n..(t + 1) * n];
        let (best, p) = row.iter().enumerate().fold((0, f32::MIN), |a, (i, &v)| if v > a.1 { (i, v) } else { a });
        if best == 0 {
            if let Some(&ps) = row.get(space)
                && ps > gap.0
            {
                gap = (ps, t);
            }
        } else if best != prev {
            let before_stop = classes.get(best).is_some_and(|c| NO_SPACE_BEFORE.contains(c));
            if gap.0 >= SPACE_MIN_PROBABILITY
                && best != space
                && !before_stop
                && out.last().is_some_and(|d| d.ch != ' ' && gaps.word_space_within(d.last_step, t))
            {
                out.push(Decoded { ch: ' ', first_step: gap.1, last_step: gap.1, confidence: gap.0 });
            }
            gap = (0.0, 0);
        }
        if best != 0 && best == prev {
            if let Some(last) = out.last_mut() {
                last.last_step = t;
                last.confidence = last.confidence.max(p);
            }
        } else if best != 0
            && let Some(&ch) = classes.get(best)
        {
            out.push(Decoded { ch, first_step: t, last_step: t, confidence: p });
        }
        prev = best;
    }
    latin_width_forms(&mut out);
    let mut out = one_quote_per_glyph(out);
    // Spaces at the ends of a line carry no text.
    while out.last().is_some_and(|d| d.ch == ' ') {
        out.pop();
    }
    let lead = out.iter().take_while(|d| d.ch == ' ').count();
    out.drain(..lead);
    out
}

/// Quotation marks of one weight: the model reads a curly quote as the straight one or
/// either curly one, and now and then as two of them.
const QUOTE_GROUPS: [&str; 2] = ["\"“”„‟″", "'‘’‚‛′"];

/// Two quotation marks of one weight read on consecutive steps, with no blank between, are one
/// glyph the model flipped between look-alikes on (UNLV 8071_093's opening quotes read “"
/// twice): the surer of the two is kept, over both's steps. Marks a blank apart stay two.
fn one_quote_per_glyph(decoded: Vec<Decoded>) -> Vec<Decoded> {
    let weight = |c: char| QUOTE_GROUPS.iter().position(|g| g.contains(c));
    let mut out: Vec<Decoded> = Vec::with_capacity(decoded.len());
    for d in decoded {
        if let Some(prev) = out.last_mut()
            && prev.last_step + 1 == d.first_step
            && weight(d.ch).is_some()
            && weight(prev.ch) == weight(d.ch)
        {
            if d.confidence > prev.confidence {
                (prev.ch, prev.confidence) = (d.ch, d.confidence);
            }
            prev.last_step = d.last_step;
            continue;
        }
        out.push(d);
    }
    out
}

/// The recognition model was trained on Chinese as much as on Latin text, and often reads
/// Latin punctuation and digits as their full-width forms (U+FF01..U+FF5E). Those become
/// ASCII unless a neighbour is CJK, where the full-width form is the right one.
fn latin_width_forms(chars: &mut [Decoded]) {
    let cjk_near = |chars: &[Decoded], i: usize| {
        let cjk = |d: &Decoded| east_asian(d.ch) && latin_form(d.ch).is_none();
        let before = chars[..i].iter().rev().find(|d| d.ch != ' ').is_some_and(cjk);
        let after = chars[i + 1..].iter().find(|d| d.ch != ' ').is_some_and(cjk);
        before || after
    };
    for i in 0..chars.len() {
        if let Some(latin) = latin_form(chars[i].ch)
            && !cjk_near(chars, i)
        {
            chars[i].ch = latin;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crop without ink, 8 input columns a step: every gap is blank.
    fn no_ink() -> InkGaps<'static> {
        InkGaps { crop: None, ink: OnceCell::new(), step_px: 8.0 }
    }

    fn one_hot(seq: &[usize], n: usize) -> Vec<f32> {
        seq.iter().flat_map(|&c| (0..n).map(move |i| if i == c { 0.9 } else { 0.1 / (n - 1) as f32 })).collect()
    }

    #[test]
    fn ctc_merges_repeats_and_drops_blanks() {
        let classes = classes("a\nb\nl");
        // blank a a blank b b l blank l space
        let probs = one_hot(&[0, 1, 1, 0, 2, 2, 3, 0, 3, 4], 5);
        let d = ctc_greedy(&probs, 10, &classes, &no_ink());
        let text: String = d.iter().map(|d| d.ch).collect();
        assert_eq!(text, "abll");
        assert_eq!((d[0].first_step, d[0].last_step), (1, 2));
    }

    #[test]
    fn a_quote_read_as_two_look_alikes_on_consecutive_steps_is_one_quote() {
        let classes = classes("“\n\"\n‘\n'\nF");
        let read = |seq: &[usize], p: &[f32]| {
            let mut rows = one_hot(seq, classes.len());
            for (t, &p) in p.iter().enumerate() {
                rows[t * classes.len() + seq[t]] = p;
            }
            ctc_greedy(&rows, seq.len(), &classes, &no_ink()).iter().map(|d| d.ch).collect::<String>()
        };
        assert_eq!(read(&[1, 2, 5], &[0.55, 0.46, 0.9]), "“F");
        assert_eq!(read(&[1, 2, 5], &[0.68, 0.97, 0.9]), "\"F");
        assert_eq!(read(&[3, 4, 5], &[0.9, 0.5, 0.9]), "‘F");
        // A blank apart, or of two weights, they are two marks.
        assert_eq!(read(&[1, 0, 2, 5], &[0.9, 0.9, 0.9, 0.9]), "“\"F");
        assert_eq!(read(&[4, 2, 5], &[0.9, 0.9, 0.9]), "'\"F");
    }

    /// Decoded letters one step each, and their rows: the read letter at `p_read`, its
    /// other case (where it is a class; l's and I's look-alike) at `1 - p_read`.
    fn read_as(text: &str, p_read: f32, classes: &[char]) -> (Vec<Decoded>, Vec<f32>) {
        let n = classes.len();
        let mut probs = vec![0.0; text.chars().count() * n];
        let decoded = text
            .chars()
            .enumerate()
            .map(|(t, ch)| {
                let other = match ch {
                    STROKE_SMALL_L => STROKE_CAPITAL_I,
                    STROKE_CAPITAL_I => STROKE_SMALL_L,
                    _ if ch.is_lowercase() => ch.to_ascii_uppercase(),
                    _ => ch.to_ascii_lowercase(),
                };
                let index = |c: char| classes.iter().position(|&k| k == c);
                if let Some(i) = index(ch) {
                    probs[t * n + i] = p_read;
                }
                if let Some(i) = index(other).filter(|_| other != ch) {
                    probs[t * n + i] = 1.0 - p_read;
                }
                Decoded { ch, first_step: t, last_step: t, confidence: p_read }
            })
            .collect();
        (decoded, probs)
    }

    #[test]
    fn an_at_sign_ending_a_brand_the_model_doubted_is_a_registered_sign() {
        let classes = classes("D\ny\nX\nL\nr\nd\n@\n\u{AE}\n.\ng");
        let alike = LookAlikes::of_classes(&classes);
        let read = |text: &str, registered: f32| {
            let n = classes.len();
            let mut probs = vec![0.0; text.chars().count() * n];
            let decoded: Vec<Decoded> = text
                .chars()
                .enumerate()
                .map(|(t, ch)| {
                    let index = |c: char| classes.iter().position(|&k| k == c).unwrap_or(0);
                    probs[t * n + index(ch)] = 1.0 - registered;
                    if ch == '@' {
                        probs[t * n + index(REGISTERED)] = registered;
                    }
                    Decoded { ch, first_step: t, last_step: t, confidence: 1.0 - registered }
                })
                .collect();
            let mut decoded = decoded;
            registered_signs_read_as_at(&mut decoded, &probs, text.chars().count(), &alike);
            decoded.iter().map(|d| d.ch).collect::<String>()
        };
        // birdisland's "Dynasty®" and "XL®" (0.46, 0.18); an email address broken after its
        // at sign (0.005) and one inside a word stay.
        assert_eq!(read("Dy@ XL@.", 0.18), "Dy\u{AE} XL\u{AE}.");
        assert_eq!(read("rd@", 0.005), "rd@");
        assert_eq!(read("rd@g @", 0.4), "rd@g @");
    }

    /// What `case_look_alikes_in_words` makes of a text read (`read_as`) by a model with
    /// `dictionary`, on a line whose letters' ink stands where `ink` says.
    fn case_fixer(dictionary: &str, ink: fn(char) -> Option<f32>) -> impl Fn(&str, f32) -> String {
        let classes = classes(dictionary);
        let alike = LookAlikes::of_classes(&classes);
        move |text: &str, p_read: f32| {
            let (mut decoded, probs) = read_as(text, p_read, &classes);
            case_look_alikes_in_words(&mut decoded, &probs, text.chars().count(), &alike, |d, i| ink(d[i].ch));
            decoded.iter().map(|d| d.ch).collect::<String>()
        }
    }

    /// Ink that stands as the letters were read: small letters at the x-height, capitals and
    /// figures with the tall letters.
    fn ink_as_read(c: char) -> Option<f32> {
        Some(if c.is_lowercase() { 0.0 } else { 1.0 })
    }

    #[test]
    fn same_shape_letters_read_small_in_capital_words_become_capitals() {
        let fixed = case_fixer("A\nC\nD\nE\nM\nO\nR\nS\nU\nY\na\nc\ne\nm\no\nr\ns\nu\ny\nL\nw\nW\n1\n:", ink_as_read);
        // The capital had some probability: every same-shape letter of a capital word.
        assert_eq!(fixed("sUMMARY: ADDREssEs", 0.7), "SUMMARY: ADDRESSES");
        assert_eq!(fixed("sUs 1s", 0.7), "SUS 1s");
        // Not where the model was sure of the small letter.
        assert_eq!(fixed("sUMMARY", 0.99), "sUMMARY");
        // Capitalised and small words, and words of same-shape letters alone, stay as read.
        assert_eq!(fixed("Los Low cows sow OoO Some", 0.7), "Los Low cows sow OoO Some");
        // Mixed-case words: another small letter says the word is not all capitals.
        assert_eq!(fixed("ReCord macOS", 0.7), "ReCord macOS");
    }

    #[test]
    fn a_small_l_in_a_capital_word_reads_i_and_a_capital_i_in_a_small_word_reads_l() {
        let fixed = case_fixer("A\nB\nC\nF\nG\nI\nS\nT\na\ng\ni\nk\nl\nm\n5", |_| Some(1.0));
        assert_eq!(fixed("FBl AGSl 5mI miIk", 0.7), "FBI AGSI 5ml milk");
        // Not where the model was sure, nor a word's first letter, nor in words that do not
        // say their case: a capital word's I's, an acronym, a capitalised word, a numeral.
        assert_eq!(fixed("FBl miIk", 0.99), "FBl miIk");
        assert_eq!(fixed("Ill AII AIIB AgSCI II lI", 0.7), "Ill AII AIIB AgSCI II lI");
    }

    #[test]
    fn same_shape_capitals_read_in_small_words_become_small_where_their_ink_stands_small() {
        let dictionary = "B\nC\nF\nJ\nM\nO\nS\nW\nX\nZ\na\nb\nc\ne\ng\no\nr\ns\nt\nv\nw\nx\nz";
        // tabula's AnimalSounds: the capitals' ink stands as low as the o's.
        let fixed = case_fixer(dictionary, |_| Some(0.0));
        assert_eq!(fixed("MeoW FoX bzzZZZzZ BoX", 0.7), "Meow Fox bzzzzzzz Box");
        // A first letter too, and one beside another capital, standing as low ("LOCATE
        // Controls", mixedfonts' "uVWxyZAB").
        assert_eq!(fixed("Controls Wow sOX BoXMa", 0.7), "controls wow sox BoxMa");
        // Not where the model was sure, nor in a word without a small letter (small capitals).
        assert_eq!(fixed("Ox MeoW BoXMa sOX", 0.99), "Ox MeoW BoXMa sOX");
        assert_eq!(fixed("XO SOX", 0.7), "XO SOX");
        // Camel case: the model read the capital, and its ink stands taller.
        let camel = case_fixer(dictionary, |c| Some(if c == 'S' || c == 'O' { 1.0 } else { 0.0 }));
        assert_eq!(camel("JavaScript MoX AgSO", 0.7), "JavaScript Mox AgSO");
        // Standing between, a capital past a small word's first letter goes by the nearer
        // height; a first letter, or one beside capitals, stays.
        let between = case_fixer(dictionary, |c| Some(if c.is_uppercase() { 0.4 } else { 0.0 }));
        assert_eq!(between("MeoW Wow BoXMa", 0.7), "Meow Wow BoXMa");
    }

    #[test]
    fn same_shape_small_letters_in_words_without_other_small_letters_become_capitals_where_their_ink_stands_tall() {
        let dictionary = "A\nC\nD\nE\nO\nR\nS\nV\nc\ne\nl\no\ns\nt\nv\n2";
        // federal-register's "ADDREsSES" (the model gave "S" 0.019), eu-001's "(co2)", us-034's
        // "Cv": every letter's ink stands as tall as a capital's.
        let tall = case_fixer(dictionary, |_| Some(1.0));
        assert_eq!(tall("ADDREsSES (co2) Cv", 0.98), "ADDRESSES (CO2) CV");
        // Not a small letter in a word with another small letter, nor a small l (ink does not
        // tell it from I), nor where the model gave the capital next to nothing.
        assert_eq!(tall("Cvt ol", 0.98), "Cvt ol");
        assert_eq!(tall("(co2)", 0.999), "(co2)");
        // Ink standing with the small letters, or taller than the tall letters (joined to a
        // neighbour), leaves them.
        assert_eq!(case_fixer(dictionary, |_| Some(0.0))("(co2) Cv", 0.98), "(co2) Cv");
        assert_eq!(case_fixer(dictionary, |_| Some(1.3))("(co2) Cv", 0.98), "(co2) Cv");
    }

    #[test]
    fn a_full_stop_the_model_gave_some_probability_between_two_figures_is_a_candidate() {
        let classes = classes("0\n1\n.\na");
        let at = |ch: char, step: usize| Decoded { ch, first_step: step, last_step: step, confidence: 0.9 };
        // "1", a blank step where "." has `p`, "0"; the stop's class is 3.
        let probs = |p: f32| {
            let mut rows = one_hot(&[2, 0, 1], classes.len());
            rows[classes.len() + 3] = p;
            rows
        };
        let decoded = [at('1', 0), at('0', 2)];
        assert_eq!(separators_passed_by(&decoded, &probs(0.37), 3, &classes), [(1, 1, 0.37)]);
        assert!(separators_passed_by(&decoded, &probs(0.05), 3, &classes).is_empty());
        // Only between figures.
        let decoded = [at('a', 0), at('0', 2)];
        assert!(separators_passed_by(&decoded, &probs(0.37), 3, &classes).is_empty());
    }

    #[test]
    fn a_spaced_dash_rule_keeps_its_spaces_and_a_dash_run_stays_whole() {
        let at = |ch: char, step: usize| Decoded { ch, first_step: step, last_step: step, confidence: 0.9 };
        let text = |d: Vec<Decoded>| space_spaced_marks(d, 8.0).iter().map(|d| d.ch).collect::<String>();
        // 8 input pixels a step: a rule's dashes 0.8 line heights (4.8 steps) apart, a run's 0.4.
        assert_eq!(text(vec![at('-', 0), at('-', 5), at('-', 10), at('x', 15)]), "- - -x");
        assert_eq!(text(vec![at('-', 0), at('-', 2), at('-', 4)]), "---");
        assert_eq!(text(vec![at('l', 0), at('l', 6), at('.', 12), at(',', 18)]), "ll.,");
    }

    #[test]
    fn a_likely_space_in_a_blank_gap_is_kept_an_unlikely_one_is_not() {
        let classes = classes("a\nb");
        let space = classes.len() - 1;
        // a, a blank step where the space has `ps`, b.
        let probs = |ps: f32| {
            let mut rows = one_hot(&[1, 0, 2], classes.len());
            rows[classes.len() + space] = ps;
            rows
        };
        let text = |ps: f32| ctc_greedy(&probs(ps), 3, &classes, &no_ink()).iter().map(|d| d.ch).collect::<String>();
        assert_eq!(text(0.3), "a b");
        assert_eq!(text(0.05), "ab");
        // Never before the first character nor doubled beside a decoded space.
        let mut rows = one_hot(&[0, 1, 0, 3, 2], classes.len());
        rows[space] = 0.3;
        rows[2 * classes.len() + space] = 0.3;
        assert_eq!(ctc_greedy(&rows, 5, &classes, &no_ink()).iter().map(|d| d.ch).collect::<String>(), "a b");
    }

    #[test]
    fn a_half_seen_space_is_kept_where_the_crop_is_blank_as_wide_as_a_space_a_seen_one_anywhere() {
        let classes = classes("a\nb");
        let space = classes.len() - 1;
        // a, a gap step, b; 8 columns a step, ink 24 high in a's columns 0..6 and b's from `b_at`.
        let gaps = |b_at: usize| InkGaps {
            crop: None,
            ink: OnceCell::from((0..24).map(|x| if x < 6 || x >= b_at { 24 } else { 1 }).collect::<Vec<_>>()),
            step_px: 8.0,
        };
        let read = |gap_step: &[usize], ps: f32, b_at: usize| {
            let mut rows = one_hot(&[1, gap_step[0], 2], classes.len());
            rows[classes.len() + space] = ps;
            ctc_greedy(&rows, 3, &classes, &gaps(b_at)).iter().map(|d| d.ch).collect::<String>()
        };
        // Half-seen: 8 blank columns of a 48-high crop are a space, 4 (letter spacing) are not.
        assert_eq!(read(&[0], 0.3, 14), "a b");
        assert_eq!(read(&[0], 0.3, 10), "ab");
        // On the greedy path the model saw it: kept whatever the ink.
        assert_eq!(read(&[space], 0.9, 10), "a b");
    }

    #[test]
    fn a_lines_ends_move_to_where_its_ink_starts_and_stops() {
        // Glyphs in columns 5..12 and 30..41, a rule across the line (4 pixels in every
        // column) and one beside it in columns 44..48.
        let columns = (0..48).map(|x| match x {
            5..12 | 30..41 => 20,
            44.. => 48,
            _ => 4,
        });
        let gaps = InkGaps { crop: None, ink: OnceCell::from(glyph_ink(columns.collect())), step_px: 8.0 };
        // Ends that fall in blank move in to the spans' ink; ends inside ink move out to its edges.
        assert_eq!(gaps.ink_ends(0..8, 32..48), (5, 41));
        assert_eq!(gaps.ink_ends(8..16, 24..36), (5, 41));
        // A span without ink keeps its end.
        assert_eq!(gaps.ink_ends(14..20, 42..44), (14, 44));
    }

    #[test]
    fn a_half_seen_space_before_a_full_stop_or_comma_is_not_kept() {
        let classes = classes("a\n.\n,");
        let space = classes.len() - 1;
        for (mark, want) in [(2, "a."), (3, "a,")] {
            let mut rows = one_hot(&[1, 0, mark], classes.len());
            rows[classes.len() + space] = 0.4;
            assert_eq!(ctc_greedy(&rows, 3, &classes, &no_ink()).iter().map(|d| d.ch).collect::<String>(), want);
        }
    }

    #[test]
    fn latin_reads_blank_space_latin_greek_and_symbols_but_no_east_asian_characters() {
        let classes = classes("a\n中\n，\né\nα\nか\n€\n한");
        assert_eq!(kept_classes(&classes, Script::All), (0..classes.len()).collect::<Vec<_>>());
        let latin: String = kept_classes(&classes, Script::Latin).into_iter().map(|i| classes[i]).collect();
        assert_eq!(latin, "\0aéα€ ");
    }

    #[test]
    fn cjk_reads_every_class_of_its_own_recognition_model() {
        let classes = classes("a\n中\nか\n한");
        assert_eq!(kept_classes(&classes, Script::Cjk), (0..classes.len()).collect::<Vec<_>>());
        assert_eq!(Script::Cjk.model_file(ModelKind::Recognition), CJK_RECOGNITION_FILE);
        assert_eq!(Script::Cjk.model_file(ModelKind::Detection), ModelKind::Detection.file_name());
        assert_eq!(Script::Latin.model_file(ModelKind::Recognition), ModelKind::Recognition.file_name());
    }

    #[test]
    fn kept_class_probabilities_are_renormalised_per_step() {
        let probs = [0.5, 0.25, 0.25, 0.1, 0.8, 0.1];
        let kept = fold_class_probabilities(&probs, 2, &kept_into(&[0, 2], 3), 2);
        let want = [2.0 / 3.0, 1.0 / 3.0, 0.5, 0.5];
        assert!(kept.iter().zip(want).all(|(k, w)| (k - w).abs() < 1e-6), "{kept:?}");
    }

    #[test]
    fn folded_classes_count_full_width_forms_towards_their_latin_ones_and_drop_the_rest() {
        let classes = classes("-\n一\n：\n:\n；");
        let (kept, into) = folded_classes(&classes, Script::Latin);
        assert_eq!(kept, [0, 1, 4, 6]);
        // "；" has no Latin ";" to count towards.
        assert_eq!(into, [Some(0), Some(1), None, Some(2), Some(2), None, Some(3)]);
        let probs = [0.1, 0.2, 0.3, 0.2, 0.1, 0.1, 0.0];
        let folded = fold_class_probabilities(&probs, 1, &into, kept.len());
        let want = [0.1 / 0.6, 0.2 / 0.6, 0.3 / 0.6, 0.0];
        assert!(folded.iter().zip(want).all(|(f, w)| (f - w).abs() < 1e-6), "{folded:?}");
    }

    #[test]
    fn full_width_punctuation_becomes_ascii_beside_latin_but_not_beside_chinese() {
        let dec = |s: &str| -> Vec<Decoded> {
            s.chars().enumerate().map(|(i, ch)| Decoded { ch, first_step: i, last_step: i, confidence: 1.0 }).collect()
        };
        let mut latin = dec("Tuesday，January １３");
        latin_width_forms(&mut latin);
        assert_eq!(latin.iter().map(|d| d.ch).collect::<String>(), "Tuesday,January 13");
        let mut chinese = dec("中文，文字");
        latin_width_forms(&mut chinese);
        assert_eq!(chinese.iter().map(|d| d.ch).collect::<String>(), "中文，文字");
    }

    #[test]
    fn crop_straightens_a_rotated_quad() {
        let mut img = RgbImage::from_pixel(40, 40, image::Rgb([255, 255, 255]));
        // A dark left half of the region x 10..30, y 10..20.
        for y in 10..20 {
            for x in 10..20 {
                img.put_pixel(x, y, image::Rgb([0, 0, 0]));
            }
        }
        let q = Quad([[10.0, 10.0], [30.0, 10.0], [30.0, 20.0], [10.0, 20.0]]);
        let c = crop_quad(&img, &q, 20, 10);
        assert_eq!(c.get_pixel(2, 5)[0], 0);
        assert_eq!(c.get_pixel(17, 5)[0], 255);
        // Upside down, the dark half is on the right.
        let c = crop_quad(&img, &q.half_turn(), 20, 10);
        assert_eq!(c.get_pixel(17, 5)[0], 0);
    }

    /// A 48-row line crop on `paper` with blocks of `ink` (x0, y0, x1, y1, exclusive ends):
    /// the line's own glyphs, an i's dot and a comma, and ink of the lines above and below.
    fn line_crop(paper: [u8; 3], ink: [u8; 3]) -> RgbImage {
        let mut crop = RgbImage::from_pixel(60, LINE_HEIGHT as u32, Rgb(paper));
        let blocks = [
            (2, 10, 8, 38),   // a glyph across the middle row
            (12, 16, 18, 38), // a lower-case glyph
            (13, 6, 17, 10),  // its dot, off the edges
            (22, 35, 25, 48), // a comma cut by the bottom edge, from above the baseline
            (30, 0, 36, 5),   // the line above's descender, cut by the top edge
            (44, 42, 50, 48), // the line below's ascender, cut by the bottom edge
        ];
        for (x0, y0, x1, y1) in blocks {
            (x0..x1).for_each(|x| (y0..y1).for_each(|y| crop.put_pixel(x, y, Rgb(ink))));
        }
        crop
    }

    #[test]
    fn ink_of_the_lines_above_and_below_is_painted_out_and_the_lines_own_marks_stay() {
        for (paper, ink) in
            [([255, 255, 255], [0, 0, 0]), ([200, 200, 0], [20, 20, 60]), ([10, 10, 10], [250, 250, 250])]
        {
            let mut crop = line_crop(paper, ink);
            erase_neighbour_ink(&mut crop);
            let at = |x, y| crop.get_pixel(x, y).0;
            for (x, y) in [(4, 24), (14, 30), (14, 8), (23, 46)] {
                assert_eq!(at(x, y), ink, "own ink at ({x}, {y}) on {paper:?}");
            }
            for (x, y) in [(32, 2), (35, 0), (46, 45), (49, 47), (29, 0)] {
                assert_eq!(at(x, y), paper, "a neighbour's ink at ({x}, {y}) on {paper:?}");
            }
        }
    }

    #[test]
    fn a_rule_touching_a_cells_last_glyph_is_painted_out_and_the_glyph_stays() {
        let (paper, ink) = ([255, 255, 255], [0, 0, 0]);
        let mut crop = line_crop(paper, ink);
        // A rule, a glyph touching it, and a rule along the cell's foot that crosses it,
        // touching the glyph's foot; another rule, a full stop and an axis's tick touching it.
        for y in 0..LINE_HEIGHT as u32 {
            let columns = match y {
                12..=37 => 51..56,
                38..=39 => 48..60,
                _ => 54..56,
            };
            let other = if (20..22).contains(&y) { 40..50 } else { 40..42 };
            columns.chain(other).for_each(|x| crop.put_pixel(x, y, Rgb(ink)));
            if (34..38).contains(&y) {
                (37..40).for_each(|x| crop.put_pixel(x, y, Rgb(ink)));
            }
        }
        erase_neighbour_ink(&mut crop);
        let at = |x, y| crop.get_pixel(x, y).0;
        for (x, y) in [(4, 24), (51, 20), (52, 37), (23, 46), (48, 38), (52, 39), (38, 36)] {
            assert_eq!(at(x, y), ink, "own ink, or the foot's rule joined to it, at ({x}, {y})");
        }
        // The rule, the foot's rule's stub beyond it, and the lines above and below, which it
        // no longer joins to the line's own.
        for (x, y) in [(54, 0), (55, 24), (55, 38), (57, 39), (59, 38), (32, 2), (46, 45), (41, 36), (45, 21), (53, 24)]
        {
            assert_eq!(at(x, y), paper, "a rule's or a neighbour's ink at ({x}, {y})");
        }
    }

    #[test]
    fn a_rule_meeting_a_rule_across_the_crop_is_painted_out_with_it() {
        // A table's top row: its top rule across the crop (rows 4 to 6), a column's rule down
        // from it past the bottom edge, a glyph touching that.
        let mut crop = RgbImage::from_pixel(40, LINE_HEIGHT as u32, Rgb([255, 255, 255]));
        for y in 4..LINE_HEIGHT as u32 {
            let columns = match y {
                4..=6 => 0..40,
                14..=37 => 6..12,
                _ => 10..12,
            };
            columns.for_each(|x| crop.put_pixel(x, y, Rgb([0, 0, 0])));
        }
        erase_neighbour_ink(&mut crop);
        assert_eq!(crop.get_pixel(10, 24).0, [255; 3], "the column's rule");
        assert_eq!(crop.get_pixel(7, 24).0, [0; 3], "the glyph touching it");
    }

    #[test]
    fn a_large_letters_stem_filling_a_tight_crop_is_not_a_rule() {
        // issue20930's "B": its stem inks rows 0 to 43 of 48, its bars reach right.
        let mut crop = RgbImage::from_pixel(30, LINE_HEIGHT as u32, Rgb([255, 255, 255]));
        for y in 0..44 {
            let columns = if matches!(y, 0..3 | 20..23 | 41..44) { 4..24 } else { 4..10 };
            columns.for_each(|x| crop.put_pixel(x, y, Rgb([0, 0, 0])));
        }
        let letter = crop.clone();
        erase_neighbour_ink(&mut crop);
        assert_eq!(crop, letter);
    }

    #[test]
    fn a_letter_the_box_took_in_from_the_next_column_is_painted_out() {
        // A line cropped 200 columns wide, 48 high (an em of 32 columns), and `SIDE_PAD` on
        // past each side: the line's eight glyphs 8 wide and 6 apart from its column `first`,
        // and ink in `sides` columns of all three (from the left pad's first).
        fn drawn(first: u32, sides: impl Iterator<Item = u32>) -> (RgbImage, [RgbImage; 2]) {
            let pad = SIDE_PAD as u32;
            let mut wider = RgbImage::from_pixel(200 + 2 * pad, LINE_HEIGHT as u32, Rgb([255, 255, 255]));
            let own = (0..8).flat_map(|k| pad + first + 14 * k..pad + first + 14 * k + 8);
            for x in own.chain(sides) {
                (12..36).for_each(|y| wider.put_pixel(x, y, Rgb([0, 0, 0])));
            }
            let part = |x0: u32, w: u32| image::imageops::crop_imm(&wider, x0, 0, w, LINE_HEIGHT as u32).to_image();
            (part(pad, 200), [part(0, pad), part(pad + 200, pad)])
        }
        let pad = SIDE_PAD as u32;
        // A d cut by the left side, 4 columns of it inside, 26 (0.8 em) from the print; at the
        // right, an "i" the box holds whole, its "s" past the side.
        let (mut crop, pads) = drawn(30, (0..pad + 4).chain(pad + 193..pad + 197).chain(pad + 199..2 * pad + 200));
        erase_next_columns_ink(&mut crop, &pads);
        for (x, y) in [(1, 24), (3, 12), (194, 24), (196, 35)] {
            assert_eq!(crop.get_pixel(x, y).0, [255; 3], "the next column's ink at ({x}, {y})");
        }
        for (x, y) in [(31, 24), (135, 24)] {
            assert_eq!(crop.get_pixel(x, y).0, [0; 3], "own ink at ({x}, {y})");
        }
        // A "1" the right side cuts, its full stop's gap at the pad's last column and its "0"
        // beyond the pad: the full stop past the side tells the next column's print.
        let (mut crop, pads) = drawn(14, (pad + 196..pad + 200).chain(pad + 202..pad + 206));
        erase_next_columns_ink(&mut crop, &pads);
        assert_eq!(crop.get_pixel(197, 24).0, [255; 3], "the cut figure");
        // Left as they are: a letter a word space from the print, a bullet the box cuts (3
        // columns past its side, none further), ink at a side wider than a letter or two.
        for (kept, pads) in [drawn(14, 0..pad + 4), drawn(30, pad - 3..pad + 6), drawn(70, 0..pad + 40)] {
            let mut crop = kept.clone();
            erase_next_columns_ink(&mut crop, &pads);
            assert_eq!(crop, kept);
        }
    }

    #[test]
    fn a_crop_without_own_glyphs_or_neighbours_is_left_as_it_is() {
        let blank = RgbImage::from_pixel(30, LINE_HEIGHT as u32, Rgb([255, 255, 255]));
        let mut crop = blank.clone();
        erase_neighbour_ink(&mut crop);
        assert_eq!(crop, blank);
        // Ink on the edges alone: nothing tells the line's own glyphs from its neighbours'.
        let mut edges = blank.clone();
        (0..30).for_each(|x| edges.put_pixel(x, 0, Rgb([0, 0, 0])));
        let mut crop = edges.clone();
        erase_neighbour_ink(&mut crop);
        assert_eq!(crop, edges);
    }

    #[test]
    fn a_crop_reaching_past_the_page_samples_the_quads_map_pixel_by_pixel() {
        let img = RgbImage::from_fn(50, 30, |x, y| image::Rgb([(x * 5) as u8, (y * 8) as u8, ((x * y) % 256) as u8]));
        // Skewed, and past the left and bottom edges, where edge pixels repeat.
        let q = Quad([[-6.0, 12.0], [44.0, 4.0], [47.0, 36.0], [-3.0, 41.0]]);
        let (ow, oh) = (37, 13);
        let c = crop_quad(&img, &q, ow, oh);
        let px = |x: f32, y: f32, ch: usize| {
            let (x, y) = (x.clamp(0.0, 49.0) as u32, y.clamp(0.0, 29.0) as u32);
            img.get_pixel(x, y)[ch] as f32
        };
        for oy in 0..oh {
            for ox in 0..ow {
                let [sx, sy] = q.at((ox as f32 + 0.5) / ow as f32, (oy as f32 + 0.5) / oh as f32);
                let (sx, sy) = (sx - 0.5, sy - 0.5);
                let (x0, y0) = (sx.floor(), sy.floor());
                let (fx, fy) = (sx - x0, sy - y0);
                for ch in 0..3 {
                    let top = px(x0, y0, ch) * (1.0 - fx) + px(x0 + 1.0, y0, ch) * fx;
                    let bottom = px(x0, y0 + 1.0, ch) * (1.0 - fx) + px(x0 + 1.0, y0 + 1.0, ch) * fx;
                    let want = top * (1.0 - fy) + bottom * fy;
                    let got = c.get_pixel(ox as u32, oy as u32)[ch] as f32;
                    assert!((got - want).abs() <= 1.0, "({ox}, {oy}) channel {ch}: {got} vs {want}");
                }
            }
        }
    }

    /// Ink columns of words `word` wide with `letter_gap` blank columns inside them every
    /// 8 columns, `word_gap` between them.
    fn words(count: usize, word: usize, letter_gap: usize, word_gap: usize) -> Vec<u32> {
        let mut ink = Vec::new();
        for _ in 0..count {
            ink.extend((0..word).map(|x| if x % 8 < 8 - letter_gap { 20 } else { 0 }));
            ink.extend(std::iter::repeat_n(0, word_gap));
        }
        ink
    }

    #[test]
    fn a_line_wider_than_the_input_is_cut_at_word_gaps_into_as_few_pieces_as_fit() {
        let ink = words(40, 64, 2, 12);
        let pieces = line_pieces(&ink, 700);
        assert_eq!(pieces.first().map(|p| p.start), Some(0));
        assert_eq!(pieces.last().map(|p| p.end), Some(ink.len()));
        // Every cut lies in the second half of the piece it ends.
        assert!(pieces[..pieces.len() - 1].iter().all(|p| p.end - p.start > 350));
        for (a, b) in pieces.iter().zip(&pieces[1..]) {
            assert_eq!(a.end, b.start);
            // Cut in the middle of a word gap, which is a space.
            assert!(ink[b.start - 6..b.start + 6].iter().all(|&c| c == 0), "cut at {}", b.start);
            assert!(b.space_before);
        }
        assert!(pieces.iter().all(|p| p.end - p.start <= 700));
        assert!(!pieces[0].space_before);
        // A line that fits is one piece.
        assert_eq!(line_pieces(&ink[..600], 700), vec![Piece { start: 0, end: 600, space_before: false }]);
    }

    #[test]
    fn text_without_word_gaps_is_cut_between_letters_without_a_space_and_solid_ink_where_it_is_thinnest() {
        // Letters 2 columns apart, no word gaps: cut between letters, no space.
        let ink = words(20, 64, 2, 0);
        let pieces = line_pieces(&ink, 500);
        assert!(pieces.len() >= 3 && pieces.iter().all(|p| p.end - p.start <= 500));
        assert!(pieces[1..].iter().all(|p| !p.space_before && ink[p.start] == 0));
        // No blank column at all: at the thinnest ink of the piece's second half.
        let mut solid = vec![30u32; 1000];
        solid[420] = 5;
        let pieces = line_pieces(&solid, 500);
        assert_eq!(pieces[0].end, 420);
        assert!(pieces.iter().all(|p| p.end - p.start <= 500));
    }

    #[test]
    fn a_cut_in_a_blank_run_holding_a_thin_mark_falls_on_paper_beside_the_mark() {
        // Words, then a blank run of 44 columns (the last word's 14 and 30 more) whose
        // middle ten hold a hyphen-minus two pixels thick (blank by `BLANK_COLUMN_INK`),
        // then more words.
        let mut ink = words(8, 64, 2, 12);
        let dash = ink.len() + 3;
        ink.extend(std::iter::repeat_n(0, 30));
        ink[dash..dash + 10].fill(2);
        ink.extend(words(8, 64, 2, 12));
        let pieces = line_pieces(&ink, 700);
        let cut = pieces[1].start;
        assert!(!(dash..dash + 10).contains(&cut), "cut at {cut}, the mark at {dash}");
        assert_eq!(ink[cut], 0);
    }

    #[test]
    fn orientation_reads_a_long_line_by_its_middle_part_and_a_short_one_whole() {
        let line = |w: f32| Quad([[0.0, 0.0], [w, 0.0], [w, 48.0], [0.0, 48.0]]);
        assert_eq!(orientation_part(&line(700.0)), line(700.0));
        let middle = orientation_part(&line(4000.0)).bounds();
        let long = MAX_ORIENTATION_SQUEEZE * CLS_WIDTH as f32;
        assert!(
            (middle[2] - middle[0] - long).abs() < 1.0 && (middle[0] + middle[2] - 4000.0).abs() < 1.0,
            "{middle:?}"
        );
    }

    #[test]
    fn lines_of_one_direction_flip_together() {
        let right = 0.0;
        let down = std::f32::consts::FRAC_PI_2;
        // Three upside-down lines, one of which the model doubts; one vertical line alone.
        let dirs = upside_down_directions(&upside_down_votes(&[right, right, right, down], &[0.95, 0.3, 0.9, 0.2]));
        assert!(flips(&dirs, right) && flips(&dirs, 0.1));
        assert!(!flips(&dirs, down));
        // Directions no line voted for stay as they are.
        assert!(!flips(&dirs, -down));
    }

    #[test]
    fn a_vote_near_one_half_is_settled_by_reading_the_widest_lines_both_ways() {
        let (right, down) = (0.0, std::f32::consts::FRAC_PI_2);
        // pr-138's rows at 100 dpi: a split vote; a sure one beside it; no line upwards.
        let votes = upside_down_votes(&[right, right, right, down, down], &[0.86, 0.11, 0.71, 0.05, 0.1]);
        assert_eq!(unsure_votes(&votes), [true, false, false, false]);
        assert_eq!(upside_down_directions(&votes), [true, false, false, false]);
        assert!(!unsure_votes(&upside_down_votes(&[right], &[0.85]))[0], "a clear vote is kept");

        let line = |w: f32| Quad([[0.0, 0.0], [w, 0.0], [w, 10.0], [0.0, 10.0]]);
        let quads: Vec<Quad> = (0..ORIENTATION_READERS + 3).map(|i| line(100.0 + i as f32)).collect();
        let vertical = line(500.0).quarter_turn();
        let all: Vec<Quad> = quads.iter().copied().chain([vertical]).collect();
        let readers = orientation_readers(&all, 0);
        let widest: Vec<Quad> = quads.iter().rev().take(ORIENTATION_READERS).copied().collect();
        assert_eq!(readers, widest, "the widest of the direction asked, the vertical line aside");
    }

    #[test]
    fn lines_read_better_turned_by_their_letters_confidence_marks_aside() {
        use crate::test_support::{line, line_of_chars, rect};
        let quad = rect(0.0, 0.0, 100.0, 10.0);
        let upright = [line("dcun", quad, 0.9)];
        let garbled = [line("uunp", quad, 0.6)];
        assert_eq!(
            (reads_better_turned(&garbled, &upright), reads_better_turned(&upright, &garbled)),
            (Some(true), Some(false))
        );
        // An upside-down line reads marks surely ("'" for a comma): they do not count.
        let mut with_marks = line("uunp", quad, 0.6);
        with_marks.chars.extend(line("''", quad, 0.99).chars);
        let with_marks = line_of_chars(quad, with_marks.chars, 0.8);
        let fair = [line("dcun", quad, 0.7)];
        assert_eq!(reads_better_turned(&[with_marks], &fair), Some(true));
        assert_eq!(reads_better_turned(&[], &[line(",", quad, 0.9)]), None, "no letter either way: the vote stands");
    }

    #[test]
    fn a_faint_box_is_text_where_it_reads_two_letters_or_figures_surely() {
        use crate::test_support::{line, line_of_chars, rect};
        let quad = rect(0.0, 0.0, 50.0, 10.0);
        assert!(reads_surely(&line("Total", quad, 0.95)));
        assert!(!reads_surely(&line("Total", quad, 0.8)), "read unsurely");
        assert!(!reads_surely(&line("1", quad, 0.99)), "a lone stroke");
        assert!(!reads_surely(&line("--", quad, 0.99)), "a piece of a rule");
        // One doubtful letter makes it doubtful, a doubtful mark beside does not.
        let mut chars = line("16", quad, 0.99).chars;
        chars.extend(line(".", quad, 0.3).chars);
        assert!(reads_surely(&line_of_chars(quad, chars.clone(), 0.8)));
        chars.extend(line("x", quad, 0.5).chars);
        assert!(!reads_surely(&line_of_chars(quad, chars, 0.8)));
    }

    #[test]
    fn the_widest_lines_of_each_direction_vote() {
        let line = |w: f32| Quad([[0.0, 0.0], [w, 0.0], [w, 10.0], [0.0, 10.0]]);
        let mut quads: Vec<Quad> = (0..ORIENTATION_VOTERS + 5).map(|i| line(20.0 + i as f32)).collect();
        let vertical = line(15.0).quarter_turn();
        quads.insert(3, vertical);
        let voters = orientation_voters(&quads);
        assert_eq!(voters.len(), ORIENTATION_VOTERS + 1);
        assert!(voters.contains(&3), "the one vertical line votes for its direction");
        // The narrowest horizontal lines (the first ones) are left out; page order is kept.
        assert!(!voters.contains(&0) && voters.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn lines_are_read_in_tight_widths_and_marks_on_a_wide_canvas() {
        let line = |w: f32| Quad([[0.0, 0.0], [w, 0.0], [w, 48.0], [0.0, 48.0]]);
        assert_eq!(least_width(&line(20.0), false), REC_MIN_WIDTH);
        assert_eq!(least_width(&line(650.0), false), 672);
        assert_eq!(least_width(&line(20.0), true), MARK_MIN_WIDTH);
        assert_eq!(least_width(&line(330.0), true), 480);
    }

    #[test]
    fn lines_share_a_width_where_another_plan_costs_more_than_the_padding() {
        // Ten lines 640 wide and one 672: one width reads 11×672 + NEW = 7992 columns' worth,
        // two widths 10×640 + 672 + 2×NEW = 8272.
        let mut least = vec![640; 10];
        least.push(672);
        assert_eq!(input_widths(&least), vec![672; 11]);
        // Far apart widths get their own plans: 15×64 + 1600 + 2×NEW against 16×1600 + NEW.
        let mut least = vec![64; 15];
        least.push(1600);
        assert_eq!(input_widths(&least), least);
        // Thirty lines at 640 are worth a plan of their own beside one at 672.
        let mut least = vec![640; 30];
        least.push(672);
        assert_eq!(input_widths(&least), least);
        assert_eq!(input_widths(&[]), Vec::<usize>::new());
    }

    #[test]
    fn a_page_uses_at_most_its_share_of_plans() {
        let least: Vec<usize> = (0..40).map(|i| 64 + 96 * i).flat_map(|w| [w; 20]).collect();
        let widths = input_widths(&least);
        let mut distinct = widths.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), MAX_WIDTHS_PER_PAGE);
        assert!(widths.iter().zip(&least).all(|(w, l)| w >= l));
    }
}
