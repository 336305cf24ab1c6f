#!/usr/bin/env bash
# Throughput over a 50 ms round trip: starts toolhost and bench/go/latencyproxy (25 ms each way,
# a delay line on 127.0.0.1), then one 256 MiB ReadFile (bytes) and one 256 MiB UploadFile from
# each of the Go (bench/go), Python (grpcio) and TypeScript clients through the proxy: the
# TypeScript client as installed (@toolhost/client, clients/ts built to dist, "tsclient") and
# connect-node's own transport with wide windows ("connect-node").
# Env: DELAY (default 25ms, each way); ROUNDS (default 1) of the TypeScript clients, taking turns;
# BASE_REF adds the TypeScript client of that commit ("tsbase", built from a `git archive` in
# bench/results/, removed afterwards) to every round, with BASE_TRANSPORT as its `grpcTransport`
# (e.g. BASE_REF=main BASE_TRANSPORT=node-http2, for a commit whose client had several); PEERS=0
# leaves out the Go and Python clients.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
source bench/serve-for-bench.sh
base=bench/results/ts-client-base-latency
node clients/ts/scripts/build.mjs >&2
variants=(here connect-node)
if [ -n "${BASE_REF:-}" ]; then
  rm -rf "$base" && mkdir -p "$base"
  git archive "$BASE_REF" clients/ts gen/ts | tar -x -C "$base"
  node "$base/clients/ts/scripts/build.mjs" >&2
  variants+=(base)
fi
(cd bench/go && go build -mod=readonly -o "$work/bin/" ./readbench ./uploadbench ./latencyproxy)
mkdir -p "$work/root" "$work/skills"
head -c $((256 * 1024 * 1024)) /dev/urandom >"$work/root/big.bin"
serve_for_bench "$work/root" --skills "$work/skills" --log-level warn
pport=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
"$work/bin/latencyproxy" -listen "127.0.0.1:$pport" -upstream "$addr" -delay "${DELAY:-25ms}" 2>"$work/proxy.log" &
proxy_pid=$!
trap 'kill $proxy_pid 2>/dev/null || true; stop_bench_server; rm -rf "$base"' EXIT
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$pport") 2>/dev/null && break; sleep 0.1; done
via=127.0.0.1:$pport
if [ "${PEERS:-1}" = 1 ]; then
  "$work/bin/readbench" -addr "$via" -rounds 1 | sed 's/^/go read /'
  "$work/bin/uploadbench" -addr "$via" -rounds 1 | sed 's/^/go upload /'
  PYTHONPATH=$PWD/gen/python .venv/bin/python bench/latency/py_client.py "$via"
fi
n=${#variants[@]}
for round in $(seq 1 "${ROUNDS:-1}"); do
  shift_by=$(( (round - 1) % n )) # each round starts with the next variant
  for v in "${variants[@]:shift_by}" "${variants[@]:0:shift_by}"; do
    case $v in
      here) node --import tsx bench/latency/ts-client.ts "$via" ;;
      connect-node) node --import tsx bench/latency/ts-client.ts "$via" --connect-node ;;
      base) node --import tsx bench/latency/ts-client.ts "$via" --label tsbase --client-dist "$base/clients/ts/dist" ${BASE_TRANSPORT:+--grpc-transport "$BASE_TRANSPORT"} ;;
    esac
  done
done
