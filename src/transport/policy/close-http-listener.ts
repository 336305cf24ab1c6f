import type { Server } from "node:http";

/**
 * closeHttpListener drains an HTTP/1.1 face: it stops accepting connections, closes the idle
 * ones, and lets calls in flight finish for `graceMs`; then it aborts `shutdown` (which the
 * handlers' contexts follow, with `reason`) and closes every connection left. It resolves once
 * the server has closed.
 */
export function closeHttpListener(
  server: Server,
  shutdown: AbortController,
  graceMs: number,
  reason?: Error,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      shutdown.abort(reason);
      server.closeAllConnections();
    }, graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
