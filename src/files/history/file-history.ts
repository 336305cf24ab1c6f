import { join, relative } from "node:path";
import { isToolhostError } from "../../errors/toolhost-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { sha256OfHandle } from "../content-hash.js";
import { readAtMost } from "../read-at-most.js";
import { BlobStore } from "./blob-store.js";
import { ChangeLog } from "./change-log.js";
import { parseManifest, type ChangeManifest } from "./change-manifest.js";
import type { LogReservation } from "./log-reservation.js";
import type { ChangeRecord, EntryType, FileKey, HistoryConfig } from "./history-types.js";
import { stateBefore, type PathState } from "./path-state.js";

/**
 * CapturedContent is what a path held just before a change: its type and, for a regular file,
 * its hash and size, and whether its content is now in the store (at most maxFileBytes).
 */
export interface CapturedContent extends PathState {
  readonly key: FileKey;
  readonly existed: boolean;
  readonly stored: boolean;
  /** False for a file the sandbox does not let be read (a hard-linked one): nothing of it may be recorded, not even its hash. */
  readonly readable: boolean;
}

/** CaptureOptions say how a change acts on its path. */
export interface CaptureOptions {
  /**
   * The change acts on the entry itself (DeleteFile, MoveFile, CopyFile's target): a symbolic
   * link is captured as a link, keyed by its own place, never through what it points to.
   */
  readonly entry?: boolean | undefined;
  /**
   * Hash a file over maxFileBytes too (its content is not stored): an undo compares it with what
   * the change it undoes left. Other changes do not: the hash of a large file a delete or a move
   * replaces would cost a read of all of it for a content the history cannot give back anyway.
   */
  readonly hashUnstored?: boolean | undefined;
}

/** ListedChange is a log record and whether its content before can still be restored. */
export interface ListedChange extends ChangeRecord {
  readonly beforeAvailable: boolean;
}

/**
 * FileHistory is seed 002's content-addressed capture: before a change commits, the content it
 * replaces is stored (by SHA-256, deduplicated, up to maxFileBytes a file); after it commits,
 * one log line records time, operation, caller and the hashes before and after. The store is
 * bounded by total size and age, oldest first.
 *
 * Order of effects: store the content before, then the change commits (the caller does that),
 * then the log line. A crash between them leaves an unreferenced blob (pruned in time) or a
 * change without its log line — never a corrupt store and never a lost or altered write.
 */
export class FileHistory {
  private readonly blobs: BlobStore;
  private readonly log: ChangeLog;
  private storedBytes: number | undefined;
  private pruning: Promise<void> | undefined;

  /** `answerAheadAfterMs` overrides ChangeLog's (tests). */
  constructor(
    readonly config: HistoryConfig,
    answerAheadAfterMs?: number,
  ) {
    this.blobs = new BlobStore(join(config.dir, "blobs"));
    this.log = new ChangeLog(join(config.dir, "log"), config.maxEntriesPerFile, answerAheadAfterMs);
  }

  /** drain resolves once every history line of this process is written and synced (see ChangeLog.drain). */
  drain(): Promise<void> {
    return this.log.drain();
  }

  /** keyOf names the file a client path leads to: its root and its real path inside it. */
  async keyOf(sandbox: Sandbox, clientPath: string): Promise<FileKey> {
    return this.keyFor(await sandbox.resolve(clientPath));
  }

  /**
   * capture stores what the path holds now, a file read through the sandbox's content path:
   * nothing, a folder, a link (with `entry`) or other entry by its type only; a file over
   * maxFileBytes by size (and hash, with `hashUnstored`), not stored; a file the sandbox does not
   * let be read (a hard-linked one) as a file of unknown content.
   */
  async capture(sandbox: Sandbox, clientPath: string, options: CaptureOptions = {}): Promise<CapturedContent> {
    const resolved = await sandbox.resolve(clientPath);
    if (options.entry === true && resolved.isSymlink) {
      const entry = await sandbox.resolveEntryForWrite(clientPath);
      return captured(this.keyFor({ root: entry.root, realPath: join(entry.parentRealPath, entry.name) }), "symlink");
    }
    const key = this.keyFor(resolved);
    if (!resolved.exists) return captured(key, "none");
    let opened;
    try {
      opened = await sandbox.openContent(clientPath);
    } catch (err) {
      if (isToolhostError(err, "NOT_FOUND")) return captured(key, "none");
      if (isToolhostError(err, "NOT_A_REGULAR_FILE")) return captured(key, await entryTypeOf(sandbox, clientPath));
      return { ...captured(key, "file"), readable: false };
    }
    try {
      const { content, more } = opened.stats.size > this.config.maxFileBytes ? { content: undefined, more: true } : await readAtMost(opened.handle, this.config.maxFileBytes, opened.stats.size);
      if (more || content === undefined) {
        const sha256 = options.hashUnstored === true ? await sha256OfHandle(opened.handle) : "";
        return { ...captured(key, "file"), sha256, size: Math.max(opened.stats.size, this.config.maxFileBytes + 1) };
      }
      const { sha256, added } = await this.blobs.put(content);
      if (added) this.grow(content.length);
      return { ...captured(key, "file"), sha256, size: content.length, stored: true };
    } finally {
      await opened.handle.close();
    }
  }

  /** keyFor names the file a resolved path leads to, as keyOf does, without resolving it again. */
  keyFor(resolved: { readonly root: { readonly path: string }; readonly realPath: string }): FileKey {
    return { root: resolved.root.path, relative: relative(resolved.root.path, resolved.realPath) };
  }

