//! East Asian characters read on a page of Latin print: reading every class, the model
//! takes a lone mark that detection found as a line of its own for the ideograph it looks
//! like (an asterisk for 大, a dash for 一), and marks among figures or words too, less
//! surely (a table's significance stars "****" read 冰冰冰冰, a chart legend's box read 图
//! before its label).
//! A single ideograph is a word in Chinese, so the line alone cannot tell; the page's other
//! lines can. Such characters are also read as Latin marks (`read_as`, in
//! `Engine::recognize_batch`), and that reading is kept where no other line of the page holds
//! an East Asian character.

use crate::glyphs::DashLength;
use crate::rec::{Decoded, east_asian, is_mark_char};
use crate::{MIN_LINE_CONFIDENCE, OcrChar, OcrLine};

/// A line of at most this many characters, all East Asian, may be look-alikes however surely
/// read: a table cell of two asterisks ("大 大", camelot's anticlockwise_table_1), where a
/// Chinese line holds more.
const LOOK_ALIKE_MAX_CHARS: usize = 2;
/// An East Asian character read less surely than this in a longer line may be a look-alike:
/// the ideographs in lines of figures and Latin words on the corpus's Chinese pages read at
/// 0.97 to 1.00 (2% of all their ideographs under 0.95); cs-en-us-pbms's significance stars
/// read 冰 and 米 at 0.18 to 0.93, eu-021's legend boxes 图 at 0.26 and 0.81.
const LOOK_ALIKE_MAX_CONFIDENCE: f32 = 0.95;
/// A page is told to be of Latin print by at least this many lines with letters, none of
/// them East Asian: a page with less says too little of its script.
const MIN_LATIN_LINES: usize = 3;

/// Which characters of a read (each with its confidence) may be East Asian look-alikes of
/// Latin marks (see the module's comment): all of one or two East Asian characters alone,
/// else the East Asian ones read under `LOOK_ALIKE_MAX_CONFIDENCE`.
fn look_alikes_among(read: impl Iterator<Item = (char, f32)> + Clone) -> impl Fn(char, f32) -> bool {
    let marks = read.filter(|&(ch, _)| !ch.is_whitespace());
    let lone =
        (1..=LOOK_ALIKE_MAX_CHARS).contains(&marks.clone().count()) && marks.clone().all(|(ch, _)| east_asian(ch));
    move |ch, confidence| east_asian(ch) && (lone || confidence < LOOK_ALIKE_MAX_CONFIDENCE)
}

/// Whether a line may be East Asian look-alikes where it holds East Asian characters: each of
/// them may be (`look_alikes_among`).
pub(crate) fn may_hold_look_alikes(line: &OcrLine) -> bool {
    let may_be = look_alikes_among(line.chars.iter().map(|c| (c.ch, c.confidence)));
    line.chars.iter().filter(|c| east_asian(c.ch)).all(|c| may_be(c.ch, c.confidence))
}

/// The piece of a line read again where it holds look-alikes (`look_alikes_among`), each such
/// character as the most probable mark of `classes` over its steps (`is_mark_char`, as
/// `marks::is_mark` counts them; the blank aside), at its probability among the marks: a
/// character was seen there, and the greedy path of the other classes alone may pass it by
/// (scotus-transcript's dash read 一 gave its steps to the blank once 一 was left out), or take
/// a digit for it (the same dash read "1" among every Latin class: in a table, a dash for
/// "none" would become a figure). A character whose mark holds under `MIN_LINE_CONFIDENCE` of
/// the marks' probability is none of them, and reads as a space (eu-021's legend boxes, read
/// 图, read ☐ at 0.24 and § at 0.46; stars read * at 0.77 to 0.99). None where none may be.
/// `probs`: `steps` rows over `classes`.
pub(crate) fn read_as(decoded: &[Decoded], probs: &[f32], steps: usize, classes: &[char]) -> Option<Vec<Decoded>> {
    let may_be = look_alikes_among(decoded.iter().map(|d| (d.ch, d.confidence)));
    let may_be = |d: &Decoded| may_be(d.ch, d.confidence);
    if !decoded.iter().any(may_be) {
        return None;
    }
    let n = classes.len();
    let marks: Vec<usize> = (1..n.saturating_sub(1)).filter(|&k| is_mark_char(classes[k])).collect();
    let read = decoded.iter().map(|d| {
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
            Some((k, confidence)) if may_be(d) => {
                let ch = if confidence < MIN_LINE_CONFIDENCE { ' ' } else { classes[k] };
                Decoded { ch, confidence, ..*d }
            }
            _ => d.clone(),
        }
    });
    Some(read.collect())
}

/// The lines, each that was also read in Latin script (`OcrLine::latin`) read in place as
/// that reading (`read_in_place`) where the page is of Latin print: its other lines hold no
/// East Asian character, and `MIN_LATIN_LINES` or more hold letters. No line keeps its other
/// reading.
pub fn look_alikes_to_latin(lines: Vec<OcrLine>) -> Vec<OcrLine> {
    let others = || lines.iter().filter(|l| l.latin.is_none());
    let latin_page = !others().any(|l| l.text.chars().any(east_asian))
        && others().filter(|l| l.text.chars().any(char::is_alphabetic)).count() >= MIN_LATIN_LINES;
    lines
        .into_iter()
        .filter_map(|mut line| match line.latin.take() {
            Some(latin) if latin_page => read_in_place(line, &latin),
            _ => Some(line),
        })
        .collect()
}

