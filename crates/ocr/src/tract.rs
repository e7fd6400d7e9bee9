//! The CPU backend and the reference: tract runs the registry models unmodified.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tract_onnx::prelude::*;
use tract_onnx::tract_core::optim::Optimizer;

use crate::backend::{Backend, ModelKind, Tensor};
use crate::{OcrError, rewrite};

/// Optimised plans kept per model, one per input shape (pages of one document share a
/// few shapes; recognition reads a page's lines in a few widths). Beyond this the least
/// recently used is dropped.
const MAX_PLANS_PER_MODEL: usize = 12;

/// tract's declutter pass that moves axis changes (transposes, reshapes) through the graph
/// until they cancel. These convolution nets have almost none to move: without it every
/// model's outputs stay bit-identical and its plans run as fast, and declutter, the larger
/// part of a plan's build, is 3× faster (natively: detection 160 -> 54 ms, layout 455 -> 180).
const SKIPPED_DECLUTTER_PASS: &str = "ChangeAxes";

/// Which of tract's declutter passes a plan's graph goes through before code generation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Declutter {
    /// All but `SKIPPED_DECLUTTER_PASS`.
    Lean,
    /// All (tract's `into_optimized`): the reference the lean plans are held to.
    Stock,
}

impl Declutter {
    fn optimizer(self) -> Optimizer {
        let mut optimizer = Optimizer::declutter();
        if self == Declutter::Lean {
            // The passes are known by their Debug names only (their types are private).
            optimizer.passes.retain(|pass| !format!("{pass:?}").starts_with(SKIPPED_DECLUTTER_PASS));
        }
        optimizer
    }

    fn decluttered(self, mut model: TypedModel) -> TractResult<TypedModel> {
        self.optimizer().optimize(&mut model)?;
        Ok(model)
    }

    /// The graph decluttered, turned into tract's optimised operators and made runnable.
    fn plan(self, model: TypedModel) -> TractResult<Plan> {
        runnable(self.decluttered(model)?)
    }
}

/// A decluttered graph turned into tract's optimised operators and made runnable.
fn runnable(mut model: TypedModel) -> TractResult<Plan> {
    model.optimize()?;
    model.into_runnable()
}

type Plan = Arc<TypedRunnableModel>;
/// A shape's plan, built once by the first thread that needs it while the others wait.
type PlanSlot = Arc<OnceLock<Result<Plan, String>>>;

struct Loaded {
    model: InferenceModel,
    declutter: Declutter,
    /// Recognition's graph typed and decluttered once with a symbolic input width (the other
    /// dimensions as first asked): a plan per width comes from it 3× faster than from the ONNX
    /// graph (15 vs 45 ms natively) and computes the same. With the width set, declutter would
    /// only remove what code generation removes anyway (the optimised plans have the same
    /// nodes and outputs), so it is not run again: 13–14 ms a width instead of 15–18 natively.
    /// None where tract cannot type it so.
    by_width: OnceLock<Option<ByWidth>>,
    plans: Mutex<Vec<(Vec<usize>, PlanSlot)>>,
}

struct ByWidth {
    typed: TypedModel,
    width: Symbol,
    other_dims: Vec<usize>,
}

pub struct TractBackend {
    models: HashMap<ModelKind, Loaded>,
    /// Detection's graph turned about the diagonal (`rewrite::turned`), for portrait maps:
    /// tract's depthwise convolutions walk a map's longer side in their inner loop and have
    /// a vector kernel only along rows, so on portrait maps they ran scalar (a fifth of a
    /// letter page's detection natively). None where the graph cannot be turned.
    turned_detection: Option<Loaded>,
}

fn tract_err(model: ModelKind, e: impl std::fmt::Display) -> OcrError {
    OcrError::Model { model, message: e.to_string() }
}

impl TractBackend {
    /// Loads the given ONNX files (bytes per model).
    pub fn new(files: &[(ModelKind, &[u8])]) -> Result<Self, OcrError> {
        Self::keeping_classes(files, None)
    }

    /// As `new`, with recognition's output cut to the classes at `rec_classes` (indices
    /// into its last dimension) where its graph allows (see `model_keeping_classes`).
    pub fn keeping_classes(files: &[(ModelKind, &[u8])], rec_classes: Option<&[usize]>) -> Result<Self, OcrError> {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        crate::wasm_kernel::register();
        let mut models = HashMap::new();
        let mut turned_detection = None;
        for &(kind, bytes) in files {
            let proto = tract_onnx::onnx().proto_model_for_read(&mut &bytes[..]).map_err(|e| tract_err(kind, e))?;
            if kind == ModelKind::Detection {
                turned_detection = turned_model(&proto).map(Loaded::new);
            }
            let kept = rec_classes.filter(|_| kind == ModelKind::Recognition);
            let model = model_keeping_classes(proto, kept).map_err(|e| tract_err(kind, e))?;
            models.insert(kind, Loaded::new(model));
        }
        Ok(TractBackend { models, turned_detection })
    }

