//! docsift's near-duplicate detection over document texts. Each document is normalised
//! and shingled (word or character n-grams; unspaced scripts by character), then found by
//! four paths, cheapest first: exact content hash, SimHash within a small Hamming distance
//! (near-identical texts), MinHash + LSH candidates (verified by exact Jaccard), and — for
//! short texts, where a few shingles say little — normalised edit distance. Matches are
//! merged into groups with union-find. The index serialises to bytes and back, so a page
//! can keep it and check new files against everything seen before.

mod minhash;
mod simhash;
mod text;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

pub use minhash::{MinHasher, optimal_bands};

/// The (bands, rows) an index uses for `threshold` and `num_perm`.
pub fn bands_for(threshold: f64, num_perm: usize) -> (usize, usize) {
    optimal_bands(threshold, num_perm, FP_WEIGHT, FN_WEIGHT)
}
pub use text::{normalize, tokens};

/// Texts shorter than this (normalised characters) are compared by edit distance: their
/// few shingles make Jaccard too coarse.
pub const SHORT_TEXT_CHARS: usize = 200;
/// Weights of the LSH band choice. Candidates are verified by exact Jaccard, so a false
/// positive costs one comparison while a false negative loses a duplicate: recall is
/// weighted 9:1 (for 0.8 / 128 permutations: 14 bands of 9 rows, catching a Jaccard-0.9
/// pair 99.9% of the time where datasketch's balanced 9 × 13 catches 93%).
const FP_WEIGHT: f64 = 0.1;
const FN_WEIGHT: f64 = 0.9;
/// Seed of the MinHash permutations: fixed so saved indexes stay comparable.
const MINHASH_SEED: u64 = 0x646f_6373_6966_7421;
/// Format version of `to_bytes`.
const INDEX_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shingles {
    /// Word n-grams (n = 1: the set of words).
    Words(usize),
    /// Character n-grams of the normalised text.
    Chars(usize),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Jaccard similarity at or above which two documents are near-duplicates.
    pub threshold: f64,
    pub num_perm: usize,
    pub shingles: Shingles,
    /// SimHash fast path: Hamming distance (≤ 3) accepted before verification; 0 = off.
    pub simhash_distance: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { threshold: 0.8, num_perm: 128, shingles: Shingles::Words(1), simhash_distance: 3 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Exact,
    Simhash,
    Minhash,
    EditDistance,
}

/// One pair of near-duplicates, with the similarity that confirmed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub a: String,
    pub b: String,
    pub score: f64,
    pub method: Method,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub members: Vec<String>,
    pub pairs: Vec<Pair>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Entry {
    id: String,
    content: u64,
    shingles: Vec<u64>,
    signature: Vec<u32>,
    simhash: u64,
    /// The normalised text, kept only for short texts (edit distance).
    short: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum DedupError {
    #[error("not a docsift dedup index: {0}")]
    BadIndex(String),
}

/// What the index persists; the lookup structures are rebuilt on load.
#[derive(Serialize, Deserialize)]
struct Saved {
    version: u32,
    config: Config,
    entries: Vec<Entry>,
    pairs: Vec<(u32, u32, f64, Method)>,
}

pub struct Index {
    config: Config,
    hasher: MinHasher,
    lsh: minhash::Lsh,
    sim: simhash::SimIndex,
    exact: FxHashMap<u64, u32>,
    entries: Vec<Entry>,
    /// Confirmed pairs (entry indices).
    pairs: Vec<(u32, u32, f64, Method)>,
}

/// Shingle hashes of a normalised text, sorted and unique.
pub fn shingle(normalized: &str, kind: Shingles) -> Vec<u64> {
    shingle_tokens(normalized, &tokens(normalized), kind)
}

fn shingle_tokens(normalized: &str, toks: &[&str], kind: Shingles) -> Vec<u64> {
    let mut out: Vec<u64> = match kind {
        Shingles::Words(n) => {
            let n = n.max(1);
            if toks.len() < n {
                if toks.is_empty() { Vec::new() } else { vec![xxh3_64(toks.join(" ").as_bytes())] }
            } else if n == 1 {
                toks.iter().map(|t| xxh3_64(t.as_bytes())).collect()
            } else {
                let mut buf = String::new();
                toks.windows(n)
                    .map(|w| {
                        buf.clear();
                        for (i, t) in w.iter().enumerate() {
                            if i > 0 {
                                buf.push(' ');
                            }
                            buf.push_str(t);
                        }
                        xxh3_64(buf.as_bytes())
                    })
                    .collect()
            }
        }
        Shingles::Chars(n) => {
            let n = n.max(1);
            let starts: Vec<usize> = normalized.char_indices().map(|(i, _)| i).chain([normalized.len()]).collect();
            if starts.len() <= n {
                if normalized.is_empty() { Vec::new() } else { vec![xxh3_64(normalized.as_bytes())] }
            } else {
                (0..starts.len() - n).map(|i| xxh3_64(&normalized.as_bytes()[starts[i]..starts[i + n]])).collect()
            }
        }
    };
    out.sort_unstable();
    out.dedup();
    out
}

/// Exact Jaccard of two sorted, unique hash lists.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common as f64 / (a.len() + b.len() - common) as f64
}

/// Share of the smaller set found in the larger (text reuse: an answer inside its source).
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    let small = a.len().min(b.len());
    if small == 0 {
        return 0.0;
    }
    let j = jaccard(a, b);
    // |A∩B| = J (|A| + |B|) / (1 + J)
    (j * (a.len() + b.len()) as f64 / (1.0 + j)) / small as f64
}

