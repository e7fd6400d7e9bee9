//! pdfplumber's own text expectations (manifests/pdfplumber.json) against docsift.
//! Entries about tables, links and graphics belong to later stages and are listed, not run.

use std::path::Path;

use docsift::{Options, SplitAttr, TextOptions};
use docsift_tests::{Outcome, collapse_ws, corpus, extract_with, manifest, report, similarity, text_of_chars};
use serde_json::Value;

/// Where docsift's output differs from pdfplumber's on purpose, and why; these entries
/// are checked with a similarity of at least [`MIN_SIMILARITY`] instead of equality.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "scotus_p1_layout_text",
        "pdfplumber's layout mode pads with spaces to mimic positions; docsift gives the same words unpadded",
    ),
    (
        "scotus_p1_layout_text_cropped",
        "pdfplumber's layout mode pads with spaces to mimic positions; docsift gives the same words unpadded",
    ),
];
const MIN_SIMILARITY: f64 = 0.98;

/// Entries where docsift's defaults are better than pdfplumber's: they are checked with
/// pdfplumber's own settings (absolute 3pt tolerance), which must reproduce its output.
const PDFPLUMBER_SETTINGS: &[(&str, &str)] = &[(
    "issue192_words",
    "the subscript '8' sits 2.3pt (0.25 em) after 'Aaaaaabag': a word gap by docsift's font-relative rule (pdf.js also \
     spaces at 0.1 em); pdfplumber's absolute 3pt tolerance joins it",
)];

/// Expectations tied to pdfminer's layout analysis order, checked in reading order.
const READING_ORDER: &[(&str, &str)] = &[(
    "cupertino_first_char_top",
    "pdfplumber ran pdfminer's layout analysis (custom laparams), which reorders chars into text boxes; docsift keeps \
     chars in drawing order (two blank chars come first), so the first char of the reading order is compared",
)];

/// pdfplumber-only rendering options and expectations that need later stages.
const NOT_TEXT_EXTRACTION: &[(&str, &str)] = &[
    ("line_char_render_ttb_rtl", "pdfplumber-specific output re-ordering option (char_dir_render)"),
    ("line_char_render_btt_ltr", "pdfplumber-specific output re-ordering option (line_dir_render)"),
    ("line_char_render_btt_rtl", "pdfplumber-specific output re-ordering option"),
    ("line_char_render_ltr_ttb", "pdfplumber-specific output re-ordering option"),
    ("line_char_render_ltr_btt", "pdfplumber-specific output re-ordering option"),
    ("line_char_render_rtl_ttb", "pdfplumber-specific output re-ordering option"),
    ("line_char_render_rtl_btt", "pdfplumber-specific output re-ordering option"),
    ("nics_p1_outside_table", "needs the table finder (tables issue)"),
];

fn text_options(params: &Value) -> TextOptions {
    let mut t = TextOptions::default();
    if let Some(x) = params.get("x_tolerance").and_then(Value::as_f64) {
        t.x_tolerance = x as f32;
        t.x_tolerance_ratio = None;
    }
    if let Some(y) = params.get("y_tolerance").and_then(Value::as_f64) {
        t.y_tolerance = y as f32;
    }
    if let Some(attrs) = params.get("extra_attrs").and_then(Value::as_array) {
        t.split_on = attrs
            .iter()
            .filter_map(|a| match a.as_str()? {
                "fontname" => Some(SplitAttr::Font),
                "size" => Some(SplitAttr::Size),
                "non_stroking_color" => Some(SplitAttr::Color),
                _ => None,
            })
            .collect();
    }
    t.use_text_flow = params.get("use_text_flow").and_then(Value::as_bool).unwrap_or(false);
    t
}

