//! The WebGPU backend (wonnx on wgpu; lavapipe here) against tract, the reference, on the
//! files scripts/prepare_models.py wrote: per model and prepared input shape, the same
//! page-image input must give outputs within the model's tolerance, and the rewritten graph
//! must compute what the original does (tract on both). Then the whole pipeline on wonnx
//! must read a page as the tract pipeline does, and a page's detection window must read in
//! the prepared files' larger canvas as it does alone (tract on both: no GPU needed).

use std::path::{Path, PathBuf};

use docsift_ocr::{
    Backend, Engine, ModelKind, RgbImage, Script, Tensor, TractBackend, WonnxBackend, decode_image, now, page_bands,
    rec_dictionary,
};
use docsift_tests::{corpus, max_abs_diff};

/// Largest absolute difference allowed per model output. Probabilities and logits of
/// float32 networks of this depth differ by accumulated rounding only (measured ≤ 1e-4 on
/// correct runs); a wrong kernel differs by ≥ 0.1.
const TOLERANCE: f32 = 2e-3;

/// Rounding-level differences flip single pixels at the 0.3 threshold of the probability
/// map; a flipped edge pixel, grown by unclip, moves a box side by up to ~1.5 image pixels.
const ROUNDING_BOX_TOLERANCE_PX: f32 = 1.5;

/// wonnx gives a weight a GPU buffer of exactly its bytes, but at least this many
/// (MINIMUM_BUFFER_SIZE_BYTES in its gpu.rs).
const WONNX_MIN_BUFFER_BYTES: usize = 64;

fn ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| v != "false" && !v.is_empty())
}

fn prepared_models() -> Option<PathBuf> {
    let dir = docsift::default_models_dir();
    if !dir.join(docsift_ocr::PREPARED_DIR).is_dir() {
        assert!(!ci(), "prepared models missing in {} (run python3 scripts/models.py)", dir.display());
        eprintln!("prepared models not found in {}: skipping", dir.display());
        return None;
    }
    Some(dir)
}

fn models() -> Option<PathBuf> {
    let dir = prepared_models()?;
    if !docsift_ocr::adapter_available() {
        assert!(!ci(), "no Vulkan/WebGPU adapter (apt-get install mesa-vulkan-drivers)");
        eprintln!("no GPU adapter: skipping");
        return None;
    }
    Some(dir)
}

fn original(dir: &Path, kind: ModelKind, script: Script) -> TractBackend {
    let bytes = std::fs::read(dir.join(script.model_file(kind))).expect("model file");
    TractBackend::new(&[(kind, &bytes)]).expect("tract loads the original")
}

fn prepared_in_tract(dir: &Path, kind: ModelKind, script: Script, shape: &[usize]) -> TractBackend {
    let stem = script.model_file(kind).trim_end_matches(".onnx");
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let path = dir.join(docsift_ocr::PREPARED_DIR).join(format!("{stem}_{}.onnx", dims.join("x")));
    // With its shared weights moved in: tract reads one self-contained file.
    let bytes = docsift_prepared::read(&path).and_then(|p| p.to_bytes()).expect("prepared file and weights");
    TractBackend::new(&[(kind, &bytes)]).expect("tract loads the prepared file")
}

/// Tesseract's phototest, the page every check here reads.
fn phototest(corpus: &Path) -> RgbImage {
    decode_image(&std::fs::read(corpus.join("ocr/tesseract-test/testing/phototest.tif")).expect("image"))
        .expect("decodes")
}

/// A real page (tesseract's phototest) resized to the input shape, a band of it per image
/// of the batch (`page_bands`).
fn page_input(corpus: &Path, shape: &[usize]) -> Tensor {
    let page = phototest(corpus);
    let shape: [usize; 4] = shape.try_into().expect("an N×C×H×W input");
    page_bands(&page, shape).expect("resizes")
}

/// Every model's original file, as tract reads it.
struct OriginalModels(Vec<(ModelKind, Vec<u8>)>);

