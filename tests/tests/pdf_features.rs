//! Feature tests on PDFs the tests build: each font and encoding path, text state,
//! geometry (CTM stacks, rotation), forms, inline images, encryption and broken input.

use std::sync::atomic::AtomicBool;

use docsift::{Document, ErrorKind, Options, model::Direction};
use docsift_tests::build::{Builder, helvetica};
use lopdf::{Dictionary, Object, dictionary};

fn run(bytes: &[u8]) -> Document {
    run_with(bytes, &Options::default()).expect("extracts")
}

fn run_with(bytes: &[u8], opts: &Options) -> Result<Document, docsift::Error> {
    docsift::extract(bytes, opts, &|_| {}, &AtomicBool::new(false))
}

fn one_page(resources: Dictionary, content: &str) -> Document {
    let mut b = Builder::new();
    b.page(resources, content, Dictionary::new());
    run(&b.finish())
}

fn fonts(f1: Dictionary) -> Dictionary {
    dictionary! { "Font" => dictionary! { "F1" => f1 } }
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 0.01
}

#[test]
fn standard14_glyph_boxes_follow_pdfplumber() {
    let doc = one_page(helvetica(), "BT /F1 10 Tf 100 700 Td (AV) Tj ET");
    let p = &doc.pages[0];
    assert_eq!(p.text, "AV");
    let a = &p.chars[0];
    // Helvetica A: 667/1000 em wide; box height = font size, bottom at the descent (-207).
    assert!(close(a.bbox.x0, 100.0) && close(a.bbox.x1, 106.67), "{:?}", a.bbox);
    assert!(close(a.bbox.bottom, 792.0 - 700.0 + 2.07) && close(a.bbox.height(), 10.0), "{:?}", a.bbox);
    assert!(close(p.chars[1].bbox.x0, 106.67));
    assert_eq!(&*a.font, "Helvetica");
    assert!(a.upright);
}

#[test]
fn base_encodings_and_differences() {
    let enc = |base: &str| {
        fonts(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Times-Roman",
        "Encoding" => dictionary! { "BaseEncoding" => base, "Differences" => vec![66.into(), "Euro".into(), "fi".into()] } })
    };
    let win = one_page(enc("WinAnsiEncoding"), "BT /F1 12 Tf 72 700 Td (ABC\\200\\222) Tj ET");
    assert_eq!(win.pages[0].text, "A€fi€’");
    let mac = one_page(enc("MacRomanEncoding"), "BT /F1 12 Tf 72 700 Td (\\200\\216) Tj ET");
    assert_eq!(mac.pages[0].text, "Äé");
    let std = one_page(
        fonts(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Times-Roman" }),
        "BT /F1 12 Tf 72 700 Td (It\\047s) Tj ET",
    );
    assert_eq!(std.pages[0].text, "It’s");
    let sym = one_page(
        fonts(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Symbol" }),
        "BT /F1 12 Tf 72 700 Td (abg) Tj ET",
    );
    assert_eq!(sym.pages[0].text, "αβγ");
}

#[test]
fn glyph_names_outside_the_agl_fall_back_to_uni_names_and_ligatures_expand() {
    let f = fonts(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Custom",
    "FirstChar" => 1, "Widths" => vec![500.into(), 500.into(), 500.into()],
    "Encoding" => dictionary! { "Differences" => vec![1.into(), "uni0416".into(), "f_f_i".into(), "u1F600".into()] } });
    let doc = one_page(f, "BT /F1 12 Tf 72 700 Td (\\001\\002\\003) Tj ET");
    assert_eq!(doc.pages[0].text, "Жffi😀");
}

fn to_unicode_font(b: &mut Builder, cmap: &str) -> Dictionary {
    let tu = b.stream(Dictionary::new(), cmap.as_bytes());
    fonts(dictionary! { "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "Custom", "Encoding" => "Identity-H",
    "DescendantFonts" => vec![Object::Dictionary(dictionary! { "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "Custom",
        "CIDSystemInfo" => dictionary! { "Registry" => Object::string_literal("Adobe"), "Ordering" => Object::string_literal("Identity"), "Supplement" => 0 },
        "W" => vec![1.into(), vec![600.into(), 700.into()].into(), 10.into(), 20.into(), 400.into()], "DW" => 1000 })],
    "ToUnicode" => tu })
}

