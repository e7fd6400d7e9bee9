// Browser tests: headless Debian Chromium driven by playwright-core, against the page and
// the npm package served from 127.0.0.1 (with and without cross-origin isolation).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CORPUS = process.env.DOCSIFT_CORPUS || join(ROOT, '..', 'shared', 'corpus');
const TARGET = process.env.CARGO_TARGET_DIR || join(process.env.HOME, '.cache', 'docsift', 'target');
const CLI = join(TARGET, 'release', 'docsift');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

if (!existsSync(join(CORPUS, 'manifests'))) {
  if (process.env.CI) throw new Error(`shared corpus missing at ${CORPUS}`);
  console.log(`# corpus missing at ${CORPUS}: corpus-based browser tests will fail`);
}

let browser, isolated, plain;

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  isolated = await serve({ port: 0, isolate: true, mounts: { '/corpus/': CORPUS } });
  plain = await serve({ port: 0, isolate: false, mounts: { '/corpus/': CORPUS } });
});

after(async () => {
  await browser?.close();
  await isolated?.close();
  await plain?.close();
});

/** A page on `server` with a docsift instance ready as window.ds. */
async function harness(server, threads) {
  const page = await browser.newPage();
  await page.goto(server.url + 'pkg/package.json');
  await page.evaluate(async (threads) => {
    const { createDocsift } = await import('/pkg/index.js');
    window.ds = await createDocsift(threads ? { threads } : undefined);
  }, threads);
  return page;
}

/** Extracts a corpus file in the page; errors come back as {error: {name, code, message}}. */
function extractIn(page, path, options = {}) {
  return page.evaluate(async ({ path, options }) => {
    const bytes = await (await fetch('/corpus/' + path)).arrayBuffer();
    try {
      return await window.ds.extract(bytes, options);
    } catch (e) {
      return { error: { name: e.name, code: e.code, message: e.message, isError: e instanceof Error } };
    }
  }, { path, options });
}

/** Deep equality with a tolerance for numbers (wasm hands f32 to JS as f64). */
function assertSame(a, b, path = '$') {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Math.abs(a - b) <= 1e-3 * Math.max(1, Math.abs(a)), `${path}: ${a} != ${b}`);
  } else if (Array.isArray(a)) {
    assert.ok(Array.isArray(b) && a.length === b.length, `${path}: array length ${a.length} != ${b?.length}`);
    a.forEach((v, i) => assertSame(v, b[i], `${path}[${i}]`));
  } else if (a && typeof a === 'object') {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined && a[k] !== null).sort();
    const kb = Object.keys(b).filter((k) => b[k] !== undefined && b[k] !== null).sort();
    assert.deepEqual(ka, kb, `${path}: keys`);
    ka.forEach((k) => assertSame(a[k], b[k], `${path}.${k}`));
  } else {
    assert.equal(a, b, path);
  }
}

/** At least ten corpus PDFs covering fonts, CJK, vertical text, rotation and encryption. */
function sameAsNativeFiles() {
  const m = JSON.parse(readFileSync(join(CORPUS, 'manifests', 'pdfjs.json'), 'utf8'));
  const pick = (pred) => m.files.find(pred);
  const chosen = [
    pick((f) => f.file.endsWith('tracemonkey.pdf')),
    pick((f) => f.file.endsWith('basicapi.pdf')),
    pick((f) => f.tags.includes('vertical_writing')),
    pick((f) => f.tags.includes('page_rotate_90')),
    pick((f) => f.tags.includes('cjk_Japan1')),
    pick((f) => f.tags.includes('cjk_Korea1')),
    pick((f) => f.tags.includes('font_type3')),
    pick((f) => f.tags.includes('font_cid_type0_cff')),
    pick((f) => f.password && f.tags.includes('encrypted_aes128')),
    pick((f) => f.password && f.tags.includes('encrypted_aes256')),
  ].map((f) => ({ path: 'pdfjs/' + f.file, password: f.password }));
  chosen.push({ path: 'pdfplumber/tests/pdfs/pdffill-demo.pdf' }, { path: 'pdfplumber/tests/pdfs/scotus-transcript-p1.pdf' });
  return chosen;
}

