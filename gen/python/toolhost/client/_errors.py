"""reason() and friends: the google.rpc.ErrorInfo reason of a failed toolhost call."""

from __future__ import annotations

from typing import Any, Dict, Optional

from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]  # googleapis-common-protos ships no stubs

from toolhost.errors.v1 import error_reason_pb2

DOMAIN = "toolhost"
"""The ErrorInfo domain of every toolhost error."""

_DETAILS_KEY = "grpc-status-details-bin"


def _error_info(err: object) -> Optional[error_details_pb2.ErrorInfo]:
    # Works for grpc.RpcError (sync) and grpc.aio.AioRpcError alike: both offer
    # trailing_metadata(). Anything else, or a call without details (UNAVAILABLE from the
    # client's own transport, a deadline), has no ErrorInfo.
    trailing = getattr(err, "trailing_metadata", None)
    if not callable(trailing):
        return None
    try:
        metadata: Any = trailing()
    except Exception:  # a call object in an unexpected state: no details to read
        return None
    for key, value in metadata or ():
        if key != _DETAILS_KEY or not isinstance(value, bytes):
            continue
        status = status_pb2.Status()
        try:
            status.ParseFromString(value)
        except Exception:  # a malformed trailer is not the caller's problem here
            return None
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                if info.domain == DOMAIN:
                    return info
    return None


def reason(err: object) -> Optional[str]:
    """Return the ErrorInfo reason of a failed call ("PATH_TRAVERSAL", ...), or None.

    None when the error carries no toolhost ErrorInfo: a transport failure such as UNAVAILABLE,
    a deadline, or anything that is not an RPC error. Never raises.
    """
    info = _error_info(err)
    return info.reason or None if info is not None else None


def error_metadata(err: object) -> Dict[str, str]:
    """Return the ErrorInfo metadata of a failed call (for example ``path``), or {}."""
    info = _error_info(err)
    return dict(info.metadata) if info is not None else {}


def reason_name(value: "error_reason_pb2.ErrorReason.ValueType") -> str:
    """Return the wire string of an ErrorReason constant.

    ``ERROR_REASON_PATH_TRAVERSAL`` -> ``"PATH_TRAVERSAL"``: the enum value's name without the
    ``ERROR_REASON_`` prefix that buf's lint requires.
    """
    name = error_reason_pb2.ErrorReason.Name(value)
    return name[len("ERROR_REASON_"):] if name.startswith("ERROR_REASON_") else name


def has_reason(err: object, value: "error_reason_pb2.ErrorReason.ValueType") -> bool:
    """Tell whether a failed call carries the given ErrorReason."""
    return reason(err) == reason_name(value)
