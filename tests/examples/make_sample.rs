//! Writes samples/sample.pdf, the document `npm start` extracts: a title, two columns,
//! a ligature and a Euro sign, a small table, rotated and Japanese text.
//! Run: cargo run -p docsift-tests --example make_sample

use docsift_tests::build::Builder;
use lopdf::{Dictionary, Object, dictionary};

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)")
}

fn main() {
    let mut b = Builder::new();
    let font = |base: &str| dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => base, "Encoding" => "WinAnsiEncoding" };
    let jp = dictionary! { "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "KozMinPr6N-Regular", "Encoding" => "UniJIS-UTF16-H",
    "DescendantFonts" => vec![Object::Dictionary(dictionary! { "Type" => "Font", "Subtype" => "CIDFontType0", "BaseFont" => "KozMinPr6N-Regular",
        "CIDSystemInfo" => dictionary! { "Registry" => Object::string_literal("Adobe"), "Ordering" => Object::string_literal("Japan1"), "Supplement" => 6 } })] };
    let resources = dictionary! { "Font" => dictionary! {
        "H" => font("Helvetica"), "HB" => font("Helvetica-Bold"), "T" => font("Times-Roman"),
        "TS" => dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Times-Roman" },
        "J" => jp,
    } };
    let left = [
        "docsift reads PDFs in your browser:",
        "nothing is uploaded, ever. Every",
        "character comes with its box, in",
        "points from the top-left corner of",
        "the page, like pdfplumber.",
    ];
    let right = [
        "Two columns are read one after the",
        "other, not line by line across the",
        "gutter. Ligatures such as the one in",
        "\u{1}nal are spelled out, and prices",
        "like 42 \u{80} keep their currency sign.",
    ];
    let mut c = String::from("BT /HB 22 Tf 72 720 Td (docsift sample document) Tj ET\n");
    c += "BT /H 11 Tf 72 696 Td (Private document extraction, locally) Tj ET\n0.5 w 72 684 m 540 684 l S\n";
    for (i, l) in left.iter().enumerate() {
        c += &format!("BT /T 11 Tf 72 {} Td ({}) Tj ET\n", 660 - 14 * i, esc(l));
    }
    for (i, l) in right.iter().enumerate() {
        // \x01 marks the fi ligature: StandardEncoding code 174 in the Times font without WinAnsi.
        let parts: Vec<&str> = l.split('\u{1}').collect();
        let shown = if parts.len() == 2 {
            format!("({}) Tj /TS 11 Tf (\\256) Tj /T 11 Tf ({})", esc(parts[0]), esc(parts[1]))
        } else {
            format!("({})", esc(l).replace('\u{80}', "\\200"))
        };
        c += &format!("BT /T 11 Tf 320 {} Td {} Tj ET\n", 660 - 14 * i, shown);
    }
    c += "BT /HB 12 Tf 72 560 Td (Quarterly figures) Tj ET\n";
    let rows =
        [["Quarter", "Revenue", "Growth"], ["Q1", "1,200", "4.1%"], ["Q2", "1,350", "12.5%"], ["Q3", "1,410", "4.4%"]];
    for (r, row) in rows.iter().enumerate() {
        let y = 536 - 20 * r as i32;
        for (k, cell) in row.iter().enumerate() {
            c += &format!("BT /{} 10 Tf {} {} Td ({}) Tj ET\n", if r == 0 { "HB" } else { "H" }, 80 + 120 * k, y, cell);
        }
        c += &format!("72 {} m 432 {} l S\n", y - 6, y - 6);
    }
    c += "BT /H 9 Tf 0 1 -1 0 560 300 Tm (Rotated margin note) Tj ET\n";
    // 日本語のテキスト in UTF-16BE through the predefined UniJIS-UTF16-H CMap.
    c += "BT /J 14 Tf 72 420 Td <65E5672C8A9E306E30C630AD30B930C8> Tj ET\n";
    c += "BT /H 8 Tf 72 60 Td (Page 1 of 1) Tj ET\n";
    b.page(resources, &c, Dictionary::new());
    let bytes = b.finish();
    let out = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/sample.pdf");
    std::fs::write(out, bytes).expect("write samples/sample.pdf");
    println!("wrote {out}");
}
