//! `docsift`: a thin command-line front-end over the facade.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use docsift::{Document, Error, Options, parse_page_list};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(name = "docsift", version, about = "Extract text with coordinates from documents, locally.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Each page's text; pages separated by a form feed.
    Text,
    /// One word per line: page, x0, top, x1, bottom, OCR confidence (empty for native
    /// text), text (tab-separated).
    Words,
    /// One character per line: page, x0, top, x1, bottom, font, size, text.
    Chars,
    /// The versioned JSON document, one per input file and line.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum OcrArg {
    /// Pages without trustworthy native text (scans, unmapped fonts, outlines) and images.
    Auto,
    Off,
    /// Every page, replacing native text.
    Force,
}

#[derive(Clone, Copy, ValueEnum)]
enum DedupFormat {
    /// One block per group: members, then each pair with its score and method.
    Text,
    /// `{"groups": [{"members": [...], "pairs": [{"a", "b", "score", "method"}]}]}`.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum HtmlFormat {
    /// The article as a reader sees it.
    Text,
    /// The cleaned article HTML.
    Html,
    Markdown,
    /// Metadata (title, byline, excerpt, siteName, lang, dir, publishedTime, readerable,
    /// encoding) at the top level with content, text and markdown; one object per line.
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Extract from one or more files.
    Extract {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Pages to extract, e.g. 1,3-5 (1-based).
        #[arg(long)]
        pages: Option<String>,
        /// Password of encrypted PDFs.
        #[arg(long)]
        password: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// When to OCR pages; image files (PNG, JPEG, TIFF, WebP, GIF, BMP, PNM, JPEG 2000) are always OCR'd unless off.
        #[arg(long, value_enum, default_value = "auto")]
        ocr: OcrArg,
        /// Detect layout regions (title, text, table, figure, caption, header, footer) as
        /// page blocks; on pages with native text they hold the native lines.
        #[arg(long)]
        layout: bool,
        #[command(flatten)]
        models: ModelArgs,
    },
    /// Find near-duplicate documents among files (directories are walked).
    Dedup {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Jaccard similarity at or above which two documents are near-duplicates.
        #[arg(long, default_value_t = 0.8)]
        threshold: f64,
        /// Shingles: `words:N` or `chars:N`.
        #[arg(long, default_value = "words:1")]
        shingles: String,
        #[arg(long, default_value_t = 128)]
        num_perm: usize,
        #[arg(long, value_enum, default_value = "text")]
        format: DedupFormat,
    },
    /// The main content of web pages (and text files): directories are walked for
    /// .html/.htm/.xhtml/.txt files.
    Html {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: HtmlFormat,
        /// The page's address, to make relative links absolute.
        #[arg(long)]
        url: Option<String>,
    },
    /// Measure extraction speed (text with word boxes; a web page's main content counts as
    /// one page): pages per second.
    Bench {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Worker threads (1 = pages per CPU-second).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Repeat each file this many times and report the best run.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        #[command(flatten)]
        models: ModelArgs,
        /// As for `extract`; `off` measures text extraction alone.
        #[arg(long, value_enum, default_value = "auto")]
        ocr: OcrArg,
    },
    /// Render a PDF page to PNG (what OCR sees).
    Render {
        file: PathBuf,
        /// 1-based page number.
        #[arg(long, default_value_t = 1)]
        page: usize,
        #[arg(long, default_value_t = 150.0)]
        dpi: f32,
        #[arg(long)]
        password: Option<String>,
        /// Output PNG file.
        #[arg(short, long)]
        output: PathBuf,
    },
}

fn progress_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} pages {msg} {prefix}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

fn read(path: &PathBuf) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::new(docsift::ErrorKind::Io, format!("{}: {e}", path.display())))
}

