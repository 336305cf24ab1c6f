import { join, relative } from "node:path";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { readAtMost } from "../read-at-most.js";
import { BlobStore } from "./blob-store.js";
import { ChangeLog } from "./change-log.js";
import type { LogReservation } from "./log-reservation.js";
import type { ChangeRecord, FileKey, HistoryConfig } from "./history-types.js";

/** CapturedContent is what a file held just before a change: its hash and size, if it existed. */
export interface CapturedContent {
  readonly key: FileKey;
  readonly existed: boolean;
  readonly sha256: string;
  readonly size: number;
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

  /** keyOf names the file a client path leads to: its root and its real path inside it. */
  /** drain resolves once every history line of this process is written and synced (see ChangeLog.drain). */
  drain(): Promise<void> {
    return this.log.drain();
  }

  async keyOf(sandbox: Sandbox, clientPath: string): Promise<FileKey> {
    return this.keyFor(await sandbox.resolve(clientPath));
  }

  /**
   * capture stores what the file holds now, read through the sandbox's verified handle; a
   * missing file is captured as "did not exist", one over maxFileBytes by size only.
   */
  async capture(sandbox: Sandbox, clientPath: string): Promise<CapturedContent> {
    const key = await this.keyOf(sandbox, clientPath);
    let opened;
    try {
      opened = await sandbox.openForRead(clientPath);
    } catch (err) {
      if (err instanceof ToolhostError && err.reason === "NOT_FOUND") return { key, existed: false, sha256: "", size: 0 };
      return { key, existed: true, sha256: "", size: 0 };
    }
    try {
      if (opened.stats.size > this.config.maxFileBytes) {
        return { key, existed: true, sha256: "", size: opened.stats.size };
      }
      const { content, more } = await readAtMost(opened.handle, this.config.maxFileBytes, opened.stats.size);
      if (more) return { key, existed: true, sha256: "", size: opened.stats.size };
      const { sha256, added } = await this.blobs.put(content);
      if (added) this.grow(content.length);
      return { key, existed: true, sha256, size: content.length };
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
      return { key, existed: true, sha256: "", size: content.length };
    }
    const { sha256, added } = await this.blobs.put(content);
    if (added) this.grow(content.length);
    return { key, existed: true, sha256, size: content.length };
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
    return Promise.all(records.map(async (r) => ({ ...r, beforeAvailable: r.before !== "" && (await this.blobs.has(r.before)) })));
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
