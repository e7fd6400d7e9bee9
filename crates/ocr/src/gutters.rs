//! Detected lines cut at column gutters: DB joins the lines of two columns into one box
//! where their gutter is narrow next to the print (UNLV 8071_093 turned −10°: the first
//! lines of its last two columns were single boxes, which kept the reading order from
//! finding the gutter, and the columns were read across, line by line). A box's ink is looked
//! at in its middle em; a gap there as wide as a gutter is one when the lines around it,
//! of the same print, stop or start beside it rather than run across it: loosely justified
//! columns have word spaces as wide (UNLV's magazine columns, upright, a few of them).
//! The other way, boxes that detection split at a word space of a title's line are joined.

use image::RgbImage;

use crate::geometry::{Point, Quad, dot, sub, turn_between};
use crate::marks::{Ink, SAME_DIRECTION};
use crate::page::BOX_HEIGHT_EM;
use crate::rec::crop_quad;

/// A blank run across a line's middle em at least this wide (em) may be a gutter: LaTeX's
/// is one em, and OCR's sizes run a tenth high.
const MIN_GAP_EM: f32 = 0.8;
/// Both sides of a gutter hold at least this much ink along the line (em): a list's bullet
/// or number before its indent, alone, reads as nothing sure (pdfplumber issue-598's
/// bullets were lost so), and what a gutter parts is text.
const MIN_PIECE_EM: f32 = 2.5;
/// A line's middle em is looked at this many columns an em along (a gap of `MIN_GAP_EM` is
/// 13 of them)...
const COLUMNS_PER_EM: f32 = 16.0;
/// ...and this many rows across, a twentieth of an em apart: a hyphen's stroke shows (a tenth
/// apart missed labor.pdf's at 200 dpi, 0.07 em thick, and cut "under-" before it).
const MIDDLE_ROWS: usize = 20;
/// Each piece keeps this much of the gap on its side (em), as DB's box margins hold.
const PIECE_MARGIN_EM: f32 = 0.25;
/// Lines whose centres are this many of the line's box heights away across the text or
/// closer are its neighbours: three lines of body text above and below.
const NEIGHBOUR_REACH: f32 = 2.5;
/// Neighbours' box heights are within this ratio of the line's: a title's gap is not a
/// gutter because body text beside it stops there.
const SAME_PRINT: f32 = 1.4;
/// A neighbour that stops or starts in a gap or this close to it (em) takes its side of a
/// gutter: a paragraph's indent, a ragged line's end; the next column's lines start further
/// from a wide word space (UNLV upright, 2 em).
const COLUMN_EDGE_EM: f32 = 1.5;
/// A gap is a gutter when it has at least this many edges (a gutter has up to a dozen, from
/// three lines above and below in each column; a wide space after an East Asian comma had
/// two, from lines ending near it)...
const MIN_EDGES: usize = 3;
/// ...and this many times as many as run across it: a line of the same print across the
/// whole page, such as a footnote, may cross a gutter's end.
const EDGES_PER_CROSSING: usize = 3;

/// Boxes whose centres are this many of a box's heights apart across its text or closer
/// are on one line: the next line's are a box height off (body text set 1.2 em apart in
/// boxes 1.5 em high, less their margins).
const SAME_LINE: f32 = 0.25;
/// Two boxes of one line whose ink is less than this far apart (em of their print) may be
/// one line that detection split at a word space (the reading order's `SEGMENT_GAP_EM`:
/// word spaces, even in a title's loose setting, stay below an em).
const WORD_SPACE_MAX_EM: f32 = 1.0;

/// The quads, each cut at the gaps in its middle em that are column gutters, then those
/// detection split at a word space of a line of their own print joined (see the module's
/// comment); `ink`: the page's (`Ink::of_page`).
pub fn quads_at_gutters(img: &RgbImage, quads: Vec<Quad>, ink: Ink) -> Vec<Quad> {
    let runs: Vec<Vec<[f32; 2]>> = quads.iter().map(|q| ink_runs(img, q, ink)).collect();
    let (quads, runs) = quads_cut_at_gutters(&quads, &runs);
    quads_joined_at_word_spaces(&quads, &runs)
}

