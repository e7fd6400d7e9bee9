//! The OCR build: the models (given as bytes by the worker, which fetched them from the
//! page's origin) run on the CPU with tract; images become documents, a page per TIFF page.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, RwLock};

use docsift::ocr_models::{OcrError, Script};
use docsift::{Error, ErrorKind, ModelKind, OcrEngine, OcrModels, OcrStep};
use wasm_bindgen::prelude::*;

use crate::{to_js, to_js_error, wire};

/// Replaced when the worker loads the models again with the layout model added.
static MODELS: RwLock<Option<Arc<OcrModels>>> = RwLock::new(None);

pub fn models() -> Option<Arc<OcrModels>> {
    MODELS.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Loads the models (ONNX bytes; layout optional), replacing those loaded before. With `gpu`,
/// the names of the prepared files the WebGPU worker serves (threaded builds: through the
/// mailbox; single-threaded: through `setGpuRunner`): those models run there, the rest — and all
/// of them should the GPU fail — on the CPU. `script`: "all" (default), "latin" or "cjk" (see
/// `Script`; `rec` is then that script's model, `Script::model_file`, and the GPU worker serves
/// that model's prepared files).
#[wasm_bindgen(js_name = setOcrModels)]
pub fn set_ocr_models(
    det: &[u8],
    rec: &[u8],
    cls: &[u8],
    layout: Option<Vec<u8>>,
    gpu: Option<Vec<String>>,
    script: Option<String>,
) -> Result<(), JsValue> {
    let mut files = vec![(ModelKind::Detection, det), (ModelKind::Recognition, rec), (ModelKind::Orientation, cls)];
    if let Some(l) = layout.as_deref() {
        files.push((ModelKind::Layout, l));
    }
    let model_err = |e: OcrError| to_js_error(Error::new(ErrorKind::Model, e.to_string()));
    let script = match script.as_deref() {
        None | Some("all") => Script::All,
        Some("latin") => Script::Latin,
        Some("cjk") => Script::Cjk,
        Some(other) => {
            return Err(to_js_error(Error::new(ErrorKind::Unsupported, format!("unknown OCR script {other:?}"))));
        }
    };
    let engine = match gpu {
        None => OcrEngine::from_onnx(&files, script).map_err(model_err)?,
        Some(prepared) => on_gpu(&files, &prepared, script).map_err(model_err)?,
    };
    let models = OcrModels::loaded(engine).with_steps(record_step);
    *MODELS.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(models));
    Ok(())
}

/// Gives the loaded models (`setOcrModels`, the default script's) the "cjk" script's
/// recognition model `rec` (with detection's and orientation's, as `setOcrModels` took them):
/// from now on a page whose East Asian letters they read unsurely is read again with it, on the
/// CPU (`OcrModels::read_east_asian_again_with`). The worker fetches it only once a page needed
/// it (`takeEastAsianUnread`). False where no models are loaded or it was given before.
#[wasm_bindgen(js_name = setOcrEastAsianModel)]
pub fn set_ocr_east_asian_model(det: Vec<u8>, rec: Vec<u8>, cls: Vec<u8>) -> bool {
    let Some(models) = models() else { return false };
    models.read_east_asian_again_with(move || {
        let files =
            [(ModelKind::Detection, &det[..]), (ModelKind::Recognition, &rec[..]), (ModelKind::Orientation, &cls[..])];
        OcrEngine::from_onnx(&files, Script::Cjk).map_err(|e| Error::new(ErrorKind::Model, e.to_string()))
    })
}

/// The numbers of the pages read since last asked whose East Asian letters the loaded models
/// read unsurely, with no model to read them again (`OcrModels::take_east_asian_unread`).
#[wasm_bindgen(js_name = takeEastAsianUnread)]
pub fn take_east_asian_unread() -> Vec<u32> {
    models().map(|m| m.take_east_asian_unread().into_iter().map(|n| n as u32).collect()).unwrap_or_default()
}

/// Reads a made page with the loaded models, so that the first real page finds the
/// pipeline's code compiled (`OcrModels::warm_up`); gives the runtime the models ran on
/// ("tract" or "wonnx", as a page's `ocr.engine`). A promise: the model calls may wait for
/// the GPU worker.
#[wasm_bindgen(js_name = warmOcr)]
pub async fn warm_ocr() -> Result<String, JsValue> {
    let models = models().ok_or_else(|| to_js_error(Error::new(ErrorKind::Model, "no OCR models are loaded")))?;
    models.warm_up().await.map(str::to_owned).map_err(to_js_error)
}

#[cfg(target_arch = "wasm32")]
fn on_gpu(files: &[(ModelKind, &[u8])], prepared: &[String], script: Script) -> Result<OcrEngine, OcrError> {
    OcrEngine::preferring(crate::gpu::backend(prepared, script), files, script)
}

#[cfg(not(target_arch = "wasm32"))]
fn on_gpu(_: &[(ModelKind, &[u8])], _: &[String], _: Script) -> Result<OcrEngine, OcrError> {
    Err(OcrError::Model { model: ModelKind::Detection, message: "WebGPU needs the browser".into() })
}

/// The page's OCR stage: [1 detection | 2 orientation | 3 recognition | 4 layout |
/// 5 rendering, calls done, calls in all, renders begun, renders ended]. The main thread of an
/// isolated page reads the first three while a page is being read (`stepWords`), for progress
/// inside the page; the docsift worker reads the render counts to end a render that takes too
/// long (pages read side by side on the pool overwrite each other's stage, not the counts).
static STEP: [AtomicI32; 5] = [const { AtomicI32::new(0) }; 5];

