//! Figures grouped in thousands. In small print a comma's tail is a pixel lighter than the
//! ink, and recognition reads it as a full stop: senate-expenditures' "37,499.96" at 6 pt
//! reads "37.499.96", a number no convention writes. Such a number takes the separators the
//! page's well-formed numbers show: "37,499.96" where they write "446.87" or "1,260.00",
//! "37.499,96" where they write "446,87" or "1.260,00". The reverse, a full stop read as a
//! comma inside a number, was not met (page 1 of the 284 corpus PDFs), and a number printed
//! with commas only ("34,594,76" in one text layer) is left as printed.
//!
//! Recognition also reads a space after a number's separator where the print sets the next
//! group a little apart ("2, 152" for nics-background-checks' "2,152"): such a space, read
//! unsurely between a thousands group's separator and three figures, is left out.

use std::ops::Range;

use crate::{OcrChar, OcrLine};

/// A decimal part of one or two figures (cents, tenths) cannot be a thousands group, which
/// has three: a longer one leaves a number's convention open.
const MAX_DECIMALS: usize = 2;
/// Figures before the first separator of a number grouped in thousands.
const MAX_LEADING_FIGURES: usize = 3;

/// A space read this surely or less inside a number is left out: over page 1 of the 284
/// corpus PDFs, spaces after a separator the text layers do not have read at 0.29-0.75, those
/// they have ("31, 2011.", "7, 14,") at 0.75 or more, none before three figures alone.
const MAX_SPACE_IN_NUMBER_CONFIDENCE: f32 = 0.8;

/// How a page writes numbers: which mark groups thousands and which starts decimals.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Convention {
    /// "1,234.56"
    CommaThousands,
    /// "1.234,56"
    StopThousands,
}

impl Convention {
    /// The mark grouping thousands and the mark starting decimals.
    fn marks(self) -> (char, char) {
        match self {
            Convention::CommaThousands => (',', '.'),
            Convention::StopThousands => ('.', ','),
        }
    }

    /// The convention whose decimals start with `mark`.
    fn by_decimal_mark(mark: char) -> Convention {
        if mark == '.' { Convention::CommaThousands } else { Convention::StopThousands }
    }
}

/// Each number's unsure spaces after a separator left out (`unsure_spaces_in_numbers_dropped`),
/// then its separators made the page's convention where all of them were read as full stops
/// and no convention writes the number so (see the module's note); lines on a page whose
/// numbers show neither convention, or both as often, keep their separators as read.
pub fn separators_to_page_convention(lines: Vec<OcrLine>) -> Vec<OcrLine> {
    let mut lines: Vec<OcrLine> = lines.into_iter().map(unsure_spaces_in_numbers_dropped).collect();
    let numbers: Vec<(usize, Range<usize>, String)> = lines
        .iter()
        .enumerate()
        .flat_map(|(i, line)| {
            number_runs(&line.chars).into_iter().map(move |run| {
                let number = line.chars[run.clone()].iter().map(|c| c.ch).collect();
                (i, run, number)
            })
        })
        .collect();
    let Some(convention) = page_convention(numbers.iter().map(|(_, _, n)| n.as_str())) else { return lines };
    for (i, run, number) in numbers {
        let Some(mended) = mended_separators(&number, convention) else { continue };
        let line = &mut lines[i];
        for (c, ch) in line.chars[run].iter_mut().zip(mended.chars()) {
            c.ch = ch;
        }
        line.text = line.chars.iter().map(|c| c.ch).collect();
    }
    lines
}

/// The line with each space read under `MAX_SPACE_IN_NUMBER_CONFIDENCE` after a number's
/// separator and before three figures that end it or its next group left out, where the
/// figures before the separator are grouped in thousands ("2, 152", "1,234, 567.5", "0. 198").
fn unsure_spaces_in_numbers_dropped(mut line: OcrLine) -> OcrLine {
    let chars = &line.chars;
    let figure = |k: usize| chars.get(k).is_some_and(|c| c.ch.is_ascii_digit());
    let in_number = |c: &OcrChar| c.ch.is_ascii_digit() || matches!(c.ch, '.' | ',');
    let inside = |k: usize| {
        let separated = k > 0 && matches!(chars[k - 1].ch, '.' | ',');
        let unsure = chars[k].ch == ' ' && chars[k].confidence <= MAX_SPACE_IN_NUMBER_CONFIDENCE;
        if !unsure || !separated || !(k + 1..k + 4).all(figure) || figure(k + 4) {
            return false;
        }
        let start = chars[..k - 1].iter().rposition(|c| !in_number(c)).map_or(0, |s| s + 1);
        let number: String = chars[start..k - 1].iter().map(|c| c.ch).collect();
        let after_letter = start > 0 && chars[start - 1].ch.is_alphanumeric();
        // Grouped in thousands up to the separator: the three figures after it are a group.
        let grouped = groups(&number).is_some_and(|(mut g, _)| {
            g.push("000");
            is_grouped(&g)
        });
        grouped && !after_letter
    };
    let drop: Vec<bool> = (0..chars.len()).map(inside).collect();
    if drop.contains(&true) {
        let mut k = 0;
        line.chars.retain(|_| {
            k += 1;
            !drop[k - 1]
        });
        line.text = line.chars.iter().map(|c| c.ch).collect();
    }
    line
}

