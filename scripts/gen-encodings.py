#!/usr/bin/env python3
"""Writes crates/pdf/data/agl.txt and crates/pdf/data/latin-encodings.txt.

agl.txt: the Adobe Glyph List (legacy AGL, BSD-3-Clause, Adobe), one `name<TAB>hex[ hex]`
line per glyph name, as carried by fontTools.agl.
latin-encodings.txt: ISO 32000 Annex D (StandardEncoding, MacRomanEncoding,
WinAnsiEncoding, PDFDocEncoding): `name<TAB>std<TAB>mac<TAB>win<TAB>pdf`, codes in decimal
or `-`, as tabulated by pdfminer.six's latin_enc.

Usage: pip install --target DIR fonttools pdfminer.six && PYTHONPATH=DIR scripts/gen-encodings.py
"""
import os
from fontTools import agl
from pdfminer import latin_enc

out = os.path.join(os.path.dirname(__file__), "..", "crates", "pdf", "data")
with open(os.path.join(out, "agl.txt"), "w") as f:
    for name in sorted(agl.LEGACY_AGL2UV):
        f.write(name + "\t" + " ".join("%04X" % u for u in agl.LEGACY_AGL2UV[name]) + "\n")
with open(os.path.join(out, "latin-encodings.txt"), "w") as f:
    for name, std, mac, win, pdf in latin_enc.ENCODING:
        # Annex D: WinAnsi 173 (octal 255) is the soft hyphen, a duplicate of `hyphen`.
        if name == "space" and win == 173:
            name = "hyphen"
        f.write("\t".join([name] + ["-" if c is None else str(c) for c in (std, mac, win, pdf)]) + "\n")
