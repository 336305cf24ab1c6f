import type { ClientHttp2Session, ClientHttp2Stream, Http2Session, ClientSessionOptions, OutgoingHttpHeaders, SecureClientSessionOptions } from "node:http2";
import { Http2SessionManager } from "@connectrpc/connect-node";

/**
 * defaultStreamWindow is the HTTP/2 receive window per stream the client asks for: 8 MiB, so one
 * streamed read can reach ~80 MB/s over a 50 ms round trip (4 MiB measured 40 MB/s there).
 */
export const defaultStreamWindow = 8 * 1024 * 1024;
/** defaultConnectionWindow is the HTTP/2 receive window per connection: 32 MiB. */
export const defaultConnectionWindow = 32 * 1024 * 1024;

/** ReadyState is the part of connect-node's "ready" connection state that requestNow uses. */
interface ReadyState {
  readonly t: "ready";
  readonly conn: ClientHttp2Session;
  requiresVerify(): boolean;
  isShuttingDown(): boolean;
  registerRequest(stream: ClientHttp2Stream): void;
}

/**
 * WideWindowSessionManager is connect-node's Http2SessionManager with large HTTP/2 receive
 * windows, so streamed reads over a high-latency link are not held to 64 KiB per round trip, and
 * a synchronous way to open a stream on a connection that is ready (requestNow).
 *
 * Node's http2 client starts every stream and the connection with a 64 KiB window; the stream
 * window is a session setting, but the connection window can only be raised on a live session
 * (setLocalWindowSize), which connect-node offers no hook for, so each new session is widened on
 * its first request.
 */
export class WideWindowSessionManager extends Http2SessionManager {
  readonly #widened = new WeakSet<object>();

  constructor(
    url: string | URL,
    nodeOptions: ClientSessionOptions | SecureClientSessionOptions,
    private readonly connectionWindow = defaultConnectionWindow,
  ) {
    super(url, {}, { ...nodeOptions, settings: { initialWindowSize: defaultStreamWindow, ...nodeOptions.settings } });
  }

  override async request(...args: Parameters<Http2SessionManager["request"]>): Promise<ClientHttp2Stream> {
    const stream = await super.request(...args);
    this.#widen(stream.session);
    return stream;
  }

  /**
   * requestNow opens a POST stream at once when the connection is open and needs no check (what
   * request() would do, less its three promise hops), and returns undefined otherwise (no
   * connection yet, one being verified or shutting down, or a subclass that overrides request()
   * and so must see every request): then the caller uses request().
   *
   * It reads connect-node's connection state, which that package does not export; a version whose
   * state looks different makes requestNow return undefined, never misbehave
   * (test/clients/ts-client-transport.test.ts checks that it does open streams with the version
   * in use).
   */
  requestNow(path: string, headers: OutgoingHttpHeaders): ClientHttp2Stream | undefined {
    if (this.request !== WideWindowSessionManager.prototype.request) {
      return undefined;
    }
    const s = (this as unknown as { s?: Partial<ReadyState> }).s;
    if (s?.t !== "ready" || typeof s.registerRequest !== "function" || typeof s.requiresVerify !== "function" || typeof s.isShuttingDown !== "function") {
      return undefined;
    }
    const conn = s.conn;
    if (conn === undefined || conn.closed || conn.destroyed || s.isShuttingDown() || s.requiresVerify()) {
      return undefined;
    }
    const stream = conn.request({ ...headers, ":method": "POST", ":path": path });
    s.registerRequest(stream);
    this.#widen(conn);
    return stream;
  }

  #widen(session: Http2Session | undefined): void {
    if (session && !this.#widened.has(session)) {
      this.#widened.add(session);
      session.setLocalWindowSize(this.connectionWindow);
    }
  }
}
