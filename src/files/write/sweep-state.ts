import { constants, type Stats } from "node:fs";
import { lockTimings, ownerGone } from "./file-lock.js";
import { tempFileOwner } from "./temp-files.js";
import { isWriterGone } from "./writer-identity.js";

/** StaleTempReport is what removeStaleTempFiles did, for the start-up log. */
export interface StaleTempReport {
  /** Absolute paths of the temporary files, links and staging folders removed. */
  readonly removed: string[];
  /**
   * Folders under a temporary-file name whose writer is gone (or that are old) but which no
   * journal record names (staging-journal.ts): left alone, for the start-up log. A name alone
   * never deletes a folder: it may be a user's, or a tree copied from elsewhere.
   */
  readonly unrecorded: string[];
  /** Entries that could not be read or removed, with the errno code; the server starts anyway. */
  readonly failures: { readonly path: string; readonly code: string }[];
}

/** directoryFlags open a folder of the sweep: never through a link, never blocking on a FIFO. */
export const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Sweep is one start-up sweep's state: what it did so far and what it must leave alone. */
export interface Sweep {
  readonly report: StaleTempReport;
  readonly readOnly: ReadonlySet<string>;
  readonly staleMs: number;
  readonly maxDepth: number;
  /** Real paths of the staging folders journal records still name (removed or kept). */
  readonly recorded: Set<string>;
}

/**
 * isStale tells whether a candidate's writer is known to be gone (a lock file's owner, or the
 * writer its temporary name names, of our pid namespace and exited), or whether it is older than
 * the sweep's bound (a lock file's own, shorter, bound).
 */
export async function isStale(
  sweep: Sweep,
  file: string,
  name: string,
  stats: Pick<Stats, "mtimeMs">,
  lock: boolean,
): Promise<boolean> {
  const owner = tempFileOwner(name);
  const gone = lock ? await ownerGone(file) : owner !== undefined && isWriterGone(owner.identity, owner.pid);
  return gone || Date.now() - stats.mtimeMs > (lock ? Math.min(sweep.staleMs, lockTimings.staleMs) : sweep.staleMs);
}

/** noteFailure adds a failure to the report; an entry that vanished meanwhile is none. */
export function noteFailure(report: StaleTempReport, file: string, err: unknown): void {
  const code = (err as NodeJS.ErrnoException).code ?? "UNKNOWN";
  // A file or directory that vanished during the walk needs no cleaning: not a failure.
  if (code !== "ENOENT") {
    report.failures.push({ path: file, code });
  }
}
