//! Prints what OCR sees on a page: each line's angle, confidence, box and text, with the
//! time of each stage. `cargo run --release -p docsift-tests --example ocr_probe -- FILE [PAGE]`

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: ocr_probe FILE [PAGE]");
    let page: usize = args.next().and_then(|p| p.parse().ok()).unwrap_or(1);
    let t = Instant::now();
    let engine =
        docsift::OcrModels::from_dir(docsift::default_models_dir(), docsift::OcrScript::All).engine().expect("models");
    eprintln!("load {:?}", t.elapsed());
    let bytes = std::fs::read(&path).expect("file");
    let img = match docsift::sniff(&bytes) {
        Some(docsift::Format::Pdf) => {
            let png = docsift::render_page_png(&bytes, None, page, 200.0).expect("render");
            docsift::ocr_models::decode_image(&png).expect("png")
        }
        _ => docsift::ocr_models::decode_image(&bytes).expect("image"),
    };
    eprintln!("image {}x{}", img.width(), img.height());
    for round in 0..2 {
        let mut last = Instant::now();
        let mut on_step = |s: docsift::ocr_models::Step| {
            eprintln!("  round {round} {:?} after {:?}", s, last.elapsed());
            last = Instant::now();
            true
        };
        let t = Instant::now();
        let lines = docsift::ocr_models::now(engine.read_lines(&img, &mut on_step)).expect("ocr");
        eprintln!("round {round}: {} lines in {:?}", lines.len(), t.elapsed());
        if round == 1 {
            for l in &lines {
                let [x0, y0, x1, y1] = l.quad.bounds();
                println!(
                    "{:6.1}° {:.2} [{x0:.0},{y0:.0},{x1:.0},{y1:.0}] {}",
                    l.quad.angle().to_degrees(),
                    l.confidence,
                    l.text
                );
            }
        }
    }
}
