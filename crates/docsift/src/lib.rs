//! The docsift facade: the one entry point the front-ends (CLI, wasm) call. It sniffs the
//! input format, runs the pipeline (PDF reading, text assembly) page by page — in parallel
//! where a rayon pool exists — reports progress, honours cancellation, and returns the
//! versioned [`Document`].

use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(feature = "ocr")]
mod ocr;
#[cfg(feature = "ocr")]
pub use docsift_ocr::{self as ocr_models, Engine as OcrEngine, ModelKind, Script as OcrScript, Step as OcrStep};
#[cfg(feature = "ocr")]
pub use ocr::{OcrModels, default_models_dir, read_model_files};

pub use docsift_dedup as dedup;
pub use docsift_html::{HtmlDocument, Options as HtmlOptions};
pub use docsift_layout::{SplitAttr, TextOptions};
pub use docsift_model::{self as model, Document, Error, ErrorKind, Meta, Page, Warning};
pub use docsift_pdf::Limits;
use docsift_pdf::PdfDocument;

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// 1-based page numbers to extract; None = all.
    pub pages: Option<Vec<usize>>,
    pub password: Option<String>,
    pub text: TextOptions,
    pub limits: Limits,
    /// When pages are OCR'd (needs `ocr_engine`).
    pub ocr: OcrMode,
    /// Detect layout regions (title, text, table, figure, ...) as page blocks; on pages
    /// with native text the blocks hold the native lines (hybrid mode).
    pub layout: bool,
    #[cfg(feature = "ocr")]
    pub ocr_models: Option<std::sync::Arc<OcrModels>>,
}

/// Native text trusted less than this (share of glyphs with a real Unicode mapping) is
/// replaced by OCR in auto mode: below it, most of what was extracted is garbage.
pub const MIN_TRUST: f32 = 0.5;
/// A page with fewer native characters than this, under an image covering most of it, is a
/// scan (a stamped page number or a header line does not make it a text page).
const SCAN_MAX_NATIVE_CHARS: usize = 20;
/// Share of the page an image must cover to count as a scan of it.
const SCAN_MIN_COVER: f32 = 0.5;

/// Whether auto mode should OCR this natively extracted page.
pub fn needs_ocr(page: &Page) -> bool {
    let blank = page.chars.is_empty() && page.images.is_empty() && page.segments.is_empty() && page.rects.is_empty();
    if blank {
        return false;
    }
    if page.trust.glyphs > 0 && page.trust.score < MIN_TRUST {
        return true;
    }
    let area = (page.width * page.height).max(1.0);
    let covered = page.images.iter().map(|i| i.bbox.width() * i.bbox.height() / area).fold(0.0, f32::max);
    page.chars.len() < SCAN_MAX_NATIVE_CHARS && (covered >= SCAN_MIN_COVER || page.chars.is_empty())
}

/// When to read pages with OCR instead of (or besides) their native text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OcrMode {
    /// Pages without trustworthy native text: scans, unmapped fonts, text drawn as curves.
    #[default]
    Auto,
    Off,
    /// Every page, replacing its native text.
    Force,
}

/// Progress of a long extraction, reported after each page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

/// What the input is, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Pdf,
    /// PNG, JPEG, TIFF, WebP, GIF, BMP, PNM or JPEG 2000: text only through OCR.
    Image,
}

/// Signatures of the image formats docsift reads that a fixed prefix tells: PNG, JPEG, TIFF
/// (classic and BigTIFF, both byte orders), GIF, JPEG 2000 (a JP2 file's signature box, a bare
/// codestream's SOC and SIZ markers).
const IMAGE_MAGIC: [&[u8]; 10] = [
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"II*\0",
    b"MM\0*",
    b"II+\0",
    b"MM\0+",
    b"GIF87a",
    b"GIF89a",
    b"\0\0\0\x0cjP  \r\n\x87\n",
    b"\xff\x4f\xff\x51",
];

/// The sizes a BMP's info header comes in (BITMAPCOREHEADER to BITMAPV5HEADER): "BM" alone
/// starts too many other files.
const BMP_INFO_SIZES: [u32; 7] = [12, 40, 52, 56, 64, 108, 124];

fn is_image(bytes: &[u8]) -> bool {
    let webp = bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP");
    let bmp = bytes.starts_with(b"BM")
        && bytes.get(14..18).is_some_and(|n| BMP_INFO_SIZES.contains(&u32::from_le_bytes([n[0], n[1], n[2], n[3]])));
    // Netpbm: "P1" to "P6", then whitespace and the width (or a comment).
    let pnm = matches!(bytes, [b'P', b'1'..=b'6', space, ..] if space.is_ascii_whitespace())
        && bytes[2..].iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| b.is_ascii_digit() || *b == b'#');
    webp || bmp || pnm || IMAGE_MAGIC.iter().any(|m| bytes.starts_with(m))
}

