//! Where OCR joins the pipeline: which pages need it, rendering them, and turning images
//! into documents (a page per TIFF page). Only with the `ocr` feature (the browser runs
//! models in a separate module).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::Duration;

use docsift_model::{Error, ErrorKind, Page, Warning};
use docsift_ocr::{Engine, ImageFile, ModelKind, OcrError, OcrLine, PdfRenderer, RgbImage, Script, Step};
use docsift_pdf::PagePictures;

use crate::{OcrMode, Options, needs_ocr};

/// Resolution pages are rendered at when nothing better is known: small print (8pt) is
/// then ~22 px high, enough for the recognition model's 48 px lines.
pub const DEFAULT_DPI: f32 = 200.0;
/// Rendering follows a scanned image's own resolution within these bounds.
const MIN_DPI: f32 = 150.0;
const MAX_DPI: f32 = 300.0;

pub fn to_error(e: OcrError) -> Error {
    match e {
        OcrError::Cancelled => Error::new(ErrorKind::Cancelled, "extraction cancelled"),
        OcrError::Image(m) => Error::new(ErrorKind::Unsupported, m),
        OcrError::Corrupt(m) => Error::malformed(m),
        e @ OcrError::PageTooLarge { .. } => Error::new(ErrorKind::LimitExceeded, e.to_string()),
        other => Error::new(ErrorKind::Model, other.to_string()),
    }
}

/// The result of an OCR step for synchronous callers: every model call answers at once
/// there (the CPU, a GPU behind a blocking transport).
pub fn finished<T>(step: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
    docsift_ocr::poll_once(step).unwrap_or_else(|| Err(to_error(OcrError::NotReady)))
}

/// Text lines of an image; lines are recognised in parallel where a rayon pool exists
/// (whose backends answer at once), else one batch after another, awaiting each model call.
/// `step` hears where the page is (detection, orientation, recognition: calls done; the
/// callers report layout). It is prepared first (`docsift_ocr::page_to_read`).
async fn read_lines(
    engine: &Engine,
    img: &RgbImage,
    keep_going: &(dyn Fn() -> bool + Sync),
    step: &(dyn Fn(Step) + Sync),
) -> Result<Vec<OcrLine>, Error> {
    let img = &*docsift_ocr::page_to_read(img);
    let quads = lines_found(engine, img, keep_going, step).await?;
    lines_recognized(engine, img, &quads, keep_going, step).await
}

fn cancelled() -> Error {
    Error::new(ErrorKind::Cancelled, "extraction cancelled")
}

/// The lines detection finds on a prepared image, turned to read upright.
async fn lines_found(
    engine: &Engine,
    img: &RgbImage,
    keep_going: &(dyn Fn() -> bool + Sync),
    step: &(dyn Fn(Step) + Sync),
) -> Result<Vec<docsift_ocr::Quad>, Error> {
    if !keep_going() {
        return Err(cancelled());
    }
    step(Step::Detection);
    let quads = engine.detect(img).await.map_err(to_error)?;
    engine
        .orient(img, quads, &mut |s| {
            step(s);
            keep_going()
        })
        .await
        .map_err(to_error)
}

/// The lines `quads` hold on a prepared image, read by `engine`'s recognition model.
async fn lines_recognized(
    engine: &Engine,
    img: &RgbImage,
    quads: &[docsift_ocr::Quad],
    keep_going: &(dyn Fn() -> bool + Sync),
    step: &(dyn Fn(Step) + Sync),
) -> Result<Vec<OcrLine>, Error> {
    let batches = engine.recognition_batches(quads, &engine.beside(img, quads));
    let (done, total) = (AtomicUsize::new(0), batches.len());
    let one = async |batch: &docsift_ocr::Batch| {
        if !keep_going() {
            return Err(cancelled());
        }
        let lines = engine.recognize_batch(img, batch).await.map_err(to_error)?;
        step(Step::Recognition { done: done.fetch_add(1, Ordering::Relaxed) + 1, total });
        Ok(lines)
    };
    #[cfg(feature = "parallel")]
    let lines: Vec<Vec<OcrLine>> = {
        use rayon::prelude::*;
        batches.par_iter().map(|b| finished(one(b))).collect::<Result<_, Error>>()?
    };
    #[cfg(not(feature = "parallel"))]
    let lines: Vec<Vec<OcrLine>> = {
        let mut lines = Vec::with_capacity(batches.len());
        for b in &batches {
            lines.push(one(b).await?);
        }
        lines
    };
    Ok(docsift_ocr::lines_of_page(img, lines.into_iter().flatten().collect()))
}

