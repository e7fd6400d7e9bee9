// The OCR worker: the OCR build (tract with SIMD; on a thread pool when the page is
// cross-origin isolated) and its models, started by the docsift worker on the first image
// or page that needs OCR, or on prepareOcr (which also warms the build up). A worker of its
// own so that an abort stops a page mid-way in every build (the docsift worker terminates
// this one and starts a fresh one when next needed), and so that the text build keeps
// serving other documents while a page is read. Requests come one at a time; progress and
// stage messages go straight up to the page.

import { transferables } from './decode.js';
import { errorShape, trapShape } from './errors.js';
import { fetchModel } from './models.js';
import { ocrBuilds } from './builds.js';

/** { threads, models, backend, script, panicChannel } from the docsift worker. */
let config = null;
/** The build with its models: Promise<{ mod, gpu, layout }>, replaced to add the layout model. */
let loaded = null;
/** The request being served, named in the stage messages of builds without shared memory. */
let current = 0;
/** The runtime the practice page ran on, once a `prepareOcr` has warmed the build up. */
let warmedOn = null;
/**
 * The "cjk" script's recognition model with detection's and orientation's, fetched once a
 * page read under the default script needed it (`againInEastAsian`); false where it could not
 * be fetched.
 */
let eastAsian = null;

/**
 * Seconds a GPU model call may take before the GPU worker is taken as gone and the CPU
 * reads the rest (as crates/wasm/src/gpu/mailbox.rs: a software adapter runs a page-sized
 * detection in under a minute; a lost device never answers).
 */
const GPU_CALL_TIMEOUT_S = 300;

/**
 * The OCR build as the text build runs (on a pool of the same size when threaded), with
 * relaxed SIMD where the engine has it (see ocrBuilds); each one missing or failing falls
 * back to the next.
 */
async function loadOcrBuild() {
  const builds = ocrBuilds(config.threads > 1);
  for (const [i, build] of builds.entries()) {
    try {
      const mod = await import(`./wasm/${build}/docsift_wasm.js`);
      await mod.default();
      if (build.startsWith('ocr-threaded')) {
        await mod.initThreadPool(config.threads);
        // This worker waits on a pool thread's job: its panic is told to the docsift worker.
        mod.setPanicChannel(config.panicChannel);
      }
      return mod;
    } catch (e) {
      if (i === builds.length - 1) throw e;
      console.warn(`docsift: OCR build ${build} unavailable, trying ${builds[i + 1]}:`, e);
    }
  }
}

/**
 * The prepared model files the GPU may run (models/wonnx/index.json); undefined keeps every
 * model on the CPU: backend 'cpu', no WebGPU, a software adapter under 'auto', or no
 * prepared files.
 */
async function gpuPlan() {
  if (config.backend === 'cpu' || !self.navigator.gpu) return undefined;
  try {
    // A fallback adapter is a software rasteriser (SwiftShader): correct, but slower than the CPU.
    const adapter = await self.navigator.gpu.requestAdapter();
    if (!adapter || ((adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter) && config.backend !== 'webgpu')) return undefined;
    const listing = await fetch(`${config.models}wonnx/index.json`);
    return listing.ok ? (await listing.json()).files : undefined;
  } catch (e) {
    console.warn('docsift: WebGPU unavailable, OCR models run on the CPU:', e);
    return undefined;
  }
}

/** Requests to a worker answering `{ id, ok, result | error }`, as promises. */
function requester(worker) {
  const pending = new Map();
  let next = 1;
  worker.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    pending.delete(data.id);
    if (data.ok) p?.resolve(data.result);
    else p?.reject(new Error(data.error.message));
  };
  worker.onerror = (e) => {
    for (const p of pending.values()) p.reject(new Error(e.message || 'WebGPU worker failed'));
    pending.clear();
  };
  return (message, transfer = [], timeoutS = Infinity) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    if (timeoutS < Infinity) {
      setTimeout(() => pending.delete(id) && reject(new Error(`no answer in ${timeoutS} s`)), timeoutS * 1000);
    }
    worker.postMessage({ ...message, id }, transfer);
  });
}

/**
 * The models' files (less `.onnx`; their prepared files' prefixes) in the order of the Rust
 * ModelKind::ALL: detection, recognition, orientation, layout. The "cjk" script reads with
 * its own recognition model (`Script::model_file`).
 */
