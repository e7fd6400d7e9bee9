// The docsift worker: loads the threaded wasm build when the page is cross-origin isolated
// (SharedArrayBuffer available) and the single-threaded one otherwise, then extracts
// documents page batch by page batch, posting progress and honouring aborts in between.

import { transferables } from './decode.js';
import { fetchModel } from './models.js';

/** Pages each pool thread takes per batch in the threaded build. */
const PAGES_PER_THREAD = 8;

let wasm = null;
let poolSize = 1;
/** Folder URL of the OCR model files (same origin), from createDocsift. */
let modelsUrl = null;
/** Where OCR models run: 'auto' (a hardware WebGPU adapter if any), 'webgpu' (any adapter), 'cpu'. */
let backend = 'auto';
/** The OCR build with its models, loaded on the first page or image that needs it. */
let ocrBuild = null;
const aborted = new Set();

/** Yields to the event loop (so abort messages are seen) without timer clamping. */
const channel = new MessageChannel();
const yieldNow = () => new Promise((resolve) => {
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(0);
});

async function init(threads, models, modelBackend = 'auto') {
  modelsUrl = models;
  backend = modelBackend;
  const isolated = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
  if (isolated && threads > 1) {
    try {
      const threaded = await import('./wasm/threaded/docsift_wasm.js');
      await threaded.default();
      await threaded.initThreadPool(threads);
      wasm = threaded;
      poolSize = threads;
    } catch (e) {
      // No threaded build shipped, or its pool failed to start: the single build still works.
      console.warn('docsift: threaded build unavailable, using the single-threaded one:', e);
    }
  }
  if (!wasm) {
    wasm = await import('./wasm/single/docsift_wasm.js');
    await wasm.default();
    poolSize = 1;
  }
  shareCancelWords(wasm);
  return { threaded: wasm.threaded(), threads: poolSize, isolated };
}

/** Lets the main thread write aborts into a module's job words (shared memory only). */
function shareCancelWords(mod) {
  const words = mod.cancelWords();
  if (words) self.postMessage({ type: 'cancel-words', words });
}

/** The OCR build as the text build runs: on a pool of the same size when threaded. */
async function loadOcrBuild() {
  if (poolSize > 1) {
    try {
      const mod = await import('./wasm/ocr-threaded/docsift_wasm.js');
      await mod.default();
      await mod.initThreadPool(poolSize);
      return mod;
    } catch (e) {
      console.warn('docsift: threaded OCR build unavailable, using the single-threaded one:', e);
    }
  }
  const mod = await import('./wasm/ocr/docsift_wasm.js');
  await mod.default();
  return mod;
}

/**
 * Starts the WebGPU worker serving the threaded OCR build's mailbox, and returns the
 * prepared model files it serves (models/wonnx/index.json); undefined keeps every model on
 * the CPU: backend 'cpu', no threaded build (the mailbox needs shared memory), no WebGPU,
 * a software adapter under 'auto', or no prepared files.
 */
async function gpuFiles(mod) {
  const mailbox = backend === 'cpu' ? null : mod.gpuMailbox();
  if (!mailbox || !self.navigator.gpu) return undefined;
  let worker;
  try {
    // A fallback adapter is a software rasteriser (SwiftShader): correct, but slower than the CPU.
    const adapter = await self.navigator.gpu.requestAdapter();
    if (!adapter || ((adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter) && backend !== 'webgpu')) return undefined;
    const listing = await fetch(`${modelsUrl}wonnx/index.json`);
    if (!listing.ok) return undefined;
    const { files } = await listing.json();
    worker = new Worker(new URL('./webgpu-worker.js', import.meta.url), { type: 'module' });
    await new Promise((resolve, reject) => {
      worker.onmessage = ({ data }) => (data.ok ? resolve(data.result) : reject(new Error(data.error.message)));
      worker.onerror = (e) => reject(new Error(e.message || 'WebGPU worker failed'));
      worker.postMessage({ id: 0, op: 'serve', memory: mailbox.memory, address: mailbox.address, base: `${modelsUrl}wonnx/`, files });
    });
    return files;
  } catch (e) {
    worker?.terminate();
    console.warn('docsift: WebGPU unavailable, OCR models run on the CPU:', e);
    return undefined;
  }
}

