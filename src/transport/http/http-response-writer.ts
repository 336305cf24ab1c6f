import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { Code, ConnectError } from "@connectrpc/connect";
import type { UniversalServerResponse } from "@connectrpc/connect/protocol";

/** endOfStreamBytes is how much a released response may still write without waiting: its end of stream. */
const endOfStreamBytes = 64 * 1024;

const releases = new WeakMap<ServerResponse, AbortController>();

/** releaseOf is the controller releaseResponse aborts for `res`. */
function releaseOf(res: ServerResponse): AbortController {
  let release = releases.get(res);
  if (release === undefined) {
    release = new AbortController();
    releases.set(res, release);
  }
  return release;
}

/**
 * releaseResponse lets a streamed response whose handler ended the call (WatchSkills that fell
 * behind, a deadline) write its last messages and end at once, as the gRPC listener ends such a
 * call, instead of waiting for 'drain' from a client that stopped reading: the writer stops
 * waiting, and its next writes, up to endOfStreamBytes, go out without waiting. Node holds them
 * behind the unread bytes, so the client still gets every message sent before the error, then
 * the error.
 */
export function releaseResponse(res: ServerResponse): void {
  releaseOf(res).abort();
}

/**
 * writeUniversalResponse writes connect's answer to a Node response: the head after the first
 * body chunk (so the handler can still set headers), each chunk waiting for 'drain' when Node's
 * buffer is full, then the trailers and the end. It is toolhost's own so that the wait can be let
 * go (releaseResponse), which connect-node's universalResponseToNodeResponse cannot.
 * A failed write is reported to the body's producer (the handler), as connect-node does.
 */
export async function writeUniversalResponse(answer: UniversalServerResponse, res: ServerResponse): Promise<void> {
  const released = releaseOf(res).signal;
  const it = answer.body?.[Symbol.asyncIterator]();
  try {
    if (it !== undefined) {
      let chunk = await it.next();
      if (!res.headersSent) res.writeHead(answer.status, nodeHeaders(answer.header));
      let room = endOfStreamBytes;
      for (; chunk.done !== true; chunk = await it.next()) {
        if (res.destroyed || res.writableEnded) {
          const gone = new ConnectError("the client closed the connection", Code.Aborted);
          await it.throw?.(gone).catch(() => undefined);
          throw gone;
        }
        const flushed = res.write(chunk.value);
        if (released.aborted) {
          room -= chunk.value.byteLength;
          if (room >= 0) continue;
        }
        if (!flushed) await drained(res, released.aborted ? undefined : released);
      }
    }
    if (!res.headersSent) res.writeHead(answer.status, nodeHeaders(answer.header));
    if (answer.trailer !== undefined) res.addTrailers(nodeHeaders(answer.trailer));
    res.end();
  } finally {
    await it?.return?.().catch(() => undefined);
  }
}

/** drained waits until `res` has room again, is closed, or `released` is raised. */
function drained(res: ServerResponse, released: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      released?.removeEventListener("abort", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
    released?.addEventListener("abort", done, { once: true });
  });
}

/** nodeHeaders is a Fetch Headers object as Node's outgoing headers. */
function nodeHeaders(headers: Headers | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  headers?.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
