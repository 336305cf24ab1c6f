import type { ContentMatches, MatchSpec } from "./match-spec.js";

/**
 * FileJob names one file for a match worker: an entry of a directory the walker holds open
 * (opened by the worker as /proc/self/fd/dirFd/name, never following a link), or a file the
 * caller already opened and verified (`fd`, borrowed: the worker neither reopens nor closes it).
 */
export type FileJob =
  | { readonly dirFd: number; readonly name: string; readonly fd?: undefined }
  | { readonly fd: number; readonly dirFd?: undefined; readonly name?: undefined };

/** MatchBatch is one message to a match worker: files of one search, matched with one spec. */
export interface MatchBatch {
  readonly id: number;
  readonly spec: MatchSpec;
  readonly files: readonly FileJob[];
  /** Real paths of the roots: a file whose opened handle lies elsewhere is skipped. */
  readonly roots: readonly string[];
  /** Files larger than this are skipped unread. */
  readonly maxFileBytes: number;
  /** Matching lines to pass over in each file (a follow-up batch of one file). */
  readonly skip: number;
  /** Most matching lines to return per file. */
  readonly cap: number;
}

/** SkipReason says why a file was not searched. */
export type SkipReason = "binary" | "too-large" | "not-regular" | "hard-linked" | "outside" | "unreadable";

/** FileOutcome is what a worker found for one file of a batch. */
export type FileOutcome =
  | { readonly status: "searched"; readonly bytes: number; readonly found: ContentMatches }
  | { readonly status: "skipped"; readonly why: SkipReason };

/** BatchResult is a worker's answer to one MatchBatch, outcomes in the batch's order. */
export interface BatchResult {
  readonly id: number;
  readonly outcomes: readonly FileOutcome[];
}
