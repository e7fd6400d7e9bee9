//! The ground around a photographed page painted as paper before the page is read. A phone's
//! photo of a page on a desk, or a scan whose lid left a dark frame, holds more than the
//! page: where the ground is a large share of the picture, the page's ink split
//! (`marks::Ink`) counts it as print, or the paper as light print on a dark ground, and
//! leaders' dots, bullets and rules are then misjudged; and the paper surface the lighting is
//! evened by (`lighting`) bends at the page's edge.

use std::borrow::Cow;
use std::collections::VecDeque;

use image::{Rgb, RgbImage};

use crate::det::mask_to_components;
use crate::lighting::PaperGrid;
use crate::marks::{grey, otsu};

/// The ground must hold this share of the picture's edge cells or more: a page photographed
/// on a desk has ground on every side (all of the edge), or on three where the photo cuts it
/// (a portrait page filling a landscape photo's height, 0.67), where dark bands along one
/// side of a page (a full-bleed header: 0.37 on a page a fifth banded) or two (a header and
/// a sidebar) hold half of the edge or less.
const SURROUNDED: f32 = 0.6;

/// The ground's cells average under this share of the page's paper (medians): a dark desk
/// (0.29–0.33 on the photos measured) or a mid-grey one (140 of 255: 0.54–0.58), a scanner's
/// lid. A lighter desk is left as it is: its greys stay on the paper's side of the ink split.
const GROUND_DARKER: f32 = 0.7;

/// The page's edge is sharp: the paper grid on the ground is under this share of the paper
/// straight across in the page, each `EDGE_REACH` cells past the two cells the edge parts
/// (five cells apart, a fifth of an inch on a letter page at 200 dpi). The median along the
/// edge is 0.36–0.39 on a dark desk, 0.60–0.62 on a mid-grey one, where light falling off
/// (a vignette, a lamp's shadow, a book's spine shading the paper around its fold) greys the
/// paper a few hundredths over so short a span (0.96 for a vignette to a quarter at the
/// corners), and print in shade stays.
const SHARP_EDGE: f32 = 0.75;
const EDGE_REACH: isize = 2;

/// Most of a page is blank paper: this share (`BLANK_SHARE`) of its cells or more are this
/// share (`BLANK_LEVEL`) of the paper around them or lighter (0.55 or more on the photos
/// measured, m27's tinted rows the least), where light print on a dark ground (a dark-mode
/// screenshot's text block, closed into one light region) is mostly ground (0.14).
const BLANK_LEVEL: f32 = 0.85;
const BLANK_SHARE: f32 = 0.3;

/// Light regions on the ground apart from the page, as a share of the picture, past which
/// the ground is left as it is: light print on a dark page (a poster's title around a white
/// card) would be painted over, and a second sheet beside the page may hold print too.
const MAX_ISLANDS: f32 = 0.02;

/// Light print on the ground: a pixel this many times as light as the ground around it (the
/// median of the ground's cells `GROUND_LEVEL_REACH` each way, a 9-cell window as the paper's
/// closing has, which a title's letters fill under half of). A title's letters on a page's own
/// dark band are 1.9–2.1 times the band (puertos1); a desk's grain and noise stay under 1.36.
const LIGHT_PRINT: f32 = 1.5;
const GROUND_LEVEL_REACH: usize = 4;
/// Objects on the desk are told from the ground this many cells each way: a pen up to about
/// 8 cells wide (9 mm on a page filling the photo) is then under half of the window.
const OBJECT_REACH: usize = 8;

/// Dark print on the ground: a pixel under this share of the ground around it and this many
/// greys under it. Black print on a mid-grey band is under a fifth of it; a grained desk's
/// troughs stay over 0.6, and on a black desk no pixel is 40 greys under its ground.
const DARK_PRINT: f32 = 0.45;
const DARK_PRINT_DEPTH: f32 = 40.0;

