from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SearchOutputMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_OUTPUT_MODE_UNSPECIFIED: _ClassVar[SearchOutputMode]
    SEARCH_OUTPUT_MODE_CONTENT: _ClassVar[SearchOutputMode]
    SEARCH_OUTPUT_MODE_FILES_WITH_MATCHES: _ClassVar[SearchOutputMode]
    SEARCH_OUTPUT_MODE_COUNT: _ClassVar[SearchOutputMode]
SEARCH_OUTPUT_MODE_UNSPECIFIED: SearchOutputMode
SEARCH_OUTPUT_MODE_CONTENT: SearchOutputMode
SEARCH_OUTPUT_MODE_FILES_WITH_MATCHES: SearchOutputMode
SEARCH_OUTPUT_MODE_COUNT: SearchOutputMode

class SearchFilesRequest(_message.Message):
    __slots__ = ("path", "pattern", "regex", "case_insensitive", "whole_word", "include", "exclude", "no_ignore", "include_hidden", "max_file_size", "max_matches", "max_matches_per_file", "context_before", "context_after", "max_line_length", "output_mode")
    PATH_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    REGEX_FIELD_NUMBER: _ClassVar[int]
    CASE_INSENSITIVE_FIELD_NUMBER: _ClassVar[int]
    WHOLE_WORD_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_FIELD_NUMBER: _ClassVar[int]
    NO_IGNORE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    MAX_FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_PER_FILE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_AFTER_FIELD_NUMBER: _ClassVar[int]
    MAX_LINE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_MODE_FIELD_NUMBER: _ClassVar[int]
    path: str
    pattern: str
    regex: bool
    case_insensitive: bool
    whole_word: bool
    include: _containers.RepeatedScalarFieldContainer[str]
    exclude: _containers.RepeatedScalarFieldContainer[str]
    no_ignore: bool
    include_hidden: bool
    max_file_size: int
    max_matches: int
    max_matches_per_file: int
    context_before: int
    context_after: int
    max_line_length: int
    output_mode: SearchOutputMode
    def __init__(self, path: _Optional[str] = ..., pattern: _Optional[str] = ..., regex: _Optional[bool] = ..., case_insensitive: _Optional[bool] = ..., whole_word: _Optional[bool] = ..., include: _Optional[_Iterable[str]] = ..., exclude: _Optional[_Iterable[str]] = ..., no_ignore: _Optional[bool] = ..., include_hidden: _Optional[bool] = ..., max_file_size: _Optional[int] = ..., max_matches: _Optional[int] = ..., max_matches_per_file: _Optional[int] = ..., context_before: _Optional[int] = ..., context_after: _Optional[int] = ..., max_line_length: _Optional[int] = ..., output_mode: _Optional[_Union[SearchOutputMode, str]] = ...) -> None: ...

class SearchFilesResponse(_message.Message):
    __slots__ = ("match", "file", "summary")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    match: SearchMatch
    file: SearchFileResult
    summary: SearchSummary
    def __init__(self, match: _Optional[_Union[SearchMatch, _Mapping]] = ..., file: _Optional[_Union[SearchFileResult, _Mapping]] = ..., summary: _Optional[_Union[SearchSummary, _Mapping]] = ...) -> None: ...

class SearchMatch(_message.Message):
    __slots__ = ("path", "line_number", "column", "line", "line_truncated", "ranges", "context_before", "context_after")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LINE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    LINE_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_AFTER_FIELD_NUMBER: _ClassVar[int]
    path: str
    line_number: int
    column: int
    line: str
    line_truncated: bool
    ranges: _containers.RepeatedCompositeFieldContainer[SearchRange]
    context_before: _containers.RepeatedCompositeFieldContainer[SearchContextLine]
    context_after: _containers.RepeatedCompositeFieldContainer[SearchContextLine]
    def __init__(self, path: _Optional[str] = ..., line_number: _Optional[int] = ..., column: _Optional[int] = ..., line: _Optional[str] = ..., line_truncated: _Optional[bool] = ..., ranges: _Optional[_Iterable[_Union[SearchRange, _Mapping]]] = ..., context_before: _Optional[_Iterable[_Union[SearchContextLine, _Mapping]]] = ..., context_after: _Optional[_Iterable[_Union[SearchContextLine, _Mapping]]] = ...) -> None: ...

class SearchRange(_message.Message):
    __slots__ = ("start", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: int
    end: int
    def __init__(self, start: _Optional[int] = ..., end: _Optional[int] = ...) -> None: ...

class SearchContextLine(_message.Message):
    __slots__ = ("line_number", "line", "line_truncated")
    LINE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    LINE_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    line_number: int
    line: str
    line_truncated: bool
    def __init__(self, line_number: _Optional[int] = ..., line: _Optional[str] = ..., line_truncated: _Optional[bool] = ...) -> None: ...

class SearchFileResult(_message.Message):
    __slots__ = ("path", "matches")
    PATH_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    path: str
    matches: int
    def __init__(self, path: _Optional[str] = ..., matches: _Optional[int] = ...) -> None: ...

class SearchSummary(_message.Message):
    __slots__ = ("files_scanned", "files_matched", "matches", "bytes_scanned", "limit_reached", "files_skipped", "elapsed_ms")
    FILES_SCANNED_FIELD_NUMBER: _ClassVar[int]
    FILES_MATCHED_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    BYTES_SCANNED_FIELD_NUMBER: _ClassVar[int]
    LIMIT_REACHED_FIELD_NUMBER: _ClassVar[int]
    FILES_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    files_scanned: int
    files_matched: int
    matches: int
    bytes_scanned: int
    limit_reached: bool
    files_skipped: int
    elapsed_ms: int
    def __init__(self, files_scanned: _Optional[int] = ..., files_matched: _Optional[int] = ..., matches: _Optional[int] = ..., bytes_scanned: _Optional[int] = ..., limit_reached: _Optional[bool] = ..., files_skipped: _Optional[int] = ..., elapsed_ms: _Optional[int] = ...) -> None: ...
