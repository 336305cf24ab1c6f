import { dirname, join, relative, basename } from "node:path";
import { isToolhostError } from "../../errors/toolhost-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { sha256Hex, sha256OfHandle } from "../content-hash.js";
import { readAtMost } from "../read-at-most.js";
import { BlobStore } from "./blob-store.js";
import { ChangeLog } from "./change-log.js";
import { parseManifest, type ChangeManifest } from "./change-manifest.js";
import type { LogReservation } from "./log-reservation.js";
import type { ChangeRecord, EntryType, FileKey, FilePlace, HistoryConfig } from "./history-types.js";
import { entryIdentity, stateAfter, stateBefore, type PathState } from "./path-state.js";
import { RootIdentities } from "./root-identity.js";
import { UndoJournals } from "./undo-journal.js";

/**
 * CapturedContent is what a path held just before a change: its type and, for a regular file,
 * its hash and size, and whether its content is now in the store (see FileHistory.keeps).
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
   * Hash a file the store cannot keep too (its content is not stored): an undo compares it with
   * what the change it undoes left. Other changes do not: the hash of a large file a delete or a
   * move replaces would cost a read of all of it for a content the history cannot give back.
   */
  readonly hashUnstored?: boolean | undefined;
  /** Called with a file's SHA-256 before its content is stored (an undo pins what it takes away: FileHistory.pin). */
  readonly pin?: ((sha256: string) => Promise<void>) | undefined;
}

/** ListedChange is a log record and whether its content before can still be restored. */
export interface ListedChange extends ChangeRecord {
  readonly beforeAvailable: boolean;
}

/** pruneTarget is the share of maxBytes a prune brings the store down to. */
const pruneTarget = 0.9;

/**
 * FileHistory is seed 002's content-addressed capture: before a change commits, the content it
 * replaces is stored (by SHA-256, deduplicated, up to `keeps` bytes a file); after it commits,
 * one log line records time, operation, caller and what the path held before and after. The
 * store is bounded by total size and age, oldest first; contents an undo in progress relies on
 * are pinned against that (pin, UndoJournals). A path's history is keyed by its root folder's
 * identity (root-identity.ts) and its real path under it.
 *
 * Order of effects: store the content before, then the change commits (the caller does that),
 * then the log line. A crash between them leaves an unreferenced blob (pruned in time) or a
 * change without its log line — never a corrupt store and never a lost or altered write.
 */
export class FileHistory {
  private readonly blobs: BlobStore;
  private readonly log: ChangeLog;
  private readonly roots = new RootIdentities();
  /** The journals of undos in progress (undo-journal.ts). */
  readonly journals: UndoJournals;
  /** Contents pinned by this process's undos, with how many pins each holds. */
  private readonly pins = new Map<string, number>();
  private storedBytes: number | undefined;
  private pruning: Promise<void> | undefined;

  /** `answerAheadAfterMs` overrides ChangeLog's (tests). */
  constructor(
    readonly config: HistoryConfig,
    answerAheadAfterMs?: number,
  ) {
    this.blobs = new BlobStore(join(config.dir, "blobs"));
    this.log = new ChangeLog(join(config.dir, "log"), config.maxEntriesPerFile, answerAheadAfterMs);
    this.journals = new UndoJournals(join(config.dir, "undo"));
  }

  /**
   * keeps is the largest file whose content the store keeps: max_file_bytes, and never more than
   * a prune leaves room for (a content larger than that would be the first one pruned, at once).
   * Every decision that a content is "in the history" is made against it.
   */
  get keeps(): number {
    return Math.min(this.config.maxFileBytes, Math.floor(this.config.maxBytes * pruneTarget));
  }

  /** drain resolves once every history line of this process is written and synced (see ChangeLog.drain). */
  drain(): Promise<void> {
    return this.log.drain();
  }

  /**
   * keyOf names the history a client path leads to: its root and its real path inside it. With
   * `entry`, a symbolic link names its own place (what MoveFile, CopyFile and DeleteFile record
   * of the link itself), not the file it points to.
   */
  async keyOf(sandbox: Sandbox, clientPath: string, options: { readonly entry?: boolean } = {}): Promise<FileKey> {
    const resolved = await sandbox.resolve(clientPath);
    if (options.entry !== true || !resolved.isSymlink || clientPath.endsWith("/")) return this.keyFor(resolved);
    const folder = await sandbox.resolve(dirname(resolved.absolutePath));
    return this.keyFor({ root: folder.root, realPath: join(folder.realPath, basename(resolved.absolutePath)) });
  }

