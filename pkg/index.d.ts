export interface BBox { x0: number; top: number; x1: number; bottom: number }
export type Direction = 'ltr' | 'rtl' | 'ttb' | 'btt';
export interface Char {
  text: string; bbox: BBox; font: string; size: number; upright: boolean; direction: Direction;
  origin: { kind: 'native' } | { kind: 'ocr'; confidence: number };
  matrix: [number, number, number, number, number, number]; color?: number[]; tag?: string;
}
export interface Word {
  text: string; bbox: BBox; upright: boolean; direction: Direction; font: string; size: number;
  /** OCR'd words only: the least confidence among the word's characters (0 to 1). */
  confidence?: number;
}
export interface Line { text: string; bbox: BBox; direction: Direction; words: { start: number; end: number } }
export interface Segment { x0: number; y0: number; x1: number; y1: number; width: number; stroke: boolean }
export interface Rect { bbox: BBox; stroke: boolean; fill: boolean }
export interface Image { bbox: BBox; width: number; height: number; filter?: string | null; object?: number; mask?: [number, number] }
export interface Warning { page?: number; message: string }
export interface Page {
  number: number; width: number; height: number; rotation: number; text: string;
  chars: Char[]; words: Word[]; lines: Line[]; segments: Segment[]; rects: Rect[]; images: Image[];
  trust: { score: number; glyphs: number; unmapped: number; private_use: number };
  warnings?: Warning[];
  /** Layout regions (the CLI's `--layout`; the browser does not run the layout model). */
  blocks?: { kind: string; bbox: BBox; lines: number[]; confidence: number }[];
  /** Present when the page was read by OCR. */
  ocr?: { engine: string; dpi: number; confidence: number; hybrid: boolean };
}
export interface Meta { page_count: number; title?: string; author?: string; encrypted: boolean; repaired: boolean; pdf_version: string }
export interface DocsiftDocument { schema: 'docsift/1'; meta: Meta; pages: Page[]; warnings?: Warning[] }

export interface ExtractOptions {
  /** 1-based page numbers (of a PDF, or of a multi-page TIFF); all pages when absent. */
  pages?: number[];
  password?: string;
  /**
   * "auto" (default): images, and PDF pages without trustworthy text, are read by OCR
   * (the OCR module and the models load on first need); "force": every page; "off": none.
   */
  ocr?: 'auto' | 'force' | 'off';
  /**
   * Layout regions (title, text, table, figure, caption, header, footer, ...) from the
   * layout model become `page.blocks`, on OCR'd pages and native ones alike (as the CLI's
   * `--layout`); loads the OCR module and layout.onnx from `models`.
   */
  layout?: boolean;
  /**
   * `stage`: "text" (native extraction), "loading-models", "ocr" (`done`/`total`: pages).
   * OCR progress inside a page comes too, as `step`: the model stage and its calls done
   * of all.
   */
  onProgress?: (p: {
    done: number;
    total: number;
    stage?: 'text' | 'loading-models' | 'ocr';
    step?: { name: 'detection' | 'orientation' | 'recognition' | 'layout'; done: number; total: number };
  }) => void;
  signal?: AbortSignal;
}

export interface DedupPair { a: string; b: string; score: number; method: 'exact' | 'simhash' | 'minhash' | 'edit_distance' }
export interface DedupGroup { members: string[]; pairs: DedupPair[] }
export interface DedupOptions {
  /** Jaccard similarity for near-duplicates (default 0.8). */
  threshold?: number;
  numPerm?: number;
  /** "words:N" (default "words:1") or "chars:N". */
  shingles?: string;
  /** Bytes of an index returned earlier: new documents are checked against it too. */
  index?: Uint8Array | ArrayBuffer;
  onProgress?: (p: { done: number; total: number }) => void;
  signal?: AbortSignal;
}
export type DedupInput = { id: string; text: string } | { id: string; input: File | Blob | ArrayBuffer | Uint8Array; password?: string };

/** A web page's main content (or a text file's text) with its metadata. */
export interface HtmlDocument {
  schema: 'docsift-html/1';
  title: string | null; byline: string | null; excerpt: string | null; siteName: string | null;
  publishedTime: string | null; lang: string | null; dir: string | null;
  /** Readability's isProbablyReaderable verdict for the page. */
  readerable: boolean;
  /** WHATWG label of the encoding the bytes were decoded from, and how it was decided. */
  encoding: string;
  encodingSource: 'bom' | 'declared' | 'detected' | 'utf32_bom' | 'nul_pattern';
  /** Whether a main article was found (false: the whole page is given). */
  article: boolean;
  length: number;
  /** Cleaned article HTML. */
  content: string;
  text: string;
  markdown: string;
}

export interface Docsift {
  extractHtml(input: File | Blob | ArrayBuffer | Uint8Array, options?: { url?: string; signal?: AbortSignal }): Promise<HtmlDocument>;
  dedup(docs: DedupInput[], options?: DedupOptions): Promise<{ groups: DedupGroup[]; size: number; index: Uint8Array }>;
  readonly info: { threaded: boolean; threads: number; isolated: boolean };
  extract(input: File | Blob | ArrayBuffer | Uint8Array, options?: ExtractOptions): Promise<DocsiftDocument>;
  /**
   * Gets OCR ready before a page needs it (as tesseract.js's createWorker): loads the OCR
   * module and the models (with `layout`, the layout model too) and reads a small made page
   * with them, so that the pipeline's code is compiled before a user's page waits (about
   * 0.6 s of a first page on the CPU). Requests sent meanwhile wait for it.
   * Resolves to the runtime the models run on, as a page's `ocr.engine`.
   */
  prepareOcr(options?: {
    layout?: boolean;
    onProgress?: (p: { done: number; total: number; stage: 'loading-models' }) => void;
    signal?: AbortSignal;
  }): Promise<{ engine: 'tract' | 'wonnx' }>;
  terminate(): void;
}

/**
 * `models`: folder URL (same origin) of det.onnx, rec.onnx, cls.onnx for OCR, and wonnx/ with
 * the files prepared for WebGPU; default "models/". `backend`: where OCR models run — "auto"
 * (default: a hardware WebGPU adapter — on a page that is not cross-origin isolated, where the
 * engine has JS Promise Integration — else the CPU), "webgpu" (any
 * adapter, software ones too), "cpu". A page's `ocr.engine` says which ran ("wonnx", "tract").
 * `script`: what OCR reads — "all" (default: every character of the recognition model: Latin,
 * Greek, symbols, common Chinese characters; a page whose East Asian letters it reads unsurely,
 * Japanese, is read again on the CPU with rec_cjk.onnx, fetched for the first such page), "latin" (Latin-script text only; on the CPU its
 * output layer is cut to those characters, a quarter less recognition time) or "cjk" (Chinese
 * and Japanese too: the larger model rec_cjk.onnx from the same folder, 21 MB, with kana and
 * traditional and rare Chinese characters; about three times as slow on the CPU; on a GPU, its
 * prepared files wonnx/rec_cjk_*).
 */
export function createDocsift(options?: { threads?: number; models?: string; backend?: 'auto' | 'webgpu' | 'cpu'; script?: 'all' | 'latin' | 'cjk' }): Promise<Docsift>;

export class DocsiftError extends Error { code: string }
export class PasswordRequiredError extends DocsiftError {}
export class MalformedPdfError extends DocsiftError {}
export class LimitExceededError extends DocsiftError {}
export class UnsupportedInputError extends DocsiftError {}