fn pages_of(entry: &Value, count: usize) -> Vec<usize> {
    match &entry["page"] {
        Value::Number(n) => vec![n.as_u64().unwrap_or(1) as usize],
        Value::String(s) if s.contains('-') => {
            let (a, b) = s.split_once('-').unwrap_or(("1", "1"));
            (a.parse().unwrap_or(1)..=b.parse().unwrap_or(1)).collect()
        }
        _ => (1..=count).collect(),
    }
}

fn bbox_param(v: &Value, width: f32) -> Option<[f32; 4]> {
    let a = v.as_array()?;
    let n = |i: usize| {
        a.get(i).and_then(|x| if x.as_str() == Some("page_width") { Some(width as f64) } else { x.as_f64() })
    };
    Some([n(0)? as f32, n(1)? as f32, n(2)? as f32, n(3)? as f32])
}

fn check(corpus: &Path, entry: &Value) -> Result<String, String> {
    let id = entry["id"].as_str().unwrap_or("?");
    let file = corpus.join("pdfplumber").join(entry["file"].as_str().unwrap_or(""));
    let params = entry.get("params").cloned().unwrap_or(Value::Null);
    let mut topts = text_options(&params);
    if PDFPLUMBER_SETTINGS.iter().any(|(k, _)| *k == id) {
        topts = TextOptions { x_tolerance_ratio: None, ..topts };
    }
    let kind = entry["kind"].as_str().unwrap_or("");
    if kind == "error" {
        return match extract_with(&file, &Options::default()) {
            Err(e) => Ok(format!("typed error: {} ({})", e, e.code())),
            Ok(_) => Err("opened an empty file".into()),
        };
    }
    let doc = extract_with(&file, &Options { text: topts.clone(), ..Options::default() }).map_err(|e| e.to_string())?;
    let expected = &entry["expected"];
    let pages = pages_of(entry, doc.pages.len());
    let page = doc.pages.get(pages[0] - 1).ok_or("page missing")?;
    // The page text the entry speaks of, with crops and filters applied.
    let text = if let Some(b) = params.get("chars_within_bbox").and_then(|v| bbox_param(v, page.width)) {
        text_of_chars(
            page,
            |c| c.bbox.x0 >= b[0] && c.bbox.top >= b[1] && c.bbox.x1 <= b[2] && c.bbox.bottom <= b[3],
            &topts,
        )
    } else if let Some(b) = entry.get("crop").and_then(|v| bbox_param(v, page.width)) {
        text_of_chars(
            page,
            |c| c.bbox.x0 < b[2] && c.bbox.x1 > b[0] && c.bbox.top < b[3] && c.bbox.bottom > b[1],
            &topts,
        )
    } else if params.get("filter").and_then(Value::as_str) == Some("drop chars with size < 15") {
        text_of_chars(page, |c| c.size >= 15.0, &topts)
    } else {
        page.text.clone()
    };
    match kind {
        "text" => {
            let m = entry["match"].as_str().unwrap_or("exact");
            match m {
                "exact" => {
                    let want = expected.as_str().unwrap_or("");
                    if text == want {
                        return Ok("exact".into());
                    }
                    if let Some((_, why)) = KNOWN_DIFFERENCES.iter().find(|(k, _)| *k == id) {
                        let s = similarity(&collapse_ws(&text), &collapse_ws(want));
                        return if s >= MIN_SIMILARITY {
                            Ok(format!("similarity {s:.3} ({why})"))
                        } else {
                            Err(format!("similarity {s:.3} < {MIN_SIMILARITY}"))
                        };
                    }
                    Err(format!("got {:?}\nwant {:?}", text, want))
                }
                "contains" => {
                    let want = expected.as_str().unwrap_or("");
                    if !text.contains(want) {
                        return Err(format!("{want:?} not in {text:?}"));
                    }
                    if let Some(absent) = entry.get("expected_absent").and_then(Value::as_str)
                        && text.contains(absent)
                    {
                        return Err(format!("{absent:?} present"));
                    }
                    Ok("contains".into())
                }
                "contains_in_order" => {
                    let wants: Vec<&str> =
                        expected.as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
                    for p in &pages {
                        let t = collapse_ws(&doc.pages[p - 1].text);
                        let mut from = 0;
                        for w in &wants {
                            match t[from..].find(w) {
                                Some(i) => from += i + w.len(),
                                None => return Err(format!("page {p}: {w:?} missing (in order) from {t:?}")),
                            }
                        }
                    }
                    Ok(format!("in order on {} page(s)", pages.len()))
                }
                "line" => {
                    let i = entry["line_index"].as_u64().unwrap_or(0) as usize;
                    let line = text.lines().nth(i).unwrap_or("");
                    if line == expected.as_str().unwrap_or("") {
                        Ok("line".into())
                    } else {
                        Err(format!("line {i} is {line:?}"))
                    }
                }
                other => Err(format!("match kind {other} not handled")),
            }
        }
        "text_lines" => {
            let lines: Vec<&str> = text.lines().collect();
            let count = expected["count"].as_u64().unwrap_or(0) as usize;
            if lines.len() != count {
                return Err(format!("{} lines, want {count}", lines.len()));
            }
            for (k, v) in expected["lines"].as_object().into_iter().flatten() {
                let i: usize = k.parse().unwrap_or(0);
                if lines.get(i).copied() != v.as_str() {
                    return Err(format!("line {i} is {:?}, want {v}", lines.get(i)));
                }
            }
            Ok(format!("{count} lines"))
        }
        "words" => {
            if let Some(count) = expected.get("count").and_then(Value::as_u64) {
                return if page.words.len() as u64 == count {
                    Ok(format!("{count} words"))
                } else {
                    Err(format!("{} words, want {count}", page.words.len()))
                };
            }
            if let Some(want) = expected.as_str() {
                let flow: String = page.lines.iter().map(|l| format!("{}\n", l.text)).collect();
                return if flow.contains(want) {
                    Ok("text flow".into())
                } else {
                    Err(format!("{want:?} not in {flow:?}"))
                };
            }
            let i = expected["index"].as_u64().unwrap_or(0) as usize;
            let w = page.words.get(i).ok_or("word index out of range")?;
            if Some(w.text.as_str()) != expected["text"].as_str() {
                return Err(format!("word {i} is {:?}", w.text));
            }
            if let Some(size) = expected.get("size_rounded_2").and_then(Value::as_f64)
                && ((w.size as f64 * 100.0).round() / 100.0 - size).abs() > 0.011
            {
                return Err(format!("word size {}", w.size));
            }
            if let Some(nu) = expected.get("first_non_upright_word") {
                let first = page.words.iter().find(|w| !w.upright).ok_or("no non-upright word")?;
                if Some(first.text.as_str()) != nu["text"].as_str() {
                    return Err(format!("first non-upright word {:?}", first.text));
                }
            }
            Ok(format!("word {i} = {}", w.text))
        }
        "chars" if READING_ORDER.iter().any(|(k, _)| *k == id) => {
            let first = page.words.first().ok_or("no words")?;
            let want = expected["top"].as_f64().unwrap_or(f64::NAN) as f32;
            if (first.bbox.top - want).abs() < 0.002 {
                Ok(format!("first word top {}", first.bbox.top))
            } else {
                Err(format!("first word top {}", first.bbox.top))
            }
        }
        "chars" => check_chars(page, expected),
        "page" => {
            let w = expected["width"].as_f64().unwrap_or(0.0) as f32;
            let h = expected["height"].as_f64().unwrap_or(0.0) as f32;
            if (page.width - w).abs() > 0.01 || (page.height - h).abs() > 0.01 {
                return Err(format!("size {}x{}", page.width, page.height));
            }
            if let Some(n) = expected.get("page_count").and_then(Value::as_u64)
                && doc.meta.page_count as u64 != n
            {
                return Err(format!("{} pages", doc.meta.page_count));
            }
            Ok(format!("{w}x{h}"))
        }
        other => Err(format!("kind {other} not handled")),
    }
}

