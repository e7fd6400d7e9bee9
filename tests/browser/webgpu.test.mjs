// WebGPU in the browser: the wonnx wasm module in its worker, in headless Chromium with
// --enable-unsafe-webgpu (SwiftShader, a software adapter: correctness, not speed). For the
// recognition and orientation models, the prepared file run there must give tract's output
// for the same input within tolerance; and page OCR whose model calls go to that worker —
// from the threaded build through the mailbox in shared memory (isolated page), from the
// single-threaded build by message, awaiting the answer (page not isolated) — must read what
// the CPU reads, and a GPU call that fails must leave the page to the CPU. Model files come
// from the page's own origin.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CORPUS = process.env.DOCSIFT_CORPUS || join(ROOT, '..', 'shared', 'corpus');
const MODELS = process.env.DOCSIFT_MODELS
  || join(process.env.XDG_CACHE_HOME || join(process.env.HOME, '.cache'), 'docsift-tools', 'models');
const PAGE_IMAGE = join(CORPUS, 'ocr', 'tesseract-test', 'testing', 'phototest.tif');
/** As in tests/tests/ocr_parity.rs: rounding differences stay below 1e-4; a wrong kernel is off by ≥ 0.1. */
const TOLERANCE = 2e-3;
/**
 * Recognition at 4 lines of 320 columns: wonnx dispatches its head's Add, Sub and Div past
 * the end of a 4×40×6906 tensor, which the worker's buffer slack must absorb (without it the
 * last value came out 3.5 off here).
 */
const CASES = [['rec', '4x3x48x320'], ['cls', '4x3x48x192']];
/**
 * What the page OCR test serves to the GPU: the orientation and the narrowest recognition
 * file of each script's recognition model (SwiftShader takes ~10 s per 320-wide line of the
 * default model, and that file reads 4 lines a call; detection would take minutes), so the
 * GPU worker gets those calls and detection stays on the CPU.
 */
const GPU_FILES = ['cls_4x3x48x192.onnx', 'rec_4x3x48x320.onnx', 'rec_cjk_4x3x48x320.onnx'];
/** The recognition files GPU_FILES holds, by the script that reads with them. */
const REC_FILES = { all: 'rec_4x3x48x320.onnx', cjk: 'rec_cjk_4x3x48x320.onnx' };
/** Same model, same input, GPU vs CPU float rounding: boxes agree to a pixel or so. */
const BOX_TOLERANCE = 2.0;

let browser, server, plain;
/** The models folders `before` made, removed `after`. */
let madeFolders = [];

/**
 * A models folder for createDocsift: the CPU files, and wonnx/ listing GPU_FILES and holding
 * them, less `missing` (a GPU call for those fails).
 */
function gpuModelsFolder(missing = []) {
  const dir = mkdtempSync(join(tmpdir(), 'docsift-gpu-models-'));
  for (const m of ['det', 'rec', 'rec_cjk', 'cls']) symlinkSync(join(MODELS, `${m}.onnx`), join(dir, `${m}.onnx`));
  mkdirSync(join(dir, 'wonnx'));
  const held = [...GPU_FILES, 'cls.weights', 'rec.weights', 'rec_cjk.weights'].filter((f) => !missing.includes(f));
  for (const f of held) symlinkSync(join(MODELS, 'wonnx', f), join(dir, 'wonnx', f));
  writeFileSync(join(dir, 'wonnx', 'index.json'), JSON.stringify({ files: GPU_FILES }));
  return dir;
}

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-webgpu-adapter=swiftshader', '--disable-quic', '--no-first-run'],
  });
  madeFolders = [gpuModelsFolder(), gpuModelsFolder(Object.values(REC_FILES))];
  const mounts = {
    '/models/': join(MODELS, 'wonnx'),
    '/gpu-models/': madeFolders[0],
    '/broken-gpu-models/': madeFolders[1],
  };
  server = await serve({ port: 0, isolate: true, mounts });
  plain = await serve({ port: 0, isolate: false, mounts });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await plain?.close();
  for (const dir of madeFolders) rmSync(dir, { recursive: true, force: true });
});

