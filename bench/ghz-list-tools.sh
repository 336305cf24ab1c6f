#!/usr/bin/env bash
# Unary baseline: ghz against FileTools.ListTools on a server this script starts on 127.0.0.1
# and stops again. ListTools does no file I/O, so this measures the per-RPC cost of the
# transport (grpc-js, codec, call logging) rather than the disk.
#
# Env: GHZ_COUNT (requests, default 20000), GHZ_CONCURRENCY (workers, default 16),
#      GHZ_CONNECTIONS (HTTP/2 connections, default 1), GHZ_WARMUP (first requests left out of the
#      statistics while V8 warms up, default 1000), TOOLHOST_LOG_LEVEL (server log level; the
#      default "info" logs one line per RPC, as in production).
# Writes the raw ghz report to bench/results/ghz-list-tools.json and its summary to
# bench/out/ghz-list-tools.jsonl (both git-ignored; bench/write-results.mjs puts it in RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/.."

count=${GHZ_COUNT:-20000}
concurrency=${GHZ_CONCURRENCY:-16}
connections=${GHZ_CONNECTIONS:-1}
warmup=${GHZ_WARMUP:-1000}
ghz=.tools/bin/ghz
[ -x "$ghz" ] || { echo "ghz-list-tools: $ghz is missing; run scripts/install-tools.sh" >&2; exit 1; }

work=$(mktemp -d)
source bench/serve-for-bench.sh

protoset=$(bash bench/build-protoset.sh "$work/toolhost.protoset")
mkdir -p "$work/root"
serve_for_bench "$work/root"

echo "ghz-list-tools: $count requests, concurrency $concurrency, connections $connections, warm-up $warmup, server $addr"
mkdir -p bench/results
report=bench/results/ghz-list-tools.json
"$ghz" --insecure --protoset "$protoset" --call toolhost.files.v1.FileTools.ListTools -d '{}' \
  -n "$count" -c "$concurrency" --connections "$connections" --skipFirst "$warmup" \
  -O json -o "$report" "$addr"

node - "$report" "$count requests, $concurrency workers, $connections connection(s)" <<'JS'
const report = JSON.parse(require("node:fs").readFileSync(process.argv[2], "utf8"));
const ms = (ns) => (ns / 1e6).toFixed(2);
const at = (p) => report.latencyDistribution?.find((d) => d.percentage === p)?.latency ?? NaN;
const codes = report.statusCodeDistribution ?? {};
console.log(`requests/s ${report.rps.toFixed(0)}  p50 ${ms(at(50))} ms  p99 ${ms(at(99))} ms  statuses ${JSON.stringify(codes)}`);
const { pathToFileURL } = require("node:url");
import(pathToFileURL(require("node:path").resolve("bench/lib/results.mjs")).href).then(({ openResults }) => {
  openResults("ghz-list-tools", { command: `bash bench/ghz-list-tools.sh (${process.argv[3]})` }).row("ghz-list-tools", {
    "requests/s": report.rps.toFixed(0),
    p50: `${ms(at(50))} ms`,
    p99: `${ms(at(99))} ms`,
  });
});
const failed = Object.entries(codes).filter(([code]) => code !== "OK");
if (failed.length > 0) {
  console.error(`ghz-list-tools: non-OK responses: ${JSON.stringify(report.errorDistribution ?? failed)}`);
  process.exit(1);
}
JS