/// Page `number`'s text lines (`read_lines`), and where its East Asian letters were read
/// unsurely (`docsift_ocr::east_asian_read_surely`: kana the default model reads as Chinese
/// look-alikes) and the models can read East Asian script again
/// (`OcrModels::read_east_asian_again_with`), the same lines read again by that model, kept
/// where it reads them surely (Japanese, not Korean, which neither model reads); where they
/// cannot, the page is noted (`OcrModels::take_east_asian_unread`). The warning, if that model
/// could not be loaded.
async fn page_lines(
    models: &OcrModels,
    engine: &Engine,
    img: &RgbImage,
    number: usize,
    keep_going: &(dyn Fn() -> bool + Sync),
) -> Result<(Vec<OcrLine>, Option<String>), Error> {
    let step = &|s| models.step(s);
    let img = &*docsift_ocr::page_to_read(img);
    let quads = lines_found(engine, img, keep_going, step).await?;
    let lines = lines_recognized(engine, img, &quads, keep_going, step).await?;
    if docsift_ocr::east_asian_read_surely(&lines) != Some(false) {
        return Ok((lines, None));
    }
    let east_asian = match models.east_asian_engine() {
        None => {
            models.east_asian_unread.lock().unwrap_or_else(|p| p.into_inner()).push(number);
            return Ok((lines, None));
        }
        Some(Err(e)) => {
            let warning = format!("the page's East Asian letters could not be read again: {}", e.message);
            return Ok((lines, Some(warning)));
        }
        Some(Ok(engine)) => engine,
    };
    let again = lines_recognized(&east_asian, img, &quads, keep_going, step).await?;
    Ok((if docsift_ocr::east_asian_read_surely(&again) == Some(true) { again } else { lines }, None))
}

/// The resolution to render a page at: that of its largest image when it is a scan.
pub fn render_dpi(page: &Page) -> f32 {
    page.images
        .iter()
        .filter(|i| i.bbox.width() > 0.0)
        .max_by(|a, b| (a.bbox.width() * a.bbox.height()).total_cmp(&(b.bbox.width() * b.bbox.height())))
        .map(|i| (i.width as f32 / (i.bbox.width() / 72.0)).clamp(MIN_DPI, MAX_DPI))
        .unwrap_or(DEFAULT_DPI)
}

/// The first of the page's pictures (an image, or an image's mask, that the content draws or
/// that `pictures` lists) with more pixels than an OCR page may have, or a JPEG 2000 image
/// whose codestream declares that many pixels, or more tiles than a codestream can number:
/// what it is. The renderer decodes each at its full size, so a few kilobytes of zeros declared
/// 65,000 pixels square would take 4 GiB, all a browser tab's wasm memory.
fn picture_too_large_to_render(page: &Page, pictures: &PagePictures) -> Option<String> {
    let too_large = |[w, h]: [u32; 2]| u64::from(w) * u64::from(h) > docsift_ocr::MAX_PAGE_PIXELS;
    let drawn = page.images.iter().flat_map(|i| [Some((false, [i.width, i.height])), i.mask.map(|m| (true, m))]);
    let drawn = drawn.flatten().map(|(mask, size)| (mask, None, size));
    let beyond = pictures.indirect.iter().map(|p| (p.mask, Some(p.place), p.size));
    let sized = drawn
        .chain(beyond)
        .find(|(_, _, size)| too_large(*size))
        .map(|(mask, place, [w, h])| (format!("{w}×{h} {}", if mask { "image mask" } else { "image" }), place));
    let jpx = || {
        pictures.jpx.iter().find_map(|jpx| {
            let header = docsift_ocr::jpeg2000_header(&jpx.codestream)?;
            let (w, h) = (header.width, header.height);
            let what = if header.tiles > docsift_ocr::MAX_JPEG2000_TILES {
                format!("JPEG 2000 image of {} tiles", header.tiles)
            } else if too_large([w, h]) {
                format!("{w}×{h} JPEG 2000 image")
            } else {
                return None;
            };
            Some((what, jpx.place))
        })
    };
    let (what, place) = sized.or_else(jpx)?;
    Some(match place {
        Some(place) => format!("{what} in {}", place.phrase()),
        None => what,
    })
}

