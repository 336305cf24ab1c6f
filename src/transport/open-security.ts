import type { Logger } from "pino";
import { AuthFileError } from "../auth/auth-file.js";
import { Authenticator } from "../auth/authenticator.js";
import { TokenStore } from "../auth/token-store.js";
import { ConfigError } from "../config/config-error.js";
import type { Config } from "../config/config.js";
import { TlsFileError, TlsFiles } from "./tls/tls-files.js";

/** Security is what a server authenticates with: its TLS files, its auth file and the authenticator over them. */
export interface Security {
  readonly tls: TlsFiles | undefined;
  readonly tokens: TokenStore | undefined;
  readonly authenticator: Authenticator;
  close(): void;
}

/**
 * openSecurity loads the TLS files and the auth file named by the config, and starts watching
 * them for rotation and revocation. A missing or bad file is a ConfigError (one line, exit 2).
 */
export function openSecurity(config: Config, logger: Logger): Security {
  let tls: TlsFiles | undefined;
  let tokens: TokenStore | undefined;
  try {
    if (config.tls !== undefined) {
      tls = TlsFiles.open(config.tls, (message) => logger.error({ component: "tls" }, message));
      tls.onChange(() => logger.info({ component: "tls", cert: config.tls?.cert }, "TLS certificate reloaded"));
    }
    if (config.auth?.tokensFile !== undefined) {
      tokens = TokenStore.open(
        config.auth.tokensFile,
        config.roots.map((r) => r.path),
        {
          onReload: (summary) => logger.info({ component: "auth", ...summary }, "auth file reloaded"),
          onError: (message) => logger.error({ component: "auth" }, message),
        },
      );
    }
  } catch (err) {
    tls?.close();
    if (err instanceof TlsFileError || err instanceof AuthFileError) {
      throw new ConfigError(err.message);
    }
    throw err;
  }
  const authenticator = new Authenticator({ tokens, certificates: config.tls?.clientCa !== undefined });
  return {
    tls,
    tokens,
    authenticator,
    close: () => {
      tls?.close();
      tokens?.close();
    },
  };
}
