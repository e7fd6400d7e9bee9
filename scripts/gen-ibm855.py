#!/usr/bin/env python3
"""Writes crates/html/data/ibm855.txt: the characters of bytes 0x80-0xFF in IBM code page
855 (Cyrillic), one line, as Python's cp855 codec defines them. encoding_rs has no IBM855
(it is not a web encoding), but chardet's corpus and old DOS files use it."""
import os
out = os.path.join(os.path.dirname(__file__), "..", "crates", "html", "data", "ibm855.txt")
open(out, "w", encoding="utf-8").write(bytes(range(0x80, 0x100)).decode("cp855"))
