//! docsift's text assembly: characters -> words -> lines -> plain text, in each run's own
//! reading direction (left-to-right, right-to-left, vertical, rotated), with overprinted
//! duplicates removed. Word and line rules follow pdfplumber's (x/y tolerances) with an
//! extra tolerance relative to the font size, so large type is not split into letters.

mod bidi;
mod order;

use docsift_model::{BBox, Char, Direction, Line, Origin, Page, Word};
pub use order::{median, weighted_median};

/// Gap between two glyphs, as a fraction of the font size, above which they belong to
/// different words. Word spaces run 0.2–0.33 em even in tight justified text, while
/// kerning and tracking inside words stay below ~0.1 em.
pub const WORD_GAP_EM: f32 = 0.15;
/// pdfplumber's default tolerances (points).
pub const DEFAULT_X_TOLERANCE: f32 = 3.0;
pub const DEFAULT_Y_TOLERANCE: f32 = 3.0;
/// pdfplumber's dedupe_chars tolerance: glyphs repeated within 1pt are overprints.
pub const DEDUPE_TOLERANCE: f32 = 1.0;
/// Glyphs a glyph is compared with, back along its line, for an overprint: fake bold and
/// shadows draw a glyph two to four times, and the cap keeps a pile of thousands at one spot
/// (a broken or hostile file) linear.
const MAX_OVERPRINTS_COMPARED: usize = 64;

/// Character attributes that, when they differ, split words (pdfplumber's `extra_attrs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitAttr {
    Font,
    Size,
    Color,
}

#[derive(Clone, Debug)]
pub struct TextOptions {
    /// Absolute horizontal tolerance (points) used when `x_tolerance_ratio` is None.
    pub x_tolerance: f32,
    /// Horizontal tolerance as a fraction of the character's size; None = absolute only.
    pub x_tolerance_ratio: Option<f32>,
    pub y_tolerance: f32,
    pub keep_blank_chars: bool,
    pub dedupe: bool,
    pub split_on: Vec<SplitAttr>,
    /// Keep the content stream's order instead of sorting geometrically (pdfplumber's
    /// `use_text_flow`): right for documents whose producer wrote text in reading order.
    pub use_text_flow: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            x_tolerance: DEFAULT_X_TOLERANCE,
            x_tolerance_ratio: Some(WORD_GAP_EM),
            y_tolerance: DEFAULT_Y_TOLERANCE,
            keep_blank_chars: false,
            dedupe: true,
            split_on: Vec::new(),
            use_text_flow: false,
        }
    }
}

impl TextOptions {
    /// pdfplumber's defaults exactly (absolute 3pt tolerances), for comparisons.
    pub fn pdfplumber() -> Self {
        TextOptions { x_tolerance_ratio: None, ..TextOptions::default() }
    }
}

/// Drops from a line the glyphs drawn again at (almost) the same place with the same
/// text, font and size — fake bold and shadow effects — keeping the first drawn. Such
/// duplicates always share a line, so only glyphs within `tolerance` along the line are
/// compared (a window in the line sorted by position).
fn dedupe_line(chars: &[Char], proj: &[(f32, f32, f32, f32)], line: &mut Vec<usize>, tolerance: f32) {
    let mut sorted = line.clone();
    sorted.sort_by(|&a, &b| proj[a].0.total_cmp(&proj[b].0).then(a.cmp(&b)));
    let mut dropped: Vec<usize> = Vec::new();
    for (k, &i) in sorted.iter().enumerate() {
        let c = &chars[i];
        for &j in sorted[..k].iter().rev().take(MAX_OVERPRINTS_COMPARED) {
            if proj[i].0 - proj[j].0 > tolerance {
                break;
            }
            let o = &chars[j];
            if o.text == c.text
                && (proj[i].2 - proj[j].2).abs() <= tolerance
                && o.font == c.font
                && (o.size - c.size).abs() < 0.05
            {
                dropped.push(i.max(j));
            }
        }
    }
    if !dropped.is_empty() {
        dropped.sort_unstable();
        dropped.dedup();
        line.retain(|i| dropped.binary_search(i).is_err());
    }
}

/// A reading frame: text advances along +u, lines follow along +v.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Frame {
    direction: Direction,
    /// Lines stack opposite to the page's y (rotated 180°) or along it.
    flipped_lines: bool,
}

impl Frame {
    fn of(c: &Char) -> Frame {
        // Glyphs whose up vector points down the page are rotated: their lines stack upward
        // (or leftward/rightward for vertical directions).
        let [_, _, cx, cy, _, _] = c.matrix.0;
        let up = (cx, -cy);
        let flipped_lines = match c.direction {
            Direction::Ltr | Direction::Rtl => up.1 < 0.0,
            // Lines stack against the glyphs' up vector: leftward when it points right.
            // Upright glyphs advancing downward are CJK vertical writing, whose columns
            // also run right to left.
            Direction::Ttb => up.0 > 0.0 || c.upright,
            Direction::Btt => up.0 > 0.0,
        };
        Frame { direction: c.direction, flipped_lines }
    }

    /// (u0, u1, v0, v1) of a box in this frame.
    fn project(&self, b: &BBox) -> (f32, f32, f32, f32) {
        let (u0, u1) = match self.direction {
            Direction::Ltr => (b.x0, b.x1),
            Direction::Rtl => (-b.x1, -b.x0),
            Direction::Ttb => (b.top, b.bottom),
            Direction::Btt => (-b.bottom, -b.top),
        };
        let (v0, v1) = match (self.direction, self.flipped_lines) {
            (Direction::Ltr | Direction::Rtl, false) => (b.top, b.bottom),
            (Direction::Ltr | Direction::Rtl, true) => (-b.bottom, -b.top),
            (Direction::Ttb | Direction::Btt, true) => (-b.x1, -b.x0),
            (Direction::Ttb | Direction::Btt, false) => (b.x0, b.x1),
        };
        (u0, u1, v0, v1)
    }
}

fn is_blank(c: &Char) -> bool {
    c.text.chars().all(char::is_whitespace)
}

/// Groups chars (indices) into lines per frame: clusters on the line-axis start with the
/// y tolerance (chained, as pdfplumber), each line sorted along the text axis.
fn chars_to_lines(chars: &[Char], opts: &TextOptions) -> Vec<(Frame, Vec<usize>)> {
    let y_tolerance = opts.y_tolerance;
    let mut lines = Vec::new();
    // Projections indexed like `chars` (only the current frame's entries are read).
    let mut proj = vec![(0.0f32, 0.0f32, 0.0f32, 0.0f32); chars.len()];
    for (frame, mut idx) in chars_by_frame(chars) {
        for &i in &idx {
            proj[i] = frame.project(&chars[i].bbox);
        }
        idx.sort_by(|&a, &b| proj[a].2.total_cmp(&proj[b].2));
        let first = lines.len();
        let mut current: Vec<usize> = Vec::new();
        let mut last_v = f32::NEG_INFINITY;
        for i in idx {
            let v = proj[i].2;
            if !current.is_empty() && v - last_v > y_tolerance {
                lines.push((frame, std::mem::take(&mut current)));
            }
            last_v = v;
            current.push(i);
        }
        if !current.is_empty() {
            lines.push((frame, current));
        }
        for (_, line) in &mut lines[first..] {
            line.sort_by(|&a, &b| proj[a].0.total_cmp(&proj[b].0));
            if opts.dedupe {
                dedupe_line(chars, &proj, line, DEDUPE_TOLERANCE);
            }
        }
    }
    lines
}

