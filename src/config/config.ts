/**
 * Config is the one validated, frozen configuration of a toolhost server, built by loadConfig from
 * a YAML file, flags and environment variables.
 */
export interface Config {
  /** host:port of the gRPC listener. */
  readonly listen: string;
  /** host:port of the optional Connect / gRPC-Web / JSON listener; undefined when off. */
  readonly httpListen: string | undefined;
  /** host:port of the optional Prometheus endpoint (GET /metrics); undefined when off. */
  readonly metricsListen?: string | undefined;
  /** host:port of the optional MCP Streamable HTTP listener (POST /mcp); undefined when off. */
  readonly mcpListen?: string | undefined;
  /** File roots; a relative client path resolves against the first. Absolute, real paths. */
  readonly roots: readonly RootConfig[];
  /** Skill roots, scanned for SKILL.md folders. Absolute paths. */
  readonly skills: readonly SkillRootConfig[];
  /** Refuse every write, whatever the roots say. */
  readonly readOnly: boolean;
  /** Allow a non-loopback listener without TLS and authentication (a proxy in front authenticates). */
  readonly insecure: boolean;
  readonly limits: Limits;
  readonly log: { readonly level: LogLevel };
  /** How long SIGTERM waits for in-flight calls before cancelling them, in ms. */
  readonly shutdownGraceMs: number;
  /** The change history (ListFileHistory, RestoreFile, UndoLastChange); undefined when off. */
  readonly history?: HistoryConfig | undefined;
  /**
   * The staging journal's folder (staging/ in the state folder, $TOOLHOST_STATE_DIR), a start-up
   * input like the history folder; undefined in a Config built by hand: the state folder's default.
   */
  readonly stagingDir?: string | undefined;
  readonly sandbox: SandboxConfig;
  /** TLS for both listeners; undefined serves plaintext. */
  readonly tls?: TlsConfig | undefined;
  /** Who may call; undefined (or no tokens file and no client CA) authenticates no one. */
  readonly auth?: AuthConfig | undefined;
}

/** SandboxConfig is how strictly the sandbox treats what it finds inside the roots. */
export interface SandboxConfig {
  /**
   * Read regular files that have more than one hard link (sandbox.allow_hard_links). Off by
   * default: a hard link inside a root to a file outside it would make that file readable.
   */
  readonly allowHardLinks: boolean;
}

/** TlsConfig names the PEM files of the listeners' TLS (see docs/security.md). */
export interface TlsConfig {
  readonly cert: string;
  readonly key: string;
  /** CA bundle client certificates are verified against (mTLS). */
  readonly clientCa: string | undefined;
  /** Refuse a TLS client without a certificate signed by clientCa. */
  readonly requireClientCert: boolean;
}

