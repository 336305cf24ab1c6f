// Latency from a file write to its WatchFiles event, p50 and p99.
//
//   node --import tsx bench/watch-latency.ts [WRITES]
//
// Starts `toolhost serve` over a fresh folder, opens one WatchFiles stream through the generated
// Connect client, then writes WRITES (default 200) files one after another with plain
// fs.writeFile, each after the previous one's event arrived, and times write-returned to
// event-received. The server coalesces each path's changes over 50 ms (watchDebounceMs), which
// is the floor of this latency by design.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { WatchEventType } from "../gen/ts/toolhost/files/v1/watch_pb.js";
import { spawnServer } from "../test/support/spawn-server.js";

const writes = Number(process.argv[2] ?? 200);
const root = await mkdtemp(path.join(tmpdir(), "toolhost-watch-bench-"));
const server = await spawnServer(["--root", root]);
const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
const controller = new AbortController();
const stream = client.watchFiles({ path: "", recursive: true }, { signal: controller.signal })[Symbol.asyncIterator]();
if ((await stream.next()).value?.type !== WatchEventType.READY) throw new Error("no READY");
const latencies: number[] = [];
for (let i = 0; i < writes; i++) {
  const name = `f${i}.txt`;
  await writeFile(path.join(root, name), "x");
  const written = performance.now();
  for (;;) {
    const event = (await stream.next()).value;
    if (event?.path === name) break;
  }
  latencies.push(performance.now() - written);
}
controller.abort();
latencies.sort((a, b) => a - b);
const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
console.log(`write -> WatchFiles event over ${writes} writes: p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${at(1).toFixed(1)} ms`);
await server.stop();
