import { ToolhostError } from "../../errors/toolhost-error.js";
import { compileGlob } from "../glob/compile-glob.js";

/** maxGlobs is the most include (or exclude) globs one request may give. */
export const maxGlobs = 64;
/** maxGlobLength is the longest glob accepted, in characters. */
export const maxGlobLength = 256;
/** maxGlobBraces is the most brace groups one glob may have (each multiplies the alternatives). */
export const maxGlobBraces = 8;

/**
 * PathMatcher tells whether a path relative to the searched folder matches any of a list of
 * globs; undefined when the list is empty.
 */
export type PathMatcher = (relativePath: string, name: string) => boolean;

/**
 * compileGlobs builds a matcher for a list of client globs (SearchFiles' and WatchFiles' include
 * and exclude), with bounds on their number, length and brace groups; each glob is compiled by
 * the shared compileGlob, so it runs without backtracking and extglobs are refused. A glob
 * without "/" matches an entry's name at any depth, as in .gitignore; one with "/" matches the
 * whole relative path. Hidden entries match like any other: the walkers drop them unless the
 * client asked for them. `budgetMs` is compileGlob's (Infinity for a watch, which never ends).
 */
export function compileGlobs(field: string, globs: readonly string[], budgetMs?: number): PathMatcher | undefined {
  if (globs.length === 0) return undefined;
  if (globs.length > maxGlobs) {
    throw new ToolhostError(
      "PATTERN_TOO_COMPLEX",
      `${field} has ${globs.length} globs; at most ${maxGlobs} are allowed.`,
      { field },
    );
  }
  const byName: ((s: string) => boolean)[] = [];
  const byPath: ((s: string) => boolean)[] = [];
  for (const glob of globs) {
    if (glob === "") throw new ToolhostError("INVALID_ARGUMENT", `${field} has an empty glob; remove it.`, { field });
    if (glob.length > maxGlobLength || (glob.match(/\{/g)?.length ?? 0) > maxGlobBraces) {
      throw new ToolhostError(
        "PATTERN_TOO_COMPLEX",
        `The ${field} glob "${glob.slice(0, 80)}" is too complex: at most ${maxGlobLength} characters and ${maxGlobBraces} brace groups.`,
        { field },
      );
    }
    (glob.includes("/") ? byPath : byName).push(compileGlob(glob, { field, budgetMs }));
  }
  return (relativePath, name) => byName.some((m) => m(name)) || byPath.some((m) => m(relativePath));
}
