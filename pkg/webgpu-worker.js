// The WebGPU model worker: wonnx compiled to wasm (a module of its own, loaded only when a
// model is asked for), running the prepared model files on the page's GPU. Model files are
// fetched from the page's own origin and kept in the Cache API, so a second visit reads
// them offline. It is driven by messages (`openGpuModels` in webgpu.js); it serves the OCR
// builds' model calls, from the threaded build through a mailbox in that build's shared
// memory (`serve`), from the single-threaded builds by message (`open`, then `call`); the Rust side is
// crates/wasm/src/gpu/.

import { fetchModel } from './models.js';

/**
 * Limits removed from WebGPU that wgpu 0.16 (under wonnx) still asks for; current browsers
 * reject a requestDevice that names them, so they are dropped from the request.
 */
const REMOVED_LIMITS = ['maxInterStageShaderComponents'];

/**
 * Bytes added past the end of every storage buffer, whose size is first rounded up to whole
 * vec4s. wonnx's elementwise and matrix shaders have no bounds check, and past 65,535
 * workgroups it widens its workgroups: where the wider one does not divide a tensor, up to
 * 255 invocations run past the tensor's end. Native drivers drop those writes; browsers'
 * WebGPU clamps an out-of-range index onto the binding's last element, so they overwrote a
 * tensor's last value (in Chromium, recognition's last step came out 0.18 off at 640
 * columns and 3.5 off in a batch of 4 lines at 320). With one vec4 past the end, they land
 * there.
 */
const STORAGE_SLACK = 16;
const VEC4_BYTES = 16;

