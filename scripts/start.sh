#!/usr/bin/env bash
# The main job: build the CLI and both wasm builds, show the CLI on the bundled sample,
# then serve the drag-and-drop page (which opens that sample) on 127.0.0.1 with COOP/COEP.
# `npm start -- FILE...` runs the CLI on your files (PDF, PNG/JPEG/TIFF, HTML, text)
# instead of serving the page.
source "$(dirname "$0")/env.sh"
cargo build --release -p docsift-cli >&2
BIN="$CARGO_TARGET_DIR/release/docsift"
# Scans and images are read by OCR, in the CLI and on the page: fetch the models (once;
# cached outside the clone).
debian_install python3-venv
python3 scripts/models.py >/dev/null
if [ "$#" -gt 0 ]; then
  # Web pages and text files give their main content; everything else is a document.
  case "$1" in
    *.html|*.htm|*.xhtml|*.txt) exec "$BIN" html "$@" ;;
    *) exec "$BIN" extract "$@" ;;
  esac
fi
echo "== docsift extract samples/sample.pdf ==" >&2
"$BIN" extract samples/sample.pdf
bash scripts/build-wasm.sh
exec node scripts/serve.mjs --port "${PORT:-8080}"
