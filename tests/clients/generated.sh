#!/usr/bin/env bash
# Clients we do not write, against a real server: validates the served /openapi.json as OpenAPI 3.1
# (PyPI openapi-spec-validator), generates a Python client (PyPI openapi-python-client, warnings
# are failures) and a TypeScript client (npm @hey-api/openapi-ts: fetch client, types, zod
# validators) into target/clients/, type-checks the TypeScript driver with tsc, and runs the
# recommended agent flow with each (tests/clients/python/flow.py, tests/clients/ts/flow.ts).
# The server is built here and started on a free loopback port over a throw-away data directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"

bin="$(.ci/python-env)"
(cd tests/clients/ts && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
cargo build --locked --quiet

work="$(mktemp -d "${TMPDIR:-/tmp}/strs-clients.XXXXXX")"
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
fail() {
  echo "clients: $1; server log follows" >&2
  tail -n 50 "$work/server.log" >&2
  exit 1
}

for _ in $(seq 1 120); do
  curl -sf "$base/ready" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -sf "$base/ready" >/dev/null || fail "the server did not become ready"

out="$repo/target/clients"
rm -rf "$out"
mkdir -p "$out/python" "$out/ts/src"
curl -sf "$base/openapi.json" -o "$out/openapi.json"
"$bin/openapi-spec-validator" "$out/openapi.json"

# Python: the generated package is strs_client under target/clients/python.
"$bin/openapi-python-client" generate --path "$out/openapi.json" --meta none --fail-on-warning \
  --config tests/clients/python/config.yaml --output-path "$out/python/strs_client" >"$work/python-gen.log" 2>&1 \
  || { cat "$work/python-gen.log" >&2; exit 1; }
PYTHONPATH="$out/python" "$bin/python" tests/clients/python/flow.py "$base" || fail "the Python client's flow failed"

# TypeScript: generated into src/client next to the driver, compiled by tsc, run by node.
ts="$repo/tests/clients/ts"
ln -s "$ts/node_modules" "$out/ts/node_modules"
cp "$ts/tsconfig.json" "$out/ts/"
cp "$ts/flow.ts" "$out/ts/src/"
STRS_OPENAPI="$out/openapi.json" STRS_TS_OUT="$out/ts/src/client" \
  "$ts/node_modules/.bin/openapi-ts" --file "$ts/openapi-ts.config.mjs" --logs "$work" >"$work/ts-gen.log" 2>&1 \
  || { cat "$work/ts-gen.log" >&2; exit 1; }
"$ts/node_modules/.bin/tsc" -p "$out/ts"
node "$out/ts/dist/flow.js" "$base" || fail "the TypeScript client's flow failed"
echo "clients: the document validates; the generated Python and TypeScript clients ran the flow"
