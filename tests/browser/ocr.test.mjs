// OCR in the browser: the OCR build (tract with SIMD) loads in the OCR worker only when
// an image or a page without usable text arrives, fetches the models from the page's own
// origin, and must read what the native CLI reads from the same file (same models, same
// code). Prints seconds per page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CORPUS = process.env.DOCSIFT_CORPUS || join(ROOT, '..', 'shared', 'corpus');
const TARGET = process.env.CARGO_TARGET_DIR || join(process.env.HOME, '.cache', 'docsift', 'target');
const CLI = join(TARGET, 'release', 'docsift');
/** Same model, same code, different float rounding (wasm SIMD vs native): boxes agree to a pixel or so. */
const BOX_TOLERANCE = 2.0;
/** Word confidences in wasm and natively: the same text read, the sums in another order (SIMD width, fused multiply-adds). */
const CONFIDENCE_TOLERANCE = 0.02;

let browser, server, plain;
/** Files the tests make, served under /corpus/made/. */
const MADE = mkdtempSync(join(tmpdir(), 'docsift-browser-ocr-'));

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-quic', '--no-first-run'] });
  const mounts = { '/corpus/': CORPUS, '/corpus/made/': MADE };
  server = await serve({ port: 0, isolate: true, mounts });
  plain = await serve({ port: 0, isolate: false, mounts });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await plain?.close();
  rmSync(MADE, { recursive: true, force: true });
});

function native(path, args = []) {
  const file = path.startsWith('made/') ? join(MADE, path.slice(5)) : join(CORPUS, path);
  return JSON.parse(execFileSync(CLI, ['extract', '--format', 'json', ...args, file], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }));
}

/**
 * An uncompressed little-endian RGB TIFF of `pages` ({width, height, rgb, thumbnail}), one
 * directory per page in one chain; a thumbnail is marked as a reduced-resolution copy.
 */
function tiffOf(pages) {
  const chunks = [];
  let size = 8;
  const header = Buffer.alloc(8);
  header.write('II*\0', 0, 'latin1');
  chunks.push(header);
  let link = 4; // where the offset of the next directory goes
  const links = [];
  for (const { width, height, rgb, thumbnail } of pages) {
    const pixels = size;
    chunks.push(rgb);
    size += rgb.length;
    const bits = size;
    const bitsBuf = Buffer.alloc(6);
    [8, 8, 8].forEach((b, i) => bitsBuf.writeUInt16LE(b, 2 * i));
    chunks.push(bitsBuf);
    size += 6;
    // [tag, type (3 SHORT, 4 LONG), value], in ascending tag order.
    const entries = [
      ...(thumbnail ? [[254, 4, 1]] : []),
      [256, 4, width], [257, 4, height], [258, 3, bits], [259, 3, 1], [262, 3, 2],
      [273, 4, pixels], [277, 3, 3], [278, 4, height], [279, 4, rgb.length],
    ];
    const dir = Buffer.alloc(2 + 12 * entries.length + 4);
    dir.writeUInt16LE(entries.length, 0);
    entries.forEach(([tag, type, value], i) => {
      const at = 2 + 12 * i;
      dir.writeUInt16LE(tag, at);
      dir.writeUInt16LE(type, at + 2);
      dir.writeUInt32LE(tag === 258 ? 3 : 1, at + 4);
      if (type === 3 && tag !== 258) dir.writeUInt16LE(value, at + 8);
      else dir.writeUInt32LE(value, at + 8);
    });
    links.push([link, size]);
    link = size + 2 + 12 * entries.length;
    chunks.push(dir);
    size += dir.length;
  }
  const file = Buffer.concat(chunks);
  for (const [at, directory] of links) file.writeUInt32LE(directory, at);
  return file;
}

/** A PDF of the given objects (1: the catalog), numbered in order, with its cross-reference table. */
function pdfOf(objects) {
  const parts = [Buffer.from('%PDF-1.7\n')];
  let size = parts[0].length;
  const offsets = objects.map((o, i) => {
    const body = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(o) ? o : Buffer.from(o), Buffer.from('\nendobj\n')]);
    parts.push(body);
    size += body.length;
    return size - body.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A stream object of `dict` (without its Length) and `data`. */
function streamOf(dict, data) {
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);
}

/**
 * A two-page PDF: page 1 draws `content` (deflated) with the font /F1 and `resources`, page 2
 * shows `text`; `extra` are objects 8 on.
 */
function twoPagePdf(resources, content, text, extra) {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 7 0 R >> ${resources} >> >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> >>',
    streamOf('/Filter /FlateDecode', deflateSync(Buffer.from(content))),
    streamOf('', Buffer.from(`BT /F1 36 Tf 72 600 Td (${text}) Tj ET`)),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...extra,
  ]);
}

