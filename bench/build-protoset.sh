#!/usr/bin/env bash
# Builds one FileDescriptorSet for ghz --protoset and grpcurl -protoset: proto/ with its imports
# (google/protobuf/timestamp.proto, ...) plus google/rpc/status.proto and error_details.proto, so
# that grpcurl -format-error decodes the ErrorInfo in error details instead of printing raw bytes.
# Usage: bench/build-protoset.sh [OUT]   (default: bench/results/toolhost.protoset, git-ignored;
# the binary is rebuilt on demand rather than committed)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/results/toolhost.protoset}
mkdir -p "$(dirname "$out")"
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT

# #format=binpb: buf picks the format from the extension and does not know ".protoset".
npx buf build --as-file-descriptor-set -o "$parts/toolhost.binpb#format=binpb"
npx buf build node_modules/google-proto-files --path node_modules/google-proto-files/google/rpc/status.proto \
  --path node_modules/google-proto-files/google/rpc/error_details.proto --as-file-descriptor-set -o "$parts/rpc.binpb#format=binpb"

# One set, each file once (both halves could import the same well-known type).
node --input-type=module - "$out" "$parts/toolhost.binpb" "$parts/rpc.binpb" <<'JS'
import { readFileSync, writeFileSync } from "node:fs";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
const [out, ...inputs] = process.argv.slice(2);
const files = new Map();
for (const input of inputs) {
  for (const file of fromBinary(FileDescriptorSetSchema, readFileSync(input)).file) {
    if (!files.has(file.name)) files.set(file.name, file);
  }
}
writeFileSync(out, toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: [...files.values()] })));
JS
echo "$out"
