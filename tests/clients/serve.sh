# Sourced by the checks that drive a real server (tests/clients/*, tests/contract/schemathesis.sh,
# tests/browser/explorer.sh): builds the server, starts it on a free loopback port over a throw-away data
# directory (removed on exit), waits until it is ready and registers an agent. Sets `work`,
# `port`, `base`, `server` and `key`; the caller's cleanup runs `stop_server`. The server inherits
# the caller's environment: export STRS_* settings before sourcing to change them.
# Usage: . tests/clients/serve.sh "<check name>" "<agent display name>"
check_name="$1"
agent_name="$2"
cargo build --locked --quiet

work="$(mktemp -d "${TMPDIR:-/tmp}/strs-$check_name.XXXXXX")"
chmod 755 "$work"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port="$(free_port)"
base="http://127.0.0.1:$port"

STRS_DATA_DIR="$work/data" STRS_BIND="127.0.0.1:$port" RUST_LOG=warn \
  target/debug/spacetime-records >"$work/server.log" 2>&1 &
server=$!
stop_server() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap stop_server EXIT

for _ in $(seq 1 120); do
  curl -sf "$base/ready" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -sf "$base/ready" >/dev/null || { echo "$check_name: the server did not become ready" >&2; cat "$work/server.log" >&2; exit 1; }

key="$(curl -sf -X POST "$base/api/v1/agents/register" -H 'content-type: application/json' \
  -d "{\"agent_type\": \"api_agent\", \"display_name\": \"$agent_name\"}" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"])')"
