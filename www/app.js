// The drag-and-drop page, built only on the docsift package's public API.
import { createDocsift, PasswordRequiredError } from './pkg/index.js';

const SVG = 'http://www.w3.org/2000/svg';
const results = document.getElementById('results');
const engine = document.getElementById('engine');
// What OCR reads is fixed when docsift starts: the box below reloads the page with it.
const script = new URLSearchParams(location.search).get('script') === 'cjk' ? 'cjk' : 'all';
const ds = await createDocsift({ script });
engine.textContent = ds.info.threaded ? `threaded build, ${ds.info.threads} threads` : 'single-threaded build (page not cross-origin isolated)';
document.body.dataset.ready = 'true';

function download(name, type, data) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const docText = (doc) => doc.pages.map((p) => p.text).join('\f\n');

// Near-duplicates across dropped files, optionally against an index kept in IndexedDB.
const extracted = new Map();
const INDEX_KEY = 'dedup-index';

function idb(mode, run) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open('docsift', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('kv');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction('kv', mode);
      const req = run(tx.objectStore('kv'));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
    };
  });
}

const keepBox = document.getElementById('keep-index');
keepBox.checked = localStorage.getItem('docsift-keep-index') === '1';
// The index kept from earlier visits: this visit's files are compared against it.
let keptIndex = keepBox.checked ? await idb('readonly', (s) => s.get(INDEX_KEY)).catch(() => undefined) : undefined;

// Files finish in any order: refreshes run one after another so an older, smaller result never
// replaces a newer one.
let duplicatesRun = Promise.resolve();
function refreshDuplicates() {
  const run = duplicatesRun.then(showDuplicates);
  duplicatesRun = run.catch(() => {});
  return run;
}

async function showDuplicates() {
  const section = document.getElementById('dups');
  if (extracted.size < 2 && !keptIndex) return;
  section.hidden = false;
  const docs = [...extracted].map(([id, text]) => ({ id, text }));
  const result = await ds.dedup(docs, { index: keptIndex });
  const list = document.getElementById('dup-groups');
  list.replaceChildren(...result.groups.map((g) => {
    const li = document.createElement('li');
    li.textContent = g.members.join(' ≈ ');
    for (const p of g.pairs) {
      const d = Object.assign(document.createElement('div'), { className: 'pair muted', textContent: `${p.a} ~ ${p.b}: ${p.score.toFixed(3)} (${p.method})` });
      li.append(d);
    }
    return li;
  }));
  document.getElementById('dup-status').textContent =
    `${result.groups.length} group${result.groups.length === 1 ? '' : 's'} among ${result.size} documents`;
  section.dataset.groups = result.groups.length;
  if (keepBox.checked) await idb('readwrite', (s) => s.put(result.index, INDEX_KEY));
}

keepBox.addEventListener('change', async () => {
  localStorage.setItem('docsift-keep-index', keepBox.checked ? '1' : '0');
  if (keepBox.checked) await refreshDuplicates();
});
document.getElementById('forget-index').addEventListener('click', async () => {
  await idb('readwrite', (s) => s.delete(INDEX_KEY));
  keptIndex = undefined;
  await refreshDuplicates();
});

/** An OCR'd word read less surely than crates/ocr's UNSURE_WORD_CONFIDENCE is most likely misread. */
const UNSURE_WORD_CONFIDENCE = 0.5;
const isUnsure = (w) => w.confidence < UNSURE_WORD_CONFIDENCE;

