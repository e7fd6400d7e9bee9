//! The single-threaded OCR builds' way to the GPU worker, for pages that are not
//! cross-origin isolated (no shared memory, so no mailbox): each model call hands its input
//! to a JS function (`setGpuRunner`; pkg/ocr-worker.js posts it to the GPU worker) and the
//! pipeline awaits the promise of the outputs, while the worker's event loop runs; the
//! exports that read pages (`extractImage`, `Doc.extractPages`) return promises. A runner
//! that fails or answers nonsense is an error, and the engine's CPU fallback takes over.

use std::cell::RefCell;

use docsift::ModelKind;
use docsift::ocr_models::{ModelCall, OcrError, Tensor};
use js_sys::{Array, Float32Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::{Transport, model_index};

thread_local! {
    static RUNNER: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Sets the function model calls go to: `(model, shape, input) => Promise<[{ shape, data }]>`,
/// with `model` an index of `ModelKind::ALL`, `shape` N×C×H×W and `input`/`data` Float32Arrays.
#[wasm_bindgen(js_name = setGpuRunner)]
pub fn set_gpu_runner(runner: Option<Function>) {
    RUNNER.set(runner);
}

/// Model calls through the runner, answered when its promise settles.
pub struct Message;

impl Transport for Message {
    fn call(&self, model: ModelKind, input: &Tensor, shape: [usize; 4]) -> ModelCall<'static> {
        let err = move |message: String| OcrError::Model { model, message: format!("WebGPU: {message}") };
        let promise = match ask(model, input, shape) {
            Ok(promise) => promise,
            Err(message) => return Box::pin(std::future::ready(Err(err(message)))),
        };
        Box::pin(async move {
            let outputs = JsFuture::from(promise).await.map_err(|e| err(describe(&e)))?;
            outputs_to_tensors(&outputs).map_err(err)
        })
    }
}

/// Hands a model call to the runner: the promise of its outputs.
fn ask(model: ModelKind, input: &Tensor, shape: [usize; 4]) -> Result<Promise, String> {
    let runner = RUNNER.with_borrow(Clone::clone).ok_or("no GPU runner is set")?;
    let dims: Array = shape.iter().map(|&d| JsValue::from(d as u32)).collect();
    // A copy, transferred to the GPU worker: the input's memory is this module's.
    let data = Float32Array::from(input.data.as_slice());
    let answer =
        runner.call3(&JsValue::NULL, &(model_index(model) as u32).into(), &dims, &data).map_err(|e| describe(&e))?;
    answer.dyn_into::<Promise>().map_err(|_| "the GPU runner returned no promise".into())
}

/// A thrown or rejected value's message.
fn describe(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| Reflect::get(e, &"message".into()).ok().and_then(|m| m.as_string()))
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The runner's answer, `[{ shape, data }]`, as tensors whose shapes hold their data.
fn outputs_to_tensors(outputs: &JsValue) -> Result<Vec<Tensor>, String> {
    let list = outputs.dyn_ref::<Array>().ok_or("the outputs are not an array")?;
    list.iter()
        .map(|o| {
            let shape = Reflect::get(&o, &"shape".into())
                .ok()
                .and_then(|s| s.dyn_into::<Array>().ok())
                .ok_or("an output has no shape")?;
            let shape: Vec<usize> = shape
                .iter()
                .map(|d| d.as_f64().filter(|d| *d >= 0.0 && d.fract() == 0.0).map(|d| d as usize))
                .collect::<Option<_>>()
                .ok_or("an output's shape is not of sizes")?;
            let data = Reflect::get(&o, &"data".into())
                .ok()
                .and_then(|d| d.dyn_into::<Float32Array>().ok())
                .ok_or("an output has no Float32Array data")?;
            if data.length() as usize != shape.iter().product::<usize>() {
                return Err(format!("an output of {} values does not have shape {shape:?}", data.length()));
            }
            Ok(Tensor::new(shape, data.to_vec()))
        })
        .collect()
}
