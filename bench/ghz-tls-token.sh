#!/usr/bin/env bash
# TLS and bearer-token cost: ghz against FileTools.ListTools on three servers started one after
# another in the same run, on the same root: plaintext without authentication, plaintext with a
# tokens file (loopback allows it), and TLS with the token. Prints requests/s of each and the
# ratios to the plaintext figure. Certificates and the token are made fresh in a temp dir.
#
# Env: GHZ_COUNT (requests per scenario, default 20000), GHZ_CONCURRENCY (default 16),
#      GHZ_CONNECTIONS (default 1), GHZ_WARMUP (default 1000), TOOLHOST_LOG_LEVEL (default info).
# Writes the raw ghz reports to bench/results/ghz-tls-token-*.json (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."

count=${GHZ_COUNT:-20000}
concurrency=${GHZ_CONCURRENCY:-16}
connections=${GHZ_CONNECTIONS:-1}
warmup=${GHZ_WARMUP:-1000}
ghz=.tools/bin/ghz
[ -x "$ghz" ] || { echo "ghz-tls-token: $ghz is missing; run scripts/install-tools.sh" >&2; exit 1; }
command -v openssl >/dev/null || { echo "ghz-tls-token: openssl is needed to make the certificate" >&2; exit 1; }

work=$(mktemp -d)
source bench/serve-for-bench.sh

protoset=$(bash bench/build-protoset.sh "$work/toolhost.protoset")
mkdir -p "$work/root" bench/results
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -keyout "$work/tls.key" -out "$work/tls.pem" -subj /CN=toolhost-bench \
  -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
token=$(node --import tsx src/cli.ts token create --id bench --tier read --append "$work/tokens.yaml" 2>/dev/null)

# run NAME GHZ-ARGS... : one ghz run against $addr; prints and records requests/s.
run() {
  local name=$1
  shift
  local report=bench/results/ghz-tls-token-$name.json
  "$ghz" --protoset "$protoset" --call toolhost.files.v1.FileTools.ListTools -d '{}' \
    -n "$count" -c "$concurrency" --connections "$connections" --skipFirst "$warmup" \
    -O json -o "$report" "$@" "$addr"
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const codes = r.statusCodeDistribution ?? {};
    if (Object.keys(codes).some((c) => c !== "OK")) { console.error(`non-OK: ${JSON.stringify(r.errorDistribution ?? codes)}`); process.exit(1); }
    process.stdout.write(r.rps.toFixed(0));
  ' "$report"
}

stop() {
  kill -TERM "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}

echo "ghz-tls-token: $count requests per scenario, concurrency $concurrency, connections $connections, warm-up $warmup"
serve_for_bench "$work/root"
plain=$(run plaintext --insecure)
stop
serve_for_bench "$work/root" --tokens-file "$work/tokens.yaml"
plain_token=$(run plaintext-token --insecure -m "{\"authorization\":\"Bearer $token\"}")
stop
serve_for_bench "$work/root" --tls-cert "$work/tls.pem" --tls-key "$work/tls.key" --tokens-file "$work/tokens.yaml"
tls_token=$(run tls-token --cacert "$work/tls.pem" -m "{\"authorization\":\"Bearer $token\"}")

node -e '
  const [plain, plainToken, tlsToken] = process.argv.slice(1).map(Number);
  console.log(`plaintext            ${plain} requests/s  1.00x`);
  console.log(`plaintext + token    ${plainToken} requests/s  ${(plainToken / plain).toFixed(2)}x`);
  console.log(`TLS + token          ${tlsToken} requests/s  ${(tlsToken / plain).toFixed(2)}x`);
' "$plain" "$plain_token" "$tls_token"
