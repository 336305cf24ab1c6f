#!/usr/bin/env bash
# Installs the project-local tools the build, the drift check, the examples and the benchmarks
# use, at pinned versions, so a fresh clone (CI) and a developer machine run the same binaries:
#   .tools/bin  grpcurl, ghz, grpc-health-probe, protoc-gen-go, protoc-gen-go-grpc,
#               connectconformance (connectrpc's conformance runner)   (go install, GOBIN=.tools/bin)
#   .venv       grpcio, grpcio-status, grpcio-health-checking, protobuf, pytest,
#               mypy with the grpc/protobuf stubs, and the generated Python client gen/python
#               (editable): the newest runtime the client supports
#   .tools/pygen       the Python generator: grpcio-tools 1.62 (protobuf 4.25 gencode, which runs
#               on every protobuf from 4.21.6 to 7.x) and mypy-protobuf (typed stubs)
#   .tools/py-oldest   the oldest runtime the Python client supports (protobuf, grpcio,
#               googleapis-common-protos at the floors of gen/python/pyproject.toml)
#   Maven + JDK and cargo for the JVM and Rust clients (clients/jvm, clients/rust): Maven from
#               apt when missing and running as root; their dependencies (pinned in pom.xml and
#               Cargo.lock) are fetched into ~/.m2 and ~/.cargo so the tests need no first fetch.
#               TOOLHOST_SKIP_JVM_RUST=1 skips this part.
#   nginx       from apt when missing and running as root: the L7 proxy the TS client is tested
#               through (test/clients/ts-client-nginx.stress.test.ts, skipped without it).
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
  "grpc-health-probe|github.com/grpc-ecosystem/grpc-health-probe|github.com/grpc-ecosystem/grpc-health-probe|v0.4.63"
  "protoc-gen-go|google.golang.org/protobuf/cmd/protoc-gen-go|google.golang.org/protobuf|v1.36.12"
  "protoc-gen-go-grpc|google.golang.org/grpc/cmd/protoc-gen-go-grpc|google.golang.org/grpc/cmd/protoc-gen-go-grpc|v1.6.2"
  "connectconformance|connectrpc.com/conformance/cmd/connectconformance|connectrpc.com/conformance|v1.0.7"
)

# protobuf is pinned too (grpcio would float it): the examples and tests run on it, and a
# different runtime could change what the generated code imports or checks.
py_pins=(
  grpcio==1.85.1
  grpcio-status==1.85.1
  grpcio-health-checking==1.85.1
  protobuf==7.36.2
  pytest==9.2.0
  mypy==1.20.2
  types-protobuf==7.35.1.20260906
  types-grpcio==1.85.0.20261028
)

# The Python generator (scripts/generate.sh); see the comment there for why it is this old.
pygen_pins=(
  grpcio-tools==1.62.3
  grpcio==1.62.3
  protobuf==4.25.9
  mypy-protobuf==3.6.0
  types-protobuf==7.35.1.20260906
)

# The floors of gen/python/pyproject.toml's dependencies, installed together so a test can run
# the client on the oldest runtime it claims to support.
py_oldest_pins=(
  grpcio==1.62.3
  protobuf==4.21.6
  googleapis-common-protos==1.56.4
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

# systemd-analyze checks the systemd unit of docs/deployment.md (test/clients/server-package.stress.test.ts).
if ! command -v systemd-analyze >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing systemd-analyze (apt-get install systemd)"
    apt-get install -y --no-install-recommends systemd >/dev/null
  else
    say "systemd-analyze is not on PATH (apt-get install systemd); the systemd unit check will be skipped"
  fi
fi

python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null; then python=$candidate; break; fi
  done
fi
[ -n "$python" ] || { say "python3.11 is not on PATH; install Python 3.11 first"; exit 1; }

# missing_pins PYTHON PIN... prints each pin whose installed version differs, so a satisfied venv
# costs no network round trip.
missing_pins() {
  local py=$1
  shift
  "$py" - "$@" <<'EOF'
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

# ensure_venv DIR PIN... creates the venv DIR when it is missing and installs the pins it lacks.
ensure_venv() {
  local dir=$1
  shift
  if ! "$dir/bin/python" -c 'import sys' 2>/dev/null; then
    say "creating $dir with $("$python" --version 2>&1)"
    rm -rf "$dir"
    "$python" -m venv "$dir"
  fi
  local missing
  missing=$(missing_pins "$dir/bin/python" "$@")
  if [ -z "$missing" ]; then
    say "$(basename "$dir"): python packages already at their pins, skipped"
  else
    say "installing into $dir: $(echo $missing)"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
  fi
}

vpy=$venv_dir/bin/python
ensure_venv "$venv_dir" "${py_pins[@]}"
ensure_venv "$tools_dir/pygen" "${pygen_pins[@]}"
ensure_venv "$tools_dir/py-oldest" "${py_oldest_pins[@]}"

# Editable, so a regenerated gen/python is what the examples import without reinstalling; in
# compat mode (a plain path entry), which mypy can follow, unlike setuptools' default finder.
# --no-deps into the oldest runtime: its pins are the dependencies.
for v in "$venv_dir" "$tools_dir/py-oldest"; do
  if "$v/bin/python" -c 'import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)' "$root/gen/python" 2>/dev/null; then
    say "toolhost-client (gen/python) already installed in $v, skipped"
  else
    say "installing gen/python (toolhost-client) editable into $v"
    flags=(--config-settings editable_mode=compat)
    [ "$v" = "$venv_dir" ] || flags+=(--no-deps)
    "$v/bin/python" -m pip install --quiet --disable-pip-version-check "${flags[@]}" -e gen/python
  fi
done

if [ "${TOOLHOST_SKIP_JVM_RUST:-}" != 1 ]; then
  if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      say "installing maven and a JDK (apt-get)"
      apt-get install -y --no-install-recommends maven default-jdk-headless >/dev/null
    else
      say "mvn or java is not on PATH; install Maven and a JDK 11+ (apt-get install -y maven)"; exit 1
    fi
  fi
  command -v cargo >/dev/null || { say "cargo is not on PATH; install Rust 1.88+ (https://rustup.rs)"; exit 1; }
  # Both are no-ops when everything is already in the local caches.
  say "fetching the Rust client's crates (Cargo.lock)"
  cargo fetch --locked --quiet --manifest-path clients/rust/Cargo.toml
  say "fetching the JVM client's Maven artifacts (pom.xml)"
  mvn -q -B -Dstyle.color=never -f clients/jvm/pom.xml dependency:resolve dependency:resolve-plugins >/dev/null
fi

if ! command -v nginx >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing nginx (apt-get)"
    apt-get install -y --no-install-recommends nginx >/dev/null || { apt-get update >/dev/null && apt-get install -y --no-install-recommends nginx >/dev/null; }
  else
    say "nginx is not on PATH; the proxy test will be skipped (apt-get install -y nginx)"
  fi
fi

say "done: $bin_dir ($(tr '\n' ' ' <"$stamp")), $venv_dir ($("$vpy" --version 2>&1)), $tools_dir/pygen, $tools_dir/py-oldest"
