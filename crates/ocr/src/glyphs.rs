//! A line's crop as blobs of ink, to tell apart glyphs the recognition model confuses by
//! their shape, place and size: quotation marks (`quotes`), full stops and hyphens
//! (`stops_and_hyphens`), hyphens and dashes (`dashes_by_length`), small letters and their
//! same-shape capitals (`LetterHeights`), l and I read once for two strokes or for none
//! (`strokes_by_ink`), other letters read once for two (`letters_doubled_by_ink`), daggers
//! read as t (`daggers_read_as_t`), a trade mark sign's T read as a letter
//! (`trade_marks_read_whole`), asterisks read fewer than printed (`asterisks_by_ink`) or as
//! unsure ideographs (`asterisks_alone`); dashes too short to tell alone are told against the
//! page's hyphens (`en_dashes_beside_page_hyphens`).

use std::cell::OnceCell;
use std::ops::Range;

use image::RgbImage;

use crate::OcrLine;
use crate::det::mask_to_components;
use crate::marks::EM_DASH;
use crate::rec::{Decoded, InkSplit, LINE_HEIGHT};

/// Crop heights searched beyond the columns of a glyph's CTC steps, which place it to within
/// a step or so.
const SEARCH_PAD: f32 = 0.15;
/// Blobs at least this share of the crop's height are letters or figures: x-height letters
/// are about a third of it, full stops, hyphens and commas less than a fifth.
const LETTER_MIN_HEIGHT: f32 = 0.25;
/// The baseline a glyph is judged against is the highest foot of the three letters nearest
/// it (one may descend) within two crop heights (about four letters) of it.
const BASELINE_LETTERS: usize = 3;
const BASELINE_REACH: f32 = 2.0;
/// A full stop's or a hyphen's ink is at most this share of the crop's height high and
/// `STOP_MAX_WIDTH` wide (an en dash is a third of it: a table's rule is longer).
const STOP_MAX_HEIGHT: f32 = 0.15;
const STOP_MAX_WIDTH: f32 = 0.4;
/// Where a full stop's foot stands: within this many letter heights of the baseline (a
/// pixel or two), where a hyphen's stands about a third of one above it.
const ON_BASELINE: f32 = 0.12;
/// A hyphen's foot stands this many letter heights above the baseline (a minus sign's lower:
/// us-001's at 0.24 of its figures; below the x-height's top: higher is a rule's or the line
/// above's ink) ...
const RAISED: [f32; 2] = [0.2, 0.75];
/// ... and its ink is at least this many times as wide as high; a raised dot (·) is not.
const DASH_MIN_ASPECT: f32 = 1.5;
/// A full stop is at most this many times as wide as high (failing_sort's oblong ones are
/// about twice); a thin hyphen's ink read at the baseline (a hairline's) is longer.
const STOP_MAX_ASPECT: f32 = 3.0;
/// A comma read as a full stop is told by its tail: its ink reaches below the baseline at
/// least this many letter heights (0.12–0.28 on the corpus pages read so, full stops' feet
/// 0.06 at most) ...
const COMMA_MIN_DESCENT: f32 = 0.1;
/// ... from above it (ink wholly below is a stop beside letters whose baseline was measured
/// too high: a percent sign's upper ring, a superscript) ...
const COMMA_MIN_RISE: f32 = 0.05;
/// ... and it is at least this many times as high as wide (full stops are round, scanned ones
/// up to 1.4; the commas read as stops stand 1.6 to 2).
const COMMA_MIN_ASPECT: f32 = 1.5;
/// Ink whose top stands at least this many letter heights below the baseline is the line
/// below's (where lines are set close, its ascenders' tops and i's dots: pr-138's, about 0.3
/// to 0.6), not a comma's, whose head stands on the baseline.
const BELOW_LINE_MIN_DROP: f32 = 0.15;
/// Blobs under this share of the crop's height both ways are specks (a pixel or two), not
/// what a comma was read from.
const SPECK_MAX: f32 = 0.05;
/// A dash read inside a line is told by its ink's length against the line's tall letters
/// (`CropInk::tall_height`): measured over the 284 corpus pages, hyphens run to 0.69 of
/// them (Courier's, us-034's), en dashes from 0.6 (most from 0.65) to 0.86, em dashes from
/// 1.05. The model reads half the en dashes "-" (us-018's "2003-04", us-001's minus signs,
/// 0.65 to 0.86) and a few hyphens "–" (0.29 to 0.37), so a dash read is made an en dash at
/// `EN_DASH_LENGTH` and a hyphen under `HYPHEN_MAX_LENGTH`, and kept between.
const EN_DASH_LENGTH: [f32; 2] = [0.7, 0.95];
const HYPHEN_MAX_LENGTH: f32 = 0.5;
/// A dash read "-" from this length up to `EN_DASH_LENGTH` (where long hyphens, Courier's and
/// us-034's, lie among en dashes: us-018's, us-003's and eu-016's from 0.61) is told against
/// the page's hyphens: it is an en dash where it is `EN_DASH_OVER_HYPHENS` times as long as
/// their median or more (an en dash's ink is 1.8 to 2.4 times a hyphen's in the common faces;
/// us-003's, eu-016's and f1040's stood 1.59 to 1.96 times), ...
const EN_DASH_BESIDE_HYPHENS: f32 = 0.6;
const EN_DASH_OVER_HYPHENS: f32 = 1.5;
/// ... the hyphens being those read under `HYPHEN_MAX_LENGTH` beside a letter or figure, at
/// least this many on the page (one alone may be another face's: scotus's header, or a
/// misread mark: pr-136's Chinese).
const PAGE_HYPHENS_MIN: usize = 2;
/// The tall letters' height is the crop's letter blobs' ninetieth percentile (capitals,
/// figures and ascenders, not the x-height, in most lines) over `TALL_MIN_LETTERS` or more.
const TALL_QUANTILE: f32 = 0.9;
const TALL_MIN_LETTERS: usize = 3;
/// A line reading only figures and capitals (us-001's "*–0.3") has no short letters to
/// mislead the measure, so one blob of them is enough.
const TALL_MIN_FIGURES: usize = 1;
const HYPHEN: char = '-';
const EN_DASH: char = '–';
/// A dagger (†) read as "t" is told by its ink against the letter before it: a superscript
/// one's foot stands this share of the tall letters' height above that letter's foot or more
/// (pr-138's stood 0.3; a t stands on it) ...
const DAGGER_MIN_RAISE: f32 = 0.2;
/// ... and one set full size reaches this far below it or more (birdisland's 0.17), being
/// taller than the tall letters by this share (1.17 there; no t is taller than they). Ink
/// before it that tall is letters joined over a descender (image.pdf's "igh" of "Height:"),
/// whose foot is not the baseline.
const DAGGER_MIN_DESCENT: f32 = 0.1;
const DAGGER_MIN_HEIGHT: f32 = 1.1;
/// A dagger's ink is narrower than this share of its height: a t joined to an underline or
/// to its neighbours is wider.
const DAGGER_MAX_WIDTH: f32 = 0.75;
/// A raised mark (a dagger, a trade mark sign's T) is measured against where the ink before
/// it reaches down in its last columns, about a letter's width (this share of the tall
/// letters' height; an r's stem with its arm): letters blurred into one blob (labor.pdf
/// photographed from further off, "percen" before "t") reach down with a p's tail at its
/// start.
const LAST_LETTER_WIDTH: f32 = 0.6;
const DAGGER: char = '†';
/// Marks the model reads small asterisks as: a run of them side by side is read once for two
/// or more (the CTC merges repeats: us-001's "*****" note reads "****"), and a cell of them
/// alone as ideographs or stars ("大省省育", "★★*★" over the Latin classes).
const STARS: [char; 2] = ['*', '★'];
const ASTERISK: char = '*';
/// An asterisk beside letters or figures is set raised at about half their height (us-001's
/// at 0.43 of its capitals); blobs taller than this share of the crop's tall letters are
/// the letters ...
const ASTERISK_MAX_HEIGHT: f32 = 0.7;
/// ... and the asterisks of one run, one glyph printed again, agree in tops, feet and widths
/// within this share of their height: 7 pixels high at 200 dpi, resampling moves an edge by
/// a pixel.
const ASTERISKS_ALIKE: f32 = 0.25;
/// A letter read just before a trade mark sign is the sign's own "T" where the ink nearest its
/// steps stands this share of the tall letters' height above the ink before it or more:
/// birdisland's stood 0.38-0.44 (the sign is set raised); a letter before the sign stands on
/// the same baseline (0.0 there).
const TRADE_MARK_MIN_RAISE: f32 = 0.25;
const TRADE_MARK: char = '™';
/// An i the model read with an accent (failing_sort's bold "min" read "mīn": its dot, as wide
/// as its stem and half as high, taken for a macron) ...
const ACCENTED_I: &[char] = &['í', 'ì', 'î', 'ï', 'ī'];
/// ... is dotted where the one blob above its stem is no wider than this many of the stem's
/// widths (the bold dot 1.0; a circumflex or a macron spans three) ...
const TITTLE_MAX_WIDTH: f32 = 1.4;
/// ... no higher than the stem is wide (the bold dot half as high; mexican_towns' small
/// acutes in "Bajío" and "Marías" stood 1.2-1.7 of their stems' widths, 1.2-2.0 wide) ...
const TITTLE_MAX_HEIGHT: f32 = 1.0;
/// ... and its centre this many stem widths from the stem's or nearer (an acute or a grave
/// leans off it).
const TITTLE_MAX_OFFSET: f32 = 0.5;
/// An i's stem is at most this share of its height wide (failing_sort's bold one 0.57, its
/// "n" beside it 0.79).
const STEM_MAX_WIDTH: f32 = 0.7;
/// A capital read with a diaeresis whose ink has nothing above it but rises this share of
/// the line's tall letters above them wears a ring joined to it: eu-012's bold italic
/// "Åland" read "Äland", its ring touching the A's apex, rose 0.14-0.18 over its lines'
/// ascenders (a diaeresis's two dots stand apart from the letter; a plain capital rises
/// no higher than ascenders).
const JOINED_RING_MIN_RISE: f32 = 0.1;
const A_DIAERESIS: char = 'Ä';
const A_RING: char = 'Å';
/// A raised dot and a low line, which the model reads for a short hyphen or a minus too.
const MIDDLE_DOT: char = '·';
const LOW_LINE: char = '_';
/// Characters whose glyphs reach below the baseline, so that a letter read as one of them
/// may not stand on it.
const DESCENDING: &[char] = &['g', 'j', 'p', 'q', 'y', 'J', 'Q', ',', ';', '(', ')', '[', ']', '{', '}', '|', '/'];

/// Small letters that stand on the baseline and reach the x-height alone: the line's
/// x-height is measured on those read past a word's first letter (a first letter read small
/// may be a capital: "sOx" for "SOx").
const X_HEIGHT_LETTERS: &[char] = &['a', 'c', 'e', 'm', 'n', 'o', 'r', 's', 'u', 'v', 'w', 'x', 'z'];
/// Letters that stand on the baseline and reach the capitals' height or above: the line's
/// tall letters are measured on those read (look-alikes, such as l and I, are not).
const TALL_LETTERS: &[char] =
    &['b', 'd', 'f', 'h', 'k', 't', 'A', 'B', 'D', 'E', 'F', 'G', 'H', 'K', 'L', 'M', 'N', 'R', 'T', 'U', 'Y'];
/// The tall letters stand at least this many times the x-height where the two are told
/// apart: capitals stand 1.33 (Verdana) to 1.48 (Times) times it; a line whose letters all
/// stand alike (small capitals, a cell of capitals read small) tells nothing.
const TALL_MIN_RATIO: f32 = 1.2;
/// A letter's nearest blob standing under this is not the whole letter (the "S" of
/// issue9972's underlined bold italic "Sunday" stood -0.82); small letters stand about 0, and
/// the capitals the model read small stood -0.17 and more.
const LETTER_MIN_STANDING: f32 = -0.5;
/// A line with letters of only one of the two heights read takes the other at this share
/// of the tall letters: the median over the lines of page 1 of the 284 corpus PDFs that read
/// both (5% of them under 0.64, 5% over 0.80); tableception's "XXxix" holds no tall letter,
/// AnimalSounds1's cell "bZZZZZZZ" no small one.
const X_HEIGHT_SHARE: f32 = 0.73;

