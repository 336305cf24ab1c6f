#!/usr/bin/env bash
# Regenerates gen/ from proto/ with the pinned generators: protoc-gen-es (npm), protoc-gen-go and
# protoc-gen-go-grpc (.tools/bin, see scripts/install-tools.sh) and grpcio-tools (.venv).
set -euo pipefail
cd "$(dirname "$0")/.."

rm -rf gen/ts gen/go/toolhost gen/python/toolhost
npx buf generate
npx buf generate --template buf.gen.rpc.yaml
npx buf generate --template buf.gen.health.yaml

# grpcio-tools bundles protoc and the well-known types; buf has no Python gRPC plugin of its own.
py=.venv/bin/python
wkt=$("$py" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')
mkdir -p gen/python
"$py" -m grpc_tools.protoc -Iproto -I"$wkt" \
  --python_out=gen/python --pyi_out=gen/python --grpc_python_out=gen/python \
  $(cd proto && find toolhost -name '*.proto' | sort)
# Regular packages (not namespace packages) so setuptools and type checkers find every module.
find gen/python/toolhost -type d -exec touch {}/__init__.py \;
