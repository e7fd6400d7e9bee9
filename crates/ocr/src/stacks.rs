//! Boxes DB drew down a table's column across its rows, cut back into one box per row. A
//! table of cells a digit or two wide set close above one another reads to DB like a word
//! turned a quarter: nics-background-checks' page drew single figures of two or three rows
//! as one box taller than wide, which was read as turned text ("20" for a "2" above a "0")
//! in the row of neither; on the page shown turned a quarter, a "6" was lost so into its
//! neighbour row's "2". A box read across the page's lines is cut where its ink is parted by
//! blank rows and every piece lies on a row of the page's lines, about that row's print
//! high; text truly turned (a column's heading set sideways) holds words whose ink runs
//! longer than a row's print and lies on no row of it.

use image::RgbImage;

use crate::geometry::{Quad, quarter_turns, reading_angle, turn_between};
use crate::glyphs::CropInk;
use crate::gutters::columns_to_runs;
use crate::page::BOX_HEIGHT_EM;
use crate::rec::crop_quad;

/// A piece of ink lies on a row where its middle is this many of the row's box heights
/// from the row's middle or closer (`gutters::SAME_LINE`: the next row is a box height off).
const ON_ROW: f32 = 0.25;
/// A piece's ink runs along the box this many ems of its row's print or more (a lower-case
/// letter's height, 0.5, less a tenth)...
const MIN_PIECE_EM: f32 = 0.4;
/// ... and this many at most (a line's tallest letters, with a descender, run 1 em).
const MAX_PIECE_EM: f32 = 1.2;
/// Pieces are parted by blank rows this many ems of their print or more: rows set solid
/// leave 0.2 em between capitals and the next row's ascenders; nics-background-checks'
/// figures, 0.6 em.
const MIN_GAP_EM: f32 = 0.15;

/// Ink along a box's side this many times longer than thick is a table's rule leaning into
/// it: nics-background-checks photographed turned 4° had a column rule run 26 px by 2 along
/// a stack's box, joining its figures' runs into one; a glyph stands off the box's sides.
const RULE_LENGTH: usize = 4;

/// The quads, each read across the page's lines cut into one box per row where its ink lies
/// on rows of them (see the module's comment), each piece read along the page's lines.
pub fn quads_cut_at_rows(img: &RgbImage, quads: Vec<Quad>) -> Vec<Quad> {
    if quads.len() < crate::det::MIN_BOXES_FOR_SIZE {
        return quads;
    }
    let page = reading_angle(quads.iter());
    let along = |q: &Quad| quarter_turns(turn_between(q.angle(), page)) == 0;
    let rows: Vec<Quad> = quads.iter().filter(|q| along(q)).copied().collect();
    let mut out = Vec::with_capacity(quads.len());
    for q in quads {
        let turned = quarter_turns(turn_between(q.angle(), page)) % 2 == 1;
        match turned.then(|| cuts_at_rows(&ink_spans(img, &q), &q, &rows)).flatten() {
            Some(cuts) => out.extend(cuts.windows(2).map(|c| read_along(&q.slice(c[0], c[1]), page))),
            None => out.push(q),
        }
    }
    out
}

/// Runs of a box's ink along it, as fractions `[start, end)`: columns of a crop a page pixel
/// per column holding ink of glyphs, not of a rule running its whole length or across it.
fn ink_spans(img: &RgbImage, q: &Quad) -> Vec<[f32; 2]> {
    let (w, h) = (q.width().round().max(1.0) as usize, q.height().round().max(1.0) as usize);
    let ink = CropInk::of(&crop_quad(img, q, w, h));
    // A rule runs the box's whole length or across it, or leans in along a side, thin and as
    // long as the box is wide.
    let rule = |b: &[usize; 4]| {
        let (along, across) = (b[2] + 1 - b[0], b[3] + 1 - b[1]);
        let along_a_side = (b[1] == 0 || b[3] + 1 == h) && along >= h && along >= RULE_LENGTH * across;
        (b[0] == 0 && b[2] + 1 == w) || (b[1] == 0 && b[3] + 1 == h) || along_a_side
    };
    let kept: Vec<bool> = ink.boxes.iter().map(|b| !rule(b)).collect();
    let mut inked = vec![false; w];
    for (i, &o) in ink.owner.iter().enumerate() {
        if kept.get(o).copied().unwrap_or(false) {
            inked[i % w] = true;
        }
    }
    // Every blank column parts runs; `cuts_at_rows` joins those nearer than a row's gap.
    columns_to_runs(&inked, 1.0).into_iter().map(|r| r.map(|v| v as f32 / w as f32)).collect()
}