/// A narrow stroke (l, I) is at most this share of its height wide: serif capital I's, the
/// widest met, stood 0.44.
const STROKE_MAX_WIDTH: f32 = 0.5;
/// Two strokes read as one letter are one letter doubled where their tops, their feet and
/// their widths agree within this share of their height (two pixels at the sweep's sizes): a
/// t beside an l ("assault" read with one blob between them) is twice as wide.
const STROKES_ALIKE: f32 = 0.1;
/// An l or I read on the paper between two letters is dropped where the model gave it less
/// than this: schools' "MN" read "MIN" at 0.54 and 0.61; of the l and I read right without
/// ink of their own (their ink joined to a neighbour's) none was under 0.79 but for one
/// beside another I.
const PHANTOM_MAX_CONFIDENCE: f32 = 0.7;
/// A letter repeated without a blank step between is read once (the CTC merges it): in a word
/// of `DOUBLE_WORD_MIN` letters or more whose letter blobs outnumber its letters by exactly
/// one, two neighbouring blobs alike (`STROKES_ALIKE`) where one letter stands are that
/// letter twice (population_growth's "Sikkim" read "Sikim"); shorter words are too few
/// letters to pair blobs with ...
const DOUBLE_WORD_MIN: usize = 3;
/// ... and their gap is no wider than this many times the word's widest other gap between
/// letters: a broken H's two stems stand a crossbar apart.
const DOUBLE_MAX_GAP: f32 = 1.0;
/// ... and their ink is one shape: it overlaps this much or more (`CropInk::shape_overlap`;
/// "Sikkim"'s k's 0.97 and 0.98; the stems of a broken n in issue-598's bitmap font up to
/// 0.95, two letters of one box's size 0.9 at most) ...
const DOUBLE_MIN_OVERLAP: f32 = 0.96;
/// ... and the letter's steps are this many or more, running from the first blob's columns
/// into the second's, as a letter read for two glyphs does ("Sikim"'s k; of the letters
/// merely beside a blob alike, 19 in 416 on the corpus pages looked at had two steps or more).
const DOUBLE_MIN_STEPS: usize = 2;
/// Figures read without a space between them are told apart where their pitch shows one:
/// most fonts' figures are tabular (one advance each), so in a run of `FIGURE_RUN_MIN` or
/// more, each owning one blob, a pitch `FIGURE_SPACE_PITCH` times the run's median or more
/// holds a word space (a space is a quarter to a third of an em, a figure half an em:
/// issue_288's stand at 1.4) ...
const FIGURE_RUN_MIN: usize = 4;
const FIGURE_SPACE_PITCH: f32 = 1.35;
/// ... A figure's ink is at most as wide as high (0.3 to 0.9 on the corpus pages); wider is
/// a figure touching a dash ("2006–07"), whose middle is not the figure's.
const FIGURE_MAX_ASPECT: f32 = 1.0;
/// ... Proportional figures set a "1" narrow: its pitches stand a quarter under the others'
/// (detect_vertical_false's "2012"), tabular ones' within a tenth.
const FIGURE_PITCH_SPREAD: f32 = 0.15;

/// How alike two shapes are, each its ink's pixels from one point they share (a corner, a
/// centre): the most they overlap (the pixels both cover over those either covers), set
/// together within `reach` pixels either way.
pub(crate) fn best_overlap(a: &[(isize, isize)], b: &[(isize, isize)], reach: isize) -> f32 {
    let in_a: std::collections::HashSet<(isize, isize)> = a.iter().copied().collect();
    let mut best = 0.0f32;
    for dx in -reach..=reach {
        for dy in -reach..=reach {
            let both = b.iter().filter(|&&(x, y)| in_a.contains(&(x + dx, y + dy))).count();
            let either = in_a.len() + b.len() - both;
            best = best.max(both as f32 / either.max(1) as f32);
        }
    }
    best
}

/// A line's crop and its ink, labelled when first asked and only then, once for all the
/// judges of its letters and marks.
pub(crate) struct LineInk<'a> {
    crop: &'a RgbImage,
    ink: OnceCell<CropInk>,
}

impl<'a> LineInk<'a> {
    pub fn new(crop: &'a RgbImage) -> Self {
        LineInk { crop, ink: OnceCell::new() }
    }

    pub fn get(&self) -> &CropInk {
        self.ink.get_or_init(|| CropInk::of(self.crop))
    }
}

/// A crop's ink (the smaller side of its Otsu split) and the ink's blobs.
pub(crate) struct CropInk {
    split: InkSplit,
    pub w: usize,
    pub h: usize,
    /// Each blob's box: first and last column, first and last row.
    pub boxes: Vec<[usize; 4]>,
    /// The blob each pixel belongs to; `usize::MAX` for paper.
    pub owner: Vec<usize>,
}

impl CropInk {
    pub fn of(crop: &RgbImage) -> CropInk {
        let (w, h) = (crop.width() as usize, crop.height() as usize);
        let split = InkSplit::of(crop);
        let ink = split.mask();
        let mut owner = vec![usize::MAX; ink.len()];
        let mut boxes = Vec::new();
        for (k, blob) in mask_to_components(&ink, w, h).into_iter().enumerate() {
            let mut b = [usize::MAX, usize::MAX, 0, 0];
            for i in blob {
                owner[i] = k;
                b = [b[0].min(i % w), b[1].min(i / w), b[2].max(i % w), b[3].max(i / w)];
            }
            boxes.push(b);
        }
        CropInk { split, w, h, boxes, owner }
    }

    /// How much of a pixel is ink, from 0 (paper) to 1 (at the ink's level or beyond), so that
    /// a glyph's edge weighs by its grey.
    pub fn weight(&self, i: usize) -> f32 {
        let (g, l) = (self.split.greys[i] as f32, self.split.level as f32);
        let w = if self.split.dark { (255.0 - g) / (255.0 - l).max(1.0) } else { g / l.max(1.0) };
        w.clamp(0.0, 1.0)
    }

    /// The blob `keep` takes whose middle lies nearest the middle of columns `span` (a
    /// glyph's steps), within `SEARCH_PAD` of them.
    pub fn nearest(&self, [x0, x1]: [f32; 2], keep: impl Fn(&[usize; 4]) -> bool) -> Option<usize> {
        let pad = SEARCH_PAD * LINE_HEIGHT as f32;
        let (lo, hi, mid) = (x0 - pad, x1 + pad, middle([x0, x1]));
        self.boxes
            .iter()
            .enumerate()
            .filter(|(_, b)| (lo..=hi).contains(&centre(b)) && keep(b))
            .min_by(|(_, a), (_, b)| (centre(a) - mid).abs().total_cmp(&(centre(b) - mid).abs()))
            .map(|(k, _)| k)
    }

    /// Whether blob box `b` lies inside the crop's rows: ink cut by its top or bottom is the
    /// next line's.
    fn inside(&self, b: &[usize; 4]) -> bool {
        b[1] > 0 && b[3] + 1 < self.h
    }

    /// Whether blob box `b` is a letter's or a figure's, inside the crop.
    fn is_letter(&self, b: &[usize; 4]) -> bool {
        height(b) >= LETTER_MIN_HEIGHT * self.h as f32 && self.inside(b)
    }

    /// Whether blob box `b` is no larger than a full stop's or a hyphen's ink.
    fn is_stop_sized(&self, b: &[usize; 4]) -> bool {
        let hf = self.h as f32;
        height(b) <= STOP_MAX_HEIGHT * hf && width(b) <= STOP_MAX_WIDTH * hf
    }

    /// Whether blob box `b` is flat as a dash's ink (of any length), inside the crop.
    fn is_dash_shaped(&self, b: &[usize; 4]) -> bool {
        self.inside(b) && height(b) <= STOP_MAX_HEIGHT * self.h as f32 && width(b) >= DASH_MIN_ASPECT * height(b)
    }

    /// The height in rows of the crop's tall letters (`TALL_QUANTILE` of its letter blobs',
    /// blob `except` aside); None where it has fewer than `min_letters`.
    fn tall_height(&self, min_letters: usize, except: Option<usize>) -> Option<f32> {
        self.tall_height_where(min_letters, |j| Some(j) != except)
    }

    /// The height in rows of the tall letters among the crop's letter blobs `keep` takes
    /// (`TALL_QUANTILE` of theirs); None where it takes fewer than `min_letters`.
    fn tall_height_where(&self, min_letters: usize, keep: impl Fn(usize) -> bool) -> Option<f32> {
        let mut heights: Vec<usize> = (0..self.boxes.len())
            .filter(|&j| keep(j) && self.is_letter(&self.boxes[j]))
            .map(|j| self.boxes[j][3] - self.boxes[j][1] + 1)
            .collect();
        if heights.len() < min_letters.max(1) {
            return None;
        }
        heights.sort_unstable();
        let at = ((heights.len() - 1) as f32 * TALL_QUANTILE).round() as usize;
        heights.get(at).map(|&h| h as f32)
    }

    /// Whether blob box `b` is a speck (`SPECK_MAX`).
    fn is_speck(&self, b: &[usize; 4]) -> bool {
        width(b).max(height(b)) < SPECK_MAX * self.h as f32
    }

    /// The crop's baseline and its letters' height, in rows: the median foot and height of its
    /// letter blobs (at least `TALL_MIN_LETTERS`), as descenders, raised marks and superscripts
    /// are the fewer; None where it has fewer letters.
    fn line_baseline(&self) -> Option<(f32, f32)> {
        let letters: Vec<&[usize; 4]> = self.boxes.iter().filter(|b| self.is_letter(b)).collect();
        if letters.len() < TALL_MIN_LETTERS {
            return None;
        }
        let median = |of: fn(&[usize; 4]) -> f32| docsift_layout::median(letters.iter().map(|b| of(b)).collect());
        Some((median(|b| b[3] as f32), median(height)))
    }

    /// Whether blob box `b` is a mark no larger than a comma: shorter than a letter, no wider
    /// than a full stop, inside the crop.
    fn is_mark(&self, b: &[usize; 4]) -> bool {
        self.inside(b) && !self.is_letter(b) && width(b) <= STOP_MAX_WIDTH * self.h as f32
    }

    /// What mark blob `k` is by its shape and where it stands against the baseline of the
    /// letters beside it (measured on `min_letters` or more): a comma, whose tail reaches below
    /// it from above, or a full stop on it; None for other ink.
    fn separator(&self, k: usize, min_letters: usize) -> Option<char> {
        let b = self.boxes[k];
        let [x0, y0, x1, y1] = b;
        let (baseline, unit) = self.baseline_near(x0, x1, min_letters)?;
        let (descent, rise) = ((y1 as f32 - baseline) / unit, (baseline - y0 as f32) / unit);
        let (width, height) = (width(&b), height(&b));
        if descent >= COMMA_MIN_DESCENT && rise >= COMMA_MIN_RISE && height >= COMMA_MIN_ASPECT * width {
            Some(',')
        } else if self.is_stop_sized(&b) && width <= STOP_MAX_ASPECT * height && descent.abs() <= ON_BASELINE {
            Some('.')
        } else {
            None
        }
    }

    /// How far blob `k`'s foot stands above the baseline of the letters beside it (measured
    /// on `min_letters` or more), in those letters' heights: about 0 for a full stop, a third
    /// for a hyphen.
    fn foot_above_baseline(&self, k: usize, min_letters: usize) -> Option<f32> {
        let [x0, _, x1, y1] = self.boxes[k];
        let (baseline, unit) = self.baseline_near(x0, x1, min_letters)?;
        Some((baseline - y1 as f32) / unit)
    }

    /// The letter blob nearest the middle of columns `span` (a letter's steps).
    fn letter_blob(&self, span: [f32; 2]) -> Option<usize> {
        self.nearest(span, |b| self.is_letter(b))
    }

    /// The blob ending nearest left of blob `k` (of two ending together, the lower: an i's
    /// stem, not its dot), inside the crop.
    fn ink_before(&self, k: usize) -> Option<usize> {
        let x0 = self.boxes[k][0];
        (0..self.boxes.len())
            .filter(|&j| self.boxes[j][2] < x0 && self.inside(&self.boxes[j]))
            .max_by_key(|&j| (self.boxes[j][2], self.boxes[j][3]))
    }

    /// The lowest row blob `k`'s ink reaches in its last letter's columns (`LAST_LETTER_WIDTH`
    /// of `tall`, the tall letters' height).
    fn foot_at_end(&self, k: usize, tall: f32) -> usize {
        let [x0, y0, x1, y1] = self.boxes[k];
        let columns = (LAST_LETTER_WIDTH * tall).ceil().max(1.0) as usize;
        let from = x1.saturating_sub(columns - 1).max(x0);
        (y0..=y1).rev().find(|&y| (from..=x1).any(|x| self.owner[y * self.w + x] == k)).unwrap_or(y1)
    }

    /// How alike blobs `a` and `b` are in shape (`best_overlap`), from their boxes' top-left
    /// corners.
    fn shape_overlap(&self, a: usize, b: usize) -> f32 {
        let pixels = |k: usize| {
            let [x0, y0, x1, y1] = self.boxes[k];
            let owner = &self.owner;
            let w = self.w;
            (y0..=y1)
                .flat_map(move |y| (x0..=x1).map(move |x| (x, y)))
                .filter(move |&(x, y)| owner[y * w + x] == k)
                .map(move |(x, y)| ((x - x0) as isize, (y - y0) as isize))
        };
        best_overlap(&pixels(a).collect::<Vec<_>>(), &pixels(b).collect::<Vec<_>>(), 1)
    }

    /// The blobs inside the crop wholly above letter blob `k`'s top, over its columns.
    fn blobs_above(&self, k: usize) -> Vec<usize> {
        let [x0, y0, x1, _] = self.boxes[k];
        (0..self.boxes.len())
            .filter(|&j| {
                let b = &self.boxes[j];
                b[3] < y0 && b[0] <= x1 && b[2] >= x0 && self.inside(b)
            })
            .collect()
    }

