//! Models on the page's GPU from the OCR builds: the pipeline stays here (Rust), and each
//! model call goes to the WebGPU worker (pkg/webgpu-worker.js, wonnx), which runs the
//! prepared file for that model and input shape. Two ways there: the threaded builds block
//! on a mailbox in their shared memory (`mailbox`: cross-origin isolated pages); the
//! single-threaded builds post a message and await the answer (`message`: any page).

use std::collections::HashMap;

use docsift::ModelKind;
use docsift::ocr_models::{Backend, ModelCall, OcrError, Script, Tensor, now};

#[cfg(feature = "threads")]
mod mailbox;
#[cfg(not(feature = "threads"))]
mod message;

#[cfg(feature = "threads")]
pub use mailbox::mailbox_address;

/// How a model call reaches the GPU worker and its outputs come back.
pub trait Transport: Send + Sync {
    fn call(&self, model: ModelKind, input: &Tensor, shape: [usize; 4]) -> ModelCall<'static>;
}

/// A model's index as the GPU worker names it (`modelStems` in pkg/ocr-worker.js).
pub fn model_index(model: ModelKind) -> usize {
    ModelKind::ALL.iter().position(|&k| k == model).unwrap_or(0)
}

/// The prepared models the GPU worker serves, by the names of their files.
pub struct GpuBackend<T> {
    shapes: HashMap<ModelKind, Vec<Vec<usize>>>,
    transport: T,
}

impl<T: Transport> GpuBackend<T> {
    /// `files`: prepared file names (`rec_4x3x48x320.onnx`, ...), as served to the GPU worker;
    /// those of the models that read `script` are run.
    pub fn new(files: &[String], script: Script, transport: T) -> Self {
        let mut shapes: HashMap<ModelKind, Vec<Vec<usize>>> = HashMap::new();
        for (kind, shape) in files.iter().filter_map(|f| ModelKind::parse_prepared(f, script)) {
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

    fn fixed_shapes(&self, model: ModelKind) -> Option<Vec<Vec<usize>>> {
        self.shapes.get(&model).cloned()
    }

    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
        now(self.call(model, input))
    }

    fn call<'a>(&'a self, model: ModelKind, input: &'a Tensor) -> ModelCall<'a> {
        let &[n, c, h, w] = input.shape.as_slice() else {
            let message = format!("input shape {:?} is not N×C×H×W", input.shape);
            return Box::pin(std::future::ready(Err(OcrError::Model { model, message })));
        };
        self.transport.call(model, input, [n, c, h, w])
    }
}

/// This build's way to the GPU worker, for the prepared `files` it serves that read `script`.
pub fn backend(files: &[String], script: Script) -> Box<dyn Backend> {
    #[cfg(feature = "threads")]
    return Box::new(GpuBackend::new(files, script, mailbox::Mailbox));
    #[cfg(not(feature = "threads"))]
    return Box::new(GpuBackend::new(files, script, message::Message));
}
