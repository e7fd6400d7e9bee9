//! Helpers for docsift's cross-crate tests: finding the shared corpus, reading its
//! manifests, extracting a corpus file, and comparing texts.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use docsift::{Document, Error, Options};
use serde_json::Value;

/// The shared corpus: `$DOCSIFT_CORPUS`, else `../shared/corpus` beside the checkout.
/// Returns None (test skipped with a message) when absent, but panics under CI, where a
/// missing corpus must fail the run rather than pass it silently.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("DOCSIFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    if dir.join("manifests").is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some_and(|v| v != "false" && !v.is_empty()) {
        panic!("the shared corpus is missing at {} (set DOCSIFT_CORPUS)", dir.display());
    }
    eprintln!("corpus not found at {}: skipping", dir.display());
    None
}

pub fn manifest(corpus: &Path, name: &str) -> Value {
    let text =
        std::fs::read_to_string(corpus.join("manifests").join(format!("{name}.json"))).expect("manifest readable");
    serde_json::from_str(&text).expect("manifest is JSON")
}

pub fn extract_with(path: &Path, opts: &Options) -> Result<Document, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::new(docsift::ErrorKind::Io, e.to_string()))?;
    docsift::extract(&bytes, opts, &|_| {}, &AtomicBool::new(false))
}

pub fn extract(path: &Path) -> Result<Document, Error> {
    extract_with(path, &Options::default())
}

/// Whitespace runs collapsed to one space, ends trimmed.
pub fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// 1 − Levenshtein distance / longer length, over Unicode scalar values.
pub use docsift::dedup::edit_similarity as similarity;

/// Re-assembles a page's text from the chars `keep` selects (crops, size filters).
pub fn text_of_chars(
    page: &docsift::Page,
    keep: impl Fn(&docsift_model::Char) -> bool,
    opts: &docsift::TextOptions,
) -> String {
    let mut sub =
        docsift::Page { chars: page.chars.iter().filter(|c| keep(c)).cloned().collect(), ..docsift::Page::default() };
    docsift_layout::assemble(&mut sub, opts);
    sub.text
}

/// One expectation's outcome, for the summary table a corpus test prints.
pub struct Outcome {
    pub id: String,
    pub ok: bool,
    pub detail: String,
}

impl Outcome {
    /// A check's result: Ok(detail) passes, Err(detail) fails.
    pub fn of(id: impl Into<String>, result: Result<String, String>) -> Outcome {
        let (ok, detail) = match result {
            Ok(d) => (true, d),
            Err(d) => (false, d),
        };
        Outcome { id: id.into(), ok, detail }
    }
}

/// Prints one line per expectation and panics listing the failures.
pub fn report(name: &str, outcomes: &[Outcome]) {
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| !o.ok).collect();
    for o in outcomes {
        println!("{} {:<40} {}", if o.ok { "ok  " } else { "FAIL" }, o.id, o.detail);
    }
    println!("{name}: {} passed, {} failed", outcomes.len() - failed.len(), failed.len());
    assert!(
        failed.is_empty(),
        "{} {name} expectations failed: {}",
        failed.len(),
        failed.iter().map(|o| o.id.as_str()).collect::<Vec<_>>().join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_bounds() {
        assert_eq!(similarity("abc", "abc"), 1.0);
        assert_eq!(similarity("", ""), 1.0);
        assert!((similarity("abcd", "abce") - 0.75).abs() < 1e-9);
        assert_eq!(collapse_ws(" a \n b  "), "a b");
    }
}

