from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PatchFileOperation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PATCH_FILE_OPERATION_UNSPECIFIED: _ClassVar[PatchFileOperation]
    PATCH_FILE_OPERATION_ADD: _ClassVar[PatchFileOperation]
    PATCH_FILE_OPERATION_DELETE: _ClassVar[PatchFileOperation]
    PATCH_FILE_OPERATION_UPDATE: _ClassVar[PatchFileOperation]
    PATCH_FILE_OPERATION_MOVE: _ClassVar[PatchFileOperation]
PATCH_FILE_OPERATION_UNSPECIFIED: PatchFileOperation
PATCH_FILE_OPERATION_ADD: PatchFileOperation
PATCH_FILE_OPERATION_DELETE: PatchFileOperation
PATCH_FILE_OPERATION_UPDATE: PatchFileOperation
PATCH_FILE_OPERATION_MOVE: PatchFileOperation

class ApplyPatchRequest(_message.Message):
    __slots__ = ("patch", "dry_run")
    PATCH_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    patch: str
    dry_run: bool
    def __init__(self, patch: _Optional[str] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class PatchFileResult(_message.Message):
    __slots__ = ("path", "move_to", "operation", "diff", "sha256_before", "sha256_after", "applied")
    PATH_FIELD_NUMBER: _ClassVar[int]
    MOVE_TO_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    SHA256_BEFORE_FIELD_NUMBER: _ClassVar[int]
    SHA256_AFTER_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    path: str
    move_to: str
    operation: PatchFileOperation
    diff: str
    sha256_before: str
    sha256_after: str
    applied: bool
    def __init__(self, path: _Optional[str] = ..., move_to: _Optional[str] = ..., operation: _Optional[_Union[PatchFileOperation, str]] = ..., diff: _Optional[str] = ..., sha256_before: _Optional[str] = ..., sha256_after: _Optional[str] = ..., applied: _Optional[bool] = ...) -> None: ...

class ApplyPatchResponse(_message.Message):
    __slots__ = ("files", "applied", "diff_truncated")
    FILES_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    DIFF_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[PatchFileResult]
    applied: bool
    diff_truncated: bool
    def __init__(self, files: _Optional[_Iterable[_Union[PatchFileResult, _Mapping]]] = ..., applied: _Optional[bool] = ..., diff_truncated: _Optional[bool] = ...) -> None: ...
