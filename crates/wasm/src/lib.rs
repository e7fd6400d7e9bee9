//! docsift in the browser: wasm-bindgen bindings of the facade. The module runs inside a
//! dedicated Web Worker (pkg/worker.js drives it); the JS side loops over page batches so
//! progress is reported and an abort lands between batches. With the `threads` feature,
//! each batch is extracted in parallel on a wasm-bindgen-rayon pool.

// The threaded builds are nightly-only anyway (build-std); the GPU mailbox blocks on
// `memory.atomic.wait32`, whose intrinsic is not stable yet.
#![cfg_attr(all(target_arch = "wasm32", feature = "threads", feature = "ocr"), feature(stdarch_wasm_atomic_wait))]

use std::sync::atomic::{AtomicI32, Ordering};

use docsift::dedup::{Config, Index, Shingles};
use docsift::{Error, ErrorKind, OpenDocument, Options, TextOptions};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[cfg(any(test, all(target_arch = "wasm32", feature = "threads")))]
mod alloc;
#[cfg(all(target_arch = "wasm32", feature = "ocr"))]
mod gpu;
#[cfg(feature = "ocr")]
mod ocr;
mod wire;

/// The threaded build replaces std's single-lock wasm allocator (see alloc.rs).
#[cfg(all(target_arch = "wasm32", feature = "threads"))]
#[global_allocator]
static ALLOCATOR: alloc::ThreadCaching = alloc::ThreadCaching;

#[cfg(feature = "threads")]
pub use wasm_bindgen_rayon::init_thread_pool;

/// The worker global a panic's message is left on (see `start`).
const PANIC_GLOBAL: &str = "docsiftPanic";

/// The wasm builds cannot unwind: a panic logs itself (as console_error_panic_hook does),
/// leaves its message on the thread's global as `PANIC_GLOBAL`, and aborts. The worker
/// reports that message with the trap that follows, then gives up the instance, whose memory
/// is as the panic left it. A panic on a pool thread traps that thread's worker, while the
/// worker that called into the pool waits for the job for ever: its message also goes to the
/// broadcast channel named by `setPanicChannel`, for the caller's parent to end the worker.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let message = info.to_string();
        let _ = js_sys::Reflect::set(&js_sys::global(), &PANIC_GLOBAL.into(), &message.as_str().into());
        #[cfg(feature = "threads")]
        if rayon::current_thread_index().is_some() {
            pool_panic::broadcast(&message);
        }
    }));
}

/// Where a pool thread's panic is told (see `start`).
#[cfg(feature = "threads")]
mod pool_panic {
    use std::sync::Mutex;

    use wasm_bindgen::prelude::*;

    /// The channel's name, set by the worker that owns the pool; shared by every thread.
    static CHANNEL: Mutex<String> = Mutex::new(String::new());

    #[wasm_bindgen]
    extern "C" {
        type BroadcastChannel;
        #[wasm_bindgen(constructor, catch)]
        fn new(name: &str) -> Result<BroadcastChannel, JsValue>;
        #[wasm_bindgen(method, js_name = postMessage)]
        fn post_message(this: &BroadcastChannel, message: &str);
        #[wasm_bindgen(method)]
        fn close(this: &BroadcastChannel);
    }

    /// Names the broadcast channel (same origin) a panic on a pool thread is posted to, as
    /// its message: the worker's parent listens there, as the worker itself waits on the job.
    #[wasm_bindgen(js_name = setPanicChannel)]
    pub fn set_panic_channel(name: String) {
        *CHANNEL.lock().unwrap_or_else(|p| p.into_inner()) = name;
    }

    pub(crate) fn broadcast(message: &str) {
        // try_lock: a panic while the name is being set must not wait on itself.
        let Ok(name) = CHANNEL.try_lock() else { return };
        if name.is_empty() {
            return;
        }
        if let Ok(channel) = BroadcastChannel::new(&name) {
            channel.post_message(message);
            channel.close();
        }
    }
}

/// [the job being extracted, the job to cancel]: the worker sets the first before each call;
/// an abort sets the second — in the threaded build straight from the page's main thread
/// into this shared memory (`cancelWords`), so a batch of pages stops at its next page
/// instead of after the batch. (A page being read by OCR is stopped by ending its worker.)
static JOBS: [AtomicI32; 2] = [AtomicI32::new(0), AtomicI32::new(0)];

/// Whether the running job may go on.
fn keep_going() -> bool {
    let running = JOBS[0].load(Ordering::Relaxed);
    running == 0 || JOBS[1].load(Ordering::Relaxed) != running
}

/// Marks `id` as the job the next calls work for.
#[wasm_bindgen(js_name = setJob)]
pub fn set_job(id: i32) {
    JOBS[0].store(id, Ordering::Relaxed);
}

