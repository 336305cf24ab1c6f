"""Channel credentials and options shared by the sync and asyncio clients."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple, Union

import grpc


@dataclass(frozen=True)
class TlsFiles:
    """PEM files of a TLS connection: the CA that signed the server, and a client certificate
    and key for servers that require mutual TLS. Unset fields use the defaults (system CAs)."""

    ca: Optional[str] = None
    cert: Optional[str] = None
    key: Optional[str] = None
    server_name: Optional[str] = None


TlsOption = Union[bool, TlsFiles, grpc.ChannelCredentials, None]

ChannelOptions = List[Tuple[str, Union[str, int]]]


def _read(path: Optional[str]) -> Optional[bytes]:
    if path is None:
        return None
    with open(path, "rb") as f:
        return f.read()


def credentials_for(tls: TlsOption, token: Optional[str]) -> Tuple[Optional[grpc.ChannelCredentials], ChannelOptions]:
    """Build the credentials of a channel; None means plaintext.

    A token over plaintext uses gRPC's local credentials, which only connect to loopback
    addresses: a bearer token never crosses a network unencrypted.
    """
    options: ChannelOptions = []
    creds: Optional[grpc.ChannelCredentials]
    if isinstance(tls, grpc.ChannelCredentials):
        creds = tls
    elif isinstance(tls, TlsFiles):
        creds = grpc.ssl_channel_credentials(_read(tls.ca), _read(tls.key), _read(tls.cert))
        if tls.server_name is not None:
            options.append(("grpc.ssl_target_name_override", tls.server_name))
    elif tls:
        creds = grpc.ssl_channel_credentials()
    else:
        creds = None
    if token is not None:
        base = creds if creds is not None else grpc.local_channel_credentials(grpc.LocalConnectionType.LOCAL_TCP)
        creds = grpc.composite_channel_credentials(base, grpc.access_token_call_credentials(token))
    return creds, options


UPLOAD_CHUNK = 256 * 1024
"""Bytes per upload message: keeps the stream busy, well under the 4 MiB message limit."""
