# Sourced by the bench scripts: serve_for_bench ROOT [SERVE ARGS...] starts `toolhost serve` on a
# free 127.0.0.1 port over ROOT, waits until the port accepts connections, and sets $addr. The
# server is stopped and $work removed on exit. The caller sets $work (a temp dir) first.
#
# The port is picked up front, rather than --listen :0 and reading the "listening" log line, so
# that any --log-level works; readiness is the port accepting connections.
server_pid=
stop_bench_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop_bench_server EXIT

serve_for_bench() {
  local root=$1
  shift
  local port
  port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  addr=127.0.0.1:$port
  node --import tsx src/cli.ts serve --listen "$addr" --root "$root" "$@" >"$work/server.log" 2>&1 &
  server_pid=$!
  for attempt in $(seq 1 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    kill -0 "$server_pid" 2>/dev/null || { echo "bench: server exited:" >&2; cat "$work/server.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "bench: server not listening on $addr after 60 s" >&2
  exit 1
}
