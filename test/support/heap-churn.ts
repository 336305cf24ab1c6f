// heap-churn.ts [room]: the heap side of an UploadFile, in a process of its own. It builds a heap of
// ~65 MB (a server's catalog, caches and code), then allocates 1024 ArrayBuffers of 1 MiB with 8
// in flight, as an upload's messages arrive, and prints how many full (mark-compact) collections
// ran meanwhile: `full`, those the heap's limit started, and `external`, those V8 starts when
// ArrayBuffers have grown 64 MB past their level at the last full collection (a separate limit,
// which keepHeapRoom does not change; a busy machine passes it now and then, V8 freeing dead
// ArrayBuffers late on a helper thread). With "room", keepHeapRoom runs first. Needs --expose-gc.
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { setImmediate as turn } from "node:timers/promises";
import { keepHeapRoom } from "../../src/serve-v8-flags.js";

if (process.argv[2] === "room") {
  keepHeapRoom({});
}
const kept: object[] = [];
for (let i = 0; i < 400_000; i++) {
  kept.push({ i, name: `entry-${i}`, pair: [i, i + 1] });
}
let full = 0;
let external = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const detail = (entry as PerformanceEntry & { detail?: { kind?: number; flags?: number } }).detail;
    if (detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
    if (((detail.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY) !== 0) external++;
    else full++;
  }
});
observer.observe({ entryTypes: ["gc"] });
// One full collection now (run with --expose-gc), then a pause for the observers (the test's and
// keepHeapRoom's) to see it: only the churn's own full collections are counted below.
(globalThis as { gc?: () => void }).gc?.();
await new Promise((resolve) => setTimeout(resolve, 100));
const before = full;
const externalBefore = external;
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
process.stdout.write(
  `${JSON.stringify({ full: full - before, external: external - externalBefore, kept: kept.length })}\n`,
);