  /**
   * captureContent stores content a change has already read through the sandbox (EditFile reads
   * the file under its locks anyway), as capture would have read it: one over maxFileBytes is
   * captured by size only.
   */
  async captureContent(key: FileKey, content: Uint8Array): Promise<CapturedContent> {
    if (content.length > this.config.maxFileBytes) {
      return { ...captured(key, "file"), size: content.length };
    }
    const { sha256, added } = await this.blobs.put(content);
    if (added) this.grow(content.length);
    return { ...captured(key, "file"), sha256, size: content.length, stored: true };
  }

  /** record appends one change to the file's log. */
  async record(key: FileKey, record: ChangeRecord): Promise<void> {
    await this.log.append(key, record);
  }

  /**
   * reserveRecord takes the file's log lock now for a change about to commit, so that its line
   * is written right after (see ChangeLog.reserve); exactly one of append or cancel must follow.
   */
  reserveRecord(key: FileKey): LogReservation {
    return this.log.reserve(key);
  }

  /** list returns a file's changes within the age bound, newest first, at most `limit`. */
  async list(key: FileKey, limit: number): Promise<ListedChange[]> {
    const oldest = Date.now() - this.config.maxAgeMs;
    const records = (await this.log.read(key)).filter((r) => r.time >= oldest).reverse().slice(0, limit);
    return Promise.all(records.map(async (r) => ({ ...r, beforeAvailable: await this.beforeAvailable(r) })));
  }

  /**
   * beforeAvailable tells whether the history can put back by itself what a record's path held
   * before: a file whose content is stored, or an empty folder. (What a move took away comes
   * back from the move's other path, not from the store.)
   */
  private async beforeAvailable(record: ChangeRecord): Promise<boolean> {
    const before = stateBefore(record);
    if (before.type === "file") return before.sha256 !== "" && (await this.blobs.has(before.sha256));
    return before.type === "directory" && record.moved?.side !== "from" && (record.entriesBefore ?? 0) === 0;
  }

  /** change returns the newest record of a file's log that belongs to `change`, if still there. */
  async change(key: FileKey, change: string): Promise<ChangeRecord | undefined> {
    const oldest = Date.now() - this.config.maxAgeMs;
    return (await this.log.read(key)).filter((r) => r.time >= oldest && r.change === change).at(-1);
  }

  /** stored tells whether a content (by SHA-256) is in the store. */
  stored(sha256: string): Promise<boolean> {
    return sha256 === "" ? Promise.resolve(false) : this.blobs.has(sha256);
  }

  /**
   * storeManifest stores the manifest of a change of several files in the blob store (bounded by
   * the patch's file count, not by maxFileBytes) and returns its SHA-256.
   */
  async storeManifest(manifest: ChangeManifest): Promise<string> {
    const content = Buffer.from(JSON.stringify(manifest));
    const { sha256, added } = await this.blobs.put(content);
    if (added) this.grow(content.length);
    return sha256;
  }

  /** manifest reads a stored manifest; undefined when it is gone (pruned) or not one. */
  async manifest(sha256: string): Promise<ChangeManifest | undefined> {
    const content = await this.blobs.get(sha256);
    return content === undefined ? undefined : parseManifest(content);
  }

  /**
   * recorded tells whether a content (by SHA-256) is one this file held before or after a change
   * still within the age bound. RestoreFile asks it: the blob store is shared by every file of
   * every root, so a blob's existence alone must not let one file receive another's content.
   */
  async recorded(key: FileKey, sha256: string): Promise<boolean> {
    const oldest = Date.now() - this.config.maxAgeMs;
    return (await this.log.read(key)).some((r) => r.time >= oldest && sha256 !== "" && (r.before === sha256 || r.after === sha256));
  }

  /** content returns a stored content by SHA-256, or undefined when it is not stored. */
  content(sha256: string): Promise<Buffer | undefined> {
    return this.blobs.get(sha256);
  }

  /** storeContent stores a content (e.g. one a patch wrote) so that it can be restored later. */
  async storeContent(content: Uint8Array): Promise<string> {
    if (content.length > this.config.maxFileBytes) return "";
    const { sha256, added } = await this.blobs.put(content);
    if (added) this.grow(content.length);
    return sha256;
  }

  private grow(bytes: number): void {
    if (this.storedBytes !== undefined) this.storedBytes += bytes;
    if (this.storedBytes === undefined || this.storedBytes > this.config.maxBytes) {
      this.pruning ??= this.prune().finally(() => (this.pruning = undefined));
    }
  }

  /** prune removes contents past the age bound, then the oldest until under 90% of maxBytes. */
  async prune(): Promise<void> {
    const blobs = (await this.blobs.list()).sort((a, b) => a.stats.mtimeMs - b.stats.mtimeMs);
    let total = blobs.reduce((sum, b) => sum + b.stats.size, 0);
    const oldest = Date.now() - this.config.maxAgeMs;
    for (const blob of blobs) {
      if (blob.stats.mtimeMs >= oldest && total <= this.config.maxBytes * 0.9) break;
      await this.blobs.remove(blob.sha256);
      total -= blob.stats.size;
    }
    this.storedBytes = total;
  }
}

function captured(key: FileKey, type: EntryType): CapturedContent {
  return { key, type, existed: type !== "none", sha256: "", size: 0, stored: false, readable: true };
}

/** entryTypeOf is the type of an existing entry that is not a regular file: a folder, or other. */
async function entryTypeOf(sandbox: Sandbox, clientPath: string): Promise<EntryType> {
  const entry = await sandbox.openEntry(clientPath).catch(() => undefined);
  if (entry === undefined) return "other";
  entry.handle.close();
  return entry.stats.isDirectory() ? "directory" : entry.stats.isSymbolicLink() ? "symlink" : "other";
}