/// A ground cell holds print where this share of its pixels is (`LIGHT_PRINT`, `DARK_PRINT`):
/// a letter's stroke fills a fifth of a cell or more, a desk's stray pixels one or two.
const PRINT_CELL: f32 = 0.2;

/// Print is strokes: a print pixel counts only where its run of print across, down or along
/// a diagonal is this many cells or narrower the thinnest way (a 60-point bold letter's stem
/// is under 3 mm, a cell on a page filling the photo about 1 mm), so that a pen, a phone or a
/// coin lying on the desk, wider every way, is not taken for print; ...
const STROKE_CELLS: f32 = 3.0;
/// ... and this many cells or shorter the longest way: a long word set bold and blurred into
/// one run is about 30, a glint along a pen's length or a cable far longer.
const LINE_CELLS: f32 = 40.0;

/// Cells this near the page are not searched for print: the cells the page's edge crosses,
/// and the blur and JPEG ringing beside them, hold paper lighter than the ground.
const PAGE_MARGIN_CELLS: usize = 2;

/// Ground holding print in more cells than this (a letter or two) is no desk: a dark band of
/// the page itself reaches the picture's edge (a full-bleed header holding its title), and
/// painting it would cut or erase its print. Light print in strokes: 12–92 cells on puertos1
/// photographed in six ways (12 where a keystone's paper wedges flank its header); black
/// print on a mid-grey header across a page's top eighth: 106–166 on labor, 28 on
/// lorem-ipsum; none on the other pages' desks, nor on two pens beside 12s0324.
const MAX_PRINT_CELLS: usize = 8;

/// The ground is painted this many cells into the page: the cells the page's edge crosses
/// hold a sliver of ground, and a page's margin is wider than a cell (about 1 mm at 200 dpi).
const EDGE_CELLS: usize = 1;

/// `img` with the dark ground around its page painted as the paper nearest it, where the
/// page lies on one (see `SURROUNDED`, `GROUND_DARKER`); otherwise `img` as it is.
pub fn ground_as_paper(img: &RgbImage) -> Cow<'_, RgbImage> {
    let Some(means) = PaperGrid::means(img) else { return Cow::Borrowed(img) };
    let paper = means.closed();
    match ground_cells(img, &means, &paper) {
        Some(ground) => Cow::Owned(painted(img, &paper, &grown(&ground, paper.w, paper.h, EDGE_CELLS))),
        None => Cow::Borrowed(img),
    }
}

/// The cells of the dark ground around the page: those under the paper grid's Otsu split
/// reached from the grid's edge through such cells, the page being the largest region above
/// it. `None` where they are no ground a page lies on (see the constants).
fn ground_cells(img: &RgbImage, means: &PaperGrid, paper: &PaperGrid) -> Option<Vec<bool>> {
    let (w, h) = (paper.w, paper.h);
    let mut hist = [0u64; 256];
    for &v in &paper.values {
        hist[v.clamp(0.0, 255.0) as usize] += 1;
    }
    let split = f32::from(otsu(&hist));
    let dark: Vec<bool> = paper.values.iter().map(|&v| v <= split).collect();
    let regions = mask_to_components(&dark.iter().map(|d| !d).collect::<Vec<_>>(), w, h);
    let page = regions.iter().max_by_key(|r| r.len())?;
    let edge: Vec<usize> = (0..w * h).filter(|&i| i % w == 0 || i % w == w - 1 || i < w || i >= w * (h - 1)).collect();
    let ground = walked(w, h, edge.iter().copied().filter(|&i| dark[i]), |n| dark[n], |_, _| {});
    let edge_ground = edge.iter().filter(|&&i| ground[i]).count();
    let mut off_page = ground.clone();
    for island in regions.iter().filter(|r| r.len() < page.len() && touches(r, &ground, w, h)) {
        island.iter().for_each(|&i| off_page[i] = true);
    }
    let islands = off_page.iter().filter(|o| **o).count() - ground.iter().filter(|g| **g).count();
    let page_paper = median(page.iter().map(|&i| paper.values[i]))?;
    let ground_grey = median((0..w * h).filter(|&i| ground[i]).map(|i| means.values[i]))?;
    let blank = page.iter().filter(|&&i| means.values[i] >= BLANK_LEVEL * paper.values[i]).count();
    let lies_on_ground = edge_ground as f32 >= SURROUNDED * edge.len() as f32
        && islands as f32 <= MAX_ISLANDS * (w * h) as f32
        && ground_grey < GROUND_DARKER * page_paper
        && blank as f32 >= BLANK_SHARE * page.len() as f32
        && edge_contrast(paper, &ground)? <= SHARP_EDGE
        && print_cells(img, means, &ground, &off_page, page) <= MAX_PRINT_CELLS;
    lies_on_ground.then_some(ground)
}

