//! Rewrites of ONNX graphs before tract reads them, each computing what the graph computed
//! (up to float rounding): a classifier cut to some of its classes, and a convolutional
//! network turned about its diagonal.

use std::collections::HashSet;

use tract_onnx::pb::tensor_proto::DataType;
use tract_onnx::pb::{AttributeProto, GraphProto, NodeProto, TensorProto};

/// A float initializer's values, whether stored raw or as floats.
fn float_values(t: &TensorProto) -> Result<Vec<f32>, String> {
    let values: Vec<f32> = if t.data_type != DataType::Float as i32 {
        Vec::new()
    } else if t.raw_data.is_empty() {
        t.float_data.clone()
    } else {
        t.raw_data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
    };
    // Weights stored elsewhere (external data), of another type, or malformed.
    if values.len() as i64 != t.dims.iter().product::<i64>() {
        return Err(format!("{}: {} float values for dimensions {:?}", t.name, values.len(), t.dims));
    }
    Ok(values)
}

fn set_float_values(t: &mut TensorProto, values: &[f32]) {
    t.raw_data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    t.float_data.clear();
}

/// Cuts a classifier's output to the classes at `kept`, in the graph: the MatMul weight
/// with the most columns (one per class) and the bias added to that product keep the kept
/// columns. PP-OCR's head is MatMul -> Add -> Softmax, so the softmax then runs over the kept
/// logits alone: the full output's probabilities renormalised over the kept classes.
pub fn keep_classes(graph: &mut GraphProto, kept: &[usize]) -> Result<(), String> {
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
    let n = usize::try_from(inits[matrix].dims[1]).unwrap_or(0);
    if n == 0 {
        return Err("no classes".into());
    }
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
        let values = float_values(&graph.initializer[i])?;
        let cut: Vec<f32> = values.chunks_exact(n).flat_map(|row| kept.iter().map(|&c| row[c])).collect();
        cuts.push((i, cut));
    }
    for (i, cut) in cuts {
        let t = &mut graph.initializer[i];
        if let Some(last) = t.dims.last_mut() {
            *last = kept.len() as i64;
        }
        set_float_values(t, &cut);
    }
    Ok(())
}

/// Operators that work on each value, or on each channel as a whole, alike in any spatial
/// layout: a network of these and of the spatial operators `turn_node` knows computes the
/// transpose of its output from the transpose of its input.
const LAYOUT_FREE: [&str; 24] = [
    "Abs",
    "Add",
    "BatchNormalization",
    "Clip",
    "Div",
    "Erf",
    "Exp",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "HardSigmoid",
    "HardSwish",
    "Identity",
    "LeakyRelu",
    "Log",
    "Max",
    "Min",
    "Mul",
    "Neg",
    "Reciprocal",
    "Relu",
    "Sigmoid",
    "Sign",
    "Sub",
    "Tanh",
];

/// The graph of a convolutional network turned about the diagonal of its N×C×H×W maps:
/// fed the transposed image (H and W swapped), it gives the transposed output. Kernels,
/// strides, pads, dilations and scale factors swap their two axes; an operator it does not
/// know to be layout-free refuses the turn.
pub fn turned(graph: &GraphProto) -> Result<GraphProto, String> {
    let mut g = graph.clone();
    let mut turned_inits = HashSet::new();
    let nodes = std::mem::take(&mut g.node);
    for mut node in nodes {
        turn_node(&mut node, &mut g, &mut turned_inits)?;
        g.node.push(node);
    }
    Ok(g)
}

/// (kh, kw) -> (kw, kh) in an attribute of two spatial values; [top, left, bottom, right] pads
/// -> [left, top, right, bottom].
fn turn_attribute(a: &mut AttributeProto) -> Result<(), String> {
    match (a.name.as_str(), a.ints.len()) {
        ("kernel_shape" | "strides" | "dilations" | "output_padding" | "output_shape", 2) => a.ints.swap(0, 1),
        ("pads", 4) => {
            a.ints.swap(0, 1);
            a.ints.swap(2, 3);
        }
        ("kernel_shape" | "strides" | "dilations" | "output_padding" | "output_shape" | "pads", _) => {
            return Err(format!("{} of {} values: not a 2-D operator", a.name, a.ints.len()));
        }
        _ => {}
    }
    Ok(())
}