fn write_doc(out: &mut impl Write, doc: &Document, format: Format) -> io::Result<()> {
    match format {
        Format::Text => {
            for (i, p) in doc.pages.iter().enumerate() {
                if i > 0 {
                    out.write_all(b"\x0c")?;
                }
                writeln!(out, "{}", p.text)?;
            }
        }
        Format::Words => {
            for p in &doc.pages {
                for w in &p.words {
                    // Empty for native words, so a column of numbers is an OCR reading's.
                    let confidence = w.confidence.map(|c| format!("{c:.3}")).unwrap_or_default();
                    writeln!(
                        out,
                        "{}\t{:.3}\t{:.3}\t{:.3}\t{:.3}\t{confidence}\t{}",
                        p.number, w.bbox.x0, w.bbox.top, w.bbox.x1, w.bbox.bottom, w.text
                    )?;
                }
            }
        }
        Format::Chars => {
            for p in &doc.pages {
                for c in &p.chars {
                    writeln!(
                        out,
                        "{}\t{:.3}\t{:.3}\t{:.3}\t{:.3}\t{}\t{:.2}\t{}",
                        p.number, c.bbox.x0, c.bbox.top, c.bbox.x1, c.bbox.bottom, c.font, c.size, c.text
                    )?;
                }
            }
        }
        Format::Json => {
            serde_json::to_writer(&mut *out, doc)?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

fn ocr_mode(arg: OcrArg) -> docsift::OcrMode {
    match arg {
        OcrArg::Auto => docsift::OcrMode::Auto,
        OcrArg::Off => docsift::OcrMode::Off,
        OcrArg::Force => docsift::OcrMode::Force,
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    Cpu,
    Webgpu,
}

#[derive(Clone, Copy, ValueEnum)]
enum ScriptArg {
    /// Every character the default recognition model knows: Latin, Greek, symbols, common Chinese characters; a page whose East Asian letters it reads unsurely (Japanese) is read again by the cjk script's model, where that is among the models.
    All,
    /// Latin-script text only (accented letters, Greek, digits, punctuation, symbols); faster on the CPU.
    Latin,
    /// Chinese and Japanese too: the larger recognition model (rec_cjk.onnx), with kana and traditional and rare Chinese characters; about 3x slower, on the CPU.
    Cjk,
}

/// The OCR models: where they are, where they run, what they read.
#[derive(Args)]
struct ModelArgs {
    /// Folder of the OCR model files (default: $DOCSIFT_MODELS, else
    /// ~/.cache/docsift-tools/models, filled by `python3 scripts/models.py`).
    #[arg(long)]
    models: Option<PathBuf>,
    /// Where the models run: the CPU (tract), or the GPU through WebGPU's native
    /// backends (wonnx on Vulkan/Metal/DX12).
    #[arg(long, value_enum, default_value = "cpu")]
    backend: BackendArg,
    /// The characters OCR may read.
    #[arg(long, value_enum, default_value = "all")]
    script: ScriptArg,
}

/// OCR models from `--models`, else the default folder, on the chosen backend; read on first use.
fn ocr_models(args: ModelArgs) -> docsift::OcrModels {
    let dir = args.models.unwrap_or_else(docsift::default_models_dir);
    let script = match args.script {
        ScriptArg::All => docsift::OcrScript::All,
        ScriptArg::Latin => docsift::OcrScript::Latin,
        ScriptArg::Cjk => docsift::OcrScript::Cjk,
    };
    match args.backend {
        BackendArg::Cpu => docsift::OcrModels::from_dir(dir, script),
        BackendArg::Webgpu => docsift::OcrModels::from_dir_on_gpu(dir, script),
    }
}

/// Where the page being read by OCR is, for the progress bar.
fn ocr_step(step: docsift::OcrStep) -> String {
    match step {
        docsift::OcrStep::Rendering => "OCR: rendering".into(),
        docsift::OcrStep::Rendered => "OCR: rendered".into(),
        docsift::OcrStep::Detection => "OCR: detection".into(),
        docsift::OcrStep::Orientation { done, total } => format!("OCR: orientation {done}/{total}"),
        docsift::OcrStep::Recognition { done, total } => format!("OCR: recognition {done}/{total}"),
        docsift::OcrStep::Layout => "OCR: layout".into(),
    }
}

struct ExtractArgs {
    pages: Option<String>,
    password: Option<String>,
    format: Format,
    ocr: OcrArg,
    layout: bool,
    models: ModelArgs,
}

fn extract(files: &[PathBuf], args: ExtractArgs) -> Result<(), String> {
    let page_list = args.pages.as_deref().map(parse_page_list).transpose().map_err(|e| e.to_string())?;
    let format = args.format;
    let bar = progress_bar(0);
    let steps = bar.clone();
    let opts = Options {
        pages: page_list,
        password: args.password,
        ocr: ocr_mode(args.ocr),
        layout: args.layout,
        ocr_models: Some(Arc::new(ocr_models(args.models).with_steps(move |s| steps.set_prefix(ocr_step(s))))),
        ..Options::default()
    };
    let never = AtomicBool::new(false);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut failures = Vec::new();
    for (i, path) in files.iter().enumerate() {
        bar.set_message(format!("file {}/{} {}", i + 1, files.len(), path.display()));
        let result = read(path).and_then(|bytes| {
            docsift::extract(
                &bytes,
                &opts,
                &|p| {
                    bar.set_length(p.total as u64);
                    bar.set_position(p.done as u64);
                },
                &never,
            )
        });
        match result {
            Ok(doc) => {
                for w in doc.warnings.iter().chain(doc.pages.iter().flat_map(|p| p.warnings.iter())) {
                    bar.suspend(|| {
                        eprintln!(
                            "warning: {}: {}{}",
                            path.display(),
                            w.page.map(|p| format!("page {p}: ")).unwrap_or_default(),
                            w.message
                        )
                    });
                }
                if i > 0 && matches!(format, Format::Text) {
                    out.write_all(b"\x0c").map_err(|e| e.to_string())?;
                }
                write_doc(&mut out, &doc, format).map_err(|e| e.to_string())?;
            }
            Err(e) => failures.push(format!("{}: {} ({})", path.display(), e, e.code())),
        }
    }
    bar.finish_and_clear();
    out.flush().map_err(|e| e.to_string())?;
    if failures.is_empty() { Ok(()) } else { Err(failures.join("; ")) }
}

fn render(file: &PathBuf, page: usize, dpi: f32, password: Option<String>, output: &PathBuf) -> Result<(), String> {
    let bytes = read(file).map_err(|e| e.to_string())?;
    let png = docsift::render_page_png(&bytes, password.as_deref(), page, dpi).map_err(|e| e.to_string())?;
    std::fs::write(output, png).map_err(|e| format!("{}: {e}", output.display()))
}

/// Peak resident memory of this process (Linux), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn bench(
    files: &[PathBuf],
    threads: usize,
    repeat: usize,
    ocr: docsift::OcrMode,
    models: ModelArgs,
) -> Result<(), String> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().map_err(|e| e.to_string())?;
    let never = AtomicBool::new(false);
    // Models load on the first page that needs OCR, so only that file's first run pays for it.
    let opts = Options { ocr, ocr_models: Some(Arc::new(ocr_models(models))), ..Options::default() };
    let (mut total_pages, mut total_secs) = (0usize, 0f64);
    println!("file\tpages\tseconds\tpages/s");
    for path in files {
        let bytes = read(path).map_err(|e| e.to_string())?;
        // A web page or text file counts as one page (its main content).
        let run = || match docsift::sniff(&bytes) {
            Some(_) => docsift::extract(&bytes, &opts, &|_| {}, &never).map(|d| d.pages.len()),
            None => docsift::extract_html(&bytes, &docsift::HtmlOptions::default()).map(|_| 1),
        };
        let mut best = f64::INFINITY;
        let mut pages = 0;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            match pool.install(run) {
                Ok(n) => pages = n,
                // Unreadable files count as no pages, as the peers skip them too.
                Err(e) => eprintln!("docsift: {}: {e}", path.display()),
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!("{}\t{}\t{:.4}\t{:.1}", path.display(), pages, best, pages as f64 / best);
        total_pages += pages;
        total_secs += best;
    }
    println!("TOTAL\t{}\t{:.4}\t{:.1}", total_pages, total_secs, total_pages as f64 / total_secs);
    if let Some(mib) = peak_rss_mib() {
        println!("peak RSS {mib:.1} MiB");
    }
    Ok(())
}

fn walk(path: &PathBuf, out: &mut Vec<PathBuf>) -> io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            walk(&e, out)?;
        }
    } else {
        out.push(path.clone());
    }
    Ok(())
}

