import { connect as netConnect, isIP } from "node:net";
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from "node:tls";
import type { OutgoingHttpHeaders } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { H2Connection } from "./h2-connection.js";
import type { H2Stream } from "./h2-stream.js";
import { RequestHeaderEncoder } from "./request-header-encoder.js";

/** Http2ConnectorOptions configure an Http2Connector. */
export interface Http2ConnectorOptions {
  /** TLS options (ca, cert, key, servername, ...) for an https URL; ALPN is always "h2". */
  readonly tls?: ConnectionOptions;
  /** The receive window per stream: 8 MiB when unset. */
  readonly streamWindow?: number;
  /** The receive window of the connection: 32 MiB when unset. */
  readonly connectionWindow?: number;
  /** The largest response header or trailer block accepted: 64 KiB when unset. */
  readonly maxHeaderListSize?: number;
}

/**
 * Http2Connector opens the client's own HTTP/2 connection (H2Connection) to one server, lazily on
 * the first call, and a new one for the next call after the last one failed, was closed, or was
 * told to go away (GOAWAY). Calls start in the caller's turn even while the connection is being
 * made: their frames wait in the socket until it is.
 */
export class Http2Connector {
  readonly #host: string;
  readonly #port: number;
  readonly #secure: boolean;
  readonly #options: Http2ConnectorOptions;
  readonly #authority: string;
  readonly #headers: RequestHeaderEncoder;
  #conn: H2Connection | undefined;
  #socket: { connecting: boolean; secure?: boolean } | undefined;
  #closed = false;

  constructor(baseUrl: string | URL, options: Http2ConnectorOptions = {}) {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ConnectError(`unsupported URL scheme ${url.protocol} (use http: or https:)`, Code.InvalidArgument);
    }
    this.#secure = url.protocol === "https:";
    this.#host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    this.#port = Number(url.port || (this.#secure ? 443 : 80));
    this.#authority = url.host;
    this.#options = options;
    this.#headers = new RequestHeaderEncoder(this.#secure ? "https" : "http", this.#authority);
  }

  /**
   * open starts a POST call to `path` with `headers` and returns its stream. `headers` must not
   * change afterwards (the encoded block of the last headers object is reused).
   */
  open(path: string, headers: OutgoingHttpHeaders): H2Stream {
    if (this.#closed) {
      throw new ConnectError("the client was closed", Code.Unavailable);
    }
    const block = this.#headers.encode(path, headers);
    let conn = this.#conn;
    if (conn === undefined || !conn.usable) {
      conn = this.#conn = this.#connect();
    }
    return conn.open(block);
  }

  /** state is "idle" (no connection), "connecting", "open" or "closed" (after close() or abort()). */
  state(): "idle" | "connecting" | "open" | "closed" {
    if (this.#closed) return "closed";
    if (this.#conn === undefined) return "idle";
    return this.#socket?.connecting || this.#socket?.secure === false ? "connecting" : "open";
  }

  /** close lets calls under way finish and closes the connection then; later calls fail Unavailable. */
  close(): void {
    this.#closed = true;
    this.#conn?.close();
  }

  /** abort ends the connection and every call on it at once (Canceled). */
  abort(): void {
    this.#closed = true;
    this.#conn?.fail(new ConnectError("the client was closed", Code.Canceled));
  }

  #connect(): H2Connection {
    const options = this.#options;
    const state: { connecting: boolean; secure?: boolean } = { connecting: true };
    let socket;
    if (this.#secure) {
      const tls = options.tls ?? {};
      const servername = tls.servername ?? (isIP(this.#host) === 0 ? this.#host : undefined);
      const secureSocket: TLSSocket = tlsConnect({ ...tls, host: this.#host, port: this.#port, servername, ALPNProtocols: ["h2"] });
      state.secure = false;
      // A server that offers no "h2" may refuse the handshake with TLS's no_application_protocol
      // alert rather than complete it without ALPN: the same refusal, said the same way. (This
      // listener runs before the connection's own, which then finds the connection failed.)
      secureSocket.once("error", (err: Error & { code?: string }) => {
        // OpenSSL reports the alert as "write EPROTO ... tlsv1 alert no application protocol".
        if (err.code === "ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL" || /alert no application protocol/.test(err.message)) {
          conn.fail(new ConnectError(`the server at ${this.#authority} did not agree to HTTP/2 over TLS (ALPN: it refused "h2")`, Code.Unavailable, undefined, undefined, err));
        }
      });
      secureSocket.once("secureConnect", () => {
        state.secure = true;
        if (secureSocket.alpnProtocol !== "h2") {
          conn.fail(new ConnectError(`the server at ${this.#authority} did not agree to HTTP/2 over TLS (ALPN "${secureSocket.alpnProtocol || "none"}")`, Code.Unavailable));
        }
      });
      socket = secureSocket;
    } else {
      socket = netConnect({ host: this.#host, port: this.#port });
    }
    socket.once("connect", () => (state.connecting = false));
    const conn = new H2Connection(socket, {
      streamWindow: options.streamWindow ?? 8 * 1024 * 1024,
      connectionWindow: options.connectionWindow ?? 32 * 1024 * 1024,
      maxHeaderListSize: options.maxHeaderListSize ?? 64 * 1024,
      authority: this.#authority,
    });
    conn.onRetire = () => {
      if (this.#conn === conn) {
        this.#conn = undefined;
        this.#socket = undefined;
      }
    };
    this.#socket = state;
    return conn;
  }
}
