from toolhost.files.v1 import read_pb2 as _read_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReadFilesRequest(_message.Message):
    __slots__ = ("files",)
    FILES_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[_read_pb2.ReadFileRequest]
    def __init__(self, files: _Optional[_Iterable[_Union[_read_pb2.ReadFileRequest, _Mapping]]] = ...) -> None: ...

class ReadFilesResponse(_message.Message):
    __slots__ = ("index", "path", "info", "text", "data", "summary", "error")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    index: int
    path: str
    info: _read_pb2.FileInfo
    text: str
    data: bytes
    summary: _read_pb2.ReadSummary
    error: FileError
    def __init__(self, index: _Optional[int] = ..., path: _Optional[str] = ..., info: _Optional[_Union[_read_pb2.FileInfo, _Mapping]] = ..., text: _Optional[str] = ..., data: _Optional[bytes] = ..., summary: _Optional[_Union[_read_pb2.ReadSummary, _Mapping]] = ..., error: _Optional[_Union[FileError, _Mapping]] = ...) -> None: ...

class FileError(_message.Message):
    __slots__ = ("reason", "code", "message")
    REASON_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    reason: str
    code: str
    message: str
    def __init__(self, reason: _Optional[str] = ..., code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