    /// Reads portrait maps with detection's graph as given: the reference the turned graph
    /// is held to.
    pub fn without_turning(self) -> Self {
        TractBackend { turned_detection: None, ..self }
    }

    /// Plans every model through all of tract's declutter passes: the reference for the
    /// plans built without `SKIPPED_DECLUTTER_PASS`.
    pub fn with_stock_declutter(mut self) -> Self {
        for loaded in self.models.values_mut().chain(self.turned_detection.as_mut()) {
            loaded.declutter = Declutter::Stock;
        }
        self
    }

    /// Whether portrait maps go through detection's turned graph (its graph could be turned).
    pub fn turns_detection(&self) -> bool {
        self.turned_detection.is_some()
    }

    /// Runs `input` on a model's plan for its shape.
    fn run_on(&self, loaded: &Loaded, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
        let plan = loaded.plan(model, &input.shape)?;
        let t = tract_ndarray::ArrayD::from_shape_vec(input.shape.clone(), input.data.clone())
            .map_err(|e| tract_err(model, e))?;
        let run = || plan.run(tvec!(t.into_tensor().into()));
        let outputs = if spread_over_pool(model) { on_pool(run) } else { run() }.map_err(|e| tract_err(model, e))?;
        outputs
            .iter()
            .map(|o| {
                let v = o.to_plain_array_view::<f32>().map_err(|e| tract_err(model, e))?;
                // One copy of the buffer: recognition's output is steps × classes (6,906) per line.
                let data = v.as_slice().map_or_else(|| v.iter().copied().collect(), <[f32]>::to_vec);
                Ok(Tensor::new(v.shape().to_vec(), data))
            })
            .collect()
    }
}

impl Loaded {
    fn new(model: InferenceModel) -> Loaded {
        Loaded { model, declutter: Declutter::Lean, by_width: OnceLock::new(), plans: Mutex::new(Vec::new()) }
    }

    fn plan(&self, kind: ModelKind, shape: &[usize]) -> Result<Plan, OcrError> {
        let slot = {
            let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
            let entry = match plans.iter().position(|(s, _)| s == shape) {
                Some(i) => plans.remove(i),
                None => {
                    if plans.len() >= MAX_PLANS_PER_MODEL {
                        plans.remove(0);
                    }
                    (shape.to_vec(), PlanSlot::default())
                }
            };
            let slot = entry.1.clone();
            plans.push(entry);
            slot
        };
        slot.get_or_init(|| self.build(kind, shape).map_err(|e| e.to_string()))
            .clone()
            .map_err(|message| OcrError::Model { model: kind, message })
    }

    fn build(&self, kind: ModelKind, shape: &[usize]) -> TractResult<Plan> {
        let by_width = self
            .by_width
            .get_or_init(|| (kind == ModelKind::Recognition).then(|| self.typed_by_width(shape)).flatten());
        match (by_width, shape.split_last()) {
            (Some(b), Some((&w, other))) if other == b.other_dims => {
                runnable(b.typed.set_symbols(&HashMap::from([(b.width.clone(), (w as i64).to_dim())]))?)
            }
            _ => self.declutter.plan(self.model.clone().with_input_fact(0, f32::fact(shape).into())?.into_typed()?),
        }
    }

    fn typed_by_width(&self, shape: &[usize]) -> Option<ByWidth> {
        let (_, other) = shape.split_last()?;
        let width = self.model.symbols.sym("docsift_width");
        let dims: TVec<TDim> = other.iter().map(|&d| d.to_dim()).chain([width.to_dim()]).collect();
        let typed = self.model.clone().with_input_fact(0, f32::fact(dims).into()).ok()?.into_typed().ok()?;
        let typed = self.declutter.decluttered(typed).ok()?;
        Some(ByWidth { typed, width, other_dims: other.to_vec() })
    }
}

impl Backend for TractBackend {
    fn name(&self) -> &'static str {
        "tract"
    }

    fn has(&self, model: ModelKind) -> bool {
        self.models.contains_key(&model)
    }

    fn prepare(&self, model: ModelKind, shape: &[usize]) {
        if let Some(loaded) = self.models.get(&model) {
            let _ = loaded.plan(model, shape);
        }
    }

    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
        if let (ModelKind::Detection, Some(turned), &[_, _, h, w]) =
            (model, &self.turned_detection, input.shape.as_slice())
            && h > w
        {
            let outputs = self.run_on(turned, model, &swap_last_axes(input))?;
            return Ok(outputs.iter().map(swap_last_axes).collect());
        }
        self.run_on(self.models.get(&model).ok_or(OcrError::MissingModel(model))?, model, input)
    }
}

