// The docsift worker: loads the threaded wasm build when the page is cross-origin isolated
// (SharedArrayBuffer available) and the single-threaded one otherwise, then extracts
// documents page batch by page batch, posting progress and honouring aborts in between.

import { transferables } from './decode.js';

/** Pages each pool thread takes per batch in the threaded build. */
const PAGES_PER_THREAD = 8;

let wasm = null;
let poolSize = 1;
const aborted = new Set();

/** Yields to the event loop (so abort messages are seen) without timer clamping. */
const channel = new MessageChannel();
const yieldNow = () => new Promise((resolve) => {
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(0);
});

async function init(threads) {
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
  return { threaded: wasm.threaded(), threads: poolSize, isolated };
}

function errorShape(e) {
  if (e && typeof e === 'object' && 'name' in e && 'code' in e) return { name: e.name, code: e.code, message: e.message };
  return { name: 'DocsiftError', code: 'internal', message: String(e && e.message ? e.message : e) };
}

async function extract(id, bytes, options) {
  const doc = new wasm.Doc(new Uint8Array(bytes), options.password ?? undefined);
  try {
    const indices = doc.resolvePages(options.pages ? Uint32Array.from(options.pages) : undefined);
    const total = indices.length;
    const pages = [];
    // Several pages per pool thread per batch: enough work to amortise the fork/join, small
    // enough that an abort lands within a few pages.
    const batch = poolSize > 1 ? PAGES_PER_THREAD * poolSize : 1;
    let lastYield = performance.now();
    for (let i = 0; i < total; i += batch) {
      if (aborted.has(id)) throw { name: 'AbortError', code: 'cancelled', message: 'extraction aborted' };
      for (const p of doc.extractPages(indices.slice(i, i + batch))) pages.push(p);
      self.postMessage({ type: 'progress', id, done: pages.length, total });
      // Yield at most every few milliseconds: often enough for aborts, rarely enough to stay fast.
      if (performance.now() - lastYield > 8) {
        await yieldNow();
        lastYield = performance.now();
      }
    }
    if (aborted.has(id)) throw { name: 'AbortError', code: 'cancelled', message: 'extraction aborted' };
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
      self.postMessage({ type: 'ready', info: await init(msg.threads) });
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
