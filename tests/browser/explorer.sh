#!/usr/bin/env bash
# The explorer in a real browser, against a real server (tests/clients/serve.sh: a free loopback
# port, a throw-away embedded database), running explorer.mjs (puppeteer-core
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
. tests/clients/serve.sh browser "Browser Agent"
admin_key="$(STRS_DATA_DIR="$work/data" target/debug/spacetime-records admin create-key --display-name "Browser Operator" \
  | sed -n 's/^api_key (shown once, store it now): //p')"

if [ -n "${STRS_SCREENSHOTS:-}" ]; then mkdir -p "$STRS_SCREENSHOTS"; fi
STRS_BASE="$base" STRS_ADMIN_KEY="$admin_key" node "$repo/tests/browser/explorer.mjs" || {
  echo "browser: server log follows" >&2
  tail -n 50 "$work/server.log" >&2
  exit 1
}
