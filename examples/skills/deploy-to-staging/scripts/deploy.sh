#!/usr/bin/env bash
# Deploys a branch to staging. Example only: it prints what a real deployment would do.
set -euo pipefail

branch="${1:?usage: deploy.sh BRANCH}"
commit="$(git rev-parse --short "$branch" 2>/dev/null || echo unknown)"
slug="$(printf '%s' "$branch" | tr -c 'A-Za-z0-9-' '-' | tr 'A-Z' 'a-z')"
url="https://${slug}.staging.example.com"

echo "Deploying ${branch} (${commit}) to staging..."
echo "Would run: kubectl set image deployment/app app=registry.example.com/app:${commit} -n staging"
echo "${url}"
