// WebGPU in the browser: the wonnx wasm module in its worker, in headless Chromium with
// --enable-unsafe-webgpu (SwiftShader, a software adapter: correctness, not speed). For the
// recognition and orientation models, the prepared file run there must give tract's output
// for the same input within tolerance. Model files come from the page's own origin.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
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
const CASES = [['rec', '1x3x48x320'], ['cls', '1x3x48x192']];

let browser, server;

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-webgpu-adapter=swiftshader', '--disable-quic', '--no-first-run'],
  });
  server = await serve({ port: 0, isolate: true, mounts: { '/models/': join(MODELS, 'wonnx') } });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** tract's input and output for a model and shape (crates/ocr/examples/model_reference.rs). */
function reference(model, shape) {
  const out = mkdtempSync(join(tmpdir(), 'docsift-ref-'));
  execFileSync('cargo', ['run', '--release', '-q', '-p', 'docsift-ocr', '--example', 'model_reference', '--', MODELS, model, shape, PAGE_IMAGE, out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const floats = (f) => { const b = readFileSync(join(out, f)); return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4); };
  return { input: floats('input.f32'), output: floats('output.f32') };
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
