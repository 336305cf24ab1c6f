import { fstat } from "node:fs";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { ReadableFile, ResolvedPath, Sandbox } from "../../sandbox/sandbox.js";
import { sha256Hex } from "../content-hash.js";
import { readAtMost } from "../read-at-most.js";
import { hashOpened } from "../write/commit-write.js";
import { atomicWrite } from "../write/atomic-write.js";
import { nodeFsOps, type AtomicFsOps } from "../write/fs-ops.js";
import { discardStaged, stageTempFile, type StagedTemp } from "../write/staged-temp.js";
import { withPathLock } from "../write/path-lock.js";
import { withFileLock } from "../write/with-file-lock.js";
import { checkPreconditions, parsePreconditions } from "../write/preconditions.js";
import { computeEdit, type RenderedDiff } from "./compute-edit.js";
import { checkEditRequest, defaultEditLimits, type EditLimits } from "./edit-limits.js";
import type { TextEdit } from "./edit-types.js";

/** EditFileOptions is one EditFile request in domain terms. */
export interface EditFileOptions {
  readonly path: string;
  readonly edits: readonly TextEdit[];
  /** Compute the result and diff, write nothing. */
  readonly dryRun?: boolean | undefined;
  readonly ifSha256?: string | undefined;
  /** Largest file an edit loads and produces (limits.maxEditBytes). */
  readonly maxEditBytes: number;
  /** The other bounds of one call; defaultEditLimits when not given. */
  readonly limits?: Partial<Omit<EditLimits, "maxEditBytes">> | undefined;
  /** A cancelled call stops computing and writes nothing. */
  readonly signal?: AbortSignal | undefined;
  readonly fsOps?: AtomicFsOps | undefined;
  /**
   * beforeChange is handed the content the edit read (under its locks) and the resolved path, as
   * soon as it is read; it runs while the new content is computed and written, and the rename
   * waits for it (the change history stores the content before here). Not called for a dry run.
   * It must not throw.
   */
  readonly beforeChange?: ((original: Buffer, resolved: ResolvedPath) => Promise<void>) | undefined;
  /**
   * afterChange is called once the new content is in place (renamed over the file, still under
   * the locks), alongside the folder's fsync, and the edit returns once it is done: the change
   * history writes its log line there. Not called when nothing was written. It must not throw.
   */
  readonly afterChange?:
    | ((change: { readonly previousSha256: string; readonly sha256: string }) => Promise<void>)
    | undefined;
  /**
   * whileSyncing is handed the edit's result as soon as the new content is in place (renamed over
   * the file), while the folder's fsync runs: the edit returns that same result once the fsync is
   * done, so a caller may prepare its reply meanwhile (EditFile encodes it). Called before
   * afterChange's promise settles; not called when nothing was written. It must not throw.
   */
  readonly whileSyncing?: ((result: EditFileResult) => void) | undefined;
}

/** EditFileResult says what an edit did or, for a dry run, would do. */
export interface EditFileResult {
  readonly replacements: number;
  /** Unified diff of the change, within limits.maxDiffBytes; "" when nothing changes. */
  readonly diff: string;
  /** True when `diff` is abridged (cut at its budget, or one hunk because a full diff would take too long). */
  readonly diffTruncated: boolean;
  readonly sha256: string;
  readonly size: number;
  /** True when the file was written: false for a dry run or edits that change nothing. */
  readonly applied: boolean;
  readonly previousSha256: string;
}

/**
 * editFile applies ordered edits to one text file, all or nothing, and writes the result with one
 * atomic write that keeps the file's mode, line-ending style and byte order mark.
 *
 * Read, edit and write happen under the path lock and the cross-process file lock, so concurrent
 * edits of one file, in this process or another replica, apply one after another and none is
 * lost. A dry run is refused on a read-only root like any edit, so that a client learns early
 * that the real edit cannot happen.
 */
