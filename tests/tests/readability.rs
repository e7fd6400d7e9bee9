//! Main-content extraction on Mozilla Readability's test pages (manifests/readability.json):
//! the article's text against expected.html's as token F1, the metadata fields against
//! expected-metadata.json, and the isProbablyReaderable flag.

use docsift_html::{Dom, Options, readability, text_of};
use docsift_tests::{corpus, manifest, token_f1};

/// The address Readability's own test harness gives every page.
const TEST_URL: &str = "http://fakehost/test/page.html";

struct Score {
    id: String,
    f1: f64,
    title: bool,
    byline: bool,
    excerpt: bool,
    site_name: bool,
    /// lang, dir and publishedTime, each checked where the page expects a value.
    others: bool,
    readerable: bool,
}

fn same(got: &Option<String>, want: &serde_json::Value) -> bool {
    got.as_deref() == want.as_str()
}

#[test]
fn readability_corpus_text_metadata_and_readerable() {
    let Some(corpus) = corpus() else { return };
    let m = manifest(&corpus, "readability");
    let base = corpus.join("readability");
    let opts =
        Options { url: Some(TEST_URL.into()), classes_to_preserve: vec!["caption".into()], ..Options::default() };
    let mut scores = Vec::new();
    for case in m["cases"].as_array().expect("cases") {
        let id = case["id"].as_str().unwrap_or("").to_string();
        let source = std::fs::read(base.join(case["source"].as_str().unwrap())).expect("source");
        let expected = std::fs::read_to_string(base.join(case["expected_html"].as_str().unwrap())).expect("expected");
        let want = text_of(&Dom::parse(&expected));
        assert!(!want.is_empty(), "{id}: expected.html has no text");
        let page = docsift_html::parse(&source);
        let article = readability::extract(page.dom, &opts);
        let meta = case["expected_metadata"].clone();
        let (text, md) = match &article {
            Some(a) => (a.text(), a.meta.clone()),
            None => (String::new(), Default::default()),
        };
        scores.push(Score {
            f1: token_f1(&text, &want),
            title: same(&md.title, &meta["title"]),
            byline: same(&md.byline, &meta["byline"]),
            excerpt: same(&md.excerpt, &meta["excerpt"]),
            site_name: same(&md.site_name, &meta["siteName"]),
            others: [(&md.lang, "lang"), (&md.dir, "dir"), (&md.published_time, "publishedTime")]
                .iter()
                .all(|(got, key)| meta[*key].is_null() || same(got, &meta[*key])),
            readerable: docsift_html::is_probably_readerable(&docsift_html::parse(&source).dom)
                == meta["readerable"].as_bool().unwrap_or(false),
            id,
        });
        if std::env::var("DOCSIFT_VERBOSE").is_ok() {
            let s = scores.last().unwrap();
            println!("-- {}: {} chars, want {}", s.id, text.len(), want.len());
            if s.f1 < 0.98 || !s.title || !s.byline {
                println!(
                    "-- {}: title {:?} want {}; byline {:?} want {}",
                    s.id, md.title, meta["title"], md.byline, meta["byline"]
                );
            }
        }
    }
    let n = scores.len() as f64;
    println!("{:<45} {:>6}  title byline excerpt site other readerable", "page", "F1");
    for s in &scores {
        let mark = |b: bool| if b { "ok" } else { "--" };
        println!(
            "{:<45} {:>6.3}  {:<5} {:<6} {:<7} {:<4} {:<5} {}",
            s.id,
            s.f1,
            mark(s.title),
            mark(s.byline),
            mark(s.excerpt),
            mark(s.site_name),
            mark(s.others),
            mark(s.readerable)
        );
    }
    let mean = scores.iter().map(|s| s.f1).sum::<f64>() / n;
    let frac = |f: &dyn Fn(&Score) -> bool| scores.iter().filter(|s| f(s)).count() as f64 / n;
    let above = frac(&|s| s.f1 >= 0.9);
    let title = frac(&|s| s.title);
    let byline = frac(&|s| s.byline);
    let excerpt = frac(&|s| s.excerpt);
    let site = frac(&|s| s.site_name);
    let others = frac(&|s| s.others);
    let readerable = frac(&|s| s.readerable);
    println!(
        "pages {n}: mean F1 {mean:.4}, F1>=0.9 {:.1}%, title {:.1}%, byline {:.1}%, excerpt {:.1}%, siteName {:.1}%, lang/dir/publishedTime {:.1}%, readerable {:.1}%",
        above * 100.0,
        title * 100.0,
        byline * 100.0,
        excerpt * 100.0,
        site * 100.0,
        others * 100.0,
        readerable * 100.0
    );
    assert!(mean >= 0.98, "mean F1 {mean:.4} < 0.98");
    assert!(above >= 0.95, "{:.1}% of pages at F1 >= 0.9 (< 95%)", above * 100.0);
    assert!(title >= 0.9 && byline >= 0.9, "title {title:.3}, byline {byline:.3} (< 0.9)");
    assert!(readerable >= 0.95, "readerable right on {readerable:.3} (< 0.95)");
}