pub fn sniff(bytes: &[u8]) -> Option<Format> {
    if docsift_pdf::has_header(bytes) || docsift_pdf::looks_like_headerless_pdf(bytes) {
        return Some(Format::Pdf);
    }
    is_image(bytes).then_some(Format::Image)
}

/// Parses a page list such as `1,3-5,9` (1-based, inclusive ranges).
pub fn parse_page_list(spec: &str) -> Result<Vec<usize>, Error> {
    let bad = || Error::new(ErrorKind::Unsupported, format!("invalid page list {spec:?}: use e.g. 1,3-5"));
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => {
                (a.trim().parse::<usize>().map_err(|_| bad())?, b.trim().parse::<usize>().map_err(|_| bad())?)
            }
            None => {
                let n = part.parse::<usize>().map_err(|_| bad())?;
                (n, n)
            }
        };
        if a == 0 || b < a {
            return Err(bad());
        }
        out.extend(a..=b);
    }
    if out.is_empty() {
        return Err(bad());
    }
    Ok(out)
}

/// The 0-based indices of the pages asked for (1-based numbers; all when None) of a
/// document of `count` pages.
pub fn pages_wanted(pages: Option<&[usize]>, count: usize) -> Result<Vec<usize>, Error> {
    match pages {
        Some(list) => {
            if let Some(&bad) = list.iter().find(|&&p| p == 0 || p > count) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!("page {bad} does not exist (the document has {count})"),
                ));
            }
            Ok(list.iter().map(|p| p - 1).collect())
        }
        None => Ok((0..count).collect()),
    }
}

/// Extracts a document (a PDF, or an image through OCR). `progress` is called after each
/// page (from worker threads when parallel); `cancel` is checked between pages and
/// between OCR model calls.
pub fn extract(
    bytes: &[u8],
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: &AtomicBool,
) -> Result<Document, Error> {
    extract_until(bytes, opts, progress, &|| !cancel.load(Ordering::Relaxed))
}

/// `extract`, asking `keep_going` between pages and between OCR model calls.
pub fn extract_until(
    bytes: &[u8],
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
    keep_going: &(dyn Fn() -> bool + Sync),
) -> Result<Document, Error> {
    if sniff(bytes) == Some(Format::Image) {
        #[cfg(feature = "ocr")]
        return extract_image_now(bytes, opts, progress, keep_going);
        #[cfg(not(feature = "ocr"))]
        return Err(Error::new(ErrorKind::Unsupported, "images need OCR, which this build does not include"));
    }
    let doc = OpenDocument::open(bytes, opts)?;
    let wanted = doc.resolve_pages(opts.pages.as_deref())?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = wanted.len();
    let pages = doc.extract_pages_into(&wanted, &opts.text, keep_going, &|page| {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress(Progress { done: n, total });
        page
    })?;
    Ok(doc.into_document(pages))
}

/// How many pages an image file has: a multi-page TIFF's pages (thumbnails left out), one
/// for the other formats.
#[cfg(feature = "ocr")]
pub fn image_page_count(bytes: &[u8]) -> usize {
    docsift_ocr::ImageFile::open(bytes).page_count()
}

/// An image file's pages (`opts.pages`, all when None) read by OCR, one after another,
/// awaiting each model call (see `ocr_models::Backend::call`).
#[cfg(feature = "ocr")]
pub async fn extract_image(
    bytes: &[u8],
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
    keep_going: &(dyn Fn() -> bool + Sync),
) -> Result<Document, Error> {
    let file = docsift_ocr::ImageFile::open(bytes);
    let wanted = pages_wanted(opts.pages.as_deref(), file.page_count())?;
    let mut pages = Vec::with_capacity(wanted.len());
    for &index in &wanted {
        pages.push(ocr::image_page(&file, index, opts, keep_going).await?);
        progress(Progress { done: pages.len(), total: wanted.len() });
    }
    Ok(image_document(&file, pages))
}

/// `extract_image` for callers that cannot wait (every model call answers at once): the
/// pages of a multi-page TIFF side by side where a rayon pool exists, as a PDF's are.
#[cfg(feature = "ocr")]
fn extract_image_now(
    bytes: &[u8],
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
    keep_going: &(dyn Fn() -> bool + Sync),
) -> Result<Document, Error> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        let file = docsift_ocr::ImageFile::open(bytes);
        let wanted = pages_wanted(opts.pages.as_deref(), file.page_count())?;
        let (done, total) = (std::sync::atomic::AtomicUsize::new(0), wanted.len());
        let pages = wanted
            .par_iter()
            .map(|&index| {
                let page = ocr::finished(ocr::image_page(&file, index, opts, keep_going))?;
                progress(Progress { done: done.fetch_add(1, Ordering::Relaxed) + 1, total });
                Ok(page)
            })
            .collect::<Result<Vec<Page>, Error>>()?;
        Ok(image_document(&file, pages))
    }
    #[cfg(not(feature = "parallel"))]
    ocr::finished(extract_image(bytes, opts, progress, keep_going))
}

