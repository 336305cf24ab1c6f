import type { IncomingMessage, Server, ServerOptions, ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Socket } from "node:net";
import { pinPeerCertificate } from "./pin-peer-certificate.js";
import { peerOf, type TlsFailure } from "./tls-failure-log.js";
import type { TlsFiles } from "./tls-files.js";

/**
 * httpsServer is the TLS form of an HTTP/1.1 listener (the Connect listener, the MCP listener):
 * client certificates are requested when a client CA is set (and required when configured so),
 * each connection's certificate is read once and renegotiation refused
 * (pin-peer-certificate.ts), failed handshakes are reported as `listener`'s, and a rotated
 * certificate replaces the secure context of new connections.
 */
export function httpsServer(
  tls: TlsFiles,
  options: ServerOptions,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  listener: TlsFailure["listener"],
  onTlsFailure?: (failure: TlsFailure) => void,
): Server {
  const server = createHttpsServer(
    {
      ...options,
      ...tls.contextOptions,
      requestCert: tls.names.clientCa !== undefined,
      rejectUnauthorized: tls.names.requireClientCert,
    },
    handler,
  );
  server.on("secureConnection", pinPeerCertificate);
  server.on("tlsClientError", (err: NodeJS.ErrnoException, socket: Socket) =>
    onTlsFailure?.({ listener, peer: peerOf(socket), code: err.code ?? "unknown" }),
  );
  const stop = tls.onChange(() => server.setSecureContext(tls.contextOptions));
  server.once("close", stop);
  return server as unknown as Server;
}
