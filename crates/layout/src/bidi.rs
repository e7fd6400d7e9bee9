//! Visual -> logical order for right-to-left scripts. Glyphs are sorted by position, which
//! is visual order; Hebrew and Arabic words read right to left, so their letters and, on
//! right-to-left lines, the word order are reversed (runs of left-to-right words such as
//! numbers and Latin keep their order).

use docsift_model::Word;

fn is_rtl(c: char) -> bool {
    matches!(c as u32, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF)
}

fn is_strong_ltr(c: char) -> bool {
    c.is_alphabetic() && !is_rtl(c)
}

fn word_is_rtl(w: &Word) -> bool {
    w.text.chars().any(is_rtl) && !w.text.chars().any(is_strong_ltr)
}

pub fn visual_to_logical(words: &mut [Word]) {
    let rtl: Vec<bool> = words.iter().map(word_is_rtl).collect();
    if !rtl.iter().any(|&r| r) {
        return;
    }
    for (w, &r) in words.iter_mut().zip(&rtl) {
        if r {
            w.text = w.text.chars().rev().collect();
        }
    }
    // Base direction: right-to-left when most words are.
    if rtl.iter().filter(|&&r| r).count() * 2 < words.len() {
        return;
    }
    words.reverse();
    let mut flags: Vec<bool> = rtl;
    flags.reverse();
    let mut i = 0;
    while i < words.len() {
        if flags[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < words.len() && !flags[i] {
            i += 1;
        }
        words[start..i].reverse();
        flags[start..i].reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsift_model::{BBox, Direction};

    fn w(t: &str) -> Word {
        Word {
            text: t.into(),
            bbox: BBox::default(),
            upright: true,
            direction: Direction::Ltr,
            font: "".into(),
            size: 10.0,
            confidence: None,
        }
    }

    #[test]
    fn hebrew_line_reads_right_to_left_with_numbers_intact() {
        // Visual order left to right: "םלוע 2024 םולש" (letters reversed, words reversed).
        let mut words = vec![w("םלוע"), w("2024"), w("םולש")];
        visual_to_logical(&mut words);
        let t: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(t, ["שלום", "2024", "עולם"]);
    }

    #[test]
    fn latin_line_untouched() {
        let mut words = vec![w("abc"), w("def")];
        visual_to_logical(&mut words);
        assert_eq!(words[0].text, "abc");
    }
}
