//! Marks beside detected lines that text detection does not see: DB scores a lone colon, a
//! dash rule or a dot leader too low to keep (scotus-transcript's ": " column and
//! "- - - x" rules). The ink on each detected line's row, outside its lines, is grouped
//! into candidate marks; recognition keeps those it reads surely, as punctuation. A blob
//! alone is kept only where its shape shows a dash or a bullet (each read by its shape:
//! recognition reads a lone bullet as "0" or as nothing, so superscript.pdf's "-" cells and
//! eu-017's bullets were lost, and an en dash as "-") or an upright stroke (a "1" or an "I",
//! kept when recognition reads it so surely). Full stops set evenly on a baseline are a dot
//! leader, read dot by dot (`leader_line`).

use image::RgbImage;

use crate::det::mask_to_components;
use crate::geometry::{Point, Quad, RotatedRect, dot, reading_angle, sub, turn_between};
use crate::rec::{crop_quad, is_mark_char, quad_rows};
use crate::{OcrChar, OcrLine};

/// Lines whose centres are less than this many line heights apart across the text share a row.
const SAME_ROW: f32 = 0.5;
/// ... and whose reading directions differ by less than this (radians, ~3°).
pub(crate) const SAME_DIRECTION: f32 = 0.05;
/// ... where both are at least this many of their heights long: DB tilts a short figure's box
/// by 3° and more (12s0324's "14.1" 2.9°, spreadsheet_no_bounding_frame's "102,8" 3°), and
/// a row of its own at that tilt, stretched across the page, drifts onto the next row's
/// ink (a table's rule read as "—" 100 pt away).
const MIN_DIRECTED_LENGTH: f32 = 3.0;
/// Ink this close to a detected line (row heights) is part of it: glyph edges DB's box cuts.
const COVER_MARGIN: f32 = 0.15;
/// The gaps searched for marks reach this far into the boxes beside them (row heights), so
/// that a mark a box's end cuts by a pixel is seen whole (should_detect_rulings' hyphen after
/// "KINGS CROSS", 1 px inside its box at 200 dpi, touched the gap's end and was taken for a
/// cut glyph's edge); what lies mostly inside stays the line's (`Cover::Box`).
const GAP_REACH: f32 = 0.1;
/// A lone dash in a line's margin is a mark where it stands as a word of its own, with paper
/// this wide on each side (row heights; rules aside): a word space is about a quarter em,
/// 0.17 of a row, where a word's own hyphen touches it (labor's "in-", whose box cut it,
/// 0.05 from its "n").
const DASH_APART: f32 = 0.12;
/// Blobs whose longer side is under this (row heights) are specks: a colon's dot at 150 dpi
/// is ~0.1 of its row, scanner dust at 300 dpi smaller.
const MIN_BLOB: f32 = 0.07;
/// A speck as small as this (row heights) is kept where it is a leader's dot (`is_leader`): a
/// bilevel scan at 200 dpi prints f1040's leaders as 2-pixel dots on 31-pixel rows (0.065),
/// where a pixel of noise measures 0.03.
const LEADER_SPECK_MIN: f32 = 0.05;
/// Blobs wider than this (row heights) are rules, pictures or words, not marks (a dash is
/// half a row wide, an em dash one).
const MAX_BLOB_WIDTH: f32 = 1.2;
/// Blobs this close along the row (row heights) are one mark: a dash rule's dashes are a
/// fixed-pitch character apart (~1.2).
const MAX_GAP: f32 = 1.5;
/// A mark is read with this much room on each side (row heights), as text is in DB's boxes.
const PAD: f32 = 0.3;
/// A lone blob's centre lies this far across its row (fractions of its height from the top):
/// dashes and bullets sit between the baseline and the x-height, a figure's middle near
/// them; ink at a row's edges is a rule's or the next row's.
const LONE_CENTRE: [f32; 2] = [0.3, 0.8];
/// A bullet's diameter in row heights: a text bullet is about a third of an em (a row is 1.5
/// em), a full stop a tenth, and a filled disc larger than half an em is a picture's.
const BULLET_SIZE: [f32; 2] = [0.15, 0.45];
/// A bullet is as wide as high, within this ratio (a dot, not a bar or a stroke): a round one
/// 8 page pixels across set half a pixel off the pixel rows loses its lighter top and bottom
/// rows to the ink level, and birdisland's list bullets at 150 dpi measured 1.38-1.43 so
/// (a hyphen is three times as long as thick or more).
const BULLET_MAX_ASPECT: f32 = 1.5;
/// ... and fills this share of its box: a disc fills π/4 of it, a ring (an "o" or a zero)
/// under half.
const BULLET_MIN_FILL: f32 = 0.65;
/// A dash is at least this long (row heights; a hyphen is about a third of an em) ...
const DASH_MIN_LENGTH: f32 = 0.15;
/// ... at most this thick (row heights; a dash's stroke is under a tenth of an em) ...
const DASH_MAX_THICKNESS: f32 = 0.15;
/// ... and this many times longer than thick: a hyphen 7 × 2 px at 200 dpi samples to 5 × 3
/// in a row's 32 px strip at some phases (should_detect_rulings' "KINGS CROSS -" rows).
const DASH_MIN_ASPECT: f32 = 1.6;
/// Ink at a row's top or bottom edge reaching no further into it than this (row heights) is a
/// neighbouring row's descenders or dots, set tight (12s0324's table): it neither parts the
/// marks beside it nor makes them a picture's.
const NEIGHBOUR_INK: f32 = 0.25;
/// Ink crossing a row from edge to edge no thicker than this (row heights) is a table's rule
/// between cells, which parts marks as text does (a picture's strokes are not that straight)
/// ...
const RULE_MAX_THICKNESS: f32 = 0.15;
/// ... and so is ink up to twice as thick that fills this share of its box, a box's heavy
/// edge (a 2.4 pt border at 150 dpi is 0.2 of its row); a thin rule's antialiased edges fill
/// less.
const RULE_MIN_FILL: f32 = 0.85;
/// A stroke is at least this tall (row heights; a digit or a capital is about a half) ...
const STROKE_MIN_HEIGHT: f32 = 0.35;
/// ... at most this wide (a "1" with its flag and foot is about a fifth) ...
const STROKE_MAX_WIDTH: f32 = 0.25;
/// ... and this many times taller than wide.
const STROKE_MIN_ASPECT: f32 = 1.8;
/// What a stroke alone may be read as: a one, a capital I, a small l, a bar.
const STROKE_READS: [char; 5] = ['1', 'I', 'l', '|', '!'];
/// Recognition must be this sure of a stroke's character: a figure read from stray ink would
/// be a wrong value in a table, where a missing one is only missing.
const STROKE_MIN_CONFIDENCE: f32 = 0.8;
/// A bullet or a dash is read by its shape with this confidence, that of a mark read surely:
/// what rules out dust is the shape and where it lies on a row of text.
const SHAPE_CONFIDENCE: f32 = 0.9;
/// The character a bullet is read as.
pub const BULLET: char = '•';
/// Rows are examined at this height: a colon's dot keeps a few pixels, a 300 dpi row costs
/// a third of its own size.
const STRIP_HEIGHT: usize = 32;
// A strip's rows fit a u64's bits (`is_rule_across`).
const _: () = assert!(STRIP_HEIGHT > 0 && STRIP_HEIGHT <= 64);
/// Ink this close to the image's edge (row heights) is the scan's border.
const BORDER: f32 = 0.5;
/// Spans between lines narrower than this (row heights) hold no mark.
const MIN_GAP: f32 = 0.3;
/// A mark of two blobs or more covers at most this share of its row's band: pictures and
/// halftones are darker (one blob alone is judged by its shape, `lone_shape`).
const MAX_INK: f32 = 0.35;
/// A leader's dot is at most this big (row heights): a full stop's ink is about a tenth of an
/// em, a row 1.2–1.5 em ...
const LEADER_DOT_MAX: f32 = 0.2;
/// ... about as wide as high (a few pixels antialiased) ...
const LEADER_DOT_MAX_ASPECT: f32 = 2.0;
/// ... and centred below mid-row (fractions of its height from the top), on the baseline: a
/// middle dot or a degree sign is no full stop.
const LEADER_DOT_MIN_CENTRE: f32 = 0.55;
/// A leader's dots rise or fall across the row by at most this (row heights) ...
const LEADER_MAX_RISE: f32 = 0.1;
/// ... number at least this many (an ellipsis's three) ...
const LEADER_MIN_DOTS: usize = 3;
/// ... at least this far apart (row heights): full stops set solid are 0.17 of a row apart or
/// more (rotated_page's leaders), where a dotted rule's dots are closer (eu-011's chart
/// gridline, 0.125) ...
const LEADER_MIN_PITCH: f32 = 0.15;
/// ... and are set evenly: each step within this share of a whole number of pitches ...
const LEADER_PITCH_TOLERANCE: f32 = 0.25;
/// ... of at most this many (dots too faint to keep at the page's ink level: 12s0324's
/// six-point leaders, a pixel or two across at 200 dpi, lose one in ten, two in a row).
const LEADER_MAX_STEP: f32 = 3.0;
/// A leader's dots this far apart (row heights) or more had spaces between them: a run of
/// full stops is a quarter em apart (0.19–0.23 of a row), ". . ." twice that (12s0324's 0.37).
const LEADER_SPACED_PITCH: f32 = 0.3;
/// Row heights searched beyond a run of full stops' CTC steps, which place a glyph to within a
/// step (a sixth of a row) or so: a dot the run's steps cut would part the leader.
const DOT_RUN_PAD: f32 = 0.15;
/// A run of full stops recognition read is a leader's where its dots run on within this many
/// rows after it (f1040's leader pitch is 1.06 rows, 12s0324's 0.37); an ellipsis stops.
const DOT_RUN_ON: f32 = 1.2;
/// ... or where its ink holds more dots set wide apart (`LEADER_SPACED_PITCH`) than an
/// ellipsis has (us-001's short leaders end at their line's box, before its figures: "Aged 6
/// and older. . . . .", read "older...."; pdffill-demo's "More Colors..." in a pixel font, its
/// dots split by colour fringes, stays).
const ELLIPSIS_DOTS: usize = 3;
const ELLIPSIS: char = '…';
/// A run of full stops recognition read is a leader's from two dots evenly set: what a
/// leader alone needs three of to tell it from specks, the reading already tells.
const DOT_RUN_MIN_DOTS: usize = 2;
/// The print's side of a page's first ink split holds at most this share of it, tints aside:
/// a page of 8 pt text at 200 dpi inks a tenth, and at a tenth pr-138's dark band (5%) and
/// its print split again at grey 69, so thin that its lines were cut at false gutters.
const MAX_PRINT_SHARE: f32 = 0.2;
/// The page's ink level is taken from every this-many-th pixel, both ways.
const HISTOGRAM_STEP: usize = 4;
/// Recognition must be this sure of a mark (mean probability of its characters other than
/// the spaces between them) for it to be kept, as for detected lines: marks read less surely
/// than words (scotus' colons 0.57–0.95, its dashes 0.44–0.95), and what rules out noise is
/// the shape of the ink and reading it as punctuation (`is_mark`).
const MARK_MIN_CONFIDENCE: f32 = 0.5;

