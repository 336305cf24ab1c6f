/**
 * oneHunkDiff is the diff of last resort, for changes too big or too scattered for a line-by-line
 * diff: the common leading and trailing lines are context (3 lines of it), everything between is
 * one removal and one addition. It is found by comparing the texts in 64 KiB blocks from both
 * ends and lines are rendered only up to `maxBytes` of output (the rest is only counted), so it
 * costs a few native passes over the texts whatever their size. Written by hand because jsdiff
 * has no linear-time mode. CRs before line feeds are hidden, as in the full diff.
 */
export function oneHunkDiff(clientPath: string, before: string, after: string, maxBytes: number): string {
  return renderOneHunk(clientPath, before, after, changedLines(before, after), maxBytes);
}

/**
 * ChangedLines is where two texts differ, in whole lines: they share `before[0, start)` and
 * `before[endBefore, )` = `after[endAfter, )`, each a run of whole lines (the tail may be empty,
 * and lack its last newline), and differ in between.
 */
export interface ChangedLines {
  readonly start: number;
  readonly endBefore: number;
  readonly endAfter: number;
}

/** changedLines finds the lines two texts share at their start and end, in a few native passes. */
export function changedLines(before: string, after: string): ChangedLines {
  const prefix = commonPrefix(before, after);
  const ps = prefix === 0 ? 0 : before.lastIndexOf("\n", prefix - 1) + 1;
  let suffix = commonSuffix(before, after, Math.min(before.length, after.length) - ps);
  // The common tail must start at a line start in both texts: move it forward until it does.
  const startsLine = (text: string, at: number) => at === 0 || text[at - 1] === "\n";
  while (suffix > 0 && !(startsLine(before, before.length - suffix) && startsLine(after, after.length - suffix))) {
    const nl = before.indexOf("\n", before.length - suffix);
    suffix = nl === -1 ? 0 : before.length - nl - 1;
  }
  return { start: ps, endBefore: before.length - suffix, endAfter: after.length - suffix };
}

/**
 * renderOneHunk renders the change `block` as one hunk with 3 lines of context, lines rendered
 * only up to `maxBytes` of output.
 */
export function renderOneHunk(
  clientPath: string,
  before: string,
  after: string,
  block: ChangedLines,
  maxBytes: number,
): string {
  const ps = block.start;
  const sa = block.endBefore;
  const sb = block.endAfter;
  const cs = linesBack(before, ps, 3);
  const ceA = linesForward(before, sa, 3);
  const ceB = sb + (ceA - sa);
  const oldStart = countLines(before, 0, cs) + 1;
  // An empty side is shown starting at the line before it, as unified diffs write it.
  const oldLines = countLines(before, cs, ceA);
  const newLines = countLines(after, cs, ceB);
  const out: string[] = [
    `--- a/${clientPath}`,
    `+++ b/${clientPath}`,
    `@@ -${oldLines === 0 ? oldStart - 1 : oldStart},${oldLines} +${newLines === 0 ? oldStart - 1 : oldStart},${newLines} @@`,
  ];
  let size = out.reduce((n, line) => n + line.length + 1, 0);
  const emit = (text: string, from: number, to: number, mark: string): boolean => {
    for (let at = from; at < to && size <= maxBytes; ) {
      const nl = text.indexOf("\n", at);
      const end = nl === -1 || nl >= to ? to : nl;
      const line = text.slice(at, end);
      out.push(mark + (line.endsWith("\r") ? line.slice(0, -1) : line));
      size += line.length + 2;
      if (end === text.length && !text.endsWith("\n")) {
        out.push("\\ No newline at end of file");
      }
      at = end + 1;
    }
    return size <= maxBytes;
  };
  void (
    emit(before, cs, ps, " ") &&
    emit(before, ps, sa, "-") &&
    emit(after, ps, sb, "+") &&
    emit(before, sa, ceA, " ")
  );
  return `${out.join("\n")}\n`;
}

const block = 65536;

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i + block <= n && a.slice(i, i + block) === b.slice(i, i + block)) i += block;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string, max: number): number {
  let j = 0;
  while (
    j + block <= max &&
    a.slice(a.length - j - block, a.length - j) === b.slice(b.length - j - block, b.length - j)
  )
    j += block;
  while (j < max && a.charCodeAt(a.length - 1 - j) === b.charCodeAt(b.length - 1 - j)) j++;
  return j;
}

/** linesBack is the start of the line `count` lines before the line starting at `from`. */
function linesBack(text: string, from: number, count: number): number {
  let at = from;
  for (let k = 0; k < count && at > 0; k++) at = at < 2 ? 0 : text.lastIndexOf("\n", at - 2) + 1;
  return at;
}

/** linesForward is the end (after its "\n") of the `count`th line from the line starting at `from`. */
function linesForward(text: string, from: number, count: number): number {
  let at = from;
  for (let k = 0; k < count && at < text.length; k++) {
    const nl = text.indexOf("\n", at);
    at = nl === -1 ? text.length : nl + 1;
  }
  return at;
}

/** countLines counts the lines in text[from, to), a last line without "\n" included. */
function countLines(text: string, from: number, to: number): number {
  let n = 0;
  let at = from;
  for (let nl = text.indexOf("\n", at); nl !== -1 && nl < to; nl = text.indexOf("\n", at)) {
    n++;
    at = nl + 1;
  }
  return at < to ? n + 1 : n;
}
