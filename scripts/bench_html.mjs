// Milliseconds per page for main-content extraction over Readability's 91 test pages:
// docsift natively (`docsift bench`, one thread) and in headless Chromium (its worker),
// side by side with @mozilla/readability + jsdom in Node and Readability on DOMParser in
// the same Chromium. Every engine also computes isProbablyReaderable, as docsift does.
// Usage: npm install --no-save @mozilla/readability jsdom && node scripts/bench_html.mjs [--repeat 5]
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const CORPUS = process.env.DOCSIFT_CORPUS || join(ROOT, '..', 'shared', 'corpus');
const TARGET = process.env.CARGO_TARGET_DIR || join(process.env.HOME, '.cache', 'docsift', 'target');
const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 5;
const URL_ = 'http://fakehost/test/page.html';
const PAGES = join(CORPUS, 'readability/test/test-pages');
const files = readdirSync(PAGES).sort().map((d) => join('readability/test/test-pages', d, 'source.html'));
const require = createRequire(join(ROOT, 'package.json'));
const { Readability, isProbablyReaderable } = require('@mozilla/readability');
const { JSDOM, VirtualConsole } = require('jsdom');
// jsdom reports every stylesheet it cannot parse; the timing does not need that.
const quiet = new VirtualConsole();

const best = async (run) => {
  await run(); // warm-up: JIT, caches
  let min = Infinity;
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    await run();
    min = Math.min(min, performance.now() - t);
  }
  return min / files.length;
};

// docsift natively: best of `repeat` per page, summed (ms per page over the set).
const out = execFileSync(join(TARGET, 'release', 'docsift'), ['bench', '--repeat', String(repeat), ...files.map((f) => join(CORPUS, f))], { env: { ...process.env, RAYON_NUM_THREADS: '1' } }).toString();
const total = Number(out.split('\n').find((l) => l.startsWith('TOTAL')).split('\t')[2]);
const nativeMs = (total * 1000) / files.length;

// Readability.js + jsdom in Node, on text (jsdom gets the decoded string).
const sources = files.map((f) => readFileSync(join(CORPUS, f), 'utf8'));
const jsdomMs = await best(() => {
  for (const html of sources) {
    const { window } = new JSDOM(html, { url: URL_, virtualConsole: quiet });
    isProbablyReaderable(window.document);
    new Readability(window.document, { classesToPreserve: ['caption'] }).parse();
    window.close();
  }
});

// The browser: docsift's worker (bytes in, docsift-html/1 out) vs Readability on DOMParser.
const server = await serve({ port: 0, isolate: true, mounts: { '/corpus/': CORPUS } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const page = await browser.newPage();
await page.goto(server.url + 'pkg/package.json');
await page.addScriptTag({ content: readFileSync(require.resolve('@mozilla/readability/Readability.js'), 'utf8') + readFileSync(require.resolve('@mozilla/readability/Readability-readerable.js'), 'utf8').replace(/module\.exports[^;]*;?/g, '') });
const browserMs = await page.evaluate(async ({ files, repeat, url }) => {
  const { createDocsift } = await import('/pkg/index.js');
  const ds = await createDocsift({ threads: 1 });
  const buffers = await Promise.all(files.map(async (f) => new Uint8Array(await (await fetch('/corpus/' + f)).arrayBuffer())));
  const texts = buffers.map((b) => new TextDecoder().decode(b));
  const time = async (run) => {
    await run();
    let min = Infinity;
    for (let i = 0; i < repeat; i++) {
      const t = performance.now();
      await run();
      min = Math.min(min, performance.now() - t);
    }
    return min / files.length;
  };
  const docsift = await time(async () => {
    for (const b of buffers) await ds.extractHtml(b, { url });
  });
  const readability = await time(async () => {
    for (const html of texts) {
      const doc = new DOMParser().parseFromString(html, 'text/html');
      isProbablyReaderable(doc);
      new Readability(doc, { classesToPreserve: ['caption'] }).parse();
    }
  });
  ds.terminate();
  return { docsift, readability };
}, { files, repeat, url: URL_ });
await browser.close();
await server.close();

const f = (x) => x.toFixed(2);
console.log(`pages: ${files.length}, best of ${repeat} runs, ms per page`);
console.log(`native:  docsift ${f(nativeMs)}  vs Readability.js + jsdom (Node) ${f(jsdomMs)}  -> ${(jsdomMs / nativeMs).toFixed(1)}x`);
console.log(`browser: docsift ${f(browserMs.docsift)}  vs Readability.js on DOMParser ${f(browserMs.readability)}  -> ${(browserMs.readability / browserMs.docsift).toFixed(1)}x`);