    /// How far letter blob `k` rises above the crop's other tall letters (at least
    /// `TALL_MIN_LETTERS`), in their height.
    fn rise_over_tall(&self, k: usize) -> Option<f32> {
        let tall = self.tall_height(TALL_MIN_LETTERS, Some(k))?;
        Some((self.height(k) - tall) / tall)
    }

    /// Whether blob `dot` is the dot of stem `stem` below it (`TITTLE_MAX_WIDTH`,
    /// `TITTLE_MAX_HEIGHT`, `TITTLE_MAX_OFFSET`).
    fn is_tittle(&self, dot: usize, stem: usize) -> bool {
        let (d, s) = (&self.boxes[dot], &self.boxes[stem]);
        let unit = width(s);
        width(d) <= TITTLE_MAX_WIDTH * unit
            && height(d) <= TITTLE_MAX_HEIGHT * unit
            && (centre(d) - centre(s)).abs() <= TITTLE_MAX_OFFSET * unit
    }

    /// Blob `k`'s height in rows.
    fn height(&self, k: usize) -> f32 {
        height(&self.boxes[k])
    }

    /// The letter blobs of `decoded[i]`: those whose middles lie nearer its steps' middle
    /// than any other character's.
    fn letters_of(&self, decoded: &[Decoded], i: usize, step_px: f32) -> Vec<usize> {
        (0..self.boxes.len())
            .filter(|&k| self.is_letter(&self.boxes[k]) && reader_of(decoded, &self.boxes[k], step_px) == Some(i))
            .collect()
    }

    /// The stroke `decoded[k]` owns besides its own glyph, where it owns two letter blobs: the
    /// right one, where it is narrow (`STROKE_MAX_WIDTH`) and unlike the left (`boxes_alike`).
    /// us-007's "WJIII" read "WJII", the J's steps owning the first I's stroke; a broken H's
    /// or n's two stems are alike and keep theirs.
    fn stroke_lent(&self, decoded: &[Decoded], k: usize, step_px: f32) -> Option<usize> {
        let [a, b] = self.letters_of(decoded, k, step_px)[..] else { return None };
        let [own, lent] = if self.boxes[a][0] <= self.boxes[b][0] { [a, b] } else { [b, a] };
        let stroke = &self.boxes[lent];
        (width(stroke) <= STROKE_MAX_WIDTH * height(stroke) && !boxes_alike(&[self.boxes[own], *stroke]))
            .then_some(lent)
    }

    /// Whether no letter blob spans column `x`.
    fn on_paper(&self, x: f32) -> bool {
        !self.boxes.iter().any(|b| self.is_letter(b) && (b[0] as f32..=(b[2] + 1) as f32).contains(&x))
    }

    /// The boxes of the longest run of letter blobs `owned`, from the left, that are two or
    /// more narrow strokes alike (`STROKE_MAX_WIDTH`, `STROKES_ALIKE`). A letter's steps sit
    /// left of its ink, so the run's owned blobs may end in its right neighbour's.
    fn strokes_alike(&self, owned: &[usize]) -> Option<Vec<[usize; 4]>> {
        let mut boxes: Vec<[usize; 4]> = owned.iter().map(|&k| self.boxes[k]).collect();
        boxes.sort_by_key(|b| b[0]);
        let alike = |strokes: &[[usize; 4]]| {
            strokes.iter().all(|b| width(b) <= STROKE_MAX_WIDTH * height(b)) && boxes_alike(strokes)
        };
        let strokes = (2..=boxes.len()).take_while(|&n| alike(&boxes[..n])).last()?;
        boxes.truncate(strokes);
        Some(boxes)
    }

    /// The baseline beside columns `x0..=x1` (the highest foot of the `BASELINE_LETTERS`
    /// letters and figures nearest them within `BASELINE_REACH`: descenders reach below it,
    /// and a long line's crop may lean) and those letters' median height, in rows; None
    /// where there are fewer than `min_letters`.
    fn baseline_near(&self, x0: usize, x1: usize, min_letters: usize) -> Option<(f32, f32)> {
        let mut letters: Vec<(f32, &[usize; 4])> = self
            .boxes
            .iter()
            .filter(|b| self.is_letter(b))
            .map(|b| ((b[0] as f32 - x1 as f32).max(x0 as f32 - b[2] as f32), b))
            .filter(|&(gap, _)| gap <= BASELINE_REACH * self.h as f32)
            .collect();
        letters.sort_by(|a, b| a.0.total_cmp(&b.0));
        letters.truncate(BASELINE_LETTERS);
        if letters.len() < min_letters {
            return None;
        }
        let foot = letters.iter().map(|(_, b)| b[3]).min()?;
        let height = docsift_layout::median(letters.iter().map(|(_, b)| height(b)).collect());
        Some((foot as f32, height))
    }
}

/// The columns of a decoded character's steps in its line's crop (`step_px` columns a step).
pub(crate) fn steps_span(decoded: &[Decoded], i: usize, step_px: f32) -> [f32; 2] {
    let d = &decoded[i];
    let end = decoded.get(i + 1).map_or(d.last_step + 1, |n| n.first_step.min(d.last_step + 1));
    [d.first_step as f32 * step_px, end as f32 * step_px]
}

/// Where letters of a line's `crop` stand between the line's x-height and its tall letters'
/// height (medians of the letters read so): the crop's blobs and the two heights are found
/// when first asked, and only then.
pub(crate) struct LetterHeights<'a> {
    ink: &'a LineInk<'a>,
    step_px: f32,
    measured: Option<Option<(f32, f32)>>,
}

impl<'a> LetterHeights<'a> {
    pub fn new(ink: &'a LineInk<'a>, step_px: f32) -> Self {
        LetterHeights { ink, step_px, measured: None }
    }

    /// Where `decoded[i]`'s ink stands: 0 at the line's x-height, 1 at its tall letters'
    /// height; None where the line has no letters of either, or they stand alike, or the blob
    /// nearest its steps is a neighbour's too (touching letters; a first letter whose steps
    /// come late, as "Virginia"'s V nearest its i) or stands as a piece of a letter
    /// (`LETTER_MIN_STANDING`).
    pub fn standing(&mut self, decoded: &[Decoded], i: usize) -> Option<f32> {
        let (ink, step_px) = (self.ink.get(), self.step_px);
        let measured = self.measured.get_or_insert_with(|| {
            let heights = |read: &dyn Fn(usize) -> bool| {
                let h: Vec<f32> = (0..decoded.len())
                    .filter(|&k| read(k))
                    .filter_map(|k| ink.letter_blob(steps_span(decoded, k, step_px)))
                    .map(|k| ink.height(k))
                    .collect();
                (!h.is_empty()).then(|| docsift_layout::median(h))
            };
            let past_first = |k: usize| k > 0 && decoded[k - 1].ch.is_alphabetic();
            let small = heights(&|k| X_HEIGHT_LETTERS.contains(&decoded[k].ch) && past_first(k));
            let tall = heights(&|k| TALL_LETTERS.contains(&decoded[k].ch));
            let (small, tall) = match (small, tall) {
                (Some(small), Some(tall)) => (tall >= TALL_MIN_RATIO * small).then_some((small, tall))?,
                (Some(small), None) => (small, small / X_HEIGHT_SHARE),
                (None, Some(tall)) => (tall * X_HEIGHT_SHARE, tall),
                (None, None) => return None,
            };
            Some((small, tall))
        });
        let (small, tall) = (*measured)?;
        let blob = |k: usize| ink.letter_blob(steps_span(decoded, k, step_px));
        let own = blob(i)?;
        let mut neighbours =
            [i.wrapping_sub(1), i + 1].into_iter().filter(|&k| decoded.get(k).is_some_and(|d| d.ch != ' '));
        if neighbours.any(|k| blob(k) == Some(own)) {
            return None;
        }
        let standing = (ink.height(own) - small) / (tall - small);
        (standing >= LETTER_MIN_STANDING).then_some(standing)
    }
}

/// Marks the model confuses, judged by their ink in the line's `crop` (`step_px` columns a
/// step): quotation marks curled (`quotes::curl_quotes`), commas read over the line below's
/// ink dropped, full stops and hyphens told apart.
/// The crop's blobs are labelled only for a line that holds such a mark.
/// Returns the dashes measured (`dashes_by_length`), last, as no later judge moves a character.
pub fn judge_marks(decoded: &mut Vec<Decoded>, ink: &LineInk, step_px: f32) -> Vec<DashLength> {
    if !decoded
        .iter()
        .any(|d| matches!(d.ch, '\'' | '"' | '.' | ',' | HYPHEN | EN_DASH | EM_DASH | MIDDLE_DOT | LOW_LINE))
    {
        return Vec::new();
    }
    let ink = ink.get();
    crate::quotes::curl_quotes(decoded, ink, step_px);
    commas_of_the_line_below(decoded, ink, step_px);
    stops_and_hyphens(decoded, ink, step_px);
    commas_read_as_stops(decoded, ink, step_px);
    dashes_by_length(decoded, ink, step_px)
}

/// A dash read inside a line: its character's index and its ink's length against the line's
/// tall letters (`dashes_by_length`), kept for the page's measure
/// (`en_dashes_beside_page_hyphens`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DashLength {
    pub index: usize,
    pub length: f32,
}

fn is_dash(ch: char) -> bool {
    matches!(ch, HYPHEN | EN_DASH | EM_DASH)
}

/// Dashes read "-" too long for most hyphens and too short for most en dashes
/// (`EN_DASH_BESIDE_HYPHENS` up to `EN_DASH_LENGTH`), told against the page's own hyphens
/// (`EN_DASH_OVER_HYPHENS`, `PAGE_HYPHENS_MIN`): us-003's "$48,001–$66,900", eu-016's "2009 –
/// 223" and f1040's "1–Dec" stand 1.6 to 2 times as long as their pages' hyphens; Courier's
/// long hyphens (scotus's "07-1315", "above-entitled") and us-034's have no short hyphens
/// beside them and stay.
pub fn en_dashes_beside_page_hyphens(lines: &mut [OcrLine]) {
    let spaced = |line: &OcrLine, i: usize| {
        [i.checked_sub(1), i.checked_add(1)]
            .into_iter()
            .all(|k| k.and_then(|k| line.chars.get(k)).is_none_or(|c| c.ch == ' '))
    };
    let read = |line: &OcrLine, d: &DashLength| line.chars.get(d.index).map(|c| c.ch);
    let mut hyphens: Vec<f32> = lines
        .iter()
        .flat_map(|line| {
            line.dashes
                .iter()
                .filter(|d| d.length < HYPHEN_MAX_LENGTH && read(line, d) == Some(HYPHEN) && !spaced(line, d.index))
                .map(|d| d.length)
        })
        .collect();
    if hyphens.len() < PAGE_HYPHENS_MIN {
        return;
    }
    hyphens.sort_by(f32::total_cmp);
    let median = hyphens[hyphens.len() / 2];
    let band = EN_DASH_BESIDE_HYPHENS..EN_DASH_LENGTH[0];
    for line in lines {
        let mut changed = false;
        for d in line.dashes.iter().filter(|d| band.contains(&d.length) && d.length >= EN_DASH_OVER_HYPHENS * median) {
            if let Some(c) = line.chars.get_mut(d.index).filter(|c| c.ch == HYPHEN) {
                c.ch = EN_DASH;
                changed = true;
            }
        }
        if changed {
            line.text = line.chars.iter().map(|c| c.ch).collect();
        }
    }
}

/// l and I told by the ink their steps own (`CropInk::letters_of`): one read once for two
/// strokes alike (`CropInk::strokes_alike`) is doubled, as the model merged schools' "Jill"
/// into "Jil", the tabula pages' "million" into "milion", "All" into "Al" and "II" into "I";
/// a run of one of them owning more strokes alike than it holds letters takes one for each
/// ("III" read "II", nics' "Illinois" read "linois"), the letter before lending it a stroke
/// it owns besides its own glyph (`CropInk::stroke_lent`); where it owns as many the model read
/// each stroke ("will", "pillows" and "Renville" as printed), and a run of l and I mixed is
/// left as read. One read doubtfully (`PHANTOM_MAX_CONFIDENCE`) between two letters, owning
/// no ink, its steps on the paper between theirs, is dropped, as schools' "MN" read "MIN".
pub fn strokes_by_ink(decoded: &mut Vec<Decoded>, ink: &LineInk, step_px: f32) {
    let is_stroke = |d: &Decoded| matches!(d.ch, 'l' | 'I');
    if !decoded.iter().any(is_stroke) {
        return;
    }
    let ink = ink.get();
    let letter = |d: Option<&Decoded>| d.is_some_and(|d| d.ch.is_alphanumeric());
    let mut i = 0;
    while i < decoded.len() {
        let run = decoded[i..].iter().take_while(|d| is_stroke(d)).count();
        if run == 0 {
            i += 1;
            continue;
        }
        let mut owned: Vec<usize> = (i..i + run).flat_map(|k| ink.letters_of(decoded, k, step_px)).collect();
        owned.extend(i.checked_sub(1).and_then(|k| ink.stroke_lent(decoded, k, step_px)));
        let uniform = decoded[i..i + run].iter().all(|d| d.ch == decoded[i].ch);
        let strokes = ink.strokes_alike(&owned).filter(|strokes| uniform && strokes.len() > run);
        if let Some(readings) = strokes.and_then(|strokes| stroke_steps(decoded, i..i + run, &strokes, step_px)) {
            let read = readings.len();
            decoded.splice(i..i + run, readings);
            i += read;
            continue;
        }
        if run == 1
            && owned.is_empty()
            && decoded[i].confidence < PHANTOM_MAX_CONFIDENCE
            && letter(i.checked_sub(1).and_then(|k| decoded.get(k)))
            && letter(decoded.get(i + 1))
            && ink.on_paper(middle(steps_span(decoded, i, step_px)))
        {
            decoded.remove(i);
            continue;
        }
        i += run;
    }
}

