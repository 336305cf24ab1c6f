from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Tier(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIER_UNSPECIFIED: _ClassVar[Tier]
    TIER_READ: _ClassVar[Tier]
    TIER_WRITE: _ClassVar[Tier]
    TIER_EDIT: _ClassVar[Tier]
    TIER_DELETE: _ClassVar[Tier]

class Access(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACCESS_UNSPECIFIED: _ClassVar[Access]
    ACCESS_READ_ONLY: _ClassVar[Access]
TIER_UNSPECIFIED: Tier
TIER_READ: Tier
TIER_WRITE: Tier
TIER_EDIT: Tier
TIER_DELETE: Tier
ACCESS_UNSPECIFIED: Access
ACCESS_READ_ONLY: Access

class ToolDescriptor(_message.Message):
    __slots__ = ("name", "description", "source", "read_only", "writes", "method", "input_schema", "allowed_tools", "agent_skill_path", "resource_slots", "function_name", "tier")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FIELD_NUMBER: _ClassVar[int]
    WRITES_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_TOOLS_FIELD_NUMBER: _ClassVar[int]
    AGENT_SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_SLOTS_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_NAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    source: str
    read_only: bool
    writes: bool
    method: str
    input_schema: str
    allowed_tools: _containers.RepeatedScalarFieldContainer[str]
    agent_skill_path: str
    resource_slots: _containers.RepeatedCompositeFieldContainer[ResourceSlot]
    function_name: str
    tier: Tier
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., source: _Optional[str] = ..., read_only: _Optional[bool] = ..., writes: _Optional[bool] = ..., method: _Optional[str] = ..., input_schema: _Optional[str] = ..., allowed_tools: _Optional[_Iterable[str]] = ..., agent_skill_path: _Optional[str] = ..., resource_slots: _Optional[_Iterable[_Union[ResourceSlot, _Mapping]]] = ..., function_name: _Optional[str] = ..., tier: _Optional[_Union[Tier, str]] = ...) -> None: ...

class ResourceSlot(_message.Message):
    __slots__ = ("name", "access", "paths")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ACCESS_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    name: str
    access: Access
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., access: _Optional[_Union[Access, str]] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...