/// Files of a directory that `docsift html` reads.
const HTML_EXTENSIONS: &[&str] = &["html", "htm", "xhtml", "txt"];

fn html(paths: &[PathBuf], format: HtmlFormat, url: Option<String>) -> Result<(), String> {
    use rayon::prelude::*;
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found).map_err(|e| format!("{}: {e}", p.display()))?;
            files.extend(found.into_iter().filter(|f| {
                f.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| HTML_EXTENSIONS.contains(&&*e.to_ascii_lowercase()))
            }));
        } else {
            files.push(p.clone());
        }
    }
    let many = files.len() > 1 || paths.iter().any(|p| p.is_dir());
    let opts = docsift::HtmlOptions { url, ..Default::default() };
    let docs: Vec<Result<docsift::HtmlDocument, Error>> =
        files.par_iter().map(|f| read(f).and_then(|b| docsift::extract_html(&b, &opts))).collect();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut failed = 0;
    for (f, doc) in files.iter().zip(docs) {
        let doc = match doc {
            Ok(d) => d,
            Err(e) => {
                eprintln!("docsift: {}: {e}", f.display());
                failed += 1;
                continue;
            }
        };
        let written = match format {
            HtmlFormat::Json => {
                let mut v = serde_json::to_value(&doc).map_err(|e| e.to_string())?;
                if many && let Some(o) = v.as_object_mut() {
                    o.insert("path".into(), f.display().to_string().into());
                }
                writeln!(out, "{v}")
            }
            _ => {
                let body = match format {
                    HtmlFormat::Html => &doc.content,
                    HtmlFormat::Markdown => &doc.markdown,
                    _ => &doc.text,
                };
                let head = if many { format!("==> {} <==\n", f.display()) } else { String::new() };
                writeln!(out, "{head}{}", body.trim_end())
            }
        };
        written.map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    if failed > 0 { Err(format!("{failed} of {} files failed", files.len())) } else { Ok(()) }
}