fn check_chars(page: &docsift::Page, expected: &Value) -> Result<String, String> {
    let chars = &page.chars;
    if let Some(n) = expected.get("count").and_then(Value::as_u64) {
        return if chars.len() as u64 == n {
            Ok(format!("{n} chars"))
        } else {
            Err(format!("{} chars, want {n}", chars.len()))
        };
    }
    if let Some(list) = expected.as_array() {
        // pdffill page 4: skewed and rotated glyphs; pdfplumber's matrix is in PDF space.
        for e in list {
            let i = e["index"].as_u64().unwrap_or(0) as usize;
            let c = chars.get(i).ok_or("index out of range")?;
            let [a, b, cc, d, ex, f] = c.matrix.0;
            // Back to PDF space (y up): flip the y axis of the displayed-page matrix.
            let (a, b, cc, d, ty) = (a, -b, cc, -d, page.height - f);
            let skew_x = (d.atan2(cc).to_degrees() - 90.0).round();
            let skew_y = b.atan2(a).to_degrees().round();
            let want = |k: &str| e[k].as_f64().unwrap_or(f64::NAN) as f32;
            if (ex.round() - want("translation_x")).abs() > 0.5 || (ty.round() - want("translation_y")).abs() > 0.5 {
                return Err(format!("char {i} at ({ex}, {ty})"));
            }
            if (skew_x - want("skew_x")).abs() > 0.5 && (skew_x + want("skew_x")).abs() > 0.5
                || (skew_y - want("skew_y")).abs() > 0.5
            {
                return Err(format!("char {i} skew ({skew_x}, {skew_y})"));
            }
        }
        return Ok(format!("{} matrices", list.len()));
    }
    let c = match expected.get("index").and_then(Value::as_u64) {
        Some(i) => chars.get(i as usize).ok_or("index out of range")?,
        None => {
            let t = expected["text"].as_str().unwrap_or("");
            let x0 = expected["x0"].as_f64().unwrap_or(0.0) as f32;
            chars.iter().find(|c| c.text == t && (c.bbox.x0 - x0).abs() < 0.01).ok_or("char not found")?
        }
    };
    let close = |k: &str, v: f32| expected.get(k).and_then(Value::as_f64).is_none_or(|w| (w as f32 - v).abs() < 0.002);
    let fields =
        [("top", c.bbox.top), ("bottom", c.bbox.bottom), ("x0", c.bbox.x0), ("x1", c.bbox.x1), ("size", c.size)];
    for (k, v) in fields {
        if !close(k, v) {
            return Err(format!("{k} = {v}, want {}", expected[k]));
        }
    }
    if let Some(font) = expected.get("fontname").and_then(Value::as_str)
        && &*c.font != font
    {
        return Err(format!("font {}", c.font));
    }
    if let Some(color) = expected.get("non_stroking_color").and_then(Value::as_array) {
        let want: Vec<f32> = color.iter().filter_map(Value::as_f64).map(|v| v as f32).collect();
        if *c.color != *want {
            return Err(format!("color {:?}", c.color));
        }
    }
    Ok(format!("char {:?}", c.text))
}

#[test]
fn pdfplumber_text_expectations() {
    let Some(corpus) = corpus() else { return };
    let m = manifest(&corpus, "pdfplumber");
    let mut outcomes = Vec::new();
    for entry in m["entries"].as_array().expect("entries") {
        let id = entry["id"].as_str().unwrap_or("?").to_string();
        let kind = entry["kind"].as_str().unwrap_or("");
        if matches!(kind, "table" | "links" | "graphics") {
            continue;
        }
        if let Some((_, why)) = NOT_TEXT_EXTRACTION.iter().find(|(k, _)| *k == id) {
            println!("skip {id:<40} {why}");
            continue;
        }
        outcomes.push(Outcome::of(id, check(&corpus, entry)));
    }
    report("pdfplumber", &outcomes);
}
