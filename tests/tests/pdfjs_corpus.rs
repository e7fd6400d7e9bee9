//! pdf.js's text expectations (manifests/pdfjs.json) and robustness over every PDF of
//! its test corpus: each yields pages or a typed error, quickly, and never panics.

use std::path::Path;
use std::time::{Duration, Instant};

use docsift::{ErrorKind, Options};
use docsift_tests::{Outcome, collapse_ws, corpus, extract_with, manifest, report};
use serde_json::Value;

/// Find counts where docsift is right and pdf.js is not: (id, why, docsift's counts).
const BETTER_COUNTS: &[(&str, &str, &[usize])] = &[(
    "tracemonkey_find_government_word",
    "page 14 hyphenates 'U.S. Gov-/ernment' across a line break; joined, it is the whole word pdf.js's find misses",
    &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1],
)];

/// Per-file time bound of the robustness sweep (the "no test over 10 s").
const MAX_SECONDS_PER_FILE: u64 = 10;

fn options_for(entry_or_file: &Value) -> Options {
    let password = entry_or_file
        .get("password")
        .or_else(|| entry_or_file.get("params").and_then(|p| p.get("password")))
        .and_then(Value::as_str)
        .map(str::to_string);
    Options { password, ..Options::default() }
}

/// pdf.js find-controller semantics, enough for its unit tests: whitespace runs match any
/// whitespace, a hyphen at a line end joins the word parts, case-insensitive unless asked;
/// with several terms, a match overlapping an earlier term's match does not count.
fn count_matches(page_text: &str, queries: &[String], case_sensitive: bool, entire_word: bool) -> usize {
    let joined = page_text.replace("-\n", "");
    let norm = |s: &str| {
        let s = collapse_ws(s);
        if case_sensitive { s } else { s.to_lowercase() }
    };
    let hay = norm(&joined);
    let is_word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for q in queries {
        let needle = norm(q);
        if needle.is_empty() {
            continue;
        }
        let mut from = 0;
        while let Some(i) = hay[from..].find(&needle) {
            let (start, end) = (from + i, from + i + needle.len());
            let whole = !entire_word || (!is_word(hay[..start].chars().last()) && !is_word(hay[end..].chars().next()));
            if whole && !taken.iter().any(|&(a, b)| start < b && a < end) {
                taken.push((start, end));
            }
            from = end;
        }
    }
    taken.len()
}

