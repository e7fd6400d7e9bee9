fn main() {
    let args: Vec<String> = std::env::args().collect();
    let unit = &args[1];
    let mb: usize = args[2].parse().unwrap();
    let s = unit.repeat((mb << 20) / unit.len()) + "<p>the end of a very deep nest, with some words to read.</p>";
    let t = std::time::Instant::now();
    let page = docsift_html::parse(s.as_bytes());
    eprintln!("parse {:?} nodes {}", t.elapsed(), page.dom.len());
    let t = std::time::Instant::now();
    let d = docsift::extract_html(s.as_bytes(), &Default::default()).unwrap();
    eprintln!("extract {:?} article {} text {:?}", t.elapsed(), d.article, &d.text[..d.text.len().min(80)]);
}