  /**
   * capture stores what the path holds now, a file read through the sandbox's content path:
   * nothing, a folder (with its mode and identity), a link (with `entry`) or other entry by its
   * type only; a file the store cannot keep by size (and hash, with `hashUnstored`), not stored;
   * a file the sandbox does not let be read (a hard-linked one) as a file of unknown content.
   */
  async capture(sandbox: Sandbox, clientPath: string, options: CaptureOptions = {}): Promise<CapturedContent> {
    const resolved = await sandbox.resolve(clientPath);
    if (options.entry === true && resolved.isSymlink) {
      const entry = await sandbox.resolveEntryForWrite(clientPath);
      return captured(
        await this.keyFor({ root: entry.root, realPath: join(entry.parentRealPath, entry.name) }),
        "symlink",
      );
    }
    const key = await this.keyFor(resolved);
    if (!resolved.exists) return captured(key, "none");
    let opened;
    try {
      opened = await sandbox.openContent(clientPath);
    } catch (err) {
      if (isToolhostError(err, "NOT_FOUND")) return captured(key, "none");
      if (isToolhostError(err, "NOT_A_REGULAR_FILE"))
        return { ...captured(key, "other"), ...(await entryOf(sandbox, clientPath)) };
      return { ...captured(key, "file"), readable: false };
    }
    try {
      const mode = opened.stats.mode & 0o777;
      const keeps = this.keeps;
      const { content, more } =
        opened.stats.size > keeps
          ? { content: undefined, more: true }
          : await readAtMost(opened.handle, keeps, opened.stats.size);
      if (more || content === undefined) {
        const sha256 = options.hashUnstored === true ? await sha256OfHandle(opened.handle) : "";
        return { ...captured(key, "file"), sha256, size: Math.max(opened.stats.size, keeps + 1), mode };
      }
      const sha256 = sha256Hex(content);
      await options.pin?.(sha256);
      await this.put(content);
      return { ...captured(key, "file"), sha256, size: content.length, stored: true, mode };
    } finally {
      await opened.handle.close();
    }
  }

  /** keyFor names the file a resolved path leads to, as keyOf does, without resolving it again. */
  async keyFor(resolved: {
    readonly root: { readonly path: string; readonly localDevice?: number | undefined };
    readonly realPath: string;
  }): Promise<FileKey> {
    return {
      root: resolved.root.path,
      relative: relative(resolved.root.path, resolved.realPath),
      rootId: await this.roots.idOf(resolved.root),
    };
  }

  /** keyAt names the history of a place a record names (a move's other path, a patch's files), in the folder now at its root. */
  async keyAt(place: FilePlace): Promise<FileKey> {
    return { root: place.root, relative: place.relative, rootId: await this.roots.idOf({ path: place.root }) };
  }

  /**
   * captureContent stores content a change has already read through the sandbox (EditFile reads
   * the file under its locks anyway), as capture would have read it: one the store cannot keep
   * is captured by size only.
   */
  async captureContent(key: FileKey, content: Uint8Array): Promise<CapturedContent> {
    if (content.length > this.keeps) {
      return { ...captured(key, "file"), size: content.length };
    }
    const { sha256 } = await this.put(content);
    return { ...captured(key, "file"), sha256, size: content.length, stored: true };
  }

  private async put(content: Uint8Array): Promise<{ sha256: string }> {
    const { sha256, added } = await this.blobs.put(content);
    if (added) this.grow(content.length);
    return { sha256 };
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
    const records = (await this.recordsOf(key)).reverse().slice(0, limit);
    return Promise.all(records.map(async (r) => ({ ...r, beforeAvailable: await this.beforeAvailable(r) })));
  }

