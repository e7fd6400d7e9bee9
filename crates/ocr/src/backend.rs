//! The one interface both model runtimes implement: run a named model on a float tensor.

use std::sync::atomic::{AtomicBool, Ordering};

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

    /// A prepared file's name (scripts/prepare_models.py), e.g. `rec_1x3x48x320.onnx`
    /// → (Recognition, [1, 3, 48, 320]); the `.onnx` suffix is optional.
    pub fn parse_prepared(name: &str) -> Option<(ModelKind, Vec<usize>)> {
        let (stem, shape) = name.strip_suffix(".onnx").unwrap_or(name).split_once('_')?;
        let kind = ModelKind::ALL.into_iter().find(|k| k.file_name().strip_suffix(".onnx") == Some(stem))?;
        let shape = shape.split('x').map(|d| d.parse().ok()).collect::<Option<Vec<usize>>>()?;
        Some((kind, shape))
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

/// Runs each model on `preferred` where it has it, else on `fallback`; after the preferred
/// runtime fails once (a lost GPU device, a shape it was not prepared for), every later
/// call goes to the fallback, which gives the same results (the parity tests hold them to it).
pub struct Preferring {
    preferred: Box<dyn Backend>,
    fallback: Box<dyn Backend>,
    failed: AtomicBool,
}

impl Preferring {
    pub fn new(preferred: Box<dyn Backend>, fallback: Box<dyn Backend>) -> Self {
        Preferring { preferred, fallback, failed: AtomicBool::new(false) }
    }

    fn on_preferred(&self, model: ModelKind) -> bool {
        !self.failed.load(Ordering::Relaxed) && self.preferred.has(model)
    }
}

impl Backend for Preferring {
    fn name(&self) -> &'static str {
        if self.failed.load(Ordering::Relaxed) { self.fallback.name() } else { self.preferred.name() }
    }

    fn has(&self, model: ModelKind) -> bool {
        self.preferred.has(model) || self.fallback.has(model)
    }

    fn batch_size(&self, model: ModelKind) -> usize {
        if self.on_preferred(model) { self.preferred.batch_size(model) } else { self.fallback.batch_size(model) }
    }

    fn fixed_shapes(&self, model: ModelKind) -> Option<Vec<Vec<usize>>> {
        if self.on_preferred(model) { self.preferred.fixed_shapes(model) } else { self.fallback.fixed_shapes(model) }
    }

    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
        if self.on_preferred(model) {
            match self.preferred.run(model, input) {
                Ok(out) => return Ok(out),
                Err(_) if self.fallback.has(model) => self.failed.store(true, Ordering::Relaxed),
                Err(e) => return Err(e),
            }
        }
        self.fallback.run(model, input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A runtime that has some models and answers with its own name's length, or fails.
    struct Fake {
        name: &'static str,
        models: Vec<ModelKind>,
        fails: bool,
    }

    impl Backend for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn has(&self, model: ModelKind) -> bool {
            self.models.contains(&model)
        }
        fn batch_size(&self, _: ModelKind) -> usize {
            1
        }
        fn run(&self, model: ModelKind, _: &Tensor) -> Result<Vec<Tensor>, OcrError> {
            if self.fails {
                return Err(OcrError::Model { model, message: "device lost".into() });
            }
            Ok(vec![Tensor::new(vec![1], vec![self.name.len() as f32])])
        }
    }

    fn answer(b: &dyn Backend, model: ModelKind) -> Result<f32, OcrError> {
        Ok(b.run(model, &Tensor::zeros(vec![1]))?[0].data[0])
    }

    #[test]
    fn preferred_runtime_serves_its_models_and_the_fallback_the_rest() {
        let gpu = Fake { name: "gpu", models: vec![ModelKind::Recognition], fails: false };
        let cpu = Fake { name: "cpu-x", models: ModelKind::ALL.to_vec(), fails: false };
        let b = Preferring::new(Box::new(gpu), Box::new(cpu));
        assert_eq!(answer(&b, ModelKind::Recognition).ok(), Some(3.0));
        assert_eq!(answer(&b, ModelKind::Detection).ok(), Some(5.0));
        assert_eq!(b.name(), "gpu");
    }

    #[test]
    fn a_failing_preferred_runtime_hands_every_later_call_to_the_fallback() {
        let gpu = Fake { name: "gpu", models: ModelKind::ALL.to_vec(), fails: true };
        let cpu = Fake { name: "cpu-x", models: ModelKind::ALL.to_vec(), fails: false };
        let b = Preferring::new(Box::new(gpu), Box::new(cpu));
        assert_eq!(answer(&b, ModelKind::Detection).ok(), Some(5.0));
        assert_eq!(b.name(), "cpu-x");
        assert_eq!(b.fixed_shapes(ModelKind::Recognition), None);
    }

    #[test]
    fn without_a_fallback_model_the_preferred_error_stands() {
        let gpu = Fake { name: "gpu", models: vec![ModelKind::Layout], fails: true };
        let cpu = Fake { name: "cpu", models: vec![ModelKind::Detection], fails: false };
        let b = Preferring::new(Box::new(gpu), Box::new(cpu));
        assert!(matches!(answer(&b, ModelKind::Layout), Err(OcrError::Model { .. })));
    }

    #[test]
    fn prepared_file_names_carry_model_and_shape() {
        assert_eq!(
            ModelKind::parse_prepared("rec_1x3x48x320.onnx"),
            Some((ModelKind::Recognition, vec![1, 3, 48, 320]))
        );
        assert_eq!(
            ModelKind::parse_prepared("det_1x3x1600x1248"),
            Some((ModelKind::Detection, vec![1, 3, 1600, 1248]))
        );
        assert_eq!(ModelKind::parse_prepared("rec.onnx"), None);
        assert_eq!(ModelKind::parse_prepared("rec_1x3xWx320.onnx"), None);
        assert_eq!(ModelKind::parse_prepared("foo_1x3.onnx"), None);
    }
}
