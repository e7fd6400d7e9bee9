// The OCR wasm build in Node, as the OCR benchmarks run it: the single-threaded build a page
// that is not cross-origin isolated loads in this engine (relaxed SIMD where it validates),
// with the models of `$DOCSIFT_MODELS` (default ~/.cache/docsift-tools/models).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const MODELS = process.env.DOCSIFT_MODELS || join(process.env.HOME, '.cache', 'docsift-tools', 'models');

/**
 * Loads the build and the models reading `script`; `read(bytes)` gives an image's text,
 * `prepare()` warms the build up as the browser's prepareOcr does.
 */
export async function wasmOcr(script) {
  const { ocrBuilds } = await import(join(ROOT, 'pkg', 'builds.js'));
  const build = ocrBuilds(false)[0];
  const wasm = await import(join(ROOT, 'pkg', 'wasm', build, 'docsift_wasm.js'));
  const { decodePage } = await import(join(ROOT, 'pkg', 'decode.js'));
  await wasm.default({ module_or_path: readFileSync(join(ROOT, 'pkg', 'wasm', build, 'docsift_wasm_bg.wasm')) });
  const rec = script === 'cjk' ? 'rec_cjk' : 'rec';
  wasm.setOcrModels(...['det', rec, 'cls'].map((m) => readFileSync(join(MODELS, `${m}.onnx`))), undefined, undefined, script);
  return { build, prepare: () => wasm.warmOcr(), read: async (bytes) => decodePage((await wasm.extractImage(bytes)).pages[0]).text };
}
