#!/usr/bin/env bash
# The GraphQL-over-HTTP audit (npm graphql-http, serverAudits) against /graphql of a real server
# (a throw-away data directory, a free loopback port, a registered key: ../serve.sh): every
# audit, MUST, SHOULD and MAY, must pass; any error, warning or notice fails the run (audit.mjs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
. tests/clients/serve.sh graphql-http "GraphQL over HTTP audit"

node "$here/audit.mjs" "$base/graphql" "$key"
