/**
 * Config is the one validated, frozen configuration of a toolhost server, built by loadConfig from
 * a YAML file, flags and environment variables.
 */
export interface Config {
  /** host:port of the gRPC listener. */
  readonly listen: string;
  /** host:port of the optional Connect / gRPC-Web / JSON listener; undefined when off. */
  readonly httpListen: string | undefined;
  /** File roots; a relative client path resolves against the first. Absolute, real paths. */
  readonly roots: readonly RootConfig[];
  /** Skill roots, scanned for SKILL.md folders. Absolute paths. */
  readonly skills: readonly SkillRootConfig[];
  /** Refuse every write, whatever the roots say. */
  readonly readOnly: boolean;
  /** Allow a non-loopback listener without TLS or a token. */
  readonly insecure: boolean;
  readonly limits: Limits;
  readonly log: { readonly level: LogLevel };
  /** How long SIGTERM waits for in-flight calls before cancelling them, in ms. */
  readonly shutdownGraceMs: number;
}

/** RootConfig is one allow-listed directory. */
export interface RootConfig {
  readonly path: string;
  readonly readOnly: boolean;
}

/** SkillRootConfig is one directory of skill folders; `namespace` qualifies bare skill names. */
export interface SkillRootConfig {
  readonly path: string;
  readonly namespace: string | undefined;
}

/** Limits are the server's size and concurrency bounds. */
export interface Limits {
  /** Largest file (or line range) text mode returns, in bytes. */
  readonly maxTextBytes: number;
  /** Default chunk size of read streams, in bytes. */
  readonly chunkSize: number;
  /** Smallest chunk size a client may ask for. */
  readonly minChunkSize: number;
  /** Largest chunk size a client may ask for. */
  readonly maxChunkSize: number;
  /** Largest single message the server accepts (WriteFile content, upload chunks), in bytes. */
  readonly maxReceiveMessageBytes: number;
  /** Concurrent streams per HTTP/2 connection. */
  readonly maxConcurrentStreams: number;
  /** HTTP/2 session memory per connection, in MiB. */
  readonly maxSessionMemoryMiB: number;
  /** Largest file EditFile loads, in bytes. */
  readonly maxEditBytes: number;
  /** Largest SKILL.md the catalog reads, in bytes. */
  readonly maxSkillFileBytes: number;
  /** Most bytes of activated skill bodies kept across all sessions. */
  readonly maxActivatedBytes: number;
  /** Largest file SearchFiles reads; larger files are skipped. */
  readonly maxSearchFileBytes: number;
  /** Default and largest max_matches of one SearchFiles call. */
  readonly maxSearchMatches: number;
  /** Time one batch of files may take to match before SearchFiles ends with PATTERN_TOO_COMPLEX, in ms. */
  readonly searchTimeBudgetMs: number;
  /** WatchFiles streams open at once on the server. */
  readonly maxWatches: number;
  /** Folders one WatchFiles stream may watch (each costs an inotify watch). */
  readonly maxWatchedFoldersPerStream: number;
  /** Events held for a slow WatchFiles client before it is sent an overflow. */
  readonly watchQueueEvents: number;
}

/** LogLevel is a pino level. */
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

/** defaultLimits are the limits used when the config says nothing. */
export const defaultLimits: Limits = Object.freeze({
  maxTextBytes: 10 * 1024 * 1024,
  chunkSize: 1024 * 1024,
  minChunkSize: 4 * 1024,
  maxChunkSize: 3 * 1024 * 1024,
  maxReceiveMessageBytes: 16 * 1024 * 1024,
  maxConcurrentStreams: 256,
  maxSessionMemoryMiB: 64,
  maxEditBytes: 64 * 1024 * 1024,
  maxSkillFileBytes: 1024 * 1024,
  maxActivatedBytes: 64 * 1024 * 1024,
  maxSearchFileBytes: 16 * 1024 * 1024,
  maxSearchMatches: 10_000,
  searchTimeBudgetMs: 5_000,
  maxWatches: 64,
  maxWatchedFoldersPerStream: 10_000,
  watchQueueEvents: 1_000,
});