/// Letters the model read once for two alike side by side, told by their word's blobs
/// (`blobs_to_doubled_letter`): the letter's steps are cut between the two blobs. l and I are
/// told by their strokes (`strokes_by_ink`).
pub fn letters_doubled_by_ink(decoded: &mut Vec<Decoded>, ink: &LineInk, step_px: f32) {
    let words = words_of_letters(decoded);
    if words.is_empty() {
        return;
    }
    let ink = ink.get();
    for word in words.into_iter().rev() {
        let bound = |k: Option<usize>, end: f32| k.map_or(end, |k| middle(steps_span(decoded, k, step_px)));
        let x0 = bound(word.start.checked_sub(1), 0.0);
        let x1 = bound((word.end < decoded.len()).then_some(word.end), ink.w as f32);
        let mut blobs: Vec<usize> = (0..ink.boxes.len())
            .filter(|&b| ink.is_letter(&ink.boxes[b]) && (x0..x1).contains(&centre(&ink.boxes[b])))
            .collect();
        blobs.sort_by_key(|&b| ink.boxes[b][0]);
        let boxes: Vec<[usize; 4]> = blobs.iter().map(|&b| ink.boxes[b]).collect();
        let letters: Vec<usize> = word.filter(|&k| is_cased(decoded[k].ch)).collect();
        let read: Vec<char> = letters.iter().map(|&k| decoded[k].ch).collect();
        let Some(j) = blobs_to_doubled_letter(&read, &boxes, |j| {
            let [first, last] = steps_span(decoded, letters[j], step_px);
            let steps = decoded[letters[j]].last_step - decoded[letters[j]].first_step + 1;
            steps >= DOUBLE_MIN_STEPS
                && first < boxes[j][2] as f32
                && last > boxes[j + 1][0] as f32
                && ink.shape_overlap(blobs[j], blobs[j + 1]) >= DOUBLE_MIN_OVERLAP
        }) else {
            continue;
        };
        let k = letters[j];
        if let Some(readings) = stroke_steps(decoded, k..k + 1, &boxes[j..j + 2], step_px) {
            decoded.splice(k..k + 1, readings);
        }
    }
}

/// The words of `decoded` a doubled letter is looked for in: runs between spaces (or the
/// line's ends) of `DOUBLE_WORD_MIN` letters or more (of scripts with case: a Chinese
/// character's ink is many blobs), hyphens between them ("non-irrigated") and a full stop,
/// comma, colon or semicolon after them or none (marks without a letter's ink).
fn words_of_letters(decoded: &[Decoded]) -> Vec<Range<usize>> {
    let mut words = Vec::new();
    let mut i = 0;
    while i < decoded.len() {
        let len = decoded[i..].iter().take_while(|d| d.ch != ' ').count();
        let mut word: Vec<char> = decoded[i..i + len].iter().map(|d| d.ch).collect();
        if word.last().is_some_and(|c| matches!(c, '.' | ',' | ':' | ';')) {
            word.pop();
        }
        let letters = word.iter().filter(|&&c| is_cased(c)).count();
        let hyphened = word.split(|&c| c == HYPHEN).all(|part| !part.is_empty() && part.iter().all(|&c| is_cased(c)));
        if letters >= DOUBLE_WORD_MIN && hyphened {
            words.push(i..i + len);
        }
        i += len + 1;
    }
    words
}

/// Which letter of `read` stands for two of the letter blobs `blobs` (left to right): where
/// they outnumber its letters by one, the one letter, paired with the blobs in order, whose two
/// blobs are alike in tops, feet and widths (`STROKES_ALIKE`) no further apart than the other
/// letters (`DOUBLE_MAX_GAP`), read for both by `twice` (given the letter's index: its steps
/// and the blobs' shapes) and not repeated by its neighbours already; None where no letter or
/// more than one is so.
fn blobs_to_doubled_letter(read: &[char], blobs: &[[usize; 4]], twice: impl Fn(usize) -> bool) -> Option<usize> {
    if blobs.len() != read.len() + 1 {
        return None;
    }
    let gaps: Vec<f32> = blobs.windows(2).map(|p| p[1][0] as f32 - p[0][2] as f32).collect();
    let doubled = |j: usize| {
        let widest_other = gaps.iter().enumerate().filter(|&(g, _)| g != j).map(|(_, &g)| g).fold(0.0, f32::max);
        !matches!(read[j], 'l' | 'I')
            && (j == 0 || read[j - 1] != read[j])
            && read.get(j + 1) != Some(&read[j])
            && boxes_alike(&blobs[j..j + 2])
            && gaps[j] <= DOUBLE_MAX_GAP * widest_other
            && twice(j)
    };
    match (0..read.len()).filter(|&j| doubled(j)).collect::<Vec<_>>()[..] {
        [j] => Some(j),
        _ => None,
    }
}

/// Word spaces the model left out between figures, put back where the figures' pitch shows
/// them (`FIGURE_SPACE_PITCH`): issue_288's cells "11 111111111" read "11111111111".
pub fn spaces_between_figures(decoded: &mut Vec<Decoded>, ink: &LineInk, step_px: f32) {
    let figure = |d: &Decoded| d.ch.is_ascii_digit();
    if !decoded.windows(FIGURE_RUN_MIN).any(|w| w.iter().all(figure)) {
        return;
    }
    let ink = ink.get();
    let mut spaces = Vec::new();
    let mut i = 0;
    while i < decoded.len() {
        let run = decoded[i..].iter().take_while(|d| figure(d)).count();
        if run < FIGURE_RUN_MIN {
            i += run.max(1);
            continue;
        }
        let centres: Option<Vec<f32>> = (i..i + run)
            .map(|k| match ink.letters_of(decoded, k, step_px)[..] {
                [blob] if width(&ink.boxes[blob]) <= FIGURE_MAX_ASPECT * height(&ink.boxes[blob]) => {
                    Some(centre(&ink.boxes[blob]))
                }
                _ => None,
            })
            .collect();
        if let Some(centres) = centres {
            let read: Vec<char> = decoded[i..i + run].iter().map(|d| d.ch).collect();
            spaces.extend(figure_pitches_to_spaces(&read, &centres).into_iter().map(|k| i + k));
        }
        i += run;
    }
    for k in spaces.into_iter().rev() {
        let (before, after) = (&decoded[k - 1], &decoded[k]);
        let step = (before.last_step + after.first_step) / 2;
        let confidence = before.confidence.min(after.confidence);
        decoded.insert(k, Decoded { ch: ' ', first_step: step, last_step: step, confidence });
    }
}

/// Where a run of figures `read`, their ink's middles at `centres`, holds word spaces: the
/// indices of the figures after pitches `FIGURE_SPACE_PITCH` times the median or more. None in
/// a run whose pitches beside a "1" and between other figures disagree
/// (`FIGURE_PITCH_SPREAD`): its figures are proportional.
fn figure_pitches_to_spaces(read: &[char], centres: &[f32]) -> Vec<usize> {
    let pitches: Vec<(f32, bool)> =
        centres.windows(2).zip(read.windows(2)).map(|(c, r)| (c[1] - c[0], r.contains(&'1'))).collect();
    let median_of = |ones: Option<bool>| {
        let of: Vec<f32> = pitches.iter().filter(|p| ones.is_none_or(|o| p.1 == o)).map(|p| p.0).collect();
        (!of.is_empty()).then(|| docsift_layout::median(of))
    };
    let Some(median) = median_of(None).filter(|&m| m > 0.0) else { return Vec::new() };
    if let (Some(ones), Some(others)) = (median_of(Some(true)), median_of(Some(false)))
        && (ones / others - 1.0).abs() > FIGURE_PITCH_SPREAD
    {
        return Vec::new();
    }
    (0..pitches.len()).filter(|&k| pitches[k].0 >= FIGURE_SPACE_PITCH * median).map(|k| k + 1).collect()
}

/// Daggers read as "t", told by their ink against the letter before them (`DAGGER_MIN_RAISE`,
/// `DAGGER_MIN_DESCENT`, `DAGGER_MIN_HEIGHT`, `DAGGER_MAX_WIDTH`): pr-138's superscript
/// "Saver†" and "Fee†" and table-curves' "haemorrhage†" were read "Savert", "Feet" and
/// "haemorrhaget", birdisland's full-size "Brand†", which descends, "Brandt": each a
/// footnote's mark after a word. Only a t ending a word after a letter that does not descend
/// is judged ("Egypt" is not), where its ink is its own ("t," joined is not), against the ink
/// just before it (the letter's steps may lie nearer the dagger's ink than its own): a t
/// stands on that ink's foot, as a superscript t does on a superscript s's, and is no taller
/// than the tall letters.
pub fn daggers_read_as_t(decoded: &mut [Decoded], ink: &LineInk, step_px: f32) {
    let next = |decoded: &[Decoded], i: usize| decoded.get(i + 1).filter(|d| d.ch != ' ').map(|d| d.ch);
    let ending = |decoded: &[Decoded], i: usize| {
        let before = decoded[i - 1].ch;
        decoded[i].ch == 't'
            && before.is_alphanumeric()
            && !DESCENDING.contains(&before)
            && !next(decoded, i).is_some_and(char::is_alphanumeric)
    };
    if !(1..decoded.len()).any(|i| ending(decoded, i)) {
        return;
    }
    let ink = ink.get();
    let Some(tall) = ink.tall_height(TALL_MIN_LETTERS, None) else { return };
    let blob = |decoded: &[Decoded], j: usize| ink.letter_blob(steps_span(decoded, j, step_px));
    for i in 1..decoded.len() {
        if !ending(decoded, i) {
            continue;
        }
        let Some(k) = blob(decoded, i) else { continue };
        let Some(p) = ink.ink_before(k).filter(|&p| ink.height(p) <= DAGGER_MIN_HEIGHT * tall) else { continue };
        if next(decoded, i).is_some() && blob(decoded, i + 1) == Some(k) {
            continue;
        }
        let b = &ink.boxes[k];
        let raised = (ink.foot_at_end(p, tall) as f32 - b[3] as f32) / tall;
        let descends = raised <= -DAGGER_MIN_DESCENT && height(b) >= DAGGER_MIN_HEIGHT * tall;
        if width(b) <= DAGGER_MAX_WIDTH * height(b) && (raised >= DAGGER_MIN_RAISE || descends) {
            decoded[i].ch = DAGGER;
        }
    }
}

/// Letters the model read out of a trade mark sign, before it: birdisland's "Inovate™" read
/// "InovateT™", 14 of its 17 signs with a "T" or an "r" before them. A letter read just before
/// a "™" goes where the ink nearest its steps stands raised (`TRADE_MARK_MIN_RAISE`), as the
/// sign's T does.
pub fn trade_marks_read_whole(decoded: &mut Vec<Decoded>, ink: &LineInk, step_px: f32) {
    let before_mark = |decoded: &[Decoded], i: usize| {
        decoded[i].ch.is_alphabetic() && decoded.get(i + 1).is_some_and(|d| d.ch == TRADE_MARK)
    };
    if !(1..decoded.len()).any(|i| before_mark(decoded, i)) {
        return;
    }
    let ink = ink.get();
    let Some(tall) = ink.tall_height(TALL_MIN_LETTERS, None) else { return };
    let raised = |decoded: &[Decoded], i: usize| {
        let k = ink.nearest(steps_span(decoded, i, step_px), |b| ink.inside(b));
        let r =
            k.and_then(|k| Some((ink.foot_at_end(ink.ink_before(k)?, tall) as f32 - ink.boxes[k][3] as f32) / tall));
        r.is_some_and(|r| r >= TRADE_MARK_MIN_RAISE)
    };
    let drop: Vec<bool> = (0..decoded.len()).map(|i| i > 0 && before_mark(decoded, i) && raised(decoded, i)).collect();
    let mut k = 0;
    decoded.retain(|_| {
        k += 1;
        !drop[k - 1]
    });
}

