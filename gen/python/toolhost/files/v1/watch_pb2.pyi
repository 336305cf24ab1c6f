from toolhost.files.v1 import stat_pb2 as _stat_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WatchEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WATCH_EVENT_TYPE_UNSPECIFIED: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_CREATED: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_MODIFIED: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_DELETED: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_RENAMED: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_SNAPSHOT_DONE: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_OVERFLOW: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_READY: _ClassVar[WatchEventType]
WATCH_EVENT_TYPE_UNSPECIFIED: WatchEventType
WATCH_EVENT_TYPE_CREATED: WatchEventType
WATCH_EVENT_TYPE_MODIFIED: WatchEventType
WATCH_EVENT_TYPE_DELETED: WatchEventType
WATCH_EVENT_TYPE_RENAMED: WatchEventType
WATCH_EVENT_TYPE_SNAPSHOT_DONE: WatchEventType
WATCH_EVENT_TYPE_OVERFLOW: WatchEventType
WATCH_EVENT_TYPE_READY: WatchEventType

class WatchFilesRequest(_message.Message):
    __slots__ = ("path", "recursive", "include", "exclude", "initial_snapshot", "include_hidden")
    PATH_FIELD_NUMBER: _ClassVar[int]
    RECURSIVE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_FIELD_NUMBER: _ClassVar[int]
    INITIAL_SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    path: str
    recursive: bool
    include: _containers.RepeatedScalarFieldContainer[str]
    exclude: _containers.RepeatedScalarFieldContainer[str]
    initial_snapshot: bool
    include_hidden: bool
    def __init__(self, path: _Optional[str] = ..., recursive: _Optional[bool] = ..., include: _Optional[_Iterable[str]] = ..., exclude: _Optional[_Iterable[str]] = ..., initial_snapshot: _Optional[bool] = ..., include_hidden: _Optional[bool] = ...) -> None: ...

class WatchFilesResponse(_message.Message):
    __slots__ = ("type", "path", "old_path", "file_type", "size")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    OLD_PATH_FIELD_NUMBER: _ClassVar[int]
    FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    type: WatchEventType
    path: str
    old_path: str
    file_type: _stat_pb2.FileType
    size: int
    def __init__(self, type: _Optional[_Union[WatchEventType, str]] = ..., path: _Optional[str] = ..., old_path: _Optional[str] = ..., file_type: _Optional[_Union[_stat_pb2.FileType, str]] = ..., size: _Optional[int] = ...) -> None: ...