impl OriginalModels {
    fn read(dir: &Path) -> OriginalModels {
        OriginalModels(
            ModelKind::ALL.iter().map(|&k| (k, std::fs::read(dir.join(k.file_name())).expect("model"))).collect(),
        )
    }

    fn borrowed(&self) -> Vec<(ModelKind, &[u8])> {
        self.0.iter().map(|(k, b)| (*k, &b[..])).collect()
    }

    fn dictionary(&self) -> String {
        let (_, rec) = self.0.iter().find(|(k, _)| *k == ModelKind::Recognition).expect("recognition model");
        rec_dictionary(rec).expect("dictionary")
    }
}

/// tract with detection's static shapes: it reads the prepared detection files, as wonnx
/// does, so a page's detection window goes into their canvas; other models run as usual.
struct StaticDetection {
    tract: TractBackend,
    shapes: Vec<Vec<usize>>,
    prepared: Vec<TractBackend>,
}

impl Backend for StaticDetection {
    fn name(&self) -> &'static str {
        "tract with detection's static shapes"
    }
    fn has(&self, model: ModelKind) -> bool {
        self.tract.has(model)
    }
    fn fixed_shapes(&self, model: ModelKind) -> Option<Vec<Vec<usize>>> {
        (model == ModelKind::Detection).then(|| self.shapes.clone())
    }
    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, docsift_ocr::OcrError> {
        match self.shapes.iter().position(|s| s[..] == input.shape[..]) {
            Some(k) if model == ModelKind::Detection => self.prepared[k].run(model, input),
            _ => self.tract.run(model, input),
        }
    }
}

/// phototest's lines (text and bounds, top to bottom) as `engine` reads them.
fn phototest_lines(corpus: &Path, engine: &Engine) -> Vec<(String, [f32; 4])> {
    sorted_lines(&phototest(corpus), engine)
}

/// A page's lines (text and bounds, top to bottom) as `engine` reads them.
fn sorted_lines(page: &RgbImage, engine: &Engine) -> Vec<(String, [f32; 4])> {
    let mut lines: Vec<(String, [f32; 4])> = now(engine.read_lines(page, &mut |_| true))
        .expect("reads")
        .into_iter()
        .map(|l| (l.text, l.quad.bounds()))
        .collect();
    // read_lines returns lines by width (its batching order); compare them top to bottom.
    lines.sort_by(|a, b| a.1[1].total_cmp(&b.1[1]).then(a.1[0].total_cmp(&b.1[0])));
    lines
}

/// Asserts that `got` has `want`'s texts, each box within `tolerance` image pixels.
fn assert_same_lines(got: &[(String, [f32; 4])], want: &[(String, [f32; 4])], tolerance: f32) {
    assert!(want.len() >= 8, "the reference read too little: {want:?}");
    let texts = |v: &[(String, [f32; 4])]| v.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>();
    assert_eq!(texts(got), texts(want));
    for ((text, g), (_, w)) in got.iter().zip(want) {
        let off = g.iter().zip(w).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(off <= tolerance, "{text}: box {g:?} vs {w:?}");
    }
}

