import { lstat, open, realpath, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { handleRealPath, procFdPath } from "../../sandbox/verify-handle.js";
import { removeStagingFolder } from "./remove-staging-folder.js";
import { identityOf, readStagingRecords, type StagingRecord } from "./staging-journal.js";
import { directoryFlags, isStale, noteFailure, type Sweep } from "./sweep-state.js";

/**
 * sweepJournal removes the staging folders the journal in `dir` records, in the writable roots
 * `writable`, whose writer is gone: each only if its parent folder (opened O_DIRECTORY, checked
 * at the recorded real path) and the folder itself still have the recorded device and inode.
 * A record whose folder is gone or is another folder now is dropped; one of a live writer, or
 * of a folder outside these roots (another server's), is kept. A journal that lies in a root or
 * holds one is not trusted (a client could write it): it is reported and not read.
 */
export async function sweepJournal(sweep: Sweep, writable: readonly string[], dir: string | undefined): Promise<void> {
  if (dir === undefined) return;
  const real = await realpath(dir).catch(() => undefined);
  if (real === undefined) return; // no journal yet: nothing recorded
  const all = [...writable, ...sweep.readOnly];
  if (all.some((root) => within(real, root) || within(root, real))) {
    sweep.report.failures.push({ path: dir, code: "JOURNAL_IN_ROOT" });
    return;
  }
  for (const { file, record } of await readStagingRecords(real)) {
    if (record === undefined) {
      await unlink(file).catch(() => undefined); // cut short by a crash: names nothing
      continue;
    }
    const at = path.join(record.parent, record.name);
    if (!writable.some((root) => within(record.parent, root)) || [...sweep.readOnly].some((root) => within(at, root))) {
      // Another server's (or a root no longer served): kept, unless its folder is gone with its parent.
      if ((await lstat(record.parent).catch((err: NodeJS.ErrnoException) => err.code)) === "ENOENT")
        await unlink(file).catch(() => undefined);
      continue;
    }
    if (await removeRecorded(sweep, record, at)) await unlink(file).catch(() => undefined);
    else sweep.recorded.add(at); // kept (a live copy's, or not yet removable): its record still names it
  }
}

/** removeRecorded removes one recorded staging folder if its writer is gone; true when its record is done with. */
async function removeRecorded(sweep: Sweep, record: StagingRecord, at: string): Promise<boolean> {
  let parent: FileHandle;
  try {
    parent = await open(record.parent, directoryFlags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return true; // the folder went with its parent
    noteFailure(sweep.report, record.parent, err);
    return false;
  }
  try {
    const actual = await handleRealPath(parent.fd);
    if ((actual !== undefined && actual !== record.parent) || (await identityOf(parent.fd)) !== record.parentId)
      return true; // another folder now
    const base = actual === undefined ? record.parent : procFdPath(parent.fd);
    const stats = await lstat(path.join(base, record.name), { bigint: true }).catch(() => undefined);
    if (stats === undefined || !stats.isDirectory() || `${stats.dev}:${stats.ino}` !== record.id) return true; // gone, or not the folder made
    if (!(await isStale(sweep, path.join(base, record.name), record.name, { mtimeMs: Number(stats.mtimeMs) }, false)))
      return false; // a live copy's
    if (!(await removeStagingFolder(sweep, base, record.name, at, record.id))) return false;
    sweep.report.removed.push(at);
    return true;
  } catch (err) {
    noteFailure(sweep.report, at, err);
    return false;
  } finally {
    await parent.close().catch(() => undefined);
  }
}

/** within tells whether real path `inner` is `outer` or lies below it. */
function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
