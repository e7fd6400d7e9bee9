//! CMaps: `ToUnicode` (code -> text) and CID CMaps (code -> CID), both parsed from the
//! PostScript-like CMap syntax with the content lexer.

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use crate::lexer::{Lexer, Operand, Token};

/// Larger ranges are clipped: a CMap cannot address more codes than 4 bytes hold, and
/// real ones stay far below this; it bounds memory for hostile input.
const MAX_RANGE_SPAN: u32 = 1 << 24;

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Codespace,
    BfChar,
    BfRange,
    CidChar,
    CidRange,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CodespaceRange {
    pub lo: u32,
    pub hi: u32,
    pub bytes: u8,
}

#[derive(Clone, Debug)]
enum UnicodeTarget {
    /// UTF-16 units of the first code; following codes increment the last unit.
    Base(Vec<u16>),
    /// One string per code.
    List(Vec<String>),
}

#[derive(Clone, Debug, Default)]
pub struct CMap {
    pub codespace: Vec<CodespaceRange>,
    /// (lo, hi, first cid), sorted by lo.
    cid_ranges: Vec<(u32, u32, u32)>,
    unicode_chars: FxHashMap<u32, CompactString>,
    /// (lo, hi, target), sorted by lo.
    unicode_ranges: Vec<(u32, u32, UnicodeTarget)>,
    pub wmode: u8,
    /// Name of a CMap this one extends (`usecmap`).
    pub usecmap: Option<String>,
}

pub fn utf16be_to_string(bytes: &[u8]) -> String {
    let units: Vec<u16> =
        bytes.chunks(2).map(|c| if c.len() == 2 { u16::from_be_bytes([c[0], c[1]]) } else { c[0] as u16 }).collect();
    String::from_utf16_lossy(&units)
}

fn code_of(bytes: &[u8]) -> u32 {
    bytes.iter().take(4).fold(0u32, |acc, &b| acc << 8 | b as u32)
}

impl CMap {
    pub fn parse(data: &[u8]) -> CMap {
        let mut cmap = CMap::default();
        let mut lx = Lexer::new(data);
        let mut stack: Vec<Operand> = Vec::new();
        let mut section = Section::None;
        while let Some(tok) = lx.next_token(0) {
            let op = match tok {
                Token::Operand(o) => {
                    stack.push(o);
                    continue;
                }
                Token::Operator(op) => op,
                Token::ArrayEnd | Token::DictEnd => continue,
            };
            match op {
                b"begincodespacerange" => section = Section::Codespace,
                b"beginbfchar" => section = Section::BfChar,
                b"beginbfrange" => section = Section::BfRange,
                b"begincidchar" => section = Section::CidChar,
                b"begincidrange" => section = Section::CidRange,
                b"endcodespacerange" | b"endbfchar" | b"endbfrange" | b"endcidchar" | b"endcidrange" => {
                    cmap.take_section(section, &stack);
                    section = Section::None;
                }
                b"def" => {
                    if stack.len() >= 2
                        && stack[stack.len() - 2].as_name() == Some(b"WMode")
                        && let Some(v) = stack[stack.len() - 1].as_f32()
                    {
                        cmap.wmode = v as u8;
                    }
                }
                b"usecmap" => {
                    if let Some(name) = stack.last().and_then(|o| o.as_name()) {
                        cmap.usecmap = Some(String::from_utf8_lossy(name).into_owned());
                    }
                }
                _ => {}
            }
            // Operands never span operators (the count before `beginxxx` is dropped too).
            stack.clear();
        }
        cmap.cid_ranges.sort_by_key(|r| r.0);
        cmap.unicode_ranges.sort_by_key(|r| r.0);
        cmap
    }

