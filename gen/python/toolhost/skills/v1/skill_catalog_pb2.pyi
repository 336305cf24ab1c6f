from toolhost.files.v1 import read_pb2 as _read_pb2
from toolhost.skills.v1 import skill_pb2 as _skill_pb2
from toolhost.tools.v1 import tool_descriptor_pb2 as _tool_descriptor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListSkillsRequest(_message.Message):
    __slots__ = ("namespace", "query", "session_id", "page_size", "page_token")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    query: str
    session_id: str
    page_size: int
    page_token: str
    def __init__(self, namespace: _Optional[str] = ..., query: _Optional[str] = ..., session_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListSkillsResponse(_message.Message):
    __slots__ = ("skills", "next_page_token")
    SKILLS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    skills: _containers.RepeatedCompositeFieldContainer[_skill_pb2.SkillSummary]
    next_page_token: str
    def __init__(self, skills: _Optional[_Iterable[_Union[_skill_pb2.SkillSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ActivateSkillRequest(_message.Message):
    __slots__ = ("name", "session_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    session_id: str
    def __init__(self, name: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class ActivateSkillResponse(_message.Message):
    __slots__ = ("skill",)
    SKILL_FIELD_NUMBER: _ClassVar[int]
    skill: _skill_pb2.Skill
    def __init__(self, skill: _Optional[_Union[_skill_pb2.Skill, _Mapping]] = ...) -> None: ...

class DeactivateSkillRequest(_message.Message):
    __slots__ = ("name", "session_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    session_id: str
    def __init__(self, name: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class DeactivateSkillResponse(_message.Message):
    __slots__ = ("was_active",)
    WAS_ACTIVE_FIELD_NUMBER: _ClassVar[int]
    was_active: bool
    def __init__(self, was_active: _Optional[bool] = ...) -> None: ...

class GetSkillDescriptorRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetSkillDescriptorResponse(_message.Message):
    __slots__ = ("descriptor",)
    DESCRIPTOR_FIELD_NUMBER: _ClassVar[int]
    descriptor: _tool_descriptor_pb2.ToolDescriptor
    def __init__(self, descriptor: _Optional[_Union[_tool_descriptor_pb2.ToolDescriptor, _Mapping]] = ...) -> None: ...

class ListSkillResourcesRequest(_message.Message):
    __slots__ = ("name", "slot")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SLOT_FIELD_NUMBER: _ClassVar[int]
    name: str
    slot: str
    def __init__(self, name: _Optional[str] = ..., slot: _Optional[str] = ...) -> None: ...

class ListSkillResourcesResponse(_message.Message):
    __slots__ = ("resources",)
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    resources: _containers.RepeatedCompositeFieldContainer[_skill_pb2.SkillResource]
    def __init__(self, resources: _Optional[_Iterable[_Union[_skill_pb2.SkillResource, _Mapping]]] = ...) -> None: ...

class ReadSkillResourceRequest(_message.Message):
    __slots__ = ("name", "slot", "path", "mode", "offset", "limit", "byte_offset", "byte_limit", "chunk_size")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SLOT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BYTE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    BYTE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    CHUNK_SIZE_FIELD_NUMBER: _ClassVar[int]
    name: str
    slot: str
    path: str
    mode: _read_pb2.ReadMode
    offset: int
    limit: int
    byte_offset: int
    byte_limit: int
    chunk_size: int
    def __init__(self, name: _Optional[str] = ..., slot: _Optional[str] = ..., path: _Optional[str] = ..., mode: _Optional[_Union[_read_pb2.ReadMode, str]] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., byte_offset: _Optional[int] = ..., byte_limit: _Optional[int] = ..., chunk_size: _Optional[int] = ...) -> None: ...

class ReadSkillResourceResponse(_message.Message):
    __slots__ = ("info", "text", "data", "summary")
    INFO_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    info: _read_pb2.FileInfo
    text: str
    data: bytes
    summary: _read_pb2.ReadSummary
    def __init__(self, info: _Optional[_Union[_read_pb2.FileInfo, _Mapping]] = ..., text: _Optional[str] = ..., data: _Optional[bytes] = ..., summary: _Optional[_Union[_read_pb2.ReadSummary, _Mapping]] = ...) -> None: ...

class ValidateSkillRequest(_message.Message):
    __slots__ = ("content", "namespace", "folder_name")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    FOLDER_NAME_FIELD_NUMBER: _ClassVar[int]
    content: str
    namespace: str
    folder_name: str
    def __init__(self, content: _Optional[str] = ..., namespace: _Optional[str] = ..., folder_name: _Optional[str] = ...) -> None: ...

class ValidateSkillResponse(_message.Message):
    __slots__ = ("valid", "skill", "problems")
    VALID_FIELD_NUMBER: _ClassVar[int]
    SKILL_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    skill: _skill_pb2.Skill
    problems: _containers.RepeatedCompositeFieldContainer[_skill_pb2.SkillProblem]
    def __init__(self, valid: _Optional[bool] = ..., skill: _Optional[_Union[_skill_pb2.Skill, _Mapping]] = ..., problems: _Optional[_Iterable[_Union[_skill_pb2.SkillProblem, _Mapping]]] = ...) -> None: ...

class WatchSkillsRequest(_message.Message):
    __slots__ = ("namespace",)
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    def __init__(self, namespace: _Optional[str] = ...) -> None: ...

class WatchSkillsResponse(_message.Message):
    __slots__ = ("event", "name", "path", "message", "digest")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    event: _skill_pb2.SkillEvent
    name: str
    path: str
    message: str
    digest: str
    def __init__(self, event: _Optional[_Union[_skill_pb2.SkillEvent, str]] = ..., name: _Optional[str] = ..., path: _Optional[str] = ..., message: _Optional[str] = ..., digest: _Optional[str] = ...) -> None: ...

class ListSkillErrorsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListSkillErrorsResponse(_message.Message):
    __slots__ = ("errors",)
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    errors: _containers.RepeatedCompositeFieldContainer[_skill_pb2.SkillError]
    def __init__(self, errors: _Optional[_Iterable[_Union[_skill_pb2.SkillError, _Mapping]]] = ...) -> None: ...
