"""Helpers for toolhost clients: connect, streamed reads, uploads and error reasons.

Blocking API here; the same for asyncio in toolhost.client.aio. The generated stubs and
messages are in toolhost.files.v1, toolhost.skills.v1, toolhost.tools.v1 and
toolhost.errors.v1 (ErrorReason constants).
"""

from toolhost.client._channel import TlsFiles
from toolhost.client._errors import DOMAIN, error_metadata, has_reason, reason, reason_name
from toolhost.client._requests import VerifyError
from toolhost.client._sync import Client, connect, read_bytes, read_text, read_to, upload_file, upload_path

__all__ = [
    "DOMAIN",
    "Client",
    "TlsFiles",
    "VerifyError",
    "connect",
    "error_metadata",
    "has_reason",
    "read_bytes",
    "read_text",
    "read_to",
    "reason",
    "reason_name",
    "upload_file",
    "upload_path",
]
