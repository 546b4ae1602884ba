#!/usr/bin/env bash
# Clients we do not write, against a real server: validates the served /openapi.json as OpenAPI 3.1
# (PyPI openapi-spec-validator), generates a Python client (PyPI openapi-python-client, warnings
# are failures) and a TypeScript client (npm @hey-api/openapi-ts: fetch client, types, zod
# validators) into target/clients/, type-checks the TypeScript driver with tsc, and runs the
# recommended agent flow with each (tests/clients/python/flow.py, tests/clients/ts/flow.ts).
# The server comes from tests/clients/serve.sh (a free loopback port, a throw-away data directory).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"

bin="$(.ci/python-env)"
(cd tests/clients/ts && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
. tests/clients/serve.sh clients "Generated Clients"
fail() {
  echo "clients: $1; server log follows" >&2
  tail -n 50 "$work/server.log" >&2
  exit 1
}

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
