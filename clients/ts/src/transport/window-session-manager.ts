import type {
  ClientHttp2Stream,
  ClientSessionOptions,
  ClientSessionRequestOptions,
  Http2Session,
  OutgoingHttpHeaders,
  SecureClientSessionOptions,
} from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { Http2SessionManager, type Http2SessionOptions } from "@connectrpc/connect-node";

/**
 * defaultStreamWindow is the HTTP/2 receive window per stream the client asks for: 8 MiB, so one
 * streamed read can reach ~80 MB/s over a 50 ms round trip (4 MiB measured 40 MB/s there).
 */
export const defaultStreamWindow = 8 * 1024 * 1024;
/** defaultConnectionWindow is the HTTP/2 receive window per connection: 32 MiB. */
export const defaultConnectionWindow = 32 * 1024 * 1024;

/**
 * KeepaliveOptions are connect-node's Http2SessionOptions: PINGs on a connection with open calls
 * every `pingIntervalMs` without received data (and on an idle one with `pingIdleConnection`), a
 * PING to verify a connection idle for longer than that before a call reuses it, a connection
 * dropped when a PING goes unanswered for `pingTimeoutMs`, and one closed after
 * `idleConnectionTimeoutMs` without calls.
 */
export type KeepaliveOptions = Http2SessionOptions;

/**
 * defaultKeepalive: a PING every 30 s while calls are open (gRPC's keepalive guidance: not under
 * 10 s), dead after 15 s without an answer; an idle connection is closed after 4 minutes, before
 * toolhost's own 5-minute idle limit (limits.idle_connection_timeout_ms) would close it under a
 * call just being sent.
 */
export const defaultKeepalive: Readonly<Required<KeepaliveOptions>> = {
  pingIntervalMs: 30_000,
  pingTimeoutMs: 15_000,
  pingIdleConnection: false,
  idleConnectionTimeoutMs: 240_000,
};

/** defaultConnectTimeoutMs bounds how long calls wait for a connection to be made: 10 s. */
export const defaultConnectTimeoutMs = 10_000;

/** SessionOptions configure a WideWindowSessionManager. */
export interface SessionOptions {
  /** node:http2 (and node:tls) options of every connection: CA, client certificate, servername... */
  readonly nodeOptions?: ClientSessionOptions | SecureClientSessionOptions;
  /** PINGs and idle timeout, over defaultKeepalive. */
  readonly keepalive?: KeepaliveOptions;
  /** How long calls wait for a connection before they fail with Unavailable; defaultConnectTimeoutMs when unset. */
  readonly connectTimeoutMs?: number;
  /** The receive windows asked for; defaultStreamWindow and defaultConnectionWindow when unset. */
  readonly streamWindowBytes?: number;
  readonly connectionWindowBytes?: number;
}

/**
 * WideWindowSessionManager is connect-node's Http2SessionManager (one HTTP/2 connection, opened on
 * the first call and again after a failure or a GOAWAY, with its keepalive PINGs, verification of
 * an idle connection and idle timeout) with large receive windows and a connect timeout. It has
 * the session manager's public shape (`authority`, `request`, `notifyResponseByteRead`), so
 * connect-node's createGrpcTransport takes it as its `sessionManager` too.
 *
 * Node's http2 client starts every stream and the connection with a 64 KiB window, which caps a
 * streamed read at 64 KiB per round trip; the stream window is a session setting, but the
 * connection window can only be raised on a live session (setLocalWindowSize), so each new
 * session is widened when its first stream is handed out. connect-node waits for a connection
 * as long as the OS lets a connection attempt run; here an attempt still unfinished after the
 * connect timeout is aborted through the manager's own abort(), which fails every call waiting
 * for it with Unavailable; the next call connects anew.
 */
export class WideWindowSessionManager {
  readonly authority: string;
  readonly #sessions: Http2SessionManager;
  readonly #connectionWindow: number;
  readonly #connectTimeoutMs: number;
  readonly #widened = new WeakSet<Http2Session>();
  #connectTimer: NodeJS.Timeout | undefined;

  constructor(url: string | URL, options: SessionOptions = {}) {
    const nodeOptions = options.nodeOptions ?? {};
    this.#sessions = new Http2SessionManager(
      url,
      { ...defaultKeepalive, ...options.keepalive },
      {
        ...nodeOptions,
        settings: { initialWindowSize: options.streamWindowBytes ?? defaultStreamWindow, ...nodeOptions.settings },
      },
    );
    this.authority = this.#sessions.authority;
    this.#connectionWindow = options.connectionWindowBytes ?? defaultConnectionWindow;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? defaultConnectTimeoutMs;
  }

  /** request opens a stream on the connection (made first if need be), as Http2SessionManager.request does. */
  async request(
    method: string,
    path: string,
    headers: OutgoingHttpHeaders,
    options: Omit<ClientSessionRequestOptions, "signal">,
  ): Promise<ClientHttp2Stream> {
    this.#guardConnect();
    let stream: ClientHttp2Stream;
    try {
      stream = await this.#sessions.request(method, path, headers, options);
    } finally {
      this.#settled();
    }
    const session = stream.session;
    if (session !== undefined && !this.#widened.has(session)) {
      this.#widened.add(session);
      session.setLocalWindowSize(this.#connectionWindow);
    }
    return stream;
  }

  /** notifyResponseByteRead tells the keepalive that a stream received data (the connection is alive). */
  notifyResponseByteRead(stream: ClientHttp2Stream): void {
    this.#sessions.notifyResponseByteRead(stream);
  }

  /** state is the connection's state, as Http2SessionManager reports it. */
  state(): ReturnType<Http2SessionManager["state"]> {
    return this.#sessions.state();
  }

  /** close closes the connection, ending the calls still on it with Canceled; a later call connects anew. */
  close(): void {
    clearTimeout(this.#connectTimer);
    this.#connectTimer = undefined;
    this.#sessions.abort();
  }

  /** guardConnect starts the connect timer when a call is about to wait for a connection (none is running). */
  #guardConnect(): void {
    if (this.#connectTimer !== undefined || !Number.isFinite(this.#connectTimeoutMs) || this.#connectTimeoutMs <= 0) {
      return;
    }
    const state = this.#sessions.state();
    if (state === "open" || state === "idle") {
      return;
    }
    const expire = () => {
      const now = this.#sessions.state();
      if (now === "verifying") {
        // A PING bounded by pingTimeoutMs; if it fails a new connection is made: time that too.
        this.#connectTimer = setTimeout(expire, this.#connectTimeoutMs).unref();
        return;
      }
      this.#connectTimer = undefined;
      if (now === "connecting") {
        this.#sessions.abort(
          new ConnectError(
            `no connection to ${this.authority} within ${this.#connectTimeoutMs} ms (connectTimeoutMs)`,
            Code.Unavailable,
          ),
        );
      }
    };
    this.#connectTimer = setTimeout(expire, this.#connectTimeoutMs).unref();
  }

  /** settled stops the connect timer once a call's wait for the connection is over and the connection is up (or gone). */
  #settled(): void {
    const state = this.#sessions.state();
    if (state !== "connecting" && state !== "verifying") {
      clearTimeout(this.#connectTimer);
      this.#connectTimer = undefined;
    }
  }
}