/// The document of an image file's pages read by OCR.
#[cfg(feature = "ocr")]
fn image_document(file: &docsift_ocr::ImageFile, pages: Vec<Page>) -> Document {
    let warnings = file.broken_chain.iter().map(Warning::document).collect();
    Document::new(Meta { page_count: file.page_count(), ..Meta::default() }, pages, warnings)
}

/// A PDF page (1-based) rendered at `dpi` as PNG bytes.
#[cfg(feature = "ocr")]
pub fn render_page_png(bytes: &[u8], password: Option<&str>, page: usize, dpi: f32) -> Result<Vec<u8>, Error> {
    let renderer = docsift_ocr::PdfRenderer::open(bytes, password.unwrap_or_default()).map_err(ocr::to_error)?;
    let rendered = renderer.render(page.saturating_sub(1), dpi).map_err(ocr::to_error)?;
    docsift_ocr::encode_png(&rendered.image).map_err(ocr::to_error)
}

/// The plain text of any input docsift reads: a PDF's pages joined by form feeds, an HTML
/// page as a reader sees it, a text file decoded (BOM, else detected charset). For
/// comparing documents (dedup).
pub fn text_of(bytes: &[u8], opts: &Options) -> Result<String, Error> {
    if sniff(bytes).is_some() {
        let never = AtomicBool::new(false);
        let doc = extract(bytes, opts, &|_| {}, &never)?;
        return Ok(doc.pages.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n\x0c"));
    }
    // A web page's article, without its navigation and boilerplate.
    Ok(extract_html(bytes, &HtmlOptions::default())?.text)
}

/// Reads a web page (its main content, by the Readability algorithm, with metadata) or a
/// plain-text file, in whatever encoding it comes.
pub fn extract_html(bytes: &[u8], opts: &HtmlOptions) -> Result<HtmlDocument, Error> {
    if sniff(bytes).is_some() {
        return Err(Error::new(ErrorKind::Unsupported, "this is a PDF or an image: extract it as a document"));
    }
    if docsift_html::looks_like_html(bytes) {
        return Ok(docsift_html::read_html(bytes, opts));
    }
    let doc = docsift_html::read_text(bytes);
    // Text files do not hold NULs; UTF-16/32 were decoded by their BOMs or NUL patterns.
    if doc.text.contains('\0') {
        return Err(Error::new(ErrorKind::Unsupported, "binary input that is not a PDF, HTML or text"));
    }
    Ok(doc)
}

/// An opened document whose pages are extracted on demand: front-ends that drive the
/// loop themselves (the browser worker, for progress and abort between batches) use this.
pub struct OpenDocument {
    pdf: PdfDocument,
    #[cfg(feature = "ocr")]
    ocr: Option<ocr::PdfOcr>,
}

impl OpenDocument {
    pub fn open(bytes: &[u8], opts: &Options) -> Result<OpenDocument, Error> {
        if bytes.is_empty() {
            return Err(Error::malformed("the file is empty"));
        }
        if sniff(bytes) != Some(Format::Pdf) {
            return Err(Error::new(ErrorKind::Unsupported, "unrecognised input: not a PDF"));
        }
        Ok(OpenDocument {
            pdf: PdfDocument::open(bytes, opts.password.as_deref(), opts.limits)?,
            #[cfg(feature = "ocr")]
            ocr: ocr::PdfOcr::new(bytes, opts),
        })
    }

    pub fn page_count(&self) -> usize {
        self.pdf.pages().len()
    }

    /// 0-based indices of the 1-based `pages` list (all pages when None).
    pub fn resolve_pages(&self, pages: Option<&[usize]>) -> Result<Vec<usize>, Error> {
        pages_wanted(pages, self.page_count())
    }

    pub fn extract_page(&self, index: usize, text: &TextOptions) -> Result<Page, Error> {
        self.extract_page_checked(index, text, &|| true)
    }

    /// As `extract_page`; `keep_going` is also asked between OCR model calls.
    fn extract_page_checked(
        &self,
        index: usize,
        text: &TextOptions,
        keep_going: &(dyn Fn() -> bool + Sync),
    ) -> Result<Page, Error> {
        #[cfg(feature = "ocr")]
        return ocr::finished(self.extract_page_async(index, text, keep_going));
        #[cfg(not(feature = "ocr"))]
        {
            let _ = keep_going;
            self.native_page(index, text)
        }
    }

    /// The page's own text, assembled.
    fn native_page(&self, index: usize, text: &TextOptions) -> Result<Page, Error> {
        let mut page = docsift_pdf::extract_page(&self.pdf, index)?;
        docsift_layout::assemble(&mut page, text);
        Ok(page)
    }

    /// As `extract_page_checked`, awaiting each OCR model call (see
    /// `ocr_models::Backend::call`): for front-ends whose models answer later.
    #[cfg(feature = "ocr")]
    pub async fn extract_page_async(
        &self,
        index: usize,
        text: &TextOptions,
        keep_going: &(dyn Fn() -> bool + Sync),
    ) -> Result<Page, Error> {
        let mut page = self.native_page(index, text)?;
        if let Some(ocr) = &self.ocr {
            ocr.process(index, &mut page, || docsift_pdf::page_pictures(&self.pdf, index), keep_going).await?;
        }
        Ok(page)
    }

    /// Extracts `indices` (in parallel where a rayon pool exists). `keep_going` is asked
    /// after each page and between OCR model calls; returning false cancels the rest.
    pub fn extract_pages(
        &self,
        indices: &[usize],
        text: &TextOptions,
        keep_going: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<Page>, Error> {
        self.extract_pages_into(indices, text, keep_going, &|page| page)
    }

    /// As `extract_pages`, turning each page into `T` on the thread that extracted it
    /// (the browser builds its column arrays there).
    pub fn extract_pages_into<T: Send>(
        &self,
        indices: &[usize],
        text: &TextOptions,
        keep_going: &(dyn Fn() -> bool + Sync),
        convert: &(dyn Fn(Page) -> T + Sync),
    ) -> Result<Vec<T>, Error> {
        let one = |&index: &usize| -> Result<T, Error> {
            let page = convert(self.extract_page_checked(index, text, keep_going)?);
            if keep_going() { Ok(page) } else { Err(Error::new(ErrorKind::Cancelled, "extraction cancelled")) }
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            indices.par_iter().map(one).collect()
        }
        #[cfg(not(feature = "parallel"))]
        indices.iter().map(one).collect()
    }

    pub fn meta(&self) -> Meta {
        Meta {
            page_count: self.page_count(),
            title: self.pdf.info(b"Title"),
            author: self.pdf.info(b"Author"),
            encrypted: self.pdf.encrypted,
            repaired: self.pdf.repaired,
            pdf_version: self.pdf.version().to_string(),
        }
    }

    pub fn warnings(&self) -> Vec<Warning> {
        self.pdf.warnings.iter().map(|w| Warning::document(w.clone())).collect()
    }

    pub fn into_document(self, pages: Vec<Page>) -> Document {
        Document::new(self.meta(), pages, self.warnings())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_told_by_their_signatures_and_text_that_starts_alike_is_not() {
        let bmp = [b"BM".as_slice(), &[0; 12], &40u32.to_le_bytes()].concat();
        let images: [&[u8]; 9] = [
            b"GIF89a\x01\0",
            b"RIFF\x10\0\0\0WEBPVP8L",
            &bmp,
            b"P6\n640 480\n255\n",
            b"P1\n# fax\n8 8",
            b"II*\0",
            b"\xff\xd8\xff\xe0",
            b"\0\0\0\x0cjP  \r\n\x87\n\0\0\0\x14ftypjp2 ",
            b"\xff\x4f\xff\x51\0\x2f",
        ];
        for bytes in images {
            assert_eq!(sniff(bytes), Some(Format::Image), "{:?}", String::from_utf8_lossy(bytes));
        }
        let text: [&[u8]; 4] = [b"BMW sales rose in 2024", b"P1 is the first phase", b"RIFF raff", b"GIF is a format"];
        for bytes in text {
            assert_eq!(sniff(bytes), None, "{:?}", String::from_utf8_lossy(bytes));
        }
    }

    #[test]
    fn page_lists() {
        assert_eq!(parse_page_list("1,3-5").unwrap(), vec![1, 3, 4, 5]);
        assert!(parse_page_list("0").is_err());
        assert!(parse_page_list("5-3").is_err());
        assert!(parse_page_list("x").is_err());
    }

    #[test]
    fn non_pdf_is_unsupported_and_empty_is_malformed() {
        let never = AtomicBool::new(false);
        let e = extract(b"hello", &Options::default(), &|_| {}, &never).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported);
        let e = extract(b"", &Options::default(), &|_| {}, &never).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
    }
}
