//! Uneven lighting evened out before a page is read: a phone's photo of a page under a lamp,
//! or a scan darkened towards a book's spine, has paper that greys from one side to the
//! other. The models read such print well enough, but the ink levels that split glyphs,
//! gutters and rules from paper (`marks::Ink`, `rec::erase_neighbour_ink`) are one level a
//! crop or a page: where the paper greys past it, a line's end inks its crop top to bottom
//! and is painted out as a rule.

use std::borrow::Cow;

use image::RgbImage;

use crate::marks::grey;

/// The paper grid has this many cells along a page's longer side: at 200 dpi a letter page's
/// cell is about 9 px, under the blank between two lines of body text.
const CELLS_ALONG: u32 = 256;

/// The paper under a cell is found by a grey closing over this many cells each way (a window
/// of 9 cells, a third of an inch at 200 dpi): the lightest cell within it, then the darkest
/// of those, which clears print narrower than the window (a headline's stroke) and keeps a
/// shadow's edge where it is. Light print is as light as paper, so a dark band holding it
/// stays dark.
const PAPER_REACH: usize = 4;

/// The paper found is smoothed over this many cells each way (twice, a box blur): JPEG's
/// blocks and a cell of print the closing left must not mark the paper.
const SMOOTH_REACH: usize = 2;

/// A page is unevenly lit where its darkest paper (the grid's 5th percentile) is darker than
/// this share of its lightest (the 95th): a scan's paper and JPEG's noise stay within; a
/// corner of paper darkened to 110 of 255 is not.
const EVEN_LIGHT: f32 = 0.8;

/// ... and where a quadratic surface over the page explains this share of its paper's
/// variance or more: light falls off broadly (a lamp's gradient, a lens's vignette 0.95 to
/// 1.0, a soft shadow's edge 0.81–0.83), where a page's own tints (shaded rows and bands,
/// charts) stand apart (0.12–0.46 on the corpus pages they darkened past `EVEN_LIGHT`).
const BROAD_LIGHT_FIT: f32 = 0.6;

/// `img` with its paper lightened to one level where it is unevenly lit (see `EVEN_LIGHT`);
/// otherwise `img` as it is. Each pixel is scaled by how much darker the paper around it is
/// than the page's lightest, so print keeps its contrast to the paper under it.
pub fn evenly_lit(img: &RgbImage) -> Cow<'_, RgbImage> {
    let Some(grid) = PaperGrid::of(img) else { return Cow::Borrowed(img) };
    let paper = grid.smoothed();
    match paper.uneven() {
        Some(lightest) => Cow::Owned(lit_to(img, &paper, lightest)),
        None => Cow::Borrowed(img),
    }
}

/// A page's mean grey per cell of `cell`×`cell` pixels, `w`×`h` cells.
pub(crate) struct PaperGrid {
    pub(crate) cell: u32,
    pub(crate) w: usize,
    pub(crate) h: usize,
    pub(crate) values: Vec<f32>,
}

impl PaperGrid {
    /// The page's paper: its cells' means (`means`) closed (`closed`).
    fn of(img: &RgbImage) -> Option<PaperGrid> {
        PaperGrid::means(img).map(|means| means.closed())
    }

    /// The page's mean grey per cell, `CELLS_ALONG` cells along its longer side; `None` for a
    /// page too small to have a shading.
    pub(crate) fn means(img: &RgbImage) -> Option<PaperGrid> {
        let (iw, ih) = img.dimensions();
        let cell = iw.max(ih) / CELLS_ALONG;
        if cell < 2 {
            return None;
        }
        let (w, h) = (iw.div_ceil(cell) as usize, ih.div_ceil(cell) as usize);
        let (mut sums, mut counts) = (vec![0u32; w * h], vec![0u32; w * h]);
        for (x, y, p) in img.enumerate_pixels() {
            let i = (y / cell) as usize * w + (x / cell) as usize;
            sums[i] += u32::from(grey(p));
            counts[i] += 1;
        }
        let values = sums.iter().zip(&counts).map(|(&s, &n)| s as f32 / n.max(1) as f32).collect();
        Some(PaperGrid { cell, w, h, values })
    }

    /// Each cell the lightest cell within `PAPER_REACH` of it, then the darkest of those: print
    /// narrower than the window cleared, a shadow's or a page's edge kept where it is.
    pub(crate) fn closed(&self) -> PaperGrid {
        let lightest = window_fold(&self.values, self.w, self.h, PAPER_REACH, f32::max);
        PaperGrid { values: window_fold(&lightest, self.w, self.h, PAPER_REACH, f32::min), ..*self }
    }

