//! The JSPI OCR build's way to the GPU worker, for pages that are not cross-origin isolated
//! (no shared memory, so no mailbox): each model call hands its input to a JS function
//! (`setGpuRunner`; pkg/ocr-worker.js posts it to the GPU worker) and suspends this wasm
//! stack on the promise of the outputs (JS Promise Integration), while the worker's event
//! loop runs. Only calls under this build's `jspi` exports (`extractImage`,
//! `Doc.extractPages`) can suspend; a runner that fails or answers nonsense is an error,
//! and the engine's CPU fallback takes over.

use std::cell::RefCell;

use docsift::ModelKind;
use docsift::ocr_models::{OcrError, Tensor};
use js_sys::{Array, Float32Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;

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

/// Model calls through the runner, suspending until it answers.
pub struct Suspending;

impl Transport for Suspending {
    fn call(&self, model: ModelKind, input: &Tensor, shape: [usize; 4]) -> Result<Vec<Tensor>, OcrError> {
        let err = |message: String| OcrError::Model { model, message: format!("WebGPU: {message}") };
        // Cloned out: another call may set the runner while this one is suspended.
        let runner = RUNNER.with_borrow(Clone::clone).ok_or_else(|| err("no GPU runner is set".into()))?;
        let dims: Array = shape.iter().map(|&d| JsValue::from(d as u32)).collect();
        // A copy: the input's memory is this module's, which may grow while suspended.
        let data = Float32Array::from(input.data.as_slice());
        let answer = runner
            .call3(&JsValue::NULL, &(model_index(model) as u32).into(), &dims, &data)
            .map_err(|e| err(describe(&e)))?;
        let promise = answer.dyn_into::<Promise>().map_err(|_| err("the GPU runner returned no promise".into()))?;
        let outputs = js_sys::futures::jspi_block_on_promise(&promise).map_err(|e| err(describe(&e)))?;
        outputs_to_tensors(&outputs).map_err(err)
    }
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
