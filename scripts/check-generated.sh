#!/usr/bin/env bash
# The contract check CI runs:
#   1. gen/ is what scripts/generate.sh makes from proto/, and test/conformance/gen what
#      test/conformance/generate.sh makes from the conformance suite's protos beside it
#      (committed generated code has no drift);
#   2. buf lint (STANDARD, see buf.yaml);
#   3. buf breaking against the previous commit, when there is one and proto/ changed since.
# Needs `npm ci` and scripts/install-tools.sh done. Exits non-zero listing what is wrong.
#
# "Previous" is the main that landed before this work: the commit named in .ci/breaking-baseline
# (each session that changes the contract sets it to the main it started from, so a submission
# of many commits is checked as a whole), else HEAD~1 (first parent). TOOLHOST_BREAKING_AGAINST
# names another git ref to compare against.
set -euo pipefail
cd "$(dirname "$0")/.."

failed=0

echo "check-generated: regenerating gen/ from proto/"
bash scripts/generate.sh
# --untracked-files=all lists new generated files one by one instead of their folder.
drift=$(git status --porcelain --untracked-files=all -- gen/)
if [ -n "$drift" ]; then
  echo "check-generated: gen/ differs from what proto/ generates; run scripts/generate.sh and commit:" >&2
  echo "$drift" >&2
  failed=1
else
  echo "check-generated: gen/ is up to date"
fi

echo "check-generated: regenerating test/conformance/gen from test/conformance/proto"
bash test/conformance/generate.sh
drift=$(git status --porcelain --untracked-files=all -- test/conformance/gen/)
if [ -n "$drift" ]; then
  echo "check-generated: test/conformance/gen differs from what test/conformance/proto generates; run test/conformance/generate.sh and commit:" >&2
  echo "$drift" >&2
  failed=1
else
  echo "check-generated: test/conformance/gen is up to date"
fi

echo "check-generated: buf lint"
if ! npx buf lint; then
  echo "check-generated: buf lint failed (see above)" >&2
  failed=1
fi

baseline=$(sed -n 's/^\([0-9a-f]\{7,40\}\).*/\1/p' .ci/breaking-baseline 2>/dev/null | head -n 1)
against=${TOOLHOST_BREAKING_AGAINST:-${baseline:-HEAD~1}}
if ! git rev-parse --verify --quiet "$against^{commit}" >/dev/null; then
  if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    # A depth-1 clone has no parent to compare with; deepening it would change the clone, which
    # is the caller's decision (git fetch --deepen=1), so the check is skipped, not failed.
    echo "check-generated: shallow clone without $against; buf breaking skipped (git fetch --deepen=1 to enable)"
  else
    echo "check-generated: no commit $against (first commit?); buf breaking skipped"
  fi
elif git diff --quiet "$against" -- proto/ && [ -z "$(git ls-files --others --exclude-standard -- proto/)" ]; then
  # Compares the working tree, so an uncommitted proto change is checked locally too.
  echo "check-generated: proto/ unchanged since $against; buf breaking skipped"
else
  echo "check-generated: buf breaking against $against"
  if ! npx buf breaking --against ".git#ref=$against"; then
    echo "check-generated: proto/ has breaking changes against $against (see above)" >&2
    failed=1
  fi
fi

exit "$failed"