/// Lines in content-stream order: a line ends where the next glyph leaves it (moves to
/// another line or jumps back along the text axis).
fn chars_to_lines_in_flow(chars: &[Char], opts: &TextOptions) -> Vec<(Frame, Vec<usize>)> {
    let y_tolerance = opts.y_tolerance;
    let mut lines = Vec::new();
    let proj: Vec<(f32, f32, f32, f32)> = chars.iter().map(|c| Frame::of(c).project(&c.bbox)).collect();
    for (frame, idx) in chars_by_frame(chars) {
        let mut current: Vec<usize> = Vec::new();
        for i in idx {
            if let Some(&p) = current.last() {
                let (pu0, _, pv0, _) = proj[p];
                let (cu0, _, cv0, _) = proj[i];
                if (cv0 - pv0).abs() > y_tolerance || cu0 < pu0 {
                    lines.push((frame, std::mem::take(&mut current)));
                }
            }
            current.push(i);
        }
        if !current.is_empty() {
            lines.push((frame, current));
        }
    }
    if opts.dedupe {
        for (_, line) in &mut lines {
            dedupe_line(chars, &proj, line, DEDUPE_TOLERANCE);
        }
    }
    lines
}

/// Char indices per reading frame; the frame with the most text (the page's main
/// direction) first.
fn chars_by_frame(chars: &[Char]) -> Vec<(Frame, Vec<usize>)> {
    let mut frames: Vec<(Frame, Vec<usize>)> = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        let f = Frame::of(c);
        match frames.iter_mut().find(|(g, _)| *g == f) {
            Some((_, v)) => v.push(i),
            None => frames.push((f, vec![i])),
        }
    }
    frames.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    frames
}

fn attrs_differ(a: &Char, b: &Char, split_on: &[SplitAttr]) -> bool {
    split_on.iter().any(|attr| match attr {
        SplitAttr::Font => a.font != b.font,
        SplitAttr::Size => (a.size - b.size).abs() > 0.01,
        SplitAttr::Color => a.color != b.color,
    })
}

/// Share of a blank glyph's width that a neighbouring glyph must cover for the blank to be
/// ignored: producers draw spaces under letters (pdf.js issues 10900, 13226).
const COVERED_BLANK_SHARE: f32 = 0.5;

fn covered(blank: (f32, f32), other: Option<(f32, f32)>) -> bool {
    let width = (blank.1 - blank.0).max(f32::MIN_POSITIVE);
    other.is_some_and(|(a, b)| (blank.1.min(b) - blank.0.max(a)).max(0.0) >= COVERED_BLANK_SHARE * width)
}