/** The page outline with its words (and layout regions, when found) drawn as boxes at their coordinates. */
function pageFigure(page) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${page.width} ${page.height}`);
  for (const s of page.segments) {
    const l = document.createElementNS(SVG, 'line');
    Object.entries({ x1: s.x0, y1: s.y0, x2: s.x1, y2: s.y1, class: 'rule' }).forEach(([k, v]) => l.setAttribute(k, v));
    svg.append(l);
  }
  for (const b of page.blocks || []) {
    const r = document.createElementNS(SVG, 'rect');
    Object.entries({ x: b.bbox.x0, y: b.bbox.top, width: b.bbox.x1 - b.bbox.x0, height: b.bbox.bottom - b.bbox.top, class: `block ${b.kind}` }).forEach(([k, v]) => r.setAttribute(k, v));
    const title = document.createElementNS(SVG, 'title');
    title.textContent = b.kind;
    r.append(title);
    svg.append(r);
  }
  for (const w of page.words) {
    const r = document.createElementNS(SVG, 'rect');
    const b = w.bbox;
    const unsure = isUnsure(w);
    Object.entries({ x: b.x0, y: b.top, width: b.x1 - b.x0, height: b.bottom - b.top, class: unsure ? 'word unsure' : 'word' }).forEach(([k, v]) => r.setAttribute(k, v));
    const title = document.createElementNS(SVG, 'title');
    title.textContent = w.confidence === undefined ? w.text : `${w.text} (read by OCR with confidence ${w.confidence.toFixed(2)})`;
    r.append(title);
    svg.append(r);
  }
  return svg;
}

/** A list of warnings' messages (a page that could not be read whole, OCR read unsurely). */
function warningList(warnings) {
  const ul = Object.assign(document.createElement('ul'), { className: 'warnings' });
  ul.append(...warnings.map((w) => Object.assign(document.createElement('li'), { textContent: w.message })));
  return ul;
}

function render(card, doc) {
  const pages = card.querySelector('.pages');
  pages.replaceChildren();
  if (doc.warnings?.length) pages.append(warningList(doc.warnings));
  for (const p of doc.pages) {
    const div = Object.assign(document.createElement('div'), { className: 'page' });
    div.dataset.page = p.number;
    const unsure = p.words.filter(isUnsure).length;
    const h = Object.assign(document.createElement('h3'), { textContent: `Page ${p.number} — ${p.words.length} words${unsure ? `, ${unsure} read unsurely` : ''}` });
    const pre = Object.assign(document.createElement('pre'), { textContent: p.text });
    div.append(h);
    if (p.warnings?.length) div.append(warningList(p.warnings));
    div.append(pageFigure(p), pre);
    pages.append(div);
  }
  const actions = card.querySelector('.actions');
  actions.hidden = false;
  const base = card.querySelector('.name').textContent.replace(/\.[^.]+$/, '');
  actions.querySelector('.copy').onclick = () => navigator.clipboard?.writeText(docText(doc));
  actions.querySelector('.json').onclick = () => download(`${base}.json`, 'application/json', JSON.stringify(doc));
  actions.querySelector('.text').onclick = () => download(`${base}.txt`, 'text/plain', docText(doc));
}

/** Web pages and text files go to the Readability path; everything else is a document. */
const isWebText = (file) => /\.(html?|xhtml|txt)$/i.test(file.name) || /^text\/(html|plain)/.test(file.type);

// The article is shown in a sandboxed frame whose policy forbids every load: its images
// and styles point at other sites, and this page must not contact them.
const FRAME_POLICY = "default-src 'none'; style-src 'unsafe-inline'";
const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
/** Attributes that make a browser fetch something. */
const FETCHING_ATTRS = ['src', 'srcset', 'poster', 'background', 'data', 'action', 'formaction', 'ping'];

/**
 * The article without anything that could fetch: the frame's policy already forbids loads,
 * but a document's preload scanner may start image requests before a policy in the
 * document is read, so nothing is left to fetch in the first place. DOMParser documents
 * are inert: parsing here loads nothing.
 */
function inertHtml(html) {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const el of doc.querySelectorAll('script, link, iframe, frame, object, embed, base, meta')) el.remove();
  for (const el of doc.body.querySelectorAll('*')) {
    for (const name of FETCHING_ATTRS) el.removeAttribute(name);
    if (/url\s*\(/i.test(el.getAttribute('style') || '')) el.removeAttribute('style');
  }
  return doc.body.innerHTML;
}

function renderArticle(card, doc) {
  const pages = card.querySelector('.pages');
  const box = Object.assign(document.createElement('div'), { className: 'article' });
  const title = Object.assign(document.createElement('h3'), { textContent: doc.title || '(untitled)' });
  const facts = [doc.byline, doc.siteName, doc.publishedTime, doc.lang && `lang ${doc.lang}`, `encoding ${doc.encoding} (${doc.encodingSource})`,
    doc.article ? (doc.readerable ? 'readerable' : 'article found, low reader score') : 'no article: whole page'].filter(Boolean);
  const meta = Object.assign(document.createElement('p'), { className: 'meta muted', textContent: facts.join(' · ') });
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', '');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  // Embedded enforcement: the policy holds from the frame's first byte (where supported).
  frame.setAttribute('csp', FRAME_POLICY);
  frame.srcdoc = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${FRAME_POLICY}">`
    + `<style>body{font:16px/1.5 system-ui,sans-serif;margin:1rem;max-width:42rem}img{display:none}</style>`
    + `<h1>${escapeHtml(doc.title || '')}</h1>${inertHtml(doc.content)}`;
  const text = Object.assign(document.createElement('pre'), { textContent: doc.text });
  const views = Object.assign(document.createElement('div'), { className: 'views' });
  views.append(frame, text);
  box.append(title, meta, views);
  pages.replaceChildren(box);
  const actions = card.querySelector('.actions');
  actions.hidden = false;
  const base = card.querySelector('.name').textContent.replace(/\.[^.]+$/, '');
  actions.querySelector('.copy').onclick = () => navigator.clipboard?.writeText(doc.text);
  actions.querySelector('.json').onclick = () => download(`${base}.json`, 'application/json', JSON.stringify(doc));
  actions.querySelector('.text').onclick = () => download(`${base}.txt`, 'text/plain', doc.text);
  const md = actions.querySelector('.md');
  md.hidden = false;
  md.onclick = () => download(`${base}.md`, 'text/markdown', doc.markdown);
}