/// Whether recognised characters are a mark: read with `MARK_MIN_CONFIDENCE`, and mostly
/// punctuation or symbols (detection finds words; what it misses are marks, and letters or
/// digits read from stray ink, or from a drawing, are more likely noise).
pub fn is_mark(chars: &[OcrChar]) -> bool {
    let read: Vec<&OcrChar> = chars.iter().filter(|c| c.ch != ' ').collect();
    let n = read.len() as f32;
    let confidence = read.iter().map(|c| c.confidence).sum::<f32>() / n.max(1.0);
    let marks = read.iter().filter(|c| is_mark_char(c.ch)).count() as f32;
    !read.is_empty() && confidence >= MARK_MIN_CONFIDENCE && marks > n / 2.0
}

/// Whether recognised characters are full stops alone, as recognition reads a leader.
pub fn is_read_as_dots(chars: &[OcrChar]) -> bool {
    chars.iter().any(|c| c.ch != ' ') && chars.iter().all(|c| matches!(c.ch, '.' | ELLIPSIS | ' '))
}

/// Whether recognised characters are what a lone stroke is read as: one of `STROKE_READS`,
/// read with `STROKE_MIN_CONFIDENCE`.
pub fn is_stroke(chars: &[OcrChar]) -> bool {
    crate::lone_char(chars).is_some_and(|c| STROKE_READS.contains(&c.ch) && c.confidence >= STROKE_MIN_CONFIDENCE)
}

/// What ink beside the lines is taken for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A mark recognition is to read (kept when `is_mark`).
    Mark,
    /// A bullet, read by its shape (`bullet_line`).
    Bullet,
    /// A dash alone, read by its length (`dash_line`).
    Dash,
    /// A dot leader, read by its dots (`leader_line`).
    Leader,
    /// An upright stroke alone, a "1" or an "I" detection missed (a table's cell, a page
    /// number), read by recognition (kept when `is_stroke`).
    Stroke,
}

/// The line a bullet found in `quad` reads as.
pub fn bullet_line(quad: &Quad) -> OcrLine {
    shape_line(quad, BULLET)
}

/// The line a dash found in `quad` (its ink's length, its row's height) reads as: the dash of
/// that length (`DASHES_BY_LENGTH`).
pub fn dash_line(quad: &Quad) -> OcrLine {
    let length = quad.width() / quad.height().max(f32::EPSILON);
    let dash = DASHES_BY_LENGTH.iter().find(|&&(_, longest)| length <= longest).map_or(EM_DASH, |&(c, _)| c);
    shape_line(quad, dash)
}

fn shape_line(quad: &Quad, ch: char) -> OcrLine {
    let c = OcrChar { ch, quad: *quad, confidence: SHAPE_CONFIDENCE };
    OcrLine {
        quad: *quad,
        text: ch.to_string(),
        chars: vec![c],
        confidence: SHAPE_CONFIDENCE,
        latin: None,
        dashes: Vec::new(),
    }
}

/// A zero's ink is at least this much taller than wide in text faces (about 1.4 in
/// Helvetica's and Times's, 1.6 in Courier's); a ring's, as wide as tall, is within it.
const RING_MAX_ASPECT: f32 = 1.2;
/// ... and at least this share of its line's height (a DB box is about 1.5 times its ink),
/// so that a speck or a degree sign is not taken for one.
const RING_MIN_HEIGHT: f32 = 0.4;
/// A ring's ink lies in a band this share of its box wide along each side, none inside it:
/// a zero's stroke is thicker than a ring's only in bold faces, which are ruled out by shape.
const RING_SIDE: f32 = 0.25;

/// The dashes a lone dash may be, each with the longest (row heights) it is printed at, and
/// an em dash beyond: a hyphen's ink is a quarter to a third of an em, an en dash's half, an
/// em dash's whole.
/// Rows are 1.2–1.5 em high, so the hyphens seen run to 0.28 row heights (Verdana's) and the
/// en dashes from 0.34 (12s0324's, us-001's), the em dashes from 0.78 (us-026's).
/// Recognition does not tell them apart alone: it reads an en dash "-", its strip scaled to
/// the row's height.
const DASHES_BY_LENGTH: [(char, f32); 2] = [('-', 0.31), ('–', 0.6)];
pub(crate) const EM_DASH: char = '—';

/// Whether a detected line read as a lone zero is a ring instead (a punch hole, a drawn
/// circle): its ink, leaving out what touches the line box's edges (a neighbour's), round,
/// along each side of its box and not inside. Recognition reads such a ring "0", surely:
/// birdisland's punch holes 24 times, at 0.94–0.98. A thin grey ring's ink breaks into pieces
/// at the page's ink level, so the pieces are taken together.
pub(crate) fn is_ring_read_as_zero(img: &RgbImage, line: &OcrLine, ink: Ink) -> bool {
    if line.text != "0" {
        return false;
    }
    let s = ink_strip(img, &line.quad, ink, Sampled::Blended);
    let inner = |i: &usize| {
        let (x, y) = (i % s.w, i / s.w);
        x > 0 && y > 0 && x + 1 < s.w && y + 1 < s.h
    };
    let pixels: Vec<(f32, f32)> = mask_to_components(&s.ink, s.w, s.h)
        .into_iter()
        .filter(|c| c.iter().all(inner))
        .flatten()
        .map(|i| ((i % s.w) as f32 + 0.5, (i / s.w) as f32 + 0.5))
        .collect();
    let Some(&(x, y)) = pixels.first() else { return false };
    let [x0, y0, x1, y1] =
        pixels.iter().fold([x, y, x, y], |[a, b, c, d], &(x, y)| [a.min(x), b.min(y), c.max(x), d.max(y)]);
    let (bw, bh) = (x1 - x0 + 1.0, y1 - y0 + 1.0);
    let (sx, sy) = (RING_SIDE * bw, RING_SIDE * bh);
    let on = |side: &dyn Fn(f32, f32) -> bool| pixels.iter().any(|&(x, y)| side(x, y));
    bh >= RING_MIN_HEIGHT * s.h as f32
        && bw.max(bh) <= RING_MAX_ASPECT * bw.min(bh)
        && !on(&|x, y| x > x0 + sx && x < x1 - sx && y > y0 + sy && y < y1 - sy)
        && on(&|x, _| x <= x0 + sx)
        && on(&|x, _| x >= x1 - sx)
        && on(&|_, y| y <= y0 + sy)
        && on(&|_, y| y >= y1 - sy)
}

/// The reading direction of the page's lines long enough for DB's tilt of them to mean
/// something (`MIN_DIRECTED_LENGTH`), or of all where none is.
fn page_angle(quads: &[Quad]) -> f32 {
    if quads.iter().any(is_directed) {
        reading_angle(quads.iter().filter(|q| is_directed(q)))
    } else {
        reading_angle(quads.iter())
    }
}

/// Whether a line is long enough for its box's lean to be its text's (`MIN_DIRECTED_LENGTH`).
fn is_directed(q: &Quad) -> bool {
    q.width() >= MIN_DIRECTED_LENGTH * q.height()
}

/// A row's line turned about its centre to the page's direction `page` where it leans from it
/// by less than `SAME_DIRECTION`: the row is stretched across the image along it, and DB tilts
/// a line by 2° now and then ("Nervous system disorders" in table-curves-example), so that a
/// table's rule 300 px on crossed the row as a staircase of short flat pieces, each a dash.
fn along_the_page(q: &Quad, page: f32) -> Quad {
    if turn_between(q.angle(), page).abs() >= SAME_DIRECTION {
        return *q;
    }
    let axis = [page.cos(), page.sin()];
    RotatedRect { center: q.centre(), axis, width: q.width(), height: q.height() }.quad()
}

/// Lines grouped into rows (indices; the first of each row is its widest line). A line
/// shorter than `MIN_DIRECTED_LENGTH` joins a row by its centre alone.
pub fn lines_to_rows(quads: &[Quad]) -> Vec<Vec<usize>> {
    let mut by_width: Vec<usize> = (0..quads.len()).collect();
    by_width.sort_by(|&a, &b| quads[b].width().total_cmp(&quads[a].width()));
    let mut rows: Vec<Vec<usize>> = Vec::new();
    for i in by_width {
        let (q, c) = (&quads[i], quads[i].centre());
        let directed = is_directed(q);
        let joins = rows.iter_mut().find(|row| {
            let r = &quads[row[0]];
            (!directed || turn_between(q.angle(), r.angle()).abs() < SAME_DIRECTION)
                && r.across(c).abs() < SAME_ROW * r.height()
        });
        match joins {
            Some(row) => row.push(i),
            None => rows.push(vec![i]),
        }
    }
    rows
}

/// A row's widest line stretched along its text across a whole image, with spans along it
/// (fractions of it).
struct Row {
    strip: Quad,
    /// Spans not covered by the detected lines whose centres are on it, away from the
    /// image's edges.
    gaps: Vec<Gap>,
    /// The lines on it, each by index and span (with `COVER_MARGIN`).
    lines: Vec<(usize, [f32; 2])>,
    /// One row height along the strip.
    unit: f32,
}

/// A span of a row between its lines, and how far across the row (strip heights, down
/// positive) the lines beside it sit at its start and its end: a cell's line joins the row
/// of a label set a third of a row above it (eu-001's "10 000" beside "Chlorine and inorganic
/// compounds / (as HCl)"), and the dash cells beside it sit at its height, not the label's.
#[derive(Clone, Copy, Debug)]
struct Gap {
    span: [f32; 2],
    shift: [f32; 2],
}

/// A gap whose lines sit this far across its row (strip heights) is searched at their height
/// too, not only at the row's: a lone mark's centre must lie in the middle of its band
/// (`LONE_CENTRE`). Only too: the line beside it may be a cell's second line set off the row
/// (pr-138's "Rate*"), its row's dashes at the row's height.
const OFF_ROW_SHIFT: f32 = 0.15;

impl Row {
    /// The strip's pieces to search over `gap`: at the row's height, and moved across to the
    /// lines beside it at each end where they sit off it (`OFF_ROW_SHIFT`).
    fn pieces(&self, gap: &Gap) -> Vec<Quad> {
        let [u0, u1] = gap.span;
        let at = |[s0, s1]: [f32; 2]| {
            Quad([
                self.strip.at(u0, s0),
                self.strip.at(u1, s1),
                self.strip.at(u1, 1.0 + s1),
                self.strip.at(u0, 1.0 + s0),
            ])
        };
        let off = gap.shift.iter().any(|s| s.abs() >= OFF_ROW_SHIFT);
        std::iter::once(at([0.0, 0.0])).chain(off.then(|| at(gap.shift))).collect()
    }
}

/// Whether a dash found over `dash` (its ink along, its row's height across) has paper
/// `DASH_APART` on each side along the row, on the page: the gap's strip may begin inside
/// the box before it (`GAP_REACH`), past a letter the dash touches. Only dash-shaped blobs in
/// a line's margin are asked: eu-001's "-" cells, read before, have ink of a cell's edge
/// nearer.
fn stands_apart(img: &RgbImage, dash: &Quad, ink: Ink) -> bool {
    let reach = DASH_APART * dash.height() / dash.width().max(f32::EPSILON);
    let s = ink_strip(img, &dash.slice(-reach, 1.0 + reach), ink, Sampled::KeepingDots);
    let hf = s.h as f32;
    strip_to_blobs(&s).iter().filter(|b| !b.rule_across && !b.is_neighbours(hf)).count() <= 1
}

