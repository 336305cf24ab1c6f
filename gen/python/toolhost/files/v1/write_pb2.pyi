from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NewlineMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NEWLINE_MODE_UNSPECIFIED: _ClassVar[NewlineMode]
    NEWLINE_MODE_PRESERVE: _ClassVar[NewlineMode]
    NEWLINE_MODE_LF: _ClassVar[NewlineMode]
    NEWLINE_MODE_CRLF: _ClassVar[NewlineMode]
NEWLINE_MODE_UNSPECIFIED: NewlineMode
NEWLINE_MODE_PRESERVE: NewlineMode
NEWLINE_MODE_LF: NewlineMode
NEWLINE_MODE_CRLF: NewlineMode

class WriteFileRequest(_message.Message):
    __slots__ = ("path", "text", "data", "newline_mode", "create_parents", "mode", "if_sha256", "must_not_exist")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    NEWLINE_MODE_FIELD_NUMBER: _ClassVar[int]
    CREATE_PARENTS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    IF_SHA256_FIELD_NUMBER: _ClassVar[int]
    MUST_NOT_EXIST_FIELD_NUMBER: _ClassVar[int]
    path: str
    text: str
    data: bytes
    newline_mode: NewlineMode
    create_parents: bool
    mode: int
    if_sha256: str
    must_not_exist: bool
    def __init__(self, path: _Optional[str] = ..., text: _Optional[str] = ..., data: _Optional[bytes] = ..., newline_mode: _Optional[_Union[NewlineMode, str]] = ..., create_parents: _Optional[bool] = ..., mode: _Optional[int] = ..., if_sha256: _Optional[str] = ..., must_not_exist: _Optional[bool] = ...) -> None: ...

class WriteFileResponse(_message.Message):
    __slots__ = ("created", "size", "sha256", "previous_sha256")
    CREATED_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SHA256_FIELD_NUMBER: _ClassVar[int]
    created: bool
    size: int
    sha256: str
    previous_sha256: str
    def __init__(self, created: _Optional[bool] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ..., previous_sha256: _Optional[str] = ...) -> None: ...

class UploadFileRequest(_message.Message):
    __slots__ = ("header", "data")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    header: UploadHeader
    data: bytes
    def __init__(self, header: _Optional[_Union[UploadHeader, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class UploadHeader(_message.Message):
    __slots__ = ("path", "create_parents", "mode", "if_sha256", "must_not_exist", "expected_size", "expected_sha256")
    PATH_FIELD_NUMBER: _ClassVar[int]
    CREATE_PARENTS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    IF_SHA256_FIELD_NUMBER: _ClassVar[int]
    MUST_NOT_EXIST_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SIZE_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SHA256_FIELD_NUMBER: _ClassVar[int]
    path: str
    create_parents: bool
    mode: int
    if_sha256: str
    must_not_exist: bool
    expected_size: int
    expected_sha256: str
    def __init__(self, path: _Optional[str] = ..., create_parents: _Optional[bool] = ..., mode: _Optional[int] = ..., if_sha256: _Optional[str] = ..., must_not_exist: _Optional[bool] = ..., expected_size: _Optional[int] = ..., expected_sha256: _Optional[str] = ...) -> None: ...

class UploadFileResponse(_message.Message):
    __slots__ = ("created", "size", "sha256", "previous_sha256")
    CREATED_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SHA256_FIELD_NUMBER: _ClassVar[int]
    created: bool
    size: int
    sha256: str
    previous_sha256: str
    def __init__(self, created: _Optional[bool] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ..., previous_sha256: _Optional[str] = ...) -> None: ...

class DeleteFileRequest(_message.Message):
    __slots__ = ("path", "if_sha256")
    PATH_FIELD_NUMBER: _ClassVar[int]
    IF_SHA256_FIELD_NUMBER: _ClassVar[int]
    path: str
    if_sha256: str
    def __init__(self, path: _Optional[str] = ..., if_sha256: _Optional[str] = ...) -> None: ...

class DeleteFileResponse(_message.Message):
    __slots__ = ("existed",)
    EXISTED_FIELD_NUMBER: _ClassVar[int]
    existed: bool
    def __init__(self, existed: _Optional[bool] = ...) -> None: ...
