#!/usr/bin/env bash
# The MCP protocol's official conformance suite (npm @modelcontextprotocol/conformance, server
# mode) against /mcp/ of a real server: a throw-away data directory, a free loopback port, a
# registered key, and a loopback proxy (proxy.mjs) that adds the bearer the suite cannot send.
# Every scenario that applies to this server must pass; the scenarios that call the suite's own
# fixture tools, resources and prompts (test_simple_text, test://static-text, ...) are listed in
# expected-failures.yml, and the suite fails the run when one of them passes (a stale list) or
# anything else fails. docs/mcp.md lists every scenario with its status.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."

cargo build --locked --quiet
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)

work="$(mktemp -d "${TMPDIR:-/tmp}/strs-mcp-conformance.XXXXXX")"
chmod 755 "$work"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port="$(free_port)"
proxy_port="$(free_port)"
base="http://127.0.0.1:$port"

STRS_DATA_DIR="$work/data" STRS_BIND="127.0.0.1:$port" RUST_LOG=warn \
  target/debug/spacetime-records >"$work/server.log" 2>&1 &
server=$!
proxy=""
cleanup() {
  [ -n "$proxy" ] && kill "$proxy" 2>/dev/null || true
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 120); do
  curl -sf "$base/ready" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -sf "$base/ready" >/dev/null || { echo "mcp-conformance: the server did not become ready" >&2; cat "$work/server.log" >&2; exit 1; }

key="$(curl -sf -X POST "$base/api/v1/agents/register" -H 'content-type: application/json' \
  -d '{"agent_type": "api_agent", "display_name": "MCP Conformance"}' \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"])')"

node "$here/proxy.mjs" "$proxy_port" "$port" "$key" >"$work/proxy.log" 2>&1 &
proxy=$!
for _ in $(seq 1 50); do
  curl -s -o /dev/null "http://127.0.0.1:$proxy_port/" 2>/dev/null && break
  sleep 0.1
done

# `localhost` in the URL: the DNS-rebinding scenario applies to localhost servers only.
cd "$here"
npx --no-install conformance server --url "http://localhost:$proxy_port/mcp/" --suite all \
  --expected-failures "$here/expected-failures.yml" --output-dir "$work/results"
echo "mcp-conformance: every applicable scenario passed"
