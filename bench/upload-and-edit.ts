/**
 * upload-and-edit measures the write side of a real toolhost (a child process running `toolhost
 * serve`) over loopback: UploadFile throughput for a 256 MiB file at a few chunk sizes, and the
 * latency of a small EditFile (p50 and p99).
 *
 * A benchmark, not a test: run it with `node --import tsx bench/upload-and-edit.ts`. Uploads are
 * interleaved over several rounds and the median is reported, since on a small, noisy machine only
 * ratios within one run mean much. Each upload is a full atomic write: temp file, fsync, rename,
 * directory fsync, and the hash of the 256 MiB it replaces, so the disk's fsync speed is part of
 * the number.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { create } from "@bufbuild/protobuf";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { UploadFileRequestSchema, type UploadFileRequest } from "../gen/ts/toolhost/files/v1/write_pb.js";
import { spawnServer } from "../test/support/spawn-server.js";

const MiB = 1024 * 1024;
const uploadSize = 256 * MiB;
const rounds = Number(process.env["ROUNDS"] ?? 3);
const chunkSizes = (process.env["CHUNK_SIZES"] ?? `${256 * 1024},${MiB},${4 * MiB}`).split(",").map(Number);
const edits = Number(process.env["EDITS"] ?? 1000);

// 16 MiB of incompressible bytes, sent over and over: generating 256 MiB per upload would
// measure the client's random number generator instead of the server.
const pattern = randomBytes(16 * MiB);

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "toolhost-bench-write-"));
  const skills = path.join(root, "no-skills");
  await mkdir(skills);
  const server = await spawnServer(["--root", root, "--skills", skills]);
  const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
  const throughput = new Map<number, number[]>(chunkSizes.map((size) => [size, []]));
  let latencies: number[];
  try {
    await upload(client, MiB); // warm-up: connection, JIT, first allocation of the file
    for (let round = 0; round < rounds; round++) {
      for (const size of chunkSizes) {
        throughput.get(size)!.push(await upload(client, size));
      }
    }
    latencies = await editLatencies(client, root);
  } finally {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
  console.log(`UploadFile of 256 MiB over loopback, median of ${rounds} rounds (MB = 10^6 bytes)`);
  for (const size of chunkSizes) {
    const runs = throughput.get(size)!;
    console.log(
      `${`${size / 1024} KiB chunks`.padEnd(18)} ${median(runs).toFixed(0).padStart(6)} MB/s  [${runs.map((v) => v.toFixed(0)).join(", ")}]`,
    );
  }
  latencies.sort((a, b) => a - b);
  console.log(`EditFile (one replace in a 4 KiB file, applied and fsync'ed), ${edits} sequential calls`);
  console.log(
    `p50 ${percentile(latencies, 0.5).toFixed(2)} ms  p99 ${percentile(latencies, 0.99).toFixed(2)} ms  max ${latencies.at(-1)!.toFixed(2)} ms`,
  );
}

async function upload(client: Client<typeof FileTools>, chunkSize: number): Promise<number> {
  async function* messages(): AsyncGenerator<UploadFileRequest> {
    yield create(UploadFileRequestSchema, {
      part: { case: "header", value: { path: "upload.bin", expectedSize: BigInt(uploadSize) } },
    });
    for (let sent = 0; sent < uploadSize; sent += chunkSize) {
      const offset = sent % pattern.length;
      yield create(UploadFileRequestSchema, {
        part: { case: "data", value: pattern.subarray(offset, offset + chunkSize) },
      });
    }
  }
  const started = performance.now();
  const response = await client.uploadFile(messages());
  const seconds = (performance.now() - started) / 1000;
  if (response.size !== BigInt(uploadSize)) throw new Error(`uploaded ${response.size} bytes, expected ${uploadSize}`);
  return uploadSize / 1e6 / seconds;
}

async function editLatencies(client: Client<typeof FileTools>, root: string): Promise<number[]> {
  const lines = Array.from(
    { length: 128 },
    (_, i) => `line ${String(i).padStart(3, "0")}: some text of a source file\n`,
  );
  await writeFile(path.join(root, "edit.txt"), lines.join(""));
  const samples: number[] = [];
  for (let i = 0; i < edits + 50; i++) {
    // Flip one word back and forth so every call changes the file and is written.
    const [oldText, newText] =
      i % 2 === 0 ? ["line 064: some", "line 064: more"] : ["line 064: more", "line 064: some"];
    const started = performance.now();
    await client.editFile({ path: "edit.txt", edits: [{ kind: { case: "replace", value: { oldText, newText } } }] });
    if (i >= 50) samples.push(performance.now() - started); // the first 50 are warm-up
  }
  return samples;
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

await main();
