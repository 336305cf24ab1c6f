#!/usr/bin/env bash
# ab-small-calls.sh — A/B of two toolhost checkouts on bench:mcp's small calls (a 35 KB text read,
# a 4 KB single-replacement edit, a 10 MB text read) through the generated Go client
# (bench/go/smallcalls), one call at a time, the two servers side by side and taking turns block
# by block in one run, so that both see the same machine load.
#
#   BASE=/path/to/other/checkout bash bench/edit/ab-small-calls.sh
#
# Each of PAIRS pairs of fresh servers (one from BASE, one from this checkout, started together)
# gets BLOCKS blocks per call kind, ROUNDS calls each (plus smallcalls' one warm-up call), the
# order of the two sides flipping every block: a fresh server per pair is what bench:mcp measures
# (its server sees ~100-200 calls in all, so most of its JavaScript runs cold). Per block it
# records each call's latency and the server's CPU per call (all its threads, from
# /proc/PID/task/*/schedstat, nanoseconds). Prints, per call kind, the median latency and CPU of
# each side and the ratio this / base. Env: BASE (required), THIS (default this
# checkout), PAIRS (4), BLOCKS (3),
# ROUNDS (7; odd, so that the edit's marker is back where it started), WORKS ("read35k edit4k
# read10m"; also "write4k" and "stat"), NODE_FLAGS_BASE / NODE_FLAGS_THIS (extra node flags for each side's server),
# ENV_BASE / ENV_THIS (environment assignments for each side's server, e.g. TOOLHOST_COMPILE_EARLY=0;
# with BASE=$PWD the two sides are one checkout run two ways, docs/adr/0006-v8-flags.md).
# Everything listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/../.."
this=${THIS:-$PWD}
base=${BASE:?set BASE to the other checkout (e.g. a git worktree of main)}
pairs=${PAIRS:-4}
blocks=${BLOCKS:-3}
rounds=${ROUNDS:-7}
works=${WORKS:-read35k edit4k read10m}
[ $((rounds % 2)) -eq 1 ] || { echo "ROUNDS must be odd (the edit's marker flips each call, one warm-up call included)" >&2; exit 2; }
source bench/lib/workspace.sh # $work, pids, cleanup on exit
(cd bench/go && go build -mod=readonly -o "$work/bin/" ./smallcalls)

mkdir -p "$work/files"
head -c 26000 /dev/urandom | base64 >"$work/files/35k.txt"
head -c 7400000 /dev/urandom | base64 >"$work/files/10m.txt"
{ head -c 1500 /dev/urandom | base64; echo alpha-marker; head -c 1500 /dev/urandom | base64; } >"$work/files/edit-go.txt"
head -c 3000 /dev/urandom | base64 >"$work/files/write-go.txt"

free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }

# start SIDE TREE FLAGS ENV: a server from TREE on a root of its own; sets port_SIDE and pid_SIDE.
start() {
  local side=$1 tree=$2 flags=$3 envs=$4 dir="$work/$1"
  rm -rf "$dir" && mkdir -p "$dir/root" "$dir/skills" "$dir/state"
  cp "$work/files/"* "$dir/root/"
  local port; port=$(free_port)
  # shellcheck disable=SC2086 # flags is a list of node flags, envs of NAME=VALUE assignments
  (cd "$tree" && XDG_STATE_HOME="$dir/state" exec env $envs node $flags --import tsx src/cli.ts serve --listen "127.0.0.1:$port" --root "$(realpath "$dir/root")" --skills "$dir/skills" --log-level warn >"$dir/log" 2>&1) &
  pids+=("$!")
  printf -v "port_$side" %s "$port"
  printf -v "pid_$side" %s "$!"
}
wait_port() { for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "server on $1 did not start" >&2; exit 1; }
# cpu_ns PID: CPU time of every thread of a process so far, in ns.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }

results="$work/results.txt"
for pair in $(seq 1 "$pairs"); do
  start base "$base" "${NODE_FLAGS_BASE:-}" "${ENV_BASE:-}"
  start this "$this" "${NODE_FLAGS_THIS:-}" "${ENV_THIS:-}"
  # port_base/pid_base/port_this/pid_this are set by start via printf -v
  # shellcheck disable=SC2154
  { wait_port "$port_base"; wait_port "$port_this"; }
  sleep 1
  for block in $(seq 1 "$blocks"); do
    order="base this"; [ $(((pair + block) % 2)) -eq 0 ] && order="this base"
    for w in $works; do
      for side in $order; do
        port_var=port_$side pid_var=pid_$side
        before=$(cpu_ns "${!pid_var}")
        "$work/bin/smallcalls" -addr "127.0.0.1:${!port_var}" -rounds "$rounds" -only "$w" | sed "s/^go /$side /" >>"$results"
        after=$(cpu_ns "${!pid_var}")
        echo "cpu-$side $w $(( (after - before) / (rounds + 1) / 1000 ))" >>"$results"
      done
    done
  done
  kill -TERM "$pid_base" "$pid_this"
  wait "$pid_base" "$pid_this" 2>/dev/null || true
  echo "pair $pair done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
node - "$results" "$base" <<'JS'
const [file, base] = process.argv.slice(2);
const rows = require("node:fs").readFileSync(file, "utf8").trim().split("\n").map((l) => l.split(" "));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const by = {};
for (const [side, work, v] of rows) ((by[work] ??= {})[side] ??= []).push(Number(v));
console.log(`base: ${base}`);
console.log("| call | base ms | this ms | this / base | base CPU us/call | this CPU us/call | CPU this / base | calls each |");
console.log("|---|---|---|---|---|---|---|---|");
for (const [work, s] of Object.entries(by)) {
  const [b, t, cb, ct] = [median(s.base), median(s.this), median(s["cpu-base"]), median(s["cpu-this"])];
  console.log(`| ${work} | ${b.toFixed(2)} | ${t.toFixed(2)} | ${(t / b).toFixed(2)} | ${cb} | ${ct} | ${(ct / cb).toFixed(2)} | ${s.base.length} |`);
}
JS
