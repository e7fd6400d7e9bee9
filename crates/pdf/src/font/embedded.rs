//! Embedded font programs, read only for what text extraction needs: built-in encodings,
//! glyph names, advances, and the program's own cmap when the PDF maps nothing to Unicode.
//! TrueType/OpenType and bare CFF go through ttf-parser; Type1 is read from its clear-text
//! header (the `/Encoding` array), which is all extraction needs of it.

use std::collections::HashMap;

use lopdf::{Dictionary, Document};
use ttf_parser::{Face, GlyphId, PlatformId, cff};

use super::encoding::glyph_name_to_unicode;
use crate::objects::{get_name, get_stream, stream_bytes};

pub enum EmbeddedFont {
    Sfnt(Vec<u8>),
    Cff(Vec<u8>),
    Type1 { encoding: Vec<Option<String>> },
}

impl EmbeddedFont {
    pub fn load(doc: &Document, descriptor: &Dictionary, limit: usize) -> Option<EmbeddedFont> {
        if let Some(s) = get_stream(doc, descriptor, b"FontFile2") {
            let data = stream_bytes(s, limit)?;
            return Face::parse(&data, 0).is_ok().then_some(EmbeddedFont::Sfnt(data));
        }
        if let Some(s) = get_stream(doc, descriptor, b"FontFile3") {
            let data = stream_bytes(s, limit)?;
            let sub = get_name(doc, &s.dict, b"Subtype").unwrap_or(b"");
            if sub == b"OpenType" || Face::parse(&data, 0).is_ok() {
                return Face::parse(&data, 0).is_ok().then_some(EmbeddedFont::Sfnt(data));
            }
            return cff::Table::parse(&data).is_some().then_some(EmbeddedFont::Cff(data));
        }
        if let Some(s) = get_stream(doc, descriptor, b"FontFile") {
            let data = stream_bytes(s, limit)?;
            return Some(EmbeddedFont::Type1 { encoding: type1_encoding(&data) });
        }
        None
    }

    fn face(&self) -> Option<Face<'_>> {
        match self {
            EmbeddedFont::Sfnt(d) => Face::parse(d, 0).ok(),
            _ => None,
        }
    }

    fn cff(&self) -> Option<cff::Table<'_>> {
        match self {
            EmbeddedFont::Cff(d) => cff::Table::parse(d),
            EmbeddedFont::Sfnt(_) => None,
            EmbeddedFont::Type1 { .. } => None,
        }
    }

    /// (ascent, descent) per unit em.
    pub fn vertical_extent(&self) -> Option<(f32, f32)> {
        let f = self.face()?;
        let upem = f.units_per_em() as f32;
        (upem > 0.0 && f.ascender() != f.descender()).then(|| (f.ascender() as f32 / upem, f.descender() as f32 / upem))
    }

    /// The glyph name the font program's own encoding gives `code`.
    pub fn builtin_glyph_name(&self, code: u8) -> Option<String> {
        match self {
            EmbeddedFont::Type1 { encoding } => encoding[code as usize].clone(),
            EmbeddedFont::Cff(_) => {
                let t = self.cff()?;
                let gid = t.glyph_index(code)?;
                (gid.0 != 0).then(|| t.glyph_name(gid).map(str::to_string)).flatten()
            }
            EmbeddedFont::Sfnt(_) => {
                let f = self.face()?;
                let gid = symbolic_gid(&f, code)?;
                f.glyph_name(gid).map(str::to_string)
            }
        }
    }

    /// Text for a glyph name the AGL does not know, through the program's cmap.
    pub fn unicode_for_name(&self, name: &str) -> Option<String> {
        let f = self.face()?;
        let gid = f.glyph_index_by_name(name)?;
        gid_to_unicode(&f).remove(&gid.0)
    }

    /// Text for a code of a symbolic TrueType font through its (3,0)/(1,0) cmap and the
    /// program's Unicode cmap.
    pub fn unicode_for_code(&self, code: u8) -> Option<String> {
        let f = self.face()?;
        let gid = symbolic_gid(&f, code)?;
        gid_to_unicode(&f).remove(&gid.0).or_else(|| f.glyph_name(gid).and_then(glyph_name_to_unicode))
    }

    /// Advance (per unit em) of the glyph `code` selects.
    pub fn advance(&self, code: u8, name: Option<&str>, symbolic: bool) -> Option<f32> {
        if let Some(f) = self.face() {
            let gid = name
                .and_then(|n| f.glyph_index_by_name(n))
                .or_else(|| if symbolic { symbolic_gid(&f, code) } else { None })
                .or_else(|| {
                    name.and_then(glyph_name_to_unicode).and_then(|t| t.chars().next()).and_then(|c| f.glyph_index(c))
                })
                .or_else(|| symbolic_gid(&f, code))?;
            let upem = f.units_per_em() as f32;
            return f.glyph_hor_advance(gid).map(|a| a as f32 / upem).filter(|_| upem > 0.0);
        }
        if let Some(t) = self.cff() {
            let gid = name.and_then(|n| t.glyph_index_by_name(n)).or_else(|| t.glyph_index(code))?;
            let scale = t.matrix().sx;
            return t.glyph_width(gid).map(|w| w as f32 * if scale > 0.0 { scale } else { 0.001 });
        }
        None
    }

    /// CID -> text for composite fonts without ToUnicode, from the program's cmap
    /// (TrueType, through CIDToGIDMap) or glyph names (CFF).
    pub fn cid_unicode_map(&self, cid_to_gid: Option<&[u16]>) -> HashMap<u32, String> {
        let mut out = HashMap::new();
        if let Some(f) = self.face() {
            let by_gid = gid_to_unicode(&f);
            match cid_to_gid {
                Some(map) => {
                    for (cid, gid) in map.iter().enumerate() {
                        if let Some(t) = by_gid.get(gid) {
                            out.insert(cid as u32, t.clone());
                        }
                    }
                }
                None => {
                    out.extend(by_gid.into_iter().map(|(g, t)| (g as u32, t)));
                }
            }
            if out.is_empty() {
                for gid in 0..f.number_of_glyphs() {
                    if let Some(t) = f.glyph_name(GlyphId(gid)).and_then(glyph_name_to_unicode) {
                        out.insert(gid as u32, t);
                    }
                }
            }
        } else if let Some(t) = self.cff() {
            for gid in 0..t.number_of_glyphs() {
                let cid = t.glyph_cid(GlyphId(gid)).map(|c| c as u32).unwrap_or(gid as u32);
                if let Some(text) = t.glyph_name(GlyphId(gid)).and_then(glyph_name_to_unicode) {
                    out.insert(cid, text);
                }
            }
        }
        out
    }
}