/// Where to cut `q` (fractions along it, from 0 to 1): at the middles of the gaps between
/// pieces of its ink (`spans`) that each lie on a row of `rows` and are about that row's
/// print high, each on its own row, where there are two pieces or more; None otherwise.
/// Spans nearer than `MIN_GAP_EM` of the row's print join one piece.
fn cuts_at_rows(spans: &[[f32; 2]], q: &Quad, rows: &[Quad]) -> Option<Vec<f32>> {
    let len = q.width();
    // The row a piece of ink lies on, and that row's em, in page pixels.
    let row_of = |[a, b]: [f32; 2]| {
        let middle = q.at((a + b) / 2.0, 0.5);
        let long = (b - a) * len;
        rows.iter().enumerate().find_map(|(k, r)| {
            let em = r.height() / BOX_HEIGHT_EM;
            let fits = (MIN_PIECE_EM * em..=MAX_PIECE_EM * em).contains(&long);
            (fits && r.across(middle).abs() <= ON_ROW * r.height()).then_some((k, em))
        })
    };
    // A run at the box's very end, shorter than print beside a piece of print, is the next
    // row's ink that the box's margin reached.
    let sliver = |s: [f32; 2], next: [f32; 2]| {
        (s[0] <= 0.0 || s[1] >= 1.0) && row_of(next).is_some_and(|(_, em)| (s[1] - s[0]) * len < MIN_PIECE_EM * em)
    };
    let mut spans = spans;
    if let [first, second, ..] = spans
        && sliver(*first, *second)
    {
        spans = &spans[1..];
    }
    if let [.., before, last] = spans
        && sliver(*last, *before)
    {
        spans = &spans[..spans.len() - 1];
    }
    let mut pieces: Vec<([f32; 2], usize)> = Vec::new();
    let mut open: Option<[f32; 2]> = None;
    for &span in spans {
        open = Some(match open {
            None => span,
            Some(p) => {
                // Two runs nearer than a row's gap are one piece, whatever row they are on.
                let gap = (span[0] - p[1]) * len;
                let em = row_of(p).or(row_of(span)).map_or(f32::INFINITY, |(_, em)| em);
                if gap < MIN_GAP_EM * em {
                    [p[0], span[1]]
                } else {
                    pieces.push((p, row_of(p)?.0));
                    span
                }
            }
        });
    }
    let last = open?;
    pieces.push((last, row_of(last)?.0));
    // Each piece off the row the one before it lies on.
    let own_row = |w: &[([f32; 2], usize)]| {
        let (row, [a, b]) = (&rows[w[0].1], w[1].0);
        row.across(q.at((a + b) / 2.0, 0.5)).abs() > ON_ROW * row.height()
    };
    if pieces.len() < 2 || !pieces.windows(2).all(own_row) {
        return None;
    }
    let mut cuts = vec![0.0];
    cuts.extend(pieces.windows(2).map(|w| (w[0].0[1] + w[1].0[0]) / 2.0));
    cuts.push(1.0);
    Some(cuts)
}