#[test]
fn tounicode_bfchar_bfrange_arrays_and_surrogates() {
    let mut b = Builder::new();
    let res = to_unicode_font(
        &mut b,
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0001> <0048> <0002> <D83DDE00> endbfchar
2 beginbfrange <000A> <000C> <0061> <0014> <0015> [<0078> <00660069>] endbfrange endcmap end end",
    );
    b.page(res, "BT /F1 10 Tf 72 700 Td <0001000A000B000C00140015 0002> Tj ET", Dictionary::new());
    let doc = run(&b.finish());
    let p = &doc.pages[0];
    assert_eq!(p.text, "Habcxfi😀");
    // W array: CID 1 is 600 wide, CIDs 10-20 are 400, CID 2 is 700.
    assert!(close(p.chars[0].bbox.width(), 6.0) && close(p.chars[1].bbox.width(), 4.0), "{:?}", p.chars[0].bbox);
    assert!(close(p.chars.last().unwrap().bbox.width(), 7.0));
    assert_eq!(p.trust.score, 1.0);
}

#[test]
fn cid_font_without_unicode_mapping_lowers_the_trust_score() {
    let f = fonts(
        dictionary! { "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "Opaque", "Encoding" => "Identity-H",
        "DescendantFonts" => vec![Object::Dictionary(dictionary! { "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "Opaque",
            "CIDSystemInfo" => dictionary! { "Registry" => Object::string_literal("Adobe"), "Ordering" => Object::string_literal("Identity"), "Supplement" => 0 } })] },
    );
    let doc = one_page(f, "BT /F1 10 Tf 72 700 Td <00410042> Tj ET");
    let t = doc.pages[0].trust;
    assert_eq!((t.glyphs, t.unmapped), (2, 2));
    assert_eq!(t.score, 0.0);
}

#[test]
fn predefined_cjk_cmap_and_collection_table() {
    // 90ms-RKSJ-H: Shift-JIS bytes; Adobe-Japan1 Identity-H: CIDs through the collection table.
    let sjis = fonts(
        dictionary! { "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "MS-Mincho", "Encoding" => "90ms-RKSJ-H",
        "DescendantFonts" => vec![Object::Dictionary(dictionary! { "Type" => "Font", "Subtype" => "CIDFontType0", "BaseFont" => "MS-Mincho",
            "CIDSystemInfo" => dictionary! { "Registry" => Object::string_literal("Adobe"), "Ordering" => Object::string_literal("Japan1"), "Supplement" => 2 } })] },
    );
    let doc = one_page(sjis, "BT /F1 12 Tf 72 700 Td <93FA967B8CEA41> Tj ET");
    assert_eq!(doc.pages[0].text, "日本語A");
    let ident = fonts(
        dictionary! { "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "KozMin", "Encoding" => "Identity-H",
        "DescendantFonts" => vec![Object::Dictionary(dictionary! { "Type" => "Font", "Subtype" => "CIDFontType0", "BaseFont" => "KozMin",
            "CIDSystemInfo" => dictionary! { "Registry" => Object::string_literal("Adobe"), "Ordering" => Object::string_literal("Japan1"), "Supplement" => 6 } })] },
    );
    // CID 34 = 'A', 35 = 'B' in Adobe-Japan1.
    let doc = one_page(ident, "BT /F1 12 Tf 72 700 Td <00220023> Tj ET");
    assert_eq!(doc.pages[0].text, "AB");
}

#[test]
fn vertical_writing_reads_top_to_bottom_and_columns_right_to_left() {
    let mut b = Builder::new();
    let mut res = to_unicode_font(
        &mut b,
        "1 begincodespacerange <0000> <FFFF> endcodespacerange 4 beginbfchar <0001> <4E00> <0002> <4E8C> <0003> <4E09> <0004> <56DB> endbfchar",
    );
    if let Ok(Object::Dictionary(fs)) = res.get_mut(b"Font")
        && let Ok(Object::Dictionary(f1)) = fs.get_mut(b"F1")
    {
        f1.set("Encoding", "Identity-V");
    }
    b.page(res, "BT /F1 20 Tf 300 700 Td <00010002> Tj ET BT /F1 20 Tf 270 700 Td <00030004> Tj ET", Dictionary::new());
    let doc = run(&b.finish());
    let p = &doc.pages[0];
    assert_eq!(p.text, "一二\n三四");
    assert_eq!(p.words[0].direction, Direction::Ttb);
    // Second glyph is below the first by the default vertical advance (1 em).
    assert!(close(p.chars[1].bbox.top - p.chars[0].bbox.top, 20.0), "{:?} {:?}", p.chars[0].bbox, p.chars[1].bbox);
}