/// `{ memory, address }` of the two job words, for the main thread to write an abort into
/// (`Atomics.store(words, 1, id)`); null where memory is not shared.
#[wasm_bindgen(js_name = cancelWords)]
pub fn cancel_words() -> JsValue {
    shared_words(JOBS.as_ptr() as usize)
}

/// `{ memory, address }` of words in this module's memory when it is shared (threaded builds).
pub(crate) fn shared_words(address: usize) -> JsValue {
    #[cfg(all(target_arch = "wasm32", feature = "threads"))]
    {
        let out = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&out, &"memory".into(), &wasm_bindgen::memory());
        let _ = js_sys::Reflect::set(&out, &"address".into(), &(address as u32).into());
        out.into()
    }
    #[cfg(not(all(target_arch = "wasm32", feature = "threads")))]
    {
        let _ = address;
        JsValue::NULL
    }
}

/// Whether this build reads pages and images by OCR (once `setOcrModels` was called).
#[wasm_bindgen(js_name = hasOcr)]
pub fn has_ocr() -> bool {
    cfg!(feature = "ocr")
}

/// Extraction options of the worker's calls: the password, and in the OCR build the OCR
/// mode ("auto", "force", "off") and layout regions, with the models given to `setOcrModels`.
fn options(password: Option<String>, ocr: Option<String>, layout: bool) -> Result<Options, JsValue> {
    let mode = match ocr.as_deref() {
        None | Some("auto") => docsift::OcrMode::Auto,
        Some("off") => docsift::OcrMode::Off,
        Some("force") => docsift::OcrMode::Force,
        Some(other) => {
            return Err(to_js_error(Error::new(
                ErrorKind::Unsupported,
                format!("ocr must be auto, off or force, not {other:?}"),
            )));
        }
    };
    Ok(Options {
        password,
        ocr: mode,
        layout,
        #[cfg(feature = "ocr")]
        ocr_models: ocr::models(),
        ..Options::default()
    })
}

/// Whether the input is an image (PNG, JPEG, TIFF, WebP, GIF, BMP, PNM, JPEG 2000), read only by OCR.
#[wasm_bindgen(js_name = isImage)]
pub fn is_image(bytes: &[u8]) -> bool {
    docsift::sniff(bytes) == Some(docsift::Format::Image)
}

/// Whether this build extracts pages in parallel.
#[wasm_bindgen]
pub fn threaded() -> bool {
    cfg!(feature = "threads")
}

/// The JS error class a docsift error becomes on the main thread.
fn error_name(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Encrypted { .. } => "PasswordRequiredError",
        ErrorKind::Malformed => "MalformedPdfError",
        ErrorKind::LimitExceeded => "LimitExceededError",
        ErrorKind::Unsupported => "UnsupportedInputError",
        ErrorKind::Cancelled => "AbortError",
        ErrorKind::Model | ErrorKind::Io => "DocsiftError",
    }
}

#[derive(Serialize)]
struct JsErrorShape<'a> {
    name: &'a str,
    code: &'a str,
    message: &'a str,
}

/// Errors cross to JS as plain `{name, code, message}` objects (structured-clonable, so
/// the worker can post them and the main thread rebuild the class).
fn to_js_error(e: Error) -> JsValue {
    to_js(&JsErrorShape { name: error_name(&e.kind), code: e.code(), message: &e.message })
}

pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL)
}

/// An opened document; pages are extracted in batches the worker asks for.
#[wasm_bindgen]
pub struct Doc {
    inner: OpenDocument,
    text: TextOptions,
}

#[wasm_bindgen]
impl Doc {
    /// `ocr` ("auto", "force", "off") and `layout` (layout regions as page blocks, with the
    /// layout model) matter only in the OCR build.
    #[wasm_bindgen(constructor)]
    pub fn new(
        bytes: &[u8],
        password: Option<String>,
        ocr: Option<String>,
        layout: Option<bool>,
    ) -> Result<Doc, JsValue> {
        let opts = options(password, ocr, layout.unwrap_or(false))?;
        let inner = OpenDocument::open(bytes, &opts).map_err(to_js_error)?;
        Ok(Doc { inner, text: TextOptions::default() })
    }

    #[wasm_bindgen(js_name = pageCount)]
    pub fn page_count(&self) -> usize {
        self.inner.page_count()
    }

    /// 1-based page numbers (all pages when absent) -> 0-based indices, validated.
    #[wasm_bindgen(js_name = resolvePages)]
    pub fn resolve_pages(&self, pages: Option<Vec<u32>>) -> Result<Vec<u32>, JsValue> {
        let list: Option<Vec<usize>> = pages.map(|p| p.into_iter().map(|n| n as usize).collect());
        let idx = self.inner.resolve_pages(list.as_deref()).map_err(to_js_error)?;
        Ok(idx.into_iter().map(|i| i as u32).collect())
    }

