//! The one interface both model runtimes implement: run a named model on a float tensor.

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};

use crate::OcrError;
use crate::rec::Script;

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

    /// A prepared file's name (scripts/prepare_models.py) among those of the models that read
    /// `script` (`Script::model_file`), e.g. `rec_4x3x48x320.onnx` → (Recognition,
    /// [4, 3, 48, 320]); None for a file of another script's model (`rec_cjk_4x3x48x320`
    /// where `script` reads with `rec`). The `.onnx` suffix is optional.
    pub fn parse_prepared(name: &str, script: Script) -> Option<(ModelKind, Vec<usize>)> {
        let (stem, shape) = name.strip_suffix(".onnx").unwrap_or(name).rsplit_once('_')?;
        let kind = ModelKind::ALL.into_iter().find(|&k| script.model_file(k).strip_suffix(".onnx") == Some(stem))?;
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
    /// The only input shapes a runtime with static graphs accepts, smallest first, batch
    /// included (a call fills a shape's batch, with blank images where it has fewer); None
    /// when any shape runs.
    fn fixed_shapes(&self, _model: ModelKind) -> Option<Vec<Vec<usize>>> {
        None
    }
    /// Whether an input of any shape runs: where `fixed_shapes` has some, on a runtime
    /// behind them (a GPU's CPU fallback), which takes what no static shape holds.
    fn any_shape(&self, model: ModelKind) -> bool {
        self.fixed_shapes(model).is_none()
    }
    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError>;
    /// Gets ready to run `model` on inputs of `shape` (tract builds its plan), so that the
    /// first such call finds it done. A failure is left for that call to report.
    fn prepare(&self, _model: ModelKind, _shape: &[usize]) {}
    /// `run` for a caller that can wait (the pipeline awaits every model call): a runtime
    /// reached by message (the browser's GPU worker without shared memory) answers later;
    /// the others have answered when this returns.
    fn call<'a>(&'a self, model: ModelKind, input: &'a Tensor) -> ModelCall<'a> {
        Box::pin(std::future::ready(self.run(model, input)))
    }
}

/// A model call's outputs, to be awaited.
pub type ModelCall<'a> = Pin<Box<dyn Future<Output = Result<Vec<Tensor>, OcrError>> + 'a>>;

/// The output of a future whose awaits are all answered at once (pipeline calls whose model
/// calls ran on the CPU or behind a blocking transport), without an executor; None while it
/// waits on a runtime that answers later.
pub fn poll_once<F: Future>(future: F) -> Option<F::Output> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

/// A pipeline call's result, for synchronous callers (see `poll_once`).
pub fn now<T>(call: impl Future<Output = Result<T, OcrError>>) -> Result<T, OcrError> {
    poll_once(call).unwrap_or(Err(OcrError::NotReady))
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

    /// Whether `input` goes to the fallback though the preferred runtime has the model: it
    /// has static shapes, none of them `input`'s, and the fallback runs any shape.
    fn shape_for_fallback(&self, model: ModelKind, input: &Tensor) -> bool {
        self.preferred.fixed_shapes(model).is_some_and(|shapes| !shapes.contains(&input.shape))
            && self.fallback.has(model)
            && self.fallback.any_shape(model)
    }
}

