import { changedLines, renderOneHunk } from "./one-hunk-diff.js";

/** maxBlockLines is the most lines either side of the changed block may have for the quick path. */
const maxBlockLines = 32;

/**
 * maxScanChars bounds the quick path's searching (each line of a block is looked for in the
 * other text): past it, jsdiff (with its own time bound) decides.
 */
const maxScanChars = 16 * 1024 * 1024;

/**
 * uniqueBlockDiff is the unified diff of a change that is one block of whole lines none of which
 * occurs anywhere in the other text — what a typical edit is (a replacement within a line or a
 * few, an insertion, a removal) — built in a few native passes instead of jsdiff's line-by-line
 * search; undefined for any other change (the caller then asks jsdiff).
 *
 * Why it is exactly jsdiff's diff: the texts share the lines before the block (P) and after it
 * (S). If no line of the new block occurs in the old text and no line of the old block in the
 * new text, a common subsequence of lines can only pair lines of P and S, which read the same
 * in both texts; the longest one pairs all of them, in place. So the shortest edit script is
 * unique — remove the old block, add the new one — and Myers' algorithm (jsdiff's) finds it;
 * jsdiff then writes removals before additions, 3 lines of context, as renderOneHunk does.
 * Texts with a CR (jsdiff's stripTrailingCr) or without a final newline ("\ No newline at end of
 * file") are left to jsdiff. test/files/edit-diff-bounds.test.ts compares the two on thousands
 * of random edits. Measured: ~75 us for jsdiff on a 4 KB file with one line changed (more while
 * its code is cold), a few us here.
 */
export function uniqueBlockDiff(clientPath: string, before: string, after: string): string | undefined {
  if (!before.endsWith("\n") || !after.endsWith("\n") || before.includes("\r") || after.includes("\r"))
    return undefined;
  const block = changedLines(before, after);
  if (
    !occursNowhere(before, block.start, block.endBefore, after) ||
    !occursNowhere(after, block.start, block.endAfter, before)
  )
    return undefined;
  // Rendered whole, as jsdiff's is (at most 2 x maxBlockLines lines and their context), so that a
  // cut of it (boundedDiff) says how much was left out exactly as it would of jsdiff's.
  return renderOneHunk(clientPath, before, after, block, Number.POSITIVE_INFINITY);
}

/**
 * occursNowhere tells whether none of the lines of text[from, to) (whole lines, each ending in
 * "\n") is a line of `other`; false as well for more than maxBlockLines lines, or more searching
 * than maxScanChars.
 */
function occursNowhere(text: string, from: number, to: number, other: string): boolean {
  const most = Math.min(maxBlockLines, Math.floor(maxScanChars / Math.max(1, other.length)));
  for (let at = from, lines = 0; at < to; lines++) {
    if (lines === most) return false;
    const end = text.indexOf("\n", at) + 1;
    const line = text.slice(at, end);
    if (other.startsWith(line) || other.includes(`\n${line}`)) return false;
    at = end;
  }
  return true;
}
