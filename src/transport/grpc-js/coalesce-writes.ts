import type { Writable } from "node:stream";

/** maxCoalescedBytes is the most bytes of queued frames copied into one write. */
const maxCoalescedBytes = 64 * 1024;

type WritevChunks = Array<{ chunk: Buffer; encoding: string }>;
type WritableInternals = Omit<Writable, "_write" | "_writev"> & {
  _write(chunk: Buffer, encoding: string, callback: (error?: Error | null) => void): void;
  _writev?: (chunks: WritevChunks, callback: (error?: Error | null) => void) => void;
};

/**
 * coalesceFrames lets the gRPC frames of a server stream that queue up while one write is on its
 * way go out in one write, instead of one event-loop turn each.
 *
 * grpc-js's server stream is a Writable that hands one message at a time to HTTP/2 and takes the
 * next only once the last is on the socket: a small ReadFile's info, text and summary messages
 * left in three socket writes on three turns of the event loop, and the client woke up for each.
 * A Writable that has `_writev` is handed everything queued at once; this one copies what is
 * queued into one buffer (up to maxCoalescedBytes; larger frames still go one by one, uncopied)
 * and gives it to grpc-js's own `_write`. Only for frames that grpc-js writes as they are
 * (preframed-interceptor.ts): several frames in one buffer are then simply consecutive
 * messages on the stream, as gRPC frames them. The callbacks of the queued writes run when the
 * combined write is done, so BoundedWriter's budgets see every byte until it is on the socket.
 *
 * Upstream this is a `_writev` on grpc-js's ServerWritableStreamImpl.
 */
export function coalesceFrames(call: Writable): void {
  (call as WritableInternals)._writev = coalescedWritev;
}

/**
 * coalescedWritev is coalesceFrames's `_writev`: what is queued, up to maxCoalescedBytes, in one
 * write with the caller's own callback. One shared function, and no closure of ours in a write
 * that fits: with a closure chaining the batches (writeInBatches) on every write, each call's
 * objects outlived V8's young-generation collections (a 35 KB ReadFile under ghz: ~1.2 MB
 * promoted per scavenge, against ~0.35 MB so).
 */
function coalescedWritev(
  this: WritableInternals,
  chunks: WritevChunks,
  callback: (error?: Error | null) => void,
): void {
  let total = 0;
  for (const { chunk } of chunks) total += chunk.byteLength;
  if (total <= maxCoalescedBytes) {
    const batch =
      chunks.length === 1
        ? chunks[0]!.chunk
        : Buffer.concat(
            chunks.map((c) => c.chunk),
            total,
          );
    this._write(batch, "buffer", callback);
    return;
  }
  writeInBatches(this, chunks, callback);
}

/** writeInBatches writes `chunks` as consecutive batches of up to maxCoalescedBytes (a frame larger alone, uncopied). */
function writeInBatches(
  stream: WritableInternals,
  chunks: WritevChunks,
  callback: (error?: Error | null) => void,
): void {
  let at = 0;
  const next = (error?: Error | null): void => {
    if (error != null || at === chunks.length) {
      callback(error);
      return;
    }
    let end = at;
    let bytes = 0;
    while (end < chunks.length && (end === at || bytes + chunks[end]!.chunk.byteLength <= maxCoalescedBytes)) {
      bytes += chunks[end]!.chunk.byteLength;
      end++;
    }
    const batch =
      end - at === 1
        ? chunks[at]!.chunk
        : Buffer.concat(
            chunks.slice(at, end).map((c) => c.chunk),
            bytes,
          );
    at = end;
    stream._write(batch, "buffer", next);
  };
  next();
}

/** corked marks the streams corkUntilIdle has corked and not yet uncorked. */
const corked = new WeakSet<Writable>();

/**
 * corkUntilIdle holds a stream's writes until the handler making them waits for something (the
 * disk, a worker, the client), then hands them over together: messages made one after another
 * with no I/O between them (a small ReadFile's info, text and summary) leave in one write, with
 * the headers, instead of the first alone. The writes are released from process.nextTick, which
 * runs once the promise callbacks queued now have all run: no timer, no turn of the event loop
 * is waited for.
 */
export function corkUntilIdle(call: Writable): void {
  if (corked.has(call)) return;
  corked.add(call);
  call.cork();
  process.nextTick(uncork, call);
}

function uncork(call: Writable): void {
  corked.delete(call);
  call.uncork();
}
