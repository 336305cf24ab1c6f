import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";

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
 * 25-50 MB of ArrayBuffers in flight (grpc-js allocates one per message, HTTP/2 buffers a stream
 * window ahead, dead ones wait for the next scavenge) while allocating ~0.5 MB on the heap
 * between collections: to V8 collecting looked cheap, so after a full collection during an upload
 * it chose its smallest factor, leaving ~10 MB of room (1.1x plus its 8 MB minimum step). Every
 * ~10 MB of upload then started another full collection, 15-20 per 256 MiB, each marking the whole
 * heap on four helper threads, and the server stayed so across calls: 1.2-1.6 s of CPU per
 * 256 MiB upload against 0.4-0.6 s, and a third less throughput (bench/README.md, "Uploads and
 * full collections"). A fixed amount of room, not a fixed factor, is what the in-flight buffers
 * need, whatever the heap's size.
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
  return (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}