/** tract's input and output for a model and shape (crates/ocr/examples/model_reference.rs). */
function reference(model, shape) {
  const out = mkdtempSync(join(tmpdir(), 'docsift-ref-'));
  execFileSync('cargo', ['run', '--release', '-q', '-p', 'docsift-ocr', '--example', 'model_reference', '--', MODELS, model, shape, PAGE_IMAGE, out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const floats = (f) => { const b = readFileSync(join(out, f)); return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4); };
  const ref = { input: floats('input.f32'), output: floats('output.f32') };
  rmSync(out, { recursive: true, force: true });
  return ref;
}

for (const [model, shape] of CASES) {
  test(`${model} ${shape} on WebGPU in the browser matches tract`, { timeout: 600_000 }, async () => {
    assert.ok(existsSync(join(MODELS, 'wonnx', `${model}_${shape}.onnx`)), 'prepared model missing (python3 scripts/models.py)');
    const { input, output } = reference(model, shape);
    const page = await browser.newPage();
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(server.url + 'pkg/package.json');
    const got = await page.evaluate(async ({ model, shape, input }) => {
      const { openGpuModels } = await import('/pkg/webgpu.js');
      const gpu = await openGpuModels();
      const load = await gpu.load(model, `/models/${model}_${shape}.onnx`);
      const { outputs, ms } = await gpu.run(model, new Float32Array(input));
      const again = await gpu.run(model, new Float32Array(input));
      gpu.close();
      return { adapter: gpu.adapter, load: load.ms, ms, again: again.ms, output: Array.from(Object.values(outputs)[0]) };
    }, { model, shape, input: Array.from(input) });
    assert.equal(got.output.length, output.length, 'output length');
    const diff = got.output.reduce((m, v, i) => Math.max(m, Math.abs(v - output[i])), 0);
    console.log(`# ${model} ${shape}: max |webgpu − tract| = ${diff.toExponential(2)}; compile ${got.load.toFixed(0)} ms, run ${got.ms.toFixed(0)} ms then ${got.again.toFixed(0)} ms on ${JSON.stringify(got.adapter)}`);
    assert.ok(diff <= TOLERANCE, `max difference ${diff}`);
    const origin = new URL(server.url).origin;
    assert.deepEqual(requests.filter((u) => !u.startsWith(origin)), [], 'only same-origin requests');
    await page.close();
  });
}

// The "cjk" script's recognition model goes by message: its prepared files are picked from
// the same list as the default model's.
for (const [how, on, build, script] of [
  ['mailbox from the threaded build, isolated page', () => server, 'ocr-threaded-relaxed', 'all'],
  ['single-threaded build by message, page not isolated, the "cjk" script', () => plain, 'ocr-relaxed', 'cjk'],
]) test(`page OCR on WebGPU (${how}) reads what the CPU reads`, { timeout: 600_000 }, async () => {
  const page = await browser.newPage();
  const requests = [];
  const served = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('response', (r) => r.ok() && served.push(r.url()));
  await page.goto(on().url + 'pkg/package.json');
  const read = (backend, models = '/gpu-models/') => page.evaluate(async ({ backend, models, script }) => {
    // A short printed line, drawn here: one recognition call of the narrowest width.
    const canvas = new OffscreenCanvas(220, 64);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = '#000';
    ctx.font = '30px sans-serif';
    ctx.fillText('docsift 42', 16, 42);
    const png = await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer();
    const { createDocsift } = await import('/pkg/index.js');
    const ds = await createDocsift({ threads: 2, models, backend, script });
    const started = performance.now();
    const p = (await ds.extract(png)).pages[0];
    const seconds = (performance.now() - started) / 1000;
    ds.terminate();
    return { seconds, text: p.text, engine: p.ocr?.engine, words: p.words.map((w) => w.bbox) };
  }, { backend, models, script });
  const got = { gpu: await read('webgpu') };
  const gpuBuilds = [...new Set(served.flatMap((u) => u.match(/\/wasm\/(ocr[\w-]*)\//)?.[1] ?? []))];
  const recFiles = Object.values(REC_FILES).filter((f) => served.some((u) => u.endsWith(`/gpu-models/wonnx/${f}`)));
  got.cpu = await read('cpu');
  got.auto = await read('auto');
  // A GPU call that fails (its prepared file is gone) is an error the CPU takes over from.
  got.broken = await read('webgpu', '/broken-gpu-models/');
  await page.close();
  console.log(`# page OCR: WebGPU ${got.gpu.seconds.toFixed(1)} s (${got.gpu.engine}), CPU ${got.cpu.seconds.toFixed(1)} s (${got.cpu.engine}): ${JSON.stringify(got.gpu.text)}`);
  assert.equal(got.gpu.engine, 'wonnx', 'the GPU served the model calls');
  assert.deepEqual(gpuBuilds, [build], 'the OCR build that reaches the GPU');
  assert.deepEqual(recFiles, [REC_FILES[script]], 'the GPU runs the script\'s own recognition model');
  assert.equal(got.cpu.engine, 'tract');
  // SwiftShader is a fallback (software) adapter: "auto" leaves the models on the CPU.
  assert.equal(got.auto.engine, 'tract', '"auto" does not pick a software adapter');
  assert.ok(got.cpu.text.includes('docsift'), `the CPU reading is sane: ${JSON.stringify(got.cpu.text)}`);
  assert.equal(got.gpu.text, got.cpu.text);
  assert.equal(got.broken.engine, 'tract', 'a failed GPU call hands the page to the CPU');
  assert.equal(got.broken.text, got.cpu.text);
  assert.equal(got.gpu.words.length, got.cpu.words.length);
  got.gpu.words.forEach((b, k) => {
    const o = got.cpu.words[k];
    const off = Math.max(Math.abs(b.x0 - o.x0), Math.abs(b.top - o.top), Math.abs(b.x1 - o.x1), Math.abs(b.bottom - o.bottom));
    assert.ok(off <= BOX_TOLERANCE, `word ${k}: ${JSON.stringify(b)} vs ${JSON.stringify(o)}`);
  });
  const origin = new URL(on().url).origin;
  assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith(`blob:${origin}/`)), [], 'only same-origin requests');
});