async function process(file, password) {
  let card = results.querySelector(`[data-file="${CSS.escape(file.name)}"]`);
  if (!card) {
    card = document.getElementById('file-card').content.firstElementChild.cloneNode(true);
    card.dataset.file = file.name;
    card.querySelector('.name').textContent = file.name;
    results.append(card);
  }
  const status = card.querySelector('.status');
  const bar = card.querySelector('.progress');
  status.className = 'status muted';
  status.textContent = 'extracting…';
  card.dataset.state = 'working';
  const started = performance.now();
  // Stops the file between pages, or a page being read by OCR at once.
  const controller = new AbortController();
  const stop = card.querySelector('.stop');
  stop.hidden = false;
  stop.onclick = () => controller.abort();
  const { signal } = controller;
  try {
    if (isWebText(file)) {
      const doc = await ds.extractHtml(file, { signal });
      bar.max = 1;
      bar.value = 1;
      status.textContent = `${doc.length} characters in ${Math.round(performance.now() - started)} ms`;
      renderArticle(card, doc);
      extracted.set(file.name, doc.text);
      card.dataset.state = 'done';
      refreshDuplicates().catch((e) => { document.getElementById('dup-status').textContent = `${e.name}: ${e.message}`; });
      return;
    }
    const doc = await ds.extract(file, {
      password,
      signal,
      layout: document.getElementById('layout').checked,
      onProgress: ({ done, total, stage, step }) => {
        bar.max = total;
        bar.value = done;
        // OCR is slow enough to say so (stages: text, loading-models, ocr; steps inside a page).
        const inPage = step ? ` (${step.name}${step.total > 1 ? ` ${step.done} of ${step.total}` : ''})` : '';
        if (stage !== 'text') status.textContent = stage === 'ocr' ? `reading by OCR: page ${Math.min(done + 1, total)} of ${total}${inPage}` : 'loading the OCR models';
      },
    });
    const n = doc.pages.length;
    const ocrd = doc.pages.filter((p) => p.ocr);
    const engines = [...new Set(ocrd.map((p) => (p.ocr.engine === 'wonnx' ? 'WebGPU' : 'CPU')))].join(', ');
    status.textContent = `${n} page${n === 1 ? "" : "s"} in ${Math.round(performance.now() - started)} ms` + (ocrd.length ? `, ${ocrd.length} read by OCR (${engines})` : '');
    card.querySelector('.password').hidden = true;
    render(card, doc);
    extracted.set(file.name, docText(doc));
    card.dataset.state = 'done';
    refreshDuplicates().catch((e) => { document.getElementById('dup-status').textContent = `${e.name}: ${e.message}`; });
  } catch (e) {
    if (e.name === 'AbortError') {
      card.dataset.state = 'stopped';
      status.textContent = `stopped after ${Math.round(performance.now() - started)} ms`;
      return;
    }
    card.dataset.state = 'error';
    status.className = 'status error';
    status.textContent = `${e.name}: ${e.message}`;
    if (e instanceof PasswordRequiredError) {
      const form = card.querySelector('.password');
      form.hidden = false;
      form.onsubmit = (ev) => {
        ev.preventDefault();
        process(file, form.querySelector('input').value);
      };
    }
  } finally {
    stop.hidden = true;
  }
}

const cjkBox = document.getElementById('cjk');
cjkBox.checked = script === 'cjk';
cjkBox.addEventListener('change', () => {
  const url = new URL(location.href);
  if (cjkBox.checked) url.searchParams.set('script', 'cjk');
  else url.searchParams.delete('script');
  location.replace(url);
});

// With layout regions ticked every page needs the OCR module and the layout model: they
// get ready while a file is chosen, not when its first page waits for them.
const layoutBox = document.getElementById('layout');
const ocrState = document.getElementById('ocr-state');
layoutBox.addEventListener('change', async () => {
  if (!layoutBox.checked || ocrState.dataset.state) return;
  ocrState.dataset.state = 'loading';
  ocrState.textContent = '(getting the layout model ready…)';
  try {
    const { engine: runtime } = await ds.prepareOcr({ layout: true });
    ocrState.dataset.state = 'ready';
    ocrState.textContent = `(layout model ready, on the ${runtime === 'wonnx' ? 'GPU' : 'CPU'})`;
  } catch (e) {
    delete ocrState.dataset.state;
    ocrState.textContent = `(layout model unavailable: ${e.message})`;
  }
});

const input = document.getElementById('files');
input.addEventListener('change', () => [...input.files].forEach((f) => process(f)));
const drop = document.getElementById('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  [...e.dataTransfer.files].forEach((f) => process(f));
});

// First visit: show the bundled sample so a new user sees it work.
const sample = await fetch('sample.pdf');
if (sample.ok) process(new File([await sample.blob()], 'sample.pdf', { type: 'application/pdf' }));
