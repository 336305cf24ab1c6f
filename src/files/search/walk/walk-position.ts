import type { PathMatcher } from "../path-globs.js";

/**
 * WalkPosition is a point in SyncWalk's order, given as the path (relative to the walk's start)
 * of the last file handed to the searcher; a walk resumed from it hands over exactly the files
 * after it, as the uninterrupted walk would have.
 *
 * The order is depth-first: in each folder first its files, then its sub-folders, each in name
 * order (JavaScript string order, as SyncWalk sorts). So a file's place is its folders' names
 * each marked "folder", then its own name marked "file" (files sort before folders), compared
 * element by element.
 */
export type WalkPosition = string;

/** Step is one element of an entry's place in walk order: 0 a file's name, 1 a folder's. */
type Step = readonly [kind: 0 | 1, name: string];

/**
 * resumeFilters wraps a walk's include and exclude matchers so that the walk skips what lies at or
 * before `after`: `exclude` also drops every folder whose whole subtree comes before it (SyncWalk
 * asks exclude about files and folders alike, so it only drops what is before `after` either way:
 * in an ancestor of `after`'s folder every file is before it), and `include` also drops every file
 * at or before it (SyncWalk asks include about files only).
 */
export function resumeFilters(
  after: WalkPosition,
  include: PathMatcher | undefined,
  exclude: PathMatcher | undefined,
): { include: PathMatcher; exclude: PathMatcher } {
  const mark = fileSteps(after);
  return {
    include: (relative, name) =>
      compare(fileSteps(relative), mark) > 0 && (include === undefined || include(relative, name)),
    exclude: (relative, name) => folderBefore(relative.split("/"), mark) || exclude?.(relative, name) === true,
  };
}

/** fileSteps is a file's place in walk order. */
function fileSteps(relative: string): Step[] {
  const names = relative.split("/");
  return names.map((name, i): Step => [i === names.length - 1 ? 0 : 1, name]);
}

/** folderBefore tells whether the folder at `names` and all below it come before `mark`. */
function folderBefore(names: readonly string[], mark: readonly Step[]): boolean {
  for (let i = 0; i < names.length; i++) {
    const step = mark[i];
    if (step === undefined) return false;
    const order = compareStep([1, names[i]!], step);
    if (order !== 0) return order < 0;
  }
  return false; // `mark` lies inside this folder
}

function compare(a: readonly Step[], b: readonly Step[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareStep(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

function compareStep(a: Step, b: Step): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}
