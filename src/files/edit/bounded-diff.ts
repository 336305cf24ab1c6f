import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";

/** DiffBudget bounds the diff of one edit: its size in the reply and the work to compute it. */
export interface DiffBudget {
  /** Largest diff returned, in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Longest the line-by-line diff may run, in ms. */
  readonly timeoutMs: number;
}

/** BoundedDiff is the diff a reply carries, and whether it is abridged. */
export interface BoundedDiff {
  readonly diff: string;
  readonly truncated: boolean;
}

/** maxEditLength caps jsdiff's Myers search (changed lines), whose cost grows with lines × changes. */
const maxEditLength = 10_000;

/**
 * boundedDiff renders the change from `before` to `after` git-style (a/ and b/ prefixes, 3 lines
 * of context, CRs hidden), bounded twice so that it neither stalls the server nor makes the reply
 * fail after the edit was committed:
 *
 * - work: jsdiff's `timeout` and `maxEditLength` stop the line-by-line search; past them, the
 *   diff is one hunk from the first changed line to the last (a correct diff, just not minimal),
 *   built in one linear pass;
 * - size: a diff over `maxBytes` is cut at a line boundary and ends with a line saying how much
 *   was left out.
 *
 * `truncated` is true in either case.
 */
export function boundedDiff(clientPath: string, before: string, after: string, budget: DiffBudget): BoundedDiff {
  const full = createTwoFilesPatch(`a/${clientPath}`, `b/${clientPath}`, before, after, undefined, undefined, {
    context: 3,
    stripTrailingCr: true,
    headerOptions: FILE_HEADERS_ONLY,
    timeout: budget.timeoutMs,
    maxEditLength,
  });
  if (full !== undefined) {
    return cut(full, budget.maxBytes, false);
  }
  return cut(oneHunkDiff(clientPath, before, after, budget.maxBytes), budget.maxBytes, true);
}

/** cut keeps whole lines of `diff` up to `maxBytes`, ending with a line that says what is missing. */
function cut(diff: string, maxBytes: number, abridged: boolean): BoundedDiff {
  if (diff.length <= maxBytes / 3 || Buffer.byteLength(diff, "utf8") <= maxBytes) {
    return { diff, truncated: abridged };
  }
  const bytes = Buffer.from(diff, "utf8");
  const room = Math.max(0, maxBytes - 200);
  const end = bytes.lastIndexOf(0x0a, room - 1) + 1;
  const kept = bytes.subarray(0, end).toString("utf8");
  const note = `... diff cut at ${maxBytes} bytes (limits.max_edit_diff_bytes): ${bytes.byteLength - end} bytes more; the edit was applied whole, re-read the file to see it\n`;
  return { diff: kept + note, truncated: true };
}

/**
 * oneHunkDiff is the fallback diff: common leading and trailing lines are context, everything
 * between is one removal and one addition. Lines past `maxBytes` of output are counted, not
 * rendered, so the fallback costs one pass over the texts whatever their size.
 */
function oneHunkDiff(clientPath: string, before: string, after: string, maxBytes: number): string {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const from = Math.max(0, head - 3);
  const aEnd = Math.min(a.length, a.length - tail + 3);
  const bEnd = Math.min(b.length, b.length - tail + 3);
  const out: string[] = [`--- a/${clientPath}`, `+++ b/${clientPath}`, `@@ -${from + 1},${aEnd - from} +${from + 1},${bEnd - from} @@`];
  let size = out.reduce((n, l) => n + l.length + 1, 0);
  const push = (line: string): boolean => {
    out.push(line);
    size += line.length + 1;
    return size <= maxBytes;
  };
  const render = (): void => {
    for (let i = from; i < head; i++) if (!push(` ${a[i]}`)) return;
    for (let i = head; i < a.length - tail; i++) if (!push(`-${a[i]}`)) return;
    for (let i = head; i < b.length - tail; i++) if (!push(`+${b[i]}`)) return;
    for (let i = a.length - tail; i < aEnd; i++) if (!push(` ${a[i]}`)) return;
  };
  render();
  return `${out.join("\n")}\n`;
}

/** splitLines splits text into lines without their endings (a final "\n" ends the last line). */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}
