//! OCR results -> the shared page model: characters with boxes in page coordinates and
//! origin Ocr{confidence}, words and lines in reading order, layout regions as blocks.

use std::sync::Arc;

use docsift_layout::{KnownLine, assemble_known_lines};
use docsift_model::{BBox, Block, BlockKind, Char, Direction, Matrix, OcrInfo, Origin, Page, Warning, Word};

use crate::det::Area;
use crate::geometry::{Quad, reading_angle, turn_between};
use crate::layout::{LayoutRegion, RegionKind};
use crate::{OcrLine, RgbImage};

/// Font name given to recognised characters.
pub const OCR_FONT: &str = "OCR";
/// A detected line box is about this many font sizes high: DB grows the shrunk text
/// kernel back with a margin (unclip ratio 1.6).
pub(crate) const BOX_HEIGHT_EM: f32 = 1.5;
/// Letters read with a mean confidence under this are mostly misread: on page 1 of the 284
/// corpus PDFs read by OCR, every page under it (Arabic, Japanese, overprinted text) differs
/// from its text layer by 0.55 of its length or more, and every scan of the OCR corpus reads
/// 0.96 or more. East Asian letters alike: the default model reads Japanese pages' kana as
/// Chinese look-alikes at 0.74–0.81 (issue16538, issue16063, issue-463's paragraph, vertical.pdf)
/// and Korean at 0.56–0.57, Chinese pages at 0.99–1.00 (six corpus PDFs), and the "cjk"
/// script's model Japanese at 1.00.
const LOW_LETTER_CONFIDENCE: f32 = 0.85;
/// A page of fewer letters says too little of how well it was read: a stray mark read as one.
const MIN_JUDGED_LETTERS: usize = 8;
/// A word OCR read with less confidence than this is most likely wrong: over page 1 of the
/// 284 corpus PDFs, 224 of the 253 words under it differ from the text layer's.
const UNSURE_WORD_CONFIDENCE: f32 = 0.5;
/// Letters in unsure words that make a page read well otherwise worth a warning, about a
/// line's worth: such pages among the 284 hold 30 or fewer (a misread word or two), and a
/// Japanese paragraph read as Chinese amid English print (issue-463) holds 119.
const MIN_UNSURE_LETTERS: usize = 40;
/// Why OCR reads letters unsurely, as the warnings say it.
const UNSURE_CAUSE: &str = "a script the models do not read, such as Arabic, Korean, or Japanese (the \"cjk\" script reads it), or print they cannot make out";

/// A pixel darker than this (its channels' mean) is print where a line meets a break: halfway
/// between black print and white paper.
const BREAK_INK: u32 = 128;
/// Print along a break, in pixels per pixel of a line's length, past which the break runs
/// through the line's letters rather than the tips of its descenders. Three corpus scans saved
/// as PNGs and cut at 19 points each: the 18 lines crossed at 0.005–0.10 read as whole but for
/// a descender in 3 ("vears"); of the 65 at 0.13–0.66 all but 3 lines and a few lone marks
/// misread ("amectinnad her until he lonrnerd the").
const BREAK_INK_SHARE: f32 = 0.12;

/// A line meeting a break whose box is under this share of the page's median line height is a
/// sliver of its letters' tops, marks at best: linn.png as a JPEG cut to half its bytes read a
/// 24 px sliver among 50 px lines as ":".
const BREAK_SLIVER: f32 = 0.6;
/// A sliver, or a line of marks alone, standing this near a break, in the page's median line
/// heights, is what the break left of a line's letters even where none of its ink reaches the
/// break: the dots of i and j whose stems were cut away (phototest as a WebP cut to half its
/// bytes read two "•" 3 px above the break, 0.1 of a line, their boxes reaching past it; the
/// UNLV page one whose box detection grew to 0.75 of a line).
const BREAK_SLIVER_REACH: f32 = 0.25;

