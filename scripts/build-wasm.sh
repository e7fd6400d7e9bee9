#!/usr/bin/env bash
# Builds the browser builds into pkg/wasm/: single and ocr on stable, threaded and
# ocr-threaded (wasm-bindgen-rayon: shared memory, atomics) on nightly with build-std, and
# the WebGPU model runtime (webgpu/). Installs what is missing: rustup targets and rust-src, wasm-bindgen-cli of
# the version in Cargo.lock (cached in ~/.cache/docsift-tools), npm packages (binaryen's
# wasm-opt).
source "$(dirname "$0")/env.sh"

TOOLS="${DOCSIFT_TOOLS:-$HOME/.cache/docsift-tools}"
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
WB_BIN="$TOOLS/wasm-bindgen-$WB_VERSION/bin/wasm-bindgen"

rustup target list --installed --toolchain stable 2>/dev/null | grep -q wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown --toolchain stable >&2
# The threaded build needs nightly with rust-src; without it only the single build ships
# (the worker falls back to it) and the threaded browser test reports the gap.
threads=yes
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal --no-self-update >&2 || threads=no
fi
if [ "$threads" = yes ]; then
  { rustup target list --installed --toolchain nightly 2>/dev/null | grep -q wasm32-unknown-unknown \
      || rustup target add wasm32-unknown-unknown --toolchain nightly >&2; } &&
  { rustup component list --installed --toolchain nightly 2>/dev/null | grep -q '^rust-src' \
      || rustup component add rust-src --toolchain nightly >&2; } || threads=no
fi
[ "$threads" = yes ] || echo "warning: no nightly toolchain with rust-src: skipping the threaded build" >&2
if [ ! -x "$WB_BIN" ]; then
  echo "installing wasm-bindgen-cli $WB_VERSION into $TOOLS (one time, several minutes)..." >&2
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --root "$TOOLS/wasm-bindgen-$WB_VERSION" >&2
fi
[ -x node_modules/.bin/wasm-opt ] || npm install --no-audit --no-fund >&2

# Single-threaded build (the fallback when the page is not cross-origin isolated).
cargo build -p docsift-wasm --target wasm32-unknown-unknown --profile wasm >&2
SINGLE="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm/docsift_wasm.wasm"

# Threaded builds (shared memory, atomics: wasm-bindgen-rayon's pool) need their own
# target dirs, as their flags differ.
threads_flags() { # $1: maximum memory in bytes; $2: extra target features
  echo "-C target-feature=+atomics,+bulk-memory${2:-} -C link-arg=--shared-memory -C link-arg=--max-memory=$1 \
 -C link-arg=--import-memory -C link-arg=--export=__wasm_init_tls -C link-arg=--export=__tls_size \
 -C link-arg=--export=__tls_align -C link-arg=--export=__tls_base -C link-arg=--export=__heap_base"
}
build_threaded() { # $1: target dir; $2: features; $3: rustflags
  CARGO_TARGET_DIR="$1" CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$3" \
    cargo +nightly build -p docsift-wasm --target wasm32-unknown-unknown --profile wasm --features "$2" \
    -Z build-std=panic_abort,std >&2
}
THREADS_TARGET="${CARGO_TARGET_DIR}-threads"
[ "$threads" = yes ] && build_threaded "$THREADS_TARGET" threads "$(threads_flags 1073741824)"
THREADED="$THREADS_TARGET/wasm32-unknown-unknown/wasm/docsift_wasm.wasm"

# OCR builds (tract with SIMD, hayro), loaded only when a page needs OCR: single-threaded,
# and threaded (recognition lines in parallel) for cross-origin isolated pages. A 300 dpi
# page's image, detection maps and per-thread recognition buffers need more than 1 GiB.
# Each also with relaxed SIMD (fused multiply-add in the matrix kernel, 10-15% faster), for
# engines that validate it; the others load the plain ones. Relaxed SIMD is a target
# feature of every crate (LLVM uses relaxed min/max, laneselect and fused multiply-adds all
# through tract; in our kernel alone it gave a 3.5% slower build), so those builds have
# target dirs of their own.
build_ocr() { # $1: target dir; $2: features; $3: extra target features
  CARGO_TARGET_DIR="$1" CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128${3:-}" \
    cargo build -p docsift-wasm --target wasm32-unknown-unknown --profile wasm --features "$2" >&2
}
OCR_TARGET="${CARGO_TARGET_DIR}-ocr"
build_ocr "$OCR_TARGET" ocr
build_ocr "$OCR_TARGET-relaxed" ocr ,+relaxed-simd
OCR_THREADS_TARGET="${CARGO_TARGET_DIR}-ocr-threads"
if [ "$threads" = yes ]; then
  build_threaded "$OCR_THREADS_TARGET" threads,ocr "$(threads_flags 4294967296 ,+simd128)"
  build_threaded "$OCR_THREADS_TARGET-relaxed" threads,ocr "$(threads_flags 4294967296 ,+simd128,+relaxed-simd)"