/// 1 − Levenshtein distance / longer length, over characters.
pub fn edit_similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    1.0 - prev[b.len()] as f64 / a.len().max(b.len()) as f64
}

impl Index {
    pub fn new(config: Config) -> Index {
        let hasher = MinHasher::new(config.num_perm.max(1), MINHASH_SEED);
        let (bands, rows) = bands_for(config.threshold, hasher.num_perm());
        Index {
            lsh: minhash::Lsh::new(bands, rows),
            sim: simhash::SimIndex::new(config.simhash_distance),
            config,
            hasher,
            exact: FxHashMap::default(),
            entries: Vec::new(),
            pairs: Vec::new(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn entry(&self, id: &str, text: &str) -> Entry {
        let norm = normalize(text);
        let toks = tokens(&norm);
        let shingles = shingle_tokens(&norm, &toks, self.config.shingles);
        Entry {
            id: id.to_string(),
            content: xxh3_64(norm.as_bytes()),
            signature: self.hasher.signature(&shingles),
            simhash: simhash::simhash(toks.iter().copied()),
            shingles,
            short: (norm.chars().count() < SHORT_TEXT_CHARS).then_some(norm),
        }
    }

    /// Confirms a candidate: (score, method) when it is a near-duplicate of `e`.
    fn verify(&self, e: &Entry, other: u32, found_by: Method) -> Option<(f64, Method)> {
        let o = &self.entries[other as usize];
        if let (Some(a), Some(b)) = (&e.short, &o.short) {
            let s = edit_similarity(a, b);
            return (s >= self.config.threshold).then_some((s, Method::EditDistance));
        }
        let s = jaccard(&e.shingles, &o.shingles);
        (s >= self.config.threshold).then_some((s, found_by))
    }

    /// The near-duplicates of `text` among the indexed documents, best first, without
    /// adding it.
    pub fn query(&self, text: &str) -> Vec<(String, f64, Method)> {
        let e = self.entry("", text);
        self.matches(&e).into_iter().map(|(i, s, m)| (self.entries[i as usize].id.clone(), s, m)).collect()
    }

    fn matches(&self, e: &Entry) -> Vec<(u32, f64, Method)> {
        let mut found: FxHashMap<u32, (f64, Method)> = FxHashMap::default();
        if let Some(&i) = self.exact.get(&e.content) {
            found.insert(i, (1.0, Method::Exact));
            // Every exact copy of `i` is already grouped with it.
        }
        if self.config.simhash_distance > 0 {
            for (i, _) in self.sim.query(e.simhash, |id| self.entries[id as usize].simhash) {
                if !found.contains_key(&i)
                    && let Some(v) = self.verify(e, i, Method::Simhash)
                {
                    found.insert(i, v);
                }
            }
        }
        for i in self.lsh.query(&e.signature) {
            if !found.contains_key(&i)
                && let Some(v) = self.verify(e, i, Method::Minhash)
            {
                found.insert(i, v);
            }
        }
        if let Some(short) = &e.short {
            // Short texts: few shingles, so LSH may miss them; compare with the other short
            // ones of similar length directly.
            let len = short.chars().count() as f64;
            for (i, o) in self.entries.iter().enumerate() {
                let i = i as u32;
                if let Some(os) = &o.short
                    && !found.contains_key(&i)
                    && (os.chars().count() as f64 - len).abs() <= (1.0 - self.config.threshold) * len.max(1.0)
                {
                    let s = edit_similarity(short, os);
                    if s >= self.config.threshold {
                        found.insert(i, (s, Method::EditDistance));
                    }
                }
            }
        }
        let mut out: Vec<(u32, f64, Method)> = found.into_iter().map(|(i, (s, m))| (i, s, m)).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// Adds a document; returns its near-duplicates among those added before.
    pub fn add(&mut self, id: &str, text: &str) -> Vec<(String, f64, Method)> {
        let e = self.entry(id, text);
        let matches = self.matches(&e);
        let me = self.entries.len() as u32;
        for &(i, s, m) in &matches {
            self.pairs.push((i, me, s, m));
        }
        self.exact.entry(e.content).or_insert(me);
        self.sim.insert(me, e.simhash);
        self.lsh.insert(me, &e.signature);
        self.entries.push(e);
        matches.into_iter().map(|(i, s, m)| (self.entries[i as usize].id.clone(), s, m)).collect()
    }

    /// Duplicate clusters (union-find over confirmed pairs), largest first.
    pub fn groups(&self) -> Vec<Group> {
        let n = self.entries.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for &(a, b, _, _) in &self.pairs {
            let (ra, rb) = (find(&mut parent, a as usize), find(&mut parent, b as usize));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
        let mut groups: FxHashMap<usize, Group> = FxHashMap::default();
        for &(a, b, score, method) in &self.pairs {
            let root = find(&mut parent, a as usize);
            groups.entry(root).or_insert_with(|| Group { members: Vec::new(), pairs: Vec::new() }).pairs.push(Pair {
                a: self.entries[a as usize].id.clone(),
                b: self.entries[b as usize].id.clone(),
                score,
                method,
            });
        }
        for i in 0..n {
            let root = find(&mut parent, i);
            if let Some(g) = groups.get_mut(&root) {
                g.members.push(self.entries[i].id.clone());
            }
        }
        let mut out: Vec<Group> = groups.into_values().collect();
        out.sort_by(|a, b| b.members.len().cmp(&a.members.len()).then(a.members.cmp(&b.members)));
        out
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let saved = Saved {
            version: INDEX_VERSION,
            config: self.config.clone(),
            entries: self.entries.clone(),
            pairs: self.pairs.clone(),
        };
        postcard::to_stdvec(&saved).unwrap_or_default()
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Index, DedupError> {
        let saved: Saved = postcard::from_bytes(bytes).map_err(|e| DedupError::BadIndex(e.to_string()))?;
        if saved.version != INDEX_VERSION {
            return Err(DedupError::BadIndex(format!("version {} (expected {INDEX_VERSION})", saved.version)));
        }
        let mut index = Index::new(saved.config);
        for (me, e) in saved.entries.into_iter().enumerate() {
            let me = me as u32;
            index.exact.entry(e.content).or_insert(me);
            index.sim.insert(me, e.simhash);
            index.lsh.insert(me, &e.signature);
            index.entries.push(e);
        }
        index.pairs = saved.pairs;
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(seed: u64, n: usize) -> String {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                format!("w{}", (s >> 33) % 5000)
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn exact_near_and_unrelated() {
        let mut idx = Index::new(Config::default());
        let base = words(1, 300);
        assert!(idx.add("a", &base).is_empty());
        let m = idx.add("b", &format!("{}!!", base.to_uppercase()));
        assert_eq!(m[0].0, "a");
        assert_eq!(m[0].2, Method::Exact);
        let mut edited: Vec<String> = base.split(' ').map(str::to_string).collect();
        for i in (0..edited.len()).step_by(25) {
            edited[i] = format!("x{i}");
        }
        let m = idx.add("c", &edited.join(" "));
        assert!(m.iter().any(|(id, s, _)| id == "a" && *s >= 0.8), "{m:?}");
        assert!(idx.add("d", &words(99, 300)).is_empty());
        let groups = idx.groups();
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].members, vec!["a", "b", "c"]);
    }

    #[test]
    fn short_texts_use_edit_distance_and_empty_ones_are_exact() {
        let mut idx = Index::new(Config::default());
        idx.add("s1", "Meeting moved to Tuesday at 10am in room 4");
        let m = idx.add("s2", "Meeting moved to Tuesday at 10am in room 5");
        assert_eq!(m[0].2, Method::EditDistance);
        assert!(idx.add("one", "word").is_empty());
        idx.add("e1", "");
        let m = idx.add("e2", "   ");
        assert_eq!(m[0].0, "e1");
    }

    #[test]
    fn index_round_trips_through_bytes() {
        let mut idx = Index::new(Config::default());
        let base = words(5, 200);
        idx.add("a", &base);
        let bytes = idx.to_bytes();
        let mut back = Index::from_bytes(&bytes).unwrap();
        assert_eq!(back.len(), 1);
        let m = back.add("b", &base);
        assert_eq!(m[0].0, "a");
        assert!(Index::from_bytes(b"garbage").is_err());
    }

    #[test]
    fn cjk_documents_match() {
        let mut idx = Index::new(Config { shingles: Shingles::Chars(2), ..Config::default() });
        let text = "東京都は日本の首都であり、政治、経済、文化の中心地である。人口は約千四百万人で、世界有数の大都市圏を形成している。".repeat(4);
        idx.add("ja1", &text);
        let m = idx.add("ja2", &text.replacen("約", "およそ", 1));
        assert!(!m.is_empty());
    }

    #[test]
    fn similarity_measures() {
        assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert!((containment(&[1, 2], &[1, 2, 3, 4, 5]) - 1.0).abs() < 1e-9);
        assert!((edit_similarity("kitten", "sitting") - (1.0 - 3.0 / 7.0)).abs() < 1e-9);
    }
}
