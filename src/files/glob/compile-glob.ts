import { createRequire } from "node:module";
import v8 from "node:v8";
import type picomatchModule from "picomatch";
import { ToolhostError } from "../../errors/toolhost-error.js";

// picomatch is required at the first glob compiled, not at start-up: an idle server does not
// need it (ADR 0008).
const require = createRequire(import.meta.url);
let loaded: typeof picomatchModule | undefined;
function picomatch(): typeof picomatchModule {
  loaded ??= require("picomatch") as typeof picomatchModule;
  return loaded;
}

/** GlobOptions say how a compiled glob is applied. */
export interface GlobOptions {
  /** Match the last path segment only (ListDirectory does this for a glob without "/"). */
  readonly basename?: boolean | undefined;
  /** The field the pattern came from, for messages ("glob"). */
  readonly field?: string | undefined;
  /**
   * The time all matching of this glob may take together (default matchBudgetMs): one call's
   * worth. A stream that lives for hours (WatchFiles) passes Infinity and relies on the linear
   * engine alone.
   */
  readonly budgetMs?: number | undefined;
}

/** GlobMatcher tells whether a "/"-separated relative path matches. */
export type GlobMatcher = (path: string) => boolean;

/** maxGlobLength is the longest glob accepted, in characters (matching costs up to length x path). */
export const maxGlobLength = 256;
/** maxBraceGroups is the most "{...}" groups a glob may have (each multiplies the alternatives). */
export const maxBraceGroups = 16;
/**
 * matchBudgetMs is the most time one compiled glob may spend matching, summed over every path it
 * is asked about (one ListDirectory page): past it the call ends with PATTERN_TOO_COMPLEX rather
 * than hold the event loop. Far above what ordinary globs need for a full page (a few ms).
 */
export const matchBudgetMs = 1000;

// V8's linear-time regular expression engine (the "l" flag) runs a regex in time linear in the
// text, whatever the pattern: no backtracking, so no glob can stall the event loop. It is behind a
// flag in Node 20; the flag only makes the "l" flag available and changes no other regex.
v8.setFlagsFromString("--enable-experimental-regexp-engine");
const linearFlag = ((): string => {
  try {
    new RegExp("a", "l");
    return "l";
  } catch {
    return "";
  }
})();

/**
 * compileGlob turns a client's glob into a matcher that cannot backtrack: every glob user
 * (ListDirectory, and SearchFiles and WatchFiles after it) compiles through here.
 *
 * picomatch gives the glob its meaning (stars, "**", "?", classes, braces, a leading "!" to
 * negate); the regex it builds then runs on V8's linear-time engine unless the glob is simple
 * enough to be safe on the usual one (compileRegex). All matching of one compiled glob together
 * is held to matchBudgetMs. Refused with
 * INVALID_ARGUMENT / PATTERN_TOO_COMPLEX: a glob over maxGlobLength characters or maxBraceGroups
 * brace groups, extglobs ("@(", "!(", "+(", "*(", "?(") and anything else the linear engine
 * cannot run. Without the linear engine (another runtime), a glob with more than 3 wildcards is
 * refused instead, which keeps backtracking polynomial and small.
 *
 * Hidden entries: the pattern is compiled with picomatch's `dot` on, because callers drop hidden
 * entries themselves unless the client asked for them (a dot rule in the regex would need a
 * lookahead, which the linear engine has not).
 */
export function compileGlob(pattern: string, options: GlobOptions = {}): GlobMatcher {
  const field = options.field ?? "glob";
  if (pattern.length > maxGlobLength) {
    throw tooComplex(pattern, field, `it is ${pattern.length} characters long, over the limit of ${maxGlobLength}`);
  }
  if (/[@!+*?]\(/.test(pattern)) {
    throw tooComplex(
      pattern,
      field,
      'extglobs ("@(", "!(", "+(", "*(", "?(") are not supported; use "*", "**", "?", [classes] and {a,b} braces',
    );
  }
  const braces = (pattern.match(/\{/g) ?? []).length;
  if (braces > maxBraceGroups) {
    throw tooComplex(pattern, field, `it has ${braces} brace groups, over the limit of ${maxBraceGroups}`);
  }
  const negated = pattern.startsWith("!");
  const body = negated ? pattern.slice(1) : pattern;
  const regex = compileRegex(body, pattern, field);
  const basename = options.basename === true;
  const budgetMs = options.budgetMs ?? matchBudgetMs;
  let spentMs = 0;
  return (path: string): boolean => {
    const started = performance.now();
    const matched = regex.test(basename ? path.slice(path.lastIndexOf("/") + 1) : path);
    spentMs += performance.now() - started;
    if (spentMs > budgetMs) {
      throw tooComplex(pattern, field, `matching it ran past its time budget of ${budgetMs} ms`);
    }
    return matched !== negated;
  };
}

/**
 * compileRegex builds the regex a glob runs as. A glob with at most two wildcards and no braces
 * backtracks at most quadratically in a path (bounded by PATH_MAX) and runs on the usual engine,
 * which is several times faster per match; every other glob runs on the linear-time engine.
 */
function compileRegex(body: string, pattern: string, field: string): RegExp {
  const wildcards = (body.match(/\*+/g) ?? []).length;
  if (wildcards <= 2 && !body.includes("{")) {
    return picomatch().makeRe(body, { dot: true, noextglob: true, nonegate: true, maxLength: maxGlobLength });
  }
  const source = picomatch()
    .makeRe(body, { dot: true, noextglob: true, nonegate: true, maxLength: maxGlobLength })
    .source // The "." and ".." segment guards and the non-empty guard are lookaheads; a relative
    // path from a walk never has such segments nor empty ones, so they can go.
    .replaceAll("(?!(?:^|\\/)\\.{1,2}(?:\\/|$))", "")
    .replaceAll("(?!\\.{1,2}(?:\\/|$))", "")
    .replaceAll("(?=.)", "");
  if (linearFlag === "") {
    const wildcards = (body.match(/\*+/g) ?? []).length;
    if (wildcards > 3) {
      throw tooComplex(pattern, field, `it has ${wildcards} wildcards, over the limit of 3`);
    }
  }
  try {
    return new RegExp(source, linearFlag);
  } catch {
    throw tooComplex(pattern, field, "it cannot be matched in linear time");
  }
}

function tooComplex(pattern: string, field: string, why: string): ToolhostError {
  const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
  return new ToolhostError("PATTERN_TOO_COMPLEX", `${field} "${shown}" is too complex: ${why}; simplify the pattern.`, {
    field,
    length: String(pattern.length),
  });
}
