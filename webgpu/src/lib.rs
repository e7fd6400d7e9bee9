//! The browser's WebGPU model runtime: a prepared ONNX file (static shapes, rewritten by
//! scripts/prepare_models.py) compiled by wonnx into WebGPU compute shaders and run on
//! float32 input. The worker in pkg/webgpu-worker.js drives it; tract on the CPU is the
//! reference it is compared with.

use std::collections::HashMap;

use js_sys::{Array, Float32Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wonnx::utils::{InputTensor, OutputTensor};

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The shared weights file a prepared model names (fetched beside it), if any.
#[wasm_bindgen(js_name = weightsFile)]
pub fn weights_file(bytes: &[u8]) -> Result<Option<String>, JsError> {
    docsift_prepared::weights_file(bytes).map_err(js_err)
}

/// One prepared model with its GPU buffers and compiled shaders.
#[wasm_bindgen]
pub struct GpuModel {
    session: wonnx::Session,
    input: String,
    /// The graph's outputs in its order, with their static shapes.
    outputs: Vec<(String, Vec<u32>)>,
}

fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

#[wasm_bindgen]
impl GpuModel {
    /// Compiles a prepared model (one input, float32 outputs) with the weights file it names
    /// (`weightsFile`). `outputs` names the tensors to return (any node output, for locating
    /// where a result departs from the reference); empty: the model's own outputs.
    pub async fn load(bytes: Vec<u8>, weights: Option<Vec<u8>>, outputs: Vec<String>) -> Result<GpuModel, JsError> {
        let prepared = docsift_prepared::load(&bytes, weights.as_deref()).map_err(js_err)?;
        let config = wonnx::SessionConfig::new().with_outputs((!outputs.is_empty()).then_some(outputs));
        let session = wonnx::Session::from_model_with_config(prepared.proto, &config).await.map_err(js_err)?;
        let outputs =
            prepared.outputs.into_iter().map(|(n, s)| (n, s.into_iter().map(|d| d as u32).collect())).collect();
        Ok(GpuModel { session, input: prepared.input, outputs })
    }

    /// The model's own outputs in graph order: `[{ name, shape }]`.
    pub fn outputs(&self) -> Array {
        self.outputs
            .iter()
            .map(|(name, shape)| {
                let o = Object::new();
                let _ = Reflect::set(&o, &"name".into(), &JsValue::from_str(name));
                let _ = Reflect::set(&o, &"shape".into(), &shape.iter().map(|&d| JsValue::from(d)).collect::<Array>());
                JsValue::from(o)
            })
            .collect()
    }

    /// Runs the model; returns `{ outputName: Float32Array }`.
    pub async fn run(&self, data: Vec<f32>) -> Result<Object, JsError> {
        let inputs = HashMap::from([(self.input.clone(), InputTensor::from(&data[..]))]);
        let outputs = self.session.run(&inputs).await.map_err(js_err)?;
        let result = Object::new();
        for (name, tensor) in outputs {
            let OutputTensor::F32(values) = tensor else {
                return Err(JsError::new(&format!("output {name} is not float32")));
            };
            Reflect::set(&result, &JsValue::from_str(&name), &Float32Array::from(&values[..]))
                .map_err(|_| JsError::new("cannot set output"))?;
        }
        Ok(result)
    }
}