/// Marks above letters the model misread, told by their ink (`ACCENTED_I`,
/// `JOINED_RING_MIN_RISE`): an i read with an accent over a dot reads "i", an "Ä" with a ring
/// joined to it "Å".
pub fn accents_by_ink(decoded: &mut [Decoded], ink: &LineInk, step_px: f32) {
    let misread = |c: char| ACCENTED_I.contains(&c) || c == A_DIAERESIS;
    if !decoded.iter().any(|d| misread(d.ch)) {
        return;
    }
    let ink = ink.get();
    for i in 0..decoded.len() {
        let ch = decoded[i].ch;
        if !misread(ch) {
            continue;
        }
        // An i's steps may lie nearer the next letter's middle than its own stem's.
        let stroke = |b: &[usize; 4]| ch == A_DIAERESIS || width(b) <= STEM_MAX_WIDTH * height(b);
        let Some(k) = ink.nearest(steps_span(decoded, i, step_px), |b| ink.is_letter(b) && stroke(b)) else {
            continue;
        };
        let above = ink.blobs_above(k);
        if ch == A_DIAERESIS {
            if above.is_empty() && ink.rise_over_tall(k).is_some_and(|r| r >= JOINED_RING_MIN_RISE) {
                decoded[i].ch = A_RING;
            }
        } else if let [dot] = above[..]
            && ink.is_tittle(dot, k)
        {
            decoded[i].ch = 'i';
        }
    }
}

/// Runs of star marks (`STARS`) read fewer than the asterisks their ink holds, each run
/// read one mark per asterisk (`asterisk_blobs` among those the run reads, `reader_of`):
/// us-001's "*****" note read "****Indicates".
pub fn asterisks_by_ink(decoded: &mut Vec<Decoded>, ink: &LineInk, step_px: f32) {
    let star = |d: &Decoded| STARS.contains(&d.ch);
    let mut i = 0;
    while i < decoded.len() {
        if !star(&decoded[i]) {
            i += 1;
            continue;
        }
        let run = decoded[i..].iter().take_while(|d| star(d)).count();
        let crop = ink.get();
        let in_run = |b: &[usize; 4]| reader_of(decoded, b, step_px).is_some_and(|k| (i..i + run).contains(&k));
        let tall = crop.tall_height_where(TALL_MIN_LETTERS, |j| !in_run(&crop.boxes[j]));
        let blobs = asterisk_blobs(crop, in_run, tall).filter(|blobs| blobs.len() > run);
        match blobs.and_then(|blobs| stroke_steps(decoded, i..i + run, &blobs, step_px)) {
            Some(readings) => {
                let read = readings.len();
                decoded.splice(i..i + run, readings);
                i += read;
            }
            None => i += run,
        }
    }
}

/// A line the model read unsurely (none of its readings kept) whose reading over the Latin
/// classes, `read`, is star marks alone (spaces aside), read as one asterisk for each blob of
/// its crop's ink where those are all alike (`asterisk_blobs`) and at least as many: us-001's
/// cells of five small asterisks read "大省省育" with every class at 0.11 to 0.27 a character,
/// "★★*★" over the Latin ones. A star read so unsurely is no star set in text, which the
/// model reads surely (eu-002's flag). None for any other line.
pub fn asterisks_alone(read: &[Decoded], ink: &LineInk, step_px: f32) -> Option<Vec<Decoded>> {
    let stars: Vec<Decoded> =
        read.iter().filter(|d| d.ch != ' ').map(|d| Decoded { ch: ASTERISK, ..d.clone() }).collect();
    if stars.is_empty() || read.iter().any(|d| d.ch != ' ' && !STARS.contains(&d.ch)) {
        return None;
    }
    let crop = ink.get();
    let all = crop.boxes.iter().filter(|b| crop.inside(b) && !crop.is_speck(b)).count();
    let blobs = asterisk_blobs(crop, |_| true, None).filter(|b| b.len() == all && b.len() >= stars.len())?;
    stroke_steps(&stars, 0..stars.len(), &blobs, step_px)
}

/// The blobs of `ink` `keep` takes that may be asterisks, left to right: inside the crop, no
/// specks, shorter than `ASTERISK_MAX_HEIGHT` of `tall` (the letters' beside them, where
/// there are any), all alike (`ASTERISKS_ALIKE`); None where there are none or they are not
/// alike.
fn asterisk_blobs(ink: &CropInk, keep: impl Fn(&[usize; 4]) -> bool, tall: Option<f32>) -> Option<Vec<[usize; 4]>> {
    let mut blobs: Vec<[usize; 4]> = ink
        .boxes
        .iter()
        .filter(|b| ink.inside(b) && !ink.is_speck(b) && keep(b))
        .filter(|b| tall.is_none_or(|tall| height(b) <= ASTERISK_MAX_HEIGHT * tall))
        .copied()
        .collect();
    blobs.sort_by_key(|b| b[0]);
    (!blobs.is_empty() && boxes_alike_within(&blobs, ASTERISKS_ALIKE)).then_some(blobs)
}

/// The character of `decoded` (spaces aside) whose steps' middle lies nearest blob box `b`'s
/// middle: the one read from it.
fn reader_of(decoded: &[Decoded], b: &[usize; 4], step_px: f32) -> Option<usize> {
    let centre = centre(b);
    let off = |k: usize| (middle(steps_span(decoded, k, step_px)) - centre).abs();
    (0..decoded.len()).filter(|&k| decoded[k].ch != ' ').min_by(|&p, &q| off(p).total_cmp(&off(q)))
}

/// Whether blob boxes `boxes` agree in tops, feet and widths within `STROKES_ALIKE` of the
/// tallest's height.
fn boxes_alike(boxes: &[[usize; 4]]) -> bool {
    boxes_alike_within(boxes, STROKES_ALIKE)
}

/// Whether blob boxes `boxes` agree in tops, feet and widths within `share` of the tallest's
/// height.
fn boxes_alike_within(boxes: &[[usize; 4]], share: f32) -> bool {
    let near = share * boxes.iter().map(height).fold(0.0, f32::max);
    let spread = |of: &dyn Fn(&[usize; 4]) -> f32| {
        let (lo, hi) = boxes.iter().map(of).fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        hi - lo <= near
    };
    spread(&|b| b[1] as f32) && spread(&|b| b[3] as f32) && spread(&width)
}

/// Whether `c` is a letter of a script with case.
fn is_cased(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase()
}

/// The middle of columns `[x0, x1]`.
fn middle([x0, x1]: [f32; 2]) -> f32 {
    (x0 + x1) / 2.0
}

/// The width of blob box `b` in columns.
fn width(b: &[usize; 4]) -> f32 {
    (b[2] - b[0] + 1) as f32
}

/// The height of blob box `b` in rows.
fn height(b: &[usize; 4]) -> f32 {
    (b[3] - b[1] + 1) as f32
}

/// The middle column of blob box `b` (its last column counted whole).
fn centre(b: &[usize; 4]) -> f32 {
    (b[0] + b[2] + 1) as f32 / 2.0
}

/// The readings of the run `decoded[run]` of one letter (l or I, or any read once for two),
/// one for each of `strokes` (blob boxes, left to right): the run's steps are cut at the gaps between the strokes, the first
/// and the last reaching over their strokes into the blank steps beside the run; None where
/// the steps between the run's neighbours are too few.
fn stroke_steps(decoded: &[Decoded], run: Range<usize>, strokes: &[[usize; 4]], step_px: f32) -> Option<Vec<Decoded>> {
    let step = |column: f32| (column / step_px) as usize;
    let lo = run.start.checked_sub(1).map_or(0, |k| decoded[k].last_step + 1);
    let hi = decoded.get(run.end).map_or(usize::MAX, |n| n.first_step.saturating_sub(1)).max(lo + 1);
    let mut starts = vec![lo];
    for pair in strokes.windows(2) {
        let earliest = starts.last()? + 1;
        if earliest > hi {
            return None;
        }
        starts.push(step((pair[0][2] + pair[1][0] + 1) as f32 / 2.0 + step_px / 2.0).clamp(earliest, hi));
    }
    let first_end = starts.get(1).map_or(hi, |next| next - 1);
    starts[0] = decoded[run.start].first_step.min(step(strokes[0][0] as f32)).clamp(lo, first_end);
    let last_start = *starts.last()?;
    let last = decoded[run.end - 1].last_step.max(step(strokes[strokes.len() - 1][2] as f32)).clamp(last_start, hi);
    let readings = starts.iter().enumerate().map(|(j, &first_step)| Decoded {
        first_step,
        last_step: starts.get(j + 1).map_or(last, |next| next - 1),
        ..decoded[run.start + j.min(run.len() - 1)].clone()
    });
    Some(readings.collect())
}

/// The least letter blobs a line's tall letters are measured on (`CropInk::tall_height`).
fn tall_letters_needed(decoded: &[Decoded]) -> usize {
    let mut read = decoded.iter().map(|d| d.ch).filter(|c| c.is_alphanumeric()).peekable();
    if read.peek().is_some() && read.all(|c| !c.is_lowercase()) { TALL_MIN_FIGURES } else { TALL_MIN_LETTERS }
}

/// The least letters a glyph's baseline is measured on: one where no letter read may descend
/// ("-1"), two elsewhere.
fn baseline_letters(decoded: &[Decoded]) -> usize {
    if decoded.iter().any(|d| DESCENDING.contains(&d.ch)) { 2 } else { 1 }
}

/// Full stops read as hyphens and hyphens as full stops, middle dots or low lines, told apart
/// by where their ink stands against the line's baseline and its shape: a full stop on it, a
/// hyphen raised to the middle of the x-height and wider than high. The model read
/// failing_sort's square full stops ("J., sehensw.") as "-", issue-90's minus signs ("-1")
/// as ".", jpeg2000's short hyphens between capitals ("VOTERS - TOTAL") as "·" and two of
/// us-001's minus signs after an asterisk ("*–3.2") as "_".
fn stops_and_hyphens(decoded: &mut [Decoded], ink: &CropInk, step_px: f32) {
    let min_letters = baseline_letters(decoded);
    for i in 0..decoded.len() {
        if !matches!(decoded[i].ch, '-' | '.' | MIDDLE_DOT | LOW_LINE) {
            continue;
        }
        let Some(k) = ink.nearest(steps_span(decoded, i, step_px), |b| ink.is_stop_sized(b)) else { continue };
        let Some(raised) = ink.foot_above_baseline(k, min_letters) else { continue };
        let aspect = width(&ink.boxes[k]) / height(&ink.boxes[k]);
        decoded[i].ch = match decoded[i].ch {
            '-' if raised.abs() <= ON_BASELINE && aspect <= STOP_MAX_ASPECT => '.',
            '.' | MIDDLE_DOT | LOW_LINE if (RAISED[0]..=RAISED[1]).contains(&raised) && aspect >= DASH_MIN_ASPECT => {
                '-'
            }
            ch => ch,
        };
    }
}

/// Hyphens, en dashes and em dashes read inside a line, told apart by their ink's length
/// against the line's tall letters (`EN_DASH_LENGTH`, `HYPHEN_MAX_LENGTH`), where the ink
/// under the dash's steps is flat and raised off the baseline as a dash's is. Recognition
/// does not tell them apart: it reads the length of an en dash's strip scaled to the line's
/// height alone. us-018's "2004–05" and rotated_page's "–109" were read with hyphens,
/// us-040's "5-3" with an en dash, us-001's "May–August" with an em dash.
/// Returns each dash measured: its index and its length.
fn dashes_by_length(decoded: &mut [Decoded], ink: &CropInk, step_px: f32) -> Vec<DashLength> {
    let mut measured = Vec::new();
    if !decoded.iter().any(|d| is_dash(d.ch)) {
        return measured;
    }
    let Some(tall) = ink.tall_height(tall_letters_needed(decoded), None) else { return measured };
    let min_letters = baseline_letters(decoded);
    for i in 0..decoded.len() {
        let read = decoded[i].ch;
        if !is_dash(read) {
            continue;
        }
        let Some(k) = ink.nearest(steps_span(decoded, i, step_px), |b| ink.is_dash_shaped(b)) else { continue };
        if !ink.foot_above_baseline(k, min_letters).is_some_and(|raised| (RAISED[0]..=RAISED[1]).contains(&raised)) {
            continue;
        }
        let length = width(&ink.boxes[k]) / tall;
        decoded[i].ch = match read {
            EN_DASH if length < HYPHEN_MAX_LENGTH => HYPHEN,
            HYPHEN | EM_DASH if (EN_DASH_LENGTH[0]..EN_DASH_LENGTH[1]).contains(&length) => EN_DASH,
            ch => ch,
        };
        measured.push(DashLength { index: i, length });
    }
    measured
}