    fn take_section(&mut self, section: Section, items: &[Operand]) {
        match section {
            Section::Codespace => {
                for pair in items.chunks_exact(2) {
                    if let (Some(lo), Some(hi)) = (pair[0].as_str(), pair[1].as_str()) {
                        let bytes = lo.len().clamp(1, 4) as u8;
                        self.codespace.push(CodespaceRange { lo: code_of(lo), hi: code_of(hi), bytes });
                    }
                }
            }
            Section::BfChar => {
                for pair in items.chunks_exact(2) {
                    let Some(src) = pair[0].as_str() else {
                        continue;
                    };
                    let text = match &pair[1] {
                        Operand::Str(s) => utf16be_to_string(s),
                        Operand::Name(n) => {
                            super::encoding::glyph_name_to_unicode(&String::from_utf8_lossy(n)).unwrap_or_default()
                        }
                        _ => continue,
                    };
                    self.unicode_chars.insert(code_of(src), text.into());
                }
            }
            Section::BfRange => {
                for triple in items.chunks_exact(3) {
                    let (Some(lo), Some(hi)) = (triple[0].as_str(), triple[1].as_str()) else {
                        continue;
                    };
                    let (lo, hi) = (code_of(lo), code_of(hi));
                    if hi < lo || hi - lo > MAX_RANGE_SPAN {
                        continue;
                    }
                    let target = match &triple[2] {
                        Operand::Str(s) => {
                            let units: Vec<u16> = s
                                .chunks(2)
                                .map(|c| if c.len() == 2 { u16::from_be_bytes([c[0], c[1]]) } else { c[0] as u16 })
                                .collect();
                            UnicodeTarget::Base(units)
                        }
                        Operand::Array(a) => UnicodeTarget::List(
                            a.iter().map(|o| o.as_str().map(utf16be_to_string).unwrap_or_default()).collect(),
                        ),
                        _ => continue,
                    };
                    self.unicode_ranges.push((lo, hi, target));
                }
            }
            Section::CidChar => {
                for pair in items.chunks_exact(2) {
                    if let (Some(src), Some(cid)) = (pair[0].as_str(), pair[1].as_f32()) {
                        let c = code_of(src);
                        self.cid_ranges.push((c, c, cid.max(0.0) as u32));
                    }
                }
            }
            Section::CidRange => {
                for triple in items.chunks_exact(3) {
                    if let (Some(lo), Some(hi), Some(cid)) =
                        (triple[0].as_str(), triple[1].as_str(), triple[2].as_f32())
                    {
                        let (lo, hi) = (code_of(lo), code_of(hi));
                        if hi >= lo && hi - lo <= MAX_RANGE_SPAN {
                            self.cid_ranges.push((lo, hi, cid.max(0.0) as u32));
                        }
                    }
                }
            }
            Section::None => {}
        }
    }

    /// Merges a parent CMap (`usecmap`) under this one.
    pub fn inherit(&mut self, parent: &CMap) {
        if self.codespace.is_empty() {
            self.codespace = parent.codespace.clone();
        }
        self.cid_ranges.extend(parent.cid_ranges.iter().copied());
        self.cid_ranges.sort_by_key(|r| r.0);
        for (k, v) in &parent.unicode_chars {
            self.unicode_chars.entry(*k).or_insert_with(|| v.clone());
        }
        self.unicode_ranges.extend(parent.unicode_ranges.iter().cloned());
        self.unicode_ranges.sort_by_key(|r| r.0);
    }

    pub fn has_unicode(&self) -> bool {
        !self.unicode_chars.is_empty() || !self.unicode_ranges.is_empty()
    }

