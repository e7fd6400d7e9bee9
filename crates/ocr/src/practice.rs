//! A made page of word-like print that an engine reads once before real pages (the facade's
//! `OcrModels::warm_up`): every stage runs on it, so a runtime that compiles code on first
//! use (V8's tiers in the browser, a GPU's shaders) has done so before a user's page waits.

use image::{Rgb, RgbImage};

/// Portrait, as most documents are, so the runtime readies the path portrait pages take
/// (tract's turned detection graph; the GPU's portrait canvas). Small: the first run of the
/// code costs the same at any size, the rest is work thrown away.
const PAGE_SIZE: (u32, u32) = (240, 320);
/// Blank around the print.
const MARGIN: u32 = 16;
/// A line of print every this many pixels, ...
const LINE_PITCH: u32 = 40;
/// ... this tall: above `det::SMALL_TEXT_HEIGHT` at the page's own size, so one detection
/// read sizes the print, as it does on most real pages.
const PRINT_HEIGHT: u32 = 22;
/// A letter-like stroke every this many pixels, this wide.
const STROKE_PITCH: u32 = 14;
const STROKE_WIDTH: u32 = 9;
/// Strokes per word on the first line (a stroke more on each line after, so that
/// recognition runs at several widths), and the blank between words, in strokes.
const WORD_STROKES: u32 = 3;
const WORD_GAP_STROKES: u32 = 2;

const WHITE: Rgb<u8> = Rgb([255, 255, 255]);

/// The practice page: black strokes in words and lines on white.
pub fn practice_page() -> RgbImage {
    let (w, h) = PAGE_SIZE;
    RgbImage::from_fn(w, h, |x, y| {
        let (Some(dx), Some(dy)) = (x.checked_sub(MARGIN), y.checked_sub(MARGIN)) else { return WHITE };
        let (line, row) = (dy / LINE_PITCH, dy % LINE_PITCH);
        let (stroke, column) = (dx / STROKE_PITCH, dx % STROKE_PITCH);
        // Whole lines and strokes only, within the margins.
        let fits = y - row + PRINT_HEIGHT <= h - MARGIN && x - column + STROKE_WIDTH <= w - MARGIN;
        let word = WORD_STROKES + line;
        let ink = fits && row < PRINT_HEIGHT && column < STROKE_WIDTH && stroke % (word + WORD_GAP_STROKES) < word;
        if ink { Rgb([0, 0, 0]) } else { WHITE }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of rows holding ink: the page's lines, as (first row, rows).
    fn inked_rows(img: &RgbImage) -> Vec<(u32, u32)> {
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for y in 0..img.height() {
            if !(0..img.width()).any(|x| img.get_pixel(x, y)[0] == 0) {
                continue;
            }
            match runs.last_mut() {
                Some((start, len)) if *start + *len == y => *len += 1,
                _ => runs.push((y, 1)),
            }
        }
        runs
    }

    #[test]
    fn the_practice_page_is_portrait_and_small_enough_to_be_read_at_its_own_size() {
        let page = practice_page();
        assert!(page.height() > page.width());
        assert!(crate::det::own_size_first(page.width(), page.height(), &crate::DetParams::default()).is_some());
    }

    /// Words on row `y`: runs of strokes apart by more than a stroke's pitch.
    fn words_on_row(img: &RgbImage, y: u32) -> usize {
        let inked: Vec<u32> = (0..img.width()).filter(|&x| img.get_pixel(x, y)[0] == 0).collect();
        if inked.is_empty() { 0 } else { 1 + inked.windows(2).filter(|p| p[1] - p[0] > STROKE_PITCH).count() }
    }

    #[test]
    fn the_practice_page_has_enough_words_of_print_tall_enough_to_size_in_one_read() {
        let page = practice_page();
        let lines = inked_rows(&page);
        assert!(lines.len() >= 6, "{lines:?}");
        assert!(lines.iter().all(|&(_, rows)| rows == PRINT_HEIGHT), "{lines:?}");
        assert!(PRINT_HEIGHT as f32 >= crate::det::SMALL_TEXT_HEIGHT);
        let words: Vec<usize> = lines.iter().map(|&(y, _)| words_on_row(&page, y)).collect();
        assert!(words.iter().sum::<usize>() >= crate::det::MIN_BOXES_FOR_SIZE, "{words:?}");
        // Longer words, so fewer, line after line: recognition runs at several widths.
        assert!(words.windows(2).all(|p| p[1] <= p[0]) && words[0] > words[words.len() - 1], "{words:?}");
    }
}
