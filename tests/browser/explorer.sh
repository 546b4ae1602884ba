#!/usr/bin/env bash
# The explorer in a real browser, against a real server: builds the server, starts it on a free
# loopback port over a throw-away embedded database, and runs explorer.mjs (puppeteer-core
# driving Debian's chromium, which .ci/setup installs; never a downloaded browser).
# STRS_SCREENSHOTS=dir keeps the desktop and phone screenshots it takes.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"

if [ ! -x "${STRS_CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "browser: no chromium at ${STRS_CHROMIUM:-/usr/bin/chromium} (.ci/setup installs Debian's)" >&2
  exit 1
fi
(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
cargo build --locked --quiet

work="$(mktemp -d "${TMPDIR:-/tmp}/strs-browser.XXXXXX")"
chmod 755 "$work"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
STRS_DATA_DIR="$work/data" STRS_BIND="127.0.0.1:$port" RUST_LOG=warn \
  target/debug/spacetime-records >"$work/server.log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 120); do
  curl -sf "$base/ready" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -sf "$base/ready" >/dev/null || { echo "browser: the server did not become ready" >&2; cat "$work/server.log" >&2; exit 1; }
admin_key="$(STRS_DATA_DIR="$work/data" target/debug/spacetime-records admin create-key --display-name "Browser Operator" \
  | sed -n 's/^api_key (shown once, store it now): //p')"

if [ -n "${STRS_SCREENSHOTS:-}" ]; then mkdir -p "$STRS_SCREENSHOTS"; fi
STRS_BASE="$base" STRS_ADMIN_KEY="$admin_key" node "$repo/tests/browser/explorer.mjs" || {
  echo "browser: server log follows" >&2
  tail -n 50 "$work/server.log" >&2
  exit 1
}