/// How far from a break, in line heights, the part of a letter it cuts may reach: 0.6 em (a
/// box is `BOX_HEIGHT_EM` high), most letters' width; print running on past it is the next
/// letters touching it. Of 0.4–0.9 on 20 cuts of two scans stored sideways (PNG and JPEG, cut
/// at 30–70% of their bytes), 0.4 kept the most letters, with as few misread words.
const BREAK_LETTER_REACH: f32 = 0.4;
/// A character read over a cut letter is placed up to this many line heights past the print
/// the break left of it (CTC steps are coarse). On those cuts, misread words: 156 keeping
/// every letter, 72 leaving out those over the print alone, 54 with this slack (0.08: 58;
/// 0.2: 47, but whole letters lost).
const BREAK_CHAR_SLACK: f32 = 0.12;

/// What a break leaves of a page's OCR lines (`lines_clear_of`).
pub struct ClearOfBreak {
    pub lines: Vec<OcrLine>,
    /// Lines the break runs through, left out.
    pub left_out: usize,
    /// Lines the break crosses, which lost the letter it cuts.
    pub cut_short: usize,
}

/// OCR lines read on `img`, whose `unread` part its file ended before (`DecodedPage::unread`)
/// -> those the break does not run through, and how many it did. Such a line holds only the
/// part of its letters before the break, which reads as other letters. A line whose print
/// stops short of the break, or meets it only at its descenders' tips, is kept. A line the
/// break crosses rather than runs along (a picture stored sideways) is kept without the
/// letter the break cuts, which reads as another ("/n dog" for "wn dog"): the characters read
/// over the print running on from the break to the first blank across the line's middle.
pub fn lines_clear_of(lines: Vec<OcrLine>, img: &RgbImage, unread: Area) -> ClearOfBreak {
    let mut clear = ClearOfBreak { lines: Vec::with_capacity(lines.len()), left_out: 0, cut_short: 0 };
    if lines.is_empty() {
        return clear;
    }
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    let [ux0, uy0] = [unread.x, unread.y].map(|v| v.round() as i64);
    let [ux1, uy1] = [unread.x + unread.w, unread.y + unread.h].map(|v| v.round() as i64);
    // Rows unread across the picture, or columns down it.
    let across = ux0 <= 0 && ux1 >= w;
    let dark = |x: i64, y: i64| {
        let inside = (0..w).contains(&x) && (0..h).contains(&y);
        inside && img.get_pixel(x as u32, y as u32).0.iter().map(|&c| u32::from(c)).sum::<u32>() < 3 * BREAK_INK
    };
    // The read pixels along the break: a frame one pixel wide around the unread part.
    let [fx0, fy0, fx1, fy1] = [(ux0 - 1).max(0), (uy0 - 1).max(0), (ux1 + 1).min(w), (uy1 + 1).min(h)];
    let ink_along_the_break = |line: &OcrLine| {
        let [x0, y0, x1, y1] = line.quad.bounds();
        let xs = (x0.floor() as i64).max(fx0)..(x1.ceil() as i64).min(fx1);
        let ys = (y0.floor() as i64).max(fy0)..(y1.ceil() as i64).min(fy1);
        ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| !((ux0..ux1).contains(&x) && (uy0..uy1).contains(&y)))
            .filter(|&(x, y)| dark(x, y))
            .count()
    };
    // The first read row or column at the break, and the step from it into the read part.
    let (edge, inward) = match (across, uy0 <= 0, ux0 <= 0) {
        (true, true, _) => (uy1, 1),
        (true, false, _) => (uy0 - 1, -1),
        (false, _, true) => (ux1, 1),
        (false, _, false) => (ux0 - 1, -1),
    };
    let from_break = |[x, y]: [f32; 2]| ((if across { y } else { x }) - edge as f32) * inward as f32;
    // How near the break a line's box comes (negative where it reaches past it).
    let nearest = |line: &OcrLine| line.quad.0.iter().map(|&p| from_break(p)).fold(f32::INFINITY, f32::min);
    // How far from the break the print a line crossing it holds there runs, across its
    // middle half (clear of its neighbours' ascenders and descenders); None where its box
    // stops short of the break, or its print does.
    let cut_letter = |line: &OcrLine| {
        if nearest(line) > BREAK_CHAR_SLACK * line.quad.height() {
            return None;
        }
        let [x0, y0, x1, y1] = line.quad.bounds();
        let (from, to) = if across { (x0, x1) } else { (y0, y1) };
        let middle = ((from + (to - from) / 4.0).round() as i64)..((to - (to - from) / 4.0).round() as i64);
        let inked = |k: i64| {
            let at = edge + inward * k;
            middle.clone().any(|m| if across { dark(m, at) } else { dark(at, m) })
        };
        let reach = (BREAK_LETTER_REACH * line.quad.height()).ceil() as i64;
        inked(0).then(|| (1..reach).find(|&k| !inked(k)).unwrap_or(reach))
    };
    let mut heights: Vec<f32> = lines.iter().map(|l| l.quad.height()).collect();
    let mid = heights.len() / 2;
    let typical_height = *heights.select_nth_unstable_by(mid, f32::total_cmp).1;
    for line in lines {
        let along = (line.quad.angle().cos().abs() > std::f32::consts::FRAC_1_SQRT_2) == across;
        if !along {
            match cut_letter(&line) {
                None => clear.lines.push(line),
                Some(reach) => {
                    let slack = BREAK_CHAR_SLACK * line.quad.height();
                    let read = line.chars.len();
                    let line = without_chars(line, &|c| from_break(c.quad.centre()) < reach as f32 + slack);
                    match line.chars.len() {
                        0 => clear.left_out += 1,
                        n => {
                            clear.cut_short += usize::from(n < read);
                            clear.lines.push(line);
                        }
                    }
                }
            }
            continue;
        }
        let ink = ink_along_the_break(&line);
        let sliver = line.quad.height() < BREAK_SLIVER * typical_height;
        let near = nearest(&line) <= BREAK_SLIVER_REACH * typical_height;
        let marks_alone = !line.text.chars().any(char::is_alphanumeric);
        match (ink > 0 && (sliver || ink as f32 > BREAK_INK_SHARE * line.quad.width()))
            || ((sliver || marks_alone) && near)
        {
            true => clear.left_out += 1,
            false => clear.lines.push(line),
        }
    }
    clear
}

