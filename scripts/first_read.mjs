// Seconds a fresh Node process takes from nothing loaded to the text of one image: what a
// user who opens one scan waits for. docsift: the single-threaded OCR wasm build compiled,
// the models given, the page read (tract plans each model at its first shape); tesseract.js:
// a worker created (its wasm and eng traineddata loaded), the page read. bench_ocr.mjs runs
// it once per page and engine. Usage:
//   node scripts/first_read.mjs docsift|tesseract IMAGE [all|latin]
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

async function tesseract() {
  const require = createRequire(join(ROOT, 'package.json'));
  const { createWorker } = require('tesseract.js');
  const langPath = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
  const cachePath = mkdtempSync(join(tmpdir(), 'docsift-tess-'));
  const worker = await createWorker('eng', 1, { langPath, cachePath, gzip: true });
  const text = (await worker.recognize(bytes)).data.text;
  await worker.terminate();
  rmSync(cachePath, { recursive: true, force: true });
  return text;
}

const reads = { docsift, tesseract };
if (!reads[engine] || !image) throw new Error('usage: node scripts/first_read.mjs docsift|tesseract IMAGE [all|latin]');
const bytes = readFileSync(image);
const t = performance.now();
const text = await reads[engine]();
console.log(JSON.stringify({ secs: (performance.now() - t) / 1000, chars: text.length }));
