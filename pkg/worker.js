// The docsift worker: loads the threaded wasm build when the page is cross-origin isolated
// (SharedArrayBuffer available) and the single-threaded one otherwise, then extracts
// documents page batch by page batch, posting progress and honouring aborts in between.
// Images and pages that need OCR go to the OCR worker (pkg/ocr-worker.js), started here on
// first need and terminated when the request it is serving is aborted.

import { transferables } from './decode.js';
import { errorShape, trapShape } from './errors.js';

/** Pages each pool thread takes per batch in the threaded build. */
const PAGES_PER_THREAD = 8;

let wasm = null;
let poolSize = 1;
/** Folder URL of the OCR model files (same origin), from createDocsift. */
let modelsUrl = null;
/** Where OCR models run: 'auto' (a hardware WebGPU adapter if any), 'webgpu' (any adapter), 'cpu'. */
let backend = 'auto';
/** What OCR reads: 'all', 'latin' or 'cjk'. */
let script = 'all';
const aborted = new Set();

/**
 * Yields to the event loop (so abort messages are seen) without timer clamping. Jobs
 * interleave here, so each message wakes the earliest waiter: one shared handler would
 * wake only the last job to yield and leave the others waiting for ever.
 */
const channel = new MessageChannel();
const yielded = [];
channel.port1.onmessage = () => yielded.shift()?.();
const yieldNow = () => new Promise((resolve) => {
  yielded.push(resolve);
  channel.port2.postMessage(0);
});

