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
/// by repeating rows, Pillow's blur of 0.5 read 0.089 CER, 1.0 0.081 and 1.5 0.103 (0.094
/// unsmoothed; 1.0 here 0.082); faxed thin (black under 128), 1.0 read 0.140 against 0.158.
/// Smoothing down alone (sigma 1.2 down, 0.6 across) read 0.107; pages of square bilevel
/// pixels smoothed by 0.7 read 0.0277 against 0.0285, by 1.0 0.0336, so they are left as
/// they are.
const STAIRS_SIGMA: f32 = 1.0;

/// `img` smoothed (`STAIRS_SIGMA`) where it is bilevel and stretched by repeating its rows or
/// columns; otherwise `img` as it is.
pub fn stairs_smoothed(img: &RgbImage) -> Cow<'_, RgbImage> {
    if is_bilevel(img) && lone_shares(img).into_iter().any(|share| share <= STRETCHED_LONE_ROWS) {
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

/// Of the picture's rows holding ink (a pixel unlike the row's first), the share that differ
/// from both rows beside them; and the same of its columns. Read in one pass over the rows,
/// with no turned copy of the page.
fn lone_shares(img: &RgbImage) -> [f32; 2] {
    if img.width() == 0 || img.height() == 0 {
        return [1.0; 2];
    }
    let w = img.width() as usize * 3;
    let rows: Vec<&[u8]> = img.as_raw().chunks_exact(w).collect();
    let first_row = rows[0];
    let row_inked: Vec<bool> = rows.iter().map(|row| row.chunks_exact(3).any(|p| p != &row[..3])).collect();
    let row_unlike_next: Vec<bool> = rows.windows(2).map(|pair| pair[0] != pair[1]).collect();
    let (mut column_inked, mut column_unlike_next) = (vec![false; w / 3], vec![false; (w / 3).saturating_sub(1)]);
    for row in &rows {
        for (inked, (p, first)) in column_inked.iter_mut().zip(row.chunks_exact(3).zip(first_row.chunks_exact(3))) {
            *inked |= p != first;
        }
        for (unlike, (p, next)) in column_unlike_next.iter_mut().zip(row.chunks_exact(3).zip(row[3..].chunks_exact(3)))
        {
            *unlike |= p != next;
        }
    }
    [lone_share(&row_inked, &row_unlike_next), lone_share(&column_inked, &column_unlike_next)]
}

/// Of the lines `inked` between two others, the share unlike both (`unlike_next[i]`: line i
/// differs from line i + 1); 1 where none is inked.
fn lone_share(inked: &[bool], unlike_next: &[bool]) -> f32 {
    let between = unlike_next.windows(2).zip(inked.iter().skip(1)).filter(|&(_, &inked)| inked);
    let (lone, counted) =
        between.fold((0u32, 0u32), |(lone, counted), (pair, _)| (lone + u32::from(pair[0] && pair[1]), counted + 1));
    if counted == 0 { 1.0 } else { lone as f32 / counted as f32 }
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
