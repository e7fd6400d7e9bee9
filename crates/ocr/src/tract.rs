//! The CPU backend and the reference: tract runs the registry models unmodified.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tract_onnx::prelude::*;

use crate::OcrError;
use crate::backend::{Backend, ModelKind, Tensor};

/// Optimised plans kept per model, one per input shape (pages of one document share a
/// few shapes; recognition reads a page's lines in a few widths). Beyond this the least
/// recently used is dropped.
const MAX_PLANS_PER_MODEL: usize = 12;

type Plan = Arc<TypedRunnableModel>;
/// A shape's plan, built once by the first thread that needs it while the others wait.
type PlanSlot = Arc<OnceLock<Result<Plan, String>>>;

struct Loaded {
    model: InferenceModel,
    /// Recognition's graph typed once with a symbolic input width (the other dimensions as
    /// first asked): a plan per width comes from it 3× faster than from the ONNX graph
    /// (15 vs 45 ms natively) and computes the same. None where tract cannot type it so.
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
        for &(kind, bytes) in files {
            let proto = tract_onnx::onnx().proto_model_for_read(&mut &bytes[..]).map_err(|e| tract_err(kind, e))?;
            let kept = rec_classes.filter(|_| kind == ModelKind::Recognition);
            let model = model_keeping_classes(proto, kept).map_err(|e| tract_err(kind, e))?;
            models.insert(kind, Loaded { model, by_width: OnceLock::new(), plans: Mutex::new(Vec::new()) });
        }
        Ok(TractBackend { models })
    }

    fn plan(&self, kind: ModelKind, shape: &[usize]) -> Result<Plan, OcrError> {
        let loaded = self.models.get(&kind).ok_or(OcrError::MissingModel(kind))?;
        let slot = {
            let mut plans = loaded.plans.lock().unwrap_or_else(|p| p.into_inner());
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
        slot.get_or_init(|| loaded.build(kind, shape).map_err(|e| e.to_string()))
            .clone()
            .map_err(|message| OcrError::Model { model: kind, message })
    }
}

impl Loaded {
    fn build(&self, kind: ModelKind, shape: &[usize]) -> TractResult<Plan> {
        let by_width = self
            .by_width
            .get_or_init(|| (kind == ModelKind::Recognition).then(|| self.typed_by_width(shape)).flatten());
        match (by_width, shape.split_last()) {
            (Some(b), Some((&w, other))) if other == b.other_dims => b
                .typed
                .set_symbols(&HashMap::from([(b.width.clone(), (w as i64).to_dim())]))?
                .into_optimized()?
                .into_runnable(),
            _ => self.model.clone().with_input_fact(0, f32::fact(shape).into())?.into_optimized()?.into_runnable(),
        }
    }

