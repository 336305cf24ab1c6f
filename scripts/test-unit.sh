#!/usr/bin/env bash
# Runs every node:test file under test/ except the interop tests (npm run test:interop).
# Node 20's --test takes no globs, so the files are listed here.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find test -name '*.test.ts' -not -path 'test/interop/*' | sort)
exec node --import tsx --test --test-concurrency=2 "${files[@]}" "$@"
