//! Models on the page's GPU from the OCR builds: the pipeline stays here (Rust,
//! synchronous), and each model call goes to the WebGPU worker (pkg/webgpu-worker.js,
//! wonnx), which runs the prepared file for that model and input shape. Two ways there:
//! the threaded build blocks on a mailbox in its shared memory (`mailbox`: cross-origin
//! isolated pages); the JSPI build suspends on the worker's answer (`jspi`: any page, on
//! engines with JS Promise Integration).

use std::collections::HashMap;

use docsift::ModelKind;
use docsift::ocr_models::{Backend, OcrError, Tensor};

#[cfg(feature = "jspi")]
mod jspi;
#[cfg(feature = "threads")]
mod mailbox;

#[cfg(feature = "threads")]
pub use mailbox::mailbox_address;

/// How a model call reaches the GPU worker and its outputs come back.
pub trait Transport: Send + Sync {
    fn call(&self, model: ModelKind, input: &Tensor, shape: [usize; 4]) -> Result<Vec<Tensor>, OcrError>;
}

/// A model's index as the GPU worker names it (`MODEL_FILES` in pkg/webgpu-worker.js).
pub fn model_index(model: ModelKind) -> usize {
    ModelKind::ALL.iter().position(|&k| k == model).unwrap_or(0)
}

/// The prepared models the GPU worker serves, by the names of their files.
pub struct GpuBackend<T> {
    shapes: HashMap<ModelKind, Vec<Vec<usize>>>,
    transport: T,
}

impl<T: Transport> GpuBackend<T> {
    /// `files`: prepared file names (`rec_1x3x48x320.onnx`, ...), as served to the GPU worker.
    pub fn new(files: &[String], transport: T) -> Self {
        let mut shapes: HashMap<ModelKind, Vec<Vec<usize>>> = HashMap::new();
        for (kind, shape) in files.iter().filter_map(|f| ModelKind::parse_prepared(f)) {
            shapes.entry(kind).or_default().push(shape);
        }
        for list in shapes.values_mut() {
            list.sort_by_key(|s| s.iter().product::<usize>());
        }
        GpuBackend { shapes, transport }
    }
}

impl<T: Transport> Backend for GpuBackend<T> {
    /// The runtime behind the worker, as the native GPU backend names itself.
    fn name(&self) -> &'static str {
        "wonnx"
    }

    fn has(&self, model: ModelKind) -> bool {
        self.shapes.contains_key(&model)
    }

    /// The prepared files have batch 1.
    fn batch_size(&self, _: ModelKind) -> usize {
        1
    }

    fn fixed_shapes(&self, model: ModelKind) -> Option<Vec<Vec<usize>>> {
        self.shapes.get(&model).cloned()
    }

    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
        let &[n, c, h, w] = input.shape.as_slice() else {
            return Err(OcrError::Model { model, message: format!("input shape {:?} is not N×C×H×W", input.shape) });
        };
        self.transport.call(model, input, [n, c, h, w])
    }
}

/// This build's way to the GPU worker, for the prepared `files` it serves.
pub fn backend(files: &[String]) -> Box<dyn Backend> {
    #[cfg(feature = "threads")]
    return Box::new(GpuBackend::new(files, mailbox::Mailbox));
    #[cfg(feature = "jspi")]
    return Box::new(GpuBackend::new(files, jspi::Suspending));
}
