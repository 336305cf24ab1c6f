import { parseArgs } from "node:util";
import { ConfigError } from "./config-error.js";

/** ServeFlags are the command-line flags of `toolhost serve`, before merging. */
export interface ServeFlags {
  readonly config?: string;
  readonly listen?: string;
  readonly httpListen?: string;
  readonly metricsListen?: string;
  readonly mcpListen?: string;
  readonly roots: readonly string[];
  readonly skills: readonly string[];
  readonly readOnly?: boolean;
  readonly insecure?: boolean;
  readonly allowHardLinks?: boolean;
  readonly maxTextBytes?: string;
  readonly chunkSize?: string;
  readonly logLevel?: string;
  readonly historyDir?: string;
  readonly noHistory?: boolean;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly tlsClientCa?: string;
  readonly tokensFile?: string;
  readonly help?: boolean;
}

/** serveUsage is the help text of `toolhost serve`, kept beside the flag table it describes. */
export const serveUsage = `Usage: toolhost serve [flags]

Flags (each overrides the config file and environment):
  --config FILE          YAML config file (env TOOLHOST_CONFIG)
  --listen HOST:PORT     gRPC listener (default 127.0.0.1:50051; env TOOLHOST_LISTEN)
  --http-listen HOST:PORT  also serve Connect, gRPC-Web and JSON over HTTP/1.1 (default off)
  --metrics-listen HOST:PORT  serve Prometheus metrics at GET /metrics (default off)
  --mcp-listen HOST:PORT  also serve the tools over MCP Streamable HTTP at /mcp (default off)
  --root DIR             allowed root, repeatable; relative paths resolve against the first
                         (default: the current directory)
  --skills [NS=]DIR      skill root, repeatable; NS qualifies bare skill names
                         (default: the bundled example skills, namespace "examples")
  --read-only            refuse every write, edit, upload and delete
  --allow-hard-links     read files with more than one hard link (refused by default: a hard
                         link can lead outside the roots; env TOOLHOST_ALLOW_HARD_LINKS)
  --tls-cert FILE        serve TLS with this PEM certificate (chain); re-read on change
  --tls-key FILE         the certificate's PEM private key
  --tls-client-ca FILE   verify client certificates against this CA (mTLS); identities map
                         to scopes in the tokens file
  --tokens-file FILE     auth file of hashed bearer tokens and certificate identities with
                         their scopes; reloaded on change (see toolhost token create)
  --insecure             allow a non-loopback listener without TLS or authentication
  --max-text-bytes N     largest text ReadFile returns (default 10485760)
  --chunk-size N         default read chunk size in bytes (default 1048576)
  --log-level LEVEL      trace, debug, info, warn, error, fatal or silent (default info;
                         env TOOLHOST_LOG_LEVEL)
  --history-dir DIR      folder of the change history, outside every root
                         (default ~/.local/state/toolhost/history; env TOOLHOST_STATE_DIR)
  --no-history           record no change history (ListFileHistory, RestoreFile, UndoLastChange
                         are then refused with HISTORY_DISABLED)
  -h, --help             this text`;

/**
 * parseServeFlags parses the flags of `toolhost serve` strictly: an unknown flag or a missing
 * value is a ConfigError naming it.
 */
export function parseServeFlags(argv: readonly string[]): ServeFlags {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        config: { type: "string" },
        listen: { type: "string" },
        "http-listen": { type: "string" },
        "metrics-listen": { type: "string" },
        "mcp-listen": { type: "string" },
        root: { type: "string", multiple: true },
        skills: { type: "string", multiple: true },
        "read-only": { type: "boolean" },
        insecure: { type: "boolean" },
        "allow-hard-links": { type: "boolean" },
        "max-text-bytes": { type: "string" },
        "chunk-size": { type: "string" },
        "log-level": { type: "string" },
        "history-dir": { type: "string" },
        "no-history": { type: "boolean" },
        "tls-cert": { type: "string" },
        "tls-key": { type: "string" },
        "tls-client-ca": { type: "string" },
        "tokens-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (positionals.length > 0) {
      throw new ConfigError(
        `unexpected argument "${positionals[0]}"; roots are given with --root DIR (see toolhost serve --help)`,
      );
    }
    return {
      config: values.config,
      listen: values.listen,
      httpListen: values["http-listen"],
      metricsListen: values["metrics-listen"],
      mcpListen: values["mcp-listen"],
      roots: values.root ?? [],
      skills: values.skills ?? [],
      readOnly: values["read-only"],
      insecure: values.insecure,
      allowHardLinks: values["allow-hard-links"],
      maxTextBytes: values["max-text-bytes"],
      chunkSize: values["chunk-size"],
      logLevel: values["log-level"],
      historyDir: values["history-dir"],
      noHistory: values["no-history"],
      tlsCert: values["tls-cert"],
      tlsKey: values["tls-key"],
      tlsClientCa: values["tls-client-ca"],
      tokensFile: values["tokens-file"],
      help: values.help,
    };
  } catch (err) {
    if (err instanceof ConfigError) {
      throw err;
    }
    throw new ConfigError(`${(err as Error).message.split("\n")[0]} (see toolhost serve --help)`);
  }
}
