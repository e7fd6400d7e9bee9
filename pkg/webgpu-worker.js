// The WebGPU model worker: wonnx compiled to wasm (a module of its own, loaded only when a
// model is asked for), running the prepared model files on the page's GPU. Model files are
// fetched from the page's own origin and kept in the Cache API, so a second visit reads
// them offline.

import { fetchModel } from './models.js';

/**
 * Limits removed from WebGPU that wgpu 0.16 (under wonnx) still asks for; current browsers
 * reject a requestDevice that names them, so they are dropped from the request.
 */
const REMOVED_LIMITS = ['maxInterStageShaderComponents'];

/**
 * wonnx's shaders read and write whole vec4s, and it rounds its intermediate buffers up to
 * 16 bytes but not those holding weights: a 22-float bias is read past its end. Vulkan
 * drivers return zeros there; Dawn clamps the access onto the last whole vec4 and the sum
 * comes out wrong (0.1 off in the orientation model on SwiftShader). Every buffer is made a
 * multiple of 16 bytes; WebGPU zero-fills the extra.
 */
const BUFFER_ALIGN = 16;

if (self.GPUDevice && !self.GPUDevice.prototype.__docsiftPatched) {
  const createBuffer = self.GPUDevice.prototype.createBuffer;
  self.GPUDevice.prototype.createBuffer = function (descriptor) {
    const size = Math.ceil(descriptor.size / BUFFER_ALIGN) * BUFFER_ALIGN;
    return createBuffer.call(this, { ...descriptor, size });
  };
  self.GPUDevice.prototype.__docsiftPatched = true;
}

if (self.GPUAdapter && !self.GPUAdapter.prototype.__docsiftPatched) {
  const requestDevice = self.GPUAdapter.prototype.requestDevice;
  self.GPUAdapter.prototype.requestDevice = function (descriptor = {}) {
    const limits = { ...(descriptor.requiredLimits || {}) };
    for (const name of REMOVED_LIMITS) delete limits[name];
    return requestDevice.call(this, { ...descriptor, requiredLimits: limits });
  };
  self.GPUAdapter.prototype.__docsiftPatched = true;
}

let runtime = null;
const models = new Map();

async function loadRuntime() {
  if (!self.navigator.gpu) throw new Error('WebGPU is not available in this browser');
  const adapter = await self.navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  const mod = await import('./wasm/webgpu/docsift_webgpu.js');
  await mod.default();
  const info = adapter.info || {};
  return { mod, adapter: { vendor: info.vendor || '', architecture: info.architecture || '', description: info.description || '' } };
}

const handlers = {
  async init() {
    runtime ??= loadRuntime();
    const { adapter } = await runtime;
    return { adapter };
  },
  async load({ name, url, outputs = [] }) {
    runtime ??= loadRuntime();
    const { mod } = await runtime;
    const started = performance.now();
    const model = await mod.GpuModel.load(await fetchModel(url), outputs);
    models.get(name)?.free();
    models.set(name, model);
    return { ms: performance.now() - started };
  },
  async run({ name, input }) {
    const model = models.get(name);
    if (!model) throw new Error(`model ${name} is not loaded`);
    const started = performance.now();
    const outputs = await model.run(input);
    return { outputs, ms: performance.now() - started };
  },
};

self.onmessage = async ({ data }) => {
  const { id, op } = data;
  try {
    const result = await handlers[op](data);
    const transfer = result.outputs ? Object.values(result.outputs).map((a) => a.buffer) : [];
    self.postMessage({ id, ok: true, result }, transfer);
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e?.name || 'Error', message: String(e?.message || e) } });
  }
};
