//! Lone glyphs (a letter, a figure or a bullet) read unsurely, read again by the page's surely
//! read lone glyphs of the same ink. Recognition reads a glyph alone in its box (a table's "Y"
//! cells) without the word that tells its case and its kin: medicine.pdf's "Y" cells, one
//! font, one size, read "Y" at 0.86–0.95 in most rows and "y", "Y" or "V" at 0.34–0.49 in
//! others; clockwise_table_1's asterisk cells read as 大 surely in some rows and at 0.38 in
//! others; birdisland's bullets boxed alone by DB read "0" or "•" at 0.32–0.39, where its
//! other bullets are read by their shape (`marks`). A lone glyph read under
//! `MIN_LINE_CONFIDENCE` is kept from recognition only until here: it takes the reading of a
//! sure one whose ink it matches, and is left out where none does.

use std::collections::HashMap;

use image::RgbImage;

use crate::glyphs::{CropInk, best_overlap};
use crate::marks::BULLET;
use crate::rec::crop_quad;
use crate::{MIN_LINE_CONFIDENCE, OcrChar, OcrLine, lone_char};

/// A lone glyph read this surely or more reads the lone glyphs whose ink it matches: a
/// reading as sure as a detected word's (medicine.pdf's sure "Y"s 0.69–0.95, its unsure ones
/// 0.34–0.49).
const LIKE_MIN_CONFIDENCE: f32 = 0.8;
/// ... where their ink overlaps this much or more (`glyphs::best_overlap`, the pixels both
/// cover over those either covers, `LIKE_SCALE` and `LIKE_REACH`): over page 1 of the 284
/// corpus PDFs, 32 lone glyphs read unsurely, the same glyph printed again overlapped 0.81–0.96
/// (medicine's "Y"s, two tables' asterisks), different ones 0.47 at most (issue-192's "3" and
/// "2") ...
const LIKE_MIN_OVERLAP: f32 = 0.75;
/// ... of at most this many of the surest per character read, so a page of many like cells
/// costs a few comparisons per unsure one.
const LIKES_PER_CHAR: usize = 8;
/// Glyphs are compared sampled this many times finer than the page's pixels, set together at
/// their ink's centres: compared at the page's pixels from their boxes' corners, the small
/// asterisks printed again overlapped 0.51–0.68, the "Y"s 0.80–0.93 ...
const LIKE_SCALE: usize = 3;
/// ... and moved up to this many fine pixels either way (two thirds of a page pixel).
const LIKE_REACH: isize = 2;
/// A bullet's box is grown by this share of its height to find its ink clear of the box's
/// edges: one read by its shape is boxed to its ink, where DB's boxes leave a margin (grown
/// so, clockwise_table_1's asterisk cells took in a rule's end and one was lost).
const LIKE_MARGIN: f32 = 0.2;

/// Whether what a line read unsurely is one letter or figure, kept from recognition for
/// `lone_glyphs_read_by_their_likes`.
pub fn may_be_read_by_likes(decoded: &[crate::rec::Decoded]) -> bool {
    matches!(decoded, [d] if is_glyph(d.ch))
}

/// Whether `c` is a letter, a figure or a bullet: a mark alone may be a speck's reading.
fn is_glyph(c: char) -> bool {
    c.is_alphanumeric() || c == BULLET
}

/// The letter, figure or bullet a line holds alone, if it does.
fn lone_glyph(line: &OcrLine) -> Option<char> {
    lone_char(&line.chars).map(|c| c.ch).filter(|&c| is_glyph(c))
}

/// A sure lone glyph: what it reads, how surely, its ink (`glyph_ink`), and what it reads in
/// Latin script where it read as an East Asian look-alike (`OcrLine::latin`), for the page
/// to choose between (`look_alikes`).
#[cfg_attr(test, derive(Clone))]
struct Like {
    ch: char,
    confidence: f32,
    ink: Vec<(isize, isize)>,
    latin: Option<(char, f32)>,
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
            ls.into_iter().filter_map(move |l| {
                let latin = l.latin.as_deref().and_then(|latin| Some((lone_char(&latin.chars)?.ch, latin.confidence)));
                Some(Like { ch, confidence: l.confidence, ink: glyph_ink(img, l)?, latin })
            })
        })
        .collect()
}

/// The like a glyph of `ink` matches: the one it overlaps most, where that reaches
/// `LIKE_MIN_OVERLAP`, and the overlap.
fn ink_to_like<'a>(ink: &[(isize, isize)], likes: &'a [Like]) -> Option<(&'a Like, f32)> {
    let (like, overlap) =
        likes.iter().map(|like| (like, best_overlap(&like.ink, ink, LIKE_REACH))).max_by(|a, b| a.1.total_cmp(&b.1))?;
    (overlap >= LIKE_MIN_OVERLAP).then_some((like, overlap))
}

/// A lone glyph's line read as `ch`, at `confidence`.
fn read_as(line: &OcrLine, ch: char, confidence: f32) -> OcrLine {
    let chars = line.chars.iter().filter(|c| c.ch != ' ').map(|c| OcrChar { ch, confidence, ..c.clone() }).collect();
    OcrLine { text: ch.to_string(), chars, confidence, latin: None, dashes: Vec::new(), ..line.clone() }
}

