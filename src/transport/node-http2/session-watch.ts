import type { ServerHttp2Session } from "node:http2";

/** SessionTimings are how long a connection may stay without streams, and how it is pinged. */
export interface SessionTimings {
  /** A connection with no open stream for this long is closed (GOAWAY), in ms. */
  readonly idleMs: number;
  /** How often the server pings a connection, in ms. */
  readonly pingEveryMs: number;
  /** How long a ping may go unanswered before the connection is destroyed, in ms. */
  readonly pingTimeoutMs: number;
}

/**
 * watchSession gives one HTTP/2 connection of the node:http2 host what grpc-js's
 * grpc.max_connection_idle_ms and grpc.keepalive_* give its connections: closed gracefully once it
 * has had no open stream for `idleMs`, and pinged every `pingEveryMs`, destroyed when a ping is not
 * answered within `pingTimeoutMs` (a peer gone without a FIN). Timers are unref'd and end with
 * the session.
 */
export function watchSession(session: ServerHttp2Session, timings: SessionTimings): void {
  let open = 0;
  let idle: NodeJS.Timeout | undefined;
  const startIdle = () => {
    idle = setTimeout(() => {
      if (!session.closed && !session.destroyed) session.close();
    }, timings.idleMs);
    idle.unref();
  };
  session.on("stream", (stream) => {
    open += 1;
    clearTimeout(idle);
    stream.once("close", () => {
      open -= 1;
      if (open === 0) startIdle();
    });
  });
  startIdle();
  let unanswered: NodeJS.Timeout | undefined;
  const ping = setInterval(() => {
    if (session.closed || session.destroyed || unanswered !== undefined) return;
    unanswered = setTimeout(() => session.destroy(), timings.pingTimeoutMs);
    unanswered.unref();
    const sent = session.ping(() => {
      clearTimeout(unanswered);
      unanswered = undefined;
    });
    if (!sent) {
      clearTimeout(unanswered);
      unanswered = undefined;
    }
  }, timings.pingEveryMs);
  ping.unref();
  session.once("close", () => {
    clearTimeout(idle);
    clearTimeout(unanswered);
    clearInterval(ping);
  });
}
