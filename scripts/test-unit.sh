#!/usr/bin/env bash
# Runs the default tier: every node:test file under test/ except the interop tests (npm run
# test:interop) and the stress tier (*.stress.test.ts, npm run test:stress). Node 20's --test
# takes no globs, so the files are listed here. Arguments are options of node --test, put before
# the files (npm run test:unit -- --test-reporter=spec).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find test -name '*.test.ts' -not -name '*.stress.test.ts' -not -path 'test/interop/*' -not -path 'test/fixtures/*' | sort)
# The tests run the compiled CLI (test/support/built-cli.ts): build it once, before they start.
node scripts/build-if-stale.mjs
# Each test process loads the compiled sources just built instead of transpiling src/ through tsx
# (scripts/built-sources.mjs); a file URL, so a test's child process started with its execArgv in
# another folder finds it too.
exec node --import tsx --import "file://$PWD/scripts/built-sources.mjs" --test --test-concurrency=2 "$@" "${files[@]}"
