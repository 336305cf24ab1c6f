#!/usr/bin/env bash
# ts-client-ab.sh: bench:mcp's calls (35 KB text read, 4 KB edit, 10 MB text read) against ONE
# toolhost, with the TypeScript client of this tree ("TS here") and of another commit ("TS base",
# BASE_REF, default main) taking turns block by block, plus the MCP reference server and the Go
# client as in small-calls.sh: a before/after of a client change that no server swing between two
# bench:mcp runs can fake. The base client is `git archive`d into bench/results/ts-client-base and
# built there for the run (ignored by git; inside the tree so that it resolves node_modules;
# removed afterwards, or tsc would check it).
# Env: BASE_REF; BASE_TRANSPORT / HERE_TRANSPORT, `grpcTransport` for that side's createClient
# (for a commit whose client still had several, e.g. BASE_TRANSPORT=node-http2); PEERS=0 leaves
# out the MCP server and the Go client; ROUNDS per block (default 7), BLOCKS (default 5). Also
# prints each TS client's process CPU per call (median; steadier than latency on a busy machine,
# where the server's disk and CPU swing by more than a client change).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${ROUNDS:-7}
blocks=${BLOCKS:-5}
base_ref=${BASE_REF:-main}
peers=${PEERS:-1}
prefix=${MCP_PREFIX:-/tmp/toolhost-bench-mcp}
mcp_server=$prefix/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
if [ "$peers" = 1 ] && [ ! -f "$mcp_server" ]; then
  npm install --silent --no-save --prefix "$prefix" "@modelcontextprotocol/server-filesystem@2026.8.31" >&2
fi
base=bench/results/ts-client-base
rm -rf "$base" && mkdir -p "$base"
git archive "$base_ref" clients/ts gen/ts | tar -x -C "$base"
node "$base/clients/ts/scripts/build.mjs" >&2 # both clients as installed: built, run by plain node
node clients/ts/scripts/build.mjs >&2
source bench/lib/workspace.sh # $work, pids, cleanup on exit
scratch+=("$base")

(cd bench/go && go build -mod=readonly -o "$work/bin/" ./smallcalls)
mkdir -p "$work/root" "$work/skills"
root=$(realpath "$work/root")
head -c 26000 /dev/urandom | base64 >"$root/35k.txt"
head -c 7400000 /dev/urandom | base64 >"$root/10m.txt"
for who in mcp ts go; do { head -c 1500 /dev/urandom | base64; echo alpha-marker; head -c 1500 /dev/urandom | base64; } >"$root/edit-$who.txt"; done
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
node --import tsx src/cli.ts serve --listen "127.0.0.1:$port" --root "$root" --skills "$work/skills" --log-level warn >"$work/toolhost.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

args=(--toolhost "127.0.0.1:$port" --mcp-server "$mcp_server" --dir "$root" --rounds "$rounds")
here_args=(--only ts ${HERE_TRANSPORT:+--grpc-transport "$HERE_TRANSPORT"})
base_args=(--only ts --client-dist "$base/clients/ts/dist" ${BASE_TRANSPORT:+--grpc-transport "$BASE_TRANSPORT"})
# Unmeasured: the new files to disk and the server warmed, as in small-calls.sh (block 1 found the
# server cold, and whichever client went first paid for it: 3.1-6.1 ms per 35 KB read against 2.5-2.8).
sync
node bench/mcp/ts-and-mcp.mjs "${args[@]}" "${here_args[@]}" >/dev/null
node bench/mcp/ts-and-mcp.mjs "${args[@]}" "${base_args[@]}" >/dev/null
"$work/bin/smallcalls" -addr "127.0.0.1:$port" -rounds "$rounds" >/dev/null
for b in $(seq 1 "$blocks"); do
  [ "$peers" = 1 ] && node bench/mcp/ts-and-mcp.mjs "${args[@]}" --only mcp
  if ((b % 2)); then order="here base"; else order="base here"; fi # neither always goes first
  for v in $order; do
    if [ "$v" = here ]; then
      node bench/mcp/ts-and-mcp.mjs "${args[@]}" "${here_args[@]}" --cpu
    else
      node bench/mcp/ts-and-mcp.mjs "${args[@]}" "${base_args[@]}" --cpu | sed 's/^ts /tsbase /'
    fi
  done
  [ "$peers" = 1 ] && "$work/bin/smallcalls" -addr "127.0.0.1:$port" -rounds "$rounds"
  echo "block $b load $(cut -d' ' -f1 /proc/loadavg)" >&2
done | tee "$work/results.txt" >&2
node - "$work/results.txt" "$base_ref${BASE_TRANSPORT:+ $BASE_TRANSPORT}" <<'JS'
const rows = require("node:fs").readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => l.split(" "));
const median = (xs) => (xs === undefined ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
const by = {};
for (const [client, work, ms] of rows) ((by[work] ??= {})[client] ??= []).push(Number(ms));
console.log(`| call | MCP | Go | TS base (${process.argv[3]}) | TS here | Go / MCP | TS base / MCP | TS here / MCP | here / base |`);
console.log("|---|---|---|---|---|---|---|---|---|");
const works = Object.keys(by).filter((w) => !w.endsWith(".cpu"));
for (const work of works) {
  const s = by[work];
  const [m, g, b, h] = [median(s.mcp), median(s.go), median(s.tsbase), median(s.ts)];
  console.log(`| ${work} | ${m.toFixed(2)} ms | ${g.toFixed(2)} ms | ${b.toFixed(2)} ms | ${h.toFixed(2)} ms | ${(g / m).toFixed(2)} | ${(b / m).toFixed(2)} | ${(h / m).toFixed(2)} | ${(h / b).toFixed(2)} |`);
}
console.log("\n| call | TS base client CPU per call | TS here | here / base |\n|---|---|---|---|");
for (const work of works) {
  const s = by[`${work}.cpu`];
  if (s === undefined) continue;
  const [b, h] = [median(s.tsbase), median(s.ts)];
  console.log(`| ${work} | ${b.toFixed(3)} ms | ${h.toFixed(3)} ms | ${(h / b).toFixed(2)} |`);
}
JS
