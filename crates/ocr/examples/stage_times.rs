//! Seconds per OCR stage (detection, orientation, marks beside lines, recognition) on one image with the CPU
//! models (or, with `--webgpu`, the prepared ones on wonnx), twice (the first round includes
//! building tract's plans or compiling wonnx's shaders), to see where a page's time goes.
//! Runs on rayon's global pool (`RAYON_NUM_THREADS=1` for one thread).
//! `cargo run --release -p docsift-ocr --features parallel,wonnx --example stage_times -- [--latin | --cjk] [--webgpu] MODELS_DIR IMAGE`

use std::time::Instant;

use docsift_ocr::{Engine, ModelKind, Script, decode_image, now};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let script = match (flag("--latin"), flag("--cjk")) {
        (true, _) => Script::Latin,
        (_, true) => Script::Cjk,
        _ => Script::All,
    };
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let [models, image] = paths[..] else {
        return Err("usage: stage_times [--latin | --cjk] [--webgpu] MODELS_DIR IMAGE".into());
    };
    let kinds = [ModelKind::Detection, ModelKind::Recognition, ModelKind::Orientation];
    let bytes = kinds
        .iter()
        .map(|&k| std::fs::read(std::path::Path::new(models).join(script.model_file(k))))
        .collect::<Result<Vec<_>, _>>()?;
    let files: Vec<(ModelKind, &[u8])> = kinds.into_iter().zip(bytes.iter().map(Vec::as_slice)).collect();
    let engine = if flag("--webgpu") {
        let rec = files.iter().find(|(k, _)| *k == ModelKind::Recognition).map(|(_, b)| *b).unwrap_or_default();
        let dictionary = docsift_ocr::rec_dictionary(rec)?;
        let gpu = docsift_ocr::WonnxBackend::open(std::path::Path::new(models), script)?;
        Engine::new(Box::new(gpu), &dictionary, script)
    } else {
        Engine::from_onnx(&files, script)?
    };
    let img = decode_image(&std::fs::read(image)?)?;
    for round in 1..=2 {
        let t = Instant::now();
        let quads = now(engine.detect(&img))?;
        let det = t.elapsed().as_secs_f32();
        let t = Instant::now();
        let quads = now(engine.orient(&img, quads, &mut |_| true))?;
        let orient = t.elapsed().as_secs_f32();
        let t = Instant::now();
        let beside = engine.beside(&img, &quads);
        let beside_s = t.elapsed().as_secs_f32();
        let t = Instant::now();
        let mut lines = 0;
        for batch in engine.recognition_batches(&quads, &beside) {
            lines += now(engine.recognize_batch(&img, &batch))?.len();
        }
        let rec = t.elapsed().as_secs_f32();
        println!(
            "round {round}: {}×{} px, detection {det:.2} s ({} regions), orientation {orient:.2} s, beside {beside_s:.2} s ({} marks, {} initials), recognition {rec:.2} s ({lines} lines)",
            img.width(),
            img.height(),
            quads.len(),
            beside.marks.len(),
            beside.initials.len()
        );
    }
    Ok(())
}
