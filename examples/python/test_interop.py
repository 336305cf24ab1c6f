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

from toolhost.files.v1 import file_tools_pb2, file_tools_pb2_grpc, read_pb2

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
