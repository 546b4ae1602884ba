#!/usr/bin/env bash
# The MCP protocol's official conformance suite (npm @modelcontextprotocol/conformance, server
# mode) against /mcp/ of a real server: a throw-away data directory, a free loopback port, a
# registered key (../serve.sh), and a loopback proxy (proxy.mjs) that adds the bearer the suite cannot send.
# Every scenario that applies to this server must pass; the scenarios that call the suite's own
# fixture tools, resources and prompts (test_simple_text, test://static-text, ...) are listed in
# expected-failures.yml, and the suite fails the run when one of them passes (a stale list) or
# anything else fails. docs/mcp.md lists every scenario with its status.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."

(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
. tests/clients/serve.sh mcp-conformance "MCP Conformance"
proxy_port="$(free_port)"
proxy=""
cleanup() {
  [ -n "$proxy" ] && kill "$proxy" 2>/dev/null || true
  stop_server
}
trap cleanup EXIT

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
