//! Dedup throughput on the generated corpus (hash + insert + query per document,
//! single-threaded), and the corpus as JSONL for scripts/bench_dedup.py (datasketch).
//! Run: cargo run --release -p docsift-tests --example dedup_bench -- /tmp/neardup.jsonl

use std::io::Write;
use std::time::Instant;

use docsift::dedup::{Config, Index, Shingles};

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "/tmp/neardup.jsonl".into());
    let planted = docsift_tests::neardup::planted_corpus(42);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&out).expect("create corpus file"));
    for (id, text) in &planted.docs {
        writeln!(f, "{}", serde_json::json!({ "id": id, "text": text })).expect("write corpus");
    }
    let truth: Vec<_> = planted.truth.iter().collect();
    let truth_json: Vec<_> = truth.iter().map(|(a, b)| serde_json::json!([a, b])).collect();
    std::fs::write(format!("{out}.truth.json"), serde_json::to_string(&truth_json).expect("json"))
        .expect("write truth");
    drop(f);
    let mut best = f64::INFINITY;
    let mut recall = 0.0;
    for _ in 0..3 {
        let start = Instant::now();
        let mut index = Index::new(Config { threshold: 0.8, shingles: Shingles::Words(1), ..Config::default() });
        let mut found = 0;
        for (id, text) in &planted.docs {
            for (other, _, _) in index.add(id, text) {
                if planted.truth.contains(&(other, id.clone())) {
                    found += 1;
                }
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
        recall = found as f64 / planted.truth.len() as f64;
    }
    let n = planted.docs.len();
    println!(
        "docsift\tdocs {n}\tseconds {best:.3}\tdocs/s {:.0}\trecall {recall:.4}\tpeak RSS {:.0} MiB",
        n as f64 / best,
        peak_rss_mib()
    );
}
