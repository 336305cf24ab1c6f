"""asyncio helpers (grpc.aio) over the generated FileTools, SkillCatalog and Tools stubs.

The same helpers as toolhost.client, awaitable: connect, read_to/read_bytes/read_text,
upload_file/upload_path. reason() works on grpc.aio errors too.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
from typing import TYPE_CHECKING, AsyncIterator, BinaryIO, Optional, cast

import grpc
import grpc.aio

from toolhost.client._channel import UPLOAD_CHUNK, TlsOption, credentials_for
from toolhost.client._requests import check_read, check_upload, file_sha256, read_request, upload_header
from toolhost.files.v1 import file_tools_pb2_grpc, read_pb2, write_pb2
from toolhost.skills.v1 import skill_catalog_pb2_grpc
from toolhost.tools.v1 import tools_pb2_grpc

if TYPE_CHECKING:
    # The async stub types exist only in the .pyi that mypy-protobuf writes.
    from toolhost.files.v1.file_tools_pb2_grpc import FileToolsAsyncStub
    from toolhost.skills.v1.skill_catalog_pb2_grpc import SkillCatalogAsyncStub
    from toolhost.tools.v1.tools_pb2_grpc import ToolsAsyncStub


class Client:
    """One grpc.aio channel to toolhost with typed async stubs of the three services; an async
    context manager."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.channel = channel
        self.files = cast("FileToolsAsyncStub", file_tools_pb2_grpc.FileToolsStub(channel))
        self.skills = cast("SkillCatalogAsyncStub", skill_catalog_pb2_grpc.SkillCatalogStub(channel))
        self.tools = cast("ToolsAsyncStub", tools_pb2_grpc.ToolsStub(channel))

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def connect(address: str, *, tls: TlsOption = None, token: Optional[str] = None) -> Client:
    """Open a grpc.aio channel to toolhost at ``address``; see toolhost.client.connect."""
    creds, options = credentials_for(tls, token)
    channel = grpc.aio.insecure_channel(address, options) if creds is None else grpc.aio.secure_channel(address, creds, options)
    return Client(channel)


async def read_to(
    files: "FileToolsAsyncStub",
    path: str,
    sink: BinaryIO,
    *,
    text: bool = False,
    byte_offset: int = 0,
    byte_limit: Optional[int] = None,
    offset: int = 0,
    limit: Optional[int] = None,
    timeout: Optional[float] = None,
) -> read_pb2.ReadSummary:
    """Stream a file (or a range) into a binary file object, checked against its sha256."""
    digest = hashlib.sha256()
    summary: Optional[read_pb2.ReadSummary] = None
    async for msg in files.ReadFile(read_request(path, text, byte_offset, byte_limit, offset, limit), timeout=timeout):
        part = msg.WhichOneof("part")
        if part == "data" or part == "text":
            chunk = msg.data if part == "data" else msg.text.encode("utf-8")
            digest.update(chunk)
            sink.write(chunk)
        elif part == "summary":
            summary = msg.summary
    return check_read(path, digest, summary)


async def read_bytes(files: "FileToolsAsyncStub", path: str, *, byte_offset: int = 0, byte_limit: Optional[int] = None, timeout: Optional[float] = None) -> bytes:
    """Read a file (or a byte range) into bytes, checked against its sha256."""
    buf = io.BytesIO()
    await read_to(files, path, buf, byte_offset=byte_offset, byte_limit=byte_limit, timeout=timeout)
    return buf.getvalue()


async def read_text(files: "FileToolsAsyncStub", path: str, *, offset: int = 0, limit: Optional[int] = None, timeout: Optional[float] = None) -> str:
    """Read a text file (or some lines) into a str; a binary file is BINARY_FILE."""
    buf = io.BytesIO()
    await read_to(files, path, buf, text=True, offset=offset, limit=limit, timeout=timeout)
    return buf.getvalue().decode("utf-8")


async def upload_file(
    files: "FileToolsAsyncStub",
    source: BinaryIO,
    path: str,
    *,
    create_parents: Optional[bool] = None,
    mode: Optional[int] = None,
    if_sha256: str = "",
    must_not_exist: bool = False,
    expected_size: Optional[int] = None,
    expected_sha256: str = "",
    timeout: Optional[float] = None,
) -> write_pb2.UploadFileResponse:
    """Upload what a binary file object yields (read in a worker thread, so a real file does not
    block the event loop), hashed on the way and checked against the server's sha256."""
    digest = hashlib.sha256()
    header = upload_header(path, create_parents=create_parents, mode=mode, if_sha256=if_sha256, must_not_exist=must_not_exist, expected_size=expected_size, expected_sha256=expected_sha256)

    async def parts() -> AsyncIterator[write_pb2.UploadFileRequest]:
        yield header
        while chunk := await asyncio.to_thread(source.read, UPLOAD_CHUNK):
            digest.update(chunk)
            yield write_pb2.UploadFileRequest(data=chunk)

    response = await files.UploadFile(parts(), timeout=timeout)
    return check_upload(path, digest, response)


async def upload_path(files: "FileToolsAsyncStub", local_path: str, path: str, *, create_parents: Optional[bool] = None, mode: Optional[int] = None, must_not_exist: bool = False, timeout: Optional[float] = None) -> write_pb2.UploadFileResponse:
    """Upload a local file with its size and sha256 in the header (read twice; see the sync one)."""
    size, sha256 = await asyncio.to_thread(file_sha256, local_path)
    with open(local_path, "rb") as f:
        return await upload_file(files, f, path, create_parents=create_parents, mode=mode, must_not_exist=must_not_exist, expected_size=size, expected_sha256=sha256, timeout=timeout)