/// The quads, each cut at the gaps in its middle em that are column gutters, with their ink
/// runs (`ink_runs`: those of a piece, in its own fractions).
fn quads_cut_at_gutters(quads: &[Quad], runs: &[Vec<[f32; 2]>]) -> (Vec<Quad>, Vec<Vec<[f32; 2]>>) {
    let mut out = (Vec::with_capacity(quads.len()), Vec::with_capacity(quads.len()));
    for (i, q) in quads.iter().enumerate() {
        let (Some(first), Some(last)) = (runs[i].first(), runs[i].last()) else {
            out.0.push(*q);
            out.1.push(Vec::new());
            continue;
        };
        let em = q.height() / BOX_HEIGHT_EM / q.width().max(f32::MIN_POSITIVE);
        let mut piece = |from: f32, to: f32| {
            let span = (to - from).max(f32::MIN_POSITIVE);
            let inside = runs[i].iter().filter(|r| r[0] >= from && r[1] <= to);
            out.0.push(if (from, to) == (0.0, 1.0) { *q } else { q.slice(from, to) });
            out.1.push(inside.map(|r| r.map(|f| (f - from) / span)).collect());
        };
        let (mut start, mut ink_start) = (0.0, first[0]);
        for pair in runs[i].windows(2) {
            let (left, right) = (pair[0][1], pair[1][0]);
            let text_both_sides = left - ink_start >= MIN_PIECE_EM * em && last[1] - right >= MIN_PIECE_EM * em;
            if text_both_sides && is_gutter(quads, runs, i, [q.at(left, 0.5), q.at(right, 0.5)]) {
                piece(start, left + PIECE_MARGIN_EM * em);
                (start, ink_start) = (right - PIECE_MARGIN_EM * em, right);
            }
        }
        piece(start, 1.0);
    }
    out
}

/// The quads, with each run of boxes of one line whose ink stops and starts again less than
/// `WORD_SPACE_MAX_EM` apart joined into one box in the frame of its first, where no other
/// line of their print lies within `NEIGHBOUR_REACH` (a title, a heading): UNLV 8071_093
/// turned a quarter had its title in two boxes 0.85 em of its print apart, over the gutter
/// between two columns of body text, and the reading order took the gap for that gutter and
/// read the halves apart. Among lines of one print such a gap may be a table's or a column's
/// (joined, offense.pdf's cells "1-1614" and "CR" read as "1-1614CR"), and detection's boxes
/// are kept, as are boxes shorter than text (`is_text`): nics-background-checks' cells of a
/// digit or two, whose boxes may be drawn either way round, were joined across its rows (a
/// line "02" was read between two of them, each short of a digit).
fn quads_joined_at_word_spaces(quads: &[Quad], runs: &[Vec<[f32; 2]>]) -> Vec<Quad> {
    // Each box's nearest predecessor on its line, with their gap.
    let mut prev: Vec<Option<(usize, f32)>> = vec![None; quads.len()];
    for (i, q) in quads.iter().enumerate() {
        let Some(&[_, end]) = runs[i].last() else { continue };
        let (e, _) = q.axis();
        let h = q.height();
        if !is_text(q, &runs[i])
            || same_print(quads, i, NEIGHBOUR_REACH).any(|j| q.across(quads[j].centre()).abs() > SAME_LINE * h)
        {
            continue;
        }
        let l = q.at(end, 0.5);
        let after = |j: usize| Some((j, dot(sub(quads[j].at(runs[j].first()?[0], 0.5), l), e)));
        let nearest = same_print(quads, i, SAME_LINE)
            .filter(|&j| is_text(&quads[j], &runs[j]))
            .filter_map(after)
            .filter(|&(_, gap)| (0.0..WORD_SPACE_MAX_EM * h / BOX_HEIGHT_EM).contains(&gap))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((j, gap)) = nearest
            && prev[j].is_none_or(|(_, g)| gap < g)
        {
            prev[j] = Some((i, gap));
        }
    }
    let mut next: Vec<Option<usize>> = vec![None; quads.len()];
    for (j, p) in prev.iter().enumerate() {
        if let Some((i, _)) = *p {
            next[i] = Some(j);
        }
    }
    let mut used = vec![false; quads.len()];
    let mut out = Vec::with_capacity(quads.len());
    for head in (0..quads.len()).filter(|&i| prev[i].is_none()) {
        let q = &quads[head];
        let [mut u0, mut v0, mut u1, mut v1] = [0.0, 0.0, q.width() / q.height().max(f32::MIN_POSITIVE), 1.0];
        used[head] = true;
        let mut at = head;
        while let Some(j) = next[at].filter(|&j| !used[j]) {
            for [u, v] in quads[j].0.map(|p| q.in_frame(p)) {
                (u0, v0, u1, v1) = (u0.min(u), v0.min(v), u1.max(u), v1.max(v));
            }
            used[j] = true;
            at = j;
        }
        out.push(if at == head { *q } else { q.frame_quad([u0, v0, u1, v1]) });
    }
    // Boxes whose predecessors form a loop are kept as they are (none is met: a successor
    // starts after its predecessor ends, along the line).
    out.extend(quads.iter().zip(&used).filter(|(_, u)| !**u).map(|(q, _)| *q));
    out
}