  /** records are a file's changes within the age bound, oldest first. */
  async recordsOf(key: FileKey): Promise<ChangeRecord[]> {
    const oldest = Date.now() - this.config.maxAgeMs;
    return (await this.log.read(key)).filter((r) => r.time >= oldest);
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

  /** stored tells whether a content (by SHA-256) is in the store. */
  stored(sha256: string): Promise<boolean> {
    return sha256 === "" ? Promise.resolve(false) : this.blobs.has(sha256);
  }

  /**
   * secure makes sure a content its caller pinned (pin) stays in the store, and answers whether
   * it is there. Pinned, a content at its place is kept by every prune that has not yet asked for
   * the pins; one a prune set aside already (it may have asked before the pin) is stored again
   * from there, so the prune's removal of what it set aside does not take it.
   */
  async secure(sha256: string): Promise<boolean> {
    if (sha256 === "") return false;
    if (await this.blobs.atPlace(sha256)) return true;
    const content = await this.blobs.get(sha256);
    if (content === undefined) return false;
    await this.put(content);
    return true;
  }

  /**
   * storeManifest stores the manifest of a change of several files in the blob store (bounded by
   * the patch's file count, not by maxFileBytes) and returns its SHA-256; `pin` as capture's.
   */
  async storeManifest(manifest: ChangeManifest, pin?: (sha256: string) => Promise<void>): Promise<string> {
    const content = Buffer.from(JSON.stringify(manifest));
    await pin?.(sha256Hex(content));
    return (await this.put(content)).sha256;
  }

  /** manifest reads a stored manifest; undefined when it is gone (pruned) or not one. */
  async manifest(sha256: string): Promise<ChangeManifest | undefined> {
    const content = await this.blobs.get(sha256);
    return content === undefined ? undefined : parseManifest(content);
  }

  /**
   * recorded tells whether a content (by SHA-256) is one this file held before or after a change
   * still within the age bound, and the mode it had then where the history knows it (the newest
   * such record that does). RestoreFile asks it: the blob store is shared by every file of every
   * root, so a blob's existence alone must not let one file receive another's content.
   */
  async recorded(key: FileKey, sha256: string): Promise<{ readonly mode: number | undefined } | undefined> {
    if (sha256 === "") return undefined;
    let found: { mode: number | undefined } | undefined;
    for (const r of await this.recordsOf(key)) {
      const states = [stateBefore(r), stateAfter(r)].filter((s) => s.type === "file" && s.sha256 === sha256);
      if (states.length === 0) continue;
      found = { mode: states.find((s) => s.mode !== undefined)?.mode ?? found?.mode };
    }
    return found;
  }

  /** content returns a stored content by SHA-256, or undefined when it is not stored. */
  content(sha256: string): Promise<Buffer | undefined> {
    return this.blobs.get(sha256);
  }

  /**
   * pin keeps contents from being pruned by this process until `release` is called (an undo's
   * journal pins them for replicas: UndoJournals). Pin before storing or relying on a content.
   */
  pin(sha256s: Iterable<string>): () => void {
    const pinned = [...sha256s].filter((s) => s !== "");
    for (const s of pinned) this.pins.set(s, (this.pins.get(s) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const s of pinned) {
        const left = (this.pins.get(s) ?? 1) - 1;
        if (left > 0) this.pins.set(s, left);
        else this.pins.delete(s);
      }
    };
  }

  private grow(bytes: number): void {
    if (this.storedBytes !== undefined) this.storedBytes += bytes;
    if (this.storedBytes === undefined || this.storedBytes > this.config.maxBytes) {
      this.pruning ??= this.prune().finally(() => (this.pruning = undefined));
    }
  }

  /**
   * prune removes contents past the age bound, then the oldest until under 90% of maxBytes,
   * never a pinned one (BlobStore.removeOldest asks for the pins once the candidates are aside).
   */
  async prune(): Promise<void> {
    const blobs = (await this.blobs.list()).sort((a, b) => a.stats.mtimeMs - b.stats.mtimeMs);
    let total = blobs.reduce((sum, b) => sum + b.stats.size, 0);
    const oldest = Date.now() - this.config.maxAgeMs;
    const candidates = [];
    let left = total;
    for (const blob of blobs) {
      if (blob.stats.mtimeMs >= oldest && left <= this.config.maxBytes * pruneTarget) break;
      if (this.pins.has(blob.sha256)) continue;
      candidates.push(blob);
      left -= blob.stats.size;
    }
    total -= await this.blobs.removeOldest(
      candidates,
      async () => new Set([...this.pins.keys(), ...(await this.journals.pins())]),
    );
    this.storedBytes = total;
  }
}

function captured(key: FileKey, type: EntryType): CapturedContent {
  return { key, type, existed: type !== "none", sha256: "", size: 0, stored: false, readable: true };
}

/** entryOf is what an existing entry that is not a regular file is: a folder (with its mode and identity), a link, or other. */
async function entryOf(sandbox: Sandbox, clientPath: string): Promise<Pick<PathState, "type" | "mode" | "id">> {
  const entry = await sandbox.openEntry(clientPath).catch(() => undefined);
  if (entry === undefined) return { type: "other" };
  entry.handle.close();
  if (entry.stats.isDirectory())
    return { type: "directory", mode: entry.stats.mode & 0o777, id: entryIdentity(entry.stats) };
  return { type: entry.stats.isSymbolicLink() ? "symlink" : "other" };
}