/// `line` without the characters `cut` picks, nor the spaces that leaves at its ends; its
/// dashes and its Latin reading kept with the characters they are of.
fn without_chars(line: OcrLine, cut: &dyn Fn(&crate::OcrChar) -> bool) -> OcrLine {
    let kept: Vec<bool> = line.chars.iter().map(|c| !cut(c)).collect();
    let printed = |(i, c): (usize, &crate::OcrChar)| (kept[i] && c.ch != ' ').then_some(i);
    let first = line.chars.iter().enumerate().find_map(printed).unwrap_or(line.chars.len());
    let last = line.chars.iter().enumerate().rev().find_map(printed).unwrap_or(0);
    // Each character's place among those kept.
    let mut places = Vec::with_capacity(kept.len());
    let mut next = 0;
    for (i, &k) in kept.iter().enumerate() {
        let stays = k && (first..=last).contains(&i);
        places.push(stays.then_some(next));
        next += usize::from(stays);
    }
    let chars: Vec<crate::OcrChar> =
        line.chars.into_iter().zip(&places).filter_map(|(c, place)| place.map(|_| c)).collect();
    let dashes = line.dashes.into_iter();
    let dashes = dashes.filter_map(|d| Some(crate::glyphs::DashLength { index: (*places.get(d.index)?)?, ..d }));
    let confidence = chars.iter().map(|c| c.confidence).sum::<f32>() / chars.len().max(1) as f32;
    OcrLine {
        quad: line.quad,
        text: chars.iter().map(|c| c.ch).collect(),
        confidence,
        latin: line.latin.map(|latin| Box::new(without_chars(*latin, cut))),
        dashes: dashes.collect(),
        chars,
    }
}

