// Dedup throughput in headless Chromium: ds.dedup over the generated corpus that
// `cargo run --release -p docsift-tests --example dedup_bench -- FILE` writes.
// Usage: node scripts/bench_dedup_browser.mjs /tmp/neardup.jsonl
import { readFileSync } from 'node:fs';
import { dirname, basename } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const file = process.argv[2] || '/tmp/neardup.jsonl';
const truth = JSON.parse(readFileSync(file + '.truth.json', 'utf8'));
const server = await serve({ port: 0, isolate: true, mounts: { '/data/': dirname(file) } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-background-networking'] });
const page = await browser.newPage();
await page.goto(server.url + 'pkg/package.json');
const r = await page.evaluate(async ({ name, truth }) => {
  const { createDocsift } = await import('/pkg/index.js');
  const ds = await createDocsift();
  const docs = (await (await fetch('/data/' + name)).text()).trim().split('\n').map((l) => JSON.parse(l));
  let best = Infinity, result;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    result = await ds.dedup(docs);
    best = Math.min(best, performance.now() - t);
  }
  // Recall: planted (base, copy) pairs that ended in one group.
  const groupOf = new Map();
  result.groups.forEach((g, i) => g.members.forEach((m) => groupOf.set(m, i)));
  const found = truth.filter(([a, b]) => groupOf.has(a) && groupOf.get(a) === groupOf.get(b)).length;
  return { docs: docs.length, ms: best, recall: found / truth.length };
}, { name: basename(file), truth });
console.log(`docsift (Chromium, wasm)\tdocs ${r.docs}\tms ${r.ms.toFixed(0)}\tdocs/s ${(r.docs / r.ms * 1000).toFixed(0)}\trecall ${r.recall.toFixed(4)}`);
await browser.close();
await server.close();
