// Seconds per page and accuracy of OCR in headless Chromium: docsift's OCR build (tract,
// wasm SIMD, in the docsift worker) side by side with tesseract.js 7 (eng best_int, in its
// own worker), both served from the same local origin, on the same pages as bench_ocr.mjs
// (the corpus scans, and born-digital pages rendered by `docsift render`, whose own text is
// the truth). Model
// loading is excluded (one warm-up read each); best of --repeat. The warm-up is timed too,
// from the engine's creation to the first page's text: what opening one scan costs; and so
// is that first read on a return visit (a second page of the same browser profile, where
// Chromium keeps the code V8 compiled for each wasm build and the models are cached), and
// on that visit, OCR made ready before the page (docsift's prepareOcr, tesseract.js's
// createWorker: the seconds it takes, then the first page's). With
// --threads N > 1 the page is cross-origin isolated and docsift runs its threaded OCR build
// on a pool of N (tesseract.js reads a page on one thread whatever its worker count). --plain-simd keeps
// docsift off the relaxed SIMD builds (as in engines without it). Usage:
//   npm install --no-save tesseract.js @tesseract.js-data/eng && bash scripts/build-wasm.sh
//   node scripts/bench_ocr_browser.mjs [--repeat 2] [--threads 1] [--plain-simd] [--script all|latin]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { cer } from './ocr_metrics.mjs';
import { serve } from './serve.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const CORPUS = process.env.DOCSIFT_CORPUS || join(ROOT, '..', 'shared', 'corpus');
const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 2;
const threads = Number(process.argv[process.argv.indexOf('--threads') + 1]) || 1;
const script = process.argv.includes('--script') ? process.argv[process.argv.indexOf('--script') + 1] : 'all';
const plainSimd = process.argv.includes('--plain-simd');
const require = createRequire(join(ROOT, 'package.json'));
const dir = (pkg) => dirname(require.resolve(`${pkg}/package.json`));
/** tesseract.js's worker, core and eng data, as the server mounts them below. */
const TESS_OPTIONS = { workerPath: '/tess/worker.min.js', corePath: '/tess-core/', langPath: '/tess-lang', gzip: true, workerBlobURL: false };

const TARGET = process.env.CARGO_TARGET_DIR || join(process.env.HOME, '.cache', 'docsift', 'target');
const ds = (args) => execFileSync(join(TARGET, 'release', 'docsift'), args, { maxBuffer: 1 << 28 }).toString();
const made = mkdtempSync(join(tmpdir(), 'docsift-bench-pages-'));

// [name, URL path, truth text]
const pages = [
  ['phototest.tif', 'corpus/ocr/tesseract-test/testing/phototest.tif', 'ocr/tesseract-test/testing/phototest.gold.txt'],
  ['linn.png (300 dpi)', 'corpus/ocr/ocrmypdf/tests/resources/linn.png', 'ocr/ocrmypdf/tests/resources/linn.txt'],
  ['8071_093.3B.tif (UNLV)', 'corpus/ocr/tesseract-test/testing/8071_093.3B.tif', 'ocr/tesseract-test/testing/8071_093.3B.txt'],
].map(([n, path, truth]) => [n, path, readFileSync(join(CORPUS, truth), 'utf8')]);
for (const [name, pdf] of [['tracemonkey p1', 'pdfjs/test/pdfs/tracemonkey.pdf'], ['scotus-transcript p1', 'pdfplumber/tests/pdfs/scotus-transcript-p1.pdf']]) {
  const file = name.replace(/\W+/g, '_') + '.png';
  ds(['render', join(CORPUS, pdf), '--page', '1', '--dpi', '150', '-o', join(made, file)]);
  pages.push([`${name} (150 dpi)`, `made/${file}`, ds(['extract', join(CORPUS, pdf), '--pages', '1', '--ocr', 'off'])]);
}

