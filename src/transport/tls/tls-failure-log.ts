import type { Logger } from "pino";

/** At most this many failed handshakes are logged one by one per window; the rest are counted. */
const linesPerWindow = 20;
const windowMs = 10_000;

/** TlsFailure is one failed TLS handshake: the listener, the peer and the error's code. */
export interface TlsFailure {
  readonly listener: "grpc" | "http" | "mcp";
  readonly peer: string;
  readonly code: string;
}

/**
 * tlsFailureLog logs failed TLS handshakes (a client without a valid certificate, a plaintext
 * client on a TLS port, a protocol mismatch) as warnings, so an operator can tell why a client
 * cannot connect. A flood of them cannot flood the log: past linesPerWindow in a window, the
 * rest of that window's failures are one line with their count.
 */
export function tlsFailureLog(
  logger: Pick<Logger, "warn">,
  now: () => number = Date.now,
): (failure: TlsFailure) => void {
  let windowStart = 0;
  let logged = 0;
  let suppressed = 0;
  return (failure) => {
    const at = now();
    if (at - windowStart >= windowMs) {
      if (suppressed > 0)
        logger.warn({ suppressed, window_ms: windowMs }, "tls handshakes failed (not logged one by one)");
      windowStart = at;
      logged = 0;
      suppressed = 0;
    }
    if (logged < linesPerWindow) {
      logged++;
      logger.warn({ listener: failure.listener, peer: failure.peer, code: failure.code }, "tls handshake failed");
    } else {
      suppressed++;
    }
  };
}

/** peerOf names a socket's remote end as host:port. */
export function peerOf(socket: {
  remoteAddress?: string | undefined;
  remotePort?: number | undefined;
  remoteFamily?: string | undefined;
}): string {
  if (socket.remoteAddress === undefined) return "unknown";
  return socket.remoteFamily === "IPv6"
    ? `[${socket.remoteAddress}]:${socket.remotePort}`
    : `${socket.remoteAddress}:${socket.remotePort}`;
}
