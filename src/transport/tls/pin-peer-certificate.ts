import type { DetailedPeerCertificate, PeerCertificate, TLSSocket } from "node:tls";

/**
 * pinPeerCertificate makes a server-side TLS connection refuse renegotiation and read its peer's
 * certificate once: from then on getPeerCertificate() (not `detailed`) returns the same frozen
 * object for as long as the connection lives. Listen with it for a TLS server's
 * 'secureConnection' event.
 *
 * Both listeners look at the client certificate on every call (on gRPC, grpc-js's getAuthContext
 * for the call's context and again for the auth interceptor; on HTTP, the auth gate and the
 * call's context values), and Node builds a new object from the X.509 certificate every time.
 * Measured under ghz with mTLS (bench/README.md), reading it once per connection took server CPU
 * per call to 0.58x for ListTools and 0.80x for StatFile.
 *
 * Only a renegotiation could show another certificate on the same connection. Node's HTTP/2
 * sessions refuse it already (RFC 9113 forbids it); this refuses it on the HTTP/1.1 listener's
 * connections too, where a client could otherwise renegotiate (Node allows three in ten minutes)
 * and present a different certificate mid-connection. A client that tries gets its connection
 * closed with ERR_TLS_RENEGOTIATION_DISABLED.
 */
export function pinPeerCertificate(socket: TLSSocket): void {
  // An attempt is then an 'error' on the socket, which the HTTP and HTTP/2 servers' own socket
  // error listeners (in place before this one runs) answer by destroying the connection.
  socket.disableRenegotiation();
  const read = socket.getPeerCertificate;
  let pinned: PeerCertificate | undefined;
  socket.getPeerCertificate = function getPeerCertificate(this: TLSSocket, detailed?: boolean): PeerCertificate | DetailedPeerCertificate {
    if (detailed === true) {
      return read.call(this, true);
    }
    return (pinned ??= frozen(read.call(this, false)));
  } as TLSSocket["getPeerCertificate"];
}

/** frozen freezes a certificate object and its name objects, so that no caller can change what the next one sees. */
function frozen(cert: PeerCertificate): PeerCertificate {
  if (cert === null || typeof cert !== "object") {
    return cert;
  }
  for (const name of [cert.subject, cert.issuer]) {
    if (name !== null && typeof name === "object") Object.freeze(name);
  }
  return Object.freeze(cert);
}
