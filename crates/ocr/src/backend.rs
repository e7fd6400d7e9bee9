//! The one interface both model runtimes implement: run a named model on a float tensor.

use crate::OcrError;

/// The models of the OCR pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelKind {
    Detection,
    Recognition,
    Orientation,
    Layout,
}

impl ModelKind {
    pub const ALL: [ModelKind; 4] =
        [ModelKind::Detection, ModelKind::Recognition, ModelKind::Orientation, ModelKind::Layout];

    /// File name in the models folder (see models/manifest.json).
    pub fn file_name(self) -> &'static str {
        match self {
            ModelKind::Detection => "det.onnx",
            ModelKind::Recognition => "rec.onnx",
            ModelKind::Orientation => "cls.onnx",
            ModelKind::Layout => "layout.onnx",
        }
    }
}

/// A dense row-major f32 tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

impl Tensor {
    pub fn new(shape: Vec<usize>, data: Vec<f32>) -> Self {
        debug_assert_eq!(shape.iter().product::<usize>(), data.len());
        Tensor { shape, data }
    }

    pub fn zeros(shape: Vec<usize>) -> Self {
        let n = shape.iter().product();
        Tensor { shape, data: vec![0.0; n] }
    }
}

/// A model runtime. `run` returns every output of the model, in the model's order.
pub trait Backend: Send + Sync {
    fn name(&self) -> &'static str;
    fn has(&self, model: ModelKind) -> bool;
    /// Images per call that run fastest (a GPU wants many, a CPU runtime may want one).
    fn batch_size(&self, model: ModelKind) -> usize;
    /// The only input shapes a runtime with static graphs accepts, smallest first; None when
    /// any shape runs.
    fn fixed_shapes(&self, _model: ModelKind) -> Option<Vec<Vec<usize>>> {
        None
    }
    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError>;
}