/// Builds small PDFs for feature tests with lopdf's writer.
pub mod build {
    use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};

    pub struct Builder {
        pub doc: Document,
        pages_id: ObjectId,
        kids: Vec<Object>,
    }

    impl Default for Builder {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Builder {
        pub fn new() -> Self {
            let mut doc = Document::with_version("1.7");
            let pages_id = doc.new_object_id();
            Builder { doc, pages_id, kids: Vec::new() }
        }

        pub fn add(&mut self, obj: impl Into<Object>) -> ObjectId {
            self.doc.add_object(obj.into())
        }

        pub fn stream(&mut self, dict: Dictionary, content: &[u8]) -> ObjectId {
            self.doc.add_object(Stream::new(dict, content.to_vec()))
        }

        /// Adds a US-letter page drawing `content` with `resources`; `extra` entries (Rotate,
        /// MediaBox...) go into the page dictionary.
        pub fn page(&mut self, resources: Dictionary, content: &str, extra: Dictionary) -> ObjectId {
            let content_id = self.stream(Dictionary::new(), content.as_bytes());
            let mut page = dictionary! {
                "Type" => "Page",
                "Parent" => self.pages_id,
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
                "Contents" => content_id,
                "Resources" => resources,
            };
            for (k, v) in extra.iter() {
                page.set(k.clone(), v.clone());
            }
            let id = self.add(page);
            self.kids.push(id.into());
            id
        }

        pub fn finish(mut self) -> Vec<u8> {
            let count = self.kids.len() as i64;
            self.doc.objects.insert(
                self.pages_id,
                Object::Dictionary(
                    dictionary! { "Type" => "Pages", "Kids" => std::mem::take(&mut self.kids), "Count" => count },
                ),
            );
            let catalog = self.add(dictionary! { "Type" => "Catalog", "Pages" => self.pages_id });
            self.doc.trailer.set("Root", catalog);
            self.finish_document()
        }

        /// Saves the document as it is (the caller set Root itself).
        pub fn finish_document(mut self) -> Vec<u8> {
            let mut out = Vec::new();
            self.doc.save_to(&mut out).expect("lopdf writes to memory");
            out
        }
    }

    /// A non-embedded standard font resource dictionary `/F1`.
    pub fn helvetica() -> Dictionary {
        dictionary! { "Font" => dictionary! { "F1" => dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" } } }
    }
}

/// The generated near-duplicate corpus: 16,000 random documents and 4,000 copies with 5%
/// of their words replaced (issue: recall ≥ 0.99 at precision 1.0 at threshold 0.8).
pub mod neardup {
    use std::collections::HashSet;

    /// A small deterministic generator (an LCG) so the corpus is the same everywhere,
    /// including in scripts/bench_dedup.py which reads the corpus the example writes.
    pub struct Rng(pub u64);

    impl Rng {
        pub fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            self.0 >> 33
        }

        pub fn below(&mut self, n: u64) -> u64 {
            self.next_u64() % n
        }
    }

    /// Vocabulary size: large enough that unrelated documents share few words.
    pub const VOCABULARY: u64 = 20_000;
    pub const BASES: usize = 16_000;
    pub const COPIES: usize = 4_000;
    pub const EDIT_RATE: f64 = 0.05;

    pub fn random_doc(rng: &mut Rng) -> Vec<String> {
        let len = 150 + rng.below(250);
        (0..len).map(|_| format!("w{}", rng.below(VOCABULARY))).collect()
    }

    /// A copy with `rate` of its words replaced.
    pub fn edited(rng: &mut Rng, words: &[String], rate: f64) -> Vec<String> {
        let mut out = words.to_vec();
        let edits = ((words.len() as f64) * rate).round() as usize;
        for _ in 0..edits {
            let i = rng.below(out.len() as u64) as usize;
            out[i] = format!("e{}", rng.below(1 << 30));
        }
        out
    }

    pub struct Planted {
        /// (id, text) in insertion order: bases first, then copies.
        pub docs: Vec<(String, String)>,
        /// (base id, copy id) pairs planted.
        pub truth: HashSet<(String, String)>,
    }

    pub fn planted_corpus(seed: u64) -> Planted {
        let mut rng = Rng(seed);
        let bases: Vec<Vec<String>> = (0..BASES).map(|_| random_doc(&mut rng)).collect();
        let mut docs: Vec<(String, String)> =
            bases.iter().enumerate().map(|(i, w)| (format!("base{i}"), w.join(" "))).collect();
        let mut truth = HashSet::new();
        for c in 0..COPIES {
            let src = rng.below(BASES as u64) as usize;
            docs.push((format!("copy{c}"), edited(&mut rng, &bases[src], EDIT_RATE).join(" ")));
            truth.insert((format!("base{src}"), format!("copy{c}")));
        }
        Planted { docs, truth }
    }
}

/// Token-level F1 of two texts (multiset overlap after docsift-dedup's normalisation:
/// case folded, punctuation dropped, CJK characters one token each).
pub fn token_f1(got: &str, want: &str) -> f64 {
    use std::collections::HashMap;
    let (g, w) = (docsift::dedup::normalize(got), docsift::dedup::normalize(want));
    let (g, w) = (docsift::dedup::tokens(&g), docsift::dedup::tokens(&w));
    if g.is_empty() && w.is_empty() {
        return 1.0;
    }
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for t in &w {
        *counts.entry(t).or_default() += 1;
    }
    let mut overlap = 0;
    for t in &g {
        if let Some(c) = counts.get_mut(t).filter(|c| **c > 0) {
            *c -= 1;
            overlap += 1;
        }
    }
    if overlap == 0 {
        return 0.0;
    }
    let p = overlap as f64 / g.len() as f64;
    let r = overlap as f64 / w.len() as f64;
    2.0 * p * r / (p + r)
}

/// The largest difference between two models' outputs, which must match in count and shape.
pub fn max_abs_diff(a: &[docsift_ocr::Tensor], b: &[docsift_ocr::Tensor]) -> f32 {
    assert_eq!(a.len(), b.len(), "output count");
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            assert_eq!(x.shape, y.shape, "output shape");
            x.data.iter().zip(&y.data).map(|(p, q)| (p - q).abs()).fold(0.0, f32::max)
        })
        .fold(0.0, f32::max)
}

