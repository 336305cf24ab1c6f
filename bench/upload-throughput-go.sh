#!/usr/bin/env bash
# UploadFile throughput of the server, measured with the generated Go client (bench/go/uploadbench)
# so that a Node.js client's encoding is not what limits it: 256 MiB of random bytes uploaded over
# 127.0.0.1 at each chunk size, ROUNDS times (default 3), each a full atomic write.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
sizes=${CHUNK_SIZES:-"262144 1048576 4194304"}
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
(cd bench/go && go build -mod=readonly -o "$work/uploadbench" ./uploadbench)
mkdir -p "$work/root" "$work/skills"
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
node --import tsx src/cli.ts serve --listen "127.0.0.1:$port" --root "$work/root" --skills "$work/skills" --log-level warn >"$work/server.log" 2>&1 &
server_pid=$!
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
"$work/uploadbench" -addr "127.0.0.1:$port" -size $((16 * 1024 * 1024)) -rounds 2 >/dev/null # warm-up (JIT)
for size in $sizes; do
  "$work/uploadbench" -addr "127.0.0.1:$port" -chunk "$size" -rounds "$rounds"
done
