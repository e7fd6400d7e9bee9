// Model files for the workers: fetched from the page's own origin once, then read from the
// Cache API (offline on later visits). Nothing is fetched from anywhere else.

/** Cache API bucket for model files; the version changes when the files do. */
const MODEL_CACHE = 'docsift-models-v4';
let opened = null;

/** The bucket, once earlier versions' buckets are gone: their files are never read again. */
function modelCache() {
  opened ??= (async () => {
    const stale = (await self.caches.keys()).filter((n) => n.startsWith('docsift-models-') && n !== MODEL_CACHE);
    await Promise.all(stale.map((n) => self.caches.delete(n)));
    return self.caches.open(MODEL_CACHE);
  })();
  return opened;
}

export async function fetchModel(url) {
  const cache = self.caches ? await modelCache() : null;
  let response = cache ? await cache.match(url) : undefined;
  if (!response) {
    response = await fetch(url);
    if (!response.ok) throw { name: 'DocsiftError', code: 'model', message: `${url}: HTTP ${response.status}` };
    if (cache) await cache.put(url, response.clone());
  }
  return new Uint8Array(await response.arrayBuffer());
}
