import { experimental, type ServerCredentials } from "@grpc/grpc-js";
import type { TlsFiles } from "./tls-files.js";

type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

/**
 * grpcServerCredentials builds grpc-js server credentials from TlsFiles through grpc-js's
 * certificate-provider API, so a rotated certificate reaches the listener without a restart.
 * With a client CA, client certificates are requested and verified; `requireClientCert` makes
 * the handshake fail without one.
 */
export function grpcServerCredentials(files: TlsFiles): ServerCredentials {
  const identity = new Set<IdentityListener>();
  const ca = new Set<CaListener>();
  files.onChange((material) => {
    for (const listener of identity) listener({ certificate: material.cert, privateKey: material.key });
    if (material.ca !== undefined) for (const listener of ca) listener({ caCertificate: material.ca });
  });
  const provider: experimental.CertificateProvider = {
    // Listeners are told on the next tick, as grpc-js's own providers do: the credentials add
    // their watcher only after registering with the provider.
    addIdentityCertificateListener(listener) {
      identity.add(listener);
      process.nextTick(() => listener({ certificate: files.material.cert, privateKey: files.material.key }));
    },
    removeIdentityCertificateListener(listener) {
      identity.delete(listener);
    },
    addCaCertificateListener(listener) {
      ca.add(listener);
      const caPem = files.material.ca;
      if (caPem !== undefined) process.nextTick(() => listener({ caCertificate: caPem }));
    },
    removeCaCertificateListener(listener) {
      ca.delete(listener);
    },
  };
  // grpc-js names this function's parameters the other way round: the first provider gives the
  // server's identity, the second the CA that client certificates are checked against.
  return experimental.createCertificateProviderServerCredentials(
    provider,
    files.names.clientCa === undefined ? null : provider,
    files.names.requireClientCert,
  );
}
