import type { ServerOptions } from "node:http";

/**
 * receiveTimeouts are the node:http server options that hold an HTTP/1.1 face to
 * `limits.receive_message_timeout_ms`, as the gRPC listeners hold each stream: a request (a unary
 * one in full, or a streamed one's body) must arrive within it, its headers within the same or a
 * minute, whichever is less. Node checks every connectionsCheckingInterval (a quarter of the
 * timeout, 50 ms to 30 s).
 */
export function receiveTimeouts(limits: { readonly receiveMessageTimeoutMs: number }): ServerOptions {
  const timeoutMs = limits.receiveMessageTimeoutMs;
  return {
    requestTimeout: timeoutMs,
    headersTimeout: Math.min(60_000, timeoutMs),
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(timeoutMs / 4))),
  };
}
