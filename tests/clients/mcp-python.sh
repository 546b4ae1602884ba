#!/usr/bin/env bash
# The Python MCP SDK (PyPI `mcp`, pinned in tests/requirements.txt, installed by .ci/python-env)
# against /mcp/ of a real server (a throw-away data directory, a free loopback port, a registered
# key: serve.sh), then mcp_python_check.py, which checks every step.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
bin="$(.ci/python-env)"
. tests/clients/serve.sh mcp-python "MCP Python SDK"

"$bin/python" "$here/mcp_python_check.py" "$base/mcp/" "$key"
echo "mcp-python: the Python MCP SDK round trip passed"