function modelStems() {
  return ['det', config.script === 'cjk' ? 'rec_cjk' : 'rec', 'cls', 'layout'];
}

/**
 * Starts the WebGPU worker for the OCR build's model calls — through the threaded build's
 * mailbox, or as the single-threaded build's GPU runner, whose promises the build awaits —
 * and returns the prepared `files` it serves; undefined keeps every model on the CPU (no
 * files, a build that reaches no GPU, or a device that would not start).
 */
async function startGpu(mod, files) {
  const stems = modelStems();
  const mailbox = mod.gpuMailbox();
  if (!files || (!mailbox && typeof mod.setGpuRunner !== 'function')) return undefined;
  let worker;
  try {
    worker = new Worker(new URL('./webgpu-worker.js', import.meta.url), { type: 'module' });
    const request = requester(worker);
    const base = `${config.models}wonnx/`;
    if (mailbox) {
      await request({ op: 'serve', memory: mailbox.memory, address: mailbox.address, base, files, stems });
    } else {
      await request({ op: 'open', base, files, stems });
      mod.setGpuRunner(async (model, shape, input) =>
        (await request({ op: 'call', model, shape: Array.from(shape), input }, [input.buffer], GPU_CALL_TIMEOUT_S)).outputs);
    }
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
    const planned = previous ? undefined : await gpuPlan();
    const mod = previous ? previous.mod : await loadOcrBuild();
    if (!previous) {
      const steps = mod.stepWords();
      if (steps) self.postMessage({ type: 'step-words', words: steps });
      else mod.setStepListener((code, done, total) => self.postMessage({ type: 'step', id: current, code, done, total }));
    }
    const names = modelStems().slice(0, layout ? 4 : 3);
    const [det, rec, cls, layoutModel] = await Promise.all(names.map((m) => fetchModel(`${config.models}${m}.onnx`)));
    // One GPU worker serves the build, however often the models are loaded.
    const gpu = previous ? previous.gpu : await startGpu(mod, planned);
    mod.setOcrModels(det, rec, cls, layoutModel, gpu, config.script);
    if (eastAsian) mod.setOcrEastAsianModel(...eastAsian);
    return { mod, gpu, layout };
  };
  loaded = loaded ? loaded.then((b) => (layout && !b.layout ? load(b) : b)) : load(null);
  return loaded.then((b) => b.mod).catch((e) => {
    loaded = null;
    throw e;
  });
}

/**
 * The numbers of the pages just `read` whose East Asian letters the default model read
 * unsurely (Japanese kana read as Chinese look-alikes), to read again now that the build has
 * the "cjk" script's model, which is fetched (once, then cached) for the first such page: the
 * pages read after it are read again as they are read. None under another script, or where
 * the model cannot be fetched (the pages keep their warning). Pages noted before (of a read
 * that failed) are let go.
 */
async function againInEastAsian(ocr, id, read) {
  const numbers = Array.from(ocr.takeEastAsianUnread()).filter((n) => read.some((p) => p.number === n));
  if (!numbers.length || config.script !== 'all' || eastAsian === false) return [];
  try {
    self.postMessage({ type: 'progress', id, stage: 'loading-models', done: 0, total: 1 });
    eastAsian ??= await Promise.all(['det', 'rec_cjk', 'cls'].map((m) => fetchModel(`${config.models}${m}.onnx`)));
  } catch (e) {
    console.warn('docsift: the "cjk" script\'s model is unavailable, Japanese pages stay as read:', e);
    eastAsian = false;
    return [];
  }
  ocr.setOcrEastAsianModel(...eastAsian);
  return numbers;
}

/** `read` pages with those of `again` in place of theirs (by number). */
function withPagesReadAgain(read, again) {
  return read.map((page) => again.find((p) => p.number === page.number) ?? page);
}

/**
 * An image's pages (a multi-page TIFF has several; `numbers`: 1-based, all when absent),
 * read by OCR, `together` at a time (side by side on the threaded build's pool).
 */