/// `picture` as an interlaced PNG (Adam7, unfiltered rows), which neither `image` nor `png`
/// writes.
pub fn interlaced_png(picture: &image::RgbImage) -> Vec<u8> {
    use std::io::Write;
    // Adam7's passes: first column and row, steps across and down (PNG specification, 8.2).
    const ADAM7: [[u32; 4]; 7] =
        [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];
    let (w, h) = picture.dimensions();
    let mut raw = Vec::new();
    for [x0, y0, dx, dy] in ADAM7.into_iter().filter(|&[x0, y0, ..]| x0 < w && y0 < h) {
        for y in (y0..h).step_by(dy as usize) {
            raw.push(0);
            (x0..w).step_by(dx as usize).for_each(|x| raw.extend(picture.get_pixel(x, y).0));
        }
    }
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    let idat = zlib.write_all(&raw).and_then(|()| zlib.finish()).expect("deflated in memory");
    let ihdr = [&w.to_be_bytes()[..], &h.to_be_bytes(), &[8, 2, 0, 0, 1]].concat();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", ihdr), (b"IDAT", idat), (b"IEND", Vec::new())] {
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(&data);
        png.extend((data.len() as u32).to_be_bytes());
        png.extend(kind);
        png.extend(&data);
        png.extend(crc.sum().to_be_bytes());
    }
    png
}

/// `picture` as a WebP written by libwebp as most are: lossy at `quality` (0 to 100), or
/// lossless where that is `None` (`image` writes lossless ones only, coded otherwise).
pub fn libwebp_file(picture: &image::RgbImage, quality: Option<f32>) -> Vec<u8> {
    let encoder = webp::Encoder::from_rgb(picture.as_raw(), picture.width(), picture.height());
    quality.map_or_else(|| encoder.encode_lossless(), |quality| encoder.encode(quality)).to_vec()
}