/// Fills `page` (whose width/height are already set, in points) from OCR lines found on
/// an image of it with `px_per_pt` pixels per point; native characters are replaced.
pub fn lines_to_page(page: &mut Page, lines: &[OcrLine], px_per_pt: f32, engine: &str) {
    let font: Arc<str> = Arc::from(OCR_FONT);
    let to_pt = |q: &Quad| q.map(|[x, y]| [x / px_per_pt, y / px_per_pt]);
    let theta = reading_angle(lines.iter().map(|l| &l.quad));
    let (sin, cos) = theta.sin_cos();
    let frame = |[x, y]: [f32; 2]| (x * cos + y * sin, -x * sin + y * cos);
    page.chars.clear();
    let mut known = Vec::with_capacity(lines.len());
    let mut conf_sum = 0.0;
    // Letters alone judge a page: figures and marks read surely beside misread words (a table
    // of Arabic names and figures) would hide them.
    let (mut letter_sum, mut letters) = (0.0, 0);
    for line in lines {
        let lq = to_pt(&line.quad);
        let size = lq.height() / BOX_HEIGHT_EM;
        let direction = direction_of(lq.angle());
        let start = page.chars.len();
        for c in &line.chars {
            if c.ch.is_alphabetic() {
                (letter_sum, letters) = (letter_sum + c.confidence, letters + 1);
            }
            let q = to_pt(&c.quad);
            let [tl, tr, _, bl] = q.0;
            let w = q.width().max(1e-3);
            let (ux, uy) = ((tr[0] - tl[0]) / w, (tr[1] - tl[1]) / w);
            let h = lq.height().max(1e-3);
            let (vx, vy) = ((bl[0] - tl[0]) / h, (bl[1] - tl[1]) / h);
            let [x0, top, x1, bottom] = q.bounds();
            page.chars.push(Char {
                text: c.ch.to_string().into(),
                bbox: BBox::new(x0, top, x1, bottom),
                font: font.clone(),
                size,
                upright: direction == Direction::Ltr,
                direction,
                origin: Origin::Ocr { confidence: c.confidence },
                matrix: Matrix([ux * size, uy * size, -vx * size, -vy * size, bl[0], bl[1]]),
                color: Arc::from([]),
                tag: None,
            });
        }
        // Across lines the box; along them the characters, which stop where the ink does
        // (the box's margin would narrow column gutters).
        let (mut u0, mut u1, mut v0, mut v1) = (f32::INFINITY, f32::NEG_INFINITY, f32::INFINITY, f32::NEG_INFINITY);
        for p in lq.0 {
            let (_, v) = frame(p);
            (v0, v1) = (v0.min(v), v1.max(v));
        }
        for c in &line.chars {
            for p in to_pt(&c.quad).0 {
                let (u, _) = frame(p);
                (u0, u1) = (u0.min(u), u1.max(u));
            }
        }
        let tilt = turn_between(lq.angle(), theta).tan();
        known.push(KnownLine { chars: start..page.chars.len(), u0, u1, v0, v1, size, tilt });
        conf_sum += line.confidence;
    }
    assemble_known_lines(page, &known);
    let confidence = if lines.is_empty() { 0.0 } else { conf_sum / lines.len() as f32 };
    page.ocr = Some(OcrInfo { engine: engine.to_string(), dpi: px_per_pt * 72.0, confidence, hybrid: false });
    if let Some(w) = unsure_reading_to_warning(page.number, letter_sum, letters, &page.words) {
        page.warnings.push(w);
    }
}

/// Whether a page's East Asian letters were read surely: no where their mean confidence is
/// under `LOW_LETTER_CONFIDENCE` (a script the model's dictionary lacks, as the default
/// model's lacks kana), None where the page holds too few to judge.
pub fn east_asian_read_surely(lines: &[OcrLine]) -> Option<bool> {
    let letters = lines.iter().flat_map(|l| &l.chars).filter(|c| c.ch.is_alphabetic() && crate::rec::east_asian(c.ch));
    let (sum, n) = letters.fold((0.0, 0), |(sum, n), c| (sum + c.confidence, n + 1));
    (n >= MIN_JUDGED_LETTERS).then(|| sum / n as f32 >= LOW_LETTER_CONFIDENCE)
}

