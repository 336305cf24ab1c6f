import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReadMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    READ_MODE_UNSPECIFIED: _ClassVar[ReadMode]
    READ_MODE_TEXT: _ClassVar[ReadMode]
    READ_MODE_BYTES: _ClassVar[ReadMode]
READ_MODE_UNSPECIFIED: ReadMode
READ_MODE_TEXT: ReadMode
READ_MODE_BYTES: ReadMode

class ReadFileRequest(_message.Message):
    __slots__ = ("path", "mode", "offset", "limit", "byte_offset", "byte_limit", "chunk_size", "tail_lines")
    PATH_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BYTE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    BYTE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    CHUNK_SIZE_FIELD_NUMBER: _ClassVar[int]
    TAIL_LINES_FIELD_NUMBER: _ClassVar[int]
    path: str
    mode: ReadMode
    offset: int
    limit: int
    byte_offset: int
    byte_limit: int
    chunk_size: int
    tail_lines: int
    def __init__(self, path: _Optional[str] = ..., mode: _Optional[_Union[ReadMode, str]] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., byte_offset: _Optional[int] = ..., byte_limit: _Optional[int] = ..., chunk_size: _Optional[int] = ..., tail_lines: _Optional[int] = ...) -> None: ...

class ReadFileResponse(_message.Message):
    __slots__ = ("info", "text", "data", "summary")
    INFO_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    info: FileInfo
    text: str
    data: bytes
    summary: ReadSummary
    def __init__(self, info: _Optional[_Union[FileInfo, _Mapping]] = ..., text: _Optional[str] = ..., data: _Optional[bytes] = ..., summary: _Optional[_Union[ReadSummary, _Mapping]] = ...) -> None: ...

class FileInfo(_message.Message):
    __slots__ = ("path", "size", "encoding", "mode", "modified", "file_mode", "bom")
    PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    ENCODING_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_FIELD_NUMBER: _ClassVar[int]
    FILE_MODE_FIELD_NUMBER: _ClassVar[int]
    BOM_FIELD_NUMBER: _ClassVar[int]
    path: str
    size: int
    encoding: str
    mode: ReadMode
    modified: _timestamp_pb2.Timestamp
    file_mode: int
    bom: bool
    def __init__(self, path: _Optional[str] = ..., size: _Optional[int] = ..., encoding: _Optional[str] = ..., mode: _Optional[_Union[ReadMode, str]] = ..., modified: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., file_mode: _Optional[int] = ..., bom: _Optional[bool] = ...) -> None: ...

class ReadSummary(_message.Message):
    __slots__ = ("bytes_sent", "sha256", "eof", "lines_sent", "next_offset", "replaced_sequences")
    BYTES_SENT_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    EOF_FIELD_NUMBER: _ClassVar[int]
    LINES_SENT_FIELD_NUMBER: _ClassVar[int]
    NEXT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    REPLACED_SEQUENCES_FIELD_NUMBER: _ClassVar[int]
    bytes_sent: int
    sha256: str
    eof: bool
    lines_sent: int
    next_offset: int
    replaced_sequences: int
    def __init__(self, bytes_sent: _Optional[int] = ..., sha256: _Optional[str] = ..., eof: _Optional[bool] = ..., lines_sent: _Optional[int] = ..., next_offset: _Optional[int] = ..., replaced_sequences: _Optional[int] = ...) -> None: ...
