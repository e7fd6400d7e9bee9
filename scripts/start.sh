#!/usr/bin/env bash
# The main job: build the docsift CLI and extract the bundled sample (or the files given).
source "$(dirname "$0")/env.sh"
cargo build --release -p docsift-cli >&2
BIN="$CARGO_TARGET_DIR/release/docsift"
if [ "$#" -eq 0 ]; then
  set -- samples/sample.pdf
fi
echo "== docsift extract $* ==" >&2
"$BIN" extract "$@"
