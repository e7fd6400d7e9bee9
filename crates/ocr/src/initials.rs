//! Drop capitals: a paragraph's first letter set two or more lines tall beside its first
//! lines ("SHE MOPED" in UNLV's 8071_093 opens with an S three lines deep). DB finds no
//! text line in one big glyph, so the word lost its letter. Ink left of a line's start, top-
//! aligned with it and much taller, is read on its own; recognition keeps it when it reads
//! one capital surely, and it joins the start of its line.

use image::RgbImage;

use crate::OcrLine;
use crate::det::mask_to_regions;
use crate::geometry::{Quad, turn_between};
use crate::marks::Ink;
use crate::rec::crop_quad;

/// A drop capital spans two lines or more: the first line's cap height plus a line pitch,
/// about 1.9 em, where a DB box is about 1.5 em (UNLV's S: 1.44 boxes); a capital of the
/// line's own size is half a box.
const MIN_LINES: f32 = 1.2;
/// Taller ink (line heights) is a picture: drop capitals span at most four or five lines.
const MAX_LINES: f32 = 4.5;
/// Where its top is below the line box's top (line heights): a drop capital lines up with
/// the first line's capitals, a box's margin below the box's top (UNLV's S: 0.23). Ink
/// beside a column's later lines starts at any height, and lines are a box apart or less.
const TOP_ALIGN: std::ops::RangeInclusive<f32> = -0.2..=0.45;
/// Its right edge is at most this far left of the line's start (line heights): the space set
/// between a drop capital and its text.
const MAX_GAP: f32 = 1.5;
/// ... or this far right of it: under the box's margin, and a T's bar over the first
/// letters (UNLV's S: 0.19, labor.pdf's T: 0.42).
const OVERLAP: f32 = 0.6;
/// Narrower shapes (width over height) are rules and change bars; wider ones are pictures.
const MIN_ASPECT: f32 = 0.08;
const MAX_ASPECT: f32 = 1.5;
/// A bar or a box fills its bounds; the boldest capitals fill well under this.
const MAX_FILL: f32 = 0.8;
/// Line heights are sampled at this many pixels when looking for one: a capital two lines
/// deep keeps its thin strokes at 24 px, and a page of 120 lines takes about 0.02 s.
const STRIP_PX: f32 = 12.0;
/// A capital is read with this much room on each side (of its own height), as text is in
/// DB's boxes.
const PAD: f32 = 0.15;
/// Recognition must be this sure of the letter: a lone glyph has no neighbours to read it by,
/// and anything else big beside a line (a logo, a picture's part) reads as some letter.
pub const INITIAL_MIN_CONFIDENCE: f32 = 0.8;
/// Lines whose reading directions differ by less than this (radians, ~3°) are one text.
const SAME_DIRECTION: f32 = 0.05;

/// Whether ink bounded by `[u0, v0, u1, v1]` in a line's frame sits where a drop capital of
/// that line would: beside its start, top-aligned with it, and at least two lines deep.
fn beside_start(b: [f32; 4]) -> bool {
    let [u0, v0, u1, v1] = b;
    let (w, h) = (u1 - u0, v1 - v0);
    (MIN_LINES..=MAX_LINES).contains(&h)
        && TOP_ALIGN.contains(&v0)
        && (-MAX_GAP..=OVERLAP).contains(&u1)
        && (MIN_ASPECT * h..=MAX_ASPECT * h).contains(&w)
}

/// Quads of ink beside the starts of `quads` that may be drop capitals (see `beside_start`),
/// each padded to be read on its own; ink detection boxed is not one. `ink`: the page's
/// (`Ink::of_page`).
pub fn initials_beside_lines(img: &RgbImage, quads: &[Quad], ink: Ink) -> Vec<Quad> {
    let mut found: Vec<Quad> = Vec::new();
    for line in quads {
        // Room for the widest capital left of the start and the deepest below the top.
        let area = [-(MAX_GAP + MAX_ASPECT * MAX_LINES), TOP_ALIGN.start() - PAD, OVERLAP + PAD, MAX_LINES + PAD];
        let (w, h) = (((area[2] - area[0]) * STRIP_PX) as usize, ((area[3] - area[1]) * STRIP_PX) as usize);
        let crop = crop_quad(img, &line.frame_quad(area), w, h);
        let mask: Vec<bool> = crop.pixels().map(|p| ink.is(p)).collect();
        let to_frame = |x: f32, y: f32| [area[0] + x / STRIP_PX, area[1] + y / STRIP_PX];
        for pts in mask_to_regions(&mask, w, h) {
            let (mut x0, mut y0, mut x1, mut y1) = (f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY);
            for [x, y] in &pts {
                (x0, y0, x1, y1) = (x0.min(*x), y0.min(*y), x1.max(*x), y1.max(*y));
            }
            let whole = x0 > 0.0 && y0 > 0.0 && x1 < w as f32 - 1.0 && y1 < h as f32 - 1.0;
            let [u0, v0] = to_frame(x0, y0);
            let [u1, v1] = to_frame(x1 + 1.0, y1 + 1.0);
            if !whole || !beside_start([u0, v0, u1, v1]) {
                continue;
            }
            let inked = (y0 as usize..=y1 as usize)
                .map(|y| mask[y * w + x0 as usize..=y * w + x1 as usize].iter().filter(|&&i| i).count())
                .sum::<usize>() as f32;
            if inked > MAX_FILL * (x1 - x0 + 1.0) * (y1 - y0 + 1.0) {
                continue;
            }
            let pad = PAD * (v1 - v0);
            let quad = line.frame_quad([u0 - pad, v0 - pad, u1 + pad, v1 + pad]);
            let c = quad.centre();
            let boxed = quads.iter().any(|q| q.contains(c));
            if !boxed && !found.iter().any(|f| f.contains(c)) {
                found.push(quad);
            }
        }
    }
    found
}

