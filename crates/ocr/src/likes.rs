//! Lone glyphs read unsurely, read again by the page's surely read lone glyphs of the same
//! ink. Recognition reads a glyph alone in its box (a table's "Y" cells) without the word that
//! tells its case and its kin: medicine.pdf's "Y" cells, one font, one size, read "Y" at
//! 0.86–0.95 in most rows and "y", "Y" or "V" at 0.34–0.49 in others. A lone glyph read under
//! `MIN_LINE_CONFIDENCE` is kept from recognition only until here: it takes the reading of a
//! sure one whose ink it matches, and is left out where none does.

use std::collections::HashMap;

use image::RgbImage;

use crate::glyphs::{CropInk, best_overlap};
use crate::rec::crop_quad;
use crate::{MIN_LINE_CONFIDENCE, OcrChar, OcrLine};

/// A lone glyph read this surely or more reads the lone glyphs whose ink it matches: a
/// reading as sure as a detected word's (medicine.pdf's sure "Y"s 0.69–0.95, its unsure ones
/// 0.34–0.49).
const LIKE_MIN_CONFIDENCE: f32 = 0.8;
/// ... where their ink overlaps this much or more (`glyphs::best_overlap`, the pixels both
/// cover over those either covers): medicine.pdf's "Y"s, one glyph at other phases of the
/// pixel grid, 0.80–0.93; over page 1 of the 284 corpus PDFs no other unsure glyph reached
/// 0.69 with a sure one, nor 0.48 with one of another reading ...
const LIKE_MIN_OVERLAP: f32 = 0.75;
/// ... of at most this many of the surest per character read, so a page of many like cells
/// costs a few comparisons per unsure one.
const LIKES_PER_CHAR: usize = 8;

/// Whether what a line read unsurely is one letter or figure, kept from recognition for
/// `lone_glyphs_read_by_their_likes`.
pub fn may_be_read_by_likes(decoded: &[crate::rec::Decoded]) -> bool {
    matches!(decoded, [d] if d.ch.is_alphanumeric())
}

/// The letter or figure a line holds alone, if it does.
fn lone_glyph(line: &OcrLine) -> Option<char> {
    let mut read = line.chars.iter().filter(|c| c.ch != ' ');
    match (read.next(), read.next()) {
        (Some(c), None) if c.ch.is_alphanumeric() => Some(c.ch),
        _ => None,
    }
}

/// A sure lone glyph: what it reads, how surely, and its ink (`glyph_ink`).
#[cfg_attr(test, derive(Clone))]
struct Like {
    ch: char,
    confidence: f32,
    ink: Vec<(isize, isize)>,
}

/// The page's sure lone glyphs (`LIKE_MIN_CONFIDENCE`), the surest `LIKES_PER_CHAR` of each
/// character.
fn sure_likes(img: &RgbImage, lines: &[OcrLine]) -> Vec<Like> {
    let mut by_char: HashMap<char, Vec<&OcrLine>> = HashMap::new();
    for l in lines.iter().filter(|l| l.confidence >= LIKE_MIN_CONFIDENCE) {
        if let Some(ch) = lone_glyph(l) {
            by_char.entry(ch).or_default().push(l);
        }
    }
    by_char
        .into_iter()
        .flat_map(|(ch, mut ls)| {
            ls.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
            ls.truncate(LIKES_PER_CHAR);
            ls.into_iter().filter_map(move |l| Some(Like { ch, confidence: l.confidence, ink: glyph_ink(img, l)? }))
        })
        .collect()
}

/// What a glyph of `ink` reads as by the likes it matches: the character of the one it
/// overlaps most, where that reaches `LIKE_MIN_OVERLAP`, with the lesser of the overlap and
/// that like's confidence.
fn ink_to_like_reading(ink: &[(isize, isize)], likes: &[Like]) -> Option<(char, f32)> {
    let (like, overlap) =
        likes.iter().map(|like| (like, best_overlap(&like.ink, ink))).max_by(|a, b| a.1.total_cmp(&b.1))?;
    (overlap >= LIKE_MIN_OVERLAP).then(|| (like.ch, overlap.min(like.confidence)))
}

/// A line's ink within its box on the page: the pixels of the blobs clear of its crop's
/// edges (a cell's rules reach them), from the ink's top-left corner; None where it has none.
fn glyph_ink(img: &RgbImage, line: &OcrLine) -> Option<Vec<(isize, isize)>> {
    let q = &line.quad;
    let (w, h) = (q.width().round().max(1.0) as usize, q.height().round().max(1.0) as usize);
    let ink = CropInk::of(&crop_quad(img, q, w, h));
    let clear = |b: &[usize; 4]| b[0] > 0 && b[1] > 0 && b[2] + 1 < ink.w && b[3] + 1 < ink.h;
    let kept: Vec<usize> = (0..ink.boxes.len()).filter(|&k| clear(&ink.boxes[k])).collect();
    let x0 = kept.iter().map(|&k| ink.boxes[k][0]).min()?;
    let y0 = kept.iter().map(|&k| ink.boxes[k][1]).min()?;
    let pixels = (0..ink.owner.len())
        .filter(|&i| kept.contains(&ink.owner[i]))
        .map(|i| ((i % ink.w) as isize - x0 as isize, (i / ink.w) as isize - y0 as isize))
        .collect();
    Some(pixels)
}

