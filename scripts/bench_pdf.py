#!/usr/bin/env python3
"""Side-by-side PDF text extraction benchmark: docsift vs pypdfium2 vs PyMuPDF.

Each tool extracts text with word (or text-run) boxes from every page of the same files,
single-threaded, in its own child process; the parent reads the child's CPU time and peak
memory from wait4(). Reports pages per CPU-second (best of --repeat runs) and peak RSS.

Usage: pip install pypdfium2 pymupdf
       python3 scripts/bench_pdf.py [--docsift PATH] [--repeat 3]
"""
import argparse, glob, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.environ.get("DOCSIFT_CORPUS", os.path.join(HERE, "..", "..", "shared", "corpus"))
SETS = {
    "freeculture+tracemonkey": [os.path.join(CORPUS, "bench", "freeculture.pdf"), os.path.join(CORPUS, "pdfjs", "test", "pdfs", "tracemonkey.pdf")],
    "pdfplumber": sorted(glob.glob(os.path.join(CORPUS, "pdfplumber", "tests", "pdfs", "*.pdf"))),
}


def worker(tool, files):
    pages = 0
    if tool == "pymupdf":
        import pymupdf
        for f in files:
            try:
                doc = pymupdf.open(f)
            except Exception:
                continue
            for page in doc:
                page.get_text("words")
                pages += 1
    elif tool == "pypdfium2":
        import pypdfium2 as pdfium
        for f in files:
            try:
                doc = pdfium.PdfDocument(f)
            except Exception:
                continue
            for i in range(len(doc)):
                tp = doc[i].get_textpage()
                tp.get_text_range()
                for k in range(tp.count_rects()):
                    tp.get_rect(k)
                pages += 1
    print(pages)


def run(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read().decode()
    _, status, ru = os.wait4(p.pid, 0)
    return out, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docsift", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/docsift/target")), "release", "docsift"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--worker", nargs="+")
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker[0], a.worker[1:])
    print(f"{'set':<26}{'tool':<11}{'pages':>7}{'CPU s':>9}{'pages/CPU-s':>13}{'peak MiB':>10}")
    for name, files in SETS.items():
        results = {}
        for tool in ["docsift", "pypdfium2", "pymupdf"]:
            best, pages, rss = None, 0, 0.0
            for _ in range(a.repeat):
                if tool == "docsift":
                    out, cpu, r = run([a.docsift, "bench", "--ocr", "off", "--threads", "1", "--repeat", "1"] + files)
                    pages = int(next(l for l in out.splitlines() if l.startswith("TOTAL")).split("\t")[1])
                else:
                    out, cpu, r = run([sys.executable, __file__, "--worker", tool] + files)
                    pages = int(out.strip().splitlines()[-1])
                best = cpu if best is None else min(best, cpu)
                rss = max(rss, r)
            results[tool] = pages / best
            print(f"{name:<26}{tool:<11}{pages:>7}{best:>9.3f}{pages / best:>13.1f}{rss:>10.1f}")
        faster = max(results["pypdfium2"], results["pymupdf"])
        print(f"{name:<26}docsift / faster peer = {results['docsift'] / faster:.2f}x")


if __name__ == "__main__":
    main()
