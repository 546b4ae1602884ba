#!/usr/bin/env bash
# The Python MCP SDK (PyPI `mcp`, pinned in tests/requirements.txt, installed by .ci/python-env)
# against /mcp/ of a real server: a throw-away data directory, a free loopback port, a registered
# key, then mcp_python_check.py, which checks every step.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."

bin="$(.ci/python-env)"
cargo build --locked --quiet

work="$(mktemp -d "${TMPDIR:-/tmp}/strs-mcp-python.XXXXXX")"
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
curl -sf "$base/ready" >/dev/null || { echo "mcp-python: the server did not become ready" >&2; cat "$work/server.log" >&2; exit 1; }

key="$(curl -sf -X POST "$base/api/v1/agents/register" -H 'content-type: application/json' \
  -d '{"agent_type": "api_agent", "display_name": "MCP Python SDK"}' \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"])')"

"$bin/python" "$here/mcp_python_check.py" "$base/mcp/" "$key"
echo "mcp-python: the Python MCP SDK round trip passed"