/**
 * Extraction in a page of `on` (isolated: the threaded builds run on a pool of 2); with
 * `plainSimd`, the relaxed SIMD builds fail to load, as where they are not served.
 * `create`: more options of createDocsift.
 */
async function inBrowser(path, options = {}, on = server, plainSimd = false, create = {}) {
  const page = await browser.newPage();
  const requests = [];
  const served = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('response', (r) => r.ok() && served.push(r.url()));
  if (plainSimd) await page.route(/\/wasm\/ocr[\w-]*-relaxed\//, (route) => route.abort());
  await page.goto(on.url + 'pkg/package.json');
  const result = await page.evaluate(async ({ path, options, create }) => {
    const { createDocsift } = await import('/pkg/index.js');
    const ds = await createDocsift({ threads: 2, models: '/models/', ...create });
    const stages = new Set();
    const steps = new Set();
    const bytes = await (await fetch('/corpus/' + path)).arrayBuffer();
    const started = performance.now();
    const doc = await ds.extract(bytes, { ...options, onProgress: (p) => { stages.add(p.stage); if (p.step) steps.add(p.step.name); } });
    const seconds = (performance.now() - started) / 1000;
    return { seconds, stages: [...stages], steps: [...steps], pages: doc.pages.map((p) => ({ text: p.text, ocr: p.ocr, blocks: p.blocks, words: p.words.map(({ bbox, confidence }) => ({ bbox, confidence })), origins: [...new Set(p.chars.map((c) => c.origin.kind))] })) };
  }, { path, options, create });
  await page.close();
  const origin = new URL(on.url).origin;
  // Object URLs (the thread pool's workers) are local, not requests.
  assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith(`blob:${origin}/`)), [], 'only same-origin requests');
  result.ocrBuilds = [...new Set(served.flatMap((u) => u.match(/\/wasm\/(ocr[\w-]*)\//)?.[1] ?? []))];
  result.models = [...new Set(served.flatMap((u) => u.match(/\/models\/(\w+\.onnx)$/)?.[1] ?? []))].sort();
  return result;
}

function assertSameReading(got, want, label) {
  assert.equal(got.pages.length, want.pages.length, `${label}: pages`);
  got.pages.forEach((p, i) => {
    const w = want.pages[i];
    assert.equal(p.text, w.text, `${label} page ${i + 1}: text`);
    assert.equal(Boolean(p.ocr), Boolean(w.ocr), `${label} page ${i + 1}: read by OCR`);
    if (p.ocr) assert.deepEqual(p.origins, ['ocr']);
    assert.equal(p.words.length, w.words.length, `${label} page ${i + 1}: words`);
    p.words.forEach(({ bbox: b, confidence }, k) => {
      const o = w.words[k].bbox;
      const off = Math.max(Math.abs(b.x0 - o.x0), Math.abs(b.top - o.top), Math.abs(b.x1 - o.x1), Math.abs(b.bottom - o.bottom));
      assert.ok(off <= BOX_TOLERANCE, `${label} page ${i + 1} word ${k}: ${JSON.stringify(b)} vs ${JSON.stringify(o)}`);
      // The wire format carries an OCR'd word's confidence, and only an OCR'd word's.
      assert.equal(typeof confidence, p.ocr ? 'number' : 'undefined', `${label} page ${i + 1} word ${k}: confidence`);
      if (p.ocr) assert.ok(Math.abs(confidence - w.words[k].confidence) <= CONFIDENCE_TOLERANCE, `${label} page ${i + 1} word ${k}: confidence ${confidence} vs ${w.words[k].confidence}`);
    });
  });
}

// The image on a plain page (the single-threaded OCR build), the scan on an isolated one
// (the threaded OCR build, lines recognised in parallel). Chromium has relaxed SIMD, so it
// loads the builds with fused multiply-adds; where those fail to load, the plain ones.
for (const [path, on, build, plainSimd] of [
  ['ocr/tesseract-test/testing/phototest.tif', () => plain, 'ocr-relaxed', false],
  ['ocr/tesseract-test/testing/phototest.tif', () => plain, 'ocr', true],
  ['ocr/ocrmypdf/tests/resources/ccitt.pdf', () => server, 'ocr-threaded-relaxed', false],
  ['ocr/ocrmypdf/tests/resources/ccitt.pdf', () => server, 'ocr-threaded', true],
]) {
  test(`${path.split('/').pop()} is read by OCR in the ${build} build as by the CLI`, { timeout: 600_000 }, async () => {
    const got = await inBrowser(path, {}, on(), plainSimd);
    const want = native(path);
    console.log(`# ${path}: ${got.seconds.toFixed(1)} s in the browser, ${build} build (models loaded on first need; stages ${got.stages.join(', ')})`);
    assert.deepEqual(got.ocrBuilds, [build]);
    assert.ok(got.stages.includes('ocr'), 'OCR progress reported');
    // Progress inside a page: read from shared memory (threaded) or posted by the OCR worker;
    // a PDF page is rendered first.
    const steps = [...(path.endsWith('.pdf') ? ['rendering'] : []), 'detection', 'recognition'];
    assert.deepEqual(got.steps.filter((s) => s !== 'orientation'), steps, `steps ${got.steps}`);
    // Latin print needs no second recognition model.
    assert.deepEqual(got.models, ['cls.onnx', 'det.onnx', 'rec.onnx']);
    assertSameReading(got, want, path);
  });
}

test('every page of a multi-page TIFF is read as the CLI reads it, thumbnails left out; pages picks among them', { timeout: 600_000 }, async () => {
  // Two pages of text drawn by the browser, and a thumbnail between them.
  const page = await browser.newPage();
  await page.goto(plain.url + 'pkg/package.json');
  const drawn = await page.evaluate(() => ['Invoice number 4711 for March', 'Second page: total due 120 EUR', 'tiny'].map((text, i) => {
    const [width, height] = i === 2 ? [64, 16] : [900, 160];
    const canvas = new OffscreenCanvas(width, height);
    const g = canvas.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, width, height);
    g.fillStyle = '#000';
    g.font = `${i === 2 ? 10 : 44}px serif`;
    g.fillText(text, 20, height * 0.6);
    const rgba = g.getImageData(0, 0, width, height).data;
    const rgb = Array.from({ length: width * height * 3 }, (_, k) => rgba[Math.floor(k / 3) * 4 + (k % 3)]);
    return { width, height, rgb };
  }));
  await page.close();
  const [first, second, thumbnail] = drawn.map((d) => ({ ...d, rgb: Buffer.from(d.rgb) }));
  writeFileSync(join(MADE, 'two-pages.tif'), tiffOf([first, { ...thumbnail, thumbnail: true }, second]));
  const path = 'made/two-pages.tif';
  const got = await inBrowser(path, {}, plain);
  const want = native(path);
  assert.equal(want.meta.page_count, 2);
  assert.match(want.pages[0].text, /Invoice number 4711/);
  assert.match(want.pages[1].text, /total due 120/);
  assertSameReading(got, want, path);
  const picked = await inBrowser(path, { pages: [2] }, plain);
  assertSameReading(picked, native(path, ['--pages', '2']), `${path} --pages 2`);
  assert.equal(picked.pages[0].text, want.pages[1].text);
});

test('a JPEG 2000 picture (the JP2 map in ICDAR-2013 eu-012.pdf) is read as the CLI reads it', { timeout: 300_000 }, async () => {
  const pdf = readFileSync(join(CORPUS, 'tabula-java/src/test/resources/technology/tabula/icdar2013-dataset/competition-dataset-eu/eu-012.pdf'));
  const start = pdf.indexOf(Buffer.from('\0\0\0\x0cjP  \r\n\x87\n', 'latin1'));
  const dict = pdf.subarray(pdf.lastIndexOf('<<', start), start).toString('latin1');
  const length = Number(/\/Length (\d+)/.exec(dict)?.[1]);
  assert.ok(start > 0 && /JPXDecode/.test(dict) && length > 0, 'the JPX image stream');
  writeFileSync(join(MADE, 'map.jp2'), pdf.subarray(start, start + length));
  const path = 'made/map.jp2';
  const want = native(path);
  assert.match(want.pages[0].text, /MAP OF FINLAND/);
  assertSameReading(await inBrowser(path, {}, plain), want, path);
});

test('script: "latin" reads an image as the CLI\'s --script latin does, and an unknown script is refused', { timeout: 300_000 }, async () => {
  const path = 'ocr/tesseract-test/testing/phototest.tif';
  assertSameReading(await inBrowser(path, {}, plain, false, { script: 'latin' }), native(path, ['--script', 'latin']), path);
  await assert.rejects(inBrowser(path, {}, plain, false, { script: 'klingon' }), /unknown OCR script "klingon"/);
});

test('script: "cjk" reads a Japanese page with its own recognition model as the CLI\'s --script cjk does', { timeout: 600_000 }, async () => {
  const path = 'pdfjs/test/pdfs/issue16538.pdf';
  const args = ['--ocr', 'force', '--pages', '1'];
  const got = await inBrowser(path, { ocr: 'force', pages: [1] }, server, false, { script: 'cjk' });
  const want = native(path, [...args, '--script', 'cjk']);
  assert.match(want.pages[0].text, /マーケットモデル/);
  assert.deepEqual(got.models, ['cls.onnx', 'det.onnx', 'rec_cjk.onnx']);
  assertSameReading(got, want, path);
});

// The default script reads a Japanese page's kana as Chinese look-alikes: the OCR worker
// then fetches the "cjk" script's model and reads the page again, as the CLI does with that
// model among its models; in both builds.
for (const [on, build] of [[() => plain, 'ocr-relaxed'], [() => server, 'ocr-threaded-relaxed']]) {
  test(`a Japanese page read under the default script is read again with the "cjk" script's model, fetched for it, in the ${build} build as by the CLI`, { timeout: 600_000 }, async () => {
    const path = 'pdfjs/test/pdfs/issue16063.pdf';
    const got = await inBrowser(path, { ocr: 'force', pages: [1] }, on());
    const want = native(path, ['--ocr', 'force', '--pages', '1']);
    console.log(`# ${path} page 1 read again in East Asian script: ${got.seconds.toFixed(1)} s in the browser, ${build} build`);
    assert.match(want.pages[0].text, /速結端子/);
    assert.deepEqual(got.ocrBuilds, [build]);
    assert.deepEqual(got.models, ['cls.onnx', 'det.onnx', 'rec.onnx', 'rec_cjk.onnx']);
    assertSameReading(got, want, path);
  });
}

// Both builds: OCR readied ahead of a page, as tesseract.js's createWorker is. The seconds
// are printed, not asserted (the machines are shared): bench_ocr.mjs compares them.
for (const [on, build] of [[() => plain, 'ocr-relaxed'], [() => server, 'ocr-threaded-relaxed']]) {
  test(`prepareOcr loads the models and warms the ${build} build up, and the first page then reads as the CLI reads it without loading them again; a preparation aborted while loading leaves the next read whole`, { timeout: 600_000 }, async () => {
    const path = 'ocr/tesseract-test/testing/phototest.tif';
    const page = await browser.newPage();
    await page.goto(on().url + 'pkg/package.json');
    const got = await page.evaluate(async (path) => {
      const { createDocsift } = await import('/pkg/index.js');
      const bytes = await (await fetch('/corpus/' + path)).arrayBuffer();
      const ds = await createDocsift({ threads: 2, models: '/models/' });
      const controller = new AbortController();
      const abortedAs = await ds.prepareOcr({ signal: controller.signal, onProgress: () => controller.abort() })
        .then((r) => `resolved ${JSON.stringify(r)}`, (e) => e.name);
      let started = performance.now();
      const afterAbort = (await ds.extract(bytes.slice(0))).pages[0].text;
      const unpreparedSecs = (performance.now() - started) / 1000;
      ds.terminate();

      const fresh = await createDocsift({ threads: 2, models: '/models/' });
      const preparing = new Set();
      started = performance.now();
      const ready = await fresh.prepareOcr({ onProgress: (p) => preparing.add(p.stage) });
      const prepareSecs = (performance.now() - started) / 1000;
      const reading = new Set();
      started = performance.now();
      const doc = await fresh.extract(bytes, { onProgress: (p) => reading.add(p.stage) });
      const firstSecs = (performance.now() - started) / 1000;
      const again = await fresh.prepareOcr();
      return {
        abortedAs, afterAbort, ready, again, unpreparedSecs, prepareSecs, firstSecs, preparing: [...preparing], reading: [...reading],
        pages: doc.pages.map((p) => ({ text: p.text, ocr: p.ocr, words: p.words.map(({ bbox, confidence }) => ({ bbox, confidence })), origins: [...new Set(p.chars.map((c) => c.origin.kind))] })),
      };
    }, path);
    await page.close();
    console.log(`# ${path}, ${build} build: a first page without preparation ${got.unpreparedSecs.toFixed(2)} s; prepareOcr ${got.prepareSecs.toFixed(2)} s, then the first page ${got.firstSecs.toFixed(2)} s`);
    assert.equal(got.abortedAs, 'AbortError');
    assert.equal(got.afterAbort, native(path).pages[0].text);
    assert.deepEqual(got.ready, { engine: 'tract' });
    assert.deepEqual(got.again, { engine: 'tract' }, 'a second preparation answers at once');
    assert.deepEqual(got.preparing, ['loading-models']);
    assert.deepEqual(got.reading, ['ocr'], 'the models were not loaded again');
    assertSameReading(got, native(path), path);
  });
}

test('ocr: "off" leaves a scan unread', { timeout: 120_000 }, async () => {
  const got = await inBrowser('ocr/ocrmypdf/tests/resources/ccitt.pdf', { ocr: 'off' });
  assert.equal(got.pages[0].ocr, undefined);
  assert.ok(!got.stages.includes('ocr'));
});

test('without reachable models a scan keeps its native text with a warning, and prepareOcr fails with a model error', { timeout: 120_000 }, async () => {
  const page = await browser.newPage();
  await page.goto(server.url + 'pkg/package.json');
  const doc = await page.evaluate(async () => {
    const { createDocsift } = await import('/pkg/index.js');
    const ds = await createDocsift({ threads: 1, models: '/no-models-here/' });
    const bytes = await (await fetch('/corpus/ocr/ocrmypdf/tests/resources/ccitt.pdf')).arrayBuffer();
    const d = await ds.extract(bytes);
    const prepared = await ds.prepareOcr().then(() => null, (e) => ({ name: e.name, code: e.code, message: e.message }));
    return { ocr: d.pages[0].ocr, warnings: d.pages[0].warnings, prepared };
  });
  await page.close();
  assert.equal(doc.ocr, undefined);
  assert.ok(doc.warnings?.some((w) => w.message.startsWith('not read by OCR')), JSON.stringify(doc.warnings));
  assert.equal(doc.prepared?.name, 'DocsiftError', JSON.stringify(doc.prepared));
  assert.equal(doc.prepared.code, 'model');
  assert.match(doc.prepared.message, /\/no-models-here\/\w+\.onnx: HTTP 404/);
});

test('model files cached by an earlier version are dropped, the current ones kept', { timeout: 300_000 }, async () => {
  const page = await browser.newPage();
  await page.goto(plain.url + 'pkg/package.json');
  const buckets = await page.evaluate(async () => {
    const stale = await caches.open('docsift-models-v3');
    await stale.put('/models/rec.onnx', new Response(new Uint8Array(1 << 20)));
    const { createDocsift } = await import('/pkg/index.js');
    const ds = await createDocsift({ threads: 1, models: '/models/' });
    await ds.extract(await (await fetch('/corpus/ocr/tesseract-test/testing/phototest.tif')).arrayBuffer());
    const names = await caches.keys();
    const kept = names.length === 1 ? (await (await caches.open(names[0])).keys()).map((r) => new URL(r.url).pathname) : [];
    return { names, kept };
  });
  await page.close();
  assert.deepEqual(buckets.names, ['docsift-models-v4']);
  assert.deepEqual(buckets.kept.sort(), ['/models/cls.onnx', '/models/det.onnx', '/models/rec.onnx']);
});

test('layout: true gives the layout blocks of the CLI\'s --layout on a born-digital page', { timeout: 600_000 }, async () => {
  const path = 'pdfjs/test/pdfs/tracemonkey.pdf';
  const got = await inBrowser(path, { pages: [1], layout: true });
  const want = native(path, ['--pages', '1', '--layout']);
  const [g, w] = [got.pages[0], want.pages[0]];
  console.log(`# ${path} p1 with layout: ${got.seconds.toFixed(1)} s in the browser; ${g.blocks?.length} blocks`);
  assert.ok(w.blocks?.length > 0, 'the CLI finds layout blocks');
  assert.equal(g.ocr, undefined, 'native text kept (hybrid mode)');
  assert.equal(g.text, w.text);
  assert.deepEqual(g.blocks.map((b) => [b.kind, b.lines]), w.blocks.map((b) => [b.kind, b.lines]));
  g.blocks.forEach((b, k) => {
    const o = w.blocks[k].bbox;
    const off = Math.max(Math.abs(b.bbox.x0 - o.x0), Math.abs(b.bbox.top - o.top), Math.abs(b.bbox.x1 - o.x1), Math.abs(b.bbox.bottom - o.bottom));
    assert.ok(off <= BOX_TOLERANCE, `block ${k}: ${JSON.stringify(b.bbox)} vs ${JSON.stringify(o)}`);
  });
});

// Both builds: the docsift worker ends the OCR worker serving the aborted page.
for (const [on, build] of [[() => server, 'ocr-threaded-relaxed'], [() => plain, 'ocr-relaxed']]) {
  test(`an abort stops a page being read by OCR mid-page, and the next page is read (${build} build)`, { timeout: 600_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(on().url + 'pkg/package.json');
    const got = await page.evaluate(async () => {
      const { createDocsift } = await import('/pkg/index.js');
      const ds = await createDocsift({ threads: 2, models: '/models/' });
      const bytes = await (await fetch('/corpus/ocr/ocrmypdf/tests/resources/linn.png')).arrayBuffer();
      // A first read loads the module and models, and times a whole page.
      let started = performance.now();
      await ds.extract(bytes.slice(0));
      const page = (performance.now() - started) / 1000;
      const controller = new AbortController();
      let ocrStarted;
      const steps = new Set();
      const pending = ds.extract(bytes.slice(0), {
        signal: controller.signal,
        onProgress: ({ stage, step }) => {
          if (stage === 'ocr') ocrStarted ??= performance.now();
          if (step) steps.add(step.name);
        },
      });
      while (!ocrStarted) await new Promise((r) => setTimeout(r, 20));
      // Into recognition: past detection, well before the page would end.
      await new Promise((r) => setTimeout(r, page * 400));
      started = performance.now();
      controller.abort();
      const error = await pending.then(() => null, (e) => e.name);
      const stopped = (performance.now() - started) / 1000;
      // The same worker reads the next image (in a fresh OCR worker).
      const small = await (await fetch('/corpus/ocr/tesseract-test/testing/phototest.tif')).arrayBuffer();
      const next = (await ds.extract(small)).pages[0].text;
      return { page, error, stopped, steps: [...steps], next };
    });
    await page.close();
    console.log(`# linn.png, ${build} build: a page takes ${got.page.toFixed(1)} s; aborted at 40% (steps seen: ${got.steps.join(', ')}), stopped after ${got.stopped.toFixed(2)} s`);
    assert.equal(got.error, 'AbortError');
    assert.ok(got.steps.includes('recognition'), `aborted during recognition: ${got.steps}`);
    // Between pages only, it would run to the page's end (the remaining ~60%).
    assert.ok(got.stopped < got.page * 0.3, `stopped after ${got.stopped} s of a ${got.page} s page`);
    assert.match(got.next, /quick brown dog/);
  });
}

// A Flate predictor of zero columns divides by zero in the renderer (hayro-syntax 0.9's
// apply_predictor): natively the panic becomes a page warning; the wasm builds cannot unwind
// and trap. Page 1 draws such an image, page 2 has text; both are read by OCR (ocr: "force").
const TRAP_PDF = 'made/renderer-panic.pdf';
const trapPdf = twoPagePdf('/XObject << /Im1 8 0 R >>', 'q 400 0 0 400 100 200 cm /Im1 Do Q', 'Read after a trap', [
  streamOf('/Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 2 /Columns 0 >>', deflateSync(Buffer.alloc(64, 128))),
]);
writeFileSync(join(MADE, 'renderer-panic.pdf'), trapPdf);
// The same pages the other way round (the page tree's kids swapped in place, so the offsets hold).
const TRAP_LAST_PDF = 'made/renderer-panic-last.pdf';
writeFileSync(join(MADE, 'renderer-panic-last.pdf'), Buffer.from(trapPdf.toString('latin1').replace('/Kids [3 0 R 4 0 R]', '/Kids [4 0 R 3 0 R]'), 'latin1'));

for (const [on, build] of [[() => server, 'ocr-threaded-relaxed'], [() => plain, 'ocr-relaxed']]) {
  test(`a page whose rendering panics keeps its native page with a warning, the pages after it are read by OCR, and so is the next document (${build} build)`, { timeout: 600_000 }, async () => {
    const want = native(TRAP_PDF, ['--ocr', 'force']);
    assert.match(want.pages[0].warnings?.[0]?.message ?? '', /could not be rendered for OCR/, 'the CLI catches the panic');
    const page = await browser.newPage();
    await page.goto(on().url + 'pkg/package.json');
    const got = await page.evaluate(async (path) => {
      const { createDocsift } = await import('/pkg/index.js');
      const ds = await createDocsift({ threads: 2, models: '/models/' });
      const doc = await ds.extract(await (await fetch('/corpus/' + path)).arrayBuffer(), { ocr: 'force' });
      const next = await ds.extract(await (await fetch('/corpus/ocr/tesseract-test/testing/phototest.tif')).arrayBuffer());
      return { pages: doc.pages.map((p) => ({ text: p.text, ocr: p.ocr, warnings: p.warnings })), next: next.pages[0].text };
    }, TRAP_PDF);
    await page.close();
    assert.equal(got.pages.length, 2);
    assert.equal(got.pages[0].ocr, undefined, 'page 1 not read by OCR');
    assert.match(got.pages[0].warnings?.[0]?.message ?? '', /^not read by OCR: the OCR build failed: .*divide by zero/, JSON.stringify(got.pages[0].warnings));
    assert.ok(got.pages[1].ocr, 'page 2 read by OCR in a fresh worker');
    assert.equal(got.pages[1].text, want.pages[1].text);
    assert.match(got.pages[1].text, /Read after a trap/);
    assert.match(got.next, /quick brown dog/, 'the next document is read');
  });
}

// A page that takes seconds to render: 12,000 translucent fills of the whole page (3,000,
// 1.2 s natively at the 200 dpi of a page without images, rendered within the 2 s below in
// the threaded build on a quiet machine). The renderer cannot be stopped, so the
// docsift worker ends the OCR worker of a page that renders longer than RENDER_TIMEOUT_S
// (30 s; 2 s in the patched package), as a looping malformed JBIG2 picture would.
const SLOW_PDF = 'made/slow-render.pdf';
const fills = Array.from({ length: 12000 }, (_, i) => `0.${i % 9 + 1} g 0 0 612 792 re f\n`).join('');
writeFileSync(join(MADE, 'slow-render.pdf'), twoPagePdf('/ExtGState << /G 8 0 R >>', `/G gs\n${fills}1 g BT /F1 36 Tf 72 700 Td (Kept natively) Tj ET`,
  'Read after a slow page', ['<< /Type /ExtGState /ca 0.5 >>']));

for (const [on, build] of [[() => server, 'ocr-threaded-relaxed'], [() => plain, 'ocr-relaxed']]) {
  test(`a page whose rendering outlasts its time keeps its native text with the reason, and the pages after it are read by OCR (${build} build)`, { timeout: 600_000 }, async () => {
    const pkg = patchedPkg(`render-watch-${build}`, {
      'worker.js': [['const RENDER_TIMEOUT_S = 30;', 'const RENDER_TIMEOUT_S = 2;'], ['const RENDER_WATCH_MS = 1000;', 'const RENDER_WATCH_MS = 100;']],
    });
    const page = await browser.newPage();
    await page.goto(on().url + 'pkg/package.json');
    const got = await page.evaluate(async ({ path, pkg }) => {
      const { createDocsift } = await import(pkg + 'index.js');
      const ds = await createDocsift({ threads: 2, models: '/models/' });
      const steps = new Set();
      const doc = await ds.extract(await (await fetch('/corpus/' + path)).arrayBuffer(), { ocr: 'force', onProgress: (p) => p.step && steps.add(p.step.name) });
      const next = await ds.extract(await (await fetch('/corpus/ocr/tesseract-test/testing/phototest.tif')).arrayBuffer());
      return { pages: doc.pages.map((p) => ({ text: p.text, ocr: p.ocr, warnings: p.warnings })), steps: [...steps], next: next.pages[0].text, threaded: ds.info.threaded };
    }, { path: SLOW_PDF, pkg });
    await page.close();
    assert.equal(got.threaded, build.startsWith('ocr-threaded'));
    assert.equal(got.pages.length, 2);
    assert.equal(got.pages[0].ocr, undefined, 'page 1 not read by OCR');
    assert.match(got.pages[0].text, /Kept natively/);
    assert.match(got.pages[0].warnings?.[0]?.message ?? '', /^not read by OCR: the page took more than 2 s to render$/, JSON.stringify(got.pages[0].warnings));
    assert.ok(got.pages[1].ocr, 'page 2 read by OCR in a fresh worker');
    assert.match(got.pages[1].text, /Read after a slow page/);
    assert.ok(got.steps.includes('rendering'), `steps heard: ${got.steps}`);
    assert.match(got.next, /quick brown dog/, 'the next document is read');
  });
}

/**
 * pkg/ served again under /corpus/made/NAME/ with its scripts changed by `patches`
 * ({ file: [[from, to]] }, each `from` found once in the shipped file), the wasm builds as
 * they are: for tests that must make a shipped path fail.
 */
function patchedPkg(name, patches) {
  const dir = join(MADE, name);
  mkdirSync(dir);
  for (const f of readdirSync(join(ROOT, 'pkg')).filter((f) => f.endsWith('.js'))) {
    let source = readFileSync(join(ROOT, 'pkg', f), 'utf8');
    for (const [from, to] of patches[f] ?? []) {
      assert.equal(source.split(from).length, 2, `pkg/${f} has ${JSON.stringify(from)} once`);
      source = source.replace(from, to);
    }
    writeFileSync(join(dir, f), source);
  }
  symlinkSync(join(ROOT, 'pkg', 'wasm'), join(dir, 'wasm'));
  return `/corpus/made/${name}/`;
}

/**
 * `path` (ocr: "force", and `options`) then phototest.tif, read in a page of the isolated
 * server with the package at `pkg`; { hang } where the first gives no answer in two minutes.
 */
async function trapThenNext(pkg, options = {}, path = TRAP_PDF) {
  const page = await browser.newPage();
  await page.goto(server.url + 'pkg/package.json');
  const got = await page.evaluate(async ({ path, pkg, options }) => {
    const { createDocsift } = await import(pkg + 'index.js');
    const ds = await createDocsift({ threads: 2, models: '/models/' });
    const hang = new Promise((resolve) => setTimeout(() => resolve({ hang: 'no answer in 120 s' }), 120_000));
    const doc = ds.extract(await (await fetch('/corpus/' + path)).arrayBuffer(), { ocr: 'force', ...options }).then(
      (d) => ({ pages: d.pages.map((p) => ({ text: p.text, ocr: p.ocr, warnings: p.warnings })) }),
      (e) => ({ error: { name: e.name, code: e.code, message: e.message } }));
    const first = await Promise.race([doc, hang]);
    if (first.hang) return first;
    const next = await ds.extract(await (await fetch('/corpus/ocr/tesseract-test/testing/phototest.tif')).arrayBuffer());
    return { ...first, threaded: ds.info.threaded, next: next.pages[0].text };
  }, { path, pkg, options });
  await page.close();
  assert.equal(got.hang, undefined, got.hang);
  assert.ok(got.threaded, 'the threaded builds run');
  assert.match(got.next, /quick brown dog/, 'the next document is read');
  return got;
}

// The same panic on a pool thread: the threaded OCR build reads two pages side by side on
// its pool (a single page runs on the calling thread). That thread's worker traps, while the
// worker that called into the pool waits on the job for ever; the worker's parent hears of
// the panic (setPanicChannel) and ends it. Which of the two pages failed is not known: they
// are read again one at a time, and only the page at fault keeps its native text.
test('a panic on a pool thread of the threaded OCR build ends its OCR worker instead of hanging: the page at fault (not the one read beside it) keeps its native text with the panic, the others and the next document are read', { timeout: 600_000 }, async () => {
  const want = native(TRAP_LAST_PDF, ['--ocr', 'force']);
  assert.match(want.pages[1].warnings?.[0]?.message ?? '', /could not be rendered for OCR/, 'page 2 is the one at fault');
  const got = await trapThenNext('/pkg/', {}, TRAP_LAST_PDF);
  assert.equal(got.pages.length, 2);
  assert.ok(got.pages[0].ocr, 'page 1 read by OCR');
  assert.equal(got.pages[0].text, want.pages[0].text);
  assert.match(got.pages[0].text, /Read after a trap/);
  assert.equal(got.pages[1].ocr, undefined, 'page 2 not read by OCR');
  assert.match(got.pages[1].warnings?.[0]?.message ?? '', /^not read by OCR: the OCR build failed: .*divide by zero/, JSON.stringify(got.pages[1].warnings));
});

// The docsift worker's threaded build reads a batch of pages on its pool, and one page on
// its own thread. No text path is known to panic, so the patched package runs the threaded
// OCR build there, with the models and ocr: "force", where the renderer panics.
test('a panic in the threaded text build, on its pool or on its own thread, ends the docsift worker instead of hanging or serving on: the extraction fails with the panic, and a fresh worker reads the next document', { timeout: 600_000 }, async () => {
  const models = "await Promise.all(['det', 'rec', 'cls'].map(async (m) => new Uint8Array(await (await fetch(`${models}${m}.onnx`)).arrayBuffer())))";
  const pkg = patchedPkg('text-pages-rendered-by-the-text-build', {
    'worker.js': [
      ["import('./wasm/threaded/docsift_wasm.js')", "import('./wasm/ocr-threaded/docsift_wasm.js')"],
      ['threaded.setPanicChannel(panicChannel);', `threaded.setPanicChannel(panicChannel); threaded.setOcrModels(...${models});`],
      ['new wasm.Doc(bytes, options.password ?? undefined, undefined)', "new wasm.Doc(bytes, options.password ?? undefined, 'force')"],
    ],
  });
  for (const [where, options] of [['pool', {}], ['own thread', { pages: [1] }]]) {
    const got = await trapThenNext(pkg, options);
    assert.equal(got.error?.name, 'DocsiftError', `${where}: ${JSON.stringify(got)}`);
    assert.equal(got.error.code, 'internal');
    assert.match(got.error.message, /^the docsift build failed: .*divide by zero/, where);
  }
});
