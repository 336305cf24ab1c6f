import path from "node:path";
import type { FilePlace } from "../../files/history/history-types.js";
import { isInside, rootContaining } from "../../sandbox/root-containing.js";
import type { Sandbox } from "../../sandbox/sandbox.js";

/** absoluteOf is the real path a recorded place names. */
export function absoluteOf(place: FilePlace): string {
  return path.join(place.root, place.relative);
}

/**
 * shownTo names a recorded place in the form the calling sandbox reads back as the same path:
 * relative to the caller's first root when it lies there (a relative path means that root to
 * it), absolute otherwise. Undefined when the place lies outside the caller's roots: a history
 * answer never names a path the caller cannot see.
 */
export function shownTo(sandbox: Sandbox, place: FilePlace): string | undefined {
  const absolute = absoluteOf(place);
  if (!sandbox.contains(absolute)) return undefined;
  const first = sandbox.roots[0];
  if (first !== undefined && isInside(first.path, absolute))
    return absolute === first.path ? "." : path.relative(first.path, absolute);
  return absolute;
}

/** writableTo tells whether a recorded place lies in a root the calling sandbox may change. */
export function writableTo(sandbox: Sandbox, place: FilePlace): boolean {
  const root = rootContaining(sandbox.roots, absoluteOf(place));
  return root !== undefined && !root.readOnly;
}