/// A string in an ONNX file's metadata (e.g. the recognition dictionary), read without
/// building its graph.
pub fn onnx_metadata(bytes: &[u8], key: &str) -> Result<Option<String>, String> {
    let proto = tract_onnx::onnx().proto_model_for_read(&mut &bytes[..]).map_err(|e| e.to_string())?;
    Ok(proto.metadata_props.into_iter().find(|p| p.key == key).map(|p| p.value))
}

/// Detection's model turned about the diagonal, where its graph allows.
fn turned_model(proto: &tract_onnx::pb::ModelProto) -> Option<InferenceModel> {
    let graph = rewrite::turned(proto.graph.as_ref()?).ok()?;
    let turned = tract_onnx::pb::ModelProto { graph: Some(graph), ..proto.clone() };
    tract_onnx::onnx().with_ignore_value_info(true).model_for_proto_model(&turned).ok()
}

/// A tensor with its last two axes swapped (an N×C×H×W map transposed).
fn swap_last_axes(t: &Tensor) -> Tensor {
    let [.., h, w] = t.shape[..] else { return t.clone() };
    let mut shape = t.shape.clone();
    let rank = shape.len();
    shape.swap(rank - 2, rank - 1);
    Tensor::new(shape, rewrite::transpose_planes(&t.data, h, w))
}

/// tract's graph of an ONNX model, its output cut to the classes at `kept` when given and
/// the graph has the head `keep_classes` knows; otherwise whole (the engine then renormalises
/// the full output over the kept classes: the same text, only slower).
pub(crate) fn model_keeping_classes(
    mut proto: tract_onnx::pb::ModelProto,
    kept: Option<&[usize]>,
) -> Result<InferenceModel, String> {
    if let (Some(kept), Some(graph)) = (kept, proto.graph.as_mut()) {
        // A graph it cannot cut is left whole, which reads the same.
        let _ = rewrite::keep_classes(graph, kept);
    }
    tract_onnx::onnx().with_ignore_value_info(true).model_for_proto_model(&proto).map_err(|e| format!("{e:#}"))
}

/// Detection and layout run once per page on large maps: their products and element-wise
/// ops are split over the pool. Lines (recognition, orientation) are parallel one level up.
fn spread_over_pool(model: ModelKind) -> bool {
    matches!(model, ModelKind::Detection | ModelKind::Layout)
}

#[cfg(feature = "parallel")]
fn on_pool<R>(f: impl FnOnce() -> R) -> R {
    use tract_linalg::multithread::{Executor, multithread_tract_scope};
    // The pool the caller runs in (rayon's `install`, or wasm-bindgen-rayon's global one).
    multithread_tract_scope(Executor::RayonGlobal, f)
}

#[cfg(not(feature = "parallel"))]
fn on_pool<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lean_declutter_leaves_out_only_the_axis_pass() {
        let names = |d: Declutter| d.optimizer().passes.iter().map(|p| format!("{p:?}")).collect::<Vec<_>>();
        let (lean, stock) = (names(Declutter::Lean), names(Declutter::Stock));
        let left_out: Vec<&String> = stock.iter().filter(|name| !lean.contains(name)).collect();
        assert_eq!(lean.len() + 1, stock.len(), "lean {lean:?}, stock {stock:?}");
        assert!(left_out.len() == 1 && left_out[0].starts_with(SKIPPED_DECLUTTER_PASS), "{left_out:?}");
    }

    #[test]
    fn a_prepared_shape_is_planned_once_and_its_call_runs_that_plan() -> Result<(), OcrError> {
        let kind = ModelKind::Orientation;
        let model = model_keeping_classes(rewrite::tests::head(true), None).map_err(|e| tract_err(kind, e))?;
        let backend = TractBackend { models: HashMap::from([(kind, Loaded::new(model))]), turned_detection: None };
        let plans = || backend.models[&kind].plans.lock().map(|p| p.clone()).unwrap_or_default();
        backend.prepare(kind, &[1, 2]);
        backend.prepare(ModelKind::Layout, &[1, 2]);
        let prepared = plans();
        assert_eq!(prepared.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>(), [vec![1, 2]]);
        let plan = |p: &[(Vec<usize>, PlanSlot)]| p[0].1.get().cloned().and_then(Result::ok);
        assert!(plan(&prepared).is_some(), "planned when prepared");
        let out = backend.run(kind, &Tensor::new(vec![1, 2], vec![0.8, -1.2]))?;
        assert_eq!(out[0].shape, [1, 4]);
        let after = plans();
        assert_eq!(after.len(), 1);
        let reused = matches!((plan(&prepared), plan(&after)), (Some(a), Some(b)) if Arc::ptr_eq(&a, &b));
        assert!(reused, "the call ran the prepared plan");
        Ok(())
    }
}
