import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * unreadBodyDrainBytes bounds what is read and thrown away of a request body that its response
 * did not wait for; past it the connection is closed.
 */
export const unreadBodyDrainBytes = 64 * 1024 * 1024;

/**
 * drainUnreadBodies keeps an HTTP/1.1 connection usable, and its answer readable, when a response
 * ends before its request body has arrived: a unary request over the receive limit (refused from
 * its content-length, or once it grows past the limit), one refused by the receive budget, a
 * streamed call that failed early. (The authentication gate still closes the connection of a
 * refused caller: an unauthenticated client gets no kept connection.) The rest of such a body is read
 * and discarded, up to `capBytes`, and the connection then serves the client's next request.
 *
 * Without it, the connection was closed after the answer (`connection: close`) while the client
 * was still sending: the kernel resets a socket closed with unread bytes, and the reset can reach
 * the client before it has read the answer, which it then reports as INTERNAL (write EPIPE) in
 * place of RESOURCE_EXHAUSTED. Kept open, it stalled: connect-node ends a body it stops reading by
 * returning from the request's async iterator, which destroys the request, and Node then stops
 * reading the socket, so the client's next call on it timed out (read ECONNRESET). Node's own
 * drain (IncomingMessage#_dump) only runs for a request nobody began to read.
 *
 * So the request's iterator here leaves the request alive when left early, and a request not
 * complete when its response finishes is resumed with no reader: Node's parser then discards its
 * body and reads the next request. The time it may take is bounded by the listener's
 * requestTimeout. Hand-written: neither Node nor connect-node has an option for it.
 */
export function drainUnreadBodies<Rest extends unknown[]>(
  handler: (req: IncomingMessage, res: ServerResponse, ...rest: Rest) => void,
  capBytes: number = unreadBodyDrainBytes,
): (req: IncomingMessage, res: ServerResponse, ...rest: Rest) => void {
  return (req, res, ...rest) => {
    // Before Node's own finish listener: for a body nobody began to read it would call req._dump(),
    // after which the parser discards the body without emitting it, so no cap could be counted.
    res.prependOnceListener("finish", () => {
      if (!req.complete && !req.destroyed) {
        drain(req, capBytes);
      }
    });
    handler(req, res, ...rest);
  };
}

/** drain reads the rest of `req`'s body into nothing, closing its connection past `capBytes`. */
function drain(req: IncomingMessage, capBytes: number): void {
  let drained = 0;
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > capBytes) {
      req.socket.destroy();
    }
  });
  req.resume();
}
