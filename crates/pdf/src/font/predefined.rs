//! The predefined CJK CMaps and character collections. Legacy-charset CMaps (RKSJ, EUC,
//! GBK, Big5, UHC...) are decoded to Unicode with encoding_rs from the code bytes, and the
//! Unicode CMaps (UCS2/UTF16/UTF8/UTF32) directly; CIDs then come from the collection's
//! CID <-> Unicode table (data/cid2uni, derived from Adobe's CMap resources).

use std::collections::HashMap;
use std::sync::OnceLock;

use encoding_rs::{BIG5, EUC_JP, EUC_KR, Encoding, GB18030, GBK, SHIFT_JIS, UTF_8};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Charset {
    ShiftJis,
    EucJp,
    /// ISO-2022-JP row/cell bytes (`H`/`V`): EUC-JP minus the high bits.
    Jis,
    Gbk,
    Gb18030,
    Big5,
    EucKr,
    Utf16,
    Utf8,
    Utf32,
}

pub struct CidTable {
    /// Indexed by CID; 0 = no code point.
    to_unicode: Vec<u32>,
    from_unicode: OnceLock<HashMap<u32, u32>>,
}

impl CidTable {
    fn decode(data: &[u8]) -> CidTable {
        let mut to_unicode = Vec::new();
        if data.len() >= 8 && &data[..4] == b"DSCV" {
            let count = u32::from_le_bytes([data[4], data[5], data[6], data[7]]) as usize;
            to_unicode.reserve(count);
            let (mut i, mut prev) = (8usize, 0i64);
            while to_unicode.len() < count && i < data.len() {
                let (mut v, mut shift) = (0u64, 0);
                while i < data.len() {
                    let b = data[i];
                    i += 1;
                    v |= ((b & 0x7F) as u64) << shift;
                    shift += 7;
                    if b & 0x80 == 0 || shift > 35 {
                        break;
                    }
                }
                if v == 0 {
                    to_unicode.push(0);
                    continue;
                }
                let z = v - 1;
                let d = if z & 1 == 0 { (z >> 1) as i64 } else { -(((z + 1) >> 1) as i64) };
                prev += d;
                to_unicode.push(prev.max(0) as u32);
            }
        }
        CidTable { to_unicode, from_unicode: OnceLock::new() }
    }

    pub fn unicode(&self, cid: u32) -> Option<char> {
        self.to_unicode.get(cid as usize).copied().filter(|&c| c != 0).and_then(char::from_u32)
    }

    pub fn cid(&self, c: char) -> Option<u32> {
        let map = self.from_unicode.get_or_init(|| {
            let mut m = HashMap::with_capacity(self.to_unicode.len());
            for (cid, &cp) in self.to_unicode.iter().enumerate() {
                if cp != 0 {
                    m.entry(cp).or_insert(cid as u32);
                }
            }
            m
        });
        map.get(&(c as u32)).copied()
    }
}

pub fn collection(ordering: &str) -> Option<&'static CidTable> {
    static TABLES: [OnceLock<CidTable>; 4] = [const { OnceLock::new() }; 4];
    let (i, data): (usize, &[u8]) = match ordering {
        "Japan1" | "Japan2" => (0, include_bytes!("../../data/cid2uni/Japan1.bin")),
        "GB1" => (1, include_bytes!("../../data/cid2uni/GB1.bin")),
        "CNS1" => (2, include_bytes!("../../data/cid2uni/CNS1.bin")),
        "Korea1" | "KR" => (3, include_bytes!("../../data/cid2uni/Korea1.bin")),
        _ => return None,
    };
    Some(TABLES[i].get_or_init(|| CidTable::decode(data)))
}

pub struct Predefined {
    charset: Charset,
    collection: Option<&'static CidTable>,
}

impl Predefined {
    /// A predefined CMap by name (ISO 32000-1 Table 118); None for unknown names.
    pub fn from_name(name: &str) -> Option<Predefined> {
        let stem = name.strip_suffix("-H").or_else(|| name.strip_suffix("-V")).unwrap_or(name);
        let (charset, ordering) = match stem {
            "83pv-RKSJ" | "90ms-RKSJ" | "90msp-RKSJ" | "90pv-RKSJ" | "Add-RKSJ" | "Ext-RKSJ" => {
                (Charset::ShiftJis, "Japan1")
            }
            "EUC" => (Charset::EucJp, "Japan1"),
            "H" | "V" | "Add" | "Ext" => (Charset::Jis, "Japan1"),
            "UniJIS-UCS2" | "UniJIS-UCS2-HW" | "UniJIS-UTF16" | "UniJISPro-UCS2" | "UniJIS2004-UTF16" => {
                (Charset::Utf16, "Japan1")
            }
            "UniJIS-UTF8" | "UniJISPro-UTF8" | "UniJIS2004-UTF8" => (Charset::Utf8, "Japan1"),
            "UniJIS-UTF32" | "UniJIS2004-UTF32" | "UniJISX0213-UTF32" | "UniJISX02132004-UTF32" => {
                (Charset::Utf32, "Japan1")
            }
            "GB-EUC" | "GBpc-EUC" | "GBK-EUC" | "GBKp-EUC" | "GBT-EUC" | "GBTpc-EUC" => (Charset::Gbk, "GB1"),
            "GBK2K" => (Charset::Gb18030, "GB1"),
            "UniGB-UCS2" | "UniGB-UTF16" => (Charset::Utf16, "GB1"),
            "UniGB-UTF8" => (Charset::Utf8, "GB1"),
            "UniGB-UTF32" => (Charset::Utf32, "GB1"),
            "B5" | "B5pc" | "HKscs-B5" | "ETen-B5" | "ETenms-B5" | "HKdla-B5" | "HKdlb-B5" | "HKgccs-B5"
            | "HKm314-B5" | "HKm471-B5" => (Charset::Big5, "CNS1"),
            "UniCNS-UCS2" | "UniCNS-UTF16" => (Charset::Utf16, "CNS1"),
            "UniCNS-UTF8" => (Charset::Utf8, "CNS1"),
            "UniCNS-UTF32" => (Charset::Utf32, "CNS1"),
            "KSC-EUC" | "KSCpc-EUC" | "KSCms-UHC" | "KSCms-UHC-HW" | "KSC-Johab" => (Charset::EucKr, "Korea1"),
            "UniKS-UCS2" | "UniKS-UTF16" => (Charset::Utf16, "Korea1"),
            "UniKS-UTF8" => (Charset::Utf8, "Korea1"),
            "UniKS-UTF32" => (Charset::Utf32, "Korea1"),
            _ => return None,
        };
        Some(Predefined { charset, collection: collection(ordering) })
    }