impl Backend for Preferring {
    fn name(&self) -> &'static str {
        if self.failed.load(Ordering::Relaxed) { self.fallback.name() } else { self.preferred.name() }
    }

    fn has(&self, model: ModelKind) -> bool {
        self.preferred.has(model) || self.fallback.has(model)
    }

    fn fixed_shapes(&self, model: ModelKind) -> Option<Vec<Vec<usize>>> {
        if self.on_preferred(model) { self.preferred.fixed_shapes(model) } else { self.fallback.fixed_shapes(model) }
    }

    fn any_shape(&self, model: ModelKind) -> bool {
        let fallback = self.fallback.has(model) && self.fallback.any_shape(model);
        if self.on_preferred(model) { self.preferred.any_shape(model) || fallback } else { fallback }
    }

    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
        now(self.call(model, input))
    }

    fn prepare(&self, model: ModelKind, shape: &[usize]) {
        if self.on_preferred(model) {
            self.preferred.prepare(model, shape)
        } else {
            self.fallback.prepare(model, shape)
        }
    }

    fn call<'a>(&'a self, model: ModelKind, input: &'a Tensor) -> ModelCall<'a> {
        Box::pin(async move {
            if self.on_preferred(model) && !self.shape_for_fallback(model, input) {
                match self.preferred.call(model, input).await {
                    Ok(out) => return Ok(out),
                    Err(_) if self.fallback.has(model) => self.failed.store(true, Ordering::Relaxed),
                    Err(e) => return Err(e),
                }
            }
            self.fallback.call(model, input).await
        })
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

    /// A runtime reached by message: `inner`'s answer comes on the second poll.
    struct Later(Fake);

    impl Backend for Later {
        fn name(&self) -> &'static str {
            self.0.name
        }
        fn has(&self, model: ModelKind) -> bool {
            self.0.has(model)
        }
        fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
            now(self.call(model, input))
        }
        fn call<'a>(&'a self, model: ModelKind, input: &'a Tensor) -> ModelCall<'a> {
            let mut asked = false;
            Box::pin(std::future::poll_fn(move |_| {
                if std::mem::replace(&mut asked, true) { Poll::Ready(self.0.run(model, input)) } else { Poll::Pending }
            }))
        }
    }

    /// Polls until the answer comes, as an event loop would; and how many polls that took.
    fn awaited(b: &dyn Backend, model: ModelKind) -> (Option<f32>, usize) {
        let input = Tensor::zeros(vec![1]);
        let mut call = b.call(model, &input);
        for polls in 1.. {
            if let Poll::Ready(out) = call.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
                return (out.ok().map(|o| o[0].data[0]), polls);
            }
        }
        unreachable!()
    }

    #[test]
    fn a_runtime_that_answers_later_is_awaited_and_a_caller_that_cannot_wait_is_told_so() {
        let gpu = Later(Fake { name: "gpu", models: vec![ModelKind::Recognition], fails: false });
        let cpu = Fake { name: "cpu-x", models: ModelKind::ALL.to_vec(), fails: false };
        assert!(matches!(answer(&gpu, ModelKind::Recognition), Err(OcrError::NotReady)));
        let b = Preferring::new(Box::new(gpu), Box::new(cpu));
        assert_eq!(awaited(&b, ModelKind::Recognition), (Some(3.0), 2));
        assert_eq!(awaited(&b, ModelKind::Detection), (Some(5.0), 1));
        assert_eq!(b.name(), "gpu");
    }

    #[test]
    fn a_runtime_that_fails_later_hands_the_call_and_every_later_one_to_the_fallback() {
        let gpu = Later(Fake { name: "gpu", models: ModelKind::ALL.to_vec(), fails: true });
        let cpu = Fake { name: "cpu-x", models: ModelKind::ALL.to_vec(), fails: false };
        let b = Preferring::new(Box::new(gpu), Box::new(cpu));
        assert_eq!(awaited(&b, ModelKind::Recognition), (Some(5.0), 2));
        assert_eq!(b.name(), "cpu-x");
        assert_eq!(awaited(&b, ModelKind::Recognition), (Some(5.0), 1));
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

    /// A runtime with static shapes, `inner` behind them.
    struct Static(Fake, Vec<Vec<usize>>);

    impl Backend for Static {
        fn name(&self) -> &'static str {
            self.0.name
        }
        fn has(&self, model: ModelKind) -> bool {
            self.0.has(model)
        }
        fn fixed_shapes(&self, _model: ModelKind) -> Option<Vec<Vec<usize>>> {
            Some(self.1.clone())
        }
        fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
            self.0.run(model, input)
        }
    }

    #[test]
    fn an_input_no_static_shape_holds_goes_to_the_fallback_and_the_next_one_does_not() {
        let gpu = Static(Fake { name: "gpu", models: ModelKind::ALL.to_vec(), fails: false }, vec![vec![1]]);
        let cpu = Fake { name: "cpu-x", models: vec![ModelKind::Detection], fails: false };
        let b = Preferring::new(Box::new(gpu), Box::new(cpu));
        let run = |shape: Vec<usize>| b.run(ModelKind::Detection, &Tensor::zeros(shape)).map(|o| o[0].data[0]).ok();
        assert_eq!((run(vec![1]), run(vec![2]), run(vec![1])), (Some(3.0), Some(5.0), Some(3.0)));
        assert_eq!(b.name(), "gpu");
        assert!(b.any_shape(ModelKind::Detection));
        // The fallback lacks the model: only the static shapes run.
        assert!(!b.any_shape(ModelKind::Layout));
        assert!(Fake { name: "cpu", models: vec![], fails: false }.any_shape(ModelKind::Layout));
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
        let parse = |name| ModelKind::parse_prepared(name, Script::All);
        assert_eq!(parse("rec_1x3x48x320.onnx"), Some((ModelKind::Recognition, vec![1, 3, 48, 320])));
        assert_eq!(parse("det_1x3x1600x1248"), Some((ModelKind::Detection, vec![1, 3, 1600, 1248])));
        assert_eq!(parse("rec.onnx"), None);
        assert_eq!(parse("rec_1x3xWx320.onnx"), None);
        assert_eq!(parse("foo_1x3.onnx"), None);
    }

    /// Each script's recognition files are its own model's; the other models' are shared.
    #[test]
    fn a_scripts_prepared_files_are_those_of_its_own_recognition_model() {
        let cjk = "rec_cjk_4x3x48x320.onnx";
        assert_eq!(ModelKind::parse_prepared(cjk, Script::Cjk), Some((ModelKind::Recognition, vec![4, 3, 48, 320])));
        assert_eq!(ModelKind::parse_prepared(cjk, Script::All), None);
        assert_eq!(ModelKind::parse_prepared(cjk, Script::Latin), None);
        assert_eq!(ModelKind::parse_prepared("rec_4x3x48x320.onnx", Script::Cjk), None);
        assert_eq!(
            ModelKind::parse_prepared("cls_4x3x48x192.onnx", Script::Cjk),
            Some((ModelKind::Orientation, vec![4, 3, 48, 192]))
        );
    }
}
