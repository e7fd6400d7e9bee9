//! Charset detection on chardet's test corpus (manifests/chardet.json): per label and
//! overall, a guess is right when it decodes the bytes to the same text as the label.

use std::collections::BTreeMap;

use docsift_tests::{corpus, manifest};

/// Python codec names (the corpus labels) that WHATWG spells differently.
fn whatwg_label(python: &str) -> &str {
    match python {
        "cp932" => "shift_jis",
        "cp949" => "euc-kr",
        "maccyrillic" => "x-mac-cyrillic",
        "tis-620" => "windows-874",
        "utf-8-sig" => "utf-8",
        "ascii" => "windows-1252",
        other => other,
    }
}

/// Text under the label (docsift-html adds IBM855 and UTF-32 to encoding_rs), or None when
/// no decoder exists here (EUC-TW, Johab, ISO-2022-KR).
fn decode_as(label: &str, bytes: &[u8]) -> Option<String> {
    docsift_html::decode_label(whatwg_label(label), bytes)
}

fn normalize(s: &str) -> String {
    s.trim_start_matches('\u{FEFF}').replace("\r\n", "\n")
}

#[test]
fn chardet_corpus_detection_accuracy() {
    let Some(corpus) = corpus() else { return };
    let m = manifest(&corpus, "chardet");
    let mut per_label: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for f in m["files"].as_array().expect("files") {
        let label = f["encoding"].as_str().unwrap_or("").to_string();
        let name = f["file"].as_str().unwrap_or("");
        let bytes = std::fs::read(corpus.join("chardet").join(name)).expect("corpus file");
        let got = docsift_html::decode(&bytes, true);
        let right = decode_as(&label, &bytes).is_some_and(|want| normalize(&want) == normalize(&got.text));
        let e = per_label.entry(label.clone()).or_default();
        e.0 += 1;
        if right {
            e.1 += 1;
        } else {
            misses.push(format!("{name}: {label} -> {} ({:?})", got.encoding, got.decided));
        }
    }
    let total: usize = per_label.values().map(|v| v.0).sum();
    let right: usize = per_label.values().map(|v| v.1).sum();
    println!("label           files  right");
    for (label, (n, ok)) in &per_label {
        println!("{label:<15} {n:>5}  {ok:>5}");
    }
    for miss in misses.iter().take(40) {
        println!("miss {miss}");
    }
    let accuracy = right as f64 / total as f64;
    println!("overall: {right}/{total} = {accuracy:.3} (issue target 0.95)");
    assert!(accuracy >= 0.95, "accuracy {accuracy:.3} below the 0.95 target");
}
