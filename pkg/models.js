// Model files for the workers: fetched from the page's own origin once, then read from the
// Cache API (offline on later visits). Nothing is fetched from anywhere else.

/** Cache API bucket for model files; the version changes when the files do. */
const MODEL_CACHE = 'docsift-models-v2';

export async function fetchModel(url) {
  const cache = self.caches ? await self.caches.open(MODEL_CACHE) : null;
  let response = cache ? await cache.match(url) : undefined;
  if (!response) {
    response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    if (cache) await cache.put(url, response.clone());
  }
  return new Uint8Array(await response.arrayBuffer());
}