/**
 * The OCR build (tract with SIMD, ~7 MB gzipped) and the models, fetched once; with
 * `layout`, the layout model too (its models are loaded again with it the first time).
 */
function ocrModule(id, layout = false) {
  const load = async (previous) => {
    if (!modelsUrl) throw { name: 'DocsiftError', code: 'model', message: 'no models URL was given to createDocsift' };
    self.postMessage({ type: 'progress', id, stage: 'loading-models', done: 0, total: 1 });
    const mod = previous ? previous.mod : await loadOcrBuild();
    if (!previous) {
      shareCancelWords(mod);
      const steps = mod.stepWords();
      if (steps) self.postMessage({ type: 'step-words', words: steps });
    }
    const names = layout ? ['det', 'rec', 'cls', 'layout'] : ['det', 'rec', 'cls'];
    const [det, rec, cls, layoutModel] = await Promise.all(names.map((m) => fetchModel(`${modelsUrl}${m}.onnx`)));
    // One GPU worker serves the mailbox, however often the models are loaded.
    const gpu = previous ? previous.gpu : await gpuFiles(mod);
    mod.setOcrModels(det, rec, cls, layoutModel, gpu);
    return { mod, gpu, layout };
  };
  ocrBuild = ocrBuild
    ? ocrBuild.then((b) => (layout && !b.layout ? load(b) : b))
    : load(null);
  return ocrBuild.then((b) => b.mod).catch((e) => {
    ocrBuild = null;
    throw e;
  });
}

const abortError = () => ({ name: 'AbortError', code: 'cancelled', message: 'extraction aborted' });

/** An image: one page read by OCR. */
async function extractImage(id, bytes, options) {
  if (options.ocr === 'off') throw { name: 'UnsupportedInputError', code: 'unsupported', message: 'images are read only by OCR (ocr: "off")' };
  const ocr = await ocrModule(id, Boolean(options.layout));
  if (aborted.has(id)) throw abortError();
  self.postMessage({ type: 'progress', id, stage: 'ocr', done: 0, total: 1 });
  ocr.setJob(id);
  const { meta, page } = ocr.extractImage(bytes, Boolean(options.layout));
  self.postMessage({ type: 'progress', id, stage: 'ocr', done: 1, total: 1 });
  return { schema: 'docsift/1', meta, pages: [page] };
}

/**
 * Re-reads by OCR the pages the text build flagged (all of them with ocr: "force"); with
 * layout: true, every page, for its layout regions (native text kept where trusted).
 */
async function ocrPages(id, bytes, options, indices, pages) {
  const mode = options.ocr ?? 'auto';
  const layout = Boolean(options.layout);
  const todo = pages.flatMap((p, i) => ((layout || mode === 'force' || (mode !== 'off' && p.needsOcr)) ? [i] : []));
  for (const p of pages) delete p.needsOcr;
  if (!todo.length) return;
  let ocr;
  try {
    ocr = await ocrModule(id, layout);
  } catch (e) {
    // Without the OCR module or its models the pages keep their native text, with a warning.
    const message = `not read by OCR: ${e?.message || e}`;
    for (const i of todo) pages[i].warnings = [...(pages[i].warnings || []), { page: pages[i].number, message }];
    return;
  }
  const doc = new ocr.Doc(bytes, options.password ?? undefined, mode, layout);
  try {
    for (let k = 0; k < todo.length; k++) {
      if (aborted.has(id)) throw abortError();
      self.postMessage({ type: 'progress', id, stage: 'ocr', done: k, total: todo.length });
      await yieldNow();
      ocr.setJob(id); // jobs interleave at awaits: the words name this one for this call
      pages[todo[k]] = doc.extractPages(Uint32Array.of(indices[todo[k]]))[0];
    }
    self.postMessage({ type: 'progress', id, stage: 'ocr', done: todo.length, total: todo.length });
  } finally {
    doc.free();
  }
}

