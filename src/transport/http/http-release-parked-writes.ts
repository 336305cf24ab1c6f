import type { ServerResponse } from "node:http";

/** endOfStreamBytes is how much a released response may still write without waiting: its end of stream. */
const endOfStreamBytes = 64 * 1024;

/**
 * releaseParkedWrites lets a streamed response whose handler ended the call (WatchSkills that
 * fell behind, a deadline) write its last messages and end at once, as the gRPC listener ends
 * such a call, instead of staying open for as long as its client reads nothing.
 *
 * connect-node waits for 'drain' after any write that fills the response's buffer, and nothing
 * else lets that wait go; a client that stopped reading never drains it, so the handler's error
 * was never written and the response never ended. Here the wait is let go ('drain'), and the
 * next writes, up to endOfStreamBytes (the end of the stream is one small message), report the
 * buffer as having room; Node holds them behind the unread bytes, so the client still gets every
 * message sent before the error, then the error. Hand-written: connect-node has no hook for it.
 */
export function releaseParkedWrites(res: ServerResponse): void {
  if (res.writableEnded || res.destroyed) {
    return;
  }
  let room = endOfStreamBytes;
  const write = res.write as (...args: unknown[]) => boolean;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]): boolean {
    const flushed = write.call(this, chunk, ...rest);
    room -= typeof chunk === "string" ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength;
    return flushed || room >= 0;
  } as ServerResponse["write"];
  res.emit("drain");
}
