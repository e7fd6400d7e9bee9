//! Shapes the unit tests draw pages and boxes with.

use image::RgbImage;

use crate::geometry::Quad;

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
