// Reads the page wire format of crates/wasm/src/wire.rs into docsift/1 page objects.
// chars, words and lines are enumerable getters that build their arrays on first access
// (then replace themselves with the value), so JSON.stringify and structuredClone see the
// same document the native CLI prints, while a caller reading only `text` pays nothing.

const DIRECTIONS = ['ltr', 'rtl', 'ttb', 'btt'];
const CHAR_FLOATS = 12;
const WORD_FLOATS = 6;
const NONE = 0xffff;

function lazy(obj, key, build) {
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = build();
      Object.defineProperty(obj, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
  });
}

function slices(text, ends, n) {
  const out = new Array(n);
  let start = 0;
  for (let i = 0; i < n; i++) {
    out[i] = text.slice(start, ends[i]);
    start = ends[i];
  }
  return out;
}

function chars(w, fonts, colors, tags) {
  const { n, f, flags, font, color, tag } = w;
  const texts = slices(w.text, w.ends, n);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const k = i * CHAR_FLOATS;
    const conf = f[k + 11];
    const c = {
      text: texts[i],
      bbox: { x0: f[k], top: f[k + 1], x1: f[k + 2], bottom: f[k + 3] },
      font: fonts[font[i]],
      size: f[k + 4],
      upright: flags[2 * i] === 1,
      direction: DIRECTIONS[flags[2 * i + 1]],
      origin: Number.isNaN(conf) ? { kind: 'native' } : { kind: 'ocr', confidence: conf },
      matrix: [f[k + 5], f[k + 6], f[k + 7], f[k + 8], f[k + 9], f[k + 10]],
    };
    if (color[i] !== NONE) c.color = colors[color[i]];
    if (tag[i] !== NONE) c.tag = tags[tag[i]];
    out[i] = c;
  }
  return out;
}

function words(w, fonts) {
  const { n, f, flags, font } = w;
  const texts = slices(w.text, w.ends, n);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const k = i * WORD_FLOATS;
    const word = {
      text: texts[i],
      bbox: { x0: f[k], top: f[k + 1], x1: f[k + 2], bottom: f[k + 3] },
      upright: flags[2 * i] === 1,
      direction: DIRECTIONS[flags[2 * i + 1]],
      font: fonts[font[i]],
      size: f[k + 4],
    };
    if (!Number.isNaN(f[k + 5])) word.confidence = f[k + 5];
    out[i] = word;
  }
  return out;
}

function lines(w) {
  const { n, f, flags: dir } = w;
  const texts = slices(w.text, w.ends, n);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const k = i * 4;
    out[i] = {
      text: texts[i],
      bbox: { x0: f[k], top: f[k + 1], x1: f[k + 2], bottom: f[k + 3] },
      direction: DIRECTIONS[dir[i]],
      words: { start: w.words[2 * i], end: w.words[2 * i + 1] },
    };
  }
  return out;
}

/** A wire page -> a docsift/1 page object with lazy chars/words/lines. */
export function decodePage(w) {
  const page = { number: w.number, width: w.width, height: w.height, rotation: w.rotation, text: w.text };
  lazy(page, 'chars', () => chars(w.chars, w.fonts, w.colors, w.tags));
  lazy(page, 'words', () => words(w.words, w.fonts));
  lazy(page, 'lines', () => lines(w.lines));
  page.segments = w.segments;
  page.rects = w.rects;
  page.images = w.images;
  page.trust = w.trust;
  if (w.warnings) page.warnings = w.warnings;
  if (w.blocks) page.blocks = w.blocks;
  if (w.ocr) page.ocr = w.ocr;
  return page;
}

/** The buffers of a wire page, for postMessage's transfer list. */
export function transferables(w) {
  const out = [];
  for (const part of [w.chars, w.words, w.lines]) {
    for (const v of Object.values(part)) if (ArrayBuffer.isView(v)) out.push(v.buffer);
  }
  return out;
}
