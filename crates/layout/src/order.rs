//! Reading order across columns: a recursive XY-cut over line segments (pieces of lines
//! split at wide gaps). A region is cut vertically only at a gutter with prose on both
//! sides — so a two-column paper reads column by column while line-numbered transcripts
//! and numeric tables keep their row order — and otherwise horizontally at its widest
//! gap, which isolates full-width titles and footers from the columns below them. On a page
//! read by OCR a gutter may lean, as a photographed page's converging columns have it.

/// A gap inside a line wider than this (in em) may be a column gutter: split the line
/// there. Word spaces, even on loose justified lines, stay below one em.
pub const SEGMENT_GAP_EM: f32 = 1.0;
/// A gutter must be at least this wide (in em) to separate columns: LaTeX's two-column
/// gutter is one em of its body text, and OCR measures it narrower: sizes estimated from its
/// boxes run a tenth high, and a blurred photo's ink ends reach into it (labor.pdf's 1.05 em
/// gutter, photographed through a camera's shrink, measured 0.80).
const MIN_GUTTER_EM: f32 = 0.7;
/// Both sides of a gutter must be prose: segments at least this wide (median, in em)...
const COLUMN_MIN_WIDTH_EM: f32 = 12.0;
/// ...and at least this many of them.
const COLUMN_MIN_SEGMENTS: usize = 3;
/// Where no gutter stands upright, one leaning up to this far (u per v) is sought: a page
/// photographed from below its middle has its columns converge, and labor.pdf photographed
/// keystoned 15% and turned 3° had its gutter, a fifth of the page right of the middle, lean
/// 0.012 after levelling, which closed it over the columns' height (CER 0.37)...
const MAX_GUTTER_LEAN: f32 = 0.05;
/// ...in steps this fine: a gutter's edge is then off by under 2 px over 1,000 px of column.
const GUTTER_LEAN_STEP: f32 = 0.0025;
/// A leaning gutter is sought only among this many prose-wide segments or more: each side's
/// median must be one, two of its three segments at least.
const MIN_WIDE_SEGMENTS: usize = 4;
/// Recursion bound; deeper regions are read line by line.
const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug)]
pub struct Segment {
    /// Index of the geometric line the segment belongs to (lines are in v order).
    pub line: usize,
    /// Extent in the reading frame: u along the text, v across lines.
    pub u0: f32,
    pub u1: f32,
    pub v0: f32,
    pub v1: f32,
    pub size: f32,
}

/// The upper median (0 for none).
pub fn median(mut v: Vec<f32>) -> f32 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

/// The median of `(value, weight)` pairs, each counting as much as its weight: the value at
/// which the weights below reach half of all (0 for none).
pub fn weighted_median(mut v: Vec<(f32, f32)>) -> f32 {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = v.iter().map(|p| p.1).sum::<f32>() / 2.0;
    let mut seen = 0.0;
    v.iter()
        .find(|p| {
            seen += p.1;
            seen >= half
        })
        .map_or(0.0, |p| p.0)
}

/// Whether column gutters may lean: a page read by OCR from a photo has its columns converge;
/// a born-digital page's stand upright, and its text's many regions are not searched again
/// at each lean (a fifth more time over the corpus's PDFs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gutters {
    Upright,
    MayLean,
}

/// Orders segments; each returned group is one output line (segments of one geometric
/// line inside one region), groups in reading order.
pub fn order_segments(segs: &[Segment], gutters: Gutters) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    cut(segs, (0..segs.len()).collect(), gutters, 0, &mut out);
    out
}

fn cut(segs: &[Segment], idx: Vec<usize>, gutters: Gutters, depth: usize, out: &mut Vec<Vec<usize>>) {
    if idx.len() <= 1 || depth >= MAX_DEPTH {
        leaf(segs, idx, out);
        return;
    }
    let size = median(idx.iter().map(|&i| segs[i].size).collect()).max(1.0);
    let vertical = best_gutter(segs, &idx, size, 0.0)
        .or_else(|| (gutters == Gutters::MayLean).then(|| leaning_gutter(segs, &idx, size)).flatten());
    let horizontal = widest_gap(segs, &idx, |s| (s.v0, s.v1));
    let (at, lean) = match (vertical, horizontal) {
        (Some((x, w, lean)), h) if h.is_none_or(|(_, hh)| w >= hh) => (x, Some(lean)),
        (_, Some((y, _))) => (y, None),
        _ => {
            leaf(segs, idx, out);
            return;
        }
    };
    let (first, second): (Vec<usize>, Vec<usize>) = idx.into_iter().partition(|&i| match lean {
        Some(lean) => segs[i].leant(lean).1 <= at,
        None => segs[i].v1 <= at,
    });
    if first.is_empty() || second.is_empty() {
        leaf(segs, first.into_iter().chain(second).collect(), out);
        return;
    }
    cut(segs, first, gutters, depth + 1, out);
    cut(segs, second, gutters, depth + 1, out);
}