#[test]
fn type3_font_uses_its_font_matrix_and_names() {
    let mut b = Builder::new();
    let a = b.stream(Dictionary::new(), b"50 0 d0 0 0 50 50 re f");
    let bb = b.stream(Dictionary::new(), b"60 0 d0 0 0 60 60 re f");
    let f = fonts(
        dictionary! { "Type" => "Font", "Subtype" => "Type3", "FontBBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
        "FontMatrix" => vec![0.01.into(), 0.into(), 0.into(), 0.01.into(), 0.into(), 0.into()],
        "CharProcs" => dictionary! { "a" => a, "b" => bb }, "FirstChar" => 1, "LastChar" => 2, "Widths" => vec![50.into(), 60.into()],
        "Encoding" => dictionary! { "Type" => "Encoding", "Differences" => vec![1.into(), "a".into(), "b".into()] } },
    );
    b.page(f, "BT /F1 10 Tf 72 700 Td <0102> Tj ET", Dictionary::new());
    let doc = run(&b.finish());
    let p = &doc.pages[0];
    assert_eq!(p.text, "ab");
    // Widths in glyph space × FontMatrix: 50 × 0.01 = 0.5 em.
    assert!(close(p.chars[0].bbox.width(), 5.0) && close(p.chars[1].bbox.x0, 77.0), "{:?}", p.chars);
}

#[test]
fn text_state_operators_and_tj_kerning() {
    let doc = one_page(
        helvetica(),
        "BT /F1 10 Tf 14 TL 72 700 Td [(W) 120 (orld) -400 (Next)] TJ T* (Line2) Tj 2 Tc 0 Tw (AB) ' 3 2 (CD) \" 200 Tz 5 Ts 0 -20 TD (E) Tj ET",
    );
    let p = &doc.pages[0];
    assert_eq!(p.text, "World Next\nLine2\nA B\nC D\nE");
    let e = p.chars.iter().find(|c| c.text == "E").unwrap();
    // Tz 200 doubles the width; TD moved down 20 and set the leading; Ts 5 raises the box.
    assert!(close(e.bbox.width(), 2.0 * 6.67), "{:?}", e.bbox);
}

#[test]
fn nested_graphics_state_and_cm() {
    let doc = one_page(
        helvetica(),
        "q 2 0 0 2 0 0 cm q 1 0 0 1 10 10 cm BT /F1 5 Tf 0 0 Td (A) Tj ET Q BT /F1 5 Tf 100 0 Td (B) Tj ET Q BT /F1 10 Tf 400 0 Td (C) Tj ET",
    );
    let c = &doc.pages[0].chars;
    // A: (10,10) scaled by 2 -> x=20; size 5 scaled -> 10.
    assert!(close(c[0].bbox.x0, 20.0) && close(c[0].size, 10.0), "{:?}", c[0]);
    assert!(close(c[1].bbox.x0, 200.0));
    assert!(close(c[2].bbox.x0, 400.0) && close(c[2].size, 10.0));
}

#[test]
fn rotated_page_swaps_size_and_turns_its_text() {
    let mut b = Builder::new();
    b.page(helvetica(), "BT /F1 10 Tf 72 700 Td (Hello) Tj ET", dictionary! { "Rotate" => 90 });
    let doc = run(&b.finish());
    let p = &doc.pages[0];
    assert_eq!((p.width, p.height, p.rotation), (792.0, 612.0, 90));
    assert_eq!(p.text, "Hello");
    // Unrotated (72, 700) displays at x = 700 - descent.., y = 72 (top of the text going down).
    let h = &p.chars[0];
    assert_eq!(h.direction, Direction::Ttb);
    assert!(close(h.bbox.top, 72.0), "{:?}", h.bbox);
}

