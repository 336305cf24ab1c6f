"""Uses the toolhost.client helpers, blocking and asyncio; passes ``mypy --strict``.

Usage: python typed_client.py HOST:PORT
Lists the tools, uploads a file from a path and from a file object, reads it back as bytes, as
text and into a file, and prints the ErrorInfo reason of a refused path and of a server that
is not there (None: no details). test/clients/python-client.stress.test.ts runs it on the oldest and
the newest protobuf runtime the package supports.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import sys
import tempfile

import google.protobuf
import grpc

import toolhost.client
import toolhost.client.aio
from toolhost.errors.v1 import error_reason_pb2
from toolhost.files.v1 import file_tools_pb2


def blocking(address: str) -> None:
    with toolhost.client.connect(address) as client:
        tools = client.files.ListTools(file_tools_pb2.ListToolsRequest()).tools
        print("tools", ",".join(t.name for t in tools))
        content = os.urandom(1 << 20) + b"tail"
        with tempfile.NamedTemporaryFile(delete=False) as f:
            f.write(content)
        try:
            up = toolhost.client.upload_path(client.files, f.name, "py/sync.bin", create_parents=True)
        finally:
            os.unlink(f.name)
        print("upload_path", up.size, up.sha256 == hashlib.sha256(content).hexdigest())
        small = toolhost.client.upload_file(client.files, io.BytesIO(b"one\ntwo\n"), "py/small.txt", create_parents=True)
        print("upload_file", small.size)
        print("read_bytes", toolhost.client.read_bytes(client.files, "py/sync.bin") == content)
        print("read_text", repr(toolhost.client.read_text(client.files, "py/small.txt", offset=1)))
        sink = io.BytesIO()
        summary = toolhost.client.read_to(client.files, "py/sync.bin", sink, byte_offset=10, byte_limit=100)
        print("read_to", summary.bytes_sent, sink.getvalue() == content[10:110])
        try:
            toolhost.client.read_text(client.files, "../../etc/passwd")
        except grpc.RpcError as err:
            print("reason", toolhost.client.reason(err), toolhost.client.has_reason(err, error_reason_pb2.ERROR_REASON_PATH_TRAVERSAL))
    with toolhost.client.connect("127.0.0.1:1") as down:
        try:
            down.files.ListTools(file_tools_pb2.ListToolsRequest(), timeout=10)
        except grpc.RpcError as err:
            print("unavailable", toolhost.client.reason(err))


async def concurrent(address: str) -> None:
    async with toolhost.client.aio.connect(address) as client:
        up = await toolhost.client.aio.upload_file(client.files, io.BytesIO(b"x" * 300_000), "py/aio.bin", create_parents=True)
        texts = await asyncio.gather(*(toolhost.client.aio.read_text(client.files, "py/small.txt") for _ in range(3)))
        print("aio", up.size, len(await toolhost.client.aio.read_bytes(client.files, "py/aio.bin")), texts == ["one\ntwo\n"] * 3)
        try:
            await toolhost.client.aio.read_bytes(client.files, "missing.bin")
        except grpc.aio.AioRpcError as err:
            print("aio reason", toolhost.client.reason(err), err.code().name)


def main() -> None:
    address = sys.argv[1]
    print("protobuf", google.protobuf.__version__, file=sys.stderr)
    blocking(address)
    asyncio.run(concurrent(address))


if __name__ == "__main__":
    main()