#[cfg(not(feature = "threads"))]
thread_local! {
    /// Without shared memory nobody can read `STEP` while a page is read: the worker's
    /// listener is called instead (`setStepListener`).
    static STEP_LISTENER: std::cell::RefCell<Option<js_sys::Function>> = const { std::cell::RefCell::new(None) };
}

fn record_step(step: OcrStep) {
    let (code, done, total) = match step {
        OcrStep::Detection => (1, 0, 1),
        OcrStep::Orientation { done, total } => (2, done, total),
        OcrStep::Recognition { done, total } => (3, done, total),
        OcrStep::Layout => (4, 0, 1),
        OcrStep::Rendering => {
            STEP[3].fetch_add(1, Ordering::Release);
            (5, 0, 1)
        }
        OcrStep::Rendered => {
            // Not a stage of its own: the page's next step follows.
            STEP[4].fetch_add(1, Ordering::Release);
            return;
        }
    };
    STEP[1].store(done as i32, Ordering::Relaxed);
    STEP[2].store(total as i32, Ordering::Relaxed);
    STEP[0].store(code, Ordering::Release);
    #[cfg(not(feature = "threads"))]
    STEP_LISTENER.with_borrow(|listener| {
        if let Some(f) = listener {
            // A throwing listener must not stop the page: progress is advisory.
            let _ = f.call3(&JsValue::NULL, &code.into(), &(done as u32).into(), &(total as u32).into());
        }
    });
}

/// Calls `listener(stage, done, total)` (the codes of `STEP`) at each OCR stage, in builds
/// without shared memory; the threaded builds publish `stepWords` instead and ignore it.
#[wasm_bindgen(js_name = setStepListener)]
pub fn set_step_listener(listener: Option<js_sys::Function>) {
    #[cfg(not(feature = "threads"))]
    STEP_LISTENER.set(listener);
    #[cfg(feature = "threads")]
    let _ = listener;
}

/// `{ memory, address }` of the stage words (see `STEP`); null where memory is not shared.
#[wasm_bindgen(js_name = stepWords)]
pub fn step_words() -> JsValue {
    crate::shared_words(STEP.as_ptr() as usize)
}

/// Where the WebGPU worker finds the mailbox: this module's shared memory and the address
/// in it (see gpu.rs); null in builds without shared memory.
#[wasm_bindgen(js_name = gpuMailbox)]
pub fn gpu_mailbox() -> JsValue {
    #[cfg(all(target_arch = "wasm32", feature = "threads"))]
    return crate::shared_words(crate::gpu::mailbox_address());
    #[cfg(not(all(target_arch = "wasm32", feature = "threads")))]
    JsValue::NULL
}

/// The 0-based indices of an image file's pages to read (1-based `pages`, all when absent),
/// validated: a multi-page TIFF has several, the other formats one.
#[wasm_bindgen(js_name = imagePages)]
pub fn image_pages(bytes: &[u8], pages: Option<Vec<u32>>) -> Result<Vec<u32>, JsValue> {
    let list: Option<Vec<usize>> = pages.map(|p| p.into_iter().map(|n| n as usize).collect());
    let wanted = docsift::pages_wanted(list.as_deref(), docsift::image_page_count(bytes)).map_err(to_js_error)?;
    Ok(wanted.into_iter().map(|i| i as u32).collect())
}

/// Pages `indices` (0-based) of an image read by OCR side by side on the pool, as
/// `extractImage` reads one.
#[cfg(feature = "threads")]
#[wasm_bindgen(js_name = extractImagePages)]
pub fn extract_image_pages(bytes: &[u8], layout: Option<bool>, indices: Vec<u32>) -> Result<JsValue, JsValue> {
    let opts = image_options(layout, indices.iter().map(|&i| i as usize + 1).collect())?;
    image_reply(docsift::extract_until(bytes, &opts, &|_| {}, &crate::keep_going).map_err(to_js_error)?)
}

/// Page `index` (0-based, default 0) of an image read by OCR: `{meta, pages, warnings}`
/// with the page on the wire, in pixels; with `layout`, its layout regions as blocks. A
/// promise of it: its model calls may wait for the GPU worker (see gpu/message.rs).
#[wasm_bindgen(js_name = extractImage)]
pub async fn extract_image(bytes: &[u8], layout: Option<bool>, index: Option<u32>) -> Result<JsValue, JsValue> {
    let opts = image_options(layout, vec![index.unwrap_or(0) as usize + 1])?;
    image_reply(docsift::extract_image(bytes, &opts, &|_| {}, &crate::keep_going).await.map_err(to_js_error)?)
}

/// Options reading an image's pages (1-based `pages`).
fn image_options(layout: Option<bool>, pages: Vec<usize>) -> Result<docsift::Options, JsValue> {
    let mut opts = crate::options(None, None, layout.unwrap_or(false))?;
    opts.pages = Some(pages);
    Ok(opts)
}

/// `{meta, pages, warnings}` of an image's document, its pages on the wire.
fn image_reply(doc: docsift::Document) -> Result<JsValue, JsValue> {
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"meta".into(), &to_js(&doc.meta))?;
    js_sys::Reflect::set(&out, &"warnings".into(), &to_js(&doc.warnings))?;
    let pages: js_sys::Array = doc.pages.into_iter().map(|p| wire::WirePage::build(p).to_js()).collect();
    js_sys::Reflect::set(&out, &"pages".into(), &pages)?;
    Ok(out.into())
}
