import { ToolhostError } from "../../errors/toolhost-error.js";
import type { MatchSpec } from "./match-spec.js";
import { compileGlobs, type PathMatcher } from "./path-globs.js";
import { requiredTexts } from "./required-texts.js";
import type { SearchLimits, SearchMode, SearchRequest } from "./search-types.js";

/** maxPatternLength is the longest pattern accepted, in characters. */
export const maxPatternLength = 1000;
/** maxContextLines is the most context lines before (or after) a match. */
export const maxContextLines = 20;
/** defaultLineLength and maxLineLengthLimit bound the characters of a returned line. */
export const defaultLineLength = 500;
export const maxLineLengthLimit = 10_000;
/** lineBudgetChars bounds the characters one batch of results may hold (lines and context). */
const lineBudgetChars = 400_000;

/** SearchPlan is a validated search: what to match, where, and every bound. */
export interface SearchPlan {
  readonly clientPath: string;
  readonly spec: MatchSpec;
  readonly include: PathMatcher | undefined;
  readonly exclude: PathMatcher | undefined;
  readonly useIgnoreFiles: boolean;
  readonly includeHidden: boolean;
  readonly maxFileBytes: number;
  readonly maxMatches: number;
  /** 0: no per-file limit. */
  readonly maxMatchesPerFile: number;
  /** Most lines one worker answer holds for one file (memory bound). */
  readonly linesPerBatch: number;
  readonly budgetMs: number;
}

/**
 * planSearch checks a search request against its bounds and compiles it: INVALID_ARGUMENT for an
 * empty or malformed pattern, PATTERN_TOO_COMPLEX for one over maxPatternLength or globs over
 * theirs. Sizes and counts over the server's limits are lowered to them.
 */
export function planSearch(request: SearchRequest, limits: SearchLimits): SearchPlan {
  const pattern = request.pattern;
  if (pattern === "") {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      "pattern must not be empty; give the text or regular expression to search for.",
      { field: "pattern" },
    );
  }
  if (pattern.length > maxPatternLength) {
    throw new ToolhostError(
      "PATTERN_TOO_COMPLEX",
      `pattern is ${pattern.length} characters; at most ${maxPatternLength} are allowed.`,
      { field: "pattern" },
    );
  }
  const literal = request.regex !== true;
  let source = literal ? escapeRegExp(pattern) : pattern;
  if (request.wholeWord === true) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
  const flags = `${request.caseInsensitive === true ? "i" : ""}${!literal || request.wholeWord === true ? "u" : ""}`;
  try {
    new RegExp(source, `gm${flags}`);
  } catch (err) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `pattern is not a valid regular expression: ${(err as Error).message}. Escape special characters or set regex to false.`,
      { field: "pattern" },
    );
  }
  const mode: SearchMode = request.mode ?? "content";
  const contextBefore = bounded(request.contextBefore, 0, maxContextLines, "context_before");
  const contextAfter = bounded(request.contextAfter, 0, maxContextLines, "context_after");
  const maxLineLength = request.maxLineLength
    ? bounded(request.maxLineLength, 1, maxLineLengthLimit, "max_line_length")
    : defaultLineLength;
  const includeHidden = request.includeHidden === true;
  return {
    clientPath: request.path === "" ? "." : request.path,
    spec: {
      source,
      flags,
      required: requiredTexts(source, flags),
      lineBound: literal && request.caseInsensitive !== true && !/[\r\n]/.test(pattern),
      mode,
      contextBefore,
      contextAfter,
      maxLineLength,
    },
    include: compileGlobs("include", request.include ?? []),
    exclude: compileGlobs("exclude", request.exclude ?? []),
    useIgnoreFiles: request.noIgnore !== true,
    includeHidden,
    maxFileBytes: Math.min(request.maxFileSize || limits.maxSearchFileBytes, limits.maxSearchFileBytes),
    maxMatches: Math.min(request.maxMatches || limits.maxSearchMatches, limits.maxSearchMatches),
    maxMatchesPerFile: request.maxMatchesPerFile ?? 0,
    linesPerBatch:
      mode === "content"
        ? Math.max(1, Math.floor(lineBudgetChars / ((1 + contextBefore + contextAfter) * maxLineLength)))
        : Number.MAX_SAFE_INTEGER,
    budgetMs: limits.searchTimeBudgetMs,
  };
}

function bounded(value: number | undefined, min: number, max: number, field: string): number {
  const v = value ?? min;
  if (v > max) {
    throw new ToolhostError("INVALID_ARGUMENT", `${field} is ${v}; at most ${max} is allowed.`, { field });
  }
  return Math.max(min, v);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
