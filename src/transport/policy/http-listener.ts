import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { splitHostPort } from "../split-host-port.js";
import { httpsServer } from "../tls/https-server.js";
import type { TlsFailure } from "../tls/tls-failure-log.js";
import type { TlsFiles } from "../tls/tls-files.js";
import { receiveTimeouts } from "./receive-timeouts.js";

/** HttpListenerOptions are what an HTTP/1.1 face listens with. */
export interface HttpListenerOptions {
  /** host:port; port 0 takes a free one. */
  readonly listen: string;
  readonly limits: { readonly receiveMessageTimeoutMs: number };
  /** The listeners' TLS; undefined serves plaintext. */
  readonly tls?: TlsFiles | undefined;
  /** The face's name in TLS failure lines. */
  readonly name: TlsFailure["listener"];
  readonly onTlsFailure?: ((failure: TlsFailure) => void) | undefined;
}

/** HttpListener is a listening HTTP/1.1 face. */
export interface HttpListener {
  /** host:port as bound, an IPv6 host in brackets. */
  readonly address: string;
  /** close drains the listener (see openHttpListener). */
  close(shutdown: AbortController, graceMs: number, reason?: Error): Promise<void>;
}

/**
 * openHttpListener serves `serve` on node:http (or node:https with `tls`) under the receive
 * timeouts (receive-timeouts.ts), with `Expect: 100-continue` requests routed through `serve`
 * too ('checkContinue'), so the face's auth gate sends 100 only once it admits one
 * (request-auth-gate.ts). Its close stops accepting connections, closes the idle ones and lets
 * calls in flight finish for `graceMs`; then it aborts `shutdown` (which the handlers' contexts
 * follow) and closes every connection left.
 */
export async function openHttpListener(
  options: HttpListenerOptions,
  serve: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<HttpListener> {
  const [host, port] = splitHostPort(options.listen);
  const timeouts = receiveTimeouts(options.limits);
  const server: Server =
    options.tls === undefined
      ? createServer(timeouts, serve)
      : httpsServer(options.tls, timeouts, serve, options.name, options.onTlsFailure);
  server.on("checkContinue", serve);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    address: `${host.includes(":") ? `[${host}]` : host}:${bound}`,
    close: (shutdown, graceMs, reason) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          shutdown.abort(reason);
          server.closeAllConnections();
        }, graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
