#!/usr/bin/env bash
# Regenerates test/conformance/gen from the conformance protos in test/conformance/proto (buf.gen.yaml).
set -euo pipefail
cd "$(dirname "$0")/../.."
npx buf generate --template test/conformance/buf.gen.yaml