/// The page's lines with each lone glyph read under `MIN_LINE_CONFIDENCE` read as the sure
/// lone glyph whose ink it matches (`ink_to_like_reading`), or left out where none does;
/// other lines as they are.
pub fn lone_glyphs_read_by_their_likes(img: &RgbImage, lines: Vec<OcrLine>) -> Vec<OcrLine> {
    let unsure = |l: &OcrLine| l.confidence < MIN_LINE_CONFIDENCE && lone_glyph(l).is_some();
    if !lines.iter().any(unsure) {
        return lines;
    }
    let likes = sure_likes(img, &lines);
    let read_by_likes = |line: OcrLine| {
        let (ch, confidence) = ink_to_like_reading(&glyph_ink(img, &line)?, &likes)?;
        let chars = line.chars.into_iter().filter(|c| c.ch != ' ').map(|c| OcrChar { ch, confidence, ..c }).collect();
        Some(OcrLine { text: ch.to_string(), chars, confidence, latin: None, ..line })
    };
    lines.into_iter().filter_map(|l| if unsure(&l) { read_by_likes(l) } else { Some(l) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{line, paint, rect};

    /// A glyph like a "T" at (x, 10) on `img`: a bar 12 px wide and 3 high over a stem 3 wide
    /// and 16 high; `stem_at` moves the stem along the bar (4 centres it, 0 makes an "Г").
    fn glyph(img: &mut RgbImage, x: u32, stem_at: u32) {
        paint(img, x, 10, 12, 3);
        paint(img, x + stem_at, 13, 3, 13);
    }

    /// Its box: 8 px of paper around it.
    fn glyph_box(x: u32) -> crate::Quad {
        rect(x as f32 - 8.0, 2.0, x as f32 + 20.0, 34.0)
    }

    #[test]
    fn a_lone_glyph_read_unsurely_reads_as_a_sure_one_of_its_ink_and_is_left_out_without_one() {
        let mut img = RgbImage::from_pixel(200, 40, image::Rgb([250, 250, 250]));
        for (x, stem_at) in [(20, 4), (60, 4), (100, 0), (140, 4)] {
            glyph(&mut img, x, stem_at);
        }
        let lines = vec![
            line("T", glyph_box(20), 0.95),
            line("t", glyph_box(60), 0.4),
            line("T", glyph_box(100), 0.3),
            line("Tt", glyph_box(140), 0.4),
        ];
        let read = lone_glyphs_read_by_their_likes(&img, lines.clone());
        let texts: Vec<(&str, bool)> = read.iter().map(|l| (l.text.as_str(), l.confidence >= 0.8)).collect();
        assert_eq!(
            texts,
            [("T", true), ("T", true), ("Tt", false)],
            "the unlike one left out; a line of more than one glyph is not matched"
        );
        assert_eq!(read[1].quad, lines[1].quad);
        assert_eq!(read[1].chars[0].ch, 'T');
    }

    #[test]
    fn a_page_without_unsure_lines_keeps_them_as_they_are() {
        let img = RgbImage::from_pixel(60, 40, image::Rgb([250, 250, 250]));
        let lines = vec![line("Y", glyph_box(20), 0.6)];
        assert_eq!(lone_glyphs_read_by_their_likes(&img, lines.clone()), lines);
    }

    #[test]
    fn a_glyph_takes_the_reading_of_the_like_it_overlaps_most_when_near_enough() {
        let bar =
            |w: isize, h: isize| -> Vec<(isize, isize)> { (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).collect() };
        let likes =
            [Like { ch: 'I', confidence: 0.9, ink: bar(3, 16) }, Like { ch: 'l', confidence: 0.85, ink: bar(3, 20) }];
        assert_eq!(ink_to_like_reading(&bar(3, 19), &likes), Some(('l', 0.85)));
        assert_eq!(ink_to_like_reading(&bar(3, 17), &likes), Some(('I', 0.9)), "its overlap 16/17 over the like's 0.9");
        let few = [Like { confidence: 0.99, ..likes[0].clone() }];
        let read = ink_to_like_reading(&bar(3, 17), &few);
        let overlap = |(ch, c): (char, f32)| ch == 'I' && (c - 16.0 / 17.0).abs() < 1e-5;
        assert!(read.is_some_and(overlap), "the overlap under the like's 0.99: {read:?}");
        assert_eq!(ink_to_like_reading(&bar(6, 16), &likes), None, "twice as wide");
        assert_eq!(ink_to_like_reading(&bar(3, 16), &[]), None);
    }
}