/// How many cells `off_page` (the ground and the light islands on it), `PAGE_MARGIN_CELLS` or
/// more from the `page`'s, hold print (`LIGHT_PRINT`, `DARK_PRINT`, `PRINT_CELL`): pixels
/// standing out from the median of the ground's cells around them, on strokes of such pixels
/// (`STROKE_CELLS`, `LINE_CELLS`) and on no run longer than a line of those standing out from
/// the median further around (`OBJECT_REACH`). An object on the desk wide enough to make the
/// nearer median its own (a pen's middle) leaves only its ends standing out from it, as short
/// as strokes, but stands out whole from the further one.
fn print_cells(img: &RgbImage, means: &PaperGrid, ground: &[bool], off_page: &[bool], page: &[usize]) -> usize {
    let (w, h, cell) = (means.w, means.h, means.cell);
    let mut page_cells = vec![false; w * h];
    page.iter().for_each(|&i| page_cells[i] = true);
    let page_side = grown(&page_cells, w, h, PAGE_MARGIN_CELLS);
    // The median of the ground's cells within `reach` of cell `i`, every `stride`th each way.
    let ground_level = |i: usize, reach: usize, stride: usize| {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        let offsets = (-(reach as isize)..=reach as isize).step_by(stride);
        let cells = offsets.clone().flat_map(|dy| offsets.clone().map(move |dx| (x + dx, y + dy)));
        let on_grid = cells.filter(|&(x, y)| (0..w as isize).contains(&x) && (0..h as isize).contains(&y));
        median(on_grid.map(|(x, y)| y as usize * w + x as usize).filter(|&j| ground[j]).map(|j| means.values[j]))
    };
    let levels: Vec<Option<(f32, f32)>> = (0..w * h)
        .map(|i| {
            let searched = off_page[i] && !page_side[i];
            let near_and_far = || Some((ground_level(i, GROUND_LEVEL_REACH, 1)?, ground_level(i, OBJECT_REACH, 2)?));
            searched.then(near_and_far).flatten()
        })
        .collect();
    let stands_out = |g: f32, l: f32| g > LIGHT_PRINT * l || g < (DARK_PRINT * l).min(l - DARK_PRINT_DEPTH);
    let (iw, ih) = (img.width() as usize, img.height() as usize);
    let mut marks = vec![0u8; iw * ih];
    for (i, (near, far)) in levels.iter().enumerate().filter_map(|(i, l)| Some((i, (*l)?))) {
        let (x0, y0) = ((i % w) as u32 * cell, (i / w) as u32 * cell);
        for y in y0..(y0 + cell).min(img.height()) {
            for x in x0..(x0 + cell).min(img.width()) {
                let g = f32::from(grey(img.get_pixel(x, y)));
                marks[y as usize * iw + x as usize] =
                    (u8::from(stands_out(g, near)) * NEAR) | (u8::from(stands_out(g, far)) * FAR);
            }
        }
    }
    let (widest, longest) = (STROKE_CELLS * cell as f32, LINE_CELLS * cell as f32);
    mark_runs(&mut marks, iw, ih, NEAR, NEAR_THIN, NEAR_LONG, widest, longest);
    mark_runs(&mut marks, iw, ih, FAR, 0, FAR_LONG, widest, longest);
    let mut counts = vec![0u32; w * h];
    let stroke = |m: u8| m & (NEAR | NEAR_THIN | NEAR_LONG | FAR_LONG) == NEAR | NEAR_THIN;
    for (k, _) in marks.iter().enumerate().filter(|(_, m)| stroke(**m)) {
        counts[(k / iw) / cell as usize * w + (k % iw) / cell as usize] += 1;
    }
    let area = |i: usize| {
        let (x0, y0) = ((i % w) as u32 * cell, (i / w) as u32 * cell);
        ((x0 + cell).min(img.width()) - x0) * ((y0 + cell).min(img.height()) - y0)
    };
    (0..w * h).filter(|&i| levels[i].is_some() && counts[i] as f32 >= PRINT_CELL * area(i) as f32).count()
}

