import type { Http2SecureServer, Http2Server } from "node:http2";

/** HostGuard is one guard the node:http2 host installs as a listener on its server. */
interface HostGuard {
  /** The server event it listens to. */
  readonly event: "stream" | "session" | "secureConnection" | "tlsClientError";
  /** Exactly one listener (the stream dispatch: a second would answer each stream twice), or at least one. */
  readonly exactlyOne: boolean;
  /** What is lost without it, for the start-up refusal. */
  readonly keeps: string;
  readonly tlsOnly: boolean;
}

const guards: readonly HostGuard[] = [
  {
    event: "stream",
    exactlyOne: true,
    keeps: "stream limits, receive bounds, head checks and authentication",
    tlsOnly: false,
  },
  {
    event: "session",
    exactlyOne: false,
    keeps: "connection windows, idle timeout and keepalive pings",
    tlsOnly: false,
  },
  { event: "secureConnection", exactlyOne: false, keeps: "client-certificate pinning", tlsOnly: true },
  { event: "tlsClientError", exactlyOne: false, keeps: "the log line of a failed TLS handshake", tlsOnly: true },
];

/**
 * guardNotInForce is the first guard the host's server lacks, described as what it keeps, or
 * undefined when every one is in place: each is a listener on node:http2's public events, checked
 * through the public listenerCount before the port is bound, so a listener lost (a refactor, a
 * library that replaces the server's handlers) stops start-up instead of serving without it.
 */
export function guardNotInForce(server: Http2Server | Http2SecureServer, tls: boolean): string | undefined {
  for (const guard of guards) {
    if (guard.tlsOnly && !tls) continue;
    const count = server.listenerCount(guard.event);
    if (guard.exactlyOne ? count !== 1 : count < 1) return `${guard.keeps} ('${guard.event}' listener)`;
  }
  return undefined;
}
