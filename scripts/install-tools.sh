#!/usr/bin/env bash
# Installs the project-local tools the build, the drift check, the examples and the benchmarks
# use, at pinned versions, so a fresh clone (CI) and a developer machine run the same binaries:
#   .tools/bin  grpcurl, ghz, protoc-gen-go, protoc-gen-go-grpc   (go install, GOBIN=.tools/bin)
#   .venv       grpcio, grpcio-tools, grpcio-status, grpcio-health-checking, protobuf, pytest,
#               and the generated Python client gen/python (editable)
# Needs only Go, Python 3.11 and network access to the Go module proxy and PyPI. Idempotent:
# a tool already at its pinned version is skipped. npm packages (buf, protoc-gen-es, tsx) come
# from `npm ci`, not from here.
#
# TOOLHOST_TOOLS_DIR and TOOLHOST_VENV_DIR move the two folders (used to time an install from
# scratch without touching the shared ones); PYTHON picks the interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

tools_dir=${TOOLHOST_TOOLS_DIR:-$root/.tools}
venv_dir=${TOOLHOST_VENV_DIR:-$root/.venv}
bin_dir=$tools_dir/bin
stamp=$tools_dir/versions.txt

# name | package to install | module that `go version -m` reports | version
go_tools=(
  "grpcurl|github.com/fullstorydev/grpcurl/cmd/grpcurl|github.com/fullstorydev/grpcurl|v1.9.4"
  "ghz|github.com/bojand/ghz/cmd/ghz|github.com/bojand/ghz|v0.120.0"
  "protoc-gen-go|google.golang.org/protobuf/cmd/protoc-gen-go|google.golang.org/protobuf|v1.36.12"
  "protoc-gen-go-grpc|google.golang.org/grpc/cmd/protoc-gen-go-grpc|google.golang.org/grpc/cmd/protoc-gen-go-grpc|v1.6.2"
)

# protobuf is pinned too (grpcio-tools would float it): gen/python is checked for drift, and a
# different runtime could change what the generated code imports or checks.
py_pins=(
  grpcio==1.85.1
  grpcio-tools==1.85.1
  grpcio-status==1.85.1
  grpcio-health-checking==1.85.1
  protobuf==7.36.2
  pytest==9.2.0
)

say() { printf 'install-tools: %s\n' "$*"; }

# installed_version BIN MODULE prints the module version embedded in a Go binary, or nothing.
# The binary itself is the truth; the stamp file is only a record for people.
installed_version() {
  [ -x "$1" ] || return 0
  go version -m "$1" 2>/dev/null | awk -v m="$2" '$1 == "mod" && $2 == m { print $3 }'
}

command -v go >/dev/null || { say "go is not on PATH; install Go first"; exit 1; }
mkdir -p "$bin_dir"
: >"$stamp.tmp"
for entry in "${go_tools[@]}"; do
  IFS='|' read -r name pkg module version <<<"$entry"
  have=$(installed_version "$bin_dir/$name" "$module")
  if [ "$have" = "$version" ]; then
    say "$name $version already installed, skipped"
  else
    say "$name: ${have:-missing} -> installing $version"
    # GOFLAGS from the environment could carry -mod=... which `go install pkg@version` refuses.
    GOBIN=$bin_dir GOFLAGS=-buildvcs=false go install "$pkg@$version"
  fi
  echo "$name $version" >>"$stamp.tmp"
done
mv "$stamp.tmp" "$stamp"

python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null; then python=$candidate; break; fi
  done
fi
[ -n "$python" ] || { say "python3.11 is not on PATH; install Python 3.11 first"; exit 1; }

vpy=$venv_dir/bin/python
if ! "$vpy" -c 'import sys' 2>/dev/null; then
  say "creating $venv_dir with $("$python" --version 2>&1)"
  rm -rf "$venv_dir"
  "$python" -m venv "$venv_dir"
fi

# missing_pins prints each pin whose installed version differs, so a satisfied venv costs no
# network round trip.
missing_pins() {
  "$vpy" - "$@" <<'EOF'
import sys
from importlib.metadata import version, PackageNotFoundError
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    try:
        if version(name) == want:
            continue
    except PackageNotFoundError:
        pass
    print(pin)
EOF
}

missing=$(missing_pins "${py_pins[@]}")
if [ -z "$missing" ]; then
  say "python packages already at their pins, skipped"
else
  say "installing into $venv_dir: $(echo $missing)"
  "$vpy" -m pip install --quiet --disable-pip-version-check "${py_pins[@]}"
fi

# Editable, so a regenerated gen/python is what the examples import without reinstalling.
client_at=$("$vpy" -c 'import toolhost, os; print(os.path.dirname(os.path.dirname(os.path.abspath(toolhost.__file__))))' 2>/dev/null || true)
if [ "$client_at" = "$root/gen/python" ]; then
  say "toolhost-client (gen/python) already installed, skipped"
else
  say "installing gen/python (toolhost-client) editable"
  "$vpy" -m pip install --quiet --disable-pip-version-check -e gen/python
fi

say "done: $bin_dir ($(tr '\n' ' ' <"$stamp")), $venv_dir ($("$vpy" --version 2>&1))"
