//! Metrics of the 14 standard fonts (Adobe's AFM files, from the pdf-core-14-font-afms
//! crate), parsed once on first use, and the usual aliases of those fonts.

use std::collections::HashMap;
use std::sync::OnceLock;

pub struct Std14 {
    pub widths: HashMap<&'static str, u16>,
    /// The same widths keyed by the text each glyph stands for.
    by_text: HashMap<String, u16>,
    /// The font's built-in encoding (code -> glyph name); used by Symbol and ZapfDingbats.
    pub builtin: [Option<&'static str>; 256],
    pub ascent: f32,
    pub descent: f32,
    pub symbolic: bool,
}

fn parse_afm(afm: &'static str, symbolic: bool) -> Std14 {
    let mut m = Std14 {
        widths: HashMap::new(),
        by_text: HashMap::new(),
        builtin: [None; 256],
        ascent: 0.0,
        descent: 0.0,
        symbolic,
    };
    let mut bbox_low = 0.0f32;
    let mut bbox_high = 0.0f32;
    for line in afm.lines() {
        if let Some(v) = line.strip_prefix("Ascender ") {
            m.ascent = v.trim().parse().unwrap_or(0.0);
        } else if let Some(v) = line.strip_prefix("Descender ") {
            m.descent = v.trim().parse().unwrap_or(0.0);
        } else if let Some(v) = line.strip_prefix("FontBBox ") {
            let n: Vec<f32> = v.split_whitespace().filter_map(|x| x.parse().ok()).collect();
            if n.len() == 4 {
                bbox_low = n[1];
                bbox_high = n[3];
            }
        } else if line.starts_with("C ") {
            let (mut code, mut wx, mut name) = (-1i32, None, None);
            for field in line.split(';') {
                let mut it = field.split_whitespace();
                match (it.next(), it.next()) {
                    (Some("C"), Some(v)) => code = v.parse().unwrap_or(-1),
                    (Some("WX"), Some(v)) => wx = v.parse::<f32>().ok(),
                    (Some("N"), Some(v)) => name = Some(v),
                    _ => {}
                }
            }
            if let (Some(w), Some(n)) = (wx, name) {
                m.widths.insert(n, w as u16);
                if let Some(t) = super::encoding::glyph_name_to_unicode(n) {
                    m.by_text.entry(t).or_insert(w as u16);
                }
                if (0..256).contains(&code) {
                    m.builtin[code as usize] = Some(n);
                }
            }
        }
    }
    // Symbol fonts state no Ascender/Descender; their bbox stands in.
    if m.ascent == 0.0 && m.descent == 0.0 {
        m.ascent = bbox_high;
        m.descent = bbox_low;
    }
    m
}

impl Std14 {
    pub fn width_for_text(&self, text: &str) -> Option<&u16> {
        self.by_text.get(text)
    }
}

macro_rules! std14_table {
    ($($name:literal => $afm:ident, $sym:expr;)*) => {
        const NAMES: &[&str] = &[$($name),*];
        fn load(index: usize) -> &'static Std14 {
            static CELLS: [OnceLock<Std14>; 14] = [const { OnceLock::new() }; 14];
            let afms: [(&'static str, bool); 14] = [$((pdf_core_14_font_afms::$afm, $sym)),*];
            CELLS[index].get_or_init(|| parse_afm(afms[index].0, afms[index].1))
        }
    };
}

std14_table! {
    "Courier" => COURIER, false;
    "Courier-Bold" => COURIER_BOLD, false;
    "Courier-Oblique" => COURIER_OBLIQUE, false;
    "Courier-BoldOblique" => COURIER_BOLD_OBLIQUE, false;
    "Helvetica" => HELVETICA, false;
    "Helvetica-Bold" => HELVETICA_BOLD, false;
    "Helvetica-Oblique" => HELVETICA_OBLIQUE, false;
    "Helvetica-BoldOblique" => HELVETICA_BOLD_OBLIQUE, false;
    "Times-Roman" => TIMES_ROMAN, false;
    "Times-Bold" => TIMES_BOLD, false;
    "Times-Italic" => TIMES_ITALIC, false;
    "Times-BoldItalic" => TIMES_BOLD_ITALIC, false;
    "Symbol" => SYMBOL, true;
    "ZapfDingbats" => ZAPF_DINGBATS, true;
}

/// Drops a subset tag (`ABCDEF+`) from a font name.
pub fn strip_subset(name: &str) -> &str {
    match name.split_once('+') {
        Some((tag, rest)) if tag.len() == 6 && tag.bytes().all(|b| b.is_ascii_uppercase()) => rest,
        _ => name,
    }
}

/// The standard font whose metrics stand in for `base_font` (exact names and the common
/// Windows/Mac aliases: Arial, Times New Roman, Courier New).
pub fn lookup(base_font: &str) -> Option<&'static Std14> {
    let name = strip_subset(base_font);
    if let Some(i) = NAMES.iter().position(|n| *n == name) {
        return Some(load(i));
    }
    let lower = name.to_ascii_lowercase().replace([' ', '-', ',', '_'], "");
    let bold = lower.contains("bold") || lower.contains("black") || lower.contains("heavy");
    let italic = lower.contains("italic") || lower.contains("oblique");
    let family = if lower.starts_with("arial") || lower.starts_with("helvetica") {
        4
    } else if lower.starts_with("times") {
        8
    } else if lower.starts_with("courier") {
        0
    } else if lower.starts_with("symbol") {
        return Some(load(12));
    } else if lower.starts_with("zapfdingbats") {
        return Some(load(13));
    } else {
        return None;
    };
    let variant = match (bold, italic) {
        (false, false) => 0,
        (true, false) => 1,
        (false, true) => 2,
        (true, true) => 3,
    };
    Some(load(family + variant))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helvetica_metrics_and_aliases() {
        let h = lookup("Helvetica").unwrap();
        assert_eq!(h.widths["A"], 667);
        assert_eq!(h.descent, -207.0);
        let arial_bold = lookup("ABCDEF+Arial,Bold").unwrap();
        assert_eq!(arial_bold.widths["A"], 722);
        assert_eq!(lookup("TimesNewRomanPSMT").unwrap().widths["Y"], 722);
        assert!(lookup("Calibri").is_none());
    }

    #[test]
    fn symbol_has_builtin_encoding() {
        let s = lookup("Symbol").unwrap();
        assert!(s.symbolic);
        assert_eq!(s.builtin[0x61], Some("alpha"));
    }
}
