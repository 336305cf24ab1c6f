"""Checks the generated Python client against a running toolhost server.

TOOLHOST_ADDR (host:port) selects the server; without it every test is skipped. When
TOOLHOST_SAMPLE_PATH is set, ReadFile of that path (relative to the server's first root) must
return exactly TOOLHOST_SAMPLE_TEXT. test/interop/interop.test.ts sets all three.

With TOOLHOST_CA (a PEM file) the client connects over TLS and verifies the server against it;
TOOLHOST_TOKEN adds "authorization: Bearer <token>" to every call, and TOOLHOST_CLIENT_CERT with
TOOLHOST_CLIENT_KEY present a client certificate (mTLS). test/interop/interop-tls.test.ts sets them.
"""

import hashlib
import json
import re
import uuid
import os

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from toolhost.files.v1 import file_tools_pb2, file_tools_pb2_grpc, history_pb2, patch_pb2, read_files_pb2, read_pb2, search_pb2, stat_pb2, tree_pb2, watch_pb2, write_pb2

# A deadline only so that a hung server fails a test instead of hanging it.
TIMEOUT = 60


@pytest.fixture
def channel():
    addr = os.environ.get("TOOLHOST_ADDR")
    if not addr:
        pytest.skip("TOOLHOST_ADDR is not set; start `toolhost serve` and set it to host:port")
    ca = os.environ.get("TOOLHOST_CA")
    if not ca:
        with grpc.insecure_channel(addr) as ch:
            yield ch
        return
    cert, key = os.environ.get("TOOLHOST_CLIENT_CERT"), os.environ.get("TOOLHOST_CLIENT_KEY")
    creds = grpc.ssl_channel_credentials(
        root_certificates=_read(ca),
        private_key=_read(key) if key else None,
        certificate_chain=_read(cert) if cert else None,
    )
    token = os.environ.get("TOOLHOST_TOKEN")
    if token:
        creds = grpc.composite_channel_credentials(creds, grpc.access_token_call_credentials(token))
    with grpc.secure_channel(addr, creds) as ch:
        yield ch


def _read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture
def files(channel):
    return file_tools_pb2_grpc.FileToolsStub(channel)


def test_list_tools_starts_with_the_four_seed_file_tools(files):
    tools = files.ListTools(file_tools_pb2.ListToolsRequest(), timeout=TIMEOUT).tools
    assert [(t.name, t.read_only, t.writes) for t in tools[:4]] == [
        ("skill/file-read", True, False),
        ("skill/file-write", False, True),
        ("skill/file-edit", False, True),
        ("skill/file-delete", False, True),
    ]
    for tool in tools:
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool.function_name), f"{tool.name}: bad function_name {tool.function_name!r}"
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


def error_reason(err):
    status = rpc_status.from_call(err)
    for detail in status.details if status else []:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason
    return ""


