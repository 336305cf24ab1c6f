import { fsAt } from "../native/fs-at.js";
import type { ContentRules } from "./content-rules.js";

/*
 * The content path's native half: the addon's two content reads (native/fs-at/fs-at.c's
 * readFileAt and readBatch, which hold, count, reopen, check the one name after a folder barrier
 * and check the folder, as open-content.ts does in JavaScript) are called from here only, always
 * with the caller's rules: the hard-link rule is never left to a default. Their codes and buffers
 * are the caller's business (src/files/search/read-file-at.ts); where the file is (rule 3) the
 * addon checks against the folder's verified path, and the search checks each folder in the roots.
 */

/** nativeContentReads says whether the addon is loaded: else the callers take open-content.ts's JavaScript path. */
export const nativeContentReads: boolean = fsAt !== undefined;

/** readContentAt is the addon's readFileAt under `rules` (see FsAt.readFileAt). */
export function readContentAt(
  dirFd: number,
  name: string,
  buffer: Buffer,
  limit: number,
  info: Float64Array,
  needles: Buffer | null,
  rules: ContentRules,
): number {
  return addon().readFileAt(dirFd, name, buffer, limit, info, needles, rules.allowHardLinks === true);
}

/** readContentBatch is the addon's readBatch under `rules` (see FsAt.readBatch). */
export function readContentBatch(
  dirFds: Int32Array,
  names: string,
  from: number,
  buffer: Buffer,
  limit: number,
  needles: Buffer | null,
  results: Float64Array,
  folderPaths: string | null,
  rules: ContentRules,
): number {
  return addon().readBatch(
    dirFds,
    names,
    from,
    buffer,
    limit,
    needles,
    results,
    folderPaths,
    rules.allowHardLinks === true,
  );
}

/** NativeContentReads are the two reads as one value (the default of the search's callers; tests of their buffer handling give their own). */
export interface NativeContentReads {
  readContentAt: typeof readContentAt;
  readContentBatch: typeof readContentBatch;
}

/** nativeContent is the addon's reads under the rules given. */
export const nativeContent: NativeContentReads = { readContentAt, readContentBatch };

function addon(): NonNullable<typeof fsAt> {
  if (fsAt === undefined) throw new Error("the native addon is not loaded (check nativeContentReads first)");
  return fsAt;
}