/// The warning for a page OCR read unsurely, if it was: all its letters (a page in a script
/// the models do not read), or words enough among others read surely (lines in such a script
/// on a page of Latin print).
fn unsure_reading_to_warning(number: usize, letter_sum: f32, letters: usize, words: &[Word]) -> Option<Warning> {
    let mean = letter_sum / letters.max(1) as f32;
    if letters >= MIN_JUDGED_LETTERS && mean < LOW_LETTER_CONFIDENCE {
        let message = format!(
            "OCR read this page's letters with a mean confidence of {mean:.2}: they are likely misread ({UNSURE_CAUSE})"
        );
        return Some(Warning::page(number, message));
    }
    let unsure: Vec<&Word> =
        words.iter().filter(|w| w.confidence.is_some_and(|c| c < UNSURE_WORD_CONFIDENCE)).collect();
    let unsure_letters: usize = unsure.iter().map(|w| w.text.chars().filter(|c| c.is_alphabetic()).count()).sum();
    if unsure_letters < MIN_UNSURE_LETTERS {
        return None;
    }
    let first = &unsure[0].text;
    let shown: String = first.chars().take(QUOTED_CHARS).collect();
    let more = if shown.len() < first.len() { "…" } else { "" };
    let words = match unsure.len() {
        1 => "1 word".to_string(),
        n => format!("{n} words"),
    };
    let message = format!(
        "OCR read {words} of this page ({unsure_letters} letters) with a confidence under \
         {UNSURE_WORD_CONFIDENCE}, the first \u{201c}{shown}{more}\u{201d}: they are likely misread ({UNSURE_CAUSE})"
    );
    Some(Warning::page(number, message))
}

/// How much of the first unsure word a warning quotes, to find it by: misread text says
/// little more.
const QUOTED_CHARS: usize = 24;

fn direction_of(angle: f32) -> Direction {
    let deg = angle.to_degrees();
    if (-45.0..45.0).contains(&deg) {
        Direction::Ltr
    } else if (45.0..135.0).contains(&deg) {
        Direction::Ttb
    } else if (-135.0..-45.0).contains(&deg) {
        Direction::Btt
    } else {
        Direction::Rtl
    }
}

fn block_kind(kind: RegionKind) -> BlockKind {
    match kind {
        RegionKind::Text => BlockKind::Text,
        RegionKind::Title => BlockKind::Title,
        RegionKind::Figure => BlockKind::Figure,
        RegionKind::FigureCaption | RegionKind::TableCaption => BlockKind::Caption,
        RegionKind::Table => BlockKind::Table,
        RegionKind::Header => BlockKind::Header,
        RegionKind::Footer => BlockKind::Footer,
        RegionKind::Reference => BlockKind::Reference,
        RegionKind::Equation => BlockKind::Formula,
    }
}

