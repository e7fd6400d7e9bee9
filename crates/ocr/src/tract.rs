//! The CPU backend and the reference: tract runs the registry models unmodified.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tract_onnx::prelude::*;

use crate::OcrError;
use crate::backend::{Backend, ModelKind, Tensor};

/// Optimised plans kept per model, one per input shape (pages of one document share a
/// few shapes; recognition uses width buckets). Beyond this the oldest is dropped.
const MAX_PLANS_PER_MODEL: usize = 12;

type Plan = Arc<TypedRunnableModel>;

struct Loaded {
    model: InferenceModel,
    plans: Mutex<Vec<(Vec<usize>, Plan)>>,
}

pub struct TractBackend {
    models: HashMap<ModelKind, Loaded>,
}

fn tract_err(model: ModelKind, e: impl std::fmt::Display) -> OcrError {
    OcrError::Model { model, message: e.to_string() }
}

impl TractBackend {
    /// Loads the given ONNX files (bytes per model).
    pub fn new(files: &[(ModelKind, &[u8])]) -> Result<Self, OcrError> {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        crate::wasm_kernel::register();
        let mut models = HashMap::new();
        for &(kind, bytes) in files {
            let model = tract_onnx::onnx()
                .with_ignore_value_info(true)
                .model_for_read(&mut &bytes[..])
                .map_err(|e| tract_err(kind, e))?;
            models.insert(kind, Loaded { model, plans: Mutex::new(Vec::new()) });
        }
        Ok(TractBackend { models })
    }

    /// A string stored in the model's ONNX metadata (e.g. the recognition dictionary).
    pub fn metadata(&self, model: ModelKind, key: &str) -> Option<String> {
        let t = self.models.get(&model)?.model.properties.get(&format!("onnx.metadata_props.{key}"))?;
        t.try_as_plain_ram().ok()?.to_scalar::<String>().ok().cloned()
    }

    fn plan(&self, kind: ModelKind, shape: &[usize]) -> Result<Plan, OcrError> {
        let loaded = self.models.get(&kind).ok_or(OcrError::MissingModel(kind))?;
        if let Some((_, p)) = loaded.plans.lock().unwrap_or_else(|p| p.into_inner()).iter().find(|(s, _)| s == shape) {
            return Ok(p.clone());
        }
        let plan = loaded
            .model
            .clone()
            .with_input_fact(0, f32::fact(shape).into())
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| tract_err(kind, e))?;
        let mut plans = loaded.plans.lock().unwrap_or_else(|p| p.into_inner());
        if plans.len() >= MAX_PLANS_PER_MODEL {
            plans.remove(0);
        }
        plans.push((shape.to_vec(), plan.clone()));
        Ok(plan)
    }
}

impl Backend for TractBackend {
    fn name(&self) -> &'static str {
        "tract"
    }

    fn has(&self, model: ModelKind) -> bool {
        self.models.contains_key(&model)
    }

    /// One: measured here, tract's convolutions take 1.3–2× longer per line when lines
    /// are batched (rec 8×48×960: 188 ms per line, 1×48×960: 90 ms), cls 3× longer.
    fn batch_size(&self, _: ModelKind) -> usize {
        1
    }

    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
        let plan = self.plan(model, &input.shape)?;
        let t = tract_ndarray::ArrayD::from_shape_vec(input.shape.clone(), input.data.clone())
            .map_err(|e| tract_err(model, e))?;
        let run = || plan.run(tvec!(t.into_tensor().into()));
        let outputs = if spread_over_pool(model) { on_pool(run) } else { run() }.map_err(|e| tract_err(model, e))?;
        outputs
            .iter()
            .map(|o| {
                let v = o.to_plain_array_view::<f32>().map_err(|e| tract_err(model, e))?;
                Ok(Tensor::new(v.shape().to_vec(), v.iter().copied().collect()))
            })
            .collect()
    }
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
