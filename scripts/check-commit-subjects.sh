#!/usr/bin/env bash
# Checks that commit subjects (first lines) are under 72 characters; the story goes in the body.
#
#   bash scripts/check-commit-subjects.sh BASE        every commit in BASE..HEAD (CI: the previous
#                                                     release tag, or a fixed base commit)
#   bash scripts/check-commit-subjects.sh             the same from the newest tag, if any
#   bash scripts/check-commit-subjects.sh --message FILE
#                                                     one message (as a commit-msg hook:
#                                                     printf '#!/bin/sh\nexec bash scripts/check-commit-subjects.sh --message "$1"\n' > .git/hooks/commit-msg)
#
# Fails naming each commit whose subject is 72 characters or more. MAX_SUBJECT changes the bound.
set -euo pipefail
cd "$(dirname "$0")/.."
max=${MAX_SUBJECT:-72}

too_long() { [ "${#1}" -ge "$max" ]; }

if [ "${1:-}" = "--message" ]; then
  file=${2:?"usage: check-commit-subjects.sh --message FILE"}
  # The subject is the first line that is not a comment (git strips those).
  subject=$(grep -v '^#' "$file" | sed -n '1p')
  if too_long "$subject"; then
    echo "check-commit-subjects: the subject is ${#subject} characters, the limit is under $max: put the story in the body" >&2
    echo "  $subject" >&2
    exit 1
  fi
  exit 0
fi

base=${1:-}
if [ -z "$base" ]; then
  base=$(git describe --tags --abbrev=0 2>/dev/null) || {
    echo "check-commit-subjects: no BASE given and no tag to start from: bash scripts/check-commit-subjects.sh BASE" >&2
    exit 2
  }
fi
git rev-parse --verify --quiet "$base^{commit}" >/dev/null || { echo "check-commit-subjects: $base is not a commit" >&2; exit 2; }

bad=0
checked=0
while IFS= read -r line; do
  checked=$((checked + 1))
  commit=${line%% *}
  subject=${line#* }
  if too_long "$subject"; then
    [ "$bad" -eq 0 ] && echo "check-commit-subjects: subjects of $max characters or more in $base..HEAD (put the story in the body):" >&2
    echo "  $commit (${#subject}) $subject" >&2
    bad=$((bad + 1))
  fi
done < <(git log --format='%h %s' "$base..HEAD")

if [ "$bad" -gt 0 ]; then
  echo "check-commit-subjects: $bad of $checked commits" >&2
  exit 1
fi
echo "check-commit-subjects: $checked commits since $base, every subject under $max characters"