fn parse_shingles(spec: &str) -> Result<docsift::dedup::Shingles, String> {
    let (kind, n) = spec.split_once(':').unwrap_or((spec, "1"));
    let n: usize = n.parse().map_err(|_| format!("invalid shingle size in {spec:?}"))?;
    match kind {
        "words" => Ok(docsift::dedup::Shingles::Words(n)),
        "chars" => Ok(docsift::dedup::Shingles::Chars(n)),
        _ => Err(format!("shingles must be words:N or chars:N, not {spec:?}")),
    }
}

fn dedup(paths: &[PathBuf], config: docsift::dedup::Config, format: DedupFormat) -> Result<(), String> {
    use rayon::prelude::*;
    let mut files = Vec::new();
    for p in paths {
        walk(p, &mut files).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let bar = progress_bar(files.len() as u64);
    let texts: Vec<(String, Result<String, Error>)> = files
        .par_iter()
        .map(|f| {
            let text = read(f).and_then(|b| docsift::text_of(&b, &Options::default()));
            bar.inc(1);
            (f.display().to_string(), text)
        })
        .collect();
    bar.finish_and_clear();
    let mut index = docsift::dedup::Index::new(config);
    for (name, text) in &texts {
        match text {
            Ok(t) => {
                index.add(name, t);
            }
            Err(e) => eprintln!("warning: {name}: skipped: {e}"),
        }
    }
    let groups = index.groups();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match format {
        DedupFormat::Json => {
            serde_json::to_writer(&mut out, &serde_json::json!({ "groups": groups })).map_err(|e| e.to_string())?;
            writeln!(out).map_err(|e| e.to_string())?;
        }
        DedupFormat::Text => {
            for (i, g) in groups.iter().enumerate() {
                writeln!(out, "group {} ({} documents)", i + 1, g.members.len()).map_err(|e| e.to_string())?;
                for m in &g.members {
                    writeln!(out, "  {m}").map_err(|e| e.to_string())?;
                }
                for p in &g.pairs {
                    writeln!(out, "    {:.3} {:?}: {} ~ {}", p.score, p.method, p.a, p.b).map_err(|e| e.to_string())?;
                }
            }
            if groups.is_empty() {
                writeln!(out, "no near-duplicates among {} documents", index.len()).map_err(|e| e.to_string())?;
            }
        }
    }
    out.flush().map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Extract { files, pages, password, format, ocr, layout, models } => {
            extract(&files, ExtractArgs { pages, password, format, ocr, layout, models })
        }
        Command::Bench { files, threads, repeat, models, ocr } => bench(&files, threads, repeat, ocr_mode(ocr), models),
        Command::Render { file, page, dpi, password, output } => render(&file, page, dpi, password, &output),
        Command::Html { paths, format, url } => html(&paths, format, url),
        Command::Dedup { paths, threshold, shingles, num_perm, format } => {
            parse_shingles(&shingles).and_then(|shingles| {
                let config = docsift::dedup::Config { threshold, num_perm, shingles, ..Default::default() };
                dedup(&paths, config, format)
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("docsift: {msg}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsift::Page;
    use docsift::model::{BBox, Direction, Word};

    fn word(text: &str, x0: f32, confidence: Option<f32>) -> Word {
        Word {
            text: text.into(),
            bbox: BBox { x0, top: 10.0, x1: x0 + 20.0, bottom: 20.0 },
            upright: true,
            direction: Direction::Ltr,
            font: "F".into(),
            size: 10.0,
            confidence,
        }
    }

    #[test]
    fn words_tsv_gives_an_ocr_words_confidence_before_its_text_and_leaves_a_native_words_empty() -> io::Result<()> {
        let words = vec![word("Total", 5.0, None), word("12.50", 30.0, Some(0.4321))];
        let doc = Document::new(docsift::Meta::default(), vec![Page { number: 2, words, ..Page::default() }], vec![]);
        let mut out = Vec::new();
        write_doc(&mut out, &doc, Format::Words)?;
        assert_eq!(
            String::from_utf8_lossy(&out),
            "2\t5.000\t10.000\t25.000\t20.000\t\tTotal\n2\t30.000\t10.000\t50.000\t20.000\t0.432\t12.50\n"
        );
        Ok(())
    }
}
