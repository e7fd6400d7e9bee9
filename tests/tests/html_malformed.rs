//! Hostile and broken HTML: every input gives a result or a typed error, without panics
//! and in time linear in its size (html5ever's tree builder alone is quadratic in nesting
//! depth; docsift-html cuts nesting before it).

use std::time::{Duration, Instant};

use docsift::{HtmlOptions, extract_html};

const MB: usize = 1 << 20;

fn read(html: &[u8]) -> (Duration, Result<docsift::HtmlDocument, docsift::Error>) {
    let t = Instant::now();
    let r = extract_html(html, &HtmlOptions::default());
    (t.elapsed(), r)
}

/// `unit` repeated to about `bytes`, then `tail`.
fn repeated(unit: &str, bytes: usize, tail: &str) -> Vec<u8> {
    let mut s = unit.repeat(bytes / unit.len());
    s.push_str(tail);
    s.into_bytes()
}

/// Growing the input tenfold must not grow the time a hundredfold: linear work gives
/// about 10×; quadratic gives 100×. The bound leaves room for a noisy machine.
const MAX_GROWTH: f64 = 35.0;

fn assert_linear(unit: &str, small_bytes: usize, tail: &str, check: impl Fn(&docsift::HtmlDocument)) {
    let (small, r) = read(&repeated(unit, small_bytes, tail));
    check(&r.expect("small result"));
    let (big, r) = read(&repeated(unit, 10 * small_bytes, tail));
    check(&r.expect("big result"));
    let growth = big.as_secs_f64() / small.as_secs_f64().max(1e-3);
    println!(
        "{unit:?}: {} KB {small:?}, {} KB {big:?}, growth {growth:.1}x",
        small_bytes >> 10,
        (10 * small_bytes) >> 10
    );
    assert!(growth < MAX_GROWTH, "{unit:?}: 10x input took {growth:.1}x the time");
}

#[test]
fn ten_megabytes_of_nested_divs_are_linear() {
    assert_linear("<div>", MB, "<p>the end of a very deep nest, with some words to read.</p>", |d| {
        assert!(d.text.contains("the end of a very deep nest"), "{}", &d.text[..d.text.len().min(200)]);
    });
}

#[test]
fn unclosed_inline_and_table_tags_are_linear() {
    assert_linear("<b><i>x ", MB / 4, "", |d| assert!(d.text.starts_with("x x")));
    assert_linear("<table><tr><td>", MB / 4, "cell", |d| assert!(d.text.contains("cell")));
    assert_linear("<a href=#>link ", MB / 4, "", |d| assert!(d.text.contains("link")));
    assert_linear("<p>para, ", MB / 4, "", |d| assert!(d.text.contains("para")));
}

#[test]
fn unclosed_and_misnested_markup_still_reads() {
    let (_, r) = read(b"<html><title>T</title><body><div><p>One, <b>two <i>three</b> four</i><p>Five<table><td>six");
    let d = r.expect("result");
    for w in ["One", "two", "three", "four", "Five", "six"] {
        assert!(d.text.contains(w), "{w} missing from {:?}", d.text);
    }
}

#[test]
fn binary_garbage_gives_result_or_typed_error() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut garbage = Vec::with_capacity(MB);
    for _ in 0..MB {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        garbage.push(state as u8);
    }
    match read(&garbage).1 {
        Ok(d) => assert!(!d.encoding.is_empty()),
        Err(e) => assert_eq!(e.kind, docsift::ErrorKind::Unsupported),
    }
    // The same bytes behind an HTML start are decoded and parsed, never rejected.
    let mut html = b"<!doctype html><p>".to_vec();
    html.extend_from_slice(&garbage);
    assert!(read(&html).1.is_ok());
}