if (self.GPUDevice && !self.GPUDevice.prototype.__docsiftPatched) {
  const createBuffer = self.GPUDevice.prototype.createBuffer;
  self.GPUDevice.prototype.createBuffer = function (descriptor) {
    if (!(descriptor.usage & self.GPUBufferUsage.STORAGE)) return createBuffer.call(this, descriptor);
    const size = Math.ceil(descriptor.size / VEC4_BYTES) * VEC4_BYTES + STORAGE_SLACK;
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
/** Shared weights files by URL: one fetch per model, whatever shapes a page needs. */
const weights = new Map();

/** Compiles the prepared file at `url` with the weights file it names, fetched beside it. */
async function compileFile(mod, url, outputs = []) {
  const bytes = await fetchModel(url);
  const file = mod.weightsFile(bytes);
  let shared;
  if (file) {
    const at = new URL(file, url).href;
    if (!weights.has(at)) weights.set(at, fetchModel(at).catch((e) => { weights.delete(at); throw e; }));
    shared = await weights.get(at);
  }
  return mod.GpuModel.load(bytes, shared, outputs);
}

/** Word offsets of the mailbox; crates/wasm/src/gpu.rs has the same layout. */
const MAILBOX = { STATE: 0, MODEL: 1, INPUT_PTR: 2, INPUT_LEN: 3, SHAPE: 4, OUT_COUNT: 8, OUT_TOTAL: 9, OUT_PTR: 10, OUT_RANKS: 11, OUT_SHAPES: 15, MESSAGE_LEN: 31, MESSAGE: 32, WORDS: 288 };
const MAX_OUTPUTS = 4;
const RANK = 4;
const MESSAGE_BYTES = 1024;
const STATE = { IDLE: 0, REQUEST: 1, TAKEN: 2, SIZED: 3, BUFFER: 4, WRITING: 5, DONE: 6, FAILED: 7, ABANDONED: 8 };

async function loadRuntime() {
  if (!self.navigator.gpu) throw new Error('WebGPU is not available in this browser');
  const adapter = await self.navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  const mod = await import('./wasm/webgpu/docsift_webgpu.js');
  await mod.default();
  const info = adapter.info || {};
  return { mod, adapter: { vendor: info.vendor || '', architecture: info.architecture || '', description: info.description || '' } };
}

/** Resolves once the mailbox state is one of `states`. */
async function waitFor(words, states) {
  for (;;) {
    const w = words();
    const now = Atomics.load(w, MAILBOX.STATE);
    if (states.includes(now)) return now;
    const wait = Atomics.waitAsync(w, MAILBOX.STATE, now);
    if (wait.async) await wait.value;
  }
}

function handOver(w, from, to) {
  const ok = Atomics.compareExchange(w, MAILBOX.STATE, from, to) === from;
  if (ok) Atomics.notify(w, MAILBOX.STATE);
  return ok;
}

/**
 * Runs model calls on the prepared files: a call names a model (an index into `stems`, the
 * prepared files' prefixes in the order of the Rust ModelKind::ALL: the OCR worker's
 * `modelStems`) and an input shape, which pick the file `${base}${stem}_${shape}.onnx`
 * (compiled on first use); it answers the outputs, `[{ shape, data }]` in the file's order.
 */
function preparedModels(mod, base, files, stems) {
  const compiled = new Map();
  return async (model, shape, input) => {
    const file = `${stems[model]}_${Array.from(shape).join('x')}.onnx`;
    if (!files.includes(file)) throw new Error(`${file} is not prepared`);
    if (!compiled.has(file)) compiled.set(file, compileFile(mod, base + file));
    const m = await compiled.get(file);
    const outputs = await m.run(input);
    return m.outputs().map(({ name, shape: dims }) => {
      if (outputs[name].length !== dims.reduce((a, b) => a * b, 1)) throw new Error(`output ${name} does not have shape ${dims}`);
      return { shape: dims, data: outputs[name] };
    });
  };
}

/** Serves model calls (see preparedModels) from the mailbox until the Rust side abandons it. */
async function serveMailbox(run, memory, address) {
  const words = () => new Int32Array(memory.buffer, address, MAILBOX.WORDS);
  for (;;) {
    if ((await waitFor(words, [STATE.REQUEST, STATE.ABANDONED])) === STATE.ABANDONED) return;
    let w = words();
    if (!handOver(w, STATE.REQUEST, STATE.TAKEN)) continue;
    // The input is copied before anything is awaited: the Rust side owns that memory.
    const input = new Float32Array(memory.buffer, w[MAILBOX.INPUT_PTR], w[MAILBOX.INPUT_LEN]).slice();
    try {
      const outputs = await run(w[MAILBOX.MODEL], w.slice(MAILBOX.SHAPE, MAILBOX.SHAPE + RANK), input);
      if (outputs.length > MAX_OUTPUTS) throw new Error(`${outputs.length} outputs`);
      w = words();
      w[MAILBOX.OUT_COUNT] = outputs.length;
      let total = 0;
      outputs.forEach(({ shape, data }, i) => {
        if (shape.length > RANK) throw new Error(`an output of rank ${shape.length}`);
        w[MAILBOX.OUT_RANKS + i] = shape.length;
        shape.forEach((d, k) => { w[MAILBOX.OUT_SHAPES + i * RANK + k] = d; });
        total += data.length;
      });
      w[MAILBOX.OUT_TOTAL] = total;
      if (!handOver(w, STATE.TAKEN, STATE.SIZED)) return;
      if ((await waitFor(words, [STATE.BUFFER, STATE.ABANDONED])) !== STATE.BUFFER) return;
      w = words();
      if (!handOver(w, STATE.BUFFER, STATE.WRITING)) return;
      const out = new Float32Array(memory.buffer, w[MAILBOX.OUT_PTR], total);
      let at = 0;
      for (const { data } of outputs) {
        out.set(data, at);
        at += data.length;
      }
      handOver(w, STATE.WRITING, STATE.DONE);
    } catch (e) {
      w = words();
      const message = new TextEncoder().encode(String(e?.message || e)).slice(0, MESSAGE_BYTES);
      new Uint8Array(memory.buffer, address + MAILBOX.MESSAGE * 4, MESSAGE_BYTES).set(message);
      w[MAILBOX.MESSAGE_LEN] = message.length;
      if (!handOver(w, STATE.TAKEN, STATE.FAILED)) return;
    }
  }
}

/** The prepared models `open` set up, for `call`. */
let prepared = null;

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
    const model = await compileFile(mod, url, outputs);
    models.get(name)?.free();
    models.set(name, model);
    return { ms: performance.now() - started };
  },
  /** Starts serving the mailbox (see serveMailbox); answers once the device is up. */
  async serve({ memory, address, base, files, stems }) {
    runtime ??= loadRuntime();
    const { mod, adapter } = await runtime;
    serveMailbox(preparedModels(mod, base, files, stems), memory, address).catch((e) => console.error('docsift: GPU mailbox stopped:', e));
    return { adapter };
  },
  /** Readies the prepared files for `call`; answers once the device is up. */
  async open({ base, files, stems }) {
    runtime ??= loadRuntime();
    const { mod, adapter } = await runtime;
    prepared = preparedModels(mod, base, files, stems);
    return { adapter };
  },
  /** One model call on the prepared files (see preparedModels). */
  async call({ model, shape, input }) {
    if (!prepared) throw new Error('no prepared models are open');
    return { outputs: await prepared(model, shape, input) };
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
    const transfer = result.outputs ? Object.values(result.outputs).map((o) => (o.data ?? o).buffer) : [];
    self.postMessage({ id, ok: true, result }, transfer);
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e?.name || 'Error', message: String(e?.message || e) } });
  }
};