/// The convention most of a page's well-formed numbers show, if one shows more often.
fn page_convention<'a>(numbers: impl Iterator<Item = &'a str>) -> Option<Convention> {
    let (mut comma, mut stop) = (0, 0);
    for number in numbers {
        match written_as(number) {
            Some(Convention::CommaThousands) => comma += 1,
            Some(Convention::StopThousands) => stop += 1,
            None => {}
        }
    }
    match comma.cmp(&stop) {
        std::cmp::Ordering::Greater => Some(Convention::CommaThousands),
        std::cmp::Ordering::Less => Some(Convention::StopThousands),
        std::cmp::Ordering::Equal => None,
    }
}

/// Runs of figures, full stops and commas that start and end with a figure and touch no
/// letter or figure outside them ("v1.2.3" and "A12" are names, not numbers).
fn number_runs(chars: &[OcrChar]) -> Vec<Range<usize>> {
    let in_number = |c: &OcrChar| c.ch.is_ascii_digit() || matches!(c.ch, '.' | ',');
    let mut runs = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].ch.is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && in_number(&chars[i]) {
            i += 1;
        }
        let end = start + chars[start..i].iter().rposition(|c| c.ch.is_ascii_digit()).map_or(0, |k| k + 1);
        let touches = |k: Option<&OcrChar>| k.is_some_and(|c| c.ch.is_alphanumeric());
        if !touches(start.checked_sub(1).and_then(|k| chars.get(k))) && !touches(chars.get(end)) {
            runs.push(start..end);
        }
        i = i.max(end + 1);
    }
    runs
}

/// A number's figure groups and the separators between them; None where two separators
/// touch.
fn groups(number: &str) -> Option<(Vec<&str>, Vec<char>)> {
    let groups: Vec<&str> = number.split(['.', ',']).collect();
    let separators = number.chars().filter(|c| matches!(c, '.' | ',')).collect();
    groups.iter().all(|g| !g.is_empty()).then_some((groups, separators))
}

/// The convention a well-formed number shows: a short decimal part after a full stop or a
/// comma alone ("446.87", "446,87"), or thousands groups before a decimal part or a third
/// group ("1,234.56", "1,234,567", "1.234,56"). Thousands groups by full stops alone
/// ("1.234.567") show nothing: they are what a comma read as a full stop makes.
fn written_as(number: &str) -> Option<Convention> {
    let (groups, separators) = groups(number)?;
    let last = groups.last().map_or(0, |g| g.len());
    if let [mark] = separators[..] {
        return (last <= MAX_DECIMALS).then(|| Convention::by_decimal_mark(mark));
    }
    if !is_grouped(&groups) {
        return None;
    }
    let (&decimal, thousands) = separators.split_last()?;
    let &thousand = thousands.first()?;
    if thousands.iter().any(|&s| s != thousand) {
        return None;
    }
    match (thousand, decimal) {
        (',', '.') | ('.', ',') => Some(Convention::by_decimal_mark(decimal)),
        (',', ',') if last == 3 => Some(Convention::CommaThousands),
        _ => None,
    }
}

/// Figures grouped in thousands after the first group (whatever the last group is).
fn is_grouped(groups: &[&str]) -> bool {
    match groups {
        [first, middle @ .., _] => first.len() <= MAX_LEADING_FIGURES && middle.iter().all(|g| g.len() == 3),
        _ => false,
    }
}

