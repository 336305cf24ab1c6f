// heap-churn.ts [room]: the heap side of an UploadFile, in a process of its own. It builds a heap of
// ~65 MB (a server's catalog, caches and code), then allocates 1024 ArrayBuffers of 1 MiB with 8
// in flight, as an upload's messages arrive, and prints how many full (mark-compact) collections
// ran meanwhile. With "room", keepHeapRoom runs first.
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { setImmediate as turn } from "node:timers/promises";
import { keepHeapRoom } from "../../src/app/heap-room.js";

if (process.argv[2] === "room") {
  keepHeapRoom({});
}
const kept: object[] = [];
for (let i = 0; i < 400_000; i++) {
  kept.push({ i, name: `entry-${i}`, pair: [i, i + 1] });
}
let full = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
    if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
  }
});
observer.observe({ entryTypes: ["gc"] });
await new Promise((resolve) => setTimeout(resolve, 50));
const before = full;
const inFlight: Uint8Array[] = [];
for (let i = 0; i < 1024; i++) {
  const chunk = new Uint8Array(1 << 20);
  chunk[0] = i;
  inFlight.push(chunk);
  if (inFlight.length > 8) inFlight.shift();
  if (i % 16 === 0) await turn();
}
await new Promise((resolve) => setTimeout(resolve, 50));
observer.disconnect();
process.stdout.write(`${JSON.stringify({ full: full - before, kept: kept.length })}\n`);
