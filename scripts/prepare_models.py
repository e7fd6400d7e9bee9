#!/usr/bin/env python3
"""Prepares the fetched OCR/layout models for wonnx (WebGPU): one file per static input shape
named in models/manifest.json ("wonnx"), written to <models>/wonnx/, with the large tensors
of all a model's shapes in one shared <model>.weights file (ONNX external data: a browser
fetches a model's weights once, whatever line widths a page needs). wonnx 0.5.1 needs fully
static shapes and computes wrong results on several operator forms these models use; each
rewrite below replaces one such form by an equivalent the runtime gets right
(../shared/notes/MODELS.md lists them). tract runs the original files and is the reference
the parity tests compare against.

Runs with the `onnx` package (pinned in the manifest); scripts/models.py installs it into a
virtual environment under the tools cache and calls this script."""
import hashlib
import json
import math
import os
import pathlib
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference
from onnx.reference import ReferenceEvaluator

ROOT = pathlib.Path(__file__).resolve().parent.parent
CACHE = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "docsift-tools"
MODELS = pathlib.Path(os.environ.get("DOCSIFT_MODELS", CACHE / "models"))

# Tensors at least this large go to the shared weights file; smaller ones (shape constants,
# gather indices) differ between input shapes and stay in each graph.
EXTERNAL_MIN_BYTES = 1024

# wonnx's matrix kernel tiles by gcd(M, K, N) clamped to 4 (see tiles_evenly): the largest tile.
MATMUL_MULTIPLE = 4

# wonnx gives a weight a GPU buffer of exactly its bytes, but at least this many
# (MINIMUM_BUFFER_SIZE_BYTES in its gpu.rs).
WONNX_MIN_BUFFER_BYTES = 64

# WebGPU's limit on workgroups along one dimension; past it wonnx widens its workgroups.
MAX_WORKGROUPS = 65535


def dispatched(items: int) -> int:
    """The invocations wonnx runs for `items` along one dimension: whole workgroups of
    ceil(items / 65,535), so up to one workgroup less one past the end."""
    if items <= MAX_WORKGROUPS:
        return items
    width = -(-items // MAX_WORKGROUPS)
    return -(-items // width) * width


def gather_overruns_rows(node, shapes) -> bool:
    """Whether wonnx's Gather copies past a row: it runs one invocation per chunk (4, 2 or 1
    floats) of an index's row, unguarded, so invocations past a row's end write into the next
    row. Past a tensor's end the WebGPU worker's buffer slack takes such writes; inside it,
    nothing can."""
    row = int(np.prod(shapes[node.input[0]][1:]))
    chunks = row // math.gcd(row, 4)
    return dispatched(chunks) != chunks


def is_static(vi: onnx.ValueInfoProto) -> bool:
    t = vi.type.tensor_type
    return t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim)


class Graph:
    """The graph being rewritten: nodes in order, initializers as arrays, shapes by tensor name."""

    def __init__(self, model: onnx.ModelProto):
        self.model = model
        self.g = model.graph
        self.consts = {t.name: numpy_helper.to_array(t) for t in self.g.initializer}
        self.counter = 0
        # A detection window's masks and shares by map size (window_mask), made once each.
        self.window_masks = {}

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}__w{self.counter}"

    def const(self, stem: str, value) -> str:
        name = self.fresh(stem)
        self.consts[name] = np.asarray(value)
        return name

    def shapes(self) -> dict:
        model = self.to_model(value_info=False)
        inferred = shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
        out = {}
        for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
            if is_static(vi):
                out[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        for name, value in self.consts.items():
            out[name] = list(value.shape)
        return out

    def to_model(self, value_info: bool) -> onnx.ModelProto:
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        del model.graph.initializer[:]
        model.graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in self.consts.items())
        if not value_info:
            del model.graph.value_info[:]
        return model


def fix_input(graph: Graph, shape: list) -> None:
    """Every dynamic input dimension gets the value asked for."""
    (inp,) = [i for i in graph.g.input if i.name not in graph.consts]
    dims = inp.type.tensor_type.shape.dim
    if len(dims) != len(shape):
        sys.exit(f"prepare: input {inp.name} has rank {len(dims)}, asked for {shape}")
    for d, v in zip(dims, shape):
        d.Clear()
        d.dim_value = v
    del graph.g.value_info[:]
    # Outputs keep their names; their shapes are inferred again at the end.
    for o in graph.g.output:
        o.type.tensor_type.ClearField("shape")


def drop_foreign_opsets(graph: Graph) -> None:
    """Exporter-only domains (PaddlePaddle's 'Paddle') name no operator in the graph."""
    used = {n.domain for n in graph.g.node}
    keep = [o for o in graph.model.opset_import if o.domain in ("", "ai.onnx") or o.domain in used]
    del graph.model.opset_import[:]
    graph.model.opset_import.extend(keep)


