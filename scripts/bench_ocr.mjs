// Seconds per page and accuracy of OCR, docsift (native CLI, tract on the CPU, --threads N;
// and the single-threaded OCR wasm build in Node, as a page that is not cross-origin
// isolated runs it) side by side with tesseract.js 7 (eng, offline from
// @tesseract.js-data/eng; one thread) in Node, on the same page images: the corpus scans
// with ground truth, and born-digital pages rendered by `docsift render` whose own text
// layer is the truth. CER and word F1 after whitespace normalisation. Times are the best of
// `repeat` reads after a warm-up, and (wasm and tesseract.js) a first read: a fresh process
// from nothing loaded to the text (scripts/first_read.mjs); and a first page after OCR was
// made ready (docsift's prepareOcr, tesseract.js's createWorker), with what that took. Usage:
//   npm install --no-save tesseract.js @tesseract.js-data/eng && bash scripts/build-wasm.sh
//   node scripts/bench_ocr.mjs [--repeat 2] [--threads 1] [--script all|latin|cjk]
// (`--script latin`: docsift reads Latin script only, as tesseract.js's eng does. Node 22 and
// later validate relaxed SIMD, so both engines run their relaxed-SIMD builds there; Node 20
// only with `--experimental-wasm-relaxed-simd`.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cer, f1 } from './ocr_metrics.mjs';
import { wasmOcr } from './wasm_ocr.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const CORPUS = process.env.DOCSIFT_CORPUS || join(ROOT, '..', 'shared', 'corpus');
const TARGET = process.env.CARGO_TARGET_DIR || join(process.env.HOME, '.cache', 'docsift', 'target');
const DOCSIFT = join(TARGET, 'release', 'docsift');
const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 2;
const threads = Number(process.argv[process.argv.indexOf('--threads') + 1]) || 1;
const script = process.argv.includes('--script') ? process.argv[process.argv.indexOf('--script') + 1] : 'all';
const require = createRequire(join(ROOT, 'package.json'));
const { createWorker } = require('tesseract.js');
const langPath = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

const tmp = mkdtempSync(join(tmpdir(), 'docsift-ocr-'));
const ds = (args, env = {}) => execFileSync(DOCSIFT, args, { env: { ...process.env, ...env }, maxBuffer: 1 << 28 }).toString();

// [name, image, truth text]
const pages = [
  ['phototest.tif', 'ocr/tesseract-test/testing/phototest.tif', 'ocr/tesseract-test/testing/phototest.gold.txt'],
  ['linn.png (300 dpi)', 'ocr/ocrmypdf/tests/resources/linn.png', 'ocr/ocrmypdf/tests/resources/linn.txt'],
  ['8071_093.3B.tif (UNLV)', 'ocr/tesseract-test/testing/8071_093.3B.tif', 'ocr/tesseract-test/testing/8071_093.3B.txt'],
].map(([n, img, truth]) => [n, join(CORPUS, img), readFileSync(join(CORPUS, truth), 'utf8')]);
for (const [name, pdf] of [['tracemonkey p1', 'pdfjs/test/pdfs/tracemonkey.pdf'], ['scotus-transcript p1', 'pdfplumber/tests/pdfs/scotus-transcript-p1.pdf']]) {
  const png = join(tmp, name.replace(/\W+/g, '_') + '.png');
  ds(['render', join(CORPUS, pdf), '--page', '1', '--dpi', '150', '-o', png]);
  pages.push([`${name} (150 dpi)`, png, ds(['extract', join(CORPUS, pdf), '--pages', '1', '--ocr', 'off'])]);
}

const { build, read: wasmRead } = await wasmOcr(script);

// Best of `repeat` after one read that builds the wasm build's plans (the CLI's bench warms up too).
const best = async (read) => {
  let secs = Infinity, text = '';
  for (let i = 0; i <= repeat; i++) {
    const t = performance.now();
    text = await read();
    if (i > 0) secs = Math.min(secs, (performance.now() - t) / 1000);
  }
  return { secs, text };
};

const firstRead = (engine, img) =>
  JSON.parse(execFileSync(process.execPath, [...process.execArgv, join(ROOT, 'scripts', 'first_read.mjs'), engine, img, script]).toString());

const worker = await createWorker('eng', 1, { langPath, cachePath: tmp, gzip: true });
const rows = [];
for (const [name, img, truth] of pages) {
  const bench = ds(['bench', '--repeat', String(repeat), '--threads', String(threads), '--script', script, img]);
  const dsSecs = Number(bench.split('\n').find((l) => l.startsWith('TOTAL')).split('\t')[2]);
  const dsText = ds(['extract', '--script', script, img]);
  const bytes = readFileSync(img);
  const w = await best(() => wasmRead(bytes));
  const t = await best(async () => (await worker.recognize(bytes)).data.text);
  if (w.text.trim() !== dsText.trim()) console.error(`${name}: the wasm build reads differently from the CLI`);
  const [cold, prepared, tess] = ['docsift', 'docsift-prepared', 'tesseract'].map((engine) => firstRead(engine, img));
  rows.push({ name, dsSecs, wasmSecs: w.secs, tSecs: t.secs, wasmFirst: cold.secs, tFirst: tess.secs,
    wasmReady: prepared.ready, wasmReadyFirst: prepared.page, tReady: tess.ready, tReadyFirst: tess.page, dsCer: cer(dsText, truth), tCer: cer(t.text, truth), dsF1: f1(dsText, truth), tF1: f1(t.text, truth) });
}
await worker.terminate();
rmSync(tmp, { recursive: true, force: true });

const fmt = (v, d = 3) => v.toFixed(d);
// The probe tesseract.js picks its core by (its dependency wasm-feature-detect).
const tessCore = (await require('wasm-feature-detect').relaxedSimd()) ? 'relaxed-SIMD' : 'SIMD';
console.log(`Node ${process.version}; docsift native: ${threads} thread(s); docsift wasm: one thread (${build} build); script ${script}; tesseract.js: one worker (${tessCore} core); best of ${repeat}`);
console.log('page\tnative s\twasm s\ttesseract.js s\ttess/native\ttess/wasm\twasm first s\ttesseract.js first s\twasm prepare s\twasm first after s\ttesseract.js create s\ttesseract.js first after s\tdocsift CER\ttesseract CER\tdocsift F1\ttesseract F1');
const line = (name, r, n) =>
  console.log(`${name}\t${fmt(r.dsSecs, 2)}\t${fmt(r.wasmSecs, 2)}\t${fmt(r.tSecs, 2)}\t${fmt(r.tSecs / r.dsSecs, 2)}\t${fmt(r.tSecs / r.wasmSecs, 2)}\t${fmt(r.wasmFirst, 2)}\t${fmt(r.tFirst, 2)}\t${fmt(r.wasmReady, 2)}\t${fmt(r.wasmReadyFirst, 2)}\t${fmt(r.tReady, 2)}\t${fmt(r.tReadyFirst, 2)}\t${fmt(r.dsCer / n)}\t${fmt(r.tCer / n)}\t${fmt(r.dsF1 / n)}\t${fmt(r.tF1 / n)}`);
for (const r of rows) line(r.name, r, 1);
const summed = ['dsSecs', 'wasmSecs', 'tSecs', 'wasmFirst', 'tFirst', 'wasmReady', 'wasmReadyFirst', 'tReady', 'tReadyFirst', 'dsCer', 'tCer', 'dsF1', 'tF1'];
const total = Object.fromEntries(summed.map((k) => [k, rows.reduce((a, r) => a + r[k], 0)]));
line('TOTAL (CER, F1: mean)', total, rows.length);
