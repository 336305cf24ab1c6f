import { jsdiff } from "../edit/jsdiff.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { sha256Hex } from "../content-hash.js";
import { readAtMost } from "../read-at-most.js";
import { applyChunks } from "./apply-chunks.js";
import type { PatchOperation } from "./patch-types.js";

/** StagedFile is one file of a patch, checked and computed, not yet written. */
export interface StagedFile {
  readonly operation: PatchOperation["kind"] | "move";
  readonly path: string;
  readonly moveTo: string | undefined;
  /** Content before (undefined for an added file) and its SHA-256 ("" when none). */
  readonly before: Buffer | undefined;
  readonly beforeSha256: string;
  /** Content after (undefined for a deleted file) and its SHA-256 ("" when none). */
  readonly after: Buffer | undefined;
  readonly afterSha256: string;
  readonly diff: string;
  /** True when the diff was too costly to compute and `diff` only says so (see diffBounds). */
  readonly diffOmitted: boolean;
}

/**
 * stagePatch checks every file of a patch before anything is written: each path through the
 * sandbox for writing (read-only roots and paths outside the roots refused), added files and move
 * targets absent, updated and deleted files present, UTF-8 and within maxBytes, every hunk
 * applicable, and all their contents before and after within twice maxBytes (they are held in
 * memory: 100 files at the edit limit would be gigabytes). It returns each file's content before
 * and after, so the commit can guard every step with the hash it saw, and put back what it
 * changed if a later step fails.
 */
export async function stagePatch(
  sandbox: Sandbox,
  ops: readonly PatchOperation[],
  maxBytes: number,
): Promise<StagedFile[]> {
  const staged: StagedFile[] = [];
  let stagedBytes = 0;
  const push = (one: StagedFile) => {
    // Every staged file's content before and after stays in memory until the commit ends.
    stagedBytes += (one.before?.length ?? 0) + (one.after?.length ?? 0);
    if (stagedBytes > 2 * maxBytes) {
      throw new ToolhostError(
        "TOO_LARGE",
        `The patch's files hold over ${2 * maxBytes} bytes before and after, in all, at "${one.path}" (twice the ${maxBytes}-byte edit limit); split it into smaller patches. Nothing was changed.`,
        { path: one.path, limit: String(2 * maxBytes) },
      );
    }
    staged.push(one);
  };
  const diffDeadline = Date.now() + diffBounds.diffMs;
  const file = (...args: FileArgs) => stagedFile(diffDeadline, ...args);
  for (const op of ops) {
    if (op.kind === "add") {
      await sandbox.resolveForWrite(op.path);
      await mustBeAbsent(sandbox, op.path);
      const after = Buffer.from(op.content, "utf8");
      push(file("add", op.path, undefined, undefined, after));
      continue;
    }
    if (op.kind === "delete") {
      await sandbox.resolveEntryForWrite(op.path);
      push(file("delete", op.path, undefined, await readText(sandbox, op.path, maxBytes), undefined));
      continue;
    }
    await sandbox.resolveForWrite(op.path);
    if (op.moveTo !== undefined) {
      await sandbox.resolveEntryForWrite(op.path);
      await sandbox.resolveForWrite(op.moveTo);
      await mustBeAbsent(sandbox, op.moveTo);
    }
    const before = await readText(sandbox, op.path, maxBytes);
    const after = Buffer.from(applyChunks(op.path, before.toString("utf8"), op.chunks), "utf8");
    if (after.length > maxBytes) {
      throw new ToolhostError(
        "TOO_LARGE",
        `The patch makes "${op.path}" ${after.length} bytes, over the ${maxBytes}-byte edit limit; nothing was changed.`,
        { path: op.path, size: String(after.length), limit: String(maxBytes) },
      );
    }
    push(file(op.moveTo === undefined ? "update" : "move", op.path, op.moveTo, before, after));
  }
  return staged;
}

type FileArgs = [
  operation: StagedFile["operation"],
  path: string,
  moveTo: string | undefined,
  before: Buffer | undefined,
  after: Buffer | undefined,
];

function stagedFile(diffDeadline: number, ...[operation, path, moveTo, before, after]: FileArgs): StagedFile {
  const beforeText = before?.toString("utf8") ?? "";
  const afterText = after?.toString("utf8") ?? "";
  return {
    operation,
    path,
    moveTo,
    before,
    beforeSha256: before === undefined ? "" : sha256Hex(before),
    after,
    afterSha256: after === undefined ? "" : sha256Hex(after),
    ...boundedDiff(
      before === undefined ? "/dev/null" : path,
      after === undefined ? "/dev/null" : (moveTo ?? path),
      beforeText,
      afterText,
      diffDeadline,
    ),
  };
}

/**
 * diffBounds cap the diffs sent back: Myers' work grows with the square of the changed lines (a
 * 20,000-line rewrite held the event loop for minutes), so a file whose diff passes maxEditLength
 * changed lines (an added or deleted file is linear and exempt), or comes after diffMs of diff
 * work for the whole patch, gets a note saying its diff was left out. Only the reply is cut; the
 * files are written whole either way.
 */
export const diffBounds = { maxEditLength: 2000, diffMs: 500 } as const;

function boundedDiff(
  oldName: string,
  newName: string,
  beforeText: string,
  afterText: string,
  deadline: number,
): { diff: string; diffOmitted: boolean } {
  const linear = beforeText === "" || afterText === "";
  const diff = jsdiff().createTwoFilesPatch(oldName, newName, beforeText, afterText, undefined, undefined, {
    context: 3,
    ...(linear ? {} : { maxEditLength: diffBounds.maxEditLength }),
    timeout: Math.max(1, deadline - Date.now()),
  });
  if (diff !== undefined) return { diff, diffOmitted: false };
  return {
    diff: `--- ${oldName}\n+++ ${newName}\n[diff omitted: too many changed lines to compute; ReadFile shows the result, sha256_after identifies it]\n`,
    diffOmitted: true,
  };
}

async function mustBeAbsent(sandbox: Sandbox, path: string): Promise<void> {
  if ((await sandbox.resolve(path)).exists) {
    throw new ToolhostError(
      "ALREADY_EXISTS",
      `"${path}" exists already; the patch would add or move a file there. Update it instead, or delete it first; nothing was changed.`,
      { path },
    );
  }
}

async function readText(sandbox: Sandbox, path: string, maxBytes: number): Promise<Buffer> {
  const opened = await sandbox.openContent(path);
  try {
    if (opened.stats.size > maxBytes) {
      throw new ToolhostError(
        "TOO_LARGE",
        `"${path}" is ${opened.stats.size} bytes, over the ${maxBytes}-byte edit limit; a patch cannot change it.`,
        { path, size: String(opened.stats.size), limit: String(maxBytes) },
      );
    }
    const { content, more } = await readAtMost(opened.handle, maxBytes, opened.stats.size);
    if (more) {
      throw new ToolhostError(
        "TOO_LARGE",
        `"${path}" grew past the ${maxBytes}-byte edit limit while it was read; a patch cannot change it.`,
        { path, limit: String(maxBytes) },
      );
    }
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(content);
    } catch {
      throw new ToolhostError(
        "BINARY_FILE",
        `Binary file detected: "${path}" is not UTF-8 text, so a patch cannot change it.`,
        { path },
      );
    }
    return content;
  } finally {
    await opened.handle.close();
  }
}