function errorShape(e) {
  if (e && typeof e === 'object' && 'name' in e && 'code' in e) return { name: e.name, code: e.code, message: e.message };
  return { name: 'DocsiftError', code: 'internal', message: String(e && e.message ? e.message : e) };
}

async function extract(id, buffer, options) {
  const bytes = new Uint8Array(buffer);
  if (wasm.isImage(bytes)) return extractImage(id, bytes, options);
  const doc = new wasm.Doc(bytes, options.password ?? undefined, undefined);
  try {
    const indices = doc.resolvePages(options.pages ? Uint32Array.from(options.pages) : undefined);
    const total = indices.length;
    const pages = [];
    // Several pages per pool thread per batch: enough work to amortise the fork/join, small
    // enough that an abort lands within a few pages.
    const batch = poolSize > 1 ? PAGES_PER_THREAD * poolSize : 1;
    let lastYield = performance.now();
    for (let i = 0; i < total; i += batch) {
      if (aborted.has(id)) throw abortError();
      wasm.setJob(id);
      for (const p of doc.extractPages(indices.slice(i, i + batch))) pages.push(p);
      self.postMessage({ type: 'progress', id, stage: 'text', done: pages.length, total });
      // Yield at most every few milliseconds: often enough for aborts, rarely enough to stay fast.
      if (performance.now() - lastYield > 8) {
        await yieldNow();
        lastYield = performance.now();
      }
    }
    if (aborted.has(id)) throw abortError();
    await ocrPages(id, bytes, options, indices, pages);
    const result = { schema: 'docsift/1', meta: doc.meta(), pages };
    const warnings = doc.warnings();
    if (warnings.length) result.warnings = warnings;
    return result;
  } finally {
    doc.free();
  }
}

/** Near-duplicate groups over documents (text or bytes), against a saved index if given. */
async function dedup(id, docs, options) {
  const index = options.index
    ? wasm.DedupIndex.fromBytes(new Uint8Array(options.index))
    : new wasm.DedupIndex(options.threshold, options.numPerm, options.shingles);
  try {
    let lastYield = performance.now();
    for (let i = 0; i < docs.length; i++) {
      if (aborted.has(id)) throw { name: 'AbortError', code: 'cancelled', message: 'dedup aborted' };
      const d = docs[i];
      const text = typeof d.text === 'string' ? d.text : wasm.textOf(new Uint8Array(d.bytes), d.password ?? undefined);
      index.add(d.id, text);
      // Progress and abort checks about once a frame: per document they would cost more
      // than the hashing of short texts.
      if (performance.now() - lastYield > 16 || i + 1 === docs.length) {
        self.postMessage({ type: 'progress', id, done: i + 1, total: docs.length });
        await yieldNow();
        lastYield = performance.now();
      }
    }
    const bytes = index.toBytes();
    return { groups: index.groups(), size: index.size(), index: bytes };
  } finally {
    index.free();
  }
}

self.onmessage = async (event) => {
  const msg = event.data;
  try {
    if (msg.type === 'init') {
      self.postMessage({ type: 'ready', info: await init(msg.threads, msg.models, msg.backend) });
    } else if (msg.type === 'abort') {
      aborted.add(msg.id);
    } else if (msg.type === 'dedup') {
      const result = await dedup(msg.id, msg.docs, msg.options || {});
      self.postMessage({ type: 'result', id: msg.id, doc: result }, [result.index.buffer]);
    } else if (msg.type === 'extractHtml') {
      self.postMessage({ type: 'result', id: msg.id, doc: wasm.extractHtml(new Uint8Array(msg.bytes), msg.options?.url ?? undefined) });
    } else if (msg.type === 'extract') {
      const doc = await extract(msg.id, msg.bytes, msg.options || {});
      // Typed arrays move to the main thread without a copy.
      self.postMessage({ type: 'result', id: msg.id, doc }, doc.pages.flatMap(transferables));
    }
  } catch (e) {
    self.postMessage({ type: msg.type === 'init' ? 'init-error' : 'error', id: msg.id, error: errorShape(e) });
  } finally {
    if (msg.type === 'extract' || msg.type === 'dedup') aborted.delete(msg.id);
  }
};