/// Marks on a picture's pixels (`print_cells`): standing out from the near median, from the far
/// one; lying on a run of the near ones `STROKE_CELLS` long or shorter, on one longer than
/// `LINE_CELLS`, and on such a run of the far ones.
const NEAR: u8 = 1;
const FAR: u8 = 2;
const NEAR_THIN: u8 = 4;
const NEAR_LONG: u8 = 8;
const FAR_LONG: u8 = 16;

/// Marks `thin` on the pixels of a `w`×`h` raster marked `holds` that lie on a run of such
/// pixels across, down or along either diagonal `widest` long or shorter, and `long` on those
/// on one longer than `longest`: one pass in the raster's order, each line's open run kept.
#[allow(clippy::too_many_arguments)]
fn mark_runs(marks: &mut [u8], w: usize, h: usize, holds: u8, thin: u8, long: u8, widest: f32, longest: f32) {
    // Each direction's step in the raster's order; its lines numbered by `line`.
    let steps: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];
    let line = |d: usize, x: usize, y: usize| match d {
        0 => y,
        1 => x,
        2 => x + h - 1 - y,
        _ => x + y,
    };
    let close = |marks: &mut [u8], d: usize, (length, last): (usize, usize)| {
        let (dx, dy) = steps[d];
        let extent = length as f32 * if dx != 0 && dy != 0 { std::f32::consts::SQRT_2 } else { 1.0 };
        let mark = (u8::from(extent <= widest) * thin) | (u8::from(extent > longest) * long);
        let back = dy * w as isize + dx;
        (0..length as isize).for_each(|k| marks[(last as isize - k * back) as usize] |= mark);
    };
    // Each line's open run: its length and its last pixel.
    let mut open: Vec<Vec<(usize, usize)>> = [h, w, w + h - 1, w + h - 1].iter().map(|&n| vec![(0, 0); n]).collect();
    for y in 0..h {
        for x in 0..w {
            let k = y * w + x;
            let on = marks[k] & holds != 0;
            for (d, runs) in open.iter_mut().enumerate() {
                let run = &mut runs[line(d, x, y)];
                if on {
                    *run = (run.0 + 1, k);
                } else if run.0 > 0 {
                    close(marks, d, *run);
                    *run = (0, 0);
                }
            }
        }
    }
    for (d, runs) in open.iter().enumerate() {
        runs.iter().filter(|r| r.0 > 0).for_each(|&r| close(marks, d, r));
    }
}

