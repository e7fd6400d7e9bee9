# Shared setup for scripts/*.sh: a Rust toolchain on PATH and a build cache outside the
# clone (so fresh clones, and CI, reuse earlier builds on the same machine).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/docsift/target}"
if ! command -v cargo >/dev/null 2>&1; then
  echo "installing Rust (rustup, stable)..." >&2
  curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >&2
fi
cd "$ROOT"

# Installs the Debian packages named, those missing only (apt-get; the scripts run as root
# in CI).
debian_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing Debian ${missing[*]}..." >&2
    (apt-get update -qq && apt-get install -y -qq "${missing[@]}") >&2
  fi
}
