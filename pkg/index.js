// docsift in the browser: a promise API over a dedicated Web Worker that runs the wasm
// build. Documents never leave the machine; the worker fetches only its own module files.

import { decodePage } from './decode.js';
import { rebuildError, trapShape } from './errors.js';

export { DocsiftError, PasswordRequiredError, MalformedPdfError, LimitExceededError, UnsupportedInputError } from './errors.js';

/** How often progress inside a page being OCR'd is read (its stages take 0.1–3 s). */
const STEP_POLL_MS = 100;
const STEP_NAMES = [null, 'detection', 'orientation', 'recognition', 'layout', 'rendering'];

/** Throws the AbortError of `what` if `signal` is aborted (checked again after each await). */
function stopIfAborted(signal, what) {
  if (signal?.aborted) throw new DOMException(`${what} aborted`, 'AbortError');
}

async function toArrayBuffer(input) {
  if (input instanceof ArrayBuffer) return input.slice(0);
  if (ArrayBuffer.isView(input)) return input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength);
  if (typeof Blob !== 'undefined' && input instanceof Blob) return input.arrayBuffer();
  throw new TypeError('docsift: input must be a File, Blob, ArrayBuffer or Uint8Array');
}

/**
 * Starts a docsift worker. `threads` is the pool size of the threaded build, used when the
 * page is cross-origin isolated; otherwise the single-threaded build runs. `models` is the
 * folder (same origin) holding det.onnx, rec.onnx and cls.onnx, fetched only when a page or
 * image needs OCR, and wonnx/ with the files prepared for WebGPU. `backend` says where the
 * OCR models run: "auto" on a hardware WebGPU adapter (on a page that is not cross-origin
 * isolated, where the engine has JS Promise Integration), else the CPU; "webgpu" on any
 * adapter, software ones too; "cpu" never on the GPU.
 * `script` says what OCR reads: "all" the recognition model's characters (Latin, Greek,
 * symbols, common Chinese characters; Japanese pages read again with rec_cjk.onnx, fetched for
 * the first), "latin" Latin-script text only, faster on the CPU,
 * "cjk" Chinese and Japanese too (the larger rec_cjk.onnx, 21 MB: kana, traditional and rare
 * Chinese characters; about three times as slow on the CPU; on a GPU, its prepared files
 * wonnx/rec_cjk_*).
 */
