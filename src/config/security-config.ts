import { resolve } from "node:path";
import { ConfigError } from "./config-error.js";
import type { ConfigLayer } from "./config-file.js";
import type { AuthConfig, TlsConfig } from "./config.js";
import type { ServeFlags } from "./serve-flags.js";

/**
 * securityConfig merges the TLS and auth settings of the config file and the flags (flags win,
 * file by file) and checks they are whole: a certificate needs its key, a client CA needs TLS.
 */
export function securityConfig(
  file: ConfigLayer,
  flags: ServeFlags,
  cwd: string,
): { tls: TlsConfig | undefined; auth: AuthConfig | undefined } {
  const abs = (p: string | undefined) => (p === undefined ? undefined : resolve(cwd, p));
  const cert = abs(flags.tlsCert) ?? file.tls?.cert;
  const key = abs(flags.tlsKey) ?? file.tls?.key;
  const clientCa = abs(flags.tlsClientCa) ?? file.tls?.clientCa;
  const requireClientCert = file.tls?.requireClientCert ?? false;
  if ((cert === undefined) !== (key === undefined)) {
    throw new ConfigError(
      cert === undefined
        ? "a TLS key was given without a certificate; add --tls-cert (tls.cert)"
        : "a TLS certificate was given without its key; add --tls-key (tls.key)",
    );
  }
  if (cert === undefined && (clientCa !== undefined || requireClientCert)) {
    throw new ConfigError(
      "client certificates (tls.client_ca, require_client_cert) need TLS; add --tls-cert and --tls-key",
    );
  }
  if (requireClientCert && clientCa === undefined) {
    throw new ConfigError(
      "tls.require_client_cert needs tls.client_ca, the CA client certificates are checked against",
    );
  }
  const tls =
    cert === undefined || key === undefined ? undefined : Object.freeze({ cert, key, clientCa, requireClientCert });
  const tokensFile = abs(flags.tokensFile) ?? file.tokensFile;
  if (clientCa !== undefined && tokensFile === undefined) {
    throw new ConfigError(
      "client certificates (tls.client_ca) map to scopes in the tokens file; add --tokens-file (auth.tokens_file) with a certificates: entry per identity",
    );
  }
  const auth = tokensFile === undefined ? undefined : Object.freeze({ tokensFile });
  return { tls, auth };
}

/**
 * listenerIsGuarded tells whether a listener may face the network: it needs TLS and a way to
 * authenticate callers (bearer tokens or client certificates).
 */
export function listenerIsGuarded(tls: TlsConfig | undefined, auth: AuthConfig | undefined): boolean {
  return tls !== undefined && (auth?.tokensFile !== undefined || tls.clientCa !== undefined);
}
