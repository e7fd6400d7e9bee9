#!/usr/bin/env python3
"""Builds crates/pdf/data/cid2uni/<Ordering>.bin (CID -> Unicode runs) from Adobe's
predefined UTF-32 CMaps (BSD-3-Clause, shipped by Debian's poppler-data package).

Usage: scripts/gen-cid-tables.py [CMAP_DIR]   (default /usr/share/poppler/cMap)
Format: b"DSCV", u32 (LE) number of CIDs, then one LEB128 varint per CID from 0: 0 when
the CID has no code point, else zigzag(code point - previous mapped code point) + 1.
"""
import os, re, struct, sys

SRC = {"Japan1": "Adobe-Japan1/UniJIS-UTF32-H", "GB1": "Adobe-GB1/UniGB-UTF32-H",
       "CNS1": "Adobe-CNS1/UniCNS-UTF32-H", "Korea1": "Adobe-Korea1/UniKS-UTF32-H"}

def rank(cp):
    # Prefer unified ideographs over compatibility ideographs and radicals (which share
    # glyphs with them), BMP over astral, and never private use.
    compat = 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F or 0x2E80 <= cp <= 0x2FDF
    pua = 0xE000 <= cp <= 0xF8FF or cp >= 0xF0000
    return (pua, compat, cp > 0xFFFF, cp)

def main():
    base = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/poppler/cMap"
    out_dir = os.path.join(os.path.dirname(__file__), "..", "crates", "pdf", "data", "cid2uni")
    for ordering, rel in SRC.items():
        text = open(os.path.join(base, rel), encoding="latin-1").read()
        best = {}
        for block in re.findall(r"begincidrange(.*?)endcidrange", text, re.S):
            for lo, hi, cid in re.findall(r"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\d+)", block):
                lo, hi, cid = int(lo, 16), int(hi, 16), int(cid)
                for k in range(hi - lo + 1):
                    c, cp = cid + k, lo + k
                    if c not in best or rank(cp) < rank(best[c]):
                        best[c] = cp
        for block in re.findall(r"begincidchar(.*?)endcidchar", text, re.S):
            for code, cid in re.findall(r"<([0-9a-fA-F]+)>\s*(\d+)", block):
                c, cp = int(cid), int(code, 16)
                if c not in best or rank(cp) < rank(best[c]):
                    best[c] = cp
        count = max(best) + 1
        out, prev = bytearray(), 0
        for cid in range(count):
            cp = best.get(cid)
            if cp is None:
                out.append(0)
                continue
            d = cp - prev
            prev = cp
            v = ((d << 1) if d >= 0 else ((-d) << 1) - 1) + 1
            while True:
                byte, v = v & 0x7F, v >> 7
                out.append(byte | (0x80 if v else 0))
                if not v:
                    break
        with open(os.path.join(out_dir, ordering + ".bin"), "wb") as f:
            f.write(b"DSCV" + struct.pack("<I", count) + bytes(out))
        print(ordering, len(best), "cids,", count, "max cid")

main()
