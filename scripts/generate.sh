#!/usr/bin/env bash
# Regenerates gen/ from proto/ with the pinned generators: protoc-gen-es (npm), protoc-gen-go and
# protoc-gen-go-grpc (.tools/bin, see scripts/install-tools.sh), grpcio-tools and mypy-protobuf
# (.tools/pygen). TOOLHOST_TOOLS_DIR moves .tools, as in install-tools.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

rm -rf gen/ts gen/go/toolhost
# Only generated Python files go: gen/python/toolhost/client (the helpers) and py.typed are
# hand-written.
if [ -d gen/python/toolhost ]; then
  find gen/python/toolhost \( -name '*_pb2.py' -o -name '*_pb2.pyi' -o -name '*_pb2_grpc.py' -o -name '*_pb2_grpc.pyi' \) -delete
  find gen/python/toolhost -depth -type d -empty -delete
fi
npx buf generate
npx buf generate --template buf.gen.rpc.yaml
npx buf generate --template buf.gen.health.yaml
npx buf generate --template buf.gen.reflection.yaml

# Python comes from an old protoc on purpose: grpcio-tools 1.62 (protoc 25, protobuf 4.25 gencode)
# writes code without a runtime version check, so the package runs on protobuf 4.21.6 up to 7.x
# (gen/python/pyproject.toml; both ends tested in test/clients/python-protobuf-range.test.ts).
# Newer grpcio-tools pin the runtime to their own major and minor. mypy-protobuf writes the typed
# stubs (.pyi for messages and for the grpc stubs, sync and grpc.aio). Both live in their own venv,
# made by scripts/install-tools.sh, since protobuf 4.25 cannot share .venv with the newest runtime.
py=${TOOLHOST_TOOLS_DIR:-.tools}/pygen/bin/python
"$py" -c 'import grpc_tools, mypy_protobuf' 2>/dev/null || { echo "generate: $py lacks grpcio-tools/mypy-protobuf; run scripts/install-tools.sh" >&2; exit 1; }
wkt=$("$py" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')
bin=$(dirname "$py")
mkdir -p gen/python
"$py" -m grpc_tools.protoc -Iproto -I"$wkt" \
  --plugin=protoc-gen-mypy="$bin/protoc-gen-mypy" --plugin=protoc-gen-mypy_grpc="$bin/protoc-gen-mypy_grpc" \
  --python_out=gen/python --grpc_python_out=gen/python \
  --mypy_out=quiet:gen/python --mypy_grpc_out=quiet:gen/python \
  $(cd proto && find toolhost -name '*.proto' | sort)
# Regular packages (not namespace packages) so setuptools and type checkers find every module.
find gen/python/toolhost -type d -exec touch {}/__init__.py \;
