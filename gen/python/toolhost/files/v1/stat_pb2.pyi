import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FileType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FILE_TYPE_UNSPECIFIED: _ClassVar[FileType]
    FILE_TYPE_FILE: _ClassVar[FileType]
    FILE_TYPE_DIRECTORY: _ClassVar[FileType]
    FILE_TYPE_SYMLINK: _ClassVar[FileType]
    FILE_TYPE_OTHER: _ClassVar[FileType]
FILE_TYPE_UNSPECIFIED: FileType
FILE_TYPE_FILE: FileType
FILE_TYPE_DIRECTORY: FileType
FILE_TYPE_SYMLINK: FileType
FILE_TYPE_OTHER: FileType

class StatFileRequest(_message.Message):
    __slots__ = ("path", "include_sha256")
    PATH_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SHA256_FIELD_NUMBER: _ClassVar[int]
    path: str
    include_sha256: bool
    def __init__(self, path: _Optional[str] = ..., include_sha256: _Optional[bool] = ...) -> None: ...

class StatFileResponse(_message.Message):
    __slots__ = ("path", "type", "size", "mode", "modified", "sha256", "binary", "symlink")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    BINARY_FIELD_NUMBER: _ClassVar[int]
    SYMLINK_FIELD_NUMBER: _ClassVar[int]
    path: str
    type: FileType
    size: int
    mode: int
    modified: _timestamp_pb2.Timestamp
    sha256: str
    binary: bool
    symlink: bool
    def __init__(self, path: _Optional[str] = ..., type: _Optional[_Union[FileType, str]] = ..., size: _Optional[int] = ..., mode: _Optional[int] = ..., modified: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., sha256: _Optional[str] = ..., binary: _Optional[bool] = ..., symlink: _Optional[bool] = ...) -> None: ...

class ListDirectoryRequest(_message.Message):
    __slots__ = ("path", "recursive", "glob", "include_hidden", "page_size", "page_token")
    PATH_FIELD_NUMBER: _ClassVar[int]
    RECURSIVE_FIELD_NUMBER: _ClassVar[int]
    GLOB_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    path: str
    recursive: bool
    glob: str
    include_hidden: bool
    page_size: int
    page_token: str
    def __init__(self, path: _Optional[str] = ..., recursive: _Optional[bool] = ..., glob: _Optional[str] = ..., include_hidden: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListDirectoryResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[DirectoryEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[DirectoryEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class DirectoryEntry(_message.Message):
    __slots__ = ("path", "name", "type", "size", "mode", "modified", "symlink")
    PATH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_FIELD_NUMBER: _ClassVar[int]
    SYMLINK_FIELD_NUMBER: _ClassVar[int]
    path: str
    name: str
    type: FileType
    size: int
    mode: int
    modified: _timestamp_pb2.Timestamp
    symlink: bool
    def __init__(self, path: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[_Union[FileType, str]] = ..., size: _Optional[int] = ..., mode: _Optional[int] = ..., modified: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., symlink: _Optional[bool] = ...) -> None: ...
