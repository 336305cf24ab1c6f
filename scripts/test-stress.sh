#!/usr/bin/env bash
# Runs the stress tier: races, crash loops, floods, heap checks and other-language client
# builds (*.stress.test.ts under test/). Each loop is bounded by the work it does, not by wall
# time; CI runs this tier after `npm test` (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find test -name '*.stress.test.ts' -not -path 'test/fixtures/*' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "test:stress: no *.stress.test.ts files" >&2
  exit 0
fi
# The tests run the compiled CLI (test/support/built-cli.ts): build it once, before they start.
node scripts/build-if-stale.mjs
exec node --import tsx --test --test-concurrency=2 "$@" "${files[@]}"