/// An axis of an N×C×H×W map, turned.
fn turned_axis(axis: i64) -> i64 {
    match axis {
        2 => 3,
        3 => 2,
        -1 => -2,
        -2 => -1,
        a => a,
    }
}

fn initializer<'g>(g: &'g mut GraphProto, name: &str) -> Option<&'g mut TensorProto> {
    g.initializer.iter_mut().find(|t| t.name == name)
}

/// Turns one node; `turned_inits` names the initializers already turned (a weight or a
/// scale factor shared by several nodes is turned once).
fn turn_node(node: &mut NodeProto, g: &mut GraphProto, turned_inits: &mut HashSet<String>) -> Result<(), String> {
    let op = node.op_type.as_str();
    match op {
        "Conv" | "ConvTranspose" | "MaxPool" | "AveragePool" => {
            node.attribute.iter_mut().try_for_each(turn_attribute)?;
            if op.starts_with("Conv") {
                let name = node.input.get(1).ok_or("a convolution without weights")?.clone();
                if turned_inits.insert(name.clone()) {
                    let w = initializer(g, &name).ok_or_else(|| format!("{name}: weights not constant"))?;
                    transpose_last_axes(w)?;
                }
            }
        }
        "Concat" | "ReduceMean" | "ReduceMax" | "ReduceSum" => {
            if op != "Concat" && node.input.len() > 1 {
                return Err(format!("{op} with axes as an input"));
            }
            for a in &mut node.attribute {
                a.i = if a.name == "axis" { turned_axis(a.i) } else { a.i };
                if a.name == "axes" {
                    a.ints.iter_mut().for_each(|x| *x = turned_axis(*x));
                }
            }
        }
        "Resize" => {
            // Inputs: X, roi, scales, sizes; the last two per axis, constant here.
            if let Some(roi) = node.input.get(1).filter(|r| !r.is_empty()) {
                let empty = g.initializer.iter().any(|t| &t.name == roi && t.dims.iter().product::<i64>() == 0);
                if !empty {
                    return Err("Resize with a region of interest".into());
                }
            }
            for name in node.input.iter().skip(2).filter(|n| !n.is_empty()) {
                let t = initializer(g, name).ok_or_else(|| format!("{name}: Resize scales not constant"))?;
                if turned_inits.insert(name.clone()) {
                    swap_last_two(t)?;
                }
            }
        }
        _ if LAYOUT_FREE.contains(&op) => {
            // Operands of their own must be alike along both spatial axes (per channel, or one
            // value): broadcasting aligns their last two dimensions with H and W.
            let spatial = |t: &TensorProto| t.dims.iter().rev().take(2).any(|&d| d != 1);
            if let Some(t) = g.initializer.iter().find(|t| node.input.contains(&t.name) && spatial(t)) {
                return Err(format!("{op} with a spatial operand {}", t.name));
            }
        }
        _ => return Err(format!("{op} is not known to be layout-free")),
    }
    Ok(())
}

/// Row-major h×w planes, one after another, each transposed (w×h).
pub fn transpose_planes(values: &[f32], h: usize, w: usize) -> Vec<f32> {
    let mut out = vec![0.0; values.len()];
    if h * w == 0 {
        return out;
    }
    for (src, dst) in values.chunks_exact(h * w).zip(out.chunks_exact_mut(h * w)) {
        for y in 0..h {
            for x in 0..w {
                dst[x * h + y] = src[y * w + x];
            }
        }
    }
    out
}

/// A 4-D weight [O, I, kh, kw] -> [O, I, kw, kh].
fn transpose_last_axes(t: &mut TensorProto) -> Result<(), String> {
    let &[_, _, h, w] = t.dims.as_slice() else { return Err(format!("{}: weights of rank {}", t.name, t.dims.len())) };
    let out = transpose_planes(&float_values(t)?, h as usize, w as usize);
    t.dims.swap(2, 3);
    set_float_values(t, &out);
    Ok(())
}

