from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListRootsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRootsResponse(_message.Message):
    __slots__ = ("roots",)
    ROOTS_FIELD_NUMBER: _ClassVar[int]
    roots: _containers.RepeatedCompositeFieldContainer[Root]
    def __init__(self, roots: _Optional[_Iterable[_Union[Root, _Mapping]]] = ...) -> None: ...

class Root(_message.Message):
    __slots__ = ("path", "read_only")
    PATH_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FIELD_NUMBER: _ClassVar[int]
    path: str
    read_only: bool
    def __init__(self, path: _Optional[str] = ..., read_only: _Optional[bool] = ...) -> None: ...
