"""Request building and checks shared by the sync and asyncio helpers."""

from __future__ import annotations

import hashlib
from typing import Optional

from toolhost.files.v1 import read_pb2, write_pb2


class VerifyError(Exception):
    """The bytes received (or stored) do not hash to what the other side reported."""


def read_request(path: str, text: bool, byte_offset: int, byte_limit: Optional[int], offset: int, limit: Optional[int]) -> read_pb2.ReadFileRequest:
    req = read_pb2.ReadFileRequest(
        path=path,
        mode=read_pb2.READ_MODE_TEXT if text else read_pb2.READ_MODE_BYTES,
        byte_offset=byte_offset,
        offset=offset,
    )
    if byte_limit is not None:
        req.byte_limit = byte_limit
    if limit is not None:
        req.limit = limit
    return req


def upload_header(
    path: str,
    *,
    create_parents: Optional[bool] = None,
    mode: Optional[int] = None,
    if_sha256: str = "",
    must_not_exist: bool = False,
    expected_size: Optional[int] = None,
    expected_sha256: str = "",
) -> write_pb2.UploadFileRequest:
    header = write_pb2.UploadHeader(path=path, if_sha256=if_sha256, must_not_exist=must_not_exist, expected_sha256=expected_sha256)
    if create_parents is not None:
        header.create_parents = create_parents
    if mode is not None:
        header.mode = mode
    if expected_size is not None:
        header.expected_size = expected_size
    return write_pb2.UploadFileRequest(header=header)


def check_read(path: str, digest: "hashlib._Hash", summary: Optional[read_pb2.ReadSummary]) -> read_pb2.ReadSummary:
    if summary is None:
        raise VerifyError(f"read of {path!r} ended without a summary")
    got = digest.hexdigest()
    if got != summary.sha256:
        raise VerifyError(f"read of {path!r}: received bytes hash to {got}, the server sent {summary.sha256}")
    return summary


def check_upload(path: str, digest: "hashlib._Hash", response: write_pb2.UploadFileResponse) -> write_pb2.UploadFileResponse:
    sent = digest.hexdigest()
    if sent != response.sha256:
        raise VerifyError(f"upload of {path!r}: sent bytes hash to {sent}, the server stored {response.sha256}")
    return response


def file_sha256(local_path: str) -> "tuple[int, str]":
    """Size and lowercase hex SHA-256 of a local file, read once."""
    digest = hashlib.sha256()
    size = 0
    with open(local_path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()
