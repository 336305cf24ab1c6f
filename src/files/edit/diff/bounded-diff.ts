import { jsdiff } from "../jsdiff.js";
import { oneHunkDiff } from "./one-hunk-diff.js";
import { uniqueBlockDiff } from "./unique-block-diff.js";

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

/**
 * largeTextChars is the combined size above which the line-by-line diff is not tried: splitting
 * tens of megabytes into line tokens alone would hold the event loop longer than the timeout.
 */
const largeTextChars = 4 * 1024 * 1024;

/** maxEditLength caps jsdiff's Myers search (changed lines), whose cost grows with lines × changes. */
const maxEditLength = 10_000;

/**
 * boundedDiff renders the change from `before` to `after` git-style (a/ and b/ prefixes, 3 lines
 * of context, CRs hidden), bounded twice so that it neither stalls the server nor makes the reply
 * fail after the edit was committed:
 *
 * - work: jsdiff's `timeout` and `maxEditLength` stop the line-by-line search, and texts over
 *   largeTextChars skip it; then the diff is one hunk from the first changed line to the last (a correct diff, just not minimal),
 *   built in one linear pass;
 * - size: a diff over `maxBytes` is cut at a line boundary and ends with a line saying how much
 *   was left out.
 *
 * `truncated` is true in either case.
 */
export function boundedDiff(clientPath: string, before: string, after: string, budget: DiffBudget): BoundedDiff {
  if (before.length + after.length > largeTextChars) {
    return cut(oneHunkDiff(clientPath, before, after, budget.maxBytes), budget.maxBytes, true);
  }
  // A one-block change (most edits) has exactly one shortest diff, built without jsdiff's search.
  const quick = uniqueBlockDiff(clientPath, before, after);
  if (quick !== undefined) {
    return cut(quick, budget.maxBytes, false);
  }
  const full = jsdiff().createTwoFilesPatch(`a/${clientPath}`, `b/${clientPath}`, before, after, undefined, undefined, {
    context: 3,
    stripTrailingCr: true,
    headerOptions: jsdiff().FILE_HEADERS_ONLY,
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