const server = await serve({
  port: 0,
  isolate: threads > 1,
  mounts: {
    '/corpus/': CORPUS,
    '/made/': made,
    '/tess/': join(dir('tesseract.js'), 'dist'),
    '/tess-core/': dir('tesseract.js-core'),
    '/tess-lang/': join(dir('@tesseract.js-data/eng'), '4.0.0_best_int'),
  },
});
// A profile on disk: Chromium keeps compiled wasm only there, not in incognito contexts.
const profile = mkdtempSync(join(tmpdir(), 'docsift-bench-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const builds = new Set();
context.on('response', (r) => r.ok() && builds.add(r.url().match(/\/wasm\/(ocr[\w-]*)\//)?.[1]));
if (plainSimd) await context.route(/\/wasm\/ocr[\w-]*-relaxed\//, (route) => route.abort());
const page = await context.newPage();
await page.goto(server.url + 'pkg/package.json');
const { out: results, first } = await page.evaluate(async ({ pages, repeat, threads, script, tessOptions }) => {
  const { createDocsift } = await import('/pkg/index.js');
  const { default: Tesseract } = await import('/tess/tesseract.esm.min.js');
  const timed = async (f) => {
    const t = performance.now();
    const value = await f();
    return [value, (performance.now() - t) / 1000];
  };
  const [ds, dsStart] = await timed(() => createDocsift({ threads, models: '/models/', script }));
  const [tess, tStart] = await timed(() =>
    Tesseract.createWorker('eng', 1, tessOptions));
  let first;
  const best = async (f) => {
    let secs = Infinity, text = '';
    for (let i = 0; i < repeat; i++) {
      const t = performance.now();
      text = await f();
      secs = Math.min(secs, (performance.now() - t) / 1000);
    }
    return { secs, text };
  };
  const out = [];
  let warm = false;
  for (const [name, path] of pages) {
    const bytes = await (await fetch('/' + path)).arrayBuffer();
    if (!warm) {
      const [, d] = await timed(() => ds.extract(bytes.slice(0)));
      const [, t] = await timed(() => tess.recognize(new Blob([bytes])));
      first = { name, d: dsStart + d, t: tStart + t };
      warm = true;
    }
    const d = await best(async () => (await ds.extract(bytes.slice(0))).pages[0].text);
    const t = await best(async () => (await tess.recognize(new Blob([bytes]))).data.text);
    out.push({ name, d, t });
  }
  await tess.terminate();
  return { out, first };
}, { pages: pages.map(([n, p]) => [n, p]), repeat, threads, script, tessOptions: TESS_OPTIONS });
await page.close();

// The return visit: each engine from its creation to the first page's text, one after the other.
const revisit = await context.newPage();
await revisit.goto(server.url + 'pkg/package.json');
const returned = await revisit.evaluate(async ({ path, threads, script, tessOptions }) => {
  const { createDocsift } = await import('/pkg/index.js');
  const { default: Tesseract } = await import('/tess/tesseract.esm.min.js');
  const bytes = await (await fetch('/' + path)).arrayBuffer();
  let t = performance.now();
  const ds = await createDocsift({ threads, models: '/models/', script });
  await ds.extract(bytes.slice(0));
  const d = (performance.now() - t) / 1000;
  ds.terminate();
  t = performance.now();
  const tess = await Tesseract.createWorker('eng', 1, tessOptions);
  await tess.recognize(new Blob([bytes]));
  const tSecs = (performance.now() - t) / 1000;
  await tess.terminate();
  const readyThenPage = async (make, read) => {
    const started = performance.now();
    const engine = await make();
    const ready = performance.now();
    await read(engine);
    return { engine, ready: (ready - started) / 1000, page: (performance.now() - ready) / 1000 };
  };
  const dsReady = await readyThenPage(async () => {
    const prepared = await createDocsift({ threads, models: '/models/', script });
    await prepared.prepareOcr();
    return prepared;
  }, (prepared) => prepared.extract(bytes.slice(0)));
  dsReady.engine.terminate();
  const tReady = await readyThenPage(() => Tesseract.createWorker('eng', 1, tessOptions), (w) => w.recognize(new Blob([bytes])));
  await tReady.engine.terminate();
  const times = ({ ready, page }) => ({ ready, page });
  return { d, t: tSecs, dReady: times(dsReady), tReady: times(tReady) };
}, { path: pages[0][1], threads, script, tessOptions: TESS_OPTIONS });
await context.close();
rmSync(profile, { recursive: true, force: true });
rmSync(made, { recursive: true, force: true });
await server.close();

builds.delete(undefined);
console.log(`headless Chromium, docsift's ${[...builds].join(', ')} build on ${threads} thread(s), script ${script}, tesseract.js one worker, best of ${repeat}, models loaded beforehand`);
console.log('page\tdocsift s\ttesseract.js s\tdocsift CER\ttesseract CER');
let sd = 0, st = 0;
for (const [i, r] of results.entries()) {
  const truth = pages[i][2];
  sd += r.d.secs;
  st += r.t.secs;
  console.log(`${r.name}\t${r.d.secs.toFixed(2)}\t${r.t.secs.toFixed(2)}\t${cer(r.d.text, truth).toFixed(3)}\t${cer(r.t.text, truth).toFixed(3)}`);
}
console.log(`TOTAL\t${sd.toFixed(2)}\t${st.toFixed(2)}\tdocsift/tesseract time ${(sd / st).toFixed(2)}`);
console.log(`first read (engine start and ${first.name}): docsift ${first.d.toFixed(2)} s, tesseract.js ${first.t.toFixed(2)} s`);
console.log(`first read on a return visit: docsift ${returned.d.toFixed(2)} s, tesseract.js ${returned.t.toFixed(2)} s`);
const readied = ({ ready, page }) => `${ready.toFixed(2)} s, then the page ${page.toFixed(2)} s`;
console.log(`on that visit, OCR made ready first: docsift (createDocsift and prepareOcr) ${readied(returned.dReady)}; tesseract.js (createWorker) ${readied(returned.tReady)}`);
