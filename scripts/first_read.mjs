// Seconds a fresh Node process takes from nothing loaded to the text of one image: what a
// user who opens one scan waits for. docsift: the single-threaded OCR wasm build compiled,
// the models given, the page read (tract plans each model at its first shape); tesseract.js:
// a worker created (its wasm and eng traineddata loaded), the page read. And, where an app
// gets OCR ready before a page comes, the seconds that takes (`ready`) and the page's after
// it (`page`): docsift-prepared (the build, the models and a warm-up read, as the browser's
// prepareOcr) and tesseract (createWorker). bench_ocr.mjs runs it once per page and engine.
// Usage:
//   node scripts/first_read.mjs docsift|docsift-prepared|tesseract IMAGE [all|latin|cjk]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wasmOcr } from './wasm_ocr.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const [engine, image, script = 'all'] = process.argv.slice(2);

async function docsift() {
  return (await wasmOcr(script)).read(bytes);
}

async function docsiftPrepared() {
  const ocr = await wasmOcr(script);
  await ocr.prepare();
  ready = performance.now();
  return ocr.read(bytes);
}

async function tesseract() {
  const require = createRequire(join(ROOT, 'package.json'));
  const { createWorker } = require('tesseract.js');
  const langPath = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
  const cachePath = mkdtempSync(join(tmpdir(), 'docsift-tess-'));
  const worker = await createWorker('eng', 1, { langPath, cachePath, gzip: true });
  ready = performance.now();
  const text = (await worker.recognize(bytes)).data.text;
  await worker.terminate();
  rmSync(cachePath, { recursive: true, force: true });
  return text;
}

const reads = { docsift, 'docsift-prepared': docsiftPrepared, tesseract };
if (!reads[engine] || !image) throw new Error('usage: node scripts/first_read.mjs docsift|docsift-prepared|tesseract IMAGE [all|latin|cjk]');
const bytes = readFileSync(image);
/** When the engine was ready for a page (engines that get ready before one). */
let ready;
const t = performance.now();
const text = await reads[engine]();
const end = performance.now();
const split = ready ? { ready: (ready - t) / 1000, page: (end - ready) / 1000 } : {};
console.log(JSON.stringify({ secs: (end - t) / 1000, ...split, chars: text.length }));
