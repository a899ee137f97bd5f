#!/usr/bin/env bash
# Runs every test of the project: the Rust tests (unit, integration, the vectors, the headless
# Chromium page tests), the JavaScript verifier's tests under node, and the check that the
# conformance vectors are what their generator writes. Installs Chromium from Debian's packages
# when it is missing and we are root; otherwise says exactly what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v cargo >/dev/null || missing+=("cargo (the Rust toolchain: https://rustup.rs)")
command -v node >/dev/null || missing+=("node 20 or later (apt-get install -y nodejs)")
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test.sh: installing chromium for the page tests (apt-get install -y chromium)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    missing+=("chromium (as root: apt-get install -y chromium) for the page tests")
  fi
fi
# The safety suite watches the write of DIR through strace (each file renamed into place from its
# temporary name, the heads last: docs/build.md#the-write).
if ! command -v strace >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test.sh: installing strace for the safety tests (apt-get install -y strace)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null
  else
    missing+=("strace (as root: apt-get install -y strace) for the safety tests")
  fi
fi
# axe-core (the page's accessibility check in tests/testsuite/page_e2e.rs), from npm, into a
# cache dir outside the repository; EXHIBIT_AXE names another copy.
AXE_VERSION=4.10.3
axe_dir="${XDG_CACHE_HOME:-$HOME/.cache}/exhibit-axe"
if [ -z "${EXHIBIT_AXE:-}" ] && [ ! -f "$axe_dir/node_modules/axe-core/axe.min.js" ]; then
  if command -v npm >/dev/null; then
    echo "test.sh: installing axe-core@$AXE_VERSION into $axe_dir (npm)" >&2
    mkdir -p "$axe_dir"
    npm install --prefix "$axe_dir" --no-audit --no-fund --no-save "axe-core@$AXE_VERSION" >/dev/null
  else
    missing+=("npm, to install axe-core for the page's accessibility test (or set EXHIBIT_AXE to axe.min.js)")
  fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: cannot run every test; missing:" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  exit 2
fi

echo "== conformance vectors are what gen-vectors writes"
cargo run -q --example gen-vectors -- vectors --check

# Every crate of the workspace (default-members); tests/testsuite/ is one binary and holds
# fn_length, the check that no product function is over 150 lines, and differential, 5,000
# mutated ledgers through the Rust fast path, the Rust full reader and verify.js under node
# (fixed seed; FUZZ_CASES=200000 for the long local run).
echo "== cargo test (Rust: unit, integration, vectors, differential fuzzing, page in headless Chromium, function lengths)"
cargo test --all-targets

echo "== node --test (the page's JavaScript verifier and page logic)"
node --test tests/js/