    /// The grid box-blurred twice over `SMOOTH_REACH`.
    fn smoothed(&self) -> PaperGrid {
        // Windows at the grid's edges hold fewer cells.
        let counts = window_fold(&vec![1.0; self.values.len()], self.w, self.h, SMOOTH_REACH, |a, b| a + b);
        let mean = |v: &[f32]| {
            let sums = window_fold(v, self.w, self.h, SMOOTH_REACH, |a, b| a + b);
            sums.iter().zip(&counts).map(|(s, n)| s / n).collect::<Vec<f32>>()
        };
        PaperGrid { values: mean(&mean(&self.values)), ..*self }
    }

    /// The page's lightest paper (the grid's 95th percentile), where its darkest (the 5th)
    /// is under `EVEN_LIGHT` of it and the darkening is broad (`BROAD_LIGHT_FIT`).
    fn uneven(&self) -> Option<f32> {
        let mut sorted = self.values.clone();
        sorted.sort_by(f32::total_cmp);
        let at = |q: f32| sorted.get(((sorted.len() - 1) as f32 * q) as usize).copied();
        let (dark, light) = (at(0.05)?, at(0.95)?);
        let broad = || self.quadratic_share() >= BROAD_LIGHT_FIT;
        (light > 0.0 && dark < EVEN_LIGHT * light && broad()).then_some(light)
    }

    /// The share of the grid's variance a least-squares quadratic surface in the cells'
    /// places explains (R²); 0 where the grid is flat or the fit fails.
    fn quadratic_share(&self) -> f32 {
        let (w, h) = (self.w as f64, self.h as f64);
        let terms = |i: usize| {
            let (x, y) = ((i % self.w) as f64 / w, (i / self.w) as f64 / h);
            [1.0, x, y, x * x, y * y, x * y]
        };
        // Normal equations: (AᵀA) c = Aᵀv.
        let (mut ata, mut atv) = ([[0.0f64; 6]; 6], [0.0f64; 6]);
        for (i, &v) in self.values.iter().enumerate() {
            let t = terms(i);
            for r in 0..6 {
                atv[r] += t[r] * f64::from(v);
                for c in 0..6 {
                    ata[r][c] += t[r] * t[c];
                }
            }
        }
        let Some(coef) = solved(ata, atv) else { return 0.0 };
        let n = self.values.len() as f64;
        let mean = self.values.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let (mut total, mut left) = (0.0, 0.0);
        for (i, &v) in self.values.iter().enumerate() {
            let fit: f64 = terms(i).iter().zip(&coef).map(|(t, c)| t * c).sum();
            total += (f64::from(v) - mean).powi(2);
            left += (f64::from(v) - fit).powi(2);
        }
        if total <= f64::EPSILON { 0.0 } else { (1.0 - left / total) as f32 }
    }

    /// The paper at pixel (x, y), read bilinearly between cell centres.
    pub(crate) fn at(&self, x: u32, y: u32) -> f32 {
        let along = |p: u32, n: usize| {
            let c = ((p as f32 + 0.5) / self.cell as f32 - 0.5).clamp(0.0, (n - 1) as f32);
            let i = (c as usize).min(n.saturating_sub(2));
            (i, (i + 1).min(n - 1), c - i as f32)
        };
        let ((x0, x1, fx), (y0, y1, fy)) = (along(x, self.w), along(y, self.h));
        let v = |x: usize, y: usize| self.values[y * self.w + x];
        let top = v(x0, y0) * (1.0 - fx) + v(x1, y0) * fx;
        let bottom = v(x0, y1) * (1.0 - fx) + v(x1, y1) * fx;
        top * (1.0 - fy) + bottom * fy
    }
}

/// Each value of a `w`×`h` grid folded with `f` over the values within `reach` of it each
/// way (rows, then columns: a square window).
fn window_fold(values: &[f32], w: usize, h: usize, reach: usize, f: impl Fn(f32, f32) -> f32) -> Vec<f32> {
    let pass = |src: &[f32], along_rows: bool| {
        let mut out = vec![0.0; src.len()];
        for y in 0..h {
            for x in 0..w {
                let (i, n) = if along_rows { (x, w) } else { (y, h) };
                let at = |j: usize| if along_rows { y * w + j } else { j * w + x };
                let (lo, hi) = (i.saturating_sub(reach), (i + reach).min(n - 1));
                out[at(i)] = (lo + 1..=hi).fold(src[at(lo)], |acc, j| f(acc, src[at(j)]));
            }
        }
        out
    };
    pass(&pass(values, true), false)
}

