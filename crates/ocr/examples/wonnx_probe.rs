//! Finds where wonnx departs from tract inside a prepared model: runs both with every
//! `stride`-th node output as an extra output and prints the largest difference per tensor.
//! `cargo run --release -p docsift-ocr --features wonnx --example wonnx_probe -- FILE.onnx [stride [IMAGE]]`
//! (input: the image resized to the model's input, a band per image of the batch, else a
//! fixed pattern).

use std::collections::HashMap;

use tract_onnx::prelude::*;
use wonnx::utils::{InputTensor, OutputTensor};

fn main() -> TractResult<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("prepared .onnx file");
    let stride: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let prepared = docsift_prepared::read(std::path::Path::new(path))?;
    let bytes = prepared.to_bytes()?;
    let graph = prepared.proto.get_graph();
    let inits: Vec<&str> = graph.get_initializer().iter().map(|t| t.get_name()).collect();
    let input = graph.get_input().iter().find(|i| !inits.contains(&i.get_name())).expect("input");
    let shape: Vec<usize> = input
        .get_field_type()
        .get_tensor_type()
        .get_shape()
        .get_dim()
        .iter()
        .map(|d| d.get_dim_value() as usize)
        .collect();
    let nodes = graph.get_node();
    let names: Vec<String> = nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i == nodes.len() - 1)
        .map(|(_, n)| n.get_output()[0].to_string())
        .collect();
    let n: usize = shape.iter().product();
    let data: Vec<f32> = match args.get(3) {
        Some(image) => {
            let img = docsift_ocr::decode_image(&std::fs::read(image)?)?;
            let nchw: [usize; 4] = shape.as_slice().try_into()?;
            docsift_ocr::page_bands(&img, nchw)?.data
        }
        None => (0..n).map(|i| ((i * 7919 % 1000) as f32 / 500.0) - 1.0).collect(),
    };

    let mut model = tract_onnx::onnx().model_for_read(&mut &bytes[..])?;
    model = model.with_outputs_by_name(&names)?;
    let plan = model.into_optimized()?.into_runnable()?;
    let t = tract_ndarray::ArrayD::from_shape_vec(shape.clone(), data.clone())?.into_tensor();
    let want = plan.run(tvec!(t.into()))?;

    let config = wonnx::SessionConfig::new().with_outputs(Some(names.clone()));
    let session = pollster::block_on(wonnx::Session::from_bytes_with_config(&bytes, &config))?;
    let inputs = HashMap::from([(input.get_name().to_string(), InputTensor::from(&data[..]))]);
    let mut got = pollster::block_on(session.run(&inputs))?;
    // DUMP_DIR: tract's tensors as little-endian float32 files, for comparing elsewhere.
    if let Some(dir) = std::env::var_os("DUMP_DIR") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("input.f32"), data.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>())?;
        for (name, w) in names.iter().zip(want.iter()) {
            let w = w.to_plain_array_view::<f32>()?;
            std::fs::write(
                dir.join(format!("{}.f32", name.replace('/', "_"))),
                w.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>(),
            )?;
        }
        std::fs::write(dir.join("names.txt"), names.join("\n"))?;
    }
    for (name, w) in names.iter().zip(want.iter()) {
        let op = nodes.iter().find(|n| n.get_output()[0] == *name).map(|n| n.get_op_type()).unwrap_or("?");
        let w = w.to_plain_array_view::<f32>()?;
        match got.remove(name) {
            Some(OutputTensor::F32(g)) => {
                let d = w.iter().zip(&g).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
                let peak = w.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                let mean_w = w.iter().sum::<f32>() / w.len().max(1) as f32;
                let mean_g = g.iter().sum::<f32>() / g.len().max(1) as f32;
                println!(
                    "{name:40} {op:12} {:?} max diff {d:.3e} (len {} vs {}) peak {peak:.3e} means {mean_w:.4e} {mean_g:.4e}",
                    w.shape(),
                    w.len(),
                    g.len()
                );
            }
            _ => println!("{name:40} {op:12} missing"),
        }
    }
    Ok(())
}
