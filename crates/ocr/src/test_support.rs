//! Shapes the unit tests draw pages and boxes with.

use image::RgbImage;

use crate::geometry::Quad;
use crate::{OcrChar, OcrLine};

/// An upright box from its left, top, right and bottom edges.
pub fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Quad {
    Quad([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
}

/// A dark w×h block on `img` at (x0, y0).
pub fn paint(img: &mut RgbImage, x0: u32, y0: u32, w: u32, h: u32) {
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            img.put_pixel(x, y, image::Rgb([20, 20, 20]));
        }
    }
}

/// A disc of diameter `d` centred at (cx, cy); a ring of stroke `ring` where given.
pub fn disc(img: &mut RgbImage, cx: f32, cy: f32, d: f32, ring: Option<f32>) {
    for y in 0..img.height() {
        for x in 0..img.width() {
            let r = ((x as f32 + 0.5 - cx).powi(2) + (y as f32 + 0.5 - cy).powi(2)).sqrt();
            if r <= d / 2.0 && ring.is_none_or(|t| r >= d / 2.0 - t) {
                img.put_pixel(x, y, image::Rgb([20, 20, 20]));
            }
        }
    }
}

/// A line reading `text` in `quad`, its characters sharing the quad evenly, each and the
/// line read at `confidence`.
pub fn line(text: &str, quad: Quad, confidence: f32) -> OcrLine {
    let n = text.chars().count() as f32;
    let chars = text
        .chars()
        .enumerate()
        .map(|(i, ch)| OcrChar { ch, quad: quad.slice(i as f32 / n, (i + 1) as f32 / n), confidence })
        .collect();
    line_of_chars(quad, chars, confidence)
}

/// A line in `quad` of the characters given, read at `confidence`.
pub fn line_of_chars(quad: Quad, chars: Vec<OcrChar>, confidence: f32) -> OcrLine {
    OcrLine { quad, text: chars.iter().map(|c| c.ch).collect(), chars, confidence, latin: None, dashes: Vec::new() }
}
