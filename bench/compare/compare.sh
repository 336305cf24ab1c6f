#!/usr/bin/env bash
# bench:compare — toolhost against a grpc-go reference server (bench/go/refserver) on the same
# generated code, measured with the same Go clients (bench/go/readbench, uploadbench) and ghz,
# servers interleaved round by round in one run. Prints min/median/max per server and work, the
# ratio of medians to grpc-go, server CPU per operation (utime+stime from /proc/PID/stat) and
# the growth of each server's peak RSS (VmHWM) over the run, and each server's RSS growth during
# 64 concurrent 64 MiB reads and during 16 concurrent 256 MiB reads (issue 31).
#
# A bare @grpc/grpc-js StatFile and ListTools server (bare-grpc-js.ts) joins the stat and list
# rounds as "grpc-js" (the grpc-go server has no ListTools, so sits those out); a raw
# node:http2 server with hand-framed gRPC (raw-http2.ts, the Node.js ceiling) joins the read
# rounds, the fan-out and the RSS lines as "node-h2".
# Env: ROUNDS (default 5); BEFORE=/path/to/another/checkout adds that checkout's toolhost as
# "before" (for a before/after table from one run), BEFORE_ENV environment assignments for it
# (BEFORE=$PWD BEFORE_ENV=TOOLHOST_HEAP_ROOM=0: one checkout run two ways); WORK ("read256k
# read1m upload stat"); UPLOAD_SETTLE, seconds before each upload (default 3, see the upload rounds).
# Everything listens on 127.0.0.1 only; every loop is bounded by ROUNDS.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The load average as the run starts, for the summary (summarize.mjs writes it at the end).
export COMPARE_LOAD_AT_START; COMPARE_LOAD_AT_START=$(cut -d " " -f 1 /proc/loadavg)
rounds=${ROUNDS:-5}
works=${WORK:-"read1m read256k upload stat list"}
# WORK=small: the small calls of an agent's traffic, one at a time ("1") and 16 at once ("16"):
# StatFile, a 4 KiB ReadFile, a 4 KiB WriteFile (each of 16 callers overwriting its own file),
# ListDirectory of 1,000 files (stat of each) and the same names_only.
[ "$works" = small ] && works="stat1 stat read4k1 read4k16 write4k1 write4k16 dir1k1 dir1k16 names1k1"
source bench/lib/workspace.sh # $work, pids, cleanup on exit

(cd bench/go && go build -mod=readonly -o "$work/bin/" ./refserver ./readbench ./uploadbench)
protoset=$(bash bench/build-protoset.sh "$work/toolhost.protoset")
mkdir -p "$work/root" "$work/skills"
head -c $((256 * 1024 * 1024)) /dev/urandom >"$work/root/big.bin"
head -c 4096 /dev/urandom | base64 >"$work/root/small.txt"
head -c $((64 * 1024 * 1024)) "$work/root/big.bin" >"$work/root/64m.bin"
head -c 3072 /dev/urandom | base64 -w 0 | head -c 4096 >"$work/root/4k.txt"
mkdir -p "$work/root/dir1k" "$work/root/w"
for i in $(seq -w 1 1000); do echo "$i" >"$work/root/dir1k/f$i.txt"; done
write4k=$(node -e 'console.log(JSON.stringify({path: "w/{{.WorkerID}}.txt", text: "x".repeat(4095) + "\n"}))')

free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
wait_port() {
  for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "compare: nothing listening on port $1" >&2; exit 1
}