#[test]
fn rotated_text_reads_in_its_direction() {
    // Text rotated 90° counter-clockwise: reads bottom to top.
    let doc = one_page(
        helvetica(),
        "BT /F1 10 Tf 0 1 -1 0 300 100 Tm (Up) Tj ET BT /F1 10 Tf 0 -1 1 0 100 700 Tm (Down) Tj ET",
    );
    let p = &doc.pages[0];
    let up = p.words.iter().find(|w| w.text == "Up").expect("Up read in order");
    assert_eq!(up.direction, Direction::Btt);
    let down = p.words.iter().find(|w| w.text == "Down").expect("Down read in order");
    assert_eq!(down.direction, Direction::Ttb);
    assert!(!up.upright && !down.upright);
}

#[test]
fn form_xobjects_draw_with_their_matrix_and_resources_and_cycles_are_cut() {
    let mut b = Builder::new();
    let form = b.stream(
        dictionary! { "Type" => "XObject", "Subtype" => "Form", "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
            "Matrix" => vec![1.into(), 0.into(), 0.into(), 1.into(), 50.into(), 0.into()], "Resources" => helvetica() },
        b"BT /F1 10 Tf 0 0 Td (Form) Tj ET /Me Do",
    );
    // The form draws itself: the recursion must stop with a warning.
    if let Ok(Object::Stream(s)) = b.doc.get_object_mut(form) {
        s.dict.set("Resources", dictionary! { "Font" => helvetica().get(b"Font").unwrap().clone(), "XObject" => dictionary! { "Me" => form } });
    }
    b.page(dictionary! { "XObject" => dictionary! { "Fm" => form } }, "q 1 0 0 1 0 600 cm /Fm Do Q", Dictionary::new());
    let doc = run(&b.finish());
    let p = &doc.pages[0];
    assert!(p.text.starts_with("Form"), "{:?}", p.text);
    assert!(close(p.chars[0].bbox.x0, 50.0));
    assert!(
        p.warnings.iter().any(|w| w.message.contains("draws itself") || w.message.contains("nested")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn inline_images_are_skipped_and_placed() {
    let doc = one_page(
        helvetica(),
        "q 20 0 0 10 72 600 cm BI /W 4 /H 2 /BPC 8 /CS /G ID \x00EI\x01\x02\x03\x04\x05\x06\x07 EI Q BT /F1 10 Tf 72 700 Td (After) Tj ET",
    );
    let p = &doc.pages[0];
    assert_eq!(p.text, "After");
    assert_eq!(p.images.len(), 1);
    assert_eq!((p.images[0].width, p.images[0].height), (4, 2));
    assert!(close(p.images[0].bbox.x0, 72.0) && close(p.images[0].bbox.width(), 20.0));
}

#[test]
fn image_xobjects_report_the_size_of_their_soft_or_stencil_mask() {
    let mut b = Builder::new();
    let image = |b: &mut Builder, w: i64, h: i64, extra: Dictionary| {
        let mut dict = dictionary! { "Type" => "XObject", "Subtype" => "Image", "Width" => w, "Height" => h,
        "BitsPerComponent" => 8, "ColorSpace" => "DeviceGray" };
        dict.extend(&extra);
        b.stream(dict, &vec![0u8; (w * h) as usize])
    };
    let soft = image(&mut b, 6, 5, Dictionary::new());
    let stencil = image(&mut b, 3, 2, dictionary! { "ImageMask" => true });
    let with_soft = image(&mut b, 2, 2, dictionary! { "SMask" => soft });
    let with_stencil = image(&mut b, 2, 2, dictionary! { "Mask" => stencil });
    // A /Mask array is a colour key: no picture of its own.
    let keyed = image(&mut b, 2, 2, dictionary! { "Mask" => vec![0.into(), 10.into()] });
    let xobjects = dictionary! { "A" => with_soft, "B" => with_stencil, "C" => keyed };
    b.page(dictionary! { "XObject" => xobjects }, "q 10 0 0 10 0 0 cm /A Do /B Do /C Do Q", Dictionary::new());
    let doc = run(&b.finish());
    let masks: Vec<_> = doc.pages[0].images.iter().map(|i| ((i.width, i.height), i.mask)).collect();
    assert_eq!(masks, [((2, 2), Some([6, 5])), ((2, 2), Some([3, 2])), ((2, 2), None)]);
}

#[test]
fn a_page_whose_annotation_draws_an_image_too_large_to_decode_is_not_rendered_for_ocr() {
    // The image as an XObject, and inline in the appearance's content.
    for inline in [false, true] {
        let mut b = Builder::new();
        let huge = dictionary! { "Type" => "XObject", "Subtype" => "Image", "Width" => 40_000, "Height" => 40_000,
        "BitsPerComponent" => 8, "ColorSpace" => "DeviceGray" };
        let huge = b.stream(huge, &[0; 16]);
        let mut appearance =
            dictionary! { "Subtype" => "Form", "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()] };
        let draw: &[u8] = if inline {
            b"BI /W 40000 /H 40000 /CS /G /BPC 8 /F /AHx ID 00 > EI"
        } else {
            appearance.set("Resources", dictionary! { "XObject" => dictionary! { "Im" => huge } });
            b"/Im Do"
        };
        let appearance = b.stream(appearance, &[b"100 0 0 100 0 0 cm ", draw].concat());
        let annotation = b.add(dictionary! { "Type" => "Annot", "Subtype" => "Stamp",
        "Rect" => vec![0.into(), 0.into(), 100.into(), 100.into()], "AP" => dictionary! { "N" => appearance } });
        b.page(helvetica(), "BT /F1 10 Tf 72 700 Td (Kept) Tj ET", dictionary! { "Annots" => vec![annotation.into()] });
        assert_eq!(
            warnings_of_forced_ocr(&b.finish(), "Kept"),
            [
                "the page could not be rendered for OCR: its 40000×40000 image in an annotation's appearance is too large to decode"
            ],
            "inline: {inline}"
        );
    }
}

/// The warnings of a one-page PDF's page extracted with `ocr: Force` and models that fail if
/// loaded (a picture check comes before them), its text checked to be `kept`.
fn warnings_of_forced_ocr(pdf: &[u8], kept: &str) -> Vec<String> {
    let models = docsift::OcrModels::lazy(|| Err(docsift::Error::new(ErrorKind::Model, "not loaded before the check")));
    let opts =
        Options { ocr: docsift::OcrMode::Force, ocr_models: Some(std::sync::Arc::new(models)), ..Options::default() };
    let doc = run_with(pdf, &opts).expect("extracts");
    assert_eq!(doc.pages[0].text, kept);
    doc.pages[0].warnings.iter().map(|w| w.message.clone()).collect()
}

#[test]
fn a_page_whose_jpeg_2000_image_declares_a_million_tiles_is_not_rendered_for_ocr() {
    // The dictionary says 96×64; the codestream's SIZ says 96×64,000,000 in tiles of 96×64.
    let fields = [96u32, 64_000_000, 0, 0, 96, 64, 0, 0].map(u32::to_be_bytes).concat();
    let codestream = [&b"\xff\x4f\xff\x51\0\x2f\0\0"[..], &fields, b"\0\x01\x07\x01\x01\xff\xd9"].concat();
    let mut b = Builder::new();
    let image = dictionary! { "Type" => "XObject", "Subtype" => "Image", "Width" => 96, "Height" => 64,
    "BitsPerComponent" => 8, "ColorSpace" => "DeviceGray", "Filter" => "JPXDecode" };
    let image = b.stream(image, &codestream);
    let mut resources = helvetica();
    resources.set("XObject", dictionary! { "Im" => image });
    b.page(resources, "q 96 0 0 64 72 500 cm /Im Do Q BT /F1 10 Tf 72 700 Td (Kept) Tj ET", Dictionary::new());
    assert_eq!(
        warnings_of_forced_ocr(&b.finish(), "Kept"),
        ["the page could not be rendered for OCR: its JPEG 2000 image of 1000000 tiles is too large to decode"]
    );
}

#[test]
fn paths_give_segments_and_rects_in_page_space() {
    let doc = one_page(
        Dictionary::new(),
        "q 1 0 0 1 10 0 cm 100 100 200 50 re S 50 700 m 150 700 l S 0 0 m 10 10 l 20 0 l h f Q",
    );
    let p = &doc.pages[0];
    assert_eq!(p.rects.len(), 1);
    let r = p.rects[0].bbox;
    assert!(
        close(r.x0, 110.0) && close(r.top, 792.0 - 150.0) && close(r.x1, 310.0) && close(r.bottom, 792.0 - 100.0),
        "{r:?}"
    );
    assert!(p.segments.iter().any(|s| close(s.x0, 60.0) && close(s.x1, 160.0) && close(s.y0, 92.0)));
}

#[test]
fn rc4_encrypted_file_needs_its_password() {
    let mut b = Builder::new();
    b.page(helvetica(), "BT /F1 10 Tf 72 700 Td (Secret) Tj ET", Dictionary::new());
    let mut plain = lopdf::Document::load_mem(&b.finish()).unwrap();
    let id = Object::String(b"0123456789abcdef".to_vec(), lopdf::StringFormat::Hexadecimal);
    plain.trailer.set("ID", vec![id.clone(), id]);
    let version = lopdf::EncryptionVersion::V2 {
        document: &plain,
        owner_password: "owner",
        user_password: "user",
        key_length: 128,
        permissions: lopdf::Permissions::all(),
    };
    let state = lopdf::EncryptionState::try_from(version).unwrap();
    plain.encrypt(&state).unwrap();
    let mut bytes = Vec::new();
    plain.save_to(&mut bytes).unwrap();
    let e = run_with(&bytes, &Options::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Encrypted { needs_password: true });
    assert_eq!(e.code(), "password_required");
    let wrong = run_with(&bytes, &Options { password: Some("nope".into()), ..Options::default() }).unwrap_err();
    assert!(wrong.message.contains("wrong"));
    let doc = run_with(&bytes, &Options { password: Some("user".into()), ..Options::default() }).unwrap();
    assert_eq!(doc.pages[0].text, "Secret");
    assert!(doc.meta.encrypted);
}

#[test]
fn a_broken_page_warns_and_the_others_survive() {
    let mut b = Builder::new();
    b.page(helvetica(), "BT /F1 10 Tf 72 700 Td (One) Tj ET", Dictionary::new());
    b.page(helvetica(), "BT /Missing 10 Tf 72 700 Td (lost) Tj ET [[[[ (( <<", Dictionary::new());
    b.page(helvetica(), "BT /F1 10 Tf 72 700 Td (Three) Tj ET", Dictionary::new());
    let doc = run(&b.finish());
    assert_eq!(doc.pages.len(), 3);
    assert_eq!(doc.pages[0].text, "One");
    assert!(!doc.pages[1].warnings.is_empty());
    assert_eq!(doc.pages[2].text, "Three");
}

#[test]
fn page_tree_cycles_and_depth_are_typed() {
    // A Pages node listing itself as a kid besides a real page.
    let mut b = Builder::new();
    let pages = b.doc.new_object_id();
    let content = b.stream(Dictionary::new(), b"BT /F1 10 Tf 72 700 Td (Kept) Tj ET");
    let page = b
        .add(dictionary! { "Type" => "Page", "Parent" => pages, "Contents" => content, "Resources" => helvetica(),
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()] });
    b.doc.objects.insert(
        pages,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => vec![page.into(), pages.into()], "Count" => 2 }),
    );
    let root = b.add(dictionary! { "Type" => "Catalog", "Pages" => pages });
    b.doc.trailer.set("Root", root);
    let doc = run(&b.finish_document());
    assert_eq!(doc.pages.len(), 1);
    assert_eq!(doc.pages[0].text, "Kept");
    assert!(doc.warnings.iter().any(|w| w.message.contains("twice")));

    // 200 nested Pages nodes: rejected as a limit, not a stack overflow.
    let mut b = Builder::new();
    let content = b.stream(Dictionary::new(), b"");
    let mut child = b.add(dictionary! { "Type" => "Page", "Contents" => content });
    for _ in 0..200 {
        child = b.add(dictionary! { "Type" => "Pages", "Kids" => vec![child.into()], "Count" => 1 });
    }
    let root = b.add(dictionary! { "Type" => "Catalog", "Pages" => child });
    b.doc.trailer.set("Root", root);
    let e = run_with(&b.finish_document(), &Options::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
}

#[test]
fn garbage_input_gives_typed_errors() {
    for bytes in [
        &b""[..],
        b"%PDF-1.7\n",
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF",
        b"\x00\x01\x02 garbage",
    ] {
        let e = run_with(bytes, &Options::default()).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Malformed | ErrorKind::Unsupported), "{e:?}");
    }
}

