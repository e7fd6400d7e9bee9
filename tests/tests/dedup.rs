//! Near-duplicate detection: the Clough & Stevenson text-reuse pairs (manifests/neardup),
//! a generated corpus with planted near-copies, and large inputs.

use docsift::dedup::{Config, Index, Shingles, containment, jaccard, normalize, shingle};
use docsift_tests::neardup::{Rng, VOCABULARY, edited};
use docsift_tests::{corpus, manifest};
use serde_json::Value;

#[test]
fn planted_near_copies_are_found_with_full_precision() {
    let planted = docsift_tests::neardup::planted_corpus(42);
    let (docs, truth) = (planted.docs, planted.truth);
    let mut index = Index::new(Config { threshold: 0.8, shingles: Shingles::Words(1), ..Config::default() });
    let mut found = std::collections::HashSet::new();
    let mut false_pairs = Vec::new();
    for (id, text) in &docs {
        for (other, _, _) in index.add(id, text) {
            let pair = (other.clone(), id.clone());
            if truth.contains(&pair) {
                found.insert(pair);
            } else if !(other.starts_with("copy") && id.starts_with("copy")) {
                false_pairs.push(pair);
            }
        }
    }
    // Two copies of the same base are near-duplicates of each other too: true, not false.
    let recall = found.len() as f64 / truth.len() as f64;
    println!(
        "planted pairs: {}, found: {}, recall {recall:.4}, false pairs {}",
        truth.len(),
        found.len(),
        false_pairs.len()
    );
    assert!(recall >= 0.99, "recall {recall}");
    assert!(false_pairs.is_empty(), "false pairs: {:?}", &false_pairs[..false_pairs.len().min(5)]);
}

#[test]
fn clough_stevenson_pairs_by_category() {
    let Some(corpus) = corpus() else { return };
    let m = manifest(&corpus, "neardup");
    let dir = corpus.join("neardup/udacity-ML_SageMaker_Studies").join(m["files_dir"].as_str().unwrap_or(""));
    let read = |f: &str| String::from_utf8_lossy(&std::fs::read(dir.join(f)).expect("corpus file")).into_owned();
    let threshold = Config::default().threshold;
    let mut by_cat: std::collections::BTreeMap<String, Vec<(f64, f64)>> = Default::default();
    let mut decided = Vec::new();
    for p in m["pairs"].as_array().expect("pairs") {
        let (a, b) = (read(p["a"].as_str().unwrap_or("")), read(p["b"].as_str().unwrap_or("")));
        let (na, nb) = (normalize(&a), normalize(&b));
        let (sa, sb) = (shingle(&na, Shingles::Words(3)), shingle(&nb, Shingles::Words(3)));
        let (j, c) = (jaccard(&sa, &sb), containment(&sa, &sb));
        let cat = p["category"].as_str().unwrap_or("?").to_string();
        by_cat.entry(cat).or_default().push((j, c));
        // The index's own decision at the default threshold (word sets, as `docsift dedup`).
        let mut index = Index::new(Config::default());
        index.add("source", &b);
        let flagged = !index.add("answer", &a).is_empty();
        if let Some(label) = p["label_near_duplicate"].as_bool() {
            decided.push((label, flagged, c));
        }
    }
    println!("category  n   jaccard(w3) mean/min/max     containment(w3) mean/min/max");
    for (cat, v) in &by_cat {
        let stat = |f: fn(&(f64, f64)) -> f64| {
            let xs: Vec<f64> = v.iter().map(f).collect();
            (
                xs.iter().sum::<f64>() / xs.len() as f64,
                xs.iter().cloned().fold(f64::INFINITY, f64::min),
                xs.iter().cloned().fold(0.0, f64::max),
            )
        };
        let (jm, jn, jx) = stat(|p| p.0);
        let (cm, cn, cx) = stat(|p| p.1);
        println!("{cat:<8} {:>3}   {jm:.3}/{jn:.3}/{jx:.3}            {cm:.3}/{cn:.3}/{cx:.3}", v.len());
    }
    let acc = |pred: &dyn Fn(&(bool, bool, f64)) -> bool| {
        decided.iter().filter(|d| pred(d) == d.0).count() as f64 / decided.len() as f64
    };
    let default_acc = acc(&|d| d.1);
    let containment_acc = acc(&|d| d.2 >= threshold);
    // The best containment cut shows how separable reuse is from independent writing.
    let best = (1..100)
        .map(|t| (t as f64 / 100.0, acc(&|d| d.2 >= t as f64 / 100.0)))
        .fold((0.0, 0.0), |b, x| if x.1 > b.1 { x } else { b });
    println!(
        "cut+light vs non ({} pairs): accuracy at threshold {threshold}: index {default_acc:.3}, containment {containment_acc:.3}; best containment cut {:.2} -> {:.3}",
        decided.len(),
        best.0,
        best.1
    );
    // Independent answers are never flagged; reuse is separable by containment.
    assert!(decided.iter().filter(|d| !d.0).all(|d| !d.1), "an independent answer was flagged");
    assert!(best.1 >= 0.95, "best containment accuracy {}", best.1);
}

#[test]
fn ten_megabyte_texts() {
    let mut rng = Rng(7);
    let words: Vec<String> = (0..1_700_000).map(|_| format!("w{}", rng.below(VOCABULARY))).collect();
    let big = words.join(" ");
    assert!(big.len() > 10_000_000);
    let mut index = Index::new(Config { shingles: Shingles::Words(3), ..Config::default() });
    index.add("big", &big);
    let copy = edited(&mut rng, &words, 0.01).join(" ");
    let m = index.add("big-copy", &copy);
    assert_eq!(m.first().map(|m| m.0.as_str()), Some("big"));
    let bytes = index.to_bytes();
    assert_eq!(Index::from_bytes(&bytes).map(|i| i.len()).ok(), Some(2));
}

#[test]
fn cli_json_shape() {
    // The facade's text_of feeds the CLI: PDFs by their text, text files as they are.
    let text = docsift::text_of(b"plain words here", &docsift::Options::default()).unwrap();
    assert_eq!(text, "plain words here");
    let err = docsift::text_of(b"\x00\x01binary", &docsift::Options::default()).unwrap_err();
    assert_eq!(err.kind, docsift::ErrorKind::Unsupported);
    let html = docsift::text_of(
        b"<!doctype html><title>t</title><p>Hello <b>there</b></p><script>x()</script>",
        &docsift::Options::default(),
    );
    assert_eq!(html.unwrap(), "Hello there");
    // windows-1252 bytes, no declaration: detected and decoded.
    let latin1 = docsift::text_of(
        b"Il r\xe9pondit que \xe7a co\xfbte tr\xe8s cher, \xe9videmment, m\xeame en \xe9t\xe9.",
        &docsift::Options::default(),
    );
    assert!(latin1.unwrap().contains("très"));
    let mut index = Index::new(Config::default());
    index.add("a.txt", "the same short note about the meeting on tuesday morning");
    index.add("b.txt", "the same short note about the meeting on tuesday morning!");
    let json = serde_json::json!({ "groups": index.groups() });
    let g = &json["groups"][0];
    assert_eq!(g["members"], Value::from(vec!["a.txt", "b.txt"]));
    assert_eq!(g["pairs"][0]["method"], "exact");
}