/// The row of the widest line `r` across the w×h image.
fn row_gaps(quads: &[Quad], r: &Quad, w: u32, h: u32) -> Row {
    let (e, len) = r.axis();
    let u = |p: Point| dot(sub(p, r.0[0]), e) / len;
    let corners = [[0.0, 0.0], [w as f32, 0.0], [0.0, h as f32], [w as f32, h as f32]];
    let (u0, u1) = corners.iter().fold((0.0f32, 1.0f32), |(lo, hi), &p| (lo.min(u(p)), hi.max(u(p))));
    let strip = r.slice(u0, u1);
    let along = |p: Point| (u(p) - u0) / (u1 - u0);
    let on_row = |q: &Quad| r.across(q.centre()).abs() < SAME_ROW * r.height();
    let unit = r.height() / (len * (u1 - u0));
    let own: Vec<(usize, [f32; 2])> = quads
        .iter()
        .enumerate()
        .filter(|(_, q)| on_row(q))
        .map(|(i, q)| {
            let us = q.0.map(along);
            let lo = us.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = us.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (i, [lo, hi])
        })
        .collect();
    let lines = own.iter().map(|&(i, [lo, hi])| (i, [lo - COVER_MARGIN * unit, hi + COVER_MARGIN * unit])).collect();
    // Each line's span, less `GAP_REACH` at each end, and how far across the row it sits; the
    // image's far edge last. Ink in the boxes' margins is told by `Cover`.
    let shift = |i: usize| r.across(quads[i].centre()) / r.height().max(f32::EPSILON);
    let reach = GAP_REACH * unit;
    let mut covered: Vec<([f32; 2], Option<f32>)> =
        own.iter().map(|&(i, [lo, hi])| ([lo + reach, (hi - reach).max(lo + reach)], Some(shift(i)))).collect();
    covered.sort_by(|a, b| a.0[0].total_cmp(&b.0[0]));
    covered.push(([1.0 - BORDER * unit, f32::INFINITY], None));
    let mut gaps = Vec::new();
    let (mut at, mut before) = (BORDER * unit, None);
    for &(c, beside) in &covered {
        if c[0] - at >= MIN_GAP * unit {
            let ends = [before.or(beside), beside.or(before)].map(|s| s.unwrap_or(0.0));
            gaps.push(Gap { span: [at, c[0]], shift: ends });
        }
        if c[1] > at {
            (at, before) = (c[1], beside);
        }
    }
    Row { strip, gaps, lines, unit }
}

/// Otsu's threshold: the grey level that best splits the histogram into ink and paper, the
/// first of those that split it alike (see `otsu_span`). A line's crop is split so: sampled
/// every `HISTOGRAM_STEP`-th pixel, its few hundred greys leave gaps that are no gap in its
/// print, and the glyph rules built on its ink were measured at this level.
pub(crate) fn otsu(hist: &[u64; 256]) -> u8 {
    otsu_span(hist)[0]
}

/// The grey levels that split the histogram into ink and paper best, first and last: where no
/// grey lies between the two sides, every level across the empty stretch splits alike (the
/// same sums, the same variance).
fn otsu_span(hist: &[u64; 256]) -> [u8; 2] {
    let total: u64 = hist.iter().sum();
    let sum_all: f64 = hist.iter().enumerate().map(|(v, &n)| v as f64 * n as f64).sum();
    let (mut below, mut sum_below, mut best, mut span) = (0u64, 0.0f64, -1.0f64, [127u8; 2]);
    for (v, &n) in hist.iter().enumerate() {
        below += n;
        sum_below += v as f64 * n as f64;
        let above = total - below;
        if below == 0 || above == 0 {
            continue;
        }
        let m0 = sum_below / below as f64;
        let m1 = (sum_all - sum_below) / above as f64;
        let between = below as f64 * above as f64 * (m0 - m1) * (m0 - m1);
        if between > best {
            (best, span) = (between, [v as u8; 2]);
        } else if between == best && usize::from(span[1]) + 1 == v {
            span[1] = v as u8;
        }
    }
    span
}

/// The middle of the levels that split a page's greys alike (`otsu_span`): a bilevel scan (a
/// fax, a G4 TIFF) split at its black alone counted only samples wholly on black as ink, so a
/// pixel-wide stroke sampled between pixels was blank (pr-138 binarised at 200 dpi: its small
/// print cut at false gutters inside words, "asso" "ated", at the c and i of "associated").
fn otsu_middle(hist: &[u64; 256]) -> u8 {
    let [first, last] = otsu_span(hist);
    ((u16::from(first) + u16::from(last)) / 2) as u8
}

pub(crate) fn grey(p: &image::Rgb<u8>) -> u8 {
    ((p[0] as u32 * 299 + p[1] as u32 * 587 + p[2] as u32 * 114) / 1000) as u8
}

/// A page's ink: the grey levels on the smaller side of its Otsu split, dark print on paper
/// or light print on a dark ground (a dark-mode screenshot, a negative scan).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ink {
    level: u8,
    dark: bool,
}

impl Ink {
    /// A tint under part of the page (m27's cyan rows, a third of it) falls on the print's
    /// side of the first split; where that side holds more than `MAX_PRINT_SHARE` of the page
    /// and splits again into less print than tint, the print is its part away from the paper.
    pub(crate) fn of_page(img: &RgbImage) -> Ink {
        let hist = grey_histogram(img);
        let total: u64 = hist.iter().sum();
        let level = otsu_middle(&hist);
        let below: u64 = hist[..=level as usize].iter().sum();
        let dark = 2 * below <= total;
        // The greys on the print's side of a split at `at`.
        let print_side = |at: u8| if dark { 0..=at as usize } else { at as usize + 1..=255 };
        let mut print = [0u64; 256];
        print[print_side(level)].copy_from_slice(&hist[print_side(level)]);
        let count: u64 = print.iter().sum();
        let within = otsu_middle(&print);
        let inner: u64 = print[print_side(within)].iter().sum();
        let tinted = count as f32 > MAX_PRINT_SHARE * total as f32 && 2 * inner < count;
        Ink { level: if tinted { within } else { level }, dark }
    }

    pub(crate) fn is(&self, p: &image::Rgb<u8>) -> bool {
        (grey(p) <= self.level) == self.dark
    }

    /// A colour of the ground the ink is on: white under dark print, black under light.
    pub(crate) fn paper(&self) -> image::Rgb<u8> {
        image::Rgb(if self.dark { [255; 3] } else { [0; 3] })
    }
}

/// Grey histogram of every `HISTOGRAM_STEP`-th pixel in both directions.
pub(crate) fn grey_histogram(img: &RgbImage) -> [u64; 256] {
    let mut hist = [0u64; 256];
    for y in (0..img.height()).step_by(HISTOGRAM_STEP) {
        for x in (0..img.width()).step_by(HISTOGRAM_STEP) {
            hist[grey(img.get_pixel(x, y)) as usize] += 1;
        }
    }
    hist
}

/// A straightened piece of a row at `STRIP_HEIGHT`: ink mask, row-major, `w` wide.
struct Strip {
    ink: Vec<bool>,
    w: usize,
    h: usize,
}

/// Which strip pixels are ink.
#[derive(Clone, Copy, PartialEq)]
enum Sampled {
    /// Those whose blend of the page pixels around them is: shapes keep their outlines (a
    /// ring's thin stroke stays clear of its box's edges).
    Blended,
    /// Those too whose page pixel under them is: a dot a pixel or two across blends with the
    /// paper around it short of the ink level where the strip samples between pixels
    /// (12s0324's leaders at 200 dpi lost one dot in three, blended).
    KeepingDots,
}

fn ink_strip(img: &RgbImage, q: &Quad, ink: Ink, sampled: Sampled) -> Strip {
    let h = STRIP_HEIGHT;
    let w = (q.width() * h as f32 / q.height().max(1.0)).round().max(1.0) as usize;
    let rgb = crop_quad(img, q, w, h);
    if sampled == Sampled::Blended {
        return Strip { ink: rgb.pixels().map(|p| ink.is(p)).collect(), w, h };
    }
    // Outside the page the edge pixels repeat, as in `crop_quad`.
    let onto = |v: f32, n: u32| (v.floor() as i64).clamp(0, n.saturating_sub(1) as i64) as u32;
    let on_page =
        |[x, y]: Point| img.get_pixel_checked(onto(x, img.width()), onto(y, img.height())).is_some_and(|p| ink.is(p));
    let mask = quad_rows(q, w, h)
        .zip(rgb.rows())
        .flat_map(|((left, step), row)| {
            row.enumerate().map(move |(x, p)| {
                let t = x as f32 + 0.5;
                ink.is(p) || on_page([left[0] + step[0] * t, left[1] + step[1] * t])
            })
        })
        .collect();
    Strip { ink: mask, w, h }
}

/// A blob of ink in a strip: its box [x0, x1) × [y0, y1) in strip pixels, how many pixels it
/// has, and whether the pixel at its box's centre is ink (a disc's is, a ring's is not).
struct Blob {
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
    pixels: usize,
    solid_centre: bool,
    /// Whether it crosses the strip from edge to edge with a pixel of every row inside one band
    /// `RULE_MAX_THICKNESS` wide: a table's rule, with or without the rule it meets at a
    /// corner (f1040's dot leaders ended at a box's corner, whose ink, 0.4 rows wide, was no
    /// rule by its width and made them part of a picture).
    rule_across: bool,
}

/// The strip's blobs of ink, specks (under `MIN_BLOB`) left out but for a leader's dots
/// (`LEADER_SPECK_MIN`).
fn strip_to_blobs(s: &Strip) -> Vec<Blob> {
    let h = s.h as f32;
    let blobs: Vec<Blob> = mask_to_components(&s.ink, s.w, s.h)
        .into_iter()
        .filter_map(|pixels| {
            let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
            for &i in &pixels {
                let (x, y) = (i % s.w, i / s.w);
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
            let b = Blob {
                x0: x0 as f32,
                y0: y0 as f32,
                x1: (x1 + 1) as f32,
                y1: (y1 + 1) as f32,
                pixels: pixels.len(),
                solid_centre: s.ink[(y0 + y1) / 2 * s.w + (x0 + x1) / 2],
                rule_across: y0 == 0 && y1 + 1 == s.h && is_rule_across(&pixels, s, x0, x1),
            };
            (b.size() >= LEADER_SPECK_MIN * h).then_some(b)
        })
        .collect();
    let speck = |b: &Blob| b.size() < MIN_BLOB * h;
    if !blobs.iter().any(speck) {
        return blobs;
    }
    // A leader's dots among the blobs along the row, as `strip_to_marks` looks for them.
    let mut along: Vec<usize> = (0..blobs.len()).filter(|&i| !blobs[i].is_neighbours(h)).collect();
    along.sort_by(|&a, &b| blobs[a].x0.total_cmp(&blobs[b].x0));
    let refs: Vec<&Blob> = along.iter().map(|&i| &blobs[i]).collect();
    let mut in_leader = vec![false; blobs.len()];
    let mut at = 0;
    for (part, leader) in leaders_apart(&refs, h) {
        if leader {
            along[at..at + part.len()].iter().for_each(|&i| in_leader[i] = true);
        }
        at += part.len();
    }
    blobs.into_iter().zip(in_leader).filter(|(b, leader)| *leader || !speck(b)).map(|(b, _)| b).collect()
}

impl Blob {
    /// Its box's longer side (strip pixels).
    fn size(&self) -> f32 {
        (self.x1 - self.x0).max(self.y1 - self.y0)
    }

    /// Whether it is a neighbouring row's ink (`NEIGHBOUR_INK`) on a strip `h` high.
    fn is_neighbours(&self, h: f32) -> bool {
        self.y0 == 0.0 && self.y1 <= NEIGHBOUR_INK * h || self.y1 == h && self.y0 >= (1.0 - NEIGHBOUR_INK) * h
    }
}

/// Whether a blob's `pixels` spanning columns [x0, x1] of a strip, and all its rows, have a
/// pixel of every row within one band `RULE_MAX_THICKNESS` wide.
fn is_rule_across(pixels: &[usize], s: &Strip, x0: usize, x1: usize) -> bool {
    let band = ((RULE_MAX_THICKNESS * s.h as f32) as usize).max(1);
    if (x1 - x0 + 1) as f32 > MAX_BLOB_WIDTH * s.h as f32 {
        return false;
    }
    // Per column of the box, the rows with ink there, as bits.
    let mut rows = vec![0u64; x1 - x0 + 1];
    for &i in pixels {
        rows[i % s.w - x0] |= 1 << (i / s.w);
    }
    let all = u64::MAX >> (64 - s.h);
    rows.windows(band.min(rows.len())).any(|w| w.iter().fold(0, |acc, r| acc | r) == all)
}

/// What one blob alone on a row of height `h` (strip pixels) is by its shape: a bullet (a
/// filled dot at mid-row), a dash (a flat bar at mid-row) or a stroke (an
/// upright bar as tall as a figure); None for anything else, which alone is as likely dust
/// or part of a drawing.
fn lone_shape(b: &Blob, h: f32) -> Option<Found> {
    let (bw, bh) = (b.x1 - b.x0, b.y1 - b.y0);
    let centre = (b.y0 + b.y1) / 2.0 / h;
    if !(LONE_CENTRE[0]..=LONE_CENTRE[1]).contains(&centre) {
        return None;
    }
    let size = bw.max(bh) / h;
    let fill = b.pixels as f32 / (bw * bh);
    if (BULLET_SIZE[0]..=BULLET_SIZE[1]).contains(&size)
        && bw.max(bh) <= BULLET_MAX_ASPECT * bw.min(bh)
        && fill >= BULLET_MIN_FILL
        && b.solid_centre
    {
        return Some(Found::Bullet);
    }
    if bw >= DASH_MIN_LENGTH * h && bh <= DASH_MAX_THICKNESS * h && bw >= DASH_MIN_ASPECT * bh {
        return Some(Found::Dash);
    }
    (bh >= STROKE_MIN_HEIGHT * h && bw <= STROKE_MAX_WIDTH * h && bh >= STROKE_MIN_ASPECT * bw).then_some(Found::Stroke)
}

/// What lies under a point of a row's strip: a detected line's box, the margin around a
/// line on the row (`COVER_MARGIN`), or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cover {
    Box,
    /// Ink here is the line's, glyph edges DB's box cut, unless a whole dash's:
    /// should_detect_rulings' "KINGS CROSS -" has its hyphen 0.25 of a row after the box,
    /// inside the margin, and a rule 2 px after it.
    Margin,
    Paper,
}