/// Whether the gap of line `i` from `l` to `r` is a gutter. Its edges are where the
/// neighbours of the same print and direction that do not cross it stop before it or start
/// after it, in it or within `COLUMN_EDGE_EM` of it (a line detection also joined across it
/// has both); they are at least `MIN_EDGES`, and `EDGES_PER_CROSSING` times the neighbours
/// whose ink crosses it.
fn is_gutter(quads: &[Quad], runs: &[Vec<[f32; 2]>], i: usize, [l, r]: [Point; 2]) -> bool {
    let q = &quads[i];
    let (e, _) = q.axis();
    let edge = COLUMN_EDGE_EM * q.height() / BOX_HEIGHT_EM;
    let width = dot(sub(r, l), e);
    let (mut edges, mut across) = (0usize, 0usize);
    for j in same_print(quads, i, NEIGHBOUR_REACH) {
        // Along `q`'s text, from the gap's start: the neighbour's ink runs.
        let along = |f: f32| dot(sub(quads[j].at(f, 0.5), l), e);
        let spans = runs[j].iter().map(|&[a, b]| (along(a), along(b)));
        let half = width / 2.0;
        if spans.clone().any(|(a, b)| a < half && b > half) {
            across += 1;
        } else {
            edges += usize::from(spans.clone().any(|(_, b)| (-edge..=width).contains(&b)))
                + usize::from(spans.clone().any(|(a, _)| (0.0..=width + edge).contains(&a)));
        }
    }
    edges >= MIN_EDGES && edges >= EDGES_PER_CROSSING * across
}

/// Whether a box's ink runs `MIN_PIECE_EM` or more along it: text, where a box about as
/// long as high (a table's cell of a digit or two) may have been drawn either way round.
fn is_text(q: &Quad, runs: &[[f32; 2]]) -> bool {
    let (Some(first), Some(last)) = (runs.first(), runs.last()) else { return false };
    (last[1] - first[0]) * q.width() >= MIN_PIECE_EM * q.height() / BOX_HEIGHT_EM
}

/// The other boxes of box `i`'s print (`SAME_PRINT`) and direction whose centres lie within
/// `reach` of its box heights across its text.
fn same_print(quads: &[Quad], i: usize, reach: f32) -> impl Iterator<Item = usize> + '_ {
    let q = &quads[i];
    let (h, angle, centre, (e, _)) = (q.height(), q.angle(), q.centre(), q.axis());
    quads.iter().enumerate().filter_map(move |(j, n)| {
        // Across first, the cheap test: on a page most boxes are lines away.
        let near = j != i
            && dot(sub(n.centre(), centre), [-e[1], e[0]]).abs() <= reach * h
            && (1.0 / SAME_PRINT..=SAME_PRINT).contains(&(n.height() / h.max(f32::MIN_POSITIVE)))
            && turn_between(n.angle(), angle).abs() < SAME_DIRECTION;
        near.then_some(j)
    })
}

