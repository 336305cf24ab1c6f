import type { MatchedLine } from "./match-spec.js";

/** SearchMode is what a search reports per file: lines, file names, or counts. */
export type SearchMode = "content" | "files" | "count";

/** SearchRequest is a SearchFiles call as the domain sees it; zero values mean the defaults. */
export interface SearchRequest {
  readonly path: string;
  readonly pattern: string;
  readonly regex?: boolean;
  readonly caseInsensitive?: boolean;
  readonly wholeWord?: boolean;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  readonly noIgnore?: boolean;
  readonly includeHidden?: boolean;
  readonly maxFileSize?: number;
  readonly maxMatches?: number;
  readonly maxMatchesPerFile?: number;
  readonly contextBefore?: number;
  readonly contextAfter?: number;
  readonly maxLineLength?: number;
  readonly mode?: SearchMode;
}

/** SearchLimits are the server's bounds on a search (from Config.limits). */
export interface SearchLimits {
  readonly maxSearchFileBytes: number;
  readonly maxSearchMatches: number;
  readonly searchTimeBudgetMs: number;
  /**
   * A test seam, not a config key: the most batches a search walks ahead of its consumer, staged
   * and in flight each (the defaults, stagedBatches and four per match worker, when unset). Tests
   * of paused walks lower it so that a small tree runs ahead as far as it may.
   */
  readonly searchRunAheadBatches?: number;
}

/** SearchSummaryValue closes a search: totals, and whether a limit cut it short. */
export interface SearchSummaryValue {
  readonly filesScanned: number;
  readonly filesMatched: number;
  readonly matches: number;
  readonly bytesScanned: number;
  readonly limitReached: boolean;
  readonly filesSkipped: number;
  readonly elapsedMs: number;
}

/** SearchEvent is one result of searchFiles: a line, a file (names and count modes), the summary. */
export type SearchEvent =
  | { readonly kind: "match"; readonly path: string; readonly line: MatchedLine }
  | { readonly kind: "file"; readonly path: string; readonly matches: number }
  | { readonly kind: "summary"; readonly summary: SearchSummaryValue };
