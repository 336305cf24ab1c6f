import type { PeerCertificate, TLSSocket } from "node:tls";
import { createContextKey, createContextValues, type ContextValues } from "@connectrpc/connect";

/**
 * peerIdentityKey is the HandlerContext value holding the identity of the client certificate the
 * TLS layer verified against client_ca; undefined without one (or when verification failed).
 */
export const peerIdentityKey = createContextKey<string | undefined>(undefined, {
  description: "toolhost client certificate identity",
});

/**
 * certificateIdentity names a verified client certificate: its first SAN URI (a SPIFFE id, say),
 * else its first SAN DNS name, else its subject CN.
 */
export function certificateIdentity(cert: PeerCertificate | undefined): string | undefined {
  if (cert === undefined || cert === null || Object.keys(cert).length === 0) {
    return undefined;
  }
  const names = (cert.subjectaltname ?? "").split(/,\s*/).filter((n) => n !== "");
  const uri = names.find((n) => n.startsWith("URI:"));
  const dns = names.find((n) => n.startsWith("DNS:"));
  const cn = cert.subject?.CN;
  return uri?.slice(4) ?? dns?.slice(4) ?? (Array.isArray(cn) ? cn[0] : cn) ?? undefined;
}

/** peerValues are the context values of a call on a TLS socket: the verified client identity, if any. */
export function peerValues(socket: unknown): ContextValues {
  const values = createContextValues();
  const tls = socket as Partial<TLSSocket> | undefined;
  if (tls !== undefined && tls.authorized === true && typeof tls.getPeerCertificate === "function") {
    values.set(peerIdentityKey, certificateIdentity(tls.getPeerCertificate()));
  }
  return values;
}