/// `q` turned by quarters to read along the page's lines (angle `page`).
fn read_along(q: &Quad, page: f32) -> Quad {
    let mut turned = *q;
    // Three turns at most: a box too small to have a direction reads as it is.
    for _ in 0..3 {
        if quarter_turns(turn_between(turned.angle(), page)) == 0 {
            break;
        }
        turned = turned.quarter_turn();
    }
    turned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{paint, rect};

    /// A page of eight rows 40 px apart, each a label box (print 14 px high in a box 30 px
    /// high, an em of 20) and a figure 8 px wide in a column at x 200 from row `from` on, the
    /// figures' glyphs `gap` px apart down the column (26 between rows; less where they run
    /// on as one turned word); boxes for the labels and one turned box over the column from
    /// row `from` to row `to`.
    fn page(from: u32, to: u32, gap: u32) -> (RgbImage, Vec<Quad>) {
        let mut img = RgbImage::from_pixel(400, 360, image::Rgb([255, 255, 255]));
        let mut quads = Vec::new();
        for r in 0..8 {
            let y = 20 + 40 * r;
            for x in (20..90).step_by(12) {
                paint(&mut img, x, y, 8, 14);
            }
            quads.push(rect(10.0, y as f32 - 8.0, 100.0, y as f32 + 22.0));
        }
        let (top, bottom) = (20 + 40 * from, 20 + 40 * to + 14);
        let mut y = top;
        while y + 14 <= bottom {
            paint(&mut img, 200, y, 8, 14);
            y += 14 + gap;
        }
        quads.push(rect(194.0, top as f32 - 6.0, 214.0, bottom as f32 + 6.0).quarter_turn());
        (img, quads)
    }

    #[test]
    fn a_box_drawn_down_a_column_across_rows_is_read_as_one_box_per_row() {
        let (img, quads) = page(2, 3, 26);
        let out = quads_cut_at_rows(&img, quads);
        assert_eq!(out.len(), 10);
        let pieces: Vec<[f32; 4]> = out[8..].iter().map(Quad::bounds).collect();
        // Cut in the blank between the rows' figures (y 114 to 140), each piece read along
        // the page's lines.
        assert!(out[8..].iter().all(|q| turn_between(q.angle(), 0.0).abs() < 0.01), "{out:?}");
        assert!((pieces[0][1] - 94.0).abs() < 0.5 && (126.0..128.0).contains(&pieces[0][3]), "{pieces:?}");
        assert!((126.0..128.0).contains(&pieces[1][1]) && (pieces[1][3] - 160.0).abs() < 0.5, "{pieces:?}");
    }

    #[test]
    fn a_box_down_a_column_whose_ends_reach_the_next_rows_figures_is_still_cut_at_rows() {
        // nics-background-checks photographed turned 4°: the boxes' margins took in a pixel
        // or two of the figures above and below, a run of ink on no row, and the column was
        // read as a turned word.
        let (mut img, quads) = page(2, 3, 26);
        paint(&mut img, 200, 94, 8, 1);
        paint(&mut img, 200, 159, 8, 1);
        let out = quads_cut_at_rows(&img, quads);
        assert_eq!(out.len(), 10, "{out:?}");
        assert!(out[8..].iter().all(|q| turn_between(q.angle(), 0.0).abs() < 0.01), "{out:?}");
    }

    #[test]
    fn a_box_down_a_column_that_a_rule_leans_into_is_still_cut_at_rows() {
        // The column's rule runs in along the box's side past the gap between its figures.
        let (mut img, quads) = page(2, 3, 26);
        paint(&mut img, 212, 110, 2, 50);
        let out = quads_cut_at_rows(&img, quads);
        assert_eq!(out.len(), 10, "{out:?}");
    }

    #[test]
    fn a_word_turned_a_quarter_and_figures_off_the_rows_stay_one_box() {
        // Letters 2 px apart from row 2 to row 4: one run of ink longer than a row's print.
        let (img, quads) = page(2, 4, 2);
        assert_eq!(quads_cut_at_rows(&img, quads.clone()), quads);
        // Two figures between rows (20 px off them): neither lies on a row.
        let (mut img, mut quads) = page(0, 0, 0);
        quads.pop();
        for y in [80, 120] {
            paint(&mut img, 300, y, 8, 14);
        }
        quads.push(rect(294.0, 74.0, 314.0, 140.0).quarter_turn());
        assert_eq!(quads_cut_at_rows(&img, quads.clone()), quads);
    }
}