/// Layout regions (image pixels) -> the page's blocks, each holding the page lines whose
/// centre lies inside it (a line goes to the smallest such region). Works the same on OCR
/// lines and on native ones (hybrid mode).
pub fn regions_to_blocks(page: &mut Page, regions: &[LayoutRegion], px_per_pt: f32) {
    let mut blocks: Vec<Block> = regions
        .iter()
        .map(|r| {
            let [x0, y0, x1, y1] = r.bbox.map(|v| v / px_per_pt);
            Block {
                kind: block_kind(r.kind),
                bbox: BBox::new(x0, y0, x1, y1),
                lines: Vec::new(),
                confidence: Some(r.score),
            }
        })
        .collect();
    for (i, line) in page.lines.iter().enumerate() {
        let (cx, cy) = line.bbox.center();
        let inside = |b: &&mut Block| b.bbox.x0 <= cx && cx <= b.bbox.x1 && b.bbox.top <= cy && cy <= b.bbox.bottom;
        if let Some(b) = blocks
            .iter_mut()
            .filter(inside)
            .min_by(|a, b| (a.bbox.width() * a.bbox.height()).total_cmp(&(b.bbox.width() * b.bbox.height())))
        {
            b.lines.push(i);
        }
    }
    // Reading order of blocks: that of their first line; blocks without lines (figures) by position.
    blocks.sort_by(|a, b| {
        let key = |b: &Block| b.lines.first().map_or((1, b.bbox.top, b.bbox.x0), |&l| (0, l as f32, 0.0));
        key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
    });
    page.blocks = blocks;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{self, rect};

    fn line(text: &str, quad: Quad) -> OcrLine {
        test_support::line(text, quad, 0.9)
    }

    /// Strokes 3 px wide every 6 px across `x0..x1`, from row `top` to `bottom`: a line's
    /// letters as the break sees them.
    fn strokes(img: &mut RgbImage, x0: u32, x1: u32, top: u32, bottom: u32) {
        for x in (x0..x1).step_by(6) {
            test_support::paint(img, x, top, 3, bottom - top);
        }
    }

    #[test]
    fn a_line_the_picture_breaks_off_in_is_left_out_and_one_above_it_kept() {
        // Rows from 100 on never decoded.
        let mut img = RgbImage::from_pixel(400, 200, image::Rgb([255; 3]));
        let unread = Area { x: 0.0, y: 100.0, w: 400.0, h: 100.0 };
        strokes(&mut img, 12, 120, 85, 100); // cut through its letters
        strokes(&mut img, 212, 388, 85, 95); // its body whole, two descenders reach the break
        test_support::paint(&mut img, 250, 95, 3, 5);
        test_support::paint(&mut img, 330, 95, 3, 5);
        strokes(&mut img, 12, 188, 53, 67); // whole, above the break
        test_support::paint(&mut img, 150, 97, 3, 3); // a sliver of letters' tops, sparse
        // An i's dot 5 px above the break, its stem cut away, boxed small and boxed as high
        // as a line, and a lone mark well above it.
        test_support::paint(&mut img, 350, 92, 3, 3);
        test_support::paint(&mut img, 370, 92, 3, 3);
        test_support::paint(&mut img, 250, 32, 4, 4);
        let lines = vec![
            line("cut", rect(10.0, 82.0, 122.0, 102.0)),
            line("descenders", rect(210.0, 82.0, 390.0, 102.0)),
            line("above", rect(10.0, 50.0, 190.0, 70.0)),
            line("sliver", rect(130.0, 94.0, 200.0, 102.0)),
            line("•", rect(346.0, 90.0, 357.0, 101.0)),
            line("•", rect(366.0, 82.0, 377.0, 101.0)),
            line("•", rect(246.0, 28.0, 258.0, 40.0)),
        ];
        let clear = lines_clear_of(lines, &img, unread);
        assert_eq!(clear.lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(), ["descenders", "above", "•"]);
        assert_eq!((clear.left_out, clear.cut_short), (4, 0));
        // Columns from 300 on never decoded (a picture stored sideways): a line read down
        // along the break is cut through.
        let unread = Area { x: 300.0, y: 0.0, w: 100.0, h: 200.0 };
        let mut img = RgbImage::from_pixel(400, 200, image::Rgb([255; 3]));
        for y in (20..180).step_by(6) {
            test_support::paint(&mut img, 285, y, 15, 3);
        }
        let down = Quad([[300.0, 20.0], [300.0, 180.0], [280.0, 180.0], [280.0, 20.0]]);
        let clear = lines_clear_of(vec![line("along", down)], &img, unread);
        assert_eq!((clear.lines.len(), clear.left_out), (0, 1));
        assert_eq!(lines_clear_of(Vec::new(), &img, unread).left_out, 0);
    }

    #[test]
    fn a_line_the_break_crosses_loses_the_letter_it_cuts_and_keeps_its_start() {
        // Columns from 300 on never decoded (a picture stored sideways); each line's letters
        // 10 px wide, 5 px apart, from x = 200.
        let unread = Area { x: 300.0, y: 0.0, w: 100.0, h: 200.0 };
        let mut img = RgbImage::from_pixel(400, 200, image::Rgb([255; 3]));
        let letters = |img: &mut RgbImage, top: u32, to: u32| {
            for x in (200..to).step_by(15) {
                test_support::paint(img, x, top, 10.min(to - x), 20);
            }
        };
        letters(&mut img, 20, 300); // the break cuts its last letter (290..300)
        letters(&mut img, 60, 290); // its last letter ends 15 px before the break
        letters(&mut img, 100, 300);
        // Ink to the break over a line's middle: a letter cut at it.
        let read = |text: &str, top: f32| line(text, rect(198.0, top - 2.0, 302.0, top + 22.0));
        let mut spaced = read("abcdefgh i", 100.0);
        spaced.dashes.push(crate::glyphs::DashLength { index: 2, length: 0.3 });
        spaced.latin = Some(Box::new(read("abcdefgh i", 100.0)));
        // Characters read evenly over 104 px: the last one's centre lies within the cut
        // letter's 10 px, and a space left at the line's end goes with it.
        // A line whose box stops short of the break, on the rows of one it cuts, keeps all.
        let short = line("abc", rect(198.0, 18.0, 240.0, 42.0));
        let lines = vec![read("abcdefg", 20.0), read("abcdefg", 60.0), spaced, short];
        let clear = lines_clear_of(lines, &img, unread);
        let texts: Vec<&str> = clear.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["abcdef", "abcdefg", "abcdefgh", "abc"]);
        assert_eq!((clear.left_out, clear.cut_short), (0, 2));
        let spaced = &clear.lines[2];
        assert_eq!((spaced.chars.len(), spaced.dashes[0].index), (8, 2));
        assert_eq!(spaced.latin.as_ref().map(|l| l.text.as_str()), Some("abcdefgh"));
        // Print the break crosses at a line's rim alone (a neighbour's descender) cuts nothing.
        let mut img = RgbImage::from_pixel(400, 200, image::Rgb([255; 3]));
        letters(&mut img, 20, 290);
        test_support::paint(&mut img, 295, 18, 5, 4);
        let clear = lines_clear_of(vec![read("abcdefg", 20.0)], &img, unread);
        assert_eq!((clear.lines[0].text.as_str(), clear.cut_short), ("abcdefg", 0));
    }

    #[test]
    fn lines_become_chars_words_and_text_in_points() {
        let mut page = Page { width: 100.0, height: 100.0, ..Page::default() };
        let lines = vec![line("second line", rect(0.0, 40.0, 110.0, 60.0)), line("first", rect(0.0, 0.0, 50.0, 20.0))];
        lines_to_page(&mut page, &lines, 2.0, "tract");
        assert_eq!(page.text, "first\nsecond line");
        assert_eq!(page.words.len(), 3);
        let f = page.chars.iter().find(|c| c.text == "f").unwrap();
        assert_eq!(f.bbox, BBox::new(0.0, 0.0, 5.0, 10.0));
        assert_eq!(f.origin, Origin::Ocr { confidence: 0.9 });
        assert_eq!(page.ocr.as_ref().unwrap().dpi, 144.0);
    }

    #[test]
    fn a_page_whose_letters_were_read_unsurely_is_warned_of_and_one_read_surely_is_not() {
        let warned = |lines: &[OcrLine]| {
            let mut page = Page { number: 3, width: 100.0, height: 100.0, ..Page::default() };
            lines_to_page(&mut page, lines, 1.0, "tract");
            page.warnings.iter().map(|w| (w.page, w.message.clone())).collect::<Vec<_>>()
        };
        let unsure = [test_support::line("Arabic read", rect(0.0, 0.0, 90.0, 20.0), 0.55)];
        let warnings = warned(&unsure);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].0, Some(3));
        assert!(warnings[0].1.contains("mean confidence of 0.55"), "{warnings:?}");
        assert!(warned(&[test_support::line("Latin read", rect(0.0, 0.0, 90.0, 20.0), 0.95)]).is_empty());
        // Figures read unsurely beside sure letters, and too few letters to judge, are not.
        let figures = [
            test_support::line("426 63 43 56", rect(0.0, 0.0, 90.0, 20.0), 0.3),
            test_support::line("Total votes", rect(0.0, 30.0, 90.0, 50.0), 0.95),
        ];
        assert!(warned(&figures).is_empty());
        assert!(warned(&[test_support::line("a b c", rect(0.0, 0.0, 40.0, 20.0), 0.3)]).is_empty());
        // A line in another script read as Latin guesses amid Latin print read surely: the
        // page's letters are sure enough as a whole, the line's words are not.
        let sure = "The quick brown fox jumps over the lazy dog again and again";
        let mut bilingual: Vec<OcrLine> = (0..6)
            .map(|i| test_support::line(sure, rect(0.0, 30.0 * i as f32, 400.0, 30.0 * i as f32 + 20.0), 0.97))
            .collect();
        bilingual.push(test_support::line(
            "4giil clliw1 ctis bilb llis L-isy-clis cLiLlal Gtis",
            rect(0.0, 200.0, 400.0, 220.0),
            0.3,
        ));
        let warnings = warned(&bilingual);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].1.starts_with("OCR read 8 words of this page (40 letters) with a confidence under 0.5, the first \u{201c}4giil\u{201d}"),
            "{warnings:?}"
        );
        // A misread word or two on such a page is left to the words' confidences; one long
        // enough (a line without spaces) is not, and is quoted in part.
        bilingual[6] = test_support::line("4giil clliw1 ctis", rect(0.0, 200.0, 400.0, 220.0), 0.3);
        assert!(warned(&bilingual).is_empty());
        let unspaced = "「私丈冬刀饵在集女T八末寸。同L二上在寸百二上在书動女L末寸」「私丈冬刀饵在集女T八末寸。同L二上";
        bilingual[6] = test_support::line(unspaced, rect(0.0, 200.0, 400.0, 220.0), 0.3);
        let warnings = warned(&bilingual);
        assert!(
            warnings[0].1.starts_with("OCR read 1 word of this page (44 letters) with a confidence under 0.5, the first \u{201c}「私丈冬刀饵在集女T八末寸。同L二上在寸百二上在\u{2026}\u{201d}"),
            "{warnings:?}"
        );
    }

    #[test]
    fn east_asian_letters_are_judged_apart_from_the_latin_print_around_them() {
        let at = |i: usize| rect(0.0, 30.0 * i as f32, 400.0, 30.0 * i as f32 + 20.0);
        let latin: Vec<OcrLine> =
            (0..4).map(|i| test_support::line("Sure English print, read well", at(i), 0.99)).collect();
        assert_eq!(east_asian_read_surely(&latin), None);
        // Kana read as Chinese look-alikes, a paragraph amid sure English print.
        let mut mixed = latin.clone();
        mixed.push(test_support::line("「私丈冬刀饵在集女T八末寸。", at(4), 0.6));
        assert_eq!(east_asian_read_surely(&mixed), Some(false));
        mixed[4] = test_support::line("「私は冬の朝が好きです。", at(4), 0.99);
        assert_eq!(east_asian_read_surely(&mixed), Some(true));
        // Too few to judge: a few ideographs in a Latin page's footer.
        mixed[4] = test_support::line("東京 Tokyo", at(4), 0.6);
        assert_eq!(east_asian_read_surely(&mixed), None);
    }

    #[test]
    fn a_page_turned_a_quarter_reads_in_its_own_frame() {
        // Text running downwards (page rotated 90° clockwise): earlier lines are further right.
        let down = |x0: f32, x1: f32, y0: f32, y1: f32| Quad([[x1, y0], [x1, y1], [x0, y1], [x0, y0]]);
        let lines = vec![line("later", down(0.0, 20.0, 0.0, 50.0)), line("first", down(40.0, 60.0, 0.0, 50.0))];
        let mut page = Page { width: 100.0, height: 100.0, ..Page::default() };
        lines_to_page(&mut page, &lines, 1.0, "tract");
        assert_eq!(page.text, "first\nlater");
        assert_eq!(page.chars[0].direction, Direction::Ttb);
    }

    #[test]
    fn lines_fall_into_the_smallest_region_around_them() {
        let mut page = Page { width: 100.0, height: 100.0, ..Page::default() };
        lines_to_page(
            &mut page,
            &[line("title", rect(0.0, 0.0, 50.0, 10.0)), line("body", rect(0.0, 30.0, 40.0, 40.0))],
            1.0,
            "t",
        );
        let regions = vec![
            LayoutRegion { kind: RegionKind::Text, bbox: [0.0, 25.0, 100.0, 50.0], score: 0.8 },
            LayoutRegion { kind: RegionKind::Title, bbox: [0.0, 0.0, 60.0, 12.0], score: 0.9 },
            LayoutRegion { kind: RegionKind::Figure, bbox: [0.0, 60.0, 100.0, 90.0], score: 0.7 },
        ];
        regions_to_blocks(&mut page, &regions, 1.0);
        let kinds: Vec<BlockKind> = page.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, vec![BlockKind::Title, BlockKind::Text, BlockKind::Figure]);
        assert_eq!(page.blocks[1].lines, vec![1]);
    }
}