/// Per-axis values of an N×C×H×W map (Resize's scales or sizes): H's and W's swapped.
fn swap_last_two(t: &mut TensorProto) -> Result<(), String> {
    if t.dims.len() != 1 || t.dims[0] != 4 {
        return Err(format!("{}: {:?} per-axis values", t.name, t.dims));
    }
    if t.data_type == DataType::Int64 as i32 {
        match (t.raw_data.len(), t.int64_data.len()) {
            (0, 4) => t.int64_data.swap(2, 3),
            (32, _) => {
                let (a, b) = t.raw_data.split_at_mut(24);
                a[16..24].swap_with_slice(&mut b[..8]);
            }
            _ => return Err(format!("{}: not four int64 values", t.name)),
        }
        return Ok(());
    }
    let mut values = float_values(t)?;
    values.swap(2, 3);
    set_float_values(t, &values);
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use tract_onnx::pb::attribute_proto::AttributeType;
    use tract_onnx::pb::{ModelProto, OperatorSetIdProto, TypeProto, ValueInfoProto, type_proto};
    use tract_onnx::prelude::*;

    use super::*;
    use crate::tract::model_keeping_classes;

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

    fn ints(name: &str, ints: &[i64]) -> AttributeProto {
        AttributeProto {
            name: name.into(),
            ints: ints.to_vec(),
            r#type: AttributeType::Ints as i32,
            ..Default::default()
        }
    }

    fn int(name: &str, i: i64) -> AttributeProto {
        AttributeProto { name: name.into(), i, r#type: AttributeType::Int as i32, ..Default::default() }
    }

    fn string(name: &str, s: &str) -> AttributeProto {
        AttributeProto { name: name.into(), s: s.into(), r#type: AttributeType::String as i32, ..Default::default() }
    }

    fn model(graph: GraphProto) -> ModelProto {
        ModelProto {
            ir_version: 8,
            opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 13 }],
            graph: Some(graph),
            ..Default::default()
        }
    }

    /// The model's one output (shape, values) for the input `x` of `shape`, its classes cut
    /// to `kept` where given.
    fn run_model(proto: ModelProto, kept: Option<&[usize]>, x: &[f32], shape: &[usize]) -> (Vec<usize>, Vec<f32>) {
        let plan = model_keeping_classes(proto, kept)
            .expect("loads")
            .with_input_fact(0, f32::fact(shape).into())
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .expect("plans");
        let x = tract_ndarray::ArrayD::from_shape_vec(shape.to_vec(), x.to_vec()).expect("shape").into_tensor();
        let out = plan.run(tvec!(x.into())).expect("runs");
        let v = out[0].to_plain_array_view::<f32>().expect("floats");
        (v.shape().to_vec(), v.iter().copied().collect())
    }

    /// softmax(x·W + b) over 4 classes, x of 2 features; `add_bias` false leaves the product bare.
    pub(crate) fn head(add_bias: bool) -> ModelProto {
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
        model(graph)
    }

    fn run(proto: ModelProto, kept: Option<&[usize]>) -> Vec<f32> {
        run_model(proto, kept, &[0.8, -1.2], &[1, 2]).1
    }

    #[test]
    fn a_cut_head_gives_the_full_probabilities_renormalised_over_the_kept_classes() {
        let kept = [0, 2, 3];
        let full = run(head(true), None);
        let want =
            crate::rec::fold_class_probabilities(&full, 1, &crate::rec::kept_into(&kept, full.len()), kept.len());
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

    /// A small network with every spatial operator detection uses, on 7×5 maps: an
    /// asymmetric strided, padded, dilated convolution, a SAME max pool, a transposed
    /// convolution, a nearest resize of unequal factors, a squeeze-excite branch and a concat.
    fn spatial_net() -> GraphProto {
        let seq = |n: usize, k: f32| (0..n).map(|i| (i as f32 * k).sin() * 0.5).collect::<Vec<f32>>();
        let mut conv = node("Conv", &["x", "w1", "b1"], "c1");
        conv.attribute = vec![
            ints("kernel_shape", &[3, 2]),
            ints("strides", &[2, 1]),
            ints("pads", &[1, 0, 2, 1]),
            ints("dilations", &[1, 2]),
        ];
        let mut pool = node("MaxPool", &["c1"], "p");
        pool.attribute = vec![ints("kernel_shape", &[2, 2]), ints("strides", &[1, 1])];
        pool.attribute.push(string("auto_pad", "SAME_UPPER"));
        let mut up = node("ConvTranspose", &["p", "w2"], "t");
        up.attribute = vec![ints("kernel_shape", &[2, 3]), ints("strides", &[2, 1])];
        let mut resize = node("Resize", &["t", "", "scales"], "r");
        resize.attribute.push(string("mode", "nearest"));
        let mut mean = node("ReduceMean", &["r"], "m");
        mean.attribute = vec![ints("axes", &[2, 3])];
        let mut cat = node("Concat", &["r", "s"], "y");
        cat.attribute = vec![int("axis", 1)];
        GraphProto {
            node: vec![conv, pool, up, resize, mean, node("Sigmoid", &["m"], "g"), node("Mul", &["r", "g"], "s"), cat],
            initializer: vec![
                floats("w1", &[2, 3, 3, 2], &seq(36, 0.7)),
                floats("b1", &[2], &[0.1, -0.2]),
                floats("w2", &[2, 2, 2, 3], &seq(24, 1.3)),
                floats("scales", &[4], &[1.0, 1.0, 2.0, 3.0]),
            ],
            input: vec![float_io("x")],
            output: vec![float_io("y")],
            ..Default::default()
        }
    }

    #[test]
    fn a_turned_network_gives_the_transposed_output_of_the_transposed_input() {
        let x: Vec<f32> = (0..3 * 7 * 5).map(|i| ((i * 37 % 101) as f32 / 50.0) - 1.0).collect();
        let (want_shape, want) = run_model(model(spatial_net()), None, &x, &[1, 3, 7, 5]);
        let turned = turned(&spatial_net()).expect("turns");
        let (shape, got) = run_model(model(turned), None, &transpose_planes(&x, 7, 5), &[1, 3, 5, 7]);
        let &[n, c, h, w] = shape.as_slice() else { panic!("{shape:?}") };
        assert_eq!(want_shape, [n, c, w, h]);
        assert!(h != w, "a square output would not show a missed turn");
        assert_eq!((n, c), (1, 4));
        let back = transpose_planes(&got, h, w);
        let off = back.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(off < 1e-5, "max difference {off}");
    }

    #[test]
    fn scale_factors_shared_by_two_resizes_are_turned_once() {
        let mut g = spatial_net();
        let mut again = node("Resize", &["y", "", "scales"], "z");
        again.attribute.push(string("mode", "nearest"));
        g.node.push(again);
        g.output = vec![float_io("z")];
        let t = turned(&g).expect("turns");
        let scales = t.initializer.iter().find(|i| i.name == "scales").expect("scales");
        assert_eq!(float_values(scales).expect("floats"), [1.0, 1.0, 3.0, 2.0]);
    }

    #[test]
    fn resize_sizes_swap_their_spatial_values_and_short_ones_are_refused() {
        let sizes = |raw_data: Vec<u8>| TensorProto {
            name: "sizes".into(),
            dims: vec![4],
            data_type: DataType::Int64 as i32,
            raw_data,
            ..Default::default()
        };
        let mut t = sizes([1i64, 3, 10, 20].iter().flat_map(|v| v.to_le_bytes()).collect());
        swap_last_two(&mut t).expect("swaps");
        assert_eq!(t.raw_data, [1i64, 3, 20, 10].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
        assert!(swap_last_two(&mut sizes(vec![0; 8])).is_err());
    }

    #[test]
    fn a_network_with_an_operator_not_known_to_be_layout_free_is_not_turned() {
        let mut g = spatial_net();
        g.node.push(node("Reshape", &["y", "shape"], "z"));
        let err = turned(&g).expect_err("refused");
        assert!(err.contains("Reshape"), "{err}");
        // An operand that broadcasts along H or W (here a row of W values) makes an operator spatial.
        let mut g = spatial_net();
        g.initializer.push(floats("row", &[3], &[1.0, 2.0, 3.0]));
        g.node.push(node("Add", &["y", "row"], "z"));
        let err = turned(&g).expect_err("refused");
        assert!(err.contains("spatial operand row"), "{err}");
    }
}