/// Symbolic TrueType fonts map codes through (3,0) at U+F000+code (or code), or (1,0).
fn symbolic_gid(f: &Face, code: u8) -> Option<GlyphId> {
    let cmap = f.tables().cmap?;
    let mut found = None;
    for st in cmap.subtables {
        let gid = match (st.platform_id, st.encoding_id) {
            (PlatformId::Windows, 0) => st.glyph_index(0xF000 + code as u32).or_else(|| st.glyph_index(code as u32)),
            (PlatformId::Macintosh, 0) => st.glyph_index(code as u32),
            _ => None,
        };
        if let Some(g) = gid.filter(|g| g.0 != 0) {
            found = Some(g);
            break;
        }
    }
    found
}

/// Reverse of the program's Unicode cmap (first code point per glyph wins).
fn gid_to_unicode(f: &Face) -> HashMap<u16, String> {
    let mut out = HashMap::new();
    let Some(cmap) = f.tables().cmap else {
        return out;
    };
    for st in cmap.subtables {
        if !st.is_unicode() {
            continue;
        }
        let mut cps = Vec::new();
        st.codepoints(|cp| cps.push(cp));
        cps.sort_unstable();
        for cp in cps {
            // Private-use code points are what symbolic fonts hide glyphs behind: no text.
            if (0xE000..=0xF8FF).contains(&cp) {
                continue;
            }
            if let (Some(g), Some(c)) = (st.glyph_index(cp), char::from_u32(cp)) {
                out.entry(g.0).or_insert_with(|| c.to_string());
            }
        }
    }
    out
}

/// The `/Encoding` of a Type1 program's clear-text part: `dup <code> /<name> put` entries
/// (StandardEncoding fonts have none and return all `None`).
fn type1_encoding(data: &[u8]) -> Vec<Option<String>> {
    let mut enc = vec![None; 256];
    let head_end = data.windows(5).position(|w| w == b"eexec").unwrap_or(data.len());
    let head = &data[..head_end];
    let Some(start) = head.windows(9).position(|w| w == b"/Encoding") else {
        return enc;
    };
    let text = String::from_utf8_lossy(&head[start..]);
    let mut toks = text.split_whitespace();
    while let Some(t) = toks.next() {
        if t == "dup"
            && let Some(code) = toks.next().and_then(|c| c.parse::<usize>().ok())
            && let Some(name) = toks.next().and_then(|n| n.strip_prefix('/'))
            && code < 256
        {
            enc[code] = Some(name.to_string());
        }
    }
    enc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type1_clear_text_encoding() {
        let prog = b"%!PS-AdobeFont-1.0: Test\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\ndup 65 /Alpha put\ndup 66 /beta put\nreadonly def\ncurrentfile eexec\x00\x01";
        let enc = type1_encoding(prog);
        assert_eq!(enc[65].as_deref(), Some("Alpha"));
        assert_eq!(enc[66].as_deref(), Some("beta"));
        assert_eq!(enc[67], None);
    }
}
