"""Blocking helpers over the generated FileTools, SkillCatalog and Tools stubs."""

from __future__ import annotations

import hashlib
from typing import BinaryIO, Iterator, Optional

import grpc

from toolhost.client._channel import UPLOAD_CHUNK, TlsOption, credentials_for
from toolhost.client._requests import check_read, check_upload, file_sha256, read_request, upload_header
from toolhost.files.v1 import file_tools_pb2_grpc, read_pb2, write_pb2
from toolhost.skills.v1 import skill_catalog_pb2_grpc
from toolhost.tools.v1 import tools_pb2_grpc


class Client:
    """One channel to toolhost with the stubs of the three services (one TLS set-up and token);
    a context manager. ``tools`` is the model-facing service: ListTools in a dialect, CallTool."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.channel = channel
        self.files = file_tools_pb2_grpc.FileToolsStub(channel)
        self.skills = skill_catalog_pb2_grpc.SkillCatalogStub(channel)
        self.tools = tools_pb2_grpc.ToolsStub(channel)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(address: str, *, tls: TlsOption = None, token: Optional[str] = None) -> Client:
    """Open a channel to toolhost at ``address`` ("host:port").

    ``tls``: True for the system CAs, a TlsFiles, or your own grpc.ChannelCredentials; plaintext
    when unset. ``token`` is sent as ``authorization: Bearer``; without TLS only to loopback.
    """
    creds, options = credentials_for(tls, token)
    channel = grpc.insecure_channel(address, options) if creds is None else grpc.secure_channel(address, creds, options)
    return Client(channel)


def read_to(
    files: file_tools_pb2_grpc.FileToolsStub,
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
    for msg in files.ReadFile(read_request(path, text, byte_offset, byte_limit, offset, limit), timeout=timeout):
        part = msg.WhichOneof("part")
        if part == "data" or part == "text":
            chunk = msg.data if part == "data" else msg.text.encode("utf-8")
            digest.update(chunk)
            sink.write(chunk)
        elif part == "summary":
            summary = msg.summary
    return check_read(path, digest, summary)


def read_bytes(files: file_tools_pb2_grpc.FileToolsStub, path: str, *, byte_offset: int = 0, byte_limit: Optional[int] = None, timeout: Optional[float] = None) -> bytes:
    """Read a file (or a byte range) into bytes, checked against its sha256."""
    import io

    buf = io.BytesIO()
    read_to(files, path, buf, byte_offset=byte_offset, byte_limit=byte_limit, timeout=timeout)
    return buf.getvalue()


def read_text(files: file_tools_pb2_grpc.FileToolsStub, path: str, *, offset: int = 0, limit: Optional[int] = None, timeout: Optional[float] = None) -> str:
    """Read a text file (or some lines) into a str; a binary file is BINARY_FILE."""
    import io

    buf = io.BytesIO()
    read_to(files, path, buf, text=True, offset=offset, limit=limit, timeout=timeout)
    return buf.getvalue().decode("utf-8")


def upload_file(
    files: file_tools_pb2_grpc.FileToolsStub,
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
    """Upload what a binary file object yields, hashed on the way and checked against the sha256
    the server reports. With expected_size/expected_sha256 the server refuses a mismatch
    (UPLOAD_MISMATCH) before anything changes."""
    digest = hashlib.sha256()
    header = upload_header(path, create_parents=create_parents, mode=mode, if_sha256=if_sha256, must_not_exist=must_not_exist, expected_size=expected_size, expected_sha256=expected_sha256)

    def parts() -> Iterator[write_pb2.UploadFileRequest]:
        yield header
        while chunk := source.read(UPLOAD_CHUNK):
            digest.update(chunk)
            yield write_pb2.UploadFileRequest(data=chunk)

    return check_upload(path, digest, files.UploadFile(parts(), timeout=timeout))


def upload_path(files: file_tools_pb2_grpc.FileToolsStub, local_path: str, path: str, *, create_parents: Optional[bool] = None, mode: Optional[int] = None, must_not_exist: bool = False, timeout: Optional[float] = None) -> write_pb2.UploadFileResponse:
    """Upload a local file. It is hashed first and its size and sha256 go in the header, so the
    server commits exactly those bytes or nothing (this reads the file twice)."""
    size, sha256 = file_sha256(local_path)
    with open(local_path, "rb") as f:
        return upload_file(files, f, path, create_parents=create_parents, mode=mode, must_not_exist=must_not_exist, expected_size=size, expected_sha256=sha256, timeout=timeout)