/// wonnx adds, subtracts, multiplies and divides tensors of one shape 4 floats at a time. A
/// weight whose buffer ends inside such a group is read past its end, and the driver decides
/// what that gives: lavapipe the right floats, Chromium's Dawn a clamped group (orientation
/// 5.8e-2 off), an NVIDIA H100 zeros (2.7e-2 off). No GPU needed: the files say it.
#[test]
fn no_prepared_elementwise_op_reads_past_the_end_of_a_weight() {
    let Some(dir) = prepared_models() else { return };
    let mut found = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(docsift_ocr::PREPARED_DIR))
        .expect("prepared folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnx"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no prepared files");
    for path in files {
        let prepared = docsift_prepared::read(&path).expect("prepared file");
        let graph = prepared.proto.get_graph();
        let mut shapes: std::collections::HashMap<String, Vec<i64>> = graph
            .get_value_info()
            .iter()
            .chain(graph.get_input())
            .chain(graph.get_output())
            .map(|v| {
                let d = v.get_field_type().get_tensor_type().get_shape().get_dim();
                (v.get_name().to_string(), d.iter().map(|d| d.get_dim_value()).collect())
            })
            .collect();
        for t in graph.get_initializer() {
            shapes.insert(t.get_name().to_string(), t.get_dims().to_vec());
        }
        let weight_len = |name: &str| {
            graph.get_initializer().iter().any(|t| t.get_name() == name).then(|| shapes[name].iter().product::<i64>())
        };
        for node in graph.get_node() {
            if !["Add", "Sub", "Mul", "Div"].contains(&node.get_op_type()) {
                continue;
            }
            let input_shapes: Vec<Option<&Vec<i64>>> = node.get_input().iter().map(|i| shapes.get(i)).collect();
            if input_shapes.windows(2).any(|w| w[0] != w[1]) {
                continue; // broadcast: wonnx reads one float at a time
            }
            for name in node.get_input() {
                if let Some(len) = weight_len(name)
                    && len % 4 != 0
                    && len as usize * 4 >= WONNX_MIN_BUFFER_BYTES
                {
                    found.push(format!(
                        "{}: {} {} reads weight {name} of {len} floats",
                        path.display(),
                        node.get_op_type(),
                        node.get_name()
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// How many of the "cjk" recognition model's prepared shapes, smallest first, the test run by
/// default checks on wonnx: on lavapipe (2 cores) its narrowest takes 72 s, all six 18
/// minutes, longer than the other parity tests together.
const CJK_SHAPES_ON_WONNX: usize = 1;

#[test]
fn every_prepared_model_matches_tract_on_wonnx_and_in_its_rewritten_form() {
    prepared_files_match_tract(Script::All, &ModelKind::ALL, usize::MAX);
}

/// The "cjk" script's recognition model (PP-OCRv6 small) has prepared files of its own; its
/// other models are the default ones, checked above. Every shape's rewritten graph is
/// checked in tract, the narrowest on wonnx too (the next test runs them all there).
#[test]
fn the_cjk_scripts_recognition_model_matches_tract_on_wonnx_and_in_its_rewritten_form() {
    prepared_files_match_tract(Script::Cjk, &[ModelKind::Recognition], CJK_SHAPES_ON_WONNX);
}

#[test]
#[ignore = "every width of the cjk recognition model on wonnx: 18 minutes on lavapipe"]
fn the_cjk_scripts_recognition_model_matches_tract_on_wonnx_at_every_width() {
    prepared_files_match_tract(Script::Cjk, &[ModelKind::Recognition], usize::MAX);
}

/// Per model of `kinds` that reads `script` and per input shape prepared for it, the same
/// page-image input on tract in its rewritten form and, for the first `on_wonnx` shapes
/// (smallest first), on wonnx must give the original model's outputs on tract within
/// `TOLERANCE`.
fn prepared_files_match_tract(script: Script, kinds: &[ModelKind], on_wonnx: usize) {
    let (Some(corpus), Some(dir)) = (corpus(), models()) else { return };
    let gpu = WonnxBackend::open(&dir, script).expect("wonnx backend opens");
    let mut failures = Vec::new();
    for &kind in kinds {
        let reference = original(&dir, kind, script);
        let shapes = gpu.shapes(kind);
        assert!(!shapes.is_empty(), "{kind:?}: nothing prepared");
        for (k, shape) in shapes.into_iter().enumerate() {
            let input = page_input(&corpus, &shape);
            let want = reference.run(kind, &input).expect("tract runs the original");
            let rewritten =
                max_abs_diff(&want, &prepared_in_tract(&dir, kind, script, &shape).run(kind, &input).expect("tract"));
            let mut line = format!("{script:?} {kind:?} {shape:?}: rewritten graph in tract {rewritten:.2e}");
            let mut diff = 0.0;
            if k < on_wonnx {
                let started = std::time::Instant::now();
                diff = max_abs_diff(&want, &gpu.run(kind, &input).expect("wonnx runs"));
                line +=
                    &format!(", max |wonnx − tract| = {diff:.2e} ({:.1} s on wonnx)", started.elapsed().as_secs_f32());
            }
            eprintln!("{line}");
            if diff > TOLERANCE || rewritten > TOLERANCE {
                failures.push(line);
            }
        }
    }
    assert!(failures.is_empty(), "outside tolerance {TOLERANCE}: {failures:#?}");
}

#[test]
fn a_page_read_on_wonnx_reads_as_on_tract() {
    let (Some(corpus), Some(dir)) = (corpus(), models()) else { return };
    let files = OriginalModels::read(&dir);
    let cpu = Engine::from_onnx(&files.borrowed(), Script::All).expect("tract engine");
    let gpu =
        Engine::new(Box::new(WonnxBackend::open(&dir, Script::All).expect("wonnx")), &files.dictionary(), Script::All);
    assert_same_lines(&phototest_lines(&corpus, &gpu), &phototest_lines(&corpus, &cpu), ROUNDING_BOX_TOLERANCE_PX);
}

/// phototest (640×480) is read at its own size, in the top-left of detection's 1600×1248
/// canvas: where the prepared graph's means and wide kernels took in the blank canvas past
/// it, its boxes moved by up to 3.7 px.
#[test]
fn a_detection_window_in_a_static_canvas_reads_as_it_does_alone() {
    let (Some(corpus), Some(dir)) = (corpus(), prepared_models()) else { return };
    let files = OriginalModels::read(&dir);
    let canvas = Engine::new(Box::new(static_detection(&dir, &files)), &files.dictionary(), Script::All);
    let alone = Engine::from_onnx(&files.borrowed(), Script::All).expect("tract engine");
    assert_same_lines(&phototest_lines(&corpus, &canvas), &phototest_lines(&corpus, &alone), ROUNDING_BOX_TOLERANCE_PX);
}

/// nics-background-checks' rotated page 1 (1699×2800 at 200 dpi) is small print, which a
/// finer pass reads at 1952×2624: larger than either static canvas, so it runs on the CPU
/// behind them. Shrunk into a canvas, a GPU read 936 of the 1231 words tract reads there.
#[test]
fn small_print_no_static_canvas_holds_reads_on_the_cpu_behind_them_as_on_tract() {
    let (Some(corpus), Some(dir)) = (corpus(), prepared_models()) else { return };
    let pdf = corpus.join("pdfplumber/tests/pdfs/nics-background-checks-2015-11-rotated.pdf");
    let png = docsift::render_page_png(&std::fs::read(pdf).expect("pdf"), None, 1, 200.0).expect("renders");
    let page = decode_image(&png).expect("png");
    let files = OriginalModels::read(&dir);
    let behind =
        Engine::preferring(Box::new(static_detection(&dir, &files)), &files.borrowed(), Script::All).expect("engine");
    let alone = Engine::from_onnx(&files.borrowed(), Script::All).expect("tract engine");
    let (got, want) = (sorted_lines(&page, &behind), sorted_lines(&page, &alone));
    assert!(want.len() > 500, "tract read {} lines", want.len());
    assert_same_lines(&got, &want, ROUNDING_BOX_TOLERANCE_PX);
}

/// tract with detection's prepared files and their static shapes, as a GPU runs detection.
fn static_detection(dir: &Path, files: &OriginalModels) -> StaticDetection {
    let mut shapes: Vec<Vec<usize>> = std::fs::read_dir(dir.join(docsift_ocr::PREPARED_DIR))
        .expect("prepared folder")
        .filter_map(|e| ModelKind::parse_prepared(&e.expect("entry").file_name().to_string_lossy(), Script::All))
        .filter_map(|(kind, shape)| (kind == ModelKind::Detection).then_some(shape))
        .collect();
    shapes.sort();
    assert!(!shapes.is_empty(), "no prepared detection shapes");
    let prepared = shapes.iter().map(|s| prepared_in_tract(dir, ModelKind::Detection, Script::All, s)).collect();
    let tract = TractBackend::new(&files.borrowed()).expect("tract loads the models");
    StaticDetection { tract, shapes, prepared }
}