/// The median, over the ground's cells beside the page, of the paper grid `EDGE_REACH` cells
/// further out on the ground over `EDGE_REACH` cells further into the page, straight across;
/// `None` where no such pair is on the grid.
fn edge_contrast(paper: &PaperGrid, ground: &[bool]) -> Option<f32> {
    let (w, h) = (paper.w as isize, paper.h as isize);
    let at = |x: isize, y: isize| ((0..w).contains(&x) && (0..h).contains(&y)).then(|| (y * w + x) as usize);
    let mut ratios = Vec::new();
    for (i, _) in ground.iter().enumerate().filter(|(_, g)| **g) {
        let (x, y) = ((i % paper.w) as isize, (i / paper.w) as isize);
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let step = |k: isize| at(x + k * dx, y + k * dy);
            let (Some(next), Some(out), Some(inside)) = (step(1), step(-EDGE_REACH), step(1 + EDGE_REACH)) else {
                continue;
            };
            if !ground[next] && !ground[inside] && ground[out] {
                ratios.push(paper.values[out] / paper.values[inside].max(1.0));
            }
        }
    }
    median(ratios.into_iter())
}

/// The cells reached from `seeds` on a `w`×`h` grid, breadth first through 4-neighbours that
/// `enters` lets in, each step from a cell to a new one told to `step`.
fn walked(
    w: usize,
    h: usize,
    seeds: impl Iterator<Item = usize>,
    enters: impl Fn(usize) -> bool,
    mut step: impl FnMut(usize, usize),
) -> Vec<bool> {
    let mut reached = vec![false; w * h];
    let mut queue: VecDeque<usize> = VecDeque::new();
    for s in seeds {
        if !reached[s] {
            reached[s] = true;
            queue.push_back(s);
        }
    }
    while let Some(i) = queue.pop_front() {
        for n in neighbours(i, w, h) {
            if !reached[n] && enters(n) {
                reached[n] = true;
                step(i, n);
                queue.push_back(n);
            }
        }
    }
    reached
}

fn touches(region: &[usize], other: &[bool], w: usize, h: usize) -> bool {
    region.iter().any(|&i| neighbours(i, w, h).any(|n| other[n]))
}

fn neighbours(i: usize, w: usize, h: usize) -> impl Iterator<Item = usize> {
    let (x, y) = (i % w, i / w);
    [(x > 0).then(|| i - 1), (x + 1 < w).then(|| i + 1), (y > 0).then(|| i - w), (y + 1 < h).then(|| i + w)]
        .into_iter()
        .flatten()
}

fn median(values: impl Iterator<Item = f32>) -> Option<f32> {
    let mut v: Vec<f32> = values.collect();
    let middle = v.len() / 2;
    (!v.is_empty()).then(|| *v.select_nth_unstable_by(middle, f32::total_cmp).1)
}

/// `cells` grown `by` cells into their 4-neighbours.
fn grown(cells: &[bool], w: usize, h: usize, by: usize) -> Vec<bool> {
    (0..by).fold(cells.to_vec(), |g, _| (0..g.len()).map(|i| g[i] || neighbours(i, w, h).any(|n| g[n])).collect())
}