    /// Extracts the pages at 0-based `indices` (in parallel in the threaded build): an
    /// array of pages in the wire format of `wire.rs`, which pkg/decode.js reads.
    #[cfg(not(all(feature = "ocr", not(feature = "threads"))))]
    #[wasm_bindgen(js_name = extractPages)]
    pub fn extract_pages(&self, indices: Vec<u32>) -> Result<js_sys::Array, JsValue> {
        let idx: Vec<usize> = indices.into_iter().map(|i| i as usize).collect();
        let pages = self
            .inner
            .extract_pages_into(&idx, &self.text, &keep_going, &wire::WirePage::build)
            .map_err(to_js_error)?;
        Ok(pages.iter().map(wire::WirePage::to_js).collect())
    }

    /// As above, in the single-threaded OCR build: a promise of the pages, extracted one
    /// after another, whose model calls may wait for the GPU worker (see gpu/message.rs).
    #[cfg(all(feature = "ocr", not(feature = "threads")))]
    #[wasm_bindgen(js_name = extractPages)]
    pub async fn extract_pages(&self, indices: Vec<u32>) -> Result<js_sys::Array, JsValue> {
        let pages = js_sys::Array::new();
        for index in indices {
            let page = self.inner.extract_page_async(index as usize, &self.text, &keep_going).await;
            if !keep_going() {
                return Err(to_js_error(Error::new(ErrorKind::Cancelled, "extraction cancelled")));
            }
            pages.push(&wire::WirePage::build(page.map_err(to_js_error)?).to_js());
        }
        Ok(pages)
    }

    pub fn meta(&self) -> JsValue {
        to_js(&self.inner.meta())
    }

    pub fn warnings(&self) -> JsValue {
        to_js(&self.inner.warnings())
    }
}

/// The plain text of any input docsift reads (for dedup): PDF pages joined by form feeds,
/// text files as they are.
#[wasm_bindgen(js_name = textOf)]
pub fn text_of(bytes: &[u8], password: Option<String>) -> Result<String, JsValue> {
    docsift::text_of(bytes, &Options { password, ..Options::default() }).map_err(to_js_error)
}

/// The main content of a web page or text file (Readability), with its metadata and
/// encoding: the `docsift-html/1` object, as the CLI's `docsift html --format json`.
#[wasm_bindgen(js_name = extractHtml)]
pub fn extract_html(bytes: &[u8], url: Option<String>) -> Result<JsValue, JsValue> {
    let doc = docsift::extract_html(bytes, &docsift::HtmlOptions { url, ..Default::default() }).map_err(to_js_error)?;
    Ok(to_js(&doc))
}

/// A near-duplicate index; `toBytes` / `fromBytes` let the page keep it (IndexedDB).
#[wasm_bindgen]
pub struct DedupIndex {
    inner: Index,
}

#[wasm_bindgen]
impl DedupIndex {
    /// `shingles`: "words:N" or "chars:N".
    #[wasm_bindgen(constructor)]
    pub fn new(
        threshold: Option<f64>,
        num_perm: Option<usize>,
        shingles: Option<String>,
    ) -> Result<DedupIndex, JsValue> {
        let mut config = Config::default();
        if let Some(t) = threshold {
            config.threshold = t;
        }
        if let Some(n) = num_perm {
            config.num_perm = n;
        }
        if let Some(spec) = shingles {
            let bad = || {
                to_js_error(Error::new(
                    ErrorKind::Unsupported,
                    format!("shingles must be words:N or chars:N, not {spec:?}"),
                ))
            };
            let (kind, n) = spec.split_once(':').ok_or_else(bad)?;
            let n: usize = n.parse().map_err(|_| bad())?;
            config.shingles = match kind {
                "words" => Shingles::Words(n),
                "chars" => Shingles::Chars(n),
                _ => return Err(bad()),
            };
        }
        Ok(DedupIndex { inner: Index::new(config) })
    }

    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8]) -> Result<DedupIndex, JsValue> {
        Index::from_bytes(bytes)
            .map(|inner| DedupIndex { inner })
            .map_err(|e| to_js_error(Error::new(ErrorKind::Malformed, e.to_string())))
    }

    /// Adds a document; returns its near-duplicates among earlier ones
    /// (`[{id, score, method}]`).
    pub fn add(&mut self, id: &str, text: &str) -> JsValue {
        let m: Vec<serde_json::Value> = self
            .inner
            .add(id, text)
            .into_iter()
            .map(|(other, score, method)| serde_json::json!({ "id": other, "score": score, "method": method }))
            .collect();
        to_js(&m)
    }

    /// Duplicate groups: `[{members, pairs: [{a, b, score, method}]}]`.
    pub fn groups(&self) -> JsValue {
        to_js(&self.inner.groups())
    }

    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self) -> Vec<u8> {
        self.inner.to_bytes()
    }

    pub fn size(&self) -> usize {
        self.inner.len()
    }
}