/// Splits one line's chars into words.
fn line_to_words(chars: &[Char], frame: Frame, line: &[usize], opts: &TextOptions) -> Vec<Vec<usize>> {
    let span = |i: usize| {
        let (u0, u1, _, _) = frame.project(&chars[i].bbox);
        (u0, u1)
    };
    let mut words: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut prev: Option<usize> = None;
    for (k, &i) in line.iter().enumerate() {
        let c = &chars[i];
        if !opts.keep_blank_chars && is_blank(c) {
            let next = line[k + 1..].iter().copied().find(|&j| !is_blank(&chars[j])).map(span);
            if covered(span(i), prev.map(span)) || covered(span(i), next) {
                continue;
            }
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let pc = &chars[p];
            let (pu0, pu1, _, pv1) = frame.project(&pc.bbox);
            let (cu0, _, cv0, _) = frame.project(&c.bbox);
            let tol = match opts.x_tolerance_ratio {
                Some(r) => r * pc.size.max(c.size),
                None => opts.x_tolerance,
            };
            let breaks = cu0 > pu1 + tol
                || cu0 < pu0 - tol
                || cv0 > pv1 + opts.y_tolerance
                || attrs_differ(pc, c, &opts.split_on);
            if breaks && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        }
        current.push(i);
        prev = Some(i);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn make_word(chars: &[Char], idx: &[usize], direction: Direction) -> Word {
    let mut text = String::new();
    let mut bbox = chars[idx[0]].bbox;
    let mut confidence: Option<f32> = None;
    for &i in idx {
        text.push_str(&chars[i].text);
        bbox = bbox.union(&chars[i].bbox);
        if let Origin::Ocr { confidence: c } = chars[i].origin {
            confidence = Some(confidence.map_or(c, |least| least.min(c)));
        }
    }
    let first = &chars[idx[0]];
    Word { text, bbox, upright: first.upright, direction, font: first.font.clone(), size: first.size, confidence }
}

/// Fills `page.words`, `page.lines` and `page.text` from `page.chars` (which stay as
/// drawn; overprinted duplicates are skipped when asked). Lines are joined with `\n`,
/// words with a space.
pub fn assemble(page: &mut Page, opts: &TextOptions) {
    let chars = &page.chars;
    let mut words: Vec<Word> = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    let lines_of_chars =
        if opts.use_text_flow { chars_to_lines_in_flow(chars, opts) } else { chars_to_lines(chars, opts) };
    // Words per geometric line, then line segments (split at wide gaps) per frame.
    let mut line_words: Vec<(Frame, Vec<Word>)> = Vec::new();
    for (frame, line) in lines_of_chars {
        let groups = line_to_words(chars, frame, &line, opts);
        if groups.is_empty() {
            continue;
        }
        let mut ws: Vec<Word> = groups.iter().map(|g| make_word(chars, g, frame.direction)).collect();
        bidi::visual_to_logical(&mut ws);
        line_words.push((frame, ws));
    }
    let mut frames: Vec<Frame> = Vec::new();
    for (f, _) in &line_words {
        if !frames.contains(f) {
            frames.push(*f);
        }
    }
    for frame in frames {
        let members: Vec<usize> = (0..line_words.len()).filter(|&i| line_words[i].0 == frame).collect();
        // (line, first word, end word) per segment.
        let mut segs: Vec<order::Segment> = Vec::new();
        let mut ranges: Vec<(usize, usize, usize)> = Vec::new();
        for (line_no, &li) in members.iter().enumerate() {
            let ws = &line_words[li].1;
            let mut start = 0;
            for k in 1..=ws.len() {
                let split = k == ws.len()
                    || !opts.use_text_flow && {
                        let (_, pu1, _, _) = frame.project(&ws[k - 1].bbox);
                        let (cu0, _, _, _) = frame.project(&ws[k].bbox);
                        cu0 - pu1 > order::SEGMENT_GAP_EM * ws[k].size.max(ws[k - 1].size)
                    };
                if split {
                    let b = ws[start..k].iter().skip(1).fold(ws[start].bbox, |b, w| b.union(&w.bbox));
                    let (u0, u1, v0, v1) = frame.project(&b);
                    segs.push(order::Segment { line: line_no, u0, u1, v0, v1, size: ws[start].size });
                    ranges.push((li, start, k));
                    start = k;
                }
            }
        }
        let groups = if opts.use_text_flow {
            (0..segs.len()).map(|i| vec![i]).collect()
        } else {
            order::order_segments(&segs, order::Gutters::Upright)
        };
        for group in groups {
            let start = words.len();
            for &g in &group {
                let (li, a, b) = ranges[g];
                words.extend(line_words[li].1[a..b].iter().cloned());
            }
            let out = &words[start..];
            let bbox = out.iter().skip(1).fold(out[0].bbox, |b, w| b.union(&w.bbox));
            let text = out.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
            lines.push(Line { text, bbox, direction: frame.direction, words: start..words.len() });
        }
    }
    page.text = lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n");
    page.words = words;
    page.lines = lines;
}

/// A line whose characters are already grouped (OCR): `chars` indexes `page.chars` in
/// reading order; `u0..u1` (along the text) and `v0..v1` (across lines) are its extent in
/// the page's reading frame, so skewed and rotated scans order like upright pages.
#[derive(Clone, Debug, PartialEq)]
pub struct KnownLine {
    pub chars: std::ops::Range<usize>,
    pub u0: f32,
    pub u1: f32,
    pub v0: f32,
    pub v1: f32,
    /// Font size (em) of the line's text.
    pub size: f32,
    /// How the line's own box leans in the frame, across per along (OCR: its box's angle
    /// less the frame's); 0 where it has none of its own (native text).
    pub tilt: f32,
}

impl KnownLine {
    fn center(&self) -> f32 {
        (self.v0 + self.v1) / 2.0
    }

    fn middle(&self) -> f32 {
        (self.u0 + self.u1) / 2.0
    }

    /// Moved across to where its row crosses the rows' middle along, as `rows` run.
    fn levelled(&self, rows: &Rows) -> KnownLine {
        let rise = self.center() - rows.across(self.middle(), self.center());
        KnownLine { v0: self.v0 - rise, v1: self.v1 - rise, ..self.clone() }
    }
}

/// How rows run across a page's frame: through `mid` (along, across) at `slope` (across per
/// along), each row steeper by `fan` per unit further across. A page photographed at a slant
/// has rows that meet at a point off the page, so their slopes change evenly across it; a
/// flat scan, however skewed, has none (0).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Rows {
    slope: f32,
    fan: f32,
    mid: [f32; 2],
}

/// A fanned row is never taken as shrinking past this (the point the rows meet, reached
/// only far outside a page's lines, where `MAX_FAN` keeps it).
const MIN_FAN_SCALE: f32 = 0.25;

impl Rows {
    /// Where across the row through (`u`, `v`) crosses the middle along: a row crossing it at
    /// r runs at `slope + fan·(r - mid across)`, so r comes from v in closed form.
    fn across(&self, u: f32, v: f32) -> f32 {
        let [mu, mv] = self.mid;
        let (du, dv) = (u - mu, v - mv);
        mv + (dv - self.slope * du) / (1.0 + self.fan * du).max(MIN_FAN_SCALE)
    }
}

/// Lines of one row this far apart along the text (their middles, in heights of the thinner)
/// measure a page's skew: nearer, where a box's edge falls outweighs the rise.
const SKEW_MIN_RUN: f32 = 5.0;
/// A skew is measured from at least this many pairs of lines on one row: a page of few says
/// too little.
const SKEW_MIN_PAIRS: usize = 8;
/// The steepest skew (across per along, about 3°) a fan is sought with, from the lines' own
/// lean (or level): DB's boxes show steeper skews, which turn the page's frame (`KnownLine`'s
/// u and v) already, but up to 2.5° it may draw most short words level and leave the frame
/// level too, and up to 4° half of a table's short cells (issue-336's Chinese table
/// photographed at 3.5–4°: about half of its 137–142 boxes level, its long lines leaning
/// 0.06–0.07), which then lean from the frame as its rows do.
const MAX_UNSEEN_SKEW: f32 = 0.05;
/// The steepest skew (about 5°) a table's rows are sought at (`table_skew`) and taken at,
/// from where its lines were first levelled: DB drew every short cell of vertical_header
/// and column_span_1 photographed at 3.5–4.5° level, long lines few or none, so their rows
/// ran 0.06–0.08 from the frame and were read level, a row's fields spread over the rows
/// below it (CER 0.71–0.74 against 0.41 flat; 0.57 against 0.015); from 5° on (the OCR
/// crate's `MIN_DESKEW`) a page's lines are detected again turned upright.
const MAX_TABLE_SKEW: f32 = 0.09;
/// How rows run in lines' frame. Their skew (across per along) is the median slope of pairs
/// of lines on one row far apart along it (`pairs_on_rows`), weighted by their runs, once the lines are
/// levelled by whichever sets more such pairs on rows: none, or the lines' own lean (the
/// median of their boxes' tilts, weighted by their lengths). A scan skewed under about half
/// a degree keeps it, as DB's boxes of short lines come out level (jpeg2000.pdf's 0.35° gave
/// 185 of its 210 boxes no angle at all), and its table's rows drifted 3.5 pt of their 11
/// across the page: a label parted from its figures and was read after them. Up to 2.5° DB
/// still draws most short words level, which keeps the frame (their median angle) level,
/// while its long lines lean; measured unlevelled, rows rising about their spacing across
/// the page paired fields far apart on neighbouring rows, which outweighed the true pairs
/// (la-precinct-bulletin skewed 1° and 1.5°: slopes 0.0004 and 0.004, its rows read column
/// by column). A long line's box may lean on a level page (rotated_page's rows of dot
/// leaders, 0.6°), which the pairs then outvote. A table with no long line is levelled by the
/// skew that sets its rows (`table_skew`); trying every skew for any page was fooled by level
/// columns whose baselines are staggered (labor.pdf, us-007). A table's rows that meet at a
/// point (photographed at a slant) are fanned, their skew sought again with the fan
/// (`rows_fan`): nics-background-checks turned, its rows ±2° at the table's edges, read its
/// rows level with fields two rows up or down. Level (`Rows::default`) where the pairs are too few
/// (`SKEW_MIN_PAIRS`) or the slope strays too far from where they were first levelled
/// (`MAX_TABLE_SKEW`).
fn lines_to_rows<'a>(lines: impl Iterator<Item = &'a KnownLine>) -> Rows {
    let lines: Vec<&KnownLine> = lines.collect();
    let mid = [median(lines.iter().map(|k| k.middle()).collect()), median(lines.iter().map(|k| k.center()).collect())];
    let at = |slope: f32| Rows { slope, fan: 0.0, mid };
    let lean = weighted_median(lines.iter().map(|k| (k.tilt, k.u1 - k.u0)).collect());
    let (at_level, at_lean) = (pairs_on_rows(&lines, &at(0.0)), pairs_on_rows(&lines, &at(lean)));
    let (base, mut pairs) = if at_lean.len() > at_level.len() { (at(lean), at_lean) } else { (at(0.0), at_level) };
    let mut rows = base;
    if let Some(table) = table_skew(&lines, &base).filter(|t| t.slope != rows.slope) {
        (rows, pairs) = (table, pairs_on_rows(&lines, &table));
    }
    if let Some(fanned) = rows_fan(&lines, &rows, base.slope) {
        (rows, pairs) = (fanned, pairs_on_rows(&lines, &fanned));
    }
    if pairs.len() < SKEW_MIN_PAIRS {
        return Rows::default();
    }
    if rows.fan != 0.0 {
        rows = refitted(&lines, &pairs, &rows);
        pairs = pairs_on_rows(&lines, &rows);
    }
    let slope = rows.slope + weighted_median(pairs.iter().map(|p| (p.slope, p.run)).collect());
    if (slope - base.slope).abs() <= MAX_TABLE_SKEW { Rows { slope, ..rows } } else { Rows::default() }
}