/// The number with `convention`'s separators, where it has two full stops or more and no
/// other separator, in thousands groups, and no convention writes it so: "37.499.96" (both
/// conventions mend it), or "2.236.457" (a number for a page grouping thousands by commas).
fn mended_separators(number: &str, convention: Convention) -> Option<String> {
    let (groups, separators) = groups(number)?;
    if separators.len() < 2 || separators.iter().any(|&s| s != '.') || !is_grouped(&groups) {
        return None;
    }
    let last = groups.last().map_or(0, |g| g.len());
    let decimals = last <= MAX_DECIMALS;
    // A full stop-grouped integer is already the full-stop convention's; a longer last group
    // is no thousands group.
    if !decimals && (convention == Convention::StopThousands || last != 3) {
        return None;
    }
    let (thousands, decimal) = convention.marks();
    let mut stops = separators.len();
    let mark = |c: char| match c {
        '.' => {
            stops -= 1;
            if decimals && stops == 0 { decimal } else { thousands }
        }
        c => c,
    };
    Some(number.chars().map(mark).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{line, rect};

    fn read(texts: &[&str]) -> Vec<String> {
        let lines = texts
            .iter()
            .enumerate()
            .map(|(i, t)| line(t, rect(0.0, i as f32 * 20.0, 300.0, i as f32 * 20.0 + 16.0), 0.9));
        separators_to_page_convention(lines.collect()).into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn commas_read_as_full_stops_in_amounts_take_the_separators_of_the_pages_other_numbers() {
        // senate-expenditures at 6 pt: its amounts over a thousand read with full stops only.
        assert_eq!(
            read(&["Travel 37.499.96 21.000.00", "Lodging 446.87 $1.260.00", "Total 2.236.457 units"]),
            ["Travel 37,499.96 21,000.00", "Lodging 446.87 $1,260.00", "Total 2,236,457 units"]
        );
        assert_eq!(
            read(&["Summe 37.499.96", "Porto 446,87 und 1.234,50"]),
            ["Summe 37.499,96", "Porto 446,87 und 1.234,50"]
        );
    }

    #[test]
    fn numbers_a_convention_writes_and_pages_that_show_none_are_left_as_read() {
        // No evidence either way: an address and an amount stay as read.
        assert_eq!(read(&["host 10.100.200.50", "paid 37.499.96"]), ["host 10.100.200.50", "paid 37.499.96"]);
        // Each convention's own numbers, names, dates and a number printed with commas only.
        let page = ["12.50 7.704 90.560 2019", "v1.234.56 A12.345.67 12.03.2014 34,594,76", "3.5.10 1,234.5678"];
        assert_eq!(read(&page), page);
        // As many numbers of each convention: nothing to go by.
        assert_eq!(read(&["1,234.56 1.234,56 37.499.96"]), ["1,234.56 1.234,56 37.499.96"]);
    }

    #[test]
    fn a_space_read_unsurely_after_a_thousands_separator_is_left_out() {
        let spaced = |text: &str, confidence: f32| {
            let mut l = line(text, rect(0.0, 0.0, 300.0, 16.0), 0.99);
            for c in l.chars.iter_mut().filter(|c| c.ch == ' ') {
                c.confidence = confidence;
            }
            unsure_spaces_in_numbers_dropped(l).text
        };
        // nics-background-checks' "2,152" read with a space at 0.29; issue-461's "0.198".
        assert_eq!(spaced("Delaware 2, 152 2,424", 0.29), "Delaware 2,152 2,424");
        assert_eq!(spaced("0. 198 and 1,234, 567.5", 0.4), "0.198 and 1,234,567.5");
        // Read surely, a list's space; and where no thousands group follows or precedes it.
        assert_eq!(spaced("Delaware 2, 152", 0.9), "Delaware 2, 152");
        assert_eq!(
            spaced("May 29, 2016 or 60, 13 and 1.5, 234 or A1, 234", 0.3),
            "May 29, 2016 or 60, 13 and 1.5, 234 or A1, 234"
        );
        assert_eq!(spaced("1234, 567 , 890", 0.3), "1234, 567 , 890");
    }

    #[test]
    fn a_number_is_a_run_of_figures_and_separators_touching_no_letter() {
        let chars = line("($1.260.00), 7.5% x2.5 ", rect(0.0, 0.0, 100.0, 10.0), 1.0).chars;
        let text = |r: &Range<usize>| chars[r.clone()].iter().map(|c| c.ch).collect::<String>();
        assert_eq!(number_runs(&chars).iter().map(text).collect::<Vec<_>>(), ["1.260.00", "7.5"]);
        assert_eq!(written_as("1,234,567"), Some(Convention::CommaThousands));
        assert_eq!(written_as("1,234"), None);
        assert_eq!(written_as("2019"), None);
        assert_eq!(written_as("1.234"), None);
        assert_eq!(written_as("12,5"), Some(Convention::StopThousands));
        assert_eq!(mended_separators("1.234.5678", Convention::CommaThousands), None);
        assert_eq!(mended_separators("1.234.567", Convention::StopThousands), None);
        assert_eq!(mended_separators("1.234.5", Convention::StopThousands).as_deref(), Some("1.234,5"));
    }
}
