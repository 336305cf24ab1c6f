#!/usr/bin/env bash
# bench/mcp/tools-call.sh — MCP tools/call over stdio, toolhost mcp against the MCP reference
# filesystem server (@modelcontextprotocol/server-filesystem), both driven by the MCP SDK client
# in one process, call by call in turn (bench/mcp/tools-call.mjs): a 35 KB text read, a
# one-replacement edit of a 4 KB file, a 10 MB text read (toolhost's paged through its read
# tool, 1 MiB a page). Prints p50, p99 and toolhost / reference, and writes the mcp-tools-call rows
# to bench/out (bench/write-results.mjs puts them in RESULTS.md).
#
# The reference server is installed into a scratch prefix (MCP_PREFIX, default
# /tmp/toolhost-bench-mcp), never into the project. Env: ROUNDS (default 200) for the small calls,
# BIG_ROUNDS (default 20) for the 10 MB read.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=${MCP_PREFIX:-/tmp/toolhost-bench-mcp}
mcp_version=2026.8.31
mcp_server=$prefix/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
[ -f "$mcp_server" ] || npm install --silent --no-save --prefix "$prefix" "@modelcontextprotocol/server-filesystem@$mcp_version" >&2
source bench/lib/workspace.sh # $work, cleanup on exit

mkdir -p "$work/root"
root=$(realpath "$work/root")
head -c 26000 /dev/urandom | base64 >"$root/35k.txt"   # ~35 KB of 76-column lines
head -c 7400000 /dev/urandom | base64 >"$root/10m.txt" # ~10 MB
for who in mcp toolhost; do { head -c 1500 /dev/urandom | base64; echo alpha-marker; head -c 1500 /dev/urandom | base64; } >"$root/edit-$who.txt"; done
# toolhost as an agent starts it, with the largest content cap, so that one call answers the
# 35 KB read whole and the 10 MB read takes ten pages; its change history in the scratch folder.
cat >"$work/toolhost.yaml" <<YAML
roots: ["$root"]
history:
  dir: "$work/history"
limits:
  tool_content_bytes: 1048576
log:
  level: warn
YAML
sync # the files just written go to disk before anything is timed
node bench/mcp/tools-call.mjs --mcp-server "$mcp_server" --dir "$root" --config "$work/toolhost.yaml" \
  --rounds "${ROUNDS:-200}" --big-rounds "${BIG_ROUNDS:-20}"