export async function editFile(sandbox: Sandbox, options: EditFileOptions): Promise<EditFileResult> {
  const clientPath = options.path;
  const limits: EditLimits = {
    maxEditBytes: options.maxEditBytes,
    maxEdits: options.limits?.maxEdits ?? defaultEditLimits.maxEdits,
    maxDiffBytes: options.limits?.maxDiffBytes ?? defaultEditLimits.maxDiffBytes,
    diffTimeoutMs: options.limits?.diffTimeoutMs ?? defaultEditLimits.diffTimeoutMs,
  };
  checkEditRequest(options.edits, clientPath, limits);
  const preconditions = parsePreconditions(options.ifSha256, false);
  const resolved = await sandbox.resolveForWrite(clientPath);
  // The cross-process lock (every replica honours it) is held from the read to the rename, so
  // that no replica's edit is computed from content another is about to replace.
  const locked = { roots: sandbox.roots, displayPath: clientPath };
  return withPathLock(
    resolved.realPath,
    (heldPathLocks) =>
      withFileLock(resolved.realPath, locked, async (heldLock, directory) => {
        // The temporary file the write will fill is created while the file is read and the edit
        // computed; an edit that fails or changes nothing removes it again.
        const ops = options.fsOps ?? nodeFsOps;
        let staged = directory !== undefined && options.dryRun !== true ? stageTempFile(ops, directory) : undefined;
        let read;
        try {
          read = await readForEdit(sandbox, clientPath, options.maxEditBytes);
        } catch (err) {
          if (staged !== undefined) await discardStaged(ops, directory!, staged);
          throw err;
        }
        const { content: original, closed } = read;
        let stored: Promise<void> | undefined;
        try {
          const previousSha256 = sha256Hex(original);
          checkPreconditions(clientPath, preconditions, previousSha256);
          stored =
            options.dryRun === true ? undefined : options.beforeChange?.(original, resolved).catch(() => undefined);
          const { bytes, changed, replacements, renderDiff } = await computeEdit(
            original,
            options.edits,
            clientPath,
            limits,
            options.signal,
          );
          const result = {
            replacements,
            sha256: sha256Hex(bytes),
            size: bytes.byteLength,
            previousSha256,
          };
          if (options.dryRun === true || !changed) {
            return { ...result, ...(await renderDiff()), applied: false };
          }
          /** takeStaged hands the staged temporary file to the write, which owns it from then on. */
          const takeStaged = (): StagedTemp | undefined => {
            const taken = staged;
            staged = undefined;
            return taken;
          };
          let rendered: RenderedDiff | undefined;
          let committed: EditFileResult | undefined;
          const { afterChange, whileSyncing } = options;
          await atomicWrite(resolved.realPath, bytes, {
            displayPath: clientPath,
            roots: sandbox.roots,
            content: sandbox,
            fsOps: options.fsOps,
            heldLock,
            heldPathLocks,
            directory,
            staged: takeStaged(),
            lockAcrossProcesses: true,
            afterRename:
              afterChange === undefined && whileSyncing === undefined
                ? undefined
                : () => {
                    const recorded = afterChange?.({ previousSha256, sha256: result.sha256 }).catch(() => undefined);
                    committed = { ...result, ...rendered!, applied: true };
                    try {
                      whileSyncing?.(committed);
                    } catch {
                      // Only a head start on the caller's reply: it is made again from the result.
                    }
                    return recorded ?? Promise.resolve();
                  },
            // The lock orders this process's writers; another process (or a path swapped to another
            // file) can still change the file between the read and the rename. The edit must replace
            // exactly what it was computed from, or nothing. The reply's diff is rendered here, while
            // the new content's fsync runs, and before the rename (see ComputedEdit.renderDiff).
            beforeCommit: async ({ current, openCurrent }) => {
              // All three are waited for, even when one fails (a cancelled diff): no read of the
              // current file is left running on the folder's descriptor once the write cleans up.
              const [hashed, , rendering] = await Promise.allSettled([
                current === undefined ? undefined : hashOpened(openCurrent, current.size),
                stored,
                renderDiff(),
              ]);
              if (hashed.status === "rejected") throw hashed.reason;
              if (rendering.status === "rejected") throw rendering.reason;
              const now = hashed.value;
              const diff = rendering.value;
              if (now !== previousSha256) {
                throw new ToolhostError(
                  "PRECONDITION_FAILED",
                  `'${clientPath}' changed while it was being edited (it had sha256 ${previousSha256}, now ${now ?? "no file"}); nothing was written: re-read it and retry the edit.`,
                  { path: clientPath, expected_sha256: previousSha256, actual_sha256: now ?? "" },
                );
              }
              rendered = diff;
            },
          });
          return committed ?? { ...result, ...rendered!, applied: true };
        } finally {
          // Whatever the outcome, the call returns only once the history capture is done, the file
          // read is closed and a temporary file no write took over is removed.
          await Promise.all([
            stored,
            closed,
            staged === undefined ? undefined : discardStaged(ops, directory!, staged),
          ]);
        }
      }),
    locked,
  );
}

/**
 * readForEdit loads a whole file through the sandbox's verified reader, refusing one over the
 * limit. On a local filesystem the reader opens, reads a small file and closes on the calling
 * thread (sandbox.openContent, see sync-io-policy.ts): an edit makes no thread-pool round trip to
 * read. The handle is closed in the background once read (`closed`, which never rejects); the
 * caller awaits `closed` before it answers.
 */
async function readForEdit(
  sandbox: Sandbox,
  clientPath: string,
  maxEditBytes: number,
): Promise<{ content: Buffer; closed: Promise<void> }> {
  const opened = await sandbox.openContent(clientPath);
  let content: Buffer;
  try {
    content = await readOpened(opened, clientPath, maxEditBytes);
  } catch (err) {
    await opened.handle.close();
    throw err;
  }
  return { content, closed: opened.handle.close().catch(() => undefined) }; // Read already: a failed close loses nothing.
}

async function readOpened(opened: ReadableFile, clientPath: string, maxEditBytes: number): Promise<Buffer> {
  if (opened.stats.size > maxEditBytes) {
    throw tooLarge(clientPath, opened.stats.size, maxEditBytes);
  }
  // One read of a byte more than fstat said: a short read is the end of the file (no second
  // fstat and read to find it, as readFile would). Only if the file grew meanwhile is the rest
  // read, still within the limit, which holds for what was actually read.
  const first = Buffer.allocUnsafe(opened.stats.size + 1);
  const { bytesRead } = await opened.handle.read(first, 0, first.length, 0);
  if (bytesRead < first.length) {
    return first.subarray(0, bytesRead);
  }
  const { content, more } = await readAtMost(opened.handle, maxEditBytes, first.length);
  if (more) {
    const grown = await new Promise<number>((resolve) =>
      fstat(opened.handle.fd, (err, stats) => resolve(err ? maxEditBytes + 1 : stats.size)),
    );
    throw tooLarge(clientPath, Math.max(grown, maxEditBytes + 1), maxEditBytes);
  }
  return content;
}

function tooLarge(clientPath: string, size: number, limit: number): ToolhostError {
  return new ToolhostError(
    "TOO_LARGE",
    `'${clientPath}' is too large to edit: ${size} bytes, over the limit of ${limit} bytes; replace it whole with WriteFile or UploadFile instead.`,
    { path: clientPath, size: String(size), limit: String(limit) },
  );
}
