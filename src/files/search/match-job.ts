import type { ContentRules } from "../../sandbox/content/content-rules.js";
import type { ContentMatches, MatchSpec } from "./match-spec.js";

/**
 * FileList names the files of one batch compactly (a typed array and one string cross threads far
 * cheaper than an object per file): entries of folders the walk holds open, which the worker
 * opens as /proc/self/fd/DIRFD/NAME never following a link; or, when `borrowed`, files the caller
 * already opened and verified (the worker neither reopens nor closes them).
 */
export interface FileList {
  /** Per file: its folder's descriptor, or with `borrowed` the file's own. */
  readonly fds: Int32Array;
  /** The files' names joined by "\0" (no name holds NUL or "/"); "" when `borrowed`. */
  readonly names: string;
  readonly borrowed: boolean;
  /**
   * Per file (joined by "\0" like `names`): the kernel path of its folder as the walk verified it
   * inside the roots, "" when not verified; given by the walk with the native addon only, for
   * the addon's per-file check of it (see FsAt.readBatch).
   */
  readonly folderRealPaths?: string;
}

/** fileNames splits a FileList's names. */
export function fileNames(files: FileList): string[] {
  return files.borrowed ? [] : files.names.split("\0");
}

/** MatchBatch is one message to a match worker: files of one search, matched with one spec. */
export interface MatchBatch {
  readonly id: number;
  readonly spec: MatchSpec;
  readonly files: FileList;
  /**
   * The caller's content rules (its sandbox's): every file is read under them, and a folder whose
   * handle lies outside their roots has its files skipped.
   */
  readonly rules: ContentRules;
  /** Files larger than this are skipped unread. */
  readonly maxFileBytes: number;
  /** Matching lines to pass over in each file (a follow-up batch of one file). */
  readonly skip: number;
  /** Most matching lines to return per file. */
  readonly cap: number;
}

/** SkipReason says why a file was not searched. */
export type SkipReason = "binary" | "too-large" | "not-regular" | "hard-linked" | "outside" | "unreadable";

/** outcomeCodes are BatchResult codes: 0 is searched, the others a SkipReason. */
export const outcomeCodes = [
  "searched",
  "binary",
  "too-large",
  "not-regular",
  "hard-linked",
  "outside",
  "unreadable",
] as const;

/** FileOutcome is what a worker found for one file of a batch. */
export type FileOutcome =
  | { readonly status: "searched"; readonly bytes: number; readonly found: ContentMatches }
  | { readonly status: "skipped"; readonly why: SkipReason };

/**
 * BatchResult is a worker's answer to one MatchBatch, compact: per file an outcome code and the
 * bytes searched, and the matches of the files that have some (`matched` holds their indexes).
 */
export interface BatchResult {
  readonly id: number;
  readonly codes: Uint8Array;
  readonly bytes: Float64Array;
  readonly matched: number[];
  readonly found: ContentMatches[];
}

const noMatches: ContentMatches = { lines: [], count: 0, more: false };

/** outcomeAt rebuilds one file's FileOutcome from a BatchResult. */
export function outcomeAt(result: BatchResult, index: number): FileOutcome {
  const code = result.codes[index]!;
  if (code !== 0) return { status: "skipped", why: outcomeCodes[code] as SkipReason };
  const at = result.matched.indexOf(index);
  return { status: "searched", bytes: result.bytes[index]!, found: at === -1 ? noMatches : result.found[at]! };
}

/** workerReady is a match worker's first message: its module is loaded and it takes batches. */
export const workerReady = "match-worker-ready";
