#!/usr/bin/env bash
# bench:mcp — small calls, one at a time, against the MCP reference filesystem server
# (@modelcontextprotocol/server-filesystem over stdio, driven by the MCP SDK client) and toolhost
# (through the generated Go client, bench/go/smallcalls, and the TypeScript client, clients/ts built
# as installed and run by plain node):
# a 35 KB text read, a single-replacement edit of a 4 KB file, a 10 MB text read. Prints the
# median latency of each and the ratio toolhost / MCP. The MCP client, the TS client and the Go
# client each run in a process of their own, block after block.
#
# The MCP server is installed into a scratch prefix (MCP_PREFIX, default /tmp/toolhost-bench-mcp),
# never into the project. Env: ROUNDS per block (default 7), BLOCKS (default 3; the MCP, TS and
# Go clients take turns block by block). Everything listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${ROUNDS:-7}
blocks=${BLOCKS:-3}
prefix=${MCP_PREFIX:-/tmp/toolhost-bench-mcp}
mcp_version=2026.8.31
mcp_server=$prefix/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
[ -f "$mcp_server" ] || npm install --silent --no-save --prefix "$prefix" "@modelcontextprotocol/server-filesystem@$mcp_version" >&2
source bench/lib/workspace.sh # $work, pids, cleanup on exit

(cd bench/go && go build -mod=readonly -o "$work/bin/" ./smallcalls)
node clients/ts/scripts/build.mjs >&2 # the TS client as installed (clients/ts/dist), run by plain node
mkdir -p "$work/root" "$work/skills"
root=$(realpath "$work/root")
head -c 26000 /dev/urandom | base64 >"$root/35k.txt"                  # ~35 KB of 76-column lines
head -c 7400000 /dev/urandom | base64 >"$root/10m.txt"                # ~10 MB
for who in mcp ts go; do { head -c 1500 /dev/urandom | base64; echo alpha-marker; head -c 1500 /dev/urandom | base64; } >"$root/edit-$who.txt"; done

port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
# shellcheck disable=SC2086 # TOOLHOST_NODE_FLAGS (e.g. --cpu-prof) is a list of node flags
node ${TOOLHOST_NODE_FLAGS:-} --import tsx src/cli.ts serve --listen "127.0.0.1:$port" --root "$root" --skills "$work/skills" --log-level warn >"$work/toolhost.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
# Before anything is timed: the files just written go to disk (their writeback otherwise lands in
# block 1), and one unmeasured pass of each toolhost client warms the server (block 1 otherwise
# found it cold, and the TS client, first in every block, paid for it alone; bench/README.md,
# section mcp, tsclient4). The MCP server starts afresh in each of its blocks, as before.
sync
node bench/mcp/ts-and-mcp.mjs --toolhost "127.0.0.1:$port" --dir "$root" --rounds "$rounds" --only ts >/dev/null
"$work/bin/smallcalls" -addr "127.0.0.1:$port" -rounds "$rounds" >/dev/null

# The clients take turns block by block, each block starting with the next one (no client always
# runs first, or always right after the same one); each line is tagged with its block, so that the
# summary can also pair each client with MCP block by block.
clients=(mcp ts go)
for block in $(seq 1 "$blocks"); do
  shift_by=$(( (block - 1) % ${#clients[@]} ))
  for who in "${clients[@]:shift_by}" "${clients[@]:0:shift_by}"; do # each client in a process of its own
    case $who in
      go) "$work/bin/smallcalls" -addr "127.0.0.1:$port" -rounds "$rounds" ;;
      *) node bench/mcp/ts-and-mcp.mjs --toolhost "127.0.0.1:$port" --mcp-server "$mcp_server" --dir "$root" --rounds "$rounds" --only "$who" ;;
    esac | sed "s/^/$block /"
  done
done | tee "$work/results.txt" >&2
node - "$work/results.txt" <<'JS'
const rows = require("node:fs").readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => l.split(" "));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const by = {};
const blocks = {};
for (const [block, server, work, ms] of rows) {
  ((by[work] ??= {})[server] ??= []).push(Number(ms));
  (((blocks[work] ??= {})[block] ??= {})[server] ??= []).push(Number(ms));
}
// Per block: the ratio of a client's median to MCP's in that block; then the median over blocks,
// which cancels what drifts from block to block (other load on the machine).
const perBlock = (work, server) => median(Object.values(blocks[work]).filter((b) => b[server] && b.mcp).map((b) => median(b[server]) / median(b.mcp))).toFixed(2);
console.log("| call | MCP server-filesystem | toolhost, Go client | toolhost, TS client | Go / MCP | TS / MCP | per block: Go, TS / MCP |");
console.log("|---|---|---|---|---|---|---|");
for (const [work, s] of Object.entries(by)) {
  const [m, g, t] = [median(s.mcp), median(s.go), median(s.ts)];
  console.log(`| ${work} | ${m.toFixed(2)} ms | ${g.toFixed(2)} ms | ${t.toFixed(2)} ms | ${(g / m).toFixed(2)} | ${(t / m).toFixed(2)} | ${perBlock(work, "go")}, ${perBlock(work, "ts")} |`);
}
JS
