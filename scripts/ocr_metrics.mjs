// Accuracy measures of the OCR benchmarks, after whitespace normalisation: character error
// rate (edit distance over the truth's length) and word F1 (multiset overlap of words).
const norm = (s) => s.replace(/\s+/g, ' ').trim();
export function cer(got, want) {
  const g = [...norm(got)], w = [...norm(want)];
  let prev = Array.from({ length: g.length + 1 }, (_, j) => j);
  for (let i = 0; i < w.length; i++) {
    const cur = [i + 1];
    for (let j = 0; j < g.length; j++) cur.push(Math.min(prev[j] + (w[i] === g[j] ? 0 : 1), prev[j + 1] + 1, cur[j] + 1));
    prev = cur;
  }
  return prev[g.length] / Math.max(1, w.length);
}
export function f1(got, want) {
  const count = (s) => { const m = new Map(); for (const t of norm(s).split(' ').filter(Boolean)) m.set(t, (m.get(t) || 0) + 1); return m; };
  const g = count(got), w = count(want);
  let hit = 0, ng = 0, nw = 0;
  for (const [t, n] of g) { ng += n; hit += Math.min(n, w.get(t) || 0); }
  for (const n of w.values()) nw += n;
  return hit === 0 ? 0 : (2 * hit) / (ng + nw);
}