fi

flavours="single ocr ocr-relaxed"
[ "$threads" = yes ] && flavours="single threaded ocr ocr-relaxed ocr-threaded ocr-threaded-relaxed"
rm -rf pkg/wasm/threaded pkg/wasm/ocr-threaded pkg/wasm/ocr-threaded-relaxed pkg/wasm/ocr-jspi
for flavour in $flavours; do
  case $flavour in
    single) src=$SINGLE ;; threaded) src=$THREADED ;;
    ocr*) dir="$OCR_TARGET"; [ "${flavour#ocr-threaded}" = "$flavour" ] || dir="$OCR_THREADS_TARGET"
      [ "${flavour%-relaxed}" = "$flavour" ] || dir="$dir-relaxed"
      src="$dir/wasm32-unknown-unknown/wasm/docsift_wasm.wasm" ;;
  esac
  out="pkg/wasm/$flavour"
  rm -rf "$out" && mkdir -p "$out"
  "$WB_BIN" --target web --out-dir "$out" "$src"
  # Debian's binaryen breaks wasm-bindgen output (see TOOLCHAIN.md): only npm's is used.
  # The OCR builds are left as they are: wasm-opt takes minutes on their 21 MB for a 3% gain.
  [ "${flavour#ocr}" = "$flavour" ] || continue
  if node_modules/.bin/wasm-opt -O3 "$out/docsift_wasm_bg.wasm" -o "$out/opt.wasm" 2>/dev/null; then
    mv "$out/opt.wasm" "$out/docsift_wasm_bg.wasm"
  else
    rm -f "$out/opt.wasm"
    echo "wasm-opt failed for $flavour; keeping the unoptimised module" >&2
  fi
done

# The WebGPU model runtime (wonnx): its own workspace and lockfile, because wgpu 0.16's
# WebGPU backend needs web-sys 0.3.64 and its unstable-API cfg (see webgpu/Cargo.toml).
WG_VERSION=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' webgpu/Cargo.lock)
[ "$WG_VERSION" = "$WB_VERSION" ] || { echo "webgpu/Cargo.lock pins wasm-bindgen $WG_VERSION, the core $WB_VERSION" >&2; exit 1; }
(cd webgpu && CARGO_TARGET_DIR="${CARGO_TARGET_DIR}-webgpu" RUSTFLAGS=--cfg=web_sys_unstable_apis \
  cargo build --release --locked --target wasm32-unknown-unknown >&2)
rm -rf pkg/wasm/webgpu && mkdir -p pkg/wasm/webgpu
"$WB_BIN" --target web --out-dir pkg/wasm/webgpu "${CARGO_TARGET_DIR}-webgpu/wasm32-unknown-unknown/release/docsift_webgpu.wasm"
if node_modules/.bin/wasm-opt -O3 pkg/wasm/webgpu/docsift_webgpu_bg.wasm -o pkg/wasm/webgpu/opt.wasm 2>/dev/null; then
  mv pkg/wasm/webgpu/opt.wasm pkg/wasm/webgpu/docsift_webgpu_bg.wasm
else
  rm -f pkg/wasm/webgpu/opt.wasm
fi

mkdir -p www/models
cp samples/sample.pdf www/sample.pdf
# The page serves the OCR models from its own origin (scripts/models.py fetched them).
MODELS="${DOCSIFT_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/docsift-tools/models}"
for m in det rec rec_cjk cls layout; do
  [ -f "$MODELS/$m.onnx" ] && cp -u "$MODELS/$m.onnx" "www/models/$m.onnx"
done
# ... and the files prepared for WebGPU, with their list (the worker reads it to know what
# the GPU can run; each file is fetched only when a page needs its shape).
if ls "$MODELS"/wonnx/*.onnx >/dev/null 2>&1; then
  rm -rf www/models/wonnx && mkdir -p www/models/wonnx
  cp "$MODELS"/wonnx/*.onnx "$MODELS"/wonnx/*.weights www/models/wonnx/
  (cd www/models/wonnx && ls *.onnx | node -e 'const f = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean); console.log(JSON.stringify({ files: f }))' > index.json)
fi
ls -l pkg/wasm/*/docsift_*_bg.wasm >&2
