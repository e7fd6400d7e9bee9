//! Bilevel pages stretched by repeating their pixels, smoothed before they are read. A fax in
//! standard mode stores its rows at half the density of its columns (204×98 dpi); a viewer,
//! a fax-to-PDF converter and our own reading (`raster::square_pixels`) show it with each
//! row repeated. Each slanting stroke then stands as a stair of black steps two pixels high,
//! which the models, trained on grey print, misread.

use std::borrow::Cow;

use image::RgbImage;

/// A page is read as stretched where at most this share of its rows (or columns) holding
/// ink differ from both neighbours: repeated, each stored row stands twice or more, so none
/// does, where on the corpus's scans and 50 pages made bilevel at 200 dpi 44% or more do.
const STRETCHED_LONE_ROWS: f32 = 0.1;

/// How far a stretched bilevel page is smoothed (a Gaussian's sigma, in its pixels). On 50
/// corpus pages faxed at 204×98 dpi (bold: blurred, then black under 150 of 255) and stretched
/// by repeating rows, 0.5 read 0.089 CER, 1.0 0.081 and 1.5 0.103 (0.094 unsmoothed); faxed
/// thin (black under 128), 1.0 read 0.140 against 0.158. Smoothing down alone (sigma 1.2
/// down, 0.6 across) read 0.107; pages of square bilevel pixels smoothed by 0.7 read 0.0277
/// against 0.0285, by 1.0 0.0336, so they are left as they are.
const STAIRS_SIGMA: f32 = 1.0;

/// `img` smoothed (`STAIRS_SIGMA`) where it is bilevel and stretched by repeating its rows or
/// columns; otherwise `img` as it is.
pub fn stairs_smoothed(img: &RgbImage) -> Cow<'_, RgbImage> {
    let stretched =
        || lone_rows(img) <= STRETCHED_LONE_ROWS || lone_rows(&image::imageops::rotate90(img)) <= STRETCHED_LONE_ROWS;
    if is_bilevel(img) && stretched() {
        return Cow::Owned(image::imageops::blur(img, STAIRS_SIGMA));
    }
    Cow::Borrowed(img)
}

/// Whether the picture holds two colours at most: a fax, or a scanner's black-and-white mode.
fn is_bilevel(img: &RgbImage) -> bool {
    let mut colours = Vec::with_capacity(2);
    img.pixels().all(|p| {
        colours.contains(p) || {
            colours.push(*p);
            colours.len() <= 2
        }
    })
}

/// The share of the picture's rows holding ink (pixels unlike the row's first) that differ
/// from both rows beside them; 1 where none between two rows does.
fn lone_rows(img: &RgbImage) -> f32 {
    let rows: Vec<&[u8]> = img.as_raw().chunks_exact(img.width() as usize * 3).collect();
    let inked = |row: &[u8]| row.chunks_exact(3).any(|p| p != &row[..3]);
    let (mut lone, mut inked_rows) = (0u32, 0u32);
    for three in rows.windows(3).filter(|three| inked(three[1])) {
        inked_rows += 1;
        lone += u32::from(three[0] != three[1] && three[1] != three[2]);
    }
    if inked_rows == 0 { 1.0 } else { lone as f32 / inked_rows as f32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A black edge slanting one pixel across a row on white: each row unlike both beside it.
    fn slanting_edge(w: u32, h: u32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| image::Rgb([if x < y + 4 { 0 } else { 255 }; 3]))
    }

    #[test]
    fn a_bilevel_page_stretched_by_repeating_rows_or_columns_is_smoothed() {
        let edge = slanting_edge(40, 30);
        let rows_twice = image::imageops::resize(&edge, 40, 62, image::imageops::FilterType::Nearest);
        let columns_twice = image::imageops::resize(&edge, 82, 30, image::imageops::FilterType::Nearest);
        for (name, page) in [("rows", rows_twice), ("columns", columns_twice)] {
            let read = stairs_smoothed(&page);
            assert!(matches!(read, Cow::Owned(_)), "{name}");
            // The stair's steps ramp through greys.
            assert!(read.pixels().any(|p| (64..192).contains(&p[0])), "{name}");
        }
    }

    #[test]
    fn a_page_scanned_square_or_in_greys_is_read_as_it_is() {
        let edge = slanting_edge(40, 30);
        assert!(matches!(stairs_smoothed(&edge), Cow::Borrowed(_)));
        // The same edge with a grey pixel at each step, its rows repeated.
        let grey =
            RgbImage::from_fn(40, 30, |x, y| image::Rgb([if x == y + 4 { 128 } else { edge.get_pixel(x, y)[0] }; 3]));
        let grey = image::imageops::resize(&grey, 40, 60, image::imageops::FilterType::Nearest);
        assert!(matches!(stairs_smoothed(&grey), Cow::Borrowed(_)));
        // A blank page holds no stretch to see.
        assert!(matches!(stairs_smoothed(&RgbImage::from_pixel(20, 20, image::Rgb([255; 3]))), Cow::Borrowed(_)));
    }
}