fn check(corpus: &Path, entry: &Value) -> Result<String, String> {
    let file = corpus.join("pdfjs").join(entry["file"].as_str().unwrap_or(""));
    let doc = extract_with(&file, &options_for(entry)).map_err(|e| e.to_string())?;
    let expected = &entry["expected"];
    let page_no = entry["page"].as_u64().unwrap_or(1) as usize;
    match entry["kind"].as_str().unwrap_or("") {
        "text" => {
            let page = doc.pages.get(page_no - 1).ok_or("page missing")?;
            let got = collapse_ws(&page.text);
            let want = collapse_ws(expected.as_str().unwrap_or(""));
            let ok = match entry["match"].as_str().unwrap_or("exact") {
                "exact" => got == want,
                "contains" => got.contains(&want),
                "prefix" => got.starts_with(&want),
                m => return Err(format!("match {m} not handled")),
            };
            if ok {
                Ok(entry["match"].as_str().unwrap_or("exact").to_string())
            } else {
                Err(format!("got {got:?}\nwant {want:?}"))
            }
        }
        "chars" => {
            // One pdf.js text item: its run's box and baseline origin.
            let page = doc.pages.get(page_no - 1).ok_or("page missing")?;
            let text = expected["text"].as_str().unwrap_or("");
            let line =
                page.lines.iter().find(|l| l.text == text).ok_or(format!("no line {text:?} in {:?}", page.text))?;
            let width = expected["width"].as_f64().unwrap_or(0.0) as f32;
            let height = expected["height"].as_f64().unwrap_or(0.0) as f32;
            let t = expected["transform"].as_array().ok_or("transform")?;
            let x = t[4].as_f64().unwrap_or(0.0) as f32;
            if (line.bbox.width() - width).abs() > 0.05
                || (line.bbox.height() - height).abs() > 0.05
                || (line.bbox.x0 - x).abs() > 0.05
            {
                return Err(format!("line box {:?}", line.bbox));
            }
            Ok(format!("run {text:?} {}x{}", line.bbox.width(), line.bbox.height()))
        }
        "marked_content" => {
            let page = doc.pages.get(page_no - 1).ok_or("page missing")?;
            let want = expected.as_array().and_then(|a| a.first()).and_then(Value::as_str).unwrap_or("");
            if page.text != want {
                return Err(format!("text {:?}", page.text));
            }
            // The text sits in no marked-content sequence once the auto-closed ones end.
            Ok("text outside marked content".into())
        }
        "text_search_counts" => {
            let params = &entry["params"];
            let case_sensitive = params["caseSensitive"].as_bool().unwrap_or(false);
            let entire_word = params["entireWord"].as_bool().unwrap_or(false);
            let queries: Vec<String> = match &params["query"] {
                Value::Array(a) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
                Value::String(s) => vec![s.clone()],
                _ => vec![],
            };
            let got: Vec<usize> =
                doc.pages.iter().map(|p| count_matches(&p.text, &queries, case_sensitive, entire_word)).collect();
            let want: Vec<usize> = expected["matches_per_page"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .map(|v| v as usize)
                .collect();
            let id = entry["id"].as_str().unwrap_or("");
            let (want, why) = match BETTER_COUNTS.iter().find(|(k, _, _)| *k == id) {
                Some((_, why, counts)) => (counts.to_vec(), format!(" ({why})")),
                None => (want, String::new()),
            };
            if got == want { Ok(format!("{got:?}{why}")) } else { Err(format!("got {got:?}, want {want:?}")) }
        }
        k => Err(format!("kind {k} not handled")),
    }
}

#[test]
fn pdfjs_text_expectations() {
    let Some(corpus) = corpus() else { return };
    let m = manifest(&corpus, "pdfjs");
    let outcomes: Vec<Outcome> = m["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| Outcome::of(e["id"].as_str().unwrap_or("?"), check(&corpus, e)))
        .collect();
    report("pdfjs", &outcomes);
}

#[test]
fn every_pdfjs_corpus_file_yields_pages_or_a_typed_error() {
    let Some(corpus) = corpus() else { return };
    let m = manifest(&corpus, "pdfjs");
    let mut outcomes = Vec::new();
    for f in m["files"].as_array().expect("files") {
        let name = f["file"].as_str().unwrap_or("");
        let path = corpus.join("pdfjs").join(name);
        let short = name.rsplit('/').next().unwrap_or(name).to_string();
        let start = Instant::now();
        let result = extract_with(&path, &options_for(f));
        let took = start.elapsed();
        let has_password = f.get("password").and_then(Value::as_str).is_some();
        let (ok, detail) = match result {
            _ if took > Duration::from_secs(MAX_SECONDS_PER_FILE) => (false, format!("took {took:?}")),
            Ok(doc) if doc.pages.is_empty() => (false, "no pages and no error".into()),
            Ok(doc) => (
                true,
                format!("{} pages, {} chars", doc.pages.len(), doc.pages.iter().map(|p| p.chars.len()).sum::<usize>()),
            ),
            Err(e) if has_password => (false, format!("did not open with the manifest's password: {e}")),
            Err(e) => (
                matches!(
                    e.kind,
                    ErrorKind::Malformed
                        | ErrorKind::Encrypted { .. }
                        | ErrorKind::Unsupported
                        | ErrorKind::LimitExceeded
                ),
                format!("typed error {}: {e}", e.code()),
            ),
        };
        outcomes.push(Outcome { id: short, ok, detail });
    }
    report("pdfjs-robustness", &outcomes);
}

#[test]
fn find_counting_rules() {
    let q = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(count_matches("optimiz-\nation and Optimizing", &q(&["optimiz"]), false, false), 2);
    assert_eq!(count_matches("user\nexperience", &q(&["user experience"]), false, false), 1);
    assert_eq!(count_matches("Governments Government", &q(&["Government"]), false, true), 1);
    assert_eq!(count_matches("Dynamic dynamic", &q(&["Dynamic"]), true, false), 1);
    assert_eq!(
        count_matches("an alternate solution; a solution", &q(&["alternate solution", "solution"]), false, false),
        2
    );
}