/// Mark spans (fractions along the strip) and what each is: blobs of ink grouped along the
/// row where they are close, split by detected text (`cover` at a blob's centre, in strip
/// pixels: a box, or its margin but for a dash standing `apart`). A group is a mark when every blob in it is mark-sized and inside the row: ink
/// crossing the row's edges, or too wide, belongs to a picture, a rule or another row, and so
/// does what is grouped with it (strokes of an engraving beside a column of text), unless it
/// is a rule across the row. A group of one blob is kept only for its shape (`lone_shape`); a
/// bullet's or a dash's span is its ink's, a mark's or a stroke's has room to be read in.
fn strip_to_marks(
    s: &Strip,
    cover: impl Fn(f32, f32) -> Cover,
    apart: impl Fn(&Blob) -> bool,
) -> Vec<([f32; 2], Found)> {
    let (wf, hf) = (s.w as f32, s.h as f32);
    let mut blobs = strip_to_blobs(s);
    blobs.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    // Runs of blobs close along the row, parted by text and rules.
    let mut runs: Vec<Run> = Vec::new();
    let mut split = true;
    for b in blobs.iter().filter(|b| !b.is_neighbours(hf)) {
        let crossing = b.y0 == 0.0 && b.y1 == hf;
        let heavy_edge = crossing
            && b.x1 - b.x0 <= 2.0 * RULE_MAX_THICKNESS * hf
            && b.pixels as f32 >= RULE_MIN_FILL * (b.x1 - b.x0) * hf;
        // Ink the strip's ends cut is a detected line's, which DB's box cut.
        let cut = b.x0 == 0.0 || b.x1 == wf;
        let text = match cover((b.x0 + b.x1) / 2.0, (b.y0 + b.y1) / 2.0) {
            Cover::Box => true,
            Cover::Margin => lone_shape(b, hf) != Some(Found::Dash) || !apart(b),
            Cover::Paper => false,
        };
        if cut || b.rule_across || heavy_edge || text {
            split = true;
            continue;
        }
        let mark = b.y0 > 0.0 && b.y1 < hf && b.x1 - b.x0 <= MAX_BLOB_WIDTH * hf;
        match runs.last_mut() {
            Some(r) if !split && b.x0 - r.end <= MAX_GAP * hf => {
                r.blobs.push(b);
                r.end = r.end.max(b.x1);
                r.all_marks &= mark;
            }
            _ => runs.push(Run { blobs: vec![b], end: b.x1, all_marks: mark }),
        }
        split = false;
    }
    let ink_in = |g: [f32; 2]| {
        let (x0, x1) = (g[0] as usize, (g[1] as usize).min(s.w));
        (0..s.h).map(|y| s.ink[y * s.w + x0..y * s.w + x1].iter().filter(|&&i| i).count()).sum::<usize>() as f32
            / ((x1 - x0).max(1) * s.h) as f32
    };
    let padded = |g: [f32; 2]| [((g[0] - PAD * hf) / wf).max(0.0), ((g[1] + PAD * hf) / wf).min(1.0)];
    let runs: Vec<Run> = runs.into_iter().filter(|r| r.all_marks).collect();
    runs.iter()
        .flat_map(|r| leaders_apart(&r.blobs, hf))
        .filter_map(|(blobs, leader)| {
            let span = [blobs[0].x0, blobs.iter().map(|b| b.x1).fold(0.0, f32::max)];
            let ink = [span[0] / wf, span[1] / wf];
            if leader {
                return Some((ink, Found::Leader));
            }
            match blobs {
                // One blob alone is as likely dust as a mark (a colon has two): it is judged by
                // its shape (`lone_shape`), and a stroke fills its own columns.
                [b] => match lone_shape(b, hf)? {
                    Found::Stroke => Some((padded(span), Found::Stroke)),
                    found @ (Found::Bullet | Found::Dash) => Some((ink, found)),
                    Found::Mark | Found::Leader => None,
                },
                _ => (ink_in(span) <= MAX_INK).then(|| (padded(span), Found::Mark)),
            }
        })
        .collect()
}

/// Blobs of ink in a strip grouped along it: the run's blobs from the left, where its ink ends,
/// and whether every blob in it can be part of a mark.
struct Run<'a> {
    blobs: Vec<&'a Blob>,
    end: f32,
    all_marks: bool,
}

