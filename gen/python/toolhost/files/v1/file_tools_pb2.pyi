from toolhost.files.v1 import edit_pb2 as _edit_pb2
from toolhost.files.v1 import read_pb2 as _read_pb2
from toolhost.files.v1 import search_pb2 as _search_pb2
from toolhost.files.v1 import stat_pb2 as _stat_pb2
from toolhost.files.v1 import watch_pb2 as _watch_pb2
from toolhost.files.v1 import write_pb2 as _write_pb2
from toolhost.tools.v1 import tool_descriptor_pb2 as _tool_descriptor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListToolsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListToolsResponse(_message.Message):
    __slots__ = ("tools",)
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    tools: _containers.RepeatedCompositeFieldContainer[_tool_descriptor_pb2.ToolDescriptor]
    def __init__(self, tools: _Optional[_Iterable[_Union[_tool_descriptor_pb2.ToolDescriptor, _Mapping]]] = ...) -> None: ...
