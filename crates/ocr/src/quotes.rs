//! Straight or curly quotation marks and apostrophes, told by their glyph's shape.
//!
//! The recognition model reads nearly every curly quotation mark as the straight one (on
//! page 1 of the corpus PDFs, 121 of 137 apostrophes printed "’" read "'", and none of 69
//! closing "”" read curly), and its own odds between the two do not follow the glyph: it
//! gave "’" 0.999 over upright wedges, and 0.001 over commas. A curly mark is a comma's
//! shape or a slanted wedge, a straight one an upright wedge. So a straight mark read is
//! curled where its ink's rows wander across (`CURLY_MIN_WANDER`), and whether it opens or
//! closes is told by where it stands in the line, as typesetting places it.

use crate::glyphs::{CropInk, steps_span};
use crate::rec::Decoded;

/// Least wander of a curly mark's ink: how far the middles of its rows move across, per row
/// of its height. A comma's tail swings out from its head and curls back, a curly sans-serif
/// wedge slants; an upright wedge's rows stay centred. Over the quotation marks of the
/// corpus's first pages at 200 dpi (5–14 pixels high on the page), 60 of 61 upright ones
/// wander 0.06 at most on the line's crop and 212 of 213 curly ones 0.08 or more.
const CURLY_MIN_WANDER: f32 = 0.07;
/// A mark's ink is at most this share of the crop's height (a letter's reaches the baseline)
/// and at least this share (a speck's or an i's dot is less) ...
const MARK_HEIGHT: [f32; 2] = [0.12, 0.45];
/// ... and starts in this top share of the crop, as quotation marks hang from the cap height.
const MARK_MAX_TOP: f32 = 0.4;
/// Marks before an opening quotation mark, besides a space or the line's start.
const BEFORE_OPENING: &[char] = &['(', '[', '{', '—', '–'];

/// Curls the straight quotation marks of a decoded line whose glyphs in `crop` (the line at
/// the model's height, `step_px` columns per step) wander as curly ones do: an opening one
/// (‘ “) at the line's start or after a space or a bracket and before a character, a closing
/// one (’ ”) elsewhere, as an apostrophe is.
pub fn curl_quotes(decoded: &mut [Decoded], ink: &CropInk, step_px: f32) {
    for i in 0..decoded.len() {
        if !matches!(decoded[i].ch, '\'' | '"') {
            continue;
        }
        if mark_wander(ink, steps_span(decoded, i, step_px)).is_none_or(|w| w < CURLY_MIN_WANDER) {
            continue;
        }
        let before = i.checked_sub(1).map(|k| decoded[k].ch);
        let after = decoded.get(i + 1).map(|n| n.ch);
        let opening = before.is_none_or(|c| c == ' ' || BEFORE_OPENING.contains(&c))
            && after.is_some_and(|c| c != ' ')
            && !stands_for_figures(decoded, i);
        decoded[i].ch = match (decoded[i].ch, opening) {
            ('\'', true) => '‘',
            ('\'', false) => '’',
            (_, true) => '“',
            (_, false) => '”',
        };
    }
}

/// An apostrophe standing for a year's first figures ("the ’90s", "class of ’05") closes,
/// though it starts a word; a quoted number ("‘42’") and a year ("‘1990") still open.
fn stands_for_figures(decoded: &[Decoded], i: usize) -> bool {
    let next = |k: usize| decoded.get(i + k).map(|d| d.ch);
    decoded[i].ch == '\''
        && next(1).is_some_and(|c| c.is_ascii_digit())
        && next(2).is_some_and(|c| c.is_ascii_digit())
        && next(3).is_none_or(|c| !c.is_ascii_digit() && !matches!(c, '\'' | '’'))
}

/// The wander of the quotation mark nearest the middle of columns `span`: None where no ink
/// there is a mark's size and place (`MARK_HEIGHT`, `MARK_MAX_TOP`).
fn mark_wander(ink: &CropInk, span: [f32; 2]) -> Option<f32> {
    let (w, h) = (ink.w, ink.h as f32);
    let k = ink.nearest(span, |b| {
        let height = (b[3] - b[1] + 1) as f32;
        (MARK_HEIGHT[0] * h..=MARK_HEIGHT[1] * h).contains(&height) && b[1] as f32 <= MARK_MAX_TOP * h
    })?;
    let [bx0, by0, bx1, by1] = ink.boxes[k];
    // The mark's pixels and the paper's edge about them (its grey fringe), not a
    // neighbour's ink.
    let mut pixels = Vec::new();
    for y in by0.saturating_sub(1)..(by1 + 2).min(ink.h) {
        for x in bx0.saturating_sub(1)..(bx1 + 2).min(w) {
            let i = y * w + x;
            let near = (y.saturating_sub(1)..(y + 2).min(ink.h))
                .any(|ny| (x.saturating_sub(1)..(x + 2).min(w)).any(|nx| ink.owner[ny * w + nx] == k));
            if near && (ink.owner[i] == k || ink.owner[i] == usize::MAX) {
                pixels.push((x as f32, y as f32, ink.weight(i)));
            }
        }
    }
    Some(wander(&pixels, by0 as f32, by1 as f32))
}

