import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChangeOperation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHANGE_OPERATION_UNSPECIFIED: _ClassVar[ChangeOperation]
    CHANGE_OPERATION_WRITE: _ClassVar[ChangeOperation]
    CHANGE_OPERATION_UPLOAD: _ClassVar[ChangeOperation]
    CHANGE_OPERATION_EDIT: _ClassVar[ChangeOperation]
    CHANGE_OPERATION_DELETE: _ClassVar[ChangeOperation]
    CHANGE_OPERATION_MOVE: _ClassVar[ChangeOperation]
    CHANGE_OPERATION_RESTORE: _ClassVar[ChangeOperation]
    CHANGE_OPERATION_PATCH: _ClassVar[ChangeOperation]
CHANGE_OPERATION_UNSPECIFIED: ChangeOperation
CHANGE_OPERATION_WRITE: ChangeOperation
CHANGE_OPERATION_UPLOAD: ChangeOperation
CHANGE_OPERATION_EDIT: ChangeOperation
CHANGE_OPERATION_DELETE: ChangeOperation
CHANGE_OPERATION_MOVE: ChangeOperation
CHANGE_OPERATION_RESTORE: ChangeOperation
CHANGE_OPERATION_PATCH: ChangeOperation

class FileChange(_message.Message):
    __slots__ = ("time", "operation", "caller", "sha256_before", "sha256_after", "before_available", "size_before")
    TIME_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SHA256_BEFORE_FIELD_NUMBER: _ClassVar[int]
    SHA256_AFTER_FIELD_NUMBER: _ClassVar[int]
    BEFORE_AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    SIZE_BEFORE_FIELD_NUMBER: _ClassVar[int]
    time: _timestamp_pb2.Timestamp
    operation: ChangeOperation
    caller: str
    sha256_before: str
    sha256_after: str
    before_available: bool
    size_before: int
    def __init__(self, time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., operation: _Optional[_Union[ChangeOperation, str]] = ..., caller: _Optional[str] = ..., sha256_before: _Optional[str] = ..., sha256_after: _Optional[str] = ..., before_available: _Optional[bool] = ..., size_before: _Optional[int] = ...) -> None: ...

class ListFileHistoryRequest(_message.Message):
    __slots__ = ("path", "limit")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    path: str
    limit: int
    def __init__(self, path: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListFileHistoryResponse(_message.Message):
    __slots__ = ("changes",)
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[FileChange]
    def __init__(self, changes: _Optional[_Iterable[_Union[FileChange, _Mapping]]] = ...) -> None: ...

class RestoreFileRequest(_message.Message):
    __slots__ = ("path", "sha256", "if_sha256")
    PATH_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    IF_SHA256_FIELD_NUMBER: _ClassVar[int]
    path: str
    sha256: str
    if_sha256: str
    def __init__(self, path: _Optional[str] = ..., sha256: _Optional[str] = ..., if_sha256: _Optional[str] = ...) -> None: ...

class RestoreFileResponse(_message.Message):
    __slots__ = ("previous_sha256", "sha256", "size")
    PREVIOUS_SHA256_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    previous_sha256: str
    sha256: str
    size: int
    def __init__(self, previous_sha256: _Optional[str] = ..., sha256: _Optional[str] = ..., size: _Optional[int] = ...) -> None: ...

class UndoLastChangeRequest(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class UndoLastChangeResponse(_message.Message):
    __slots__ = ("undone", "removed", "sha256")
    UNDONE_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    undone: FileChange
    removed: bool
    sha256: str
    def __init__(self, undone: _Optional[_Union[FileChange, _Mapping]] = ..., removed: _Optional[bool] = ..., sha256: _Optional[str] = ...) -> None: ...