    fn typed_by_width(&self, shape: &[usize]) -> Option<ByWidth> {
        let (_, other) = shape.split_last()?;
        let width = self.model.symbols.sym("docsift_width");
        let dims: TVec<TDim> = other.iter().map(|&d| d.to_dim()).chain([width.to_dim()]).collect();
        let typed = self
            .model
            .clone()
            .with_input_fact(0, f32::fact(dims).into())
            .ok()?
            .into_typed()
            .ok()?
            .into_decluttered()
            .ok()?;
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

/// A string in an ONNX file's metadata (e.g. the recognition dictionary), read without
/// building its graph.
pub fn onnx_metadata(bytes: &[u8], key: &str) -> Result<Option<String>, String> {
    let proto = tract_onnx::onnx().proto_model_for_read(&mut &bytes[..]).map_err(|e| e.to_string())?;
    Ok(proto.metadata_props.into_iter().find(|p| p.key == key).map(|p| p.value))
}

/// tract's graph of an ONNX model, its output cut to the classes at `kept` when given and
/// the graph has the head `keep_classes` knows; otherwise whole (the engine then renormalises
/// the full output over the kept classes: the same text, only slower).
fn model_keeping_classes(
    mut proto: tract_onnx::pb::ModelProto,
    kept: Option<&[usize]>,
) -> Result<InferenceModel, String> {
    if let (Some(kept), Some(graph)) = (kept, proto.graph.as_mut()) {
        // A graph it cannot cut is left whole, which reads the same.
        let _ = keep_classes(graph, kept);
    }
    tract_onnx::onnx().with_ignore_value_info(true).model_for_proto_model(&proto).map_err(|e| format!("{e:#}"))
}

/// Cuts a classifier's output to the classes at `kept`, in the graph: the MatMul weight
/// with the most columns (one per class) and the bias added to that product keep the kept
/// columns. PP-OCR's head is MatMul -> Add -> Softmax, so the softmax then runs over the kept
/// logits alone: the full output's probabilities renormalised over the kept classes.
fn keep_classes(graph: &mut tract_onnx::pb::GraphProto, kept: &[usize]) -> Result<(), String> {
    use tract_onnx::pb::tensor_proto::DataType;
    let inits = &graph.initializer;
    let weight = |name: &String| inits.iter().position(|t| &t.name == name && t.data_type == DataType::Float as i32);
    let (head, matrix) = graph
        .node
        .iter()
        .filter(|n| n.op_type == "MatMul")
        .filter_map(|n| Some((n, weight(n.input.get(1)?)?)))
        .filter(|&(_, i)| inits[i].dims.len() == 2)
        .max_by_key(|&(_, i)| inits[i].dims[1])
        .ok_or("no MatMul onto the classes")?;
    let n = inits[matrix].dims[1] as usize;
    let product = head.output.first().ok_or("a MatMul without output")?;
    let bias = graph
        .node
        .iter()
        .filter(|m| m.op_type == "Add" && m.input.contains(product))
        .flat_map(|m| m.input.iter().filter_map(weight))
        .find(|&i| inits[i].dims == [n as i64])
        .ok_or("no bias added to the classes")?;
    if let Some(&bad) = kept.iter().find(|&&c| c >= n) {
        return Err(format!("class {bad} of {n}"));
    }
    // Both cut before either is replaced: a graph that cannot be cut is left as it was.
    let mut cuts = Vec::with_capacity(2);
    for i in [matrix, bias] {
        let t = &graph.initializer[i];
        let values: Vec<f32> = if t.raw_data.is_empty() {
            t.float_data.clone()
        } else {
            t.raw_data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
        };
        // Weights stored elsewhere (external data) or malformed: nothing to cut here.
        if n == 0 || values.len() as i64 != t.dims.iter().product::<i64>() {
            return Err(format!("{}: {} values for dimensions {:?}", t.name, values.len(), t.dims));
        }
        let cut: Vec<f32> = values.chunks_exact(n).flat_map(|row| kept.iter().map(|&c| row[c])).collect();
        cuts.push((i, cut));
    }
    for (i, cut) in cuts {
        let t = &mut graph.initializer[i];
        if let Some(last) = t.dims.last_mut() {
            *last = kept.len() as i64;
        }
        t.raw_data = cut.iter().flat_map(|v| v.to_le_bytes()).collect();
        t.float_data.clear();
    }
    Ok(())
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
    use tract_onnx::pb::tensor_proto::DataType;
    use tract_onnx::pb::{
        GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TypeProto, ValueInfoProto, type_proto,
    };

    use super::*;

    fn floats(name: &str, dims: &[i64], values: &[f32]) -> TensorProto {
        let raw_data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        TensorProto {
            name: name.into(),
            dims: dims.to_vec(),
            data_type: DataType::Float as i32,
            raw_data,
            ..Default::default()
        }
    }

    fn float_io(name: &str) -> ValueInfoProto {
        let tensor = type_proto::Tensor { elem_type: DataType::Float as i32, shape: None };
        let r#type = Some(TypeProto { value: Some(type_proto::Value::TensorType(tensor)), ..Default::default() });
        ValueInfoProto { name: name.into(), r#type, ..Default::default() }
    }

    fn node(op: &str, input: &[&str], output: &str) -> NodeProto {
        let input = input.iter().map(|s| s.to_string()).collect();
        NodeProto { op_type: op.into(), input, output: vec![output.into()], ..Default::default() }
    }

    /// softmax(x·W + b) over 4 classes, x of 2 features; `add_bias` false leaves the product bare.
    fn head(add_bias: bool) -> ModelProto {
        let w = [0.5, -1.0, 2.0, 0.1, 1.5, 0.3, -0.7, 0.9];
        let mut nodes = vec![node("MatMul", &["x", "w"], "xw")];
        if add_bias {
            nodes.push(node("Add", &["xw", "b"], "logits"));
        }
        nodes.push(node("Softmax", &[if add_bias { "logits" } else { "xw" }], "probs"));
        let graph = GraphProto {
            node: nodes,
            initializer: vec![floats("w", &[2, 4], &w), floats("b", &[4], &[0.2, 0.0, -0.4, 1.0])],
            input: vec![float_io("x")],
            output: vec![float_io("probs")],
            ..Default::default()
        };
        ModelProto {
            ir_version: 8,
            opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 13 }],
            graph: Some(graph),
            ..Default::default()
        }
    }

    fn run(proto: ModelProto, kept: Option<&[usize]>) -> Vec<f32> {
        let plan = model_keeping_classes(proto, kept)
            .expect("loads")
            .with_input_fact(0, f32::fact([1, 2]).into())
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .expect("plans");
        let x = tract_ndarray::arr2(&[[0.8f32, -1.2]]).into_dyn().into_tensor();
        let out = plan.run(tvec!(x.into())).expect("runs");
        out[0].to_plain_array_view::<f32>().expect("floats").iter().copied().collect()
    }

    #[test]
    fn a_cut_head_gives_the_full_probabilities_renormalised_over_the_kept_classes() {
        let kept = [0, 2, 3];
        let want = crate::rec::keep_class_probabilities(&run(head(true), None), 1, &kept);
        let got = run(head(true), Some(&kept));
        assert_eq!(got.len(), 3);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-6, "{got:?} vs {want:?}");
        }
    }

    #[test]
    fn a_head_it_cannot_cut_is_left_whole() {
        let graph = |add_bias| head(add_bias).graph.expect("graph");
        let err = keep_classes(&mut graph(false), &[0, 1]).expect_err("refused");
        assert!(err.contains("no bias"), "{err}");
        let mut g = graph(true);
        let err = keep_classes(&mut g, &[0, 4]).expect_err("refused");
        assert!(err.contains("class 4 of 4"), "{err}");
        assert_eq!(g, graph(true), "left as it was");
        assert_eq!(run(head(false), Some(&[0, 1])).len(), 4, "loaded whole");
    }
}
