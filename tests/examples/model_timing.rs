//! Times each OCR model on the CPU backend at the input shapes the pipeline uses.
//! `cargo run --release -p docsift-tests --example model_timing`

use std::time::Instant;

use docsift::ocr_models::{Backend, ModelKind, Tensor, TractBackend};

fn main() {
    let files = docsift::read_model_files(&docsift::default_models_dir(), docsift::OcrScript::All).expect("models");
    let refs: Vec<(ModelKind, &[u8])> = files.iter().map(|(k, b)| (*k, b.as_slice())).collect();
    let tract = TractBackend::new(&refs).expect("models");
    let shapes: &[(ModelKind, &[usize])] = &[
        (ModelKind::Recognition, &[1, 3, 48, 320]),
        (ModelKind::Recognition, &[2, 3, 48, 320]),
        (ModelKind::Recognition, &[1, 3, 48, 640]),
        (ModelKind::Recognition, &[1, 3, 48, 1600]),
        (ModelKind::Orientation, &[1, 3, 48, 192]),
        (ModelKind::Orientation, &[4, 3, 48, 192]),
        (ModelKind::Recognition, &[8, 3, 48, 320]),
        (ModelKind::Recognition, &[1, 3, 48, 960]),
        (ModelKind::Recognition, &[8, 3, 48, 960]),
        (ModelKind::Orientation, &[16, 3, 48, 192]),
        (ModelKind::Detection, &[1, 3, 640, 480]),
        (ModelKind::Detection, &[1, 3, 1280, 960]),
        (ModelKind::Layout, &[1, 3, 800, 608]),
    ];
    for (kind, shape) in shapes {
        let input = Tensor::zeros(shape.to_vec());
        let t = Instant::now();
        tract.run(*kind, &input).expect("run");
        let first = t.elapsed();
        let t = Instant::now();
        for _ in 0..3 {
            tract.run(*kind, &input).expect("run");
        }
        println!("{kind:?} {shape:?}: first {first:?}, then {:?}", t.elapsed() / 3);
    }
}