/// How far the middles of a mark's rows `top..=bottom` wander across, per row of its height,
/// from weighted pixels `(x, y, weight)`.
fn wander(pixels: &[(f32, f32, f32)], top: f32, bottom: f32) -> f32 {
    let rows = (bottom - top) as usize + 1;
    let mut sums = vec![(0.0f32, 0.0f32); rows];
    for &(x, y, w) in pixels.iter().filter(|p| (top..=bottom).contains(&p.1)) {
        let s = &mut sums[(y - top) as usize];
        *s = (s.0 + x * w, s.1 + w);
    }
    let middles = sums.iter().filter(|s| s.1 > 0.0).map(|s| s.0 / s.1);
    let (lo, hi) = middles.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), m| (lo.min(m), hi.max(m)));
    if hi >= lo { (hi - lo) / rows as f32 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(text: &str) -> Vec<Decoded> {
        text.chars()
            .enumerate()
            .map(|(i, ch)| Decoded { ch, first_step: 2 * i, last_step: 2 * i, confidence: 0.9 })
            .collect()
    }

    /// A crop 48 high with one mark per 16 columns, as `decoded` places them (8 columns a
    /// step, two steps a character): an upright wedge, or a comma (a round head with a tail
    /// running down to the left).
    fn crop_of(marks: &[Option<bool>]) -> image::RgbImage {
        let mut img = image::RgbImage::from_pixel(16 * marks.len() as u32, 48, image::Rgb([255; 3]));
        for (i, m) in marks.iter().enumerate() {
            let Some(curly) = m else { continue };
            let x = 16 * i as i32 + 8;
            let mut ink = |px: i32, py: i32| img.put_pixel(px as u32, py as u32, image::Rgb([0; 3]));
            if *curly {
                for (dy, (from, to)) in
                    [(-2, 1), (-2, 2), (-2, 2), (-2, 1), (-1, 1), (-2, 0), (-3, -1), (-4, -2)].into_iter().enumerate()
                {
                    (from..=to).for_each(|dx| ink(x + dx, 8 + dy as i32));
                }
            } else {
                for (dy, (from, to)) in
                    [(-2, 1), (-2, 1), (-2, 1), (-1, 1), (-1, 0), (-1, 0), (-1, 0), (-1, 0)].into_iter().enumerate()
                {
                    (from..=to).for_each(|dx| ink(x + dx, 8 + dy as i32));
                }
            }
        }
        img
    }

    fn curled(text: &str, marks: &[Option<bool>]) -> String {
        let mut d = decoded(text);
        curl_quotes(&mut d, &CropInk::of(&crop_of(marks)), 8.0);
        d.iter().map(|d| d.ch).collect()
    }

    #[test]
    fn a_comma_shaped_mark_read_straight_is_curled_and_an_upright_wedge_is_not() {
        assert_eq!(curled("'", &[Some(true)]), "’", "alone, before nothing: closes");
        assert_eq!(curled("'", &[Some(false)]), "'");
        assert_eq!(curled("\"", &[Some(true)]), "”");
        assert_eq!(curled("\"", &[Some(false)]), "\"");
    }

    #[test]
    fn a_curled_mark_opens_at_a_words_start_and_closes_after_one() {
        let (c, s, none) = (Some(true), Some(false), None);
        assert_eq!(curled("'a", &[c, none]), "‘a");
        assert_eq!(curled("a'", &[none, c]), "a’");
        assert_eq!(curled("a's", &[none, c, none]), "a’s", "an apostrophe closes");
        assert_eq!(curled("a \"b\"", &[none, none, c, none, c]), "a “b”");
        assert_eq!(curled("(\"b", &[none, c, none]), "(“b");
        assert_eq!(curled("a's \"b\"", &[none, s, none, none, s, none, c]), "a's \"b”", "each mark by its own ink");
    }

    #[test]
    fn an_apostrophe_for_a_years_first_figures_closes_at_a_words_start() {
        let (c, none) = (Some(true), None);
        assert_eq!(curled("the '90s", &[none, none, none, none, c, none, none, none]), "the ’90s");
        assert_eq!(curled("'05", &[c, none, none]), "’05");
        assert_eq!(curled("'42'", &[c, none, none, c]), "‘42’", "a quoted number");
        assert_eq!(curled("'1990", &[c, none, none, none, none]), "‘1990");
        assert_eq!(curled("\"90", &[c, none, none]), "“90", "a double mark is no apostrophe");
    }

    #[test]
    fn a_letter_beside_a_straight_mark_is_not_taken_for_it() {
        // A tall stroke (a letter's) under the mark's columns is no mark: nothing to curl.
        let mut img = crop_of(&[None]);
        for y in 4..40 {
            for x in 6..9 {
                img.put_pixel(x, y, image::Rgb([0; 3]));
            }
        }
        let mut d = decoded("'");
        curl_quotes(&mut d, &CropInk::of(&img), 8.0);
        assert_eq!(d[0].ch, '\'');
    }
}
