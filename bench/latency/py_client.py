"""The Python half of the latency measurement (bench/latency/run.sh): one 256 MiB ReadFile in
bytes mode and one 256 MiB UploadFile through the generated grpcio stubs, printing MB/s of each.
grpcio needs no settings for this: its BDP probing grows the HTTP/2 windows by itself.

Usage: PYTHONPATH=gen/python .venv/bin/python bench/latency/py_client.py ADDR [PATH]
"""
import sys
import time

import grpc

from toolhost.files.v1 import file_tools_pb2_grpc, read_pb2, write_pb2

addr = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051"
path = sys.argv[2] if len(sys.argv) > 2 else "big.bin"
channel = grpc.insecure_channel(addr, options=[("grpc.max_receive_message_length", 64 << 20)])
stub = file_tools_pb2_grpc.FileToolsStub(channel)

start = time.perf_counter()
received = 0
for message in stub.ReadFile(read_pb2.ReadFileRequest(path=path, mode=read_pb2.READ_MODE_BYTES)):
    received += len(message.data)
print(f"python read MB/s={received / (time.perf_counter() - start) / 1e6:.1f}")

chunk = b"\x07" * (1 << 20)
total = 256


def requests():
    yield write_pb2.UploadFileRequest(header=write_pb2.UploadHeader(path="py-upload.bin"))
    for _ in range(total):
        yield write_pb2.UploadFileRequest(data=chunk)


start = time.perf_counter()
stub.UploadFile(requests())
print(f"python upload MB/s={total * len(chunk) / (time.perf_counter() - start) / 1e6:.1f}")
