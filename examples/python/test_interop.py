"""Checks the generated Python client against a running toolhost server.

TOOLHOST_ADDR (host:port) selects the server; without it every test is skipped. When
TOOLHOST_SAMPLE_PATH is set, ReadFile of that path (relative to the server's first root) must
return exactly TOOLHOST_SAMPLE_TEXT. test/interop/interop.test.ts sets all three.
"""

import hashlib
import json
import os

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from toolhost.files.v1 import file_tools_pb2, file_tools_pb2_grpc, read_pb2, search_pb2, stat_pb2, watch_pb2, write_pb2

# A deadline only so that a hung server fails a test instead of hanging it.
TIMEOUT = 60


@pytest.fixture
def channel():
    addr = os.environ.get("TOOLHOST_ADDR")
    if not addr:
        pytest.skip("TOOLHOST_ADDR is not set; start `toolhost serve` and set it to host:port")
    with grpc.insecure_channel(addr) as ch:
        yield ch


@pytest.fixture
def files(channel):
    return file_tools_pb2_grpc.FileToolsStub(channel)


def test_list_tools_returns_the_file_tools(files):
    tools = files.ListTools(file_tools_pb2.ListToolsRequest(), timeout=TIMEOUT).tools
    assert [(t.name, t.read_only, t.writes) for t in tools] == [
        ("skill/file-read", True, False),
        ("skill/file-write", False, True),
        ("skill/file-edit", False, True),
        ("skill/file-delete", False, True),
        ("skill/file-search", True, False),
        ("skill/file-watch", True, False),
    ]
    for tool in tools:
        schema = json.loads(tool.input_schema)
        assert isinstance(schema, dict) and schema, f"{tool.name}: input_schema is not a non-empty JSON object"


def test_health_check_is_serving(channel):
    resp = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)
    assert resp.status == health_pb2.HealthCheckResponse.SERVING


def test_read_outside_the_roots_is_path_traversal(files):
    with pytest.raises(grpc.RpcError) as caught:
        list(files.ReadFile(read_pb2.ReadFileRequest(path="../../etc/passwd"), timeout=TIMEOUT))
    err = caught.value
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED, err.details()
    # from_call decodes grpc-status-details-bin (a google.rpc.Status) from the trailers.
    status = rpc_status.from_call(err)
    assert status is not None, "no grpc-status-details-bin in the trailers"
    infos = []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            infos.append((info.reason, info.domain))
    assert infos == [("PATH_TRAVERSAL", "toolhost")]


def test_read_file_returns_the_sample_text(files):
    path = os.environ.get("TOOLHOST_SAMPLE_PATH")
    if not path:
        pytest.skip("TOOLHOST_SAMPLE_PATH is not set")
    want = os.environ.get("TOOLHOST_SAMPLE_TEXT", "")
    messages = list(files.ReadFile(read_pb2.ReadFileRequest(path=path), timeout=TIMEOUT))
    assert messages[0].WhichOneof("part") == "info"
    assert "".join(m.text for m in messages) == want
    summary = messages[-1].summary
    assert messages[-1].WhichOneof("part") == "summary"
    assert summary.sha256 == hashlib.sha256(want.encode()).hexdigest()
    assert summary.eof


def test_search_files_finds_the_sample_line(files):
    path = os.environ.get("TOOLHOST_SAMPLE_PATH")
    if not path:
        pytest.skip("TOOLHOST_SAMPLE_PATH is not set")
    lines = os.environ.get("TOOLHOST_SAMPLE_TEXT", "").rstrip("\n").split("\n")
    messages = list(files.SearchFiles(search_pb2.SearchFilesRequest(pattern=lines[-1]), timeout=TIMEOUT))
    found = [(m.match.path, m.match.line_number, m.match.line) for m in messages if m.WhichOneof("result") == "match"]
    assert found == [(path, len(lines), lines[-1])]
    assert messages[-1].WhichOneof("result") == "summary"
    assert (messages[-1].summary.matches, messages[-1].summary.files_matched) == (1, 1)


def test_search_files_counts_per_file(files):
    path = os.environ.get("TOOLHOST_SAMPLE_PATH")
    if not path:
        pytest.skip("TOOLHOST_SAMPLE_PATH is not set")
    request = search_pb2.SearchFilesRequest(pattern="e", output_mode=search_pb2.SEARCH_OUTPUT_MODE_COUNT, include=[path])
    counted = [(m.file.path, m.file.matches) for m in files.SearchFiles(request, timeout=TIMEOUT) if m.WhichOneof("result") == "file"]
    want = sum(1 for line in os.environ.get("TOOLHOST_SAMPLE_TEXT", "").split("\n") if "e" in line)
    assert counted == [(path, want)]


def test_watch_files_reports_a_write(files):
    name = "interop-watch-py.txt"
    stream = files.WatchFiles(watch_pb2.WatchFilesRequest(include=[name]), timeout=TIMEOUT)
    try:
        assert next(stream).type == watch_pb2.WATCH_EVENT_TYPE_READY
        files.WriteFile(write_pb2.WriteFileRequest(path=name, text="watched\n"), timeout=TIMEOUT)
        event = next(stream)
        assert (event.type, event.path, event.file_type, event.size) == (watch_pb2.WATCH_EVENT_TYPE_CREATED, name, stat_pb2.FILE_TYPE_FILE, 8)
    finally:
        stream.cancel()
