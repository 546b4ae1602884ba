#!/usr/bin/env bash
# Contract fuzzing against a real server: schemathesis generates requests from /openapi.json (and
# from the GraphQL schema by introspection) and checks every answer: no 5xx, only documented
# statuses and content types, bodies valid against their schemas, invalid input refused.
# Zero failures expected. Time budget per run: STRS_CONTRACT_SECONDS (default 120).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"

seconds="${STRS_CONTRACT_SECONDS:-120}"
# A fixed seed makes a CI verdict reproducible (`st replay` and a rerun find the same cases); set
# STRS_CONTRACT_SEED=random to explore new cases locally.
seed="${STRS_CONTRACT_SEED:-20261124}"
seed_args=()
if [ "$seed" != "random" ]; then seed_args=(--seed "$seed"); fi
bin="$(.ci/python-env)"
cargo build --locked --quiet

work="$(mktemp -d "${TMPDIR:-/tmp}/strs-contract.XXXXXX")"
chmod 755 "$work"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"

# Generous rate limits: the fuzzer sends thousands of writes a minute from one address.
STRS_DATA_DIR="$work/data" STRS_BIND="127.0.0.1:$port" \
  STRS_ANON_WRITES_PER_MINUTE=1000000 STRS_MESSAGES_PER_HOUR=1000000 \
  STRS_REGISTRATIONS_PER_HOUR=1000000 RUST_LOG=warn \
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
curl -sf "$base/ready" >/dev/null || { echo "contract: the server did not become ready" >&2; cat "$work/server.log" >&2; exit 1; }

key="$(curl -sf -X POST "$base/api/v1/agents/register" -H 'content-type: application/json' \
  -d '{"agent_type": "api_agent", "display_name": "Contract Fuzzer"}' \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"])')"

# GraphQL runs as an operator, so that admin mutations are exercised rather than refused.
admin_key="$(STRS_DATA_DIR="$work/data" target/debug/spacetime-records admin create-key --display-name "Contract Operator" \
  | sed -n 's/^api_key (shown once, store it now): //p')"

checks="not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection"
cd "$work"
# One worker: concurrent workers trip a CPython 3.11 bug in ast.parse (hypothesis describes its
# strategies from source), which schemathesis reports as a runtime error.
# Revoking its own key would lock the fuzzer out of every bearer route for the rest of the run.
"$bin/schemathesis" run "$base/openapi.json" --checks "$checks" -H "Authorization: Bearer $key" \
  --exclude-path '/api/v1/agents/me/api-keys/{key_id}' \
  --max-time "$seconds" --workers 1 --warnings off "${seed_args[@]}"
SCHEMATHESIS_HOOKS=hooks PYTHONPATH="$repo/tests/contract" \
  "$bin/schemathesis" run "$base/graphql" --checks not_a_server_error -H "Authorization: Bearer $admin_key" \
  --max-time "$((seconds / 2))" --workers 1 --warnings off "${seed_args[@]}"
echo "contract: schemathesis found no failure in the REST and GraphQL runs"
echo "contract: 2 passed, 0 failed"