def test_tree_tools_and_read_files(files):
    """Makes a directory, writes, moves and copies a file in it, reads them with ReadFiles and a
    tail, refuses a copy over an existing file, and removes the tree (all under py-interop/)."""
    base = "py-interop"
    try:
        assert files.MakeDirectory(tree_pb2.MakeDirectoryRequest(path=f"{base}/work", parents=True), timeout=TIMEOUT).created
        text = "one\ntwo\nthree\n"
        files.WriteFile(write_pb2.WriteFileRequest(path=f"{base}/work/a.txt", text=text), timeout=TIMEOUT)
        moved = files.MoveFile(tree_pb2.MoveFileRequest(**{"from": f"{base}/work/a.txt", "to": f"{base}/b.txt"}), timeout=TIMEOUT)
        assert moved.sha256 == hashlib.sha256(text.encode()).hexdigest()
        files.CopyFile(tree_pb2.CopyFileRequest(**{"from": f"{base}/b.txt", "to": f"{base}/c.txt"}), timeout=TIMEOUT)
        with pytest.raises(grpc.RpcError) as caught:
            files.CopyFile(tree_pb2.CopyFileRequest(**{"from": f"{base}/b.txt", "to": f"{base}/c.txt"}), timeout=TIMEOUT)
        assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
        assert error_reason(caught.value) == "ALREADY_EXISTS"
        request = read_files_pb2.ReadFilesRequest(files=[
            read_pb2.ReadFileRequest(path=f"{base}/b.txt"),
            read_pb2.ReadFileRequest(path=f"{base}/missing.txt"),
            read_pb2.ReadFileRequest(path=f"{base}/c.txt", tail_lines=1),
        ])
        contents, errors = {}, {}
        for m in files.ReadFiles(request, timeout=TIMEOUT):
            contents[m.index] = contents.get(m.index, "") + m.text
            if m.WhichOneof("part") == "error":
                errors[m.index] = m.error.reason
        assert contents[0] == text and contents[2] == "three\n" and errors == {1: "NOT_FOUND"}
        dry = files.RemoveDirectory(tree_pb2.RemoveDirectoryRequest(path=base, recursive=True, dry_run=True), timeout=TIMEOUT)
        assert list(dry.paths) == [f"{base}/b.txt", f"{base}/c.txt", f"{base}/work", base]
        assert files.RemoveDirectory(tree_pb2.RemoveDirectoryRequest(path=base, recursive=True), timeout=TIMEOUT).removed_entries == 4
    finally:
        try:
            files.RemoveDirectory(tree_pb2.RemoveDirectoryRequest(path=base, recursive=True), timeout=TIMEOUT)
        except grpc.RpcError:
            pass
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
    # A name of its own per run: the interop suites run more than once against one root.
    name = f"interop-watch-py-{uuid.uuid4().hex[:12]}.txt"
    stream = files.WatchFiles(watch_pb2.WatchFilesRequest(include=[name]), timeout=TIMEOUT)
    try:
        assert next(stream).type == watch_pb2.WATCH_EVENT_TYPE_READY
        files.WriteFile(write_pb2.WriteFileRequest(path=name, text="watched\n"), timeout=TIMEOUT)
        event = next(stream)
        assert (event.type, event.path, event.file_type, event.size) == (watch_pb2.WATCH_EVENT_TYPE_CREATED, name, stat_pb2.FILE_TYPE_FILE, 8)
    finally:
        stream.cancel()


def test_apply_patch_history_and_undo(files):
    """Applies a two-file patch, lists the history it left, and undoes it through one of its files
    (a patch is one change: both files go back); a patch whose second file does not apply changes
    neither (file names of their own)."""
    a = f"py-patch-{uuid.uuid4().hex[:8]}.txt"
    b = f"py-patch-{uuid.uuid4().hex[:8]}.txt"
    files.WriteFile(write_pb2.WriteFileRequest(path=a, text="one\n"), timeout=TIMEOUT)
    patch = f"*** Begin Patch\n*** Update File: {a}\n@@\n-one\n+two\n*** Add File: {b}\n+new\n*** End Patch"
    applied = files.ApplyPatch(patch_pb2.ApplyPatchRequest(patch=patch), timeout=TIMEOUT)
    assert applied.applied and [f.operation for f in applied.files] == [patch_pb2.PATCH_FILE_OPERATION_UPDATE, patch_pb2.PATCH_FILE_OPERATION_ADD]
    changes = files.ListFileHistory(history_pb2.ListFileHistoryRequest(path=a), timeout=TIMEOUT).changes
    assert [c.operation for c in changes] == [history_pb2.CHANGE_OPERATION_PATCH, history_pb2.CHANGE_OPERATION_WRITE]
    files.UndoLastChange(history_pb2.UndoLastChangeRequest(path=a), timeout=TIMEOUT)
    text = "".join(m.text for m in files.ReadFile(read_pb2.ReadFileRequest(path=a), timeout=TIMEOUT))
    assert text == "one\n"
    with pytest.raises(grpc.RpcError) as gone:
        files.StatFile(stat_pb2.StatFileRequest(path=b), timeout=TIMEOUT)
    assert error_reason(gone.value) == "NOT_FOUND"
    files.WriteFile(write_pb2.WriteFileRequest(path=b, text="new\n"), timeout=TIMEOUT)
    bad = f"*** Begin Patch\n*** Update File: {a}\n@@\n-one\n+three\n*** Update File: {b}\n@@\n-absent\n+x\n*** End Patch"
    with pytest.raises(grpc.RpcError) as caught:
        files.ApplyPatch(patch_pb2.ApplyPatchRequest(patch=bad), timeout=TIMEOUT)
    assert error_reason(caught.value) == "PATCH_FAILED"
    assert "".join(m.text for m in files.ReadFile(read_pb2.ReadFileRequest(path=a), timeout=TIMEOUT)) == "one\n"
    files.DeleteFile(write_pb2.DeleteFileRequest(path=a), timeout=TIMEOUT)
    files.DeleteFile(write_pb2.DeleteFileRequest(path=b), timeout=TIMEOUT)
