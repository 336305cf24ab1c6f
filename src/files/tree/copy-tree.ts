import { fstat, futimes } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { openTargetDirectory, type TargetDirectory } from "../write/target-directory.js";
import { recordStaging, type StagingEntry } from "../write/staging-journal.js";
import { tempFileName, tempFilePrefix, tempTouchMs } from "../write/temp-files.js";
import { toWriteError } from "../write/write-error.js";
import { discardTree } from "./clear-held-tree.js";
import { copyEntryInto, isTakenError } from "./copy-entry.js";
import { placeEntry } from "./place-entry.js";
import { readableRoots } from "./source-entry.js";
import { alreadyExistsError, reservedNameInTreeError, tooManyEntriesError } from "./tree-errors.js";
import type { TreeFsOps } from "./tree-fs-ops.js";
import { walkHeldTree } from "./walk-held-tree.js";

const fstatAsync = promisify(fstat);

/** CopyTreeOptions tunes copyTree. */
export interface CopyTreeOptions {
  readonly from: string;
  readonly to: string;
  readonly keepMode: boolean;
  readonly maxEntries: number;
  readonly signal?: AbortSignal | undefined;
}

const newDirectoryMode = 0o777 & ~process.umask();

/**
 * copyTree copies the directory at `fromAt` (relative to its held parent) to `name` in the held
 * directory `target`. The copy is built in a staging directory (temporary-file name) beside the
 * target, each file copied atomically (copy-entry.ts), links as links, every directory on both
 * sides opened through verified descriptors (walk-held-tree.ts); then it takes its name in one
 * step without replacing anything (place-entry.ts: mkdir reservation, rename over it). So the
 * tree appears complete or not at all, and over `maxEntries` entries nothing is left behind.
 * The staging folder is named like a temporary file (its writer in the name), recorded in the
 * staging journal (staging-journal.ts) before it holds anything and touched every tempTouchMs
 * while the copy runs, so that a crash leaves it to the start-up sweep (sweep-temp-files.ts),
 * which removes only recorded folders and never a live copy's.
 */
export async function copyTree(
  ops: TreeFsOps,
  sandbox: Sandbox,
  fromAt: string,
  target: TargetDirectory,
  name: string,
  options: CopyTreeOptions,
): Promise<{ bytesCopied: number; entriesCopied: number }> {
  const sourceRoots = readableRoots(sandbox);
  const source = await openTargetDirectory(ops, fromAt, { roots: sourceRoots, displayPath: options.from }).catch(
    (err: unknown) => {
      throw toWriteError(err, options.from, "copy");
    },
  );
  const stagingName = tempFileName();
  const stagingAt = target.entry(stagingName);
  const open = new Map<string, TargetDirectory>();
  let made = false;
  let journal: StagingEntry | undefined;
  let touching: NodeJS.Timeout | undefined;
  try {
    await ops.mkdir(stagingAt, 0o700);
    made = true;
    const staging = await openTargetDirectory(ops, stagingAt, { roots: sandbox.roots, displayPath: options.to });
    open.set(".", staging);
    journal = await recordStaging(target.handle, staging.handle, stagingName); // before it holds anything
    touching = touchWhileCopying(staging);
    const modeOf = async (at: string): Promise<number> =>
      options.keepMode ? ((await ops.statTarget(at))?.mode ?? 0o755) & 0o1777 : newDirectoryMode;
    let entries = 0;
    let bytes = 0;
    await walkHeldTree(ops, source, {
      roots: sourceRoots,
      displayPath: options.from,
      count: () => {
        if (++entries > options.maxEntries) throw tooManyEntriesError(options.from, "copy", options.maxEntries);
      },
      enter: async (entry) => {
        refuseReservedEntry(options.from, entry.rel);
        const parent = open.get(path.dirname(entry.rel))!;
        const at = parent.entry(path.basename(entry.rel));
        await ops.mkdir(at, 0o700);
        open.set(entry.rel, await openTargetDirectory(ops, at, { roots: sandbox.roots, displayPath: options.to }));
      },
      visit: async (entry, held) => {
        options.signal?.throwIfAborted();
        if (entry.isDirectory) {
          const dir = open.get(entry.rel)!;
          open.delete(entry.rel);
          try {
            await ops.chmod(dir.handle, await modeOf(entry.at));
            await ops.fsyncDir(dir.handle);
          } finally {
            await dir.close();
          }
          return;
        }
        refuseReservedEntry(options.from, entry.rel);
        const stats = await ops.statTarget(entry.at);
        if (stats === undefined) return; // removed meanwhile
        const parent = open.get(path.dirname(entry.rel))!;
        const copied = await copyEntryInto(
          ops,
          sandbox,
          { dir: held, name: path.basename(entry.rel) },
          stats,
          parent,
          path.basename(entry.rel),
          {
            overwrite: false,
            keepMode: options.keepMode,
            sourcePath: `${options.from}/${entry.rel}`,
            signal: options.signal,
          },
        );
        bytes += copied.size;
      },
    });
    await ops.chmod(
      staging.handle,
      options.keepMode ? (await fstatAsync(source.handle.fd)).mode & 0o1777 : newDirectoryMode,
    );
    await ops.fsyncDir(staging.handle);
    await placeEntry(ops, stagingAt, target.entry(name), true, false);
    made = false;
    await ops.fsyncDir(target.handle);
    await journal?.forget();
    return { bytesCopied: bytes, entriesCopied: entries + 1 };
  } catch (err) {
    for (const dir of [...open.values()].reverse()) await dir.close();
    open.clear();
    if (made && (await discardTree(ops, sandbox.roots, stagingAt))) await journal?.forget();
    if (isTakenError(err))
      throw alreadyExistsError(
        options.to,
        `copy directory '${options.from}' there`,
        "something appeared there meanwhile; choose another target.",
      );
    throw toWriteError(err, options.to, "copy");
  } finally {
    clearInterval(touching);
    for (const dir of open.values()) await dir.close();
    await source.close();
  }
}

/**
 * refuseReservedEntry refuses an entry of the source tree whose name has the temporary-file
 * prefix: the copy would create one under a name only toolhost's own staging areas carry, as no
 * client path may (the sandbox refuses them).
 */
function refuseReservedEntry(from: string, rel: string): void {
  if (path.basename(rel).startsWith(tempFilePrefix)) throw reservedNameInTreeError(`${from}/${rel}`, tempFilePrefix);
}

/** touchWhileCopying refreshes the staging folder's times every tempTouchMs (see copyTree); the caller clears it. */
function touchWhileCopying(staging: TargetDirectory): NodeJS.Timeout {
  const timer = setInterval(() => {
    const now = new Date();
    if (staging.handle.fd >= 0) futimes(staging.handle.fd, now, now, () => undefined); // closed meanwhile: the copy is over
  }, tempTouchMs);
  timer.unref();
  return timer;
}