/// Why a page must not be rendered, if it must not: a picture too large to decode, glyphs a
/// renderer may follow without end (see `PagePictures`), or drawings too large to check.
fn not_to_render(page: &Page, pictures: &PagePictures) -> Option<String> {
    if let Some(what) = picture_too_large_to_render(page, pictures) {
        return Some(format!("its {what} is too large to decode"));
    }
    if pictures.nested_type3 {
        return Some("its Type 3 glyphs draw Type 3 glyphs, which a renderer may follow without end".into());
    }
    pictures.unchecked.then(|| {
        let mb = docsift_pdf::MAX_CONTENT_BYTES_SCANNED >> 20;
        format!("what it draws beyond its own content is more than {mb} MB to check")
    })
}

/// OCR models, loaded on first use (a born-digital document never pays for them).
pub struct OcrModels {
    load: Box<dyn Fn() -> Result<Engine, Error> + Send + Sync>,
    engine: OnceLock<Result<Arc<Engine>, Error>>,
    /// Hears each page's OCR stages (from pool threads when parallel).
    steps: Option<Box<dyn Fn(Step) + Send + Sync>>,
    readying: Readying,
    /// The engine that reads East Asian letters again, if any (`read_east_asian_again_with`).
    east_asian: OnceLock<Reread>,
    /// Pages whose East Asian letters were read unsurely without such an engine.
    east_asian_unread: Mutex<Vec<usize>>,
}

/// A second engine, loaded on first need.
struct Reread {
    load: Box<dyn Fn() -> Result<Engine, Error> + Send + Sync>,
    engine: OnceLock<Result<Arc<Engine>, Error>>,
}

/// The line models' files being readied beside the first page (`prepared_beside`).
#[derive(Default)]
struct Readying {
    /// Asks the files not yet begun to be left.
    stop: Arc<AtomicBool>,
    /// Hears when the last file begun is done (or its thread has panicked).
    done: Mutex<Option<mpsc::Receiver<()>>>,
}

/// The longest wait, when the models are dropped, for the file being readied then: a GPU
/// file compiles in 1–2 s on an H200's host, and on lavapipe in several; bounded so that a
/// drop never hangs.
const READYING_WAIT: Duration = Duration::from_secs(30);

/// Before the models go, the files being readied on the pool are finished and the rest
/// left: a process that ended while a pool thread compiled a GPU file was killed by
/// SIGSEGV in NVIDIA's driver (105 of 271 corpus pages OCR'd six processes at a time on an
/// H200, with their text written; camelot's empty.pdf after 0.64 s).
impl Drop for OcrModels {
    fn drop(&mut self) {
        self.readying.stop.store(true, Ordering::Relaxed);
        let done = self.readying.done.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(done) = done {
            let _ = done.recv_timeout(READYING_WAIT);
        }
    }
}

impl OcrModels {
    pub fn lazy(load: impl Fn() -> Result<Engine, Error> + Send + Sync + 'static) -> OcrModels {
        OcrModels {
            load: Box::new(load),
            engine: OnceLock::new(),
            steps: None,
            readying: Readying::default(),
            east_asian: OnceLock::new(),
            east_asian_unread: Mutex::default(),
        }
    }

    /// The models in `dir` (file names from models/manifest.json), read on first use,
    /// reading `script` (whose recognition model is `Script::model_file`). Reading every
    /// script (`Script::All`), with the "cjk" script's recognition model in `dir`, they read
    /// pages of East Asian letters read unsurely again with it (`read_east_asian_again_with`).
    pub fn from_dir(dir: PathBuf, script: Script) -> OcrModels {
        let engine = |dir: &Path, script, layout| {
            with_model_files(dir, script, layout, |files| Engine::from_onnx(files, script))
        };
        OcrModels::from_dir_by(dir, script, engine)
    }

    /// `make`'s engine of the models in `dir` reading `script`, and, reading every script, its
    /// engine reading the "cjk" script where that model is there, without the layout model
    /// (it reads lines only: a second layout model would cost 17 MB and 0.15 s to load).
    fn from_dir_by(dir: PathBuf, script: Script, make: fn(&Path, Script, bool) -> Result<Engine, Error>) -> OcrModels {
        let cjk_there = dir.join(Script::Cjk.model_file(ModelKind::Recognition)).is_file();
        let models = OcrModels::lazy({
            let dir = dir.clone();
            move || make(&dir, script, true)
        });
        if script == Script::All && cjk_there {
            models.read_east_asian_again_with(move || make(&dir, Script::Cjk, false));
        }
        models
    }