/// Whether a line read from a candidate (`initials_beside_lines`) is a drop capital: one
/// capital (or a small letter of a capital's shape, which only size tells apart), read
/// with `INITIAL_MIN_CONFIDENCE`.
pub fn is_initial(line: &OcrLine) -> bool {
    crate::lone_char(&line.chars).is_some_and(|c| {
        c.confidence >= INITIAL_MIN_CONFIDENCE && (c.ch.is_uppercase() || crate::rec::SAME_SHAPE_SMALL.contains(&c.ch))
    })
}

/// Drop capitals (lines of one letter, `is_initial`, beside another line's start: see
/// `beside_start`) joined to the start of that line's text as capitals, keeping their own
/// boxes; the line's box grows to hold them.
pub fn initials_to_lines(lines: Vec<OcrLine>) -> Vec<OcrLine> {
    let target = |cap: &OcrLine| -> Option<usize> {
        if !is_initial(cap) {
            return None;
        }
        let mut best: Option<(usize, f32)> = None;
        for (i, line) in lines.iter().enumerate() {
            if std::ptr::eq(line, cap) || turn_between(line.quad.angle(), cap.quad.angle()).abs() >= SAME_DIRECTION {
                continue;
            }
            // The capital's ink: its quad without the reading room it was given.
            let corners = cap.quad.0.map(|p| line.quad.in_frame(p));
            let [mut u0, mut v0, mut u1, mut v1] = [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY];
            for [u, v] in corners {
                (u0, v0, u1, v1) = (u0.min(u), v0.min(v), u1.max(u), v1.max(v));
            }
            let pad = PAD / (1.0 + 2.0 * PAD) * (v1 - v0);
            let ink = [u0 + pad, v0 + pad, u1 - pad, v1 - pad];
            if beside_start(ink) && best.is_none_or(|(_, gap)| ink[2].abs() < gap) {
                best = Some((i, ink[2].abs()));
            }
        }
        best.map(|(i, _)| i)
    };
    let joins: Vec<Option<usize>> = lines.iter().map(target).collect();
    let mut caps: Vec<Option<OcrLine>> = vec![None; lines.len()];
    let mut lines: Vec<Option<OcrLine>> = lines.into_iter().map(Some).collect();
    for (cap, to) in joins.iter().enumerate() {
        if let Some(to) = *to
            && joins[to].is_none()
            && caps[to].is_none()
        {
            caps[to] = lines[cap].take();
        }
    }
    lines
        .into_iter()
        .zip(caps)
        .filter_map(|(line, cap)| {
            let mut line = line?;
            if let Some(mut c) = cap.and_then(|cap| cap.chars.into_iter().find(|c| c.ch != ' ')) {
                c.ch = c.ch.to_uppercase().next().unwrap_or(c.ch);
                let u0 = c.quad.0.iter().map(|&p| line.quad.in_frame(p)[0]).fold(0.0f32, f32::min);
                line.quad = line.quad.slice(u0 * line.quad.height() / line.quad.width().max(f32::MIN_POSITIVE), 1.0);
                line.text.insert(0, c.ch);
                let n = line.chars.len() as f32;
                line.confidence = (line.confidence * n + c.confidence) / (n + 1.0);
                line.chars.insert(0, c);
            }
            Some(line)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{line, paint, rect};

    /// A 600×260 page of three lines 30 px high (boxes at y 20, 50 and 80, text from x 120)
    /// and a fourth from x 40 below them, glyph-like blobs along each.
    fn paragraph() -> (RgbImage, Vec<Quad>) {
        let mut img = RgbImage::from_pixel(600, 260, image::Rgb([250, 250, 250]));
        let lines = vec![
            rect(115.0, 20.0, 500.0, 50.0),
            rect(115.0, 50.0, 500.0, 80.0),
            rect(115.0, 80.0, 500.0, 110.0),
            rect(35.0, 110.0, 500.0, 140.0),
        ];
        for l in &lines {
            let [x0, y0, x1, _] = l.bounds();
            for x in (x0 as u32 + 5..x1 as u32 - 10).step_by(12) {
                paint(&mut img, x, y0 as u32 + 6, 7, 18);
            }
        }
        (img, lines)
    }

    /// An O-like ring, `w`×`h`, strokes 8 px.
    fn ring(img: &mut RgbImage, x0: u32, y0: u32, w: u32, h: u32) {
        paint(img, x0, y0, w, 8);
        paint(img, x0, y0 + h - 8, w, 8);
        paint(img, x0, y0, 8, h);
        paint(img, x0 + w - 8, y0, 8, h);
    }

    #[test]
    fn a_letter_two_lines_deep_at_a_paragraphs_first_line_is_found_once() {
        let (mut img, lines) = paragraph();
        ring(&mut img, 60, 27, 48, 50);
        let found = initials_beside_lines(&img, &lines, Ink::of_page(&img));
        assert_eq!(found.len(), 1, "{found:?}");
        let [x0, y0, x1, y1] = found[0].bounds();
        assert!(x0 < 60.0 && x1 > 108.0 && y0 < 27.0 && y1 > 77.0, "the ring with room: {:?}", found[0]);
        assert!(x1 < 125.0 && y1 < 90.0, "no more than room: {:?}", found[0]);
    }

    #[test]
    fn a_drop_capital_in_light_print_on_a_dark_ground_is_found_too() {
        let (mut img, lines) = paragraph();
        ring(&mut img, 60, 27, 48, 50);
        image::imageops::invert(&mut img);
        assert_eq!(initials_beside_lines(&img, &lines, Ink::of_page(&img)).len(), 1);
    }

    #[test]
    fn a_capital_of_the_lines_own_size_a_bar_or_a_letter_below_the_first_line_is_none() {
        let (img, lines) = paragraph();
        for (x0, y0, w, h, what) in [
            (80, 26, 20, 20, "a capital one line high"),
            (100, 26, 6, 60, "a change bar"),
            (60, 38, 48, 50, "a letter starting in the first line's middle"),
        ] {
            let mut img = img.clone();
            if w < 10 {
                paint(&mut img, x0, y0, w, h);
            } else {
                ring(&mut img, x0, y0, w, h);
            }
            let found = initials_beside_lines(&img, &lines, Ink::of_page(&img));
            assert!(found.is_empty(), "{what}: {found:?}");
        }
        let mut img = img;
        paint(&mut img, 60, 27, 40, 50);
        assert!(initials_beside_lines(&img, &lines, Ink::of_page(&img)).is_empty(), "a filled box");
    }

    #[test]
    fn a_drop_capital_is_one_capital_read_surely() {
        let q = rect(0.0, 0.0, 40.0, 60.0);
        assert!(is_initial(&line("S", q, 0.98)));
        assert!(is_initial(&line("s", q, 0.98)), "a small letter of a capital's shape");
        assert!(!is_initial(&line("S", q, 0.6)));
        assert!(!is_initial(&line("l", q, 0.98)), "a small letter of its own shape is not a capital");
        assert!(!is_initial(&line("St", q, 0.98)));
        assert!(!is_initial(&line("?", q, 0.98)));
    }

    #[test]
    fn a_drop_capital_read_joins_the_start_of_its_first_line_as_a_capital() {
        let (mut img, quads) = paragraph();
        ring(&mut img, 60, 27, 48, 50);
        let cap = initials_beside_lines(&img, &quads, Ink::of_page(&img))[0];
        let lines = vec![
            line("he moped.", quads[0], 0.9),
            line("wandered", quads[1], 0.9),
            line("o", cap, 0.95),
            line("x", rect(520.0, 200.0, 560.0, 260.0), 0.95),
        ];
        let joined = initials_to_lines(lines);
        let texts: Vec<&str> = joined.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Ohe moped.", "wandered", "x"]);
        let first = &joined[0];
        assert_eq!(first.chars[0].quad, cap.slice(0.0, 1.0), "the capital keeps its box");
        assert!(first.quad.bounds()[0] < 65.0 && first.quad.bounds()[2] >= 499.0, "{:?}", first.quad);
        assert!((first.confidence - (0.9 * 9.0 + 0.95) / 10.0).abs() < 1e-5, "{}", first.confidence);
    }
}