declare -A addr pid
start_toolhost() { # name checkout [NAME=VALUE...]
  local port; port=$(free_port)
  # shellcheck disable=SC2086 # $3 is a list of environment assignments
  (cd "$2" && exec env ${3:-} node --import tsx src/cli.ts serve --listen "127.0.0.1:$port" --root "$work/root" --skills "$work/skills" --log-level warn) >"$work/$1.log" 2>&1 &
  pid[$1]=$!; pids+=("$!"); addr[$1]=127.0.0.1:$port; wait_port "$port"
}
port=$(free_port)
"$work/bin/refserver" -listen "127.0.0.1:$port" -root "$work/root" 2>"$work/grpc-go.log" &
pid[grpc-go]=$!; pids+=("$!"); addr[grpc-go]=127.0.0.1:$port; wait_port "$port"
start_toolhost toolhost "$PWD"
port=$(free_port)
node --import tsx bench/compare/bare-grpc-js.ts --listen "127.0.0.1:$port" --root "$work/root" 2>"$work/grpc-js.log" &
pid[grpc-js]=$!; pids+=("$!"); addr[grpc-js]=127.0.0.1:$port; wait_port "$port"
port=$(free_port)
node --import tsx bench/compare/raw-http2.ts --listen "127.0.0.1:$port" --root "$work/root" 2>"$work/node-h2.log" &
pid[node-h2]=$!; pids+=("$!"); addr[node-h2]=127.0.0.1:$port; wait_port "$port"
servers="grpc-go toolhost"
if [ -n "${BEFORE:-}" ]; then start_toolhost before "$BEFORE" "${BEFORE_ENV:-}"; servers="$servers before"; fi

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hwm_kib() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }
declare -A hwm0
readers="$servers node-h2"
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# Issue 31's case first, from idle: 16 concurrent 256 MiB reads over one connection, 20 s after
# every server started (before any other read), the growth of VmRSS over its idle RSS (printed
# too), sampled every 50 ms.
sleep 20
for s in $readers; do
  base=$(rss_kib "${pid[$s]}"); peak=$base
  "$work/bin/readbench" -addr "${addr[$s]}" -path big.bin -parallel 16 -rounds 1 >"$work/fanout16-$s.txt" &
  reader=$!
  while kill -0 "$reader" 2>/dev/null; do
    now=$(rss_kib "${pid[$s]}"); [ "$now" -gt "$peak" ] && peak=$now; sleep 0.05
  done
  wait "$reader"
  echo "fanout16 $s $(( peak - base )) $(sed -n 's/.*MB\/s=\(.*\)/\1/p' "$work/fanout16-$s.txt") $base" >>"$work/fanout16.txt"
done
for s in $readers; do
  "$work/bin/readbench" -addr "${addr[$s]}" -rounds 1 >/dev/null # warm-up: page cache, JIT
  hwm0[$s]=$(hwm_kib "${pid[$s]}")
done

ghz_rps() { # addr method data n concurrency -> requests per second
  .tools/bin/ghz --insecure --protoset "$protoset" --call "toolhost.files.v1.FileTools.$2" \
    -d "$3" -n "$4" -c "$5" --connections 1 -O json "$1" 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);if(Object.keys(r.errorDistribution??{}).length)process.exit(1);console.log(r.rps.toFixed(0))})'
}
run_one() { # server work -> prints "server work value unit"
  local s=$1 w=$2 a=${addr[$1]}
  case $w in
    stat1) ghz_rps "$a" StatFile '{"path":"small.txt"}' 2000 1 ;;
    read4k1) ghz_rps "$a" ReadFile '{"path":"4k.txt"}' 2000 1 ;;
    read4k16) ghz_rps "$a" ReadFile '{"path":"4k.txt"}' 5000 16 ;;
    write4k1) ghz_rps "$a" WriteFile "$write4k" 1000 1 ;;
    write4k16) ghz_rps "$a" WriteFile "$write4k" 2000 16 ;;
    dir1k1) ghz_rps "$a" ListDirectory '{"path":"dir1k"}' 200 1 ;;
    dir1k16) ghz_rps "$a" ListDirectory '{"path":"dir1k"}' 400 16 ;;
    names1k1) ghz_rps "$a" ListDirectory '{"path":"dir1k","namesOnly":true}' 200 1 ;;
    read1m) "$work/bin/readbench" -addr "$a" -chunk 1048576 -rounds 1 | sed -n 's/.*MB\/s=\(.*\)/\1/p' ;;
    read256k) "$work/bin/readbench" -addr "$a" -chunk 262144 -rounds 1 | sed -n 's/.*MB\/s=\(.*\)/\1/p' ;;
    upload) "$work/bin/uploadbench" -addr "$a" -path "up-$s.bin" -rounds 1 | sed -n 's/.*MB\/s=\(.*\)/\1/p' ;;
    stat) .tools/bin/ghz --insecure --protoset "$protoset" --call toolhost.files.v1.FileTools.StatFile \
            -d '{"path":"small.txt"}' -n 5000 -c 16 --connections 1 -O json "$a" 2>/dev/null |
            node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).rps.toFixed(0)))' ;;
    list) .tools/bin/ghz --insecure --protoset "$protoset" --call toolhost.files.v1.FileTools.ListTools \
            -d '{}' -n 5000 -c 16 --connections 1 -O json "$a" 2>/dev/null |
            node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).rps.toFixed(0)))' ;;
  esac
}
ops() {
  case $1 in
    stat | list | read4k16) echo 5000 ;; stat1 | read4k1 | write4k16) echo 2000 ;; write4k1) echo 1000 ;;
    dir1k1 | names1k1) echo 200 ;; dir1k16) echo 400 ;; *) echo 1 ;;
  esac
}

