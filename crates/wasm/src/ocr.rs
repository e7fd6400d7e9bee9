//! The OCR build: the models (given as bytes by the worker, which fetched them from the
//! page's origin) run on the CPU with tract; images become one-page documents.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use docsift::{Error, ErrorKind, ModelKind, OcrEngine, OcrModels};
use wasm_bindgen::prelude::*;

use crate::{to_js, to_js_error, wire};

static MODELS: OnceLock<Arc<OcrModels>> = OnceLock::new();

pub fn models() -> Option<Arc<OcrModels>> {
    MODELS.get().cloned()
}

/// Loads the models (ONNX bytes; layout optional). Once per module instance.
#[wasm_bindgen(js_name = setOcrModels)]
pub fn set_ocr_models(det: &[u8], rec: &[u8], cls: &[u8], layout: Option<Vec<u8>>) -> Result<(), JsValue> {
    if MODELS.get().is_some() {
        return Ok(());
    }
    let mut files = vec![(ModelKind::Detection, det), (ModelKind::Recognition, rec), (ModelKind::Orientation, cls)];
    if let Some(l) = layout.as_deref() {
        files.push((ModelKind::Layout, l));
    }
    let engine = OcrEngine::from_onnx(&files).map_err(|e| to_js_error(Error::new(ErrorKind::Model, e.to_string())))?;
    let _ = MODELS.set(Arc::new(OcrModels::loaded(engine)));
    Ok(())
}

/// A PNG/JPEG/TIFF image read by OCR: `{meta, page}` with the page on the wire, in pixels.
#[wasm_bindgen(js_name = extractImage)]
pub fn extract_image(bytes: &[u8]) -> Result<JsValue, JsValue> {
    let opts = crate::options(None, None)?;
    let doc = docsift::extract(bytes, &opts, &|_| {}, &AtomicBool::new(false)).map_err(to_js_error)?;
    let meta = to_js(&doc.meta);
    let page = doc.pages.into_iter().next().ok_or_else(|| to_js_error(Error::malformed("the image has no page")))?;
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"meta".into(), &meta)?;
    js_sys::Reflect::set(&out, &"page".into(), &wire::WirePage::build(page).to_js())?;
    Ok(out.into())
}