    pub fn lookup_unicode(&self, code: u32) -> Option<CompactString> {
        if let Some(s) = self.unicode_chars.get(&code) {
            return Some(s.clone());
        }
        let idx = self.unicode_ranges.partition_point(|r| r.0 <= code);
        // Ranges may overlap; scan back over those that start at or before `code`.
        for (lo, hi, target) in self.unicode_ranges[..idx].iter().rev().take(8) {
            if code > *hi {
                continue;
            }
            let offset = code - lo;
            return match target {
                UnicodeTarget::Base(units) => {
                    let Some((&last, head)) = units.split_last() else { return Some(CompactString::default()) };
                    let v = last as u32 + offset;
                    if v > 0xFFFF {
                        // Spills past one unit: the range spans a surrogate pair.
                        let base = String::from_utf16_lossy(units).chars().last().map_or(0, |c| c as u32);
                        return char::from_u32(base + offset)
                            .map(|c| CompactString::from(&*c.encode_utf8(&mut [0; 4])));
                    }
                    let mut out = CompactString::default();
                    for c in char::decode_utf16(head.iter().copied().chain([v as u16])) {
                        out.push(c.unwrap_or('\u{FFFD}'));
                    }
                    Some(out)
                }
                UnicodeTarget::List(list) => list.get(offset as usize).map(|s| CompactString::from(s.as_str())),
            };
        }
        None
    }

    pub fn lookup_cid(&self, code: u32) -> Option<u32> {
        let idx = self.cid_ranges.partition_point(|r| r.0 <= code);
        self.cid_ranges[..idx].iter().rev().take(8).find(|r| code <= r.1).map(|r| r.2 + (code - r.0))
    }

    /// Splits the next code off `bytes` using the codespace ranges; returns (code, length).
    pub fn next_code(&self, bytes: &[u8]) -> (u32, usize) {
        let mut code = 0u32;
        for n in 1..=bytes.len().min(4) {
            code = code << 8 | bytes[n - 1] as u32;
            if self.codespace.iter().any(|r| r.bytes as usize == n && code >= r.lo && code <= r.hi) {
                return (code, n);
            }
        }
        // No range matched: take as many bytes as the shortest range, as viewers do.
        let n = self.codespace.iter().map(|r| r.bytes as usize).min().unwrap_or(2).min(bytes.len()).max(1);
        (code_of(&bytes[..n]), n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO_UNICODE: &[u8] = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0003> <0020> <0011> <00660069> endbfchar
2 beginbfrange <0020> <0022> <0041> <0030> <0031> [<0061> <0062>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end";

    #[test]
    fn bfchar_and_bfrange_with_array() {
        let c = CMap::parse(TO_UNICODE);
        assert_eq!(c.lookup_unicode(3).as_deref(), Some(" "));
        assert_eq!(c.lookup_unicode(0x11).as_deref(), Some("fi"));
        assert_eq!(c.lookup_unicode(0x21).as_deref(), Some("B"));
        assert_eq!(c.lookup_unicode(0x22).as_deref(), Some("C"));
        assert_eq!(c.lookup_unicode(0x31).as_deref(), Some("b"));
        assert_eq!(c.lookup_unicode(0x40), None);
        assert_eq!(c.next_code(&[0x00, 0x11, 0x00]), (0x11, 2));
    }

    #[test]
    fn mixed_width_codespace_splits_codes() {
        let c = CMap::parse(
            b"2 begincodespacerange <00> <80> <8140> <FFFF> endcodespacerange
1 begincidrange <8140> <817E> 633 endcidrange /WMode 1 def",
        );
        assert_eq!(c.next_code(&[0x41, 0x81, 0x41]), (0x41, 1));
        assert_eq!(c.next_code(&[0x81, 0x41]), (0x8141, 2));
        assert_eq!(c.lookup_cid(0x8141), Some(634));
        assert_eq!(c.wmode, 1);
    }

    #[test]
    fn surrogate_pair_targets() {
        let c = CMap::parse(b"1 beginbfchar <01> <D842DFB7> endbfchar");
        assert_eq!(c.lookup_unicode(1).as_deref(), Some("\u{20BB7}"));
    }

    #[test]
    fn huge_range_is_ignored_not_expanded() {
        let c = CMap::parse(b"1 beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange");
        assert_eq!(c.lookup_unicode(5), None);
    }
}
