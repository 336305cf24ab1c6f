#!/usr/bin/env bash
# UploadFile throughput of the server, measured with the generated Go client (bench/go/uploadbench)
# so that a Node.js client's encoding is not what limits it: 256 MiB of random bytes uploaded over
# 127.0.0.1 at each chunk size, ROUNDS times (default 3), each a full atomic write.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
sizes=${CHUNK_SIZES:-"262144 1048576 4194304"}
work=$(mktemp -d)
source bench/serve-for-bench.sh
(cd bench/go && go build -mod=readonly -o "$work/uploadbench" ./uploadbench)
mkdir -p "$work/root" "$work/skills"
serve_for_bench "$work/root" --skills "$work/skills" --log-level warn
"$work/uploadbench" -addr "$addr" -size $((16 * 1024 * 1024)) -rounds 2 >/dev/null # warm-up (JIT)
for size in $sizes; do
  "$work/uploadbench" -addr "$addr" -chunk "$size" -rounds "$rounds"
done