def evaluate(graph: Graph, node: onnx.NodeProto) -> list:
    inputs = [i for i in node.input if i]
    feeds = {i: graph.consts[i] for i in inputs}
    vi = [helper.make_tensor_value_info(i, helper.np_dtype_to_tensor_dtype(feeds[i].dtype), feeds[i].shape) for i in inputs]
    outs = [helper.make_empty_tensor_value_info(o) for o in node.output]
    model = helper.make_model(helper.make_graph([node], "fold", vi, outs), opset_imports=graph.model.opset_import)
    return ReferenceEvaluator(model).run(None, feeds)


def fold_constants(graph: Graph) -> None:
    """Nodes whose inputs are all known become initializers; Shape of a static tensor is known.
    With the input shape fixed this removes the Shape→Cast→Slice→Concat chains that feed Reshape.
    An Identity of a known tensor is known too (PP-OCRv6 small passes an attention Reshape's
    shape through one), unless it names a graph output."""
    outputs = {o.name for o in graph.g.output}
    while True:
        shapes = graph.shapes()
        kept, folded = [], False
        for node in graph.g.node:
            if node.op_type == "Constant":
                graph.consts[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
                folded = True
            elif node.op_type == "Shape" and node.input[0] in shapes:
                graph.consts[node.output[0]] = np.array(shapes[node.input[0]], dtype=np.int64)
                folded = True
            elif node.op_type == "Identity" and node.input[0] in graph.consts and node.output[0] not in outputs:
                graph.consts[node.output[0]] = graph.consts[node.input[0]]
                folded = True
            elif all(i in graph.consts for i in node.input if i) and node.op_type != "Identity":
                for name, value in zip(node.output, evaluate(graph, node)):
                    graph.consts[name] = np.asarray(value)
                folded = True
            else:
                kept.append(node)
        del graph.g.node[:]
        graph.g.node.extend(kept)
        if not folded:
            break
    prune(graph)


def prune(graph: Graph) -> None:
    """Drops initializers no node reads (folded away or replaced by a padded copy) and inputs
    that are initializers."""
    used = {i for n in graph.g.node for i in n.input} | {o.name for o in graph.g.output}
    graph.consts = {k: v for k, v in graph.consts.items() if k in used}
    keep_inputs = [i for i in graph.g.input if i.name not in graph.consts]
    del graph.g.input[:]
    graph.g.input.extend(keep_inputs)


def replace(graph: Graph, rewrite) -> None:
    """Runs `rewrite(node, shapes)` on every node; it returns the nodes to put in its place or None."""
    shapes = graph.shapes()
    out = []
    for node in graph.g.node:
        new = rewrite(graph, node, shapes)
        out.extend([node] if new is None else new)
    del graph.g.node[:]
    graph.g.node.extend(out)


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def hard_sigmoid_to_clip(graph, node, shapes):
    # Not implemented by wonnx.
    if node.op_type != "HardSigmoid":
        return None
    alpha, beta = attr(node, "alpha", 0.2), attr(node, "beta", 0.5)
    x = node.input[0]
    scaled, shifted = graph.fresh("hs_mul"), graph.fresh("hs_add")
    return [
        helper.make_node("Mul", [x, graph.const("alpha", np.float32(alpha))], [scaled]),
        helper.make_node("Add", [scaled, graph.const("beta", np.float32(beta))], [shifted]),
        helper.make_node("Clip", [shifted, graph.const("lo", np.float32(0)), graph.const("hi", np.float32(1))], node.output),
    ]


# Abramowitz & Stegun 7.1.26: erf(x) = 1 - t(a1 + t(a2 + ... + t a5)) exp(-x²), t = 1/(1 + p x)
# for x >= 0, odd in x; absolute error below 1.5e-7, about float32's own rounding near 1.
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def erf_to_primitives(graph, node, shapes):
    # Not implemented by wonnx (PP-OCRv6's GELU activations use it).
    if node.op_type != "Erf":
        return None
    x = node.input[0]
    f32 = np.float32
    nodes = []

    def op(kind, *inputs):
        out = graph.fresh("erf")
        nodes.append(helper.make_node(kind, list(inputs), [out]))
        return out

    ax = op("Abs", x)
    t = op("Reciprocal", op("Add", op("Mul", ax, graph.const("p", f32(ERF_P))), graph.const("one", f32(1))))
    poly = op("Mul", t, graph.const("a", f32(ERF_A[-1])))
    for a in reversed(ERF_A[:-1]):
        poly = op("Mul", t, op("Add", poly, graph.const("a", f32(a))))
    gauss = op("Exp", op("Mul", op("Mul", x, x), graph.const("minus", f32(-1))))
    magnitude = op("Sub", graph.const("one", f32(1)), op("Mul", poly, gauss))
    nodes.append(helper.make_node("Mul", [magnitude, op("Sign", x)], node.output))
    return nodes


def square_to_mul(graph, node, shapes):
    # WGSL pow(x, 2) is NaN for negative x.
    if node.op_type != "Pow" or node.input[1] not in graph.consts:
        return None
    exponent = graph.consts[node.input[1]]
    if exponent.size != 1 or float(exponent.reshape(-1)[0]) != 2.0:
        return None
    return [helper.make_node("Mul", [node.input[0], node.input[0]], node.output)]


def softmax_to_primitives(graph, node, shapes):
    # wonnx's softmax shader takes log(0.0), which browsers' WGSL compilers reject.
    if node.op_type != "Softmax":
        return None
    rank = len(shapes[node.input[0]])
    opset = max(o.version for o in graph.model.opset_import if o.domain in ("", "ai.onnx"))
    axis = attr(node, "axis", -1 if opset >= 13 else 1) % rank
    if opset < 13 and axis != rank - 1:
        sys.exit("prepare: Softmax before opset 13 over more than the last axis is not handled")
    x = node.input[0]
    peak, centred, exp, total = (graph.fresh(s) for s in ("sm_max", "sm_sub", "sm_exp", "sm_sum"))
    return [
        helper.make_node("ReduceMax", [x], [peak], axes=[axis], keepdims=1),
        helper.make_node("Sub", [x, peak], [centred]),
        helper.make_node("Exp", [centred], [exp]),
        helper.make_node("ReduceSum", [exp], [total], axes=[axis], keepdims=1)
        if opset < 13
        else helper.make_node("ReduceSum", [exp, graph.const("axes", np.array([axis], np.int64))], [total], keepdims=1),
        helper.make_node("Div", [exp, total], node.output),
    ]


def conv_transpose_to_shuffle(graph, node, shapes):
    # Not implemented by wonnx. A stride-k, kernel-k transposed convolution is a 1×1 convolution
    # to C·k·k channels followed by a pixel shuffle.
    if node.op_type != "ConvTranspose":
        return None
    w = graph.consts[node.input[1]]
    cin, cout_g, kh, kw = w.shape
    strides = attr(node, "strides", [1, 1])
    if attr(node, "group", 1) != 1 or list(strides) != [kh, kw] or any(attr(node, "pads", [0, 0, 0, 0])):
        sys.exit(f"prepare: ConvTranspose {node.name} is not a plain stride=kernel upsampling")
    n, _, h, wd = shapes[node.input[0]]
    weight = w.transpose(1, 2, 3, 0).reshape(cout_g * kh * kw, cin, 1, 1)
    bias = graph.consts[node.input[2]] if len(node.input) > 2 and node.input[2] else np.zeros(cout_g, np.float32)
    expanded = np.repeat(bias, kh * kw).astype(np.float32)
    conv, split, moved = graph.fresh("ct_conv"), graph.fresh("ct_split"), graph.fresh("ct_perm")
    return [
        helper.make_node("Conv", [node.input[0], graph.const("ct_w", weight), graph.const("ct_b", expanded)], [conv],
                         kernel_shape=[1, 1], pads=[0, 0, 0, 0], strides=[1, 1]),
        helper.make_node("Reshape", [conv, graph.const("s", np.array([n, cout_g, kh, kw, h, wd], np.int64))], [split]),
        helper.make_node("Transpose", [split], [moved], perm=[0, 1, 4, 2, 5, 3]),
        helper.make_node("Reshape", [moved, graph.const("s", np.array([n, cout_g, h * kh, wd * kw], np.int64))], node.output),
    ]


def slice_to_gather(graph, node, shapes):
    # Slice is not implemented by wonnx; a unit-step slice is a Gather of its index range.
    if node.op_type != "Slice":
        return None
    starts, ends = graph.consts[node.input[1]], graph.consts[node.input[2]]
    axes = graph.consts[node.input[3]] if len(node.input) > 3 and node.input[3] else np.arange(len(starts))
    steps = graph.consts[node.input[4]] if len(node.input) > 4 and node.input[4] else np.ones(len(starts), np.int64)
    shape = shapes[node.input[0]]
    if len(starts) != 1 or int(steps[0]) != 1:
        sys.exit(f"prepare: Slice {node.name} over several axes or with a step is not handled")
    axis = int(axes[0]) % len(shape)
    lo, hi, _ = slice(int(starts[0]), int(ends[0])).indices(shape[axis])
    return take_axis(graph, node.input[0], shape, axis, range(lo, hi), node.output[0])


def is_global_mean(node, shapes) -> bool:
    """A GlobalAveragePool, or the ReduceMean over H and W (keeping them) that PP-OCRv6's
    squeeze-excitation blocks write instead."""
    if node.op_type == "ReduceMean":
        rank = len(shapes[node.input[0]])
        return rank == 4 and sorted(a % rank for a in attr(node, "axes", [])) == [2, 3] and bool(attr(node, "keepdims", 1))
    return node.op_type == "GlobalAveragePool"


def global_pool_by_rows(graph, node, shapes):
    # wonnx sums a whole feature map in one float32 run: over the 312×400 maps of the
    # detection head the mean drifts by 0.5. Averaging each row, then the row means, stays
    # exact (its ReduceMean over a middle axis is wrong, so both steps are AveragePools).
    if not is_global_mean(node, shapes):
        return None
    n, c, h, w = shapes[node.input[0]]
    rows = graph.fresh("gap_rows")
    pool = dict(pads=[0, 0, 0, 0])
    return [
        helper.make_node("AveragePool", [node.input[0]], [rows], kernel_shape=[1, w], strides=[1, w], **pool),
        helper.make_node("AveragePool", [rows], node.output, kernel_shape=[h, 1], strides=[h, 1], **pool),
    ]


# A real pixel is never grey 127.5, so it never scales to 0 in any channel (|v| >= 0.5/127.5);
# scaled by this its channels' sum is at least 11.8, and clipped to 1 marks the window.
WINDOW_MARK_GAIN = 1000.0

# Kept under a window's share of a pooled map so an all-blank input pools to 0, not NaN: the
# smallest window (32×32 in a 1248×1600 canvas) is 5e-4 of it, so a mean moves by 2e-4 of
# itself at most.
WINDOW_SHARE_FLOOR = 1e-7


def window_reads(graph, node, shapes):
    # A runtime with static shapes reads a detection window in the top-left of a larger
    # canvas, blank (0) past it, where a runtime with dynamic shapes reads the window alone.
    # Two kinds of operator would see past the window's edge: squeeze-excitation's global
    # means average the blank area's features too and rescale every channel of the window
    # (phototest's boxes moved by 3.7 px), and a convolution or pooling wider than a pixel at
    # the window's right and bottom edges reads features there, not the zeros of its padding
    # (2.3 px more). Each mean is taken over the window instead, mean(x · mask) / mean(mask),
    # and each wide kernel reads x · mask, with the mask at x's stride: the window then
    # computes what it does alone, to rounding.
    (inp,) = [i for i in graph.g.input if i.name not in graph.consts]
    x = node.input[0] if node.input else None
    pooled = is_global_mean(node, shapes)
    if not pooled:
        if node.op_type not in ("Conv", "MaxPool", "AveragePool") or x == inp.name:
            return None
        kernel = attr(node, "kernel_shape") or list(graph.consts[node.input[1]].shape[2:])
        if int(np.prod(kernel)) == 1:
            return None
    nodes = []
    mask, share = window_mask(graph, shapes, inp.name, shapes[x][2:], nodes)
    masked = graph.fresh("win_x")
    nodes.append(helper.make_node("Mul", [x, mask], [masked]))
    if not pooled:
        node.input[0] = masked
        return nodes + [node]
    mean = graph.fresh("win_mean")
    return nodes + [
        helper.make_node("GlobalAveragePool", [masked], [mean]),
        helper.make_node("Div", [mean, share], node.output),
    ]


def window_mask(graph, shapes, inp, size, nodes):
    """The window's mask at a map of `size` (1 inside, 0 past it) and its share of the map,
    made once per size from the graph's input; their nodes are appended to `nodes`."""
    masks = graph.window_masks
    key = tuple(size)
    if key in masks:
        return masks[key]

    def op(kind, inputs, **attrs):
        out = graph.fresh("win")
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    _, channels, h, w = shapes[inp]
    if "full" not in masks:
        summed = op("Conv", [op("Abs", [inp]), graph.const("win_sum", np.ones((1, channels, 1, 1), np.float32))],
                    kernel_shape=[1, 1], pads=[0, 0, 0, 0], strides=[1, 1])
        gain = graph.const("win_gain", np.float32(WINDOW_MARK_GAIN))
        masks["full"] = op("Clip", [op("Mul", [summed, gain]), graph.const("lo", np.float32(0)), graph.const("hi", np.float32(1))])
    stride = h // size[0]
    if stride * size[0] != h or stride * size[1] != w:
        sys.exit(f"prepare: a pooled map of {size} is not the input {h}×{w} at one stride")
    mask = masks["full"] if stride == 1 else op("MaxPool", [masks["full"]], kernel_shape=[stride, stride], strides=[stride, stride], pads=[0, 0, 0, 0])
    share = op("Add", [op("GlobalAveragePool", [mask]), graph.const("floor", np.float32(WINDOW_SHARE_FLOOR))])
    masks[key] = (mask, share)
    return masks[key]


ELEMENTWISE = ("Add", "Sub", "Mul", "Div")


def reads_past_weight(graph, node, shapes) -> list:
    """The weights an elementwise op of equal shapes reads past the end of: wonnx's kernel for
    it reads 4 floats at a time, and a weight's buffer ends at its last float. What a read
    past a buffer's end gives is up to the driver: lavapipe gives the floats, Chromium's Dawn
    clamps it onto the last whole group, an NVIDIA H100 gives zeros (the orientation model's
    22-, 26- and 50-channel squeeze-excitation biases lost their last 2 channels)."""
    if node.op_type not in ELEMENTWISE or len({tuple(shapes[i]) for i in node.input}) != 1:
        return []
    return [
        i for i in node.input
        if i in graph.consts and graph.consts[i].size % 4 and graph.consts[i].nbytes >= WONNX_MIN_BUFFER_BYTES
    ]


def weight_operands_broadcast(graph, node, shapes):
    # Dropping a weight's leading unit axes sends the op to wonnx's broadcasting kernel, which
    # reads one float at a time; the values and the output's shape are unchanged.
    past = reads_past_weight(graph, node, shapes)
    if not past:
        return None
    inputs = list(node.input)
    for name in past:
        value = graph.consts[name]
        if value.ndim == 0 or value.shape[0] != 1:
            sys.exit(f"prepare: {node.op_type} {node.name}: weight {name} {list(value.shape)} cannot be broadcast")
        inputs[inputs.index(name)] = graph.const(name, value.reshape(value.shape[1:]))
    del node.input[:]
    node.input.extend(inputs)
    return [node]


def conv_explicit(graph, node, shapes):
    # wonnx computes SAME_* pads wrongly, and a 3×3 convolution without bias wrongly.
    if node.op_type not in ("Conv", "MaxPool", "AveragePool"):
        return None
    changed = False
    pad_mode = attr(node, "auto_pad", b"NOTSET")
    if pad_mode not in (b"NOTSET", "NOTSET"):
        if node.op_type == "Conv":
            kernel = list(graph.consts[node.input[1]].shape[2:])
        else:
            kernel = list(attr(node, "kernel_shape"))
        strides = list(attr(node, "strides", [1] * len(kernel)))
        dil = list(attr(node, "dilations", [1] * len(kernel)))
        size = shapes[node.input[0]][2:]
        begin, end = [], []
        for s, k, st, d in zip(size, kernel, strides, dil):
            total = max((math.ceil(s / st) - 1) * st + (k - 1) * d + 1 - s, 0)
            if pad_mode in (b"VALID", "VALID"):
                total = 0
            first = total // 2 if pad_mode in (b"SAME_UPPER", "SAME_UPPER", b"VALID", "VALID") else total - total // 2
            begin.append(first)
            end.append(total - first)
        keep = [a for a in node.attribute if a.name not in ("auto_pad", "pads")]
        del node.attribute[:]
        node.attribute.extend(keep)
        node.attribute.append(helper.make_attribute("pads", begin + end))
        changed = True
    if node.op_type == "Conv" and (len(node.input) < 3 or not node.input[2]):
        cout = graph.consts[node.input[1]].shape[0]
        inputs = list(node.input[:2]) + [graph.const("zero_bias", np.zeros(cout, np.float32))]
        del node.input[:]
        node.input.extend(inputs)
        changed = True
    return [node] if changed else None


def pad_axis(graph, name, shape, axis, size, out):
    """Nodes that append zeros to `name` along `axis` up to `size`."""
    extra = list(shape)
    extra[axis] = size - shape[axis]
    zeros = graph.consts.get(name)
    if zeros is not None:
        graph.consts[out] = np.concatenate([zeros, np.zeros(extra, zeros.dtype)], axis=axis)
        return []
    return concat_nodes(graph, [name, graph.const("zpad", np.zeros(extra, np.float32))], [shape, extra], axis, out)


def concat_nodes(graph, names, shapes, axis, out):
    """A Concat wonnx computes right. It appends whole buffers, which is a concatenation only
    along the first axis that is not 1; along a later axis the operands are transposed to
    put that axis first, concatenated, and transposed back."""
    if all(d == 1 for d in shapes[0][:axis]):
        return [helper.make_node("Concat", names, [out], axis=axis)]
    perm = [axis] + [d for d in range(len(shapes[0])) if d != axis]
    back = [perm.index(d) for d in range(len(shapes[0]))]
    nodes, fronts = [], []
    for name in names:
        front = graph.fresh("cat_t")
        if name in graph.consts:
            graph.consts[front] = np.ascontiguousarray(graph.consts[name].transpose(perm))
        else:
            nodes.append(helper.make_node("Transpose", [name], [front], perm=perm))
        fronts.append(front)
    joined = graph.fresh("cat")
    nodes.append(helper.make_node("Concat", fronts, [joined], axis=0))
    nodes.append(helper.make_node("Transpose", [joined], [out], perm=back))
    return nodes


def concat_for_wonnx(graph, node, shapes):
    if node.op_type != "Concat":
        return None
    rank = len(shapes[node.input[0]])
    axis = attr(node, "axis") % rank
    if all(d == 1 for d in shapes[node.input[0]][:axis]):
        return None
    return concat_nodes(graph, list(node.input), [shapes[i] for i in node.input], axis, node.output[0])


def pad_matrix(graph, name, shape, sizes, nodes):
    """Zero-pads the last two axes of `name` to `sizes`, appending the nodes; returns the new name and shape."""
    shape = list(shape)
    for axis, size in zip((len(shape) - 2, len(shape) - 1), sizes):
        if shape[axis] != size:
            padded = graph.fresh("mm_pad")
            nodes += pad_axis(graph, name, shape, axis, size, padded)
            name, shape[axis] = padded, size
    return name, shape


def take_axis(graph, name, shape, axis, indices, out):
    """Nodes that keep `indices` of `name` along `axis`. wonnx gathers only on axis 0 (so
    another axis is first brought to the front) and misreads int64 indices (so int32)."""
    index = graph.const("keep", np.asarray(indices, dtype=np.int32))
    if axis == 0:
        return [helper.make_node("Gather", [name, index], [out], axis=0)]
    picked_shape = list(shape)
    picked_shape[axis] = len(indices)
    front, picked = graph.fresh("take_in"), graph.fresh("take_g")
    if all(d == 1 for d in shape[:axis]):
        # Leading ones: a reshape (free in wonnx) puts the axis first.
        return [
            helper.make_node("Reshape", [name, graph.const("s", np.array(shape[axis:], np.int64))], [front]),
            helper.make_node("Gather", [front, index], [picked], axis=0),
            helper.make_node("Reshape", [picked, graph.const("s", np.array(picked_shape, np.int64))], [out]),
        ]
    perm = [axis] + [d for d in range(len(shape)) if d != axis]
    back = [perm.index(d) for d in range(len(shape))]
    return [
        helper.make_node("Transpose", [name], [front], perm=perm),
        helper.make_node("Gather", [front, index], [picked], axis=0),
        helper.make_node("Transpose", [picked], [out], perm=back),
    ]


def split_to_gathers(graph, node, shapes):
    # wonnx reads Split's sizes as cumulative offsets: each part becomes a Gather of its range.
    if node.op_type != "Split":
        return None
    shape = shapes[node.input[0]]
    axis = attr(node, "axis", 0) % len(shape)
    if len(node.input) > 1 and node.input[1]:
        sizes = [int(v) for v in graph.consts[node.input[1]]]
    else:
        sizes = attr(node, "split") or [shape[axis] // len(node.output)] * len(node.output)
    if len(set(sizes)) == 1:
        return None
    nodes, start = [], 0
    for out, size in zip(node.output, sizes):
        nodes += take_axis(graph, node.input[0], shape, axis, range(start, start + size), out)
        start += size
    return nodes


def tiles_evenly(m: int, k: int, n: int) -> bool:
    """wonnx's kernel choice: one row is a vector product; otherwise square tiles of gcd(M, K, N)
    clamped to 4, which must divide every dimension."""
    if m == 1:
        return True
    tile = min(math.gcd(m, math.gcd(k, n)), MATMUL_MULTIPLE)
    return tile > 1 and m % tile == 0 and k % tile == 0 and n % tile == 0


def matmul_for_wonnx(graph, node, shapes):
    # wonnx multiplies only equal-rank stacks, and only when M, K, N share a factor it tiles by.
    if node.op_type != "MatMul":
        return None
    a, b = node.input
    sa, sb, so = shapes[a], shapes[b], shapes[node.output[0]]
    nodes = []
    if len(sa) != len(sb):
        if len(sb) != 2:
            sys.exit(f"prepare: MatMul {node.name} broadcasts a stacked right side")
        flat = graph.fresh("mm_flat")
        rows = int(np.prod(sa[:-1]))
        nodes.append(helper.make_node("Reshape", [a, graph.const("s", np.array([rows, sa[-1]], np.int64))], [flat]))
        a, sa = flat, [rows, sa[-1]]
    m, k, n = sa[-2], sa[-1], sb[-1]
    if not tiles_evenly(m, k, n):
        m2, k2, n2 = (d + (-d) % MATMUL_MULTIPLE for d in (m, k, n))
        a, sa = pad_matrix(graph, a, sa, (m2, k2), nodes)
        b, sb = pad_matrix(graph, b, sb, (k2, n2), nodes)
    if not nodes:
        return None
    product_shape = list(sa[:-1]) + [sb[-1]]
    product = graph.fresh("mm_out")
    nodes.append(helper.make_node("MatMul", [a, b], [product]))
    for axis, size in ((len(product_shape) - 2, m), (len(product_shape) - 1, n)):
        if product_shape[axis] != size:
            cropped = graph.fresh("mm_crop")
            nodes += take_axis(graph, product, product_shape, axis, range(size), cropped)
            product_shape[axis] = size
            product = cropped
    if product_shape != list(so):
        nodes.append(helper.make_node("Reshape", [product, graph.const("s", np.array(so, np.int64))], node.output))
    else:
        nodes[-1].output[0] = node.output[0]
    return nodes


def fold_batch_norms(graph: Graph) -> None:
    """BatchNormalization after a Conv goes into the Conv's weights and bias; elsewhere it
    becomes a per-channel Mul and Add. wonnx dispatches one workgroup per 4 pixels for it,
    past WebGPU's 65,535 limit on a page-sized feature map (800×624 at 1600×1248 input)."""
    shapes = graph.shapes()
    producer = {o: n for n in graph.g.node for o in n.output}
    readers = {}
    for n in graph.g.node:
        for i in n.input:
            readers[i] = readers.get(i, 0) + 1
    out = []
    for node in graph.g.node:
        if node.op_type != "BatchNormalization":
            out.append(node)
            continue
        gamma, beta, mean, var = (graph.consts[i].astype(np.float32) for i in node.input[1:5])
        scale = gamma / np.sqrt(var + np.float32(attr(node, "epsilon", 1e-5)))
        shift = beta - mean * scale
        conv = producer.get(node.input[0])
        if conv is not None and conv.op_type == "Conv" and readers[node.input[0]] == 1 and len(node.output) == 1:
            w = graph.consts[conv.input[1]]
            b = graph.consts[conv.input[2]] if len(conv.input) > 2 and conv.input[2] else np.zeros(w.shape[0], np.float32)
            inputs = [conv.input[0], graph.const("w_bn", w * scale.reshape(-1, 1, 1, 1)), graph.const("b_bn", b * scale + shift)]
            del conv.input[:]
            conv.input.extend(inputs)
            conv.output[0] = node.output[0]
            continue
        scaled = graph.fresh("bn_mul")
        # Per channel (axis 1) over an N×C×… input of any rank: PP-OCRv6 normalises N×C×W sequences.
        channel = (1, -1) + (1,) * (len(shapes[node.input[0]]) - 2)
        out.append(helper.make_node("Mul", [node.input[0], graph.const("bn_s", scale.reshape(channel))], [scaled]))
        out.append(helper.make_node("Add", [scaled, graph.const("bn_b", shift.reshape(channel))], [node.output[0]]))
    del graph.g.node[:]
    graph.g.node.extend(out)


REWRITES = [
    hard_sigmoid_to_clip,
    erf_to_primitives,
    square_to_mul,
    softmax_to_primitives,
    conv_transpose_to_shuffle,
    slice_to_gather,
    split_to_gathers,
    global_pool_by_rows,
    conv_explicit,
    matmul_for_wonnx,
    concat_for_wonnx,
    weight_operands_broadcast,
]

# Operators this preparation leaves in place and wonnx runs correctly on these models.
SUPPORTED = {
    "Add", "Sub", "Mul", "Div", "Conv", "Relu", "Sigmoid", "Clip", "Exp", "Sqrt", "MatMul", "Gemm",
    "Concat", "Reshape", "Transpose", "Gather", "Split", "Squeeze", "Unsqueeze", "Flatten", "Identity",
    "AveragePool", "MaxPool", "Resize", "ReduceMean", "Abs", "Sign", "Reciprocal",
    "ReduceMax", "ReduceSum",
}


def check(graph: Graph) -> onnx.ModelProto:
    """Annotates every tensor with its static shape; fails on anything wonnx would get wrong."""
    prune(graph)
    model = shape_inference.infer_shapes(graph.to_model(value_info=False), strict_mode=True, data_prop=True)
    onnx.checker.check_model(model)
    shapes = graph.shapes()
    static = {vi.name for vi in list(model.graph.value_info) + list(model.graph.output) if is_static(vi)}
    for node in model.graph.node:
        if node.op_type not in SUPPORTED:
            sys.exit(f"prepare: {node.op_type} ({node.name}) is left in the graph")
        if node.op_type == "Clip":
            for bound in node.input[1:]:
                value = float(graph.consts[bound])
                # wonnx prints Clip bounds into WGSL with one decimal.
                if round(value, 1) != value:
                    sys.exit(f"prepare: Clip bound {value} in {node.name} is not exact to one decimal")
        for o in node.output:
            if o not in static:
                sys.exit(f"prepare: no static shape for {o} ({node.op_type})")
        if node.op_type.startswith("Reduce"):
            rank = len(shapes[node.input[0]])
            axes = attr(node, "axes") or [int(a) for a in graph.consts.get(node.input[1] if len(node.input) > 1 else "", [])]
            # wonnx reduces wrongly over any axis but the last.
            if [a % rank for a in axes] != [rank - 1]:
                sys.exit(f"prepare: {node.op_type} {node.name} over axes {axes} of rank {rank}")
        if node.op_type == "Cast":
            sys.exit("prepare: a Cast on data is left")
        if node.op_type == "Gather" and gather_overruns_rows(node, shapes):
            sys.exit(f"prepare: Gather {node.name} copies rows of {shapes[node.input[0]][1:]} past their ends")
        if reads_past_weight(graph, node, shapes):
            sys.exit(f"prepare: {node.op_type} {node.name} reads past the end of a weight")
    return model


# Models the pipeline reads a window of in a larger canvas (see window_reads). Not
# recognition, though its lines are padded to the prepared widths: it reads the padding as
# context (masked, scotus-transcript lost its spaced dash rule, read as marks on a wide blank).
WINDOWED = {"det"}


def prepare(source: pathlib.Path, shape: list, windowed: bool) -> onnx.ModelProto:
    graph = Graph(onnx.load(source))
    fix_input(graph, shape)
    drop_foreign_opsets(graph)
    fold_constants(graph)
    fold_batch_norms(graph)
    for rewrite in ([window_reads] if windowed else []) + REWRITES:
        replace(graph, rewrite)
    return check(graph)


def share_weights(models: list, weights_name: str) -> bytes:
    """Moves the large tensors of `models` (the shapes of one model) into one blob, each
    distinct tensor once, and points the graphs at it; returns the blob."""
    blob = bytearray()
    offsets = {}
    for model in models:
        for t in model.graph.initializer:
            array = numpy_helper.to_array(t)
            data = array.astype(array.dtype.newbyteorder("<")).tobytes()
            if len(data) < EXTERNAL_MIN_BYTES:
                continue
            key = hashlib.sha256(data).digest()
            if key not in offsets:
                offsets[key] = len(blob)
                blob += data
            moved = TensorProto(name=t.name, data_type=t.data_type, dims=t.dims, data_location=TensorProto.EXTERNAL)
            for k, v in (("location", weights_name), ("offset", str(offsets[key])), ("length", str(len(data)))):
                entry = moved.external_data.add()
                entry.key, entry.value = k, v
            t.CopyFrom(moved)
    return bytes(blob)


def write(path: pathlib.Path, data: bytes) -> None:
    tmp = path.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(path)


def main() -> None:
    manifest = json.loads((ROOT / "models" / "manifest.json").read_text())
    out = MODELS / "wonnx"
    out.mkdir(parents=True, exist_ok=True)
    script_time = pathlib.Path(__file__).stat().st_mtime
    for model, shapes in manifest["wonnx"]["shapes"].items():
        source = MODELS / f"{model}.onnx"
        weights = out / f"{model}.weights"
        targets = [out / f"{model}_{'x'.join(map(str, shape))}.onnx" for shape in shapes]
        # Shapes the manifest no longer names (the backends would run any file they find); a
        # shape's name is digits and x's, so `rec_*` leaves `rec_cjk_*` alone.
        ours = re.compile(rf"{re.escape(model)}_\d+(x\d+)*\.onnx")
        for stale in {p for p in out.glob(f"{model}_*.onnx") if ours.fullmatch(p.name)} - set(targets):
            stale.unlink()
        newest_input = max(source.stat().st_mtime, script_time)
        # The shapes share one weights file, so they are prepared together.
        if all(p.is_file() and p.stat().st_mtime >= newest_input for p in [weights, *targets]):
            continue
        prepared = [prepare(source, shape, model in WINDOWED) for shape in shapes]
        write(weights, share_weights(prepared, weights.name))
        for target, graph in zip(targets, prepared):
            write(target, graph.SerializeToString())
            print(f"prepare: {target.name}", file=sys.stderr)
    print(out)


if __name__ == "__main__":
    main()