/// The most rows fan (`Rows::fan` times the lines' extent across: how much steeper the last
/// row runs than the first) that is sought: a page photographed with its rows' ends 15%
/// apart (nics-background-checks turned, its rows ±2° at the table's edges) fans 0.074.
const MAX_FAN: f32 = 0.3;
/// Fans and skews are first tried this far apart (as `MAX_FAN`, and across per along), then
/// around the best `FAN_STEP` and `SKEW_STEP` apart: a skew that sets one side of a table's
/// rows level (nics-background-checks turned, photographed unblurred: -0.023, where its
/// middle rows run at -0.004) sets no fan's rows.
const COARSE_FAN_STEP: f32 = 0.01;
const COARSE_SKEW_STEP: f32 = 0.0025;
/// Fans are tried this far apart at last: rows 2,000 px long at the table's edges then meet
/// within about 2 px.
const FAN_STEP: f32 = 0.002;
/// A fan is taken where the pairs it sets on full rows run this many times as far, all
/// together, as those the rows unfanned set...
const FAN_GAIN: f32 = 1.05;
/// ...and number this many more per line: on pages 1 and 2 of the corpus PDFs read by OCR
/// the best fan of a table (a pair a line or more) added 0.05 at most, gaining up to 1.09
/// (AnimalSounds1's 43 lines), as did camelot's foo.pdf photographed upright (0.049, 1.07);
/// tables photographed with their rows' ends 8% apart add 0.13 (clockwise_table_1, gaining
/// 1.08) and 2.8 (nics-background-checks, 1.54).
const FAN_PAIRS_PER_LINE: f32 = 0.1;

/// `rows` fanned and skewed (up to `MAX_FAN`, and `MAX_UNSEEN_SKEW` from `lean`, coarsely
/// then finely) to set pairs of lines on rows of three or more that run furthest all
/// together (a fan that sets far cells of a row level sets fewer pairs of neighbouring rows'
/// cells), where they are a table's (`TABLE_PAIRS_PER_LINE`) and clearly more and further
/// than unfanned (`FAN_PAIRS_PER_LINE`, `FAN_GAIN`). None where no fan does.
fn rows_fan(lines: &[&KnownLine], rows: &Rows, lean: f32) -> Option<Rows> {
    let (lo, hi) = lines.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), k| (lo.min(k.v0), hi.max(k.v1)));
    if hi <= lo {
        return None;
    }
    let held = |tried: &Rows| {
        let pairs = pairs_on_rows(lines, tried);
        pairs_of_full_rows(&pairs, lines.len()).fold((0, 0.0), |(n, run), p| (n + 1, run + p.run))
    };
    let unfanned = held(rows);
    // The fan and skew, tried `steps` each way around `around` `step` apart, whose pairs run
    // further than `best`'s.
    let seek = |best: &mut (Rows, (usize, f32)), around: Rows, steps: [i32; 2], step: [f32; 2]| {
        for f in -steps[0]..=steps[0] {
            let fan = around.fan + f as f32 * step[0] / (hi - lo);
            for k in -steps[1]..=steps[1] {
                let tried = Rows { slope: around.slope + k as f32 * step[1], fan, ..around };
                let (pairs, run) = held(&tried);
                if fan != 0.0 && run > best.1.1 {
                    *best = (tried, (pairs, run));
                }
            }
        }
    };
    let mut best = (*rows, unfanned);
    let coarse = [(MAX_FAN / COARSE_FAN_STEP) as i32, (MAX_UNSEEN_SKEW / COARSE_SKEW_STEP) as i32];
    seek(&mut best, Rows { slope: lean, fan: 0.0, ..*rows }, coarse, [COARSE_FAN_STEP, COARSE_SKEW_STEP]);
    let fine = [(COARSE_FAN_STEP / FAN_STEP) as i32, (COARSE_SKEW_STEP / SKEW_STEP) as i32];
    let around = best.0;
    seek(&mut best, around, fine, [FAN_STEP, SKEW_STEP]);
    let (fanned, (pairs, run)) = best;
    let n = lines.len() as f32;
    let enough = pairs as f32 >= (TABLE_PAIRS_PER_LINE * n).max(unfanned.0 as f32 + FAN_PAIRS_PER_LINE * n)
        && run >= FAN_GAIN * unfanned.1;
    (fanned.fan != 0.0 && enough).then_some(fanned)
}

/// `rows` refitted to its `pairs` of `lines`: the straight line, weighted by their runs, of
/// each pair's slope (as levelled) against where across it stands, added to the skew and
/// the fan. The search may settle on a neighbouring fan whose pairs run nearly as far
/// (clockwise_table_1 photographed 15% unblurred: 0.10 found, its pairs 406 against 407 at
/// 0.08, where its stacked heading cells read in order; CER 0.056 → 0.007).
fn refitted(lines: &[&KnownLine], pairs: &[RowPair], rows: &Rows) -> Rows {
    let levelled = |k: usize| rows.across(lines[k].middle(), lines[k].center());
    // Each pair: where across it stands, its slope, its run.
    let points: Vec<[f32; 3]> =
        pairs.iter().map(|p| [(levelled(p.lines[0]) + levelled(p.lines[1])) / 2.0, p.slope, p.run]).collect();
    let weight: f32 = pairs.iter().map(|p| p.run).sum();
    let mean = |f: &dyn Fn(&[f32; 3]) -> f32| points.iter().map(|p| f(p) * p[2]).sum::<f32>() / weight;
    let (v, slope) = (mean(&|p| p[0]), mean(&|p| p[1]));
    let spread = mean(&|p| (p[0] - v).powi(2));
    if spread <= 0.0 || !spread.is_finite() {
        return *rows;
    }
    let fan = mean(&|p| (p[0] - v) * (p[1] - slope)) / spread;
    let slope = slope + fan * (rows.mid[1] - v);
    Rows { slope: rows.slope + slope, fan: rows.fan + fan, ..*rows }
}

/// Skews are tried this far apart (across per along) at last: a 2,000 px row's ends
/// meet within a pixel.
const SKEW_STEP: f32 = 0.0005;
/// A skew tried is a table's where the pairs it sets on rows of three lines or more number
/// at least this many per line: la-precinct-bulletin turned 1° and 1.5° held 1.9 at its
/// skew, nics-background-checks turned 1.5° 9.3; on level pages the best of the other
/// skews held 0.67 at most (federal-register's two columns; labor.pdf, us-007 and us-001's
/// staggered baselines 0.14–0.28), where counting any pair moved their text.
const TABLE_PAIRS_PER_LINE: f32 = 1.0;

/// `rows` at the skew, up to `MAX_TABLE_SKEW` from its own (`COARSE_SKEW_STEP` apart, then
/// `SKEW_STEP` apart around the best; the least of equals), that sets the most pairs of lines
/// on rows of three or more (`pairs_of_full_rows`), where they are a table's
/// (`TABLE_PAIRS_PER_LINE`): nics-background-checks turned 1.5° has no long line whose box
/// leans, its cells' boxes all drawn level. None where no skew sets so many.
fn table_skew(lines: &[&KnownLine], rows: &Rows) -> Option<Rows> {
    let held = |slope: f32| pairs_of_full_rows(&pairs_on_rows(lines, &Rows { slope, ..*rows }), lines.len()).count();
    // The skew `around`, or `steps` steps of `step` either way, nearest first, holding most.
    let best_of = |around: f32, steps: i32, step: f32| {
        (0..=steps).flat_map(|k| [k, -k]).skip(1).map(|k| around + k as f32 * step).fold((around, 0), |best, slope| {
            let tried = (slope, held(slope));
            if tried.1 > best.1 { tried } else { best }
        })
    };
    let (coarse, _) = best_of(rows.slope, (MAX_TABLE_SKEW / COARSE_SKEW_STEP) as i32, COARSE_SKEW_STEP);
    let (slope, most) = best_of(coarse, (COARSE_SKEW_STEP / SKEW_STEP) as i32, SKEW_STEP);
    (most as f32 >= TABLE_PAIRS_PER_LINE * lines.len() as f32).then_some(Rows { slope, ..*rows })
}

