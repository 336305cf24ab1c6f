#!/usr/bin/env bash
# Throughput over a 50 ms round trip: starts toolhost and bench/go/latencyproxy (25 ms each way,
# a delay line on 127.0.0.1), then one 256 MiB ReadFile (bytes) and one 256 MiB UploadFile from
# each of the Go (bench/go), Python (grpcio) and TypeScript clients (Connect on connect-node, and
# @toolhost/client's createClient on its own HTTP/2) through the proxy.
# Env: DELAY (default 25ms, each way).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
source bench/serve-for-bench.sh
(cd bench/go && go build -mod=readonly -o "$work/bin/" ./readbench ./uploadbench ./latencyproxy)
mkdir -p "$work/root" "$work/skills"
head -c $((256 * 1024 * 1024)) /dev/urandom >"$work/root/big.bin"
serve_for_bench "$work/root" --skills "$work/skills" --log-level warn
pport=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
"$work/bin/latencyproxy" -listen "127.0.0.1:$pport" -upstream "$addr" -delay "${DELAY:-25ms}" 2>"$work/proxy.log" &
proxy_pid=$!
trap 'kill $proxy_pid 2>/dev/null || true; stop_bench_server' EXIT
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$pport") 2>/dev/null && break; sleep 0.1; done
via=127.0.0.1:$pport
"$work/bin/readbench" -addr "$via" -rounds 1 | sed 's/^/go read /'
"$work/bin/uploadbench" -addr "$via" -rounds 1 | sed 's/^/go upload /'
PYTHONPATH=$PWD/gen/python .venv/bin/python bench/latency/py_client.py "$via"
node --import tsx bench/latency/ts-client.ts "$via"
CLIENT=toolhost node --import tsx bench/latency/ts-client.ts "$via"
