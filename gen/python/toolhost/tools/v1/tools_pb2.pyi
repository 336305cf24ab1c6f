from google.protobuf import struct_pb2 as _struct_pb2
from toolhost.tools.v1 import tool_descriptor_pb2 as _tool_descriptor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Dialect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DIALECT_UNSPECIFIED: _ClassVar[Dialect]
    DIALECT_OPENAI: _ClassVar[Dialect]
    DIALECT_ANTHROPIC: _ClassVar[Dialect]
    DIALECT_MCP: _ClassVar[Dialect]
    DIALECT_OPENAI_RESPONSES: _ClassVar[Dialect]
DIALECT_UNSPECIFIED: Dialect
DIALECT_OPENAI: Dialect
DIALECT_ANTHROPIC: Dialect
DIALECT_MCP: Dialect
DIALECT_OPENAI_RESPONSES: Dialect

class ListToolsRequest(_message.Message):
    __slots__ = ("dialect", "include_skills", "skill_namespace")
    DIALECT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SKILLS_FIELD_NUMBER: _ClassVar[int]
    SKILL_NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    dialect: Dialect
    include_skills: bool
    skill_namespace: str
    def __init__(self, dialect: _Optional[_Union[Dialect, str]] = ..., include_skills: _Optional[bool] = ..., skill_namespace: _Optional[str] = ...) -> None: ...

class ListToolsResponse(_message.Message):
    __slots__ = ("tools", "rendered", "truncated")
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    RENDERED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    tools: _containers.RepeatedCompositeFieldContainer[_tool_descriptor_pb2.ToolDescriptor]
    rendered: str
    truncated: bool
    def __init__(self, tools: _Optional[_Iterable[_Union[_tool_descriptor_pb2.ToolDescriptor, _Mapping]]] = ..., rendered: _Optional[str] = ..., truncated: _Optional[bool] = ...) -> None: ...

class CallToolRequest(_message.Message):
    __slots__ = ("name", "arguments", "session_id", "max_content_bytes")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_CONTENT_BYTES_FIELD_NUMBER: _ClassVar[int]
    name: str
    arguments: str
    session_id: str
    max_content_bytes: int
    def __init__(self, name: _Optional[str] = ..., arguments: _Optional[str] = ..., session_id: _Optional[str] = ..., max_content_bytes: _Optional[int] = ...) -> None: ...

class CallToolResponse(_message.Message):
    __slots__ = ("content", "structured", "is_error", "reason", "truncated", "tool_name", "method")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    content: str
    structured: _struct_pb2.Struct
    is_error: bool
    reason: str
    truncated: bool
    tool_name: str
    method: str
    def __init__(self, content: _Optional[str] = ..., structured: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., is_error: _Optional[bool] = ..., reason: _Optional[str] = ..., truncated: _Optional[bool] = ..., tool_name: _Optional[str] = ..., method: _Optional[str] = ...) -> None: ...
