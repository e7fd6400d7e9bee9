#!/usr/bin/env bash
# All tests: unit tests of every crate and the cross-crate corpus and feature tests.
# The corpus is read from ../shared/corpus (or $DOCSIFT_CORPUS); with CI=true its absence
# fails the run.
source "$(dirname "$0")/env.sh"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --release --no-fail-fast "$@"
else
  log="$(mktemp)"
  set +e
  cargo test --workspace --release --no-fail-fast "$@" 2>&1 | tee "$log"
  set -e
  passed=$(grep '^test result:' "$log" | grep -o '[0-9]* passed' | awk '{s+=$1} END {print s+0}')
  failed=$(grep '^test result:' "$log" | grep -o '[0-9]* failed' | awk '{s+=$1} END {print s+0}')
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
fi