/// The widest empty band along one axis: (cut position, width).
fn widest_gap(segs: &[Segment], idx: &[usize], extent: impl Fn(&Segment) -> (f32, f32)) -> Option<(f32, f32)> {
    let mut spans: Vec<(f32, f32)> = idx.iter().map(|&i| extent(&segs[i])).collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best: Option<(f32, f32)> = None;
    let mut reach = spans.first()?.1;
    for &(a, b) in &spans[1..] {
        let gap = a - reach;
        if gap > 0.0 && best.is_none_or(|(_, w)| gap > w) {
            best = Some(((a + reach) / 2.0, gap));
        }
        reach = reach.max(b);
    }
    best
}

impl Segment {
    /// Its extent along the text where u is measured from a line leaning `lean` (u per v)
    /// through its middle across.
    fn leant(&self, lean: f32) -> (f32, f32) {
        let shift = lean * (self.v0 + self.v1) / 2.0;
        (self.u0 - shift, self.u1 - shift)
    }
}

/// The widest gutter leaning up to `MAX_GUTTER_LEAN`, the least lean among equals:
/// (cut position, width, lean).
fn leaning_gutter(segs: &[Segment], idx: &[usize], size: f32) -> Option<(f32, f32, f32)> {
    let wide = idx.iter().filter(|&&i| segs[i].u1 - segs[i].u0 >= COLUMN_MIN_WIDTH_EM * size).count();
    if wide < MIN_WIDE_SEGMENTS {
        return None;
    }
    let steps = (MAX_GUTTER_LEAN / GUTTER_LEAN_STEP).round() as i32;
    (1..=steps)
        .flat_map(|k| [k, -k])
        .filter_map(|k| best_gutter(segs, idx, size, k as f32 * GUTTER_LEAN_STEP))
        .fold(None, |best: Option<(f32, f32, f32)>, g| if best.is_some_and(|b| b.1 >= g.1) { best } else { Some(g) })
}

/// The widest gutter leaning `lean` with prose columns on both sides: (cut position, width,
/// lean).
fn best_gutter(segs: &[Segment], idx: &[usize], size: f32, lean: f32) -> Option<(f32, f32, f32)> {
    let mut spans: Vec<(f32, f32)> = idx.iter().map(|&i| segs[i].leant(lean)).collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best: Option<(f32, f32, f32)> = None;
    let mut reach = spans.first()?.1;
    for &(a, b) in &spans[1..] {
        let gap = a - reach;
        if gap >= MIN_GUTTER_EM * size && best.is_none_or(|(_, w, _)| gap > w) {
            let at = (a + reach) / 2.0;
            let side = |left: bool| -> Vec<f32> {
                idx.iter()
                    .map(|&i| segs[i].leant(lean))
                    .filter(|&(u0, u1)| if left { u1 <= at } else { u0 >= at })
                    .map(|(u0, u1)| u1 - u0)
                    .collect()
            };
            let prose = |w: Vec<f32>| w.len() >= COLUMN_MIN_SEGMENTS && median(w) >= COLUMN_MIN_WIDTH_EM * size;
            if prose(side(true)) && prose(side(false)) {
                best = Some((at, gap, lean));
            }
        }
        reach = reach.max(b);
    }
    best
}