/// A run's blobs parted into its dot leaders (`is_leader`, true) and the stretches between
/// them: a table of contents' leader runs up to its page number, which DB may miss.
fn leaders_apart<'a>(blobs: &'a [&'a Blob], h: f32) -> Vec<(&'a [&'a Blob], bool)> {
    let mut parts: Vec<(std::ops::Range<usize>, bool)> = Vec::new();
    let mut i = 0;
    while i < blobs.len() {
        let dots = i + blobs[i..].iter().take_while(|b| is_dot(b, h)).count();
        if is_leader(&blobs[i..dots], h, LEADER_MIN_DOTS) {
            parts.push((i..dots, true));
            i = dots;
            continue;
        }
        let end = dots.max(i + 1);
        match parts.last_mut() {
            Some((r, false)) => r.end = end,
            _ => parts.push((i..end, false)),
        }
        i = end;
    }
    parts.into_iter().map(|(r, leader)| (&blobs[r], leader)).collect()
}

/// Whether a blob on a row of height `h` (strip pixels) may be a leader's dot: a full stop's
/// size and shape, on the baseline.
fn is_dot(b: &&Blob, h: f32) -> bool {
    let (bw, bh) = (b.x1 - b.x0, b.y1 - b.y0);
    bw.max(bh) <= LEADER_DOT_MAX * h
        && bw.max(bh) <= LEADER_DOT_MAX_ASPECT * bw.min(bh)
        && (b.y0 + b.y1) / 2.0 >= LEADER_DOT_MIN_CENTRE * h
}

/// Whether a run of blobs on a row of height `h` (strip pixels) is a dot leader: at least
/// `min_dots` full stops on one baseline, evenly spaced (`leader_pitch`) at a full stop's
/// pitch or wider (`LEADER_MIN_PITCH`).
fn is_leader(blobs: &[&Blob], h: f32, min_dots: usize) -> bool {
    let centres: Vec<f32> = blobs.iter().map(|b| (b.y0 + b.y1) / 2.0).collect();
    let rise = centres.iter().copied().fold(f32::NEG_INFINITY, f32::max)
        - centres.iter().copied().fold(f32::INFINITY, f32::min);
    blobs.len() >= min_dots
        && blobs.iter().all(|b| is_dot(b, h))
        && rise <= LEADER_MAX_RISE * h
        && leader_pitch(blobs.iter().map(|b| (b.x0 + b.x1) / 2.0)).is_some_and(|p| p >= LEADER_MIN_PITCH * h)
}

/// The pitch of dots at `centres` (left to right) set evenly, the median step, where every
/// step is a whole number of pitches up to `LEADER_MAX_STEP` (dots too faint to keep at the
/// page's ink level), within `LEADER_PITCH_TOLERANCE`; None for uneven dots.
fn leader_pitch(centres: impl Iterator<Item = f32>) -> Option<f32> {
    let centres: Vec<f32> = centres.collect();
    let mut steps: Vec<f32> = centres.windows(2).map(|w| w[1] - w[0]).collect();
    steps.sort_by(f32::total_cmp);
    let pitch = *steps.get(steps.len() / 2)?;
    let even = |step: &f32| {
        let k = (step / pitch).round();
        (1.0..=LEADER_MAX_STEP).contains(&k) && (step / pitch - k).abs() <= LEADER_PITCH_TOLERANCE
    };
    (pitch > 0.0 && steps.iter().all(even)).then_some(pitch)
}

/// The line the dot leader in `quad` (a row's height) reads as: a full stop for each dot,
/// with a space between dots set wide apart (`LEADER_SPACED_PITCH`); None where its ink is
/// no leader (`is_leader`). Leaders found beside the lines are read so, and detected lines
/// recognition read as dots alone, which it reads without their spaces and miscounts
/// (12s0324's "Total ....", ". . . . . . . . ." in its text layer).
pub fn leader_line(img: &RgbImage, quad: &Quad, ink: Ink) -> Option<OcrLine> {
    leader_of(img, quad, ink, LEADER_MIN_DOTS)
}

/// The line a dot leader of at least `min_dots` dots in `quad` reads as (see `leader_line`).
fn leader_of(img: &RgbImage, quad: &Quad, ink: Ink, min_dots: usize) -> Option<OcrLine> {
    let s = ink_strip(img, quad, ink, Sampled::KeepingDots);
    let (wf, hf) = (s.w as f32, s.h as f32);
    let blobs = strip_to_blobs(&s);
    // Ink past the quad's ends other than a dot is a rule along the row or a neighbour's, as
    // `strip_to_marks` takes it (a table's rule under 12s0324's leaders).
    let past_the_ends = |b: &Blob| (b.x0 == 0.0 || b.x1 == wf) && !is_dot(&b, hf);
    let mut dots: Vec<&Blob> = blobs.iter().filter(|b| !b.is_neighbours(hf) && !past_the_ends(b)).collect();
    dots.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    if !is_leader(&dots, hf, min_dots) {
        return None;
    }
    let spans: Vec<[f32; 2]> = dots.iter().map(|d| [d.x0, d.x1]).collect();
    let pitch = leader_pitch(spans.iter().map(|d| (d[0] + d[1]) / 2.0));
    // Dots missed between two are put back evenly between them, as wide as the two's mean.
    let spans: Vec<[f32; 2]> = match pitch {
        Some(p) => spans
            .windows(2)
            .flat_map(|w| {
                let (a, b) = (w[0], w[1]);
                let (from, to) = ((a[0] + a[1]) / 2.0, (b[0] + b[1]) / 2.0);
                let steps = ((to - from) / p).round().max(1.0);
                let half = (a[1] - a[0] + b[1] - b[0]) / 4.0;
                let missed = (1..steps as usize).map(move |k| from + (to - from) * k as f32 / steps);
                std::iter::once(a).chain(missed.map(move |x| [x - half, x + half]))
            })
            .chain(spans.last().copied())
            .collect(),
        None => spans,
    };
    let spaced = pitch.is_some_and(|p| p >= LEADER_SPACED_PITCH * hf);
    let char_at =
        |ch, [x0, x1]: [f32; 2]| OcrChar { ch, quad: quad.slice(x0 / wf, x1 / wf), confidence: SHAPE_CONFIDENCE };
    let mut chars = Vec::with_capacity(2 * spans.len());
    for (i, &d) in spans.iter().enumerate() {
        if spaced && i > 0 {
            chars.push(char_at(' ', [spans[i - 1][1], d[0]]));
        }
        chars.push(char_at('.', d));
    }
    (!chars.is_empty()).then(|| OcrLine {
        quad: *quad,
        text: chars.iter().map(|c| c.ch).collect(),
        chars,
        confidence: SHAPE_CONFIDENCE,
        latin: None,
        dashes: Vec::new(),
    })
}

/// Runs of two or more full stops recognition read inside a detected line, re-read by their
/// ink as `leader_line` reads a leader: where DB boxed a leader's first dots with its label,
/// recognition read them without their spaces and miscounted ("Arson..", "Fraud..." for
/// 12s0324's "Arson . . .", "Fraud . . ."). A run whose ink is no leader, or an ellipsis (three
/// dots that stop with it: "More Lines..." in pdffill-demo's screenshot, its dots set wide in a
/// pixel font), keeps its reading.
pub fn dot_runs_to_leaders(img: &RgbImage, line: &mut OcrLine, ink: Ink) {
    let (w, h) = (line.quad.width().max(1.0), line.quad.height());
    // Where a character's quad starts and ends along the line, as fractions of it.
    let along = |p: Point| (line.quad.in_frame(p)[0] * h / w).clamp(0.0, 1.0);
    let pad = DOT_RUN_PAD * h / w;
    let mut chars = Vec::with_capacity(line.chars.len());
    let mut i = 0;
    while i < line.chars.len() {
        let (run, dots_read) = dot_run(&line.chars[i..]);
        if dots_read >= 2 {
            let (first, last) = (&line.chars[i], &line.chars[i + run - 1]);
            let (a, b) = ((along(first.quad.0[0]) - pad).max(0.0), (along(last.quad.0[1]) + pad).min(1.0));
            let dots = |b: f32| {
                let leader = leader_of(img, &line.quad.slice(a, b), ink, DOT_RUN_MIN_DOTS);
                leader.map(|l| (l.chars.iter().filter(|c| c.ch == '.').count(), l))
            };
            // The leader runs on past the run, beyond the line's box too, or holds more dots
            // set wide than an ellipsis (which stops).
            if let Some((n, leader)) = dots(b)
                && (n > ELLIPSIS_DOTS && is_spaced(&leader)
                    || dots(b + DOT_RUN_ON * h / w).is_some_and(|(more, _)| more > n))
            {
                chars.extend(leader.chars);
                i += run;
                continue;
            }
        }
        let n = run.max(1);
        chars.extend_from_slice(&line.chars[i..i + n]);
        i += n;
    }
    line.text = chars.iter().map(|c| c.ch).collect();
    line.chars = chars;
}

/// How many of `chars`, from the first, recognition read as a run of full stops or
/// ellipses, and the dots they stand for (an ellipsis three). A run holding an ellipsis
/// reaches across single spaces to the next dots: recognition reads a tight leader's first
/// dots as ellipses parted by spaces (rotated_page's "Medicaid … ……." for "Medicaid ......").
fn dot_run(chars: &[OcrChar]) -> (usize, usize) {
    let dots = |from: usize| chars[from..].iter().take_while(|c| matches!(c.ch, '.' | ELLIPSIS)).count();
    let mut end = dots(0);
    while chars[..end].iter().any(|c| c.ch == ELLIPSIS) && chars.get(end).is_some_and(|c| c.ch == ' ') {
        match dots(end + 1) {
            0 => break,
            more => end += 1 + more,
        }
    }
    let read = chars[..end].iter().map(|c| if c.ch == ELLIPSIS { ELLIPSIS_DOTS } else { usize::from(c.ch == '.') });
    (end, read.sum())
}

/// Whether a leader's line (`leader_of`) was read with spaces between its dots.
fn is_spaced(leader: &OcrLine) -> bool {
    leader.chars.iter().any(|c| c.ch == ' ')
}

/// Leaders read beside their lines (`leader_line`) joined to the full stops those lines end
/// with: the dot where DB's box ends is cut by it, too little of it left inside for the
/// line's reading, and the ink beside leaves the box's margin to the line (`COVER_MARGIN`);
/// 12s0324 lost a dot a row so. Where the gap from a line's last full stop to a leader's first
/// dot on its baseline is a whole number of the leader's pitches (up to `LEADER_MAX_STEP`),
/// the dots between are put back at the leader's start.
pub fn leaders_joined(mut lines: Vec<OcrLine>) -> Vec<OcrLine> {
    for i in 0..lines.len() {
        let leader = &lines[i];
        let stops: Vec<&OcrChar> = leader.chars.iter().filter(|c| c.ch == '.').collect();
        if stops.len() < DOT_RUN_MIN_DOTS || leader.chars.iter().any(|c| !matches!(c.ch, '.' | ' ')) {
            continue;
        }
        let (first, dots): (OcrChar, Vec<Point>) = (stops[0].clone(), stops.iter().map(|c| c.quad.centre()).collect());
        // Along and across the leader's quad, in its heights.
        let quad = leader.quad;
        let frame = |p: Point| quad.in_frame(p);
        let Some(pitch) = leader_pitch(dots.iter().map(|&d| frame(d)[0])) else { continue };
        let [start, baseline] = frame(dots[0]);
        let steps_back = |line: &OcrLine| {
            let last = line.chars.iter().rev().find(|c| c.ch != ' ').filter(|c| c.ch == '.')?;
            let [at, across] = frame(last.quad.centre());
            let steps = (start - at) / pitch;
            let k = steps.round();
            ((across - baseline).abs() <= LEADER_MAX_RISE
                && (2.0..=LEADER_MAX_STEP).contains(&k)
                && (steps - k).abs() <= LEADER_PITCH_TOLERANCE)
                .then_some(k as usize)
        };
        let Some(k) = lines.iter().enumerate().filter(|&(j, _)| j != i).filter_map(|(_, l)| steps_back(l)).min() else {
            continue;
        };
        let leader = &mut lines[i];
        let spaced = is_spaced(leader);
        let w = quad.width().max(1.0) / quad.height().max(f32::MIN_POSITIVE);
        let [a, b] = [first.quad.0[0], first.quad.0[1]].map(|p| frame(p)[0] / w);
        let back = |m: usize| pitch * m as f32 / w;
        let mut chars = Vec::with_capacity(2 * k + leader.chars.len());
        for m in (1..k).rev() {
            chars.push(OcrChar { quad: quad.slice(a - back(m), b - back(m)), ..first.clone() });
            if spaced {
                chars.push(OcrChar { ch: ' ', quad: quad.slice(b - back(m), a - back(m - 1)), ..first.clone() });
            }
        }
        chars.append(&mut leader.chars);
        leader.quad = quad.slice(a - back(k - 1), 1.0);
        leader.text = chars.iter().map(|c| c.ch).collect();
        leader.chars = chars;
    }
    lines
}

/// The bullet a detected line spanning [a, b) of a row's strip (fractions) is, where DB boxed
/// one alone: no wider than a mark, holding one blob of ink, bullet-shaped.
fn bullet_in_line(img: &RgbImage, row: &Row, [a, b]: [f32; 2], ink: Ink) -> Option<Quad> {
    if b - a > MAX_BLOB_WIDTH * row.unit {
        return None;
    }
    let piece = row.strip.slice(a.max(0.0), b.min(1.0));
    let s = ink_strip(img, &piece, ink, Sampled::Blended);
    let hf = s.h as f32;
    match strip_to_blobs(&s).as_slice() {
        [blob] if blob.y0 > 0.0 && blob.y1 < hf && lone_shape(blob, hf) == Some(Found::Bullet) => {
            Some(piece.slice(blob.x0 / s.w as f32, blob.x1 / s.w as f32))
        }
        _ => None,
    }
}

/// `found` at `mark` added to what other rows found, unless one of those holds its centre:
/// lines of one row whose boxes lean apart make two rows over the same ink. A leader takes the
/// place of the marks it holds: the other row may have seen too few of its dots to tell it
/// from a mark (12s0324's six-point leaders, their dots a pixel or two across).
fn add_found(marks: &mut Vec<(Quad, Found)>, mark: Quad, found: Found) {
    if found == Found::Leader {
        marks.retain(|(m, f)| *f == Found::Leader || !mark.contains(m.centre()));
    }
    if !marks.iter().any(|(m, _)| m.contains(mark.centre())) {
        marks.push((mark, found));
    }
}

/// Quads of the marks on the rows of the detected (and oriented) lines, and of bullets there,
/// beside the lines or boxed alone by DB as a line of their own (such a line's centre lies in
/// its bullet's quad); `ink`: the page's (`Ink::of_page`).
pub fn marks_beside_lines(img: &RgbImage, quads: &[Quad], ink: Ink) -> Vec<(Quad, Found)> {
    let (w, h) = img.dimensions();
    // Ink within `COVER_MARGIN` of a line on the row is that line's; of a line on another row,
    // only ink inside its box is: DB's boxes are 1.5 em high, and in a table set tight a
    // neighbouring row's box grown reached 12s0324's "–" cells at mid-row.
    let boxed = |q: Quad| (q, q.bounds());
    let own: Vec<(Quad, [f32; 4])> = quads.iter().map(|&q| boxed(q)).collect();
    let grown: Vec<(Quad, [f32; 4])> = quads.iter().map(|q| boxed(q.grown(COVER_MARGIN * q.height()))).collect();
    let holds = |(q, b): &(Quad, [f32; 4]), p: Point| {
        p[0] >= b[0] && p[0] <= b[2] && p[1] >= b[1] && p[1] <= b[3] && q.contains(p)
    };
    let cover = |p: Point, on_row: &[(usize, [f32; 2])]| {
        if own.iter().any(|t| holds(t, p)) {
            Cover::Box
        } else if on_row.iter().any(|&(i, _)| holds(&grown[i], p)) {
            Cover::Margin
        } else {
            Cover::Paper
        }
    };
    let mut marks: Vec<(Quad, Found)> = Vec::new();
    let mut add = |mark: Quad, found| add_found(&mut marks, mark, found);
    let page = page_angle(quads);
    for row in lines_to_rows(quads) {
        let widest = row[0];
        let row = row_gaps(quads, &along_the_page(&quads[widest], page), w, h);
        for piece in row.gaps.iter().flat_map(|gap| row.pieces(gap)) {
            let s = ink_strip(img, &piece, ink, Sampled::KeepingDots);
            let at = |x: f32, y: f32| piece.at(x / s.w as f32, y / s.h as f32);
            let apart = |b: &Blob| stands_apart(img, &piece.slice(b.x0 / s.w as f32, b.x1 / s.w as f32), ink);
            for ([a, b], found) in strip_to_marks(&s, |x, y| cover(at(x, y), &row.lines), apart) {
                add(piece.slice(a, b), found);
            }
        }
        for &(_, span) in row.lines.iter().filter(|&&(i, _)| i != widest) {
            if let Some(bullet) = bullet_in_line(img, &row, span, ink) {
                add(bullet, Found::Bullet);
            }
        }
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{self, disc, paint, rect};

    /// A 400×60 page with one detected line (x 20..200, y 15..45) of glyph-like blobs and a
    /// colon at x 300 on its row.
    /// A w×h page with glyphs 7 px wide every 12 px along each run: its span along x, its
    /// glyphs' top and height.
    fn glyphs(w: u32, h: u32, runs: &[(std::ops::Range<u32>, u32, u32)]) -> RgbImage {
        let mut img = RgbImage::from_pixel(w, h, image::Rgb([250, 250, 250]));
        for (xs, top, height) in runs {
            for x in xs.clone().step_by(12) {
                paint(&mut img, x, *top, 7, *height);
            }
        }
        img
    }

    fn page_with_a_colon() -> (RgbImage, Vec<Quad>) {
        let mut img = glyphs(400, 60, &[(30..190, 20, 18)]);
        paint(&mut img, 300, 22, 4, 4);
        paint(&mut img, 300, 34, 4, 4);
        (img, vec![rect(20.0, 15.0, 200.0, 45.0)])
    }

    #[test]
    fn a_colon_beside_a_detected_line_is_a_mark_a_lone_speck_is_not() {
        let (mut img, lines) = page_with_a_colon();
        paint(&mut img, 370, 28, 3, 3);
        let marks = marks_beside_lines(&img, &lines, Ink::of_page(&img));
        assert_eq!(marks.len(), 1, "{marks:?}");
        assert_eq!(marks[0].1, Found::Mark);
        let [x0, y0, x1, y1] = marks[0].0.bounds();
        assert!(x0 < 300.0 && x1 > 304.0 && x1 < 370.0, "{:?}", marks[0]);
        assert!(y0 <= 16.0 && y1 >= 44.0, "read at the row's height: {:?}", marks[0]);
    }

    /// A page with one detected line (x 20..200, y 15..45, as `page_with_a_colon`) and one
    /// blob drawn on its row by `draw` (x 370..380, apart from the colon): what is found there.
    fn found_beside_a_line(draw: impl Fn(&mut RgbImage)) -> Vec<(Quad, Found)> {
        let (mut img, lines) = page_with_a_colon();
        draw(&mut img);
        marks_beside_lines(&img, &lines, Ink::of_page(&img))
            .into_iter()
            .filter(|(m, _)| m.bounds()[0] > 340.0)
            .collect()
    }

    /// What `found_beside_a_line` finds, asserted to be one `kind` at the row's height: its bounds.
    fn one_found_beside_a_line(draw: impl Fn(&mut RgbImage), kind: Found) -> [f32; 4] {
        let found = found_beside_a_line(draw);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1, kind);
        let [x0, y0, x1, y1] = found[0].0.bounds();
        assert!(y0 <= 16.0 && y1 >= 44.0, "at the row's height: {:?}", found[0].0);
        [x0, y0, x1, y1]
    }

    #[test]
    fn a_lone_dash_at_mid_row_is_a_dash_over_its_ink_at_the_rows_height() {
        let [x0, _, x1, _] = one_found_beside_a_line(|img| paint(img, 370, 29, 10, 3), Found::Dash);
        assert!((369.0..=371.0).contains(&x0) && (379.0..=381.0).contains(&x1), "{x0} {x1}");
    }

    /// What `marks_beside_lines` finds beside `page_with_a_colon`'s line, before the colon,
    /// once `draw` has drawn on it.
    fn found_after_the_line(draw: impl Fn(&mut RgbImage)) -> Vec<Found> {
        let (mut img, lines) = page_with_a_colon();
        draw(&mut img);
        let found = marks_beside_lines(&img, &lines, Ink::of_page(&img));
        found.into_iter().filter(|(m, _)| m.bounds()[0] < 250.0).map(|(_, f)| f).collect()
    }

    #[test]
    fn a_dash_a_lines_box_cuts_by_a_pixel_or_leaves_in_its_margin_is_a_dash_a_glyphs_edge_is_not() {
        // should_detect_rulings' "KINGS CROSS -": the box (x 20..200) ends a pixel into the
        // hyphen, or just before it.
        for x in [199, 202] {
            assert_eq!(found_after_the_line(|img| paint(img, x, 29, 10, 3)), vec![Found::Dash], "at {x}");
        }
        // An upright glyph's edge past the box's end, as DB cuts an "l" or a ")".
        assert_eq!(found_after_the_line(|img| paint(img, 201, 20, 3, 18)), vec![]);
        // A word's own hyphen, two pixels after its last letter (labor's "in-").
        let attached = |img: &mut RgbImage| {
            paint(img, 193, 20, 5, 18);
            paint(img, 200, 29, 6, 3);
        };
        assert_eq!(found_after_the_line(attached), vec![]);
    }

    #[test]
    fn a_tint_under_a_third_of_the_page_is_paper_and_the_print_on_it_ink() {
        // m27's cyan rows: the first split took the tint for ink, and every strip on its rows
        // for one blob. Here a darker tint under two fifths of the page.
        let tint = image::Rgb([120, 175, 175]);
        let mut img = RgbImage::from_pixel(400, 100, image::Rgb([250, 250, 250]));
        for y in 58..100 {
            for x in 0..400 {
                img.put_pixel(x, y, tint);
            }
        }
        for top in [20, 70] {
            for x in (30..190).step_by(12) {
                paint(&mut img, x, top, 7, 18);
            }
        }
        let ink = Ink::of_page(&img);
        assert!(!ink.is(&tint) && !ink.is(&image::Rgb([250, 250, 250])) && ink.is(&image::Rgb([20, 20, 20])));
        // Heavy print, over a fifth of a page, untinted: its glyphs' grey edges (one side each,
        // fewer than their cores, drawn on the histogram's sampling grid) stay ink.
        let edge = image::Rgb([120, 120, 120]);
        let mut heavy = RgbImage::from_pixel(400, 90, image::Rgb([250, 250, 250]));
        for top in [8, 48] {
            for x in (8..380).step_by(24) {
                paint(&mut heavy, x, top, 12, 20);
                for (dx, dy) in (12..16).flat_map(|dx| (0..20).map(move |dy| (dx, dy))) {
                    heavy.put_pixel(x + dx, top + dy, edge);
                }
            }
        }
        assert!(Ink::of_page(&heavy).is(&edge));
    }

    #[test]
    fn a_lone_dash_within_the_next_rows_box_margin_is_still_a_mark() {
        // 12s0324's "–" cells: the row below is set tight, and its figure's box (x 290..340,
        // y 33..63, its ink from y 46) grown by `COVER_MARGIN` reaches the dash at mid-row.
        let mut img = glyphs(400, 90, &[(30..190, 20, 18), (295..335, 46, 14)]);
        paint(&mut img, 300, 29, 10, 3);
        let lines = [rect(20.0, 15.0, 200.0, 45.0), rect(290.0, 33.0, 340.0, 63.0)];
        let found = marks_beside_lines(&img, &lines, Ink::of_page(&img));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1, Found::Dash);
        let [x0, y0, x1, y1] = found[0].0.bounds();
        assert!(x0 <= 301.5 && x1 >= 308.5 && y0 < 29.0 && y1 > 32.0, "{:?}", found[0].0);
    }

    #[test]
    fn a_lone_dash_is_the_dash_its_length_shows_against_its_row() {
        // A line's row 30 px high (y 15..45), a dash on it at x 300.
        let read = |length: u32| {
            let mut img = glyphs(400, 60, &[(30..190, 20, 18)]);
            paint(&mut img, 300, 29, length, 2);
            let found = marks_beside_lines(&img, &[rect(20.0, 15.0, 200.0, 45.0)], Ink::of_page(&img));
            assert_eq!(found.iter().map(|(_, f)| *f).collect::<Vec<_>>(), vec![Found::Dash], "{length}: {found:?}");
            dash_line(&found[0].0).text
        };
        assert_eq!(read(6), "-", "a hyphen, a fifth of its row");
        assert_eq!(read(12), "–", "an en dash, which recognition reads as a hyphen");
        assert_eq!(read(27), "—");
    }

    #[test]
    fn a_ring_read_as_a_zero_is_a_ring_but_a_zero_disc_or_o_is_not() {
        // A 40×40 line box around each shape, on a page of its own.
        let read = |draw: &dyn Fn(&mut RgbImage), text: &str| {
            let mut img = RgbImage::from_pixel(60, 60, image::Rgb([250, 250, 250]));
            draw(&mut img);
            let ink = Ink::of_page(&img);
            is_ring_read_as_zero(&img, &crate::test_support::line(text, rect(10.0, 10.0, 50.0, 50.0), 0.97), ink)
        };
        let ring = |img: &mut RgbImage| disc(img, 30.0, 30.0, 28.0, Some(3.0));
        assert!(read(&ring, "0"));
        assert!(!read(&ring, "O"), "a letter O is left as read");
        // A thin ring broken into arcs (a grey one at the page's ink level), beside a table's
        // rule along the box's edge.
        let broken = |img: &mut RgbImage| {
            disc(img, 30.0, 30.0, 28.0, Some(2.0));
            for y in 0..60u32 {
                for x in 0..60u32 {
                    let angle = (y as f32 - 29.5).atan2(x as f32 - 29.5).to_degrees() + 180.0;
                    if angle % 45.0 < 10.0 {
                        img.put_pixel(x, y, image::Rgb([250, 250, 250]));
                    }
                }
            }
            paint(img, 10, 5, 2, 50);
        };
        assert!(read(&broken, "0"));
        assert!(!read(&|img: &mut RgbImage| disc(img, 30.0, 30.0, 28.0, None), "0"));
        // A zero's oval, 1.45 times taller than wide.
        let zero = |img: &mut RgbImage| {
            for y in 0..60u32 {
                for x in 0..60u32 {
                    let (u, v) = ((x as f32 + 0.5 - 30.0) / 10.0, (y as f32 + 0.5 - 30.0) / 14.5);
                    let r = (u * u + v * v).sqrt();
                    if (0.78..=1.0).contains(&r) {
                        img.put_pixel(x, y, image::Rgb([20, 20, 20]));
                    }
                }
            }
        };
        assert!(!read(&zero, "0"));
    }

    #[test]
    fn a_lone_filled_dot_at_mid_row_is_a_bullet_bounded_by_its_ink() {
        let [x0, _, x1, _] = one_found_beside_a_line(|img| disc(img, 375.0, 31.0, 9.0, None), Found::Bullet);
        assert!((369.0..=373.0).contains(&x0) && (377.0..=381.0).contains(&x1), "{x0} {x1}");
        // One whose lighter top and bottom rows fell under the ink level: birdisland's list
        // bullets at 150 dpi, 10 by 7 strip pixels.
        one_found_beside_a_line(|img| paint(img, 371, 28, 9, 7), Found::Bullet);
    }

    #[test]
    fn a_lone_tick_speck_or_dash_at_a_rows_edge_is_not_a_mark_nor_a_ring_a_bullet() {
        for stroke in [2.0, 3.0] {
            let found = found_beside_a_line(|img| disc(img, 375.0, 31.0, 10.0, Some(stroke)));
            assert!(found.iter().all(|(_, f)| *f == Found::Mark), "a ring of {stroke}: {found:?}");
        }
        for (what, [x, y, w, h]) in
            [("tick", [375, 26, 3, 8]), ("speck", [375, 29, 3, 3]), ("dash at the row's top", [370, 17, 10, 3])]
        {
            assert!(found_beside_a_line(|img| paint(img, x, y, w, h)).is_empty(), "{what}");
        }
        let big = found_beside_a_line(|img| disc(img, 375.0, 30.0, 22.0, None));
        assert!(big.is_empty(), "a dot as big as the row: {big:?}");
    }

    #[test]
    fn a_bullet_detection_boxed_alone_is_found_as_a_bullet_over_its_box() {
        let (mut img, mut lines) = page_with_a_colon();
        disc(&mut img, 345.0, 31.0, 9.0, None);
        lines.push(rect(337.0, 24.0, 353.0, 38.0));
        let found = marks_beside_lines(&img, &lines, Ink::of_page(&img));
        let bullets: Vec<&Quad> = found.iter().filter(|(_, f)| *f == Found::Bullet).map(|(q, _)| q).collect();
        assert_eq!(bullets.len(), 1, "{found:?}");
        assert!(bullets[0].contains(lines[1].centre()));
        // A line of a digit DB boxed alone is not.
        let (mut img, mut lines) = page_with_a_colon();
        paint(&mut img, 342, 22, 6, 16);
        lines.push(rect(337.0, 18.0, 353.0, 42.0));
        assert!(marks_beside_lines(&img, &lines, Ink::of_page(&img)).iter().all(|(_, f)| *f == Found::Mark));
    }

    #[test]
    fn a_colon_in_light_print_on_a_dark_ground_is_a_mark_too() {
        let (mut img, lines) = page_with_a_colon();
        image::imageops::invert(&mut img);
        assert_eq!(marks_beside_lines(&img, &lines, Ink::of_page(&img)).len(), 1);
    }

    #[test]
    fn a_mark_on_a_row_whose_lines_lean_apart_is_found_once() {
        let (img, mut lines) = page_with_a_colon();
        // A line on the same row just before the colon, its box leaning 4° (more than
        // SAME_DIRECTION): the two rows' strips both pass over the colon.
        let (s, c) = (0.07f32.sin(), 0.07f32.cos());
        let lean = |[x, y]: Point| [280.0 + (x - 280.0) * c - (y - 30.0) * s, 30.0 + (x - 280.0) * s + (y - 30.0) * c];
        lines.push(rect(205.0, 18.0, 290.0, 42.0).map(lean));
        assert_eq!(lines_to_rows(&lines).len(), 2);
        assert_eq!(marks_beside_lines(&img, &lines, Ink::of_page(&img)).len(), 1);
        // A short one leaning so is a figure whose box DB tilted: it joins the row.
        lines[1] = rect(270.0, 18.0, 290.0, 42.0).map(lean);
        assert_eq!(lines_to_rows(&lines), vec![vec![0, 1]]);
    }

    #[test]
    fn a_dash_beside_a_cell_set_off_its_rows_label_is_found_at_the_cells_height() {
        // eu-001: a label (y 15..45) and a cell's figures a third of a row lower (y 25..55),
        // which join its row; the cell's dash sits at the cell's mid-height, y 39..41.
        let mut img = glyphs(400, 80, &[(30..190, 20, 18), (230..260, 31, 18)]);
        paint(&mut img, 300, 39, 9, 2);
        let lines = [rect(20.0, 15.0, 200.0, 45.0), rect(225.0, 25.0, 265.0, 55.0)];
        assert_eq!(lines_to_rows(&lines), vec![vec![0, 1]]);
        let found = marks_beside_lines(&img, &lines, Ink::of_page(&img));
        assert_eq!(found.iter().map(|(_, f)| *f).collect::<Vec<_>>(), vec![Found::Dash], "{found:?}");
        let [x0, y0, x1, y1] = found[0].0.bounds();
        assert!(x0 < 301.0 && x1 > 308.0 && y0 > 20.0 && y1 > 50.0, "at the cell's height: {:?}", found[0].0);
    }

    /// A page with one detected line (x 20..200, y 15..45) and a full stop's dot (4 px, 0.13 of
    /// the row) on its baseline at each of `xs`, drawn beside it after `draw`: what is found
    /// there, and the text each leader found reads as.
    fn leaders_beside_a_line(xs: impl Iterator<Item = u32>, draw: impl Fn(&mut RgbImage)) -> Vec<(Found, String)> {
        let mut img = glyphs(420, 60, &[(30..190, 20, 18)]);
        xs.for_each(|x| paint(&mut img, x, 35, 4, 4));
        draw(&mut img);
        let ink = Ink::of_page(&img);
        marks_beside_lines(&img, &[rect(20.0, 15.0, 200.0, 45.0)], ink)
            .into_iter()
            .map(|(q, found)| {
                let text = if found == Found::Leader { leader_line(&img, &q, ink).map(|l| l.text) } else { None };
                (found, text.unwrap_or_default())
            })
            .collect()
    }

    fn leader(text: &str) -> Vec<(Found, String)> {
        vec![(Found::Leader, text.to_string())]
    }

    #[test]
    fn dots_set_evenly_on_the_baseline_are_a_leader_read_dot_by_dot_spaced_as_set() {
        // 12 px apart on a row 30 high (0.4 of it): ". . ." as 12s0324 sets its leaders.
        assert_eq!(leaders_beside_a_line((230..380).step_by(12), |_| {}), leader(&[". "; 13].concat()[..25]));
        // 7 px apart (0.23): a run of full stops.
        assert_eq!(leaders_beside_a_line((230..300).step_by(7), |_| {}), leader(&".".repeat(10)));
    }

    #[test]
    fn dots_too_faint_to_see_in_a_leader_are_put_back_one_or_two_in_a_row() {
        let xs = (230..380).step_by(12).filter(|&x| x != 290);
        assert_eq!(leaders_beside_a_line(xs, |_| {}), leader(&[". "; 13].concat()[..25]));
        let xs = (230..380).step_by(12).filter(|&x| ![254, 302, 314].contains(&x));
        assert_eq!(leaders_beside_a_line(xs, |_| {}), leader(&[". "; 13].concat()[..25]));
    }

    #[test]
    fn specks_set_evenly_on_the_baseline_are_a_leaders_dots_and_others_dust() {
        // f1040 in a bilevel scan at 200 dpi: leader dots of 2 px, a row apart, on rows of
        // about 30 (here 40), specks by their size.
        let found = |xs: &[u32]| {
            let mut img = glyphs(420, 60, &[(30..190, 20, 18)]);
            xs.iter().for_each(|&x| paint(&mut img, x, 36, 2, 2));
            let found = marks_beside_lines(&img, &[rect(20.0, 10.0, 200.0, 50.0)], Ink::of_page(&img));
            found.into_iter().map(|(_, f)| f).collect::<Vec<_>>()
        };
        assert_eq!(found(&[230, 270, 310, 350, 390]), vec![Found::Leader]);
        assert!(found(&[230, 256, 300, 314, 390]).is_empty(), "set unevenly");
        assert!(found(&[230, 270]).is_empty(), "two");
        // A dotted rule's dots, 0.125 of the row apart, are set closer than full stops.
        assert!(found(&(230..330).step_by(5).collect::<Vec<_>>()).is_empty(), "a dotted rule");
    }

    #[test]
    fn a_dot_a_pixel_across_stays_ink_where_the_strip_samples_between_pixels() {
        // 12s0324's six-point leaders at 200 dpi: dots a pixel or two across, which a blend of
        // the pixels around each strip pixel lightened past the page's ink level.
        let mut img = glyphs(240, 30, &[(10..60, 5, 18)]);
        let dots: Vec<u32> = (100..230).step_by(13).collect();
        dots.iter().enumerate().for_each(|(i, &x)| paint(&mut img, x, 18 + (i % 3) as u32, 1, 1));
        let ink = Ink::of_page(&img);
        // A row 24 pixels high, examined 32 high: strip pixels fall between page pixels.
        let row = rect(90.0, 3.0, 235.0, 27.0);
        let s = ink_strip(&img, &row, ink, Sampled::KeepingDots);
        // Dots with ink in a strip column within a page pixel and a half of them.
        let seen = |mask: &[bool]| {
            let page_x = |c: usize| 90.0 + (c as f32 + 0.5) * 145.0 / s.w as f32;
            let inked: Vec<f32> = (0..s.w).filter(|&c| (0..s.h).any(|y| mask[y * s.w + c])).map(page_x).collect();
            dots.iter().filter(|&&x| inked.iter().any(|c| (c - x as f32 - 0.5).abs() <= 1.5)).count()
        };
        assert_eq!(seen(&s.ink), dots.len());
        assert!(seen(&ink_strip(&img, &row, ink, Sampled::Blended).ink) < dots.len(), "the blend alone loses some");
    }

    #[test]
    fn a_leader_found_on_one_row_takes_the_place_of_the_marks_another_row_saw_in_it() {
        let mark = (rect(100.0, 10.0, 130.0, 30.0), Found::Mark);
        let colon = (rect(300.0, 10.0, 310.0, 30.0), Found::Mark);
        let mut found = vec![mark, colon];
        add_found(&mut found, rect(80.0, 9.0, 200.0, 29.0), Found::Leader);
        assert_eq!(
            found.iter().map(|(q, f)| (q.bounds()[0], *f)).collect::<Vec<_>>(),
            [(300.0, Found::Mark), (80.0, Found::Leader)]
        );
        // Whatever else falls in what was found first is left out.
        add_found(&mut found, rect(90.0, 10.0, 120.0, 30.0), Found::Mark);
        add_found(&mut found, rect(85.0, 10.0, 190.0, 30.0), Found::Leader);
        assert_eq!(found.len(), 2);
    }

    #[test]
    fn dots_set_unevenly_or_at_mid_row_are_no_leader() {
        let uneven = [230, 236, 260, 266, 300, 306, 340];
        let found = leaders_beside_a_line(uneven.into_iter(), |_| {});
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), vec![Found::Mark], "{found:?}");
        let found = leaders_beside_a_line(std::iter::empty(), |img| {
            (230..380).step_by(12).for_each(|x| paint(img, x, 28, 4, 4));
        });
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), vec![Found::Mark], "middle dots: {found:?}");
    }

    #[test]
    fn a_leader_ending_at_a_boxs_corner_or_under_the_row_aboves_descenders_is_still_one() {
        // f1040: the leader runs into the corner of a box for the line's figure (its left edge
        // and top edge, 0.4 rows of ink across); 12s0324: the row above's descenders reach
        // a few pixels into the row between the dots.
        let found = leaders_beside_a_line((230..350).step_by(12), |img| {
            paint(img, 360, 0, 2, 60);
            paint(img, 360, 18, 12, 2);
            (236..350).step_by(24).for_each(|x| paint(img, x, 12, 4, 5));
        });
        assert_eq!(found, leader(&[". "; 10].concat()[..19]));
    }

    #[test]
    fn a_detected_line_read_as_dots_alone_is_read_again_as_its_leader() {
        let mut img = RgbImage::from_pixel(200, 30, image::Rgb([250, 250, 250]));
        (20..180).step_by(12).for_each(|x| paint(&mut img, x, 20, 4, 4));
        let Some(line) = leader_line(&img, &rect(10.0, 0.0, 190.0, 30.0), Ink::of_page(&img)) else {
            panic!("no leader")
        };
        assert_eq!(line.text, [". "; 14].concat()[..27]);
        let [x0, _, x1, _] = line.chars[2].quad.bounds();
        assert!((31.0..=33.0).contains(&x0) && (35.0..=37.0).contains(&x1), "the second dot: {x0} {x1}");
        // A table's rule along the row, under the dots and past the quad's ends, is no part of it.
        paint(&mut img, 0, 27, 200, 1);
        let under = leader_line(&img, &rect(10.0, 0.0, 190.0, 30.0), Ink::of_page(&img)).map(|l| l.text);
        assert_eq!(under.as_deref(), Some(&[". "; 14].concat()[..27]));
        paint(&mut img, 100, 5, 8, 20);
        assert!(leader_line(&img, &rect(10.0, 0.0, 190.0, 30.0), Ink::of_page(&img)).is_none(), "a glyph among them");
        let read = |s: &str| read(s, 0.9);
        assert!(is_read_as_dots(&read("...")) && is_read_as_dots(&read(". …")));
        assert!(!is_read_as_dots(&read(" ")) && !is_read_as_dots(&read("..:")));
    }

    #[test]
    fn a_run_of_dots_read_inside_a_line_is_read_again_by_its_ink() {
        // A label with its leader's first dots in one detected line, the dots read as a run:
        // spaced as set where the leader runs on past them (12s0324's "Arson.." for "Arson . .")
        // or holds more dots than an ellipsis (us-001's "older...." for "older. . . ."),
        // and an ellipsis, tight or wide, or dots with a glyph among them, read as recognition
        // read them.
        let line_of = |img: &RgbImage, spans: &[(char, f32, f32)]| {
            let quad = rect(10.0, 0.0, 190.0, 30.0);
            let chars: Vec<OcrChar> = spans
                .iter()
                .map(|&(ch, x0, x1)| OcrChar { ch, quad: rect(x0, 0.0, x1, 30.0), confidence: 0.9 })
                .collect();
            let mut line = test_support::line_of_chars(quad, chars, 0.9);
            dot_runs_to_leaders(img, &mut line, Ink::of_page(img));
            assert_eq!(line.text, line.chars.iter().map(|c| c.ch).collect::<String>());
            line.text
        };
        let label = |dots: &[u32]| {
            let mut img = RgbImage::from_pixel(200, 30, image::Rgb([250, 250, 250]));
            paint(&mut img, 14, 6, 26, 18);
            dots.iter().for_each(|&x| paint(&mut img, x, 19, 4, 4));
            img
        };
        let spaced = label(&[46, 57, 68, 79]);
        assert_eq!(line_of(&spaced, &[('X', 10.0, 42.0), ('.', 44.0, 52.0), ('.', 54.0, 62.0)]), "X. .");
        let tight = label(&[46, 52, 58]);
        let ellipsis = [('X', 10.0, 42.0), ('.', 44.0, 50.0), ('.', 50.0, 56.0), ('.', 56.0, 62.0)];
        assert_eq!(line_of(&tight, &ellipsis), "X...");
        let four = [('X', 10.0, 42.0), ('.', 44.0, 52.0), ('.', 54.0, 62.0), ('.', 65.0, 73.0), ('.', 76.0, 84.0)];
        assert_eq!(line_of(&spaced, &four), "X. . . .", "more dots than an ellipsis, stopping with the line");
        let stops = label(&[46, 57]);
        assert_eq!(
            line_of(&stops, &[('X', 10.0, 42.0), ('.', 44.0, 52.0), ('.', 54.0, 62.0)]),
            "X..",
            "no leader runs on"
        );
        let leader = label(&(0..10).map(|k| 46 + 6 * k).collect::<Vec<_>>());
        let ellipses = [('X', 10.0, 42.0), ('…', 44.0, 62.0), (' ', 62.0, 66.0), ('…', 66.0, 84.0)];
        assert_eq!(line_of(&leader, &ellipses), "X.......", "rotated_page's leader read as ellipses");
        assert_eq!(line_of(&tight, &[('X', 10.0, 42.0), ('…', 44.0, 62.0)]), "X…", "an ellipsis stays");
        let mut among = label(&[46, 57, 68, 79]);
        paint(&mut among, 52, 8, 3, 15);
        assert_eq!(line_of(&among, &[('X', 10.0, 42.0), ('.', 44.0, 52.0), ('.', 54.0, 62.0)]), "X..");
    }

    #[test]
    fn a_leader_read_beside_its_line_gets_back_the_dot_the_lines_box_cut() {
        let char_at = |ch, x0: f32, x1: f32, y: f32| OcrChar { ch, quad: rect(x0, y, x1, y + 30.0), confidence: 0.9 };
        let line_of = |chars: Vec<OcrChar>| {
            let quad = rect(chars[0].quad.bounds()[0], 0.0, chars[chars.len() - 1].quad.bounds()[2], 30.0);
            test_support::line_of_chars(quad, chars, 0.9)
        };
        let label = |last: char, y: f32| line_of(vec![char_at('X', 10.0, 40.0, y), char_at(last, 42.0, 46.0, y)]);
        // A leader 12 px a dot, spaced as set, from x 66: a dot at 54, the label's box cut.
        let leader = |from: f32| {
            let dots = (0..4).map(|i| from + 12.0 * i as f32);
            line_of(dots.flat_map(|x| [char_at(' ', x - 8.0, x, 0.0), char_at('.', x, x + 4.0, 0.0)]).skip(1).collect())
        };
        let joined = leaders_joined(vec![label('.', 0.0), leader(66.0)]);
        assert_eq!(joined[1].text, ". . . . .");
        assert_eq!(joined[1].text, joined[1].chars.iter().map(|c| c.ch).collect::<String>());
        let [x0, _, x1, _] = joined[1].chars[0].quad.bounds();
        assert!((x0 - 54.0).abs() < 0.5 && (x1 - 58.0).abs() < 0.5, "the dot put back: {x0} {x1}");
        assert!((joined[1].quad.bounds()[0] - 54.0).abs() < 0.5);
        // Not a whole number of pitches away, no full stop at the line's end, or another baseline.
        for (label, leader) in
            [(label('.', 0.0), leader(70.0)), (label('X', 0.0), leader(66.0)), (label('.', 10.0), leader(66.0))]
        {
            assert_eq!(leaders_joined(vec![label, leader])[1].text, ". . . .");
        }
    }

    #[test]
    fn a_thin_rule_along_the_page_is_no_mark_beside_a_line_db_tilted() {
        // table-curves-example: DB boxed a line 2° off the page's other lines, and a thin
        // grey rule along the page, 300 px on, broke into flat pieces across its strip, read
        // as dashes.
        let mut img = glyphs(700, 160, &[(30..190, 20, 18), (30..560, 80, 18), (30..560, 130, 18)]);
        for x in 250..650 {
            img.put_pixel(x, 38, image::Rgb([130, 130, 130]));
        }
        let (s, c) = (0.035f32.sin(), 0.035f32.cos());
        let tilt = |[x, y]: Point| [110.0 + (x - 110.0) * c - (y - 30.0) * s, 30.0 + (x - 110.0) * s + (y - 30.0) * c];
        let lines =
            [rect(20.0, 15.0, 200.0, 45.0).map(tilt), rect(20.0, 75.0, 570.0, 105.0), rect(20.0, 125.0, 570.0, 155.0)];
        // The page's ink level where antialiased print sets it, the rule's grey just darker.
        let found = marks_beside_lines(&img, &lines, Ink { level: 135, dark: true });
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn ink_crossing_the_row_makes_what_is_beside_it_part_of_a_picture() {
        let (mut img, lines) = page_with_a_colon();
        // A stroke slanting across the row, as an engraving's hatching.
        for y in 0..60 {
            paint(&mut img, 310 + y / 3, y, 3, 1);
        }
        let found = marks_beside_lines(&img, &lines, Ink::of_page(&img));
        assert!(found.is_empty(), "{found:?}");
    }

    /// Characters read as `s`, each with probability `p`.
    fn read(s: &str, p: f32) -> Vec<OcrChar> {
        s.chars().map(|ch| OcrChar { ch, quad: rect(0.0, 0.0, 1.0, 1.0), confidence: p }).collect()
    }

    #[test]
    fn a_lone_upright_stroke_as_tall_as_a_figure_is_a_stroke_to_read() {
        let found = found_beside_a_line(|img| paint(img, 374, 21, 3, 16));
        assert_eq!(found.iter().map(|(_, f)| *f).collect::<Vec<_>>(), vec![Found::Stroke], "{found:?}");
        assert!(is_stroke(&read("1", 0.9)) && is_stroke(&read("I", 0.95)));
        assert!(!is_stroke(&read("1", 0.7)) && !is_stroke(&read("7", 0.99)) && !is_stroke(&read("11", 0.99)));
    }

    #[test]
    fn a_tables_rule_or_a_boxs_heavy_edge_across_the_row_parts_the_marks_beside_it() {
        for width in [3, 5] {
            let found = found_beside_a_line(|img| {
                paint(img, 358, 0, width, 60);
                paint(img, 370, 29, 10, 3);
            });
            assert_eq!(found.iter().map(|(_, f)| *f).collect::<Vec<_>>(), vec![Found::Dash], "{width}: {found:?}");
            let [x0, ..] = found[0].0.bounds();
            assert!(x0 > 355.0, "the dash alone, not the rule: {:?}", found[0].0);
        }
    }

    #[test]
    fn lines_on_one_row_share_it_and_lines_above_do_not() {
        let quads = [rect(0.0, 0.0, 100.0, 20.0), rect(150.0, 3.0, 200.0, 23.0), rect(0.0, 30.0, 120.0, 50.0)];
        assert_eq!(lines_to_rows(&quads), vec![vec![2], vec![0, 1]]);
    }

    #[test]
    fn otsu_splits_ink_from_paper() {
        let mut hist = [0u64; 256];
        hist[30] = 100;
        hist[40] = 50;
        hist[220] = 1000;
        hist[235] = 800;
        let t = otsu(&hist);
        assert!((40..220).contains(&t), "{t}");
    }

    #[test]
    fn a_bilevel_page_splits_midway_between_its_two_greys() {
        let mut hist = [0u64; 256];
        hist[0] = 300;
        hist[255] = 5000;
        assert_eq!(otsu_span(&hist), [0, 254]);
        assert_eq!(otsu_middle(&hist), 127);
        // With greys between, as where print is anti-aliased: levels 40 to 219 split alike.
        hist[40] = 20;
        hist[220] = 30;
        assert_eq!(otsu_span(&hist), [40, 219]);
        assert_eq!((otsu(&hist), otsu_middle(&hist)), (40, 129));
    }

    #[test]
    fn marks_are_read_surely_and_mostly_as_punctuation() {
        assert!(is_mark(&read(":", 0.6)));
        assert!(is_mark(&read("- - - x", 0.7)));
        assert!(!is_mark(&read(":", 0.4)));
        assert!(!is_mark(&read("9", 0.9)));
        assert!(!is_mark(&read("4!", 0.9)));
        assert!(!is_mark(&[]));
    }
}
