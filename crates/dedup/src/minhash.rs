//! MinHash signatures and LSH banding. Signatures are one-permutation hashing with optimal
//! densification (Shrivastava, ICML 2017): each shingle is hashed once, its top bits pick
//! one of `num_perm` bins and the bin keeps the minimum; an empty bin copies a non-empty
//! one chosen by a probe sequence fixed per bin, so equal sets give equal signatures and
//! agreement still estimates Jaccard — at one hash per shingle instead of `num_perm`.
//! (bands, rows) are chosen from the threshold by minimising the weighted false-positive
//! and false-negative areas under the banding S-curve, as datasketch does.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Integration steps for the S-curve areas: the areas are smooth, 200 steps give four
/// significant digits, plenty to rank (b, r) pairs.
const INTEGRATION_STEPS: usize = 200;
/// Densification probes before falling back to a scan: with at least one of k bins
/// filled, 4096 random probes all miss with probability below (1 − 1/k)^4096 ≈ 1e-14.
const MAX_PROBES: usize = 4096;

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MinHasher {
    bins: usize,
    seed: u64,
}

impl MinHasher {
    /// `num_perm` bins under a fixed seed, so signatures are comparable across runs and
    /// machines (an index saved today matches documents hashed tomorrow).
    pub fn new(num_perm: usize, seed: u64) -> Self {
        MinHasher { bins: num_perm.max(1), seed }
    }

    pub fn num_perm(&self) -> usize {
        self.bins
    }

    /// The signature of a set of shingle hashes (empty set: all `u32::MAX`).
    pub fn signature(&self, shingles: &[u64]) -> Vec<u32> {
        let k = self.bins as u64;
        let mut sig = vec![u32::MAX; self.bins];
        let mut filled = vec![false; self.bins];
        for &x in shingles {
            let mut s = x ^ self.seed;
            let h = splitmix64(&mut s);
            // Multiply-high maps the hash uniformly onto the bins.
            let bin = ((h as u128 * k as u128) >> 64) as usize;
            let v = h as u32;
            if v <= sig[bin] {
                sig[bin] = v;
                filled[bin] = true;
            }
        }
        if filled.iter().all(|&f| f) || !filled.iter().any(|&f| f) {
            return sig;
        }
        let dense = sig.clone();
        for i in 0..self.bins {
            if filled[i] {
                continue;
            }
            // Probe a sequence of bins fixed by (seed, i) until one is non-empty; after
            // MAX_PROBES misses (vanishingly rare), the next filled bin in order.
            let mut state = self.seed ^ (i as u64).wrapping_mul(0xA24B_AED4_963E_E407);
            let probed = (0..MAX_PROBES)
                .map(|_| ((splitmix64(&mut state) as u128 * k as u128) >> 64) as usize)
                .find(|&j| filled[j]);
            let j = probed.or_else(|| (1..self.bins).map(|d| (i + d) % self.bins).find(|&j| filled[j]));
            if let Some(j) = j {
                sig[i] = dense[j];
            }
        }
        sig
    }
}

/// The probability that two sets of Jaccard `s` share a band: 1 − (1 − s^r)^b.
fn collision(s: f64, b: usize, r: usize) -> f64 {
    1.0 - (1.0 - s.powi(r as i32)).powi(b as i32)
}

fn integrate(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    let h = (hi - lo) / INTEGRATION_STEPS as f64;
    (0..INTEGRATION_STEPS).map(|i| f(lo + (i as f64 + 0.5) * h) * h).sum()
}

/// (bands, rows) with bands × rows ≤ `num_perm` minimising
/// `fp_weight · P(false positive) + fn_weight · P(false negative)` at `threshold`.
pub fn optimal_bands(threshold: f64, num_perm: usize, fp_weight: f64, fn_weight: f64) -> (usize, usize) {
    let mut best = (1, num_perm.max(1));
    let mut best_err = f64::INFINITY;
    for b in 1..=num_perm {
        for r in 1..=num_perm / b {
            let fp = integrate(|s| collision(s, b, r), 0.0, threshold);
            let fneg = integrate(|s| 1.0 - collision(s, b, r), threshold, 1.0);
            let err = fp * fp_weight + fneg * fn_weight;
            if err < best_err {
                best_err = err;
                best = (b, r);
            }
        }
    }
    best
}

/// Band buckets: documents sharing any band of their signature are candidates.
#[derive(Clone, Debug, Default)]
pub struct Lsh {
    bands: usize,
    rows: usize,
    buckets: Vec<FxHashMap<u64, Vec<u32>>>,
}

impl Lsh {
    pub fn new(bands: usize, rows: usize) -> Self {
        Lsh { bands, rows, buckets: vec![FxHashMap::default(); bands] }
    }

    fn band_keys<'a>(&'a self, sig: &'a [u32]) -> impl Iterator<Item = (usize, u64)> + 'a {
        (0..self.bands).map(move |i| {
            let band = &sig[i * self.rows..(i + 1) * self.rows];
            // A multiply-xorshift fold of the band's values: no allocation per band.
            let key = band
                .iter()
                .fold(0x9E37_79B9_7F4A_7C15u64, |h, &v| (h ^ v as u64).wrapping_mul(0x100_0000_01B3).rotate_left(29));
            (i, key)
        })
    }

    pub fn insert(&mut self, id: u32, sig: &[u32]) {
        let keys: Vec<(usize, u64)> = self.band_keys(sig).collect();
        for (i, k) in keys {
            self.buckets[i].entry(k).or_default().push(id);
        }
    }

    /// Ids sharing at least one band with `sig`, each once.
    pub fn query(&self, sig: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> =
            self.band_keys(sig).filter_map(|(i, k)| self.buckets[i].get(&k)).flatten().copied().collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xxhash_rust::xxh3::xxh3_64;

    #[test]
    fn signature_agreement_estimates_jaccard() {
        let h = MinHasher::new(256, 1);
        let a: Vec<u64> = (0..1000).map(|i| xxh3_64(&(i as u32).to_le_bytes())).collect();
        let b: Vec<u64> = (200..1200).map(|i| xxh3_64(&(i as u32).to_le_bytes())).collect();
        let (sa, sb) = (h.signature(&a), h.signature(&b));
        let est = sa.iter().zip(&sb).filter(|(x, y)| x == y).count() as f64 / 256.0;
        // True Jaccard: 800 / 1200.
        assert!((est - 0.6667).abs() < 0.08, "{est}");
    }

    #[test]
    fn optimal_bands_put_the_curve_at_the_threshold() {
        let (b, r) = optimal_bands(0.8, 128, 0.5, 0.5);
        assert!(b * r <= 128);
        // The S-curve's midpoint (1/b)^(1/r) sits near the threshold.
        let mid = (1.0 / b as f64).powf(1.0 / r as f64);
        assert!((mid - 0.8).abs() < 0.1, "b={b} r={r} mid={mid}");
        // The balanced optimum for 0.8/128 (datasketch's too) is 9 bands of 13 rows.
        assert_eq!((b, r), (9, 13));
        assert_eq!(optimal_bands(0.8, 128, 0.1, 0.9), (14, 9));
        assert!(collision(0.9, b, r) > 0.9 && collision(0.95, b, r) > 0.99 && collision(0.5, b, r) < 0.01);
    }
}
