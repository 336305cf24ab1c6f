import type { ContentRules } from "../../../sandbox/content/content-rules.js";
import type { FileList } from "../match-job.js";
import type { WalkPosition } from "./walk-position.js";

/** IgnoreLayer is the rules of one folder above a walk's start: its ignore files' texts. */
export interface IgnoreLayer {
  /** The path from that folder down to the walk's start. */
  readonly prefix: string;
  readonly texts: readonly string[];
}

/**
 * WalkRequest starts one walk on a walk worker: plain data (the globs as the client gave them,
 * compiled in the worker), so it crosses by structured clone.
 */
export interface WalkRequest {
  /** The verified start folder's descriptor; the caller keeps it open until the walk is over. */
  readonly topFd: number;
  /** The caller's content rules (its sandbox's): the walk's roots, and how ignore files are read. */
  readonly rules: ContentRules;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly useIgnoreFiles: boolean;
  readonly includeHidden: boolean;
  /** Rules of the ignore files above the start, farthest first (see ancestorIgnoreLayers). */
  readonly inherited: readonly IgnoreLayer[];
  /**
   * Three Int32 slots shared with the caller: [0] batches posted and not yet taken (the walker
   * stops at `capacity` and walks on once they are down to resumeAt(capacity)), [1] set to 1 to
   * stop the walk, [2] 1 while the walker waits (set before it posts the batch that fills it).
   */
  readonly control: SharedArrayBuffer;
  readonly capacity: number;
  /**
   * Where a walk that gave its worker up resumes: the last file its searcher took (see
   * WalkPosition); the walk hands over only the files after it. Undefined: from the start.
   */
  readonly resumeAfter?: WalkPosition | undefined;
}

/** WalkBatch is up to walkBatchFiles files to search, from one folder or more, in walk order. */
export interface WalkBatch {
  readonly kind: "batch";
  readonly files: FileList;
  /** The batch's folders (descriptors as in `files.fds`) and their paths relative to the start. */
  readonly folderFds: number[];
  readonly folderPaths: string[];
  /**
   * Folder descriptors the receiver closes once this batch (and so every earlier one) was
   * searched: the folders whose walk is over and whose files were in this batch or earlier ones.
   */
  readonly close: number[];
}

/** WalkEnd is a walk's last message. */
export interface WalkEnd {
  readonly kind: "end";
  /** Descriptors the walk still held: the receiver closes them once no batch in flight needs them. */
  readonly close: readonly number[];
  /** A ToolhostError's reason, message and metadata, or a plain message, when the walk failed. */
  readonly error?: { readonly reason?: string; readonly message: string; readonly metadata?: Record<string, string> };
}

export type WalkMessage = WalkBatch | WalkEnd;

/**
 * walkBatchFiles is the most files in one batch (one message to a match worker, one native
 * readBatch call, docs/adr/0002-native-fs-at-addon.md). 128 rather than 64: half the thread hops
 * per search; not more, so a batch of files read cold from a slow disk stays well inside the
 * search's per-batch time budget (5 s by default).
 */
export const walkBatchFiles = 128;
/**
 * walkBatchFolders is the most folder descriptors one batch refers to, its files' folders and
 * those it hands over to be closed counted once: a walk holds open its chain of folders and those
 * of the batches not yet answered (staged, in flight, being built), so with it a search's
 * descriptors are bounded in folders, not files (see walkDescriptorBound). 32: a batch of a tree
 * with several files per folder stays near full (128 files); one of a file per folder holds about
 * 32, and the walks of maxWalkers searches stay well inside a 20,000-descriptor limit.
 */
export const walkBatchFolders = 32;

/** maxWalkDepth is the deepest folder level a search enters below its start (one descriptor each). */
export const maxWalkDepth = 64;

/**
 * walkDescriptorBound is the most folder descriptors one walk keeps open while `batches` of its
 * batches are not answered yet (staged, in flight, being reported or built): its chain of folders
 * (the start's is the caller's) and walkBatchFolders for each of those batches.
 */
export function walkDescriptorBound(batches: number): number {
  return maxWalkDepth + walkBatchFolders * batches;
}

/**
 * resumeAt is how many batches a full walker (at `capacity`) waits to be down to before it walks
 * on: half. The receiver wakes it once, when it takes the batch that brings the count there, so a
 * walk that runs ahead of its matching wakes once per capacity/2 batches instead of once per
 * batch (a wake-up costs both threads).
 */
export function resumeAt(capacity: number): number {
  return Math.floor(capacity / 2);
}
