from toolhost.files.v1 import stat_pb2 as _stat_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MoveFileRequest(_message.Message):
    __slots__ = ("to", "overwrite", "if_sha256", "create_parents")
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    OVERWRITE_FIELD_NUMBER: _ClassVar[int]
    IF_SHA256_FIELD_NUMBER: _ClassVar[int]
    CREATE_PARENTS_FIELD_NUMBER: _ClassVar[int]
    to: str
    overwrite: bool
    if_sha256: str
    create_parents: bool
    def __init__(self, to: _Optional[str] = ..., overwrite: _Optional[bool] = ..., if_sha256: _Optional[str] = ..., create_parents: _Optional[bool] = ..., **kwargs) -> None: ...

class MoveFileResponse(_message.Message):
    __slots__ = ("type", "sha256", "overwritten", "across_filesystems")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    OVERWRITTEN_FIELD_NUMBER: _ClassVar[int]
    ACROSS_FILESYSTEMS_FIELD_NUMBER: _ClassVar[int]
    type: _stat_pb2.FileType
    sha256: str
    overwritten: bool
    across_filesystems: bool
    def __init__(self, type: _Optional[_Union[_stat_pb2.FileType, str]] = ..., sha256: _Optional[str] = ..., overwritten: _Optional[bool] = ..., across_filesystems: _Optional[bool] = ...) -> None: ...

class CopyFileRequest(_message.Message):
    __slots__ = ("to", "overwrite", "recursive", "keep_mode", "create_parents")
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    OVERWRITE_FIELD_NUMBER: _ClassVar[int]
    RECURSIVE_FIELD_NUMBER: _ClassVar[int]
    KEEP_MODE_FIELD_NUMBER: _ClassVar[int]
    CREATE_PARENTS_FIELD_NUMBER: _ClassVar[int]
    to: str
    overwrite: bool
    recursive: bool
    keep_mode: bool
    create_parents: bool
    def __init__(self, to: _Optional[str] = ..., overwrite: _Optional[bool] = ..., recursive: _Optional[bool] = ..., keep_mode: _Optional[bool] = ..., create_parents: _Optional[bool] = ..., **kwargs) -> None: ...

class CopyFileResponse(_message.Message):
    __slots__ = ("type", "sha256", "bytes_copied", "entries_copied", "overwritten")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    BYTES_COPIED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_COPIED_FIELD_NUMBER: _ClassVar[int]
    OVERWRITTEN_FIELD_NUMBER: _ClassVar[int]
    type: _stat_pb2.FileType
    sha256: str
    bytes_copied: int
    entries_copied: int
    overwritten: bool
    def __init__(self, type: _Optional[_Union[_stat_pb2.FileType, str]] = ..., sha256: _Optional[str] = ..., bytes_copied: _Optional[int] = ..., entries_copied: _Optional[int] = ..., overwritten: _Optional[bool] = ...) -> None: ...

class MakeDirectoryRequest(_message.Message):
    __slots__ = ("path", "parents", "mode")
    PATH_FIELD_NUMBER: _ClassVar[int]
    PARENTS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    path: str
    parents: bool
    mode: int
    def __init__(self, path: _Optional[str] = ..., parents: _Optional[bool] = ..., mode: _Optional[int] = ...) -> None: ...

class MakeDirectoryResponse(_message.Message):
    __slots__ = ("created",)
    CREATED_FIELD_NUMBER: _ClassVar[int]
    created: bool
    def __init__(self, created: _Optional[bool] = ...) -> None: ...

class RemoveDirectoryRequest(_message.Message):
    __slots__ = ("path", "recursive", "dry_run", "max_entries")
    PATH_FIELD_NUMBER: _ClassVar[int]
    RECURSIVE_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    path: str
    recursive: bool
    dry_run: bool
    max_entries: int
    def __init__(self, path: _Optional[str] = ..., recursive: _Optional[bool] = ..., dry_run: _Optional[bool] = ..., max_entries: _Optional[int] = ...) -> None: ...

class RemoveDirectoryResponse(_message.Message):
    __slots__ = ("existed", "removed_entries", "paths", "dry_run")
    EXISTED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    existed: bool
    removed_entries: int
    paths: _containers.RepeatedScalarFieldContainer[str]
    dry_run: bool
    def __init__(self, existed: _Optional[bool] = ..., removed_entries: _Optional[int] = ..., paths: _Optional[_Iterable[str]] = ..., dry_run: _Optional[bool] = ...) -> None: ...
