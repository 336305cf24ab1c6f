"""toolhost_demo shows the generated Python client: it lists the file tools, reads one file and
reads a path outside the roots to show how a client branches on the ErrorInfo reason.

    .venv/bin/python examples/python/toolhost_demo.py --addr 127.0.0.1:50051 --path README.md

The client comes from gen/python (`pip install ./gen/python`, or scripts/install-tools.sh).
"""

import argparse
import os
import sys

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from toolhost.files.v1 import file_tools_pb2, file_tools_pb2_grpc, read_pb2


def error_reason(err: grpc.RpcError) -> str:
    """Returns the google.rpc.ErrorInfo reason of a toolhost error, or "" when there is none.

    Branch on it rather than on the message text, which may change.
    """
    status = rpc_status.from_call(err)
    for detail in status.details if status else []:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if info.domain == "toolhost":
                return info.reason
    return ""


def read_text(stub: file_tools_pb2_grpc.FileToolsStub, path: str) -> str:
    """Concatenates the text chunks of a ReadFile stream; errors raise grpc.RpcError."""
    chunks = stub.ReadFile(read_pb2.ReadFileRequest(path=path), timeout=30)
    return "".join(msg.text for msg in chunks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addr", default=os.environ.get("TOOLHOST_ADDR", "127.0.0.1:50051"))
    parser.add_argument("--path", default="README.md", help="relative to the server's first root")
    args = parser.parse_args()

    # Plaintext is fine on loopback; use grpc.secure_channel for a remote server.
    with grpc.insecure_channel(args.addr) as channel:
        stub = file_tools_pb2_grpc.FileToolsStub(channel)
        for tool in stub.ListTools(file_tools_pb2.ListToolsRequest(), timeout=30).tools:
            print(f"tool {tool.name:18} read_only={tool.read_only!s:5} writes={tool.writes!s:5} {tool.method}")

        try:
            text = read_text(stub, args.path)
        except grpc.RpcError as err:
            print(f"ReadFile {args.path}: {err.code().name} {err.details()} (reason {error_reason(err)})", file=sys.stderr)
            return 1
        print(f"read {args.path}: {len(text.encode())} bytes")
        print(text, end="" if text.endswith("\n") else "\n")

        try:
            read_text(stub, "../../etc/passwd")
        except grpc.RpcError as err:
            if error_reason(err) == "PATH_TRAVERSAL":
                print(f"refused as expected: {err.code().name}: {err.details()}")
                return 0
            print(f"reading ../../etc/passwd: want PATH_TRAVERSAL, got {err.code().name} {err.details()}", file=sys.stderr)
            return 1
        print("reading ../../etc/passwd succeeded; the server should have refused it", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