async function init(threads, models, modelBackend = 'auto', modelScript = 'all', panicChannel = '') {
  modelsUrl = models;
  backend = modelBackend;
  script = modelScript;
  const isolated = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
  if (isolated && threads > 1) {
    try {
      const threaded = await import('./wasm/threaded/docsift_wasm.js');
      await threaded.default();
      await threaded.initThreadPool(threads);
      // This worker waits on a pool thread's job: its panic is told to the page (pkg/index.js).
      threaded.setPanicChannel(panicChannel);
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
  // Lets the main thread write aborts into the job words (shared memory only).
  const words = wasm.cancelWords();
  if (words) self.postMessage({ type: 'cancel-words', words });
  return { threaded: wasm.threaded(), threads: poolSize, isolated };
}

const abortError = () => ({ name: 'AbortError', code: 'cancelled', message: 'extraction aborted' });

/**
 * Seconds a PDF page may take to render for OCR before its OCR worker is ended, as natively
 * (MAX_RENDER_TIME in crates/ocr/src/raster.rs): the renderer cannot be stopped, and some
 * malformed pictures make it loop.
 */
const RENDER_TIMEOUT_S = 30;
/** How often the render watch looks at the OCR worker's stage. */
const RENDER_WATCH_MS = 1000;
/** The OCR stage code of a page being rendered (STEP in crates/wasm/src/ocr.rs). */
const RENDERING = 5;
/**
 * Pages of a PDF or a multi-page TIFF the threaded OCR build reads side by side, so that the
 * pool is busy while a page is rendered and detected on one thread (in Chromium on 2
 * threads, cardinal.pdf's four scans: 5.2–5.4 s instead of 5.9–6.2 s; a TIFF of four 300 dpi
 * pages: 5.5–5.7 s instead of 6.5–6.6 s). Each holds its image and detection maps (about
 * 300 MiB at 300 dpi, natively) in the 4 GiB the build may grow to.
 */
const OCR_PAGES_AT_ONCE = 2;
/** Pages per OCR call (the single-threaded build reads them one after another anyway). */
const ocrPagesAtOnce = () => (poolSize > 1 ? Math.min(poolSize, OCR_PAGES_AT_ONCE) : 1);

/** The OCR worker, started on first need; it serves one request at a time, in order. */
let ocrWorker = null;
/** Where its build's pool threads tell a panic (see setPanicChannel in crates/wasm). */
let ocrPanics = null;
/** Its render watch (renderWatch). */
let ocrWatch = null;
let ocrQueue = Promise.resolve();
/** The request the OCR worker is serving: { id, op, pages, resolve, reject }; pages: those posted so far. */
let ocrServing = null;

/**
 * Ends worker `w` when a page it renders takes longer than RENDER_TIMEOUT_S: its stage comes
 * in `step` messages (one page at a time), or the shared words (threaded builds, whose pool
 * reads pages side by side) count renders begun and ended: one is late when renders are
 * under way and none has ended for that long. `heard(code)` notes a stage or (code 0) a
 * page's end; `stop()` ends the watch.
 */
function renderWatch(w) {
  let stage = { key: '', code: 0, since: 0 };
  let words = null;
  const heard = (code, key = `${code}`) => {
    if (key !== stage.key) stage = { key, code, since: performance.now() };
  };
  const timer = setInterval(() => {
    if (ocrWorker !== w || !ocrServing) return;
    if (words) {
      const [, , , begun, ended] = new Int32Array(words.memory.buffer, words.address, 5);
      heard(begun > ended ? RENDERING : 0, `${begun > ended} ${ended}`);
    }
    if (stage.code === RENDERING && performance.now() - stage.since > RENDER_TIMEOUT_S * 1000) {
      const message = `the page took more than ${RENDER_TIMEOUT_S} s to render`;
      stopOcrWorker({ name: 'DocsiftError', code: 'internal', message, trapped: { done: ocrServing.pages } });
    }
  }, RENDER_WATCH_MS);
  return { heard, watchWords: (shared) => { words = shared; }, stop: () => clearInterval(timer) };
}

function startOcrWorker() {
  const w = new Worker(new URL('./ocr-worker.js', import.meta.url), { type: 'module' });
  const watch = renderWatch(w);
  ocrWatch = watch;
  const panicChannel = `docsift-ocr-panic-${Date.now()}-${Math.random()}`;
  ocrPanics = new BroadcastChannel(panicChannel);
  // The OCR worker waits for ever on a pool job that trapped: it is ended here instead.
  ocrPanics.onmessage = ({ data }) => {
    if (ocrWorker === w) stopOcrWorker({ ...trapShape('the OCR build', data), trapped: { done: ocrServing?.pages ?? [] } });
  };
  w.postMessage({ op: 'init', threads: poolSize, models: modelsUrl, backend, script, panicChannel });
  w.onmessage = ({ data }) => {
    if (data.type === 'step') watch.heard(data.code);
    else if (data.type === 'step-words') watch.watchWords(data.words);
    else watch.heard(0);
    if (data.type === 'page') {
      ocrServing?.pages.push(data.page);
      return;
    }
    if (data.type !== 'result' && data.type !== 'error') {
      self.postMessage(data); // progress and OCR stages go straight to the page
      return;
    }
    const served = ocrServing;
    ocrServing = null;
    if (data.type === 'result') served?.resolve(served.op === 'pages' ? served.pages : data.value);
    else if (!data.trapped) served?.reject(data.error);
    else {
      // Its build trapped, and the worker closed itself: the next request starts a fresh one.
      if (ocrWorker === w) stopOcrWorker();
      served?.reject({ ...data.error, trapped: { done: served.pages } });
    }
  };
  w.onerror = (e) => {
    e.preventDefault();
    stopOcrWorker({ name: 'DocsiftError', code: 'internal', message: `the OCR worker failed: ${e.message || e}` });
  };
  return w;
}

/** Ends the OCR worker and the request it was serving (with `error`); the next request starts a new one. */
function stopOcrWorker(error) {
  ocrWorker?.terminate();
  ocrWorker = null;
  ocrWatch?.stop();
  ocrWatch = null;
  ocrPanics?.close();
  ocrPanics = null;
  const served = ocrServing;
  ocrServing = null;
  if (error) served?.reject(error);
}

/** Sends a request of job `id` to the OCR worker once the ones before it are served. */
function ocrCall(id, request, transfer = []) {
  const run = ocrQueue.then(() => new Promise((resolve, reject) => {
    if (aborted.has(id)) throw abortError();
    ocrWorker ??= startOcrWorker();
    ocrServing = { id, op: request.op, pages: [], resolve, reject };
    ocrWorker.postMessage({ ...request, id }, transfer);
  }));
  ocrQueue = run.catch(() => {});
  return run;
}

/** An image (PNG, JPEG, WebP, GIF, BMP, PNM, JPEG 2000, or a TIFF of one or more pages): its pages read by OCR. */
async function extractImage(id, bytes, options) {
  if (options.ocr === 'off') throw { name: 'UnsupportedInputError', code: 'unsupported', message: 'images are read only by OCR (ocr: "off")' };
  const request = { op: 'image', bytes: bytes.buffer, layout: Boolean(options.layout), pages: options.pages, together: ocrPagesAtOnce() };
  const { meta, pages, warnings } = await ocrCall(id, request, [bytes.buffer]);
  const result = { schema: 'docsift/1', meta, pages };
  if (warnings) result.warnings = warnings;
  return result;
}

/** Adds to `page` a warning that it was not read by OCR, and why; its native text stays. */
function notReadByOcr(page, error) {
  page.warnings = [...(page.warnings || []), { page: page.number, message: `not read by OCR: ${error?.message || error}` }];
}

/**
 * Re-reads by OCR the pages the text build flagged (all of them with ocr: "force"); with
 * layout: true, every page, for its layout regions (native text kept where trusted).
 * A copy of `bytes` goes to the OCR worker. Where its build traps on a page, that page
 * keeps its native text with a warning and a fresh OCR worker reads the pages after it.
 */
async function ocrPages(id, bytes, options, indices, pages) {
  const mode = options.ocr ?? 'auto';
  const layout = Boolean(options.layout);
  let todo = pages.flatMap((p, i) => ((layout || mode === 'force' || (mode !== 'off' && p.needsOcr)) ? [i] : []));
  let together = ocrPagesAtOnce();
  for (const p of pages) delete p.needsOcr;
  if (!todo.length) return;
  try {
    await ocrCall(id, { op: 'load', layout });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    // Without the OCR module or its models the pages keep their native text, with a warning.
    for (const i of todo) notReadByOcr(pages[i], e);
    return;
  }
  while (todo.length) {
    const copy = bytes.slice();
    const request = { op: 'pages', bytes: copy.buffer, password: options.password, mode, layout, together, indices: todo.map((i) => indices[i]) };
    try {
      const read = await ocrCall(id, request, [copy.buffer]);
      todo.forEach((i, k) => { pages[i] = read[k]; });
      return;
    } catch (e) {
      if (!e?.trapped) throw e;
      const { done } = e.trapped;
      done.forEach((page, k) => { pages[todo[k]] = page; });
      todo = todo.slice(done.length);
      // Pages read side by side: which one failed is not known, so the rest are read one
      // at a time, and the one that fails again keeps its native text.
      if (together > 1) {
        together = 1;
        continue;
      }
      notReadByOcr(pages[todo[0]], e);
      todo = todo.slice(1);
    }
  }
}

async function extract(id, buffer, options) {
  const bytes = new Uint8Array(buffer);
  if (wasm.isImage(bytes)) return extractImage(id, bytes, options);
  const doc = new wasm.Doc(bytes, options.password ?? undefined, undefined);
  return freedAfter(doc, async () => {
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
  });
}

/** Near-duplicate groups over documents (text or bytes), against a saved index if given. */
async function dedup(id, docs, options) {
  const index = options.index
    ? wasm.DedupIndex.fromBytes(new Uint8Array(options.index))
    : new wasm.DedupIndex(options.threshold, options.numPerm, options.shingles);
  return freedAfter(index, async () => {
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
  });
}

/** `work()`, then `object` freed, unless the build trapped: a trapped instance is not called again. */
async function freedAfter(object, work) {
  let trapped = false;
  try {
    return await work();
  } catch (e) {
    trapped = e instanceof WebAssembly.RuntimeError;
    throw e;
  } finally {
    if (!trapped) object.free();
  }
}

self.onmessage = async (event) => {
  const msg = event.data;
  try {
    if (msg.type === 'init') {
      self.postMessage({ type: 'ready', info: await init(msg.threads, msg.models, msg.backend, msg.script, msg.panicChannel) });
    } else if (msg.type === 'abort') {
      aborted.add(msg.id);
      // A page being read by OCR stops now, whichever build: its worker goes.
      if (ocrServing?.id === msg.id) stopOcrWorker(abortError());
    } else if (msg.type === 'dedup') {
      const result = await dedup(msg.id, msg.docs, msg.options || {});
      self.postMessage({ type: 'result', id: msg.id, doc: result }, [result.index.buffer]);
    } else if (msg.type === 'extractHtml') {
      self.postMessage({ type: 'result', id: msg.id, doc: wasm.extractHtml(new Uint8Array(msg.bytes), msg.options?.url ?? undefined) });
    } else if (msg.type === 'prepareOcr') {
      const ready = await ocrCall(msg.id, { op: 'load', layout: Boolean(msg.options?.layout), warm: true });
      self.postMessage({ type: 'result', id: msg.id, doc: ready });
    } else if (msg.type === 'extract') {
      const doc = await extract(msg.id, msg.bytes, msg.options || {});
      // Typed arrays move to the main thread without a copy.
      self.postMessage({ type: 'result', id: msg.id, doc }, doc.pages.flatMap(transferables));
    }
  } catch (e) {
    if (msg.type !== 'init' && e instanceof WebAssembly.RuntimeError) {
      // The build trapped (a panic on this thread; see crates/wasm's start): the page ends
      // this worker and starts a fresh one, as the instance's memory is as the panic left it.
      self.postMessage({ type: 'error', id: msg.id, error: trapShape('the docsift build', self.docsiftPanic || e.message), trapped: true });
      return;
    }
    self.postMessage({ type: msg.type === 'init' ? 'init-error' : 'error', id: msg.id, error: errorShape(e) });
  } finally {
    if (msg.type === 'extract' || msg.type === 'dedup' || msg.type === 'prepareOcr') aborted.delete(msg.id);
  }
};
