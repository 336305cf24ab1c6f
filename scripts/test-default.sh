#!/usr/bin/env bash
# `npm test`: the default tier (docs/adr/0007-test-tiers.md). check:generated runs alone first,
# as it regenerates gen/, which the build and the typecheck read (it runs buf lint too). Then two
# lanes side by side, each stopping at its first failure, their output printed once both end:
# the typecheck and the test rules; lint, format, the Cucumber features and the interop tests.
# Then the unit tier, which has the whole machine to itself.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run check:generated
node scripts/build-if-stale.mjs
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
(npm run typecheck && npm run check:test-rules) >"$logs/checks" 2>&1 &
checks=$!
(npm run lint && npm run format:check && npm run test:features && npm run test:interop) >"$logs/features" 2>&1 &
features=$!
failed=0
wait "$checks" || failed=1
cat "$logs/checks"
wait "$features" || failed=1
cat "$logs/features"
if [ "$failed" != 0 ]; then
  echo "npm test: a check, the features or the interop tests failed (see above)" >&2
  exit 1
fi
npm run test:unit
