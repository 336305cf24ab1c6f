/**
 * read-throughput streams a 256 MiB file in bytes mode over loopback from a real toolhost (a
 * child process running `toolhost serve`) at several chunk sizes and prints MB/s for each.
 *
 * A benchmark, not a test: run it with `node --import tsx bench/read-throughput.ts`. Sizes are
 * interleaved over several rounds and the median is reported, because on a small, noisy machine
 * only the ratios within one run mean anything. The client is the generated Connect client, as
 * a TypeScript user would call it; it only counts bytes.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { defaultLimits } from "../src/config/config.js";
import { ReadMode } from "../gen/ts/toolhost/files/v1/read_pb.js";
import { spawnServer } from "../test/support/spawn-server.js";
import { fileToolsClient } from "../test/files/read-process-probe.js";

const MiB = 1024 * 1024;
const fileSize = 256 * MiB;
const rounds = Number(process.env["ROUNDS"] ?? 3);
const chunkSizes = (process.env["CHUNK_SIZES"] ?? `${64 * 1024},${defaultLimits.chunkSize},${MiB}`)
  .split(",")
  .map(Number);

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "toolhost-bench-"));
  const skills = path.join(root, "no-skills");
  await mkdir(skills);
  // Real (incompressible, non-sparse) data, written in 16 MiB pieces; the first round also
  // warms the page cache, so the numbers measure the server, not the disk.
  const file = await open(path.join(root, "big.bin"), "w");
  for (let written = 0; written < fileSize; written += 16 * MiB) await file.write(randomBytes(16 * MiB));
  await file.close();

  const server = await spawnServer(["--root", root, "--skills", skills, "--log-level", "info"]);
  const client = fileToolsClient(server.address);
  const results = new Map<number, number[]>(chunkSizes.map((size) => [size, []]));
  try {
    await stream(client, MiB); // warm-up: connection, JIT, page cache
    for (let round = 0; round < rounds; round++) {
      for (const size of chunkSizes) {
        results.get(size)!.push(await stream(client, size));
      }
    }
  } finally {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
  const medians = chunkSizes.map((size) => ({ size, mbps: median(results.get(size)!) }));
  const base = medians.find((m) => m.size === defaultLimits.chunkSize)?.mbps ?? medians[0]!.mbps;
  console.log(`256 MiB bytes-mode ReadFile over loopback, median of ${rounds} rounds (MB = 10^6 bytes)`);
  for (const { size, mbps } of medians) {
    const label = `${size / 1024} KiB${size === defaultLimits.chunkSize ? " (default)" : ""}`;
    console.log(
      `${label.padEnd(20)} ${mbps.toFixed(0).padStart(6)} MB/s  x${(mbps / base).toFixed(2)}  [${results
        .get(size)!
        .map((v) => v.toFixed(0))
        .join(", ")}]`,
    );
  }
}

async function stream(client: ReturnType<typeof fileToolsClient>, chunkSize: number): Promise<number> {
  const started = performance.now();
  let bytes = 0;
  for await (const message of client.readFile({ path: "big.bin", mode: ReadMode.BYTES, chunkSize })) {
    if (message.part.case === "data") bytes += message.part.value.length;
  }
  const seconds = (performance.now() - started) / 1000;
  if (bytes !== fileSize) throw new Error(`received ${bytes} bytes, expected ${fileSize}`);
  return bytes / 1e6 / seconds;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

await main();