fn leaf(segs: &[Segment], mut idx: Vec<usize>, out: &mut Vec<Vec<usize>>) {
    idx.sort_by(|&a, &b| segs[a].line.cmp(&segs[b].line).then(segs[a].u0.total_cmp(&segs[b].u0)));
    let mut group: Vec<usize> = Vec::new();
    for i in idx {
        if group.last().is_some_and(|&g| segs[g].line != segs[i].line) {
            out.push(std::mem::take(&mut group));
        }
        group.push(i);
    }
    if !group.is_empty() {
        out.push(group);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(line: usize, u0: f32, u1: f32, v0: f32) -> Segment {
        Segment { line, u0, u1, v0, v1: v0 + 10.0, size: 10.0 }
    }

    #[test]
    fn a_weighted_median_counts_each_value_by_its_weight() {
        assert_eq!(weighted_median(vec![(0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (2.0, 5.0)]), 2.0);
        assert_eq!(weighted_median(vec![(3.0, 1.0), (1.0, 1.0), (2.0, 1.0)]), 2.0);
        assert_eq!(weighted_median(Vec::new()), 0.0);
    }

    #[test]
    fn two_columns_under_a_title_read_column_by_column() {
        let mut s = vec![seg(0, 0.0, 400.0, 0.0)];
        for (k, v) in [30.0, 42.0, 54.0, 66.0].iter().enumerate() {
            s.push(seg(k + 1, 0.0, 180.0, *v));
            s.push(seg(k + 1, 220.0, 400.0, *v));
        }
        let order: Vec<Vec<usize>> = order_segments(&s, Gutters::Upright);
        let flat: Vec<usize> = order.iter().flatten().copied().collect();
        assert_eq!(flat, vec![0, 1, 3, 5, 7, 2, 4, 6, 8]);
    }

    #[test]
    fn a_gutter_of_one_em_read_from_ocr_boxes_still_parts_columns() {
        // 10pt segments, as OCR estimates sizes a tenth high from 9pt text in a 9pt gutter.
        let mut s = Vec::new();
        for (k, v) in [0.0, 12.0, 24.0, 36.0].iter().enumerate() {
            s.push(seg(k, 0.0, 180.0, *v));
            s.push(seg(k, 189.0, 370.0, *v));
        }
        let flat: Vec<usize> = order_segments(&s, Gutters::Upright).into_iter().flatten().collect();
        assert_eq!(flat, vec![0, 2, 4, 6, 1, 3, 5, 7]);
    }

    #[test]
    fn a_gutter_a_blurred_photo_narrows_to_four_fifths_of_an_em_still_parts_columns() {
        // labor.pdf's second and third columns as OCR measured them in a photo shrunk by a
        // camera: sizes 18.7 px, inked ends 14.9 px apart, a paragraph's gap midway.
        let mut s = Vec::new();
        for (k, v) in [0.0, 22.5, 45.0, 72.5, 95.0].iter().enumerate() {
            s.push(Segment { line: k, u0: 0.0, u1: 330.0, v0: *v, v1: v + 18.7, size: 18.7 });
            s.push(Segment { line: k, u0: 344.9, u1: 670.0, v0: *v, v1: v + 18.7, size: 18.7 });
        }
        let flat: Vec<usize> = order_segments(&s, Gutters::Upright).into_iter().flatten().collect();
        assert_eq!(flat, vec![0, 2, 4, 6, 8, 1, 3, 5, 7, 9]);
    }

    #[test]
    fn columns_whose_gutter_leans_as_a_photographed_page_converges_read_column_by_column() {
        // A 1.2 em gutter leaning 0.03: over 40 lines its edges drift 14 px, past its width, so
        // no upright band parts the columns.
        let mut s = Vec::new();
        for k in 0..40 {
            let (v, drift) = (k as f32 * 12.0, k as f32 * 12.0 * 0.03);
            s.push(seg(k, drift, 180.0 + drift, v));
            s.push(seg(k, 192.0 + drift, 370.0 + drift, v));
        }
        let flat: Vec<usize> = order_segments(&s, Gutters::MayLean).into_iter().flatten().collect();
        let by_column: Vec<usize> = (0..40).map(|k| 2 * k).chain((0..40).map(|k| 2 * k + 1)).collect();
        assert_eq!(flat, by_column);
        // A born-digital page's gutters are not sought leaning.
        let upright: Vec<usize> = order_segments(&s, Gutters::Upright).into_iter().flatten().collect();
        assert_ne!(upright, by_column);
    }

    #[test]
    fn line_numbers_beside_text_keep_row_order() {
        let mut s = Vec::new();
        for k in 0..5 {
            s.push(seg(k, 0.0, 10.0, k as f32 * 24.0));
            s.push(seg(k, 40.0, 400.0, k as f32 * 24.0));
        }
        let order = order_segments(&s, Gutters::Upright);
        assert_eq!(order.len(), 5);
        assert_eq!(order[0], vec![0, 1]);
    }
}
