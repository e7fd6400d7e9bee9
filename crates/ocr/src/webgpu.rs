//! The WebGPU backend: wonnx on wgpu (Vulkan, Metal or DX12 natively; lavapipe in tests).
//! It runs only the files scripts/prepare_models.py wrote — one per model and static input
//! shape, rewritten where wonnx computes wrong results — and each is trusted only after the
//! parity tests compare it with tract.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use wonnx::utils::{InputTensor, OutputTensor};

use crate::OcrError;
use crate::backend::{Backend, ModelKind, Tensor};
use crate::rec::Script;

/// Sub-folder of the models folder that holds the prepared files.
pub const PREPARED_DIR: &str = "wonnx";

/// One prepared model file: its static input shape and where it is; read and compiled on
/// first use (a document needs a few of the shapes, and each file is megabytes).
struct Prepared {
    shape: Vec<usize>,
    path: PathBuf,
    compiled: Mutex<Option<Arc<Compiled>>>,
}

/// A compiled model. Its session owns GPU buffers, so calls on it take turns.
struct Compiled {
    session: Mutex<wonnx::Session>,
    input: String,
    /// Output names in the model's order, with their static shapes.
    outputs: Vec<(String, Vec<usize>)>,
}

pub struct WonnxBackend {
    /// Per model, its prepared files, smallest input first.
    models: HashMap<ModelKind, Vec<Prepared>>,
}

fn gpu_err(model: ModelKind, e: impl std::fmt::Display) -> OcrError {
    OcrError::Model { model, message: e.to_string() }
}

/// Whether wgpu finds an adapter here (wonnx itself panics when there is none).
pub fn adapter_available() -> bool {
    let backends = wgpu::util::backend_bits_from_env().unwrap_or(wgpu::Backends::PRIMARY);
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor { backends, ..Default::default() });
    pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(&instance, backends, None)).is_some()
}

/// Reads a prepared file (and the weights file it names, beside it) and compiles it for the GPU.
fn compile(model: ModelKind, path: &Path) -> Result<Compiled, OcrError> {
    let prepared = docsift_prepared::read(path).map_err(|e| gpu_err(model, e))?;
    let session = pollster::block_on(wonnx::Session::from_model(prepared.proto)).map_err(|e| gpu_err(model, e))?;
    Ok(Compiled { session: Mutex::new(session), input: prepared.input, outputs: prepared.outputs })
}

impl WonnxBackend {
    /// Lists the prepared files under `models_dir/wonnx` of the models that read `script`.
    /// Fails when no GPU adapter exists.
    pub fn open(models_dir: &Path, script: Script) -> Result<Self, OcrError> {
        if !adapter_available() {
            return Err(OcrError::NoGpu);
        }
        let dir = models_dir.join(PREPARED_DIR);
        let entries = std::fs::read_dir(&dir).map_err(|e| OcrError::Image(format!("{}: {e}", dir.display())))?;
        let mut models: HashMap<ModelKind, Vec<Prepared>> = HashMap::new();
        for entry in entries.flatten() {
            let Some((kind, shape)) = ModelKind::parse_prepared(&entry.file_name().to_string_lossy(), script) else {
                continue;
            };
            models.entry(kind).or_default().push(Prepared { shape, path: entry.path(), compiled: Mutex::new(None) });
        }
        for files in models.values_mut() {
            files.sort_by_key(|p| p.shape.iter().product::<usize>());
        }
        Ok(WonnxBackend { models })
    }

    /// The input shapes prepared for a model, smallest first.
    pub fn shapes(&self, model: ModelKind) -> Vec<Vec<usize>> {
        self.models.get(&model).map(|v| v.iter().map(|p| p.shape.clone()).collect()).unwrap_or_default()
    }

    fn compiled(&self, model: ModelKind, shape: &[usize]) -> Result<Arc<Compiled>, OcrError> {
        let prepared = self
            .models
            .get(&model)
            .and_then(|v| v.iter().find(|p| p.shape == shape))
            .ok_or_else(|| gpu_err(model, format!("no file prepared for input shape {shape:?}")))?;
        let mut slot = prepared.compiled.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let compiled = Arc::new(compile(model, &prepared.path)?);
        *slot = Some(compiled.clone());
        Ok(compiled)
    }
}

impl Backend for WonnxBackend {
    fn name(&self) -> &'static str {
        "wonnx"
    }

    fn has(&self, model: ModelKind) -> bool {
        self.models.contains_key(&model)
    }

    fn fixed_shapes(&self, model: ModelKind) -> Option<Vec<Vec<usize>>> {
        Some(self.shapes(model))
    }

    /// Compiles the file for `shape` (its few hundred shaders took 1–2 s on an H200's host), so
    /// that the files a page needs can compile side by side rather than one after another.
    fn prepare(&self, model: ModelKind, shape: &[usize]) {
        let _ = self.compiled(model, shape);
    }

    fn run(&self, model: ModelKind, input: &Tensor) -> Result<Vec<Tensor>, OcrError> {
        let compiled = self.compiled(model, &input.shape)?;
        let inputs = HashMap::from([(compiled.input.clone(), InputTensor::from(&input.data[..]))]);
        let mut out = {
            let session = compiled.session.lock().unwrap_or_else(|p| p.into_inner());
            pollster::block_on(session.run(&inputs)).map_err(|e| gpu_err(model, e))?
        };
        compiled
            .outputs
            .iter()
            .map(|(name, shape)| {
                let data = match out.remove(name) {
                    Some(OutputTensor::F32(v)) => v,
                    Some(_) => return Err(gpu_err(model, format!("output {name} is not f32"))),
                    None => return Err(gpu_err(model, format!("output {name} missing"))),
                };
                if shape.iter().product::<usize>() != data.len() {
                    return Err(gpu_err(model, format!("output {name} has {} values for {shape:?}", data.len())));
                }
                Ok(Tensor::new(shape.clone(), data))
            })
            .collect()
    }
}
