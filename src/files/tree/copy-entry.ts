import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { errnoCode } from "../../sandbox/fs-error.js";
import type { ReadHandle, Sandbox } from "../../sandbox/sandbox.js";
import { createSha256 } from "../content-hash.js";
import { applyOwnerAndMode } from "../write/owner-mode.js";
import type { TargetDirectory } from "../write/target-directory.js";
import { tempFileName } from "../write/temp-files.js";
import { entryKind } from "./entry-kind.js";
import { placeEntry } from "./place-entry.js";
import type { TreeFsOps } from "./tree-fs-ops.js";

/** CopiedEntry says what copyEntryInto wrote. */
export interface CopiedEntry {
  /** SHA-256 of a copied regular file; "" for a link. */
  readonly sha256: string;
  readonly size: number;
  /** True when an existing entry was replaced. */
  readonly overwritten: boolean;
}

/** CopySource is the entry copied: `name` in the held directory `dir`. */
export interface CopySource {
  readonly dir: TargetDirectory;
  readonly name: string;
}

/** CopyEntryOptions tunes copyEntryInto. */
export interface CopyEntryOptions {
  readonly overwrite: boolean;
  /** Give the copy the source's permission bits (less set-id); else the new-file default. */
  readonly keepMode: boolean;
  /** The source as the client named it, for refusals. */
  readonly sourcePath: string;
  readonly signal?: AbortSignal | undefined;
  /** Runs the placement (the look at the target and the rename or link): CopyFile holds the target's path lock around it. */
  readonly placeUnder?: (<T>(place: () => Promise<T>) => Promise<T>) | undefined;
}

/**
 * copyEntryInto copies the file or symbolic link `from` (an entry of its held parent) to `name`
 * in the held directory `dir`, atomically as WriteFile writes: a temporary file in `dir`,
 * written, fsynced, given its mode, then put in place by placeEntry (rename with overwrite,
 * link+unlink without, so an existing entry is never replaced unasked), then `dir` fsynced. A
 * file's bytes are read through the sandbox's content path (so a file with several hard links is
 * refused unless allowed: a 1-link copy of it would be readable); a link is copied as a link (its
 * target text unchanged, never followed). Any failure removes the temporary entry and leaves the
 * target as it was.
 */
export async function copyEntryInto(
  ops: TreeFsOps,
  sandbox: Pick<Sandbox, "openContentAt">,
  from: CopySource,
  fromStats: Stats,
  dir: TargetDirectory,
  name: string,
  options: CopyEntryOptions,
): Promise<CopiedEntry> {
  const temp = dir.entry(tempFileName());
  const final = dir.entry(name);
  let staged = false;
  try {
    let result: { sha256: string; size: number };
    if (fromStats.isSymbolicLink()) {
      await ops.symlink(await ops.readlink(from.dir.entry(from.name)), temp);
      staged = true;
      result = { sha256: "", size: 0 };
    } else if (fromStats.isFile()) {
      const opened = await sandbox.openContentAt(from.dir.handle, from.name, options.sourcePath);
      const source = opened.handle;
      const sourceStats = opened.stats;
      try {
        const out = await ops.openExclusive(temp, 0o600);
        staged = true;
        try {
          result = await copyBytes(ops, source, out, options.signal);
          await ops.fsync(out);
          const current = options.overwrite ? await ops.statTarget(final) : undefined;
          if (options.keepMode) await ops.chmod(out, sourceStats.mode & 0o1777);
          else await applyOwnerAndMode(ops, out, current?.isFile() === true ? current : undefined, undefined);
        } finally {
          await ops.close(out);
        }
      } finally {
        await source.close();
      }
    } else {
      throw notFileError(options.sourcePath, fromStats);
    }
    const place = async (): Promise<boolean> => {
      const overwritten = options.overwrite && (await ops.statTarget(final)) !== undefined;
      await placeEntry(ops, temp, final, false, options.overwrite);
      return overwritten;
    };
    const overwritten = await (options.placeUnder === undefined ? place() : options.placeUnder(place));
    staged = false;
    await ops.fsyncDir(dir.handle);
    return { ...result, overwritten };
  } catch (err) {
    if (staged) await ops.unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** copyBytes streams `source` into `out` with bounded memory, hashing as it goes. */
async function copyBytes(
  ops: TreeFsOps,
  source: ReadHandle,
  out: FileHandle,
  signal: AbortSignal | undefined,
): Promise<{ sha256: string; size: number }> {
  const hash = createSha256();
  const buffer = Buffer.allocUnsafe(256 * 1024);
  let position = 0;
  for (;;) {
    signal?.throwIfAborted();
    const { bytesRead } = await source.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return { sha256: hash.digest("hex"), size: position };
    hash.update(buffer.subarray(0, bytesRead));
    for (let done = 0; done < bytesRead; ) {
      done += await ops.write(out, buffer, done, bytesRead - done, position + done);
    }
    position += bytesRead;
  }
}

function notFileError(clientPath: string, stats: Stats): ToolhostError {
  return new ToolhostError(
    "NOT_A_REGULAR_FILE",
    `Cannot copy '${clientPath}': the source is a ${entryKind(stats)}; only files, symbolic links and (with recursive) directories are copied.`,
    { path: clientPath },
  );
}

/** isTakenError tells whether a placement failed because the target name is taken. */
export function isTakenError(err: unknown): boolean {
  return errnoCode(err) === "EEXIST";
}
