// The V8 flags `toolhost serve` and `toolhost mcp` set for their process. They are the
// application's choice, not the library's: only cli.ts imports this file, so code that embeds
// src/app/ (tests, another host) runs on the V8 settings its own entry point chose. Why they are set from here, not as
// NODE_OPTIONS, and the measurement behind each: docs/adr/0006-v8-flags.md.
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";

/**
 * compileEarly makes V8 compile every function the server runs to baseline machine code
 * (Sparkplug) on its first call, instead of interpreting it until it has run often enough.
 *
 * A toolhost call runs a long path (transport, auth, sandbox, the operation, history, logging)
 * that an agent drives one call at a time, so on a fresh server most of it is still interpreted
 * after dozens of calls. Baseline code needs no type feedback and costs a few MB of code space in
 * all; the optimizing tier (TurboFan) still takes over the hot functions. TOOLHOST_COMPILE_EARLY=0
 * turns it off. V8 reads the flag when it next compiles a function, so this runs before the
 * server is built; the handful of functions already run by then keep their tier.
 */
export function compileEarly(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TOOLHOST_COMPILE_EARLY === "0") return false;
  setFlagsFromString("--always-sparkplug");
  return true;
}

/** heapRoomBytes is the room keepHeapRoom keeps between the live heap and the next full collection. */
export const heapRoomBytes = 96 * 1024 * 1024;

/** The growing factors keepHeapRoom may set stay within V8's own: 1.1x to 4x. */
const minPercent = 10;
const maxPercent = 300;

/**
 * growingPercentFor is the `--heap-growing-percent` that lets a heap of `liveBytes` grow by
 * `room` before its next full collection, within V8's own range of factors (1.1x to 4x).
 */
export function growingPercentFor(liveBytes: number, room = heapRoomBytes): number {
  const percent = Math.ceil((100 * room) / Math.max(liveBytes, 1));
  return Math.min(maxPercent, Math.max(minPercent, percent));
}

/**
 * keepHeapRoom keeps ~96 MiB (heapRoomBytes) between the live heap and the point where V8 starts
 * its next full (mark-compact) collection, by setting V8's growing factor after every full
 * collection from the size of the heap that survived it; 4x at most (78 MB on the ~26 MB heap of
 * a fresh server), 1.1x at least.
 *
 * V8 counts ArrayBuffers against the old generation's limit, but picks its growing factor from
 * how fast the heap itself is allocated against how fast it is collected. An UploadFile keeps
 * 25-50 MB of ArrayBuffers in flight while allocating ~0.5 MB on the heap between collections:
 * to V8 collecting looks cheap, so after a full collection during an upload it may choose its
 * smallest factor, leaving ~10 MB of room, and every ~10 MB of upload then starts another full
 * collection, for as long as the server runs. A fixed amount of room, not a fixed factor, is what
 * the in-flight buffers need, whatever the heap's size.
 *
 * The flag is process-wide (the hash and match workers get the same factor) and V8 reads it when
 * it sets its next limit, which it still caps halfway between the heap's size and its maximum.
 * TOOLHOST_HEAP_ROOM=0 turns it off. Returns whether it is on; it stays on for the process's life.
 */
export function keepHeapRoom(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TOOLHOST_HEAP_ROOM === "0") return false;
  let percent = 0;
  const follow = () => {
    const next = growingPercentFor(getHeapStatistics().used_heap_size);
    if (next !== percent) {
      percent = next;
      setFlagsFromString(`--heap-growing-percent=${next}`);
    }
  };
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().some(isFullCollection)) follow();
  });
  observer.observe({ entryTypes: ["gc"] });
  follow();
  return true;
}

function isFullCollection(entry: PerformanceEntry): boolean {
  return (
    (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR
  );
}
