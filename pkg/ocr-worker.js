// The OCR worker: the OCR build (tract with SIMD; on a thread pool when the page is
// cross-origin isolated) and its models, started by the docsift worker on the first image
// or page that needs OCR. A worker of its own so that an abort stops a page mid-way in every
// build (the docsift worker terminates this one and starts a fresh one when next needed),
// and so that the text build keeps serving other documents while a page is read. Requests
// come one at a time; progress and stage messages go straight up to the page.

import { transferables } from './decode.js';
import { errorShape } from './errors.js';
import { fetchModel } from './models.js';
import { ocrBuilds } from './builds.js';

/** { threads, models, backend, script } from the docsift worker. */
let config = null;
/** The build with its models: Promise<{ mod, gpu, layout }>, replaced to add the layout model. */
let loaded = null;
/** The request being served, named in the stage messages of builds without shared memory. */
let current = 0;

/**
 * The OCR build as the text build runs (on a pool of the same size when threaded), with
 * relaxed SIMD where the engine has it; each one missing or failing falls back to the next.
 */
async function loadOcrBuild() {
  const builds = ocrBuilds(config.threads > 1);
  for (const [i, build] of builds.entries()) {
    try {
      const mod = await import(`./wasm/${build}/docsift_wasm.js`);
      await mod.default();
      if (build.startsWith('ocr-threaded')) await mod.initThreadPool(config.threads);
      return mod;
    } catch (e) {
      if (i === builds.length - 1) throw e;
      console.warn(`docsift: OCR build ${build} unavailable, trying ${builds[i + 1]}:`, e);
    }
  }
}

/**
 * Starts the WebGPU worker serving the threaded OCR build's mailbox, and returns the
 * prepared model files it serves (models/wonnx/index.json); undefined keeps every model on
 * the CPU: backend 'cpu', no threaded build (the mailbox needs shared memory), no WebGPU,
 * a software adapter under 'auto', or no prepared files.
 */
async function gpuFiles(mod) {
  const mailbox = config.backend === 'cpu' ? null : mod.gpuMailbox();
  if (!mailbox || !self.navigator.gpu) return undefined;
  let worker;
  try {
    // A fallback adapter is a software rasteriser (SwiftShader): correct, but slower than the CPU.
    const adapter = await self.navigator.gpu.requestAdapter();
    if (!adapter || ((adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter) && config.backend !== 'webgpu')) return undefined;
    const listing = await fetch(`${config.models}wonnx/index.json`);
    if (!listing.ok) return undefined;
    const { files } = await listing.json();
    worker = new Worker(new URL('./webgpu-worker.js', import.meta.url), { type: 'module' });
    await new Promise((resolve, reject) => {
      worker.onmessage = ({ data }) => (data.ok ? resolve(data.result) : reject(new Error(data.error.message)));
      worker.onerror = (e) => reject(new Error(e.message || 'WebGPU worker failed'));
      worker.postMessage({ id: 0, op: 'serve', memory: mailbox.memory, address: mailbox.address, base: `${config.models}wonnx/`, files });
    });
    return files;
  } catch (e) {
    worker?.terminate();
    console.warn('docsift: WebGPU unavailable, OCR models run on the CPU:', e);
    return undefined;
  }
}

/**
 * The OCR build (~7 MB gzipped) and the models, fetched once; with `layout`, the layout
 * model too (its models are loaded again with it the first time).
 */
function ocrModule(id, layout) {
  const load = async (previous) => {
    if (!config.models) throw { name: 'DocsiftError', code: 'model', message: 'no models URL was given to createDocsift' };
    self.postMessage({ type: 'progress', id, stage: 'loading-models', done: 0, total: 1 });
    const mod = previous ? previous.mod : await loadOcrBuild();
    if (!previous) {
      const steps = mod.stepWords();
      if (steps) self.postMessage({ type: 'step-words', words: steps });
      else mod.setStepListener((code, done, total) => self.postMessage({ type: 'step', id: current, code, done, total }));
    }
    const names = layout ? ['det', 'rec', 'cls', 'layout'] : ['det', 'rec', 'cls'];
    const [det, rec, cls, layoutModel] = await Promise.all(names.map((m) => fetchModel(`${config.models}${m}.onnx`)));
    // One GPU worker serves the mailbox, however often the models are loaded.
    const gpu = previous ? previous.gpu : await gpuFiles(mod);
    mod.setOcrModels(det, rec, cls, layoutModel, gpu, config.script);
    return { mod, gpu, layout };
  };
  loaded = loaded ? loaded.then((b) => (layout && !b.layout ? load(b) : b)) : load(null);
  return loaded.then((b) => b.mod).catch((e) => {
    loaded = null;
    throw e;
  });
}

/** An image: one page read by OCR. */
async function image(id, bytes, layout) {
  const ocr = await ocrModule(id, layout);
  self.postMessage({ type: 'progress', id, stage: 'ocr', done: 0, total: 1 });
  const { meta, page } = ocr.extractImage(new Uint8Array(bytes), layout);
  self.postMessage({ type: 'progress', id, stage: 'ocr', done: 1, total: 1 });
  return { value: { meta, pages: [page] }, transfer: transferables(page) };
}

/** The pages at `indices` of a PDF, read by OCR (or, with layout, given layout regions). */
async function pages(id, { bytes, password, mode, layout, indices }) {
  const ocr = await ocrModule(id, layout);
  const doc = new ocr.Doc(new Uint8Array(bytes), password ?? undefined, mode, layout);
  const out = [];
  try {
    for (const index of indices) {
      self.postMessage({ type: 'progress', id, stage: 'ocr', done: out.length, total: indices.length });
      out.push(doc.extractPages(Uint32Array.of(index))[0]);
    }
  } finally {
    doc.free();
  }
  self.postMessage({ type: 'progress', id, stage: 'ocr', done: out.length, total: indices.length });
  return { value: out, transfer: out.flatMap(transferables) };
}

self.onmessage = async ({ data: msg }) => {
  if (msg.op === 'init') {
    config = msg;
    return;
  }
  current = msg.id;
  try {
    let reply = { value: null, transfer: [] };
    if (msg.op === 'load') await ocrModule(msg.id, msg.layout);
    else if (msg.op === 'image') reply = await image(msg.id, msg.bytes, msg.layout);
    else if (msg.op === 'pages') reply = await pages(msg.id, msg);
    self.postMessage({ type: 'result', id: msg.id, value: reply.value }, reply.transfer);
  } catch (e) {
    self.postMessage({ type: 'error', id: msg.id, error: errorShape(e) });
  }
};
