//! 64-bit SimHash over weighted tokens, and a Hamming-distance index for distances up to
//! k ≤ 3 by the pigeonhole scheme: with the fingerprint cut into k + 1 blocks, two
//! fingerprints within distance k agree exactly on at least one block, so one table per
//! block finds every candidate.

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64;

/// Largest Hamming distance the block index supports (k + 1 blocks of ≥ 16 bits).
pub const MAX_DISTANCE: u32 = 3;

/// ±1 per bit of every byte value: a token's hash adds eight table rows (vectorisable)
/// instead of 64 per-bit branches.
const SIGNS: [[i32; 8]; 256] = {
    let mut t = [[0i32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut bit = 0;
        while bit < 8 {
            t[b][bit] = if (b >> bit) & 1 == 1 { 1 } else { -1 };
            bit += 1;
        }
        b += 1;
    }
    t
};

/// SimHash of `tokens`, each weighted by its count.
pub fn simhash<'a>(tokens: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut weights: FxHashMap<&str, i32> = FxHashMap::default();
    for t in tokens {
        *weights.entry(t).or_default() += 1;
    }
    let mut v = [0i32; 64];
    for (t, w) in weights {
        let h = xxh3_64(t.as_bytes()).to_le_bytes();
        for (byte, lanes) in h.iter().zip(v.chunks_exact_mut(8)) {
            for (acc, s) in lanes.iter_mut().zip(&SIGNS[*byte as usize]) {
                *acc += w * s;
            }
        }
    }
    v.iter().enumerate().fold(0u64, |f, (bit, &acc)| if acc > 0 { f | 1 << bit } else { f })
}

#[derive(Clone, Debug)]
pub struct SimIndex {
    k: u32,
    tables: Vec<FxHashMap<u64, Vec<u32>>>,
    prints: Vec<(u32, u64)>,
}

impl SimIndex {
    pub fn new(k: u32) -> Self {
        let k = k.min(MAX_DISTANCE);
        SimIndex { k, tables: vec![FxHashMap::default(); k as usize + 1], prints: Vec::new() }
    }

    fn blocks(&self, f: u64) -> impl Iterator<Item = u64> + '_ {
        let n = self.k as u64 + 1;
        (0..n).map(move |i| {
            let lo = 64 * i / n;
            let hi = 64 * (i + 1) / n;
            let mask = if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << lo };
            // Each block has its own table, so the masked value alone is the key.
            f & mask
        })
    }

    pub fn insert(&mut self, id: u32, f: u64) {
        let keys: Vec<u64> = self.blocks(f).collect();
        for (table, key) in self.tables.iter_mut().zip(keys) {
            table.entry(key).or_default().push(id);
        }
        self.prints.push((id, f));
    }

    /// Ids within Hamming distance k of `f`, with their distance.
    pub fn query(&self, f: u64, lookup: impl Fn(u32) -> u64) -> Vec<(u32, u32)> {
        let mut ids: Vec<u32> =
            self.blocks(f).zip(&self.tables).filter_map(|(k, t)| t.get(&k)).flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(|id| (id, (lookup(id) ^ f).count_ones())).filter(|&(_, d)| d <= self.k).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_texts_have_close_fingerprints() {
        let base: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
        let mut edited = base.clone();
        edited[7] = "changed".into();
        let a = simhash(base.iter().map(String::as_str));
        let b = simhash(edited.iter().map(String::as_str));
        let other: Vec<String> = (1000..1300).map(|i| format!("w{i}")).collect();
        let c = simhash(other.iter().map(String::as_str));
        assert!((a ^ b).count_ones() <= 3, "{}", (a ^ b).count_ones());
        assert!((a ^ c).count_ones() > 10);
    }

    #[test]
    fn block_index_finds_every_print_within_k() {
        let mut idx = SimIndex::new(3);
        let base = 0xDEAD_BEEF_F00D_CAFEu64;
        let prints = [base, base ^ 1, base ^ (1 << 20 | 1 << 40 | 1 << 63), base ^ 0xFF];
        for (i, &p) in prints.iter().enumerate() {
            idx.insert(i as u32, p);
        }
        let found: Vec<u32> = idx.query(base, |id| prints[id as usize]).into_iter().map(|(id, _)| id).collect();
        assert_eq!(found, vec![0, 1, 2]);
    }
}