/// Commas read where the ink nearest them stands wholly below the line's baseline
/// (`CropInk::line_baseline`, `BELOW_LINE_MIN_DROP`), inside the crop or cut by its foot,
/// dropped: that is the line below's, and where lines are set close the model reads its i's
/// dots and its ascenders' tops as commas (pr-138's "terms, fees, or", "Introductory, Rate)
/// is, only"). A comma's own ink, whole or in pieces (issue-598's bitmap font parts a
/// comma's tail from its head), stands on the baseline in part and keeps it.
fn commas_of_the_line_below(decoded: &mut Vec<Decoded>, ink: &CropInk, step_px: f32) {
    if !decoded.iter().any(|d| d.ch == ',') {
        return;
    }
    let Some((baseline, unit)) = ink.line_baseline() else { return };
    let below = |b: &[usize; 4]| b[1] as f32 - baseline >= BELOW_LINE_MIN_DROP * unit;
    // Specks aside, and the line above's ink, which the crop's top cuts.
    let ink_here = |b: &[usize; 4]| !ink.is_speck(b) && b[1] > 0;
    let of_the_line_below: Vec<bool> = (0..decoded.len())
        .map(|i| {
            let span = || steps_span(decoded, i, step_px);
            decoded[i].ch == ','
                && ink.nearest(span(), ink_here).is_some_and(|k| below(&ink.boxes[k]))
                && ink.nearest(span(), |b| ink_here(b) && !ink.is_letter(b) && !below(b)).is_none()
        })
        .collect();
    let mut drop = of_the_line_below.into_iter();
    decoded.retain(|_| !drop.next().unwrap_or(false));
}

/// Commas read as full stops, told by their ink (`CropInk::separator`): the nearest mark's
/// tail reaches below the baseline. In small print the model reads a comma whose tail is a
/// pixel or two long as a full stop: puertos1's "3,667" and "19,914" read "3.667" and
/// "19.914", nics-background-checks' "87,190" read "87.190".
fn commas_read_as_stops(decoded: &mut Vec<Decoded>, ink: &CropInk, step_px: f32) {
    let min_letters = baseline_letters(decoded);
    let mark_of = |decoded: &[Decoded], i: usize| ink.nearest(steps_span(decoded, i, step_px), |b| ink.is_mark(b));
    let mut i = 0;
    while i < decoded.len() {
        if decoded[i].ch == '.'
            && let Some(k) = mark_of(decoded, i)
            && ink.separator(k, min_letters) == Some(',')
        {
            // Read twice, as a full stop beside a comma ("3.,681"), it is the comma alone.
            let beside = [i.checked_sub(1), Some(i + 1)].into_iter().flatten();
            if beside.filter(|&j| decoded.get(j).is_some_and(|d| d.ch == ',')).any(|j| mark_of(decoded, j) == Some(k)) {
                decoded.remove(i);
                continue;
            }
            decoded[i].ch = ',';
        }
        i += 1;
    }
}

