// Pages per second in the same headless Chromium: docsift (threaded build on an isolated
// page, single-threaded build on a plain page) vs pdf.js (getTextContent on every page).
// Each engine runs in its worker, in a tab of its own; a run opens every file and extracts every
// page, and the engines take turns run by run (best of --repeat each).
// Usage: npm install --no-save pdfjs-dist && node scripts/bench_browser.mjs [--repeat 3]
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const CORPUS = process.env.DOCSIFT_CORPUS || join(ROOT, '..', 'shared', 'corpus');
const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 3;
const SETS = {
  freeculture: ['bench/freeculture.pdf'],
  pdfplumber: readdirSync(join(CORPUS, 'pdfplumber/tests/pdfs')).filter((f) => f.endsWith('.pdf')).map((f) => 'pdfplumber/tests/pdfs/' + f),
};
const mounts = { '/corpus/': CORPUS, '/pdfjs/': join(ROOT, 'node_modules', 'pdfjs-dist') };
const isolated = await serve({ port: 0, isolate: true, mounts });
const plain = await serve({ port: 0, isolate: false, mounts });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// Opens one engine in its own tab, with its files loaded and one warm-up run done
// (compile, caches); `globalThis.extractAll` then reads every file once.
async function open(server, engine, files) {
  const page = await browser.newPage();
  await page.goto(server.url + 'pkg/package.json');
  const info = await page.evaluate(async ({ engine, files }) => {
    const buffers = await Promise.all(files.map(async (f) => (await fetch('/corpus/' + f)).arrayBuffer()));
    let extractAll;
    if (engine === 'pdfjs') {
      const pdfjs = await import('/pdfjs/build/pdf.mjs');
      pdfjs.GlobalWorkerOptions.workerSrc = '/pdfjs/build/pdf.worker.mjs';
      const worker = new pdfjs.PDFWorker();
      extractAll = async () => {
        let pages = 0;
        for (const buf of buffers) {
          let doc;
          try {
            doc = await pdfjs.getDocument({ data: new Uint8Array(buf.slice(0)), worker, cMapUrl: '/pdfjs/cmaps/', standardFontDataUrl: '/pdfjs/standard_fonts/' }).promise;
          } catch {
            continue;
          }
          for (let i = 1; i <= doc.numPages; i++) {
            const p = await doc.getPage(i);
            await p.getTextContent();
            pages++;
          }
          await doc.destroy();
        }
        return pages;
      };
    } else {
      const { createDocsift } = await import('/pkg/index.js');
      const ds = await createDocsift({ threads: engine === 'docsift-threaded' ? navigator.hardwareConcurrency : 1 });
      extractAll = async () => {
        let pages = 0;
        for (const buf of buffers) {
          try {
            pages += (await ds.extract(buf.slice(0), { ocr: 'off' })).pages.length;
          } catch {}
        }
        return pages;
      };
      extractAll.info = ds.info;
    }
    await extractAll();
    globalThis.extractAll = extractAll;
    return extractAll.info;
  }, { engine, files });
  return { page, info };
}

/** One timed run of an opened engine: pages read and milliseconds. */
const timed = (page) =>
  page.evaluate(async () => {
    const t = performance.now();
    const pages = await globalThis.extractAll();
    return { pages, ms: performance.now() - t };
  });

console.log(`engine\tset\tpages\tms\tpages/s`);
for (const [name, files] of Object.entries(SETS)) {
  const engines = [['docsift-threaded', isolated], ['docsift-single', plain], ['pdfjs', plain]];
  const opened = [];
  for (const [engine, server] of engines) opened.push({ engine, ...(await open(server, engine, files)), best: { ms: Infinity } });
  // Engines take turns, so a slow spell of this shared machine falls on all of them alike.
  for (let r = 0; r < repeat; r++) {
    for (const e of opened) {
      const t = await timed(e.page);
      if (t.ms < e.best.ms) e.best = t;
    }
  }
  const rates = {};
  for (const { engine, page, info, best } of opened) {
    await page.close();
    rates[engine] = (best.pages / best.ms) * 1000;
    console.log(`${engine}\t${name}\t${best.pages}\t${best.ms.toFixed(0)}\t${rates[engine].toFixed(1)}${info ? `\t${JSON.stringify(info)}` : ''}`);
  }
  console.log(`ratio\t${name}\tthreaded/pdf.js ${(rates['docsift-threaded'] / rates.pdfjs).toFixed(2)}x, single/pdf.js ${(rates['docsift-single'] / rates.pdfjs).toFixed(2)}x`);
}
await browser.close();
await isolated.close();
await plain.close();