export async function createDocsift({ threads = Math.min(globalThis.navigator?.hardwareConcurrency || 1, 8), models = 'models/', backend = 'auto', script = 'all' } = {}) {
  const base = globalThis.location?.href;
  const init = { type: 'init', threads: Math.max(1, threads | 0), models: base ? new URL(models, base).href : models, backend, script };
  const pending = new Map();
  let nextId = 1;
  let worker;
  /** Where the threaded build's pool threads tell a panic (see setPanicChannel in crates/wasm). */
  let panics = null;
  /** Resolves once the worker serving requests has loaded its build. */
  let ready;
  const start = () => {
    worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    stepWords = null;
    cancelWords = null;
    const panicChannel = `docsift-panic-${Date.now()}-${Math.random()}`;
    panics = new BroadcastChannel(panicChannel);
    // The worker waits for ever on a pool job that trapped: it is ended here, its requests
    // fail, and a fresh one serves the next (as when its own thread traps: see onMessage).
    panics.onmessage = ({ data }) => restart(rebuildError(trapShape('the docsift build', data)));
    ready = new Promise((resolve, reject) => {
      // The threaded build's cancel words come before 'ready'.
      worker.onmessage = (e) => {
        if (e.data.type === 'ready') resolve(e.data.info);
        else if (e.data.type === 'init-error') reject(rebuildError(e.data.error));
        else onMessage(e);
      };
      worker.onerror = (e) => reject(new Error(`docsift worker failed to start: ${e.message || e}`));
      worker.postMessage({ ...init, panicChannel });
    }).then((info) => {
      worker.onerror = onError;
      return info;
    });
    return ready;
  };
  /** Ends the worker, failing its requests with `error`, and starts a fresh one. */
  const restart = (error) => {
    worker.terminate();
    panics.close();
    failAll(error);
    start().catch(() => {});
  };
  const failAll = (error) => {
    for (const job of pending.values()) {
      clearInterval(job.stepTimer);
      job.reject(error);
    }
    pending.clear();
  };
  /** Posts a request once the worker is ready (a restarted one may still be loading); rejects if it failed to start. */
  const post = async (message, transfer) => {
    await ready;
    worker.postMessage(message, transfer);
  };
  /** The OCR build's stage words (shared memory only), read while a page is being OCR'd. */
  let stepWords = null;
  const reportStep = (job, code, done, total) => job.onProgress?.({ ...job.page, step: { name: STEP_NAMES[code], done, total } });
  const watchSteps = (job, page) => {
    job.page = page;
    if (!stepWords || !job.onProgress || job.stepTimer) return;
    let last = '';
    job.stepTimer = setInterval(() => {
      const w = new Int32Array(stepWords.memory.buffer, stepWords.address, 3);
      const code = Atomics.load(w, 0);
      const key = `${code} ${w[1]} ${w[2]}`;
      if (!code || key === last) return;
      last = key;
      reportStep(job, code, w[1], w[2]);
    }, STEP_POLL_MS);
  };
  const endJob = (id, job) => {
    pending.delete(id);
    clearInterval(job.stepTimer);
  };
  /** Job words of the threaded text build: an abort is written straight in. */
  let cancelWords = null;
  const cancelNow = (id) => {
    if (cancelWords) Atomics.store(new Int32Array(cancelWords.memory.buffer, cancelWords.address, 2), 1, id);
  };
  const onMessage = (e) => {
    const msg = e.data;
    if (msg.type === 'cancel-words') {
      cancelWords = msg.words;
      return;
    }
    if (msg.type === 'step-words') {
      stepWords = msg.words;
      return;
    }
    if (msg.trapped) {
      // Its build trapped on the worker's own thread: the worker and its requests go.
      restart(rebuildError(msg.error));
      return;
    }
    const job = pending.get(msg.id);
    if (!job) return;
    if (msg.type === 'step') {
      // The single-threaded OCR build posts its stages as they come.
      if (job.page) reportStep(job, msg.code, msg.done, msg.total);
    } else if (msg.type === 'progress') {
      const page = { done: msg.done, total: msg.total, stage: msg.stage };
      job.onProgress?.(page);
      if (msg.stage === 'ocr' && msg.done < msg.total) watchSteps(job, page);
    } else if (msg.type === 'result') {
      endJob(msg.id, job);
      if (msg.doc.pages) msg.doc.pages = msg.doc.pages.map(decodePage);
      job.resolve(msg.doc);
    } else if (msg.type === 'error') {
      endJob(msg.id, job);
      job.reject(rebuildError(msg.error));
    }
  };
  const onError = (e) => failAll(new Error(`docsift worker crashed: ${e.message || e}`));
  const info = await start();

  return {
    /** `{ threaded, threads, isolated }`: which build runs and its pool size. */
    info,
    /** Extracts a document; resolves to the docsift/1 JSON document. */
    async extract(input, { pages, password, ocr, layout, onProgress, signal } = {}) {
      stopIfAborted(signal, 'extraction');
      const bytes = await toArrayBuffer(input);
      // An abort while a Blob was read fired before the listener below existed.
      stopIfAborted(signal, 'extraction');
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, onProgress });
        signal?.addEventListener('abort', () => {
          // The message is seen between batches of pages, and stops a page being read by
          // OCR at once; the words stop a threaded batch at its next page.
          worker.postMessage({ type: 'abort', id });
          cancelNow(id);
        }, { once: true });
        post({ type: 'extract', id, bytes, options: { pages, password, ocr, layout } }, [bytes]).catch(reject);
      });
    },
    /**
     * Gets OCR ready now rather than at the first page that needs it: loads the OCR module
     * and the models (with `layout`, the layout model too) and reads a small made page with
     * them, so that the pipeline's code is compiled before a user's page waits for it.
     * Resolves to `{ engine }`: "tract" (CPU) or "wonnx" (WebGPU), as a page's `ocr.engine`.
     * Requests sent meanwhile wait for it.
     */
    async prepareOcr({ layout, onProgress, signal } = {}) {
      stopIfAborted(signal, 'OCR preparation');
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, onProgress });
        signal?.addEventListener('abort', () => worker.postMessage({ type: 'abort', id }), { once: true });
        post({ type: 'prepareOcr', id, options: { layout } }).catch(reject);
      });
    },
    /**
     * The main content of a web page (HTML) or text file, in any encoding: resolves to the
     * docsift-html/1 object `{ title, byline, excerpt, siteName, lang, dir, publishedTime,
     * readerable, encoding, encodingSource, article, length, content, text, markdown }`.
     * `url` is the page's address, for making relative links absolute.
     */
    async extractHtml(input, { url, signal } = {}) {
      stopIfAborted(signal, 'extraction');
      const bytes = await toArrayBuffer(input);
      stopIfAborted(signal, 'extraction');
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        signal?.addEventListener('abort', () => {
          pending.delete(id);
          reject(new DOMException('extraction aborted', 'AbortError'));
        }, { once: true });
        post({ type: 'extractHtml', id, bytes, options: { url } }, [bytes]).catch(reject);
      });
    },
    /**
     * Groups near-duplicate documents. `docs`: `[{ id, text }]` or `[{ id, input, password? }]`
     * (input: File, Blob, ArrayBuffer, Uint8Array). `index`: bytes a previous call returned,
     * to check against everything seen before. Resolves to `{ groups, size, index }`, where
     * `index` (Uint8Array) can be stored (IndexedDB) and passed back later.
     */
    async dedup(docs, { threshold, numPerm, shingles, index, onProgress, signal } = {}) {
      stopIfAborted(signal, 'dedup');
      const prepared = await Promise.all(docs.map(async (d) =>
        typeof d.text === 'string' ? { id: String(d.id), text: d.text } : { id: String(d.id), bytes: await toArrayBuffer(d.input), password: d.password }));
      const transfer = prepared.filter((d) => d.bytes).map((d) => d.bytes);
      const indexBytes = index ? await toArrayBuffer(index) : undefined;
      stopIfAborted(signal, 'dedup');
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, onProgress });
        signal?.addEventListener('abort', () => worker.postMessage({ type: 'abort', id }), { once: true });
        post({ type: 'dedup', id, docs: prepared, options: { threshold, numPerm, shingles, index: indexBytes } }, transfer).catch(reject);
      });
    },
    /** Stops the worker; pending extractions reject. */
    terminate() {
      worker.terminate();
      panics.close();
      failAll(new DOMException('docsift terminated', 'AbortError'));
    },
  };
}