hz=$(getconf CLK_TCK)
for round in $(seq 1 "$rounds"); do
  for w in $works; do
    # The bare grpc-js server only answers StatFile, the raw node:http2 one only ReadFile.
    extra=""; case $w in stat | list) extra=grpc-js ;; read*) extra=node-h2 ;; esac
    # Each round starts with the next server in turn, so no server always runs first or always
    # follows the same one (the summary pairs each server's value with the others' of its round).
    # shellcheck disable=SC2206 # word splitting of the server names is wanted
    order=($servers $extra)
    shift_by=$(( (round - 1) % ${#order[@]} ))
    for s in "${order[@]:shift_by}" "${order[@]:0:shift_by}"; do
      [ "$w" = list ] && [ "$s" = grpc-go ] && continue
      # This VM hands freed memory back to its host within seconds (virtio-balloon free page
      # reporting), and writing into such pages costs the kernel ~6x: a 256 MiB dd takes 0.10 s of
      # system time right after the last file was deleted, 0.65 s five seconds later. An upload
      # writes a new file while the one it replaces is freed, so which case it met was chance.
      # Waiting UPLOAD_SETTLE seconds first (3 s was enough) puts every upload in the slow case.
      if [ "$w" = upload ]; then sleep "${UPLOAD_SETTLE:-3}"; fi
      before=$(cpu_ticks "${pid[$s]}")
      value=$(run_one "$s" "$w")
      after=$(cpu_ticks "${pid[$s]}")
      echo "$s $w $value $(( after - before )) $(ops "$w")"
    done
  done
done | tee "$work/results.txt" >&2
for s in $readers; do echo "hwm $s $(( $(hwm_kib "${pid[$s]}") - ${hwm0[$s]} ))"; done >>"$work/results.txt"

# Fan-out: 64 concurrent reads of a 64 MiB file over one connection; the growth of VmRSS over
# the server's RSS just before, sampled every 50 ms.
for s in $readers; do
  base=$(rss_kib "${pid[$s]}"); peak=$base
  "$work/bin/readbench" -addr "${addr[$s]}" -path 64m.bin -parallel 64 -rounds 1 >"$work/fanout-$s.txt" &
  reader=$!
  while kill -0 "$reader" 2>/dev/null; do
    now=$(rss_kib "${pid[$s]}"); [ "$now" -gt "$peak" ] && peak=$now; sleep 0.05
  done
  wait "$reader"
  echo "fanout $s $(( peak - base )) $(sed -n 's/.*MB\/s=\(.*\)/\1/p' "$work/fanout-$s.txt")" >>"$work/results.txt"
done
cat "$work/fanout16.txt" >>"$work/results.txt"
node bench/compare/summarize.mjs "$work/results.txt" "$hz"
