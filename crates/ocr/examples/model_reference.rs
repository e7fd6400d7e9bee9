//! Writes a fixed model input and tract's output for it, the reference the browser's WebGPU
//! parity test compares with: the page image resized to the input shape (a band of it per
//! image of the batch, `page_bands`), run through the original (unprepared) model.
//! `cargo run --release -p docsift-ocr --example model_reference -- MODELS_DIR rec 4x3x48x320 IMAGE OUT_DIR`
//! (MODEL: a model file's name less `.onnx`, `rec_cjk` for the "cjk" script's recognition model)
//! → OUT_DIR/input.f32 and OUT_DIR/output.f32 (little-endian float32; first output).

use docsift_ocr::{Backend, ModelKind, Script, TractBackend, decode_image, page_bands};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [models, stem, shape, image, out] = args.as_slice() else {
        return Err("usage: model_reference MODELS_DIR MODEL SHAPE IMAGE OUT_DIR".into());
    };
    let (kind, file) = [Script::All, Script::Cjk]
        .into_iter()
        .flat_map(|script| ModelKind::ALL.map(|k| (k, script.model_file(k))))
        .find(|(_, file)| file.strip_suffix(".onnx") == Some(stem.as_str()))
        .ok_or("unknown model")?;
    let shape: Vec<usize> = shape.split('x').map(str::parse).collect::<Result<_, _>>()?;
    let shape: [usize; 4] = shape.try_into().map_err(|_| "the shape is N×C×H×W")?;
    let bytes = std::fs::read(std::path::Path::new(models).join(file))?;
    let tract = TractBackend::new(&[(kind, &bytes)])?;
    let page = decode_image(&std::fs::read(image)?)?;
    let input = page_bands(&page, shape)?;
    let output = tract.run(kind, &input)?;
    let first = output.first().ok_or("no output")?;
    let le = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::create_dir_all(out)?;
    std::fs::write(std::path::Path::new(out).join("input.f32"), le(&input.data))?;
    std::fs::write(std::path::Path::new(out).join("output.f32"), le(&first.data))?;
    println!("{:?}", first.shape);
    Ok(())
}