describe('npm package', () => {
  test('extraction in the browser gives the same JSON as the native CLI', async () => {
    const page = await harness(isolated);
    for (const { path, password } of sameAsNativeFiles()) {
      const args = ['extract', '--format', 'json', join(CORPUS, path)];
      if (password) args.push('--password', password);
      const native = JSON.parse(execFileSync(CLI, args, { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString());
      const inBrowser = await extractIn(page, path, { password });
      assert.ok(!inBrowser.error, `${path}: ${JSON.stringify(inBrowser.error)}`);
      assertSame(inBrowser, native, path);
    }
    await page.close();
  });

  test('the threaded build runs a pool when the page is cross-origin isolated', async () => {
    const page = await harness(isolated, 4);
    const info = await page.evaluate(() => window.ds.info);
    assert.equal(info.isolated, true);
    assert.equal(info.threaded, true);
    assert.ok(info.threads > 1, `pool of ${info.threads}`);
    const doc = await extractIn(page, 'bench/freeculture.pdf', { pages: [1, 2, 3, 4, 5, 6, 7, 8] });
    assert.equal(doc.pages.length, 8);
    assert.deepEqual(doc.pages.map((p) => p.number), [1, 2, 3, 4, 5, 6, 7, 8]);
    await page.close();
  });

  test('the single-threaded fallback runs when the page is not isolated', async () => {
    const page = await harness(plain, 4);
    const info = await page.evaluate(() => window.ds.info);
    assert.equal(info.isolated, false);
    assert.equal(info.threaded, false);
    const doc = await extractIn(page, 'pdfplumber/tests/pdfs/pdffill-demo.pdf', { pages: [1] });
    assert.match(doc.pages[0].text, /^First Page Previous Page/);
    await page.close();
  });

  // Jobs interleave in the worker where it yields between page batches; each must resume.
  for (const [name, server] of [['threaded', () => isolated], ['single-threaded', () => plain]]) {
    test(`extractions started together all finish (${name} build)`, async () => {
      const page = await harness(server());
      const got = await page.evaluate(async () => {
        const bytes = await (await fetch('/corpus/bench/freeculture.pdf')).arrayBuffer();
        const timeout = new Promise((resolve) => setTimeout(() => resolve('stuck'), 20_000));
        const all = Promise.all([0, 1, 2].map(() => window.ds.extract(bytes.slice(0)).then((d) => d.pages.length)));
        return Promise.race([all, timeout]);
      });
      assert.deepEqual(got, [352, 352, 352]);
      await page.close();
    });
  }

  test('abort stops the work; a malformed file gives a readable error and the worker keeps working', async () => {
    const page = await harness(isolated);
    // Aborted at the first batch's progress. The abort is written into the threaded build's
    // job words, so the batch running when it lands stops at its next page; through the
    // message alone the worker mostly sees it only at its yield after the second batch (five
    // tries in six when measured). The main thread may be late under load: on CI one try in
    // three saw the second batch (about 30 ms) end first, so two tries of three must stop
    // within it.
    const tries = await page.evaluate(async () => {
      const bytes = await (await fetch('/corpus/bench/freeculture.pdf')).arrayBuffer();
      const out = [];
      for (let i = 0; i < 3; i++) {
        const ctl = new AbortController();
        const seen = [];
        try {
          await window.ds.extract(bytes.slice(0), { signal: ctl.signal, onProgress: (p) => { seen.push(p.done); ctl.abort(); } });
          out.push({ finished: true, seen });
        } catch (e) {
          out.push({ name: e.name, seen });
        }
      }
      // Aborted while a Blob is still being read, before the request reaches the worker.
      const ctl = new AbortController();
      const early = window.ds.extract(new Blob([bytes]), { signal: ctl.signal });
      ctl.abort();
      out.push(await early.then(() => ({ finished: true, seen: [] }), (e) => ({ name: e.name, seen: [] })));
      return out;
    });
    for (const aborted of tries) assert.equal(aborted.name, 'AbortError', JSON.stringify(aborted));
    const batches = tries.slice(0, 3).map((t) => t.seen);
    const stopped = batches.filter((seen) => seen.length === 1).length;
    assert.ok(stopped >= 2, `batches done before each abort: ${JSON.stringify(batches)}`);
    const bad = await page.evaluate(async () => {
      try {
        await window.ds.extract(new TextEncoder().encode('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>'));
        return null;
      } catch (e) {
        return { name: e.name, code: e.code, message: e.message, isError: e instanceof Error };
      }
    });
    assert.equal(bad.name, 'MalformedPdfError');
    assert.ok(bad.isError && bad.message.length > 5);
    const locked = await extractIn(page, 'pdfjs/test/pdfs/issue3371.pdf');
    assert.equal(locked.error.name, 'PasswordRequiredError');
    assert.equal(locked.error.code, 'password_required');
    const ok = await extractIn(page, 'pdfplumber/tests/pdfs/pdffill-demo.pdf', { pages: [1] });
    assert.equal(ok.pages.length, 1);
    await page.close();
  });
});

describe('web pages and text files', () => {
  test('ds.extractHtml gives the same JSON as `docsift html --format json`', async () => {
    const page = await harness(isolated);
    const url = 'http://fakehost/test/page.html';
    const files = ['001', 'wikipedia', 'rtl-1', 'qq', 'nytimes-2', 'lazy-image-1']
      .map((id) => `readability/test/test-pages/${id}/source.html`)
      .concat(['chardet/tests/KOI8-R/_chromium_KOI8-R_with_no_encoding_specified.html']);
    const m = JSON.parse(readFileSync(join(CORPUS, 'manifests', 'chardet.json'), 'utf8'));
    files.push('chardet/' + m.files.find((f) => f.encoding === 'shift_jis').file);
    for (const path of files) {
      const native = JSON.parse(execFileSync(CLI, ['html', '--format', 'json', '--url', url, join(CORPUS, path)], { maxBuffer: 1 << 30 }).toString());
      const inBrowser = await page.evaluate(async ({ path, url }) => {
        const bytes = await (await fetch('/corpus/' + path)).arrayBuffer();
        return window.ds.extractHtml(new Uint8Array(bytes), { url });
      }, { path, url });
      assertSame(inBrowser, native, path);
      assert.ok(inBrowser.text.length > 0, path);
    }
    const r = await page.evaluate(() => window.ds.extractHtml(new TextEncoder().encode('<p>x</p>\u0000'.repeat(3))).catch((e) => ({ name: e.name })));
    assert.ok(r.schema === 'docsift-html/1' || r.name, 'a result or a typed error');
    await page.close();
  });
});

describe('near-duplicates', () => {
  test('ds.dedup groups copies, reads PDFs, and its index carries over', async () => {
    const page = await harness(isolated);
    const r = await page.evaluate(async () => {
      const base = 'the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat near the door of the old house by the river '.repeat(3);
      const first = await window.ds.dedup([
        { id: 'a', text: base },
        { id: 'b', text: base.toUpperCase() + '!' },
        { id: 'c', text: 'an entirely different text about the weather and tomorrow morning meetings in the city hall '.repeat(3) },
      ]);
      const pdf = await (await fetch('/corpus/pdfplumber/tests/pdfs/pdffill-demo.pdf')).arrayBuffer();
      const pdfs = await window.ds.dedup([{ id: 'p1', input: pdf }, { id: 'p2', input: new Uint8Array(pdf) }]);
      const later = await window.ds.dedup([{ id: 'd', text: base.replace('fox', 'wolf') }], { index: first.index });
      return { first: first.groups, size: first.size, isBytes: first.index instanceof Uint8Array, pdfs: pdfs.groups, later: later.groups };
    });
    assert.equal(r.size, 3);
    assert.ok(r.isBytes);
    assert.deepEqual(r.first.map((g) => g.members), [['a', 'b']]);
    assert.equal(r.first[0].pairs[0].method, 'exact');
    assert.deepEqual(r.pdfs.map((g) => g.members), [['p1', 'p2']]);
    assert.deepEqual(r.later[0].members, ['a', 'b', 'd']);
    await page.close();
  });
});

describe('the page', () => {
  test('drop a file, see text and boxes, download JSON; no request leaves the origin', async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const requests = [];
    page.on('request', (r) => requests.push({ url: r.url(), method: r.method() }));
    await page.goto(isolated.url);
    await page.waitForSelector('body[data-ready="true"]');
    // The bundled sample loads on first open.
    await page.waitForSelector('[data-file="sample.pdf"][data-state="done"]');
    assert.match(await page.textContent('[data-file="sample.pdf"] pre'), /docsift sample document/);
    // A file through the input, as a drop would give it.
    const pdf = join(CORPUS, 'pdfplumber/tests/pdfs/pdffill-demo.pdf');
    await page.setInputFiles('#files', pdf);
    const card = '[data-file="pdffill-demo.pdf"]';
    await page.waitForSelector(`${card}[data-state="done"]`);
    assert.match(await page.textContent(`${card} .page pre`), /PDFill: PDF Drawing/);
    assert.ok((await page.locator(`${card} .page svg rect.word`).count()) > 20);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${card} button.json`)]);
    const doc = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.equal(doc.schema, 'docsift/1');
    assert.ok(doc.pages.length >= 1);
    // A page read in part says why, above its text.
    await page.setInputFiles('#files', join(CORPUS, 'pdfjs/test/pdfs/poppler-90-0-fuzzed.pdf'));
    const fuzzed = '[data-file="poppler-90-0-fuzzed.pdf"]';
    await page.waitForSelector(`${fuzzed}[data-state="done"]`);
    assert.match(await page.textContent(`${fuzzed} .page[data-page="1"] .warnings`), /a content stream could not be decoded/);
    // An encrypted file prompts for its password.
    await page.setInputFiles('#files', join(CORPUS, 'pdfjs/test/pdfs/issue3371.pdf'));
    const locked = '[data-file="issue3371.pdf"]';
    await page.waitForSelector(`${locked}[data-state="error"] form.password:not([hidden])`);
    await page.fill(`${locked} form.password input`, 'ELXRTQWS');
    await page.click(`${locked} form.password button`);
    await page.waitForSelector(`${locked}[data-state="done"]`);
    // Two copies under other names: the duplicates section groups them with the first.
    const pdfBytes = readFileSync(pdf);
    await page.check('#keep-index');
    await page.setInputFiles('#files', [
      { name: 'copy-1.pdf', mimeType: 'application/pdf', buffer: pdfBytes },
      { name: 'copy-2.pdf', mimeType: 'application/pdf', buffer: pdfBytes },
    ]);
    for (const name of ['copy-1.pdf', 'copy-2.pdf']) await page.waitForSelector(`[data-file="${name}"][data-state="done"]`);
    await page.waitForFunction(() => /copy-1\.pdf[^]*copy-2\.pdf|copy-2\.pdf[^]*copy-1\.pdf/.test(document.querySelector('#dup-groups')?.textContent));
    assert.match(await page.textContent('#dup-groups'), /pdffill-demo\.pdf ≈ (copy-1\.pdf ≈ copy-2\.pdf|copy-2\.pdf ≈ copy-1\.pdf)/);
    // The kept index survives a reload: a later copy is matched against the earlier files.
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.setInputFiles('#files', [{ name: 'copy-3.pdf', mimeType: 'application/pdf', buffer: pdfBytes }]);
    await page.waitForFunction(() => document.querySelector('#dup-groups')?.textContent.includes('copy-3.pdf'));
    assert.match(await page.textContent('#dup-groups'), /copy-1\.pdf[^]*copy-3\.pdf/);
    // A web page: its article in a frame that may load nothing, its text, and Markdown.
    await page.setInputFiles('#files', join(CORPUS, 'readability/test/test-pages/keep-images/source.html'));
    const web = '[data-file="source.html"]';
    await page.waitForSelector(`${web}[data-state="done"]`);
    assert.ok((await page.textContent(`${web} .article h3`)).length > 5);
    assert.ok((await page.textContent(`${web} .article pre`)).length > 500);
    const [mdDownload] = await Promise.all([page.waitForEvent('download'), page.click(`${web} button.md`)]);
    assert.match(readFileSync(await mdDownload.path(), 'utf8'), /\S{20}/);
    // With "layout regions" ticked, the OCR module and the layout model get ready at once,
    // and the layout model's blocks are drawn over the page.
    await page.check('#layout');
    await page.waitForSelector('#ocr-state[data-state="ready"]', { timeout: 120_000 });
    assert.equal(await page.textContent('#ocr-state'), '(layout model ready, on the CPU)');
    await page.setInputFiles('#files', [{ name: 'with-layout.pdf', mimeType: 'application/pdf', buffer: pdfBytes }]);
    await page.waitForSelector('[data-file="with-layout.pdf"][data-state="done"]', { timeout: 120_000 });
    assert.ok((await page.locator('[data-file="with-layout.pdf"] .page svg rect.block').count()) > 0, 'layout blocks drawn');
    // A scan of print the models cannot read (tabula's mednine.pdf, an Arabic table, as a
    // picture): its page is warned of, and its words read unsurely are drawn apart.
    const pictures = mkdtempSync(join(tmpdir(), 'docsift-page-'));
    const arabic = join(pictures, 'mednine.png');
    execFileSync(CLI, ['render', join(CORPUS, 'tabula-java/src/test/resources/technology/tabula/mednine.pdf'), '--page', '1', '--dpi', '150', '-o', arabic]);
    // Chromium reads a file set by path only when the page reads it: pass the bytes.
    await page.setInputFiles('#files', [{ name: 'mednine.png', mimeType: 'image/png', buffer: readFileSync(arabic) }]);
    rmSync(pictures, { recursive: true });
    const scanned = '[data-file="mednine.png"]';
    await page.waitForSelector(`${scanned}[data-state="done"]`, { timeout: 120_000 });
    assert.match(await page.textContent(`${scanned} .page[data-page="1"] .warnings`), /letters with a mean confidence of 0\.\d\d: they are likely misread/);
    const unsure = await page.locator(`${scanned} .page svg rect.word.unsure`).count();
    assert.ok(unsure > 10, `${unsure} words drawn as read unsurely`);
    assert.match(await page.textContent(`${scanned} .page h3`), new RegExp(`, ${unsure} read unsurely$`));
    assert.match(await page.locator(`${scanned} .page svg rect.word.unsure title`).first().textContent(), /\(read by OCR with confidence 0\.\d\d\)$/);
    // A scan being read by OCR stops mid-page at the card's Stop button.
    await page.setInputFiles('#files', join(CORPUS, 'ocr/ocrmypdf/tests/resources/linn.png'));
    const scan = '[data-file="linn.png"]';
    await page.waitForFunction((sel) => /reading by OCR.*recognition/.test(document.querySelector(`${sel} .status`)?.textContent), scan, { timeout: 120_000 });
    await page.click(`${scan} button.stop`);
    // A whole page takes 15 s or more here.
    await page.waitForSelector(`${scan}[data-state="stopped"]`, { timeout: 5_000 });
    assert.ok(await page.locator(`${scan} button.stop`).isHidden());
    // Japanese in a scan (pdf.js's vertical.pdf as a picture): the box reloads the page
    // reading the "cjk" script, whose model reads kana, every page with it (the default one
    // reads "市即方元书", and reads such a page again with it).
    await page.check('#cjk');
    await page.waitForURL(/\?script=cjk$/);
    await page.waitForSelector('body[data-ready="true"]');
    assert.ok(await page.isChecked('#cjk'));
    const vertical = join(mkdtempSync(join(tmpdir(), 'docsift-page-')), 'vertical.png');
    execFileSync(CLI, ['render', join(CORPUS, 'pdfjs/test/pdfs/vertical.pdf'), '--page', '1', '--dpi', '150', '-o', vertical]);
    await page.setInputFiles('#files', [{ name: 'vertical.png', mimeType: 'image/png', buffer: readFileSync(vertical) }]);
    rmSync(dirname(vertical), { recursive: true });
    await page.waitForSelector('[data-file="vertical.png"][data-state="done"]', { timeout: 120_000 });
    assert.match(await page.textContent('[data-file="vertical.png"] .page pre'), /あいうえお/);
    // Privacy: only same-origin GETs of the page's own files.
    const origin = new URL(isolated.url).origin;
    const foreign = requests.filter((r) => new URL(r.url).origin !== origin && !r.url.startsWith('blob:'));
    assert.deepEqual(foreign, [], 'requests to other origins');
    const notGet = requests.filter((r) => r.method !== 'GET');
    assert.deepEqual(notGet, [], 'non-GET requests');
    const paths = requests.filter((r) => !r.url.startsWith('blob:')).map((r) => new URL(r.url).pathname);
    for (const p of paths) assert.ok(p === '/' || /^\/(pkg\/)?[\w./-]+$/.test(p) && !p.startsWith('/corpus/'), `unexpected request ${p}`);
    await context.close();
  });
});

describe('the page server', () => {
  // Chromium keeps the code V8 compiled for a wasm build with the build's cached response:
  // `no-store` threw it away, so every visit compiled the OCR build again.
  test('browsers may keep what it serves but must ask each time: a file unchanged is answered 304, a rebuilt one in full', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docsift-serve-'));
    const server = await serve({ port: 0, mounts: { '/made/': dir } });
    try {
      writeFileSync(join(dir, 'build.wasm'), 'one');
      const get = (etag) => fetch(server.url + 'made/build.wasm', { headers: etag ? { 'If-None-Match': etag } : {} });
      const first = await get();
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('cache-control'), 'no-cache');
      const etag = first.headers.get('etag');
      assert.ok(etag, 'an ETag to ask with');
      const again = await get(etag);
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
      writeFileSync(join(dir, 'build.wasm'), 'two!');
      const rebuilt = await get(etag);
      assert.equal(rebuilt.status, 200);
      assert.equal(await rebuilt.text(), 'two!');
      assert.notEqual(rebuilt.headers.get('etag'), etag);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