/// Those of `pairs` (of `n` lines) that join lines that each share their row with two others
/// or more: level columns of prose whose baselines are staggered pair up line by line at some
/// skew, but only a true skew sets three or more cells of a table's rows on one row.
fn pairs_of_full_rows(pairs: &[RowPair], n: usize) -> impl Iterator<Item = &RowPair> {
    let mut partners = vec![0usize; n];
    for p in pairs {
        partners[p.lines[0]] += 1;
        partners[p.lines[1]] += 1;
    }
    pairs.iter().filter(move |p| p.lines.iter().all(|&k| partners[k] >= 2))
}

/// A pair of lines on one row (`pairs_on_rows`): the two (indices), the slope between them
/// (across per along, as levelled) and their run.
struct RowPair {
    lines: [usize; 2],
    slope: f32,
    run: f32,
}

/// The pairs of `lines` on one row (`ROW_CENTER_TOLERANCE`) far apart along it
/// (`SKEW_MIN_RUN`) once levelled as `rows` run.
fn pairs_on_rows(lines: &[&KnownLine], rows: &Rows) -> Vec<RowPair> {
    let centre: Vec<f32> = lines.iter().map(|k| rows.across(k.middle(), k.center())).collect();
    let mut by_v: Vec<usize> = (0..lines.len()).collect();
    by_v.sort_by(|&a, &b| centre[a].total_cmp(&centre[b]));
    let mut pairs = Vec::new();
    for (n, &i) in by_v.iter().enumerate() {
        let a = lines[i];
        // The thinner of a pair is no thicker than `a`, so no line further across pairs with it.
        let reach = ROW_CENTER_TOLERANCE * (a.v1 - a.v0);
        for &j in by_v[n + 1..].iter().take_while(|&&j| centre[j] - centre[i] < reach) {
            let b = lines[j];
            let thinner = (a.v1 - a.v0).min(b.v1 - b.v0);
            let run = ((b.u0 + b.u1) - (a.u0 + a.u1)) / 2.0;
            let apart = b.u0 > a.u1 || a.u0 > b.u1;
            let rise = centre[j] - centre[i];
            if apart && run.abs() >= SKEW_MIN_RUN * thinner && rise < ROW_CENTER_TOLERANCE * thinner {
                pairs.push(RowPair { lines: [i, j], slope: rise / run, run: run.abs() });
            }
        }
    }
    pairs
}

/// Two known lines are on one row (table cells, split boxes of one text line) when their
/// centres across lines differ by less than this fraction of the thinner one: adjacent
/// lines sit about one line height apart, and a neighbouring column's lines that fall
/// between ours half a line height...
const ROW_CENTER_TOLERANCE: f32 = 0.3;
/// ...or when the thinner lies within the thicker's extent across, to this fraction of its
/// own: a mark set high, as an asterisk in a table's cell (camelot's anticlockwise_table_1
/// read by OCR: its asterisks' centres 0.31 of their height above some of their row's,
/// which began rows of their own), where a cell's line set off its row's middle sticks out
/// (us-012's "Respondent", the first of two lines beside a row of one, 0.17).
const ROW_INSIDE_SLACK: f32 = 0.1;

