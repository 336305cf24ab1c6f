from google.protobuf import struct_pb2 as _struct_pb2
from toolhost.tools.v1 import tool_descriptor_pb2 as _tool_descriptor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProblemSeverity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROBLEM_SEVERITY_UNSPECIFIED: _ClassVar[ProblemSeverity]
    PROBLEM_SEVERITY_ERROR: _ClassVar[ProblemSeverity]
    PROBLEM_SEVERITY_WARNING: _ClassVar[ProblemSeverity]

class SkillEvent(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SKILL_EVENT_UNSPECIFIED: _ClassVar[SkillEvent]
    SKILL_EVENT_ADDED: _ClassVar[SkillEvent]
    SKILL_EVENT_UPDATED: _ClassVar[SkillEvent]
    SKILL_EVENT_REMOVED: _ClassVar[SkillEvent]
    SKILL_EVENT_INVALID: _ClassVar[SkillEvent]
PROBLEM_SEVERITY_UNSPECIFIED: ProblemSeverity
PROBLEM_SEVERITY_ERROR: ProblemSeverity
PROBLEM_SEVERITY_WARNING: ProblemSeverity
SKILL_EVENT_UNSPECIFIED: SkillEvent
SKILL_EVENT_ADDED: SkillEvent
SKILL_EVENT_UPDATED: SkillEvent
SKILL_EVENT_REMOVED: SkillEvent
SKILL_EVENT_INVALID: SkillEvent

class SkillSummary(_message.Message):
    __slots__ = ("name", "namespace", "short_name", "description", "version", "resource_slots", "active", "digest")
    NAME_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    SHORT_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_SLOTS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    name: str
    namespace: str
    short_name: str
    description: str
    version: str
    resource_slots: _containers.RepeatedCompositeFieldContainer[_tool_descriptor_pb2.ResourceSlot]
    active: bool
    digest: str
    def __init__(self, name: _Optional[str] = ..., namespace: _Optional[str] = ..., short_name: _Optional[str] = ..., description: _Optional[str] = ..., version: _Optional[str] = ..., resource_slots: _Optional[_Iterable[_Union[_tool_descriptor_pb2.ResourceSlot, _Mapping]]] = ..., active: _Optional[bool] = ..., digest: _Optional[str] = ...) -> None: ...

class SkillStep(_message.Message):
    __slots__ = ("index", "content")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    index: int
    content: str
    def __init__(self, index: _Optional[int] = ..., content: _Optional[str] = ...) -> None: ...

class Skill(_message.Message):
    __slots__ = ("name", "namespace", "short_name", "description", "version", "resource_slots", "active", "digest", "body", "steps", "allowed_tools", "metadata", "compatibility", "license", "metadata_text", "compatibility_text", "path")
    NAME_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    SHORT_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_SLOTS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_TOOLS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    COMPATIBILITY_FIELD_NUMBER: _ClassVar[int]
    LICENSE_FIELD_NUMBER: _ClassVar[int]
    METADATA_TEXT_FIELD_NUMBER: _ClassVar[int]
    COMPATIBILITY_TEXT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    name: str
    namespace: str
    short_name: str
    description: str
    version: str
    resource_slots: _containers.RepeatedCompositeFieldContainer[_tool_descriptor_pb2.ResourceSlot]
    active: bool
    digest: str
    body: str
    steps: _containers.RepeatedCompositeFieldContainer[SkillStep]
    allowed_tools: _containers.RepeatedScalarFieldContainer[str]
    metadata: _struct_pb2.Struct
    compatibility: _struct_pb2.Struct
    license: str
    metadata_text: str
    compatibility_text: str
    path: str
    def __init__(self, name: _Optional[str] = ..., namespace: _Optional[str] = ..., short_name: _Optional[str] = ..., description: _Optional[str] = ..., version: _Optional[str] = ..., resource_slots: _Optional[_Iterable[_Union[_tool_descriptor_pb2.ResourceSlot, _Mapping]]] = ..., active: _Optional[bool] = ..., digest: _Optional[str] = ..., body: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[SkillStep, _Mapping]]] = ..., allowed_tools: _Optional[_Iterable[str]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., compatibility: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., license: _Optional[str] = ..., metadata_text: _Optional[str] = ..., compatibility_text: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class SkillProblem(_message.Message):
    __slots__ = ("severity", "field", "message", "line")
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    severity: ProblemSeverity
    field: str
    message: str
    line: int
    def __init__(self, severity: _Optional[_Union[ProblemSeverity, str]] = ..., field: _Optional[str] = ..., message: _Optional[str] = ..., line: _Optional[int] = ...) -> None: ...

class SkillError(_message.Message):
    __slots__ = ("path", "message", "field", "line", "name")
    PATH_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    path: str
    message: str
    field: str
    line: int
    name: str
    def __init__(self, path: _Optional[str] = ..., message: _Optional[str] = ..., field: _Optional[str] = ..., line: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class SkillResource(_message.Message):
    __slots__ = ("slot", "path", "size")
    SLOT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    slot: str
    path: str
    size: int
    def __init__(self, slot: _Optional[str] = ..., path: _Optional[str] = ..., size: _Optional[int] = ...) -> None: ...
