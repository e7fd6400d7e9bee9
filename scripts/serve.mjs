// A static server for www/ (and pkg/ under /pkg/) on 127.0.0.1. With `isolate` it sends
// COOP/COEP so the page is cross-origin isolated and the threaded build can run. Browsers may
// keep what it serves but must ask again each time (`no-cache`, answered 304 while the file's
// ETag holds): a rebuilt file is fetched at once, and an unchanged wasm build keeps the code
// V8 compiled for it on an earlier visit, which `no-store` would throw away.
// Usage: node scripts/serve.mjs [--port 8080] [--no-isolation]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.pdf': 'application/pdf', '.svg': 'image/svg+xml',
  '.ts': 'text/plain', '.txt': 'text/plain; charset=utf-8',
};

/** Maps a URL path to a file under one of the mounts ({prefix: directory}); null if outside. */
function locate(mounts, urlPath) {
  const path = decodeURIComponent(urlPath.split('?')[0]);
  for (const [prefix, dir] of Object.entries(mounts).sort((a, b) => b[0].length - a[0].length)) {
    if (!path.startsWith(prefix)) continue;
    const rel = normalize(path.slice(prefix.length)).replace(/^([/\\])+/, '');
    const file = resolve(dir, rel || 'index.html');
    return file === dir || file.startsWith(dir + sep) ? file : null;
  }
  return null;
}

export function serve({ port = 8080, host = '127.0.0.1', isolate = true, mounts = {} } = {}) {
  const all = { '/': join(ROOT, 'www'), '/pkg/': join(ROOT, 'pkg'), ...mounts };
  const server = createServer(async (req, res) => {
    const headers = { 'Cache-Control': 'no-cache' };
    if (isolate) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    const file = locate(all, req.url || '/');
    try {
      if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) throw new Error('not found');
      const s = await stat(file);
      const target = s.isDirectory() ? join(file, 'index.html') : file;
      const t = s.isDirectory() ? await stat(target) : s;
      const etag = `"${t.size.toString(36)}-${Math.round(t.mtimeMs * 1000).toString(36)}"`;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { ...headers, ETag: etag });
        res.end();
        return;
      }
      const body = await readFile(target);
      res.writeHead(200, { ...headers, ETag: etag, 'Content-Type': TYPES[extname(target)] || 'application/octet-stream' });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, headers);
      res.end('not found');
    }
  });
  return new Promise((ok) => server.listen(port, host, () => {
    const { port: p } = server.address();
    ok({ url: `http://${host}:${p}/`, close: () => new Promise((done) => server.close(done)) });
  }));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const port = Number(args[args.indexOf('--port') + 1]) || 8080;
  const { url } = await serve({ port, isolate: !args.includes('--no-isolation') });
  console.log(`docsift page: ${url}  (Ctrl-C stops)`);
}