/// A line's ink within its box on the page, sampled `LIKE_SCALE` times finer: the pixels of
/// the blobs clear of its crop's edges (a cell's rules reach them), from the ink's centre;
/// None where it has none.
fn glyph_ink(img: &RgbImage, line: &OcrLine) -> Option<Vec<(isize, isize)>> {
    let margin = if lone_glyph(line) == Some(BULLET) { LIKE_MARGIN } else { 0.0 };
    let q = &line.quad.grown(margin * line.quad.height());
    let side = |v: f32| (v * LIKE_SCALE as f32).round().max(1.0) as usize;
    let ink = CropInk::of(&crop_quad(img, q, side(q.width()), side(q.height())));
    let clear = |b: &[usize; 4]| b[0] > 0 && b[1] > 0 && b[2] + 1 < ink.w && b[3] + 1 < ink.h;
    let kept: Vec<bool> = ink.boxes.iter().map(clear).collect();
    let pixels: Vec<(usize, usize)> = (0..ink.owner.len())
        .filter(|&i| kept.get(ink.owner[i]).copied().unwrap_or(false))
        .map(|i| (i % ink.w, i / ink.w))
        .collect();
    let n = pixels.len().max(1) as f32;
    let centre = |v: usize| (v as f32 / n).round() as isize;
    let (cx, cy) = (centre(pixels.iter().map(|p| p.0).sum()), centre(pixels.iter().map(|p| p.1).sum()));
    (!pixels.is_empty()).then(|| pixels.iter().map(|&(x, y)| (x as isize - cx, y as isize - cy)).collect())
}

/// The page's lines with each lone glyph read under `MIN_LINE_CONFIDENCE` read as the sure
/// lone glyph whose ink it matches (`ink_to_like`), or left out where none does;
/// other lines as they are.
pub fn lone_glyphs_read_by_their_likes(img: &RgbImage, lines: Vec<OcrLine>) -> Vec<OcrLine> {
    let unsure = |l: &OcrLine| l.confidence < MIN_LINE_CONFIDENCE && lone_glyph(l).is_some();
    if !lines.iter().any(unsure) {
        return lines;
    }
    let likes = sure_likes(img, &lines);
    // Read as its like, the lesser of their overlap and the like's confidence; its Latin
    // reading too, where the like has one.
    let read_by_likes = |line: &OcrLine| {
        let (like, overlap) = ink_to_like(&glyph_ink(img, line)?, &likes)?;
        let latin = like.latin.map(|(ch, confidence)| Box::new(read_as(line, ch, confidence.min(overlap))));
        Some(OcrLine { latin, ..read_as(line, like.ch, like.confidence.min(overlap)) })
    };
    lines.into_iter().filter_map(|l| if unsure(&l) { read_by_likes(&l) } else { Some(l) }).collect()
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
    fn a_bullet_detection_boxed_and_read_unsurely_reads_as_the_bullets_read_by_their_shape() {
        // birdisland's list: most bullets read by their shape ("•" in a box as tight as its
        // ink), two boxed by DB and read "0" and "•" at 0.32 and 0.39.
        let mut img = RgbImage::from_pixel(160, 40, image::Rgb([250, 250, 250]));
        for x in [20, 60, 100] {
            crate::test_support::disc(&mut img, x as f32, 18.0, 10.0, None);
        }
        let tight = rect(15.0, 2.0, 25.0, 34.0);
        let lines = vec![
            line("\u{2022}", tight, 0.9),
            line("0", rect(50.0, 8.0, 70.0, 28.0), 0.32),
            line("\u{2022}", rect(90.0, 8.0, 110.0, 28.0), 0.39),
        ];
        let read = lone_glyphs_read_by_their_likes(&img, lines);
        assert_eq!(read.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(), ["\u{2022}"; 3], "{read:?}");
    }

    #[test]
    fn a_page_without_unsure_lines_keeps_them_as_they_are() {
        let img = RgbImage::from_pixel(60, 40, image::Rgb([250, 250, 250]));
        let lines = vec![line("Y", glyph_box(20), 0.6)];
        assert_eq!(lone_glyphs_read_by_their_likes(&img, lines.clone()), lines);
    }

    #[test]
    fn a_lone_glyph_read_by_a_like_read_as_a_look_alike_takes_its_latin_reading_too() {
        let mut img = RgbImage::from_pixel(120, 40, image::Rgb([250, 250, 250]));
        glyph(&mut img, 20, 4);
        glyph(&mut img, 60, 4);
        let sure = OcrLine { latin: Some(Box::new(line("*", glyph_box(20), 0.9))), ..line("大", glyph_box(20), 0.95) };
        let read = lone_glyphs_read_by_their_likes(&img, vec![sure, line("大", glyph_box(60), 0.3)]);
        let latin = read[1].latin.as_deref();
        assert_eq!(latin.map(|l| (l.text.as_str(), l.quad)), Some(("*", glyph_box(60))), "{read:?}");
        assert_eq!(read[1].text, "大");
    }

    #[test]
    fn a_glyph_matches_the_like_it_overlaps_most_when_near_enough() {
        let bar =
            |w: isize, h: isize| -> Vec<(isize, isize)> { (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).collect() };
        let like = |ch, h| Like { ch, confidence: 0.9, ink: bar(3, h), latin: None };
        let likes = [like('I', 16), like('l', 20)];
        let matched = |ink: Vec<(isize, isize)>| ink_to_like(&ink, &likes).map(|(l, overlap)| (l.ch, overlap));
        assert_eq!(matched(bar(3, 19)), Some(('l', 0.95)));
        assert_eq!(matched(bar(3, 17)), Some(('I', 16.0 / 17.0)));
        assert_eq!(matched(bar(6, 16)), None, "twice as wide");
        assert!(ink_to_like(&bar(3, 16), &[]).is_none());
    }
}