/// The line with each East Asian character read as its other reading's at the same place
/// (the readings share their characters' steps, so their boxes, whatever the page did to the
/// line's other characters since: leaders, en dashes), or left out where that reading read
/// nothing there (a comment icon read 日, no mark in Latin script) or a space; None where
/// nothing but spaces is left.
fn read_in_place(line: OcrLine, latin: &OcrLine) -> Option<OcrLine> {
    let mut chars: Vec<OcrChar> = Vec::with_capacity(line.chars.len());
    // Where each of the line's characters went (its dashes point at them).
    let mut moved: Vec<Option<usize>> = Vec::with_capacity(line.chars.len());
    for c in &line.chars {
        let read = match east_asian(c.ch) {
            true => latin.chars.iter().find(|o| o.quad == c.quad).map(|o| OcrChar {
                ch: o.ch,
                confidence: o.confidence,
                ..*c
            }),
            false => Some(c.clone()),
        };
        let kept = read.filter(|r| r.ch != ' ' || chars.last().is_some_and(|l| l.ch != ' '));
        moved.push(kept.is_some().then_some(chars.len()));
        chars.extend(kept);
    }
    if chars.last().is_some_and(|c| c.ch == ' ') {
        chars.pop();
    }
    if chars.is_empty() {
        return None;
    }
    let dashes =
        line.dashes.iter().filter_map(|d| Some(DashLength { index: moved.get(d.index).copied().flatten()?, ..*d }));
    Some(OcrLine {
        text: chars.iter().map(|c| c.ch).collect(),
        confidence: chars.iter().map(|c| c.confidence).sum::<f32>() / chars.len() as f32,
        dashes: dashes.collect(),
        chars,
        ..line
    })
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

    /// A line reading `text` with its East Asian characters read at `eastern` (the rest at 0.99).
    fn read_at(text: &str, eastern: f32) -> OcrLine {
        let mut l = read(text);
        for c in l.chars.iter_mut() {
            c.confidence = if east_asian(c.ch) { eastern } else { 0.99 };
        }
        l
    }

    #[test]
    fn lines_of_one_or_two_east_asian_characters_or_of_unsure_ones_among_others_may_be_look_alikes() {
        for (text, at) in [("大", 0.99), ("大 大", 0.99), ("十十", 0.99), ("9.9*米", 0.89), ("9.8 冰冰冰冰", 0.6)]
        {
            assert!(may_hold_look_alikes(&read_at(text, at)), "{text}");
        }
        // Ideographs read surely in a longer line: a Chinese line, figures with their unit.
        for (text, at) in [("大大大", 0.99), ("项目提示", 0.99), ("仪器法 3.9 E+9/L", 0.97)] {
            assert!(!may_hold_look_alikes(&read_at(text, at)), "{text}");
        }
        // One sure ideograph among unsure ones: the line may be Chinese.
        let mut mixed = read_at("abc 鎮、铍", 0.3);
        mixed.chars[5].confidence = 1.0;
        assert!(!may_hold_look_alikes(&mixed));
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
        let d = |ch, step, confidence| Decoded { ch, first_step: step, last_step: step.max(2), confidence };
        let read = |decoded: &[Decoded]| read_as(decoded, &probs, 4, &classes);
        let text = |read: Option<Vec<Decoded>>| read.map(|r| r.iter().map(|d| d.ch).collect::<String>());
        let lone = read(&[d('大', 1, 0.99), d(' ', 3, 0.9)]);
        assert_eq!(text(lone.clone()).as_deref(), Some("* "));
        assert!(lone.is_some_and(|r| (r[0].confidence - 0.75).abs() < 1e-6));
        // Among letters, only what was read unsurely is read again.
        assert_eq!(text(read(&[d('a', 0, 0.99), d('1', 1, 0.99), d('米', 1, 0.6)])).as_deref(), Some("a1*"));
        assert_eq!(text(read(&[d('a', 0, 0.99), d('米', 1, 0.96)])), None);
    }

    #[test]
    fn a_look_alike_read_as_no_mark_surely_reads_as_a_space() {
        // Classes: blank, three marks, space; a legend box's step split among the marks.
        let classes = ['\0', '☐', '§', '∃', ' '];
        let boxed = Decoded { ch: '图', first_step: 0, last_step: 0, confidence: 0.3 };
        let read = read_as(&[boxed], &[0.1, 0.3, 0.3, 0.3, 0.0], 1, &classes);
        assert_eq!(read.map(|r| r[0].ch), Some(' '));
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

    #[test]
    fn look_alikes_among_figures_read_in_place_and_what_reads_as_nothing_is_left_out() {
        let texts = |lines: Vec<OcrLine>| lines.into_iter().map(|l| l.text).collect::<Vec<_>>();
        let body = ["Offence 2014 2015", "Homicide 82 67", "Rape 11 11"];
        let mut lines: Vec<OcrLine> = body.iter().map(|t| read(t)).collect();
        // A row ending in significance stars, read again as such; since then its dots were
        // read as a leader (the page's lines change after recognition).
        let mut stars = read_at("Transit ..... 9.8 冰冰", 0.6);
        stars.latin = Some(Box::new(read("Transit ..... 9.8 **")));
        stars.chars[8].ch = '…';
        lines.push(stars);
        // A legend's box read 图 before its label, a space in Latin script.
        lines.push(OcrLine { latin: Some(Box::new(read(" Frequently"))), ..read_at("图Frequently", 0.3) });
        // A comment icon read 日, nothing in Latin script.
        lines.push(OcrLine { latin: Some(Box::new(OcrLine::nothing(rect(0.0, 0.0, 100.0, 20.0)))), ..read("日") });
        let read = texts(look_alikes_to_latin(lines));
        assert_eq!(read[3..], ["Transit ….... 9.8 **", "Frequently"], "{read:?}");
    }
}
