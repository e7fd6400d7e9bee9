//! Pictures a page renderer decodes that the content interpreter never reaches: images drawn
//! by tiling patterns, Type 3 glyphs, soft-mask groups and annotation appearances. The
//! interpreter lists the images the page's content (and its forms) draws; these are found
//! by walking the resources those other drawings use, and the inline images in their own
//! content, so that a renderer can be spared a picture too large to decode before it starts.
//! The walk also gives every JPEG 2000 image it meets, the content's own included: what such
//! an image decodes to is what its codestream declares, not its dictionary's size. And it
//! tells whether a Type 3 glyph selects a Type 3 font: a renderer draws such glyphs within
//! glyphs, and a font that draws itself never ends (hayro recursed until its stack overflowed).

use std::borrow::Cow;
use std::collections::HashSet;

use lopdf::{DecompressError, Dictionary, Document, Object, ObjectId, Stream};

use crate::document::PdfDocument;
use crate::interp::{image_mask_size, picture_size, read_inline_image};
use crate::lexer::Lexer;
use crate::objects::{get, get_array, get_dict, get_name, resolve};

/// Objects visited per page before the walk stops: a page's drawings use tens to hundreds,
/// and the cap bounds a hostile file's web of shared resources.
const MAX_OBJECTS_WALKED: usize = 10_000;

/// Decoded bytes per page scanned (for inline images, and the fonts Type 3 glyphs select) or
/// undone ahead of a JPEG 2000 codestream: these streams are bytes to a few megabytes, and
/// the cap bounds the work on a hostile file.
pub const MAX_CONTENT_BYTES_SCANNED: usize = 64 << 20;

/// Forms followed inside a Type 3 glyph for the fonts it selects: they nest a level or two,
/// and the bound ends a cycle of forms.
const MAX_GLYPH_FORM_DEPTH: usize = 8;

/// Where a picture beyond the page's content is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PicturePlace {
    Pattern,
    Type3Glyph,
    SoftMask,
    Annotation,
}

impl PicturePlace {
    /// As a phrase: "a pattern", "a Type 3 glyph", ...
    pub fn phrase(self) -> &'static str {
        match self {
            PicturePlace::Pattern => "a pattern",
            PicturePlace::Type3Glyph => "a Type 3 glyph",
            PicturePlace::SoftMask => "a soft mask",
            PicturePlace::Annotation => "an annotation's appearance",
        }
    }
}

/// An image (or an image's soft or stencil mask, with `mask`) of declared `size`, drawn from `place`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndirectPicture {
    pub place: PicturePlace,
    pub mask: bool,
    pub size: [u32; 2],
}

/// A JPEG 2000 image (or image mask) a renderer of the page would decode: its codestream
/// (filters before `JPXDecode` undone), drawn from `place` (None: the page's content).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JpxPicture<'a> {
    pub place: Option<PicturePlace>,
    pub codestream: Cow<'a, [u8]>,
}

/// The pictures to check before rendering a page (see the module comment).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PagePictures<'a> {
    /// What the page draws beyond its content, each reachable image listed once.
    pub indirect: Vec<IndirectPicture>,
    /// Every JPEG 2000 image its resources reach, whether or not the content draws it.
    pub jpx: Vec<JpxPicture<'a>>,
    /// A Type 3 glyph selects a Type 3 font (itself, or one whose glyphs may lead back).
    pub nested_type3: bool,
    /// Content to scan was left unscanned past `MAX_CONTENT_BYTES_SCANNED`.
    pub unchecked: bool,
}

/// The pictures to check before page `index` is rendered.
pub fn page_pictures(doc: &PdfDocument, index: usize) -> PagePictures<'_> {
    let Some(info) = doc.pages().get(index) else {
        return PagePictures::default();
    };
    let mut walk = Walk { doc: doc.lopdf(), seen: HashSet::new(), walked: 0, scanned: 0, found: Default::default() };
    if let Some(resources) = doc.resources(info) {
        walk.resources(resources, None);
    }
    if let Ok(Object::Dictionary(page)) = doc.lopdf().get_object(info.id) {
        for annotation in get_array(walk.doc, page, b"Annots").unwrap_or_default() {
            walk.annotation(annotation);
        }
    }
    walk.found
}

