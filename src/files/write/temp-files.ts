import { randomBytes } from "node:crypto";
import { lstat, opendir, realpath, unlink } from "node:fs/promises";
import path from "node:path";

/**
 * tempFilePrefix starts the name of every temporary file an atomic write creates, so that stale
 * ones left by a crash can be told apart from user files and removed at start-up.
 */
export const tempFilePrefix = ".toolhost-tmp-";

/** tempFileName returns a fresh temporary file name: the prefix and 128 random bits. */
export function tempFileName(): string {
  return tempFilePrefix + randomBytes(16).toString("hex");
}

/** isTempFileName tells whether a directory entry's name is one of our temporary files. */
export function isTempFileName(name: string): boolean {
  return name.startsWith(tempFilePrefix) && name.length === tempFilePrefix.length + 32;
}

/** StaleTempReport is what removeStaleTempFiles did, for the start-up log. */
export interface StaleTempReport {
  /** Absolute paths of the temporary files removed. */
  readonly removed: string[];
  /** Entries that could not be read or removed, with the errno code; the server starts anyway. */
  readonly failures: { readonly path: string; readonly code: string }[];
}

/** StaleTempOptions tunes removeStaleTempFiles. */
export interface StaleTempOptions {
  /**
   * Keep temporary files modified less than this many ms ago. 0 (the default) removes all, which
   * is right when one server owns its roots; replicas sharing a volume should set a margin longer
   * than any upload may stall.
   */
  readonly olderThanMs?: number;
}

/**
 * removeStaleTempFiles walks every writable root and deletes the temporary files a crashed atomic
 * write left behind. Read-only roots are skipped, also where one is nested inside a writable root:
 * this server never wrote there. Symlinks are not followed, so nothing outside the roots is
 * touched. Failures do not stop the walk; they are returned so that the caller logs them.
 */
export async function removeStaleTempFiles(
  roots: readonly { readonly path: string; readonly readOnly?: boolean }[],
  options: StaleTempOptions = {},
): Promise<StaleTempReport> {
  const report: StaleTempReport = { removed: [], failures: [] };
  // No age limit means no stat: a file just written may carry an mtime a hair past Date.now().
  const cutoff = (options.olderThanMs ?? 0) > 0 ? Date.now() - (options.olderThanMs ?? 0) : undefined;
  const readOnly = await realPaths(roots.filter((root) => root.readOnly === true));
  const pending = [...(await realPaths(roots.filter((root) => root.readOnly !== true)))];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    if (readOnly.has(dir)) {
      continue; // A read-only root nested in a writable one: never this server's to clean.
    }
    let entries;
    try {
      entries = await opendir(dir);
    } catch (err) {
      noteFailure(report, dir, err);
      continue;
    }
    for await (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        pending.push(full);
      } else if (entry.isFile() && isTempFileName(entry.name)) {
        await removeIfStale(full, cutoff, report);
      }
    }
  }
  return report;
}

/**
 * realPaths resolves roots to real paths, so a nested read-only root is recognised however it
 * was configured (relative, through a link). A root that cannot be resolved keeps its absolute
 * path: the walk then reports it, as before.
 */
async function realPaths(roots: readonly { readonly path: string }[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const root of roots) {
    out.add(await realpath(root.path).catch(() => path.resolve(root.path)));
  }
  return out;
}

async function removeIfStale(file: string, cutoff: number | undefined, report: StaleTempReport): Promise<void> {
  try {
    if (cutoff !== undefined && (await lstat(file)).mtimeMs > cutoff) {
      return;
    }
    await unlink(file);
    report.removed.push(file);
  } catch (err) {
    noteFailure(report, file, err);
  }
}

function noteFailure(report: StaleTempReport, file: string, err: unknown): void {
  const code = (err as NodeJS.ErrnoException).code ?? "UNKNOWN";
  // A file or directory that vanished during the walk needs no cleaning: not a failure.
  if (code !== "ENOENT") {
    report.failures.push({ path: file, code });
  }
}