async function image(id, bytes, layout, numbers, together = 1) {
  const ocr = await ocrModule(id, layout);
  const data = new Uint8Array(bytes);
  const indices = ocr.imagePages(data, numbers ? Uint32Array.from(numbers) : undefined);
  const out = [];
  let meta, warnings;
  while (out.length < indices.length) {
    self.postMessage({ type: 'progress', id, stage: 'ocr', done: out.length, total: indices.length });
    const next = indices.slice(out.length, out.length + together);
    // A promise in the single-threaded build: its model calls may wait for the GPU worker.
    const extract = async (indices) =>
      ocr.extractImagePages ? ocr.extractImagePages(data, layout, indices) : await ocr.extractImage(data, layout, indices[0]);
    const read = await extract(next);
    ({ meta, warnings } = read);
    const again = await againInEastAsian(ocr, id, read.pages);
    out.push(...(again.length ? withPagesReadAgain(read.pages, (await extract(again.map((n) => n - 1))).pages) : read.pages));
  }
  self.postMessage({ type: 'progress', id, stage: 'ocr', done: out.length, total: indices.length });
  const value = { meta, pages: out };
  if (warnings?.length) value.warnings = warnings;
  return { value, transfer: out.flatMap(transferables) };
}

/**
 * Replies to the request being served that the OCR build trapped, and closes this worker.
 * The wasm builds cannot unwind, so a panic (in the renderer, a decoder, the models) aborts
 * and leaves the instance's memory as the panic found it: nothing more is read with it,
 * and the docsift worker starts a fresh one, keeping the pages posted before. The reply
 * gives the panic's message, which the build's panic hook leaves on the global. (A panic on
 * a pool thread traps that thread's worker, not this one: see setPanicChannel.)
 */
function replyTrapped(trap) {
  self.postMessage({ type: 'error', id: current, error: trapShape('the OCR build', self.docsiftPanic || trap.message), trapped: true });
  self.close();
}

// The single-threaded builds read a page as a wasm future polled from a microtask: a trap
// there is an uncaught error, not the rejection of the call's promise (which never settles).
self.addEventListener('error', (event) => {
  if (!(event.error instanceof WebAssembly.RuntimeError)) return;
  event.preventDefault();
  replyTrapped(event.error);
});

/**
 * The pages at `indices` of a PDF, read by OCR (or, with layout, given layout regions),
 * `together` at a time (side by side on the threaded build's pool), each posted once read:
 * a trap on a later page, or this worker's end, keeps it.
 */
async function pages(id, { bytes, password, mode, layout, together = 1, indices }) {
  const ocr = await ocrModule(id, layout);
  const doc = new ocr.Doc(new Uint8Array(bytes), password ?? undefined, mode, layout);
  let done = 0;
  try {
    while (done < indices.length) {
      self.postMessage({ type: 'progress', id, stage: 'ocr', done, total: indices.length });
      let read = await doc.extractPages(Uint32Array.from(indices.slice(done, done + together)));
      const again = await againInEastAsian(ocr, id, read);
      if (again.length) read = withPagesReadAgain(read, await doc.extractPages(Uint32Array.from(again.map((n) => n - 1))));
      for (const page of read) {
        self.postMessage({ type: 'page', id, page }, transferables(page));
        done += 1;
      }
    }
  } catch (e) {
    // A trapped instance is not called again, not even to free.
    if (!(e instanceof WebAssembly.RuntimeError)) doc.free();
    throw e;
  }
  doc.free();
  self.postMessage({ type: 'progress', id, stage: 'ocr', done, total: indices.length });
  return { value: null, transfer: [] };
}

self.onmessage = async ({ data: msg }) => {
  if (msg.op === 'init') {
    config = msg;
    return;
  }
  current = msg.id;
  try {
    let reply = { value: null, transfer: [] };
    if (msg.op === 'load') {
      const ocr = await ocrModule(msg.id, msg.layout);
      // The pipeline's code stays compiled in this worker, whatever models load later.
      if (msg.warm) reply.value = { engine: (warmedOn ??= await ocr.warmOcr()) };
    } else if (msg.op === 'image') reply = await image(msg.id, msg.bytes, msg.layout, msg.pages, msg.together);
    else if (msg.op === 'pages') reply = await pages(msg.id, msg);
    self.postMessage({ type: 'result', id: msg.id, value: reply.value }, reply.transfer);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) replyTrapped(e);
    else self.postMessage({ type: 'error', id: msg.id, error: errorShape(e) });
  }
};
