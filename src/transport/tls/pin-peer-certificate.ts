import type { DetailedPeerCertificate, PeerCertificate, TLSSocket } from "node:tls";

/**
 * pinPeerCertificate holds a server-side TLS connection to the certificate it was opened with:
 * it refuses renegotiation (refuseRenegotiation, the security half), then reads the certificate
 * once (readPeerCertificateOnce, the speed half). Listen with it for a TLS server's
 * 'secureConnection' event; both listeners do.
 */
export function pinPeerCertificate(socket: TLSSocket): void {
  refuseRenegotiation(socket);
  readPeerCertificateOnce(socket);
}

/**
 * refuseRenegotiation makes a client's attempt to renegotiate TLS on `socket` an error that closes
 * the connection (the HTTP/1.1 server answers 400 first).
 *
 * Without it the HTTP/1.1 listener let a client renegotiate TLS 1.2 with another certificate, and
 * served it as that certificate's identity on the same connection, even one from a CA it does not
 * trust: Node keeps `authorized` from the first handshake and only sets `authorizationError`.
 * test/transport/renegotiation-identity.test.ts shows it. Node's HTTP/2 sessions refuse
 * renegotiation themselves (RFC 9113 forbids it). Keep this even if readPeerCertificateOnce goes.
 */
export function refuseRenegotiation(socket: TLSSocket): void {
  // The attempt is an 'error' on the socket, which the HTTP and HTTP/2 servers' own socket error
  // listeners (in place before 'secureConnection' listeners run) answer by destroying it.
  socket.disableRenegotiation();
}

/**
 * readPeerCertificateOnce makes `socket.getPeerCertificate()` (not `detailed`) read the peer's
 * certificate once and return that same object, frozen, for as long as the connection lives.
 * Only safe on a connection that refuses renegotiation (refuseRenegotiation).
 *
 * Both listeners look at the client certificate on every call (on gRPC, grpc-js's getAuthContext
 * for the call's context and again for the auth interceptor; on HTTP, the auth gate and the
 * call's context values), and Node builds a new object from the X.509 certificate each time.
 * Measured with ghz over mTLS (bench/README.md): server CPU per call 0.58x for ListTools and 0.80x
 * for StatFile when read once.
 */
export function readPeerCertificateOnce(socket: TLSSocket): void {
  const read = socket.getPeerCertificate;
  let pinned: PeerCertificate | undefined;
  socket.getPeerCertificate = function getPeerCertificate(
    this: TLSSocket,
    detailed?: boolean,
  ): PeerCertificate | DetailedPeerCertificate {
    if (detailed === true) {
      return read.call(this, true);
    }
    return (pinned ??= deepFrozen(read.call(this, false)));
  } as TLSSocket["getPeerCertificate"];
}

/**
 * deepFrozen freezes a certificate object with every object and array in it (subject and issuer
 * names, multi-valued fields, ext_key_usage, infoAccess), so that no caller can change what the
 * next one on the connection sees. Only `raw`, the DER as a Buffer, stays writable (a Buffer's
 * bytes cannot be frozen); nothing in toolhost or grpc-js writes to it.
 */
function deepFrozen<T>(value: T): T {
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value) || Object.isFrozen(value)) {
    return value;
  }
  for (const field of Object.values(value)) {
    deepFrozen(field);
  }
  return Object.freeze(value);
}