struct Walk<'a> {
    doc: &'a Document,
    /// Objects walked, and whether from beyond the content (a form the content draws may
    /// also be drawn by a pattern, whose images the interpreter does not list).
    seen: HashSet<(ObjectId, bool)>,
    walked: usize,
    /// Decoded bytes scanned or undone (see `MAX_CONTENT_BYTES_SCANNED`).
    scanned: usize,
    found: PagePictures<'a>,
}

impl<'a> Walk<'a> {
    /// The object `entry` points to, unless it was walked before or the walk is spent.
    fn visit(&mut self, entry: &'a Object, place: Option<PicturePlace>) -> Option<&'a Object> {
        self.walked += 1;
        if self.walked > MAX_OBJECTS_WALKED {
            return None;
        }
        if let Object::Reference(id) = entry
            && !self.seen.insert((*id, place.is_some()))
        {
            return None;
        }
        Some(resolve(self.doc, entry))
    }

    /// Resources used from `place` (None: by the page's content, whose own images the
    /// interpreter lists, so only what its patterns, fonts and soft masks draw is taken).
    fn resources(&mut self, resources: &'a Dictionary, place: Option<PicturePlace>) {
        let doc = self.doc;
        for (_, entry) in get_dict(doc, resources, b"XObject").map(|d| d.iter()).into_iter().flatten() {
            if let Some(Object::Stream(stream)) = self.visit(entry, place) {
                self.xobject(stream, place);
            }
        }
        for (_, entry) in get_dict(doc, resources, b"Pattern").map(|d| d.iter()).into_iter().flatten() {
            // A tiling pattern is a stream with resources of its own; a shading pattern draws no picture.
            if let Some(Object::Stream(pattern)) = self.visit(entry, place) {
                self.drawing(pattern, Some(place.unwrap_or(PicturePlace::Pattern)));
            }
        }
        for (_, entry) in get_dict(doc, resources, b"Font").map(|d| d.iter()).into_iter().flatten() {
            if let Some(Object::Dictionary(font)) = self.visit(entry, place)
                && get_name(doc, font, b"Subtype") == Some(b"Type3")
            {
                self.type3_font(font, resources, place.unwrap_or(PicturePlace::Type3Glyph));
            }
        }
        for (_, entry) in get_dict(doc, resources, b"ExtGState").map(|d| d.iter()).into_iter().flatten() {
            let Some(Object::Dictionary(state)) = self.visit(entry, place) else { continue };
            let Some(soft_mask) = get_dict(doc, state, b"SMask") else { continue };
            if let Some(Object::Stream(group)) = soft_mask.get(b"G").ok().and_then(|g| self.visit(g, place)) {
                self.drawing(group, Some(place.unwrap_or(PicturePlace::SoftMask)));
            }
        }
    }

    /// A form-like drawing (form XObject, tiling pattern, appearance): its resources and,
    /// from beyond the page's content, its inline images.
    fn drawing(&mut self, stream: &'a Stream, place: Option<PicturePlace>) {
        self.resources_of(&stream.dict, place);
        if let Some(place) = place {
            self.scan(stream, place, None, 0);
        }
    }

    /// A Type 3 font's resources, and its glyph procedures scanned with the resources they use
    /// (the font's, else those of the `outer` resources it was found in).
    fn type3_font(&mut self, font: &'a Dictionary, outer: &'a Dictionary, place: PicturePlace) {
        self.resources_of(font, Some(place));
        let resources = get_dict(self.doc, font, b"Resources").unwrap_or(outer);
        for (_, entry) in get_dict(self.doc, font, b"CharProcs").map(|d| d.iter()).into_iter().flatten() {
            if let Some(Object::Stream(glyph)) = self.visit(entry, Some(place)) {
                self.scan(glyph, place, Some(resources), 0);
            }
        }
    }

    fn resources_of(&mut self, dict: &'a Dictionary, place: Option<PicturePlace>) {
        if let Some(resources) = get_dict(self.doc, dict, b"Resources") {
            self.resources(resources, place);
        }
    }

    /// A stream's content decoded, while the budget lasts (past it, the page is `unchecked`);
    /// None also where it cannot be decoded, as a renderer cannot draw it either.
    fn decoded(&mut self, stream: &Stream) -> Option<Vec<u8>> {
        let budget = MAX_CONTENT_BYTES_SCANNED.saturating_sub(self.scanned);
        let content = if stream.dict.get(b"Filter").is_err() {
            (stream.content.len() <= budget).then(|| stream.content.clone())
        } else {
            match stream.decompressed_content_with_limit(budget) {
                Ok(content) => Some(content),
                Err(lopdf::Error::Decompress(DecompressError::MemoryLimitExceeded { .. })) => None,
                Err(_) => return None,
            }
        };
        self.found.unchecked |= content.is_none();
        self.scanned += content.as_ref().map_or(0, Vec::len);
        content
    }

    /// The inline images (`BI … ID … EI`) in a stream's content and, in a Type 3 glyph (`glyph`:
    /// the resources it uses), whether it selects a Type 3 font, through the forms it draws.
    fn scan(&mut self, stream: &Stream, place: PicturePlace, glyph: Option<&'a Dictionary>, depth: usize) {
        let Some(content) = self.decoded(stream) else { return };
        let mut lx = Lexer::new(&content);
        let mut operands = Vec::new();
        while let Some(op) = lx.next_operation(&mut operands) {
            let named = |kind: &[u8]| {
                let name = operands.iter().find_map(|o| o.as_name())?;
                let entry = get_dict(self.doc, glyph?, kind)?.get(name).ok()?;
                Some(resolve(self.doc, entry))
            };
            match op {
                b"BI" => {
                    if let Some(image) = read_inline_image(&mut lx) {
                        let size = [image.width, image.height];
                        self.found.indirect.push(IndirectPicture { place, mask: false, size });
                    }
                }
                b"Tf" => {
                    if let Some(Object::Dictionary(font)) = named(b"Font") {
                        self.found.nested_type3 |= get_name(self.doc, font, b"Subtype") == Some(b"Type3");
                    }
                }
                b"Do" if depth < MAX_GLYPH_FORM_DEPTH => {
                    if let Some(Object::Stream(form)) = named(b"XObject")
                        && get_name(self.doc, &form.dict, b"Subtype") == Some(b"Form")
                    {
                        let resources = get_dict(self.doc, &form.dict, b"Resources").or(glyph);
                        self.scan(form, place, resources, depth + 1);
                    }
                }
                _ => {}
            }
            operands.clear();
        }
    }

    fn xobject(&mut self, stream: &'a Stream, place: Option<PicturePlace>) {
        let dict = &stream.dict;
        match get_name(self.doc, dict, b"Subtype") {
            Some(b"Image") => {
                if let Some(place) = place {
                    let found = &mut self.found.indirect;
                    found.push(IndirectPicture { place, mask: false, size: picture_size(self.doc, dict) });
                    if let Some(size) = image_mask_size(self.doc, dict) {
                        found.push(IndirectPicture { place, mask: true, size });
                    }
                }
                let masks = [b"SMask".as_slice(), b"Mask"].map(|key| match get(self.doc, dict, key) {
                    Some(Object::Stream(mask)) => Some(mask),
                    _ => None,
                });
                for picture in [Some(stream)].into_iter().chain(masks).flatten() {
                    if let Some(codestream) = self.jpx_codestream(picture) {
                        self.found.jpx.push(JpxPicture { place, codestream });
                    }
                }
            }
            Some(b"Form") => self.drawing(stream, place),
            _ => {}
        }
    }

    /// A JPEG 2000 image's codestream: its data, with any filters before `JPXDecode` undone.
    fn jpx_codestream(&mut self, image: &'a Stream) -> Option<Cow<'a, [u8]>> {
        let filters = image.filters().ok()?;
        let (&last, before) = filters.split_last()?;
        if last != b"JPXDecode" {
            return None;
        }
        if before.is_empty() {
            return Some(Cow::Borrowed(&image.content));
        }
        let mut dict = image.dict.clone();
        dict.set("Filter", before.iter().map(|f| Object::Name(f.to_vec())).collect::<Vec<_>>());
        if let Ok(Object::Array(params)) = image.dict.get(b"DecodeParms") {
            dict.set("DecodeParms", params.iter().take(before.len()).cloned().collect::<Vec<_>>());
        }
        self.decoded(&Stream::new(dict, image.content.clone())).map(Cow::Owned)
    }

    /// An annotation's appearance streams: normal, rollover and down, each a form or a
    /// dictionary of forms by state.
    fn annotation(&mut self, annotation: &'a Object) {
        let place = Some(PicturePlace::Annotation);
        let Some(Object::Dictionary(annotation)) = self.visit(annotation, place) else { return };
        let Some(appearances) = get_dict(self.doc, annotation, b"AP") else { return };
        for (_, appearance) in appearances.iter() {
            match self.visit(appearance, place) {
                Some(Object::Stream(form)) => self.drawing(form, place),
                Some(Object::Dictionary(states)) => {
                    for (_, state) in states.iter() {
                        if let Some(Object::Stream(form)) = self.visit(state, place) {
                            self.drawing(form, place);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use lopdf::{Stream, dictionary};

    use super::*;
    use crate::document::Limits;

    /// A one-page PDF whose page has the resources, content and annotations `make` gives
    /// (after adding the objects they refer to).
    fn pdf(make: impl FnOnce(&mut Document) -> (Dictionary, &'static str, Vec<Object>)) -> Result<PdfDocument, String> {
        let mut doc = Document::with_version("1.7");
        let (resources, content, annots) = make(&mut doc);
        let content = doc.add_object(Stream::new(Dictionary::new(), content.as_bytes().to_vec()));
        let pages = doc.new_object_id();
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages, "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            "Contents" => content, "Resources" => resources, "Annots" => annots,
        });
        doc.objects.insert(
            pages,
            Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).map_err(|e| e.to_string())?;
        PdfDocument::open(&bytes, None, Limits::default()).map_err(|e| e.to_string())
    }

    /// An image XObject declaring `w`×`h` (its data is never read), with `extra` entries.
    fn image(doc: &mut Document, w: i64, h: i64, extra: Dictionary) -> ObjectId {
        let mut dict = dictionary! { "Type" => "XObject", "Subtype" => "Image", "Width" => w, "Height" => h,
        "BitsPerComponent" => 8, "ColorSpace" => "DeviceGray" };
        dict.extend(&extra);
        doc.add_object(Stream::new(dict, vec![0; 4]))
    }

    /// A form-like stream (form XObject, tiling pattern, appearance) drawing /Im from `resources`.
    fn drawing(doc: &mut Document, mut dict: Dictionary, resources: Dictionary) -> ObjectId {
        dict.set("Resources", resources);
        doc.add_object(Stream::new(dict, b"/Im Do".to_vec()))
    }

    /// Page resources with form `F`, `patterns`, the Type 3 font `T3` and a soft mask of `group`.
    fn resources_drawing(form: ObjectId, patterns: Dictionary, font: Dictionary, group: ObjectId) -> Dictionary {
        dictionary! {
            "XObject" => dictionary! { "F" => form },
            "Pattern" => patterns,
            "Font" => dictionary! { "T3" => font },
            "ExtGState" => dictionary! { "G" => dictionary! { "SMask" => dictionary! { "S" => "Luminosity", "G" => group } } },
        }
    }

    fn sizes(found: &[IndirectPicture]) -> Vec<(PicturePlace, bool, [u32; 2])> {
        found.iter().map(|p| (p.place, p.mask, p.size)).collect()
    }

    #[test]
    fn pictures_drawn_by_patterns_type3_glyphs_soft_masks_and_annotations_are_found() -> Result<(), String> {
        let doc = pdf(|doc| {
            let soft = image(doc, 9, 9, Dictionary::new());
            let in_pattern = image(doc, 1, 1, dictionary! { "SMask" => soft });
            let in_glyph = image(doc, 2, 2, Dictionary::new());
            let in_group = image(doc, 3, 3, Dictionary::new());
            let in_appearance = image(doc, 4, 4, Dictionary::new());
            let in_state = image(doc, 5, 5, Dictionary::new());
            let xobject = |id: ObjectId| dictionary! { "XObject" => dictionary! { "Im" => id } };
            let pattern = drawing(doc, dictionary! { "PatternType" => 1 }, xobject(in_pattern));
            // The pattern is reached twice: from the page's resources and from a form's.
            let form = drawing(
                doc,
                dictionary! { "Subtype" => "Form" },
                dictionary! { "Pattern" => dictionary! { "P" => pattern } },
            );
            let group = drawing(doc, dictionary! { "Subtype" => "Form" }, xobject(in_group));
            let glyph = doc.add_object(Stream::new(Dictionary::new(), b"0 0 d0 /Im Do".to_vec()));
            let font = dictionary! { "Type" => "Font", "Subtype" => "Type3", "CharProcs" => dictionary! { "a" => glyph },
            "Resources" => xobject(in_glyph) };
            let normal = drawing(doc, dictionary! { "Subtype" => "Form" }, xobject(in_appearance));
            let on = drawing(doc, dictionary! { "Subtype" => "Form" }, xobject(in_state));
            let annotation = doc.add_object(dictionary! { "Type" => "Annot", "Subtype" => "Widget",
            "AP" => dictionary! { "N" => normal, "D" => dictionary! { "On" => on } } });
            let patterns = dictionary! { "P" => pattern, "S" => dictionary! { "PatternType" => 2 } };
            (resources_drawing(form, patterns, font, group), "/F Do", vec![annotation.into()])
        })?;
        use PicturePlace::*;
        assert_eq!(
            sizes(&page_pictures(&doc, 0).indirect),
            [
                (Pattern, false, [1, 1]),
                (Pattern, true, [9, 9]),
                (Type3Glyph, false, [2, 2]),
                (SoftMask, false, [3, 3]),
                (Annotation, false, [4, 4]),
                (Annotation, false, [5, 5]),
            ]
        );
        Ok(())
    }

    #[test]
    fn inline_images_drawn_by_patterns_type3_glyphs_soft_masks_and_annotations_are_found() -> Result<(), String> {
        let doc = pdf(|doc| {
            let mut stream = |dict: Dictionary, content: &[u8]| doc.add_object(Stream::new(dict, content.to_vec()));
            // Filtered data is scanned for EI; unfiltered data is skipped by its size, "EI" in it included.
            let pattern = stream(dictionary! { "PatternType" => 1 }, b"q BI /W 600 /H 700 /CS /G /F /AHx ID 00 > EI Q");
            let glyph = stream(Dictionary::new(), b"0 0 d0 BI /W 3 /H 4 /IM true ID \x00EI\x00\x00 EI");
            let group = stream(
                dictionary! { "Subtype" => "Form" },
                b"BI /Width 1 /Height 2 /ColorSpace /DeviceRGB ID abcdef EI",
            );
            let appearance =
                stream(dictionary! { "Subtype" => "Form" }, b"BI /W 5 /H 6 ID 012345678901234567890123456789 EI");
            // The page's content and the forms it draws are the interpreter's to list.
            let form = stream(
                dictionary! { "Subtype" => "Form" },
                b"BI /W 7 /H 7 ID 0123456789012345678901234567890123456789012345678 EI",
            );
            let font =
                dictionary! { "Type" => "Font", "Subtype" => "Type3", "CharProcs" => dictionary! { "a" => glyph } };
            let annotation = doc.add_object(
                dictionary! { "Type" => "Annot", "Subtype" => "Stamp", "AP" => dictionary! { "N" => appearance } },
            );
            let resources = resources_drawing(form, dictionary! { "P" => pattern }, font, group);
            (resources, "/F Do BI /W 8 /H 8 /F /AHx ID 00 > EI", vec![annotation.into()])
        })?;
        use PicturePlace::*;
        assert_eq!(
            sizes(&page_pictures(&doc, 0).indirect),
            [
                (Pattern, false, [600, 700]),
                (Type3Glyph, false, [3, 4]),
                (SoftMask, false, [1, 2]),
                (Annotation, false, [5, 6]),
            ]
        );
        Ok(())
    }

    #[test]
    fn jpeg_2000_codestreams_are_given_wherever_drawn_with_the_filters_before_them_undone() -> Result<(), String> {
        let codestream = b"\xff\x4f\xff\x51 a codestream".to_vec();
        let mut zipped = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut zipped, &codestream).map_err(|e| e.to_string())?;
        let zipped = zipped.finish().map_err(|e| e.to_string())?;
        let doc = pdf(|doc| {
            let jpx = dictionary! { "Filter" => "JPXDecode" };
            let plain = image(doc, 2, 2, jpx.clone());
            let mask = doc.add_object(Stream::new(jpx.clone(), codestream.clone()));
            let masked = image(doc, 3, 3, dictionary! { "SMask" => mask });
            let chained = doc.add_object(Stream::new(
                dictionary! { "Subtype" => "Image", "Filter" => vec!["FlateDecode".into(), "JPXDecode".into()],
                "DecodeParms" => vec![Object::Null, Object::Null] },
                zipped.clone(),
            ));
            let pattern = drawing(
                doc,
                dictionary! { "PatternType" => 1 },
                dictionary! { "XObject" => dictionary! { "Im" => chained } },
            );
            if let Ok(Object::Stream(s)) = doc.get_object_mut(plain) {
                s.set_content(codestream.clone());
            }
            let resources = dictionary! { "XObject" => dictionary! { "A" => plain, "B" => masked }, "Pattern" => dictionary! { "P" => pattern } };
            (resources, "/A Do /B Do", Vec::new())
        })?;
        let found = page_pictures(&doc, 0).jpx;
        let places: Vec<_> = found.iter().map(|j| (j.place, j.codestream.as_ref() == codestream)).collect();
        assert_eq!(places, [(None, true), (None, true), (Some(PicturePlace::Pattern), true)]);
        Ok(())
    }

    #[test]
    fn type3_glyphs_selecting_type3_fonts_are_told_through_the_resources_they_use_and_their_forms() -> Result<(), String>
    {
        // The glyph shows text in the font `/T` of the resources it uses: the font's own, else
        // the page's; `in_form` puts the text in a form the glyph draws.
        let nested = |own_resources: bool, t_is_type3: bool, in_form: bool| -> Result<bool, String> {
            let doc = pdf(|doc| {
                let text = b"BT /T 1 Tf (a) Tj ET".to_vec();
                let form = doc.add_object(Stream::new(dictionary! { "Subtype" => "Form" }, text.clone()));
                let glyph = if in_form { b"0 0 d0 /Fm Do".to_vec() } else { [b"0 0 d0 ".to_vec(), text].concat() };
                let glyph = doc.add_object(Stream::new(Dictionary::new(), glyph));
                let font_id = doc.new_object_id();
                let t: Object = if t_is_type3 { font_id.into() } else { dictionary! { "Subtype" => "Type1" }.into() };
                let used = dictionary! { "Font" => dictionary! { "T" => t, "Own" => font_id }, "XObject" => dictionary! { "Fm" => form } };
                let mut font =
                    dictionary! { "Type" => "Font", "Subtype" => "Type3", "CharProcs" => dictionary! { "a" => glyph } };
                let page_resources = if own_resources {
                    font.set("Resources", used);
                    dictionary! { "Font" => dictionary! { "Own" => font_id } }
                } else {
                    used
                };
                doc.objects.insert(font_id, font.into());
                (page_resources, "BT /Own 12 Tf (a) Tj ET", Vec::new())
            })?;
            let found = page_pictures(&doc, 0);
            assert!(!found.unchecked);
            Ok(found.nested_type3)
        };
        for own_resources in [true, false] {
            for in_form in [false, true] {
                let case = format!("own resources: {own_resources}, in a form: {in_form}");
                assert!(nested(own_resources, true, in_form)?, "{case}");
                assert!(!nested(own_resources, false, in_form)?, "{case}");
            }
        }
        Ok(())
    }

    #[test]
    fn content_past_the_scan_budget_leaves_the_page_unchecked() -> Result<(), String> {
        let mut zipped = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut zipped, &vec![b' '; MAX_CONTENT_BYTES_SCANNED + 1])
            .map_err(|e| e.to_string())?;
        let zipped = zipped.finish().map_err(|e| e.to_string())?;
        let doc = pdf(|doc| {
            let pattern =
                doc.add_object(Stream::new(dictionary! { "PatternType" => 1, "Filter" => "FlateDecode" }, zipped));
            (dictionary! { "Pattern" => dictionary! { "P" => pattern } }, "", Vec::new())
        })?;
        let found = page_pictures(&doc, 0);
        assert!(found.unchecked && !found.nested_type3 && found.indirect.is_empty());
        Ok(())
    }

    #[test]
    fn images_the_content_draws_or_leaves_unused_are_not_indirect() -> Result<(), String> {
        let doc = pdf(|doc| {
            let drawn = image(doc, 7, 7, Dictionary::new());
            let unused = image(doc, 8, 8, Dictionary::new());
            let form = drawing(
                doc,
                dictionary! { "Subtype" => "Form" },
                dictionary! { "XObject" => dictionary! { "Im" => drawn } },
            );
            let resources = dictionary! { "XObject" => dictionary! { "F" => form, "U" => unused } };
            (resources, "/F Do", Vec::new())
        })?;
        assert_eq!(page_pictures(&doc, 0), PagePictures::default());
        assert_eq!(page_pictures(&doc, 1), PagePictures::default(), "no such page");
        Ok(())
    }
}
