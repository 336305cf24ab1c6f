/**
 * tail-and-read-files measures, as ratios from one run against a real toolhost (a child process
 * running `toolhost serve`, called through the generated Connect client over loopback):
 *
 * 1. a 100-line tail (`tail_lines`) of a 1 GiB sparse file whose last lines are real text, against
 *    a whole read of a 1 KB file: the tail should cost about a small read, whatever the size;
 * 2. ReadFiles of 50 files of 4 KB in one call, against 50 separate ReadFile calls (sequential,
 *    as an agent without ReadFiles would make them).
 *
 * A benchmark, not a test: `node --import tsx bench/tail-and-read-files.ts`. ROUNDS (default 200
 * for the tail, 20 for the batch) sets the repetitions; medians are reported.
 */
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { spawnServer } from "../test/support/spawn-server.js";
import { fileToolsClient } from "../test/files/read-process-probe.js";
import { openResults } from "./lib/results.mjs";

const rounds = Number(process.env["ROUNDS"] ?? 200);
const batchRounds = Math.max(5, Math.round(rounds / 10));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(fn: () => Promise<unknown>, times: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function drain(stream: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of stream) n++;
  return n;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "toolhost-bench-tail-"));
  const skills = path.join(root, "no-skills");
  await mkdir(skills);
  const lines = Array.from(
    { length: 1000 },
    (_, i) => `2024-06-01T12:00:${String(i % 60).padStart(2, "0")}Z INFO request ${i} served in ${i % 97} ms\n`,
  ).join("");
  const huge = await open(path.join(root, "huge.log"), "w");
  await huge.write(Buffer.from("log start\n".repeat(1000)), 0, undefined, 0);
  await huge.write(Buffer.from(lines), 0, undefined, 1024 ** 3); // a 1 GiB hole, then real lines
  await huge.close();
  await writeFile(path.join(root, "small.txt"), `${"x".repeat(1023)}\n`);
  await mkdir(path.join(root, "many"));
  for (let i = 0; i < 50; i++) await writeFile(path.join(root, "many", `f${i}.txt`), `${"y".repeat(4095)}\n`);
  const server = await spawnServer(["--root", root, "--skills", skills]);
  try {
    const client = fileToolsClient(server.address);
    // Warm up both paths (connection, JIT, page cache).
    for (let i = 0; i < 20; i++) {
      await drain(client.readFile({ path: "huge.log", tailLines: 100 }));
      await drain(client.readFile({ path: "small.txt" }));
    }
    const small = await timed(() => drain(client.readFile({ path: "small.txt" })), rounds);
    const tail = await timed(() => drain(client.readFile({ path: "huge.log", tailLines: 100 })), rounds);
    console.log(`ReadFile 1 KB whole:           ${small.toFixed(3)} ms (median of ${rounds})`);
    console.log(`ReadFile 1 GiB tail_lines=100: ${tail.toFixed(3)} ms (median of ${rounds})`);
    console.log(`tail / small read ratio:       ${(tail / small).toFixed(2)}`);

    const files = Array.from({ length: 50 }, (_, i) => ({ path: `many/f${i}.txt` }));
    for (let i = 0; i < 3; i++) await drain(client.readFiles({ files }));
    const separate = await timed(async () => {
      for (const file of files) await drain(client.readFile(file));
    }, batchRounds);
    const batched = await timed(() => drain(client.readFiles({ files })), batchRounds);
    console.log(`50 x ReadFile 4 KB:            ${separate.toFixed(3)} ms (median of ${batchRounds})`);
    console.log(`ReadFiles 50 x 4 KB:           ${batched.toFixed(3)} ms (median of ${batchRounds})`);
    console.log(`ReadFiles / 50 ReadFile ratio: ${(batched / separate).toFixed(2)}`);
    const results = openResults("tail-and-read-files", {
      command: "node --import tsx bench/tail-and-read-files.ts",
      rounds,
    });
    results.row("tail-and-read-files", {
      work: "ReadFile tail_lines=100 of a 1 GiB log",
      against: "ReadFile of a whole 1 KB file",
      time: `${tail.toFixed(3)} / ${small.toFixed(3)} ms`,
      ratio: `${(tail / small).toFixed(2)}x`,
    });
    results.row("tail-and-read-files", {
      work: "ReadFiles of 50 x 4 KB",
      against: "50 ReadFile calls one after another",
      time: `${batched.toFixed(3)} / ${separate.toFixed(3)} ms`,
      ratio: `${(batched / separate).toFixed(2)}x`,
    });
  } finally {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