/// The solution of a 6×6 linear system by Gaussian elimination with partial pivoting;
/// `None` where it is singular.
fn solved(mut a: [[f64; 6]; 6], mut b: [f64; 6]) -> Option<[f64; 6]> {
    for col in 0..6 {
        let pivot = (col..6).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..6 {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (v, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *v -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; 6];
    for row in (0..6).rev() {
        let rest: f64 = (row + 1..6).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

/// `img` with each pixel scaled by `lightest` over the paper under it (never darkened).
fn lit_to(img: &RgbImage, paper: &PaperGrid, lightest: f32) -> RgbImage {
    let mut out = img.clone();
    for (x, y, p) in out.enumerate_pixels_mut() {
        let gain = (lightest / paper.at(x, y).max(1.0)).max(1.0);
        p.0 = p.0.map(|c| (f32::from(c) * gain + 0.5).min(255.0) as u8);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A page of `w`×`h` whose paper greys from `left` to `right`, with dark bars of print
    /// (rows of 6 px every 20 px, 40 px long every 60 px) at a third of the paper's level.
    fn shaded_page(w: u32, h: u32, left: f32, right: f32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            let paper = left + (right - left) * x as f32 / (w - 1) as f32;
            let print = y % 20 < 6 && x % 60 < 40;
            Rgb([(if print { paper / 3.0 } else { paper }) as u8; 3])
        })
    }

    #[test]
    fn paper_greying_across_a_page_is_lightened_and_its_print_kept_dark() {
        let page = shaded_page(1200, 900, 250.0, 80.0);
        let lit = evenly_lit(&page);
        assert!(matches!(lit, Cow::Owned(_)), "the page is unevenly lit");
        // Paper and print at the dark side now stand as they do at the light side.
        let (paper, print) = (lit.get_pixel(1190, 10).0[0], lit.get_pixel(1170, 2).0[0]);
        assert!(paper >= 230, "paper {paper}");
        assert!(print <= 100, "print {print}");
        assert!(lit.get_pixel(5, 10).0[0] >= 245 && lit.get_pixel(5, 2).0[0] <= 90);
    }

    #[test]
    fn an_evenly_lit_page_and_a_dark_band_with_light_print_are_left_as_they_are() {
        assert!(matches!(evenly_lit(&shaded_page(1200, 900, 250.0, 235.0)), Cow::Borrowed(_)));
        // A dark band across a twelfth of the page holding light print: a table's header.
        let page = RgbImage::from_fn(1200, 900, |x, y| {
            let band = (300..375).contains(&y);
            let light_print = band && y % 20 < 6 && x % 60 < 40;
            Rgb([if light_print {
                250
            } else if band {
                40
            } else {
                250
            }; 3])
        });
        assert!(matches!(evenly_lit(&page), Cow::Borrowed(_)));
    }

    #[test]
    fn a_table_of_tinted_rows_is_not_taken_for_uneven_light() {
        // Every other band of 60 rows tinted to 170 (a third of the page darker than
        // `EVEN_LIGHT` allows), with print on paper and tint alike.
        let page = RgbImage::from_fn(1200, 900, |x, y| {
            let paper = if (y / 60) % 2 == 1 && (150..750).contains(&y) { 170.0 } else { 250.0 };
            let print = y % 20 < 6 && x % 60 < 40;
            Rgb([(if print { paper / 3.0 } else { paper }) as u8; 3])
        });
        assert!(matches!(evenly_lit(&page), Cow::Borrowed(_)));
    }

    #[test]
    fn light_print_on_a_dark_band_stays_light_on_an_unevenly_lit_page() {
        let mut page = shaded_page(1200, 900, 250.0, 90.0);
        for (x, y, p) in page.enumerate_pixels_mut() {
            if (300..375).contains(&y) && x < 400 {
                *p = Rgb([if y % 20 < 6 && x % 60 < 40 { 245 } else { 40 }; 3]);
            }
        }
        let lit = evenly_lit(&page);
        let (print, band) = (lit.get_pixel(20, 302).0[0], lit.get_pixel(50, 310).0[0]);
        assert!(print >= 240 && band <= 60, "print {print} on band {band}");
    }

    #[test]
    fn a_small_picture_is_left_as_it_is() {
        assert!(matches!(evenly_lit(&shaded_page(300, 200, 250.0, 60.0)), Cow::Borrowed(_)));
    }
}