/** AuthConfig says where the hashed bearer tokens and certificate identities live. */
export interface AuthConfig {
  /** The auth file: hashed tokens and certificate identities, each with a scope. */
  readonly tokensFile: string | undefined;
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
  /** Most directory levels below its root a written file may lie at (create_parents chains included). */
  readonly maxPathDepth: number;
  /** Default cap on CallTool's content for the model, in bytes. */
  readonly toolContentBytes: number;
  /** Largest content cap a CallTool may ask for (max_content_bytes), in bytes. */
  readonly maxToolContentBytes: number;
  /** Longest CallTool collects a streamed tool's messages (a watch never ends), in ms. */
  readonly toolCollectMs: number;
  /** Most edits in one EditFile call. */
  readonly maxEditsPerCall: number;
  /** Largest diff an EditFile reply carries, in bytes; a longer one is cut (diff_truncated). */
  readonly maxEditDiffBytes: number;
  /** Longest EditFile's line-by-line diff may run, in ms, before a one-hunk diff is sent instead. */
  readonly editDiffTimeoutMs: number;
  /** Most events a WatchSkills stream may have waiting for a slow reader before it is ended. */
  readonly maxWatchPendingEvents: number;
  /** Longest a skill reload waits while a skill root keeps changing, in ms. */
  readonly skillReloadMaxWaitMs: number;
  /** Largest SKILL.md the catalog reads, in bytes. */
  readonly maxSkillFileBytes: number;
  /** Most bytes of activated skill bodies kept across all sessions. */
  readonly maxActivatedBytes: number;
  /** Streamed reply bytes handed to a connection but not yet flushed, per connection. */
  readonly maxSendBufferBytesPerConnection: number;
  /** Streamed reply bytes handed to connections but not yet flushed, across the process. */
  readonly maxSendBufferBytes: number;
  /** Bytes of request messages received but not yet whole (or not yet half-closed), per connection. */
  readonly maxReceiveBufferBytesPerConnection: number;
  /** Bytes of request messages received but not yet whole, across the process. */
  readonly maxReceiveBufferBytes: number;
  /**
   * Bytes of request bodies one caller (one authenticated identity) may have on the way at once
   * on the HTTP listener; a share of maxReceiveBufferBytes, so that one caller cannot fill it.
   */
  readonly maxReceiveBufferBytesPerCaller: number;
  /** How long a request message may take to arrive whole once begun (a unary request: until the half-close), in ms. */
  readonly receiveMessageTimeoutMs: number;
  /** A connection with no open stream for this long is closed, in ms. */
  readonly idleConnectionTimeoutMs: number;
  /** Most entries a recursive CopyFile or RemoveDirectory handles in one call. */
  readonly maxTreeEntries: number;
  /** Most files one ReadFiles call may ask for. */
  readonly maxReadFiles: number;
  /** Most content bytes one ReadFiles call sends, over all its files. */
  readonly maxReadFilesBytes: number;
  /** Largest file SearchFiles reads; larger files are skipped. */
  readonly maxSearchFileBytes: number;
  /** Default and largest max_matches of one SearchFiles call. */
  readonly maxSearchMatches: number;
  /** Time one batch of files may take to match before SearchFiles ends with PATTERN_TOO_COMPLEX, in ms. */
  readonly searchTimeBudgetMs: number;
  /** WatchFiles streams open at once on the server. */
  readonly maxWatches: number;
  /** WatchFiles streams one caller may have open at once. */
  readonly maxWatchesPerCaller: number;
  /** Folders one WatchFiles stream may watch (each costs an inotify watch). */
  readonly maxWatchedFoldersPerStream: number;
  /** Folders one caller's WatchFiles streams may watch together. */
  readonly maxWatchedFoldersPerCaller: number;
  /** Folders all WatchFiles streams may watch together. */
  readonly maxWatchedFolders: number;
  /** Entries (files, folders, links) one WatchFiles stream may keep track of. */
  readonly maxWatchedEntriesPerStream: number;
  /** Entries one caller's WatchFiles streams may keep track of together. */
  readonly maxWatchedEntriesPerCaller: number;
  /** Entries all WatchFiles streams may keep track of together. */
  readonly maxWatchedEntries: number;
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
  maxPathDepth: 64,
  toolContentBytes: 32 * 1024,
  maxToolContentBytes: 1024 * 1024,
  toolCollectMs: 10_000,
  maxEditsPerCall: 1000,
  maxEditDiffBytes: 1024 * 1024,
  editDiffTimeoutMs: 200,
  maxWatchPendingEvents: 1000,
  skillReloadMaxWaitMs: 2000,
  maxSkillFileBytes: 1024 * 1024,
  maxActivatedBytes: 64 * 1024 * 1024,
  maxSendBufferBytesPerConnection: 32 * 1024 * 1024,
  maxSendBufferBytes: 256 * 1024 * 1024,
  maxReceiveBufferBytesPerConnection: 64 * 1024 * 1024,
  maxReceiveBufferBytes: 512 * 1024 * 1024,
  maxReceiveBufferBytesPerCaller: 128 * 1024 * 1024,
  receiveMessageTimeoutMs: 30_000,
  idleConnectionTimeoutMs: 300_000,
  maxTreeEntries: 10_000,
  maxReadFiles: 100,
  maxReadFilesBytes: 32 * 1024 * 1024,
  maxSearchFileBytes: 16 * 1024 * 1024,
  maxSearchMatches: 10_000,
  searchTimeBudgetMs: 5_000,
  maxWatches: 64,
  maxWatchesPerCaller: 8,
  maxWatchedFoldersPerStream: 10_000,
  maxWatchedFoldersPerCaller: 20_000,
  maxWatchedFolders: 50_000,
  maxWatchedEntriesPerStream: 100_000,
  maxWatchedEntriesPerCaller: 200_000,
  maxWatchedEntries: 500_000,
  watchQueueEvents: 1_000,
});

/** HistoryConfig bounds the change history's content-addressed store. */
export interface HistoryConfig {
  /** The state folder (outside every root) holding blobs/ and log/. */
  readonly dir: string;
  /** Most bytes of stored contents; the oldest go first past it. */
  readonly maxBytes: number;
  /** Oldest a stored content or log entry may get, in milliseconds. */
  readonly maxAgeMs: number;
  /** Files larger than this are recorded without their content. */
  readonly maxFileBytes: number;
  /** Most entries kept in one file's log. */
  readonly maxEntriesPerFile: number;
}

/** One caller gets 1/perCallerShare of max_receive_buffer_bytes unless the config says otherwise. */
export const perCallerShare = 4;

/**
 * withDerivedLimits fills in what the config left out: a limit that is a share of another
 * follows that other one when only it is set (max_receive_buffer_bytes_per_caller is a quarter of
 * max_receive_buffer_bytes), every other limit its default.
 */
export function withDerivedLimits(given: Partial<Limits>): Limits {
  const derived: Partial<Limits> =
    given.maxReceiveBufferBytes === undefined || given.maxReceiveBufferBytesPerCaller !== undefined
      ? {}
      : { maxReceiveBufferBytesPerCaller: Math.max(1, Math.floor(given.maxReceiveBufferBytes / perCallerShare)) };
  return { ...defaultLimits, ...derived, ...given };
}
