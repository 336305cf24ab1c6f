from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EditFileRequest(_message.Message):
    __slots__ = ("path", "edits", "dry_run", "if_sha256")
    PATH_FIELD_NUMBER: _ClassVar[int]
    EDITS_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    IF_SHA256_FIELD_NUMBER: _ClassVar[int]
    path: str
    edits: _containers.RepeatedCompositeFieldContainer[Edit]
    dry_run: bool
    if_sha256: str
    def __init__(self, path: _Optional[str] = ..., edits: _Optional[_Iterable[_Union[Edit, _Mapping]]] = ..., dry_run: _Optional[bool] = ..., if_sha256: _Optional[str] = ...) -> None: ...

class Edit(_message.Message):
    __slots__ = ("replace", "append", "insert", "patch")
    REPLACE_FIELD_NUMBER: _ClassVar[int]
    APPEND_FIELD_NUMBER: _ClassVar[int]
    INSERT_FIELD_NUMBER: _ClassVar[int]
    PATCH_FIELD_NUMBER: _ClassVar[int]
    replace: ReplaceEdit
    append: AppendEdit
    insert: InsertEdit
    patch: PatchEdit
    def __init__(self, replace: _Optional[_Union[ReplaceEdit, _Mapping]] = ..., append: _Optional[_Union[AppendEdit, _Mapping]] = ..., insert: _Optional[_Union[InsertEdit, _Mapping]] = ..., patch: _Optional[_Union[PatchEdit, _Mapping]] = ...) -> None: ...

class ReplaceEdit(_message.Message):
    __slots__ = ("old_text", "new_text", "replace_all", "expected_replacements")
    OLD_TEXT_FIELD_NUMBER: _ClassVar[int]
    NEW_TEXT_FIELD_NUMBER: _ClassVar[int]
    REPLACE_ALL_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_REPLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    old_text: str
    new_text: str
    replace_all: bool
    expected_replacements: int
    def __init__(self, old_text: _Optional[str] = ..., new_text: _Optional[str] = ..., replace_all: _Optional[bool] = ..., expected_replacements: _Optional[int] = ...) -> None: ...

class AppendEdit(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class InsertEdit(_message.Message):
    __slots__ = ("line", "text")
    LINE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    line: int
    text: str
    def __init__(self, line: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class PatchEdit(_message.Message):
    __slots__ = ("unified_diff",)
    UNIFIED_DIFF_FIELD_NUMBER: _ClassVar[int]
    unified_diff: str
    def __init__(self, unified_diff: _Optional[str] = ...) -> None: ...

class EditFileResponse(_message.Message):
    __slots__ = ("replacements", "diff", "sha256", "size", "applied", "previous_sha256", "diff_truncated")
    REPLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SHA256_FIELD_NUMBER: _ClassVar[int]
    DIFF_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    replacements: int
    diff: str
    sha256: str
    size: int
    applied: bool
    previous_sha256: str
    diff_truncated: bool
    def __init__(self, replacements: _Optional[int] = ..., diff: _Optional[str] = ..., sha256: _Optional[str] = ..., size: _Optional[int] = ..., applied: _Optional[bool] = ..., previous_sha256: _Optional[str] = ..., diff_truncated: _Optional[bool] = ...) -> None: ...