    pub fn decodes_to_unicode(&self) -> bool {
        true
    }

    /// Byte length of the next code, from the charset's lead-byte rules.
    pub fn next_code(&self, b: &[u8]) -> (u32, usize) {
        let lead = b[0];
        let n = match self.charset {
            Charset::ShiftJis => match lead {
                0x81..=0x9F | 0xE0..=0xFC => 2,
                _ => 1,
            },
            Charset::EucJp => match lead {
                0x8F => 3,
                0x8E | 0xA1..=0xFE => 2,
                _ => 1,
            },
            Charset::Jis | Charset::Utf16 => {
                if self.charset == Charset::Utf16 && (0xD8..=0xDB).contains(&lead) && b.len() >= 4 { 4 } else { 2 }
            }
            Charset::Gb18030 if b.len() >= 4 && (0x30..=0x39).contains(&b[1]) && (0x81..=0xFE).contains(&lead) => 4,
            Charset::Gbk | Charset::Gb18030 | Charset::Big5 | Charset::EucKr => match lead {
                0x81..=0xFE => 2,
                _ => 1,
            },
            Charset::Utf8 => match lead {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            },
            Charset::Utf32 => 4,
        };
        let n = n.min(b.len());
        (b[..n].iter().fold(0u32, |a, &x| a << 8 | x as u32), n)
    }

    pub fn decode(&self, code: &[u8]) -> Option<String> {
        let enc: &'static Encoding = match self.charset {
            Charset::ShiftJis => SHIFT_JIS,
            Charset::EucJp => EUC_JP,
            Charset::Jis => {
                let shifted: Vec<u8> = code.iter().map(|b| b | 0x80).collect();
                return decode_strict(EUC_JP, &shifted);
            }
            Charset::Gbk => GBK,
            Charset::Gb18030 => GB18030,
            Charset::Big5 => BIG5,
            Charset::EucKr => EUC_KR,
            Charset::Utf16 => {
                let units: Vec<u16> = code.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
                return String::from_utf16(&units).ok();
            }
            Charset::Utf8 => UTF_8,
            Charset::Utf32 => {
                let v = code.iter().fold(0u32, |a, &x| a << 8 | x as u32);
                return char::from_u32(v).map(String::from);
            }
        };
        decode_strict(enc, code)
    }

    pub fn cid(&self, code: &[u8]) -> Option<u32> {
        let text = self.decode(code)?;
        let c = text.chars().next()?;
        self.collection?.cid(c)
    }
}

fn decode_strict(enc: &'static Encoding, bytes: &[u8]) -> Option<String> {
    enc.decode_without_bom_handling_and_without_replacement(bytes).map(|c| c.into_owned()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn japan1_table_round_trips() {
        let t = collection("Japan1").unwrap();
        // CID 34 is 'A' in Adobe-Japan1 (proportional Latin starts at CID 1 = space).
        assert_eq!(t.unicode(34), Some('A'));
        let cid = t.cid('日').unwrap();
        assert_eq!(t.unicode(cid), Some('日'));
    }

    #[test]
    fn shift_jis_cmap_decodes_and_finds_cid() {
        let p = Predefined::from_name("90ms-RKSJ-H").unwrap();
        let bytes = [0x93, 0xFA, 0x41];
        assert_eq!(p.next_code(&bytes), (0x93FA, 2));
        assert_eq!(p.decode(&bytes[..2]).as_deref(), Some("日"));
        assert!(p.cid(&bytes[..2]).is_some());
        assert_eq!(p.next_code(&bytes[2..]), (0x41, 1));
    }

    #[test]
    fn ucs2_cmap_handles_surrogates() {
        let p = Predefined::from_name("UniJIS-UTF16-H").unwrap();
        let bytes = [0xD8, 0x42, 0xDF, 0xB7];
        assert_eq!(p.next_code(&bytes).1, 4);
        assert_eq!(p.decode(&bytes).as_deref(), Some("\u{20BB7}"));
    }

    #[test]
    fn all_collections_load() {
        for o in ["Japan1", "GB1", "CNS1", "Korea1"] {
            assert!(collection(o).unwrap().to_unicode.len() > 15000, "{o}");
        }
    }
}