/// Full stops and commas the greedy path passed by between two figures
/// (`rec::separators_passed_by`: `passed`, each the second figure's index, the step and the
/// model's probability) put back where the line's `crop` shows one's ink there, between the
/// figures (`CropInk::separator`). 12s0324's "1.0" read "10", puertos1's "495,580" read
/// "495580"; a true "12" has no ink between its figures.
pub fn separators_between_figures(
    decoded: &mut Vec<Decoded>,
    passed: &[(usize, usize, f32)],
    ink: &LineInk,
    step_px: f32,
) {
    if passed.is_empty() {
        return;
    }
    let ink = ink.get();
    let mut kept = Vec::new();
    for &(k, step, probability) in passed {
        let ([before, _], [_, after]) = (steps_span(decoded, k - 1, step_px), steps_span(decoded, k, step_px));
        let at = [step as f32 * step_px, (step + 1) as f32 * step_px];
        let Some(blob) = ink.nearest(at, |b| ink.is_mark(b)) else { continue };
        if !(before..=after).contains(&(ink.boxes[blob][0] as f32)) {
            continue;
        }
        if let Some(ch) = ink.separator(blob, 2) {
            kept.push((k, Decoded { ch, first_step: step, last_step: step, confidence: probability }));
        }
    }
    for (k, mark) in kept.into_iter().rev() {
        decoded.insert(k, mark);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support;

    /// What a crop 48 high holds in each 16 columns: a letter on the baseline (row 37), a
    /// full stop on it, a comma across it, a mark wholly below it, a hyphen raised to mid
    /// x-height, an en dash there or lower (a minus sign), a raised dot, a tall narrow stroke
    /// (l, I) on the baseline or descending (J), or nothing.
    #[derive(Clone, Copy)]
    enum Ink {
        Letter,
        Stroke,
        Descender,
        Stop,
        Comma,
        Sunk,
        Hyphen,
        EnDash,
        Minus,
        RaisedDot,
        Superscript,
        /// A small asterisk raised to the tall letters' top.
        Asterisk,
        /// The top of the line below's ink, cut by the crop's foot, or its i's dot.
        Below,
        BelowDot,
        /// A comma whose tail the crop's foot cuts.
        CutComma,
        Blank,
    }

    fn crop_of(glyphs: &[Ink]) -> RgbImage {
        let mut img = RgbImage::from_pixel(16 * glyphs.len() as u32, 48, image::Rgb([255; 3]));
        for (i, g) in glyphs.iter().enumerate() {
            let x = 16 * i as u32 + 4;
            let (cols, rows) = match g {
                Ink::Letter => (x..x + 8, 14..38),
                Ink::Stroke => (x + 2..x + 5, 12..38),
                Ink::Descender => (x + 2..x + 5, 12..44),
                Ink::Stop => (x + 1..x + 5, 34..38),
                Ink::Comma => (x + 1..x + 4, 33..41),
                Ink::Sunk => (x + 1..x + 4, 39..45),
                Ink::Hyphen => (x..x + 7, 26..29),
                Ink::EnDash => (x - 3..x + 15, 26..29),
                Ink::Minus => (x - 3..x + 15, 30..33),
                Ink::RaisedDot => (x + 1..x + 4, 26..29),
                Ink::Superscript => (x + 1..x + 6, 12..28),
                Ink::Asterisk => (x + 1..x + 9, 14..22),
                Ink::Below => (x..x + 6, 42..48),
                Ink::BelowDot => (x + 1..x + 4, 42..46),
                Ink::CutComma => (x + 1..x + 4, 33..48),
                Ink::Blank => continue,
            };
            paint(&mut img, cols, rows);
        }
        img
    }

    /// Ink over columns `cols` of rows `rows`.
    fn paint(img: &mut RgbImage, cols: std::ops::Range<u32>, rows: std::ops::Range<u32>) {
        for y in rows {
            for c in cols.clone() {
                img.put_pixel(c, y, image::Rgb([0; 3]));
            }
        }
    }

    /// `text` read a character every two steps.
    fn decoded(text: &str) -> Vec<Decoded> {
        text.chars()
            .enumerate()
            .map(|(i, ch)| Decoded { ch, first_step: 2 * i, last_step: 2 * i, confidence: 0.9 })
            .collect()
    }

    /// `decoded` as `judge` leaves it on a crop of `glyphs`.
    fn judged_by(judge: fn(&mut Vec<Decoded>, &CropInk, f32), mut decoded: Vec<Decoded>, glyphs: &[Ink]) -> String {
        judge(&mut decoded, &CropInk::of(&crop_of(glyphs)), 8.0);
        decoded.iter().map(|d| d.ch).collect()
    }

    /// `text` read a character every two steps as `judge` leaves it on a line of `glyphs`.
    fn read_by(judge: impl Fn(&mut Vec<Decoded>, &LineInk), text: &str, glyphs: &[Ink]) -> String {
        read_crop_by(judge, text, &crop_of(glyphs))
    }

    fn read_crop_by(judge: impl Fn(&mut Vec<Decoded>, &LineInk), text: &str, crop: &RgbImage) -> String {
        let mut d = decoded(text);
        judge(&mut d, &LineInk::new(crop));
        d.iter().map(|d| d.ch).collect()
    }

    fn judged(text: &str, glyphs: &[Ink]) -> String {
        judged_by(|d, ink, step_px| stops_and_hyphens(d, ink, step_px), decoded(text), glyphs)
    }

    #[test]
    fn a_hyphen_read_on_the_baseline_is_a_full_stop_and_a_full_stop_read_raised_a_hyphen() {
        use Ink::*;
        assert_eq!(judged("ab-", &[Letter, Letter, Stop]), "ab.", "failing_sort's square full stops");
        assert_eq!(judged(".1", &[Hyphen, Letter]), "-1", "issue-90's minus signs");
        assert_eq!(judged("a-b.", &[Letter, Hyphen, Letter, Stop]), "a-b.", "read right, kept");
        assert_eq!(judged("a·b", &[Letter, Hyphen, Letter]), "a-b", "jpeg2000's short hyphens");
        assert_eq!(judged("a·b", &[Letter, RaisedDot, Letter]), "a·b", "a middle dot as printed");
        assert_eq!(judged("_3", &[Hyphen, Letter]), "-3", "us-001's minus signs after an asterisk");
        assert_eq!(judged("1.S", &[Letter, Minus, Letter]), "1-S", "eu-011's low hyphens in 1-Sep-08");
    }

    #[test]
    fn a_raised_dot_or_a_mark_without_letters_beside_it_keeps_its_reading() {
        use Ink::*;
        assert_eq!(judged("ab.", &[Letter, Letter, RaisedDot]), "ab.", "a dot is not a hyphen however high");
        assert_eq!(judged("a_b", &[Letter, Stop, Letter]), "a_b", "a low line on the baseline as printed");
        assert_eq!(judged("y-", &[Letter, Stop]), "y-", "a lone letter read as one that descends");
        assert_eq!(judged("ab-", &[Letter, Letter, Blank]), "ab-", "no ink of its size under its steps");
        let far = [[Letter, Letter].as_slice(), &[Blank; 6], &[Stop]].concat();
        assert_eq!(judged("ab-------", &far), "ab-------", "too far");
    }

    #[test]
    fn a_dash_read_inside_a_line_is_told_by_its_length_against_the_tall_letters() {
        use Ink::*;
        let judged = |text, glyphs: &[Ink]| {
            judged_by(
                |d, ink, s| {
                    dashes_by_length(d, ink, s);
                },
                decoded(text),
                glyphs,
            )
        };
        assert_eq!(judged("12-45", &[Letter, Letter, EnDash, Letter, Letter]), "12–45", "us-018's 2004–05");
        assert_eq!(judged("ab—cd", &[Letter, Letter, EnDash, Letter, Letter]), "ab–cd", "us-001's May–August");
        assert_eq!(judged("12–45", &[Letter, Letter, Hyphen, Letter, Letter]), "12-45", "us-040's 5-3");
        assert_eq!(judged("ab-cd", &[Letter, Letter, Hyphen, Letter, Letter]), "ab-cd", "a hyphen read right");
        assert_eq!(judged("a-b", &[Letter, EnDash, Letter]), "a-b", "too few letters to measure the tall ones on");
        assert_eq!(judged("*-03", &[Blank, Minus, Letter, Letter]), "*–03", "us-001's minus signs: figures are tall");
        assert_eq!(judged("-a", &[Minus, Letter]), "-a", "a small letter may be short");
        assert_eq!(judged("ab-cd", &[Letter, Letter, Stop, Letter, Letter]), "ab-cd", "ink on the baseline");
    }

    /// Figures read `text`, each a blob 6 columns wide at its column in `columns` (the one at
    /// `broken` in two strokes side by side), a step each at its first column, 8 columns a
    /// step; as `spaces_between_figures` leaves them.
    fn spaced_figures(text: &str, columns: &[u32], broken: Option<usize>) -> String {
        let mut img = RgbImage::from_pixel(columns.iter().max().map_or(0, |x| x + 24), 48, image::Rgb([255; 3]));
        let mut decoded = Vec::new();
        for (i, (ch, &x)) in text.chars().zip(columns).enumerate() {
            for (c, y) in (x..x + 6).flat_map(|c| (14..38).map(move |y| (c, y))) {
                if broken != Some(i) || c != x + 2 {
                    img.put_pixel(c, y, image::Rgb([0; 3]));
                }
            }
            decoded.push(Decoded { ch, first_step: x as usize / 8, last_step: x as usize / 8, confidence: 0.9 });
        }
        spaces_between_figures(&mut decoded, &LineInk::new(&img), 8.0);
        decoded.iter().map(|d| d.ch).collect()
    }

    #[test]
    fn figures_read_without_a_space_are_parted_where_their_pitch_shows_one() {
        let spaced = |text, columns| spaced_figures(text, columns, None);
        assert_eq!(spaced("11111", &[8, 24, 48, 64, 80]), "11 111", "issue_288's 11 111111111");
        assert_eq!(spaced("11111", &[8, 24, 40, 56, 72]), "11111", "tabular figures evenly set");
        assert_eq!(spaced("10101", &[8, 24, 44, 60, 76]), "10101", "a proportional 1's pitch");
        assert_eq!(spaced("111", &[8, 24, 48]), "111", "too few figures to measure a pitch on");
        let broken = spaced_figures("11111", &[8, 24, 48, 64, 80], Some(2));
        assert_eq!(broken, "11111", "a figure owning two blobs is not measured");
    }

    #[test]
    fn proportional_figures_keep_their_uneven_pitches_without_spaces() {
        let read = |text: &str| text.chars().collect::<Vec<_>>();
        let even = [0.0, 10.0, 20.0, 30.0, 44.0, 54.0, 64.0, 74.0];
        assert_eq!(figure_pitches_to_spaces(&read("20112012"), &even), [4], "tabular: a space's pitch");
        let proportional = [0.0, 13.7, 23.7, 33.2];
        assert!(figure_pitches_to_spaces(&read("2012"), &proportional).is_empty(), "detect_vertical_false's 2012");
        assert!(figure_pitches_to_spaces(&read("2025"), &[0.0, 10.0, 20.0, 29.0]).is_empty(), "even");
    }

    #[test]
    fn a_dash_between_a_hyphens_length_and_an_en_dashs_is_told_against_the_pages_hyphens() {
        let read = |text: &str, dashes: &[f32]| {
            let mut line = test_support::line(text, test_support::rect(0.0, 0.0, 100.0, 10.0), 0.9);
            let at = line.chars.iter().enumerate().filter(|(_, c)| is_dash(c.ch)).map(|(i, _)| i);
            line.dashes = at.zip(dashes).map(|(index, &length)| DashLength { index, length }).collect();
            line
        };
        let judged = |lines: &[(&str, &[f32])]| {
            let mut lines: Vec<OcrLine> = lines.iter().map(|&(text, dashes)| read(text, dashes)).collect();
            en_dashes_beside_page_hyphens(&mut lines);
            lines.into_iter().map(|l| l.text).collect::<Vec<_>>().join("\n")
        };
        let hyphens: [(&str, &[f32]); 2] = [("self-employed", &[0.4]), ("Tax-exempt, in-", &[0.37, 0.43])];
        assert_eq!(
            judged(&[hyphens[0], hyphens[1], ("2009 - 223 $9-$17", &[0.65, 0.62])]),
            "self-employed\nTax-exempt, in-\n2009 – 223 $9–$17",
            "eu-016's and us-003's en dashes, 1.6 to 1.8 times the page's hyphens"
        );
        let alone = judged(&[hyphens[0], ("No. 07-1315", &[0.64])]);
        assert_eq!(alone, "self-employed\nNo. 07-1315", "one hyphen alone is no measure");
        let spaced = judged(&[("Official - Subject - to", &[0.37, 0.37]), ("07-1315", &[0.64])]);
        assert_eq!(spaced, "Official - Subject - to\n07-1315", "hyphens standing alone are no measure");
        let short = judged(&[hyphens[0], hyphens[1], ("one-day", &[0.58])]);
        assert_eq!(short, "self-employed\nTax-exempt, in-\none-day", "too short to tell");
        let near = judged(&[("a-b c-d", &[0.45, 0.48]), ("8-9", &[0.64])]);
        assert_eq!(near, "a-b c-d\n8-9", "too near the page's hyphens");
    }

    #[test]
    fn a_comma_read_over_the_line_belows_ink_is_dropped_and_one_with_ink_of_its_own_kept() {
        use Ink::*;
        let judged = |glyphs: &[Ink]| judged_by(commas_of_the_line_below, decoded("ab,c"), glyphs);
        // `glyphs` with more ink painted over them: (columns, rows) each.
        let judged_with = |glyphs: &[Ink], more: &[(std::ops::Range<u32>, std::ops::Range<u32>)]| {
            let mut img = crop_of(glyphs);
            more.iter().for_each(|(cols, rows)| paint(&mut img, cols.clone(), rows.clone()));
            let mut d = decoded("ab,c");
            commas_of_the_line_below(&mut d, &CropInk::of(&img), 8.0);
            d.iter().map(|d| d.ch).collect::<String>()
        };
        // pr-138's page 2: "Introductory, Rate", read over the top of a "t" on the line below,
        // and "terms, fees, or" over an i's dot; the line above's descender, which the crop's
        // top cuts, is no comma's ink either.
        assert_eq!(judged(&[Letter, Letter, Below, Letter]), "abc");
        assert_eq!(judged(&[Letter, Letter, BelowDot, Letter]), "abc");
        assert_eq!(judged_with(&[Letter, Letter, Below, Letter], &[(36..41, 0..5)]), "abc");
        assert_eq!(judged(&[Letter, Letter, Comma, Letter]), "ab,c");
        assert_eq!(judged(&[Letter, Letter, CutComma, Letter]), "ab,c", "its head stands on the baseline");
        assert_eq!(judged(&[Letter, Letter, Blank, Letter]), "ab,c", "no ink to tell by");
        assert_eq!(
            judged_with(&[Letter, Letter, Comma, Letter], &[(40..46, 42..48)]),
            "ab,c",
            "beside the line below's"
        );
        // issue-598's bitmap font: a comma's head on the baseline, its tail apart below it.
        assert_eq!(judged_with(&[Letter, Letter, Blank, Letter], &[(38..42, 33..38), (35..37, 41..46)]), "ab,c");
    }

    #[test]
    fn a_full_stop_whose_ink_has_a_tail_below_the_baseline_is_a_comma() {
        use Ink::*;
        let judged = |text, glyphs: &[Ink]| judged_by(commas_read_as_stops, decoded(text), glyphs);
        assert_eq!(judged("3.6", &[Letter, Comma, Letter]), "3,6", "puertos1's 3,667");
        assert_eq!(judged("ab.", &[Letter, Letter, Comma]), "ab,", "a comma after a word");
        assert_eq!(judged("3.6", &[Letter, Stop, Letter]), "3.6", "a full stop on the baseline");
        assert_eq!(judged("3.6", &[Letter, Sunk, Letter]), "3.6", "ink wholly below: a baseline measured too high");
        assert_eq!(judged("3.6", &[Letter, Blank, Letter]), "3.6", "no mark under its steps");
        // "3.,6", the stop's steps and the comma's both over the comma's ink.
        let at = |ch, step| Decoded { ch, first_step: step, last_step: step, confidence: 0.9 };
        let twice = vec![at('3', 0), at('.', 2), at(',', 3), at('6', 6)];
        assert_eq!(judged_by(commas_read_as_stops, twice, &[Letter, Comma, Blank, Letter]), "3,6", "puertos1's 3,681");
    }

    #[test]
    fn a_full_stop_or_comma_passed_by_between_figures_is_put_back_where_its_ink_shows_one() {
        use Ink::*;
        let put_back = |glyphs: &[Ink]| {
            let at = |ch: char, step: usize| Decoded { ch, first_step: step, last_step: step + 1, confidence: 0.9 };
            let mut d = vec![at('1', 0), at('0', 4)];
            separators_between_figures(&mut d, &[(1, 2, 0.4)], &LineInk::new(&crop_of(glyphs)), 8.0);
            d.iter().map(|d| d.ch).collect::<String>()
        };
        assert_eq!(put_back(&[Letter, Stop, Letter]), "1.0", "12s0324's 1.0");
        assert_eq!(put_back(&[Letter, Comma, Letter]), "1,0", "puertos1's 495,580");
        assert_eq!(put_back(&[Letter, Blank, Letter]), "10", "no ink between the figures");
        assert_eq!(put_back(&[Letter, Hyphen, Letter]), "10", "ink raised off the baseline");
        assert_eq!(put_back(&[Letter, Letter, Letter]), "10", "ink of a letter's size");
    }

    #[test]
    fn an_l_or_i_read_once_for_two_strokes_alike_is_doubled() {
        use Ink::*;
        let at = |ch, step| Decoded { ch, first_step: step, last_step: step, confidence: 0.9 };
        let doubled = |mut d: Vec<Decoded>, glyphs: &[Ink]| {
            strokes_by_ink(&mut d, &LineInk::new(&crop_of(glyphs)), 8.0);
            d
        };
        let text = |d: &[Decoded]| d.iter().map(|d| d.ch).collect::<String>();
        // schools' "Jill" read "Jil", its l's steps between the two strokes.
        let jill =
            doubled(vec![at('J', 0), at('i', 2), at('l', 5), at('.', 8)], &[Letter, Letter, Stroke, Stroke, Stop]);
        assert_eq!(text(&jill), "Jill.");
        // Each stroke takes the steps on its side of the gap between them, in order.
        let steps: Vec<_> = jill.iter().map(|d| (d.first_step, d.last_step)).collect();
        assert_eq!(steps, [(0, 0), (2, 2), (4, 5), (6, 7), (8, 8)]);
        assert_eq!(text(&doubled(vec![at('I', 1)], &[Stroke, Stroke])), "II", "us-038's II");
        // A run of l or I owning more strokes than it holds letters takes one for each.
        let iii = doubled(vec![at('I', 1), at('I', 3)], &[Stroke, Stroke, Stroke]);
        assert_eq!(text(&iii), "III", "us-039's III");
        let steps: Vec<_> = iii.iter().map(|d| (d.first_step, d.last_step)).collect();
        assert_eq!(steps, [(0, 1), (2, 3), (4, 5)]);
        // Its steps sit left of its ink: the strokes alike from the left count, the wider
        // letter after them owned too ("linois" owning the stem of its i) does not.
        assert_eq!(text(&doubled(vec![at('l', 1), at('n', 9)], &[Stroke, Stroke, Letter])), "lln");
        // Both strokes read, or an l beside an I: as read.
        assert_eq!(text(&doubled(decoded("ll"), &[Stroke, Stroke])), "ll");
        assert_eq!(text(&doubled(vec![at('I', 0), at('l', 3)], &[Stroke, Stroke, Stroke])), "Il");
        // A wider letter beside the stroke ("lt"), or one that descends ("IJ"), is not a stroke alike.
        assert_eq!(text(&doubled(vec![at('l', 1)], &[Stroke, Letter])), "l");
        assert_eq!(text(&doubled(vec![at('I', 1)], &[Stroke, Descender])), "I");
        // A single stroke, its neighbour's ink owned by the neighbour.
        assert_eq!(text(&doubled(decoded("al"), &[Letter, Stroke])), "al");
        // us-007's "WJIII" read "WJII", the J's steps owning the first I's stroke besides its own
        // glyph: the stroke is the run's. A broken H's second stem, alike its first, is not.
        let wj =
            doubled(vec![at('W', 0), at('J', 4), at('I', 6), at('I', 8)], &[Letter, Descender, Stroke, Stroke, Stroke]);
        assert_eq!(text(&wj), "WJIII");
        assert_eq!(text(&doubled(vec![at('H', 1), at('I', 5)], &[Stroke, Stroke, Stroke])), "HI");
    }

    #[test]
    fn a_letter_read_once_for_two_blobs_alike_is_doubled() {
        use Ink::*;
        let at = |ch, step| Decoded { ch, first_step: step, last_step: step, confidence: 0.9 };
        let glyphs = [Letter, Stroke, Letter, Letter, Stroke, Letter];
        let judged = |mut d: Vec<Decoded>| {
            letters_doubled_by_ink(&mut d, &LineInk::new(&crop_of(&glyphs)), 8.0);
            d
        };
        let text = |d: &[Decoded]| d.iter().map(|d| d.ch).collect::<String>();
        // population_growth's "Sikkim" read "Sikim", the k's two steps running from the first
        // k's ink into the second's.
        let k = Decoded { last_step: 6, ..at('k', 5) };
        let sikim = judged(vec![at('S', 0), at('i', 2), k, at('i', 8), at('m', 10)]);
        assert_eq!(text(&sikim), "Sikkim");
        let steps: Vec<_> = sikim.iter().map(|d| (d.first_step, d.last_step)).collect();
        assert_eq!(steps, [(0, 0), (2, 2), (4, 5), (6, 7), (8, 8), (10, 10)]);
        // A k read on one step read one glyph; one read twice already stays.
        assert_eq!(text(&judged(vec![at('S', 0), at('i', 2), at('k', 5), at('i', 8), at('m', 10)])), "Sikim");
        assert_eq!(text(&judged(decoded("Sikkim"))), "Sikkim");
        // Two glyphs of one shape overlap whole; a stroke and a wider letter hardly.
        let ink = CropInk::of(&crop_of(&[Letter, Letter, Stroke]));
        let at_column = |x: usize| (0..ink.boxes.len()).find(|&k| ink.boxes[k][0] <= x && x <= ink.boxes[k][2]);
        let (Some(a), Some(b), Some(c)) = (at_column(8), at_column(24), at_column(39)) else { panic!("three blobs") };
        assert_eq!(ink.shape_overlap(a, b), 1.0);
        assert!(ink.shape_overlap(a, c) < 0.5);
    }

    #[test]
    fn only_one_letter_paired_with_two_blobs_alike_and_near_is_doubled() {
        // A blob's columns, its top and its foot.
        let blob = |x0, x1, top| [x0, top, x1, 40];
        let (s, i, k, m) = (blob(0, 10, 10), blob(14, 17, 12), blob(21, 30, 8), blob(54, 70, 20));
        let sikim = [s, i, k, blob(34, 43, 8), blob(47, 50, 12), m];
        assert_eq!(blobs_to_doubled_letter(&['S', 'i', 'k', 'i', 'm'], &sikim, |_| true), Some(2));
        assert_eq!(blobs_to_doubled_letter(&['S', 'i', 'k', 'i', 'm'], &sikim, |_| false), None, "not one shape");
        assert_eq!(blobs_to_doubled_letter(&['S', 'i', 'k', 'k', 'i', 'm'], &sikim, |_| true), None, "as many letters");
        // A broken H's stems stand a crossbar apart, wider than the letters'.
        let (a, b) = (blob(0, 9, 20), blob(37, 46, 20));
        assert_eq!(
            blobs_to_doubled_letter(&['a', 'H', 'a'], &[a, blob(13, 16, 8), blob(30, 33, 8), b], |_| true),
            None
        );
        // A letter its neighbour repeats is not tripled; of two letters alike, neither is doubled.
        let o = |x0| blob(x0, x0 + 9, 20);
        assert_eq!(blobs_to_doubled_letter(&['t', 'o', 'o'], &[blob(0, 5, 10), o(9), o(22), o(35)], |_| true), None);
        assert_eq!(blobs_to_doubled_letter(&['n', 'u'], &[o(0), o(13), o(26)], |_| true), None);
        // l and I are told by their strokes.
        assert_eq!(blobs_to_doubled_letter(&['a', 'l'], &[o(0), blob(13, 16, 8), blob(20, 23, 8)], |_| true), None);
    }

    #[test]
    fn the_words_looked_at_for_doubled_letters_hold_only_letters_and_hyphens_between() {
        let words = words_of_letters(&decoded("Sikim, non-irigated x ab ok! can't -ab Hello."));
        assert_eq!(words, [0..6, 7..19, 39..45]);
    }

    #[test]
    fn a_dagger_read_as_t_is_told_by_its_ink() {
        use Ink::*;
        let read = |text: &str, glyphs: &[Ink]| read_by(|d, ink| daggers_read_as_t(d, ink, 8.0), text, glyphs);
        // pr-138's "Fee†", its dagger raised off the e's foot; a superscript "st" is not.
        assert_eq!(read("Feet", &[Letter, Letter, Letter, Superscript]), "Fee†");
        assert_eq!(read("1st", &[Letter, Superscript, Superscript]), "1st");
        // birdisland's "Brand†", set full size: taller than the tall letters, descending.
        let brand = [[Letter; 10].as_slice(), &[Descender]].concat();
        assert_eq!(read("Brandbrandt", &brand), "Brandbrand†");
        // A t on the letter's foot stays, nor is one after a descender or inside a word judged.
        assert_eq!(read("eat", &[Letter, Letter, Letter]), "eat");
        assert_eq!(read("Egypt", &[Letter, Descender, Descender, Descender, Superscript]), "Egypt");
        // Nor one after letters joined over a descender, taller than a letter (image.pdf's
        // "Height:", its "igh" one blob).
        let height = [[Letter; 9].as_slice(), &[Descender, Letter]].concat();
        assert_eq!(read("Heightsheht", &height), "Heightsheht");
        assert_eq!(read("ate", &[Letter, Descender, Letter]), "ate");
        // labor.pdf photographed from further off: "pen" blurred into one blob, its foot the
        // p's tail, before a t standing on the n's foot ("percen†" for "percent").
        let mut blurred = crop_of(&[Letter; 6]);
        paint(&mut blurred, 36..39, 38..46);
        paint(&mut blurred, 36..76, 30..36);
        assert_eq!(read_crop_by(|d, ink| daggers_read_as_t(d, ink, 8.0), "aapent", &blurred), "aapent");
    }

    #[test]
    fn a_letter_read_out_of_a_raised_trade_mark_sign_is_dropped() {
        use Ink::*;
        let read = |text: &str, glyphs: &[Ink]| read_by(|d, ink| trade_marks_read_whole(d, ink, 8.0), text, glyphs);
        // birdisland's "InovateT™": the sign's T, raised, read as a letter of its own.
        assert_eq!(read("abT\u{2122}", &[Letter, Letter, Superscript, Superscript]), "ab\u{2122}");
        // A letter on the baseline before the sign stays ("Servo™").
        assert_eq!(read("abo\u{2122}", &[Letter, Letter, Letter, Superscript]), "abo\u{2122}");
    }

    #[test]
    fn marks_above_letters_the_model_misread_are_told_by_their_ink() {
        use Ink::*;
        let read = |text: &str, crop: &RgbImage| read_crop_by(|d, ink| accents_by_ink(d, ink, 8.0), text, crop);
        // An i's stem, x-height high, between two letters, with ink above it.
        let i_with = |cols: std::ops::Range<u32>, rows: std::ops::Range<u32>| {
            let mut crop = crop_of(&[Letter, Blank, Letter]);
            paint(&mut crop, 22..25, 22..38);
            paint(&mut crop, cols, rows);
            crop
        };
        // failing_sort's bold "min" read "mīn": one dot over the stem, as wide as it.
        assert_eq!(read("mīn", &i_with(22..25, 16..19)), "min");
        // A macron or circumflex wider than the stem, or an acute leaning off it, stays.
        assert_eq!(read("mīn", &i_with(19..28, 17..19)), "mīn");
        assert_eq!(read("mín", &i_with(24..27, 14..19)), "mín");
        assert_eq!(read("mín", &i_with(22..26, 15..19)), "mín", "mexican_towns' small acutes");
        // eu-012's "Åland" read "Äland": a ring joined to the A rises above the tall letters.
        let mut ringed = crop_of(&[Letter, Letter, Letter, Letter]);
        paint(&mut ringed, 6..10, 8..14);
        assert_eq!(read("Äbcd", &ringed), "Åbcd");
        // Two dots above, apart from it, are a diaeresis as read.
        let mut dotted = crop_of(&[Letter, Letter, Letter, Letter]);
        paint(&mut dotted, 4..6, 8..11);
        paint(&mut dotted, 10..12, 8..11);
        assert_eq!(read("Äbcd", &dotted), "Äbcd");
        // A plain A read "Ä", no higher than the letters beside it, stays as read.
        assert_eq!(read("Äbcd", &crop_of(&[Letter, Letter, Letter, Letter])), "Äbcd");
    }

    #[test]
    fn an_l_or_i_read_doubtfully_on_the_paper_between_two_letters_is_dropped() {
        use Ink::*;
        let at = |ch, step, confidence| Decoded { ch, first_step: step, last_step: step, confidence };
        let read = |d: &mut Vec<Decoded>, crop: &RgbImage| {
            strokes_by_ink(d, &LineInk::new(crop), 8.0);
            d.iter().map(|d| d.ch).collect::<String>()
        };
        // schools' "MN" read "MIN", the I's steps on the paper between the M and the N.
        let min = |confidence| vec![at('M', 0, 0.99), at('I', 2, confidence), at('N', 4, 0.99)];
        let crop = crop_of(&[Letter, Blank, Letter]);
        assert_eq!(read(&mut min(0.55), &crop), "MN");
        assert_eq!(read(&mut min(0.9), &crop), "MIN", "read surely");
        // An l whose ink is joined to its neighbour's owns none but stands on ink.
        let mut crop = crop_of(&[Letter, Letter, Blank, Letter]);
        paint(&mut crop, 12..32, 14..38);
        assert_eq!(read(&mut vec![at('a', 1, 0.99), at('l', 3, 0.5), at('n', 6, 0.99)], &crop), "aln");
        // Nor is one at a word's end dropped.
        assert_eq!(read(&mut vec![at('M', 0, 0.99), at('I', 2, 0.5)], &crop_of(&[Letter, Blank])), "MI");
    }

    /// A crop 48 high of glyphs 16 columns apart, each standing on row 37 as tall as given.
    fn letters_of_heights(heights: &[u32]) -> RgbImage {
        let mut img = RgbImage::from_pixel(16 * heights.len() as u32, 48, image::Rgb([255; 3]));
        for (i, &h) in heights.iter().enumerate() {
            paint(&mut img, 16 * i as u32 + 4..16 * i as u32 + 12, 38 - h..38);
        }
        img
    }

    /// Where the letters of `text` stand on a crop of glyphs `heights` rows tall, in tenths.
    fn standing(text: &str, heights: &[u32]) -> Vec<Option<i32>> {
        let decoded = decoded(text);
        let crop = letters_of_heights(heights);
        let ink = LineInk::new(&crop);
        let mut judge = LetterHeights::new(&ink, 8.0);
        (0..decoded.len()).map(|i| judge.standing(&decoded, i).map(|s| (s * 10.0).round() as i32)).collect()
    }

    #[test]
    fn a_letter_stands_between_the_x_height_and_the_tall_letters() {
        // x-height 16 rows (e, o, n, s), the tall letters 23 (M, U): the W stands at the
        // x-height, the X with the capitals, the s of "sU" between.
        assert_eq!(
            standing("MeoWnXsU", &[23, 16, 16, 16, 16, 23, 20, 23]),
            [Some(10), Some(0), Some(0), Some(0), Some(0), Some(10), Some(6), Some(10)]
        );
        // A line with letters of one height only read takes the other at `X_HEIGHT_SHARE`:
        // the x's 16 rows put the tall letters at 21.9.
        assert_eq!(standing("sOx", &[23, 23, 16]), [Some(12), Some(12), Some(0)]);
        // A line whose letters stand alike, or without small letters past a word's first
        // or tall ones read, tells nothing.
        assert_eq!(standing("BoX", &[23, 23, 23]), [None; 3]);
        assert_eq!(standing("o X", &[16, 0, 16]), [None; 3]);
        // Nor a blob standing far under the x-height, a piece of a letter.
        assert_eq!(standing("MeoWn", &[23, 16, 16, 8, 16])[3], None);
        // Nor one blob nearest two letters' steps: the x and the n touch.
        let mut crop = letters_of_heights(&[23, 16, 16, 16]);
        paint(&mut crop, 44..52, 36..37);
        let decoded: Vec<Decoded> = "Mexn"
            .chars()
            .enumerate()
            .map(|(i, ch)| Decoded { ch, first_step: 2 * i, last_step: 2 * i + 1, confidence: 0.9 })
            .collect();
        let ink = LineInk::new(&crop);
        let mut judge = LetterHeights::new(&ink, 8.0);
        let standing: Vec<_> = (0..4).map(|i| judge.standing(&decoded, i)).collect();
        assert_eq!(standing, [Some(1.0), Some(0.0), None, None]);
    }

    #[test]
    fn a_letter_that_descends_does_not_set_the_baseline() {
        use Ink::*;
        // "ay." : the full stop stands on the foot of the letter that does not descend.
        let mut crop = crop_of(&[Letter, Letter, Stop]);
        paint(&mut crop, 20..28, 38..46);
        let mut d = decoded("ay-");
        stops_and_hyphens(&mut d, &CropInk::of(&crop), 8.0);
        assert_eq!(d.iter().map(|d| d.ch).collect::<String>(), "ay.");
    }

    #[test]
    fn a_run_of_asterisks_read_fewer_than_its_ink_holds_reads_one_for_each() {
        use Ink::{Asterisk, Letter, RaisedDot};
        // Five asterisks read "****", the last star read between the last two (and the letters
        // after them a step late).
        let read = |glyphs: &[Ink], text: &str| {
            let mut d = decoded(text);
            let stars = d.iter().take_while(|r| STARS.contains(&r.ch)).count();
            for r in d.iter_mut().skip(stars - 1) {
                (r.first_step, r.last_step) = (r.first_step + 2, r.last_step + 2);
            }
            asterisks_by_ink(&mut d, &LineInk::new(&crop_of(glyphs)), 8.0);
            d.iter().map(|d| d.ch).collect::<String>()
        };
        let five = [Asterisk, Asterisk, Asterisk, Asterisk, Asterisk, Letter, Letter, Letter];
        assert_eq!(read(&five, "****abc"), "*****abc", "us-001's note");
        assert_eq!(read(&five[1..], "****abc"), "****abc", "as many read as printed");
        // A blob unlike the asterisks (a raised dot) is no more of them.
        assert_eq!(read(&[Asterisk, Asterisk, Asterisk, RaisedDot, Letter, Letter, Letter], "***abc"), "***abc");
    }

    #[test]
    fn a_line_read_unsurely_as_stars_alone_is_an_asterisk_for_each_blob_alike() {
        use Ink::{Asterisk, Blank, Letter};
        let stars = |read: &str, glyphs: &[Ink]| {
            asterisks_alone(&decoded(read), &LineInk::new(&crop_of(glyphs)), 8.0)
                .map(|d| d.iter().map(|d| d.ch).collect::<String>())
        };
        let five = [Asterisk; 5];
        assert_eq!(stars("★★*★", &five).as_deref(), Some("*****"), "us-001's cells");
        assert_eq!(stars("★ ★", &[Asterisk, Blank, Asterisk]).as_deref(), Some("**"));
        assert_eq!(stars("★", &[Asterisk]).as_deref(), Some("*"));
        // Anything but stars read, ink other than asterisks, or fewer blobs than stars.
        assert_eq!(stars("★a★", &five), None);
        assert_eq!(stars("★★★", &[Asterisk, Asterisk, Letter]), None);
        assert_eq!(stars("★★★", &[Asterisk, Asterisk]), None);
        assert_eq!(stars("", &five), None);
    }
}