/// Fills `page.words`, `page.lines` and `page.text` from lines already grouped: words split
/// at whitespace characters, lines on one row joined, rows and columns put in reading order.
pub fn assemble_known_lines(page: &mut Page, known: &[KnownLine]) {
    let has_text = |k: &KnownLine| k.chars.clone().any(|c| page.chars[c].text.chars().any(char::is_alphanumeric));
    let rows = lines_to_rows(known.iter().filter(|k| has_text(k)));
    let levelled: Vec<KnownLine> = known.iter().map(|k| k.levelled(&rows)).collect();
    let known = levelled.as_slice();
    let center = KnownLine::center;
    let mut by_v: Vec<usize> = (0..known.len()).filter(|&i| !known[i].chars.is_empty()).collect();
    by_v.sort_by(|&a, &b| center(&known[a]).total_cmp(&center(&known[b])));
    // Rows of text are anchored at their first line, so rows do not chain. Marks (lines
    // without a letter or figure: dot leaders, dashes, bullets) then join the row they fit
    // best but anchor none: the mark search boxes them loosely, and 12s0324's dot leaders,
    // set 0.3 of a row above their figures, came first by centre and split the row in two.
    let fits = |k: &KnownLine, a: &KnownLine| {
        let thinner = (k.v1 - k.v0).min(a.v1 - a.v0);
        let slack = ROW_INSIDE_SLACK * thinner;
        let inside = |a: &KnownLine, b: &KnownLine| a.v0 >= b.v0 - slack && a.v1 <= b.v1 + slack;
        (center(k) - center(a)).abs() < ROW_CENTER_TOLERANCE * thinner || inside(k, a) || inside(a, k)
    };
    let (text_lines, marks): (Vec<usize>, Vec<usize>) = by_v.iter().partition(|&&i| has_text(&known[i]));
    let mut anchors: Vec<usize> = Vec::new();
    let mut row_of = vec![0usize; known.len()];
    for i in text_lines {
        if !anchors.last().is_some_and(|&a| fits(&known[i], &known[a])) {
            anchors.push(i);
        }
        row_of[i] = anchors.len() - 1;
    }
    for i in marks {
        let k = &known[i];
        let best = (0..anchors.len()).filter(|&r| fits(k, &known[anchors[r]])).min_by(|&r, &s| {
            let off = |r: usize| (center(&known[anchors[r]]) - center(k)).abs();
            off(r).total_cmp(&off(s))
        });
        row_of[i] = best.unwrap_or_else(|| {
            anchors.push(i);
            anchors.len() - 1
        });
    }
    // Rows numbered across the page, as the reading order takes them.
    let mut rows_by_v: Vec<usize> = (0..anchors.len()).collect();
    rows_by_v.sort_by(|&r, &s| center(&known[anchors[r]]).total_cmp(&center(&known[anchors[s]])));
    let mut rank = vec![0usize; anchors.len()];
    for (n, &r) in rows_by_v.iter().enumerate() {
        rank[r] = n;
    }
    for &i in &by_v {
        row_of[i] = rank[row_of[i]];
    }
    // Across lines a segment is its text's middle em: a known line's box may carry margins
    // (OCR's detection boxes are 1.5 em high), which closed the gap under a title and made
    // the columns beside each other one region (UNLV 8071_093 read negated: CER 0.66).
    let segs: Vec<order::Segment> = by_v
        .iter()
        .map(|&i| {
            let k = &known[i];
            let half = (k.size / 2.0).min((k.v1 - k.v0) / 2.0);
            let (v0, v1) = (center(k) - half, center(k) + half);
            order::Segment { line: row_of[i], u0: k.u0, u1: k.u1, v0, v1, size: k.size.max(1.0) }
        })
        .collect();
    let chars = &page.chars;
    let mut words: Vec<Word> = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    for group in order::order_segments(&segs, order::Gutters::MayLean) {
        let start = words.len();
        for g in group {
            let range = known[by_v[g]].chars.clone();
            let idx: Vec<usize> = range.collect();
            for run in idx.split(|&c| is_blank(&chars[c])).filter(|r| !r.is_empty()) {
                words.push(make_word(chars, run, chars[run[0]].direction));
            }
        }
        let out = &words[start..];
        if out.is_empty() {
            continue;
        }
        let bbox = out.iter().skip(1).fold(out[0].bbox, |b, w| b.union(&w.bbox));
        let text = out.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
        lines.push(Line { text, bbox, direction: out[0].direction, words: start..words.len() });
    }
    page.text = lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n");
    page.words = words;
    page.lines = lines;
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsift_model::Matrix;

    fn ch(text: &str, x0: f32, top: f32, w: f32, size: f32) -> Char {
        Char {
            text: text.into(),
            bbox: BBox::new(x0, top, x0 + w, top + size),
            font: "F".into(),
            size,
            upright: true,
            direction: Direction::Ltr,
            origin: Origin::Native,
            matrix: Matrix([1.0, 0.0, 0.0, -1.0, x0, top + size]),
            color: Vec::new().into(),
            tag: None,
        }
    }

    fn page_of(chars: Vec<Char>) -> Page {
        Page { chars, ..Page::default() }
    }

    #[test]
    fn kerning_gap_is_not_a_space_but_a_real_gap_is() {
        // "Big" at 40pt with 4pt kerning gaps (0.1 em): pdfplumber's 3pt would split it.
        let mut p = page_of(vec![
            ch("B", 0.0, 0.0, 26.0, 40.0),
            ch("i", 30.0, 0.0, 10.0, 40.0),
            ch("g", 44.0, 0.0, 20.0, 40.0),
            ch("X", 80.0, 0.0, 20.0, 40.0),
        ]);
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.text, "Big X");
        let mut p2 = page_of(p.chars.clone());
        assemble(&mut p2, &TextOptions::pdfplumber());
        assert_eq!(p2.text, "B i g X");
    }

    #[test]
    fn lines_cluster_by_top_and_sort_by_x() {
        let mut p =
            page_of(vec![ch("b", 5.0, 20.0, 5.0, 10.0), ch("a", 0.0, 21.0, 5.0, 10.0), ch("c", 0.0, 40.0, 5.0, 10.0)]);
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.text, "ab\nc");
        assert_eq!(p.lines.len(), 2);
        assert_eq!(p.lines[0].words, 0..1);
    }

    #[test]
    fn an_ocr_word_is_as_sure_as_its_least_sure_letter_and_a_native_word_has_no_confidence() {
        let read = |text, x0, confidence| Char { origin: Origin::Ocr { confidence }, ..ch(text, x0, 0.0, 5.0, 10.0) };
        let mut p = page_of(vec![
            read("c", 0.0, 0.98),
            read("a", 5.0, 0.41),
            read("t", 10.0, 0.9),
            ch(" ", 15.0, 0.0, 3.0, 10.0),
            ch("d", 18.0, 0.0, 5.0, 10.0),
        ]);
        assemble(&mut p, &TextOptions::default());
        assert_eq!(
            p.words.iter().map(|w| (w.text.as_str(), w.confidence)).collect::<Vec<_>>(),
            [("cat", Some(0.41)), ("d", None)]
        );
    }

    #[test]
    fn space_chars_split_words_and_are_dropped() {
        let mut p =
            page_of(vec![ch("a", 0.0, 0.0, 5.0, 10.0), ch(" ", 5.0, 0.0, 1.0, 10.0), ch("b", 6.0, 0.0, 5.0, 10.0)]);
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.words.len(), 2);
        assert_eq!(p.text, "a b");
    }

    #[test]
    fn space_drawn_under_a_letter_is_not_a_word_break() {
        let mut p =
            page_of(vec![ch("8", 0.0, 0.0, 4.0, 8.0), ch(" ", 0.1, 0.0, 2.0, 8.0), ch("5", 4.0, 0.0, 4.0, 8.0)]);
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.text, "85");
    }

    #[test]
    fn overprinted_duplicates_removed_from_text_but_kept_as_chars() {
        let c = ch("a", 0.0, 0.0, 5.0, 10.0);
        let mut shifted = c.clone();
        shifted.bbox.x0 += 0.5;
        shifted.bbox.x1 += 0.5;
        let mut p = page_of(vec![c.clone(), shifted, ch("a", 5.0, 0.0, 5.0, 10.0)]);
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.text, "aa");
        assert_eq!(p.chars.len(), 3);
        let mut p = page_of(p.chars.clone());
        assemble(&mut p, &TextOptions { dedupe: false, ..TextOptions::default() });
        assert_eq!(p.text, "aaa");
    }

    #[test]
    fn a_pile_of_thousands_of_overprints_keeps_the_first_glyph_and_stays_linear() {
        // A mutated corpus PDF piled 13,381 glyphs at one spot: every glyph was compared with
        // every other, and the list of those to drop grew with each pair (over 100 s).
        let pile = vec![ch("a", 0.0, 0.0, 5.0, 10.0); 20_000];
        let mut p = page_of([pile, vec![ch("b", 5.0, 0.0, 5.0, 10.0)]].concat());
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.text, "ab");
        assert_eq!(p.chars.len(), 20_001);
    }

    #[test]
    fn split_on_font_separates_touching_words() {
        let a = ch("a", 0.0, 0.0, 5.0, 10.0);
        let mut b = ch("b", 5.0, 0.0, 5.0, 10.0);
        b.font = "G".into();
        let mut p = page_of(vec![a.clone(), b.clone()]);
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.text, "ab");
        let mut p = page_of(vec![a, b]);
        assemble(&mut p, &TextOptions { split_on: vec![SplitAttr::Font], ..TextOptions::default() });
        assert_eq!(p.text, "a b");
    }

    #[test]
    fn text_flow_keeps_content_order() {
        // Two columns drawn column by column: geometric order interleaves them, flow does not.
        let chars = vec![
            ch("a", 0.0, 0.0, 5.0, 10.0),
            ch("b", 0.0, 20.0, 5.0, 10.0),
            ch("c", 100.0, 0.0, 5.0, 10.0),
            ch("d", 100.0, 20.0, 5.0, 10.0),
        ];
        let mut p = page_of(chars.clone());
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.text, "a c\nb d");
        let mut p = page_of(chars);
        assemble(&mut p, &TextOptions { use_text_flow: true, ..TextOptions::default() });
        assert_eq!(p.text, "a\nb\nc\nd");
    }

    #[test]
    fn vertical_run_reads_top_to_bottom_columns_right_to_left() {
        let v = |t: &str, x0: f32, top: f32| Char { direction: Direction::Ttb, ..ch(t, x0, top, 10.0, 10.0) };
        let mut p = page_of(vec![v("一", 100.0, 0.0), v("二", 100.0, 10.0), v("三", 80.0, 0.0), v("四", 80.0, 10.0)]);
        assemble(&mut p, &TextOptions::default());
        assert_eq!(p.text, "一二\n三四");
        assert_eq!(p.words[0].direction, Direction::Ttb);
    }

    /// A page assembled from known lines (x, y, width, text) of 5-unit glyphs in boxes `box_h`
    /// high, the glyphs `ink_top` below each box's top.
    fn known_lines_page(lines: &[(f32, f32, f32, &str)], box_h: f32, ink_top: f32) -> Page {
        let mut chars = Vec::new();
        let mut known = Vec::new();
        for &(x, y, w, text) in lines {
            let start = chars.len();
            for (k, c) in text.chars().enumerate() {
                chars.push(ch(&c.to_string(), x + 5.0 * k as f32, y + ink_top, 5.0, 5.0));
            }
            known.push(KnownLine {
                chars: start..chars.len(),
                u0: x,
                u1: x + w,
                v0: y,
                v1: y + box_h,
                size: 5.0,
                tilt: 0.0,
            });
        }
        let mut p = page_of(chars);
        assemble_known_lines(&mut p, &known);
        p
    }

    #[test]
    fn known_lines_on_one_row_join_and_columns_read_in_order() {
        // Two columns of three rows (5 units high, so 12 em of prose is 60 wide); the left
        // column's rows are each split into two boxes.
        let p = known_lines_page(
            &[
                (0.0, 0.0, 70.0, "aa"),
                (80.0, 1.0, 70.0, "bb"),
                (0.0, 20.0, 70.0, "cc"),
                (80.0, 20.0, 70.0, "dd"),
                (0.0, 40.0, 70.0, "ee"),
                (80.0, 41.0, 70.0, "ff"),
                (200.0, 0.0, 150.0, "gg hh"),
                (200.0, 20.0, 150.0, "ii"),
                (200.0, 40.0, 150.0, "jj"),
            ],
            5.0,
            0.0,
        );
        assert_eq!(p.text, "aa bb\ncc dd\nee ff\ngg hh\nii\njj");
        assert_eq!(p.words.iter().filter(|w| w.text == "gg" || w.text == "hh").count(), 2);
    }

    #[test]
    fn boxes_with_margins_leave_the_gap_under_a_title_and_its_columns_read_in_order() {
        // Boxes 1.5 em high (OCR's), 10 apart: two columns of three lines of 5-unit text, the
        // right one half a line lower, and a title across both whose box reaches into the
        // last line's box.
        let p = known_lines_page(
            &[
                (0.0, 0.0, 70.0, "aa"),
                (0.0, 10.0, 70.0, "bb"),
                (0.0, 20.0, 70.0, "cc"),
                (80.0, 5.0, 70.0, "dd"),
                (80.0, 15.0, 70.0, "ee"),
                (80.0, 25.0, 70.0, "ff"),
                (0.0, 32.0, 150.0, "tt"),
            ],
            7.5,
            1.25,
        );
        assert_eq!(p.text, "aa\nbb\ncc\ndd\nee\nff\ntt");
    }

    /// A page assembled from known lines (x, top, bottom, text), each character 5 wide.
    fn cells_page(cells: &[(f32, f32, f32, &str)]) -> Page {
        cells_page_leaning(cells, |_| 0.0)
    }

    /// A page of `cells` (left, top, bottom, text) as OCR lines whose boxes lean as `tilt`
    /// says for their text.
    fn cells_page_leaning(cells: &[(f32, f32, f32, &str)], tilt: impl Fn(&str) -> f32) -> Page {
        let mut chars = Vec::new();
        let mut known = Vec::new();
        for &(x, top, bottom, text) in cells {
            let start = chars.len();
            for (k, c) in text.chars().enumerate() {
                chars.push(ch(&c.to_string(), x + 5.0 * k as f32, top, 5.0, bottom - top));
            }
            let u1 = x + 5.0 * text.chars().count() as f32;
            known.push(KnownLine {
                chars: start..chars.len(),
                u0: x,
                u1,
                v0: top,
                v1: bottom,
                size: bottom - top,
                tilt: tilt(text),
            });
        }
        let mut p = page_of(chars);
        assemble_known_lines(&mut p, &known);
        p
    }

    #[test]
    fn a_mark_set_high_in_a_table_row_joins_the_row_and_a_cells_line_set_off_it_does_not() {
        // A row 10 high with an asterisk 6 high at its top (camelot's anticlockwise_table_1:
        // its centre first, 0.33 of its height above the numbers'), and the next row.
        let p = cells_page(&[
            (0.0, 0.0, 10.0, "Uttar"),
            (60.0, 0.0, 6.0, "*"),
            (80.0, -0.2, 10.2, "581"),
            (120.0, 0.0, 10.0, "9860"),
            (0.0, 12.0, 22.0, "x"),
        ]);
        assert_eq!(p.text, "Uttar * 581 9860\nx");
        // us-012: a cell of two lines beside a row of one, its first line above the row's.
        let p = cells_page(&[
            (0.0, 242.7, 258.2, "OR"),
            (300.0, 240.8, 251.7, "Respondent"),
            (300.0, 252.5, 263.5, "unsure"),
            (400.0, 245.1, 257.3, "na"),
        ]);
        assert_eq!(p.text, "Respondent\nOR na\nunsure");
    }

    /// jpeg2000.pdf's table: rows 11 high, 10.5 apart, rising 3.5 across 560 (0.35°); each
    /// cell (x, text) a line of its own.
    fn skewed_table(rows: &[&[(f32, &str)]]) -> Vec<(f32, f32, f32, String)> {
        let rise = |x: f32| -3.5 * x / 560.0;
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for &(x, text) in row.iter() {
                let top = 10.5 * r as f32 + rise(x + 2.5 * text.len() as f32);
                cells.push((x, top, top + 11.0, text.to_string()));
            }
        }
        cells
    }

    const SKEWED_ROWS: [&[(f32, &str)]; 4] = [
        &[(0.0, "Ballots"), (224.0, "363"), (324.0, "14"), (440.0, "116"), (560.0, "163")],
        &[(0.0, "Turnout"), (254.0, "61.63")],
        &[(0.0, "Republican"), (224.0, "149"), (324.0, "8"), (440.0, "45"), (560.0, "60")],
        &[(0.0, "Democratic"), (224.0, "36"), (324.0, "2"), (440.0, "11"), (560.0, "16")],
    ];

    /// Ten rows 14 apart of `fields` (each with its row's number), `pitch` apart along, rising
    /// `slope` across per along (2.5 per character wide, 11 high).
    fn rows_at_slope(fields: &[&str], pitch: f32, slope: f32) -> Vec<(f32, f32, f32, String)> {
        (0..10)
            .flat_map(|r| {
                fields.iter().enumerate().map(move |(c, field)| {
                    let (x, text) = (pitch * c as f32, format!("{field}{r}"));
                    let top = 14.0 * r as f32 + slope * (x + 2.5 * text.len() as f32);
                    (x, top, top + 11.0, text)
                })
            })
            .collect()
    }

    fn known_cells(cells: &[(f32, f32, f32, String)]) -> Vec<KnownLine> {
        let width = |t: &String| 5.0 * t.chars().count() as f32;
        cells
            .iter()
            .map(|(x, top, bottom, t)| KnownLine {
                chars: 0..1,
                u0: *x,
                u1: x + width(t),
                v0: *top,
                v1: *bottom,
                size: 11.0,
                tilt: 0.0,
            })
            .collect()
    }

    #[test]
    fn a_skew_too_small_for_the_boxes_is_measured_from_the_rows() {
        let skewed = known_cells(&skewed_table(&SKEWED_ROWS));
        let rows = lines_to_rows(skewed.iter());
        assert!((rows.slope + 3.5 / 560.0).abs() < 0.001 && rows.fan == 0.0, "{rows:?}");
        let level: Vec<KnownLine> = skewed.iter().map(|k| k.levelled(&rows)).collect();
        assert!(lines_to_rows(level.iter()).slope.abs() < 0.001);
        // Too few pairs say nothing.
        assert_eq!(lines_to_rows(skewed[..3].iter()), Rows::default());
    }

    #[test]
    fn rows_rising_their_spacing_across_the_page_are_read_one_by_one() {
        // la-precinct-bulletin skewed 1.5°: fields 300 pt apart on rows 14 pt apart, so the
        // first field of a row stands level with the last but one of the row above; DB's
        // long boxes lean with the rows.
        let slope = 0.026;
        let cells = rows_at_slope(&["GOVERNOR", "YES", "NO", "TOTAL"], 300.0, slope);
        let leaning: Vec<KnownLine> = known_cells(&cells).into_iter().map(|k| KnownLine { tilt: slope, ..k }).collect();
        let measured = lines_to_rows(leaning.iter()).slope;
        assert!((measured - slope).abs() < 0.001, "{measured}");
        // Boxes drawn level (nics-background-checks turned 1.5°): the rows of a table say it.
        let measured = lines_to_rows(known_cells(&cells).iter()).slope;
        assert!((measured - slope).abs() < 0.001, "{measured}");
        let cells: Vec<(f32, f32, f32, &str)> = cells.iter().map(|(x, t, b, s)| (*x, *t, *b, s.as_str())).collect();
        let p = cells_page_leaning(&cells, |_| slope);
        assert!(p.text.starts_with("GOVERNOR0 YES0 NO0 TOTAL0\nGOVERNOR1 YES1 NO1 TOTAL1\n"), "{}", p.text);
        // Two level columns of prose, their baselines staggered by half a line (labor.pdf),
        // pair up line by line at a skew their boxes do not lean by.
        let prose: Vec<(f32, f32, f32, String)> = (0..30)
            .flat_map(|r| [(0.0, 14.0 * r as f32), (300.0, 14.0 * r as f32 + 7.0)])
            .map(|(x, top)| (x, top, top + 11.0, "w".repeat(50)))
            .collect();
        assert_eq!(lines_to_rows(known_cells(&prose).iter()), Rows::default());
        // Boxes leaning on a level page (rotated_page's rows of dot leaders) level nothing.
        let level: Vec<KnownLine> =
            known_cells(&skewed_table(&SKEWED_ROWS)).into_iter().map(|k| KnownLine { tilt: 0.01, ..k }).collect();
        assert!((lines_to_rows(level.iter()).slope + 3.5 / 560.0).abs() < 0.001);
    }

    #[test]
    fn a_table_skewed_4_degrees_whose_short_cells_db_drew_level_is_levelled_by_its_long_lines() {
        // issue-336's table photographed at 4°: DB leans its long lines' boxes with the rows
        // and draws its short cells level, so the frame (their median) stays level and the
        // rows run 0.07 from it, past `MAX_UNSEEN_SKEW`, rising four rows across the table.
        let slope = 0.07;
        let fields = ["ROAD CLASS AND NUMBER OF LANES", "2.5000", "60000", "20"];
        let row = |r: usize| fields.map(|f| format!("{f}{r}"));
        let cells = rows_at_slope(&fields, 250.0, slope);
        let cells: Vec<(f32, f32, f32, &str)> = cells.iter().map(|(x, t, b, s)| (*x, *t, *b, s.as_str())).collect();
        let p = cells_page_leaning(&cells, |text| if text.len() > 10 { slope } else { 0.0 });
        let read: Vec<&str> = p.text.lines().collect();
        assert_eq!(read.len(), 10, "{}", p.text);
        for (r, line) in read.iter().enumerate() {
            assert_eq!(*line, row(r).join(" "));
        }
    }

    #[test]
    fn a_table_of_short_cells_only_skewed_4_degrees_is_read_row_by_row() {
        // vertical_header photographed at 3.5–4.5°: DB drew every cell level and the page has
        // no long line, so the frame stays level while the rows rise five of themselves
        // across the table, past the fans' search (`MAX_UNSEEN_SKEW`).
        for slope in [0.07, -0.08] {
            let fields = ["Alcona", "963", "439", "55", "26", "47"];
            let cells = rows_at_slope(&fields, 250.0, slope);
            let cells: Vec<(f32, f32, f32, &str)> = cells.iter().map(|(x, t, b, s)| (*x, *t, *b, s.as_str())).collect();
            let p = cells_page(&cells);
            let read: Vec<&str> = p.text.lines().collect();
            assert_eq!(read.len(), 10, "{slope}: {}", p.text);
            for (r, line) in read.iter().enumerate() {
                assert_eq!(*line, fields.map(|f| format!("{f}{r}")).join(" "), "{slope}");
            }
        }
    }

    #[test]
    fn rows_of_a_table_photographed_at_a_slant_fan_out_and_are_read_one_by_one() {
        // A table of 20 rows 14 apart and six fields 200 apart whose rows meet 4,000 to the
        // left of its first field, level with its middle row (nics-background-checks turned
        // and photographed with one side nearer): its first and last rows slope 2° either
        // way, rising or falling more than two rows across it.
        let (meet_u, meet_v) = (-4000.0, 140.0);
        let cells: Vec<(f32, f32, f32, String)> = (0..20)
            .flat_map(|r| {
                (0..6).map(move |c| {
                    let x = 200.0 * c as f32;
                    let label = format!("r{r:02}c{c}");
                    let middle = x + 2.5 * label.len() as f32;
                    let centre = meet_v + (14.0 * r as f32 - meet_v) * (middle - meet_u) / -meet_u;
                    (x, centre - 5.5, centre + 5.5, label)
                })
            })
            .collect();
        // Rows through the point they meet run 1 across per the distance along to it more.
        let rows = lines_to_rows(known_cells(&cells).iter());
        let fan = 1.0 / (rows.mid[0] - meet_u);
        assert!((rows.fan / fan - 1.0).abs() < 0.02, "{rows:?}, fan {fan}");
        let cells: Vec<(f32, f32, f32, &str)> = cells.iter().map(|(x, t, b, s)| (*x, *t, *b, s.as_str())).collect();
        let p = cells_page(&cells);
        let read: Vec<&str> = p.text.lines().collect();
        assert_eq!(read.len(), 20, "{}", p.text);
        for (r, line) in read.iter().enumerate() {
            assert_eq!(*line, (0..6).map(|c| format!("r{r:02}c{c}")).collect::<Vec<_>>().join(" "));
        }
        // The same table flat has rows that do not fan.
        let flat: Vec<(f32, f32, f32, String)> = (0..20)
            .flat_map(|r| {
                (0..6).map(move |c| (200.0 * c as f32, 14.0 * r as f32, 14.0 * r as f32 + 11.0, format!("r{r:02}c{c}")))
            })
            .collect();
        assert_eq!(lines_to_rows(known_cells(&flat).iter()).fan, 0.0);
    }

    #[test]
    fn a_row_of_a_scan_skewed_too_little_to_see_keeps_its_label_before_its_figures() {
        let cells = skewed_table(&SKEWED_ROWS);
        let p = cells_page(&cells.iter().map(|(x, t, b, s)| (*x, *t, *b, s.as_str())).collect::<Vec<_>>());
        assert_eq!(p.text, "Ballots 363 14 116 163\nTurnout 61.63\nRepublican 149 8 45 60\nDemocratic 36 2 11 16");
    }

    #[test]
    fn a_dot_leader_set_off_its_row_joins_the_row_but_does_not_split_it() {
        // 12s0324 read by OCR: a dot leader boxed 0.3 of a row above its row's figures came
        // first by centre, took two figures into a row of its own and left the label alone.
        let p = cells_page(&[
            (0.0, 163.7, 172.4, "Arson"),
            (100.0, 163.6, 172.2, "9.8"),
            (75.0, 168.2, 178.0, "…"),
            (150.0, 170.9, 180.9, "175.3"),
            (100.0, 171.1, 180.9, "1,061.3"),
            (0.0, 172.0, 180.2, "Other assaults"),
        ]);
        assert_eq!(p.text, "Arson 9.8\nOther assaults … 1,061.3 175.3");
        // Marks on no row of text still make rows of their own, in order down the page.
        let p = cells_page(&[(0.0, 0.0, 10.0, "- - -"), (0.0, 20.0, 30.0, "aa"), (0.0, 40.0, 50.0, "•")]);
        assert_eq!(p.text, "- - -\naa\n•");
    }
}