    /// From now on pages whose East Asian letters the engine reads unsurely
    /// (`docsift_ocr::east_asian_read_surely`) are read again by `load`'s engine (loaded on the
    /// first such page: the "cjk" script's), on the lines already found, and keep that reading
    /// where it is sure: Japanese read by the default model comes out as Chinese look-alikes.
    /// Once only: false, changing nothing, where it was given before.
    pub fn read_east_asian_again_with(&self, load: impl Fn() -> Result<Engine, Error> + Send + Sync + 'static) -> bool {
        self.east_asian.set(Reread { load: Box::new(load), engine: OnceLock::new() }).is_ok()
    }

    /// The engine that reads East Asian letters again, loaded now if not yet; None without one.
    fn east_asian_engine(&self) -> Option<Result<Arc<Engine>, Error>> {
        let reread = self.east_asian.get()?;
        Some(reread.engine.get_or_init(|| (reread.load)().map(Arc::new)).clone())
    }

    /// The pages (numbers) read since last asked whose East Asian letters were read unsurely
    /// with no engine to read them again (`read_east_asian_again_with`): a front-end that
    /// fetches models as needed (the browser's) fetches the "cjk" script's then and reads them
    /// again.
    pub fn take_east_asian_unread(&self) -> Vec<usize> {
        std::mem::take(&mut *self.east_asian_unread.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The models in `dir` run on the GPU (wonnx), from the static-shape files
    /// `scripts/models.py` prepared under `dir/wonnx`, with the CPU taking over a model the
    /// GPU fails on (`Engine::preferring`, as in the browser); fails on first use without an
    /// adapter.
    #[cfg(feature = "webgpu")]
    pub fn from_dir_on_gpu(dir: PathBuf, script: Script) -> OcrModels {
        let engine = |dir: &Path, script, layout| {
            let gpu = docsift_ocr::WonnxBackend::open(dir, script).map_err(to_error)?;
            with_model_files(dir, script, layout, |files| Engine::preferring(Box::new(gpu), files, script))
        };
        OcrModels::from_dir_by(dir, script, engine)
    }

    pub fn loaded(engine: Engine) -> OcrModels {
        let readying = Readying::default();
        let cell = OnceLock::new();
        let _ = cell.set(Ok(prepared_beside(engine, &readying)));
        let load = Box::new(|| Err(Error::new(ErrorKind::Model, "already loaded")));
        OcrModels {
            load,
            engine: cell,
            steps: None,
            readying,
            east_asian: OnceLock::new(),
            east_asian_unread: Mutex::default(),
        }
    }

    /// Reports each page's OCR stages to `steps` (progress inside a page).
    pub fn with_steps(mut self, steps: impl Fn(Step) + Send + Sync + 'static) -> OcrModels {
        self.steps = Some(Box::new(steps));
        self
    }

    fn step(&self, step: Step) {
        if let Some(f) = &self.steps {
            f(step);
        }
    }

    pub fn engine(&self) -> Result<Arc<Engine>, Error> {
        self.engine.get_or_init(|| (self.load)().map(|e| prepared_beside(e, &self.readying))).clone()
    }

    /// Loads the models and reads a made page (`docsift_ocr::practice_page`) through every
    /// stage, as a page is read but reporting no steps, so that the runtime's code is
    /// compiled and the models planned before a user's first page: in wasm that saves the
    /// page about 0.6 s (V8 compiles the pipeline in tiers as it first runs; see README).
    /// Gives the runtime the models ran on (`Engine::backend_name`: a GPU that failed has
    /// left them on the CPU).
    pub async fn warm_up(&self) -> Result<&'static str, Error> {
        let engine = self.engine()?;
        read_lines(&engine, &docsift_ocr::practice_page(), &|| true, &|_| {}).await?;
        Ok(engine.backend_name())
    }
}

/// What `make` builds from the model files in `dir` for `script` (`read_model_files`), the
/// layout model left out unless `layout`.
fn with_model_files(
    dir: &Path,
    script: Script,
    layout: bool,
    make: impl FnOnce(&[(ModelKind, &[u8])]) -> Result<Engine, OcrError>,
) -> Result<Engine, Error> {
    let files = read_model_files(dir, script)?;
    let kept = files.iter().filter(|(k, _)| layout || *k != ModelKind::Layout);
    let refs: Vec<(ModelKind, &[u8])> = kept.map(|(k, b)| (*k, b.as_slice())).collect();
    make(&refs).map_err(to_error)
}

/// A loaded engine, its line models readied on the pool while the first page is detected
/// (`Engine::line_model_inputs`), side by side: a GPU runtime compiles a file per input shape.
/// Not on a pool of one thread: there nothing is beside the page, so the files compiled after
/// it, every one, where each now waits for a line that needs it (an H200, `docsift bench
/// --backend webgpu --threads 1`: phototest's second read waited for widths it never used,
/// 1.40 s, now 0.17 s).
#[cfg(feature = "parallel")]
fn prepared_beside(engine: Engine, readying: &Readying) -> Arc<Engine> {
    use rayon::prelude::*;
    let engine = Arc::new(engine);
    if rayon::current_num_threads() > 1 {
        let (ready, stop) = (Arc::clone(&engine), Arc::clone(&readying.stop));
        let (done, heard) = mpsc::channel();
        *readying.done.lock().unwrap_or_else(|p| p.into_inner()) = Some(heard);
        rayon::spawn(move || {
            ready.line_model_inputs().par_iter().filter(|_| !stop.load(Ordering::Relaxed)).for_each(
                |(model, shape)| {
                    ready.prepare(*model, shape);
                },
            );
            let _ = done.send(());
        });
    }
    engine
}

/// Without a pool, readying the line models early would only move the wait.
#[cfg(not(feature = "parallel"))]
fn prepared_beside(engine: Engine, _: &Readying) -> Arc<Engine> {
    Arc::new(engine)
}

impl std::fmt::Debug for OcrModels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OcrModels(loaded: {})", self.engine.get().is_some())
    }
}

