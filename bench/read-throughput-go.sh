#!/usr/bin/env bash
# Streamed-read throughput of the server, measured with the generated Go client (bench/go), which
# decodes far faster than a Node.js client and so leaves the measurement to the server. Streams a
# 256 MiB file of random bytes in bytes mode over 127.0.0.1 at three chunk sizes, interleaved over
# ROUNDS rounds, and prints the median MB/s of each and its ratio to the default (256 KiB).
#
# Env: ROUNDS (default 5), CHUNK_SIZES (default "65536 262144 1048576").
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
sizes=${CHUNK_SIZES:-"65536 262144 1048576"}

work=$(mktemp -d)
source bench/serve-for-bench.sh
(cd bench/go && go build -mod=readonly -o "$work/readbench" ./readbench)
mkdir -p "$work/root" "$work/skills"
head -c $((256 * 1024 * 1024)) /dev/urandom >"$work/root/big.bin"
serve_for_bench "$work/root" --skills "$work/skills" --log-level warn

"$work/readbench" -addr "$addr" -rounds 1 >/dev/null # warm-up: page cache, JIT
for round in $(seq 1 "$rounds"); do
  for size in $sizes; do
    "$work/readbench" -addr "$addr" -chunk "$size" -rounds 1 | sed -n 's/.*MB\/s=\(.*\)/'"$size"' \1/p'
  done
done >"$work/results.txt"

node - "$work/results.txt" <<'JS'
const lines = require("node:fs").readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => l.split(" ").map(Number));
const by = new Map();
for (const [size, mbps] of lines) by.set(size, [...(by.get(size) ?? []), mbps]);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(by.get(262144) ?? [...by.values()][0]);
for (const [size, xs] of by) {
  console.log(`chunk ${String(size / 1024).padStart(5)} KiB  median ${median(xs).toFixed(0).padStart(5)} MB/s  (${(median(xs) / base).toFixed(2)}x of 256 KiB)  runs ${xs.map((x) => x.toFixed(0)).join(" ")}`);
}
JS
