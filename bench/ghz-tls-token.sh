#!/usr/bin/env bash
# TLS and bearer-token cost: ghz against FileTools.ListTools on three servers running side by
# side on the same root: plaintext without authentication, plaintext with a tokens file (loopback
# allows it), TLS with the token, and mTLS (a client certificate is the caller, no token). The
# scenarios take turns in short rounds, so a busy machine slows all four alike, and the median
# requests/s of each is printed with its ratio to plaintext. A CA, the server's and the client's
# certificates and the token are made fresh in a temp dir.
#
# Env: GHZ_COUNT (requests per scenario, over all rounds; default 20000), GHZ_ROUNDS (default 5),
#      GHZ_CONCURRENCY (default 16), GHZ_CONNECTIONS (default 1), GHZ_WARMUP (requests left out
#      of each round's statistics, default 200), TOOLHOST_LOG_LEVEL (default info).
# Writes the raw ghz reports to bench/results/ghz-tls-token-*.json (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."

count=${GHZ_COUNT:-20000}
rounds=${GHZ_ROUNDS:-5}
concurrency=${GHZ_CONCURRENCY:-16}
connections=${GHZ_CONNECTIONS:-1}
warmup=${GHZ_WARMUP:-200}
per_round=$((count / rounds))
ghz=.tools/bin/ghz
[ -x "$ghz" ] || { echo "ghz-tls-token: $ghz is missing; run scripts/install-tools.sh" >&2; exit 1; }
command -v openssl >/dev/null || { echo "ghz-tls-token: openssl is needed to make the certificate" >&2; exit 1; }

source bench/lib/workspace.sh # $work, pids, cleanup on exit

# start NAME SERVE-ARGS... : starts `toolhost serve` on a free 127.0.0.1 port, sets addr_NAME.
start() {
  local name=$1
  shift
  local port
  port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  node --import tsx src/cli.ts serve --listen "127.0.0.1:$port" --root "$work/root" "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  for attempt in $(seq 1 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && { printf -v "addr_$name" '%s' "127.0.0.1:$port"; return 0; }
    sleep 0.1
  done
  echo "ghz-tls-token: the $name server did not listen:" >&2
  cat "$work/$name.log" >&2
  exit 1
}

protoset=$(bash bench/build-protoset.sh "$work/toolhost.protoset")
mkdir -p "$work/root" bench/results
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${ec[@]}" -days 1 -keyout "$work/ca.key" -out "$work/ca.pem" -subj /CN=toolhost-bench-ca \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
# leaf NAME SAN EKU: a certificate signed by the CA.
leaf() {
  openssl req "${ec[@]}" -keyout "$work/$1.key" -out "$work/$1.csr" -subj "/CN=$1" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$2" "$3" >"$work/$1.ext"
  openssl x509 -req -in "$work/$1.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 1 \
    -extfile "$work/$1.ext" -out "$work/$1.pem" 2>/dev/null
}
leaf tls IP:127.0.0.1 serverAuth
leaf client URI:spiffe://toolhost-bench/client clientAuth
token=$(node --import tsx src/cli.ts token create --id bench --tier read --append "$work/tokens.yaml" 2>/dev/null)
printf 'certificates:\n  - id: bench-client\n    identity: spiffe://toolhost-bench/client\n    scope: { roots: all, tier: read }\n' >>"$work/tokens.yaml"

start plain
start token --tokens-file "$work/tokens.yaml"
start tls --tls-cert "$work/tls.pem" --tls-key "$work/tls.key" --tokens-file "$work/tokens.yaml"
start mtls --tls-cert "$work/tls.pem" --tls-key "$work/tls.key" --tls-client-ca "$work/ca.pem" --tokens-file "$work/tokens.yaml"

# run NAME ROUND GHZ-ARGS... : one ghz round against the NAME server; prints its requests/s.
run() {
  local name=$1 round=$2
  shift 2
  local addr_var="addr_$name"
  local report=bench/results/ghz-tls-token-$name-$round.json
  "$ghz" --protoset "$protoset" --call toolhost.files.v1.FileTools.ListTools -d '{}' \
    -n "$per_round" -c "$concurrency" --connections "$connections" --skipFirst "$warmup" \
    -O json -o "$report" "$@" "${!addr_var}"
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const codes = r.statusCodeDistribution ?? {};
    if (Object.keys(codes).some((c) => c !== "OK")) { console.error(`non-OK: ${JSON.stringify(r.errorDistribution ?? codes)}`); process.exit(1); }
    process.stdout.write(r.rps.toFixed(0));
  ' "$report"
}

echo "ghz-tls-token: $rounds rounds of $per_round requests per scenario, concurrency $concurrency, connections $connections"
plain=() token_rps=() tls=() mtls=()
for round in $(seq 1 "$rounds"); do
  plain+=("$(run plain "$round" --insecure)")
  token_rps+=("$(run token "$round" --insecure -m "{\"authorization\":\"Bearer $token\"}")")
  tls+=("$(run tls "$round" --cacert "$work/ca.pem" -m "{\"authorization\":\"Bearer $token\"}")")
  mtls+=("$(run mtls "$round" --cacert "$work/ca.pem" --cert "$work/client.pem" --key "$work/client.key")")
  echo "  round $round: plaintext ${plain[-1]}, plaintext + token ${token_rps[-1]}, TLS + token ${tls[-1]}, mTLS ${mtls[-1]} requests/s"
done

node -e '
  const median = (s) => { const v = s.split(" ").map(Number).sort((a, b) => a - b); return v[Math.floor(v.length / 2)]; };
  const [plain, token, tls, mtls] = process.argv.slice(1).map(median);
  console.log(`median  plaintext          ${plain} requests/s  1.00x`);
  console.log(`median  plaintext + token  ${token} requests/s  ${(token / plain).toFixed(2)}x`);
  console.log(`median  TLS + token        ${tls} requests/s  ${(tls / plain).toFixed(2)}x`);
  console.log(`median  mTLS               ${mtls} requests/s  ${(mtls / plain).toFixed(2)}x`);
  const { pathToFileURL } = require("node:url");
  import(pathToFileURL(require("node:path").resolve("bench/lib/results.mjs")).href).then(({ openResults }) => {
    const results = openResults("ghz-tls-token", { command: "bash bench/ghz-tls-token.sh", rounds: Number(process.argv[5]) });
    for (const [scenario, rps] of [["plaintext", plain], ["plaintext + token", token], ["TLS + token", tls], ["mTLS (client certificate)", mtls]]) {
      results.row("ghz-tls-token", { scenario, "requests/s (median)": rps, "/ plaintext": `${(rps / plain).toFixed(2)}x` });
    }
  });
' "${plain[*]}" "${token_rps[*]}" "${tls[*]}" "${mtls[*]}" "$rounds"