/// Where `scripts/models.py` puts the models: `$DOCSIFT_MODELS`, else
/// `$XDG_CACHE_HOME` or `~/.cache`, then `docsift-tools/models`.
pub fn default_models_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("DOCSIFT_MODELS") {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_default();
    cache.join("docsift-tools").join("models")
}

/// The model files in `dir` that read `script`; the layout model is optional.
pub fn read_model_files(dir: &Path, script: Script) -> Result<Vec<(ModelKind, Vec<u8>)>, Error> {
    let mut files = Vec::new();
    for kind in ModelKind::ALL {
        let name = script.model_file(kind);
        match std::fs::read(dir.join(name)) {
            Ok(bytes) => files.push((kind, bytes)),
            Err(_) if kind == ModelKind::Layout => {}
            Err(e) => {
                return Err(Error::new(
                    ErrorKind::Model,
                    format!(
                        "OCR model {name} in {}: {e} (fetch the models with `python3 scripts/models.py`)",
                        dir.display()
                    ),
                ));
            }
        }
    }
    Ok(files)
}

/// OCR state of one open PDF: the engine, and a renderer opened on first need.
pub struct PdfOcr {
    models: Option<Arc<OcrModels>>,
    mode: OcrMode,
    layout: bool,
    /// A copy for the renderer, kept only when models are given.
    bytes: Option<Arc<[u8]>>,
    password: String,
    renderer: OnceLock<Result<PdfRenderer, String>>,
}

impl PdfOcr {
    pub fn new(bytes: &[u8], opts: &Options) -> Option<PdfOcr> {
        if opts.ocr == OcrMode::Off && !opts.layout {
            return None;
        }
        Some(PdfOcr {
            models: opts.ocr_models.clone(),
            mode: opts.ocr,
            layout: opts.layout,
            bytes: opts.ocr_models.is_some().then(|| Arc::from(bytes)),
            password: opts.password.clone().unwrap_or_default(),
            renderer: OnceLock::new(),
        })
    }

    /// OCRs the page when the mode asks for it; adds layout blocks when asked. A page that
    /// cannot be OCR'd keeps its native text and says why in a warning. `pictures` gives what
    /// its patterns, glyphs and annotations draw, its JPEG 2000 images and whether its Type 3
    /// glyphs nest (asked only when the page is about to be rendered).
    pub async fn process<'p>(
        &self,
        index: usize,
        page: &mut Page,
        pictures: impl FnOnce() -> PagePictures<'p>,
        keep_going: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), Error> {
        let ocr = match self.mode {
            OcrMode::Off => false,
            OcrMode::Force => true,
            OcrMode::Auto => needs_ocr(page),
        };
        if !ocr && !self.layout {
            return Ok(());
        }
        let Some(models) = &self.models else {
            if ocr {
                page.warnings.push(Warning::page(page.number, "the page needs OCR but no OCR models are given"));
            }
            return Ok(());
        };
        if let Some(why) = not_to_render(page, &pictures()) {
            let why = format!("the page could not be rendered for OCR: {why}");
            page.warnings.push(Warning::page(page.number, why));
            return Ok(());
        }
        let engine = models.engine()?;
        models.step(Step::Rendering);
        let renderer = self.renderer.get_or_init(|| {
            PdfRenderer::open(self.bytes.as_deref().unwrap_or_default(), &self.password).map_err(|e| e.to_string())
        });
        let rendered = match renderer {
            Ok(r) => r.render(index, render_dpi(page)).map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        };
        models.step(Step::Rendered);
        let rendered = match rendered {
            Ok(r) => r,
            Err(e) => {
                page.warnings.push(Warning::page(page.number, format!("the page could not be rendered for OCR: {e}")));
                return Ok(());
            }
        };
        if ocr {
            let (lines, warning) = page_lines(models, &engine, &rendered.image, page.number, keep_going).await?;
            docsift_ocr::lines_to_page(page, &lines, rendered.scale, engine.backend_name());
            page.warnings.extend(warning.map(|w| Warning::page(page.number, w)));
        }
        if self.layout && engine.has_layout() {
            models.step(Step::Layout);
            let regions = engine.layout(&rendered.image).await.map_err(to_error)?;
            docsift_ocr::regions_to_blocks(page, &regions, rendered.scale);
            if !ocr && let Some(info) = page.ocr.as_mut() {
                info.hybrid = true;
            }
        }
        Ok(())
    }
}

