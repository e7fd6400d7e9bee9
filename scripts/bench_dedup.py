#!/usr/bin/env python3
"""datasketch side of the dedup benchmark (MinHashLSH, num_perm=128, threshold 0.8) on the
corpus the Rust example writes; hash + insert + query per document, single-threaded.

Usage: pip install datasketch
       cargo run --release -p docsift-tests --example dedup_bench -- /tmp/neardup.jsonl
       python3 scripts/bench_dedup.py /tmp/neardup.jsonl
"""
import json, resource, sys, time
from datasketch import MinHash, MinHashLSH

path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/neardup.jsonl"
docs = [json.loads(l) for l in open(path)]
truth = {tuple(p) for p in json.load(open(path + ".truth.json"))}

def run(weights):
    lsh = MinHashLSH(threshold=0.8, num_perm=128, weights=weights)
    found = 0
    t = time.process_time()
    for d in docs:
        m = MinHash(num_perm=128)
        m.update_batch([w.encode() for w in set(d["text"].split())])
        for other in lsh.query(m):
            if (other, d["id"]) in truth:
                found += 1
        lsh.insert(d["id"], m)
    return time.process_time() - t, found / len(truth)

for weights in [(0.5, 0.5), (0.1, 0.9)]:
    secs, recall = run(weights)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"datasketch weights={weights}\tdocs {len(docs)}\tCPU s {secs:.2f}\tdocs/s {len(docs) / secs:.0f}\trecall {recall:.4f}\tpeak RSS {rss:.0f} MiB")
