#!/usr/bin/env bash
# The README's examples, run as written against a real server: the `sh` blocks of "A five-minute
# tour" in one shell (variables carry from block to block), then the back-up and restore blocks of
# "Stop, wipe, back up, restore, upgrade". Three substitutions only: the server's address
# (a free loopback port instead of 8080), the debug binary instead of the release one (CI builds
# debug), and the working directory (a throw-away one holding the server's ./data).
# Every HTTP answer is recorded; the run fails on a shell error, on an answer outside 2xx that
# the README does not announce with a `# 4xx` comment, on a missing expected output, or when a
# command leaves a file behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"
cargo build --locked --quiet

work="$(mktemp -d "${TMPDIR:-/tmp}/strs-readme.XXXXXX")"
chmod 755 "$work"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
tools="$work/.tour"
mkdir -p "$tools" "$work/run"
binary="$repo/target/debug/spacetime-records"

server=""
start_server() {
  (cd "$work/run" && STRS_BIND="127.0.0.1:$port" RUST_LOG=warn exec "$binary") >>"$tools/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 120); do
    curl -sf "$base/ready" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "readme: the server did not become ready" >&2
  cat "$tools/server.log" >&2
  exit 1
}
stop_server() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
  fi
}
cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT

# The `sh` blocks of one README section (from its heading to the next `## `), as one script.
blocks() {
  awk -v section="$1" '
    index($0, "## " section) == 1 { inside = 1; next }
    inside && /^## / { inside = 0 }
    inside && /^ *```sh$/ { code = 1; next }
    inside && code && /^ *```$/ { code = 0; next }
    inside && code { sub(/^  /, ""); print }
  ' README.md | sed -e "s#http://127.0.0.1:8080#$base#g" -e "s#target/release/spacetime-records#$binary#g"
}

# Records the status of every answer (the README's own options are left as they are).
cat >"$tools/prelude.sh" <<EOF
curl() {
  local headers rc=0 status url=""
  headers="\$(mktemp "$tools/headers.XXXXXX")"
  command curl -D "\$headers" "\$@" || rc=\$?
  status="\$(awk '/^HTTP\\//{ s = \$2 } END { print s }' "\$headers")"
  for arg in "\$@"; do case "\$arg" in http*) url="\$arg" ;; esac; done
  printf '%s %s\n' "\${status:-none}" "\${url%%\\?*}" >>"$tools/statuses"
  rm -f "\$headers"
  return \$rc
}
EOF

run_section() {
  local section="$1" out="$2"
  local script="$tools/$out.sh"
  { cat "$tools/prelude.sh"; blocks "$section"; } >"$script"
  if [ "$(blocks "$section" | grep -c .)" -lt 3 ]; then
    echo "readme: no commands found in the section '$section'" >&2
    exit 1
  fi
  if ! (cd "$work/run" && bash -euo pipefail "$script" >"$tools/$out.out" 2>&1); then
    echo "readme: the '$section' commands failed; their output:" >&2
    tail -n 40 "$tools/$out.out" >&2
    exit 1
  fi
}

# What the README announces outside 2xx (`# 401: revoked`), in order, against what was answered.
check_statuses() {
  local section="$1"
  local announced answered
  announced="$(blocks "$section" | grep -oE '# [45][0-9]{2}\b' | awk '{ print $2 }' | sort | tr '\n' ' ')"
  answered="$(awk '$1 !~ /^2/ { print $1 }' "$tools/statuses" | sort | tr '\n' ' ')"
  if [ "$announced" != "$answered" ]; then
    echo "readme: '$section' answers outside 2xx: [$answered], announced: [$announced]" >&2
    awk '$1 !~ /^2/' "$tools/statuses" >&2
    exit 1
  fi
}

expect() {
  local file="$1" pattern="$2"
  if ! grep -qE -- "$pattern" "$tools/$file.out"; then
    echo "readme: expected /$pattern/ in the output of $file" >&2
    tail -n 40 "$tools/$file.out" >&2
    exit 1
  fi
}

start_server
run_section "A five-minute tour" tour
check_statuses "A five-minute tour"
calls="$(wc -l <"$tools/statuses")"
expect tour '"status":"processed"'
expect tour '"verdict":"not_useful"'
expect tour '"protocolVersion"'
expect tour '"reaches_head":true'
expect tour '^[Cc]ontent-[Ll]ocation: /api/v1/entities/'
expect tour '^200 [0-9]+ bytes$'
leftover="$(cd "$work/run" && ls -A | grep -vx data || true)"
if [ -n "$leftover" ]; then
  echo "readme: the tour left files in its working directory: $leftover" >&2
  exit 1
fi
echo "readme: the tour ran as written ($calls HTTP calls)"

# Back up with the server running, restore into a new data directory, and find the tour's agent.
: >"$tools/statuses"
key="$(sed -nE 's/.*"api_key":"([^"]+)".*/\1/p' "$tools/tour.out" | head -n 1)"
blocks "Stop, wipe, back up, restore, upgrade" >"$tools/operations.sh"
awk '/^SOCK=/ && !seen { seen = 1 } { print } /^cp -a data/ { exit }' "$tools/operations.sh" >"$tools/backup.sh"
awk 'found { print } /^cp -a data/ { found = 1 }' "$tools/operations.sh" >"$tools/restore.sh"
if ! (cd "$work/run" && bash -euo pipefail "$tools/backup.sh" >"$tools/backup.out" 2>&1); then
  echo "readme: the back-up commands failed:" >&2
  cat "$tools/backup.out" >&2
  exit 1
fi
stop_server
# The restore block starts the server itself (in the background, on the README's address), waits
# for it, restores, stops it and starts it again in the foreground: here in the background.
sed -i -e '$ s#^\(.*spacetime-records\)\(.*\)$#\1 \& echo $! >'"$tools"'/last-server.pid#' "$tools/restore.sh"
if ! (cd "$work/run" && STRS_BIND="127.0.0.1:$port" RUST_LOG=warn bash -euo pipefail "$tools/restore.sh" >"$tools/restore.out" 2>&1); then
  echo "readme: the restore commands failed:" >&2
  cat "$tools/restore.out" >&2
  exit 1
fi
server="$(cat "$tools/last-server.pid")"
for _ in $(seq 1 120); do
  curl -sf "$base/ready" >/dev/null 2>&1 && break
  sleep 0.5
done
me="$(curl -s "$base/api/v1/agents/me" -H "authorization: Bearer $key")"
if ! grep -q '"display_name":"Tour Scraper"' <<<"$me"; then
  echo "readme: after the restore, the tour's key does not find its agent: $me" >&2
  cat "$tools/restore.out" >&2
  exit 1
fi
[ -d "$work/run/data.old" ] || { echo "readme: the restore did not keep the old data" >&2; exit 1; }
echo "readme: the back-up and restore ran as written; the tour's agent is back"
echo "readme: 2 passed, 0 failed"