/// Page `index` (0-based) of an image file (PNG, JPEG, TIFF, WebP, GIF, BMP, PNM, JPEG 2000) in pixel
/// coordinates. A page of a multi-page TIFF that cannot be decoded is kept, empty, with a
/// warning saying why; a single picture that cannot be decoded is an error.
pub async fn image_page(
    file: &ImageFile<'_>,
    index: usize,
    opts: &Options,
    keep_going: &(dyn Fn() -> bool + Sync),
) -> Result<Page, Error> {
    let number = index + 1;
    let (img, warning, unread) = match file.page(index) {
        Ok(decoded) => (decoded.image, decoded.warning, decoded.unread),
        Err(e) if file.page_count() > 1 => {
            let mut page = Page { number, ..Page::default() };
            page.warnings.push(Warning::page(number, format!("the page could not be decoded: {e}")));
            return Ok(page);
        }
        Err(e) => return Err(to_error(e)),
    };
    let mut page = Page { number, width: img.width() as f32, height: img.height() as f32, ..Page::default() };
    page.warnings.extend(warning.map(|w| Warning::page(number, w)));
    let Some(models) = opts.ocr_models.as_ref().filter(|_| opts.ocr != OcrMode::Off) else {
        page.warnings.push(Warning::page(number, "an image has text only through OCR, which is off or has no models"));
        return Ok(page);
    };
    let engine = models.engine()?;
    let (mut lines, reread_warning) = page_lines(models, &engine, &img, number, keep_going).await?;
    page.warnings.extend(reread_warning.map(|w| Warning::page(number, w)));
    if let Some(unread) = unread {
        let clear = docsift_ocr::lines_clear_of(lines, &img, unread);
        lines = clear.lines;
        // What was left out of how many lines, told in the singular or the plural.
        let told = |n: usize, one: &str, many: String| (n > 0).then(|| if n == 1 { one.to_string() } else { many });
        let left_out = told(
            clear.left_out,
            "the line the picture breaks off in is left out: only part of its letters was decoded",
            format!(
                "{} lines the picture breaks off in are left out: only part of their letters was decoded",
                clear.left_out
            ),
        );
        let cut_short = told(
            clear.cut_short,
            "the letter the picture breaks off in is left out of its line: only part of it was decoded",
            format!(
                "the letters the picture breaks off in are left out of {} lines: only part of each was decoded",
                clear.cut_short
            ),
        );
        page.warnings.extend([left_out, cut_short].into_iter().flatten().map(|w| Warning::page(number, w)));
    }
    docsift_ocr::lines_to_page(&mut page, &lines, 1.0, engine.backend_name());
    if opts.layout && engine.has_layout() {
        models.step(Step::Layout);
        let regions = engine.layout(&img).await.map_err(to_error)?;
        docsift_ocr::regions_to_blocks(&mut page, &regions, 1.0);
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsift_model::{BBox, Image, TextTrust};
    use docsift_pdf::{IndirectPicture, JpxPicture, PicturePlace};

    fn scan(chars: usize) -> Page {
        let mut p = Page { width: 612.0, height: 792.0, ..Page::default() };
        p.images.push(Image {
            bbox: BBox::new(0.0, 0.0, 612.0, 792.0),
            width: 2550,
            height: 3300,
            filter: None,
            object: None,
            mask: None,
        });
        let c = docsift_model::Char {
            text: "a".into(),
            bbox: BBox::new(0.0, 0.0, 5.0, 10.0),
            font: "F".into(),
            size: 10.0,
            upright: true,
            direction: docsift_model::Direction::Ltr,
            origin: docsift_model::Origin::Native,
            matrix: docsift_model::Matrix::default(),
            color: Vec::new().into(),
            tag: None,
        };
        p.chars = vec![c; chars];
        p.trust = TextTrust { score: 1.0, glyphs: chars as u32, ..TextTrust::default() };
        p
    }

    #[test]
    fn a_picture_cut_short_is_a_page_that_says_so_and_one_cut_before_its_rows_is_malformed() -> Result<(), Error> {
        let pixels = (0..200 * 200 * 3).map(|i| (i % 251) as u8).collect();
        let picture = docsift_ocr::RgbImage::from_raw(200, 200, pixels).ok_or_else(|| Error::malformed("size"))?;
        let png = docsift_ocr::encode_png(&picture).map_err(to_error)?;
        let never = std::sync::atomic::AtomicBool::new(false);
        let read = |bytes: &[u8]| crate::extract(bytes, &Options::default(), &|_| {}, &never);
        let doc = read(&png[..png.len() * 6 / 10])?;
        assert!(doc.pages[0].warnings.iter().any(|w| w.message.contains("breaks off")), "{:?}", doc.pages[0].warnings);
        assert_eq!(read(&png[..33]).map_err(|e| e.kind).err(), Some(ErrorKind::Malformed));
        Ok(())
    }

    #[test]
    fn scans_and_garbage_need_ocr_but_text_and_blank_pages_do_not() {
        assert!(needs_ocr(&scan(0)));
        assert!(needs_ocr(&scan(5)));
        assert!(!needs_ocr(&scan(500)));
        assert!(!needs_ocr(&Page::default()));
        let mut garbage = scan(500);
        garbage.trust.score = 0.1;
        assert!(needs_ocr(&garbage));
    }

    #[test]
    fn a_page_with_an_image_or_mask_too_large_to_decode_keeps_its_text_and_says_why() -> Result<(), Error> {
        let never_loaded = OcrModels::lazy(|| Err(Error::new(ErrorKind::Model, "models are not needed here")));
        let opts = Options { ocr: OcrMode::Force, ocr_models: Some(Arc::new(never_loaded)), ..Options::default() };
        let ocr = PdfOcr::new(b"%PDF-1.4", &opts).ok_or_else(|| Error::new(ErrorKind::Model, "OCR is on"))?;
        let mut page = scan(500);
        page.number = 1;
        page.images[0].width = 65_000;
        page.images[0].height = 65_000;
        // A small image whose soft mask is the bomb.
        let mut masked = scan(500);
        masked.number = 2;
        masked.images[0].mask = Some([60_000, 60_000]);
        for (mut page, said) in
            [(page, "65000×65000 image is too large"), (masked, "60000×60000 image mask is too large")]
        {
            finished(ocr.process(0, &mut page, PagePictures::default, &|| true))?;
            assert_eq!(page.chars.len(), 500);
            let warned: Vec<&str> = page.warnings.iter().map(|w| w.message.as_str()).collect();
            assert!(matches!(warned[..], [m] if m.contains(said)), "{warned:?}");
        }
        // A scan's page image, and a mask of its size, are well within the limit.
        let mut scanned = scan(0);
        scanned.images[0].mask = Some([2550, 3300]);
        assert!(picture_too_large_to_render(&scanned, &PagePictures::default()).is_none());
        // One its annotation draws.
        let annotated = PagePictures {
            indirect: vec![IndirectPicture { place: PicturePlace::Annotation, mask: true, size: [50_000, 50_000] }],
            ..PagePictures::default()
        };
        assert_eq!(
            picture_too_large_to_render(&scanned, &annotated).as_deref(),
            Some("50000×50000 image mask in an annotation's appearance")
        );
        // JPEG 2000 images by what their codestreams declare (SIZ: size, origin, tile size, tile origin).
        let jpx = |place, [w, h, tile_w, tile_h]: [u32; 4]| {
            let fields = [w, h, 0, 0, tile_w, tile_h, 0, 0].map(u32::to_be_bytes).concat();
            let codestream = [&b"\xff\x4f\xff\x51\0\x2f\0\0"[..], &fields].concat().into();
            PagePictures { jpx: vec![JpxPicture { place, codestream }], ..PagePictures::default() }
        };
        let checked = |pictures| picture_too_large_to_render(&scanned, &pictures);
        assert_eq!(checked(jpx(None, [2550, 3300, 2550, 3300])), None);
        assert_eq!(checked(jpx(None, [2550, 3300, 256, 256])), None, "130 tiles");
        assert_eq!(checked(jpx(None, [40_000, 40_000, 1024, 1024])).as_deref(), Some("40000×40000 JPEG 2000 image"));
        assert_eq!(
            checked(jpx(Some(PicturePlace::Pattern), [96, 64_000_000, 96, 64])).as_deref(),
            Some("JPEG 2000 image of 1000000 tiles in a pattern")
        );
        // Drawings past the scan's budget are refused unchecked.
        let unchecked = PagePictures { unchecked: true, ..PagePictures::default() };
        assert_eq!(
            not_to_render(&scanned, &unchecked).as_deref(),
            Some("what it draws beyond its own content is more than 64 MB to check")
        );
        Ok(())
    }

    #[test]
    fn scans_render_at_their_own_resolution_within_bounds() {
        assert_eq!(render_dpi(&scan(0)), 300.0);
        assert_eq!(render_dpi(&Page::default()), DEFAULT_DPI);
    }

    /// A runtime that tells what it is readied for, and runs nothing.
    #[cfg(feature = "parallel")]
    struct Readied(std::sync::mpsc::Sender<ModelKind>);

    #[cfg(feature = "parallel")]
    impl docsift_ocr::Backend for Readied {
        fn name(&self) -> &'static str {
            "readied"
        }
        fn has(&self, _: ModelKind) -> bool {
            true
        }
        fn run(&self, model: ModelKind, _: &docsift_ocr::Tensor) -> Result<Vec<docsift_ocr::Tensor>, OcrError> {
            Err(OcrError::MissingModel(model))
        }
        fn prepare(&self, model: ModelKind, _: &[usize]) {
            let _ = self.0.send(model);
        }
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn line_models_are_readied_beside_the_first_page_only_where_the_pool_has_a_thread_to_spare()
    -> Result<(), rayon::ThreadPoolBuildError> {
        let first_readied = |threads: usize, wait: std::time::Duration| {
            let (tx, rx) = std::sync::mpsc::channel();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            let engine = Engine::new(Box::new(Readied(tx)), "a\nb\n", Script::Latin);
            let _models = pool.install(|| OcrModels::loaded(engine));
            Ok(rx.recv_timeout(wait).ok())
        };
        assert!(first_readied(2, std::time::Duration::from_secs(10))?.is_some());
        // An idle pool of one thread would have run a spawned job well within this.
        assert_eq!(first_readied(1, std::time::Duration::from_millis(500))?, None);
        Ok(())
    }

    /// A runtime of static recognition shapes, each readied slowly (a GPU compiling a file),
    /// counting those begun and those done.
    #[cfg(feature = "parallel")]
    struct SlowlyReadied {
        begun: std::sync::mpsc::Sender<()>,
        done: Arc<AtomicUsize>,
    }

    #[cfg(feature = "parallel")]
    impl docsift_ocr::Backend for SlowlyReadied {
        fn name(&self) -> &'static str {
            "slowly readied"
        }
        fn has(&self, model: ModelKind) -> bool {
            model == ModelKind::Recognition
        }
        fn fixed_shapes(&self, _: ModelKind) -> Option<Vec<Vec<usize>>> {
            Some((1..=8).map(|k| vec![1, 3, 48, 320 * k]).collect())
        }
        fn run(&self, model: ModelKind, _: &docsift_ocr::Tensor) -> Result<Vec<docsift_ocr::Tensor>, OcrError> {
            Err(OcrError::MissingModel(model))
        }
        fn prepare(&self, _: ModelKind, _: &[usize]) {
            let _ = self.begun.send(());
            std::thread::sleep(Duration::from_millis(300));
            self.done.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn dropped_models_finish_the_files_being_readied_and_leave_the_rest() -> Result<(), rayon::ThreadPoolBuildError> {
        let (begun, heard) = std::sync::mpsc::channel();
        let done = Arc::new(AtomicUsize::new(0));
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
        let engine = Engine::new(Box::new(SlowlyReadied { begun, done: done.clone() }), "a\nb\n", Script::Latin);
        let models = pool.install(|| OcrModels::loaded(engine));
        assert!(heard.recv_timeout(Duration::from_secs(10)).is_ok(), "no file readied");
        drop(models);
        let begun = 1 + heard.try_iter().count();
        assert_eq!(done.load(Ordering::SeqCst), begun, "a file was still being readied");
        assert!(begun < 8, "every file was readied after the drop");
        Ok(())
    }
}