/// `picture` as a TIFF whose red, green and blue are stored apart (planar configuration 2),
/// raw, its directory before its pixels (so a cut keeps it), in strips of `unit` rows or, with
/// `tiled`, in `unit`×`unit` tiles: a layout neither `image` nor `tiff` writes.
pub fn planar_tiff(picture: &image::RgbImage, unit: u32, tiled: bool) -> Vec<u8> {
    let (w, h) = picture.dimensions();
    let (across, down) = if tiled { (w.div_ceil(unit), h.div_ceil(unit)) } else { (1, h.div_ceil(unit)) };
    let (tile_w, tile_h) = if tiled { (unit, unit) } else { (w, unit) };
    // Each plane's units in turn, a tile's columns past the page's edge padded.
    let mut units = Vec::new();
    for plane in 0..3 {
        for (ty, tx) in (0..down).flat_map(|ty| (0..across).map(move |tx| (ty, tx))) {
            let mut unit_bytes: Vec<u8> = (ty * tile_h..((ty + 1) * tile_h).min(h))
                .flat_map(|y| (tx * tile_w..(tx + 1) * tile_w).map(move |x| (x, y)))
                .map(|(x, y)| picture.get_pixel_checked(x, y).map_or(0, |p| p.0[plane]))
                .collect();
            if tiled {
                unit_bytes.resize((tile_w * tile_h) as usize, 0);
            }
            units.push(unit_bytes);
        }
    }
    let (offsets_tag, counts_tag) = if tiled { (324u16, 325u16) } else { (273, 279) };
    let mut shape = vec![(256u16, 4u16, vec![w]), (257, 4, vec![h])];
    if tiled {
        shape.extend([(322, 4, vec![tile_w]), (323, 4, vec![tile_h])]);
    } else {
        shape.push((278, 4, vec![unit]));
    }
    let n = units.len() as u32;
    // The shape's fields and the seven below.
    let entries = shape.len() as u32 + 7;
    // Header, directory, then the values that do not fit an entry: bits, offsets, counts.
    let values_at = 8 + 2 + 12 * entries + 4;
    let (bits_at, offsets_at, counts_at) = (values_at, values_at + 6, values_at + 6 + 4 * n);
    let offsets: Vec<u32> =
        units.iter().scan(counts_at + 4 * n, |at, u| Some(std::mem::replace(at, *at + u.len() as u32))).collect();
    let mut fields = shape;
    fields.extend([
        (258, 3, vec![8, 8, 8]),
        (259, 3, vec![1]),
        (262, 3, vec![2]),
        (277, 3, vec![3]),
        (284, 3, vec![2]),
        (offsets_tag, 4, offsets.clone()),
        (counts_tag, 4, units.iter().map(|u| u.len() as u32).collect()),
    ]);
    fields.sort_by_key(|&(tag, ..)| tag);
    let mut tiff = b"II*\0\x08\0\0\0".to_vec();
    tiff.extend((fields.len() as u16).to_le_bytes());
    for (tag, kind, values) in &fields {
        tiff.extend(tag.to_le_bytes());
        tiff.extend(kind.to_le_bytes());
        tiff.extend((values.len() as u32).to_le_bytes());
        let value = match (*tag, values.len()) {
            (258, _) => bits_at,
            (_, 1) => values[0],
            (t, _) if t == offsets_tag => offsets_at,
            _ => counts_at,
        };
        tiff.extend(value.to_le_bytes());
    }
    tiff.extend(0u32.to_le_bytes());
    tiff.extend([8u16; 3].iter().flat_map(|b| b.to_le_bytes()));
    tiff.extend(offsets.iter().flat_map(|o| o.to_le_bytes()));
    tiff.extend(units.iter().flat_map(|u| (u.len() as u32).to_le_bytes()));
    units.iter().for_each(|u| tiff.extend(u));
    tiff
}
