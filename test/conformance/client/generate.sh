#!/usr/bin/env bash
# Regenerates test/conformance/client/gen from the conformance protos beside it (buf.gen.yaml).
set -euo pipefail
cd "$(dirname "$0")/../../.."
npx buf generate --template test/conformance/client/buf.gen.yaml
