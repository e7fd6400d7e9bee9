//! Lines read as one or two East Asian characters on a page of Latin print: reading every
//! class, the model takes a lone mark that detection found as a line of its own for the
//! ideograph it looks like (an asterisk for 大, a dash for 一). A single ideograph is a word
//! in Chinese, so the line alone cannot tell; the page's other lines can. Such a line is
//! also read as Latin marks (`read_as`, in `Engine::recognize_batch`), and that reading is
//! kept where no other line of the page holds an East Asian character.

use crate::OcrLine;
use crate::rec::{Decoded, east_asian, is_mark_char};

/// A line of at most this many characters, all East Asian, may be look-alikes: a table cell
/// of two asterisks ("大 大", camelot's anticlockwise_table_1), where a Chinese line holds
/// more.
const LOOK_ALIKE_MAX_CHARS: usize = 2;
/// A page is told to be of Latin print by at least this many lines with letters, none of
/// them East Asian: a page with less says too little of its script.
const MIN_LATIN_LINES: usize = 3;

/// Whether a line's text may be East Asian look-alikes of Latin marks (see the module's
/// comment).
pub(crate) fn may_be_look_alikes(text: &str) -> bool {
    let mut read = text.chars().filter(|c| !c.is_whitespace());
    let n = read.clone().count();
    (1..=LOOK_ALIKE_MAX_CHARS).contains(&n) && read.all(east_asian)
}

/// The characters read again, each as the most probable mark of `classes` over its steps
/// (`is_mark_char`, as `marks::is_mark` counts them; the blank aside), at its probability among the marks: a character was seen there, and the greedy
/// path of the other classes alone may pass it by (scotus-transcript's dash read 一 gave its
/// steps to the blank once 一 was left out), or take a digit for it (the same dash read "1"
/// among every Latin class: in a table, a dash for "none" would become a figure).
/// `probs`: `steps` rows over `classes`.
pub(crate) fn read_as(decoded: &[Decoded], probs: &[f32], steps: usize, classes: &[char]) -> Vec<Decoded> {
    let n = classes.len();
    let marks: Vec<usize> = (1..n.saturating_sub(1)).filter(|&k| is_mark_char(classes[k])).collect();
    decoded
        .iter()
        .map(|d| {
            let rows =
                (d.first_step..=d.last_step.min(steps.saturating_sub(1))).filter_map(|t| probs.get(t * n..(t + 1) * n));
            let best = rows
                .filter_map(|row| {
                    let (k, p) = marks.iter().map(|&k| (k, row[k])).max_by(|a, b| a.1.total_cmp(&b.1))?;
                    let seen: f32 = marks.iter().map(|&k| row[k]).sum();
                    Some((k, p / seen.max(f32::MIN_POSITIVE)))
                })
                .max_by(|a, b| a.1.total_cmp(&b.1));
            match best {
                Some((k, confidence)) if d.ch != ' ' => Decoded { ch: classes[k], confidence, ..*d },
                _ => d.clone(),
            }
        })
        .collect()
}

/// The lines, each that was also read in Latin script (`OcrLine::latin`) replaced by that
/// reading where the page is of Latin print: its other lines hold no East Asian character,
/// and `MIN_LATIN_LINES` or more hold letters. No line keeps its other reading.
pub fn look_alikes_to_latin(lines: Vec<OcrLine>) -> Vec<OcrLine> {
    let others = || lines.iter().filter(|l| l.latin.is_none());
    let latin_page = !others().any(|l| l.text.chars().any(east_asian))
        && others().filter(|l| l.text.chars().any(char::is_alphabetic)).count() >= MIN_LATIN_LINES;
    lines
        .into_iter()
        .map(|mut line| match line.latin.take() {
            Some(latin) if latin_page => *latin,
            _ => line,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{line, rect};

    fn read(text: &str) -> OcrLine {
        line(text, rect(0.0, 0.0, 100.0, 20.0), 0.9)
    }

    fn with_latin(text: &str, latin: &str) -> OcrLine {
        OcrLine { latin: Some(Box::new(read(latin))), ..read(text) }
    }

    #[test]
    fn only_lines_of_one_or_two_east_asian_characters_may_be_look_alikes() {
        for text in ["大", "大 大", "一", "十十"] {
            assert!(may_be_look_alikes(text), "{text}");
        }
        for text in ["", " ", "大大大", "大 *", "a", "项目提示"] {
            assert!(!may_be_look_alikes(text), "{text}");
        }
    }

    #[test]
    fn a_character_read_again_is_the_most_probable_mark_over_its_steps() {
        // Classes: blank, '*', '-', '1', space. A character over steps 1..=2 where the blank
        // outweighs every other class and a digit every mark, and a space kept as it is.
        let classes = ['\0', '*', '-', '1', ' '];
        let probs = [
            0.9, 0.05, 0.0, 0.0, 0.05, //
            0.5, 0.1, 0.2, 0.2, 0.0, //
            0.3, 0.3, 0.1, 0.3, 0.0, //
            0.2, 0.0, 0.0, 0.0, 0.8,
        ];
        let d = |ch, first_step, last_step| Decoded { ch, first_step, last_step, confidence: 0.9 };
        let read = read_as(&[d('大', 1, 2), d(' ', 3, 3)], &probs, 4, &classes);
        assert_eq!(read.iter().map(|d| d.ch).collect::<String>(), "* ");
        assert!((read[0].confidence - 0.75).abs() < 1e-6, "{}", read[0].confidence);
    }

    #[test]
    fn a_lone_look_alike_reads_as_latin_on_a_latin_page_and_stays_on_a_chinese_one() {
        let texts = |lines: Vec<OcrLine>| lines.into_iter().map(|l| l.text).collect::<Vec<_>>();
        let latin = ["Madhya Pradesh", "7942 470", "Orissa 3756", "Data not available"];
        let page = |body: &[&str]| {
            let mut lines: Vec<OcrLine> = body.iter().map(|t| read(t)).collect();
            lines.insert(1, with_latin("大", "*"));
            lines
        };
        assert_eq!(
            texts(look_alikes_to_latin(page(&latin))),
            ["Madhya Pradesh", "*", "7942 470", "Orissa 3756", "Data not available"]
        );
        // A Chinese page keeps its single ideographs, and so does a page of too few lines.
        let chinese = ["项目 结果", "Madhya Pradesh", "7942 470", "Orissa 3756"];
        assert_eq!(texts(look_alikes_to_latin(page(&chinese)))[1], "大");
        assert_eq!(texts(look_alikes_to_latin(page(&latin[..2])))[1], "大");
        // Either way no line keeps its other reading.
        assert!(look_alikes_to_latin(page(&chinese)).iter().all(|l| l.latin.is_none()));
    }
}