/// `img` with the pixels of the `ground` cells painted grey as the page's paper nearest them.
fn painted(img: &RgbImage, paper: &PaperGrid, ground: &[bool]) -> RgbImage {
    let (w, h) = (paper.w, paper.h);
    // Each ground cell takes the paper of the page cell its flood from the page reaches it by.
    let mut values = paper.values.clone();
    walked(w, h, (0..w * h).filter(|&i| !ground[i]), |_| true, |from, to| values[to] = values[from]);
    let filled = PaperGrid { values, ..*paper };
    let mut out = img.clone();
    for (x, y, p) in out.enumerate_pixels_mut() {
        if ground[(y / paper.cell) as usize * w + (x / paper.cell) as usize] {
            *p = Rgb([filled.at(x, y).round().clamp(0.0, 255.0) as u8; 3]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Print as rows of bars (6 px every 20 px, 40 px long every 60 px) at `ink` inside the
    /// box `[x0, y0, x1, y1]`.
    fn is_print(x: u32, y: u32, [x0, y0, x1, y1]: [u32; 4]) -> bool {
        (x0..x1).contains(&x) && (y0..y1).contains(&y) && y % 20 < 6 && x % 60 < 40
    }

    /// A page leaning a little on a desk that shows on every side of it.
    fn on_leaning_page(x: u32, y: u32) -> bool {
        let lean = (y as f32 * 0.03) as u32;
        (150 + lean..1050 + lean).contains(&x) && (100..800).contains(&y)
    }

    /// A textured desk: grey about 70, grained and noisy.
    fn desk(x: u32, y: u32) -> u8 {
        let grain = 15.0 * (x as f32 / 9.0 + 3.0 * (y as f32 / 140.0).sin()).sin();
        let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 17) as f32;
        (70.0 + grain + noise) as u8
    }

    #[test]
    fn the_dark_ground_around_a_photographed_page_is_painted_as_its_paper() {
        // A page (paper 225, print 40) leaning a little on a desk, ground on every side.
        let img = RgbImage::from_fn(1200, 900, |x, y| {
            let grey = if !on_leaning_page(x, y) {
                desk(x, y)
            } else if is_print(x, y, [250, 180, 950, 720]) {
                40
            } else {
                225
            };
            Rgb([grey; 3])
        });
        let read = ground_as_paper(&img);
        assert!(matches!(read, Cow::Owned(_)), "the page lies on a desk");
        for (x, y) in [(10, 10), (1190, 890), (60, 450), (1150, 450), (600, 40), (600, 860)] {
            let g = read.get_pixel(x, y).0[0];
            assert!((215..=235).contains(&g), "ground at ({x}, {y}) painted {g}");
        }
        assert_eq!(read.get_pixel(260, 181).0[0], 40, "print stays");
        assert_eq!(read.get_pixel(260, 170).0[0], 225, "paper stays");
    }

    #[test]
    fn pens_lying_on_the_desk_beside_the_page_are_no_print_on_it() {
        // The leaning page with a black pen right of it, a glint along its length, and a light
        // grey pen above it: solid, wider than any stroke, or a thin line longer than a word.
        let img = RgbImage::from_fn(1200, 900, |x, y| {
            let grey = match (x, y) {
                (1110..1140, 150..650) if (1124..1127).contains(&x) => 200,
                (1110..1140, 150..650) => 15,
                (350..750, 30..60) => 160,
                _ if !on_leaning_page(x, y) => desk(x, y),
                _ if is_print(x, y, [250, 180, 950, 720]) => 40,
                _ => 225,
            };
            Rgb([grey; 3])
        });
        let read = ground_as_paper(&img);
        assert!(matches!(read, Cow::Owned(_)), "the page lies on a desk");
        for (x, y) in [(10, 10), (1112, 400), (1125, 400)] {
            let g = read.get_pixel(x, y).0[0];
            assert!((215..=235).contains(&g), "ground at ({x}, {y}) painted {g}");
        }
    }

    #[test]
    fn a_pages_own_dark_header_reaching_the_desk_keeps_its_light_title() {
        // The page of the test above with a full-bleed dark header whose top and ends meet
        // the desk, its title in light print.
        let img = RgbImage::from_fn(1200, 900, |x, y| {
            let grey = match (on_leaning_page(x, y), y < 220) {
                (false, _) => desk(x, y),
                (true, true) if (250..950).contains(&x) && (150..180).contains(&y) && x % 40 < 3 => 235,
                (true, true) => 60,
                (true, false) if is_print(x, y, [250, 260, 950, 720]) => 40,
                (true, false) => 225,
            };
            Rgb([grey; 3])
        });
        let read = ground_as_paper(&img);
        for (x, y) in [(280, 151), (921, 178), (601, 165)] {
            assert_eq!(read.get_pixel(x, y).0[0], 235, "the title's print at ({x}, {y}) stays");
        }
        assert_eq!(read.get_pixel(620, 165).0[0], 60, "the header's ground stays");
    }

    #[test]
    fn a_pages_own_mid_grey_header_reaching_the_desk_keeps_its_black_print() {
        // The leaning page with a full-bleed mid-grey header, its print black as the page's.
        let img = RgbImage::from_fn(1200, 900, |x, y| {
            let grey = match (on_leaning_page(x, y), y < 220) {
                (false, _) => desk(x, y),
                (true, _) if is_print(x, y, [250, 120, 950, 720]) => 20,
                (true, true) => 110,
                (true, false) => 225,
            };
            Rgb([grey; 3])
        });
        let read = ground_as_paper(&img);
        for (x, y) in [(260, 121), (900, 145), (600, 205)] {
            assert_eq!(read.get_pixel(x, y).0[0], 20, "the header's print at ({x}, {y}) stays");
        }
    }

    #[test]
    fn a_page_with_no_ground_or_a_dark_band_along_one_side_is_left_as_it_is() {
        let plain =
            RgbImage::from_fn(1200, 900, |x, y| Rgb([if is_print(x, y, [100, 100, 1100, 800]) { 40 } else { 235 }; 3]));
        assert!(matches!(ground_as_paper(&plain), Cow::Borrowed(_)));
        for grey in [0, 255] {
            assert!(matches!(ground_as_paper(&RgbImage::from_pixel(1200, 900, Rgb([grey; 3]))), Cow::Borrowed(_)));
        }
        assert!(matches!(
            ground_as_paper(&RgbImage::from_fn(3000, 1, |x, _| Rgb([(x % 256) as u8; 3]))),
            Cow::Borrowed(_)
        ));
        // A full-bleed dark header a fifth of the page high, with light print at its left.
        let banded = RgbImage::from_fn(1200, 900, |x, y| {
            let grey = match (y < 180, is_print(x, y, [100, 40, if y < 180 { 400 } else { 1100 }, 800])) {
                (true, true) => 240,
                (true, false) => 50,
                (false, true) => 40,
                (false, false) => 235,
            };
            Rgb([grey; 3])
        });
        assert!(matches!(ground_as_paper(&banded), Cow::Borrowed(_)));
    }

    #[test]
    fn print_in_the_shade_towards_a_pages_edges_is_not_painted_over() {
        // A photo's vignette: the paper greys from 235 at the middle to a quarter of that at
        // the corners, its print with it.
        let img = RgbImage::from_fn(1200, 900, |x, y| {
            let (dx, dy) = ((x as f32 - 600.0) / 600.0, (y as f32 - 450.0) / 450.0);
            let light = (1.0 - 0.9 * (dx * dx + dy * dy) / 2.0).max(0.25);
            let print = is_print(x, y, [30, 30, 1170, 870]);
            Rgb([(light * if print { 50.0 } else { 235.0 }) as u8; 3])
        });
        assert!(matches!(ground_as_paper(&img), Cow::Borrowed(_)));
    }

    #[test]
    fn light_print_on_a_dark_ground_is_not_painted_over() {
        // A dark-mode screenshot: one block of light print on a dark ground.
        let dark_mode =
            RgbImage::from_fn(1200, 900, |x, y| Rgb([if is_print(x, y, [200, 150, 1000, 750]) { 230 } else { 30 }; 3]));
        assert!(matches!(ground_as_paper(&dark_mode), Cow::Borrowed(_)));
        // A white card on a dark poster whose title, in light print, stands above it.
        let poster = RgbImage::from_fn(1200, 900, |x, y| {
            let card = (300..900).contains(&x) && (300..800).contains(&y);
            let title = is_print(x, y, [200, 60, 1000, 240]);
            let grey = match (card, title || is_print(x, y, [350, 350, 850, 750])) {
                (true, true) => 40,
                (true, false) => 235,
                (false, true) => 240,
                (false, false) => 30,
            };
            Rgb([grey; 3])
        });
        assert!(matches!(ground_as_paper(&poster), Cow::Borrowed(_)));
    }
}
