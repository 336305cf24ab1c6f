import { setFlagsFromString } from "node:v8";

/** steadyGrowingPercent is the old generation's growth between full collections: 300% is 4x. */
export const steadyGrowingPercent = 300;

/**
 * growHeapSteadily fixes how far V8 lets the old generation grow between two full (mark-compact)
 * collections at 4x what survived the last one, instead of a factor V8 picks after each
 * collection from how fast the program allocated meanwhile (1.1x to 4x).
 *
 * An UploadFile keeps 25-50 MB of ArrayBuffers in flight (grpc-js allocates one per message,
 * HTTP/2 buffers a stream window ahead, dead ones wait for the next scavenge), and V8 counts them
 * against the old generation's limit. Once one full collection ran during an upload, V8 measured
 * that allocation rate, chose its smallest factor, and left ~10 MB of room above a ~26 MB heap:
 * from then on every 10 MB of upload started another full collection, 15-20 per 256 MiB, each
 * marking the whole heap on four helper threads. The server stayed in that state across calls:
 * 1.2-1.6 s of CPU per 256 MiB upload against 0.4-0.6 s, and a third less throughput
 * (bench/README.md, "Uploads and full collections"). With 4x, the room above the heap exceeds
 * what an upload keeps in flight, so an upload runs with scavenges only.
 *
 * V8's own bound still holds: it never sets the limit past halfway to the heap's maximum. V8
 * reads the flag at every full collection, so it takes effect from the next one.
 * TOOLHOST_STEADY_HEAP=0 turns it off.
 */
export function growHeapSteadily(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TOOLHOST_STEADY_HEAP === "0") return false;
  setFlagsFromString(`--heap-growing-percent=${steadyGrowingPercent}`);
  return true;
}