#[test]
fn page_selection_and_progress() {
    let mut b = Builder::new();
    for t in ["P1", "P2", "P3"] {
        b.page(helvetica(), &format!("BT /F1 10 Tf 72 700 Td ({t}) Tj ET"), Dictionary::new());
    }
    let bytes = b.finish();
    let seen = std::sync::Mutex::new(Vec::new());
    let opts = Options { pages: Some(vec![3, 1]), ..Options::default() };
    let doc =
        docsift::extract(&bytes, &opts, &|p| seen.lock().unwrap().push(p.total), &AtomicBool::new(false)).unwrap();
    assert_eq!(doc.pages.iter().map(|p| p.number).collect::<Vec<_>>(), vec![3, 1]);
    assert_eq!(doc.pages[0].text, "P3");
    assert_eq!(seen.lock().unwrap().len(), 2);
    let cancelled = docsift::extract(&bytes, &Options::default(), &|_| {}, &AtomicBool::new(true)).unwrap_err();
    assert_eq!(cancelled.kind, ErrorKind::Cancelled);
    let bad = run_with(&bytes, &Options { pages: Some(vec![4]), ..Options::default() }).unwrap_err();
    assert!(bad.message.contains("does not exist"));
}

#[test]
fn stream_object_is_reused_for_identical_fonts() {
    // Two pages share one font object: loaded once, same output.
    let mut b = Builder::new();
    let font = b.add(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier" });
    for _ in 0..2 {
        b.page(
            dictionary! { "Font" => dictionary! { "F1" => font } },
            "BT /F1 10 Tf 72 700 Td (Same) Tj ET",
            Dictionary::new(),
        );
    }
    let doc = run(&b.finish());
    assert_eq!(doc.pages[0].chars[0].bbox, doc.pages[1].chars[0].bbox);
    assert!(close(doc.pages[0].chars[0].bbox.width(), 6.0));
}

#[test]
fn a_page_whose_type3_glyph_draws_itself_is_not_rendered_for_ocr() {
    // The glyph shows itself through the page's resources (the font has none of its own): a
    // renderer following it recursed until its stack overflowed, which aborts the process.
    let mut b = Builder::new();
    let glyph = b.stream(Dictionary::new(), b"10 0 0 0 10 10 d1 BT /T3 1 Tf (a) Tj ET 0 0 10 10 re f");
    let font = b.add(dictionary! { "Type" => "Font", "Subtype" => "Type3",
    "FontBBox" => vec![0.into(), 0.into(), 10.into(), 10.into()],
    "FontMatrix" => vec![0.1.into(), 0.into(), 0.into(), 0.1.into(), 0.into(), 0.into()],
    "CharProcs" => dictionary! { "a" => glyph }, "Encoding" => dictionary! { "Differences" => vec![97.into(), "a".into()] },
    "FirstChar" => 97, "LastChar" => 97, "Widths" => vec![10.into()] });
    let mut resources = helvetica();
    if let Ok(fonts) = resources.get_mut(b"Font").and_then(Object::as_dict_mut) {
        fonts.set("T3", font);
    }
    b.page(resources, "BT /F1 10 Tf 72 700 Td (Kept) Tj /T3 12 Tf 100 0 Td (a) Tj ET", Dictionary::new());
    assert_eq!(
        warnings_of_forced_ocr(&b.finish(), "a\nKept"),
        [
            "the page could not be rendered for OCR: its Type 3 glyphs draw Type 3 glyphs, which a renderer may follow without end"
        ]
    );
}

/// hayro cannot be stopped, and a malformed JBIG2 symbol dictionary kept it decoding for
/// minutes: a page's render is given up after its time. Here a page of 40,000 squares at
/// 300 dpi, given a millisecond, is given up with a reason; given `MAX_RENDER_TIME`, it renders.
#[test]
fn a_render_past_its_time_is_given_up_with_a_reason_and_the_caller_goes_on() {
    let squares: String =
        (0..40_000).map(|i| format!("{} {} 2 2 re f\n", 36 + (i % 200) * 3, 36 + (i / 200) * 3)).collect();
    let mut b = Builder::new();
    b.page(Dictionary::new(), &squares, Dictionary::new());
    let renderer = docsift_ocr::PdfRenderer::open(&b.finish(), "").expect("opens");
    let given_up = renderer.render_within(0, 300.0, std::time::Duration::from_millis(1));
    let message = given_up.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("the page took more than 0.001 s to render"), "{message}");
    let rendered = renderer.render(0, 300.0).expect("renders in time");
    assert_eq!(rendered.image.width(), 2550);
}
