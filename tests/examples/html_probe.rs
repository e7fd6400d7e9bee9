//! Where `docsift html` spends its time: decoding and parsing alone vs the whole
//! extraction, best of 10 passes over the given files.
fn main() {
    let files: Vec<Vec<u8>> = std::env::args().skip(1).map(|f| std::fs::read(f).unwrap()).collect();
    let best = |f: &dyn Fn(&[u8])| {
        (0..10)
            .map(|_| {
                let t = std::time::Instant::now();
                files.iter().for_each(|b| f(b));
                t.elapsed().as_secs_f64() * 1000.0 / files.len() as f64
            })
            .fold(f64::INFINITY, f64::min)
    };
    let decode = best(&|b| drop(docsift_html::decode(b, true)));
    let parse = best(&|b| drop(docsift_html::parse(b)));
    let clone = best(&|b| {
        let mut d = docsift_html::parse(b).dom;
        let body = d.body().unwrap();
        d.deep_clone(body);
    });
    let full = best(&|b| drop(docsift_html::read_html(b, &Default::default())));
    println!("ms/page: decode {decode:.3}, decode+parse {parse:.3}, +clone {clone:.3}, read_html {full:.3}");
}