/// A line's ink, as runs (fractions along it) between gaps of `MIN_GAP_EM` or more in its
/// middle em; none for a blank one.
fn ink_runs(img: &RgbImage, q: &Quad, ink: Ink) -> Vec<[f32; 2]> {
    let ems = q.width() * BOX_HEIGHT_EM / q.height().max(f32::MIN_POSITIVE);
    let w = (ems * COLUMNS_PER_EM).ceil().max(1.0) as usize;
    let (top, bottom) = (0.5 - 0.5 / BOX_HEIGHT_EM, 0.5 + 0.5 / BOX_HEIGHT_EM);
    let middle = Quad([q.at(0.0, top), q.at(1.0, top), q.at(1.0, bottom), q.at(0.0, bottom)]);
    let crop = crop_quad(img, &middle, w, MIDDLE_ROWS);
    let inked: Vec<bool> =
        (0..w).map(|x| (0..MIDDLE_ROWS).any(|y| ink.is(crop.get_pixel(x as u32, y as u32)))).collect();
    let runs = columns_to_runs(&inked, MIN_GAP_EM * COLUMNS_PER_EM);
    runs.into_iter().map(|[a, b]| [a as f32 / w as f32, b as f32 / w as f32]).collect()
}

/// Runs `[start, end)` of inked columns, joined across blanks narrower than `min_gap`.
pub(crate) fn columns_to_runs(inked: &[bool], min_gap: f32) -> Vec<[usize; 2]> {
    let mut runs: Vec<[usize; 2]> = Vec::new();
    let mut x = 0;
    while let Some(start) = inked[x..].iter().position(|&i| i).map(|p| x + p) {
        let end = inked[start..].iter().position(|&i| !i).map_or(inked.len(), |p| start + p);
        match runs.last_mut() {
            Some(last) if ((start - last[1]) as f32) < min_gap => last[1] = end,
            _ => runs.push([start, end]),
        }
        x = end;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{paint, rect};

    fn columns(pattern: &str) -> Vec<bool> {
        pattern.chars().map(|c| c == '#').collect()
    }

    #[test]
    fn ink_runs_part_at_gaps_as_wide_as_a_gutter_and_not_at_word_spaces() {
        // A gap of 8 columns or more parts: word spaces of 3 and 5, a gutter of 9.
        let line = columns(" ####   ###     ####.........####   ### ");
        assert_eq!(columns_to_runs(&line, 8.0), vec![[1, 20], [29, 39]]);
        assert_eq!(columns_to_runs(&columns(" ####   ###     #### "), 8.0), vec![[1, 20]]);
        assert!(columns_to_runs(&columns("        "), 8.0).is_empty());
    }

    /// A page of `rows` lines in boxes 30 px high, 24 px apart, of 10-px blobs 14 px apart from x 20
    /// to 680, with a blank from 300 to 324 on each (a gutter) or only on the first (a wide
    /// word space); boxes across both columns on the first `joined` rows, one box per column
    /// below them.
    fn page(rows: u32, joined: u32, gutter_on_every_row: bool) -> (RgbImage, Vec<Quad>) {
        let mut img = RgbImage::from_pixel(700, 24 * rows + 30, image::Rgb([255, 255, 255]));
        let mut quads = Vec::new();
        for r in 0..rows {
            let y = 15 + 24 * r;
            let gap = r == 0 || gutter_on_every_row;
            for x in (20..680).step_by(14).filter(|&x| !gap || !(290..324).contains(&x)) {
                paint(&mut img, x, y + 7, 10, 15);
            }
            let (top, bottom) = (y as f32, y as f32 + 30.0);
            if r < joined || !gutter_on_every_row {
                quads.push(rect(10.0, top, 690.0, bottom));
            } else {
                quads.push(rect(10.0, top, 305.0, bottom));
                quads.push(rect(319.0, top, 690.0, bottom));
            }
        }
        (img, quads)
    }

    fn runs(img: &RgbImage, quads: &[Quad]) -> Vec<Vec<[f32; 2]>> {
        quads.iter().map(|q| ink_runs(img, q, Ink::of_page(img))).collect()
    }

    fn split(img: &RgbImage, quads: Vec<Quad>) -> Vec<[f32; 4]> {
        quads_cut_at_gutters(&quads, &runs(img, &quads)).0.iter().map(Quad::bounds).collect()
    }

    #[test]
    fn boxes_across_a_gutter_between_columns_are_read_as_one_line_per_column() {
        let (img, quads) = page(7, 2, true);
        let parts = split(&img, quads);
        assert_eq!(parts.len(), 14, "{parts:?}");
        // The joined boxes part in their gap (300..324 less the last blob's tail), each piece
        // with its margin (a quarter em: 5 px).
        let [l0, _, l1, _] = parts[0];
        let [r0, _, r1, _] = parts[1];
        assert!(l0 == 10.0 && (300.0..=310.0).contains(&l1), "{:?}", parts[0]);
        assert!((314.0..324.0).contains(&r0) && (r1 - 690.0).abs() < 0.5, "{:?}", parts[1]);
    }

    #[test]
    fn a_thin_hyphen_before_a_gutter_stays_with_its_line() {
        // labor.pdf's "under-" at 200 dpi: a hyphen's stroke a twentieth of an em thick (1 px
        // of 20) after the joined rows' last blob of the first column, 20 px from the next.
        let (mut img, quads) = page(7, 2, true);
        for y in [15, 39] {
            paint(&mut img, 298, y + 16, 6, 1);
        }
        let parts = split(&img, quads);
        assert_eq!(parts.len(), 14, "{parts:?}");
        for part in [parts[0], parts[2]] {
            assert!(part[2] >= 304.0, "{part:?}");
        }
    }

    #[test]
    fn a_wide_space_in_one_line_of_a_column_is_no_gutter() {
        let (img, quads) = page(7, 0, false);
        assert_eq!(split(&img, quads).len(), 7);
    }

    #[test]
    fn a_lists_bullets_stay_in_their_items_lines() {
        // Bullets 10 px wide (half an em), each 30 px before its item's text.
        let mut img = RgbImage::from_pixel(700, 200, image::Rgb([255, 255, 255]));
        let mut quads = Vec::new();
        for r in 0..7 {
            let y = 15 + 24 * r;
            paint(&mut img, 20, y + 10, 10, 10);
            for x in (60..680).step_by(14) {
                paint(&mut img, x, y + 7, 10, 15);
            }
            quads.push(rect(10.0, y as f32, 690.0, y as f32 + 30.0));
        }
        assert_eq!(split(&img, quads).len(), 7);
    }

    #[test]
    fn a_gap_in_a_title_beside_smaller_print_is_no_gutter() {
        let (img, mut quads) = page(7, 7, true);
        // The first line is drawn 60 px high: not the print of the columns beside it.
        quads[0] = rect(10.0, 0.0, 690.0, 60.0);
        let parts = split(&img, quads);
        assert_eq!(parts[0], [10.0, 0.0, 690.0, 60.0]);
        assert_eq!(parts.len(), 13, "{parts:?}");
    }

    /// `rows` lines of blobs in boxes 30 px high (an em of 20 px), each with a blank of 18 px
    /// (0.9 em) from x 296 and in two boxes parted there.
    fn rows_in_two_boxes(rows: u32) -> (RgbImage, Vec<Quad>) {
        let mut img = RgbImage::from_pixel(700, 24 * rows + 30, image::Rgb([255, 255, 255]));
        let mut quads = Vec::new();
        for r in 0..rows {
            let y = 15 + 24 * r;
            for x in (20..680).step_by(14).filter(|&x| x != 300) {
                paint(&mut img, x, y + 7, 10, 15);
            }
            quads.push(rect(10.0, y as f32, 301.0, y as f32 + 30.0));
            quads.push(rect(309.0, y as f32, 690.0, y as f32 + 30.0));
        }
        (img, quads)
    }

    #[test]
    fn a_line_detection_split_at_a_word_space_is_one_box_and_columns_as_near_stay_apart() {
        let join = |(img, quads): (RgbImage, Vec<Quad>)| {
            quads_joined_at_word_spaces(&quads, &runs(&img, &quads)).iter().map(Quad::bounds).collect::<Vec<_>>()
        };
        let one = join(rows_in_two_boxes(1));
        assert_eq!(one.len(), 1, "{one:?}");
        let want = [10.0, 15.0, 690.0, 45.0];
        assert!(one[0].iter().zip(want).all(|(a, b)| (a - b).abs() < 0.01), "{one:?}");
        // The same gap on seven lines in a column is a gutter.
        assert_eq!(join(rows_in_two_boxes(7)).len(), 14);
    }
}
